//! `guomi._native.x509`: protected private keys, SM2 X.509 certificates, certification
//! paths and PKCS#10 requests (see the core's `x509` module). `Certificate`,
//! `CertificateRevocationList` and `CertificateSigningRequest` are the public classes
//! (`guomi/x509.py` re-exports them); their getters build the small value types that stay
//! in Python (`Extension`, `BasicConstraints`, `RevokedCertificate`) and `guomi.sm2`
//! public keys. The builders take private keys as bytes (d: 32 bytes).

use crate::buf::Bytes;
use crate::error::IntoPy;
use crate::sm2::PyPublicKey;
use guomi_core::sm2::{PrivateKey, PublicKey};
use guomi_core::Error;
use guomi_formats::x509::{
    self as core_x509, Certificate, CertificateBuilder, CertificateRequest, Crl, CrlBuilder,
    GeneralNameValue, KeyUsageFlags, RequestBuilder, Revocation,
};
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyBytes, PyFrozenSet, PyInt, PyString, PyType};

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

/// `(kind, value)` as Python users read it: `ip` as the printed address (Python's
/// `ipaddress`), `other` as the hex of its DER, the rest as they are.
fn san_to_py(py: Python<'_>, g: &GeneralNameValue) -> PyResult<(&'static str, String)> {
    let value = match g {
        GeneralNameValue::Dns(s)
        | GeneralNameValue::Email(s)
        | GeneralNameValue::Uri(s)
        | GeneralNameValue::DirectoryName(s)
        | GeneralNameValue::RegisteredId(s) => s.clone(),
        GeneralNameValue::Ip(b) => {
            static IP_ADDRESS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            IP_ADDRESS
                .import(py, "ipaddress", "ip_address")?
                .call1((PyBytes::new(py, b),))?
                .str()?
                .extract()?
        }
        GeneralNameValue::Other(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    };
    Ok((g.kind(), value))
}

/// Unix seconds as an aware UTC `datetime` (`datetime.fromtimestamp(secs, timezone.utc)`).
fn utc_datetime(py: Python<'_>, secs: i64) -> PyResult<Bound<'_, PyAny>> {
    static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static UTC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let utc = UTC.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("datetime")?
                .getattr("timezone")?
                .getattr("utc")?
                .unbind(),
        )
    })?;
    DATETIME
        .import(py, "datetime", "datetime")?
        .call_method1("fromtimestamp", (secs, utc.bind(py)))
}

/// A `datetime` (naive means UTC) as Unix seconds, truncated as `int(t.timestamp())`.
fn unix_seconds(when: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = when.py();
    static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let datetime = DATETIME.import(py, "datetime", "datetime")?;
    if !when.is_instance(datetime)? {
        return Err(PyTypeError::new_err("expected a datetime.datetime"));
    }
    let mut t = when.clone();
    if t.getattr("tzinfo")?.is_none() {
        let utc = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
        let kw = [("tzinfo", utc)].into_py_dict(py)?;
        t = t.call_method("replace", (), Some(&kw))?;
    }
    Ok(t.call_method0("timestamp")?.extract::<f64>()? as i64)
}

/// The current time in Unix seconds.
fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Big-endian bytes as a Python `int` (`int.from_bytes(b, "big", signed=signed)`).
fn py_int<'py>(py: Python<'py>, b: &[u8], signed: bool) -> PyResult<Bound<'py, PyAny>> {
    let kw = [("signed", signed)].into_py_dict(py)?;
    py.get_type::<PyInt>()
        .call_method("from_bytes", (PyBytes::new(py, b), "big"), Some(&kw))
}

/// One of the small value types of `guomi.x509` (dataclasses kept in Python, imported
/// when first needed: `guomi.x509` is loaded by then).
fn x509_type<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyType>> {
    cell.import(py, "guomi.x509", name)
}

static EXTENSION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BASIC_CONSTRAINTS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static REVOKED_CERTIFICATE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `[Extension(oid, critical, value), ...]`.
fn extensions_to_py(
    py: Python<'_>,
    v: Vec<(String, bool, Vec<u8>)>,
) -> PyResult<Vec<Bound<'_, PyAny>>> {
    let ext = x509_type(py, &EXTENSION, "Extension")?;
    v.into_iter()
        .map(|(o, c, v)| ext.call1((o, c, PyBytes::new(py, &v))))
        .collect()
}

