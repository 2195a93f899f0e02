//! X.509 v3 certificates (RFC 5280 §4) signed with SM2-with-SM3.
//!
//! The signature is SM2 (GB/T 32918.2) over SM3(Z_A || TBSCertificate) with the signer ID
//! `1234567812345678` (GM/T 0009-2012 §10; GB/T 35276), the ID every SM2 PKI, GmSSL and
//! OpenSSL with `-sigopt distid:1234567812345678` use. The signature value is the DER
//! `SEQUENCE { r, s }` inside the BIT STRING.

use super::{der_err, oid};
use crate::sm2_keys::PublicKeyEncoding;
use der::asn1::{BitString, GeneralizedTime, Ia5String, ObjectIdentifier, OctetString, UtcTime};
use der::{Decode, Encode, Reader, SliceReader, Tagged};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::{PrivateKey, PublicKey, Signature, DEFAULT_UID};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use std::str::FromStr;
use std::time::Duration;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    SubjectAltName, SubjectKeyIdentifier,
};
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::{Time, Validity};
use x509_cert::{TbsCertificate, Version};

/// Key usage bits (RFC 5280 §4.2.1.3), in bit-string order.
pub const KEY_USAGE_NAMES: [&str; 9] = [
    "digitalSignature",
    "nonRepudiation",
    "keyEncipherment",
    "dataEncipherment",
    "keyAgreement",
    "keyCertSign",
    "cRLSign",
    "encipherOnly",
    "decipherOnly",
];

/// A key usage set: bit i is `KEY_USAGE_NAMES[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KeyUsageFlags(pub u16);

impl KeyUsageFlags {
    /// keyCertSign.
    pub const KEY_CERT_SIGN: u16 = 1 << 5;

    /// Parses names ("digitalSignature", "keyCertSign", ...; "contentCommitment" is an
    /// alias of nonRepudiation), any case.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self> {
        let mut bits = 0u16;
        for n in names {
            let n = n.as_ref();
            let n = if n.eq_ignore_ascii_case("contentCommitment") {
                "nonRepudiation"
            } else {
                n
            };
            let i = KEY_USAGE_NAMES
                .iter()
                .position(|k| k.eq_ignore_ascii_case(n))
                .ok_or(Error::InvalidValue(
                    "unknown key usage: expected digitalSignature, nonRepudiation, \
                     keyEncipherment, dataEncipherment, keyAgreement, keyCertSign, cRLSign, \
                     encipherOnly or decipherOnly",
                ))?;
            bits |= 1 << i;
        }
        Ok(KeyUsageFlags(bits))
    }

    /// The names of the bits that are set.
    pub fn names(self) -> Vec<&'static str> {
        (0..9)
            .filter(|i| self.0 & (1 << i) != 0)
            .map(|i| KEY_USAGE_NAMES[i])
            .collect()
    }

    /// Whether keyCertSign is set.
    pub fn key_cert_sign(self) -> bool {
        self.0 & Self::KEY_CERT_SIGN != 0
    }

    fn to_x509(self) -> KeyUsage {
        const ALL: [KeyUsages; 9] = [
            KeyUsages::DigitalSignature,
            KeyUsages::NonRepudiation,
            KeyUsages::KeyEncipherment,
            KeyUsages::DataEncipherment,
            KeyUsages::KeyAgreement,
            KeyUsages::KeyCertSign,
            KeyUsages::CRLSign,
            KeyUsages::EncipherOnly,
            KeyUsages::DecipherOnly,
        ];
        let mut set = der::flagset::FlagSet::<KeyUsages>::default();
        for (i, f) in ALL.iter().enumerate() {
            if self.0 & (1 << i) != 0 {
                set |= *f;
            }
        }
        KeyUsage(set)
    }
}

/// One subject alternative name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeneralNameValue {
    /// dNSName.
    Dns(String),
    /// rfc822Name (e-mail).
    Email(String),
    /// uniformResourceIdentifier.
    Uri(String),
    /// iPAddress: 4 or 16 bytes.
    Ip(Vec<u8>),
    /// directoryName, as an RFC 4514 string.
    DirectoryName(String),
    /// registeredID.
    RegisteredId(String),
    /// Any other form, as its DER.
    Other(Vec<u8>),
}

