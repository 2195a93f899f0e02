//! Certificate revocation lists (RFC 5280 §5) signed with SM2-with-SM3: parse, inspect,
//! check the signature, build; [`super::chain::verify_chain_with_crls`] uses them.
//!
//! Read: v1 and v2 CRLs (the version field is optional, RFC 5280 §5.1.2.1), the CRL
//! extensions cRLNumber and authorityKeyIdentifier and the entry extensions reasonCode and
//! invalidityDate. A CRL carrying another *critical* extension (a delta CRL's
//! deltaCRLIndicator, a partitioned CRL's issuingDistributionPoint, an indirect CRL's
//! certificateIssuer entry extension) parses, but chain validation refuses to rely on it
//! (fails closed: guomi does not implement delta, partitioned or indirect CRLs).
//!
//! Written: v2 CRLs with cRLNumber and authorityKeyIdentifier, entries with reasonCode
//! when a reason is given, signed like certificates (SM3withSM2, default signer ID).

use super::cert::{check_sm2_signature, key_identifier, signed_range, x509_time, Certificate};
use super::{der_err, oid};
use der::asn1::{BitString, OctetString, Uint};
use der::{Decode, Encode, Sequence};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::{PrivateKey, PublicKey, DEFAULT_UID};
use spki::AlgorithmIdentifierOwned;
use x509_cert::ext::pkix::crl::CrlNumber;
use x509_cert::ext::pkix::{AuthorityKeyIdentifier, CrlReason};
use x509_cert::ext::{Extension, Extensions};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;
use x509_cert::Version;

/// The reasons of RFC 5280 §5.3.1, by code (7 is unused).
pub const REASON_NAMES: [(u8, &str); 10] = [
    (0, "unspecified"),
    (1, "keyCompromise"),
    (2, "cACompromise"),
    (3, "affiliationChanged"),
    (4, "superseded"),
    (5, "cessationOfOperation"),
    (6, "certificateHold"),
    (8, "removeFromCRL"),
    (9, "privilegeWithdrawn"),
    (10, "aACompromise"),
];

/// At most this many revoked entries in a CRL that [`CrlBuilder`] writes.
pub const MAX_BUILD_ENTRIES: usize = 1 << 20;

const CRL_NUMBER: &str = "2.5.29.20";
const AUTHORITY_KEY_ID: &str = "2.5.29.35";
const REASON_CODE: &str = "2.5.29.21";
const INVALIDITY_DATE: &str = "2.5.29.24";

/// RFC 5280 §5.1 `TBSCertList`, with the version optional as the RFC has it (v1 CRLs omit
/// it; x509-cert's own type requires it).
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct TbsCertList {
    version: Option<Version>,
    signature: AlgorithmIdentifierOwned,
    issuer: Name,
    this_update: Time,
    next_update: Option<Time>,
    revoked_certificates: Option<Vec<x509_cert::crl::RevokedCert>>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    crl_extensions: Option<Extensions>,
}

/// RFC 5280 §5.1 `CertificateList`.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct CertificateList {
    tbs_cert_list: TbsCertList,
    signature_algorithm: AlgorithmIdentifierOwned,
    signature: BitString,
}

/// One revoked certificate of a CRL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevokedEntry {
    /// The serial number's INTEGER content (big-endian two's complement, as encoded).
    pub serial: Vec<u8>,
    /// revocationDate, Unix seconds.
    pub revocation_date: i64,
    /// reasonCode (RFC 5280 §5.3.1), if present.
    pub reason: Option<u8>,
    /// invalidityDate, Unix seconds, if present.
    pub invalidity_date: Option<i64>,
    /// Whether the entry carries a critical extension guomi does not understand (an
    /// indirect CRL's certificateIssuer, for example).
    pub unknown_critical: bool,
}

/// The name of a reason code ("keyCompromise", ...), or `None` for an unknown code.
pub fn reason_name(code: u8) -> Option<&'static str> {
    REASON_NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
}

