//! `guomi._native.sm2`: SM2 keys, signatures, encryption, KEM and key exchange.
//! Type conversion, error mapping and GIL release only; every public-key operation runs
//! without the GIL.

use crate::buf::Bytes;
use crate::error::IntoPy;
use crate::locked::Locked;
use guomi_core::sm2::{
    self as core_sm2, C1Format, CiphertextFormat, Initiator, PrivateKey, PublicKey, Responder,
    Signature, VerifyItem,
};
use guomi_core::sm3::Sm3;
use guomi_core::Error;
use guomi_formats::sm2_keys::{PrivateKeyEncoding, PublicKeyEncoding};
use guomi_formats::x509::keys;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
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
pub(crate) fn password_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Zeroizing<Vec<u8>>> {
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

// The signatures of `to_pem`/`to_der` spell the default out so that `help()` shows it.
const _: () = assert!(keys::DEFAULT_ITERATIONS == 65536);

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

/// An SM2 public key: a point on the curve sm2p256v1 (immutable, hashable, compared by
/// value).
///
/// There is no constructor: make one with `from_bytes`, `from_hex`, `from_pem` or
/// `from_der`, or take `PrivateKey.public_key()`. Every reader checks that the point is on
/// the curve (and not the point at infinity).
///
/// Example:
///     >>> from guomi import sm2
///     >>> pk = sm2.PrivateKey.generate().public_key()
///     >>> sm2.PublicKey.from_bytes(pk.to_bytes("compressed")) == pk
///     True
#[pyclass(module = "guomi.sm2", name = "PublicKey", frozen)]
pub struct PyPublicKey(PublicKey);

impl PyPublicKey {
    /// The core key (for other binding modules).
    pub(crate) fn inner(&self) -> &PublicKey {
        &self.0
    }

    /// Wraps a core key (for other binding modules, e.g. a certificate's subject key).
    pub(crate) fn from_core(key: PublicKey) -> Self {
        PyPublicKey(key)
    }
}

#[guard_panics]
#[pymethods]
impl PyPublicKey {
    /// Reads a public key from its point encoding.
    ///
    /// Args:
    ///     data: bytes-like; 65 bytes `04 || x || y` (uncompressed), 64 bytes `x || y`,
    ///         33 bytes `02/03 || x` (compressed) or 65 bytes `06/07 || x || y` (hybrid).
    ///
    /// Returns:
    ///     PublicKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: `data` is not 33, 64 or 65 bytes long.
    ///     UnsupportedFormat: a 33- or 65-byte encoding with an unknown first byte.
    ///     InvalidKey: the point is not on the curve (or a hybrid parity bit is wrong).
    ///     TypeError: `data` is not bytes-like (e.g. `str`).
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> sm2.PublicKey.from_bytes(pk.to_bytes("raw")) == pk
    ///     True
    #[staticmethod]
    fn from_bytes(data: Bytes) -> PyResult<Self> {
        Ok(PyPublicKey(PublicKey::from_bytes(&data).py_err()?))
    }

    /// Reads a SubjectPublicKeyInfo PEM block (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII); the algorithm may be id-ecPublicKey with the
    ///         sm2p256v1 parameters or the bare SM2 OID 1.2.156.10197.1.301.
    ///
    /// Returns:
    ///     PublicKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: not PEM, not a PUBLIC KEY block, malformed DER, another curve.
    ///     InvalidKey: the point is not on the curve.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> sm2.PublicKey.from_pem(pk.to_pem()) == pk
    ///     True
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPublicKey(
            PublicKey::from_spki_pem(&pem_text(pem)?).py_err()?,
        ))
    }

    /// Reads a DER SubjectPublicKeyInfo (the body of a PUBLIC KEY PEM block).
    ///
    /// Args:
    ///     der: bytes-like DER; strict: trailing bytes are refused.
    ///
    /// Returns:
    ///     PublicKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER, not an SM2 key.
    ///     InvalidKey: the point is not on the curve.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> sm2.PublicKey.from_der(pk.to_der()) == pk
    ///     True
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyPublicKey(PublicKey::from_spki_der(&der).py_err()?))
    }

    /// The point encoding of this key.
    ///
    /// Args:
    ///     format: `"uncompressed"` (default; 65 bytes `04 || x || y`), `"raw"` (64 bytes
    ///         `x || y`) or `"compressed"` (33 bytes `02/03 || x`); case-insensitive.
    ///         Coordinates are always 32 bytes wide.
    ///
    /// Returns:
    ///     bytes: the encoding.
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format`.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> [len(pk.to_bytes(f)) for f in ("uncompressed", "raw", "compressed")]
    ///     [65, 64, 33]
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

    /// The key as SubjectPublicKeyInfo PEM text (`-----BEGIN PUBLIC KEY-----`), as OpenSSL
    /// and GmSSL write it.
    ///
    /// Returns:
    ///     str: the PEM text, ending with a newline.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> sm2.PrivateKey.generate().public_key().to_pem().splitlines()[0]
    ///     '-----BEGIN PUBLIC KEY-----'
    fn to_pem(&self) -> String {
        self.0.to_spki_pem()
    }

    /// Reads a public key from hexadecimal text (any encoding `from_bytes` accepts).
    ///
    /// Args:
    ///     text: hex digits, either case; surrounding and inner whitespace and a `0x`
    ///         prefix are allowed.
    ///
    /// Returns:
    ///     PublicKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: `text` is not an even number of hex digits.
    ///     InvalidLength, InvalidKey: as `from_bytes`.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> sm2.PublicKey.from_hex(pk.to_hex()) == pk
    ///     True
    #[staticmethod]
    fn from_hex(text: &str) -> PyResult<Self> {
        Ok(PyPublicKey(
            PublicKey::from_bytes(&from_hex(text)?).py_err()?,
        ))
    }

    /// The point encoding of this key as lowercase hex.
    ///
    /// Args:
    ///     format: as `to_bytes`: `"uncompressed"` (default, 130 digits), `"raw"` (128) or
    ///         `"compressed"` (66).
    ///
    /// Returns:
    ///     str: the hex text.
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format`.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().public_key().to_hex())
    ///     130
    #[pyo3(signature = (format="uncompressed"))]
    fn to_hex(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        Ok(to_hex(self.to_bytes(py, format)?.as_bytes()))
    }

    /// The key as DER SubjectPublicKeyInfo.
    ///
    /// Returns:
    ///     bytes: the DER (91 bytes).
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().public_key().to_der())
    ///     91
    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_spki_der())
    }

    /// Builds this key's comb table (about 88 KiB), so that later `verify`, `encrypt` and
    /// `encapsulate` with this key run faster. Worth it from a few operations per key on;
    /// idempotent and thread-safe; runs without the GIL. A key object also builds its table
    /// by itself at its 4th verification or encryption, as long as the automatically built
    /// tables of the whole process stay within 64 MiB (several hundred keys); `prepare()`
    /// is not limited by that budget.
    ///
    /// Returns:
    ///     None
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> pk = sm2.PrivateKey.generate().public_key()
    ///     >>> pk.prepare()
    ///     >>> pk.is_prepared
    ///     True
    fn prepare(&self, py: Python<'_>) {
        py.detach(|| self.0.prepare())
    }

    /// Whether this key's comb table exists: built by `prepare()`, or automatically at the
    /// key's 4th verification or encryption.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> pk, sig = key.public_key(), key.sign(b"m")
    ///     >>> [pk.verify(sig, b"m") and pk.is_prepared for _ in range(4)]
    ///     [False, False, False, True]
    #[getter]
    fn is_prepared(&self) -> bool {
        self.0.is_prepared()
    }

    /// Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) (GB/T 32918.2 §5.5),
    /// the value hashed before the message when signing.
    ///
    /// Args:
    ///     uid: the signer's ID, bytes-like, 0 to 8191 bytes (ENTL is 16 bits); `None`
    ///         means `DEFAULT_UID` (`b"1234567812345678"`).
    ///
    /// Returns:
    ///     bytes: Z_A (32 bytes).
    ///
    /// Raises:
    ///     InvalidArgument: `uid` is longer than 8191 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().public_key().compute_z(b""))
    ///     32
    #[pyo3(signature = (uid=None))]
    fn compute_z<'py>(&self, py: Python<'py>, uid: Option<Bytes>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(bytes(py, &self.0.compute_z(uid_or_default(&uid)).py_err()?))
    }

    /// Verifies an SM2 signature on `message` (GB/T 32918.2 §7), hashing Z_A || message.
    ///
    /// Args:
    ///     signature: bytes-like, DER `SEQUENCE { r, s }` or raw 64-byte `r || s`.
    ///     message: bytes-like, any length.
    ///     uid: the signer's ID (0 to 8191 bytes); `None` means `DEFAULT_UID`.
    ///     format: `"der"`, `"raw"` or `None` (default: detect).
    ///
    /// Returns:
    ///     bool: `True` when the signature is valid. A malformed signature, r or s outside
    ///     [1, n-1], or a `uid` longer than 8191 bytes gives `False`, never an exception.
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format` name.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> key.public_key().verify(key.sign(b"msg"), b"msg")
    ///     True
    ///     >>> key.public_key().verify(key.sign(b"msg"), b"other")
    ///     False
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

    /// Verifies an SM2 signature on a precomputed digest e = SM3(Z_A || M) (for KMS/HSM
    /// flows; see `compute_z`).
    ///
    /// Args:
    ///     signature: bytes-like, DER or raw 64-byte `r || s`.
    ///     digest: bytes-like, exactly 32 bytes.
    ///     format: `"der"`, `"raw"` or `None` (default: detect).
    ///
    /// Returns:
    ///     bool: whether the signature is valid (malformed signatures give `False`).
    ///
    /// Raises:
    ///     InvalidLength: `digest` is not 32 bytes.
    ///     InvalidArgument: an unknown `format` name.
    ///
    /// Example:
    ///     >>> from guomi import sm2, sm3
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> pk = key.public_key()
    ///     >>> e = sm3.hash(pk.compute_z() + b"msg")
    ///     >>> pk.verify_digest(key.sign(b"msg"), e)
    ///     True
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

    /// Encrypts `message` to this key (GB/T 32918.4 §6.1).
    ///
    /// Args:
    ///     message: bytes-like, 0 to (2**32 - 2) * 32 bytes.
    ///     format: `"c1c3c2"` (default, the current standard), `"c1c2c3"` (GM/T 0003-2012
    ///         and older peers) or `"der"` (GM/T 0009 ASN.1); case-insensitive.
    ///     c1_prefix: in the raw formats, start C1 with the `04` byte (default `True`);
    ///         `False` writes the bare 64-byte `x || y` some peers expect.
    ///     c1_format: `"uncompressed"` (default) or `"compressed"`: C1 as the 33-byte
    ///         `02/03 || x` (gmsm's `MarshalCompressed`); raw formats only, and not with
    ///         `c1_prefix=False`.
    ///
    /// Returns:
    ///     bytes: the ciphertext; raw formats are 96 bytes longer than `message` (97 with
    ///     the prefix, 65 compressed).
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format` or `c1_format`, `c1_format="compressed"`
    ///         with `format="der"` or with `c1_prefix=False`.
    ///     InvalidLength: `message` is too long.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ct = key.public_key().encrypt(b"secret")
    ///     >>> len(ct), key.decrypt(ct)
    ///     (103, b'secret')
    ///     >>> ct = key.public_key().encrypt(b"secret", c1_format="compressed")
    ///     >>> len(ct), ct[0] in (2, 3), key.decrypt(ct)
    ///     (71, True, b'secret')
    #[pyo3(signature = (message, *, format="c1c3c2", c1_prefix=true, c1_format="uncompressed"))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        format: &str,
        c1_prefix: bool,
        c1_format: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = CiphertextFormat::parse(format).py_err()?;
        let c1 = C1Format::from_options(c1_format, c1_prefix).py_err()?;
        let ct = py.detach(|| self.0.encrypt_c1(&message, f, c1)).py_err()?;
        Ok(bytes(py, &ct))
    }

    /// SM2 key encapsulation: a fresh random key and C1 to send to the key's owner.
    ///
    /// C1 = [k]G and key = KDF(x2 || y2, key_length) with (x2, y2) = [k]P; the key is never
    /// all zero.
    ///
    /// Args:
    ///     key_length: bytes of key wanted, 1 to `MAX_KEY_LENGTH` (65536).
    ///
    /// Returns:
    ///     tuple[bytes, bytes]: `(key, c1)`, C1 as 65 bytes `04 || x || y`.
    ///
    /// Raises:
    ///     InvalidLength: `key_length` is outside 1..65536 (checked before any work).
    ///     OverflowError: `key_length` is negative.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> k, c1 = key.public_key().encapsulate(16)
    ///     >>> key.decapsulate(c1, 16) == k
    ///     True
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

