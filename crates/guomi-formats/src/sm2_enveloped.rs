//! GM/T 0009 / GB/T 35276 `SM2EnvelopedKey`: an SM2 private key sent to a recipient,
//! encrypted under a fresh SM4 key that is itself SM2-encrypted to the recipient (as in
//! GM/T 0092 certificate responses, `CSRResponse.encryptedPrivateKey`).
//!
//! ```text
//! SM2EnvelopedKey ::= SEQUENCE {
//!     symAlgID               AlgorithmIdentifier,  -- SM4-ECB 1.2.156.10197.1.104.1, NULL
//!     symEncryptedKey        SM2Cipher,            -- the 16-byte SM4 key, GM/T 0009 DER
//!     sm2PublicKey           BIT STRING,           -- 04 || x || y
//!     sm2EncryptedPrivateKey BIT STRING }          -- SM4-ECB(d), 32 bytes, no padding
//! ```
//!
//! This is the layout gmsm v0.44.0 writes and reads (`sm2.MarshalEnvelopedPrivateKey` /
//! `sm2.ParseEnvelopedPrivateKey`). Read also: symAlgID SM4 (1.2.156.10197.1.104) or
//! parameters absent, and a 48-byte encrypted key carrying a full PKCS#7 padding block
//! (the standard does not say whether ECB is padded).

use crate::x509::der_err;
use der::asn1::{AnyRef, BitStringRef, ObjectIdentifier as Oid};
use der::{Decode, Encode, Sequence, Tagged};
use guomi_core::error::{Error, Result};
use guomi_core::sm2::{CiphertextFormat, PrivateKey, PublicKey};
use guomi_core::sm4::modes::{self, Mode, Padding};
use guomi_core::sm4::Sm4;
use spki::AlgorithmIdentifierRef;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// SM4 (1.2.156.10197.1.104), accepted as symAlgID.
pub const SM4: Oid = Oid::new_unwrap("1.2.156.10197.1.104");
/// SM4-ECB (1.2.156.10197.1.104.1), the symAlgID written.
pub const SM4_ECB: Oid = Oid::new_unwrap("1.2.156.10197.1.104.1");

/// Largest `SM2EnvelopedKey` accepted, in bytes (a valid one is about 240).
pub const MAX_LEN: usize = 1024;

#[derive(Sequence)]
struct EnvelopedKey<'a> {
    sym_alg: AlgorithmIdentifierRef<'a>,
    sym_encrypted_key: AnyRef<'a>,
    public_key: BitStringRef<'a>,
    encrypted_private_key: BitStringRef<'a>,
}

/// Envelops `key` for `recipient`: a random SM4 key from the OS encrypts d (SM4-ECB, no
/// padding) and is SM2-encrypted to `recipient` (GM/T 0009 DER ciphertext).
pub fn to_enveloped_key(key: &PrivateKey, recipient: &PublicKey) -> Result<Vec<u8>> {
    let sym = Zeroizing::new(guomi_core::rand::bytes::<16>()?);
    let d = key.to_bytes();
    let encrypted = modes::encrypt(
        &Sm4::new(&sym),
        Mode::Ecb,
        None,
        Some(Padding::None),
        &d[..],
    )?;
    let sym_ct = recipient.encrypt(&sym[..], CiphertextFormat::Der, true)?;
    let null = der::asn1::Null.to_der().map_err(der_err)?;
    let public = key.public_key().to_uncompressed();
    EnvelopedKey {
        sym_alg: AlgorithmIdentifierRef {
            oid: SM4_ECB,
            parameters: Some(AnyRef::from_der(&null).map_err(der_err)?),
        },
        sym_encrypted_key: AnyRef::from_der(&sym_ct).map_err(der_err)?,
        public_key: BitStringRef::from_bytes(&public).map_err(der_err)?,
        encrypted_private_key: BitStringRef::from_bytes(&encrypted).map_err(der_err)?,
    }
    .to_der()
    .map_err(der_err)
}