impl GeneralNameValue {
    /// (kind, text) with kind one of dns, email, uri, ip, dirname, rid, other.
    pub fn kind(&self) -> &'static str {
        match self {
            GeneralNameValue::Dns(_) => "dns",
            GeneralNameValue::Email(_) => "email",
            GeneralNameValue::Uri(_) => "uri",
            GeneralNameValue::Ip(_) => "ip",
            GeneralNameValue::DirectoryName(_) => "dirname",
            GeneralNameValue::RegisteredId(_) => "rid",
            GeneralNameValue::Other(_) => "other",
        }
    }

    /// From the `x509-cert` form.
    pub(crate) fn from_x509_pub(g: &GeneralName) -> Self {
        Self::from_x509(g)
    }

    /// To the `x509-cert` form.
    pub(crate) fn to_x509_pub(&self) -> Result<GeneralName> {
        self.to_x509()
    }

    fn from_x509(g: &GeneralName) -> Self {
        match g {
            GeneralName::DnsName(s) => GeneralNameValue::Dns(s.to_string()),
            GeneralName::Rfc822Name(s) => GeneralNameValue::Email(s.to_string()),
            GeneralName::UniformResourceIdentifier(s) => GeneralNameValue::Uri(s.to_string()),
            GeneralName::IpAddress(o) => GeneralNameValue::Ip(o.as_bytes().to_vec()),
            GeneralName::DirectoryName(n) => GeneralNameValue::DirectoryName(n.to_string()),
            GeneralName::RegisteredId(o) => GeneralNameValue::RegisteredId(o.to_string()),
            other => GeneralNameValue::Other(other.to_der().unwrap_or_default()),
        }
    }

    fn to_x509(&self) -> Result<GeneralName> {
        let ia5 = |s: &str| {
            Ia5String::new(s).map_err(|_| {
                Error::InvalidValue("subject alternative names must be ASCII (IA5String)")
            })
        };
        Ok(match self {
            GeneralNameValue::Dns(s) => GeneralName::DnsName(ia5(s)?),
            GeneralNameValue::Email(s) => GeneralName::Rfc822Name(ia5(s)?),
            GeneralNameValue::Uri(s) => GeneralName::UniformResourceIdentifier(ia5(s)?),
            GeneralNameValue::Ip(b) => {
                if b.len() != 4 && b.len() != 16 {
                    return Err(Error::InvalidValue("an IP address is 4 or 16 bytes"));
                }
                GeneralName::IpAddress(OctetString::new(b.clone()).map_err(der_err)?)
            }
            GeneralNameValue::DirectoryName(s) => GeneralName::DirectoryName(parse_name(s)?),
            GeneralNameValue::RegisteredId(s) => GeneralName::RegisteredId(
                ObjectIdentifier::new(s).map_err(|_| Error::InvalidValue("malformed OID"))?,
            ),
            GeneralNameValue::Other(d) => GeneralName::from_der(d).map_err(der_err)?,
        })
    }
}

/// Parses an RFC 4514 distinguished name ("CN=leaf,O=Example"; the first RDN written is
/// the last one encoded). An OpenSSL-style "/O=Example/CN=leaf" is accepted too.
pub fn parse_name(s: &str) -> Result<Name> {
    let s = s.trim();
    let text = if let Some(rest) = s.strip_prefix('/') {
        // OpenSSL -subj order: most significant first.
        let mut parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        parts.reverse();
        parts.join(",")
    } else {
        s.to_string()
    };
    if text.is_empty() {
        return Err(Error::InvalidValue("empty distinguished name"));
    }
    Name::from_str(&text).map_err(|_| {
        Error::InvalidValue(
            "malformed distinguished name: expected e.g. \"CN=example,O=Org,C=CN\" \
             (attributes CN, O, OU, C, ST, L, ...)",
        )
    })
}

