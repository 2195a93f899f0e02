//! `guomi._native.pkcs12`: PKCS#12 files (RFC 7292). Type conversion, error mapping and
//! GIL release only; the format lives in `guomi_formats::pkcs12`.

use crate::buf::Bytes;
use crate::error::IntoPy;
use crate::sm2::{password_bytes, PyPrivateKey};
use guomi_formats::pkcs12::{self, Encryption};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// What `load` returns: key, certificate (DER), chain (DER), friendly name, and
/// (MAC algorithm, MAC iterations, one line per content or bag).
type Loaded<'py> = (
    Option<Py<PyPrivateKey>>,
    Option<Bound<'py, PyBytes>>,
    Vec<Bound<'py, PyBytes>>,
    Option<String>,
    (String, u32, Vec<String>),
);

/// Reads a PKCS#12 file (DER). The MAC is checked first (constant time), then the bags
/// are decrypted.
///
/// Args:
///     data: bytes-like DER, at most 4 MiB.
///     password: `str` or UTF-8 bytes, not empty.
///
/// Returns:
///     tuple: (PrivateKey or None, certificate DER or None, list of chain DER, friendly
///     name or None, (MAC algorithm, MAC iterations, list of content descriptions)).
///
/// Raises:
///     InvalidKey: wrong password or a changed file.
///     UnsupportedFormat: malformed, legacy (named) or out-of-bounds contents.
///     InvalidArgument: an empty or non-UTF-8 password.
///
/// Example:
///     >>> from guomi import sm2
///     >>> from guomi._native import pkcs12 as native
///     >>> key = sm2.PrivateKey.generate()
///     >>> data = native.dump(key, None, [], "pw", "sm", 1000, None)
///     >>> native.load(data, "pw")[0] == key
///     True
#[guard_panics]
#[pyfunction]
fn load<'py>(py: Python<'py>, data: Bytes, password: &Bound<'py, PyAny>) -> PyResult<Loaded<'py>> {
    let password = password_bytes(password)?;
    let p = py.detach(|| pkcs12::load(&data, &password)).py_err()?;
    let key = match p.key {
        Some(k) => Some(Py::new(py, PyPrivateKey::wrap(py, k)?)?),
        None => None,
    };
    Ok((
        key,
        p.certificate.map(|c| PyBytes::new(py, &c)),
        p.chain.iter().map(|c| PyBytes::new(py, c)).collect(),
        p.friendly_name,
        (p.info.mac, p.info.mac_iterations, p.info.contents),
    ))
}

/// Writes a PKCS#12 file (DER).
///
/// Args:
///     key: `PrivateKey` or None.
///     certificate: DER of the key's certificate, or None.
///     chain: DER of further certificates (at most 62).
///     password: `str` or UTF-8 bytes, not empty, characters of the BMP.
///     encryption: "sm" (PBKDF2-HMAC-SM3 + SM4-CBC, SM3 MAC) or "aes" (PBKDF2-HMAC-SHA256 +
///         AES-256-CBC, SHA-256 MAC).
///     iterations: PBKDF2 and MAC iterations, 1 to 10 000 000.
///     name: the friendlyName of the key and its certificate, or None.
///
/// Returns:
///     bytes: the DER file.
///
/// Raises:
///     InvalidArgument: a bad option, a key that does not match the certificate, nothing
///         to write.
///     UnsupportedFormat: a certificate that does not parse.
///
/// Example:
///     >>> from guomi import sm2
///     >>> from guomi._native import pkcs12 as native
///     >>> data = native.dump(sm2.PrivateKey.generate(), None, [], "pw", "aes", 1000, None)
///     >>> data[:1]
///     b'0'
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, certificate, chain, password, encryption, iterations, name))]
#[allow(clippy::too_many_arguments)]
fn dump<'py>(
    py: Python<'py>,
    key: Option<PyRef<'py, PyPrivateKey>>,
    certificate: Option<Bytes>,
    chain: Vec<Bytes>,
    password: &Bound<'py, PyAny>,
    encryption: &str,
    iterations: u32,
    name: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let password = password_bytes(password)?;
    let encryption = Encryption::parse(encryption).py_err()?;
    let key = key.as_ref().map(|k| k.key());
    let chain: Vec<&[u8]> = chain.iter().map(|c| &c[..]).collect();
    let certificate = certificate.as_deref();
    let der = py
        .detach(|| {
            pkcs12::dump(
                key,
                certificate,
                &chain,
                &password,
                encryption,
                iterations,
                name.as_deref(),
            )
        })
        .py_err()?;
    Ok(PyBytes::new(py, &der))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(dump, m)?)?;
    m.add("DEFAULT_ITERATIONS", pkcs12::DEFAULT_ITERATIONS)?;
    m.add("MAX_ITERATIONS", pkcs12::MAX_ITERATIONS)?;
    m.add("MAX_PFX_LEN", pkcs12::MAX_PFX_LEN)?;
    m.add("MAX_BAGS", pkcs12::MAX_BAGS)?;
    m.add("MAX_TOTAL_ITERATIONS", pkcs12::MAX_TOTAL_ITERATIONS)?;
    Ok(())
}