/// An SM2 private key d in [1, n-2] with its public key (immutable).
///
/// There is no constructor: use `generate`, `from_bytes`, `from_integer_bytes`,
/// `from_hex`, `from_pem` or `from_der`. The secret never appears in `repr`, is kept out
/// of Python memory and is zeroized when the key is freed. Keys compare by value and hash
/// by their public key. Signing nonces are hedged (RFC 6979 §3.6 style: an HMAC-SM3 DRBG
/// over d, the digest and 32 fresh OS-random bytes).
///
/// Example:
///     >>> from guomi import sm2
///     >>> key = sm2.PrivateKey.generate()
///     >>> key
///     <guomi.sm2.PrivateKey (secret not shown)>
///     >>> sm2.PrivateKey.from_bytes(key.to_bytes()) == key
///     True
#[pyclass(module = "guomi.sm2", name = "PrivateKey", frozen)]
pub struct PyPrivateKey {
    key: PrivateKey,
    public: Py<PyPublicKey>,
}

impl PyPrivateKey {
    pub(crate) fn wrap(py: Python<'_>, key: PrivateKey) -> PyResult<Self> {
        let public = Py::new(py, PyPublicKey(key.public_key().clone()))?;
        Ok(PyPrivateKey { key, public })
    }

    /// An owned copy of the core key, d copied in Rust memory only (for other binding
    /// modules that keep a key, e.g. the envelope opener).
    pub(crate) fn owned_key(&self) -> guomi_core::Result<PrivateKey> {
        PrivateKey::from_bytes(&self.key.to_bytes()[..])
    }