/// An SM2 X.509 certificate: the parsed structure and its exact DER.
#[derive(Clone, Debug)]
pub struct Certificate {
    pub(crate) inner: x509_cert::Certificate,
    pub(crate) der: Vec<u8>,
    pub(crate) tbs: core::ops::Range<usize>,
}

/// The range of the first element inside the outer SEQUENCE of `der` (the signed part).
pub(crate) fn signed_range(der: &[u8]) -> Result<core::ops::Range<usize>> {
    let mut r = SliceReader::new(der).map_err(der_err)?;
    let outer = der::Header::decode(&mut r).map_err(der_err)?;
    let _ = outer;
    let start: usize = u32::from(r.position()) as usize;
    let h = r.peek_header().map_err(der_err)?;
    let len: usize =
        u32::from((h.encoded_len().map_err(der_err)? + h.length).map_err(der_err)?) as usize;
    Ok(start..start + len)
}

/// The SM2 signature in an SM2-with-SM3 signed structure (algorithm + BIT STRING).
pub(crate) fn check_sm2_signature(
    alg: &AlgorithmIdentifierOwned,
    bits: &BitString,
    signed: &[u8],
    key: &PublicKey,
) -> Result<()> {
    if alg.oid != oid::SM2_WITH_SM3 {
        return Err(Error::UnsupportedFormat(
            "signature algorithm is not SM2-with-SM3 (1.2.156.10197.1.501)",
        ));
    }
    if let Some(p) = &alg.parameters {
        if p.tag() != der::Tag::Null || !p.value().is_empty() {
            return Err(Error::UnsupportedFormat(
                "SM2-with-SM3 takes no algorithm parameters",
            ));
        }
    }
    let raw = bits.as_bytes().ok_or(Error::InvalidSignature)?;
    let sig = Signature::from_der(raw).map_err(|_| Error::InvalidSignature)?;
    if key.verify(signed, DEFAULT_UID, &sig) {
        Ok(())
    } else {
        Err(Error::InvalidSignature)
    }
}

/// Unix seconds of an X.509 time.
fn unix(t: &Time) -> i64 {
    t.to_unix_duration().as_secs() as i64
}

/// An X.509 time: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5).
pub(crate) fn x509_time(secs: i64) -> Result<Time> {
    if secs < 0 {
        return Err(Error::InvalidValue("times before 1970 are not supported"));
    }
    let d = Duration::from_secs(secs as u64);
    if let Ok(t) = UtcTime::from_unix_duration(d) {
        return Ok(Time::UtcTime(t));
    }
    GeneralizedTime::from_unix_duration(d)
        .map(Time::GeneralTime)
        .map_err(|_| Error::InvalidValue("time out of range (years 1970 to 9999)"))
}

impl Certificate {
    /// Parses a DER certificate.
    pub fn from_der(der: &[u8]) -> Result<Self> {
        let inner = x509_cert::Certificate::from_der(der).map_err(der_err)?;
        let tbs = signed_range(der)?;
        Ok(Certificate {
            inner,
            der: der.to_vec(),
            tbs,
        })
    }

    /// Parses the first "CERTIFICATE" PEM block in `text`.
    pub fn from_pem(text: &str) -> Result<Self> {
        Self::all_from_pem(text)?
            .into_iter()
            .next()
            .ok_or(Error::UnsupportedFormat("no PEM CERTIFICATE block"))
    }

    /// Every "CERTIFICATE" PEM block in `text` (a bundle), in order.
    pub fn all_from_pem(text: &str) -> Result<Vec<Self>> {
        super::keys::pem_blocks(text)?
            .iter()
            .filter(|b| b.label == "CERTIFICATE" || b.label == "X509 CERTIFICATE")
            .map(|b| Self::from_der(&b.der))
            .collect()
    }

    /// The DER encoding (exactly as parsed or built).
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// PEM "CERTIFICATE".
    pub fn to_pem(&self) -> Result<String> {
        super::keys::pem_encode("CERTIFICATE", &self.der)
    }

