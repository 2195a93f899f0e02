//! `guomi._native.sm9`: SM9 master keys, user keys, signatures, encryption, KEM and key
//! exchange. Type conversion, error mapping and GIL release only: every pairing and
//! scalar multiplication runs without the GIL.

use crate::buf::Bytes;
use crate::error::IntoPy;
use crate::locked::Locked;
use guomi_core::sm9::{self, Ciphertext, Signature};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

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

/// Converts a raw SM9 signature ``h || S`` to GmSSL's DER
/// ``SEQUENCE {h OCTET STRING, S BIT STRING}``.
///
/// Args:
///     signature: 97 bytes ``h || 04 || x || y`` (96 bytes ``h || x || y`` accepted).
///
/// Returns:
///     bytes: the DER encoding.
///
/// Raises:
///     InvalidLength: ``signature`` is not 97 or 96 bytes.
///     UnsupportedFormat: a 97-byte signature whose S does not start with 04.
///     TypeError: ``signature`` is not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> raw = bytes(32) + sm9.P1
///     >>> der = sm9.signature_to_der(raw)
///     >>> der[:2].hex(), sm9.signature_from_der(der) == raw
///     ('3066', True)
#[guard_panics]
#[pyfunction]
fn signature_to_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_raw(&signature).py_err()?.to_der(),
    ))
}

/// Converts GmSSL's DER SM9 signature ``SEQUENCE {h OCTET STRING, S BIT STRING}`` to
/// raw ``h || S``. Strict: nothing may follow the structure.
///
/// Args:
///     signature: the DER encoding.
///
/// Returns:
///     bytes: 97 bytes ``h || 04 || x || y``.
///
/// Raises:
///     UnsupportedFormat: malformed DER, trailing bytes, h not 32 bytes or S not a
///         65-byte uncompressed point.
///     TypeError: ``signature`` is not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> raw = bytes(32) + sm9.P1
///     >>> sm9.signature_from_der(sm9.signature_to_der(raw)) == raw
///     True
#[guard_panics]
#[pyfunction]
fn signature_from_der<'py>(py: Python<'py>, signature: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Signature::from_der(&signature).py_err()?.to_raw(),
    ))
}

/// Converts a raw SM9 ciphertext ``C1 (x || y) || C3 || C2`` to GmSSL's DER
/// ``SEQUENCE {EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, CipherText OCTET STRING}``.
///
/// Args:
///     ciphertext: at least 96 bytes, as made by ``EncMasterPublicKey.encrypt`` (C1 as
///         ``x || y`` or ``04 || x || y``).
///     cipher: the data cipher it was made with, written as EnType: ``"kdf"`` (the
///         default, EnType 0), ``"sm4-ecb"`` (1), ``"sm4-cbc"`` or ``"sm4"`` (2),
///         ``"sm4-ofb"`` (4) or ``"sm4-cfb"`` (8).
///
/// Returns:
///     bytes: the DER encoding.
///
/// Raises:
///     UnsupportedFormat: ``ciphertext`` is shorter than 96 bytes.
///     InvalidArgument: unknown ``cipher``.
///     TypeError: ``ciphertext`` is not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> raw = sm9.P1[1:] + bytes(32) + b"data"
///     >>> sm9.ciphertext_from_der(sm9.ciphertext_to_der(raw)) == raw
///     True
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

/// Converts GmSSL's DER SM9 ciphertext to raw ``C1 (x || y) || C3 || C2``. The EnType
/// is dropped: decrypt the raw form with the matching ``cipher``.
///
/// Args:
///     ciphertext: the DER encoding (strict: nothing may follow it).
///     c1_prefix: write C1 as ``04 || x || y`` (65 bytes) instead of ``x || y`` (64
///         bytes, the default).
///
/// Returns:
///     bytes: ``C1 (64 bytes, or 65 with c1_prefix) || C3 (32) || C2``.
///
/// Raises:
///     UnsupportedFormat: malformed DER, an unknown EnType, or C1/C3 of the wrong
///         shape.
///     TypeError: ``ciphertext`` is not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> der = sm9.ciphertext_to_der(sm9.P1[1:] + bytes(32) + b"data", cipher="sm4-cbc")
///     >>> len(sm9.ciphertext_from_der(der)), len(sm9.ciphertext_from_der(der, c1_prefix=True))
///     (100, 101)
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (ciphertext, *, c1_prefix=false))]
fn ciphertext_from_der<'py>(
    py: Python<'py>,
    ciphertext: Bytes,
    c1_prefix: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    Ok(bytes(
        py,
        &Ciphertext::from_der(&ciphertext)
            .py_err()?
            .to_raw_c1(c1_prefix),
    ))
}

