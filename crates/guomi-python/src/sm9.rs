//! `guomi._native.sm9`: SM9 master keys, user keys, signatures, encryption, KEM and key
//! exchange. Type conversion, error mapping and GIL release only: every pairing and
//! scalar multiplication runs without the GIL.

use crate::buf::Bytes;
use crate::error::IntoPy;
use guomi_core::sm9::{self, Ciphertext, Signature};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Arc, Mutex};

fn bytes<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, b)
}

#[derive(Clone, Copy)]
enum Format {
    Raw,
    Der,
}

fn format(f: &str) -> PyResult<Format> {
    match f {
        "raw" => Ok(Format::Raw),
        "der" => Ok(Format::Der),
        _ => Err(Error::InvalidValue("format must be \"raw\" or \"der\"")).py_err(),
    }
}

fn mac(m: &str) -> PyResult<sm9::Mac> {
    match m {
        "sm3" => Ok(sm9::Mac::Sm3),
        "hmac-sm3" => Ok(sm9::Mac::HmacSm3),
        _ => Err(Error::InvalidValue(
            "mac must be \"sm3\" (GM/T 0044) or \"hmac-sm3\" (GmSSL)",
        ))
        .py_err(),
    }
}

fn cipher(c: &str) -> PyResult<sm9::Cipher> {
    sm9::Cipher::parse(c).py_err()
}

/// h || S (97 bytes) to GmSSL's DER SM9Signature.
#[guard_panics]
#[pyfunction]
fn signature_to_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_raw(&signature).py_err()?.to_der(),
    ))
}

/// GmSSL's DER SM9Signature to h || S (97 bytes).
#[guard_panics]
#[pyfunction]
fn signature_from_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_der(&signature).py_err()?.to_raw(),
    ))
}

/// C1 || C3 || C2 (made with `cipher`) to GmSSL's DER SM9Cipher.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (ciphertext, *, cipher="kdf"))]
fn ciphertext_to_der<'py>(
    py: Python<'py>,
    ciphertext: Bytes,
    cipher: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let ct = Ciphertext::from_raw_with(&ciphertext, self::cipher(cipher)?)
        .map_err(|_| Error::UnsupportedFormat("SM9 ciphertext shorter than 96 bytes"))
        .py_err()?;
    Ok(bytes(py, &ct.to_der()))
}

/// GmSSL's DER SM9Cipher to C1 || C3 || C2.
#[guard_panics]
#[pyfunction]
fn ciphertext_from_der<'py>(py: Python<'py>, ciphertext: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Ciphertext::from_der(&ciphertext).py_err()?.to_raw(),
    ))
}

/// The R-ate pairing e(P, Q) (P in G1, Q in G2, encoded points) as 384 bytes.
#[guard_panics]
#[pyfunction]
fn pairing<'py>(py: Python<'py>, p: Bytes, q: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    let e = py.detach(|| sm9::pairing(&p, &q)).py_err()?;
    Ok(bytes(py, &e))
}

// ------------------------------------------------------------------ signatures

/// The SM9 signature master public key Ppub-s (a G2 point).
#[pyclass(module = "guomi.sm9", name = "SignMasterPublicKey", frozen)]
struct PySignMasterPublicKey(sm9::SignMasterPublicKey);

#[guard_panics]
#[pymethods]
impl PySignMasterPublicKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::SignMasterPublicKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    #[pyo3(signature = (signature, message, user_id, *, format="raw"))]
    fn verify(
        &self,
        py: Python<'_>,
        signature: Bytes,
        message: Bytes,
        user_id: Bytes,
        format: &str,
    ) -> PyResult<bool> {
        let fmt = self::format(format)?;
        let sig = match fmt {
            Format::Raw => Signature::from_raw(&signature),
            Format::Der => Signature::from_der(&signature),
        };
        let Ok(sig) = sig else {
            return Ok(false);
        };
        Ok(py.detach(|| self.0.verify(&sig, &message, &user_id)))
    }

    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.0.to_bytes() == other.0.to_bytes()
    }

    fn __hash__(&self) -> u64 {
        let b = self.0.to_bytes();
        u64::from_le_bytes(b[1..9].try_into().unwrap())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.SignMasterPublicKey>"
    }
}

/// The SM9 signature master key ks (held by the key generation centre).
#[pyclass(module = "guomi.sm9", name = "SignMasterKey", frozen)]
struct PySignMasterKey(sm9::SignMasterKey);

#[guard_panics]
#[pymethods]
impl PySignMasterKey {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        py.detach(sm9::SignMasterKey::generate).py_err().map(Self)
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::SignMasterKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    fn public_key(&self) -> PySignMasterPublicKey {
        PySignMasterPublicKey(self.0.public_key())
    }

    fn extract(&self, py: Python<'_>, user_id: Bytes) -> PyResult<PySignUserKey> {
        py.detach(|| self.0.extract(&user_id))
            .py_err()
            .map(|k| PySignUserKey(Arc::new(k)))
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.SignMasterKey (secret)>"
    }
}

