//! PKCS#10 certification requests (RFC 2986) signed with SM2-with-SM3 (default ID).
//!
//! ```text
//! CertificationRequest ::= SEQUENCE { certificationRequestInfo, signatureAlgorithm,
//!                                     signature BIT STRING }
//! CertificationRequestInfo ::= SEQUENCE { version INTEGER (0), subject Name,
//!                                         subjectPKInfo, attributes [0] }
//! ```
//! Subject alternative names travel in an extensionRequest attribute (RFC 2985 §5.4.2).

use super::cert::{check_sm2_signature, parse_name, signed_range, GeneralNameValue};
use super::{der_err, oid};
use der::asn1::{BitString, OctetString, SetOfVec};
use der::oid::AssociatedOid;
use der::{Decode, Encode};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::{PrivateKey, PublicKey, DEFAULT_UID};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::attr::Attribute;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::Extension;
use x509_cert::request::{CertReq, CertReqInfo, ExtensionReq, Version};

/// A parsed PKCS#10 request with its exact DER.
#[derive(Clone, Debug)]
pub struct CertificateRequest {
    inner: CertReq,
    der: Vec<u8>,
    info: core::ops::Range<usize>,
}

impl CertificateRequest {
    /// Parses DER.
    pub fn from_der(der: &[u8]) -> Result<Self> {
        let inner = CertReq::from_der(der).map_err(der_err)?;
        Ok(CertificateRequest {
            inner,
            der: der.to_vec(),
            info: signed_range(der)?,
        })
    }

    /// Parses the first "CERTIFICATE REQUEST" (or "NEW CERTIFICATE REQUEST") PEM block.
    pub fn from_pem(text: &str) -> Result<Self> {
        let blocks = super::keys::pem_blocks(text)?;
        let b = blocks
            .iter()
            .find(|b| b.label == "CERTIFICATE REQUEST" || b.label == "NEW CERTIFICATE REQUEST")
            .ok_or(Error::UnsupportedFormat("no PEM CERTIFICATE REQUEST block"))?;
        Self::from_der(&b.der)
    }

    /// DER encoding.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// PEM "CERTIFICATE REQUEST".
    pub fn to_pem(&self) -> Result<String> {
        super::keys::pem_encode("CERTIFICATE REQUEST", &self.der)
    }

    /// Subject (RFC 4514).
    pub fn subject(&self) -> String {
        self.inner.info.subject.to_string()
    }

    /// Subject Name (for issuing).
    pub(crate) fn subject_name(&self) -> &x509_cert::name::Name {
        &self.inner.info.subject
    }

    /// The requested SM2 public key.
    pub fn public_key(&self) -> Result<PublicKey> {
        PublicKey::from_spki_der(&self.inner.info.public_key.to_der().map_err(der_err)?)
    }

    /// Checks the self-signature with the request's own public key.
    pub fn verify(&self) -> Result<()> {
        check_sm2_signature(
            &self.inner.algorithm,
            &self.inner.signature,
            &self.der[self.info.clone()],
            &self.public_key()?,
        )
    }

    /// Signature algorithm OID.
    pub fn signature_algorithm(&self) -> String {
        self.inner.algorithm.oid.to_string()
    }

    /// Extensions requested through an extensionRequest attribute.
    pub fn requested_extensions(&self) -> Result<Vec<Extension>> {
        let mut out = Vec::new();
        for a in self.inner.info.attributes.iter() {
            if a.oid == ExtensionReq::OID {
                for v in a.values.iter() {
                    let req: ExtensionReq = v.decode_as().map_err(der_err)?;
                    out.extend(req.0);
                }
            }
        }
        Ok(out)
    }

    /// Subject alternative names requested, if any.
    pub fn subject_alt_names(&self) -> Result<Vec<GeneralNameValue>> {
        let mut out = Vec::new();
        for e in self.requested_extensions()? {
            if e.extn_id == SubjectAltName::OID {
                let san = SubjectAltName::from_der(e.extn_value.as_bytes()).map_err(der_err)?;
                out.extend(san.0.iter().map(GeneralNameValue::from_x509_pub));
            }
        }
        Ok(out)
    }
}

/// Builds a request: subject and optional subject alternative names.
#[derive(Clone, Debug)]
pub struct RequestBuilder {
    /// Subject name (RFC 4514 string, parsed by [`RequestBuilder::new`]).
    pub subject: x509_cert::name::Name,
    /// Subject alternative names to request.
    pub subject_alt_names: Vec<GeneralNameValue>,
}

impl RequestBuilder {
    /// A builder for `subject` ("CN=leaf,O=Example").
    pub fn new(subject: &str) -> Result<Self> {
        Ok(RequestBuilder {
            subject: parse_name(subject)?,
            subject_alt_names: Vec::new(),
        })
    }

    /// Signs the request with `key` (whose public key it requests).
    pub fn sign(&self, key: &PrivateKey) -> Result<CertificateRequest> {
        let spki = SubjectPublicKeyInfoOwned::from_der(&key.public_key().to_spki_der())
            .map_err(der_err)?;
        let mut attributes = SetOfVec::new();
        if !self.subject_alt_names.is_empty() {
            let names = self
                .subject_alt_names
                .iter()
                .map(|g| g.to_x509_pub())
                .collect::<Result<Vec<_>>>()?;
            let ext = Extension {
                extn_id: SubjectAltName::OID,
                critical: false,
                extn_value: OctetString::new(SubjectAltName(names).to_der().map_err(der_err)?)
                    .map_err(der_err)?,
            };
            let attr = Attribute::try_from(ExtensionReq(vec![ext])).map_err(der_err)?;
            attributes.insert(attr).map_err(der_err)?;
        }
        let info = CertReqInfo {
            version: Version::V1,
            subject: self.subject.clone(),
            public_key: spki,
            attributes,
        };
        let info_der = info.to_der().map_err(der_err)?;
        let sig = key.sign(&info_der, DEFAULT_UID)?;
        let req = CertReq {
            info,
            algorithm: AlgorithmIdentifierOwned {
                oid: oid::SM2_WITH_SM3,
                parameters: None,
            },
            signature: BitString::from_bytes(&sig.to_der()).map_err(der_err)?,
        };
        CertificateRequest::from_der(&req.to_der().map_err(der_err)?)
    }
}

impl super::cert::CertificateBuilder {
    /// A builder for the subject, public key and requested subject alternative names of
    /// `req`, whose signature is checked first (`Err(InvalidSignature)` otherwise).
    pub fn from_request(req: &CertificateRequest, not_before: i64, not_after: i64) -> Result<Self> {
        req.verify()?;
        let mut b = Self::new("CN=x", req.public_key()?, not_before, not_after)?;
        b.subject = req.subject_name().clone();
        b.subject_alt_names = req.subject_alt_names()?;
        Ok(b)
    }
}