/// The R-ate pairing e(P, Q) of GM/T 0044 (runs without the GIL).
///
/// Args:
///     p: a G1 point, 65 bytes ``04 || x || y`` (64 bytes ``x || y`` accepted).
///     q: a G2 point, 129 bytes ``04 || x1 || x0 || y1 || y0`` (128 accepted).
///
/// Returns:
///     bytes: the GT element, 384 bytes in the standard's order.
///
/// Raises:
///     InvalidLength: a point of the wrong length.
///     UnsupportedFormat: a full-length point that does not start with 04.
///     InvalidKey: a coordinate not below p, or a point not on the curve (G2: not on
///         the twist or not in the order-N subgroup).
///     TypeError: an argument is not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> len(sm9.pairing(sm9.P1, sm9.P2))
///     384
#[guard_panics]
#[pyfunction]
fn pairing<'py>(py: Python<'py>, p: Bytes, q: Bytes) -> PyResult<Bound<'py, PyBytes>> {
    let e = py.detach(|| sm9::pairing(&p, &q)).py_err()?;
    Ok(bytes(py, &e))
}

// ------------------------------------------------------------------ signatures

/// The SM9 signature master public key Ppub-s (a G2 point): verifies the signatures of
/// every user identity of its key generation centre (GM/T 0044 Part 2).
///
/// Made by ``SignMasterKey.public_key()`` or ``from_bytes``; immutable, hashable and
/// comparable. It caches g = e(P1, Ppub-s) and a fixed-base table on first use (or
/// ``precompute()``).
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.SignMasterKey.generate()
///     >>> mpk = sm9.SignMasterPublicKey.from_bytes(kgc.public_key().to_bytes())
///     >>> mpk == kgc.public_key(), len(mpk.to_bytes())
///     (True, 129)
#[pyclass(module = "guomi.sm9", name = "SignMasterPublicKey", frozen)]
struct PySignMasterPublicKey(sm9::SignMasterPublicKey);

#[guard_panics]
#[pymethods]
impl PySignMasterPublicKey {
    /// Loads Ppub-s, checking that it is a valid G2 point.
    ///
    /// Args:
    ///     data: 129 bytes ``04 || x1 || x0 || y1 || y0`` (128 bytes without 04
    ///         accepted).
    ///
    /// Returns:
    ///     SignMasterPublicKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 129 or 128 bytes.
    ///     UnsupportedFormat: 129 bytes that do not start with 04.
    ///     InvalidKey: a coordinate not below p, or a point not on the twist or not in
    ///         the order-N subgroup.
    ///     TypeError: ``data`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> mpk = sm9.SignMasterKey.generate().public_key()
    ///     >>> sm9.SignMasterPublicKey.from_bytes(mpk.to_bytes()[1:]) == mpk
    ///     True
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::SignMasterPublicKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    /// Ppub-s as 129 bytes ``04 || x1 || x0 || y1 || y0`` (Fp2 high coefficient first).
    ///
    /// Returns:
    ///     bytes: 129 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.SignMasterKey.generate().public_key().to_bytes()[0]
    ///     4
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// Verifies an SM9 signature by ``user_id`` on ``message`` (runs without the GIL).
    ///
    /// Args:
    ///     signature: ``h || S`` (97 bytes) for ``format="raw"``, or GmSSL's DER for
    ///         ``format="der"``.
    ///     message: the signed message, any bytes-like object.
    ///     user_id: the signer's identity, any bytes-like object.
    ///     format: ``"raw"`` (the default) or ``"der"``.
    ///
    /// Returns:
    ///     bool: ``True`` if the signature is valid; ``False`` otherwise, including
    ///     any malformed signature.
    ///
    /// Raises:
    ///     InvalidArgument: ``format`` is not ``"raw"`` or ``"der"``.
    ///     TypeError: a bytes argument is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> sig = kgc.extract(b"alice").sign(b"msg")
    ///     >>> mpk = kgc.public_key()
    ///     >>> mpk.verify(sig, b"msg", b"alice"), mpk.verify(sig, b"msg", b"bob")
    ///     (True, False)
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

