//! SM2 key containers: SubjectPublicKeyInfo (RFC 5480), SEC1 `ECPrivateKey` (RFC 5915)
//! and PKCS#8 `PrivateKeyInfo` (RFC 5208 / 5958), DER and PEM, for guomi-core's
//! [`PublicKey`] and [`PrivateKey`] (sm2p256v1).
//!
//! Both algorithm identifiers are read: `id-ecPublicKey` (1.2.840.10045.2.1) with the
//! curve sm2p256v1 (1.2.156.10197.1.301), and the bare SM2 OID (with absent or NULL
//! parameters, as some Chinese toolkits write it); the first is written. Parsing is strict
//! DER: nothing may follow the outer structure. Encrypted PKCS#8 and legacy encrypted PEM
//! are in [`crate::x509::keys`]. The DER is read and written with the crate's one ASN.1
//! layer (the `der` crate, here through the raw-element helpers of `crate::asn1`).
//!
//! Bring the traits into scope (`use guomi_formats::sm2_keys::{PrivateKeyEncoding,
//! PublicKeyEncoding};`) and call the methods on the core's key types.

use crate::asn1::{self, Reader, BIT_STRING, INTEGER, NULL, OCTET_STRING, OID, SEQUENCE};
use crate::x509::keys::{pem_blocks, pem_encode};
use crate::x509::oid::{EC_PUBLIC_KEY, SM2};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::{PrivateKey, PublicKey, Sm2p256};
use zeroize::Zeroizing;

/// DER/PEM containers of an SM2 public key.
pub trait PublicKeyEncoding: Sized {
    /// DER SubjectPublicKeyInfo with id-ecPublicKey + sm2p256v1.
    fn to_spki_der(&self) -> Vec<u8>;
    /// PEM "PUBLIC KEY" (SubjectPublicKeyInfo).
    fn to_spki_pem(&self) -> String;
    /// Parses a DER SubjectPublicKeyInfo (id-ecPublicKey + sm2p256v1, or the bare SM2 OID,
    /// with or without a NULL parameter).
    fn from_spki_der(der: &[u8]) -> Result<Self>;
    /// Parses the first PEM "PUBLIC KEY" block.
    fn from_spki_pem(pem: &str) -> Result<Self>;
}

/// DER/PEM containers of an SM2 private key. Every buffer holding the key is zeroized.
pub trait PrivateKeyEncoding: Sized {
    /// SEC1 ECPrivateKey DER (RFC 5915), with parameters and public key.
    fn to_sec1_der(&self) -> Zeroizing<Vec<u8>>;
    /// PKCS#8 PrivateKeyInfo DER (RFC 5208), id-ecPublicKey + sm2p256v1, SEC1 inside
    /// (without the repeated parameters).
    fn to_pkcs8_der(&self) -> Zeroizing<Vec<u8>>;
    /// PEM "EC PRIVATE KEY" (SEC1).
    fn to_sec1_pem(&self) -> Zeroizing<String>;
    /// PEM "PRIVATE KEY" (PKCS#8).
    fn to_pkcs8_pem(&self) -> Zeroizing<String>;
    /// Parses SEC1 ECPrivateKey DER. An embedded public key must match d·G.
    fn from_sec1_der(der: &[u8]) -> Result<Self>;
    /// Parses PKCS#8 PrivateKeyInfo DER (version 0 or 1; attributes ignored). Strict: the
    /// SEC1 key fills its OCTET STRING exactly, only `[0] attributes` and `[1] publicKey`
    /// may follow it, and nothing may follow the outer SEQUENCE.
    fn from_pkcs8_der(der: &[u8]) -> Result<Self>;
    /// Parses DER: PKCS#8 or SEC1, whichever it is.
    fn from_der(der: &[u8]) -> Result<Self>;
    /// Parses the first PEM "PRIVATE KEY" (PKCS#8) or "EC PRIVATE KEY" (SEC1) block.
    /// Encrypted keys: [`crate::x509::keys::load_private_key_pem`].
    fn from_pem(pem: &str) -> Result<Self>;
}

/// Reads an AlgorithmIdentifier naming SM2 (either form).
fn read_algorithm(alg: &mut Reader<'_>) -> Result<()> {
    let oid = alg.read(OID)?;
    if oid == EC_PUBLIC_KEY.as_bytes() {
        let curve = alg.read(OID)?;
        if curve != SM2.as_bytes() {
            return Err(Error::UnsupportedFormat(
                "EC key on a curve other than sm2p256v1",
            ));
        }
    } else if oid == SM2.as_bytes() {
        if alg.peek_tag() == Some(NULL) {
            alg.read(NULL)?;
        } else if alg.peek_tag() == Some(OID) && alg.read(OID)? != SM2.as_bytes() {
            return Err(Error::UnsupportedFormat("unexpected SM2 key parameters"));
        }
    } else {
        return Err(Error::UnsupportedFormat(
            "not an SM2 key (unknown algorithm OID)",
        ));
    }
    alg.finish()
}