/// The issuer argument of `verify_signature`: a `Certificate` or an `sm2.PublicKey`.
enum Issuer<'a> {
    Cert(&'a Certificate),
    Key(&'a PublicKey),
}

fn issuer_of<'a>(issuer: &'a Bound<'_, PyAny>) -> PyResult<Issuer<'a>> {
    if let Ok(c) = issuer.cast::<PyCertificate>() {
        return Ok(Issuer::Cert(&c.get().0));
    }
    if let Ok(k) = issuer.cast::<PyPublicKey>() {
        return Ok(Issuer::Key(k.get().inner()));
    }
    Err(PyTypeError::new_err(
        "issuer must be a Certificate or an sm2.PublicKey",
    ))
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

/// An SM2 X.509 certificate (immutable, compared by its DER, hashable).
///
/// There is no constructor: read one with `from_pem`, `from_der` or
/// `load_pem_certificates`; make one with `CertificateBuilder`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
///     >>> cert.subject, cert.serial_number, cert.version
///     ('CN=a', 5, 3)
///     >>> x509.Certificate.from_pem(cert.to_pem()) == cert
///     True
#[pyclass(module = "guomi.x509", name = "Certificate", frozen)]
pub struct PyCertificate(pub(crate) Certificate);

#[guard_panics]
#[pymethods]
impl PyCertificate {
    /// Reads a DER certificate (strict: trailing bytes or unknown outer fields are refused).
    ///
    /// Args:
    ///     data: bytes-like DER.
    ///
    /// Returns:
    ///     Certificate: the certificate.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> x509.Certificate.from_der(cert.to_der()) == cert
    ///     True
    #[staticmethod]
    fn from_der(data: Bytes) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_der(&data).py_err()?))
    }

    /// Reads the first `CERTIFICATE` (or `X509 CERTIFICATE`) block of PEM text.
    ///
    /// Args:
    ///     data: PEM, `str` or `bytes` (other blocks before it are skipped).
    ///
    /// Returns:
    ///     Certificate: the certificate.
    ///
    /// Raises:
    ///     UnsupportedFormat: no certificate block, bad base64 or malformed DER (strict).
    ///     TypeError: `data` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> x509.Certificate.from_pem(cert.to_pem()) == cert
    ///     True
    #[staticmethod]
    fn from_pem(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_pem(&text(data)?).py_err()?))
    }

    /// The DER encoding, exactly as read or built.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.to_der()[0]
    ///     48
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
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.to_pem().splitlines()[0]
    ///     '-----BEGIN CERTIFICATE-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// The X.509 version: 1, 2 or 3 (certificates guomi builds are 3).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.version
    ///     3
    #[getter]
    fn version(&self) -> u8 {
        self.0.version()
    }

    /// The serial number (an `int`; negative only in non-conforming certificates).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.serial_number
    ///     5
    #[getter]
    fn serial_number<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_int(py, self.0.serial(), true)
    }

    /// The subject name as an RFC 4514 string, most specific first (`"CN=leaf,O=Example"`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.subject
    ///     'CN=a'
    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    /// The issuer name as an RFC 4514 string.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.issuer
    ///     'CN=a'
    #[getter]
    fn issuer(&self) -> String {
        self.0.issuer()
    }

    /// The subject name as DER (the `Name` structure), for exact comparison.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.subject_der[0]
    ///     48
    #[getter]
    fn subject_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.subject_der().py_err()?))
    }

    /// The issuer name as DER (the `Name` structure).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.issuer_der == cert.subject_der
    ///     True
    #[getter]
    fn issuer_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.issuer_der().py_err()?))
    }

    /// Start of the validity period, an aware UTC `datetime`.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.not_valid_before.tzinfo
    ///     datetime.timezone.utc
    #[getter]
    fn not_valid_before<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.0.not_before())
    }

    /// End of the validity period, an aware UTC `datetime`.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> (cert.not_valid_after - cert.not_valid_before).days
    ///     365
    #[getter]
    fn not_valid_after<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.0.not_after())
    }

    /// The signature algorithm OID, dotted (`SIGNATURE_ALGORITHM_OID` for SM2-with-SM3).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.signature_algorithm_oid
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm_oid(&self) -> String {
        self.0.signature_algorithm()
    }

    /// The signature value (DER `SEQUENCE { r, s }` for SM2).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.signature[0]
    ///     48
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.signature())
    }

    /// The signed part (TBSCertificate DER).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> key.public_key().verify(cert.signature, cert.tbs_certificate_bytes)
    ///     True
    #[getter]
    fn tbs_certificate_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.tbs_der())
    }

    /// The subject's SM2 public key.
    ///
    /// Returns:
    ///     sm2.PublicKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: the certificate holds a key of another algorithm.
    ///     InvalidKey: the point is not on the curve.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.public_key() == key.public_key()
    ///     True
    fn public_key(&self) -> PyResult<PyPublicKey> {
        Ok(PyPublicKey::from_core(self.0.public_key().py_err()?))
    }

    /// A digest of the DER certificate.
    ///
    /// Args:
    ///     algorithm: `"sm3"` (default), or any `hashlib` name (`"sha256"`, `"sha1"`).
    ///
    /// Returns:
    ///     bytes: the digest.
    ///
    /// Raises:
    ///     ValueError: an unknown hashlib algorithm.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> len(cert.fingerprint()), len(cert.fingerprint('sha1'))
    ///     (32, 20)
    #[pyo3(signature = (algorithm = "sm3"))]
    fn fingerprint<'py>(&self, py: Python<'py>, algorithm: &str) -> PyResult<Bound<'py, PyAny>> {
        if algorithm.eq_ignore_ascii_case("sm3") {
            return Ok(PyBytes::new(py, &self.0.fingerprint_sm3()).into_any());
        }
        py.import("hashlib")?
            .call_method1("new", (algorithm, PyBytes::new(py, self.0.to_der())))?
            .call_method0("digest")
    }

    /// Every extension, in order, undecoded (a list of `Extension`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> [e.critical for e in cert.extensions][:1]
    ///     [True]
    #[getter]
    fn extensions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        extensions_to_py(py, self.0.extensions())
    }

    /// The basicConstraints extension, or `None` without it.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).ca(0).self_sign(key)
    ///     >>> cert.basic_constraints
    ///     BasicConstraints(ca=True, path_length=0)
    ///     >>> x509.CertificateBuilder(subject="CN=b").self_sign(key).basic_constraints is None
    ///     True
    #[getter]
    fn basic_constraints<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.0.basic_constraints().py_err()? {
            None => Ok(None),
            Some((ca, len)) => Ok(Some(
                x509_type(py, &BASIC_CONSTRAINTS, "BasicConstraints")?.call1((ca, len))?,
            )),
        }
    }

    /// keyUsage bit names (`"digitalSignature"`, `"keyCertSign"`, ...) or `None` without
    /// the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> sorted(cert.key_usage)
    ///     ['digitalSignature', 'keyEncipherment']
    #[getter]
    fn key_usage<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyFrozenSet>>> {
        self.0
            .key_usage()
            .py_err()?
            .map(|k| PyFrozenSet::new(py, k.names()))
            .transpose()
    }

    /// extKeyUsage as short names (`"serverAuth"`, `"clientAuth"`, `"codeSigning"`,
    /// `"emailProtection"`, `"timeStamping"`, `"OCSPSigning"`, `"anyExtendedKeyUsage"`) or
    /// dotted OIDs for others, or `None` without the extension.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateBuilder(subject='CN=s').with_extended_key_usage(['serverAuth'])
    ///     >>> b.self_sign(key).extended_key_usage
    ///     ['serverAuth']
    #[getter]
    fn extended_key_usage(&self) -> PyResult<Option<Vec<String>>> {
        Ok(self
            .0
            .extended_key_usage()
            .py_err()?
            .map(|v| v.iter().map(core_x509::eku_name).collect()))
    }

    /// The subjectAltName entries as `(kind, value)` strings, or `None` without the
    /// extension. Kinds: `dns`, `email`, `uri`, `ip` (printed address), `dirname`, `rid`
    /// and `other` (hex of the DER).
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> b = x509.CertificateBuilder(subject='CN=s').with_subject_alternative_names(['ip:127.0.0.1'])
    ///     >>> b.self_sign(key).subject_alternative_names
    ///     [('ip', '127.0.0.1')]
    #[getter]
    fn subject_alternative_names(
        &self,
        py: Python<'_>,
    ) -> PyResult<Option<Vec<(&'static str, String)>>> {
        self.0
            .subject_alt_names()
            .py_err()?
            .map(|v| v.iter().map(|g| san_to_py(py, g)).collect())
            .transpose()
    }

    /// The subjectKeyIdentifier, or `None` without it (guomi writes the first 20 bytes of
    /// SM3 of the public key).
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> len(cert.subject_key_identifier)
    ///     20
    #[getter]
    fn subject_key_identifier<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .subject_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    /// The keyIdentifier of the authorityKeyIdentifier, or `None` without it.
    ///
    /// Raises:
    ///     UnsupportedFormat: the extension is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.authority_key_identifier == cert.subject_key_identifier
    ///     True
    #[getter]
    fn authority_key_identifier<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .authority_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    /// Whether the subject and issuer names are equal (a root, or a self-issued CA
    /// certificate).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.is_self_issued
    ///     True
    #[getter]
    fn is_self_issued(&self) -> bool {
        self.0.is_self_issued()
    }

    /// Checks that `issuer` signed this certificate (SM2-with-SM3, default signer ID).
    ///
    /// Args:
    ///     issuer: the issuing `Certificate` (its subject must equal this certificate's
    ///         issuer), or a bare `guomi.sm2.PublicKey`.
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify (or the names differ).
    ///     UnsupportedFormat: an unsupported signature algorithm or issuer key.
    ///     TypeError: `issuer` is neither a certificate nor an SM2 public key.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.verify_signature(cert)
    ///     >>> cert.verify_signature(key.public_key())
    fn verify_signature(&self, py: Python<'_>, issuer: &Bound<'_, PyAny>) -> PyResult<()> {
        match issuer_of(issuer)? {
            Issuer::Cert(c) => py.detach(|| self.0.verify_signature(c)),
            Issuer::Key(k) => py.detach(|| self.0.verify_signature_with(k)),
        }
        .py_err()
    }

    /// Whether `when` lies in the validity period (bounds included).
    ///
    /// Args:
    ///     when: a `datetime` (naive means UTC), or `None` for now.
    ///
    /// Returns:
    ///     bool: `not_valid_before <= when <= not_valid_after`.
    ///
    /// Raises:
    ///     TypeError: `when` is not a `datetime`.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
    ///     >>> cert.is_valid_at()
    ///     True
    #[pyo3(signature = (when = None))]
    fn is_valid_at(&self, when: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let t = match when {
            Some(w) => unix_seconds(w)?,
            None => now_seconds(),
        };
        Ok(self.0.not_before() <= t && t <= self.0.not_after())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyCertificate>()
            .is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        u64::from_be_bytes(self.0.fingerprint_sm3()[..8].try_into().unwrap())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let serial = py_int(py, self.0.serial(), true)?.call_method1("__format__", ("#x",))?;
        Ok(format!(
            "<guomi.x509.Certificate subject={} serial={}>",
            PyString::new(py, &self.0.subject()).repr()?,
            serial
        ))
    }

    /// Pickles (and copies) by DER: `Certificate.from_der(der)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let der = PyBytes::new(slf.py(), slf.get().0.to_der());
        Ok((slf.get_type().getattr("from_der")?, (der,)))
    }
}

