//! `guomi._native.sm2`: SM2 keys, signatures, encryption, KEM and key exchange.
//! Type conversion, error mapping and GIL release only; every public-key operation runs
//! without the GIL.

use crate::buf::Bytes;
use crate::error::IntoPy;
use guomi_core::sm2::{
    self as core_sm2, CiphertextFormat, Initiator, PrivateKey, PublicKey, Responder, Signature,
    VerifyItem,
};
use guomi_core::sm3::Sm3;
use guomi_core::x509::keys;
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::sync::Mutex;
use zeroize::Zeroizing;

fn bytes<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, b)
}

fn sig_format(name: &str) -> PyResult<bool> {
    // true = DER
    match name.to_ascii_lowercase().as_str() {
        "der" => Ok(true),
        "raw" => Ok(false),
        _ => Err(Error::InvalidValue(
            "signature format must be 'der' or 'raw'",
        ))
        .py_err(),
    }
}

fn encode_sig<'py>(py: Python<'py>, sig: &Signature, der: bool) -> Bound<'py, PyBytes> {
    if der {
        bytes(py, &sig.to_der())
    } else {
        bytes(py, &sig.to_raw())
    }
}

/// Parses a signature in `format` (None = detect); `None` when malformed.
fn parse_sig(sig: &[u8], format: Option<&str>) -> PyResult<Option<Signature>> {
    Ok(match format {
        None => Signature::from_bytes(sig).ok(),
        Some(f) => {
            if sig_format(f)? {
                Signature::from_der(sig).ok()
            } else {
                Signature::from_raw(sig).ok()
            }
        }
    })
}

fn digest32(e: &[u8]) -> PyResult<[u8; 32]> {
    e.try_into()
        .map_err(|_| Error::InvalidLength {
            what: "digest e",
            expected: "32 bytes",
            got: e.len(),
        })
        .py_err()
}

fn ct_format(name: Option<&str>) -> PyResult<Option<CiphertextFormat>> {
    name.map(CiphertextFormat::parse).transpose().py_err()
}

/// The user ID, or GM/T 0009's default "1234567812345678" when not given.
fn uid_or_default(uid: &Option<Bytes>) -> &[u8] {
    uid.as_deref().unwrap_or(core_sm2::DEFAULT_UID)
}

/// Parses hex text (whitespace and a 0x prefix allowed).
fn from_hex(s: &str) -> PyResult<Vec<u8>> {
    let t: String = s
        .trim()
        .trim_start_matches("0x")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if !t.len().is_multiple_of(2) || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::UnsupportedFormat("malformed hex string")).py_err();
    }
    Ok((0..t.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&t[i..i + 2], 16).unwrap())
        .collect())
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Text (str) or bytes of a PEM argument.
fn pem_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.extract::<String>();
    }
    if let Ok(b) = obj.extract::<Bytes>() {
        return String::from_utf8(b.to_vec())
            .map_err(|_| Error::UnsupportedFormat("PEM must be ASCII text"))
            .py_err();
    }
    Err(PyTypeError::new_err("PEM must be str or bytes"))
}

/// A password argument: `str` (UTF-8) or bytes-like; kept in zeroizing memory.
fn password_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Zeroizing<Vec<u8>>> {
    let raw = if let Ok(s) = obj.cast::<PyString>() {
        s.extract::<String>()?.into_bytes()
    } else {
        obj.extract::<Bytes>()?.to_vec()
    };
    if raw.is_empty() {
        return Err(Error::InvalidValue("empty password")).py_err();
    }
    Ok(Zeroizing::new(raw))
}

/// Checks the options of an encrypted export (always PKCS#8) and parses the PRF.
fn encryption_params(
    password: &Bound<'_, PyAny>,
    format: &str,
    prf: &str,
) -> PyResult<(Zeroizing<Vec<u8>>, keys::Prf)> {
    if format != "pkcs8" {
        return Err(Error::InvalidValue(
            "encrypted private keys are always PKCS#8",
        ))
        .py_err();
    }
    Ok((password_bytes(password)?, keys::Prf::parse(prf).py_err()?))
}

/// An SM2 public key (immutable, hashable).
#[pyclass(module = "guomi.sm2", name = "PublicKey", frozen)]
pub struct PyPublicKey(PublicKey);

