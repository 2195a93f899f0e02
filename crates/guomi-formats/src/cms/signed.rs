//! SignedData (RFC 5652 §5) with SM3 digests and SM2 signatures (GM/T 0010-2012 §8).
//!
//! Signing: the messageDigest attribute is SM3(content); the SM2 signature (default
//! signer ID `1234567812345678`, GM/T 0009) is over the DER of the signed attributes
//! encoded as a SET OF (RFC 5652 §5.4), or over the content itself when there are no
//! signed attributes.
//!
//! Verification raises on any failure: a SignedData verifies only when every SignerInfo
//! does, and, given trust roots, when every signer's certificate chains to one of them.

use super::usage::SignerPurpose;
use super::{oid, OidStyle, MAX_ATTRIBUTES, MAX_CERTIFICATES, MAX_SIGNERS};
use crate::asn1::{self, ctx_cons, ctx_prim, parse_alg, Tlv};
use crate::asn1::{INTEGER, OCTET_STRING, SEQUENCE, SET};
use crate::x509::{verify_chain, Certificate, ChainError};
use der::oid::ObjectIdentifier;
use der::Encode;
use guomi_core::sm2::{PrivateKey, Signature, DEFAULT_UID};
use guomi_core::{sm3, Error, Result};
use subtle::ConstantTimeEq;

/// The signature algorithm OID written in a SignerInfo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureOid {
    /// 1.2.156.10197.1.501 (SM2-with-SM3): what BouncyCastle and OpenSSL write and need.
    Sm2WithSm3,
    /// 1.2.156.10197.1.301.1 (sm2sign): what gmsm's `pkcs7` writes and needs.
    Sm2,
}

impl SignatureOid {
    /// Parses "sm2-with-sm3" (1.2.156.10197.1.501) or "sm2" (1.2.156.10197.1.301.1).
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "sm2-with-sm3" | "1.2.156.10197.1.501" => Ok(SignatureOid::Sm2WithSm3),
            "sm2" | "1.2.156.10197.1.301.1" => Ok(SignatureOid::Sm2),
            _ => Err(Error::InvalidValue(
                "signature_algorithm must be \"sm2-with-sm3\" (1.2.156.10197.1.501) or \"sm2\" \
                 (1.2.156.10197.1.301.1)",
            )),
        }
    }

    fn oid(self) -> ObjectIdentifier {
        match self {
            SignatureOid::Sm2WithSm3 => oid::SM2_WITH_SM3,
            SignatureOid::Sm2 => oid::SM2_SIGN,
        }
    }
}

/// How a SignerInfo (or RecipientInfo) names its certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignerId {
    /// issuerAndSerialNumber (version 1 SignerInfo; version 0 RecipientInfo).
    IssuerAndSerial,
    /// subjectKeyIdentifier (version 3 SignerInfo; version 2 RecipientInfo): the
    /// certificate must have the extension.
    SubjectKeyId,
}

impl SignerId {
    /// Parses "issuer_and_serial" or "subject_key_identifier".
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "issuer_and_serial" | "issuer-and-serial" => Ok(SignerId::IssuerAndSerial),
            "subject_key_identifier" | "subject-key-identifier" | "ski" => {
                Ok(SignerId::SubjectKeyId)
            }
            _ => Err(Error::InvalidValue(
                "identifier must be \"issuer_and_serial\" or \"subject_key_identifier\"",
            )),
        }
    }
}

/// The encoded SignerIdentifier / RecipientIdentifier of `cert`.
pub(crate) fn identifier(cert: &Certificate, id: SignerId) -> Result<Vec<u8>> {
    match id {
        SignerId::IssuerAndSerial => Ok(asn1::cons(
            SEQUENCE,
            &[&cert.issuer_der()?, &asn1::tlv(INTEGER, cert.serial())?],
        )?),
        SignerId::SubjectKeyId => {
            let ski = cert.subject_key_id()?.ok_or(Error::InvalidValue(
                "the certificate has no subjectKeyIdentifier extension",
            ))?;
            Ok(asn1::tlv(ctx_prim(0), &ski)?)
        }
    }
}