    fn tbs(&self) -> &TbsCertificate {
        &self.inner.tbs_certificate
    }

    /// 1, 2 or 3.
    pub fn version(&self) -> u8 {
        match self.tbs().version {
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
        }
    }

    /// The serial number's INTEGER content (big-endian two's complement).
    pub fn serial(&self) -> &[u8] {
        self.tbs().serial_number.as_bytes()
    }

    /// Subject as an RFC 4514 string.
    pub fn subject(&self) -> String {
        self.tbs().subject.to_string()
    }

    /// Issuer as an RFC 4514 string.
    pub fn issuer(&self) -> String {
        self.tbs().issuer.to_string()
    }

    /// Subject Name DER.
    pub fn subject_der(&self) -> Result<Vec<u8>> {
        self.tbs().subject.to_der().map_err(der_err)
    }

    /// Issuer Name DER.
    pub fn issuer_der(&self) -> Result<Vec<u8>> {
        self.tbs().issuer.to_der().map_err(der_err)
    }

    /// notBefore, Unix seconds.
    pub fn not_before(&self) -> i64 {
        unix(&self.tbs().validity.not_before)
    }

    /// notAfter, Unix seconds.
    pub fn not_after(&self) -> i64 {
        unix(&self.tbs().validity.not_after)
    }

    /// The signature algorithm OID (dotted).
    pub fn signature_algorithm(&self) -> String {
        self.inner.signature_algorithm.oid.to_string()
    }

    /// The signature value (DER `SEQUENCE { r, s }` for SM2).
    pub fn signature(&self) -> &[u8] {
        self.inner.signature.raw_bytes()
    }

    /// The signed part (TBSCertificate) exactly as encoded.
    pub fn tbs_der(&self) -> &[u8] {
        &self.der[self.tbs.clone()]
    }

    /// The subject's SM2 public key (SPKI with id-ecPublicKey + sm2p256v1, or the SM2 OID).
    pub fn public_key(&self) -> Result<PublicKey> {
        let spki = self
            .tbs()
            .subject_public_key_info
            .to_der()
            .map_err(der_err)?;
        PublicKey::from_spki_der(&spki)
    }

    /// The SubjectPublicKeyInfo DER.
    pub fn spki_der(&self) -> Result<Vec<u8>> {
        self.tbs().subject_public_key_info.to_der().map_err(der_err)
    }

    /// SM3 of the DER certificate.
    pub fn fingerprint_sm3(&self) -> [u8; 32] {
        guomi_core::sm3::hash(&self.der)
    }

