//! `guomi._native.sm3`: SM3, HMAC-SM3 and the SM3 KDFs.

use crate::buf::{maybe_detach, new_bytes, Bytes};
use crate::error::IntoPy;
use guomi_core::sm3::{self, hmac::HmacSm3, kdf as core_kdf, Sm3};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn to_hex(d: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// SM3 of `data`.
#[guard_panics]
#[pyfunction]
fn hash<'py>(py: Python<'py>, data: Bytes) -> Bound<'py, PyBytes> {
    let d = maybe_detach(py, data.len(), || sm3::hash(&data));
    PyBytes::new(py, &d)
}

/// SM3 of every message, in order; `threads` as in the core's `hash_many`.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (messages, threads=None))]
fn hash_many<'py>(
    py: Python<'py>,
    messages: Vec<Bytes>,
    threads: Option<usize>,
) -> Vec<Bound<'py, PyBytes>> {
    let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    let total: usize = slices.iter().map(|m| m.len()).sum();
    let digests = maybe_detach(py, total, || sm3::many::hash_many(&slices, threads));
    digests.iter().map(|d| PyBytes::new(py, d)).collect()
}

/// SM3 of a file read in 1 MiB chunks without the GIL.
#[guard_panics]
#[pyfunction]
fn hash_path<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyBytes>> {
    let d = py.detach(|| -> std::io::Result<[u8; 32]> {
        use std::io::Read;
        let mut f = std::fs::File::open(&path)?;
        let mut h = Sm3::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        Ok(h.finalize())
    })?;
    Ok(PyBytes::new(py, &d))
}

/// The hashlib-style SM3 object.
#[pyclass(module = "guomi.sm3", name = "SM3")]
#[derive(Clone)]
struct PySm3(Sm3);

#[guard_panics]
#[pymethods]
impl PySm3 {
    #[new]
    #[pyo3(signature = (data=None))]
    fn new(py: Python<'_>, data: Option<Bytes>) -> Self {
        let mut h = Sm3::new();
        if let Some(d) = data {
            maybe_detach(py, d.len(), || h.update(&d));
        }
        PySm3(h)
    }

    fn update(&mut self, py: Python<'_>, data: Bytes) {
        let h = &mut self.0;
        maybe_detach(py, data.len(), || h.update(&data));
    }

    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.digest())
    }

    fn hexdigest(&self) -> String {
        to_hex(&self.0.digest())
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    #[getter]
    fn name(&self) -> &'static str {
        "sm3"
    }

    #[getter]
    fn digest_size(&self) -> usize {
        sm3::DIGEST_SIZE
    }

    #[getter]
    fn block_size(&self) -> usize {
        sm3::BLOCK_SIZE
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm3.SM3 object>"
    }
}

/// HMAC-SM3 of `data` under `key`.
#[guard_panics]
#[pyfunction]
fn hmac<'py>(py: Python<'py>, key: Bytes, data: Bytes) -> Bound<'py, PyBytes> {
    let t = maybe_detach(py, data.len(), || sm3::hmac::hmac(&key, &data));
    PyBytes::new(py, &t)
}

/// Streaming HMAC-SM3.
#[pyclass(module = "guomi.sm3", name = "HMAC")]
#[derive(Clone)]
struct PyHmac(HmacSm3);

#[guard_panics]
#[pymethods]
impl PyHmac {
    #[new]
    #[pyo3(signature = (key, data=None))]
    fn new(py: Python<'_>, key: Bytes, data: Option<Bytes>) -> Self {
        let mut m = HmacSm3::new(&key);
        if let Some(d) = data {
            maybe_detach(py, d.len(), || m.update(&d));
        }
        PyHmac(m)
    }

    fn update(&mut self, py: Python<'_>, data: Bytes) {
        let m = &mut self.0;
        maybe_detach(py, data.len(), || m.update(&data));
    }

    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.tag())
    }

    fn hexdigest(&self) -> String {
        to_hex(&self.0.tag())
    }

    /// Constant-time comparison with `tag` against the full 32-byte tag, or against a
    /// caller-fixed truncated length `tag_length` (4..=32 bytes). A tag of any other
    /// length is `False`; a `tag_length` outside 4..=32 raises InvalidArgument.
    #[pyo3(signature = (tag, *, tag_length=None))]
    fn verify(&self, tag: Bytes, tag_length: Option<usize>) -> PyResult<bool> {
        match tag_length {
            None => Ok(self.0.verify(&tag)),
            Some(n) => self.0.verify_truncated(&tag, n).py_err(),
        }
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    #[getter]
    fn name(&self) -> &'static str {
        "hmac-sm3"
    }

    #[getter]
    fn digest_size(&self) -> usize {
        sm3::DIGEST_SIZE
    }

    #[getter]
    fn block_size(&self) -> usize {
        sm3::BLOCK_SIZE
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm3.HMAC object>"
    }
}

/// A checked KDF output length as `usize` (it always fits on 64-bit platforms).
fn out_len(length: u64) -> PyResult<usize> {
    usize::try_from(length)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("output too large for this platform"))
}

/// GM/T 0003 KDF; `length` at most 2^30 bytes per call, checked before allocating.
#[guard_panics]
#[pyfunction]
fn kdf<'py>(py: Python<'py>, z: Bytes, length: u64) -> PyResult<Bound<'py, PyBytes>> {
    core_kdf::check_kdf_call_len(length).py_err()?;
    new_bytes(py, out_len(length)?, |out| {
        core_kdf::try_kdf_into(&z, out).py_err()
    })
}

/// PBKDF2-HMAC-SM3; `iterations` 1 to 10,000,000, `length` at most 2^20 bytes, both
/// checked before allocating.
#[guard_panics]
#[pyfunction]
fn pbkdf2_hmac<'py>(
    py: Python<'py>,
    password: Bytes,
    salt: Bytes,
    iterations: u64,
    length: u64,
) -> PyResult<Bound<'py, PyBytes>> {
    core_kdf::check_pbkdf2_iterations(iterations).py_err()?;
    core_kdf::check_pbkdf2_call_len(length).py_err()?;
    let iterations = iterations as u32; // checked: at most MAX_PBKDF2_ITERATIONS
                                        // PBKDF2 is slow on purpose: always release the GIL.
    PyBytes::new_with(py, out_len(length)?, |out| {
        py.detach(|| core_kdf::pbkdf2_hmac_sm3(&password, &salt, iterations, out))
            .py_err()
    })
}

/// HKDF-SM3 (RFC 5869).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (ikm, length, salt, info))]
fn hkdf<'py>(
    py: Python<'py>,
    ikm: Bytes,
    length: u64,
    salt: Bytes,
    info: Bytes,
) -> PyResult<Bound<'py, PyBytes>> {
    core_kdf::check_hkdf_len(length).py_err()?;
    new_bytes(py, out_len(length)?, |out| {
        core_kdf::hkdf(&ikm, &salt, &info, out).py_err()
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash, m)?)?;
    m.add_function(wrap_pyfunction!(hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(hash_path, m)?)?;
    m.add_function(wrap_pyfunction!(hmac, m)?)?;
    m.add_function(wrap_pyfunction!(kdf, m)?)?;
    m.add_function(wrap_pyfunction!(pbkdf2_hmac, m)?)?;
    m.add_function(wrap_pyfunction!(hkdf, m)?)?;
    m.add_class::<PySm3>()?;
    m.add_class::<PyHmac>()?;
    Ok(())
}