/// An X.509 CRL (RFC 5280 §5; immutable, compared by its DER, hashable).
///
/// There is no constructor: read one with `from_pem`, `from_der` or `load_pem_crls`;
/// issue one with `CRLBuilder`; give them to `verify_chain` (`crls=`) to reject revoked
/// certificates. v1 and v2 CRLs are read; delta, partitioned and indirect CRLs parse but
/// `verify_chain` refuses to rely on them (a critical extension it does not implement
/// fails the path, closed).
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
///     >>> crl = x509.CRLBuilder(crl_number=7).revoke(5).sign(ca, key)
///     >>> crl.issuer, crl.crl_number, crl.get_revoked(5) is not None
///     ('CN=ca', 7, True)
///     >>> x509.CertificateRevocationList.from_pem(crl.to_pem()) == crl
///     True
#[pyclass(module = "guomi.x509", name = "CertificateRevocationList", frozen)]
pub struct PyCrl(pub(crate) Crl);

impl PyCrl {
    fn check(&self, py: Python<'_>, issuer: &Bound<'_, PyAny>) -> PyResult<guomi_core::Result<()>> {
        Ok(match issuer_of(issuer)? {
            Issuer::Cert(c) => py.detach(|| self.0.verify_signature(c)),
            Issuer::Key(k) => py.detach(|| self.0.verify_signature_with(k)),
        })
    }
}