    /// Every extension: (OID, critical, extnValue content).
    pub fn extensions(&self) -> Vec<(String, bool, Vec<u8>)> {
        self.tbs()
            .extensions
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|e| {
                (
                    e.extn_id.to_string(),
                    e.critical,
                    e.extn_value.as_bytes().to_vec(),
                )
            })
            .collect()
    }

    pub(crate) fn raw_extensions(&self) -> &[Extension] {
        self.tbs().extensions.as_deref().unwrap_or(&[])
    }

    fn ext<'a, T: Decode<'a> + der::oid::AssociatedOid>(&'a self) -> Result<Option<(bool, T)>> {
        self.tbs()
            .get::<T>()
            .map_err(|_| Error::UnsupportedFormat("malformed or repeated certificate extension"))
    }

    /// basicConstraints: (cA, pathLenConstraint), if present.
    pub fn basic_constraints(&self) -> Result<Option<(bool, Option<u8>)>> {
        Ok(self
            .ext::<BasicConstraints>()?
            .map(|(_, b)| (b.ca, b.path_len_constraint)))
    }

    /// keyUsage, if present.
    pub fn key_usage(&self) -> Result<Option<KeyUsageFlags>> {
        Ok(self
            .ext::<KeyUsage>()?
            .map(|(_, k)| KeyUsageFlags(k.0.bits())))
    }

    /// extKeyUsage OIDs, if present.
    pub fn extended_key_usage(&self) -> Result<Option<Vec<ObjectIdentifier>>> {
        Ok(self.ext::<ExtendedKeyUsage>()?.map(|(_, e)| e.0))
    }

    /// subjectAltName entries, if present.
    pub fn subject_alt_names(&self) -> Result<Option<Vec<GeneralNameValue>>> {
        Ok(self
            .ext::<SubjectAltName>()?
            .map(|(_, s)| s.0.iter().map(GeneralNameValue::from_x509).collect()))
    }

    /// subjectKeyIdentifier, if present.
    pub fn subject_key_id(&self) -> Result<Option<Vec<u8>>> {
        Ok(self
            .ext::<SubjectKeyIdentifier>()?
            .map(|(_, s)| s.0.as_bytes().to_vec()))
    }

    /// authorityKeyIdentifier keyIdentifier, if present.
    pub fn authority_key_id(&self) -> Result<Option<Vec<u8>>> {
        Ok(self
            .ext::<AuthorityKeyIdentifier>()?
            .and_then(|(_, a)| a.key_identifier.map(|k| k.as_bytes().to_vec())))
    }

    /// Whether subject and issuer are the same name.
    pub fn is_self_issued(&self) -> bool {
        self.tbs().subject == self.tbs().issuer
    }

    /// Checks this certificate's signature with `issuer_key` (SM2-with-SM3, default ID).
    /// `Err(InvalidSignature)` when it does not verify.
    pub fn verify_signature_with(&self, issuer_key: &PublicKey) -> Result<()> {
        check_sm2_signature(
            &self.inner.signature_algorithm,
            &self.inner.signature,
            self.tbs_der(),
            issuer_key,
        )?;
        // RFC 5280 §4.1.1.2: the outer and inner algorithm identifiers must match.
        if self.inner.signature_algorithm != self.tbs().signature {
            return Err(Error::InvalidSignature);
        }
        Ok(())
    }

    /// Checks that `issuer` issued this certificate: issuer name = issuer's subject, and
    /// the signature verifies with the issuer's key.
    pub fn verify_signature(&self, issuer: &Certificate) -> Result<()> {
        if self.tbs().issuer != issuer.tbs().subject {
            return Err(Error::InvalidSignature);
        }
        self.verify_signature_with(&issuer.public_key()?)
    }

    pub(crate) fn name(&self) -> &Name {
        &self.tbs().subject
    }
}

impl PartialEq for Certificate {
    fn eq(&self, other: &Self) -> bool {
        self.der == other.der
    }
}
impl Eq for Certificate {}

/// Key identifier of an SM2 public key: the first 20 bytes of SM3 of the
/// subjectPublicKey bits (RFC 5280 §4.2.1.2 method (1) with SM3 in place of SHA-1).
pub fn key_identifier(key: &PublicKey) -> Vec<u8> {
    guomi_core::sm3::hash(&key.to_uncompressed())[..20].to_vec()
}

/// What to put in a new certificate. Build with [`CertificateBuilder::new`], adjust the
/// public fields, then [`self_sign`](Self::self_sign) or [`sign`](Self::sign).
#[derive(Clone, Debug)]
pub struct CertificateBuilder {
    /// Subject name.
    pub subject: Name,
    /// Subject public key.
    pub public_key: PublicKey,
    /// Serial number as a positive big-endian integer of at most 20 octets encoded (RFC
    /// 5280 §4.1.2.2: below 2^159; checked when signing); random 127-bit when `None`.
    pub serial: Option<Vec<u8>>,
    /// notBefore, Unix seconds.
    pub not_before: i64,
    /// notAfter, Unix seconds.
    pub not_after: i64,
    /// basicConstraints: `Some((ca, path_len))`; `None` omits the extension (the
    /// default for end-entity certificates, RFC 5280 §4.2.1.9). `Some((false, None))`
    /// writes cA=FALSE, whose DER is an empty SEQUENCE that GmSSL 3.1.1 refuses.
    pub basic_constraints: Option<(bool, Option<u8>)>,
    /// keyUsage (critical); `None` omits it.
    pub key_usage: Option<KeyUsageFlags>,
    /// extKeyUsage OIDs (non-critical); empty omits it.
    pub extended_key_usage: Vec<ObjectIdentifier>,
    /// subjectAltName entries (non-critical); empty omits it.
    pub subject_alt_names: Vec<GeneralNameValue>,
    /// Add subjectKeyIdentifier and authorityKeyIdentifier.
    pub key_identifiers: bool,
}