    /// Builds the per-key caches now (g = e(P1, Ppub-s) and its fixed-base table)
    /// instead of on first use; idempotent.
    ///
    /// Returns:
    ///     None.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.SignMasterKey.generate().public_key().precompute()
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

/// The SM9 signature master key ks, held by the key generation centre (KGC), which
/// extracts each user's signing key from it (GM/T 0044 Part 2).
///
/// Made by ``generate()`` or ``from_bytes``; immutable. The secret is wiped when the
/// object is freed and never appears in ``repr``.
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.SignMasterKey.generate()
///     >>> alice = kgc.extract(b"alice@example.com")
///     >>> kgc.public_key().verify(alice.sign(b"hi"), b"hi", b"alice@example.com")
///     True
#[pyclass(module = "guomi.sm9", name = "SignMasterKey", frozen)]
struct PySignMasterKey(sm9::SignMasterKey);

#[guard_panics]
#[pymethods]
impl PySignMasterKey {
    /// A new random master key ks in [1, N-1] from the OS CSPRNG (rejection sampling).
    ///
    /// Returns:
    ///     SignMasterKey: the key.
    ///
    /// Raises:
    ///     RandomnessError: the OS random number generator failed (no fallback).
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.SignMasterKey.generate().to_bytes())
    ///     32
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        py.detach(sm9::SignMasterKey::generate).py_err().map(Self)
    }

    /// Loads ks from its 32-byte big-endian encoding.
    ///
    /// Args:
    ///     data: exactly 32 bytes, a scalar in [1, N-1] (no padding or trimming).
    ///
    /// Returns:
    ///     SignMasterKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 32 bytes.
    ///     InvalidKey: the scalar is 0 or not below the group order N.
    ///     TypeError: ``data`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> sm9.SignMasterKey.from_bytes(kgc.to_bytes()).public_key() == kgc.public_key()
    ///     True
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::SignMasterKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    /// ks as 32 big-endian bytes (secret: store it protected).
    ///
    /// Returns:
    ///     bytes: 32 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.SignMasterKey.generate().to_bytes())
    ///     32
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// The matching master public key Ppub-s = [ks] P2, to publish.
    ///
    /// Returns:
    ///     SignMasterPublicKey: the public key.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> kgc.public_key() == kgc.public_key()
    ///     True
    fn public_key(&self) -> PySignMasterPublicKey {
        PySignMasterPublicKey(self.0.public_key())
    }

    /// Extracts the signing key ds_A of identity ``user_id`` (hid 0x01), GM/T 0044
    /// Part 2 §6.1. Runs without the GIL.
    ///
    /// Args:
    ///     user_id: the identity, any bytes (e.g. an e-mail address).
    ///
    /// Returns:
    ///     SignUserKey: the user's signing key.
    ///
    /// Raises:
    ///     InvalidKey: H1(ID || 0x01, N) + ks = 0 mod N (negligibly rare); the KGC
    ///         must then generate a new master key.
    ///     TypeError: ``user_id`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.SignMasterKey.generate().extract(b"alice").user_id
    ///     b'alice'
    fn extract(&self, py: Python<'_>, user_id: Bytes) -> PyResult<PySignUserKey> {
        py.detach(|| self.0.extract(&user_id))
            .py_err()
            .map(|k| PySignUserKey(Arc::new(k)))
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.SignMasterKey (secret)>"
    }
}

/// A user's SM9 signing key ds_A (a G1 point), with its identity and master public key.
///
/// Made by ``SignMasterKey.extract`` or ``from_bytes``; immutable. The secret is wiped
/// when the object is freed and never appears in ``repr``.
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.SignMasterKey.generate()
///     >>> alice = kgc.extract(b"alice")
///     >>> sig = alice.sign(b"message")
///     >>> len(sig), alice.master_public_key().verify(sig, b"message", b"alice")
///     (97, True)
#[pyclass(module = "guomi.sm9", name = "SignUserKey", frozen)]
struct PySignUserKey(Arc<sm9::SignUserKey>);

#[guard_panics]
#[pymethods]
impl PySignUserKey {
    /// Loads ds_A for ``user_id`` under ``master_public_key``, checking that it is on
    /// the curve and belongs to that identity and master key (one pairing).
    ///
    /// Args:
    ///     data: 65 bytes ``04 || x || y`` (64 bytes ``x || y`` accepted).
    ///     user_id: the identity the key was extracted for.
    ///     master_public_key: the KGC's ``SignMasterPublicKey``.
    ///
    /// Returns:
    ///     SignUserKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 65 or 64 bytes.
    ///     UnsupportedFormat: 65 bytes that do not start with 04.
    ///     InvalidKey: a coordinate not below p, or a point not on the curve.
    ///     TypeError: ``data`` is not bytes-like.
    ///     InvalidKey: (also) the key does not belong to ``user_id`` and
    ///         ``master_public_key``.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> data = kgc.extract(b"alice").to_bytes()
    ///     >>> sm9.SignUserKey.from_bytes(data, b"alice", kgc.public_key()).user_id
    ///     b'alice'
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

    /// ds_A as 65 bytes ``04 || x || y`` (secret: store it protected).
    ///
    /// Returns:
    ///     bytes: 65 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.SignMasterKey.generate().extract(b"a").to_bytes())
    ///     65
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// The identity this key belongs to.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.SignMasterKey.generate().extract(b"alice").user_id
    ///     b'alice'
    #[getter]
    fn user_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, self.0.user_id())
    }

    /// The master public key this key belongs to.
    ///
    /// Returns:
    ///     SignMasterPublicKey: the KGC's public key.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> kgc.extract(b"a").master_public_key() == kgc.public_key()
    ///     True
    fn master_public_key(&self) -> PySignMasterPublicKey {
        PySignMasterPublicKey(self.0.master_public_key())
    }

    /// Signs ``message`` (GM/T 0044 Part 2 §6.2; runs without the GIL).
    ///
    /// The random r is hedged: an HMAC-SM3 DRBG over ds_A, SM3(message) and 32 fresh
    /// OS-random bytes (RFC 6979 §3.6 style), so each signature differs.
    ///
    /// Args:
    ///     message: any bytes-like object.
    ///     format: ``"raw"`` (the default: ``h || S``, 97 bytes) or ``"der"`` (GmSSL's
    ///         ``SEQUENCE {h OCTET STRING, S BIT STRING}``).
    ///
    /// Returns:
    ///     bytes: the signature.
    ///
    /// Raises:
    ///     InvalidArgument: ``format`` is not ``"raw"`` or ``"der"``.
    ///     RandomnessError: the OS random number generator failed.
    ///     TypeError: ``message`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.SignMasterKey.generate()
    ///     >>> der = kgc.extract(b"alice").sign(b"msg", format="der")
    ///     >>> kgc.public_key().verify(der, b"msg", b"alice", format="der")
    ///     True
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

    /// Builds this key's fixed-base comb (and the master public key's caches) now
    /// instead of on first use; idempotent.
    ///
    /// Returns:
    ///     None.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.SignMasterKey.generate().extract(b"a").precompute()
    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.SignUserKey (secret)>"
    }
}

