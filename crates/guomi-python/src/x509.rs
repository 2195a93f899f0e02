//! `guomi._native.x509`: protected private keys, SM2 X.509 certificates, certification
//! paths and PKCS#10 requests (see the core's `x509` module). Keys cross this boundary
//! as bytes (d: 32 bytes; public keys: 65-byte `04||x||y`); `guomi/x509.py` and
//! `guomi/keys.py` turn them into `guomi.sm2` key objects.

use crate::buf::Bytes;
use crate::error::IntoPy;
use guomi_core::sm2::{PrivateKey, PublicKey};
use guomi_core::Error;
use guomi_formats::x509::{
    self as core_x509, Certificate, CertificateBuilder, CertificateRequest, Crl, CrlBuilder,
    GeneralNameValue, KeyUsageFlags, RequestBuilder, Revocation,
};
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

pyo3::import_exception!(guomi.exceptions, CertificateVerificationError);

fn text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
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

fn private_key(d: &[u8]) -> PyResult<PrivateKey> {
    PrivateKey::from_bytes(d).py_err()
}

fn san_to_py(py: Python<'_>, g: &GeneralNameValue) -> PyResult<Py<PyAny>> {
    let value: Py<PyAny> = match g {
        GeneralNameValue::Dns(s)
        | GeneralNameValue::Email(s)
        | GeneralNameValue::Uri(s)
        | GeneralNameValue::DirectoryName(s)
        | GeneralNameValue::RegisteredId(s) => PyString::new(py, s).into_any().unbind(),
        GeneralNameValue::Ip(b) | GeneralNameValue::Other(b) => {
            PyBytes::new(py, b).into_any().unbind()
        }
    };
    Ok((g.kind(), value).into_pyobject(py)?.into_any().unbind())
}

