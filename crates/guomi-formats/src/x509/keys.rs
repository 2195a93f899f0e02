//! Private keys at rest: PKCS#8 `EncryptedPrivateKeyInfo` (RFC 5958 §3) with PBES2
//! (RFC 8018 §6.2) and legacy OpenSSL "traditional" encrypted PEM.
//!
//! ```text
//! EncryptedPrivateKeyInfo ::= SEQUENCE {
//!     encryptionAlgorithm  AlgorithmIdentifier,   -- PBES2
//!     encryptedData        OCTET STRING }          -- SM4-CBC(PKCS#8 PrivateKeyInfo)
//! PBES2-params ::= SEQUENCE { keyDerivationFunc AlgorithmIdentifier,   -- PBKDF2
//!                             encryptionScheme  AlgorithmIdentifier }  -- SM4-CBC, iv
//! PBKDF2-params ::= SEQUENCE { salt OCTET STRING, iterationCount INTEGER,
//!                              keyLength INTEGER OPTIONAL,
//!                              prf AlgorithmIdentifier DEFAULT hmacWithSHA1 }
//! ```
//!
//! Written forms (both read back by the tools that write them):
//! * PRF HMAC-SM3 as GmSSL 3 writes it: 16-byte salt, no keyLength, prf
//!   `AlgorithmIdentifier { 1.2.156.10197.1.401.2 }` with the parameters absent (GmSSL
//!   3.1.1's `pbkdf2_prf_from_der` refuses a NULL there), SM4-CBC with a 16-byte IV.
//! * PRF HMAC-SHA256 as OpenSSL 3 writes it (`openssl pkcs8 -topk8 -v2 sm4-cbc
//!   -v2prf hmacWithSHA256`): the same with prf `{hmacWithSHA256, NULL}` (RFC 8018
//!   appendix B.1.2). OpenSSL 3.0 does not know the HMAC-SM3 PRF, so this is the form
//!   to give to OpenSSL.
//!
//! Both encrypt a PrivateKeyInfo whose ECPrivateKey carries `[0] sm2p256v1` and
//! `[1] publicKey`: GmSSL 3.1.1 reads no other, and OpenSSL, BouncyCastle and gmsm read
//! it too. Read: the PRF parameters absent or NULL, the ECPrivateKey with or without
//! `[0]` (OpenSSL's and gmsm's PKCS#8 leave it out; gmsm writes the PRF with NULL).
//!
//! Every failure to decrypt (wrong password, bad padding, a decrypted body that is not a
//! valid SM2 PKCS#8 key) is the same opaque `Error::InvalidKey`: no padding oracle, and
//! never garbage key material.

use super::{der_err, oid};
use crate::pkcs12::pbe::{Hash, Pbes2Params, Pbkdf2Params};
use crate::sm2_keys::PrivateKeyEncoding;
use der::asn1::{AnyRef, Null, ObjectIdentifier, OctetStringRef};
use der::{Decode, Encode, Sequence};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::PrivateKey;
use guomi_core::sm4::modes::{self, Mode, Padding};
use guomi_core::sm4::Sm4;
use sha2::Digest;
use spki::AlgorithmIdentifierRef;
use zeroize::Zeroizing;

/// PBKDF2 iterations written unless told otherwise (GmSSL 3 writes 65536; OpenSSL 2048).
pub const DEFAULT_ITERATIONS: u32 = 65_536;
/// Largest iteration count accepted, written or read (a hostile file must not stall us):
/// [`guomi_core::sm3::kdf::MAX_PBKDF2_ITERATIONS`], the bound every PBKDF2 in guomi honours.
pub const MAX_ITERATIONS: u32 = guomi_core::sm3::kdf::MAX_PBKDF2_ITERATIONS;

/// The PBKDF2 pseudo-random function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prf {
    /// HMAC-SM3, OID 1.2.156.10197.1.401.2 (GmSSL 3).
    HmacSm3,
    /// hmacWithSHA256, OID 1.2.840.113549.2.9 (OpenSSL 3).
    HmacSha256,
}

