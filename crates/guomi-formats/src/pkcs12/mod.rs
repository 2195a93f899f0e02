//! PKCS#12 (RFC 7292) files ("PFX", `.p12`/`.pfx`) holding an SM2 private key, its
//! certificate and a chain.
//!
//! ```text
//! PFX ::= SEQUENCE { version INTEGER {v3(3)}, authSafe ContentInfo, macData MacData OPTIONAL }
//! MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
//! AuthenticatedSafe ::= SEQUENCE OF ContentInfo   -- data or encryptedData (PBES2)
//! SafeContents ::= SEQUENCE OF SafeBag
//! SafeBag ::= SEQUENCE { bagId OID, bagValue [0] EXPLICIT ANY, bagAttributes SET OF Attribute OPTIONAL }
//! ```
//!
//! Written ([`dump`]), as OpenSSL 3 lays it out (an encrypted-data cert bag list, then a
//! data part with one `pkcs8ShroudedKeyBag`, `localKeyId` and `friendlyName` on the key
//! and its certificate):
//! * [`Encryption::Sm`]: PBES2 with PBKDF2-HMAC-SM3 (1.2.156.10197.1.401.2) and SM4-CBC
//!   for the key and the certificates, and an HMAC-SM3 MAC keyed by the PKCS#12 KDF
//!   (RFC 7292 appendix B, ID 3) over SM3; what BouncyCastle and GmSSL-style readers take.
//! * [`Encryption::Aes`]: PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC and an
//!   HMAC-SHA256 MAC: what `openssl pkcs12 -export` writes by default and Windows reads.
//!
//! Read ([`load`]): both of these; PBES2 with PRF HMAC-SM3 or HMAC-SHA256 and SM4-CBC or
//! AES-128/192/256-CBC; the SM PBES / SM PBKDF OIDs of gmsm and GM/T 0091; plain key
//! bags; nested safe-contents bags; a MAC over SM3, SHA-256 or (as Java and
//! BouncyCastle key stores write it) SHA-1 with the PKCS#12 KDF, or PBMAC1 (RFC 9579); BER
//! as well as DER. The MAC is checked first, in constant time, before anything is
//! decrypted; a file without a MAC is refused. Legacy encryption (3DES, RC2, RC4, PBES1,
//! PBKDF2 with hmacWithSHA1) is `UnsupportedFormat` naming the algorithm and how to
//! re-export.
//!
//! Bounds: a file of at most [`MAX_PFX_LEN`] bytes, at most [`MAX_BAGS`] bags in all,
//! safe-contents nesting at most [`MAX_DEPTH`], iteration counts 1 to [`MAX_ITERATIONS`]
//! per derivation and [`MAX_TOTAL_ITERATIONS`] for all the derivations of one [`load`]
//! together (the MAC key, every encrypted part, every shrouded key): the iteration counts
//! that can be read without a password are summed and checked before the first
//! derivation runs, and each derivation found later (a shrouded key inside an encrypted
//! part) is checked before it runs.

use crate::ber;
pub mod pbe;

pub use pbe::{Cipher, Hash, MacKind, Scheme, MAX_ITERATIONS};

use crate::asn1;
use crate::sm2_keys::PrivateKeyEncoding;
use crate::x509::{der_err, Certificate};
use der::asn1::{AnyRef, ObjectIdentifier as Oid};
use der::{Decode, Reader, SliceReader, Tag, TagNumber, Tagged};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::PrivateKey;
use zeroize::Zeroizing;

/// Largest PKCS#12 file accepted, in bytes (4 MiB).
pub const MAX_PFX_LEN: usize = 4 << 20;
/// Most bags (of any kind, all levels together) accepted in one file.
pub const MAX_BAGS: usize = 64;
/// Deepest nesting of `safeContentsBag`s accepted (1: none).
pub const MAX_DEPTH: usize = 4;
/// Iterations written by default (PBKDF2 and the MAC KDF).
pub const DEFAULT_ITERATIONS: u32 = 65_536;
/// Most key-derivation iterations (PBKDF2 and PKCS#12 KDF, each one iteration per HMAC or
/// hash) one [`load`] runs, all derivations together: three derivations at
/// [`MAX_ITERATIONS`], what [`dump`] writes at its maximum (the MAC, the certificates,
/// the key). A file asking for more is refused before the work starts.
pub const MAX_TOTAL_ITERATIONS: u64 = 3 * MAX_ITERATIONS as u64;