/// The code of a reason given by name (any case).
pub fn reason_code(name: &str) -> Result<u8> {
    REASON_NAMES
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(c, _)| *c)
        .ok_or(Error::InvalidValue(
            "unknown revocation reason: give unspecified, keyCompromise, cACompromise, \
             affiliationChanged, superseded, cessationOfOperation, certificateHold, \
             removeFromCRL, privilegeWithdrawn or aACompromise",
        ))
}

fn unix(t: &Time) -> i64 {
    t.to_unix_duration().as_secs() as i64
}

/// An X.509 CRL: the parsed structure and its exact DER.
#[derive(Clone, Debug)]
pub struct Crl {
    inner: CertificateList,
    der: Vec<u8>,
    tbs: core::ops::Range<usize>,
}

impl PartialEq for Crl {
    fn eq(&self, other: &Self) -> bool {
        self.der == other.der
    }
}
impl Eq for Crl {}

impl Crl {
    /// Parses a DER CRL.
    pub fn from_der(der: &[u8]) -> Result<Self> {
        let inner = CertificateList::from_der(der).map_err(der_err)?;
        if let Some(v) = inner.tbs_cert_list.version {
            if v != Version::V2 {
                return Err(Error::UnsupportedFormat(
                    "CRL version must be v2 when present",
                ));
            }
        }
        let tbs = signed_range(der)?;
        Ok(Crl {
            inner,
            der: der.to_vec(),
            tbs,
        })
    }

    /// Parses the first "X509 CRL" PEM block in `text`.
    pub fn from_pem(text: &str) -> Result<Self> {
        Self::all_from_pem(text)?
            .into_iter()
            .next()
            .ok_or(Error::UnsupportedFormat("no PEM X509 CRL block"))
    }

    /// Every "X509 CRL" PEM block in `text`, in order.
    pub fn all_from_pem(text: &str) -> Result<Vec<Self>> {
        super::keys::pem_blocks(text)?
            .iter()
            .filter(|b| b.label == "X509 CRL")
            .map(|b| Self::from_der(&b.der))
            .collect()
    }

    /// The DER encoding (exactly as parsed or built).
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// PEM "X509 CRL".
    pub fn to_pem(&self) -> Result<String> {
        super::keys::pem_encode("X509 CRL", &self.der)
    }

    fn tbs(&self) -> &TbsCertList {
        &self.inner.tbs_cert_list
    }

    /// 1 or 2.
    pub fn version(&self) -> u8 {
        if self.tbs().version.is_some() {
            2
        } else {
            1
        }
    }

    /// Issuer as an RFC 4514 string.
    pub fn issuer(&self) -> String {
        self.tbs().issuer.to_string()
    }

    /// Issuer Name DER.
    pub fn issuer_der(&self) -> Result<Vec<u8>> {
        self.tbs().issuer.to_der().map_err(der_err)
    }

    /// thisUpdate, Unix seconds.
    pub fn this_update(&self) -> i64 {
        unix(&self.tbs().this_update)
    }

    /// nextUpdate, Unix seconds, if present.
    pub fn next_update(&self) -> Option<i64> {
        self.tbs().next_update.as_ref().map(unix)
    }

    /// The signature algorithm OID (dotted).
    pub fn signature_algorithm(&self) -> String {
        self.inner.signature_algorithm.oid.to_string()
    }

    /// The signature value (DER `SEQUENCE { r, s }` for SM2).
    pub fn signature(&self) -> &[u8] {
        self.inner.signature.raw_bytes()
    }

    /// The signed part (TBSCertList) exactly as encoded.
    pub fn tbs_der(&self) -> &[u8] {
        &self.der[self.tbs.clone()]
    }

    fn extensions(&self) -> &[Extension] {
        self.tbs().crl_extensions.as_deref().unwrap_or(&[])
    }