#[guard_panics]
#[pymethods]
impl PyCrl {
    /// Reads a DER CRL (strict DER).
    ///
    /// Args:
    ///     data: bytes-like DER.
    ///
    /// Returns:
    ///     CertificateRevocationList: the CRL.
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER, or a version other than v1/v2.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> der = x509.CRLBuilder().sign(ca, key).to_der()
    ///     >>> x509.CertificateRevocationList.from_der(der).version
    ///     2
    #[staticmethod]
    fn from_der(data: Bytes) -> PyResult<Self> {
        Ok(PyCrl(Crl::from_der(&data).py_err()?))
    }

    /// Reads the first `X509 CRL` block of PEM text.
    ///
    /// Args:
    ///     data: PEM, `str` or `bytes` (other blocks before it are skipped).
    ///
    /// Returns:
    ///     CertificateRevocationList: the CRL.
    ///
    /// Raises:
    ///     UnsupportedFormat: no CRL block, bad base64 or malformed DER.
    ///     TypeError: `data` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> pem = x509.CRLBuilder().sign(ca, key).to_pem()
    ///     >>> x509.CertificateRevocationList.from_pem(pem).issuer
    ///     'CN=ca'
    #[staticmethod]
    fn from_pem(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyCrl(Crl::from_pem(&text(data)?).py_err()?))
    }

    /// The DER encoding, exactly as read or built.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> x509.CRLBuilder().sign(ca, key).to_der()[0]
    ///     48
    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    /// The CRL as a PEM `X509 CRL` block.
    ///
    /// Returns:
    ///     str: the PEM text.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> x509.CRLBuilder().sign(ca, key).to_pem().splitlines()[0]
    ///     '-----BEGIN X509 CRL-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// 1 (no version field) or 2 (CRLs guomi issues are v2).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.version
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
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.issuer
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
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.issuer_der == ca.subject_der
    ///     True
    #[getter]
    fn issuer_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.issuer_der().py_err()?))
    }

    /// thisUpdate (aware `datetime`, UTC).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.last_update.tzinfo is not None
    ///     True
    #[getter]
    fn last_update<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.0.this_update())
    }

    /// nextUpdate (aware `datetime`, UTC), or `None` when absent.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> (crl.next_update - crl.last_update).days
    ///     7
    #[getter]
    fn next_update<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.0
            .next_update()
            .map(|t| utc_datetime(py, t))
            .transpose()
    }

    /// The cRLNumber extension, or `None` when absent.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.crl_number
    ///     3
    #[getter]
    fn crl_number<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.0
            .crl_number()
            .py_err()?
            .map(|b| py_int(py, &b, false))
            .transpose()
    }

    /// The authorityKeyIdentifier's keyIdentifier, or `None`.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.authority_key_identifier == ca.subject_key_identifier
    ///     True
    #[getter]
    fn authority_key_identifier<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .authority_key_id()
            .py_err()?
            .map(|b| PyBytes::new(py, &b)))
    }

    /// The signature algorithm OID, dotted (SM2-with-SM3: `1.2.156.10197.1.501`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.signature_algorithm_oid
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm_oid(&self) -> String {
        self.0.signature_algorithm()
    }

    /// The signature value (DER `SEQUENCE { r, s }`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> crl.signature[0]
    ///     48
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.signature())
    }

    /// The signed part (TBSCertList), exactly as encoded.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> key.public_key().verify(crl.signature, crl.tbs_certlist_bytes)
    ///     True
    #[getter]
    fn tbs_certlist_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.tbs_der())
    }

    /// Every CRL extension, in order (a list of `Extension`).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> [e.oid for e in crl.extensions]
    ///     ['2.5.29.20', '2.5.29.35']
    #[getter]
    fn extensions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        extensions_to_py(py, self.0.extension_list())
    }

    /// Every entry, in order (a list of `RevokedCertificate`).
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated entry extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
    ///     >>> [(e.serial_number, e.reason) for e in crl.revoked_certificates]
    ///     [(9, 'superseded')]
    #[getter]
    fn revoked_certificates<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let entry = x509_type(py, &REVOKED_CERTIFICATE, "RevokedCertificate")?;
        self.0
            .revoked()
            .py_err()?
            .into_iter()
            .map(|e| {
                entry.call1((
                    py_int(py, &e.serial, true)?,
                    utc_datetime(py, e.revocation_date)?,
                    e.reason.and_then(core_x509::crl::reason_name),
                    e.invalidity_date.map(|t| utc_datetime(py, t)).transpose()?,
                ))
            })
            .collect()
    }

    /// The entry for a certificate (or a serial number), or `None` when not listed.
    ///
    /// The serial number alone identifies the entry: check the CRL's issuer and signature
    /// (or use `verify_chain` with `crls=`) before relying on the answer.
    ///
    /// Args:
    ///     certificate: a `Certificate` or a serial number.
    ///
    /// Returns:
    ///     RevokedCertificate | None: the entry.
    ///
    /// Raises:
    ///     UnsupportedFormat: a malformed or repeated entry extension.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder().revoke(5).sign(ca, key)
    ///     >>> crl.get_revoked(5).serial_number, crl.get_revoked(6)
    ///     (5, None)
    fn get_revoked<'py>(
        &self,
        py: Python<'py>,
        certificate: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let serial = match certificate.cast::<PyCertificate>() {
            Ok(c) => py_int(py, c.get().0.serial(), true)?,
            Err(_) => certificate.clone(),
        };
        for entry in self.revoked_certificates(py)? {
            if entry.getattr("serial_number")?.eq(&serial)? {
                return Ok(Some(entry));
            }
        }
        Ok(None)
    }

    /// Checks that `issuer` signed this CRL (SM2-with-SM3, default signer ID).
    ///
    /// Args:
    ///     issuer: the issuing CA `Certificate` (its subject must equal the CRL's issuer;
    ///         with a keyUsage extension it must allow cRLSign), or a bare
    ///         `guomi.sm2.PublicKey`.
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify (or the names differ).
    ///     InvalidArgument: the certificate's keyUsage lacks cRLSign.
    ///     TypeError: `issuer` is neither a certificate nor an SM2 public key.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> x509.CRLBuilder().sign(ca, key).verify_signature(ca)
    fn verify_signature(&self, py: Python<'_>, issuer: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check(py, issuer)?.py_err()
    }

    /// Whether `issuer` signed this CRL (`verify_signature` as a bool).
    ///
    /// Args:
    ///     issuer: the issuing CA `Certificate` or a `guomi.sm2.PublicKey`.
    ///
    /// Returns:
    ///     bool: `True` when the signature verifies.
    ///
    /// Raises:
    ///     TypeError: `issuer` is neither a certificate nor an SM2 public key.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
    ///     >>> crl = x509.CRLBuilder().sign(ca, key)
    ///     >>> crl.is_signature_valid(ca), crl.is_signature_valid(sm2.PrivateKey.generate().public_key())
    ///     (True, False)
    fn is_signature_valid(&self, py: Python<'_>, issuer: &Bound<'_, PyAny>) -> PyResult<bool> {
        match self.check(py, issuer)? {
            Ok(()) => Ok(true),
            Err(Error::InvalidSignature | Error::InvalidValue(_)) => Ok(false),
            Err(e) => Err(crate::error::to_py(e)),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyCrl>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        let h = guomi_core::sm3::hash(self.0.to_der());
        u64::from_be_bytes(h[..8].try_into().unwrap())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<guomi.x509.CertificateRevocationList issuer={} entries={}>",
            PyString::new(py, &self.0.issuer()).repr()?,
            self.0.revoked().py_err()?.len()
        ))
    }

    /// Pickles (and copies) by DER: `CertificateRevocationList.from_der(der)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let der = PyBytes::new(slf.py(), slf.get().0.to_der());
        Ok((slf.get_type().getattr("from_der")?, (der,)))
    }
}