// ------------------------------------------------------------------ encryption

/// The SM9 encryption master public key Ppub-e (a G1 point): encrypts to, and
/// encapsulates keys for, every user identity of its key generation centre (GM/T 0044
/// Part 4).
///
/// Made by ``EncMasterKey.public_key()`` or ``from_bytes``; immutable, hashable and
/// comparable. It caches e(Ppub-e, P2) and a fixed-base table on first use (or
/// ``precompute()``).
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.EncMasterKey.generate()
///     >>> ct = kgc.public_key().encrypt(b"secret", b"bob")
///     >>> kgc.extract(b"bob").decrypt(ct)
///     b'secret'
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
    /// Loads Ppub-e, checking that it is a valid G1 point.
    ///
    /// Args:
    ///     data: 65 bytes ``04 || x || y`` (64 bytes ``x || y`` accepted).
    ///
    /// Returns:
    ///     EncMasterPublicKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 65 or 64 bytes.
    ///     UnsupportedFormat: 65 bytes that do not start with 04.
    ///     InvalidKey: a coordinate not below p, or a point not on the curve.
    ///     TypeError: ``data`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> mpk = sm9.EncMasterKey.generate().public_key()
    ///     >>> sm9.EncMasterPublicKey.from_bytes(mpk.to_bytes()) == mpk
    ///     True
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::EncMasterPublicKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    /// Ppub-e as 65 bytes ``04 || x || y``.
    ///
    /// Returns:
    ///     bytes: 65 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.EncMasterKey.generate().public_key().to_bytes())
    ///     65
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// Encrypts ``message`` to identity ``user_id`` (GM/T 0044 Part 4 §7.2; runs
    /// without the GIL).
    ///
    /// Args:
    ///     message: the plaintext, at most (2**32 - 3) * 32 bytes.
    ///     user_id: the recipient's identity.
    ///     cipher: ``"kdf"`` (the default) is the KDF stream cipher of GM/T 0044 Part 4
    ///         (C2 = M xor K1); ``"sm4-cbc"`` (alias ``"sm4"``), ``"sm4-ecb"``,
    ///         ``"sm4-cfb"`` and ``"sm4-ofb"`` the block-cipher variant (C2 = SM4(K1, M)
    ///         with a 16-byte K1; ECB/CBC with PKCS #7; CBC/CFB/OFB put a random IV
    ///         before the ciphertext; DER EnType 1, 2, 8, 4 as in emmansun/gmsm).
    ///     format: ``"raw"`` (the default: ``C1 (x || y, 64 bytes) || C3 (32) || C2``)
    ///         or ``"der"`` (GmSSL's ``SM9Cipher``, which records the cipher).
    ///     mac: ``"sm3"`` (the default): C3 = SM3(C2 || K2) as the standard says;
    ///         ``"hmac-sm3"``: C3 = HMAC-SM3(K2, C2) as GmSSL 3.x computes it (use it,
    ///         with ``format="der"``, to exchange ciphertexts with GmSSL).
    ///     c1_prefix: in the raw format, write C1 as ``04 || x || y`` (65 bytes) instead
    ///         of ``x || y`` (64 bytes, the default, as gmsm writes it); DER always holds
    ///         ``04 || x || y``. Decryption reads both forms.
    ///
    /// Returns:
    ///     bytes: the ciphertext (raw with ``"kdf"``: ``len(message) + 96`` bytes, 97
    ///     with ``c1_prefix``).
    ///
    /// Raises:
    ///     InvalidArgument: unknown ``cipher``, ``format`` or ``mac``.
    ///     InvalidLength: ``message`` is too long.
    ///     RandomnessError: the OS random number generator failed.
    ///     TypeError: ``message`` or ``user_id`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> ct = kgc.public_key().encrypt(b"hi", b"bob", cipher="sm4-cbc", format="der")
    ///     >>> kgc.extract(b"bob").decrypt(ct, format="der")
    ///     b'hi'
    #[pyo3(signature = (message, user_id, *, cipher="kdf", format="raw", mac="sm3", c1_prefix=false))]
    #[allow(clippy::too_many_arguments)]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        message: Bytes,
        user_id: Bytes,
        cipher: &str,
        format: &str,
        mac: &str,
        c1_prefix: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let cipher = self::cipher(cipher)?;
        let fmt = self::format(format)?;
        let mac = self::mac(mac)?;
        let ct = py
            .detach(|| self.0.encrypt_with(&message, &user_id, cipher, mac))
            .py_err()?;
        Ok(match fmt {
            Format::Raw => bytes(py, &ct.to_raw_c1(c1_prefix)),
            Format::Der => bytes(py, &ct.to_der()),
        })
    }

    /// Key encapsulation for identity ``user_id`` (GM/T 0044 Part 4 §6.2; runs
    /// without the GIL): a fresh shared key and the value ``c`` to send.
    ///
    /// Args:
    ///     user_id: the recipient's identity.
    ///     key_length: the key length in bytes, 1 to ``MAX_KEY_LENGTH`` (65536), checked
    ///         before anything is allocated.
    ///     c1_prefix: write ``c`` as ``04 || x || y`` (65 bytes, the default) or, with
    ///         ``False``, as ``x || y`` (64 bytes, as BouncyCastle writes it).
    ///         ``decapsulate`` reads both.
    ///
    /// Returns:
    ///     tuple[bytes, bytes]: ``(key, c)``, ``key`` of ``key_length`` bytes and ``c``
    ///     = ``04 || x || y`` (65 bytes; 64 without the prefix), which the recipient
    ///     passes to ``EncUserKey.decapsulate``.
    ///
    /// Raises:
    ///     InvalidLength: ``key_length`` is 0 or over 65536.
    ///     OverflowError: ``key_length`` is negative.
    ///     RandomnessError: the OS random number generator failed.
    ///     TypeError: ``user_id`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> key, c = kgc.public_key().encapsulate(b"bob", 32)
    ///     >>> kgc.extract(b"bob").decapsulate(c, 32) == key
    ///     True
    ///     >>> key, c = kgc.public_key().encapsulate(b"bob", 32, c1_prefix=False)
    ///     >>> len(c), kgc.extract(b"bob").decapsulate(c, 32) == key
    ///     (64, True)
    #[pyo3(signature = (user_id, key_length, *, c1_prefix=true))]
    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        user_id: Bytes,
        key_length: usize,
        c1_prefix: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (k, c) = py
            .detach(|| self.0.encapsulate_c1(&user_id, key_length, c1_prefix))
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &c)))
    }

    /// Builds the per-key caches now (e(Ppub-e, P2) and its fixed-base table)
    /// instead of on first use; idempotent.
    ///
    /// Returns:
    ///     None.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.EncMasterKey.generate().public_key().precompute()
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