impl PyPublicKey {
    /// The core key (for other binding modules).
    pub(crate) fn inner(&self) -> &PublicKey {
        &self.0
    }
}

#[guard_panics]
#[pymethods]
impl PyPublicKey {
    /// From 65-byte 04||x||y, 64-byte x||y, 33-byte 02/03||x or 65-byte 06/07||x||y.
    #[staticmethod]
    fn from_bytes(data: Bytes) -> PyResult<Self> {
        Ok(PyPublicKey(PublicKey::from_bytes(&data).py_err()?))
    }

    /// SubjectPublicKeyInfo PEM ("PUBLIC KEY").
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPublicKey(
            PublicKey::from_spki_pem(&pem_text(pem)?).py_err()?,
        ))
    }

    /// SubjectPublicKeyInfo DER.
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyPublicKey(PublicKey::from_spki_der(&der).py_err()?))
    }

    #[pyo3(signature = (format="uncompressed"))]
    fn to_bytes<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
        match format.to_ascii_lowercase().as_str() {
            "uncompressed" => Ok(bytes(py, &self.0.to_uncompressed())),
            "raw" => Ok(bytes(py, &self.0.to_raw())),
            "compressed" => Ok(bytes(py, &self.0.to_compressed())),
            _ => Err(Error::InvalidValue(
                "format must be 'uncompressed', 'raw' or 'compressed'",
            ))
            .py_err(),
        }
    }

    fn to_pem(&self) -> String {
        self.0.to_spki_pem()
    }

    #[staticmethod]
    fn from_hex(text: &str) -> PyResult<Self> {
        Ok(PyPublicKey(
            PublicKey::from_bytes(&from_hex(text)?).py_err()?,
        ))
    }

    #[pyo3(signature = (format="uncompressed"))]
    fn to_hex(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        Ok(to_hex(self.to_bytes(py, format)?.as_bytes()))
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_spki_der())
    }

    /// Builds the per-key comb table (faster repeated verify/encrypt).
    fn prepare(&self, py: Python<'_>) {
        py.detach(|| self.0.prepare())
    }

    #[getter]
    fn is_prepared(&self) -> bool {
        self.0.is_prepared()
    }

    #[pyo3(signature = (uid=None))]
    fn compute_z<'py>(&self, py: Python<'py>, uid: Option<Bytes>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(bytes(py, &self.0.compute_z(uid_or_default(&uid)).py_err()?))
    }

    #[pyo3(signature = (signature, message, *, uid=None, format=None))]
    fn verify(
        &self,
        py: Python<'_>,
        signature: Bytes,
        message: Bytes,
        uid: Option<Bytes>,
        format: Option<&str>,
    ) -> PyResult<bool> {
        let Some(sig) = parse_sig(&signature, format)? else {
            return Ok(false);
        };
        let uid = uid_or_default(&uid);
        Ok(py.detach(|| self.0.verify(&message, uid, &sig)))
    }

    #[pyo3(signature = (signature, digest, *, format=None))]
    fn verify_digest(
        &self,
        py: Python<'_>,
        signature: Bytes,
        digest: Bytes,
        format: Option<&str>,
    ) -> PyResult<bool> {
        let e = digest32(&digest)?;
        let Some(sig) = parse_sig(&signature, format)? else {
            return Ok(false);
        };
        Ok(py.detach(|| self.0.verify_digest(&e, &sig)))
    }

    #[pyo3(signature = (message, *, format="c1c3c2", c1_prefix=true))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        format: &str,
        c1_prefix: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = CiphertextFormat::parse(format).py_err()?;
        let ct = py
            .detach(|| self.0.encrypt(&message, f, c1_prefix))
            .py_err()?;
        Ok(bytes(py, &ct))
    }

    /// KEM: (key, C1 as 04||x||y).
    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        key_length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (k, c1) = py.detach(|| self.0.encapsulate(key_length)).py_err()?;
        Ok((bytes(py, &k), bytes(py, &c1)))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPublicKey>()
            .map(|o| o.get().0 == self.0)
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let raw = self.0.to_uncompressed();
        let hex: String = raw[..9].iter().map(|b| format!("{b:02x}")).collect();
        format!("<guomi.sm2.PublicKey {hex}...>")
    }
}

/// An SM2 private key (immutable; never printed; zeroized when freed).
#[pyclass(module = "guomi.sm2", name = "PrivateKey", frozen)]
pub struct PyPrivateKey {
    key: PrivateKey,
    public: Py<PyPublicKey>,
}

