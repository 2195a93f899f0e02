//! `guomi._native.cms`: CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010) over the
//! `guomi-formats` crate's `cms` module. Private keys cross as their 32-byte d,
//! certificates as `Certificate`; `guomi/cms.py` is the public API.

use crate::buf::Bytes;
use crate::error::IntoPy;
use crate::x509::PyCertificate;
use guomi_core::sm2::PrivateKey;
use guomi_core::Error;
use guomi_formats::cms::{
    self as core_cms, ContentCipher, EncryptOptions, KeyFormat, OidStyle, SignatureOid,
    SignedDataBuilder, SignerId, SignerPurpose, VerifyError,
};
use guomi_formats::x509::{Certificate, ObjectIdentifier};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

pyo3::import_exception!(guomi.exceptions, CertificateVerificationError);

fn out<'py>(py: Python<'py>, der: Vec<u8>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
    match format {
        "der" => Ok(PyBytes::new(py, &der)),
        "pem" => Ok(PyBytes::new(
            py,
            core_cms::to_pem(&der).py_err()?.as_bytes(),
        )),
        _ => Err(Error::InvalidValue("format must be \"der\" or \"pem\"")).py_err(),
    }
}

fn certs(v: &[PyRef<'_, PyCertificate>]) -> Vec<Certificate> {
    v.iter().map(|c| c.0.clone()).collect()
}

/// Builds a SignedData (used by `guomi.cms.sign` and `guomi.cms.SignedDataBuilder`).
///
/// Args:
///     content: the content to sign.
///     signers: `(d, certificate, signed_attributes, signature_algorithm, identifier)`
///         tuples, 1 to 64: the private key (32 bytes), its `Certificate`, whether
///         to sign attributes (contentType, messageDigest, signingTime), `"sm2-with-sm3"`
///         or `"sm2"`, `"issuer_and_serial"` or `"subject_key_identifier"`.
///     certificates: extra certificates to include (at most 256 in all).
///     detached: leave the content out.
///     oid_style: `"rfc"` or `"gm"`.
///     signing_time: Unix seconds for the signingTime attribute, or `None` for none.
///     format: `"der"` or `"pem"` (ASCII bytes, label `CMS`).
///
/// Returns:
///     bytes: the ContentInfo.
///
/// Raises:
///     InvalidArgument: a bad option, no signer, too many signers or certificates, a
///         certificate without subjectKeyIdentifier when that identifier is asked for,
///         or a signer certificate whose keyUsage allows neither digitalSignature nor
///         nonRepudiation.
///     InvalidKey: a key that is invalid or does not match its certificate.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.cms import sign
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
///     >>> der = sign(b"hi", [(key.to_bytes(), cert, True, "sm2-with-sm3",
///     ...     "issuer_and_serial")], [], False, "rfc", None, "der")
///     >>> der[:1]
///     b'0'
#[guard_panics]
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[pyo3(signature = (content, signers, certificates, detached, oid_style, signing_time, format))]
fn sign<'py>(
    py: Python<'py>,
    content: Bytes,
    signers: Vec<(Bytes, PyRef<'py, PyCertificate>, bool, String, String)>,
    certificates: Vec<PyRef<'py, PyCertificate>>,
    detached: bool,
    oid_style: &str,
    signing_time: Option<i64>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let style = OidStyle::parse(oid_style).py_err()?;
    if format != "der" && format != "pem" {
        return Err(Error::InvalidValue("format must be \"der\" or \"pem\"")).py_err();
    }
    let mut b = SignedDataBuilder::new(&content, detached, style, signing_time);
    for (d, cert, attrs, alg, id) in &signers {
        let key = PrivateKey::from_bytes(d).py_err()?;
        b.add_signer(
            key,
            cert.0.clone(),
            *attrs,
            SignatureOid::parse(alg).py_err()?,
            SignerId::parse(id).py_err()?,
        )
        .py_err()?;
    }
    for c in &certificates {
        b.add_certificate(c.0.clone()).py_err()?;
    }
    let der = py.detach(|| b.build()).py_err()?;
    out(py, der, format)
}

/// Verifies a SignedData (DER, BER or PEM; used by `guomi.cms.verify`).
///
/// Args:
///     data: the SignedData.
///     content: the detached content, or `None` when it is attached.
///     trust_roots: `Certificate`s; when not empty every signer must chain to one.
///     intermediates: `Certificate`s to build paths (and find signers) with.
///     at: Unix time to check certificate validity at.
///     purpose: what every signer certificate must allow: `"smime"` (default),
///         `"any"`, `"codesign"` or `"timestamping"` (see `guomi.cms.verify`).
///
/// Returns:
///     tuple[bytes, list[Certificate], str]: content, signer certificates, OID
///     style (`"rfc"` or `"gm"`).
///
/// Raises:
///     InvalidSignature: a signature, messageDigest or contentType attribute does not
///         verify, there is no signer, or a content type other than data is not
///         covered by signed attributes.
///     UnsupportedFormat: malformed or unsupported structure (digest not SM3, ...).
///     InvalidArgument: content given for an attached SignedData or missing for a
///         detached one, or an unknown purpose.
///     CertificateVerificationError: a signer certificate is missing, does not allow
///         the purpose (keyUsage, extKeyUsage) or does not chain.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.cms import sign, verify
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
///     >>> der = sign(b"hi", [(key.to_bytes(), cert, True, "sm2-with-sm3",
///     ...     "issuer_and_serial")], [], False, "rfc", None, "der")
///     >>> verify(der, None, [], [], 0)[0]
///     b'hi'
#[guard_panics]
#[pyfunction]
#[allow(clippy::type_complexity)]
#[pyo3(signature = (data, content, trust_roots, intermediates, at, purpose="smime"))]
fn verify<'py>(
    py: Python<'py>,
    data: Bytes,
    content: Option<Bytes>,
    trust_roots: Vec<PyRef<'py, PyCertificate>>,
    intermediates: Vec<PyRef<'py, PyCertificate>>,
    at: i64,
    purpose: &str,
) -> PyResult<(Bound<'py, PyBytes>, Vec<PyCertificate>, &'static str)> {
    let purpose = SignerPurpose::parse(purpose).py_err()?;
    let roots = certs(&trust_roots);
    let ints = certs(&intermediates);
    let detached: Option<&[u8]> = content.as_deref();
    let res = py.detach(|| core_cms::verify_for(&data, detached, &roots, &ints, at, purpose));
    match res {
        Ok(v) => Ok((
            PyBytes::new(py, &v.content),
            v.signers.into_iter().map(PyCertificate).collect(),
            match v.oid_style {
                OidStyle::Rfc => "rfc",
                OidStyle::Gm => "gm",
            },
        )),
        Err(VerifyError::Cms(e)) => Err(e).py_err(),
        Err(VerifyError::Chain(e)) => {
            let err = CertificateVerificationError::new_err(e.to_string());
            let v = err.value(py);
            v.setattr("subject", &e.subject)?;
            v.setattr("reason", &e.reason)?;
            v.setattr("depth", e.depth)?;
            Err(err)
        }
    }
}