/// A PKCS#10 certification request (immutable).
///
/// There is no constructor: read one with `from_pem` or `from_der`; make one with
/// `CertificateSigningRequestBuilder`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> csr = x509.CertificateSigningRequestBuilder(
///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
///     >>> csr.subject, csr.is_signature_valid
///     ('CN=a', True)
#[pyclass(module = "guomi.x509", name = "CertificateSigningRequest", frozen)]
pub struct PyRequest(CertificateRequest);

#[guard_panics]
#[pymethods]
impl PyRequest {
    /// Reads a DER request (strict).
    ///
    /// Args:
    ///     data: bytes-like DER.
    ///
    /// Returns:
    ///     CertificateSigningRequest: the request (its signature is not checked here).
    ///
    /// Raises:
    ///     UnsupportedFormat: malformed DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> x509.CertificateSigningRequest.from_der(csr.to_der()).subject
    ///     'CN=a'
    #[staticmethod]
    fn from_der(data: Bytes) -> PyResult<Self> {
        Ok(PyRequest(CertificateRequest::from_der(&data).py_err()?))
    }

    /// Reads the first `CERTIFICATE REQUEST` block of PEM text.
    ///
    /// Args:
    ///     data: PEM, `str` or `bytes`.
    ///
    /// Returns:
    ///     CertificateSigningRequest: the request (its signature is not checked here).
    ///
    /// Raises:
    ///     UnsupportedFormat: no request block, bad base64 or malformed DER.
    ///     TypeError: `data` is neither `str` nor bytes.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> x509.CertificateSigningRequest.from_pem(csr.to_pem()).subject
    ///     'CN=a'
    #[staticmethod]
    fn from_pem(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyRequest(
            CertificateRequest::from_pem(&text(data)?).py_err()?,
        ))
    }

    /// The request as DER.
    ///
    /// Returns:
    ///     bytes: the DER.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.to_der()[0]
    ///     48
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
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.to_pem().splitlines()[0]
    ///     '-----BEGIN CERTIFICATE REQUEST-----'
    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    /// The requested subject as an RFC 4514 string.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.subject
    ///     'CN=a'
    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    /// The signature algorithm OID, dotted.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.signature_algorithm_oid
    ///     '1.2.156.10197.1.501'
    #[getter]
    fn signature_algorithm_oid(&self) -> String {
        self.0.signature_algorithm()
    }

    /// Names requested in an extensionRequest attribute, as `(kind, value)` strings (as
    /// `Certificate.subject_alternative_names`; empty when none).
    ///
    /// Raises:
    ///     UnsupportedFormat: the attribute is malformed.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.subject_alternative_names
    ///     [('dns', 'a.example')]
    #[getter]
    fn subject_alternative_names(&self, py: Python<'_>) -> PyResult<Vec<(&'static str, String)>> {
        self.0
            .subject_alt_names()
            .py_err()?
            .iter()
            .map(|g| san_to_py(py, g))
            .collect()
    }

    /// The requested SM2 public key.
    ///
    /// Returns:
    ///     sm2.PublicKey: the key.
    ///
    /// Raises:
    ///     UnsupportedFormat: not an SM2 key.
    ///     InvalidKey: the point is not on the curve.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.public_key() == key.public_key()
    ///     True
    fn public_key(&self) -> PyResult<PyPublicKey> {
        Ok(PyPublicKey::from_core(self.0.public_key().py_err()?))
    }

    /// Checks the request's self-signature.
    ///
    /// Raises:
    ///     InvalidSignature: the signature does not verify.
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.verify()
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.0.verify()).py_err()
    }

    /// Whether the request's self-signature verifies (`verify` as a bool).
    ///
    /// Example:
    ///     >>> from guomi import sm2, x509
    ///     >>> key = sm2.PrivateKey.generate()
    ///     >>> csr = x509.CertificateSigningRequestBuilder(
    ///     ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
    ///     >>> csr.is_signature_valid
    ///     True
    #[getter]
    fn is_signature_valid(&self, py: Python<'_>) -> PyResult<bool> {
        match py.detach(|| self.0.verify()) {
            Ok(()) => Ok(true),
            Err(Error::InvalidSignature) => Ok(false),
            Err(e) => Err(crate::error::to_py(e)),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<guomi.x509.CertificateSigningRequest subject={}>",
            PyString::new(py, &self.0.subject()).repr()?
        ))
    }

    /// Pickles (and copies) by DER: `CertificateSigningRequest.from_der(der)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let der = PyBytes::new(slf.py(), slf.get().0.to_der());
        Ok((slf.get_type().getattr("from_der")?, (der,)))
    }
}