/// Object identifiers of PKCS#12 and PKCS#7/9.
pub mod oid {
    use der::asn1::ObjectIdentifier as Oid;
    /// id-data: 1.2.840.113549.1.7.1.
    pub const DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
    /// id-signedData: 1.2.840.113549.1.7.2.
    pub const SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");
    /// id-envelopedData: 1.2.840.113549.1.7.3.
    pub const ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.3");
    /// id-encryptedData: 1.2.840.113549.1.7.6.
    pub const ENCRYPTED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.6");
    /// keyBag: 1.2.840.113549.1.12.10.1.1.
    pub const KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.1");
    /// pkcs8ShroudedKeyBag: 1.2.840.113549.1.12.10.1.2.
    pub const SHROUDED_KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.2");
    /// certBag: 1.2.840.113549.1.12.10.1.3.
    pub const CERT_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.3");
    /// crlBag: 1.2.840.113549.1.12.10.1.4.
    pub const CRL_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.4");
    /// secretBag: 1.2.840.113549.1.12.10.1.5.
    pub const SECRET_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.5");
    /// safeContentsBag: 1.2.840.113549.1.12.10.1.6.
    pub const SAFE_CONTENTS_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.6");
    /// x509Certificate (certBag type): 1.2.840.113549.1.9.22.1.
    pub const X509_CERTIFICATE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.22.1");
    /// friendlyName: 1.2.840.113549.1.9.20.
    pub const FRIENDLY_NAME: Oid = Oid::new_unwrap("1.2.840.113549.1.9.20");
    /// localKeyId: 1.2.840.113549.1.9.21.
    pub const LOCAL_KEY_ID: Oid = Oid::new_unwrap("1.2.840.113549.1.9.21");
}

/// The algorithms [`dump`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encryption {
    /// PBKDF2-HMAC-SM3 + SM4-CBC, HMAC-SM3 MAC (PKCS#12 KDF over SM3).
    Sm,
    /// PBKDF2-HMAC-SHA256 + AES-256-CBC, HMAC-SHA256 MAC (OpenSSL 3's default).
    Aes,
}

impl Encryption {
    /// Parses "sm" or "aes" (any case).
    pub fn parse(name: &str) -> Result<Encryption> {
        match name.to_ascii_lowercase().as_str() {
            "sm" => Ok(Encryption::Sm),
            "aes" => Ok(Encryption::Aes),
            _ => Err(Error::InvalidValue("encryption must be \"sm\" or \"aes\"")),
        }
    }

    fn scheme(self) -> Scheme {
        match self {
            Encryption::Sm => Scheme {
                prf: Hash::Sm3,
                cipher: Cipher::Sm4Cbc,
            },
            Encryption::Aes => Scheme {
                prf: Hash::Sha256,
                cipher: Cipher::Aes256Cbc,
            },
        }
    }

    fn mac(self) -> Hash {
        match self {
            Encryption::Sm => Hash::Sm3,
            Encryption::Aes => Hash::Sha256,
        }
    }
}

/// What a PKCS#12 file held.
#[derive(Debug)]
pub struct Pkcs12 {
    /// The private key (at most one is accepted).
    pub key: Option<PrivateKey>,
    /// The key's certificate (DER): the one whose `localKeyId` or public key matches the
    /// key; without a key, the first certificate.
    pub certificate: Option<Vec<u8>>,
    /// The other certificates (DER), in file order.
    pub chain: Vec<Vec<u8>>,
    /// The `friendlyName` of the key (else of the certificate), if any.
    pub friendly_name: Option<String>,
    /// How the file was protected, for display.
    pub info: Info,
}

/// How a PKCS#12 file is protected (for `guomi pkcs12 info`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// "sm3", "sha256", "sha1" or "PBMAC1 (...)".
    pub mac: String,
    /// Iterations of the MAC's key derivation.
    pub mac_iterations: u32,
    /// One line per content or bag, e.g. "encrypted data: PBES2, PBKDF2-HMAC-SM3,
    /// SM4-CBC, 65536 iterations".
    pub contents: Vec<String>,
}

fn unexpected() -> Error {
    Error::UnsupportedFormat("malformed PKCS#12 structure")
}