    /// The core key, borrowed (for other binding modules that only read it).
    pub(crate) fn key(&self) -> &PrivateKey {
        &self.key
    }
}

#[guard_panics]
#[pymethods]
impl PyPrivateKey {
    /// A new random key: d uniform in [1, n-2] from the OS CSPRNG (rejection sampling).
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     RandomnessError: the OS random generator failed (there is no fallback).
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().to_bytes())
    ///     32
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let key = py.detach(PrivateKey::generate).py_err()?;
        Self::wrap(py, key)
    }

    /// Reads d from exactly 32 big-endian bytes (what `to_bytes` writes).
    ///
    /// Short input is refused rather than padded, so a truncated buffer never becomes a weak
    /// key; use `from_integer_bytes` for integers written without fixed width.
    ///
    /// Args:
    ///     data: bytes-like, 32 bytes.
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: `data` is not 32 bytes.
    ///     InvalidKey: d is 0 or not below n - 1.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.from_bytes(bytes(31) + b"\x07")
    ///     >>> key.to_hex()[-2:]
    ///     '07'
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        let key = py.detach(|| PrivateKey::from_bytes(&data)).py_err()?;
        Self::wrap(py, key)
    }

    /// Reads d from a big-endian integer written without fixed width, as some peers do.
    ///
    /// Args:
    ///     data: bytes-like, 1 to 32 bytes (left-padded with zeros), or 33 bytes whose first
    ///         byte is `00` (the sign byte of Java's `BigInteger.toByteArray`).
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: `data` is empty, longer than 33 bytes, or 33 bytes not starting
    ///         with `00`.
    ///     InvalidKey: d is 0 or not below n - 1.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> sm2.PrivateKey.from_integer_bytes(b"\x07") == sm2.PrivateKey.from_bytes(bytes(31) + b"\x07")
    ///     True
    #[staticmethod]
    fn from_integer_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        let key = py.detach(|| PrivateKey::from_be_integer(&data)).py_err()?;
        Self::wrap(py, key)
    }

    /// Reads a PEM private key, optionally password-protected.
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII): `PRIVATE KEY` (PKCS#8), `EC PRIVATE KEY` or
    ///         `SM2 PRIVATE KEY` (SEC1), `ENCRYPTED PRIVATE KEY` (PKCS#8 PBES2 with PBKDF2
    ///         HMAC-SM3 or HMAC-SHA256 and SM4-CBC), or legacy SEC1 with
    ///         `Proc-Type: 4,ENCRYPTED` and `DEK-Info: SM4-CBC,<iv>`.
    ///     password: for encrypted keys only; `str` (UTF-8) or bytes-like, not empty.
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     InvalidKey: wrong password or corrupted encrypted key (one opaque error), or d
    ///         out of range.
    ///     InvalidArgument: a password for a plain key, none for an encrypted key, or an
    ///         empty password.
    ///     UnsupportedFormat: malformed PEM or DER (strict: trailing bytes are refused), an
    ///         unknown algorithm, or PBKDF2 iterations outside 1..10000000.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> pem = key.to_pem(password="pw", iterations=1000)
    ///     >>> sm2.PrivateKey.from_pem(pem, password="pw") == key
    ///     True
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

    /// Reads a DER private key: PKCS#8, SEC1, or with `password` a PKCS#8
    /// EncryptedPrivateKeyInfo.
    ///
    /// Args:
    ///     der: bytes-like DER (strict: trailing bytes are refused).
    ///     password: for encrypted keys only; `str` (UTF-8) or bytes-like, not empty.
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     InvalidKey, InvalidArgument, UnsupportedFormat: as `from_pem`.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> sm2.PrivateKey.from_der(key.to_der(format="sec1")) == key
    ///     True
    #[staticmethod]
    #[pyo3(signature = (der, *, password=None))]
    fn from_der(py: Python<'_>, der: Bytes, password: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let password = password.map(password_bytes).transpose()?;
        let key = py
            .detach(|| keys::load_private_key_der(&der, password.as_deref().map(|p| &p[..])))
            .py_err()?;
        Self::wrap(py, key)
    }

    /// d as 32 big-endian bytes. The result is a Python `bytes` that cannot be wiped: keep it
    /// no longer than needed.
    ///
    /// Returns:
    ///     bytes: 32 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().to_bytes())
    ///     32
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.key.to_bytes()[..])
    }

    /// Reads d from 64 hex digits (what `to_hex` writes).
    ///
    /// Args:
    ///     text: hex digits, either case; whitespace and a `0x` prefix are allowed.
    ///
    /// Returns:
    ///     PrivateKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: `text` is not an even number of hex digits.
    ///     InvalidLength: not 32 bytes (64 digits).
    ///     InvalidKey: d is 0 or not below n - 1.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> sm2.PrivateKey.from_hex(key.to_hex()) == key
    ///     True
    #[staticmethod]
    fn from_hex(py: Python<'_>, text: &str) -> PyResult<Self> {
        let key = PrivateKey::from_bytes(&from_hex(text)?).py_err()?;
        Self::wrap(py, key)
    }

    /// d as 64 lowercase hex digits.
    ///
    /// Returns:
    ///     str: the hex text.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> len(sm2.PrivateKey.generate().to_hex())
    ///     64
    fn to_hex(&self) -> String {
        to_hex(&self.key.to_bytes()[..])
    }

    /// The key as PEM text, plain or password-protected.
    ///
    /// Args:
    ///     format: `"pkcs8"` (default, `PRIVATE KEY`) or `"sec1"` (`EC PRIVATE KEY`);
    ///         with a password only `"pkcs8"`.
    ///     password: `None` (plain), or `str` (UTF-8) / bytes-like, not empty: writes
    ///         `ENCRYPTED PRIVATE KEY` (PKCS#8 PBES2: PBKDF2 and SM4-CBC, random salt and IV).
    ///     prf: the PBKDF2 PRF, `"hmac-sm3"` (default; GmSSL 3 reads it) or `"hmac-sha256"`
    ///         (OpenSSL 3 reads it).
    ///     iterations: PBKDF2 iterations, 1 to 10000000 (default 65536).
    ///
    /// Returns:
    ///     str: the PEM text.
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format` or `prf`, `format="sec1"` with a password,
    ///         an empty password, or `iterations` out of range.
    ///     OverflowError: `iterations` is negative or above 2**32 - 1.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> sm2.PrivateKey.generate().to_pem().splitlines()[0]
    ///     '-----BEGIN PRIVATE KEY-----'
    #[pyo3(signature = (*, format="pkcs8", password=None, prf="hmac-sm3", iterations=65536))]
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

    /// The key as DER: PKCS#8 PrivateKeyInfo or SEC1 ECPrivateKey, or with a password a PKCS#8
    /// EncryptedPrivateKeyInfo.
    ///
    /// Args:
    ///     format, password, prf, iterations: as `to_pem`.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Raises:
    ///     InvalidArgument, OverflowError: as `to_pem`.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = key.to_der(password=b"pw", iterations=1000)
    ///     >>> sm2.PrivateKey.from_der(der, password=b"pw") == key
    ///     True
    #[pyo3(signature = (*, format="pkcs8", password=None, prf="hmac-sm3", iterations=65536))]
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

    /// The matching public key (computed once, when the private key was made).
    ///
    /// Returns:
    ///     PublicKey: the public key.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> key.public_key() == key.public_key()
    ///     True
    fn public_key(&self, py: Python<'_>) -> Py<PyPublicKey> {
        self.public.clone_ref(py)
    }

    /// Signs `message` (GB/T 32918.2 §6): e = SM3(Z_A || message), then (r, s).
    ///
    /// The nonce k is hedged (derived from d, e and fresh OS randomness), so every call gives
    /// a different valid signature. s is never "low-S normalized".
    ///
    /// Args:
    ///     message: bytes-like, any length.
    ///     uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`
    ///         (`b"1234567812345678"`). OpenSSL 1.1/3.x peers without `distid` use `b""`.
    ///     format: `"der"` (default, `SEQUENCE { r, s }`, at most 72 bytes) or `"raw"` (64
    ///         bytes `r || s`).
    ///
    /// Returns:
    ///     bytes: the signature.
    ///
    /// Raises:
    ///     InvalidArgument: an unknown `format` or a `uid` longer than 8191 bytes.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> sig = key.sign(b"msg", format="raw")
    ///     >>> len(sig), key.public_key().verify(sig, b"msg")
    ///     (64, True)
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

    /// Signs a precomputed digest e = SM3(Z_A || M) (see `PublicKey.compute_z`).
    ///
    /// Args:
    ///     digest: bytes-like, exactly 32 bytes.
    ///     format: `"der"` (default) or `"raw"`.
    ///
    /// Returns:
    ///     bytes: the signature.
    ///
    /// Raises:
    ///     InvalidLength: `digest` is not 32 bytes.
    ///     InvalidArgument: an unknown `format`.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, sm3
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> e = sm3.hash(key.public_key().compute_z() + b"msg")
    ///     >>> key.public_key().verify(key.sign_digest(e), b"msg")
    ///     True
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

    /// Decrypts an SM2 ciphertext made for this key (GB/T 32918.4 §7).
    ///
    /// Args:
    ///     ciphertext: bytes-like; C1 may come with or without the `04` prefix.
    ///     format: `None` (default: DER is detected, anything else is read as C1C3C2),
    ///         `"c1c3c2"`, `"c1c2c3"` or `"der"`.
    ///
    /// Returns:
    ///     bytes: the plaintext (released only after C3 is checked).
    ///
    /// Raises:
    ///     DecryptionError: any failure (malformed, C1 not on the curve, wrong key, changed
    ///         bytes, all-zero KDF output); deliberately one opaque error.
    ///     InvalidArgument: an unknown `format` name.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> key.decrypt(key.public_key().encrypt(b"hi", format="der"))
    ///     b'hi'
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

    /// The key of SM2 key encapsulation from the sender's C1 (inverse of
    /// `PublicKey.encapsulate`).
    ///
    /// Args:
    ///     c1: bytes-like point, any encoding `PublicKey.from_bytes` reads.
    ///     key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536); must match the sender's.
    ///
    /// Returns:
    ///     bytes: the key.
    ///
    /// Raises:
    ///     InvalidLength: `key_length` is outside 1..65536 (checked first).
    ///     DecryptionError: C1 is not a valid point, or the key would be all zero.
    ///     OverflowError: `key_length` is negative.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> k, c1 = key.public_key().encapsulate(32)
    ///     >>> key.decapsulate(c1, 32) == k
    ///     True
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

    /// Plain ECDH over sm2p256v1: the x coordinate of [d]P (RFC 8998 TLS 1.3 uses it with
    /// curveSM2). This is not the GB/T 32918.3 key exchange (see `KeyExchangeInitiator`).
    ///
    /// Args:
    ///     peer: the other side's `PublicKey`.
    ///
    /// Returns:
    ///     bytes: the shared x coordinate (32 bytes); hash it before use as a key.
    ///
    /// Raises:
    ///     InvalidKey: the result is the point at infinity (impossible for valid keys).
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> a.ecdh(b.public_key()) == b.ecdh(a.public_key())
    ///     True
    fn ecdh<'py>(
        &self,
        py: Python<'py>,
        peer: &Bound<'py, PyPublicKey>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let p = peer.get();
        let x = py.detach(|| core_sm2::ecdh(&self.key, &p.0)).py_err()?;
        Ok(bytes(py, &x[..]))
    }

    /// Opens a GM/T 0009 `SM2EnvelopedKey` (GB/T 35276; the `encryptedPrivateKey` of
    /// GM/T 0092 certificate responses): the SM4 key is SM2-decrypted with
    /// `decryption_key`, then SM4-ECB-decrypts d, which must match the enclosed public key.
    /// Reads what gmsm's `sm2.MarshalEnvelopedPrivateKey` writes.
    ///
    /// Args:
    ///     data: bytes-like DER, at most 1024 bytes.
    ///     decryption_key: the recipient's `PrivateKey`.
    ///
    /// Returns:
    ///     PrivateKey: the enveloped key.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER, more than 1024 bytes, or a symmetric algorithm
    ///         other than SM4-ECB (1.2.156.10197.1.104.1) or SM4.
    ///     DecryptionError: the SM4 key or the private key cannot be decrypted (wrong
    ///         `decryption_key` or corrupted data; one opaque error).
    ///     InvalidKey: the decrypted key does not match the enclosed public key.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> data = key.to_enveloped_key(recipient.public_key())
    ///     >>> sm2.PrivateKey.from_enveloped_key(data, recipient) == key
    ///     True
    #[staticmethod]
    fn from_enveloped_key(
        py: Python<'_>,
        data: Bytes,
        decryption_key: PyRef<'_, PyPrivateKey>,
    ) -> PyResult<Self> {
        let recipient = &decryption_key.key;
        let key = py
            .detach(|| guomi_formats::sm2_enveloped::from_enveloped_key(&data, recipient))
            .py_err()?;
        Self::wrap(py, key)
    }

    /// This key as a GM/T 0009 `SM2EnvelopedKey` for `recipient_public_key`: a fresh SM4
    /// key from the OS encrypts d (SM4-ECB, no padding), and is SM2-encrypted to the
    /// recipient (GM/T 0009 DER ciphertext); the layout gmsm's
    /// `sm2.ParseEnvelopedPrivateKey` reads.
    ///
    /// Args:
    ///     recipient_public_key: the `PublicKey` that may open it.
    ///
    /// Returns:
    ///     bytes: DER (about 240 bytes).
    ///
    /// Raises:
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> data = key.to_enveloped_key(recipient.public_key())
    ///     >>> data[:2]
    ///     b'0\x81'
    fn to_enveloped_key<'py>(
        &self,
        py: Python<'py>,
        recipient_public_key: PyRef<'_, PyPublicKey>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let recipient = &recipient_public_key.0;
        let der = py
            .detach(|| guomi_formats::sm2_enveloped::to_enveloped_key(&self.key, recipient))
            .py_err()?;
        Ok(bytes(py, &der))
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