impl Prf {
    /// Parses "hmac-sm3"/"sm3" or "hmac-sha256"/"sha256" (any case).
    pub fn parse(name: &str) -> Result<Prf> {
        match name.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "hmacsm3" | "sm3" | "hmacwithsm3" => Ok(Prf::HmacSm3),
            "hmacsha256" | "sha256" | "hmacwithsha256" => Ok(Prf::HmacSha256),
            _ => Err(Error::InvalidValue(
                "unknown PRF: expected \"hmac-sm3\" or \"hmac-sha256\"",
            )),
        }
    }

    fn oid(self) -> ObjectIdentifier {
        match self {
            Prf::HmacSm3 => oid::HMAC_SM3,
            Prf::HmacSha256 => oid::HMAC_SHA256,
        }
    }

    /// The PBKDF2-params `prf` AlgorithmIdentifier as written: hmac-sm3 without
    /// parameters (GmSSL 3.1.1 refuses any), hmacWithSHA256 with NULL (RFC 8018
    /// appendix B.1.2, as OpenSSL writes it).
    fn algorithm(self) -> AlgorithmIdentifierRef<'static> {
        AlgorithmIdentifierRef {
            oid: self.oid(),
            parameters: match self {
                Prf::HmacSm3 => None,
                Prf::HmacSha256 => Some(AnyRef::from(Null)),
            },
        }
    }
}

#[derive(Sequence)]
struct EncryptedPrivateKeyInfo<'a> {
    algorithm: AlgorithmIdentifierRef<'a>,
    data: OctetStringRef<'a>,
}

/// The 16-byte SM4 key from a password (PBKDF2 with `prf`).
fn derive_key(
    prf: Prf,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
) -> Result<Zeroizing<[u8; 16]>> {
    let mut key = Zeroizing::new([0u8; 16]);
    let hash = match prf {
        Prf::HmacSm3 => Hash::Sm3,
        Prf::HmacSha256 => Hash::Sha256,
    };
    hash.pbkdf2(password, salt, iterations, &mut key[..])?;
    Ok(key)
}

fn wrong_password() -> Error {
    Error::InvalidKey("cannot decrypt the private key: wrong password or corrupted key")
}

/// Encrypts `key` as a DER `EncryptedPrivateKeyInfo` (PBES2, PBKDF2 with `prf` and
/// `iterations`, SM4-CBC with a random 16-byte salt and IV).
pub fn encrypt_private_key_der(
    key: &PrivateKey,
    password: &[u8],
    prf: Prf,
    iterations: u32,
) -> Result<Vec<u8>> {
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::InvalidValue("iterations must be 1 to 10000000"));
    }
    let salt = guomi_core::rand::bytes::<16>()?;
    let iv = guomi_core::rand::bytes::<16>()?;
    let sm4_key = derive_key(prf, password, &salt, iterations)?;
    let info = crate::sm2_keys::pkcs8_der_with_curve(key);
    let body = modes::encrypt(
        &Sm4::new(&sm4_key),
        Mode::Cbc,
        Some(&iv),
        Some(Padding::Pkcs7),
        &info,
    )?;
    let kdf_params = Pbkdf2Params {
        salt: OctetStringRef::new(&salt).map_err(der_err)?,
        iterations,
        key_length: None,
        prf: Some(prf.algorithm()),
    }
    .to_der()
    .map_err(der_err)?;
    let iv_der = OctetStringRef::new(&iv)
        .map_err(der_err)?
        .to_der()
        .map_err(der_err)?;
    let pbes2 = Pbes2Params {
        kdf: AlgorithmIdentifierRef {
            oid: oid::PBKDF2,
            parameters: Some(AnyRef::from_der(&kdf_params).map_err(der_err)?),
        },
        enc: AlgorithmIdentifierRef {
            oid: oid::SM4_CBC,
            parameters: Some(AnyRef::from_der(&iv_der).map_err(der_err)?),
        },
    }
    .to_der()
    .map_err(der_err)?;
    EncryptedPrivateKeyInfo {
        algorithm: AlgorithmIdentifierRef {
            oid: oid::PBES2,
            parameters: Some(AnyRef::from_der(&pbes2).map_err(der_err)?),
        },
        data: OctetStringRef::new(&body).map_err(der_err)?,
    }
    .to_der()
    .map_err(der_err)
}

/// [`encrypt_private_key_der`] as PEM "ENCRYPTED PRIVATE KEY".
pub fn encrypt_private_key_pem(
    key: &PrivateKey,
    password: &[u8],
    prf: Prf,
    iterations: u32,
) -> Result<String> {
    let der = encrypt_private_key_der(key, password, prf, iterations)?;
    pem_encode("ENCRYPTED PRIVATE KEY", &der)
}