/// Every `CERTIFICATE` block of a PEM bundle, in order (other blocks are skipped).
///
/// Args:
///     data: PEM, `str` or `bytes`.
///
/// Returns:
///     list[Certificate]: the certificates (empty when there are none).
///
/// Raises:
///     UnsupportedFormat: bad base64 or malformed DER in a certificate block.
///     TypeError: `data` is neither `str` nor bytes.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
///     >>> len(x509.load_pem_certificates(cert.to_pem() + cert.to_pem()))
///     2
#[guard_panics]
#[pyfunction]
fn load_pem_certificates(data: &Bound<'_, PyAny>) -> PyResult<Vec<PyCertificate>> {
    Ok(Certificate::all_from_pem(&text(data)?)
        .py_err()?
        .into_iter()
        .map(PyCertificate)
        .collect())
}

/// Every `X509 CRL` block of PEM text, in order (other blocks are skipped).
///
/// Args:
///     data: PEM, `str` or `bytes`.
///
/// Returns:
///     list[CertificateRevocationList]: the CRLs (empty when there is none).
///
/// Raises:
///     UnsupportedFormat: bad base64 or malformed DER in a CRL block.
///     TypeError: `data` is neither `str` nor bytes.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
///     >>> pem = x509.CRLBuilder().sign(ca, key).to_pem() + ca.to_pem()
///     >>> len(x509.load_pem_crls(pem))
///     1
#[guard_panics]
#[pyfunction]
fn load_pem_crls(data: &Bound<'_, PyAny>) -> PyResult<Vec<PyCrl>> {
    Ok(Crl::all_from_pem(&text(data)?)
        .py_err()?
        .into_iter()
        .map(PyCrl)
        .collect())
}