impl PyPrivateKey {
    fn wrap(py: Python<'_>, key: PrivateKey) -> PyResult<Self> {
        let public = Py::new(py, PyPublicKey(key.public_key().clone()))?;
        Ok(PyPrivateKey { key, public })
    }

    /// An owned copy of the core key, d copied in Rust memory only (for other binding
    /// modules that keep a key, e.g. the envelope opener).
    pub(crate) fn owned_key(&self) -> guomi_core::Result<PrivateKey> {
        PrivateKey::from_bytes(&self.key.to_bytes()[..])
    }
}

#[guard_panics]
#[pymethods]
impl PyPrivateKey {
    /// A new key from the OS CSPRNG (d uniform in [1, n-2]).
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let key = py.detach(PrivateKey::generate).py_err()?;
        Self::wrap(py, key)
    }

    /// d as exactly 32 big-endian bytes.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        let key = py.detach(|| PrivateKey::from_bytes(&data)).py_err()?;
        Self::wrap(py, key)
    }

    /// d as a big-endian integer of 1 to 32 bytes, or 33 with a leading 00 (Java's
    /// `BigInteger.toByteArray`); left-padded to 32 bytes.
    #[staticmethod]
    fn from_integer_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        let key = py.detach(|| PrivateKey::from_be_integer(&data)).py_err()?;
        Self::wrap(py, key)
    }

    /// PEM: "PRIVATE KEY" (PKCS#8), "EC PRIVATE KEY" (SEC1), or with `password`
    /// "ENCRYPTED PRIVATE KEY" (PKCS#8 PBES2) or legacy `DEK-Info: SM4-CBC` SEC1.
    #[staticmethod]
    #[pyo3(signature = (pem, *, password=None))]
    fn from_pem(
        py: Python<'_>,
        pem: &Bound<'_, PyAny>,
        password: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let text = pem_text(pem)?;
        let password = password.map(password_bytes).transpose()?;
        let key = py
            .detach(|| keys::load_private_key_pem(&text, password.as_deref().map(|p| &p[..])))
            .py_err()?;
        Self::wrap(py, key)
    }

    /// DER: PKCS#8 or SEC1, or with `password` a PKCS#8 `EncryptedPrivateKeyInfo`.
    #[staticmethod]
    #[pyo3(signature = (der, *, password=None))]
    fn from_der(py: Python<'_>, der: Bytes, password: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let password = password.map(password_bytes).transpose()?;
        let key = py
            .detach(|| keys::load_private_key_der(&der, password.as_deref().map(|p| &p[..])))
            .py_err()?;
        Self::wrap(py, key)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.key.to_bytes()[..])
    }

    #[staticmethod]
    fn from_hex(py: Python<'_>, text: &str) -> PyResult<Self> {
        let key = PrivateKey::from_bytes(&from_hex(text)?).py_err()?;
        Self::wrap(py, key)
    }

    fn to_hex(&self) -> String {
        to_hex(&self.key.to_bytes()[..])
    }

    /// PEM, "pkcs8" or "sec1"; with `password`, PKCS#8 PBES2 (PBKDF2 with `prf`
    /// "hmac-sm3" or "hmac-sha256", SM4-CBC).
    #[pyo3(signature = (*, format="pkcs8", password=None, prf="hmac-sm3", iterations=keys::DEFAULT_ITERATIONS))]
    fn to_pem(
        &self,
        py: Python<'_>,
        format: &str,
        password: Option<&Bound<'_, PyAny>>,
        prf: &str,
        iterations: u32,
    ) -> PyResult<String> {
        let format = format.to_ascii_lowercase();
        if let Some(password) = password {
            let (password, prf) = encryption_params(password, &format, prf)?;
            return py
                .detach(|| keys::encrypt_private_key_pem(&self.key, &password, prf, iterations))
                .py_err();
        }
        match format.as_str() {
            "pkcs8" => Ok(self.key.to_pkcs8_pem().to_string()),
            "sec1" => Ok(self.key.to_sec1_pem().to_string()),
            _ => Err(Error::InvalidValue("format must be 'pkcs8' or 'sec1'")).py_err(),
        }
    }

    /// DER, "pkcs8" or "sec1"; with `password`, a PKCS#8 `EncryptedPrivateKeyInfo`.
    #[pyo3(signature = (*, format="pkcs8", password=None, prf="hmac-sm3", iterations=keys::DEFAULT_ITERATIONS))]
    fn to_der<'py>(
        &self,
        py: Python<'py>,
        format: &str,
        password: Option<&Bound<'_, PyAny>>,
        prf: &str,
        iterations: u32,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let format = format.to_ascii_lowercase();
        if let Some(password) = password {
            let (password, prf) = encryption_params(password, &format, prf)?;
            let der = py
                .detach(|| keys::encrypt_private_key_der(&self.key, &password, prf, iterations))
                .py_err()?;
            return Ok(bytes(py, &der));
        }
        match format.as_str() {
            "pkcs8" => Ok(bytes(py, &self.key.to_pkcs8_der())),
            "sec1" => Ok(bytes(py, &self.key.to_sec1_der())),
            _ => Err(Error::InvalidValue("format must be 'pkcs8' or 'sec1'")).py_err(),
        }
    }

    fn public_key(&self, py: Python<'_>) -> Py<PyPublicKey> {
        self.public.clone_ref(py)
    }

    #[pyo3(signature = (message, *, uid=None, format="der"))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        uid: Option<Bytes>,
        format: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let der = sig_format(format)?;
        let uid = uid_or_default(&uid);
        let sig = py.detach(|| self.key.sign(&message, uid)).py_err()?;
        Ok(encode_sig(py, &sig, der))
    }

    #[pyo3(signature = (digest, *, format="der"))]
    fn sign_digest<'py>(
        &self,
        py: Python<'py>,
        digest: Bytes,
        format: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let der = sig_format(format)?;
        let e = digest32(&digest)?;
        let sig = py.detach(|| self.key.sign_digest(&e)).py_err()?;
        Ok(encode_sig(py, &sig, der))
    }

    #[pyo3(signature = (ciphertext, *, format=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: Bytes,
        format: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = ct_format(format)?;
        let m = py.detach(|| self.key.decrypt(&ciphertext, f)).py_err()?;
        Ok(bytes(py, &m))
    }

    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        c1: Bytes,
        key_length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k = py
            .detach(|| self.key.decapsulate(&c1, key_length))
            .py_err()?;
        Ok(bytes(py, &k))
    }

    /// Plain ECDH: x coordinate of d·P.
    fn ecdh<'py>(
        &self,
        py: Python<'py>,
        peer: &Bound<'py, PyPublicKey>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let p = peer.get();
        let x = py.detach(|| core_sm2::ecdh(&self.key, &p.0)).py_err()?;
        Ok(bytes(py, &x[..]))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPrivateKey>()
            .map(|o| o.get().key == self.key)
            .unwrap_or(false)
    }

    /// Hash of the public key (never of d).
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.key.public_key().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        "<guomi.sm2.PrivateKey (secret not shown)>".to_string()
    }
}

