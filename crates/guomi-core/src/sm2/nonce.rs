//! Hedged signing nonces: RFC 6979 §3.2's HMAC-DRBG with HMAC-SM3, seeded as in
//! RFC 6979 §3.6 with fresh OS randomness as the additional data k'.
//!
//! K = 00..00, V = 01..01;
//! K = HMAC_K(V || 00 || secret || digest || k'), V = HMAC_K(V);
//! K = HMAC_K(V || 01 || secret || digest || k'), V = HMAC_K(V);
//! then candidates T = V = HMAC_K(V), accepted when 1 <= T <= n - 1, else
//! K = HMAC_K(V || 00), V = HMAC_K(V) and again (RFC 6979 §3.2 h).
//!
//! With k' fresh from the OS, nonces stay uniform and unpredictable; if the OS state repeats
//! (a VM snapshot replayed) or is weak, k is still a pseudo-random function of the private
//! key and the message, so two different messages never share a k and the key is not
//! exposed. The accept/reject decision of a candidate is the only branch on secret data; it
//! reveals nothing about the value finally used (for SM2 a rejection has probability
//! about 2^-32, for SM9's N about 0.29, and a rejected candidate is discarded).
//!
//! The digest enters as given (the §3.6 hedge needs it only as a seed; RFC 6979's
//! bits2octets reduction is left to callers who want the exact RFC output).

use crate::error::Result;
use crate::sm3::hmac::HmacSm3;
use zeroize::{Zeroize, Zeroizing};

/// The keyed PRF of the DRBG: HMAC with a 32-byte key over concatenated parts, 32-byte
/// output. HMAC-SM3 in the library; the tests also instantiate HMAC-SHA-256 to check the
/// construction against RFC 6979's own vectors.
pub(crate) trait Prf {
    fn mac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32];
}

/// HMAC-SM3 (GB/T 15852.2 with SM3).
pub(crate) struct HmacSm3Prf;

impl Prf for HmacSm3Prf {
    fn mac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
        let mut m = HmacSm3::new(key);
        for p in parts {
            m.update(p);
        }
        m.finalize()
    }
}

/// The HMAC-DRBG state (K, V) of RFC 6979 §3.2. Wiped on drop.
pub(crate) struct HedgedNonces<P: Prf = HmacSm3Prf> {
    k: [u8; 32],
    v: [u8; 32],
    started: bool,
    _prf: core::marker::PhantomData<P>,
}

impl<P: Prf> Drop for HedgedNonces<P> {
    fn drop(&mut self) {
        self.k.zeroize();
        self.v.zeroize();
    }
}

impl<P: Prf> HedgedNonces<P> {
    /// Steps b-g of RFC 6979 §3.2 with the seed `secret || digest || extra`.
    pub(crate) fn new(secret: &[u8], digest: &[u8], extra: &[u8]) -> Self {
        let mut s = HedgedNonces {
            k: [0u8; 32],
            v: [1u8; 32],
            started: false,
            _prf: core::marker::PhantomData,
        };
        for tag in [0u8, 1] {
            // d, f: K = HMAC_K(V || tag || int2octets(x) || bits2octets(h1) || k').
            let k = P::mac(&s.k, &[&s.v, &[tag], secret, digest, extra]);
            s.k = k;
            // e, g: V = HMAC_K(V).
            s.v = P::mac(&s.k, &[&s.v]);
        }
        s
    }

    /// Step h: the next candidate accepted by `in_range` (which must check 1 <= k <= n-1
    /// in constant time). A second call continues the sequence, as RFC 6979 §3.2 h.3 does
    /// when the signer rejects a k (r = 0 and the like).
    pub(crate) fn next(
        &mut self,
        mut in_range: impl FnMut(&[u8; 32]) -> bool,
    ) -> Zeroizing<[u8; 32]> {
        loop {
            if self.started {
                // h.3: K = HMAC_K(V || 00), V = HMAC_K(V).
                self.k = P::mac(&self.k, &[&self.v, &[0u8]]);
                self.v = P::mac(&self.k, &[&self.v]);
            }
            self.started = true;
            // h.2: V = HMAC_K(V); T = V (qlen = hlen = 256 bits).
            self.v = P::mac(&self.k, &[&self.v]);
            let t = Zeroizing::new(self.v);
            // h.3: accept T in [1, n-1]. The outcome only discards this candidate.
            if in_range(&t) {
                return t;
            }
        }
    }
}

