//! `guomi._native.envelope`: the streaming envelope format (see the core's `envelope`).

use crate::buf::{maybe_detach, Bytes};
use crate::error::IntoPy;
use crate::sm2::{PyPrivateKey, PyPublicKey};
use crate::sm9::{PyEncMasterPublicKey, PyEncUserKey};
use guomi_core::envelope::{Header, Kem, Opener, Sealer};
use guomi_core::Error;
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

/// Streaming encryption into an envelope.
#[pyclass(module = "guomi.envelope", name = "Sealer")]
pub struct PySealer(Sealer);

#[guard_panics]
#[pymethods]
impl PySealer {
    /// A sealer for a raw 16-byte SM4 key shared out of band.
    #[staticmethod]
    fn with_key(key: Bytes, chunk_log2: u8) -> PyResult<Self> {
        let key = Zeroizing::new(key16(&key)?);
        let header = Header::new(Kem::Key, chunk_log2, Vec::new()).py_err()?;
        Ok(PySealer(Sealer::new(header, &key[..]).py_err()?))
    }

    /// A sealer for a password (PBKDF2-HMAC-SM3 with `iterations`, 1 to MAX_ITERATIONS).
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
        Ok(PySealer(Sealer::new(header, &secret[..]).py_err()?))
    }

    /// A sealer to an SM2 public key.
    #[staticmethod]
    fn with_sm2(
        py: Python<'_>,
        public_key: PyRef<'_, PyPublicKey>,
        chunk_log2: u8,
    ) -> PyResult<Self> {
        let pk = public_key.inner();
        Ok(PySealer(
            py.detach(|| Sealer::to_sm2(pk, chunk_log2)).py_err()?,
        ))
    }

    /// A sealer to the SM9 identity `user_id` under an encryption master public key.
    #[staticmethod]
    fn with_sm9(
        py: Python<'_>,
        master_public_key: PyRef<'_, PyEncMasterPublicKey>,
        user_id: Bytes,
        chunk_log2: u8,
    ) -> PyResult<Self> {
        let mpk = master_public_key.inner();
        Ok(PySealer(
            py.detach(|| Sealer::to_sm9(mpk, &user_id, chunk_log2))
                .py_err()?,
        ))
    }

    /// Encrypts `data`; returns the output that is ready (the header comes first).
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let s = &mut self.0;
        let out = maybe_detach(py, data.len(), || {
            let mut out = Vec::with_capacity(data.len() + 64);
            s.update(&data, &mut out).map(|_| out)
        })
        .py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    /// Writes the last chunk; the sealer cannot be used afterwards.
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let s = &mut self.0;
        let out = py
            .detach(|| {
                let mut out = Vec::new();
                s.finalize(&mut out).map(|_| out)
            })
            .py_err()?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Streaming decryption of an envelope; releases only verified plaintext.
#[pyclass(module = "guomi.envelope", name = "Opener")]
pub struct PyOpener(Opener<'static>);

#[guard_panics]
#[pymethods]
impl PyOpener {
    /// An opener for envelopes sealed with a raw 16-byte key.
    #[staticmethod]
    fn with_key(key: Bytes) -> PyResult<Self> {
        let key = Zeroizing::new(key16(&key)?);
        Ok(PyOpener(Opener::new(Box::new(move |h: &Header| {
            if h.kem != Kem::Key {
                return Err(Error::DecryptionFailed);
            }
            Ok(Zeroizing::new(key.to_vec()))
        }))))
    }

    /// An opener for envelopes sealed with a password.
    #[staticmethod]
    fn with_password(password: Bytes) -> Self {
        let password = Zeroizing::new(password.to_vec());
        PyOpener(Opener::new(Box::new(move |h: &Header| {
            Ok(Zeroizing::new(h.password_secret(&password)?.to_vec()))
        })))
    }

    /// An opener for envelopes sealed to this SM2 private key's public key.
    #[staticmethod]
    fn with_sm2(private_key: PyRef<'_, PyPrivateKey>) -> PyResult<Self> {
        Ok(PyOpener(Opener::with_sm2(
            private_key.owned_key().py_err()?,
        )))
    }

    /// An opener for envelopes sealed to this SM9 user key's identity.
    #[staticmethod]
    fn with_sm9(user_key: PyRef<'_, PyEncUserKey>) -> Self {
        PyOpener(Opener::with_sm9(user_key.shared()))
    }

    /// Consumes envelope bytes; returns the plaintext verified so far.
    fn update<'py>(&mut self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let o = &mut self.0;
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

    /// Verifies the last chunk and returns its plaintext; fails on truncation.
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let o = &mut self.0;
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
    m.add("MAGIC", PyBytes::new(m.py(), guomi_core::envelope::MAGIC))?;
    m.add("VERSION", guomi_core::envelope::VERSION)?;
    m.add("MAX_ITERATIONS", guomi_core::envelope::MAX_ITERATIONS)?;
    m.add("MIN_CHUNK_LOG2", guomi_core::envelope::MIN_CHUNK_LOG2)?;
    m.add("MAX_CHUNK_LOG2", guomi_core::envelope::MAX_CHUNK_LOG2)?;
    Ok(())
}