/// Streaming SM2 signer: feeds Z_A || M to SM3 piece by piece, for messages too large to
/// hold in memory. Single use.
///
/// Args:
///     private_key: the signing `PrivateKey`.
///     uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///
/// Raises:
///     InvalidArgument: `uid` is longer than 8191 bytes.
///
/// Example:
///     >>> from guomi import sm2
///     >>> key = sm2.PrivateKey.generate()
///     >>> s = sm2.Signer(key)
///     >>> s.update(b"hello, ")
///     >>> s.update(b"world")
///     >>> key.public_key().verify(s.sign(), b"hello, world")
///     True
#[pyclass(module = "guomi.sm2", name = "Signer", frozen)]
pub struct PySigner {
    key: Py<PyPrivateKey>,
    h: Locked<Option<Sm3>>,
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
            h: Locked::new(Some(h)),
        })
    }

    /// Feeds the next piece of the message.
    ///
    /// Args:
    ///     data: bytes-like, any length (large pieces are hashed without the GIL).
    ///
    /// Raises:
    ///     AlreadyFinalized: `sign()` was already called.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> s = sm2.Signer(sm2.PrivateKey.generate())
    ///     >>> s.update(b"part")
    fn update(&self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let mut h = self.h.lock(py)?;
        let h = h.as_mut().ok_or(Error::AlreadyFinalized).py_err()?;
        crate::buf::maybe_detach(py, data.len(), || h.update(&data));
        Ok(())
    }

    /// Signs the message fed so far; the signer cannot be used afterwards.
    ///
    /// Args:
    ///     format: `"der"` (default) or `"raw"` (64 bytes `r || s`).
    ///
    /// Returns:
    ///     bytes: the signature, as `PrivateKey.sign` on the whole message.
    ///
    /// Raises:
    ///     AlreadyFinalized: called a second time.
    ///     InvalidArgument: an unknown `format`.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> s = sm2.Signer(sm2.PrivateKey.generate())
    ///     >>> len(s.sign(format="raw"))
    ///     64
    #[pyo3(signature = (*, format="der"))]
    fn sign<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
        let der = sig_format(format)?;
        let h = self
            .h
            .lock(py)?
            .take()
            .ok_or(Error::AlreadyFinalized)
            .py_err()?;
        let e = h.finalize();
        let key = self.key.bind(py).get();
        let sig = py.detach(|| key.key.sign_digest(&e)).py_err()?;
        Ok(encode_sig(py, &sig, der))
    }
}