/// A user's SM9 signature private key ds_A (with its ID and master public key).
#[pyclass(module = "guomi.sm9", name = "SignUserKey", frozen)]
struct PySignUserKey(Arc<sm9::SignUserKey>);

#[guard_panics]
#[pymethods]
impl PySignUserKey {
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: Bytes,
        user_id: Bytes,
        master_public_key: &PySignMasterPublicKey,
    ) -> PyResult<Self> {
        let mpk = master_public_key.0.clone();
        py.detach(|| sm9::SignUserKey::from_bytes(&data, &user_id, &mpk))
            .py_err()
            .map(|k| Self(Arc::new(k)))
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    #[getter]
    fn user_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, self.0.user_id())
    }

    fn master_public_key(&self) -> PySignMasterPublicKey {
        PySignMasterPublicKey(self.0.master_public_key())
    }

    #[pyo3(signature = (message, *, format="raw"))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        format: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let fmt = self::format(format)?;
        let sig = py.detach(|| self.0.sign(&message)).py_err()?;
        Ok(match fmt {
            Format::Raw => bytes(py, &sig.to_raw()),
            Format::Der => bytes(py, &sig.to_der()),
        })
    }

    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.SignUserKey (secret)>"
    }
}

// ------------------------------------------------------------------ encryption

/// The SM9 encryption master public key Ppub-e (a G1 point).
#[pyclass(module = "guomi.sm9", name = "EncMasterPublicKey", frozen)]
pub(crate) struct PyEncMasterPublicKey(sm9::EncMasterPublicKey);

impl PyEncMasterPublicKey {
    /// The core key (for other binding modules).
    pub(crate) fn inner(&self) -> &sm9::EncMasterPublicKey {
        &self.0
    }
}

#[guard_panics]
#[pymethods]
impl PyEncMasterPublicKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::EncMasterPublicKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    #[pyo3(signature = (message, user_id, *, cipher="kdf", format="raw", mac="sm3"))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        user_id: Bytes,
        cipher: &str,
        format: &str,
        mac: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let cipher = self::cipher(cipher)?;
        let fmt = self::format(format)?;
        let mac = self::mac(mac)?;
        let ct = py
            .detach(|| self.0.encrypt_with(&message, &user_id, cipher, mac))
            .py_err()?;
        Ok(match fmt {
            Format::Raw => bytes(py, &ct.to_raw()),
            Format::Der => bytes(py, &ct.to_der()),
        })
    }

    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        user_id: Bytes,
        key_length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (k, c) = py
            .detach(|| self.0.encapsulate(&user_id, key_length))
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &c)))
    }

    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.0.to_bytes() == other.0.to_bytes()
    }

    fn __hash__(&self) -> u64 {
        let b = self.0.to_bytes();
        u64::from_le_bytes(b[1..9].try_into().unwrap())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.EncMasterPublicKey>"
    }
}

/// The SM9 encryption (and key-exchange) master key ke.
#[pyclass(module = "guomi.sm9", name = "EncMasterKey", frozen)]
struct PyEncMasterKey(sm9::EncMasterKey);

#[guard_panics]
#[pymethods]
impl PyEncMasterKey {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        py.detach(sm9::EncMasterKey::generate).py_err().map(Self)
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::EncMasterKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    fn public_key(&self) -> PyEncMasterPublicKey {
        PyEncMasterPublicKey(self.0.public_key())
    }

    #[pyo3(signature = (user_id, *, hid=3))]
    fn extract(&self, py: Python<'_>, user_id: Bytes, hid: u8) -> PyResult<PyEncUserKey> {
        if hid != sm9::HID_ENCRYPT && hid != sm9::HID_EXCHANGE {
            return Err(Error::InvalidValue(
                "hid must be 0x03 (encryption) or 0x02 (key exchange)",
            ))
            .py_err();
        }
        py.detach(|| self.0.extract(&user_id, hid))
            .py_err()
            .map(|k| PyEncUserKey(Arc::new(k)))
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.EncMasterKey (secret)>"
    }
}

/// A user's SM9 encryption or key-exchange private key de_B (with its ID, hid and
/// master public key).
#[pyclass(module = "guomi.sm9", name = "EncUserKey", frozen)]
pub(crate) struct PyEncUserKey(Arc<sm9::EncUserKey>);

impl PyEncUserKey {
    /// A shared handle on the core key (for other binding modules).
    pub(crate) fn shared(&self) -> Arc<sm9::EncUserKey> {
        self.0.clone()
    }
}