/// Streaming signer: SM3 over Z_A || M fed piecewise.
#[pyclass(module = "guomi.sm2", name = "Signer")]
pub struct PySigner {
    key: Py<PyPrivateKey>,
    h: Option<Sm3>,
}

#[guard_panics]
#[pymethods]
impl PySigner {
    #[new]
    #[pyo3(signature = (private_key, *, uid=None))]
    fn new(private_key: Bound<'_, PyPrivateKey>, uid: Option<Bytes>) -> PyResult<Self> {
        let key = private_key;
        let h = key.get().key.signer(uid_or_default(&uid)).py_err()?;
        Ok(PySigner {
            key: key.unbind(),
            h: Some(h),
        })
    }

    fn update(&mut self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let h = self.h.as_mut().ok_or(Error::AlreadyFinalized).py_err()?;
        crate::buf::maybe_detach(py, data.len(), || h.update(&data));
        Ok(())
    }

    #[pyo3(signature = (*, format="der"))]
    fn sign<'py>(&mut self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
        let der = sig_format(format)?;
        let h = self.h.take().ok_or(Error::AlreadyFinalized).py_err()?;
        let e = h.finalize();
        let key = self.key.bind(py).get();
        let sig = py.detach(|| key.key.sign_digest(&e)).py_err()?;
        Ok(encode_sig(py, &sig, der))
    }
}

/// Streaming verifier.
#[pyclass(module = "guomi.sm2", name = "Verifier")]
pub struct PyVerifier {
    key: Py<PyPublicKey>,
    h: Option<Sm3>,
}

