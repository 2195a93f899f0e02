//! Bytes-like arguments. `bytes` is borrowed without a copy; `bytearray`, `memoryview`
//! and other buffer objects are copied once (so the GIL can be released safely while the
//! core reads them). `str` is refused with a `TypeError`, which PyO3 prefixes with the
//! argument's name.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// An immutable view of a bytes-like argument; `Deref<Target = [u8]>`.
pub struct Bytes(PyBackedBytes);

impl core::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Bytes {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Bytes(PyBackedBytes::from(b.to_owned())));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(Bytes(PyBackedBytes::from(b.to_owned())));
        }
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "expected a bytes-like object, got str (encode it first)",
            ));
        }
        // Any other object supporting the buffer protocol (memoryview, array, numpy...).
        let py = obj.py();
        let as_bytes = py
            .get_type::<PyBytes>()
            .call1((py.get_type::<pyo3::types::PyMemoryView>().call1((obj,))?,))
            .map_err(|_| {
                let name = obj
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| "object".into());
                PyTypeError::new_err(format!("expected a bytes-like object, got {name}"))
            })?;
        Ok(Bytes(PyBackedBytes::from(as_bytes.cast_into::<PyBytes>()?)))
    }
}

/// Work on at least this many bytes releases the GIL.
pub const DETACH_THRESHOLD: usize = 2048;

/// Runs `f` without the GIL when `len` is large enough to pay for the hand-off.
pub fn maybe_detach<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, len: usize, f: F) -> T {
    if len >= DETACH_THRESHOLD {
        py.detach(f)
    } else {
        f()
    }
}

/// Builds a `bytes` of `len` bytes filled in place by `fill` (no intermediate copy),
/// releasing the GIL for large outputs.
pub fn new_bytes<'py, F>(py: Python<'py>, len: usize, fill: F) -> PyResult<Bound<'py, PyBytes>>
where
    F: FnOnce(&mut [u8]) -> PyResult<()> + Send,
{
    PyBytes::new_with(py, len, |out| maybe_detach(py, len, || fill(out)))
}