/// The SM9 encryption (and key-exchange) master key ke, held by the key generation
/// centre (KGC), which extracts each user's decryption or key-exchange key from it.
///
/// Made by ``generate()`` or ``from_bytes``; immutable. The secret is wiped when the
/// object is freed and never appears in ``repr``.
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.EncMasterKey.generate()
///     >>> bob = kgc.extract(b"bob")
///     >>> bob.decrypt(kgc.public_key().encrypt(b"x", b"bob"))
///     b'x'
#[pyclass(module = "guomi.sm9", name = "EncMasterKey", frozen)]
struct PyEncMasterKey(sm9::EncMasterKey);

#[guard_panics]
#[pymethods]
impl PyEncMasterKey {
    /// A new random master key ke in [1, N-1] from the OS CSPRNG (rejection sampling).
    ///
    /// Returns:
    ///     EncMasterKey: the key.
    ///
    /// Raises:
    ///     RandomnessError: the OS random number generator failed (no fallback).
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.EncMasterKey.generate().to_bytes())
    ///     32
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        py.detach(sm9::EncMasterKey::generate).py_err().map(Self)
    }

    /// Loads ke from its 32-byte big-endian encoding.
    ///
    /// Args:
    ///     data: exactly 32 bytes, a scalar in [1, N-1] (no padding or trimming).
    ///
    /// Returns:
    ///     EncMasterKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 32 bytes.
    ///     InvalidKey: the scalar is 0 or not below the group order N.
    ///     TypeError: ``data`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> sm9.EncMasterKey.from_bytes(kgc.to_bytes()).public_key() == kgc.public_key()
    ///     True
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes) -> PyResult<Self> {
        py.detach(|| sm9::EncMasterKey::from_bytes(&data))
            .py_err()
            .map(Self)
    }

    /// ke as 32 big-endian bytes (secret: store it protected).
    ///
    /// Returns:
    ///     bytes: 32 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.EncMasterKey.generate().to_bytes())
    ///     32
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// The matching master public key Ppub-e = [ke] P1, to publish.
    ///
    /// Returns:
    ///     EncMasterPublicKey: the public key.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> kgc.public_key() == kgc.public_key()
    ///     True
    fn public_key(&self) -> PyEncMasterPublicKey {
        PyEncMasterPublicKey(self.0.public_key())
    }

    /// Extracts the private key de_B of identity ``user_id`` (GM/T 0044 Part 4 §6.1 /
    /// Part 3). Runs without the GIL.
    ///
    /// Args:
    ///     user_id: the identity, any bytes.
    ///     hid: ``HID_ENCRYPT`` (3, the default) for encryption and the KEM, or
    ///         ``HID_EXCHANGE`` (2) for ``KeyExchange``.
    ///
    /// Returns:
    ///     EncUserKey: the user's key.
    ///
    /// Raises:
    ///     InvalidArgument: ``hid`` is not 3 or 2.
    ///     OverflowError: ``hid`` is negative or over 255.
    ///     InvalidKey: H1(ID || hid, N) + ke = 0 mod N (negligibly rare); the KGC must
    ///         then generate a new master key.
    ///     TypeError: ``user_id`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> kgc.extract(b"bob").hid, kgc.extract(b"bob", hid=sm9.HID_EXCHANGE).hid
    ///     (3, 2)
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