#[guard_panics]
#[pymethods]
impl PyVerifier {
    #[new]
    #[pyo3(signature = (public_key, *, uid=None))]
    fn new(public_key: Bound<'_, PyPublicKey>, uid: Option<Bytes>) -> PyResult<Self> {
        let key = public_key;
        let h = key.get().0.verifier(uid_or_default(&uid)).py_err()?;
        Ok(PyVerifier {
            key: key.unbind(),
            h: Some(h),
        })
    }

    fn update(&mut self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let h = self.h.as_mut().ok_or(Error::AlreadyFinalized).py_err()?;
        crate::buf::maybe_detach(py, data.len(), || h.update(&data));
        Ok(())
    }

    #[pyo3(signature = (signature, *, format=None))]
    fn verify(&mut self, py: Python<'_>, signature: Bytes, format: Option<&str>) -> PyResult<bool> {
        let h = self.h.take().ok_or(Error::AlreadyFinalized).py_err()?;
        let e = h.finalize();
        let Some(sig) = parse_sig(&signature, format)? else {
            return Ok(false);
        };
        let key = self.key.bind(py).get();
        Ok(py.detach(|| key.0.verify_digest(&e, &sig)))
    }
}

/// GB/T 32918.3 initiator (A). Single use: the first `finish` consumes r_A (the core
/// enforces it; the lock makes a concurrent second call see `AlreadyFinalized` too).
#[pyclass(module = "guomi.sm2", name = "KeyExchangeInitiator", frozen)]
pub struct PyInitiator(Mutex<Initiator>);

impl PyInitiator {
    fn lock(&self) -> std::sync::MutexGuard<'_, Initiator> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[guard_panics]
#[pymethods]
impl PyInitiator {
    #[new]
    #[pyo3(signature = (private_key, peer_public_key, *, uid=None, peer_uid=None))]
    fn new(
        py: Python<'_>,
        private_key: &Bound<'_, PyPrivateKey>,
        peer_public_key: &Bound<'_, PyPublicKey>,
        uid: Option<Bytes>,
        peer_uid: Option<Bytes>,
    ) -> PyResult<Self> {
        let (k, p) = (private_key.get(), peer_public_key.get());
        let (uid, peer_uid) = (uid_or_default(&uid), uid_or_default(&peer_uid));
        Ok(PyInitiator(Mutex::new(
            py.detach(|| Initiator::new(&k.key, uid, &p.0, peer_uid))
                .py_err()?,
        )))
    }

    #[getter]
    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.lock().ephemeral_public())
    }

    /// Returns (K, S_A).
    #[pyo3(signature = (peer_ephemeral_public_key, key_length, *, peer_confirmation=None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral_public_key: Bytes,
        key_length: usize,
        peer_confirmation: Option<Bytes>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let conf = peer_confirmation.as_deref();
        let r = py
            .detach(|| {
                self.lock()
                    .finish(&peer_ephemeral_public_key, conf, key_length)
            })
            .py_err()?;
        Ok((bytes(py, &r.key), bytes(py, &r.confirmation)))
    }
}

/// Where a responder is: not yet responded, respond() called (and failed, or running), or
/// responded (holding S_A to check).
enum ResponderState {
    Fresh,
    Used,
    Responded(Responder),
}

/// GB/T 32918.3 responder (B). Single use: `respond` runs once (its r_B lives only inside
/// that call); a second call, even after a failure, is `AlreadyFinalized`.
#[pyclass(module = "guomi.sm2", name = "KeyExchangeResponder", frozen)]
pub struct PyResponder {
    key: Py<PyPrivateKey>,
    uid: Vec<u8>,
    peer: Py<PyPublicKey>,
    peer_uid: Vec<u8>,
    state: Mutex<ResponderState>,
}