/// Whether `cert` is the one `id` (an encoded identifier as read) names.
pub(crate) fn matches(cert: &Certificate, id: &Tlv<'_>) -> bool {
    match id.tag {
        SEQUENCE => identifier(cert, SignerId::IssuerAndSerial)
            .map(|mine| mine == id.raw)
            .unwrap_or(false),
        t if t == ctx_prim(0) => matches!(cert.subject_key_id(), Ok(Some(k)) if k == id.content),
        _ => false,
    }
}

/// Checks the form of a read identifier (issuerAndSerialNumber or [0] keyIdentifier).
pub(crate) fn check_identifier(id: &Tlv<'_>) -> Result<()> {
    match id.tag {
        SEQUENCE => {
            let mut r = id.reader();
            r.next(SEQUENCE, "issuerAndSerialNumber: issuer must be a Name")?;
            r.next(INTEGER, "issuerAndSerialNumber: serial must be an INTEGER")?;
            r.finish()
        }
        t if t == ctx_prim(0) => Ok(()),
        _ => Err(asn1::bad("unsupported signer/recipient identifier")),
    }
}

struct Signer {
    key: PrivateKey,
    cert: Certificate,
    signed_attributes: bool,
    signature_oid: SignatureOid,
    id: SignerId,
}

/// Builds a SignedData with one or more SM2 signers.
pub struct SignedDataBuilder {
    content: Vec<u8>,
    detached: bool,
    style: OidStyle,
    signing_time: Option<i64>,
    signers: Vec<Signer>,
    certificates: Vec<Certificate>,
}

impl SignedDataBuilder {
    /// A builder for `content`, attached unless `detached`, with `style`'s OIDs.
    /// `signing_time` (Unix seconds) is written as the signingTime attribute of signers
    /// with signed attributes (`None`: no signingTime attribute).
    pub fn new(content: &[u8], detached: bool, style: OidStyle, signing_time: Option<i64>) -> Self {
        SignedDataBuilder {
            content: content.to_vec(),
            detached,
            style,
            signing_time,
            signers: Vec::new(),
            certificates: Vec::new(),
        }
    }

    /// Adds a signer: its private key and certificate (whose public key must be the
    /// key's). With `signed_attributes` the signature covers contentType, messageDigest
    /// (and signingTime); without, it covers the content directly.
    pub fn add_signer(
        &mut self,
        key: PrivateKey,
        cert: Certificate,
        signed_attributes: bool,
        signature_oid: SignatureOid,
        id: SignerId,
    ) -> Result<&mut Self> {
        if self.signers.len() == MAX_SIGNERS {
            return Err(Error::InvalidValue("at most 64 signers"));
        }
        if cert.public_key()?.to_uncompressed() != key.public_key().to_uncompressed() {
            return Err(Error::InvalidKey(
                "the private key does not match the certificate's public key",
            ));
        }
        // A signature no verifier would accept is refused now (keyUsage without
        // digitalSignature or nonRepudiation; see [`super::usage`]).
        if super::usage::may_sign(&cert).is_err() {
            return Err(Error::InvalidValue(
                "the signer certificate's keyUsage allows neither digitalSignature nor \
                 nonRepudiation: its key may not sign (use the signing certificate of the pair)",
            ));
        }
        identifier(&cert, id)?;
        self.signers.push(Signer {
            key,
            cert,
            signed_attributes,
            signature_oid,
            id,
        });
        Ok(self)
    }

    /// Adds a signer without any check (tests build hostile SignedData with it).
    #[cfg(test)]
    pub(crate) fn add_signer_unchecked(&mut self, key: PrivateKey, cert: Certificate) {
        self.signers.push(Signer {
            key,
            cert,
            signed_attributes: true,
            signature_oid: SignatureOid::Sm2WithSm3,
            id: SignerId::IssuerAndSerial,
        });
    }