/// Streaming SM2 verifier: the counterpart of `Signer`. Single use.
///
/// Args:
///     public_key: the signer's `PublicKey`.
///     uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///
/// Raises:
///     InvalidArgument: `uid` is longer than 8191 bytes.
///
/// Example:
///     >>> from guomi import sm2
///     >>> key = sm2.PrivateKey.generate()
///     >>> v = sm2.Verifier(key.public_key())
///     >>> v.update(b"hello")
///     >>> v.verify(key.sign(b"hello"))
///     True
#[pyclass(module = "guomi.sm2", name = "Verifier", frozen)]
pub struct PyVerifier {
    key: Py<PyPublicKey>,
    h: Locked<Option<Sm3>>,
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
            h: Locked::new(Some(h)),
        })
    }

    /// Feeds the next piece of the message.
    ///
    /// Args:
    ///     data: bytes-like, any length.
    ///
    /// Raises:
    ///     AlreadyFinalized: `verify()` was already called.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> v = sm2.Verifier(sm2.PrivateKey.generate().public_key())
    ///     >>> v.update(b"part")
    fn update(&self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        let mut h = self.h.lock(py)?;
        let h = h.as_mut().ok_or(Error::AlreadyFinalized).py_err()?;
        crate::buf::maybe_detach(py, data.len(), || h.update(&data));
        Ok(())
    }

    /// Checks `signature` on the message fed so far; the verifier cannot be used afterwards.
    ///
    /// Args:
    ///     signature: bytes-like, DER or raw 64-byte `r || s`.
    ///     format: `"der"`, `"raw"` or `None` (default: detect).
    ///
    /// Returns:
    ///     bool: whether the signature is valid (malformed signatures give `False`).
    ///
    /// Raises:
    ///     AlreadyFinalized: called a second time.
    ///     InvalidArgument: an unknown `format` name.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> v = sm2.Verifier(key.public_key())
    ///     >>> v.verify(key.sign(b""))
    ///     True
    #[pyo3(signature = (signature, *, format=None))]
    fn verify(&self, py: Python<'_>, signature: Bytes, format: Option<&str>) -> PyResult<bool> {
        let h = self
            .h
            .lock(py)?
            .take()
            .ok_or(Error::AlreadyFinalized)
            .py_err()?;
        let e = h.finalize();
        let Some(sig) = parse_sig(&signature, format)? else {
            return Ok(false);
        };
        let key = self.key.bind(py).get();
        Ok(py.detach(|| key.0.verify_digest(&e, &sig)))
    }
}