/// A user's SM9 encryption or key-exchange private key de_B (a G2 point), with its
/// identity, hid and master public key.
///
/// Made by ``EncMasterKey.extract`` or ``from_bytes``; immutable. Keys with hid 3
/// decrypt and decapsulate; keys with hid 2 serve ``KeyExchange``. The secret is wiped
/// when the object is freed and never appears in ``repr``.
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.EncMasterKey.generate()
///     >>> bob = kgc.extract(b"bob")
///     >>> bob.user_id, bob.hid
///     (b'bob', 3)
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
    /// Loads de_B for ``user_id`` and ``hid`` under ``master_public_key``, checking
    /// that it is a valid G2 point that belongs to that identity and master key.
    ///
    /// Args:
    ///     data: 129 bytes ``04 || x1 || x0 || y1 || y0`` (128 bytes accepted).
    ///     user_id: the identity the key was extracted for.
    ///     master_public_key: the KGC's ``EncMasterPublicKey``.
    ///     hid: the hid it was extracted with: 3 (the default) or 2.
    ///
    /// Returns:
    ///     EncUserKey: the key.
    ///
    /// Raises:
    ///     InvalidLength: ``data`` is not 129 or 128 bytes.
    ///     UnsupportedFormat: 129 bytes that do not start with 04.
    ///     InvalidKey: a coordinate not below p, or a point not on the twist or not in
    ///         the order-N subgroup.
    ///     TypeError: ``data`` is not bytes-like.
    ///     InvalidKey: (also) the key does not belong to ``user_id``, ``hid`` and
    ///         ``master_public_key``.
    ///     InvalidArgument: ``hid`` is not 3 or 2.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> data = kgc.extract(b"bob").to_bytes()
    ///     >>> sm9.EncUserKey.from_bytes(data, b"bob", kgc.public_key()).user_id
    ///     b'bob'
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

    /// de_B as 129 bytes ``04 || x1 || x0 || y1 || y0`` (secret: store it protected).
    ///
    /// Returns:
    ///     bytes: 129 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> len(sm9.EncMasterKey.generate().extract(b"b").to_bytes())
    ///     129
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes()[..])
    }

    /// The identity this key belongs to.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.EncMasterKey.generate().extract(b"bob").user_id
    ///     b'bob'
    #[getter]
    fn user_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, self.0.user_id())
    }

    /// The hid the key was extracted with: 3 (encryption/KEM) or 2 (key exchange).
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.EncMasterKey.generate().extract(b"bob").hid
    ///     3
    #[getter]
    fn hid(&self) -> u8 {
        self.0.hid()
    }

    /// The master public key this key belongs to.
    ///
    /// Returns:
    ///     EncMasterPublicKey: the KGC's public key.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> kgc.extract(b"b").master_public_key() == kgc.public_key()
    ///     True
    fn master_public_key(&self) -> PyEncMasterPublicKey {
        PyEncMasterPublicKey(self.0.master_public_key())
    }

    /// Decrypts an SM9 ciphertext (GM/T 0044 Part 4 §7.3; runs without the GIL). No
    /// plaintext is released before C3 has been checked (in constant time).
    ///
    /// Args:
    ///     ciphertext: raw ``C1 (x || y) || C3 || C2`` or, with ``format="der"``,
    ///         GmSSL's DER ``SM9Cipher``.
    ///     cipher: the data cipher (names as in ``EncMasterPublicKey.encrypt``). Raw
    ///         ciphertexts need the one they were made with (``None`` = ``"kdf"``); DER
    ///         carries it as EnType, and a ``cipher`` that disagrees fails.
    ///     format: ``"raw"`` (the default) or ``"der"``.
    ///     mac: ``"sm3"`` (the default, the standard's C3) or ``"hmac-sm3"`` (GmSSL's).
    ///
    /// Returns:
    ///     bytes: the plaintext.
    ///
    /// Raises:
    ///     DecryptionError: any failure of the ciphertext (malformed, wrong key or
    ///         identity, tampered, wrong ``cipher`` or ``mac``): one opaque error.
    ///     InvalidArgument: unknown ``cipher``, ``format`` or ``mac`` name.
    ///     TypeError: ``ciphertext`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> ct = kgc.public_key().encrypt(b"hi", b"bob", cipher="sm4-ecb")
    ///     >>> kgc.extract(b"bob").decrypt(ct, cipher="sm4-ecb")
    ///     b'hi'
    ///     >>> kgc.extract(b"eve").decrypt(ct, cipher="sm4-ecb")
    ///     Traceback (most recent call last):
    ///     ...
    ///     guomi.exceptions.DecryptionError: decryption failed
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

    /// Key decapsulation (GM/T 0044 Part 4 §6.3; runs without the GIL): recovers the
    /// key that ``EncMasterPublicKey.encapsulate`` made for this identity.
    ///
    /// Args:
    ///     c: the encapsulation, 65 bytes ``04 || x || y`` (64 bytes accepted).
    ///     key_length: the key length in bytes, 1 to ``MAX_KEY_LENGTH`` (65536), checked
    ///         before anything is allocated.
    ///
    /// Returns:
    ///     bytes: the key, ``key_length`` bytes.
    ///
    /// Raises:
    ///     InvalidLength: ``key_length`` is 0 or over 65536.
    ///     OverflowError: ``key_length`` is negative.
    ///     DecryptionError: any other failure (``c`` malformed or not on the curve).
    ///     TypeError: ``c`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> key, c = kgc.public_key().encapsulate(b"bob", 16)
    ///     >>> kgc.extract(b"bob").decapsulate(c, 16) == key
    ///     True
    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        c: Bytes,
        key_length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k = py.detach(|| self.0.decapsulate(&c, key_length)).py_err()?;
        Ok(bytes(py, &k))
    }

    /// Builds this key's caches (the prepared pairing lines of de_B, and the master
    /// public key's) now instead of on first use; idempotent.
    ///
    /// Returns:
    ///     None.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> sm9.EncMasterKey.generate().extract(b"b").precompute()
    fn precompute(&self, py: Python<'_>) {
        py.detach(|| self.0.precompute())
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.sm9.EncUserKey (secret)>"
    }
}

