//! EnvelopedData (RFC 5652 §6) with SM2 key transport (GM/T 0010-2012 §9) and an SM4
//! content cipher.
//!
//! A fresh 16-byte SM4 content-encryption key (CEK) is encrypted to each recipient's SM2
//! public key in a KeyTransRecipientInfo: as the GM/T 0009 ASN.1 `SM2Cipher` by default
//! ([`KeyFormat::Der`]), or as BouncyCastle's raw `04 || C1 || C3 || C2`
//! ([`KeyFormat::C1C3C2`]); both are read, and so is the raw `04 || C1 || C2 || C3` that
//! BouncyCastle's JCE "SM2" cipher writes under the plain sm2encrypt OID. The content is encrypted with SM4-CBC (PKCS #7
//! padding, 16-byte IV parameter) or SM4-GCM (GCMParameters as in RFC 5084: a 12-byte
//! nonce and a 16-byte ICV appended to the ciphertext).
//!
//! Decryption fails closed: after the structure has been parsed, every failure (no
//! matching recipient, SM2 decryption, a CEK of the wrong length, bad padding, a bad GCM
//! tag) is the one [`Error::DecryptionFailed`]. SM4-CBC EnvelopedData is not
//! authenticated: whoever can change the ciphertext changes the plaintext undetected;
//! sign the content first (or use SM4-GCM) when that matters.

use super::signed::{check_identifier, identifier, matches, SignerId};
use super::{oid, OidStyle, MAX_RECIPIENTS};
use crate::asn1::{self, ctx_cons, ctx_prim, parse_alg, Tlv};
use crate::asn1::{INTEGER, OCTET_STRING, SEQUENCE, SET};
use crate::x509::Certificate;
use der::oid::ObjectIdentifier;
use guomi_core::sm2::{CiphertextFormat, PrivateKey};
use guomi_core::sm4::gcm::Sm4Gcm;
use guomi_core::sm4::{modes, Mode, Padding, Sm4};
use guomi_core::{rand, Error, Result};
use zeroize::Zeroizing;

/// The content-encryption algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentCipher {
    /// SM4-CBC with PKCS #7 padding (1.2.156.10197.1.104.2; parameter: the IV).
    Sm4Cbc,
    /// SM4-GCM (1.2.156.10197.1.104.8; parameter: GCMParameters, 12-byte nonce, 16-byte ICV).
    Sm4Gcm,
}

impl ContentCipher {
    /// Parses "sm4-cbc" or "sm4-gcm".
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "sm4-cbc" => Ok(ContentCipher::Sm4Cbc),
            "sm4-gcm" => Ok(ContentCipher::Sm4Gcm),
            _ => Err(Error::InvalidValue(
                "cipher must be \"sm4-cbc\" or \"sm4-gcm\"",
            )),
        }
    }
}

/// How the SM2-encrypted content key is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyFormat {
    /// GM/T 0009 ASN.1 SM2Cipher (gmsm, GmSSL, GM/T 0010).
    Der,
    /// Raw `04 || C1 || C3 || C2` (BouncyCastle's SM2 key transport).
    C1C3C2,
}

impl KeyFormat {
    /// Parses "der" or "c1c3c2".
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "der" | "asn1" => Ok(KeyFormat::Der),
            "c1c3c2" => Ok(KeyFormat::C1C3C2),
            _ => Err(Error::InvalidValue(
                "key_format must be \"der\" or \"c1c3c2\"",
            )),
        }
    }
}

/// What [`encrypt`] writes.
#[derive(Clone, Copy, Debug)]
pub struct EncryptOptions {
    /// The content cipher.
    pub cipher: ContentCipher,
    /// The content-type OIDs.
    pub style: OidStyle,
    /// The encoding of the SM2-encrypted key.
    pub key_format: KeyFormat,
    /// The key-transport OID: sm2encrypt 1.2.156.10197.1.301.3 (default) or
    /// 1.2.156.10197.1.301.3.2.1.
    pub key_oid: ObjectIdentifier,
    /// How the recipients are named.
    pub recipient_id: SignerId,
}