/// Encrypts to SM2 recipient certificates (used by `guomi.cms.encrypt`).
///
/// Args:
///     content: the plaintext.
///     recipients: 1 to 64 `Certificate`s.
///     cipher: `"sm4-cbc"` or `"sm4-gcm"`.
///     oid_style: `"rfc"` or `"gm"`.
///     key_format: `"der"` (GM/T 0009 SM2Cipher) or `"c1c3c2"` (raw, BouncyCastle's).
///     key_oid: the key-transport OID, `"1.2.156.10197.1.301.3"` or
///         `"1.2.156.10197.1.301.3.2.1"`.
///     identifier: `"issuer_and_serial"` or `"subject_key_identifier"`.
///     format: `"der"` or `"pem"`.
///
/// Returns:
///     bytes: the EnvelopedData ContentInfo.
///
/// Raises:
///     InvalidArgument: a bad option, no or too many recipients, or a recipient
///         certificate whose keyUsage lacks keyEncipherment.
///     InvalidKey: a recipient certificate without a valid SM2 key.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.cms import encrypt, decrypt
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
///     >>> der = encrypt(b"hi", [cert], "sm4-cbc", "rfc", "der",
///     ...     "1.2.156.10197.1.301.3.2.1", "issuer_and_serial", "der")
///     >>> decrypt(der, key.to_bytes(), None)
///     b'hi'
#[guard_panics]
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (content, recipients, cipher, oid_style, key_format, key_oid, identifier, format))]
fn encrypt<'py>(
    py: Python<'py>,
    content: Bytes,
    recipients: Vec<PyRef<'py, PyCertificate>>,
    cipher: &str,
    oid_style: &str,
    key_format: &str,
    key_oid: &str,
    identifier: &str,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = EncryptOptions {
        cipher: ContentCipher::parse(cipher).py_err()?,
        style: OidStyle::parse(oid_style).py_err()?,
        key_format: KeyFormat::parse(key_format).py_err()?,
        key_oid: ObjectIdentifier::new(key_oid)
            .map_err(|_| Error::InvalidValue("key_oid must be a dotted OID"))
            .py_err()?,
        recipient_id: SignerId::parse(identifier).py_err()?,
    };
    if format != "der" && format != "pem" {
        return Err(Error::InvalidValue("format must be \"der\" or \"pem\"")).py_err();
    }
    let rs = certs(&recipients);
    let der = py
        .detach(|| core_cms::encrypt(&content, &rs, &opts))
        .py_err()?;
    out(py, der, format)
}