/// The DER elements inside a constructed value.
fn elements<'a>(any: &AnyRef<'a>, tag: Tag) -> Result<Vec<AnyRef<'a>>> {
    if any.tag() != tag {
        return Err(unexpected());
    }
    let mut r = SliceReader::new(any.value()).map_err(der_err)?;
    let mut out = Vec::new();
    while !r.is_finished() {
        if out.len() >= 4 * MAX_BAGS {
            return Err(Error::UnsupportedFormat("PKCS#12: too many elements"));
        }
        out.push(AnyRef::decode(&mut r).map_err(der_err)?);
    }
    Ok(out)
}

fn oid_of(any: &AnyRef<'_>) -> Result<Oid> {
    any.decode_as::<Oid>().map_err(der_err)
}

fn octets_of<'a>(any: &AnyRef<'a>) -> Result<&'a [u8]> {
    if any.tag() != Tag::OctetString {
        return Err(unexpected());
    }
    Ok(any.value())
}

/// The single value inside `[n] EXPLICIT`.
fn explicit_of<'a>(any: &AnyRef<'a>, n: u8) -> Result<AnyRef<'a>> {
    let want = Tag::ContextSpecific {
        constructed: true,
        number: TagNumber::new(n),
    };
    if any.tag() != want {
        return Err(unexpected());
    }
    AnyRef::from_der(any.value()).map_err(der_err)
}

fn bmp_decode(b: &[u8]) -> Result<String> {
    if !b.len().is_multiple_of(2) {
        return Err(unexpected());
    }
    let units: Vec<u16> = b
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    Ok(char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect())
}

fn opaque() -> Error {
    Error::InvalidKey("cannot decrypt the PKCS#12 contents: the file is corrupted")
}

/// A bag's value with its `localKeyId` and `friendlyName`.
type WithAttributes<T> = (T, Option<Vec<u8>>, Option<String>);

struct Collected {
    keys: Vec<WithAttributes<PrivateKey>>,
    certs: Vec<WithAttributes<Vec<u8>>>,
    bags: usize,
    contents: Vec<String>,
    /// Key-derivation iterations still allowed (see [`MAX_TOTAL_ITERATIONS`]).
    budget: Budget,
}

/// What is left of the derivation work of one `load`.
struct Budget(u64);

impl Budget {
    /// Takes `iterations` from the budget before a derivation runs.
    fn charge(&mut self, iterations: u64) -> Result<()> {
        self.0 = self.0.checked_sub(iterations).ok_or(too_much_work())?;
        Ok(())
    }
}

fn too_much_work() -> Error {
    Error::UnsupportedFormat(
        "PKCS#12: the key derivations of this file need more than 30000000 iterations in \
         all (MAX_TOTAL_ITERATIONS)",
    )
}

/// The iterations of the derivations that can be seen without decrypting anything:
/// every encrypted part and every shrouded key in the plain parts (nested bags too).
/// What cannot be read counts 0 here; the walk that follows refuses it.
fn visible_iterations(auth_bytes: &[u8]) -> u64 {
    fn pbe_iterations(alg: &AnyRef<'_>) -> Option<u64> {
        let der = alg.to_der_vec().ok()?;
        let used = pbe::inspect(&pbe::alg_ref(&der).ok()?).ok()?;
        Some(u64::from(used.iterations))
    }
    fn in_safe_contents(der: &[u8], depth: usize) -> u64 {
        let Ok(der) = ber::to_der(der) else { return 0 };
        let der = Zeroizing::new(der);
        let Ok(top) = AnyRef::from_der(&der) else {
            return 0;
        };
        let mut sum = 0u64;
        for bag in elements(&top, Tag::Sequence).unwrap_or_default() {
            let Ok(parts) = elements(&bag, Tag::Sequence) else {
                continue;
            };
            let (Some(id), Some(value)) = (parts.first(), parts.get(1)) else {
                continue;
            };
            let Ok(value) = explicit_of(value, 0) else {
                continue;
            };
            sum = sum.saturating_add(match oid_of(id) {
                Ok(oid::SHROUDED_KEY_BAG) => elements(&value, Tag::Sequence)
                    .ok()
                    .and_then(|epki| pbe_iterations(epki.first()?))
                    .unwrap_or(0),
                Ok(oid::SAFE_CONTENTS_BAG) if depth < MAX_DEPTH => value
                    .to_der_vec()
                    .map(|d| in_safe_contents(&d, depth + 1))
                    .unwrap_or(0),
                _ => 0,
            });
        }
        sum
    }
    let Ok(der) = ber::to_der(auth_bytes) else {
        return 0;
    };
    let Ok(safe) = AnyRef::from_der(&der) else {
        return 0;
    };
    let mut sum = 0u64;
    for ci in elements(&safe, Tag::Sequence).unwrap_or_default() {
        let Ok(ci) = elements(&ci, Tag::Sequence) else {
            continue;
        };
        let (Some(t), Some(body)) = (ci.first(), ci.get(1)) else {
            continue;
        };
        let Ok(body) = explicit_of(body, 0) else {
            continue;
        };
        sum = sum.saturating_add(match oid_of(t) {
            Ok(oid::DATA) => octets_of(&body)
                .map(|b| in_safe_contents(b, 1))
                .unwrap_or(0),
            Ok(oid::ENCRYPTED_DATA) => elements(&body, Tag::Sequence)
                .ok()
                .and_then(|ed| elements(ed.get(1)?, Tag::Sequence).ok())
                .and_then(|eci| pbe_iterations(eci.get(1)?))
                .unwrap_or(0),
            _ => 0,
        });
    }
    sum
}

