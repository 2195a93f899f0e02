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
//! [`bn256`]; it is portable Rust with no SIMD backend (the work is 64x64-bit multiplies).

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