/// The initiator (A) of the SM2 key exchange (GB/T 32918.3 §6.1). Single use.
///
/// Creating it draws the ephemeral r_A; send `ephemeral_public_key` (R_A) to B, then call
/// `finish` with B's reply.
///
/// Args:
///     private_key: A's `PrivateKey`.
///     peer_public_key: B's `PublicKey`.
///     uid: A's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///     peer_uid: B's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///
/// Raises:
///     InvalidArgument: an ID longer than 8191 bytes.
///     RandomnessError: the OS random generator failed.
///
/// Example:
///     >>> from guomi import sm2
///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
///     >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
///     >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
///     >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
///     >>> ka, sa = init.finish(rb, 16, peer_confirmation=sb)
///     >>> resp.confirm(sa)
///     >>> ka == kb
///     True
#[pyclass(module = "guomi.sm2", name = "KeyExchangeInitiator", frozen)]
pub struct PyInitiator(Locked<Initiator>);

impl PyInitiator {
    fn lock(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, Initiator>> {
        self.0.lock(py)
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
        Ok(PyInitiator(Locked::new(
            py.detach(|| Initiator::new(&k.key, uid, &p.0, peer_uid))
                .py_err()?,
        )))
    }

    /// R_A = [r_A]G, 65 bytes `04 || x || y`: send it to the responder.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> len(sm2.KeyExchangeInitiator(a, b.public_key()).ephemeral_public_key)
    ///     65
    #[getter]
    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(bytes(py, &self.lock(py)?.ephemeral_public()))
    }