/// localKeyId and friendlyName of a bag.
fn attributes(any: Option<&AnyRef<'_>>) -> Result<(Option<Vec<u8>>, Option<String>)> {
    let (mut id, mut name) = (None, None);
    let Some(any) = any else {
        return Ok((id, name));
    };
    for attr in elements(any, Tag::Set)? {
        let parts = elements(&attr, Tag::Sequence)?;
        if parts.len() != 2 {
            return Err(unexpected());
        }
        let values = elements(&parts[1], Tag::Set)?;
        let first = values.first();
        match oid_of(&parts[0])? {
            oid::LOCAL_KEY_ID => {
                if let Some(v) = first {
                    id = Some(octets_of(v)?.to_vec());
                }
            }
            oid::FRIENDLY_NAME => {
                if let Some(v) = first {
                    if v.tag() != Tag::BmpString {
                        return Err(unexpected());
                    }
                    name = Some(bmp_decode(v.value())?);
                }
            }
            _ => {}
        }
    }
    Ok((id, name))
}

fn read_safe_contents(
    der: &[u8],
    password: &[u8],
    depth: usize,
    out: &mut Collected,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::UnsupportedFormat(
            "PKCS#12: safe contents nested too deeply",
        ));
    }
    let der = Zeroizing::new(ber::to_der(der)?);
    let top = AnyRef::from_der(&der).map_err(der_err)?;
    for bag in elements(&top, Tag::Sequence)? {
        out.bags += 1;
        if out.bags > MAX_BAGS {
            return Err(Error::UnsupportedFormat(
                "PKCS#12: too many bags (at most 64)",
            ));
        }
        let parts = elements(&bag, Tag::Sequence)?;
        if parts.len() < 2 || parts.len() > 3 {
            return Err(unexpected());
        }
        let bag_id = oid_of(&parts[0])?;
        let value = explicit_of(&parts[1], 0)?;
        let (local_id, name) = attributes(parts.get(2))?;
        match bag_id {
            oid::KEY_BAG => {
                let key =
                    PrivateKey::from_pkcs8_der(value.to_der_vec()?.as_slice()).map_err(|_| {
                        Error::UnsupportedFormat("PKCS#12: the key bag is not an SM2 key")
                    })?;
                out.contents.push("key bag (not encrypted)".into());
                out.keys.push((key, local_id, name));
            }
            oid::SHROUDED_KEY_BAG => {
                let epki = elements(&value, Tag::Sequence)?;
                if epki.len() != 2 {
                    return Err(unexpected());
                }
                let alg_der = epki[0].to_der_vec()?;
                let alg = pbe::alg_ref(&alg_der)?;
                out.budget
                    .charge(u64::from(pbe::inspect(&alg)?.iterations))?;
                let (plain, used) =
                    pbe::decrypt(&alg, password, octets_of(&epki[1])?).map_err(|e| match e {
                        Error::UnsupportedFormat(_) => e,
                        _ => opaque(),
                    })?;
                let key = PrivateKey::from_pkcs8_der(&plain).map_err(|_| opaque())?;
                out.contents.push(format!(
                    "shrouded key bag: {}, {} iterations",
                    used.scheme.describe(),
                    used.iterations
                ));
                out.keys.push((key, local_id, name));
            }
            oid::CERT_BAG => {
                let cb = elements(&value, Tag::Sequence)?;
                if cb.len() != 2 {
                    return Err(unexpected());
                }
                if oid_of(&cb[0])? != oid::X509_CERTIFICATE {
                    return Err(Error::UnsupportedFormat(
                        "PKCS#12: only X.509 certificate bags are supported",
                    ));
                }
                let cert = octets_of(&explicit_of(&cb[1], 0)?)?.to_vec();
                out.certs.push((cert, local_id, name));
            }
            oid::SAFE_CONTENTS_BAG => {
                read_safe_contents(&value.to_der_vec()?, password, depth + 1, out)?;
            }
            oid::CRL_BAG | oid::SECRET_BAG => {
                out.contents.push("CRL or secret bag (ignored)".into());
            }
            _ => return Err(Error::UnsupportedFormat("PKCS#12: unknown bag type")),
        }
    }
    Ok(())
}