    /// Every CRL extension: (OID, critical, extnValue content).
    pub fn extension_list(&self) -> Vec<(String, bool, Vec<u8>)> {
        self.extensions()
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

    fn find_extension(&self, id: &str) -> Result<Option<&Extension>> {
        let mut found = None;
        for e in self.extensions() {
            if e.extn_id.to_string() == id {
                if found.is_some() {
                    return Err(Error::UnsupportedFormat("repeated CRL extension"));
                }
                found = Some(e);
            }
        }
        Ok(found)
    }

    /// cRLNumber (a non-negative INTEGER, big-endian without leading zeros), if present.
    pub fn crl_number(&self) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.find_extension(CRL_NUMBER)? else {
            return Ok(None);
        };
        let n = CrlNumber::from_der(e.extn_value.as_bytes()).map_err(der_err)?;
        let b = n.0.as_bytes();
        let skip = b
            .iter()
            .take_while(|&&x| x == 0)
            .count()
            .min(b.len().saturating_sub(1));
        Ok(Some(b[skip..].to_vec()))
    }

    /// authorityKeyIdentifier keyIdentifier, if present.
    pub fn authority_key_id(&self) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.find_extension(AUTHORITY_KEY_ID)? else {
            return Ok(None);
        };
        let a = AuthorityKeyIdentifier::from_der(e.extn_value.as_bytes()).map_err(der_err)?;
        Ok(a.key_identifier.map(|k| k.as_bytes().to_vec()))
    }

    /// The first critical CRL extension guomi does not understand (its dotted OID), if any.
    pub fn unknown_critical_extension(&self) -> Option<String> {
        self.extensions()
            .iter()
            .map(|e| (e.extn_id.to_string(), e.critical))
            .find(|(id, critical)| *critical && id != CRL_NUMBER && id != AUTHORITY_KEY_ID)
            .map(|(id, _)| id)
    }

    /// The revoked entries, in order. `Err` when an entry's reasonCode or invalidityDate
    /// is malformed or repeated.
    pub fn revoked(&self) -> Result<Vec<RevokedEntry>> {
        self.tbs()
            .revoked_certificates
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(entry)
            .collect()
    }

    /// The entry for serial number `serial` (INTEGER content, as
    /// [`Certificate::serial`] returns it), if this CRL lists it.
    pub fn find(&self, serial: &[u8]) -> Result<Option<RevokedEntry>> {
        for r in self.tbs().revoked_certificates.as_deref().unwrap_or(&[]) {
            if r.serial_number.as_bytes() == serial {
                return entry(r).map(Some);
            }
        }
        Ok(None)
    }

    /// Checks the CRL's signature with `issuer_key` (SM2-with-SM3, default ID).
    /// `Err(InvalidSignature)` when it does not verify.
    pub fn verify_signature_with(&self, issuer_key: &PublicKey) -> Result<()> {
        check_sm2_signature(
            &self.inner.signature_algorithm,
            &self.inner.signature,
            self.tbs_der(),
            issuer_key,
        )?;
        if self.inner.signature_algorithm != self.tbs().signature {
            return Err(Error::InvalidSignature);
        }
        Ok(())
    }

    /// Checks that `issuer` issued this CRL: the CRL's issuer is the certificate's subject,
    /// the certificate may sign CRLs (cRLSign when it has a keyUsage extension) and the
    /// signature verifies with its key.
    pub fn verify_signature(&self, issuer: &Certificate) -> Result<()> {
        if self.issuer_der()? != issuer.subject_der()? {
            return Err(Error::InvalidSignature);
        }
        if issuer
            .key_usage()?
            .is_some_and(|k| k.0 & KEY_USAGE_CRL_SIGN == 0)
        {
            return Err(Error::InvalidValue(
                "the issuer certificate's keyUsage lacks cRLSign",
            ));
        }
        self.verify_signature_with(&issuer.public_key()?)
    }
}

/// keyUsage cRLSign (bit 6).
pub(crate) const KEY_USAGE_CRL_SIGN: u16 = 1 << 6;

