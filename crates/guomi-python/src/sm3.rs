//! `guomi._native.sm3`: SM3, HMAC-SM3 and the SM3 KDFs.

use crate::buf::{maybe_detach, new_bytes, Bytes};
use crate::error::IntoPy;
use crate::locked::Locked;
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

/// SM3 digest (GB/T 32905-2016) of ``data``, in one call.
///
/// Args:
///     data: the message; any bytes-like object (``bytes``, ``bytearray``,
///         ``memoryview``, any buffer). The GIL is released from 2 KiB on.
///
/// Returns:
///     bytes: the 32-byte digest.
///
/// Raises:
///     TypeError: ``data`` is not bytes-like (a ``str`` included: encode it first).
///
/// Example:
///     >>> from guomi import sm3
///     >>> sm3.hash(b"abc").hex()
///     '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'
#[guard_panics]
#[pyfunction]
fn hash<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    // Fast path: a short `bytes` is hashed straight from the object (which the caller
    // keeps alive for the call), without taking a counted reference.
    if let Ok(b) = data.cast::<PyBytes>() {
        let d = b.as_bytes();
        if d.len() < crate::buf::DETACH_THRESHOLD {
            return Ok(PyBytes::new(py, &sm3::hash(d)));
        }
    }
    let data: Bytes = data.extract().map_err(|e: PyErr| {
        pyo3::exceptions::PyTypeError::new_err(format!("argument 'data': {}", e.value(py)))
    })?;
    let d = maybe_detach(py, data.len(), || sm3::hash(&data));
    Ok(PyBytes::new(py, &d))
}

/// SM3 digests of many messages in one call (the binding behind
/// ``guomi.sm3.hash_many``, which also accepts any sequence and checks ``threads``).
///
/// Args:
///     messages: a list of bytes-like messages.
///     threads: ``None`` or ``1`` = the calling thread only, ``0`` = every core,
///         ``n`` = at most ``n`` threads; clamped to the number of CPUs. Batches under
///         64 KiB run on the calling thread whatever the value.
///
/// Returns:
///     list[bytes]: the 32-byte digests, in the order of ``messages``.
///
/// Raises:
///     TypeError: ``messages`` is not a list of bytes-like objects.
///     OverflowError: ``threads`` is negative.
///
/// Example:
///     >>> from guomi._native import sm3
///     >>> [d.hex()[:8] for d in sm3.hash_many([b"abc", b""], None)]
///     ['66c7f0f4', '1ab21d83']
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

/// SM3 digest of the file at ``path``, read in 1 MiB chunks without the GIL (the
/// binding behind ``guomi.sm3.hash_file`` for paths).
///
/// Args:
///     path: a file-system path (``str`` or ``os.PathLike``).
///
/// Returns:
///     bytes: the 32-byte digest of the file's contents; memory use is constant.
///
/// Raises:
///     OSError: the file cannot be opened or read (``FileNotFoundError``,
///         ``PermissionError``, ...).
///
/// Example:
///     >>> import os, tempfile
///     >>> from guomi._native import sm3
///     >>> fd, name = tempfile.mkstemp()
///     >>> os.write(fd, b"abc"); os.close(fd)
///     3
///     >>> sm3.hash_path(name).hex()[:16]
///     '66c7f0f462eeedd9'
///     >>> os.remove(name)
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

