//! The PRF (GB/T 38636-2020 §6.5.2): PRF(secret, label, seed) = P_SM3(secret, label ||
//! seed), the TLS 1.2 P_hash construction (RFC 5246 §5) with HMAC-SM3.

use guomi_core::sm3::hmac::HmacSm3;
use zeroize::Zeroizing;

/// Fills `out` with PRF(secret, label, seed parts concatenated).
pub(crate) fn prf(secret: &[u8], label: &[u8], seed: &[&[u8]], out: &mut [u8]) {
    let keyed = HmacSm3::new(secret);
    // A(1) = HMAC(secret, label || seed).
    let mut h = keyed.clone();
    h.update(label);
    for s in seed {
        h.update(s);
    }
    let mut a = Zeroizing::new(h.finalize());
    let mut done = 0;
    while done < out.len() {
        // P_hash block = HMAC(secret, A(i) || label || seed).
        let mut h = keyed.clone();
        h.update(&a[..]);
        h.update(label);
        for s in seed {
            h.update(s);
        }
        let block = Zeroizing::new(h.finalize());
        let n = (out.len() - done).min(block.len());
        out[done..done + n].copy_from_slice(&block[..n]);
        done += n;
        // A(i+1) = HMAC(secret, A(i)).
        let mut h = keyed.clone();
        h.update(&a[..]);
        *a = h.finalize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_consistent_and_keyed() {
        let mut a = [0u8; 48];
        let mut b = [0u8; 100];
        prf(b"secret", b"label", &[b"se", b"ed"], &mut a);
        prf(b"secret", b"label", &[b"seed"], &mut b);
        assert_eq!(a[..], b[..48]);
        let mut c = [0u8; 48];
        prf(b"secreT", b"label", &[b"seed"], &mut c);
        assert_ne!(a, c);
        // First block = HMAC(secret, HMAC(secret, label||seed) || label || seed).
        let a1 = guomi_core::sm3::hmac::hmac(b"secret", b"labelseed");
        let mut m = a1.to_vec();
        m.extend_from_slice(b"labelseed");
        assert_eq!(a[..32], guomi_core::sm3::hmac::hmac(b"secret", &m));
    }
}
