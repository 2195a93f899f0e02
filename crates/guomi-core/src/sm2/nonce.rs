//! Hedged nonces and ephemerals: candidates
//!
//! ```text
//! T_i = HMAC-SM3(key = secret, len(context) || context || extra || i),  i = 0, 1, ...
//! ```
//!
//! (len a 4-byte big-endian byte count, i a 4-byte big-endian counter), the first T_i with
//! 1 <= T_i <= n - 1 accepted. This is the hedge of RFC 6979 §3.6 (and of XEdDSA and
//! EdDSA's variants) in one PRF call per candidate instead of RFC 6979's HMAC-DRBG, which
//! costs four more HMAC keyings per signature:
//! * signing (SM2, SM9): key = the private key, context = the message digest, extra = 32
//!   fresh bytes from the OS CSPRNG. With fresh extra the nonce is uniform and
//!   unpredictable; if the OS state repeats (a VM snapshot replayed) or is weak, the nonce is
//!   still a pseudo-random function of the private key and the message, so two different
//!   messages never share a nonce and the key is not exposed.
//! * key exchange (SM2, SM9): key = the private key, context = a label, extra = fresh
//!   bytes: a weak OS RNG no longer gives a predictable ephemeral.
//! * encryption (SM2, SM9), where the sender holds no secret: key = 32 fresh bytes,
//!   context = SM3 of the recipient's public key and the plaintext. A repeated OS state now
//!   repeats a nonce only for the same plaintext to the same recipient (the ciphertexts
//!   are then equal) instead of exposing the XOR of two plaintexts.
//!
//! The accept/reject decision of a candidate is the only branch on secret data; it reveals
//! nothing about the value finally used (a rejection has probability about 2^-32 for SM2's
//! n and about 0.29 for SM9's N, and a rejected candidate is discarded).

use crate::error::Result;
use crate::sm3::hmac::HmacSm3;
use zeroize::Zeroizing;

/// The candidate sequence for one nonce: HMAC-SM3 keyed with the secret, already fed the
/// context and the extra randomness (its state is wiped on drop).
pub(crate) struct HedgedNonces {
    mac: HmacSm3,
    counter: u32,
}

impl HedgedNonces {
    /// The sequence for `secret` (the PRF key), `context` and `extra`.
    pub(crate) fn new(secret: &[u8], context: &[u8], extra: &[u8]) -> Self {
        let mut mac = HmacSm3::new(secret);
        // Lengths are bounded by the callers (digests, labels, 32-byte randomness).
        mac.update(&(context.len() as u32).to_be_bytes());
        mac.update(context);
        mac.update(extra);
        HedgedNonces { mac, counter: 0 }
    }

    /// The next candidate accepted by `in_range` (which must check 1 <= k <= n-1 in
    /// constant time). A second call continues the sequence (used when the signer rejects
    /// a nonce, r = 0 and the like).
    pub(crate) fn next(
        &mut self,
        mut in_range: impl FnMut(&[u8; 32]) -> bool,
    ) -> Zeroizing<[u8; 32]> {
        loop {
            let mut m = self.mac.clone();
            m.update(&self.counter.to_be_bytes());
            self.counter = self.counter.wrapping_add(1);
            let t = Zeroizing::new(m.finalize());
            // Accept T in [1, n-1]. Declassified: a rejected candidate is discarded and never
            // used, so the outcome reveals nothing about the value kept (`in_range` itself
            // is constant time).
            if crate::ct::declassify(in_range(&t)) {
                return t;
            }
        }
    }
}

/// The sequence for one signature or one key-exchange ephemeral: the private key and the
/// context as the seed, 32 fresh bytes from the OS CSPRNG as the extra input (an OS RNG
/// failure is an error).
pub(crate) fn hedged(secret: &[u8], context: &[u8]) -> Result<HedgedNonces> {
    let extra = Zeroizing::new(crate::rand::bytes::<32>()?);
    Ok(HedgedNonces::new(secret, context, &extra[..]))
}

/// [`hedged`], and 32 more bytes from the same OS CSPRNG call for the Z blinding of the
/// scalar multiplication by the nonce (`table::ZBlind`): one getrandom call of 64 bytes
/// per signature or ephemeral instead of two. The two halves are used for nothing else.
pub(crate) fn hedged_blinded(secret: &[u8], context: &[u8]) -> Result<(HedgedNonces, Half)> {
    let (extra, blind) = draw_two()?;
    Ok((HedgedNonces::new(secret, context, &extra[..]), blind))
}