/// A streaming SM3 hash object with the :mod:`hashlib` interface.
///
/// ``update`` any number of times, then ``digest``/``hexdigest`` (which may be called
/// repeatedly, with more ``update`` after them, as in hashlib); ``copy`` forks the state.
/// ``name == "sm3"``, ``digest_size == 32``, ``block_size == 64``, so it works as
/// ``digestmod`` for Python's :mod:`hmac`: ``hmac.new(key, msg, digestmod=guomi.sm3.new)``.
///
/// Args:
///     data: optional first bytes-like input (same as a first ``update(data)``).
///
/// Raises:
///     TypeError: ``data`` is not bytes-like (a ``str`` included).
///
/// Example:
///     >>> from guomi import sm3
///     >>> h = sm3.SM3(b"a")
///     >>> h.update(b"bc")
///     >>> h.hexdigest()
///     '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'
///     >>> import hmac
///     >>> hmac.new(b"key", b"abc", digestmod=sm3.new).digest() == sm3.hmac(b"key", b"abc")
///     True
#[pyclass(module = "guomi.sm3", name = "SM3", frozen)]
struct PySm3(Locked<Sm3>);

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
        PySm3(Locked::new(h))
    }

    /// Feeds ``data`` to the hash (the GIL is released from 2 KiB on).
    ///
    /// Args:
    ///     data: any bytes-like object.
    ///
    /// Returns:
    ///     None.
    ///
    /// Raises:
    ///     TypeError: ``data`` is not bytes-like (a ``str`` included).
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> h = sm3.new()
    ///     >>> h.update(b"abc")
    ///     >>> h.digest() == sm3.hash(b"abc")
    ///     True
    fn update(&self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let mut h = self.0.lock(py)?;
        let h = &mut *h;
        maybe_detach(py, data.len(), || h.update(&data));
        Ok(())
    }

    /// The digest of everything fed so far; the object stays usable.
    ///
    /// Returns:
    ///     bytes: 32 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.new(b"abc").digest().hex()[:16]
    ///     '66c7f0f462eeedd9'
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.lock(py)?.digest()))
    }

    /// The digest of everything fed so far, as 64 lowercase hex digits.
    ///
    /// Returns:
    ///     str: the hex digest.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.new(b"abc").hexdigest()[:16]
    ///     '66c7f0f462eeedd9'
    fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
        Ok(to_hex(&self.0.lock(py)?.digest()))
    }

    /// An independent copy of the current state (to hash a common prefix once).
    ///
    /// Returns:
    ///     SM3: the copy; updating one does not affect the other.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> a = sm3.new(b"a")
    ///     >>> b = a.copy()
    ///     >>> b.update(b"bc")
    ///     >>> b.digest() == sm3.hash(b"abc"), a.digest() == sm3.hash(b"a")
    ///     (True, True)
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        Ok(Self(Locked::new(self.0.lock(py)?.clone())))
    }

    /// The algorithm name, ``"sm3"`` (as :mod:`hashlib` objects report it).
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.new().name
    ///     'sm3'
    #[getter]
    fn name(&self) -> &'static str {
        "sm3"
    }

    /// The digest size in bytes, 32.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.new().digest_size
    ///     32
    #[getter]
    fn digest_size(&self) -> usize {
        sm3::DIGEST_SIZE
    }

    /// The internal block size in bytes, 64 (what :mod:`hmac` pads the key to).
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.new().block_size
    ///     64
    #[getter]
    fn block_size(&self) -> usize {
        sm3::BLOCK_SIZE
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm3.SM3 object>"
    }
}

/// HMAC-SM3 (RFC 2104) tag of ``data`` under ``key``, in one call.
///
/// Args:
///     key: the key, any bytes-like object of any length (keys longer than 64 bytes
///         are hashed first, as RFC 2104 says).
///     data: the message, any bytes-like object.
///
/// Returns:
///     bytes: the 32-byte tag. To check a tag, use ``HMAC(key, data).verify(tag)``
///     (constant time), not ``==``.
///
/// Raises:
///     TypeError: ``key`` or ``data`` is not bytes-like (a ``str`` included).
///
/// Example:
///     >>> from guomi import sm3
///     >>> tag = sm3.hmac(b"key", b"message")
///     >>> len(tag), sm3.HMAC(b"key", b"message").verify(tag)
///     (32, True)
#[guard_panics]
#[pyfunction]
fn hmac<'py>(py: Python<'py>, key: Bytes, data: Bytes) -> Bound<'py, PyBytes> {
    let t = maybe_detach(py, data.len(), || sm3::hmac::hmac(&key, &data));
    PyBytes::new(py, &t)
}