// ------------------------------------------------------------------ key exchange

/// One party of an SM9 key exchange (GM/T 0044 Part 3), initiator A or responder B,
/// with optional key confirmation.
///
/// Making the object picks the ephemeral r and computes R (``ephemeral``, 65 bytes),
/// which is sent to the peer. The responder calls ``respond(peer_ephemeral,
/// key_length) -> (key, S_B)`` and later ``confirm(S_A)``; the initiator calls
/// ``finish(peer_ephemeral, key_length, confirmation=S_B) -> (key, S_A)``. Single use,
/// whatever happens: the first ``respond``/``finish`` consumes and wipes r (on success
/// and on every failure: wrong S_B, bad peer point, bad ``key_length``); any later call
/// raises ``AlreadyFinalized``. A call in the wrong role is rejected before r is
/// touched. Thread-safe.
///
/// Args:
///     user_key: this party's ``EncUserKey``, extracted with ``hid=HID_EXCHANGE`` (2).
///     peer_id: the other party's identity.
///     initiator: ``True`` for A, ``False`` for B (keyword-only, required).
///
/// Raises:
///     InvalidKey: ``user_key`` was not extracted with hid 2.
///     RandomnessError: the OS random number generator failed.
///     TypeError: ``user_key`` is not an ``EncUserKey`` or ``peer_id`` not bytes-like.
///
/// Example:
///     >>> from guomi import sm9
///     >>> kgc = sm9.EncMasterKey.generate()
///     >>> ka = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
///     >>> kb = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
///     >>> a = sm9.KeyExchange(ka, b"bob", initiator=True)
///     >>> b = sm9.KeyExchange(kb, b"alice", initiator=False)
///     >>> sk_b, s_b = b.respond(a.ephemeral, 16)
///     >>> sk_a, s_a = a.finish(b.ephemeral, 16, s_b)
///     >>> b.confirm(s_a)
///     >>> sk_a == sk_b
///     True
#[pyclass(module = "guomi.sm9", name = "KeyExchange", frozen)]
struct PyKeyExchange(Locked<sm9::KeyExchange>);

impl PyKeyExchange {
    fn lock(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, sm9::KeyExchange>> {
        self.0.lock(py)
    }
}

#[guard_panics]
#[pymethods]
impl PyKeyExchange {
    /// Starts one party of the exchange (see the class documentation).
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
            .map(|kx| Self(Locked::new(kx)))
    }

