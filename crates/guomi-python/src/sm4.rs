//! `guomi._native.sm4`: SM4 and its modes (conversion, error mapping, GIL release only).

use crate::buf::{maybe_detach, new_bytes, Bytes};
use crate::error::IntoPy;
use guomi_core::sm4::ccm::Sm4Ccm;
use guomi_core::sm4::gcm::{GcmDecryptor, GcmEncryptor, Sm4Gcm};
use guomi_core::sm4::modes::{self, Decryptor, Encryptor, Mode, Padding};
use guomi_core::sm4::xts::{Sm4Xts, Standard};
use guomi_core::sm4::{self as core_sm4, Sm4};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroize;

fn parse(mode: &str, padding: Option<&str>) -> PyResult<(Mode, Option<Padding>)> {
    let m = Mode::parse(mode).py_err()?;
    let p = padding.map(Padding::parse).transpose().py_err()?;
    Ok((m, p))
}

fn key16(key: &[u8]) -> PyResult<Sm4> {
    Sm4::from_slice(key).py_err()
}

fn encrypt_with<'py>(
    py: Python<'py>,
    c: &Sm4,
    data: &[u8],
    mode: &str,
    iv: Option<&[u8]>,
    padding: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (m, p) = parse(mode, padding)?;
    let n = modes::encrypted_len(m, p, data.len()).py_err()?;
    new_bytes(py, n, |out| {
        modes::encrypt_into(c, m, iv, p, data, out).py_err()
    })
}

fn decrypt_with<'py>(
    py: Python<'py>,
    c: &Sm4,
    data: &[u8],
    mode: &str,
    iv: Option<&[u8]>,
    padding: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (m, p) = parse(mode, padding)?;
    if p.unwrap_or(m.default_padding()) == Padding::None {
        // Same length out: decrypt straight into the new bytes object.
        return new_bytes(py, data.len(), |out| {
            modes::decrypt_into_unpadded(c, m, iv, data, out).py_err()
        });
    }
    let v = maybe_detach(py, data.len(), || modes::decrypt(c, m, iv, p, data)).py_err()?;
    Ok(PyBytes::new(py, &v))
}

/// An SM4 key: the key schedule done once; ECB/CBC/CTR/CFB/OFB with padding.
/// A new random 16-byte SM4 key from the OS CSPRNG, as `bytes`.
fn random_key(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
    let k = guomi_core::rand::bytes::<16>().py_err()?;
    Ok(PyBytes::new(py, &k))
}

#[pyclass(module = "guomi.sm4", name = "SM4", frozen)]
struct PySm4(Sm4);

#[guard_panics]
#[pymethods]
impl PySm4 {
    #[new]
    fn new(key: Bytes) -> PyResult<Self> {
        key16(&key).map(PySm4)
    }

    /// A new random 16-byte key from the OS CSPRNG.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        random_key(py)
    }

    #[pyo3(signature = (data, *, mode, iv=None, padding=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: Bytes,
        mode: &str,
        iv: Option<Bytes>,
        padding: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        encrypt_with(py, &self.0, &data, mode, iv.as_deref(), padding)
    }

    #[pyo3(signature = (data, *, mode, iv=None, padding=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        data: Bytes,
        mode: &str,
        iv: Option<Bytes>,
        padding: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        decrypt_with(py, &self.0, &data, mode, iv.as_deref(), padding)
    }

    fn encrypt_block<'py>(&self, py: Python<'py>, block: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let mut b: [u8; 16] = block_of(&block)?;
        self.0.encrypt_block(&mut b);
        Ok(PyBytes::new(py, &b))
    }

    fn decrypt_block<'py>(&self, py: Python<'py>, block: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let mut b: [u8; 16] = block_of(&block)?;
        self.0.decrypt_block(&mut b);
        Ok(PyBytes::new(py, &b))
    }

    #[pyo3(signature = (*, mode, iv=None, padding=None))]
    fn encryptor(
        &self,
        mode: &str,
        iv: Option<Bytes>,
        padding: Option<&str>,
    ) -> PyResult<PyEncryptor> {
        let (m, p) = parse(mode, padding)?;
        Encryptor::new(&self.0, m, iv.as_deref(), p)
            .py_err()
            .map(PyEncryptor)
    }

    #[pyo3(signature = (*, mode, iv=None, padding=None))]
    fn decryptor(
        &self,
        mode: &str,
        iv: Option<Bytes>,
        padding: Option<&str>,
    ) -> PyResult<PyDecryptor> {
        let (m, p) = parse(mode, padding)?;
        Decryptor::new(&self.0, m, iv.as_deref(), p)
            .py_err()
            .map(PyDecryptor)
    }

    #[getter]
    fn backend(&self) -> &'static str {
        self.0.backend().name()
    }

    /// The variant chosen when the key was built (e.g. `avx2-novaes`).
    #[getter]
    fn variant(&self) -> String {
        self.0.variant().name()
    }

    fn __repr__(&self) -> String {
        format!(
            "<guomi.sm4.SM4 object, backend={}>",
            self.0.backend().name()
        )
    }
}