impl Default for EncryptOptions {
    fn default() -> Self {
        EncryptOptions {
            cipher: ContentCipher::Sm4Cbc,
            style: OidStyle::Rfc,
            key_format: KeyFormat::Der,
            key_oid: oid::SM2_ENCRYPT,
            recipient_id: SignerId::IssuerAndSerial,
        }
    }
}

/// Encrypts `content` to every certificate in `recipients` (1 to [`MAX_RECIPIENTS`]).
/// Returns the DER ContentInfo. A recipient certificate with a keyUsage that lacks
/// keyEncipherment is [`Error::InvalidValue`] (see [`super::usage`]).
pub fn encrypt(
    content: &[u8],
    recipients: &[Certificate],
    opts: &EncryptOptions,
) -> Result<Vec<u8>> {
    if recipients.is_empty() {
        return Err(Error::InvalidValue(
            "give at least one recipient certificate",
        ));
    }
    if recipients.len() > MAX_RECIPIENTS {
        return Err(Error::InvalidValue("at most 64 recipients"));
    }
    if opts.key_oid != oid::SM2_ENCRYPT && opts.key_oid != oid::SM2_ENCRYPT_WITH_SM3 {
        return Err(Error::InvalidValue(
            "the key-transport OID must be 1.2.156.10197.1.301.3 or 1.2.156.10197.1.301.3.2.1",
        ));
    }
    for cert in recipients {
        super::usage::check_recipient(cert)?;
    }
    let cek = Zeroizing::new(rand::bytes::<16>()?);
    let mut infos = Vec::with_capacity(recipients.len());
    for cert in recipients {
        let key = cert.public_key()?;
        let ek = match opts.key_format {
            KeyFormat::Der => key.encrypt(&cek[..], CiphertextFormat::Der, true)?,
            KeyFormat::C1C3C2 => key.encrypt(&cek[..], CiphertextFormat::C1C3C2, true)?,
        };
        let version = match opts.recipient_id {
            SignerId::IssuerAndSerial => 0,
            SignerId::SubjectKeyId => 2,
        };
        infos.push(asn1::cons(
            SEQUENCE,
            &[
                &asn1::uint(version)?,
                &identifier(cert, opts.recipient_id)?,
                &asn1::alg(&opts.key_oid)?,
                &asn1::tlv(OCTET_STRING, &ek)?,
            ],
        )?);
    }
    let (alg, ct) = match opts.cipher {
        ContentCipher::Sm4Cbc => {
            let iv = rand::bytes::<16>()?;
            let ct = modes::encrypt(
                &Sm4::new(&cek),
                Mode::Cbc,
                Some(&iv),
                Some(Padding::Pkcs7),
                content,
            )?;
            let alg = asn1::cons(
                SEQUENCE,
                &[&asn1::oid(&oid::SM4_CBC)?, &asn1::tlv(OCTET_STRING, &iv)?],
            )?;
            (alg, ct)
        }
        ContentCipher::Sm4Gcm => {
            let nonce = rand::bytes::<12>()?;
            let ct = Sm4Gcm::new(&cek).encrypt(&nonce, b"", content)?;
            let params = asn1::cons(
                SEQUENCE,
                &[&asn1::tlv(OCTET_STRING, &nonce)?, &asn1::uint(16)?],
            )?;
            (
                asn1::cons(SEQUENCE, &[&asn1::oid(&oid::SM4_GCM)?, &params])?,
                ct,
            )
        }
    };
    let eci = asn1::cons(
        SEQUENCE,
        &[
            &asn1::oid(&opts.style.data())?,
            &alg,
            &asn1::tlv(ctx_prim(0), &ct)?,
        ],
    )?;
    let version = if opts.recipient_id == SignerId::IssuerAndSerial {
        0
    } else {
        2
    };
    let ed = asn1::cons(
        SEQUENCE,
        &[&asn1::uint(version)?, &asn1::set_of(&infos)?, &eci],
    )?;
    super::content_info(&opts.style.enveloped_data(), &ed)
}