fn san_from_py(items: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Vec<GeneralNameValue>> {
    items
        .into_iter()
        .map(|(kind, v)| {
            Ok(match kind.as_str() {
                "dns" => GeneralNameValue::Dns(v.extract()?),
                "email" => GeneralNameValue::Email(v.extract()?),
                "uri" => GeneralNameValue::Uri(v.extract()?),
                "ip" => GeneralNameValue::Ip(v.extract::<Bytes>()?.to_vec()),
                "dirname" => GeneralNameValue::DirectoryName(v.extract()?),
                "rid" => GeneralNameValue::RegisteredId(v.extract()?),
                _ => {
                    return Err(Error::InvalidValue(
                        "subject alternative name kind must be dns, email, uri, ip, dirname or rid",
                    ))
                    .py_err()
                }
            })
        })
        .collect()
}

/// An X.509 certificate as parsed by the core (immutable, compared by DER, hashable).
/// `guomi.x509.Certificate` wraps it with `datetime` and dataclass views; use that.
///
/// There is no constructor: use `from_der`, `from_pem` or `all_from_pem`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.x509 import NativeCertificate
///     >>> key = sm2.PrivateKey.generate()
///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
///     >>> c = NativeCertificate.from_der(der)
///     >>> c.subject
///     'CN=a'
#[pyclass(module = "guomi.x509", name = "NativeCertificate", frozen)]
pub struct PyCertificate(pub(crate) Certificate);

#[guard_panics]
#[pymethods]
impl PyCertificate {
    /// Parses a DER certificate (strict: trailing bytes or unknown outer fields are refused).
    ///
    /// Args:
    ///     der: bytes-like DER.
    ///
    /// Returns:
    ///     NativeCertificate: the certificate.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> NativeCertificate.from_der(der) == c
    ///     True
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_der(&der).py_err()?))
    }

    /// Parses the first `CERTIFICATE` (or `X509 CERTIFICATE`) block of PEM text.
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII).
    ///
    /// Returns:
    ///     NativeCertificate: the certificate.
    ///
    /// Raises:
    ///     UnsupportedFormat: no certificate block, bad base64 or malformed DER.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> NativeCertificate.from_pem(c.to_pem()) == c
    ///     True
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_pem(&text(pem)?).py_err()?))
    }

    /// Parses every `CERTIFICATE` block of a PEM bundle, in order (other blocks are skipped).
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII).
    ///
    /// Returns:
    ///     list[NativeCertificate]: the certificates (empty when there are none).
    ///
    /// Raises:
    ///     UnsupportedFormat: bad base64 or malformed DER in a certificate block.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> len(NativeCertificate.all_from_pem(c.to_pem() * 2))
    ///     2
    #[staticmethod]
    fn all_from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        Ok(Certificate::all_from_pem(&text(pem)?)
            .py_err()?
            .into_iter()
            .map(PyCertificate)
            .collect())
    }

    /// The DER encoding, exactly as parsed or built.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.to_der() == der
    ///     True
    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    /// The certificate as a PEM `CERTIFICATE` block.
    ///
    /// Returns:
    ///     str: the PEM text.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.to_pem().splitlines()[0]
    ///     '-----BEGIN CERTIFICATE-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// The X.509 version: 1, 2 or 3.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.version
    ///     3
    #[getter]
    fn version(&self) -> u8 {
        self.0.version()
    }

    /// The serial number as its DER INTEGER content bytes (two's complement, big-endian).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.serial
    ///     b'\x05'
    #[getter]
    fn serial<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.serial())
    }

    /// The subject name as an RFC 4514 string, most specific first (`"CN=leaf,O=Example"`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.subject
    ///     'CN=a'
    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    /// The issuer name as an RFC 4514 string.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.issuer
    ///     'CN=a'
    #[getter]
    fn issuer(&self) -> String {
        self.0.issuer()
    }

    /// The subject name as DER (the `Name` structure).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.subject_der == c.issuer_der
    ///     True
    #[getter]
    fn subject_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.subject_der().py_err()?))
    }

    /// The issuer name as DER (the `Name` structure).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.issuer_der[0]
    ///     48
    #[getter]
    fn issuer_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.issuer_der().py_err()?))
    }

    /// Start of the validity period, in Unix seconds (UTC).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.not_before < c.not_after
    ///     True
    #[getter]
    fn not_before(&self) -> i64 {
        self.0.not_before()
    }

    /// End of the validity period, in Unix seconds (UTC).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> (c.not_after - c.not_before) // 86400
    ///     365
    #[getter]
    fn not_after(&self) -> i64 {
        self.0.not_after()
    }

    /// The signature algorithm OID, dotted (`"1.2.156.10197.1.501"` for SM2-with-SM3).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.signature_algorithm
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm(&self) -> String {
        self.0.signature_algorithm()
    }

    /// The signature value (DER `SEQUENCE { r, s }` for SM2).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> key.public_key().verify(c.signature, c.tbs_der)
    ///     True
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.signature())
    }

    /// The signed part of the certificate (TBSCertificate DER).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.tbs_der[0]
    ///     48
    #[getter]
    fn tbs_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.tbs_der())
    }

    /// The subject's SM2 public key as 65 bytes `04 || x || y`.
    ///
    /// Returns:
    ///     bytes: the point.
    ///
    /// Raises:
    ///     UnsupportedFormat: the key is not an SM2 key.
    ///     InvalidKey: the point is not on the curve.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.public_key_bytes() == key.public_key().to_bytes()
    ///     True
    fn public_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(
            py,
            &self.0.public_key().py_err()?.to_uncompressed(),
        ))
    }

    /// SM3 of the DER certificate.
    ///
    /// Returns:
    ///     bytes: 32 bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> len(c.fingerprint_sm3())
    ///     32
    fn fingerprint_sm3<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.fingerprint_sm3())
    }

    /// Every extension, in order, undecoded.
    ///
    /// Returns:
    ///     list[tuple[str, bool, bytes]]: `(oid, critical, value)` with the dotted OID and
    ///     the extnValue DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> '2.5.29.19' in [oid for oid, _, _ in c.extensions()]
    ///     True
    fn extensions<'py>(&self, py: Python<'py>) -> Vec<(String, bool, Bound<'py, PyBytes>)> {
        self.0
            .extensions()
            .into_iter()
            .map(|(o, c, v)| (o, c, PyBytes::new(py, &v)))
            .collect()
    }

    /// The basicConstraints extension (RFC 5280 §4.2.1.9).
    ///
    /// Returns:
    ///     tuple[bool, int | None] | None: `(ca, path_length)`, or `None` without the
    ///     extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.basic_constraints()
    ///     (False, None)
    fn basic_constraints(&self) -> PyResult<Option<(bool, Option<u8>)>> {
        self.0.basic_constraints().py_err()
    }

    /// The keyUsage extension as bit names (`"digitalSignature"`, `"keyCertSign"`, ...).
    ///
    /// Returns:
    ///     list[str] | None: the names of the bits set, or `None` without the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.key_usage()
    ///     ['digitalSignature', 'keyEncipherment']
    fn key_usage(&self) -> PyResult<Option<Vec<&'static str>>> {
        Ok(self.0.key_usage().py_err()?.map(|k| k.names()))
    }

    /// The extKeyUsage extension: short names (`"serverAuth"`, `"clientAuth"`,
    /// `"codeSigning"`, `"emailProtection"`, `"timeStamping"`, `"OCSPSigning"`,
    /// `"anyExtendedKeyUsage"`) or dotted OIDs for others.
    ///
    /// Returns:
    ///     list[str] | None: the usages, or `None` without the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.extended_key_usage() is None
    ///     True
    fn extended_key_usage(&self) -> PyResult<Option<Vec<String>>> {
        Ok(self
            .0
            .extended_key_usage()
            .py_err()?
            .map(|v| v.iter().map(core_x509::eku_name).collect()))
    }

    /// The subjectAltName extension.
    ///
    /// Returns:
    ///     list[tuple[str, str | bytes]] | None: `(kind, value)` pairs, kind `"dns"`,
    ///     `"email"`, `"uri"`, `"dirname"` or `"rid"` with a `str`, or `"ip"` (4 or 16
    ///     bytes) or `"other"` (DER) with `bytes`; `None` without the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.subject_alt_names() is None
    ///     True
    fn subject_alt_names(&self, py: Python<'_>) -> PyResult<Option<Vec<Py<PyAny>>>> {
        match self.0.subject_alt_names().py_err()? {
            None => Ok(None),
            Some(v) => Ok(Some(
                v.iter()
                    .map(|g| san_to_py(py, g))
                    .collect::<PyResult<_>>()?,
            )),
        }
    }

    /// The subjectKeyIdentifier extension.
    ///
    /// Returns:
    ///     bytes | None: the key identifier, or `None` without the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> len(c.subject_key_id())
    ///     20
    fn subject_key_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .subject_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    /// The keyIdentifier of the authorityKeyIdentifier extension.
    ///
    /// Returns:
    ///     bytes | None: the key identifier, or `None` without it.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.authority_key_id() == c.subject_key_id()
    ///     True
    fn authority_key_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .authority_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    /// Whether the subject and issuer names are equal.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.is_self_issued
    ///     True
    #[getter]
    fn is_self_issued(&self) -> bool {
        self.0.is_self_issued()
    }

    /// Checks that `issuer` signed this certificate (SM2-with-SM3, default signer ID).
    ///
    /// Args:
    ///     issuer: the issuing `NativeCertificate`; its subject must equal this
    ///         certificate's issuer.
    ///
    /// Raises:
    ///     InvalidSignature: the names differ or the signature does not verify.
    ///     UnsupportedFormat: an unsupported signature algorithm or issuer key.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.verify_signature(c)
    fn verify_signature(&self, py: Python<'_>, issuer: &PyCertificate) -> PyResult<()> {
        py.detach(|| self.0.verify_signature(&issuer.0)).py_err()
    }

    /// Checks this certificate's signature with a bare SM2 public key.
    ///
    /// Args:
    ///     key: bytes-like point: 65 bytes `04 || x || y`, 64 bytes `x || y` or 33 bytes
    ///         compressed.
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify.
    ///     InvalidLength, UnsupportedFormat, InvalidKey: `key` is not a valid point.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificate
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
    ///     >>> c = NativeCertificate.from_der(der)
    ///     >>> c.verify_signature_with_key(key.public_key().to_bytes())
    fn verify_signature_with_key(&self, py: Python<'_>, key: Bytes) -> PyResult<()> {
        let k = PublicKey::from_bytes(&key).py_err()?;
        py.detach(|| self.0.verify_signature_with(&k)).py_err()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyCertificate>()
            .is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        u64::from_be_bytes(self.0.fingerprint_sm3()[..8].try_into().unwrap())
    }
}

