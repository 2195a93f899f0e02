//! SM2 public-key cryptography (GB/T 32918.1-5, GM/T 0003-2012) on the recommended curve
//! sm2p256v1.
//!
//! * [`PrivateKey`] / [`PublicKey`]: generation, validation, encodings (points, SEC1,
//!   PKCS#8, SPKI, PEM), `prepare()` for a per-key comb table.
//! * Signatures (GB/T 32918.2): [`PrivateKey::sign`], [`PublicKey::verify`], digest
//!   forms, [`Signature`] (DER / raw), streaming hashers, [`verify_many`].
//! * Encryption (GB/T 32918.4): [`PublicKey::encrypt`], [`PrivateKey::decrypt`] in the
//!   C1C3C2, C1C2C3 and GM/T 0009 DER layouts; [`convert_ciphertext`]; a KEM
//!   ([`PublicKey::encapsulate`] / [`PrivateKey::decapsulate`]).
//! * Key exchange (GB/T 32918.3): [`Initiator`], [`Responder`]; plain [`ecdh`].
//!
//! The arithmetic ([`field`], [`point`], [`table`]) is generic over [`Curve`] so that the
//! worked examples of the standard, which use a different example curve
//! ([`ExampleCurve`]), run through the same code as sm2p256v1. There is one backend
//! (portable Rust, 64-bit limbs with `u128` products): it is constant time and the
//! same on every CPU, so no `cpu::active()` dispatch is needed.
//!
//! Secrets (d, k, r, (1+d)^-1, shared points) are handled in constant time: fixed
//! windows, masked table reads, safegcd inversion with a fixed number of steps; only
//! public data (signature verification, table construction) uses variable-time code.

mod curve;
mod dsa;
mod field;
mod kex;
mod keys;
pub(crate) mod nonce;
mod pke;
mod point;
mod table;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;

pub use curve::{Curve, ExampleCurve, Sm2p256};
pub use dsa::{message_digest, verify_many, Signature, VerifyItem};
pub use kex::{ecdh, Exchanged, Initiator, Responder, UnboundInitiator};
pub use keys::{
    auto_prepared_bytes, PrivateKey, PublicKey, AUTO_PREPARE_AFTER, AUTO_PREPARE_BUDGET,
    DEFAULT_UID, MAX_UID_LEN,
};
pub use pke::{
    convert_ciphertext, convert_ciphertext_c1, C1Format, CiphertextFormat, CiphertextParts,
};

/// Longest key accepted by the KEMs ([`PublicKey::encapsulate`],
/// [`PrivateKey::decapsulate`]) and the key exchange ([`Initiator::finish`],
/// [`Responder::respond`]), in bytes (2^16); the shortest is 1 byte. SM9 uses the same bound.
pub const MAX_KEY_LENGTH: usize = 1 << 16;

/// Checks a requested key length against 1..=[`MAX_KEY_LENGTH`] before anything is
/// allocated.
pub(crate) fn check_key_length(key_length: usize) -> crate::Result<()> {
    if (1..=MAX_KEY_LENGTH).contains(&key_length) {
        Ok(())
    } else {
        Err(crate::Error::InvalidLength {
            what: "key_length",
            expected: "1 to 65536 bytes",
            got: key_length,
        })
    }
}

/// Longest message of SM2 encryption, in bytes: the GM/T 0003.4 KDF counter is 32 bits,
/// so klen < (2^32 - 1) · 256 bits.
pub const MAX_MESSAGE_LENGTH: u64 = (u32::MAX as u64 - 1) * 32;

/// Known-answer-test hooks with caller-chosen nonces, compiled only with the `kat-hooks`
/// feature (this crate's own tests). **Never enable it in a shipped build**: a repeated or
/// predictable k reveals the private key.
#[cfg(feature = "kat-hooks")]
#[doc(hidden)]
pub mod hazmat {
    use super::curve::Curve;
    use super::field::{limbs_from_be, lt_ct, Modulus};
    use super::{CiphertextParts, PrivateKey, PublicKey, Signature};
    use crate::error::{Error, Result};