    /// Adds a certificate to the `certificates` field (e.g. intermediates). The signers'
    /// certificates are always included.
    pub fn add_certificate(&mut self, cert: Certificate) -> Result<&mut Self> {
        if self.certificates.len() + self.signers.len() >= MAX_CERTIFICATES {
            return Err(Error::InvalidValue("at most 256 certificates"));
        }
        self.certificates.push(cert);
        Ok(self)
    }

    /// The DER ContentInfo.
    pub fn build(&self) -> Result<Vec<u8>> {
        if self.signers.is_empty() {
            return Err(Error::InvalidValue(
                "a SignedData needs at least one signer",
            ));
        }
        let data_oid = self.style.data();
        let sm3_alg = asn1::alg(&oid::SM3)?;
        let digest = sm3::hash(&self.content);
        let mut infos = Vec::with_capacity(self.signers.len());
        for s in &self.signers {
            let mut parts: Vec<Vec<u8>> = vec![
                asn1::uint(match s.id {
                    SignerId::IssuerAndSerial => 1,
                    SignerId::SubjectKeyId => 3,
                })?,
                identifier(&s.cert, s.id)?,
                sm3_alg.clone(),
            ];
            let signed: Vec<u8> = if s.signed_attributes {
                let mut attrs = vec![
                    attribute(&oid::CONTENT_TYPE, &asn1::oid(&data_oid)?)?,
                    attribute(&oid::MESSAGE_DIGEST, &asn1::tlv(OCTET_STRING, &digest)?)?,
                ];
                if let Some(t) = self.signing_time {
                    let time = crate::x509::cert::x509_time(t)?
                        .to_der()
                        .map_err(crate::x509::der_err)?;
                    attrs.push(attribute(&oid::SIGNING_TIME, &time)?);
                }
                let set = asn1::set_of(&attrs)?;
                // [0] IMPLICIT in the SignerInfo, SET OF (0x31) under the signature.
                let mut implicit = set.clone();
                implicit[0] = ctx_cons(0);
                parts.push(implicit);
                set
            } else {
                self.content.clone()
            };
            let sig = s.key.sign(&signed, DEFAULT_UID)?;
            parts.push(asn1::alg(&s.signature_oid.oid())?);
            parts.push(asn1::tlv(OCTET_STRING, &sig.to_der())?);
            let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
            infos.push(asn1::cons(SEQUENCE, &refs)?);
        }
        let any_v3 = self.signers.iter().any(|s| s.id == SignerId::SubjectKeyId);
        // RFC 5652 §5.1: 3 with a v3 SignerInfo or a content type other than id-data;
        // GM/T 0010-2012 §8.1 writes 1.
        let version = if any_v3 || (self.style == OidStyle::Rfc && data_oid != oid::DATA) {
            3
        } else {
            1
        };
        let mut encap = vec![asn1::oid(&data_oid)?];
        if !self.detached {
            encap.push(asn1::tlv(
                ctx_cons(0),
                &asn1::tlv(OCTET_STRING, &self.content)?,
            )?);
        }
        let encap_refs: Vec<&[u8]> = encap.iter().map(|p| p.as_slice()).collect();
        let mut certs: Vec<Vec<u8>> = Vec::new();
        for c in self
            .signers
            .iter()
            .map(|s| &s.cert)
            .chain(&self.certificates)
        {
            let d = c.to_der().to_vec();
            if !certs.contains(&d) {
                certs.push(d);
            }
        }
        let mut cert_set = asn1::set_of(&certs)?;
        cert_set[0] = ctx_cons(0);
        let sd = asn1::cons(
            SEQUENCE,
            &[
                &asn1::uint(version)?,
                &asn1::set_of(&[sm3_alg])?,
                &asn1::cons(SEQUENCE, &encap_refs)?,
                &cert_set,
                &asn1::set_of(&infos)?,
            ],
        )?;
        super::content_info(&self.style.signed_data(), &sd)
    }
}