trait ToDerVec {
    fn to_der_vec(&self) -> Result<Vec<u8>>;
}

impl ToDerVec for AnyRef<'_> {
    fn to_der_vec(&self) -> Result<Vec<u8>> {
        der::Encode::to_der(self).map_err(der_err)
    }
}

/// Reads a PKCS#12 file (DER) with `password` (UTF-8; used as a BMPString for the
/// PKCS#12 MAC and as its UTF-8 bytes for PBES2, as OpenSSL, BouncyCastle and gmsm do).
///
/// Errors: `InvalidKey` for a wrong password or a changed file (one message);
/// `UnsupportedFormat` for malformed or unsupported contents (legacy algorithms are
/// named), bounds exceeded (among them [`MAX_TOTAL_ITERATIONS`], checked before any
/// derivation runs), or no MAC; `InvalidValue` for a password that is not UTF-8.
pub fn load(data: &[u8], password: &[u8]) -> Result<Pkcs12> {
    load_within(data, password, MAX_TOTAL_ITERATIONS)
}

/// [`load`] with a derivation budget of `budget` iterations (the tests use small ones).
fn load_within(data: &[u8], password: &[u8], budget: u64) -> Result<Pkcs12> {
    if data.len() > MAX_PFX_LEN {
        return Err(Error::UnsupportedFormat("PKCS#12: file larger than 4 MiB"));
    }
    // BER (indefinite lengths, segmented OCTET STRINGs) as Java and BouncyCastle write
    // it is read as its DER equivalent; the MAC covers the content octets either way.
    let data = ber::to_der(data)?;
    let pfx = AnyRef::from_der(&data).map_err(der_err)?;
    let parts = elements(&pfx, Tag::Sequence)?;
    if parts.len() < 2 || parts.len() > 3 {
        return Err(unexpected());
    }
    if parts[0].decode_as::<u8>().map_err(der_err)? != 3 {
        return Err(Error::UnsupportedFormat("PKCS#12: version must be 3"));
    }
    let auth = elements(&parts[1], Tag::Sequence)?;
    if auth.is_empty() || auth.len() > 2 {
        return Err(unexpected());
    }
    match oid_of(&auth[0])? {
        oid::DATA => {}
        oid::SIGNED_DATA => {
            return Err(Error::UnsupportedFormat(
                "PKCS#12: public-key integrity mode (signedData) is not supported",
            ))
        }
        _ => return Err(unexpected()),
    }
    let auth_bytes = octets_of(&explicit_of(auth.get(1).ok_or_else(unexpected)?, 0)?)?;
    let mac = parts.get(2).ok_or(Error::UnsupportedFormat(
        "PKCS#12: the file has no MAC (password integrity); such files are not accepted",
    ))?;
    let mac = elements(mac, Tag::Sequence)?;
    if mac.len() < 2 || mac.len() > 3 {
        return Err(unexpected());
    }
    let digest_info = elements(&mac[0], Tag::Sequence)?;
    if digest_info.len() != 2 {
        return Err(unexpected());
    }
    let mac_alg_der = digest_info[0].to_der_vec()?;
    let mac_alg = pbe::alg_ref(&mac_alg_der)?;
    let tag = octets_of(&digest_info[1])?;
    let salt = octets_of(&mac[1])?;
    let iterations = match mac.get(2) {
        Some(i) => i.decode_as::<u32>().map_err(der_err)?,
        None => 1,
    };
    // The whole derivation work that can be seen, before any of it runs (the MAC's own
    // parameters are bounded by `mac_kind`).
    let mut budget = Budget(budget);
    budget.charge(match pbe::mac_kind(&mac_alg, iterations)? {
        MacKind::Pkcs12(_) => u64::from(iterations),
        MacKind::Pbmac1 { iterations, .. } => u64::from(iterations),
    })?;
    if visible_iterations(auth_bytes) > budget.0 {
        return Err(too_much_work());
    }
    // The MAC first, in constant time, before anything is decrypted.
    let kind = pbe::verify_mac(&mac_alg, tag, salt, iterations, password, auth_bytes)?;
    let (mac_name, mac_iterations) = match kind {
        MacKind::Pkcs12(h) => (h.name().to_string(), iterations),
        MacKind::Pbmac1 {
            prf,
            mac,
            iterations,
        } => (
            format!("PBMAC1 (PBKDF2-HMAC-{}, HMAC-{})", prf.name(), mac.name()).to_uppercase(),
            iterations,
        ),
    };

    let mut out = Collected {
        keys: Vec::new(),
        certs: Vec::new(),
        bags: 0,
        contents: Vec::new(),
        budget,
    };
    let auth_der = ber::to_der(auth_bytes)?;
    let safe = AnyRef::from_der(&auth_der).map_err(der_err)?;
    let infos = elements(&safe, Tag::Sequence)?;
    if infos.len() > MAX_BAGS {
        return Err(Error::UnsupportedFormat(
            "PKCS#12: too many bags (at most 64)",
        ));
    }
    for ci in infos {
        let ci = elements(&ci, Tag::Sequence)?;
        if ci.len() != 2 {
            return Err(unexpected());
        }
        match oid_of(&ci[0])? {
            oid::DATA => {
                let body = octets_of(&explicit_of(&ci[1], 0)?)?;
                out.contents.push("data".into());
                read_safe_contents(body, password, 1, &mut out)?;
            }
            oid::ENCRYPTED_DATA => {
                let ed = elements(&explicit_of(&ci[1], 0)?, Tag::Sequence)?;
                if ed.len() != 2 || ed[0].decode_as::<u8>().map_err(der_err)? > 2 {
                    return Err(unexpected());
                }
                let eci = elements(&ed[1], Tag::Sequence)?;
                if eci.len() != 3 || oid_of(&eci[0])? != oid::DATA {
                    return Err(unexpected());
                }
                // [0] IMPLICIT OCTET STRING: primitive, or (BER) constructed from
                // OCTET STRING segments.
                let number = TagNumber::new(0);
                let encrypted: Vec<u8> = match eci[2].tag() {
                    Tag::ContextSpecific {
                        constructed: false,
                        number: n,
                    } if n == number => eci[2].value().to_vec(),
                    Tag::ContextSpecific {
                        constructed: true,
                        number: n,
                    } if n == number => {
                        let mut v = Vec::new();
                        let mut r = SliceReader::new(eci[2].value()).map_err(der_err)?;
                        while !r.is_finished() {
                            v.extend_from_slice(octets_of(
                                &AnyRef::decode(&mut r).map_err(der_err)?,
                            )?);
                        }
                        v
                    }
                    _ => return Err(unexpected()),
                };
                let alg_der = eci[1].to_der_vec()?;
                let alg = pbe::alg_ref(&alg_der)?;
                out.budget
                    .charge(u64::from(pbe::inspect(&alg)?.iterations))?;
                let (plain, used) =
                    pbe::decrypt(&alg, password, &encrypted).map_err(|e| match e {
                        Error::UnsupportedFormat(_) => e,
                        _ => opaque(),
                    })?;
                out.contents.push(format!(
                    "encrypted data: {}, {} iterations",
                    used.scheme.describe(),
                    used.iterations
                ));
                let plain: Zeroizing<Vec<u8>> = plain;
                read_safe_contents(&plain, password, 1, &mut out)?;
            }
            oid::ENVELOPED_DATA => {
                return Err(Error::UnsupportedFormat(
                    "PKCS#12: public-key privacy mode (envelopedData) is not supported",
                ))
            }
            _ => return Err(unexpected()),
        }
    }

    if out.keys.len() > 1 {
        return Err(Error::UnsupportedFormat(
            "PKCS#12: more than one private key; guomi reads files with at most one",
        ));
    }
    let key = out.keys.pop();
    let certs = std::mem::take(&mut out.certs);
    let mut index = None;
    if let Some((k, id, _)) = &key {
        if let Some(id) = id {
            index = certs
                .iter()
                .position(|(_, cid, _)| cid.as_ref() == Some(id));
        }
        if index.is_none() {
            index = certs.iter().position(|(der, _, _)| {
                Certificate::from_der(der)
                    .and_then(|c| c.public_key())
                    .is_ok_and(|p| &p == k.public_key())
            });
        }
    } else if !certs.is_empty() {
        index = Some(0);
    }
    let mut certificate = None;
    let mut chain = Vec::with_capacity(certs.len());
    let mut cert_name = None;
    for (i, (der, _, name)) in certs.into_iter().enumerate() {
        if Some(i) == index {
            certificate = Some(der);
            cert_name = name;
        } else {
            chain.push(der);
        }
    }
    let (key, friendly_name) = match key {
        Some((k, _, name)) => (Some(k), name.or(cert_name)),
        None => (None, cert_name),
    };
    Ok(Pkcs12 {
        key,
        certificate,
        chain,
        friendly_name,
        info: Info {
            mac: mac_name,
            mac_iterations,
            contents: out.contents,
        },
    })
}