    fn k_limbs<C: Curve>(k: &[u8; 32]) -> Result<[u64; 4]> {
        let l = limbs_from_be(k);
        if l == [0; 4] || !bool::from(lt_ct(&l, &<C::N as Modulus>::M)) {
            return Err(Error::InvalidValue("k must be in [1, n-1]"));
        }
        Ok(l)
    }

    /// Signs the digest e with the given k (GB/T 32918.2 A4-A7). Test use only.
    pub fn sign_digest_with_fixed_k_for_testing<C: Curve>(
        key: &PrivateKey<C>,
        e: &[u8; 32],
        k: &[u8; 32],
    ) -> Result<Signature> {
        let blind = super::table::ZBlind::draw()?;
        super::dsa::sign_with_k(key, e, &k_limbs::<C>(k)?, &blind)
            .ok_or(Error::InvalidValue("this k must be rejected"))
    }

    /// Signs e with the hedged nonce of [`PrivateKey::sign_digest`], but with the given
    /// 32 bytes in place of the fresh OS randomness (deterministic). Test use only.
    ///
    /// # Panics
    ///
    /// If the OS CSPRNG fails (it still supplies the blinding of k·G, which does not
    /// change the signature).
    pub fn sign_digest_with_fixed_randomness_for_testing<C: Curve>(
        key: &PrivateKey<C>,
        e: &[u8; 32],
        randomness: &[u8; 32],
    ) -> Signature {
        let d = key.to_bytes();
        let drbg = super::nonce::HedgedNonces::new(&d[..], e, randomness);
        let blind = super::table::ZBlind::draw().expect("OS randomness for the blinding");
        super::dsa::sign_with_drbg(key, e, drbg, blind)
    }

    /// Timing hooks for the `sm2_bench` example: `n` dependent field products, squarings,
    /// additions or point doublings on sm2p256v1, returning the last value (so that the
    /// work cannot be optimised away and two builds can be compared). Test use only.
    pub fn bench_chain_for_testing(what: &str, n: usize) -> [u8; 32] {
        use super::curve::{Sm2P, Sm2p256};
        use super::field::Fe;
        super::field::select_backend();
        let g = Sm2p256::g();
        let (mut x, y) = (g.x, g.y);
        match what {
            "mul" => (0..n).for_each(|_| x = x.mul(&y)),
            "mul2" => {
                // Two independent chains of n / 2: throughput rather than latency.
                let mut z = y;
                (0..n / 2).for_each(|_| {
                    x = x.mul(&g.y);
                    z = z.mul(&g.x);
                });
                x = x.add(&z);
            }
            "sqr" => (0..n).for_each(|_| x = x.square()),
            "add" => (0..n).for_each(|_| x = x.add(&y)),
            "sub" => (0..n).for_each(|_| x = x.sub(&y)),
            "dbl" => {
                let mut p = g.to_jacobian();
                (0..n).for_each(|_| p = p.double());
                x = p.x.mul(&p.z);
            }
            "madd" => {
                let mut p = g.to_jacobian().double();
                (0..n).for_each(|_| p = p.add_mixed_ct(&g).0);
                x = p.x.mul(&p.z);
            }
            "add_ct" => {
                let q = g.to_jacobian().double().double();
                let mut p = g.to_jacobian().double();
                (0..n).for_each(|_| p = p.add_ct(&q).0);
                x = p.x.mul(&p.z);
            }
            "inv" => (0..n).for_each(|_| x = x.invert()),
            "inv_vt" => (0..n).for_each(|_| x = x.invert_vartime()),
            _ => panic!("unknown chain {what}"),
        }
        let _: Fe<Sm2P> = x;
        x.to_bytes()
    }

    /// `x^-1` modulo sm2p256v1's p (`modulus = "p"`) or n (`"n"`) through the fields'
    /// constant-time inversion (x is reduced first; 0 maps to 0), for the constant-time
    /// harness and cross-checks. Test use only.
    pub fn invert_for_testing(modulus: &str, x: &[u8; 32]) -> [u8; 32] {
        use super::curve::{Sm2N, Sm2P};
        use super::field::Fe;
        super::field::select_backend();
        match modulus {
            "p" => Fe::<Sm2P>::from_bytes_reducing(x).invert().to_bytes(),
            "n" => Fe::<Sm2N>::from_bytes_reducing(x).invert().to_bytes(),
            _ => panic!("modulus must be \"p\" or \"n\""),
        }
    }