struct KeyTrans<'a> {
    id: Tlv<'a>,
    encrypted_key: &'a [u8],
}

fn parse_ktri(t: Tlv<'_>) -> Result<Option<KeyTrans<'_>>> {
    if t.tag != SEQUENCE {
        // kari [1], kekri [2], pwri [3], ori [4]: not for SM2 key transport.
        return Ok(None);
    }
    let mut r = t.reader();
    let version = r.any()?.small_uint()?;
    let id = r.any()?;
    check_identifier(&id)?;
    match (version, id.tag) {
        // Version 1 with issuerAndSerialNumber is GB/T 35275-2017's (gmsm `EncryptSM`).
        (0 | 1, SEQUENCE) | (2, 0x80) => {}
        _ => {
            return Err(asn1::bad(
                "KeyTransRecipientInfo version does not match its identifier",
            ))
        }
    }
    let (alg, _params) = parse_alg(r.any()?)?;
    if alg != oid::SM2_ENCRYPT && alg != oid::SM2_ENCRYPT_WITH_SM3 {
        // Another recipient's (RSA, ...): not ours to decrypt.
        return Ok(None);
    }
    let ek = r.next(OCTET_STRING, "encryptedKey must be an OCTET STRING")?;
    r.finish()?;
    Ok(Some(KeyTrans {
        id,
        encrypted_key: ek.content,
    }))
}

enum Params {
    Cbc([u8; 16]),
    Gcm([u8; 12]),
}

fn parse_content_alg(t: Tlv<'_>) -> Result<Params> {
    let (alg, params) = parse_alg(t)?;
    let params = params.ok_or(Error::UnsupportedFormat(
        "content cipher without parameters",
    ))?;
    if alg == oid::SM4_CBC {
        let iv = params.expect(
            OCTET_STRING,
            "SM4-CBC parameter must be the IV (OCTET STRING)",
        )?;
        let iv: [u8; 16] = iv
            .content
            .try_into()
            .map_err(|_| Error::UnsupportedFormat("SM4-CBC IV must be 16 bytes"))?;
        Ok(Params::Cbc(iv))
    } else if alg == oid::SM4_GCM {
        let mut r = params
            .expect(SEQUENCE, "SM4-GCM parameters must be GCMParameters")?
            .reader();
        let nonce = r.next(OCTET_STRING, "GCM nonce must be an OCTET STRING")?;
        let nonce: [u8; 12] = nonce
            .content
            .try_into()
            .map_err(|_| Error::UnsupportedFormat("SM4-GCM nonce must be 12 bytes"))?;
        // ICVlen DEFAULT 12; guomi fixes the tag length at 16 bytes.
        let icv = match r.optional(INTEGER)? {
            Some(i) => i.small_uint()?,
            None => 12,
        };
        r.finish()?;
        if icv != 16 {
            return Err(Error::UnsupportedFormat(
                "SM4-GCM tag length must be 16 bytes",
            ));
        }
        Ok(Params::Gcm(nonce))
    } else {
        Err(Error::UnsupportedFormat(
            "content cipher is not SM4-CBC (1.2.156.10197.1.104.2) or SM4-GCM (1.2.156.10197.1.104.8)",
        ))
    }
}

/// Decrypts an EnvelopedData (DER, BER or PEM) with `key`. With `cert` (the key's
/// certificate), only the recipient infos naming it are tried; without, every SM2
/// recipient info is tried. A `cert` with a keyUsage that lacks keyEncipherment:
/// [`Error::InvalidValue`]. Malformed structure: [`Error::UnsupportedFormat`]; any
/// failure after that: [`Error::DecryptionFailed`].
pub fn decrypt(data: &[u8], key: &PrivateKey, cert: Option<&Certificate>) -> Result<Vec<u8>> {
    if let Some(c) = cert {
        if c.public_key()?.to_uncompressed() != key.public_key().to_uncompressed() {
            return Err(Error::InvalidKey(
                "the certificate does not belong to the private key",
            ));
        }
        super::usage::check_recipient(c)?;
    }
    let der = super::read_input(data)?;
    let (ct, ed) = super::open_content_info(&der)?;
    if ct != oid::ENVELOPED_DATA && ct != oid::GM_ENVELOPED_DATA {
        return Err(Error::UnsupportedFormat("not a CMS EnvelopedData"));
    }
    let mut r = ed
        .expect(SEQUENCE, "EnvelopedData must be a SEQUENCE")?
        .reader();
    let version = r.any()?.small_uint()?;
    if version > 4 {
        return Err(Error::UnsupportedFormat(
            "unsupported EnvelopedData version",
        ));
    }
    let _originator = r.optional(ctx_cons(0))?;
    let infos = r
        .next(SET, "recipientInfos must be a SET")?
        .reader()
        .all(MAX_RECIPIENTS, "too many recipients (at most 64)")?;
    let eci = r.next(SEQUENCE, "EncryptedContentInfo must be a SEQUENCE")?;
    let _unprotected = r.optional(ctx_cons(1))?;
    r.finish()?;
    let mut er = eci.reader();
    let _content_type = er.any()?.oid()?;
    let params = parse_content_alg(er.any()?)?;
    // encryptedContent [0] IMPLICIT OCTET STRING: primitive, or (BER) constructed from
    // OCTET STRING segments.
    let mut ciphertext = Vec::new();
    match er.any()? {
        t if t.tag == ctx_prim(0) => ciphertext.extend_from_slice(t.content),
        t if t.tag == ctx_cons(0) => {
            let mut sr = t.reader();
            while !sr.is_empty() {
                ciphertext.extend_from_slice(
                    sr.next(OCTET_STRING, "bad encryptedContent segment")?
                        .content,
                );
            }
        }
        _ => {
            return Err(Error::UnsupportedFormat(
                "EncryptedContentInfo has no encryptedContent",
            ))
        }
    }
    er.finish()?;
    let mut candidates = Vec::new();
    for t in infos {
        if let Some(k) = parse_ktri(t)? {
            if cert.is_none_or(|c| matches(c, &k.id)) {
                candidates.push(k);
            }
        }
    }
    // Try every candidate (no early exit): the first CEK that decrypts is used. SM2
    // decryption checks C3, so a wrong recipient fails here and not in the content. A raw
    // key is C1C3C2 (BouncyCastle with sm2encrypt_with_sm3, guomi) or C1C2C3
    // (BouncyCastle's JCE "SM2" cipher under the plain sm2encrypt OID): C3 tells which,
    // so both orders are tried; both always run, whatever the first gives.
    let mut cek: Option<Zeroizing<[u8; 16]>> = None;
    for k in &candidates {
        let tries = [
            key.decrypt(k.encrypted_key, None),
            key.decrypt(k.encrypted_key, Some(CiphertextFormat::C1C2C3)),
        ];
        for pt in tries.into_iter().flatten() {
            if cek.is_none() {
                if let Ok(b) = <[u8; 16]>::try_from(&pt[..]) {
                    cek = Some(Zeroizing::new(b));
                }
            }
        }
    }
    let cek = cek.ok_or(Error::DecryptionFailed)?;
    let out = match params {
        Params::Cbc(iv) => modes::decrypt(
            &Sm4::new(&cek),
            Mode::Cbc,
            Some(&iv),
            Some(Padding::Pkcs7),
            &ciphertext,
        ),
        Params::Gcm(nonce) => Sm4Gcm::new(&cek).decrypt(&nonce, b"", &ciphertext),
    };
    out.map_err(|_| Error::DecryptionFailed)
}