fn bag_attributes(local_id: &[u8], name: Option<&str>) -> Result<Vec<u8>> {
    let id = asn1::seq(&[
        &asn1::oid(&oid::LOCAL_KEY_ID)?,
        &asn1::set_of(&[&asn1::octets(local_id)?])?,
    ])?;
    match name {
        Some(n) => {
            let fname = asn1::seq(&[
                &asn1::oid(&oid::FRIENDLY_NAME)?,
                &asn1::set_of(&[&asn1::bmp_string(n)?])?,
            ])?;
            asn1::set_of(&[&fname, &id])
        }
        None => asn1::set_of(&[&id]),
    }
}

fn cert_bag(der: &[u8], attrs: Option<&[u8]>) -> Result<Vec<u8>> {
    let value = asn1::seq(&[
        &asn1::oid(&oid::X509_CERTIFICATE)?,
        &asn1::explicit(0, &asn1::octets(der)?)?,
    ])?;
    let mut parts: Vec<&[u8]> = vec![&[]; 0];
    let id = asn1::oid(&oid::CERT_BAG)?;
    let v = asn1::explicit(0, &value)?;
    parts.push(&id);
    parts.push(&v);
    if let Some(a) = attrs {
        parts.push(a);
    }
    asn1::seq(&parts)
}

