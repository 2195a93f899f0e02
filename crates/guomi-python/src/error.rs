//! The one place where core errors become Python exceptions (classes defined in
//! `guomi/exceptions.py`).

use guomi_core::Error;
use pyo3::PyErr;

pyo3::import_exception!(guomi.exceptions, InvalidLength);
pyo3::import_exception!(guomi.exceptions, InvalidArgument);
pyo3::import_exception!(guomi.exceptions, InvalidPadding);
pyo3::import_exception!(guomi.exceptions, InvalidTag);
pyo3::import_exception!(guomi.exceptions, DecryptionError);
pyo3::import_exception!(guomi.exceptions, InvalidKey);
pyo3::import_exception!(guomi.exceptions, InvalidSignature);
pyo3::import_exception!(guomi.exceptions, UnsupportedFormat);
pyo3::import_exception!(guomi.exceptions, KeystreamReuse);
pyo3::import_exception!(guomi.exceptions, AlreadyFinalized);
pyo3::import_exception!(guomi.exceptions, RandomnessError);
pyo3::import_exception!(guomi.exceptions, UnsupportedBackend);
pyo3::import_exception!(guomi.exceptions, InternalError);

/// Converts a core error into its Python exception.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::InvalidLength { .. } => InvalidLength::new_err(msg),
        Error::InvalidValue(_) => InvalidArgument::new_err(msg),
        Error::InvalidPadding => InvalidPadding::new_err(msg),
        Error::InvalidTag => InvalidTag::new_err(msg),
        Error::DecryptionFailed => DecryptionError::new_err(msg),
        Error::InvalidKey(_) => InvalidKey::new_err(msg),
        Error::InvalidSignature => InvalidSignature::new_err(msg),
        Error::UnsupportedFormat(_) => UnsupportedFormat::new_err(msg),
        Error::KeystreamReuse => KeystreamReuse::new_err(msg),
        Error::AlreadyFinalized => AlreadyFinalized::new_err(msg),
        Error::Random => RandomnessError::new_err(msg),
        Error::UnsupportedBackend(_) => UnsupportedBackend::new_err(msg),
    }
}

/// `?`-friendly conversion of core results.
pub trait IntoPy<T> {
    fn py_err(self) -> pyo3::PyResult<T>;
}

impl<T> IntoPy<T> for guomi_core::Result<T> {
    fn py_err(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}

/// Runs one binding function body; a Rust panic inside it becomes
/// `guomi.exceptions.InternalError` instead of PyO3's `PanicException` (a
/// `BaseException` that `except Exception` does not catch). Applied to every function by
/// `#[guard_panics]` (crate `guomi-python-macros`). The panic hook has already printed the
/// panic and its location to stderr, so the bug stays diagnosable.
pub fn guard<T>(f: impl FnOnce() -> pyo3::PyResult<T>) -> pyo3::PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(InternalError::new_err(format!(
                "internal error in guomi (a bug; please report it): {what}"
            )))
        }
    }
}
