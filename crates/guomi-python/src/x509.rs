//! `guomi._native.x509`: protected private keys, SM2 X.509 certificates, certification
//! paths and PKCS#10 requests (see the core's `x509` module). Keys cross this boundary
//! as bytes (d: 32 bytes; public keys: 65-byte `04||x||y`); `guomi/x509.py` and
//! `guomi/keys.py` turn them into `guomi.sm2` key objects.

use crate::buf::Bytes;
use crate::error::IntoPy;
use guomi_core::sm2::{PrivateKey, PublicKey};
use guomi_core::x509::{
    self as core_x509, Certificate, CertificateBuilder, CertificateRequest, GeneralNameValue,
    KeyUsageFlags, RequestBuilder,
};
use guomi_core::Error;
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

/// An X.509 certificate (immutable).
#[pyclass(module = "guomi.x509", name = "NativeCertificate", frozen)]
pub struct PyCertificate(Certificate);

#[guard_panics]
#[pymethods]
impl PyCertificate {
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_der(&der).py_err()?))
    }

    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyCertificate(Certificate::from_pem(&text(pem)?).py_err()?))
    }

    /// Every CERTIFICATE block of a PEM bundle.
    #[staticmethod]
    fn all_from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        Ok(Certificate::all_from_pem(&text(pem)?)
            .py_err()?
            .into_iter()
            .map(PyCertificate)
            .collect())
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    #[getter]
    fn version(&self) -> u8 {
        self.0.version()
    }

    #[getter]
    fn serial<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.serial())
    }

    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    #[getter]
    fn issuer(&self) -> String {
        self.0.issuer()
    }

    #[getter]
    fn subject_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.subject_der().py_err()?))
    }

    #[getter]
    fn issuer_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.0.issuer_der().py_err()?))
    }

    #[getter]
    fn not_before(&self) -> i64 {
        self.0.not_before()
    }

    #[getter]
    fn not_after(&self) -> i64 {
        self.0.not_after()
    }

    #[getter]
    fn signature_algorithm(&self) -> String {
        self.0.signature_algorithm()
    }

    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.signature())
    }

    #[getter]
    fn tbs_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.tbs_der())
    }

    /// The subject public key as 65 bytes (04||x||y).
    fn public_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(
            py,
            &self.0.public_key().py_err()?.to_uncompressed(),
        ))
    }

    fn fingerprint_sm3<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.fingerprint_sm3())
    }

    /// [(oid, critical, value)].
    fn extensions<'py>(&self, py: Python<'py>) -> Vec<(String, bool, Bound<'py, PyBytes>)> {
        self.0
            .extensions()
            .into_iter()
            .map(|(o, c, v)| (o, c, PyBytes::new(py, &v)))
            .collect()
    }

    fn basic_constraints(&self) -> PyResult<Option<(bool, Option<u8>)>> {
        self.0.basic_constraints().py_err()
    }

    fn key_usage(&self) -> PyResult<Option<Vec<&'static str>>> {
        Ok(self.0.key_usage().py_err()?.map(|k| k.names()))
    }

    fn extended_key_usage(&self) -> PyResult<Option<Vec<String>>> {
        Ok(self
            .0
            .extended_key_usage()
            .py_err()?
            .map(|v| v.iter().map(core_x509::eku_name).collect()))
    }

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

    fn subject_key_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .subject_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    fn authority_key_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(self
            .0
            .authority_key_id()
            .py_err()?
            .map(|v| PyBytes::new(py, &v)))
    }

    #[getter]
    fn is_self_issued(&self) -> bool {
        self.0.is_self_issued()
    }

    /// Raises InvalidSignature unless `issuer` signed this certificate.
    fn verify_signature(&self, py: Python<'_>, issuer: &PyCertificate) -> PyResult<()> {
        py.detach(|| self.0.verify_signature(&issuer.0)).py_err()
    }

    /// Raises InvalidSignature unless the SM2 key (65/64/33 bytes) verifies it.
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

/// A PKCS#10 certification request (immutable).
#[pyclass(module = "guomi.x509", name = "NativeCertificateRequest", frozen)]
pub struct PyRequest(CertificateRequest);

#[guard_panics]
#[pymethods]
impl PyRequest {
    #[staticmethod]
    fn from_der(der: Bytes) -> PyResult<Self> {
        Ok(PyRequest(CertificateRequest::from_der(&der).py_err()?))
    }

    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyRequest(
            CertificateRequest::from_pem(&text(pem)?).py_err()?,
        ))
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.to_der())
    }

    fn to_pem(&self) -> PyResult<String> {
        self.0.to_pem().py_err()
    }

    #[getter]
    fn subject(&self) -> String {
        self.0.subject()
    }

    #[getter]
    fn signature_algorithm(&self) -> String {
        self.0.signature_algorithm()
    }

    fn public_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(
            py,
            &self.0.public_key().py_err()?.to_uncompressed(),
        ))
    }

    fn subject_alt_names(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.0
            .subject_alt_names()
            .py_err()?
            .iter()
            .map(|g| san_to_py(py, g))
            .collect()
    }

    /// Raises InvalidSignature unless the self-signature verifies.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.0.verify()).py_err()
    }
}

/// Validates a path; returns it (leaf first) or raises CertificateVerificationError with
/// `subject`, `reason` and `depth` attributes.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (leaf, intermediates, roots, at, purpose=None))]
fn verify_chain(
    py: Python<'_>,
    leaf: &PyCertificate,
    intermediates: Vec<PyRef<'_, PyCertificate>>,
    roots: Vec<PyRef<'_, PyCertificate>>,
    at: i64,
    purpose: Option<&str>,
) -> PyResult<Vec<PyCertificate>> {
    let purpose = purpose.map(core_x509::parse_eku).transpose().py_err()?;
    let ints: Vec<Certificate> = intermediates.iter().map(|c| c.0.clone()).collect();
    let roots: Vec<Certificate> = roots.iter().map(|c| c.0.clone()).collect();
    let leaf = leaf.0.clone();
    match py.detach(|| core_x509::verify_chain(&leaf, &ints, &roots, at, purpose)) {
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

/// Builds and signs a certificate. `issuer=None` self-signs with `signing_key` (d),
/// which must then belong to `public_key`.
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

/// Builds and signs a PKCS#10 request with `signing_key` (d).
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCertificate>()?;
    m.add_class::<PyRequest>()?;
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