/// Attribute ::= SEQUENCE { attrType, attrValues SET OF AttributeValue } (one value).
fn attribute(t: &ObjectIdentifier, value: &[u8]) -> Result<Vec<u8>> {
    asn1::cons(SEQUENCE, &[&asn1::oid(t)?, &asn1::tlv(SET, value)?])
}

/// A verified SignedData.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The signed content (attached, or the detached content given).
    pub content: Vec<u8>,
    /// Each signer's certificate, in SignerInfo order.
    pub signers: Vec<Certificate>,
    /// The content-type OIDs the SignedData used.
    pub oid_style: OidStyle,
}

/// Why a SignedData did not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// A malformed structure ([`Error::UnsupportedFormat`]), a bad signature or message
    /// digest ([`Error::InvalidSignature`]), a wrong argument ([`Error::InvalidValue`]).
    Cms(Error),
    /// A signer's certificate is missing or does not chain to a trust root.
    Chain(ChainError),
}

impl From<Error> for VerifyError {
    fn from(e: Error) -> Self {
        VerifyError::Cms(e)
    }
}

impl core::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            VerifyError::Cms(e) => e.fmt(f),
            VerifyError::Chain(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for VerifyError {}

fn check_sm3(t: Tlv<'_>) -> Result<()> {
    let (o, params) = parse_alg(t)?;
    if o != oid::SM3 || params.is_some() {
        return Err(Error::UnsupportedFormat(
            "digest algorithm is not SM3 (1.2.156.10197.1.401)",
        ));
    }
    Ok(())
}

struct SignerInfo<'a> {
    id: Tlv<'a>,
    signed_attrs: Option<Tlv<'a>>,
    signature: &'a [u8],
}

fn parse_signer_info<'a>(t: Tlv<'a>) -> Result<SignerInfo<'a>> {
    let t = t.expect(SEQUENCE, "SignerInfo must be a SEQUENCE")?;
    let mut r = t.reader();
    let version = r.any()?.small_uint()?;
    let id = r.any()?;
    check_identifier(&id)?;
    match (version, id.tag) {
        (1, SEQUENCE) | (3, 0x80) => {}
        _ => {
            return Err(asn1::bad(
                "SignerInfo version does not match its identifier",
            ))
        }
    }
    check_sm3(r.any()?)?;
    let signed_attrs = r.optional(ctx_cons(0))?;
    let (sig_oid, params) = parse_alg(r.any()?)?;
    if (sig_oid != oid::SM2_WITH_SM3 && sig_oid != oid::SM2_SIGN) || params.is_some() {
        return Err(Error::UnsupportedFormat(
            "signature algorithm is not SM2 (1.2.156.10197.1.501 or 1.2.156.10197.1.301.1)",
        ));
    }
    let signature = r.next(OCTET_STRING, "SignerInfo signature must be an OCTET STRING")?;
    let _unsigned = r.optional(ctx_cons(1))?;
    r.finish()?;
    Ok(SignerInfo {
        id,
        signed_attrs,
        signature: signature.content,
    })
}

/// The single value of attribute `t` in `attrs`, if present (each type at most once).
fn attribute_value<'a>(
    attrs: &[(ObjectIdentifier, Vec<Tlv<'a>>)],
    t: &ObjectIdentifier,
) -> Result<Option<Tlv<'a>>> {
    let mut found = attrs.iter().filter(|(o, _)| o == t);
    let Some((_, values)) = found.next() else {
        return Ok(None);
    };
    if found.next().is_some() || values.len() != 1 {
        return Err(Error::InvalidSignature);
    }
    Ok(Some(values[0]))
}

