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
    EncMasterKey, EncMasterPublicKey, EncUserKey, SignMasterKey, SignMasterPublicKey, SignUserKey, HID_ENCRYPT,
    HID_EXCHANGE, HID_SIGN,
};
pub use sign::Signature;
pub mod enc;
pub use enc::Ciphertext;
pub mod kex;
pub use kex::KeyExchange;
