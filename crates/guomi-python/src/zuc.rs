//! `guomi._native.zuc`: ZUC-128/256 keystream, 128-EEA3/EIA3, ZUC-256 MAC, the
//! keystream-reuse guard and the batch calls. Conversion, error mapping and GIL release
//! only; the algorithms are in `guomi_core::zuc`.

use crate::buf::{maybe_detach, Bytes};
use crate::error::{IntoPy, InvalidArgument};
use guomi_core::zuc::{eea3 as core_eea3, eia3 as core_eia3, guard::Eea3Guard, many, zuc256, Zuc};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyTuple};
use std::sync::Mutex;

/// An integer argument in the range of `T`: a non-int is a `TypeError`, an int out of
/// range is `InvalidArgument` (a `ValueError`).
fn int_arg<'py, T>(obj: &Bound<'py, PyAny>, what: &'static str) -> PyResult<T>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!("{what} must be an int")));
    }
    obj.extract::<T>()
        .map_err(|_| InvalidArgument::new_err(format!("{what} is out of range")))
}

/// COUNT (32 bits), BEARER (5 bits), DIRECTION (1 bit).
fn framing(
    count: &Bound<'_, PyAny>,
    bearer: &Bound<'_, PyAny>,
    direction: &Bound<'_, PyAny>,
) -> PyResult<(u32, u8, u8)> {
    let c = int_arg::<u32>(count, "count (32-bit unsigned)")?;
    let b = int_arg::<u8>(bearer, "bearer (0..31)")?;
    let d = int_arg::<u8>(direction, "direction (0 or 1)")?;
    Ok((c, b, d))
}

fn length_arg(length_bits: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    length_bits
        .map(|l| int_arg::<u64>(l, "length_bits (>= 0)"))
        .transpose()
}

/// `words` keystream words of `z` (4·words bytes) in a new `bytes`.
fn keystream_bytes<'py>(
    py: Python<'py>,
    mut z: Zuc,
    words: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let n = guomi_core::zuc::keystream_len(words).py_err()?;
    PyBytes::new_with(py, n, |out| {
        maybe_detach(py, n, || z.fill(out));
        Ok(())
    })
}

/// The first `words` ZUC-128 keystream words (4·words bytes, big-endian words).
#[guard_panics]
#[pyfunction]
fn keystream<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    words: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    keystream_bytes(py, Zuc::new(&key, &iv).py_err()?, words)
}

/// The first `words` ZUC-256 keystream words.
#[guard_panics]
#[pyfunction]
fn zuc256_keystream<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    words: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    keystream_bytes(py, Zuc::new_256(&key, &iv).py_err()?, words)
}

/// eea3(key, count, bearer, direction, data, *, length_bits=None) -> bytes
///
/// 128-EEA3 (3GPP confidentiality) encryption or decryption of the first `length_bits`
/// bits of `data` (all of it by default). key: 16 bytes; count: 32-bit COUNT; bearer:
/// 0..31; direction: 0 or 1. Returns ceil(length_bits / 8) bytes, unused trailing bits
/// zero. Never encrypt twice under the same (key, count, bearer, direction).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, *, length_bits=None))]
fn eea3<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    let n = core_eea3::output_len(data.len(), bits).py_err()?;
    PyBytes::new_with(py, n, |out| {
        maybe_detach(py, n, || {
            core_eea3::eea3_into(&key, c, b, d, &data, bits, out)
        })
        .py_err()
    })
}

/// eia3(key, count, bearer, direction, data, *, length_bits=None) -> bytes
///
/// 128-EIA3 (3GPP integrity) MAC, 4 bytes, of the first `length_bits` bits of `data`.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, *, length_bits=None))]
fn eia3<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    let mac = maybe_detach(py, data.len(), || {
        core_eia3::eia3(&key, c, b, d, &data, bits)
    })
    .py_err()?;
    Ok(PyBytes::new(py, &mac))
}

/// eia3_verify(key, count, bearer, direction, data, mac, *, length_bits=None) -> bool
///
/// Whether `mac` is the 128-EIA3 MAC of `data` (constant-time comparison; a `mac` that
/// is not 4 bytes is False).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, mac, *, length_bits=None))]
#[allow(clippy::too_many_arguments)]
fn eia3_verify<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    mac: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<bool> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    maybe_detach(py, data.len(), || {
        core_eia3::verify(&key, c, b, d, &data, &mac, bits)
    })
    .py_err()
}

/// ZUC-256 MAC with a 32-, 64- or 128-bit tag.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, iv, data, *, tag_bits=None, length_bits=None))]
fn zuc256_mac<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    data: Bytes,
    tag_bits: Option<&Bound<'py, PyAny>>,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let t = tag_bits
        .map(|t| int_arg::<u32>(t, "tag_bits (32, 64 or 128)"))
        .transpose()?
        .unwrap_or(32);
    let bits = length_arg(length_bits)?;
    let tag = maybe_detach(py, data.len(), || zuc256::mac(&key, &iv, &data, t, bits)).py_err()?;
    Ok(PyBytes::new(py, &tag))
}