/// Decrypts an EnvelopedData (DER, BER or PEM; used by `guomi.cms.decrypt`).
///
/// Args:
///     data: the EnvelopedData.
///     key: the recipient's private key d (32 bytes).
///     certificate: the recipient's `Certificate` (selects its recipient info), or
///         `None` to try every SM2 recipient info.
///
/// Returns:
///     bytes: the content.
///
/// Raises:
///     DecryptionError: any failure once the structure is parsed (wrong key, no
///         matching recipient, bad padding or tag, tampered ciphertext).
///     UnsupportedFormat: malformed or unsupported structure.
///     InvalidKey: an invalid key, or a certificate that is not the key's.
///     InvalidArgument: a certificate whose keyUsage lacks keyEncipherment.
///
/// Example:
///     >>> from guomi import sm2, x509
///     >>> from guomi._native.cms import encrypt, decrypt
///     >>> key = sm2.PrivateKey.generate()
///     >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
///     >>> der = encrypt(b"hi", [cert], "sm4-gcm", "gm", "der",
///     ...     "1.2.156.10197.1.301.3", "issuer_and_serial", "pem")
///     >>> decrypt(der, key.to_bytes(), cert)
///     b'hi'
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (data, key, certificate))]
fn decrypt<'py>(
    py: Python<'py>,
    data: Bytes,
    key: Bytes,
    certificate: Option<PyRef<'py, PyCertificate>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = PrivateKey::from_bytes(&key).py_err()?;
    let cert = certificate.map(|c| c.0.clone());
    let pt = py
        .detach(|| core_cms::decrypt(&data, &key, cert.as_ref()))
        .py_err()?;
    Ok(PyBytes::new(py, &pt))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sign, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt, m)?)?;
    m.add("MAX_INPUT", guomi_formats::ber::MAX_INPUT)?;
    m.add("MAX_DEPTH", guomi_formats::ber::MAX_DEPTH)?;
    m.add("MAX_SIGNERS", core_cms::MAX_SIGNERS)?;
    m.add("MAX_RECIPIENTS", core_cms::MAX_RECIPIENTS)?;
    m.add("MAX_CERTIFICATES", core_cms::MAX_CERTIFICATES)?;
    m.add("MAX_ATTRIBUTES", core_cms::MAX_ATTRIBUTES)?;
    Ok(())
}