/// A certificate revocation list as parsed by the core (immutable).
/// `guomi.x509.CertificateRevocationList` wraps it; use that.
///
/// There is no constructor: use `from_der`, `from_pem` or `all_from_pem`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.x509 import NativeCrl
///     >>> key = sm2.PrivateKey.generate()
///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
///     >>> der = x509.CRLBuilder().sign(ca, key).to_der()
///     >>> NativeCrl.from_der(der).issuer
///     'CN=ca'
#[pyclass(module = "guomi.x509", name = "NativeCrl", frozen)]
pub struct PyCrl(Crl);

#[guard_panics]
#[pymethods]
impl PyCrl {
    /// Parses a DER CRL (v1 or v2).
    ///
    /// Args:
    ///     der: bytes-like DER.
    ///
    /// Returns:
    ///     NativeCrl: the CRL.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER.
    ///
    /// Example:
    ///     >>> from guomi._native.x509 import NativeCrl
    ///     >>> NativeCrl.from_der(b"0")
    ///     Traceback (most recent call last):
    ///     ...
    ///     guomi.exceptions.UnsupportedFormat: malformed DER
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyCrl(Crl::from_der(&der).py_err()?))
    }

    /// Parses the first `X509 CRL` block of PEM text.
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII).
    ///
    /// Returns:
    ///     NativeCrl: the CRL.
    ///
    /// Raises:
    ///     UnsupportedFormat: no CRL block, bad base64 or malformed DER.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCrl
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> pem = x509.CRLBuilder().sign(ca, key).to_pem()
    ///     >>> NativeCrl.from_pem(pem).version
    ///     2
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyCrl(Crl::from_pem(&text(pem)?).py_err()?))
    }

    /// Every `X509 CRL` block of PEM text, in order.
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII).
    ///
    /// Returns:
    ///     list[NativeCrl]: the CRLs (empty when there is none).
    ///
    /// Raises:
    ///     UnsupportedFormat: bad base64 or malformed DER in a CRL block.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi._native.x509 import NativeCrl
    ///     >>> NativeCrl.all_from_pem("")
    ///     []
    #[staticmethod]
    fn all_from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        Ok(Crl::all_from_pem(&text(pem)?)
            .py_err()?
            .into_iter()
            .map(PyCrl)
            .collect())
    }

    /// The DER encoding, exactly as parsed or built.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> x509.CRLBuilder().sign(ca, key)._n.to_der()[:1]
    ///     b'0'
    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    /// PEM text (label `X509 CRL`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> x509.CRLBuilder().sign(ca, key)._n.to_pem().splitlines()[0]
    ///     '-----BEGIN X509 CRL-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// 1 (no version field) or 2.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.version
    ///     2
    #[getter]
    fn version(&self) -> u8 {
        self.0.version()
    }

    /// The issuer name, RFC 4514.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.issuer
    ///     'CN=ca'
    #[getter]
    fn issuer(&self) -> String {
        self.0.issuer()
    }

    /// The issuer name as DER (the `Name` structure).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.issuer_der() == ca.subject_der
    ///     True
    fn issuer_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.issuer_der().py_err()?))
    }

    /// thisUpdate, Unix seconds.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.this_update > 0
    ///     True
    #[getter]
    fn this_update(&self) -> i64 {
        self.0.this_update()
    }

    /// nextUpdate, Unix seconds, or `None`.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.next_update - n.this_update
    ///     604800
    #[getter]
    fn next_update(&self) -> Option<i64> {
        self.0.next_update()
    }

    /// The signature algorithm OID, dotted.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.signature_algorithm
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm(&self) -> String {
        self.0.signature_algorithm()
    }

    /// The signature value (DER `SEQUENCE { r, s }`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.signature()[0]
    ///     48
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.signature())
    }

    /// The signed part (TBSCertList) exactly as encoded.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> key.public_key().verify(n.signature(), n.tbs_der())
    ///     True
    fn tbs_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.tbs_der())
    }

    /// cRLNumber as big-endian bytes, or `None`.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.crl_number()
    ///     b'\x03'
    fn crl_number<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self.0.crl_number().py_err()?.map(|b| PyBytes::new(py, &b)))
    }

    /// authorityKeyIdentifier keyIdentifier, or `None`.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.authority_key_id() == ca.subject_key_identifier
    ///     True
    fn authority_key_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .authority_key_id()
            .py_err()?
            .map(|b| PyBytes::new(py, &b)))
    }

    /// Every CRL extension as `(oid, critical, value)`.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> [o for o, _, _ in n.extensions()]
    ///     ['2.5.29.20', '2.5.29.35']
    fn extensions<'py>(&self, py: Python<'py>) -> Vec<(String, bool, Bound<'py, PyBytes>)> {
        self.0
            .extension_list()
            .into_iter()
            .map(|(o, c, v)| (o, c, PyBytes::new(py, &v)))
            .collect()
    }

    /// The revoked entries as `(serial, revocation_date, reason, invalidity_date)`:
    /// serial as INTEGER content bytes, dates in Unix seconds, reason a name or `None`.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated entry extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> [(s, r) for s, _, r, _ in n.revoked()]
    ///     [(b'\t', 'superseded')]
    #[allow(clippy::type_complexity)]
    fn revoked<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, i64, Option<&'static str>, Option<i64>)>> {
        Ok(self
            .0
            .revoked()
            .py_err()?
            .into_iter()
            .map(|e| {
                (
                    PyBytes::new(py, &e.serial),
                    e.revocation_date,
                    e.reason.and_then(core_x509::crl::reason_name),
                    e.invalidity_date,
                )
            })
            .collect())
    }

    /// Checks the CRL's signature against the issuing CA certificate (name, cRLSign,
    /// SM2-with-SM3 signature).
    ///
    /// Raises:
    ///     InvalidSignature: wrong issuer or the signature does not verify.
    ///     InvalidArgument: the certificate's keyUsage lacks cRLSign.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.verify_signature(ca._n)
    fn verify_signature(&self, py: Python<'_>, issuer: &PyCertificate) -> PyResult<()> {
        py.detach(|| self.0.verify_signature(&issuer.0)).py_err()
    }

    /// Checks the CRL's signature with a bare SM2 public key (65/64/33 bytes).
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify.
    ///     InvalidLength, UnsupportedFormat, InvalidKey: `key` is not a valid point.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
    ///     >>> n.verify_signature_with_key(key.public_key().to_bytes())
    fn verify_signature_with_key(&self, py: Python<'_>, key: Bytes) -> PyResult<()> {
        let k = PublicKey::from_bytes(&key).py_err()?;
        py.detach(|| self.0.verify_signature_with(&k)).py_err()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyCrl>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        let h = guomi_core::sm3::hash(self.0.to_der());
        u64::from_be_bytes(h[..8].try_into().unwrap())
    }
}