    /// Completes the exchange with B's R_B (steps A4-A10): returns the key and S_A.
    ///
    /// Single use: the first call consumes and wipes r_A whatever happens (success, wrong
    /// S_B, bad R_B, bad `key_length`).
    ///
    /// Args:
    ///     peer_ephemeral_public_key: R_B from the responder (any point encoding).
    ///     key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536).
    ///     peer_confirmation: S_B from the responder (32 bytes), checked in constant time
    ///         when given; `None` skips key confirmation.
    ///
    /// Returns:
    ///     tuple[bytes, bytes]: `(K, S_A)`; send S_A to B for its `confirm`.
    ///
    /// Raises:
    ///     InvalidTag: `peer_confirmation` does not match.
    ///     InvalidLength: `key_length` is outside 1..65536.
    ///     InvalidLength, UnsupportedFormat, InvalidKey: R_B is not a valid point (as
    ///         `PublicKey.from_bytes`), or the shared point is infinity.
    ///     AlreadyFinalized: `finish` was already called.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
    ///     >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
    ///     >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 32)
    ///     >>> ka, sa = init.finish(rb, 32, peer_confirmation=sb)
    ///     >>> ka == kb, len(sa)
    ///     (True, 32)
    #[pyo3(signature = (peer_ephemeral_public_key, key_length, *, peer_confirmation=None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral_public_key: Bytes,
        key_length: usize,
        peer_confirmation: Option<Bytes>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let conf = peer_confirmation.as_deref();
        let mut init = self.lock(py)?;
        let init = &mut *init;
        let r = py
            .detach(|| init.finish(&peer_ephemeral_public_key, conf, key_length))
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

/// The responder (B) of the SM2 key exchange (GB/T 32918.3 §6.1). Single use.
///
/// Call `respond` with A's R_A, send R_B and S_B back, then `confirm` A's S_A.
///
/// Args:
///     private_key: B's `PrivateKey`.
///     peer_public_key: A's `PublicKey`.
///     uid: B's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///     peer_uid: A's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
///
/// Raises:
///     InvalidArgument: an ID longer than 8191 bytes.
///
/// Example:
///     >>> from guomi import sm2
///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
///     >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
///     >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
///     >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
///     >>> init.finish(rb, 16, peer_confirmation=sb)[0] == kb
///     True
#[pyclass(module = "guomi.sm2", name = "KeyExchangeResponder", frozen)]
pub struct PyResponder {
    key: Py<PyPrivateKey>,
    uid: Vec<u8>,
    peer: Py<PyPublicKey>,
    peer_uid: Vec<u8>,
    state: Locked<ResponderState>,
}

impl PyResponder {
    fn lock(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, ResponderState>> {
        self.state.lock(py)
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
            state: Locked::new(ResponderState::Fresh),
        })
    }

    /// Answers A's R_A (steps B1-B9): draws r_B, computes the key and S_B.
    ///
    /// Single use: r_B exists only inside this call; a second call, even after a failed one,
    /// raises `AlreadyFinalized`.
    ///
    /// Args:
    ///     peer_ephemeral_public_key: R_A from the initiator (any point encoding).
    ///     key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536).
    ///
    /// Returns:
    ///     tuple[bytes, bytes, bytes]: `(R_B, K, S_B)`; send R_B and S_B to A.
    ///
    /// Raises:
    ///     InvalidLength: `key_length` is outside 1..65536.
    ///     InvalidLength, UnsupportedFormat, InvalidKey: R_A is not a valid point (as
    ///         `PublicKey.from_bytes`), or the shared point is infinity.
    ///     AlreadyFinalized: `respond` was already called.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
    ///     >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
    ///     >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 32)
    ///     >>> len(rb), len(kb), len(sb)
    ///     (65, 32, 32)
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
            let mut st = self.lock(py)?;
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
        *self.lock(py)? = ResponderState::Responded(resp);
        Ok((
            bytes(py, &rb),
            bytes(py, &ex.key),
            bytes(py, &ex.confirmation),
        ))
    }

    /// Checks A's confirmation S_A (step B10, constant time).
    ///
    /// Args:
    ///     peer_confirmation: S_A from the initiator's `finish`.
    ///
    /// Raises:
    ///     InvalidTag: S_A does not match.
    ///     InvalidArgument: `respond` has not succeeded yet.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ///     >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
    ///     >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
    ///     >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
    ///     >>> resp.confirm(init.finish(rb, 16)[1])
    fn confirm(&self, py: Python<'_>, peer_confirmation: Bytes) -> PyResult<()> {
        match &*self.lock(py)? {
            ResponderState::Responded(r) => r.confirm(&peer_confirmation).py_err(),
            _ => Err(Error::InvalidValue(
                "confirm() needs a successful respond()",
            ))
            .py_err(),
        }
    }
}