/// Constant-time check of a ZUC-256 MAC against a caller-fixed `tag_bits` (32, 64 or
/// 128; default 32 as in `zuc256_mac`): a tag of another length is `False`.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, iv, data, tag, *, tag_bits=None, length_bits=None))]
fn zuc256_mac_verify<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    data: Bytes,
    tag: Bytes,
    tag_bits: Option<&Bound<'py, PyAny>>,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<bool> {
    let t = tag_bits
        .map(|t| int_arg::<u32>(t, "tag_bits (32, 64 or 128)"))
        .transpose()?
        .unwrap_or(32);
    let bits = length_arg(length_bits)?;
    maybe_detach(py, data.len(), || {
        zuc256::mac_verify(&key, &iv, &data, &tag, t, bits)
    })
    .py_err()
}

/// Converts `(key, count, bearer, direction, data)` tuples.
type OwnedItem = (Bytes, u32, u8, u8, Bytes);

fn items_arg(items: &Bound<'_, PyAny>) -> PyResult<Vec<OwnedItem>> {
    let shape =
        || PyTypeError::new_err("each item must be a (key, count, bearer, direction, data) tuple");
    let mut out = Vec::with_capacity(items.len().unwrap_or(0));
    for item in items.try_iter()? {
        let item = item?;
        let t = item.cast::<PyTuple>().map_err(|_| shape())?;
        if t.len() != 5 {
            return Err(shape());
        }
        let key: Bytes = t.get_borrowed_item(0)?.extract()?;
        let (c, b, d) = framing(
            &*t.get_borrowed_item(1)?,
            &*t.get_borrowed_item(2)?,
            &*t.get_borrowed_item(3)?,
        )?;
        let data: Bytes = t.get_borrowed_item(4)?.extract()?;
        out.push((key, c, b, d, data));
    }
    Ok(out)
}

/// `threads`: None, or an int >= 0 (negative: InvalidArgument).
fn threads_arg(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    threads
        .map(|t| int_arg::<usize>(t, "threads (>= 0)"))
        .transpose()
}

fn borrowed(items: &[OwnedItem]) -> Vec<many::Item<'_>> {
    items
        .iter()
        .map(|(k, c, b, d, m)| (&k[..], *c, *b, *d, &m[..]))
        .collect()
}

/// eea3_many(items, *, threads=None) -> list[bytes]
///
/// 128-EEA3 of many packets in one call: items are (key, count, bearer, direction, data)
/// tuples (whole bytes of data); the outputs in order. Packets run in 8 (AVX2) or 16
/// (AVX-512) SIMD lanes; threads: None or 1 = the calling thread, 0 = every core, n = at
/// most n threads. The GIL is released. No reuse guard: the caller owns the counters.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (items, *, threads=None))]
fn eea3_many<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let threads = threads_arg(threads)?;
    let owned = items_arg(items)?;
    let refs = borrowed(&owned);
    let total: usize = refs.iter().map(|i| i.4.len()).sum();
    let flat = maybe_detach(py, total, || many::eea3_many_concat(&refs, threads)).py_err()?;
    let mut at = 0;
    Ok(refs
        .iter()
        .map(|i| {
            let b = PyBytes::new(py, &flat[at..at + i.4.len()]);
            at += i.4.len();
            b
        })
        .collect())
}

/// eia3_many(items, *, threads=None) -> list[bytes]
///
/// 128-EIA3 MACs (4 bytes each) of many packets in one call (items and threads as in
/// eea3_many).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (items, *, threads=None))]
fn eia3_many<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let threads = threads_arg(threads)?;
    let owned = items_arg(items)?;
    let refs = borrowed(&owned);
    let total: usize = refs.iter().map(|i| i.4.len()).sum();
    let macs = maybe_detach(py, total, || many::eia3_many(&refs, threads)).py_err()?;
    Ok(macs.iter().map(|m| PyBytes::new(py, m)).collect())
}

/// Streaming ZUC keystream (ZUC-128 for a 16-byte key, ZUC-256 for a 32-byte key).
#[pyclass(module = "guomi.zuc", name = "ZUC")]
struct PyZuc {
    inner: Option<Zuc>,
}

impl PyZuc {
    fn live(&mut self) -> PyResult<&mut Zuc> {
        self.inner
            .as_mut()
            .ok_or_else(|| crate::error::to_py(Error::AlreadyFinalized))
    }
}