/// Decrypts a DER `EncryptedPrivateKeyInfo`. Unsupported algorithms are
/// `UnsupportedFormat`; everything that depends on the password is one opaque
/// `InvalidKey`.
pub fn decrypt_private_key_der(der: &[u8], password: &[u8]) -> Result<PrivateKey> {
    let epki = EncryptedPrivateKeyInfo::from_der(der).map_err(der_err)?;
    // PBES2 or the SM PBES of GM/T 0091 (1.2.156.10197.6.1.4.1.5.2 as the standard prints
    // it, 1.2.156.10197.6.4.1.5.2 as gmsm writes it), PBKDF2 or the SM PBKDF (PRF
    // HMAC-SM3 by default) with HMAC-SM3 or HMAC-SHA256, SM4-CBC or AES-128/192/256-CBC:
    // the same parser as PKCS#12's bags.
    let plain = match crate::pkcs12::pbe::decrypt(&epki.algorithm, password, epki.data.as_bytes()) {
        Ok((plain, _)) => plain,
        Err(e @ Error::UnsupportedFormat(_)) => return Err(e),
        Err(_) => return Err(wrong_password()),
    };
    PrivateKey::from_pkcs8_der(&plain).map_err(|_| wrong_password())
}

/// SM4-CBC-decrypts a key body and parses it (PKCS#8, or SEC1 for legacy PEM). Every
/// failure is the same opaque error.
fn decrypt_cbc_key(key: &[u8; 16], iv: &[u8], body: &[u8], pkcs8: bool) -> Result<PrivateKey> {
    let mut buf = Zeroizing::new(body.to_vec());
    let n = modes::decrypt_in_place(
        &Sm4::new(key),
        Mode::Cbc,
        Some(iv),
        Some(Padding::Pkcs7),
        &mut buf,
    )
    .map_err(|_| wrong_password())?;
    let parsed = if pkcs8 {
        PrivateKey::from_pkcs8_der(&buf[..n])
    } else {
        PrivateKey::from_der(&buf[..n])
    };
    parsed.map_err(|_| wrong_password())
}

/// One PEM block: label, RFC 1421 headers, DER body.
pub struct PemBlock {
    pub label: String,
    pub headers: Vec<(String, String)>,
    pub der: Zeroizing<Vec<u8>>,
}

/// Every PEM block in `text`, in order (text between blocks is ignored). Base64 may be
/// wrapped at any width. One linear pass: each BEGIN line is matched with the first END
/// line of its label after it, and the text after that END is read once.
pub fn pem_blocks(text: &str) -> Result<Vec<PemBlock>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + 11..];
        let label_end = after
            .find("-----")
            .ok_or(Error::UnsupportedFormat("malformed PEM BEGIN line"))?;
        let label = &after[..label_end];
        let body_start = label_end + 5;
        let end_line = format!("-----END {label}-----");
        let stop = after[body_start..]
            .find(&end_line)
            .ok_or(Error::UnsupportedFormat("PEM block has no END line"))?;
        let body = &after[body_start..body_start + stop];
        let mut headers = Vec::new();
        // The base64 text of a private key is as secret as the key: zeroizing buffers
        // with their final capacity reserved up front, so no reallocation leaves a copy.
        let mut b64 = Zeroizing::new(String::with_capacity(body.len()));
        for line in body.lines() {
            let line = line.trim();
            if let Some((k, v)) = line.split_once(':') {
                if b64.is_empty() {
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                    continue;
                }
                return Err(Error::UnsupportedFormat("malformed PEM body"));
            }
            b64.push_str(line);
        }
        // Re-wrap canonically and let pem-rfc7468 do the strict base64 decoding.
        let begin_line = format!("-----BEGIN {label}-----\n");
        let mut canon = Zeroizing::new(String::with_capacity(
            begin_line.len() + b64.len() + b64.len() / 64 + 1 + end_line.len() + 1,
        ));
        canon.push_str(&begin_line);
        for piece in b64.as_bytes().chunks(64) {
            canon.push_str(core::str::from_utf8(piece).map_err(|_| pem_err())?);
            canon.push('\n');
        }
        canon.push_str(&end_line);
        canon.push('\n');
        let mut decoder = pem_rfc7468::Decoder::new(canon.as_bytes()).map_err(|_| pem_err())?;
        // `decode_to_end` reserves the exact length once; a failure drops (zeroizes) it.
        let mut der = Zeroizing::new(Vec::new());
        decoder.decode_to_end(&mut der).map_err(|_| pem_err())?;
        out.push(PemBlock {
            label: label.to_string(),
            headers,
            der,
        });
        rest = &after[body_start + stop + end_line.len()..];
    }
    Ok(out)
}

