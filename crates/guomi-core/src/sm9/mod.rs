//! SM9 identity-based cryptography (GM/T 0044-2016 / GB/T 38635): signatures, public-key
//! encryption (KDF stream cipher), key encapsulation and key exchange over the 256-bit BN
//! curve with the R-ate pairing.
//!
//! * [`SignMasterKey`] / [`SignMasterPublicKey`] / [`SignUserKey`]: Part 2.
//! * [`EncMasterKey`] / [`EncMasterPublicKey`] / [`EncUserKey`]: Part 4 (encryption, KEM)
//!   and Part 3 (key exchange, user keys extracted with hid 0x02).
//! * [`kex::KeyExchange`]: Part 3, both roles, optional key confirmation.
//!
//! The arithmetic (Montgomery Fp, the Fp2/Fp4/Fp12 tower, G1/G2, the pairing) lives in
//! [`bn256`]: portable Rust, with the Fp product in MULX/ADX assembly where the active
//! backend variant has `cpu::Feature::Adx` (the work is 64x64-bit multiplies).

pub mod bn256;
pub mod encoding;
pub mod hash;
pub mod keys;
pub mod sign;

pub use keys::{
    EncMasterKey, EncMasterPublicKey, EncUserKey, SignMasterKey, SignMasterPublicKey, SignUserKey,
    HID_ENCRYPT, HID_EXCHANGE, HID_SIGN,
};
pub use sign::Signature;
pub mod enc;
pub use enc::{Cipher, Ciphertext, Mac};
pub mod kex;
pub use kex::KeyExchange;

/// The R-ate pairing e(P, Q) for encoded points: P in G1 (65 bytes 04 || x || y or 64),
/// Q in G2 (129 bytes or 128, Fp2 high coefficient first), validated as in `from_bytes`.
/// Returns the GT element in the standard's 384-byte order.
pub fn pairing(p: &[u8], q: &[u8]) -> crate::Result<[u8; 384]> {
    let p = encoding::g1_from_bytes(p, "G1 point")?;
    let q = encoding::g2_from_bytes(q, "G2 point")?;
    Ok(bn256::pairing::pairing(&p, &q).to_bytes())
}

/// The generator P1 (04 || x || y).
pub fn generator_p1() -> [u8; 65] {
    encoding::g1_to_bytes(&bn256::consts_p1())
}

/// The generator P2 (04 || x1 || x0 || y1 || y0).
pub fn generator_p2() -> [u8; 129] {
    encoding::g2_to_bytes(&bn256::consts_p2())
}

/// Known-answer-test hooks with a caller-chosen r, compiled only with the `kat-hooks`
/// feature (this crate's own tests). **Never enable it in a shipped build**: two SM9
/// signatures made with one r reveal the user's signing key.
#[cfg(feature = "kat-hooks")]
#[doc(hidden)]
pub mod hazmat {
    use super::bn256::fp::Fn;
    use super::{Ciphertext, EncMasterPublicKey, EncUserKey, KeyExchange, SignUserKey, Signature};
    use crate::error::{Error, Result};
    use std::sync::Arc;

    fn scalar(r: &[u8; 32]) -> Result<Fn> {
        super::encoding::scalar_from_bytes(r, "r")
    }

    /// Signs with the given r (Part 2 §6.2 A2-A7). Test use only.
    pub fn sign_with_fixed_r_for_testing(
        key: &SignUserKey,
        msg: &[u8],
        r: &[u8; 32],
    ) -> Result<Signature> {
        key.sign_with_r(msg, &scalar(r)?)
            .ok_or(Error::InvalidValue("this r must be rejected"))
    }

    /// Signs with the hedged r of [`SignUserKey::sign`], but with the given 32 bytes in
    /// place of the fresh OS randomness (deterministic). Test use only.
    pub fn sign_with_fixed_randomness_for_testing(
        key: &SignUserKey,
        msg: &[u8],
        randomness: &[u8; 32],
    ) -> Signature {
        let secret = zeroize::Zeroizing::new(super::encoding::g1_to_xy(&key.ds));
        let digest = crate::sm3::hash(msg);
        let drbg = crate::sm2::nonce::HedgedNonces::new(&secret[..], &digest, randomness);
        key.sign_with_drbg(msg, drbg)
    }

    /// Encrypts with the given r (Part 4 §7.2, KDF stream cipher, SM3 MAC). Test use only.
    pub fn encrypt_with_fixed_r_for_testing(
        key: &EncMasterPublicKey,
        msg: &[u8],
        user_id: &[u8],
        r: &[u8; 32],
    ) -> Result<Ciphertext> {
        key.encrypt_with_r(msg, user_id, &scalar(r)?)?
            .ok_or(Error::InvalidValue("this r must be rejected"))
    }

    /// A key-exchange party with the given r (Part 3 §6 A1-A3 / B1-B3). Test use only.
    pub fn key_exchange_with_fixed_r_for_testing(
        key: Arc<EncUserKey>,
        peer_id: &[u8],
        initiator: bool,
        r: &[u8; 32],
    ) -> Result<KeyExchange> {
        KeyExchange::new_with_r(key, peer_id, initiator, scalar(r)?)
    }
}