/// A PKCS#10 certification request as parsed by the core (immutable).
/// `guomi.x509.CertificateSigningRequest` wraps it; use that.
///
/// There is no constructor: use `from_der` or `from_pem`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.x509 import NativeCertificateRequest
///     >>> key = sm2.PrivateKey.generate()
///     >>> der = x509.CertificateSigningRequestBuilder(subject="CN=a").sign(key).to_der()
///     >>> NativeCertificateRequest.from_der(der).subject
///     'CN=a'
#[pyclass(module = "guomi.x509", name = "NativeCertificateRequest", frozen)]
pub struct PyRequest(CertificateRequest);

#[guard_panics]
#[pymethods]
impl PyRequest {
    /// Parses a DER request (strict).
    ///
    /// Args:
    ///     der: bytes-like DER.
    ///
    /// Returns:
    ///     NativeCertificateRequest: the request.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.subject
    ///     'CN=a'
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyRequest(CertificateRequest::from_der(&der).py_err()?))
    }

    /// Parses the first `CERTIFICATE REQUEST` block of PEM text.
    ///
    /// Args:
    ///     pem: `str` or `bytes` (ASCII).
    ///
    /// Returns:
    ///     NativeCertificateRequest: the request.
    ///
    /// Raises:
    ///     UnsupportedFormat: no request block, bad base64 or malformed DER.
    ///     TypeError: `pem` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> NativeCertificateRequest.from_pem(r.to_pem()).subject
    ///     'CN=a'
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyRequest(
            CertificateRequest::from_pem(&text(pem)?).py_err()?,
        ))
    }

    /// The DER encoding.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> NativeCertificateRequest.from_der(r.to_der()).subject
    ///     'CN=a'
    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    /// The request as a PEM `CERTIFICATE REQUEST` block.
    ///
    /// Returns:
    ///     str: the PEM text.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.to_pem().splitlines()[0]
    ///     '-----BEGIN CERTIFICATE REQUEST-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// The requested subject as an RFC 4514 string.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.subject
    ///     'CN=a'
    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    /// The signature algorithm OID, dotted.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.signature_algorithm
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm(&self) -> String {
        self.0.signature_algorithm()
    }

    /// The requested SM2 public key as 65 bytes `04 || x || y`.
    ///
    /// Returns:
    ///     bytes: the point.
    ///
    /// Raises:
    ///     UnsupportedFormat: not an SM2 key.
    ///     InvalidKey: the point is not on the curve.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.public_key_bytes() == key.public_key().to_bytes()
    ///     True
    fn public_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(
            py,
            &self.0.public_key().py_err()?.to_uncompressed(),
        ))
    }

    /// The subject alternative names of the extensionRequest attribute.
    ///
    /// Returns:
    ///     list[tuple[str, str | bytes]]: `(kind, value)` pairs as
    ///     `NativeCertificate.subject_alt_names` (empty when none are requested).
    ///
    /// Raises:
    ///     UnsupportedFormat: the attribute is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.subject_alt_names()
    ///     [('dns', 'a')]
    fn subject_alt_names(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.0
            .subject_alt_names()
            .py_err()?
            .iter()
            .map(|g| san_to_py(py, g))
            .collect()
    }

    /// Checks the request's self-signature.
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> from guomi._native.x509 import NativeCertificateRequest
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
    ///     >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
    ///     >>> r.verify()
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.0.verify()).py_err()
    }
}