/// Every PEM block of `data`, in order, as `(label, contents)`: the reader behind the key,
/// certificate and CRL loaders (one linear pass; strict base64 wrapped at any width; text
/// between blocks ignored). RFC 1421 headers (`Proc-Type: ...`) are not returned: a
/// caller for whom they matter reads keys with `guomi.keys`.
///
/// Args:
///     data: PEM, `str` or `bytes`.
///
/// Returns:
///     list[tuple[str, bytes]]: the label and the decoded contents of each block.
///
/// Raises:
///     UnsupportedFormat: a BEGIN line without its END line, or bad base64.
///     TypeError: `data` is neither `str` nor bytes.
///
/// Example:
///     >>> from guomi._native.x509 import pem_blocks
///     >>> pem_blocks("-----BEGIN X-----\nAAE=\n-----END X-----\n")
///     [('X', b'\x00\x01')]
#[guard_panics]
#[pyfunction]
fn pem_blocks<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
    Ok(core_x509::keys::pem_blocks(&text(data)?)
        .py_err()?
        .into_iter()
        .map(|b| (b.label, PyBytes::new(py, &b.der)))
        .collect())
}

/// Validates `leaf` up to one of `trust_roots` (RFC 5280 §6 subset) and returns the
/// path, leaf first.
///
/// Checked on every certificate: SM2-with-SM3 signature by the next one, issuer name =
/// next subject, validity at `at` (default now), no unknown critical extension; on
/// every issuer: basicConstraints cA=TRUE, pathLenConstraint, keyUsage keyCertSign. With
/// `purpose` (`"serverAuth"`, `"clientAuth"`, `"codeSigning"`, ... or a dotted
/// OID) the leaf's extKeyUsage, when present, must allow it. Raises
/// `CertificateVerificationError` whose `subject`, `reason`
/// and `depth` name the failing certificate.
///
/// Revocation (RFC 5280 §6.3, base CRLs): with `crls`, every certificate below the
/// trust root is looked up in the CRLs whose issuer is its issuer on the path. Such a
/// CRL must verify with that issuer's key, the issuer must allow cRLSign (when it has
/// keyUsage), the CRL must be current at `at` (last update ≤ `at` ≤ next update)
/// and carry no critical extension guomi does not implement (delta, partitioned,
/// indirect CRLs); otherwise the path fails, closed. A listed certificate fails with the
/// reason "revoked on <date> (CRL of ..., reason ...)". A certificate whose issuer has no
/// CRL among `crls` is not checked, unless `require_crls` is true (then it fails).
/// OCSP is not implemented.
///
/// The work is bounded whatever the input: the cheap checks run before any signature,
/// each (certificate, issuer key) signature is checked once, loops (a repeated subject
/// name and key) are cut, and a path has at most `MAX_PATH_LEN` certificates. More
/// than `MAX_CERTIFICATES` intermediates and roots, or a search needing more than
/// `MAX_SIGNATURE_CHECKS` signature checks or `MAX_CANDIDATE_STEPS`
/// candidates, raises `CertificateVerificationError` (for the leaf, depth 0) whose
/// reason says so ("too many certificates given", "certification path building gave
/// up: ...").
///
/// Args:
///     leaf: the end-entity `Certificate`.
///     intermediates: candidate intermediate certificates, in any order.
///     trust_roots: the trusted certificates.
///     at: the time to check validity at (`datetime`, naive means UTC); default now.
///     purpose: `None`, an extended key usage short name or a dotted OID.
///     crls: `CertificateRevocationList` objects to check revocation against (at
///         most `MAX_CRLS`; their signature checks count against
///         `MAX_SIGNATURE_CHECKS`).
///     require_crls: fail a certificate whose issuer has no CRL in `crls`.
///
/// Returns:
///     list[Certificate]: the path, leaf first, trust root last.
///
/// Raises:
///     CertificateVerificationError: no valid path, or a work bound was exceeded.
///     InvalidArgument: an unknown `purpose`.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> key = sm2.PrivateKey.generate()
///     >>> root = x509.CertificateBuilder(subject="CN=Root").ca().self_sign(key)
///     >>> other = x509.CertificateBuilder(subject="CN=Other").ca().self_sign(key)
///     >>> try:
///     ...     x509.verify_chain(root, [], [other])
///     ... except x509.CertificateVerificationError as e:
///     ...     print(e.depth, e.subject)
///     0 CN=Root
#[guard_panics]
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (leaf, intermediates, trust_roots, *, at=None, purpose=None, crls=None,
                    require_crls=false))]