fn block_of(b: &[u8]) -> PyResult<[u8; 16]> {
    b.try_into()
        .map_err(|_| Error::InvalidLength {
            what: "block",
            expected: "16 bytes",
            got: b.len(),
        })
        .py_err()
}

/// One-shot encryption with a key given as bytes (key schedule per call).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, data, mode, iv=None, padding=None))]
fn encrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    data: Bytes,
    mode: &str,
    iv: Option<Bytes>,
    padding: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    encrypt_with(py, &key16(&key)?, &data, mode, iv.as_deref(), padding)
}

/// One-shot decryption with a key given as bytes.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, data, mode, iv=None, padding=None))]
fn decrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    data: Bytes,
    mode: &str,
    iv: Option<Bytes>,
    padding: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    decrypt_with(py, &key16(&key)?, &data, mode, iv.as_deref(), padding)
}

/// Streaming encryption (`update`, then `finalize`).
#[pyclass(module = "guomi.sm4", name = "Encryptor")]
struct PyEncryptor(Encryptor);

#[guard_panics]
#[pymethods]
impl PyEncryptor {
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        // Written straight into the new bytes object (GIL released for large inputs).
        let n = self.0.update_len(data.len());
        let s = &mut self.0;
        new_bytes(py, n, |out| s.update_to(&data, out).py_err())
    }

    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.0.finalize().py_err()?;
        Ok(PyBytes::new(py, &v))
    }
}

/// Streaming decryption (`update`, then `finalize`, which checks the padding).
#[pyclass(module = "guomi.sm4", name = "Decryptor")]
struct PyDecryptor(Decryptor);

#[guard_panics]
#[pymethods]
impl PyDecryptor {
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        // Written straight into the new bytes object (GIL released for large inputs).
        let n = self.0.update_len(data.len());
        let s = &mut self.0;
        new_bytes(py, n, |out| s.update_to(&data, out).py_err())
    }

    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut v = self.0.finalize().py_err()?;
        let out = PyBytes::new(py, &v);
        v.zeroize();
        Ok(out)
    }
}

/// SM4-GCM (SP 800-38D) key object in the style of `cryptography`'s AESGCM.
#[pyclass(module = "guomi.sm4", name = "SM4GCM", frozen)]
struct PyGcm(Sm4Gcm);

#[guard_panics]
#[pymethods]
impl PyGcm {
    #[new]
    fn new(key: Bytes) -> PyResult<Self> {
        Sm4Gcm::from_slice(&key).py_err().map(PyGcm)
    }