#[guard_panics]
#[pymethods]
impl PyEncUserKey {
    #[staticmethod]
    #[pyo3(signature = (data, user_id, master_public_key, *, hid=3))]
    fn from_bytes(
        py: Python<'_>,
        data: Bytes,
        user_id: Bytes,
        master_public_key: &PyEncMasterPublicKey,
        hid: u8,
    ) -> PyResult<Self> {
        let mpk = master_public_key.0.clone();
        py.detach(|| sm9::EncUserKey::from_bytes(&data, &user_id, hid, &mpk))
            .py_err()
            .map(|k| Self(Arc::new(k)))
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    #[getter]
    fn user_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, self.0.user_id())
    }

    #[getter]
    fn hid(&self) -> u8 {
        self.0.hid()
    }

    fn master_public_key(&self) -> PyEncMasterPublicKey {
        PyEncMasterPublicKey(self.0.master_public_key())
    }

    /// `cipher`: for raw ciphertexts the data cipher used (default "kdf"); DER carries
    /// it as EnType, and a `cipher` that disagrees is a decryption failure.
    #[pyo3(signature = (ciphertext, *, cipher=None, format="raw", mac="sm3"))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: Bytes,
        cipher: Option<&str>,
        format: &str,
        mac: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let cipher = cipher.map(self::cipher).transpose()?;
        let fmt = self::format(format)?;
        let mac = self::mac(mac)?;
        let m = py
            .detach(|| {
                let ct = match fmt {
                    Format::Raw => {
                        Ciphertext::from_raw_with(&ciphertext, cipher.unwrap_or_default())
                    }
                    Format::Der => {
                        Ciphertext::from_der(&ciphertext).map_err(|_| Error::DecryptionFailed)
                    }
                }?;
                if cipher.is_some_and(|c| c != ct.cipher) {
                    return Err(Error::DecryptionFailed);
                }
                self.0.decrypt_mac(&ct, mac)
            })
            .py_err()?;
        Ok(bytes(py, &m))
    }

    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        c: Bytes,
        key_length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k = py.detach(|| self.0.decapsulate(&c, key_length)).py_err()?;
        Ok(bytes(py, &k))
    }

    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.EncUserKey (secret)>"
    }
}

// ------------------------------------------------------------------ key exchange

/// One party of an SM9 key exchange (GM/T 0044 Part 3). Single use: the first
/// `respond`/`finish` consumes r (the core enforces it; the lock makes a concurrent second
/// call see `AlreadyFinalized` too).
#[pyclass(module = "guomi.sm9", name = "KeyExchange", frozen)]
struct PyKeyExchange(Mutex<sm9::KeyExchange>);

impl PyKeyExchange {
    fn lock(&self) -> std::sync::MutexGuard<'_, sm9::KeyExchange> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[guard_panics]
#[pymethods]
impl PyKeyExchange {
    #[new]
    #[pyo3(signature = (user_key, peer_id, *, initiator))]
    fn new(
        py: Python<'_>,
        user_key: &PyEncUserKey,
        peer_id: Bytes,
        initiator: bool,
    ) -> PyResult<Self> {
        if user_key.0.hid() != sm9::HID_EXCHANGE {
            return Err(Error::InvalidKey(
                "key exchange needs a user key extracted with hid 0x02",
            ))
            .py_err();
        }
        let k = user_key.0.clone();
        py.detach(|| sm9::KeyExchange::new(k, &peer_id, initiator))
            .py_err()
            .map(|kx| Self(Mutex::new(kx)))
    }

    #[getter]
    fn ephemeral<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.lock().ephemeral())
    }

    #[getter]
    fn initiator(&self) -> bool {
        self.lock().is_initiator()
    }

    fn respond<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes,
        key_length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (k, s) = py
            .detach(|| self.lock().respond(&peer_ephemeral, key_length))
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &s)))
    }

    #[pyo3(signature = (peer_ephemeral, key_length, confirmation=None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes,
        key_length: usize,
        confirmation: Option<Bytes>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (k, s) = py
            .detach(|| {
                self.lock()
                    .finish(&peer_ephemeral, key_length, confirmation.as_deref())
            })
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &s)))
    }

    fn confirm(&self, confirmation: Bytes) -> PyResult<()> {
        self.lock().confirm(&confirmation).py_err()
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.KeyExchange>"
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(signature_to_der, m)?)?;
    m.add_function(wrap_pyfunction!(signature_from_der, m)?)?;
    m.add_function(wrap_pyfunction!(ciphertext_to_der, m)?)?;
    m.add_function(wrap_pyfunction!(ciphertext_from_der, m)?)?;
    m.add_class::<PySignMasterKey>()?;
    m.add_class::<PySignMasterPublicKey>()?;
    m.add_class::<PySignUserKey>()?;
    m.add_class::<PyEncMasterKey>()?;
    m.add_class::<PyEncMasterPublicKey>()?;
    m.add_class::<PyEncUserKey>()?;
    m.add_class::<PyKeyExchange>()?;
    m.add_function(wrap_pyfunction!(pairing, m)?)?;
    m.add("P1", PyBytes::new(m.py(), &sm9::generator_p1()))?;
    m.add("P2", PyBytes::new(m.py(), &sm9::generator_p2()))?;
    m.add("HID_SIGN", sm9::HID_SIGN)?;
    m.add("HID_EXCHANGE", sm9::HID_EXCHANGE)?;
    m.add("HID_ENCRYPT", sm9::HID_ENCRYPT)?;
    m.add("MAX_KEY_LENGTH", guomi_core::sm2::MAX_KEY_LENGTH)?;
    Ok(())
}
