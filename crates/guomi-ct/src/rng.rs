//! A `getrandom(3)` shim that marks the OS randomness secret for valgrind.
//!
//! guomi-core draws keys and nonces through the `getrandom` crate, which on Linux looks
//! up `getrandom` with `dlsym(RTLD_DEFAULT, ...)`. `build.rs` exports this function from
//! the executable, so the lookup finds it first. It makes the real system call and then,
//! while [`secret_randomness`] is in force, marks the returned bytes undefined: keys from
//! `generate()` and signing/encryption nonces become secrets that memcheck tracks.
//! Outside valgrind the marking is a no-op and the bytes are the kernel's.
// An exported, unmangled `extern "C"` function making a raw system call.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static POISON: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// The `getrandom(2)` wrapper (same contract as glibc's).
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes (the libc contract).
#[no_mangle]
pub unsafe extern "C" fn getrandom(
    buf: *mut libc::c_void,
    len: libc::size_t,
    flags: libc::c_uint,
) -> libc::ssize_t {
    // SAFETY: forwards the caller's buffer and length unchanged to the system call.
    let r = unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) } as libc::ssize_t;
    CALLS.fetch_add(1, Ordering::SeqCst);
    if r > 0 && POISON.load(Ordering::SeqCst) {
        crate::valgrind::make_undefined_raw(buf as *const u8, r as usize);
    }
    r
}

/// Runs `f` with every byte from the OS CSPRNG marked secret.
pub fn secret_randomness<R>(f: impl FnOnce() -> R) -> R {
    struct Off;
    impl Drop for Off {
        fn drop(&mut self) {
            POISON.store(false, Ordering::SeqCst);
        }
    }
    POISON.store(true, Ordering::SeqCst);
    let _off = Off;
    f()
}

/// Whether this shim is the `getrandom` that guomi-core's RNG reaches. The harness fails
/// loudly when it is not, since every "secret nonce" check would then be vacuous.
pub fn shim_in_use() -> bool {
    CALLS.store(0, Ordering::SeqCst);
    let _ = secret_randomness(guomi_core::rand::bytes::<8>);
    CALLS.load(Ordering::SeqCst) > 0
}