/// Checks one SignerInfo against `content` with `cert`'s key.
fn check_signer(
    si: &SignerInfo<'_>,
    cert: &Certificate,
    content: &[u8],
    e_type: &ObjectIdentifier,
) -> Result<()> {
    let key = cert.public_key()?;
    let sig = Signature::from_der(si.signature).map_err(|_| Error::InvalidSignature)?;
    let Some(attrs) = si.signed_attrs else {
        // RFC 5652 §5.3: signedAttrs MUST be present when the content type is not
        // id-data; without them the signature does not cover the eContentType.
        if *e_type != oid::DATA && *e_type != oid::GM_DATA {
            return Err(Error::InvalidSignature);
        }
        return if key.verify(content, DEFAULT_UID, &sig) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        };
    };
    let items = attrs
        .reader()
        .all(MAX_ATTRIBUTES, "too many signed attributes (at most 64)")?;
    let mut parsed = Vec::with_capacity(items.len());
    for a in &items {
        let a = a.expect(SEQUENCE, "Attribute must be a SEQUENCE")?;
        let mut r = a.reader();
        let t = r.any()?.oid()?;
        let values = r
            .next(SET, "Attribute values must be a SET")?
            .reader()
            .all(MAX_ATTRIBUTES, "too many attribute values")?;
        r.finish()?;
        parsed.push((t, values));
    }
    // RFC 5652 §5.3: contentType and messageDigest are required with signed attributes.
    let ct = attribute_value(&parsed, &oid::CONTENT_TYPE)?.ok_or(Error::InvalidSignature)?;
    if ct.oid().map_err(|_| Error::InvalidSignature)? != *e_type {
        return Err(Error::InvalidSignature);
    }
    let md = attribute_value(&parsed, &oid::MESSAGE_DIGEST)?.ok_or(Error::InvalidSignature)?;
    let computed = sm3::hash(content);
    if md.tag != OCTET_STRING || !bool::from(md.content.ct_eq(&computed[..])) {
        return Err(Error::InvalidSignature);
    }
    // The signature covers the DER of the attributes as a SET OF (RFC 5652 §5.4).
    let sorted = asn1::set_of(&items.iter().map(|a| a.raw).collect::<Vec<_>>())?;
    if key.verify(&sorted, DEFAULT_UID, &sig) {
        return Ok(());
    }
    // A signer that did not sort its SET OF signed the order it wrote.
    let as_written = asn1::tlv(SET, attrs.content)?;
    if as_written != sorted && key.verify(&as_written, DEFAULT_UID, &sig) {
        return Ok(());
    }
    Err(Error::InvalidSignature)
}

fn chain_error(reason: &str) -> VerifyError {
    VerifyError::Chain(ChainError {
        subject: String::new(),
        reason: reason.to_string(),
        depth: 0,
    })
}

/// Verifies a SignedData (DER, BER or PEM) for the S/MIME signing purpose
/// ([`verify_for`] with [`SignerPurpose::Smime`]).
pub fn verify(
    data: &[u8],
    detached: Option<&[u8]>,
    trust_roots: &[Certificate],
    intermediates: &[Certificate],
    at: i64,
) -> core::result::Result<Verified, VerifyError> {
    verify_for(
        data,
        detached,
        trust_roots,
        intermediates,
        at,
        SignerPurpose::Smime,
    )
}