fn verify_chain(
    py: Python<'_>,
    leaf: &PyCertificate,
    intermediates: Vec<PyRef<'_, PyCertificate>>,
    trust_roots: Vec<PyRef<'_, PyCertificate>>,
    at: Option<&Bound<'_, PyAny>>,
    purpose: Option<&str>,
    crls: Option<Vec<PyRef<'_, PyCrl>>>,
    require_crls: bool,
) -> PyResult<Vec<PyCertificate>> {
    let at = match at {
        Some(t) => unix_seconds(t)?,
        None => now_seconds(),
    };
    let purpose = purpose.map(core_x509::parse_eku).transpose().py_err()?;
    let ints: Vec<Certificate> = intermediates.iter().map(|c| c.0.clone()).collect();
    let roots: Vec<Certificate> = trust_roots.iter().map(|c| c.0.clone()).collect();
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
///     ca: the basicConstraints cA flag; `False` leaves the extension out (an end
///         entity; GmSSL 3.1.1 refuses the empty SEQUENCE of cA=FALSE).
///     path_length: pathLenConstraint, 0 to 255, or `None`.
///     key_usage: keyUsage bit names (empty omits the extension).
///     extended_key_usage: short names or dotted OIDs (empty omits the extension).
///     subject_alt_names: `(kind, value)` pairs, kind `"dns"`, `"email"`, `"uri"`,
///         `"dirname"`, `"rid"` (str) or `"ip"` (4 or 16 bytes).
///     key_identifiers: write subject and authority key identifiers.
///     request: a `CertificateSigningRequest` giving the subject, key and (unless
///         `subject_alt_names` is given) the names; its signature is checked.
///
/// Returns:
///     Certificate: the signed certificate.
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
///     >>> c.serial_number, c.subject
///     (1, 'CN=a')
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
    // An end entity gets no basicConstraints (GmSSL 3.1.1 refuses the empty SEQUENCE of
    // cA=FALSE); a path length without ca=True still reaches the builder's check.
    b.basic_constraints = (ca || path_length.is_some()).then_some((ca, path_length));
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
///     CertificateSigningRequest: the signed request.
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
///     issuer: the issuing CA `Certificate` (cRLSign when it has keyUsage).
///     signing_key: the CA's d (32 bytes); it must match `issuer`.
///     this_update: thisUpdate, Unix seconds.
///     next_update: nextUpdate, Unix seconds, or `None`.
///     crl_number: cRLNumber, big-endian bytes (at most 20; empty means 0).
///     revoked: `(serial, date, reason)` triples: serial big-endian positive bytes (at
///         most 20), date Unix seconds, reason a name (`"keyCompromise"`, ...) or `None`.
///
/// Returns:
///     CertificateRevocationList: the signed CRL.
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
///     >>> crl = build_crl(issuer=ca, signing_key=key.to_bytes(), this_update=0,
///     ...     next_update=None, crl_number=b"\x05", revoked=[(b"\x07", 0, "superseded")])
///     >>> [(e.serial_number, e.reason) for e in crl.revoked_certificates]
///     [(7, 'superseded')]
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
    m.add_function(wrap_pyfunction!(load_pem_certificates, m)?)?;
    m.add_function(wrap_pyfunction!(load_pem_crls, m)?)?;
    m.add_function(wrap_pyfunction!(pem_blocks, m)?)?;
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