impl PyResponder {
    fn lock(&self) -> std::sync::MutexGuard<'_, ResponderState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[guard_panics]
#[pymethods]
impl PyResponder {
    #[new]
    #[pyo3(signature = (private_key, peer_public_key, *, uid=None, peer_uid=None))]
    fn new(
        private_key: Bound<'_, PyPrivateKey>,
        peer_public_key: Bound<'_, PyPublicKey>,
        uid: Option<Bytes>,
        peer_uid: Option<Bytes>,
    ) -> PyResult<Self> {
        let (uid, peer_uid) = (uid_or_default(&uid), uid_or_default(&peer_uid));
        if uid.len() > core_sm2::MAX_UID_LEN || peer_uid.len() > core_sm2::MAX_UID_LEN {
            return Err(Error::InvalidValue(
                "uid must be at most 8191 bytes (ENTL is 16 bits)",
            ))
            .py_err();
        }
        Ok(PyResponder {
            key: private_key.unbind(),
            uid: uid.to_vec(),
            peer: peer_public_key.unbind(),
            peer_uid: peer_uid.to_vec(),
            state: Mutex::new(ResponderState::Fresh),
        })
    }

    /// Returns (R_B, K, S_B).
    fn respond<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral_public_key: Bytes,
        key_length: usize,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        {
            let mut st = self.lock();
            if !matches!(*st, ResponderState::Fresh) {
                return Err(Error::AlreadyFinalized).py_err();
            }
            *st = ResponderState::Used;
        }
        let (k, p) = (self.key.bind(py).get(), self.peer.bind(py).get());
        let (resp, ex) = py
            .detach(|| {
                Responder::respond(
                    &k.key,
                    &self.uid,
                    &p.0,
                    &self.peer_uid,
                    &peer_ephemeral_public_key,
                    key_length,
                )
            })
            .py_err()?;
        let rb = resp.ephemeral_public();
        *self.lock() = ResponderState::Responded(resp);
        Ok((
            bytes(py, &rb),
            bytes(py, &ex.key),
            bytes(py, &ex.confirmation),
        ))
    }

    /// Checks S_A; raises InvalidTag when it does not match.
    fn confirm(&self, peer_confirmation: Bytes) -> PyResult<()> {
        match &*self.lock() {
            ResponderState::Responded(r) => r.confirm(&peer_confirmation).py_err(),
            _ => Err(Error::InvalidValue(
                "confirm() needs a successful respond()",
            ))
            .py_err(),
        }
    }
}

#[guard_panics]
#[pyfunction]
fn signature_der_to_raw<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_der(&signature).py_err()?.to_raw(),
    ))
}

#[guard_panics]
#[pyfunction]
fn signature_raw_to_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_raw(&signature).py_err()?.to_der(),
    ))
}

#[guard_panics]
#[pyfunction]
#[pyo3(signature = (ciphertext, from_format, to_format, *, c1_prefix=true))]
fn convert_ciphertext<'py>(
    py: Python<'py>,
    ciphertext: Bytes,
    from_format: Option<&str>,
    to_format: &str,
    c1_prefix: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let from = ct_format(from_format)?;
    let to = CiphertextFormat::parse(to_format).py_err()?;
    let out = core_sm2::convert_ciphertext::<core_sm2::Sm2p256>(&ciphertext, from, to, c1_prefix)
        .py_err()?;
    Ok(bytes(py, &out))
}

/// items: list of (PublicKey, signature, message, uid).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (items, threads=None))]
fn verify_many(
    py: Python<'_>,
    items: Vec<(Bound<'_, PyPublicKey>, Bytes, Bytes, Bytes)>,
    threads: Option<usize>,
) -> Vec<bool> {
    let refs: Vec<VerifyItem> = items
        .iter()
        .map(|(k, s, m, u)| VerifyItem {
            key: &k.get().0,
            signature: s,
            message: m,
            uid: u,
        })
        .collect();
    py.detach(|| core_sm2::verify_many(&refs, threads))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPublicKey>()?;
    m.add_class::<PyPrivateKey>()?;
    m.add_class::<PySigner>()?;
    m.add_class::<PyVerifier>()?;
    m.add_class::<PyInitiator>()?;
    m.add_class::<PyResponder>()?;
    m.add_function(wrap_pyfunction!(signature_der_to_raw, m)?)?;
    m.add_function(wrap_pyfunction!(signature_raw_to_der, m)?)?;
    m.add_function(wrap_pyfunction!(convert_ciphertext, m)?)?;
    m.add_function(wrap_pyfunction!(verify_many, m)?)?;
    m.add("DEFAULT_UID", PyBytes::new(m.py(), core_sm2::DEFAULT_UID))?;
    m.add("MAX_KEY_LENGTH", core_sm2::MAX_KEY_LENGTH)?;
    Ok(())
}