    /// A new random 16-byte key from the OS CSPRNG.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        random_key(py)
    }

    /// ciphertext || 16-byte tag.
    #[pyo3(signature = (nonce, data, aad=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes,
        data: Bytes,
        aad: Option<Bytes>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = aad.as_deref().unwrap_or(&[]);
        new_bytes(py, data.len() + 16, |out| {
            self.0.encrypt_into(&nonce, aad, &data, out).py_err()
        })
    }

    /// Plaintext, or InvalidTag. `tag_length` < 16 only for truncated-tag interoperability.
    #[pyo3(signature = (nonce, data, aad=None, *, tag_length=16))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes,
        data: Bytes,
        aad: Option<Bytes>,
        tag_length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = aad.as_deref().unwrap_or(&[]);
        if data.len() < tag_length {
            return Err(Error::InvalidTag).py_err();
        }
        new_bytes(py, data.len() - tag_length, |out| {
            self.0
                .decrypt_into(&nonce, aad, &data, tag_length, out)
                .py_err()
        })
    }

    #[pyo3(signature = (nonce, aad=None))]
    fn encryptor(&self, nonce: Bytes, aad: Option<Bytes>) -> PyResult<PyGcmEncryptor> {
        self.0
            .encryptor(&nonce, aad.as_deref().unwrap_or(&[]))
            .py_err()
            .map(|e| PyGcmEncryptor(e, None))
    }

    /// Streaming decryption against a `tag_length`-byte tag (16 by default; 12..15, 8 or
    /// 4 for truncated tags), a length fixed here, never taken from the tag.
    #[pyo3(signature = (nonce, tag=None, aad=None, *, buffered=true, tag_length=16))]
    fn decryptor(
        &self,
        nonce: Bytes,
        tag: Option<Bytes>,
        aad: Option<Bytes>,
        buffered: bool,
        tag_length: usize,
    ) -> PyResult<PyGcmDecryptor> {
        let tag = tag.as_deref().unwrap_or(&[]);
        let aad = aad.as_deref().unwrap_or(&[]);
        GcmDecryptor::with_options(&self.0, &nonce, aad, tag, tag_length, buffered)
            .py_err()
            .map(PyGcmDecryptor)
    }

    #[getter]
    fn backend(&self) -> &'static str {
        self.0.backend().name()
    }

    /// The variant chosen when the key was built.
    #[getter]
    fn variant(&self) -> String {
        self.0.variant().name()
    }

    fn __repr__(&self) -> String {
        format!(
            "<guomi.sm4.SM4GCM object, backend={}>",
            self.0.backend().name()
        )
    }
}

/// Streaming SM4-GCM encryption: `update` -> ciphertext, `finalize` -> b"", then `tag`.
#[pyclass(module = "guomi.sm4", name = "GCMEncryptor")]
struct PyGcmEncryptor(GcmEncryptor, Option<[u8; 16]>);

#[guard_panics]
#[pymethods]
impl PyGcmEncryptor {
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        // Written straight into the new bytes object (GIL released for large inputs).
        let n = self.0.update_len(data.len());
        let s = &mut self.0;
        new_bytes(py, n, |out| s.update_to(&data, out).py_err())
    }

    /// Ends the message; returns b"" (the tag is then in `tag`).
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.1 = Some(self.0.finalize().py_err()?);
        Ok(PyBytes::new(py, b""))
    }

    /// The 16-byte tag (after `finalize`).
    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.1 {
            Some(t) => Ok(PyBytes::new(py, t)),
            None => Err(Error::InvalidValue(
                "the tag is available only after finalize()",
            ))
            .py_err(),
        }
    }
}

/// Streaming SM4-GCM decryption; the tag is checked at `finalize`.
#[pyclass(module = "guomi.sm4", name = "GCMDecryptor")]
struct PyGcmDecryptor(GcmDecryptor);

#[guard_panics]
#[pymethods]
impl PyGcmDecryptor {
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let n = self.0.update_len(data.len());
        let s = &mut self.0;
        if n == 0 {
            // Buffered: the plaintext stays inside until finalize() verifies the tag.
            maybe_detach(py, data.len(), || s.update_to(&data, &mut [])).py_err()?;
            return Ok(PyBytes::new(py, b""));
        }
        new_bytes(py, n, |out| s.update_to(&data, out).py_err())
    }

    #[pyo3(signature = (tag=None))]
    fn finalize<'py>(
        &mut self,
        py: Python<'py>,
        tag: Option<Bytes>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut v = match tag {
            Some(t) => self.0.finalize_with_tag(&t),
            None => self.0.finalize(),
        }
        .py_err()?;
        let out = PyBytes::new(py, &v);
        v.zeroize();
        Ok(out)
    }

    #[getter]
    fn buffered(&self) -> bool {
        self.0.is_buffered()
    }

    /// The tag length (bytes) this decryptor checks.
    #[getter]
    fn tag_length(&self) -> usize {
        self.0.tag_len()
    }
}

/// SM4-CCM (SP 800-38C) key object in the style of `cryptography`'s AESCCM.
#[pyclass(module = "guomi.sm4", name = "SM4CCM", frozen)]
struct PyCcm(Sm4Ccm);