/// Opens an `SM2EnvelopedKey` with the recipient's `decryption_key`.
///
/// Errors: `UnsupportedFormat` for a malformed structure, a symAlgID other than SM4 or
/// SM4-ECB, or more than [`MAX_LEN`] bytes; `DecryptionFailed` (one opaque error) when
/// the SM4 key cannot be decrypted or the private key does not decrypt to a valid
/// scalar; `InvalidKey` when the decrypted key does not match the enclosed public key.
pub fn from_enveloped_key(data: &[u8], decryption_key: &PrivateKey) -> Result<PrivateKey> {
    if data.len() > MAX_LEN {
        return Err(Error::UnsupportedFormat(
            "SM2EnvelopedKey larger than 1024 bytes",
        ));
    }
    let env = EnvelopedKey::from_der(data).map_err(der_err)?;
    if env.sym_alg.oid != SM4_ECB && env.sym_alg.oid != SM4 {
        return Err(Error::UnsupportedFormat(
            "SM2EnvelopedKey: symAlgID must be SM4-ECB (1.2.156.10197.1.104.1)",
        ));
    }
    if let Some(p) = env.sym_alg.parameters {
        if p.tag() != der::Tag::Null || !p.value().is_empty() {
            return Err(Error::UnsupportedFormat("malformed DER"));
        }
    }
    if env.sym_encrypted_key.tag() != der::Tag::Sequence {
        return Err(Error::UnsupportedFormat(
            "SM2EnvelopedKey: symEncryptedKey must be a GM/T 0009 SM2Cipher",
        ));
    }
    let public_bits = env.public_key.as_bytes().ok_or(Error::UnsupportedFormat(
        "SM2EnvelopedKey: public key bit string",
    ))?;
    let public = PublicKey::from_bytes(public_bits)?;
    let encrypted = env
        .encrypted_private_key
        .as_bytes()
        .ok_or(Error::UnsupportedFormat(
            "SM2EnvelopedKey: private key bit string",
        ))?;
    if encrypted.len() != 32 && encrypted.len() != 48 {
        return Err(Error::UnsupportedFormat(
            "SM2EnvelopedKey: the encrypted private key must be 32 bytes (or 48 padded)",
        ));
    }
    let sym_ct = env.sym_encrypted_key.to_der().map_err(der_err)?;
    let sym = decryption_key
        .decrypt(&sym_ct, Some(CiphertextFormat::Der))
        .map_err(|_| Error::DecryptionFailed)?;
    let sym: &[u8; 16] = sym[..].try_into().map_err(|_| Error::DecryptionFailed)?;
    let mut buf = Zeroizing::new(encrypted.to_vec());
    modes::decrypt_in_place(
        &Sm4::new(sym),
        Mode::Ecb,
        None,
        Some(Padding::None),
        &mut buf,
    )
    .map_err(|_| Error::DecryptionFailed)?;
    if buf.len() == 48 && !bool::from(buf[32..].ct_eq(&[16u8; 16])) {
        return Err(Error::DecryptionFailed);
    }
    let key = PrivateKey::from_bytes(&buf[..32]).map_err(|_| Error::DecryptionFailed)?;
    if key.public_key() != &public {
        return Err(Error::InvalidKey(
            "SM2EnvelopedKey: the decrypted private key does not match the enclosed public key",
        ));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(name: &str) -> Vec<u8> {
        let p = format!("{}/../../vectors/keys/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(p).unwrap()
    }

    #[test]
    fn reads_gmsm_enveloped_key() {
        let recipient = crate::x509::load_private_key_pem(
            &String::from_utf8(vector("gmsm-v0.44.0-enveloped-recipient.pem")).unwrap(),
            None,
        )
        .unwrap();
        let env = vector("gmsm-v0.44.0-enveloped-key.der");
        let key = from_enveloped_key(&env, &recipient).unwrap();
        let d = String::from_utf8(vector("gmsm-v0.44.0-key.d.hex")).unwrap();
        assert_eq!(hex::encode(&key.to_bytes()[..]), d.trim());
        let other = PrivateKey::generate().unwrap();
        assert_eq!(
            from_enveloped_key(&env, &other).unwrap_err(),
            Error::DecryptionFailed
        );
    }

    #[test]
    fn round_trip_and_mismatch_and_bad_input() {
        let key = PrivateKey::generate().unwrap();
        let recipient = PrivateKey::generate().unwrap();
        let env = to_enveloped_key(&key, recipient.public_key()).unwrap();
        assert_eq!(from_enveloped_key(&env, &recipient).unwrap(), key);
        // Same layout as gmsm: SM4-ECB with NULL, then the DER ciphertext.
        assert_eq!(
            &env[3..17],
            &[0x30, 12, 6, 8, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 1, 0x68, 1, 5, 0]
        );
        // Another public key in the envelope: InvalidKey.
        let other = PrivateKey::<guomi_core::sm2::Sm2p256>::generate()
            .unwrap()
            .public_key()
            .to_uncompressed();
        let own = key.public_key().to_uncompressed();
        let pos = env.windows(65).position(|w| w == own).unwrap();
        let mut swapped = env.clone();
        swapped[pos..pos + 65].copy_from_slice(&other);
        assert!(matches!(
            from_enveloped_key(&swapped, &recipient),
            Err(Error::InvalidKey(_))
        ));
        // A changed encrypted private key: opaque failure (or, rarely, a mismatch).
        let mut bad = env.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(matches!(
            from_enveloped_key(&bad, &recipient),
            Err(Error::DecryptionFailed) | Err(Error::InvalidKey(_))
        ));
        // Every truncation is a typed error.
        for cut in 0..env.len() {
            assert!(from_enveloped_key(&env[..cut], &recipient).is_err());
        }
        assert!(matches!(
            from_enveloped_key(&vec![0u8; MAX_LEN + 1], &recipient),
            Err(Error::UnsupportedFormat(_))
        ));
        // Another symmetric algorithm (SM4-CBC) is refused.
        let mut cbc = env.clone();
        cbc[14] = 2;
        assert!(matches!(
            from_enveloped_key(&cbc, &recipient),
            Err(Error::UnsupportedFormat(_))
        ));
    }
}