/// A DRBG for one signature: the private key and digest as the seed, with 32 bytes fresh
/// from the OS CSPRNG as the additional data (an OS RNG failure is an error).
pub(crate) fn hedged(secret: &[u8], digest: &[u8]) -> Result<HedgedNonces> {
    let extra = Zeroizing::new(crate::rand::bytes::<32>()?);
    Ok(HedgedNonces::new(secret, digest, &extra[..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// HMAC-SHA-256 (RFC 2104) for checking the DRBG against RFC 6979's vectors.
    struct HmacSha256;

    impl Prf for HmacSha256 {
        fn mac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
            let mut ipad = [0x36u8; 64];
            let mut opad = [0x5cu8; 64];
            for ((i, o), k) in ipad.iter_mut().zip(opad.iter_mut()).zip(key) {
                *i ^= k;
                *o ^= k;
            }
            let mut h = Sha256::new();
            h.update(ipad);
            for p in parts {
                h.update(p);
            }
            let inner = h.finalize();
            let mut h = Sha256::new();
            h.update(opad);
            h.update(inner);
            h.finalize().into()
        }
    }

    fn hex32(s: &str) -> [u8; 32] {
        let v: Vec<u8> = (0..64)
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect();
        v.try_into().unwrap()
    }

    /// Big-endian 1 <= k < q (variable time: test only).
    fn below(q: [u8; 32]) -> impl Fn(&[u8; 32]) -> bool {
        move |k: &[u8; 32]| k.iter().any(|&b| b != 0) && k[..] < q[..]
    }

    #[test]
    fn rfc6979_a25_p256_sha256_vectors() {
        // RFC 6979 A.2.5 (NIST P-256, SHA-256): with no additional data the DRBG is the
        // deterministic one of §3.2; x, h1 and the expected k are from the RFC.
        let q = hex32("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551");
        let x = hex32("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721");
        for (msg, k) in [
            (
                &b"sample"[..],
                "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
            ),
            (
                &b"test"[..],
                "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0",
            ),
        ] {
            // bits2octets(h1): h1 < q for both messages, so it is h1 itself.
            let h1: [u8; 32] = Sha256::digest(msg).into();
            assert!(h1[..] < q[..]);
            let mut d = HedgedNonces::<HmacSha256>::new(&x, &h1, &[]);
            assert_eq!(*d.next(below(q)), hex32(k));
        }
    }

    #[test]
    fn rejection_continues_the_sequence() {
        // Rejecting everything below a threshold forces the h.3 reseed path; the result
        // is reproducible and differs from the first candidate.
        let mut a = HedgedNonces::<HmacSm3Prf>::new(&[7u8; 32], &[9u8; 32], &[1u8; 32]);
        let first = *a.next(|_| true);
        let second = *a.next(|_| true);
        assert_ne!(first, second);
        let mut b = HedgedNonces::<HmacSm3Prf>::new(&[7u8; 32], &[9u8; 32], &[1u8; 32]);
        let mut n = 0;
        let skipped = *b.next(|_| {
            n += 1;
            n == 2
        });
        assert_eq!(skipped, second);
    }

    #[test]
    fn seed_parts_all_matter_and_fresh_randomness_differs() {
        let base = *HedgedNonces::<HmacSm3Prf>::new(&[1; 32], &[2; 32], &[3; 32]).next(|_| true);
        let again = *HedgedNonces::<HmacSm3Prf>::new(&[1; 32], &[2; 32], &[3; 32]).next(|_| true);
        assert_eq!(base, again);
        for (s, d, e) in [
            ([9; 32], [2; 32], [3; 32]),
            ([1; 32], [9; 32], [3; 32]),
            ([1; 32], [2; 32], [9; 32]),
        ] {
            let k = *HedgedNonces::<HmacSm3Prf>::new(&s, &d, &e).next(|_| true);
            assert_ne!(k, base);
        }
        let r1 = *hedged(&[1; 32], &[2; 32]).unwrap().next(|_| true);
        let r2 = *hedged(&[1; 32], &[2; 32]).unwrap().next(|_| true);
        assert_ne!(r1, r2);
    }
}