#[guard_panics]
#[pymethods]
impl PyCcm {
    #[new]
    #[pyo3(signature = (key, tag_length=16))]
    fn new(key: Bytes, tag_length: usize) -> PyResult<Self> {
        let k: &[u8; 16] = (&key[..])
            .try_into()
            .map_err(|_| Error::InvalidLength {
                what: "key",
                expected: "16 bytes",
                got: key.len(),
            })
            .py_err()?;
        Sm4Ccm::new(k, tag_length).py_err().map(PyCcm)
    }

    /// A new random 16-byte key from the OS CSPRNG.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        random_key(py)
    }

    #[pyo3(signature = (nonce, data, aad=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes,
        data: Bytes,
        aad: Option<Bytes>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = aad.as_deref().unwrap_or(&[]);
        new_bytes(py, data.len() + self.0.tag_len(), |out| {
            self.0.encrypt_into(&nonce, aad, &data, out).py_err()
        })
    }

    #[pyo3(signature = (nonce, data, aad=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes,
        data: Bytes,
        aad: Option<Bytes>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = aad.as_deref().unwrap_or(&[]);
        if data.len() < self.0.tag_len() {
            return Err(Error::InvalidTag).py_err();
        }
        new_bytes(py, data.len() - self.0.tag_len(), |out| {
            self.0.decrypt_into(&nonce, aad, &data, out).py_err()
        })
    }

    #[getter]
    fn tag_length(&self) -> usize {
        self.0.tag_len()
    }

    /// The variant chosen when the key was built.
    #[getter]
    fn variant(&self) -> String {
        self.0.variant().name()
    }

    fn __repr__(&self) -> String {
        format!("<guomi.sm4.SM4CCM object, tag_length={}>", self.0.tag_len())
    }
}

/// SM4-XTS key pair (32-byte key = key1 || key2).
#[pyclass(module = "guomi.sm4", name = "SM4XTS", frozen)]
struct PyXts(Sm4Xts);

#[guard_panics]
#[pymethods]
impl PyXts {
    #[new]
    #[pyo3(signature = (key, *, standard="gb"))]
    fn new(key: Bytes, standard: &str) -> PyResult<Self> {
        let s = Standard::parse(standard).py_err()?;
        Sm4Xts::new(&key, s).py_err().map(PyXts)
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: Bytes,
        data: Bytes,
    ) -> PyResult<Bound<'py, PyBytes>> {
        xts_run(py, &self.0, &tweak, &data, false)
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: Bytes,
        data: Bytes,
    ) -> PyResult<Bound<'py, PyBytes>> {
        xts_run(py, &self.0, &tweak, &data, true)
    }

    /// The variant chosen when the key was built.
    #[getter]
    fn variant(&self) -> String {
        self.0.variant().name()
    }
}

fn xts_run<'py>(
    py: Python<'py>,
    x: &Sm4Xts,
    tweak: &[u8],
    data: &[u8],
    dec: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    new_bytes(py, data.len(), |out| {
        out.copy_from_slice(data);
        x.crypt_in_place(tweak, out, dec).py_err()
    })
}

/// XTS encryption of one data unit.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, tweak, data, standard="gb"))]
fn xts_encrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    tweak: Bytes,
    data: Bytes,
    standard: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let x = Sm4Xts::new(&key, Standard::parse(standard).py_err()?).py_err()?;
    xts_run(py, &x, &tweak, &data, false)
}

/// XTS decryption of one data unit.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, tweak, data, standard="gb"))]
fn xts_decrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    tweak: Bytes,
    data: Bytes,
    standard: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let x = Sm4Xts::new(&key, Standard::parse(standard).py_err()?).py_err()?;
    xts_run(py, &x, &tweak, &data, true)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BLOCK_SIZE", core_sm4::BLOCK_SIZE)?;
    m.add("KEY_SIZE", core_sm4::KEY_SIZE)?;
    m.add_function(wrap_pyfunction!(encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(xts_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(xts_decrypt, m)?)?;
    m.add_class::<PySm4>()?;
    m.add_class::<PyEncryptor>()?;
    m.add_class::<PyDecryptor>()?;
    m.add_class::<PyGcm>()?;
    m.add_class::<PyGcmEncryptor>()?;
    m.add_class::<PyGcmDecryptor>()?;
    m.add_class::<PyCcm>()?;
    m.add_class::<PyXts>()?;
    Ok(())
}