/// Writes a PKCS#12 file (DER): `key` (if any) as a `pkcs8ShroudedKeyBag`, `certificate`
/// (if any; DER) and `chain` (DER, at most [`MAX_BAGS`] - 2) in an encrypted-data cert
/// list, all under `password` (UTF-8, characters of the BMP) with `encryption` and
/// `iterations` (1 to [`MAX_ITERATIONS`]) for PBKDF2 and the MAC. Salts (16 bytes) and
/// IVs are random from the OS. `name` becomes the `friendlyName` of the key and its
/// certificate; their `localKeyId` is the SM3 (or, for AES, SHA-256) digest of the
/// certificate, else of the public key. The key must match the certificate.
#[allow(clippy::too_many_arguments)]
pub fn dump(
    key: Option<&PrivateKey>,
    certificate: Option<&[u8]>,
    chain: &[&[u8]],
    password: &[u8],
    encryption: Encryption,
    iterations: u32,
    name: Option<&str>,
) -> Result<Vec<u8>> {
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::InvalidValue("iterations must be 1 to 10000000"));
    }
    if key.is_none() && certificate.is_none() && chain.is_empty() {
        return Err(Error::InvalidValue("PKCS#12: nothing to write"));
    }
    if chain.len() + 2 > MAX_BAGS {
        return Err(Error::InvalidValue(
            "PKCS#12: at most 62 chain certificates",
        ));
    }
    if name.is_some_and(|n| n.chars().any(|c| u32::from(c) > 0xFFFF)) {
        return Err(Error::InvalidValue(
            "PKCS#12: the friendly name must be in the Basic Multilingual Plane",
        ));
    }
    pbe::bmp_password(password)?;
    if let Some(c) = certificate {
        let parsed = Certificate::from_der(c)?;
        if let Some(k) = key {
            if parsed.public_key().ok().as_ref() != Some(k.public_key()) {
                return Err(Error::InvalidValue(
                    "PKCS#12: the private key does not match the certificate",
                ));
            }
        }
    }
    for c in chain {
        Certificate::from_der(c)?;
    }
    let mac_hash = encryption.mac();
    let digest = |b: &[u8]| -> Vec<u8> {
        match mac_hash {
            Hash::Sm3 => guomi_core::sm3::hash(b).to_vec(),
            // Never SHA-1: `Encryption` writes SM3 or SHA-256 only.
            Hash::Sha256 | Hash::Sha1 => {
                use sha2::Digest;
                sha2::Sha256::digest(b).to_vec()
            }
        }
    };
    let local_id = match (certificate, key) {
        (Some(c), _) => digest(c),
        (None, Some(k)) => digest(&k.public_key().to_uncompressed()),
        (None, None) => Vec::new(),
    };
    let attrs = bag_attributes(&local_id, name)?;
    let scheme = encryption.scheme();
    let mut infos: Vec<Vec<u8>> = Vec::new();
    if certificate.is_some() || !chain.is_empty() {
        let mut bags: Vec<Vec<u8>> = Vec::new();
        if let Some(c) = certificate {
            bags.push(cert_bag(c, Some(&attrs))?);
        }
        for c in chain {
            bags.push(cert_bag(c, None)?);
        }
        let refs: Vec<&[u8]> = bags.iter().map(|b| b.as_slice()).collect();
        let safe = asn1::seq(&refs)?;
        let (alg, ct) = pbe::encrypt(scheme, password, iterations, &safe)?;
        let eci = asn1::seq(&[
            &asn1::oid(&oid::DATA)?,
            &alg,
            &asn1::tlv(asn1::ctx_prim(0), &ct)?,
        ])?;
        let ed = asn1::seq(&[&asn1::uint(0)?, &eci])?;
        infos.push(asn1::seq(&[
            &asn1::oid(&oid::ENCRYPTED_DATA)?,
            &asn1::explicit(0, &ed)?,
        ])?);
    }
    if let Some(k) = key {
        let pkcs8 = k.to_pkcs8_der();
        let (alg, ct) = pbe::encrypt(scheme, password, iterations, &pkcs8)?;
        let epki = asn1::seq(&[&alg, &asn1::octets(&ct)?])?;
        let bag = asn1::seq(&[
            &asn1::oid(&oid::SHROUDED_KEY_BAG)?,
            &asn1::explicit(0, &epki)?,
            &attrs,
        ])?;
        let safe = asn1::seq(&[&bag])?;
        infos.push(asn1::seq(&[
            &asn1::oid(&oid::DATA)?,
            &asn1::explicit(0, &asn1::octets(&safe)?)?,
        ])?);
    }
    let refs: Vec<&[u8]> = infos.iter().map(|b| b.as_slice()).collect();
    seal(&asn1::seq(&refs)?, password, encryption, iterations)
}

/// Wraps a DER `AuthenticatedSafe` into a PFX with a MAC under `password` (the last step
/// of [`dump`]; public for the fuzz target, which feeds arbitrary contents past the MAC).
#[doc(hidden)]
pub fn seal(
    auth_safe: &[u8],
    password: &[u8],
    encryption: Encryption,
    iterations: u32,
) -> Result<Vec<u8>> {
    let mac_hash = encryption.mac();
    let salt = guomi_core::rand::bytes::<16>()?;
    let tag = pbe::compute_mac(mac_hash, password, &salt, iterations, auth_safe)?;
    let mac_data = asn1::seq(&[
        &asn1::seq(&[
            &asn1::seq(&[&asn1::oid(&mac_hash.digest_oid())?, &asn1::null()])?,
            &asn1::octets(&tag)?,
        ])?,
        &asn1::octets(&salt)?,
        &asn1::uint(iterations)?,
    ])?;
    let auth = asn1::seq(&[
        &asn1::oid(&oid::DATA)?,
        &asn1::explicit(0, &asn1::octets(auth_safe)?)?,
    ])?;
    asn1::seq(&[&asn1::uint(3)?, &auth, &mac_data])
}

#[cfg(test)]
mod tests;