/// Streaming HMAC-SM3 (RFC 2104) with the interface of Python's ``hmac.HMAC``.
///
/// ``update`` any number of times, then ``digest``/``hexdigest`` (repeatable) or
/// ``verify(tag)``, a constant-time check; ``copy`` forks the state. ``name`` is
/// ``"hmac-sm3"``, ``digest_size`` 32, ``block_size`` 64. Key states are wiped when
/// the object is freed.
///
/// Args:
///     key: the key, any bytes-like object of any length.
///     data: optional first bytes-like input (same as a first ``update(data)``).
///
/// Raises:
///     TypeError: ``key`` or ``data`` is not bytes-like (a ``str`` included).
///
/// Example:
///     >>> from guomi import sm3
///     >>> m = sm3.HMAC(b"key")
///     >>> m.update(b"message")
///     >>> m.digest() == sm3.hmac(b"key", b"message")
///     True
#[pyclass(module = "guomi.sm3", name = "HMAC", frozen)]
struct PyHmac(Locked<HmacSm3>);

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
        PyHmac(Locked::new(m))
    }

    /// Feeds ``data`` to the MAC (the GIL is released from 2 KiB on).
    ///
    /// Args:
    ///     data: any bytes-like object.
    ///
    /// Returns:
    ///     None.
    ///
    /// Raises:
    ///     TypeError: ``data`` is not bytes-like (a ``str`` included).
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> m = sm3.HMAC(b"key", b"mess")
    ///     >>> m.update(b"age")
    ///     >>> m.digest() == sm3.hmac(b"key", b"message")
    ///     True
    fn update(&self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let mut m = self.0.lock(py)?;
        let m = &mut *m;
        maybe_detach(py, data.len(), || m.update(&data));
        Ok(())
    }

    /// The tag of everything fed so far; the object stays usable.
    ///
    /// Returns:
    ///     bytes: the 32-byte tag.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> len(sm3.HMAC(b"key", b"message").digest())
    ///     32
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.lock(py)?.tag()))
    }

    /// The tag of everything fed so far, as 64 lowercase hex digits.
    ///
    /// Returns:
    ///     str: the hex tag.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> m = sm3.HMAC(b"key", b"message")
    ///     >>> m.hexdigest() == m.digest().hex()
    ///     True
    fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
        Ok(to_hex(&self.0.lock(py)?.tag()))
    }

    /// Whether ``tag`` is the HMAC-SM3 tag of everything fed so far, compared in
    /// constant time.
    ///
    /// The tag length is fixed by the caller, never taken from ``tag``: by default the
    /// full 32 bytes, so a shorter tag (even a correct prefix) is ``False``.
    ///
    /// Args:
    ///     tag: the tag to check, any bytes-like object.
    ///     tag_length: for protocols that truncate: the length in bytes, 4 to 32 (4 is
    ///         the 32-bit floor of NIST SP 800-107 Rev. 1 §5.3.3; RFC 2104 §5
    ///         recommends at least 16). ``tag`` must then be exactly that long and is
    ///         compared with the first ``tag_length`` bytes of the tag.
    ///
    /// Returns:
    ///     bool: ``True`` if the tag matches; ``False`` otherwise, including a ``tag``
    ///     of any other length.
    ///
    /// Raises:
    ///     InvalidArgument: ``tag_length`` is outside 4..32.
    ///     TypeError: ``tag`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> m = sm3.HMAC(b"key", b"message")
    ///     >>> tag = m.digest()
    ///     >>> m.verify(tag), m.verify(tag[:16]), m.verify(tag[:16], tag_length=16)
    ///     (True, False, True)
    #[pyo3(signature = (tag, *, tag_length=None))]
    fn verify(&self, py: Python<'_>, tag: Bytes, tag_length: Option<usize>) -> PyResult<bool> {
        let m = self.0.lock(py)?;
        match tag_length {
            None => Ok(m.verify(&tag)),
            Some(n) => m.verify_truncated(&tag, n).py_err(),
        }
    }

    /// An independent copy of the current state (to MAC a common prefix once).
    ///
    /// Returns:
    ///     HMAC: the copy; updating one does not affect the other.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> a = sm3.HMAC(b"key", b"mess")
    ///     >>> b = a.copy()
    ///     >>> b.update(b"age")
    ///     >>> b.digest() == sm3.hmac(b"key", b"message")
    ///     True
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        Ok(Self(Locked::new(self.0.lock(py)?.clone())))
    }

    /// The algorithm name, ``"hmac-sm3"``.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.HMAC(b"key").name
    ///     'hmac-sm3'
    #[getter]
    fn name(&self) -> &'static str {
        "hmac-sm3"
    }

    /// The tag size in bytes, 32.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.HMAC(b"key").digest_size
    ///     32
    #[getter]
    fn digest_size(&self) -> usize {
        sm3::DIGEST_SIZE
    }

    /// SM3's block size in bytes, 64.
    ///
    /// Example:
    ///     >>> from guomi import sm3
    ///     >>> sm3.HMAC(b"key").block_size
    ///     64
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