fn pem_err() -> Error {
    Error::UnsupportedFormat("malformed PEM (bad base64)")
}

/// PEM text with 64-column lines and LF line endings.
pub(crate) fn pem_encode(label: &str, der: &[u8]) -> Result<String> {
    pem_rfc7468::encode_string(label, pem_rfc7468::LineEnding::LF, der)
        .map_err(|_| Error::UnsupportedFormat("cannot PEM-encode"))
}

fn need_password() -> Error {
    Error::InvalidValue("the private key is encrypted: a password is needed")
}

/// Loads a private key from PEM: "PRIVATE KEY" (PKCS#8), "EC PRIVATE KEY" or
/// "SM2 PRIVATE KEY" (SEC1; legacy-encrypted with `DEK-Info: SM4-CBC` when the
/// Proc-Type header says so) or "ENCRYPTED PRIVATE KEY" (PBES2). `password` is needed
/// exactly for encrypted keys; one given for a plain key is an error too (it is likely
/// a mistake).
pub fn load_private_key_pem(text: &str, password: Option<&[u8]>) -> Result<PrivateKey> {
    let blocks = pem_blocks(text)?;
    let block = blocks
        .iter()
        .find(|b| b.label.ends_with("PRIVATE KEY"))
        .ok_or(Error::UnsupportedFormat(
            "no PEM private key block (PRIVATE KEY, EC PRIVATE KEY, ENCRYPTED PRIVATE KEY)",
        ))?;
    let proc_type = block
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Proc-Type"));
    match block.label.as_str() {
        "ENCRYPTED PRIVATE KEY" => {
            decrypt_private_key_der(&block.der, password.ok_or_else(need_password)?)
        }
        "PRIVATE KEY" | "EC PRIVATE KEY" | "SM2 PRIVATE KEY" if proc_type.is_some() => {
            let (_, v) = proc_type.unwrap();
            if v.replace(' ', "") != "4,ENCRYPTED" {
                return Err(Error::UnsupportedFormat("unsupported PEM Proc-Type"));
            }
            let password = password.ok_or_else(need_password)?;
            legacy_decrypt(block, password, block.label == "PRIVATE KEY")
        }
        "PRIVATE KEY" | "EC PRIVATE KEY" | "SM2 PRIVATE KEY" => {
            if password.is_some() {
                return Err(Error::InvalidValue(
                    "a password was given but the private key is not encrypted",
                ));
            }
            if block.label == "PRIVATE KEY" {
                PrivateKey::from_pkcs8_der(&block.der)
            } else {
                PrivateKey::from_sec1_der(&block.der)
            }
        }
        _ => Err(Error::UnsupportedFormat(
            "unsupported private key PEM label",
        )),
    }
}