/// Validates a certification path from `leaf` to one of `roots` (RFC 5280 §6 subset) and
/// returns it, leaf first, trust root last.
///
/// Checked: each signature (SM2-with-SM3), issuer name = next subject, validity at `at`,
/// no unknown critical extension; on issuers basicConstraints cA, pathLenConstraint and
/// keyUsage keyCertSign; with `purpose`, the leaf's extKeyUsage (when present); with
/// `crls`, revocation of every certificate below the root (base CRLs from its issuer on
/// the path, which must verify, be current and allow cRLSign). The work is bounded: at
/// most `MAX_PATH_LEN` (16) certificates on a path, `MAX_CERTIFICATES` (1024)
/// intermediates and roots together, `MAX_CRLS` (256) CRLs, `MAX_SIGNATURE_CHECKS` (100)
/// signature checks (CRLs included) and `MAX_CANDIDATE_STEPS` (4096) candidates per call.
///
/// Args:
///     leaf: the end-entity `NativeCertificate`.
///     intermediates: candidate intermediate certificates, any order.
///     roots: trusted certificates.
///     at: the time to check validity at, Unix seconds.
///     purpose: `None`, an extended key usage short name (`"serverAuth"`, ...) or a
///         dotted OID.
///     crls: `NativeCrl` objects to check revocation against, or `None`.
///     require_crls: fail a certificate whose issuer has no CRL in `crls`.
///
/// Returns:
///     list[NativeCertificate]: the path.
///
/// Raises:
///     CertificateVerificationError: no valid path; `subject`, `reason` and `depth`
///         (0 = leaf) name the failing certificate. Exceeding a bound gives this error
///         for the leaf, with a reason that says so.
///     InvalidArgument: an unknown `purpose`.
///
/// Example:
///     >>> import time
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.x509 import NativeCertificate, verify_chain
///     >>> key = sm2.PrivateKey.generate()
///     >>> root = x509.CertificateBuilder(subject="CN=r").ca().self_sign(key).to_der()
///     >>> r = NativeCertificate.from_der(root)
///     >>> [c.subject for c in verify_chain(r, [], [r], int(time.time()))]
///     ['CN=r']
#[guard_panics]
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (leaf, intermediates, roots, at, purpose=None, crls=None, require_crls=false))]
fn verify_chain(
    py: Python<'_>,
    leaf: &PyCertificate,
    intermediates: Vec<PyRef<'_, PyCertificate>>,
    roots: Vec<PyRef<'_, PyCertificate>>,
    at: i64,
    purpose: Option<&str>,
    crls: Option<Vec<PyRef<'_, PyCrl>>>,
    require_crls: bool,
) -> PyResult<Vec<PyCertificate>> {
    let purpose = purpose.map(core_x509::parse_eku).transpose().py_err()?;
    let ints: Vec<Certificate> = intermediates.iter().map(|c| c.0.clone()).collect();
    let roots: Vec<Certificate> = roots.iter().map(|c| c.0.clone()).collect();
    let crls: Vec<Crl> = crls.iter().flatten().map(|c| c.0.clone()).collect();
    let leaf = leaf.0.clone();
    let checked = py.detach(|| {
        core_x509::chain::verify_chain_with_crls(
            &leaf,
            &ints,
            &roots,
            at,
            purpose,
            &crls,
            require_crls,
        )
    });
    match checked {
        Ok(path) => Ok(path.into_iter().map(PyCertificate).collect()),
        Err(e) => {
            let err = CertificateVerificationError::new_err(e.to_string());
            let v = err.value(py);
            v.setattr("subject", &e.subject)?;
            v.setattr("reason", &e.reason)?;
            v.setattr("depth", e.depth)?;
            Err(err)
        }
    }
}