/// The GM/T 0003 KDF (the binding behind ``guomi.sm3.kdf``):
/// ``SM3(z || 1) || SM3(z || 2) || ...`` (32-bit big-endian counter from 1) truncated to
/// ``length`` bytes.
///
/// Args:
///     z: the shared secret input, any bytes-like object.
///     length: output length in bytes, 0 to 2**30 (1 GiB) per call, checked before
///         anything is allocated.
///
/// Returns:
///     bytes: ``length`` bytes.
///
/// Raises:
///     InvalidLength: ``length`` is over 2**30.
///     OverflowError: ``length`` is negative.
///     TypeError: ``z`` is not bytes-like.
///
/// Example:
///     >>> from guomi._native import sm3
///     >>> sm3.kdf(b"z", 40)[:32] == sm3.hash(b"z" + bytes([0, 0, 0, 1]))
///     True
#[guard_panics]
#[pyfunction]
fn kdf<'py>(py: Python<'py>, z: Bytes, length: u64) -> PyResult<Bound<'py, PyBytes>> {
    core_kdf::check_kdf_call_len(length).py_err()?;
    new_bytes(py, out_len(length)?, |out| {
        core_kdf::try_kdf_into(&z, out).py_err()
    })
}

/// PBKDF2 (RFC 8018 §5.2) with HMAC-SM3 (the binding behind
/// ``guomi.sm3.pbkdf2_hmac``). Always runs without the GIL.
///
/// Args:
///     password: the password, any bytes-like object.
///     salt: the salt, any bytes-like object.
///     iterations: 1 to 10,000,000, checked before any work.
///     length: output length in bytes, 0 to 2**20 (1 MiB), checked before allocating.
///
/// Returns:
///     bytes: the ``length``-byte derived key.
///
/// Raises:
///     InvalidArgument: ``iterations`` is 0 or over 10,000,000.
///     InvalidLength: ``length`` is over 2**20.
///     OverflowError: ``iterations`` or ``length`` is negative.
///     TypeError: ``password`` or ``salt`` is not bytes-like.
///
/// Example:
///     >>> from guomi._native import sm3
///     >>> len(sm3.pbkdf2_hmac(b"password", b"salt", 1000, 32))
///     32
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

/// HKDF (RFC 5869) with HMAC-SM3, extract then expand (the binding behind
/// ``guomi.sm3.hkdf``, which makes ``salt`` and ``info`` keyword arguments).
///
/// Args:
///     ikm: the input keying material, any bytes-like object.
///     length: output length in bytes, 0 to 8160 (255 * 32, RFC 5869 §2.3).
///     salt: the salt (``b""`` means 32 zero bytes, as RFC 5869 says).
///     info: context information, any bytes-like object (may be empty).
///
/// Returns:
///     bytes: ``length`` bytes of output keying material.
///
/// Raises:
///     InvalidLength: ``length`` is over 8160.
///     OverflowError: ``length`` is negative.
///     TypeError: an argument is not bytes-like.
///
/// Example:
///     >>> from guomi._native import sm3
///     >>> okm = sm3.hkdf(b"ikm", 42, b"salt", b"info")
///     >>> len(okm), okm == sm3.hkdf(b"ikm", 64, b"salt", b"info")[:42]
///     (42, True)
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