/// The DER body of the first PEM block with one of `labels`: (label, der).
fn pem_first<'l>(text: &str, labels: &[&'l str]) -> Result<(&'l str, Zeroizing<Vec<u8>>)> {
    for block in pem_blocks(text)? {
        if let Some(label) = labels.iter().find(|l| **l == block.label) {
            if !block.headers.is_empty() {
                return Err(Error::UnsupportedFormat(
                    "encrypted PEM (Proc-Type headers) is not supported here: use \
                     guomi_formats::x509::keys::load_private_key_pem",
                ));
            }
            return Ok((label, block.der));
        }
    }
    Err(Error::UnsupportedFormat(
        "no PEM block with an expected label",
    ))
}

/// AlgorithmIdentifier { id-ecPublicKey, sm2p256v1 }.
fn ec_sm2_algorithm() -> Result<Vec<u8>> {
    asn1::seq(&[&asn1::oid(&EC_PUBLIC_KEY)?, &asn1::oid(&SM2)?])
}

/// BIT STRING holding the uncompressed point.
fn point_bits(key: &PublicKey) -> Result<Vec<u8>> {
    let mut bits = vec![0u8];
    bits.extend_from_slice(&key.to_uncompressed());
    asn1::tlv(BIT_STRING, &bits)
}

fn pem(label: &str, der: &[u8]) -> String {
    // Encoding DER of at most a few hundred bytes with a fixed ASCII label cannot fail.
    pem_encode(label, der).unwrap_or_default()
}

impl PublicKeyEncoding for PublicKey {
    fn to_spki_der(&self) -> Vec<u8> {
        let spki = || asn1::seq(&[&ec_sm2_algorithm()?, &point_bits(self)?]);
        // Cannot fail: the encoding is 91 bytes.
        spki().unwrap_or_default()
    }

    fn to_spki_pem(&self) -> String {
        pem("PUBLIC KEY", &self.to_spki_der())
    }

    fn from_spki_der(der: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(der);
        let mut spki = Reader::new(outer.read(SEQUENCE)?);
        outer.finish()?;
        let mut alg = Reader::new(spki.read(SEQUENCE)?);
        read_algorithm(&mut alg)?;
        let bits = spki.read(BIT_STRING)?;
        spki.finish()?;
        if bits.first() != Some(&0) {
            return Err(Error::UnsupportedFormat(
                "public key BIT STRING has unused bits",
            ));
        }
        Self::from_bytes(&bits[1..])
    }

    fn from_spki_pem(pem: &str) -> Result<Self> {
        let (_, der) = pem_first(pem, &["PUBLIC KEY"])?;
        Self::from_spki_der(&der)
    }
}

/// The SEC1 body fields after the version: privateKey, optional [0] parameters, optional
/// [1] publicKey; written into a buffer whose capacity is reserved up front (growing
/// would free a copy holding d).
fn sec1(key: &PrivateKey, with_parameters: bool) -> Result<Zeroizing<Vec<u8>>> {
    let d = key.to_bytes();
    let mut body = Zeroizing::new(Vec::with_capacity(160));
    body.extend_from_slice(&asn1::uint(1)?);
    asn1::write_tlv(&mut body, OCTET_STRING, &d[..])?;
    if with_parameters {
        asn1::write_tlv(&mut body, asn1::ctx_cons(0), &asn1::oid(&SM2)?)?;
    }
    asn1::write_tlv(&mut body, asn1::ctx_cons(1), &point_bits(key.public_key())?)?;
    let mut out = Zeroizing::new(Vec::with_capacity(body.len() + 4));
    asn1::write_tlv(&mut out, SEQUENCE, &body)?;
    Ok(out)
}

/// PKCS#8 PrivateKeyInfo v1 around the SEC1 key, with or without its `[0]` parameters
/// (the curve is already named by the PrivateKeyInfo's AlgorithmIdentifier). Plain PKCS#8
/// leaves them out, as OpenSSL 3 writes it; the encrypted form keeps `[0] sm2p256v1`,
/// which GmSSL 3.1.1's `sm2_private_key_from_der` requires (with `[1] publicKey`).
fn pkcs8(key: &PrivateKey, with_parameters: bool) -> Result<Zeroizing<Vec<u8>>> {
    let inner = sec1(key, with_parameters)?;
    let alg = ec_sm2_algorithm()?;
    let mut body = Zeroizing::new(Vec::with_capacity(inner.len() + alg.len() + 16));
    body.extend_from_slice(&asn1::uint(0)?);
    body.extend_from_slice(&alg);
    asn1::write_tlv(&mut body, OCTET_STRING, &inner)?;
    let mut out = Zeroizing::new(Vec::with_capacity(body.len() + 4));
    asn1::write_tlv(&mut out, SEQUENCE, &body)?;
    Ok(out)
}