fn entry(r: &x509_cert::crl::RevokedCert) -> Result<RevokedEntry> {
    let mut out = RevokedEntry {
        serial: r.serial_number.as_bytes().to_vec(),
        revocation_date: unix(&r.revocation_date),
        reason: None,
        invalidity_date: None,
        unknown_critical: false,
    };
    let mut seen_reason = false;
    let mut seen_date = false;
    for e in r.crl_entry_extensions.as_deref().unwrap_or(&[]) {
        let id = e.extn_id.to_string();
        let body = e.extn_value.as_bytes();
        let repeated = Error::UnsupportedFormat("repeated CRL entry extension");
        if id == REASON_CODE {
            if std::mem::replace(&mut seen_reason, true) {
                return Err(repeated);
            }
            out.reason = Some(CrlReason::from_der(body).map_err(der_err)? as u8);
        } else if id == INVALIDITY_DATE {
            if std::mem::replace(&mut seen_date, true) {
                return Err(repeated);
            }
            let t = der::asn1::GeneralizedTime::from_der(body).map_err(der_err)?;
            out.invalidity_date = Some(t.to_unix_duration().as_secs() as i64);
        } else if e.critical {
            out.unknown_critical = true;
        }
    }
    Ok(out)
}

/// One certificate to list in a new CRL.
#[derive(Clone, Debug)]
pub struct Revocation {
    /// Serial number: a positive big-endian integer of at most 20 bytes.
    pub serial: Vec<u8>,
    /// revocationDate, Unix seconds.
    pub date: i64,
    /// reasonCode; `None` omits the extension (RFC 5280 advises omitting "unspecified").
    pub reason: Option<u8>,
}

/// What to put in a new CRL. Fill in the fields, then [`sign`](Self::sign).
#[derive(Clone, Debug, Default)]
pub struct CrlBuilder {
    /// thisUpdate, Unix seconds.
    pub this_update: i64,
    /// nextUpdate, Unix seconds (RFC 5280 requires it of conforming issuers).
    pub next_update: Option<i64>,
    /// cRLNumber: a non-negative big-endian integer of at most 20 bytes.
    pub crl_number: Vec<u8>,
    /// The revoked certificates.
    pub revoked: Vec<Revocation>,
}

fn positive_serial(s: &[u8]) -> Result<SerialNumber> {
    let skip = s.iter().take_while(|&&b| b == 0).count();
    let mut v = s[skip..].to_vec();
    if v.is_empty() || v.len() > 20 {
        return Err(Error::InvalidValue(
            "serial number must be a positive integer of at most 20 bytes",
        ));
    }
    if v[0] & 0x80 != 0 {
        v.insert(0, 0);
    }
    SerialNumber::new(&v).map_err(der_err)
}

fn ext<T: Encode>(id: der::asn1::ObjectIdentifier, v: &T) -> Result<Extension> {
    Ok(Extension {
        extn_id: id,
        critical: false,
        extn_value: OctetString::new(v.to_der().map_err(der_err)?).map_err(der_err)?,
    })
}