impl CertificateBuilder {
    /// A builder with the defaults for an end-entity certificate: no basicConstraints
    /// (RFC 5280 §4.2.1.9 lets an end entity leave it out, as GmSSL's `reqsign` does;
    /// GmSSL 3.1.1 refuses the empty SEQUENCE that is the DER of cA=FALSE), keyUsage
    /// digitalSignature + keyEncipherment, key identifiers.
    pub fn new(
        subject: &str,
        public_key: PublicKey,
        not_before: i64,
        not_after: i64,
    ) -> Result<Self> {
        Ok(CertificateBuilder {
            subject: parse_name(subject)?,
            public_key,
            serial: None,
            not_before,
            not_after,
            basic_constraints: None,
            key_usage: Some(KeyUsageFlags(0b101)),
            extended_key_usage: Vec::new(),
            subject_alt_names: Vec::new(),
            key_identifiers: true,
        })
    }

    /// Makes this a CA certificate: cA=TRUE with `path_len`, keyUsage keyCertSign +
    /// cRLSign + digitalSignature.
    pub fn ca(&mut self, path_len: Option<u8>) -> &mut Self {
        self.basic_constraints = Some((true, path_len));
        self.key_usage = Some(KeyUsageFlags(1 | (1 << 5) | (1 << 6)));
        self
    }

    fn serial_number(&self) -> Result<SerialNumber> {
        let mut bytes = match &self.serial {
            Some(s) => {
                let skip = s.iter().take_while(|&&b| b == 0).count();
                let v = s[skip..].to_vec();
                // RFC 5280 §4.1.2.2: a positive INTEGER of at most 20 octets as
                // encoded, sign byte included (so below 2^159).
                if v.is_empty() || v.len() > 20 || (v.len() == 20 && v[0] & 0x80 != 0) {
                    return Err(Error::InvalidValue(
                        "serial number must be a positive integer of at most 20 octets \
                         encoded (below 2**159; RFC 5280 section 4.1.2.2)",
                    ));
                }
                v
            }
            None => {
                let mut r = guomi_core::rand::bytes::<16>()?.to_vec();
                r[0] = (r[0] & 0x7f) | 0x40;
                r
            }
        };
        if bytes[0] & 0x80 != 0 {
            bytes.insert(0, 0);
        }
        SerialNumber::new(&bytes).map_err(der_err)
    }

    fn extensions(&self, issuer_key_id: Option<Vec<u8>>) -> Result<Vec<Extension>> {
        fn ext<T: Encode>(id: ObjectIdentifier, critical: bool, v: &T) -> Result<Extension> {
            Ok(Extension {
                extn_id: id,
                critical,
                extn_value: OctetString::new(v.to_der().map_err(der_err)?).map_err(der_err)?,
            })
        }
        use der::oid::AssociatedOid;
        let mut out = Vec::new();
        if let Some((ca, path_len)) = self.basic_constraints {
            if path_len.is_some() && !ca {
                return Err(Error::InvalidValue("a path length needs ca=True"));
            }
            let bc = BasicConstraints {
                ca,
                path_len_constraint: path_len,
            };
            out.push(ext(BasicConstraints::OID, true, &bc)?);
        }
        if let Some(ku) = self.key_usage {
            if ku.0 == 0 {
                return Err(Error::InvalidValue("key usage must not be empty"));
            }
            out.push(ext(KeyUsage::OID, true, &ku.to_x509())?);
        }
        if !self.extended_key_usage.is_empty() {
            let eku = ExtendedKeyUsage(self.extended_key_usage.clone());
            out.push(ext(ExtendedKeyUsage::OID, false, &eku)?);
        }
        if !self.subject_alt_names.is_empty() {
            let names = self
                .subject_alt_names
                .iter()
                .map(|g| g.to_x509())
                .collect::<Result<Vec<_>>>()?;
            out.push(ext(SubjectAltName::OID, false, &SubjectAltName(names))?);
        }
        if self.key_identifiers {
            let ski = SubjectKeyIdentifier(
                OctetString::new(key_identifier(&self.public_key)).map_err(der_err)?,
            );
            out.push(ext(SubjectKeyIdentifier::OID, false, &ski)?);
            if let Some(kid) = issuer_key_id {
                let aki = AuthorityKeyIdentifier {
                    key_identifier: Some(OctetString::new(kid).map_err(der_err)?),
                    ..Default::default()
                };
                out.push(ext(AuthorityKeyIdentifier::OID, false, &aki)?);
            }
        }
        Ok(out)
    }