    /// Encrypts with the given k (GB/T 32918.4 A2-A8). Test use only.
    pub fn encrypt_with_fixed_k_for_testing<C: Curve>(
        key: &PublicKey<C>,
        msg: &[u8],
        k: &[u8; 32],
    ) -> Result<CiphertextParts> {
        let blind = super::table::ZBlind::draw()?;
        super::pke::encrypt_with_k(key, msg, &k_limbs::<C>(k)?, &blind)
            .ok_or(Error::InvalidValue("this k must be rejected"))
    }
}

#[cfg(test)]
mod rng_tests {
    use super::*;
    use crate::error::Error;
    use crate::rand::test_hooks::calls;

    /// Each operation draws its randomness, the Z blinding included, in as few OS CSPRNG
    /// calls as documented (one for a signature, an encryption, a KEM, a new key or a key
    /// exchange ephemeral), and fails closed with `Error::Random`, never a result
    /// computed without it, when that call fails.
    #[test]
    fn one_os_call_per_operation_and_failure_is_error_random() {
        let key = PrivateKey::<Sm2p256>::from_bytes(&[0x42; 32]).unwrap();
        let peer = PrivateKey::<Sm2p256>::from_bytes(&[0x5a; 32]).unwrap();
        let pk = PublicKey::<Sm2p256>::from_bytes(&key.public_key().to_uncompressed()).unwrap();
        let e = [7u8; 32];
        let ct = pk.encrypt_parts(b"abc").unwrap();
        // (operation, OS calls when it succeeds)
        type Op<'a> = (
            &'a str,
            Box<dyn Fn() -> crate::error::Result<()> + 'a>,
            usize,
        );
        let ops: Vec<Op> = vec![
            ("sign", Box::new(|| key.sign_digest(&e).map(drop)), 1),
            (
                "encrypt",
                Box::new(|| pk.encrypt_parts(b"abc").map(drop)),
                1,
            ),
            ("encapsulate", Box::new(|| pk.encapsulate(16).map(drop)), 1),
            (
                "generate",
                Box::new(|| PrivateKey::<Sm2p256>::generate().map(drop)),
                1,
            ),
            (
                "from_bytes",
                Box::new(|| PrivateKey::<Sm2p256>::from_bytes(&[9; 32]).map(drop)),
                1,
            ),
            ("decrypt", Box::new(|| key.decrypt_parts(&ct).map(drop)), 1),
            (
                "ecdh",
                Box::new(|| ecdh(&key, peer.public_key()).map(drop)),
                1,
            ),
            (
                "key exchange initiator",
                Box::new(|| Initiator::new(&key, b"a", peer.public_key(), b"b").map(drop)),
                1,
            ),
        ];
        for (name, f, want) in &ops {
            let (r, n) = calls(false, f);
            assert!(r.is_ok(), "{name}");
            assert_eq!(n, *want, "{name}: OS CSPRNG calls");
            let (r, n) = calls(true, f);
            assert!(matches!(r, Err(Error::Random)), "{name}: {r:?}");
            assert_eq!(n, 1, "{name}: fails at its first call");
        }
        // The results of the combined draws are right: the signature verifies, the
        // ciphertext decrypts, the generated key's public key is d·G.
        let sig = key.sign_digest(&e).unwrap();
        assert!(key.public_key().verify_digest(&e, &sig));
        let c = pk.encrypt_parts(b"abc").unwrap();
        assert_eq!(&key.decrypt_parts(&c).unwrap()[..], b"abc");
        let g = PrivateKey::<Sm2p256>::generate().unwrap();
        let again = PrivateKey::<Sm2p256>::from_bytes(&g.to_bytes()[..]).unwrap();
        assert_eq!(g.public_key(), again.public_key());
    }
}
