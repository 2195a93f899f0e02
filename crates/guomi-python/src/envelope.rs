//! `guomi._native.envelope`: the streaming envelope format (see the core's `envelope`).

use crate::buf::{maybe_detach, Bytes};
use crate::error::IntoPy;
use crate::locked::Locked;
use crate::sm2::{PyPrivateKey, PyPublicKey};
use crate::sm9::{PyEncMasterPublicKey, PyEncUserKey};
use guomi_core::Error;
use guomi_formats::envelope::{Header, Kem, Opener, Sealer};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

fn key16(key: &[u8]) -> PyResult<[u8; 16]> {
    key.try_into()
        .map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })
        .py_err()
}

/// Streaming encryption into a guomi envelope (the engine of `guomi.envelope.Sealer`;
/// use that). Made by one of the static constructors; `update` then `finalize` once.
///
/// Example:
///     >>> from guomi._native.envelope import Opener, Sealer
///     >>> s = Sealer.with_key(bytes(16), 16)
///     >>> env = s.update(b"data") + s.finalize()
///     >>> o = Opener.with_key(bytes(16))
///     >>> o.update(env) + o.finalize()
///     b'data'
#[pyclass(module = "guomi.envelope", name = "Sealer", frozen)]
pub struct PySealer(Locked<Sealer>);

impl PySealer {
    fn of(s: Sealer) -> Self {
        PySealer(Locked::new(s))
    }
}

#[guard_panics]
#[pymethods]
impl PySealer {
    /// A sealer for a raw SM4 key shared out of band.
    ///
    /// Args:
    ///     key: bytes-like, 16 bytes.
    ///     chunk_log2: log2 of the plaintext chunk size, `MIN_CHUNK_LOG2` (10) to
    ///         `MAX_CHUNK_LOG2` (24).
    ///
    /// Returns:
    ///     Sealer: the sealer.
    ///
    /// Raises:
    ///     InvalidLength: `key` is not 16 bytes.
    ///     InvalidArgument: `chunk_log2` out of range.
    ///     OverflowError: `chunk_log2` is negative or above 255.
    ///     RandomnessError: the OS random generator failed (salt).
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Sealer
    ///     >>> s = Sealer.with_key(bytes(16), 10)
    ///     >>> (s.update(b"x") + s.finalize())[:8]
    ///     b'GUOMIENV'
    #[staticmethod]
    fn with_key(key: Bytes, chunk_log2: u8) -> PyResult<Self> {
        let key = Zeroizing::new(key16(&key)?);
        let header = Header::new(Kem::Key, chunk_log2, Vec::new()).py_err()?;
        Ok(PySealer::of(Sealer::new(header, &key[..]).py_err()?))
    }

    /// A sealer for a password: the secret is PBKDF2-HMAC-SM3(password, salt, iterations), the
    /// iteration count stored in the header. Runs PBKDF2 now, without the GIL.
    ///
    /// Args:
    ///     password: bytes-like, any length.
    ///     iterations: 1 to `MAX_ITERATIONS` (10000000).
    ///     chunk_log2: 10 to 24, as `with_key`.
    ///
    /// Returns:
    ///     Sealer: the sealer.
    ///
    /// Raises:
    ///     InvalidArgument: `iterations` or `chunk_log2` out of range.
    ///     OverflowError: a negative number.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Opener, Sealer
    ///     >>> s = Sealer.with_password(b"pw", 1000, 10)
    ///     >>> env = s.update(b"x") + s.finalize()
    ///     >>> o = Opener.with_password(b"pw")
    ///     >>> o.update(env) + o.finalize()
    ///     b'x'
    #[staticmethod]
    fn with_password(
        py: Python<'_>,
        password: Bytes,
        iterations: u64,
        chunk_log2: u8,
    ) -> PyResult<Self> {
        guomi_core::sm3::kdf::check_pbkdf2_iterations(iterations).py_err()?;
        let iterations = iterations as u32; // checked: at most MAX_ITERATIONS
        let header =
            Header::new(Kem::Password, chunk_log2, iterations.to_be_bytes().to_vec()).py_err()?;
        let secret = py.detach(|| header.password_secret(&password)).py_err()?;
        Ok(PySealer::of(Sealer::new(header, &secret[..]).py_err()?))
    }

    /// A sealer to an SM2 public key: SM2 KEM (GB/T 32918.4) of a 32-byte secret, its C1 in
    /// the header.
    ///
    /// Args:
    ///     public_key: the recipient's `guomi.sm2.PublicKey`.
    ///     chunk_log2: 10 to 24, as `with_key`.
    ///
    /// Returns:
    ///     Sealer: the sealer.
    ///
    /// Raises:
    ///     InvalidArgument: `chunk_log2` out of range.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> from guomi._native.envelope import Opener, Sealer
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> s = Sealer.with_sm2(key.public_key(), 10)
    ///     >>> env = s.update(b"x") + s.finalize()
    ///     >>> o = Opener.with_sm2(key)
    ///     >>> o.update(env) + o.finalize()
    ///     b'x'
    #[staticmethod]
    fn with_sm2(
        py: Python<'_>,
        public_key: PyRef<'_, PyPublicKey>,
        chunk_log2: u8,
    ) -> PyResult<Self> {
        let pk = public_key.inner();
        Ok(PySealer::of(
            py.detach(|| Sealer::to_sm2(pk, chunk_log2)).py_err()?,
        ))
    }