/// PKCS#8 PrivateKeyInfo whose ECPrivateKey carries `[0] sm2p256v1` and `[1] publicKey`:
/// the body of guomi's encrypted PKCS#8 ([`crate::x509::keys`]), the form GmSSL 3.1.1
/// writes and the only one it reads. Cannot fail: the encoding is under 160 bytes.
pub(crate) fn pkcs8_der_with_curve(key: &PrivateKey) -> Zeroizing<Vec<u8>> {
    pkcs8(key, true).unwrap_or_default()
}

impl PrivateKeyEncoding for PrivateKey {
    // Neither can fail: the encodings are under 160 bytes.
    fn to_sec1_der(&self) -> Zeroizing<Vec<u8>> {
        sec1(self, true).unwrap_or_default()
    }

    fn to_pkcs8_der(&self) -> Zeroizing<Vec<u8>> {
        pkcs8(self, false).unwrap_or_default()
    }

    fn to_sec1_pem(&self) -> Zeroizing<String> {
        Zeroizing::new(pem("EC PRIVATE KEY", &self.to_sec1_der()))
    }

    fn to_pkcs8_pem(&self) -> Zeroizing<String> {
        Zeroizing::new(pem("PRIVATE KEY", &self.to_pkcs8_der()))
    }

    fn from_sec1_der(der: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(der);
        let mut r = Reader::new(outer.read(SEQUENCE)?);
        outer.finish()?;
        if r.read(INTEGER)? != [1] {
            return Err(Error::UnsupportedFormat("ECPrivateKey version must be 1"));
        }
        let d = r.read(OCTET_STRING)?;
        if d.len() != 32 {
            return Err(Error::InvalidLength {
                what: "ECPrivateKey privateKey",
                expected: "32 bytes",
                got: d.len(),
            });
        }
        let key = Self::from_bytes(d)?;
        if r.peek_tag() == Some(asn1::ctx_cons(0)) {
            let mut p = Reader::new(r.read(asn1::ctx_cons(0))?);
            let oid = p.read(OID)?;
            p.finish()?;
            if oid != SM2.as_bytes() {
                return Err(Error::UnsupportedFormat(
                    "EC private key on a curve other than sm2p256v1",
                ));
            }
        }
        if r.peek_tag() == Some(asn1::ctx_cons(1)) {
            let mut p = Reader::new(r.read(asn1::ctx_cons(1))?);
            let bits = p.read(BIT_STRING)?;
            p.finish()?;
            if bits.first() != Some(&0)
                || &PublicKey::<Sm2p256>::from_bytes(&bits[1..])? != key.public_key()
            {
                return Err(Error::InvalidKey(
                    "embedded public key does not match the private key",
                ));
            }
        }
        r.finish()?;
        Ok(key)
    }

    fn from_pkcs8_der(der: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(der);
        let mut r = Reader::new(outer.read(SEQUENCE)?);
        outer.finish()?;
        let v = r.read(INTEGER)?;
        if v != [0] && v != [1] {
            return Err(Error::UnsupportedFormat("unknown PKCS#8 version"));
        }
        let mut alg = Reader::new(r.read(SEQUENCE)?);
        read_algorithm(&mut alg)?;
        let inner = r.read(OCTET_STRING)?;
        // [0] attributes and [1] public key (v2, RFC 5958) may follow; they are not needed,
        // but nothing else may.
        if r.peek_tag() == Some(asn1::ctx_cons(0)) {
            r.read(asn1::ctx_cons(0))?;
        }
        if r.peek_tag() == Some(asn1::ctx_prim(1)) {
            r.read(asn1::ctx_prim(1))?;
        }
        r.finish()?;
        Self::from_sec1_der(inner)
    }

    fn from_der(der: &[u8]) -> Result<Self> {
        Self::from_pkcs8_der(der).or_else(|e| Self::from_sec1_der(der).map_err(|_| e))
    }

    fn from_pem(pem: &str) -> Result<Self> {
        if pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            return Err(Error::UnsupportedFormat(
                "an encrypted PKCS#8 key needs a password: use \
                 guomi_formats::x509::keys::load_private_key_pem",
            ));
        }
        let (label, der) = pem_first(pem, &["PRIVATE KEY", "EC PRIVATE KEY"])?;
        if label == "PRIVATE KEY" {
            Self::from_pkcs8_der(&der)
        } else {
            Self::from_sec1_der(&der)
        }
    }
}