impl CrlBuilder {
    /// A CRL issued by the CA certificate `issuer` with its private key `issuer_key`. The
    /// key must match the certificate and the certificate must allow cRLSign when it has
    /// a keyUsage extension.
    pub fn sign(&self, issuer: &Certificate, issuer_key: &PrivateKey) -> Result<Crl> {
        use der::oid::AssociatedOid;
        if &issuer.public_key()? != issuer_key.public_key() {
            return Err(Error::InvalidKey(
                "the CRL signing key does not match the issuer certificate",
            ));
        }
        if issuer
            .key_usage()?
            .is_some_and(|k| k.0 & KEY_USAGE_CRL_SIGN == 0)
        {
            return Err(Error::InvalidValue(
                "the issuer certificate's keyUsage lacks cRLSign",
            ));
        }
        if self.next_update.is_some_and(|n| n < self.this_update) {
            return Err(Error::InvalidValue("next_update is before this_update"));
        }
        if self.revoked.len() > MAX_BUILD_ENTRIES {
            return Err(Error::InvalidValue(
                "too many revoked certificates for one CRL (at most 1048576)",
            ));
        }
        let number = {
            let skip = self.crl_number.iter().take_while(|&&b| b == 0).count();
            let digits = &self.crl_number[skip..];
            if digits.len() > 20 {
                return Err(Error::InvalidValue(
                    "CRL number must be a non-negative integer of at most 20 bytes",
                ));
            }
            Uint::new(if digits.is_empty() { &[0] } else { digits }).map_err(der_err)?
        };
        let kid = match issuer.subject_key_id()? {
            Some(k) => k,
            None => key_identifier(&issuer.public_key()?),
        };
        let aki = AuthorityKeyIdentifier {
            key_identifier: Some(OctetString::new(kid).map_err(der_err)?),
            ..Default::default()
        };
        let mut entries = Vec::with_capacity(self.revoked.len());
        for r in &self.revoked {
            let extensions = match r.reason {
                None => None,
                Some(code) => {
                    let reason = crl_reason(code)?;
                    Some(vec![ext(CrlReason::OID, &reason)?])
                }
            };
            entries.push(x509_cert::crl::RevokedCert {
                serial_number: positive_serial(&r.serial)?,
                revocation_date: x509_time(r.date)?,
                crl_entry_extensions: extensions,
            });
        }
        let alg = AlgorithmIdentifierOwned {
            oid: oid::SM2_WITH_SM3,
            parameters: None,
        };
        let tbs = TbsCertList {
            version: Some(Version::V2),
            signature: alg.clone(),
            issuer: x509_cert::name::Name::from_der(&issuer.subject_der()?).map_err(der_err)?,
            this_update: x509_time(self.this_update)?,
            next_update: self.next_update.map(x509_time).transpose()?,
            revoked_certificates: if entries.is_empty() {
                None
            } else {
                Some(entries)
            },
            crl_extensions: Some(vec![
                ext(CrlNumber::OID, &CrlNumber(number))?,
                ext(AuthorityKeyIdentifier::OID, &aki)?,
            ]),
        };
        let tbs_der = tbs.to_der().map_err(der_err)?;
        let sig = issuer_key.sign(&tbs_der, DEFAULT_UID)?;
        let list = CertificateList {
            tbs_cert_list: tbs,
            signature_algorithm: alg,
            signature: BitString::from_bytes(&sig.to_der()).map_err(der_err)?,
        };
        Crl::from_der(&list.to_der().map_err(der_err)?)
    }
}