/// Legacy OpenSSL encrypted PEM (RFC 1421 headers): `DEK-Info: SM4-CBC,<hex iv>`, key =
/// EVP_BytesToKey(SM4-CBC, MD5, salt = iv[..8], password, count 1) = MD5(password ||
/// salt) for a 16-byte key, body SM4-CBC with PKCS#7 padding.
fn legacy_decrypt(block: &PemBlock, password: &[u8], pkcs8: bool) -> Result<PrivateKey> {
    let dek = block
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("DEK-Info"))
        .map(|(_, v)| v.as_str())
        .ok_or(Error::UnsupportedFormat("encrypted PEM without DEK-Info"))?;
    let (cipher, iv_hex) = dek
        .split_once(',')
        .ok_or(Error::UnsupportedFormat("malformed DEK-Info"))?;
    if !cipher.trim().eq_ignore_ascii_case("SM4-CBC") {
        return Err(Error::UnsupportedFormat(
            "legacy encrypted PEM: only DEK-Info SM4-CBC is supported",
        ));
    }
    let iv_hex = iv_hex.trim();
    if iv_hex.len() != 32 || !iv_hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::UnsupportedFormat(
            "malformed DEK-Info IV (32 hex digits)",
        ));
    }
    let mut iv = [0u8; 16];
    for (i, b) in iv.iter_mut().enumerate() {
        *b = u8::from_str_radix(&iv_hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    let mut md5 = md5::Md5::new();
    md5.update(password);
    md5.update(&iv[..8]);
    let mut key = Zeroizing::new([0u8; 16]);
    key.copy_from_slice(&md5.finalize());
    let _ = pkcs8;
    decrypt_cbc_key(&key, &iv, &block.der, false)
}

/// Loads a private key from DER: PKCS#8, SEC1 or (with a password) an
/// `EncryptedPrivateKeyInfo`.
pub fn load_private_key_der(der: &[u8], password: Option<&[u8]>) -> Result<PrivateKey> {
    match password {
        Some(pw) => {
            let encrypted = EncryptedPrivateKeyInfo::from_der(der).is_ok();
            if !encrypted && PrivateKey::<guomi_core::sm2::Sm2p256>::from_der(der).is_ok() {
                return Err(Error::InvalidValue(
                    "a password was given but the private key is not encrypted",
                ));
            }
            decrypt_private_key_der(der, pw)
        }
        None => {
            if EncryptedPrivateKeyInfo::from_der(der).is_ok_and(|e| {
                [
                    oid::PBES2,
                    crate::pkcs12::pbe::oid::SM_PBES_GMSM,
                    crate::pkcs12::pbe::oid::SM_PBES_STD,
                ]
                .contains(&e.algorithm.oid)
            }) {
                return Err(need_password());
            }
            PrivateKey::from_der(der)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbkdf2_sha256_rfc7914_vector() {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", 1, 64).
        let mut out = [0u8; 64];
        Hash::Sha256
            .pbkdf2(b"passwd", b"salt", 1, &mut out)
            .unwrap();
        assert_eq!(
            hex::encode(out),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        );
    }

    #[test]
    fn round_trip_both_prfs_and_wrong_password() {
        let key = PrivateKey::generate().unwrap();
        for prf in [Prf::HmacSm3, Prf::HmacSha256] {
            let der = encrypt_private_key_der(&key, b"secret", prf, 1000).unwrap();
            let back = decrypt_private_key_der(&der, b"secret").unwrap();
            assert_eq!(back.to_bytes()[..], key.to_bytes()[..]);
            assert!(matches!(
                decrypt_private_key_der(&der, b"Secret"),
                Err(Error::InvalidKey(_))
            ));
            let pem = encrypt_private_key_pem(&key, b"pw", prf, 10).unwrap();
            assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
            let back = load_private_key_pem(&pem, Some(b"pw")).unwrap();
            assert_eq!(back.public_key(), key.public_key());
            assert!(matches!(
                load_private_key_pem(&pem, None),
                Err(Error::InvalidValue(_))
            ));
        }
    }

    #[test]
    fn every_flipped_bit_in_the_body_is_rejected() {
        let key = PrivateKey::generate().unwrap();
        let der = encrypt_private_key_der(&key, b"pw", Prf::HmacSm3, 1).unwrap();
        for pos in (der.len() - 160..der.len()).step_by(7) {
            let mut bad = der.clone();
            bad[pos] ^= 0x40;
            match decrypt_private_key_der(&bad, b"pw") {
                Ok(k) => assert_eq!(k.to_bytes()[..], key.to_bytes()[..], "pos {pos}"),
                Err(Error::InvalidKey(_)) | Err(Error::UnsupportedFormat(_)) => {}
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
    }

    #[test]
    fn written_prf_and_inner_key_are_gmssl_form() {
        // GmSSL 3.1.1 reads only this form: the hmac-sm3 PRF AlgorithmIdentifier without
        // parameters (before: 30 0d 06 09 <oid> 05 00), and an ECPrivateKey with
        // [0] sm2p256v1 and [1] publicKey (before: no [0], PrivateKeyInfo 30 81 87 ...
        // 04 6d 30 6b ...). hmacWithSHA256 keeps its NULL, as OpenSSL writes it.
        let key = PrivateKey::generate().unwrap();
        // PrivateKeyInfo { 0, {id-ecPublicKey, sm2p256v1}, OCTET STRING { ECPrivateKey {
        //   1, OCTET STRING d, [0] { sm2p256v1 }, [1] { BIT STRING 00 04 x y } } } }
        let mut want =
            hex::decode("308193020100301306072a8648ce3d020106082a811ccf5501822d047930770201010420")
                .unwrap();
        want.extend_from_slice(&key.to_bytes()[..]);
        want.extend(hex::decode("a00a06082a811ccf5501822da144034200").unwrap());
        want.extend_from_slice(&key.public_key().to_uncompressed());
        for (prf, want_prf) in [
            (Prf::HmacSm3, "300b06092a811ccf5501831102"),
            (Prf::HmacSha256, "300c06082a864886f70d02090500"),
        ] {
            let der = encrypt_private_key_der(&key, b"pw", prf, 3).unwrap();
            let epki = EncryptedPrivateKeyInfo::from_der(&der).unwrap();
            let pbes2: Pbes2Params<'_> = epki.algorithm.parameters.unwrap().decode_as().unwrap();
            let kdf: Pbkdf2Params<'_> = pbes2.kdf.parameters.unwrap().decode_as().unwrap();
            assert_eq!(kdf.key_length, None);
            assert_eq!(hex::encode(kdf.prf.unwrap().to_der().unwrap()), want_prf);
            let (plain, _) =
                crate::pkcs12::pbe::decrypt(&epki.algorithm, b"pw", epki.data.as_bytes()).unwrap();
            assert_eq!(hex::encode(&plain[..]), hex::encode(&want), "{prf:?}");
            let back = decrypt_private_key_der(&der, b"pw").unwrap();
            assert_eq!(back.public_key(), key.public_key());
        }
        // Plain PKCS#8 stays as OpenSSL 3 writes it: no [0] in the ECPrivateKey.
        let plain = key.to_pkcs8_der();
        assert_eq!(
            hex::encode(&plain[..27]),
            "308187020100301306072a8648ce3d020106082a811ccf5501822d"
        );
        assert_eq!(hex::encode(&plain[27..36]), "046d306b0201010420");
        assert_eq!(hex::encode(&plain[68..70]), "a144");
    }

    #[test]
    fn reads_prf_with_or_without_null_and_key_with_or_without_curve() {
        // The four combinations of PRF parameters (absent / NULL) and ECPrivateKey [0]
        // (present / absent), built from the same PBKDF2 and SM4-CBC.
        let key = PrivateKey::generate().unwrap();
        let salt = [7u8; 16];
        let iv = [9u8; 16];
        let sm4_key = derive_key(Prf::HmacSm3, b"pw", &salt, 5).unwrap();
        for with_curve in [false, true] {
            let info = if with_curve {
                crate::sm2_keys::pkcs8_der_with_curve(&key)
            } else {
                key.to_pkcs8_der()
            };
            let body = modes::encrypt(
                &Sm4::new(&sm4_key),
                Mode::Cbc,
                Some(&iv),
                Some(Padding::Pkcs7),
                &info,
            )
            .unwrap();
            for prf_null in [false, true] {
                let prf = AlgorithmIdentifierRef {
                    oid: oid::HMAC_SM3,
                    parameters: prf_null.then(|| AnyRef::from(Null)),
                };
                let kdf = Pbkdf2Params {
                    salt: OctetStringRef::new(&salt).unwrap(),
                    iterations: 5,
                    key_length: Some(16),
                    prf: Some(prf),
                }
                .to_der()
                .unwrap();
                let iv_der = OctetStringRef::new(&iv).unwrap().to_der().unwrap();
                let pbes2 = Pbes2Params {
                    kdf: AlgorithmIdentifierRef {
                        oid: oid::PBKDF2,
                        parameters: Some(AnyRef::from_der(&kdf).unwrap()),
                    },
                    enc: AlgorithmIdentifierRef {
                        oid: oid::SM4_CBC,
                        parameters: Some(AnyRef::from_der(&iv_der).unwrap()),
                    },
                }
                .to_der()
                .unwrap();
                let der = EncryptedPrivateKeyInfo {
                    algorithm: AlgorithmIdentifierRef {
                        oid: oid::PBES2,
                        parameters: Some(AnyRef::from_der(&pbes2).unwrap()),
                    },
                    data: OctetStringRef::new(&body).unwrap(),
                }
                .to_der()
                .unwrap();
                let back = decrypt_private_key_der(&der, b"pw").unwrap();
                assert_eq!(
                    back.public_key(),
                    key.public_key(),
                    "[0]: {with_curve}, NULL: {prf_null}"
                );
            }
        }
    }

    fn vector(name: &str) -> String {
        let p = format!("{}/../../vectors/keys/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn reads_gmsm_sm_pbes_and_pbes2_keys() {
        // gmsm v0.44.0 pkcs8.MarshalPrivateKey with pkcs.NewSMPBESEncrypter(16, 2048)
        // (OIDs 1.2.156.10197.6.4.1.5.2 / .5.1) and with the standard PBES2 + HMAC-SM3.
        let d = vector("gmsm-v0.44.0-key.d.hex");
        for name in [
            "gmsm-v0.44.0-sm-pbes.pem",
            "gmsm-v0.44.0-pbes2-hmac-sm3-sm4.pem",
        ] {
            let key = load_private_key_pem(&vector(name), Some(b"gmsm-password")).unwrap();
            assert_eq!(hex::encode(&key.to_bytes()[..]), d.trim(), "{name}");
            assert!(matches!(
                load_private_key_pem(&vector(name), Some(b"gmsm-passwort")),
                Err(Error::InvalidKey(_))
            ));
            assert!(matches!(
                load_private_key_pem(&vector(name), None),
                Err(Error::InvalidValue(_))
            ));
        }
    }

    #[test]
    fn sm_pbes_standard_oids_and_default_prf() {
        // The same key rewritten with the OIDs as GM/T 0091 prints them
        // (1.2.156.10197.6.1.4.1.5.x), and with the PRF left out (default HMAC-SM3 under
        // the SM PBKDF).
        let text = vector("gmsm-v0.44.0-sm-pbes.pem");
        let der = pem_blocks(&text).unwrap().remove(0).der;
        let gmsm_pbes = crate::pkcs12::pbe::oid::SM_PBES_GMSM.to_der().unwrap();
        let gmsm_kdf = crate::pkcs12::pbe::oid::SM_PBKDF_GMSM.to_der().unwrap();
        let std_pbes = crate::pkcs12::pbe::oid::SM_PBES_STD.to_der().unwrap();
        let std_kdf = crate::pkcs12::pbe::oid::SM_PBKDF_STD.to_der().unwrap();
        // Each standard OID is one byte longer: rebuild the outer structures by
        // decoding and re-encoding.
        let epki = EncryptedPrivateKeyInfo::from_der(&der).unwrap();
        let pbes2: Pbes2Params<'_> = epki.algorithm.parameters.unwrap().decode_as().unwrap();
        let kdf_params = pbes2.kdf.parameters.unwrap().to_der().unwrap();
        let kdf: Pbkdf2Params<'_> = Pbkdf2Params::from_der(&kdf_params).unwrap();
        let no_prf = Pbkdf2Params { prf: None, ..kdf }.to_der().unwrap();
        let d = vector("gmsm-v0.44.0-key.d.hex");
        for (pbes_oid, kdf_oid, params) in [
            (&std_pbes, &std_kdf, &kdf_params),
            (&gmsm_pbes, &gmsm_kdf, &no_prf),
            (&std_pbes, &std_kdf, &no_prf),
        ] {
            let pbes_oid = ObjectIdentifier::from_der(pbes_oid).unwrap();
            let kdf_oid = ObjectIdentifier::from_der(kdf_oid).unwrap();
            let enc = pbes2.enc.to_der().unwrap();
            let kdf_alg = AlgorithmIdentifierRef {
                oid: kdf_oid,
                parameters: Some(AnyRef::from_der(params).unwrap()),
            }
            .to_der()
            .unwrap();
            let mut p = kdf_alg.clone();
            p.extend_from_slice(&enc);
            let mut seq = vec![0x30, p.len() as u8];
            seq.extend_from_slice(&p);
            let rebuilt = EncryptedPrivateKeyInfo {
                algorithm: AlgorithmIdentifierRef {
                    oid: pbes_oid,
                    parameters: Some(AnyRef::from_der(&seq).unwrap()),
                },
                data: epki.data,
            }
            .to_der()
            .unwrap();
            let key = decrypt_private_key_der(&rebuilt, b"gmsm-password").unwrap();
            assert_eq!(hex::encode(&key.to_bytes()[..]), d.trim());
            assert!(matches!(
                load_private_key_der(&rebuilt, None),
                Err(Error::InvalidValue(_))
            ));
        }
    }
}