    fn build(
        &self,
        issuer: Name,
        issuer_key_id: Option<Vec<u8>>,
        key: &PrivateKey,
    ) -> Result<Certificate> {
        if self.not_after < self.not_before {
            return Err(Error::InvalidValue("not_after is before not_before"));
        }
        let alg = AlgorithmIdentifierOwned {
            oid: oid::SM2_WITH_SM3,
            parameters: None,
        };
        let spki =
            SubjectPublicKeyInfoOwned::from_der(&self.public_key.to_spki_der()).map_err(der_err)?;
        let extensions = self.extensions(issuer_key_id)?;
        let tbs = TbsCertificate {
            version: Version::V3,
            serial_number: self.serial_number()?,
            signature: alg.clone(),
            issuer,
            validity: Validity {
                not_before: x509_time(self.not_before)?,
                not_after: x509_time(self.not_after)?,
            },
            subject: self.subject.clone(),
            subject_public_key_info: spki,
            issuer_unique_id: None,
            subject_unique_id: None,
            extensions: if extensions.is_empty() {
                None
            } else {
                Some(extensions)
            },
        };
        let tbs_der = tbs.to_der().map_err(der_err)?;
        let sig = key.sign(&tbs_der, DEFAULT_UID)?;
        let cert = x509_cert::Certificate {
            tbs_certificate: tbs,
            signature_algorithm: alg,
            signature: BitString::from_bytes(&sig.to_der()).map_err(der_err)?,
        };
        Certificate::from_der(&cert.to_der().map_err(der_err)?)
    }

    /// A self-signed certificate (subject = issuer); `key` must be the subject's key.
    pub fn self_sign(&self, key: &PrivateKey) -> Result<Certificate> {
        if key.public_key() != &self.public_key {
            return Err(Error::InvalidKey(
                "the signing key does not match the certificate's public key",
            ));
        }
        let kid = key_identifier(&self.public_key);
        self.build(self.subject.clone(), Some(kid), key)
    }

    /// A certificate issued by `issuer` (whose private key is `issuer_key`). The issuer
    /// must be a CA (basicConstraints cA=TRUE; keyCertSign if keyUsage is present).
    pub fn sign(&self, issuer: &Certificate, issuer_key: &PrivateKey) -> Result<Certificate> {
        if &issuer.public_key()? != issuer_key.public_key() {
            return Err(Error::InvalidKey(
                "the CA key does not match the CA certificate",
            ));
        }
        if !matches!(issuer.basic_constraints()?, Some((true, _))) {
            return Err(Error::InvalidValue(
                "the issuer certificate is not a CA (basicConstraints cA is not TRUE)",
            ));
        }
        if issuer.key_usage()?.is_some_and(|k| !k.key_cert_sign()) {
            return Err(Error::InvalidValue(
                "the issuer certificate's keyUsage lacks keyCertSign",
            ));
        }
        let kid = match issuer.subject_key_id()? {
            Some(k) => k,
            None => key_identifier(&issuer.public_key()?),
        };
        self.build(issuer.name().clone(), Some(kid), issuer_key)
    }
}