    /// This party's R = [r] Q_peer as 65 bytes ``04 || x || y``, to send to the peer.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> k = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    ///     >>> len(sm9.KeyExchange(k, b"bob", initiator=True).ephemeral)
    ///     65
    #[getter]
    fn ephemeral<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(bytes(py, &self.lock(py)?.ephemeral()))
    }

    /// Whether this party is the initiator A (``False``: the responder B).
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> k = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    ///     >>> sm9.KeyExchange(k, b"alice", initiator=False).initiator
    ///     False
    #[getter]
    fn initiator(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.lock(py)?.is_initiator())
    }

    /// Responder B (steps B1-B6): from the initiator's R_A, derives the shared key and
    /// S_B. Consumes r whatever happens. Runs without the GIL.
    ///
    /// Args:
    ///     peer_ephemeral: the initiator's ``ephemeral`` (65 bytes; 64 accepted).
    ///     key_length: the key length in bytes, 1 to ``MAX_KEY_LENGTH`` (65536), checked
    ///         before anything is allocated.
    ///
    /// Returns:
    ///     tuple[bytes, bytes]: ``(key, S_B)``: the shared key and the 32-byte
    ///     confirmation value to send to A. Keep this object to check S_A with
    ///     ``confirm``.
    ///
    /// Raises:
    ///     InvalidArgument: called on the initiator (r is left untouched).
    ///     InvalidLength: ``key_length`` is 0 or over 65536, or ``peer_ephemeral`` is
    ///         not 65 or 64 bytes.
    ///     UnsupportedFormat: a 65-byte ``peer_ephemeral`` that does not start with 04.
    ///     InvalidKey: ``peer_ephemeral`` is not a point on the curve.
    ///     OverflowError: ``key_length`` is negative.
    ///     AlreadyFinalized: ``respond`` or ``finish`` was already called.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> ka = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    ///     >>> kb = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    ///     >>> a = sm9.KeyExchange(ka, b"bob", initiator=True)
    ///     >>> b = sm9.KeyExchange(kb, b"alice", initiator=False)
    ///     >>> key, s_b = b.respond(a.ephemeral, 32)
    ///     >>> len(key), len(s_b)
    ///     (32, 32)
    fn respond<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes,
        key_length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let mut kx = self.lock(py)?;
        let kx = &mut *kx;
        let (k, s) = py
            .detach(|| kx.respond(&peer_ephemeral, key_length))
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &s)))
    }

    /// Initiator A (steps A5-A8): from the responder's R_B (and optionally S_B,
    /// checked in constant time), derives the shared key and S_A. Consumes r whatever
    /// happens. Runs without the GIL.
    ///
    /// Args:
    ///     peer_ephemeral: the responder's ``ephemeral`` (65 bytes; 64 accepted).
    ///     key_length: the key length in bytes, 1 to ``MAX_KEY_LENGTH`` (65536), checked
    ///         before anything is allocated.
    ///     confirmation: the responder's S_B (32 bytes) to check, or ``None`` to skip
    ///         key confirmation.
    ///
    /// Returns:
    ///     tuple[bytes, bytes]: ``(key, S_A)``: the shared key and the 32-byte value to
    ///     send to B for ``confirm``.
    ///
    /// Raises:
    ///     InvalidTag: ``confirmation`` does not match (r is gone; start again).
    ///     InvalidArgument: called on the responder (r is left untouched).
    ///     InvalidLength: ``key_length`` is 0 or over 65536, or ``peer_ephemeral`` is
    ///         not 65 or 64 bytes.
    ///     UnsupportedFormat: a 65-byte ``peer_ephemeral`` that does not start with 04.
    ///     InvalidKey: ``peer_ephemeral`` is not a point on the curve.
    ///     OverflowError: ``key_length`` is negative.
    ///     AlreadyFinalized: ``respond`` or ``finish`` was already called.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> ka = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    ///     >>> kb = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    ///     >>> a = sm9.KeyExchange(ka, b"bob", initiator=True)
    ///     >>> b = sm9.KeyExchange(kb, b"alice", initiator=False)
    ///     >>> sk_b, s_b = b.respond(a.ephemeral, 16)
    ///     >>> sk_a, s_a = a.finish(b.ephemeral, 16, s_b)
    ///     >>> sk_a == sk_b
    ///     True
    #[pyo3(signature = (peer_ephemeral, key_length, confirmation=None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes,
        key_length: usize,
        confirmation: Option<Bytes>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let mut kx = self.lock(py)?;
        let kx = &mut *kx;
        let (k, s) = py
            .detach(|| kx.finish(&peer_ephemeral, key_length, confirmation.as_deref()))
            .py_err()?;
        Ok((bytes(py, &k), bytes(py, &s)))
    }

    /// Responder B (step B8): checks the initiator's S_A in constant time.
    ///
    /// Args:
    ///     confirmation: S_A from ``finish`` (32 bytes).
    ///
    /// Returns:
    ///     None, when S_A matches.
    ///
    /// Raises:
    ///     InvalidTag: S_A does not match (or is not 32 bytes).
    ///     InvalidArgument: ``respond`` has not completed on this object.
    ///     TypeError: ``confirmation`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> kgc = sm9.EncMasterKey.generate()
    ///     >>> ka = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    ///     >>> kb = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    ///     >>> a = sm9.KeyExchange(ka, b"bob", initiator=True)
    ///     >>> b = sm9.KeyExchange(kb, b"alice", initiator=False)
    ///     >>> _, s_b = b.respond(a.ephemeral, 16)
    ///     >>> _, s_a = a.finish(b.ephemeral, 16, s_b)
    ///     >>> b.confirm(s_a)
    ///     >>> b.confirm(bytes(32))
    ///     Traceback (most recent call last):
    ///     ...
    ///     guomi.exceptions.InvalidTag: authentication tag does not match
    fn confirm(&self, py: Python<'_>, confirmation: Bytes) -> PyResult<()> {
        self.lock(py)?.confirm(&confirmation).py_err()
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
