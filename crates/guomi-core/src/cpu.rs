//! Runtime CPU-feature detection and backend selection.
//!
//! Backends form a ladder; each algorithm uses the best implementation it has at or
//! below the active level:
//!
//! | backend    | requires (x86-64)                                               |
//! |------------|-----------------------------------------------------------------|
//! | `portable` | nothing: plain Rust, constant time, every platform             |
//! | `avx2`     | AVX2, AES-NI, PCLMULQDQ, BMI1/BMI2, SSSE3                        |
//! | `avx512`   | `avx2` plus AVX-512 F/BW/VL, GFNI, VAES, VPCLMULQDQ              |
//!
//! The active backend is the best one this CPU supports, unless forced:
//! * the environment variable `GUOMI_BACKEND=portable|avx2|avx512` (read once), or
//! * [`force`] (process-wide), or
//! * [`with_backend`] (the current thread only; what tests use to run every backend).
//!
//! Forcing a backend that the CPU lacks is an error, never a silent fallback.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// An implementation level. Ordered: a higher level may use everything a lower one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Backend {
    /// Plain Rust, constant time, any CPU.
    Portable = 0,
    /// x86-64 AVX2 + AES-NI + PCLMULQDQ + BMI2.
    Avx2 = 1,
    /// x86-64 AVX-512 (F/BW/VL) + GFNI + VAES + VPCLMULQDQ.
    Avx512 = 2,
}

impl Backend {
    /// All backends, lowest first.
    pub const ALL: [Backend; 3] = [Backend::Portable, Backend::Avx2, Backend::Avx512];

    /// The backend's name as used by `GUOMI_BACKEND` and the Python API.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// Parses a backend name.
    pub fn parse(name: &str) -> Result<Backend> {
        match name.trim().to_ascii_lowercase().as_str() {
            "portable" => Ok(Backend::Portable),
            "avx2" => Ok(Backend::Avx2),
            "avx512" => Ok(Backend::Avx512),
            _ => Err(Error::UnsupportedBackend(
                "unknown backend: expected portable, avx2 or avx512",
            )),
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        self <= detected()
    }

    fn from_u8(v: u8) -> Option<Backend> {
        Backend::ALL.get(v as usize).copied()
    }
}

/// The best backend this CPU supports (detected once).
pub fn detected() -> Backend {
    static DETECTED: OnceLock<Backend> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Backend {
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("avx2")
        && has!("aes")
        && has!("pclmulqdq")
        && has!("bmi1")
        && has!("bmi2")
        && has!("ssse3")
        && has!("sse4.1");
    if !avx2 {
        return Backend::Portable;
    }
    let avx512 = has!("avx512f")
        && has!("avx512bw")
        && has!("avx512vl")
        && has!("gfni")
        && has!("vaes")
        && has!("vpclmulqdq");
    if avx512 {
        Backend::Avx512
    } else {
        Backend::Avx2
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Backend {
    Backend::Portable
}

/// Every backend this CPU supports, lowest first.
pub fn available() -> Vec<Backend> {
    Backend::ALL
        .iter()
        .copied()
        .filter(|b| b.is_supported())
        .collect()
}

const AUTO: u8 = u8::MAX;
static FORCED: AtomicU8 = AtomicU8::new(AUTO);
static ENV_FORCED: OnceLock<Option<Backend>> = OnceLock::new();

thread_local! {
    static THREAD_FORCED: Cell<Option<Backend>> = const { Cell::new(None) };
}

fn env_forced() -> Option<Backend> {
    *ENV_FORCED.get_or_init(|| {
        let name = std::env::var("GUOMI_BACKEND").ok()?;
        if name.trim().is_empty() || name.trim().eq_ignore_ascii_case("auto") {
            return None;
        }
        // An unusable request falls back to detection here; `check_env` reports it.
        Backend::parse(&name).ok().filter(|b| b.is_supported())
    })
}

/// Reports whether `GUOMI_BACKEND` names a backend this CPU can run (Ok when unset).
pub fn check_env() -> Result<()> {
    match std::env::var("GUOMI_BACKEND") {
        Ok(name) if !name.trim().is_empty() && !name.trim().eq_ignore_ascii_case("auto") => {
            let b = Backend::parse(&name)?;
            if b.is_supported() {
                Ok(())
            } else {
                Err(Error::UnsupportedBackend(
                    "GUOMI_BACKEND names a backend this CPU does not support",
                ))
            }
        }
        _ => Ok(()),
    }
}

/// The backend in use on this thread: thread override, then [`force`], then
/// `GUOMI_BACKEND`, then detection.
#[inline]
pub fn active() -> Backend {
    if let Some(b) = THREAD_FORCED.with(Cell::get) {
        return b;
    }
    if let Some(b) = Backend::from_u8(FORCED.load(Ordering::Relaxed)) {
        return b;
    }
    env_forced().unwrap_or_else(detected)
}

/// Forces a backend for the whole process (`None` returns to automatic selection).
pub fn force(backend: Option<Backend>) -> Result<()> {
    match backend {
        None => FORCED.store(AUTO, Ordering::Relaxed),
        Some(b) if b.is_supported() => FORCED.store(b as u8, Ordering::Relaxed),
        Some(_) => {
            return Err(Error::UnsupportedBackend(
                "this CPU does not support the requested backend",
            ))
        }
    }
    Ok(())
}

/// Runs `f` with `backend` forced on the current thread only.
///
/// # Panics
/// If the CPU does not support `backend` (this is a test helper).
pub fn with_backend<T>(backend: Backend, f: impl FnOnce() -> T) -> T {
    assert!(
        backend.is_supported(),
        "backend {} not supported on this CPU",
        backend.name()
    );
    struct Restore(Option<Backend>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(THREAD_FORCED.with(|c| c.replace(Some(backend))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_and_names() {
        assert!(Backend::Portable < Backend::Avx2 && Backend::Avx2 < Backend::Avx512);
        for b in Backend::ALL {
            assert_eq!(Backend::parse(b.name()).unwrap(), b);
        }
        assert!(Backend::parse("sse9").is_err());
        assert!(available().contains(&Backend::Portable));
    }

    #[test]
    fn thread_override_restores() {
        let before = active();
        with_backend(Backend::Portable, || {
            assert_eq!(active(), Backend::Portable)
        });
        assert_eq!(active(), before);
    }
}