/// Builds and signs an X.509 v3 certificate (used by `guomi.x509.CertificateBuilder`).
///
/// Every argument is keyword-only and required except `request`.
///
/// Args:
///     subject: RFC 4514 (`"CN=a,O=b"`) or OpenSSL `"/O=b/CN=a"` name; `None` only with
///         `request` (then the request's subject is used; a string overrides it).
///     public_key: the subject's SM2 point (65/64/33 bytes), or `None` for the signing
///         key's own public key; ignored with `request`.
///     signing_key: the signer's d (32 bytes).
///     issuer: the issuing CA certificate, or `None` to self-sign (the signing key must
///         then belong to the subject's key).
///     serial: serial number bytes (big-endian, positive), or `None` for a random
///         127-bit one.
///     not_before: start of validity, Unix seconds.
///     not_after: end of validity, Unix seconds.
///     ca: the basicConstraints cA flag.
///     path_length: pathLenConstraint, 0 to 255, or `None`.
///     key_usage: keyUsage bit names (empty omits the extension).
///     extended_key_usage: short names or dotted OIDs (empty omits the extension).
///     subject_alt_names: `(kind, value)` pairs, kind `"dns"`, `"email"`, `"uri"`,
///         `"dirname"`, `"rid"` (str) or `"ip"` (4 or 16 bytes).
///     key_identifiers: write subject and authority key identifiers.
///     request: a `NativeCertificateRequest` giving the subject, key and (unless
///         `subject_alt_names` is given) the names; its signature is checked.
///
/// Returns:
///     NativeCertificate: the signed certificate.
///
/// Raises:
///     InvalidArgument: a bad name, unknown usage or SAN kind, a validity ending before
///         it starts, or a subject missing without a request.
///     InvalidKey: `signing_key` or `public_key` is invalid, or the key does not match
///         the issuer.
///     InvalidSignature: the request's self-signature does not verify.
///     OverflowError: `path_length` outside 0..255.
///
/// Example:
///     >>> from guomi import sm2
///     >>> from guomi._native.x509 import build_certificate
///     >>> key = sm2.PrivateKey.generate()
///     >>> c = build_certificate(subject="CN=a", public_key=None, signing_key=key.to_bytes(),
///     ...     issuer=None, serial=b"\x01", not_before=0, not_after=2**31, ca=False,
///     ...     path_length=None, key_usage=[], extended_key_usage=[], subject_alt_names=[],
///     ...     key_identifiers=False)
///     >>> c.serial, c.subject
///     (b'\x01', 'CN=a')
#[guard_panics]
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (*, subject, public_key, signing_key, issuer, serial, not_before, not_after,
                    ca, path_length, key_usage, extended_key_usage, subject_alt_names,
                    key_identifiers, request=None))]