    /// A sealer to the SM9 identity `user_id`: SM9 KEM (GM/T 0044 part 4) of a 32-byte
    /// secret, its ciphertext in the header.
    ///
    /// Args:
    ///     master_public_key: the KGC's `guomi.sm9.EncMasterPublicKey`.
    ///     user_id: the recipient's identity, bytes-like.
    ///     chunk_log2: 10 to 24, as `with_key`.
    ///
    /// Returns:
    ///     Sealer: the sealer.
    ///
    /// Raises:
    ///     InvalidArgument: `chunk_log2` out of range.
    ///     RandomnessError: the OS random generator failed.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> from guomi._native.envelope import Opener, Sealer
    ///     >>> master = sm9.EncMasterKey.generate()
    ///     >>> s = Sealer.with_sm9(master.public_key(), b"bob", 10)
    ///     >>> env = s.update(b"x") + s.finalize()
    ///     >>> o = Opener.with_sm9(master.extract(b"bob"))
    ///     >>> o.update(env) + o.finalize()
    ///     b'x'
    #[staticmethod]
    fn with_sm9(
        py: Python<'_>,
        master_public_key: PyRef<'_, PyEncMasterPublicKey>,
        user_id: Bytes,
        chunk_log2: u8,
    ) -> PyResult<Self> {
        let mpk = master_public_key.inner();
        Ok(PySealer::of(
            py.detach(|| Sealer::to_sm9(mpk, &user_id, chunk_log2))
                .py_err()?,
        ))
    }