/// The sequence for one encryption: 32 fresh bytes from the OS CSPRNG as the key, the
/// public context (recipient key and plaintext digest) as the context.
pub(crate) fn hedged_public(context: &[u8]) -> Result<HedgedNonces> {
    let key = Zeroizing::new(crate::rand::bytes::<32>()?);
    Ok(HedgedNonces::new(&key[..], context, &[]))
}

/// [`hedged_public`], and 32 more bytes from the same OS CSPRNG call for the Z blinding
/// (one getrandom call of 64 bytes per encryption instead of three).
pub(crate) fn hedged_public_blinded(context: &[u8]) -> Result<(HedgedNonces, Half)> {
    let (key, blind) = draw_two()?;
    Ok((HedgedNonces::new(&key[..], context, &[]), blind))
}

/// 32 bytes of OS randomness, wiped on drop.
type Half = Zeroizing<[u8; 32]>;

/// 64 bytes from one OS CSPRNG call, as two halves.
fn draw_two() -> Result<(Half, Half)> {
    let mut both = Zeroizing::new([0u8; 64]);
    crate::rand::fill(&mut both[..])?;
    let (mut a, mut b) = (Zeroizing::new([0u8; 32]), Zeroizing::new([0u8; 32]));
    a.copy_from_slice(&both[..32]);
    b.copy_from_slice(&both[32..]);
    Ok((a, b))
}

/// SM3(part_0 || part_1 || ...): the context of an encryption nonce.
pub(crate) fn context_digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = crate::sm3::Sm3::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(secret: &[u8], context: &[u8], extra: &[u8], i: u32) -> [u8; 32] {
        let mut msg = Vec::new();
        msg.extend_from_slice(&(context.len() as u32).to_be_bytes());
        msg.extend_from_slice(context);
        msg.extend_from_slice(extra);
        msg.extend_from_slice(&i.to_be_bytes());
        crate::sm3::hmac::hmac(secret, &msg)
    }

    #[test]
    fn candidates_are_the_documented_hmac() {
        let (s, c, e) = ([7u8; 32], [9u8; 32], [1u8; 32]);
        let mut a = HedgedNonces::new(&s, &c, &e);
        assert_eq!(*a.next(|_| true), reference(&s, &c, &e, 0));
        assert_eq!(*a.next(|_| true), reference(&s, &c, &e, 1));
        // A rejection moves on to the next counter value.
        let mut b = HedgedNonces::new(&s, &c, &e);
        let mut n = 0;
        let got = *b.next(|_| {
            n += 1;
            n == 3
        });
        assert_eq!(got, reference(&s, &c, &e, 2));
        // Long secrets (SM9 keys) are keys like any other.
        let long = [3u8; 129];
        assert_eq!(
            *HedgedNonces::new(&long, b"ctx", &[]).next(|_| true),
            reference(&long, b"ctx", &[], 0)
        );
    }

    #[test]
    fn seed_parts_all_matter_and_fresh_randomness_differs() {
        let base = *HedgedNonces::new(&[1; 32], &[2; 32], &[3; 32]).next(|_| true);
        let again = *HedgedNonces::new(&[1; 32], &[2; 32], &[3; 32]).next(|_| true);
        assert_eq!(base, again);
        for (s, d, e) in [
            ([9; 32], [2; 32], [3; 32]),
            ([1; 32], [9; 32], [3; 32]),
            ([1; 32], [2; 32], [9; 32]),
        ] {
            let k = *HedgedNonces::new(&s, &d, &e).next(|_| true);
            assert_ne!(k, base);
        }
        // The context length is bound: moving a byte between context and extra changes T.
        let a = *HedgedNonces::new(&[1; 32], &[2; 31], &[2; 33]).next(|_| true);
        let b = *HedgedNonces::new(&[1; 32], &[2; 32], &[2; 32]).next(|_| true);
        assert_ne!(a, b);
        let r1 = *hedged(&[1; 32], &[2; 32]).unwrap().next(|_| true);
        let r2 = *hedged(&[1; 32], &[2; 32]).unwrap().next(|_| true);
        assert_ne!(r1, r2);
        let p1 = *hedged_public(&[2; 32]).unwrap().next(|_| true);
        let p2 = *hedged_public(&[2; 32]).unwrap().next(|_| true);
        assert_ne!(p1, p2);
    }
}