#[guard_panics]
#[pymethods]
impl PyZuc {
    #[new]
    fn new(key: Bytes, iv: Bytes) -> PyResult<Self> {
        let z = match key.len() {
            16 => Zuc::new(&key, &iv),
            32 => Zuc::new_256(&key, &iv),
            n => Err(Error::InvalidLength {
                what: "ZUC key",
                expected: "16 (ZUC-128) or 32 (ZUC-256) bytes",
                got: n,
            }),
        }
        .py_err()?;
        Ok(PyZuc { inner: Some(z) })
    }

    /// `data` XOR the next len(data) keystream bytes.
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let z = self.live()?;
        let n = data.len();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || z.apply_keystream_into(&data, out));
            Ok(())
        })
    }

    /// The next `nbytes` keystream bytes (at most 2^29 per call).
    fn keystream<'py>(&mut self, py: Python<'py>, nbytes: usize) -> PyResult<Bound<'py, PyBytes>> {
        guomi_core::zuc::keystream_len(nbytes.div_ceil(4)).py_err()?;
        let z = self.live()?;
        PyBytes::new_with(py, nbytes, |out| {
            maybe_detach(py, nbytes, || z.fill(out));
            Ok(())
        })
    }

    /// Ends the stream (wipes the state); returns b"".
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.live()?;
        self.inner = None;
        Ok(PyBytes::new(py, b""))
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.zuc.ZUC object>"
    }
}

/// EEA3(key, *, allow_keystream_reuse=False)
///
/// A 128-EEA3 encryptor bound to one key that refuses keystream reuse: encrypt() raises
/// guomi.exceptions.KeystreamReuse on a second encryption under the same (count, bearer,
/// direction), before producing output. decrypt() is never restricted.
/// allow_keystream_reuse=True turns the check off (dangerous: a repeated COUNT silently
/// breaks confidentiality; see docs/zuc.md).
#[pyclass(module = "guomi.zuc", name = "EEA3", frozen)]
struct PyEea3 {
    guard: Mutex<Eea3Guard>,
    key: core_eea3::Key128,
}

#[guard_panics]
#[pymethods]
impl PyEea3 {
    #[new]
    #[pyo3(signature = (key, *, allow_keystream_reuse=false))]
    fn new(key: Bytes, allow_keystream_reuse: bool) -> PyResult<Self> {
        let g = Eea3Guard::new(&key, allow_keystream_reuse).py_err()?;
        let key = g.key().clone();
        Ok(PyEea3 {
            guard: Mutex::new(g),
            key,
        })
    }

    #[pyo3(signature = (count, bearer, direction, data, *, length_bits=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        count: &Bound<'py, PyAny>,
        bearer: &Bound<'py, PyAny>,
        direction: &Bound<'py, PyAny>,
        data: Bytes,
        length_bits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, b, d) = framing(count, bearer, direction)?;
        let bits = length_arg(length_bits)?;
        let n = core_eea3::output_len(data.len(), bits).py_err()?;
        {
            let mut g = self.guard.lock().unwrap_or_else(|p| p.into_inner());
            g.reserve(c, b, d).py_err()?;
        }
        let key = self.key.as_bytes();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || {
                core_eea3::eea3_into(key, c, b, d, &data, bits, out)
            })
            .py_err()
        })
    }

    #[pyo3(signature = (count, bearer, direction, data, *, length_bits=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        count: &Bound<'py, PyAny>,
        bearer: &Bound<'py, PyAny>,
        direction: &Bound<'py, PyAny>,
        data: Bytes,
        length_bits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, b, d) = framing(count, bearer, direction)?;
        let bits = length_arg(length_bits)?;
        let n = core_eea3::output_len(data.len(), bits).py_err()?;
        let key = self.key.as_bytes();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || {
                core_eea3::eea3_into(key, c, b, d, &data, bits, out)
            })
            .py_err()
        })
    }

    /// Whether (count, bearer, direction) was already used for encryption.
    fn is_used(
        &self,
        count: &Bound<'_, PyAny>,
        bearer: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (c, b, d) = framing(count, bearer, direction)?;
        Ok(self
            .guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_used(c, b, d))
    }

    #[getter]
    fn used_count(&self) -> usize {
        self.guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .used_count()
    }

    #[getter]
    fn allow_keystream_reuse(&self) -> bool {
        self.guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .allows_reuse()
    }

    fn __repr__(&self) -> String {
        let used = self
            .guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .used_count();
        format!("<guomi.zuc.EEA3 object, {used} keystreams used>")
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(keystream, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_keystream, m)?)?;
    m.add_function(wrap_pyfunction!(eea3, m)?)?;
    m.add_function(wrap_pyfunction!(eia3, m)?)?;
    m.add_function(wrap_pyfunction!(eia3_verify, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac_verify, m)?)?;
    m.add_function(wrap_pyfunction!(eea3_many, m)?)?;
    m.add_function(wrap_pyfunction!(eia3_many, m)?)?;
    m.add_class::<PyZuc>()?;
    m.add_class::<PyEea3>()?;
    Ok(())
}