fn build_certificate(
    py: Python<'_>,
    subject: Option<String>,
    public_key: Option<Bytes>,
    signing_key: Bytes,
    issuer: Option<PyRef<'_, PyCertificate>>,
    serial: Option<Bytes>,
    not_before: i64,
    not_after: i64,
    ca: bool,
    path_length: Option<u8>,
    key_usage: Vec<String>,
    extended_key_usage: Vec<String>,
    subject_alt_names: Vec<(String, Bound<'_, PyAny>)>,
    key_identifiers: bool,
    request: Option<PyRef<'_, PyRequest>>,
) -> PyResult<PyCertificate> {
    let key = private_key(&signing_key)?;
    let mut b = match &request {
        Some(r) => CertificateBuilder::from_request(&r.0, not_before, not_after).py_err()?,
        None => {
            let pk = match &public_key {
                Some(p) => PublicKey::from_bytes(p).py_err()?,
                None => key.public_key().clone(),
            };
            let subject = subject
                .as_deref()
                .ok_or(Error::InvalidValue("a subject is needed"))
                .py_err()?;
            CertificateBuilder::new(subject, pk, not_before, not_after).py_err()?
        }
    };
    if let (Some(s), Some(_)) = (&subject, &request) {
        b.subject = core_x509::cert::parse_name(s).py_err()?;
    }
    b.serial = serial.map(|s| s.to_vec());
    b.basic_constraints = Some((ca, path_length));
    b.key_usage = if key_usage.is_empty() {
        None
    } else {
        Some(KeyUsageFlags::from_names(&key_usage).py_err()?)
    };
    b.extended_key_usage = extended_key_usage
        .iter()
        .map(|e| core_x509::parse_eku(e))
        .collect::<guomi_core::Result<_>>()
        .py_err()?;
    let sans = san_from_py(subject_alt_names)?;
    if !sans.is_empty() || request.is_none() {
        b.subject_alt_names = sans;
    }
    b.key_identifiers = key_identifiers;
    let issuer = issuer.map(|i| i.0.clone());
    let cert = py
        .detach(|| match &issuer {
            None => b.self_sign(&key),
            Some(i) => b.sign(i, &key),
        })
        .py_err()?;
    Ok(PyCertificate(cert))
}

/// Builds and signs a PKCS#10 request (used by
/// `guomi.x509.CertificateSigningRequestBuilder`).
///
/// Args:
///     subject: RFC 4514 or OpenSSL `/`-separated name.
///     signing_key: the requester's d (32 bytes); its public key is requested.
///     subject_alt_names: `(kind, value)` pairs as in `build_certificate`.
///
/// Returns:
///     NativeCertificateRequest: the signed request.
///
/// Raises:
///     InvalidArgument: a bad name or SAN kind.
///     InvalidKey: `signing_key` is invalid.
///
/// Example:
///     >>> from guomi import sm2
///     >>> from guomi._native.x509 import build_request
///     >>> key = sm2.PrivateKey.generate()
///     >>> build_request(subject="CN=a", signing_key=key.to_bytes(), subject_alt_names=[]).subject
///     'CN=a'
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (*, subject, signing_key, subject_alt_names))]
fn build_request(
    py: Python<'_>,
    subject: &str,
    signing_key: Bytes,
    subject_alt_names: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<PyRequest> {
    let key = private_key(&signing_key)?;
    let mut b = RequestBuilder::new(subject).py_err()?;
    b.subject_alt_names = san_from_py(subject_alt_names)?;
    Ok(PyRequest(py.detach(|| b.sign(&key)).py_err()?))
}

/// Builds and signs a v2 CRL (used by `guomi.x509.CRLBuilder`).
///
/// Args:
///     issuer: the issuing CA `NativeCertificate` (cRLSign when it has keyUsage).
///     signing_key: the CA's d (32 bytes); it must match `issuer`.
///     this_update: thisUpdate, Unix seconds.
///     next_update: nextUpdate, Unix seconds, or `None`.
///     crl_number: cRLNumber, big-endian bytes (at most 20; empty means 0).
///     revoked: `(serial, date, reason)` triples: serial big-endian positive bytes (at
///         most 20), date Unix seconds, reason a name (`"keyCompromise"`, ...) or `None`.
///
/// Returns:
///     NativeCrl: the signed CRL.
///
/// Raises:
///     InvalidArgument: an unknown reason, a bad serial or number, next before this
///         update, more than 1048576 entries, or an issuer without cRLSign.
///     InvalidKey: `signing_key` does not match `issuer`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.x509 import build_crl
///     >>> key = sm2.PrivateKey.generate()
///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
///     >>> crl = build_crl(issuer=ca._n, signing_key=key.to_bytes(), this_update=0,
///     ...     next_update=None, crl_number=b"\x05", revoked=[(b"\x07", 0, "superseded")])
///     >>> crl.revoked()
///     [(b'\x07', 0, 'superseded', None)]
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (*, issuer, signing_key, this_update, next_update, crl_number, revoked))]
fn build_crl(
    py: Python<'_>,
    issuer: &PyCertificate,
    signing_key: Bytes,
    this_update: i64,
    next_update: Option<i64>,
    crl_number: Bytes,
    revoked: Vec<(Bytes, i64, Option<String>)>,
) -> PyResult<PyCrl> {
    let key = private_key(&signing_key)?;
    let mut entries = Vec::with_capacity(revoked.len());
    for (serial, date, reason) in revoked {
        let reason = reason
            .map(|r| core_x509::crl::reason_code(&r))
            .transpose()
            .py_err()?;
        entries.push(Revocation {
            serial: serial.to_vec(),
            date,
            reason,
        });
    }
    let b = CrlBuilder {
        this_update,
        next_update,
        crl_number: crl_number.to_vec(),
        revoked: entries,
    };
    let issuer = issuer.0.clone();
    Ok(PyCrl(py.detach(|| b.sign(&issuer, &key)).py_err()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCertificate>()?;
    m.add_class::<PyRequest>()?;
    m.add_class::<PyCrl>()?;
    m.add_function(wrap_pyfunction!(build_crl, m)?)?;
    m.add("MAX_CRLS", core_x509::chain::MAX_CRLS)?;
    m.add_function(wrap_pyfunction!(verify_chain, m)?)?;
    m.add_function(wrap_pyfunction!(build_certificate, m)?)?;
    m.add_function(wrap_pyfunction!(build_request, m)?)?;
    m.add("DEFAULT_ITERATIONS", core_x509::DEFAULT_ITERATIONS)?;
    m.add("MAX_ITERATIONS", core_x509::keys::MAX_ITERATIONS)?;
    m.add("MAX_PATH_LEN", core_x509::chain::MAX_PATH_LEN)?;
    m.add("MAX_CERTIFICATES", core_x509::chain::MAX_CERTIFICATES)?;
    m.add(
        "MAX_SIGNATURE_CHECKS",
        core_x509::chain::MAX_SIGNATURE_CHECKS,
    )?;
    m.add("MAX_CANDIDATE_STEPS", core_x509::chain::MAX_CANDIDATE_STEPS)?;
    Ok(())
}