    /// Encrypts the next piece of plaintext.
    ///
    /// Args:
    ///     data: bytes-like, any length.
    ///
    /// Returns:
    ///     bytes: the envelope bytes ready so far (the header first, then whole chunks);
    ///     may be empty.
    ///
    /// Raises:
    ///     AlreadyFinalized: `finalize` was already called.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Sealer
    ///     >>> Sealer.with_key(bytes(16), 10).update(b"x")[:8]
    ///     b'GUOMIENV'
    fn update<'py>(&self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let mut s = self.0.lock(py)?;
        let s = &mut *s;
        let out = maybe_detach(py, data.len(), || {
            let mut out = Vec::with_capacity(data.len() + 64);
            s.update(&data, &mut out).map(|_| out)
        })
        .py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    /// Writes the last chunk (flagged as last, possibly empty); the sealer cannot be used
    /// afterwards.
    ///
    /// Returns:
    ///     bytes: the rest of the envelope.
    ///
    /// Raises:
    ///     AlreadyFinalized: called a second time.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Sealer
    ///     >>> s = Sealer.with_key(bytes(16), 10)
    ///     >>> len(s.update(b"") + s.finalize()) > 16
    ///     True
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut s = self.0.lock(py)?;
        let s = &mut *s;
        let out = py
            .detach(|| {
                let mut out = Vec::new();
                s.finalize(&mut out).map(|_| out)
            })
            .py_err()?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Streaming decryption of a guomi envelope (the engine of `guomi.envelope.Opener`; use
/// that). Returns only verified plaintext; made by one of the static constructors.
///
/// Example:
///     >>> from guomi._native.envelope import Opener, Sealer
///     >>> s = Sealer.with_key(bytes(16), 10)
///     >>> env = s.update(b"data") + s.finalize()
///     >>> o = Opener.with_key(bytes(16))
///     >>> o.update(env) + o.finalize()
///     b'data'
#[pyclass(module = "guomi.envelope", name = "Opener", frozen)]
pub struct PyOpener(Locked<Opener<'static>>);

impl PyOpener {
    fn of(o: Opener<'static>) -> Self {
        PyOpener(Locked::new(o))
    }
}

#[guard_panics]
#[pymethods]
impl PyOpener {
    /// An opener for envelopes sealed with a raw 16-byte SM4 key.
    ///
    /// Args:
    ///     key: bytes-like, 16 bytes.
    ///
    /// Returns:
    ///     Opener: the opener (an envelope of another key type fails with
    ///     `DecryptionError`).
    ///
    /// Raises:
    ///     InvalidLength: `key` is not 16 bytes.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Opener
    ///     >>> o = Opener.with_key(bytes(16))
    #[staticmethod]
    fn with_key(key: Bytes) -> PyResult<Self> {
        let key = Zeroizing::new(key16(&key)?);
        Ok(PyOpener::of(Opener::new(Box::new(move |h: &Header| {
            if h.kem != Kem::Key {
                return Err(Error::DecryptionFailed);
            }
            Ok(Zeroizing::new(key.to_vec()))
        }))))
    }

    /// An opener for password envelopes. PBKDF2 runs when the header arrives, with the
    /// header's iteration count (refused beyond `MAX_ITERATIONS` before any work).
    ///
    /// Args:
    ///     password: bytes-like.
    ///
    /// Returns:
    ///     Opener: the opener.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Opener
    ///     >>> o = Opener.with_password(b"pw")
    #[staticmethod]
    fn with_password(password: Bytes) -> Self {
        let password = Zeroizing::new(password.to_vec());
        PyOpener::of(Opener::new(Box::new(move |h: &Header| {
            Ok(Zeroizing::new(h.password_secret(&password)?.to_vec()))
        })))
    }

    /// An opener for envelopes sealed to this SM2 key's public key.
    ///
    /// Args:
    ///     private_key: the recipient's `guomi.sm2.PrivateKey` (d is copied in Rust memory
    ///         only, zeroized when the opener is freed).
    ///
    /// Returns:
    ///     Opener: the opener.
    ///
    /// Example:
    ///     >>> from guomi import sm2
    ///     >>> from guomi._native.envelope import Opener
    ///     >>> o = Opener.with_sm2(sm2.PrivateKey.generate())
    #[staticmethod]
    fn with_sm2(private_key: PyRef<'_, PyPrivateKey>) -> PyResult<Self> {
        Ok(PyOpener::of(Opener::with_sm2(
            private_key.owned_key().py_err()?,
        )))
    }

    /// An opener for envelopes sealed to this SM9 user key's identity.
    ///
    /// Args:
    ///     user_key: the recipient's `guomi.sm9.EncUserKey`.
    ///
    /// Returns:
    ///     Opener: the opener.
    ///
    /// Example:
    ///     >>> from guomi import sm9
    ///     >>> from guomi._native.envelope import Opener
    ///     >>> o = Opener.with_sm9(sm9.EncMasterKey.generate().extract(b"bob"))
    #[staticmethod]
    fn with_sm9(user_key: PyRef<'_, PyEncUserKey>) -> Self {
        PyOpener::of(Opener::with_sm9(user_key.shared()))
    }

    /// Consumes the next envelope bytes.
    ///
    /// Args:
    ///     data: bytes-like, any length (any split of the envelope works).
    ///
    /// Returns:
    ///     bytes: the plaintext of the chunks verified so far; may be empty.
    ///
    /// Raises:
    ///     UnsupportedFormat: not a guomi envelope, an unknown version or key type, or a
    ///         header number out of range (chunk size, iterations).
    ///     DecryptionError: wrong key or password, or changed bytes.
    ///     AlreadyFinalized: `finalize` was already called.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Opener, Sealer
    ///     >>> s = Sealer.with_key(bytes(16), 10)
    ///     >>> env = s.update(b"x" * 3000) + s.finalize()
    ///     >>> len(Opener.with_key(bytes(16)).update(env))
    ///     2048
    fn update<'py>(&self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let mut o = self.0.lock(py)?;
        let o = &mut *o;
        // Reading the header may run PBKDF2: always release the GIL when it is pending.
        // The plaintext buffer is zeroized once copied out (the core never grows it after
        // plaintext is in it).
        let out = py
            .detach(|| {
                let mut out = Zeroizing::new(Vec::new());
                o.update(&data, &mut out).map(|_| out)
            })
            .py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    /// Verifies the last chunk and returns its plaintext; the opener cannot be used
    /// afterwards.
    ///
    /// Returns:
    ///     bytes: the remaining plaintext.
    ///
    /// Raises:
    ///     DecryptionError: the envelope is truncated (no last chunk), has trailing bytes,
    ///         or its last chunk does not verify (e.g. a wrong key or password: a short
    ///         envelope's only chunk is checked here).
    ///     AlreadyFinalized: called a second time.
    ///
    /// Example:
    ///     >>> from guomi._native.envelope import Opener, Sealer
    ///     >>> s = Sealer.with_key(bytes(16), 10)
    ///     >>> env = s.update(b"data") + s.finalize()
    ///     >>> o = Opener.with_key(bytes(16))
    ///     >>> o.update(env), o.finalize()
    ///     (b'', b'data')
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut o = self.0.lock(py)?;
        let o = &mut *o;
        let out = py
            .detach(|| {
                let mut out = Zeroizing::new(Vec::new());
                o.finalize(&mut out).map(|_| out)
            })
            .py_err()?;
        Ok(PyBytes::new(py, &out))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySealer>()?;
    m.add_class::<PyOpener>()?;
    m.add(
        "MAGIC",
        PyBytes::new(m.py(), guomi_formats::envelope::MAGIC),
    )?;
    m.add("VERSION", guomi_formats::envelope::VERSION)?;
    m.add("MAX_ITERATIONS", guomi_formats::envelope::MAX_ITERATIONS)?;
    m.add("MIN_CHUNK_LOG2", guomi_formats::envelope::MIN_CHUNK_LOG2)?;
    m.add("MAX_CHUNK_LOG2", guomi_formats::envelope::MAX_CHUNK_LOG2)?;
    Ok(())
}