/// Verifies a SignedData (DER, BER or PEM). `detached` is the content of a detached
/// SignedData (an error when the content is attached). Every signer must verify, and
/// every signer's certificate must allow `purpose` (keyUsage, extKeyUsage: see
/// [`super::usage`]; else [`VerifyError::Chain`] naming it); with `trust_roots`, every
/// signer's certificate must also chain to one of them at Unix time `at` (through
/// `intermediates` and the SignedData's certificates). The signer's certificate is
/// looked up in the SignedData's certificates, `intermediates` and `trust_roots`.
pub fn verify_for(
    data: &[u8],
    detached: Option<&[u8]>,
    trust_roots: &[Certificate],
    intermediates: &[Certificate],
    at: i64,
    purpose: SignerPurpose,
) -> core::result::Result<Verified, VerifyError> {
    let der = super::read_input(data)?;
    let (ct, sd) = super::open_content_info(&der)?;
    let style = if ct == oid::SIGNED_DATA {
        OidStyle::Rfc
    } else if ct == oid::GM_SIGNED_DATA {
        OidStyle::Gm
    } else {
        return Err(Error::UnsupportedFormat("not a CMS SignedData").into());
    };
    let sd = sd.expect(SEQUENCE, "SignedData must be a SEQUENCE")?;
    let mut r = sd.reader();
    let version = r.any()?.small_uint()?;
    if !(1..=5).contains(&version) {
        return Err(Error::UnsupportedFormat("unsupported SignedData version").into());
    }
    let algs = r.next(SET, "SignedData digestAlgorithms must be a SET")?;
    for a in algs
        .reader()
        .all(MAX_SIGNERS, "too many digest algorithms")?
    {
        check_sm3(a)?;
    }
    let encap = r.next(SEQUENCE, "EncapsulatedContentInfo must be a SEQUENCE")?;
    let mut er = encap.reader();
    let e_type = er.any()?.oid()?;
    let attached = match er.optional(ctx_cons(0))? {
        Some(w) => {
            let mut wr = w.reader();
            let o = wr.next(OCTET_STRING, "eContent must be an OCTET STRING")?;
            wr.finish()?;
            Some(o.content)
        }
        None => None,
    };
    er.finish()?;
    let content: &[u8] = match (attached, detached) {
        (Some(c), None) => c,
        (None, Some(c)) => c,
        (Some(_), Some(_)) => {
            return Err(Error::InvalidValue(
                "the SignedData has its content attached: do not pass content",
            )
            .into())
        }
        (None, None) => {
            return Err(
                Error::InvalidValue("the SignedData is detached: pass the signed content").into(),
            )
        }
    };
    let mut embedded = Vec::new();
    if let Some(certs) = r.optional(ctx_cons(0))? {
        for c in certs
            .reader()
            .all(MAX_CERTIFICATES, "too many certificates (at most 256)")?
        {
            // Other CertificateChoices (attribute certificates, [1]..[3]) are skipped.
            if c.tag == SEQUENCE {
                embedded.push(Certificate::from_der(c.raw)?);
            }
        }
    }
    let _crls = r.optional(ctx_cons(1))?;
    let infos = r
        .next(SET, "SignedData signerInfos must be a SET")?
        .reader()
        .all(MAX_SIGNERS, "too many signers (at most 64)")?;
    r.finish()?;
    if infos.is_empty() {
        return Err(Error::InvalidSignature.into());
    }
    let mut signers = Vec::with_capacity(infos.len());
    for t in infos {
        let si = parse_signer_info(t)?;
        let cert = embedded
            .iter()
            .chain(intermediates)
            .chain(trust_roots)
            .find(|c| matches(c, &si.id))
            .ok_or_else(|| {
                chain_error(
                    "signer certificate not found (not in the SignedData, intermediates or \
                     trust_roots)",
                )
            })?;
        check_signer(&si, cert, content, &e_type)?;
        super::usage::check_signer(cert, purpose).map_err(VerifyError::Chain)?;
        signers.push(cert.clone());
    }
    if !trust_roots.is_empty() {
        let mut pool: Vec<Certificate> = intermediates.to_vec();
        pool.extend(embedded.iter().cloned());
        for s in &signers {
            verify_chain(s, &pool, trust_roots, at, None).map_err(VerifyError::Chain)?;
        }
    }
    Ok(Verified {
        content: content.to_vec(),
        signers,
        oid_style: style,
    })
}