fn crl_reason(code: u8) -> Result<CrlReason> {
    Ok(match code {
        0 => CrlReason::Unspecified,
        1 => CrlReason::KeyCompromise,
        2 => CrlReason::CaCompromise,
        3 => CrlReason::AffiliationChanged,
        4 => CrlReason::Superseded,
        5 => CrlReason::CessationOfOperation,
        6 => CrlReason::CertificateHold,
        8 => CrlReason::RemoveFromCRL,
        9 => CrlReason::PrivilegeWithdrawn,
        10 => CrlReason::AaCompromise,
        _ => return Err(Error::InvalidValue("unknown revocation reason code")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x509::cert::CertificateBuilder;

    fn ca() -> (Certificate, PrivateKey) {
        let key = PrivateKey::generate().unwrap();
        let mut b =
            CertificateBuilder::new("CN=CA", key.public_key().clone(), 0, 4_000_000_000).unwrap();
        b.ca(None);
        (b.self_sign(&key).unwrap(), key)
    }

    #[test]
    fn build_parse_verify() {
        let (ca, key) = ca();
        let crl = CrlBuilder {
            this_update: 1_700_000_000,
            next_update: Some(1_700_086_400),
            crl_number: vec![0x01, 0x02],
            revoked: vec![
                Revocation {
                    serial: vec![0x80, 1],
                    date: 1_699_000_000,
                    reason: Some(1),
                },
                Revocation {
                    serial: vec![7],
                    date: 1_699_000_001,
                    reason: None,
                },
            ],
        }
        .sign(&ca, &key)
        .unwrap();
        let again = Crl::from_der(crl.to_der()).unwrap();
        assert_eq!(again, crl);
        assert_eq!(Crl::from_pem(&crl.to_pem().unwrap()).unwrap(), crl);
        assert_eq!(crl.version(), 2);
        assert_eq!(crl.issuer(), "CN=CA");
        assert_eq!(crl.this_update(), 1_700_000_000);
        assert_eq!(crl.next_update(), Some(1_700_086_400));
        assert_eq!(crl.crl_number().unwrap(), Some(vec![1, 2]));
        assert_eq!(
            crl.authority_key_id().unwrap(),
            ca.subject_key_id().unwrap()
        );
        let revoked = crl.revoked().unwrap();
        assert_eq!(revoked.len(), 2);
        // Serials are stored as INTEGER content: a leading 0x80 gets a 00 byte.
        assert_eq!(revoked[0].serial, vec![0, 0x80, 1]);
        assert_eq!(revoked[0].reason, Some(1));
        assert_eq!(revoked[1].reason, None);
        assert_eq!(
            crl.find(&[7]).unwrap().unwrap().revocation_date,
            1_699_000_001
        );
        assert!(crl.find(&[8]).unwrap().is_none());
        crl.verify_signature(&ca).unwrap();
        assert!(crl.unknown_critical_extension().is_none());
        let (other, _) = self::ca();
        assert!(crl
            .verify_signature_with(&other.public_key().unwrap())
            .is_err());
    }

    #[test]
    fn tampered_crl_fails() {
        let (ca, key) = ca();
        let crl = CrlBuilder {
            this_update: 1_700_000_000,
            next_update: None,
            crl_number: vec![],
            revoked: vec![Revocation {
                serial: vec![9],
                date: 1_699_000_000,
                reason: None,
            }],
        }
        .sign(&ca, &key)
        .unwrap();
        assert_eq!(crl.crl_number().unwrap(), Some(vec![0]));
        let mut der = crl.to_der().to_vec();
        // The revoked serial 9 (INTEGER 02 01 09): change it to 10.
        let at = der.windows(3).position(|w| w == [2, 1, 9]).unwrap();
        der[at + 2] = 10;
        let bad = Crl::from_der(&der).unwrap();
        assert_eq!(bad.verify_signature(&ca), Err(Error::InvalidSignature));
    }

    #[test]
    fn builder_bounds() {
        let (ca, key) = ca();
        let mut b = CrlBuilder {
            this_update: 10,
            next_update: Some(5),
            ..Default::default()
        };
        assert!(b.sign(&ca, &key).is_err());
        b.next_update = None;
        b.revoked = vec![Revocation {
            serial: vec![0],
            date: 0,
            reason: None,
        }];
        assert!(b.sign(&ca, &key).is_err());
        b.revoked = vec![Revocation {
            serial: vec![1; 21],
            date: 0,
            reason: None,
        }];
        assert!(b.sign(&ca, &key).is_err());
        b.revoked = vec![Revocation {
            serial: vec![1],
            date: 0,
            reason: Some(7),
        }];
        assert!(b.sign(&ca, &key).is_err());
        b.revoked.clear();
        b.crl_number = vec![1; 21];
        assert!(b.sign(&ca, &key).is_err());
        b.crl_number.clear();
        let other = PrivateKey::generate().unwrap();
        assert!(matches!(b.sign(&ca, &other), Err(Error::InvalidKey(_))));
        // A CA without cRLSign cannot issue CRLs.
        let mut nb =
            CertificateBuilder::new("CN=NoCrl", key.public_key().clone(), 0, 4_000_000_000)
                .unwrap();
        nb.ca(None);
        nb.key_usage = Some(super::super::cert::KeyUsageFlags(1 << 5));
        let no_crl = nb.self_sign(&key).unwrap();
        assert!(matches!(b.sign(&no_crl, &key), Err(Error::InvalidValue(_))));
    }

    #[test]
    fn reasons() {
        for (code, name) in REASON_NAMES {
            assert_eq!(reason_code(name).unwrap(), code);
            assert_eq!(reason_name(code), Some(name));
            assert_eq!(crl_reason(code).unwrap() as u8, code);
        }
        assert_eq!(reason_code("KEYCOMPROMISE").unwrap(), 1);
        assert!(reason_code("nope").is_err());
        assert_eq!(reason_name(7), None);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(Crl::from_der(&[]).is_err());
        assert!(Crl::from_der(&[0x30, 0x03, 1, 2, 3]).is_err());
        assert!(Crl::from_pem("nothing").is_err());
    }
}