/// Converts a DER signature `SEQUENCE { r, s }` to the 64-byte `r || s` form.
///
/// Args:
///     signature: bytes-like DER (strict).
///
/// Returns:
///     bytes: 64 bytes, r and s 32 bytes each.
///
/// Raises:
///     UnsupportedFormat: malformed DER, or r or s wider than 32 bytes.
///
/// Example:
///     >>> from guomi import sm2
///     >>> der = sm2.PrivateKey.generate().sign(b"m")
///     >>> sm2.signature_raw_to_der(sm2.signature_der_to_raw(der)) == der
///     True
#[guard_panics]
#[pyfunction]
fn signature_der_to_raw<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_der(&signature).py_err()?.to_raw(),
    ))
}

/// Converts a 64-byte `r || s` signature to DER `SEQUENCE { r, s }` (minimal integers).
///
/// Args:
///     signature: bytes-like, 64 bytes.
///
/// Returns:
///     bytes: the DER (8 to 72 bytes).
///
/// Raises:
///     InvalidLength: `signature` is not 64 bytes.
///
/// Example:
///     >>> from guomi import sm2
///     >>> sm2.signature_raw_to_der(bytes(31) + b"\x01" + bytes(31) + b"\x02").hex()
///     '3006020101020102'
#[guard_panics]
#[pyfunction]
fn signature_raw_to_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_raw(&signature).py_err()?.to_der(),
    ))
}

/// Re-encodes an SM2 ciphertext between C1C3C2, C1C2C3 and GM/T 0009 DER. No key is
/// needed and nothing is decrypted.
///
/// Args:
///     ciphertext: bytes-like; raw C1 as `04 || x || y`, bare `x || y`, compressed
///         `02/03 || x` or hybrid `06/07 || x || y` (told apart by which reading puts
///         C1 on the curve).
///     from_format: `"c1c3c2"`, `"c1c2c3"`, `"der"`, or `None` (DER detected, anything
///         else read as C1C3C2).
///     to_format: `"c1c3c2"`, `"c1c2c3"` or `"der"`.
///     c1_prefix: write `04` before C1 in raw output (default `True`).
///     c1_format: `"uncompressed"` (default) or `"compressed"` (C1 as `02/03 || x`;
///         raw output only, not with `c1_prefix=False`).
///
/// Returns:
///     bytes: the ciphertext in `to_format`.
///
/// Raises:
///     UnsupportedFormat: `ciphertext` is malformed for `from_format`, or
///         `c1_format="compressed"` and C1 is not a point on the curve.
///     InvalidArgument: an unknown format name or `c1_format`, or
///         `c1_format="compressed"` with `to_format="der"` or `c1_prefix=False`.
///
/// Example:
///     >>> from guomi import sm2
///     >>> from guomi._native.sm2 import convert_ciphertext
///     >>> key = sm2.PrivateKey.generate()
///     >>> der = convert_ciphertext(key.public_key().encrypt(b"x"), None, "der")
///     >>> key.decrypt(der)
///     b'x'
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (ciphertext, from_format, to_format, *, c1_prefix=true, c1_format="uncompressed"))]
fn convert_ciphertext<'py>(
    py: Python<'py>,
    ciphertext: Bytes,
    from_format: Option<&str>,
    to_format: &str,
    c1_prefix: bool,
    c1_format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let from = ct_format(from_format)?;
    let to = CiphertextFormat::parse(to_format).py_err()?;
    let c1 = C1Format::from_options(c1_format, c1_prefix).py_err()?;
    let out =
        core_sm2::convert_ciphertext_c1::<core_sm2::Sm2p256>(&ciphertext, from, to, c1).py_err()?;
    Ok(bytes(py, &out))
}

/// Verifies many SM2 signatures without the GIL, optionally on several cores.
///
/// Args:
///     items: a list of `(public_key, signature, message, uid)` tuples: a `PublicKey`
///         and three bytes-like values (signature DER or raw; `uid` 0 to 8191 bytes).
///     threads: `None` or `1` (default: the calling thread), `0` (every core), or `n`
///         (at most `n` threads, capped at the number of cores).
///
/// Returns:
///     list[bool]: one result per item, in order; malformed signatures are `False`.
///
/// Raises:
///     OverflowError: `threads` is negative.
///     TypeError: an item has the wrong shape or types.
///
/// Example:
///     >>> from guomi import sm2
///     >>> key = sm2.PrivateKey.generate()
///     >>> pk, uid = key.public_key(), sm2.DEFAULT_UID
///     >>> sm2.verify_many([(pk, key.sign(b"a"), b"a", uid), (pk, b"", b"b", uid)])
///     [True, False]
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
