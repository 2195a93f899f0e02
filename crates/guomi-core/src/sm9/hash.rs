//! The SM9 hash functions H1 and H2 (GM/T 0044-2016 Part 2 §5.3.2 / Part 4 §5.3.2).
//!
//! H_v(Z, n): hlen = 8 * ceil(5 log2(n) / 32) = 320 bits for the 256-bit N;
//! Ha_i = SM3(prefix || Z || ct_i) for ct = 1, 2; Ha = Ha_1 || leftmost 64 bits of Ha_2;
//! h = (Ha mod (n - 1)) + 1. H1 uses prefix 0x01, H2 prefix 0x02.

use super::bn256::fp::{adc, sbb};
use super::bn256::N;
use crate::sm3::Sm3;
use subtle::Choice;

/// N - 1, little-endian limbs.
const N_MINUS_1: [u64; 4] = [N[0] - 1, N[1], N[2], N[3]];

/// (Ha mod (N - 1)) + 1 for the 40-byte big-endian Ha, by constant-time shift and
/// conditional subtraction.
fn reduce_320(ha: &[u8; 40]) -> [u64; 4] {
    let mut r = [0u64; 5];
    for byte in ha.iter() {
        for bit in (0..8).rev() {
            // r = 2r + bit (r < N - 1 < 2^256, so 2r + 1 < 2^257 fits 5 limbs)
            let b = ((byte >> bit) & 1) as u64;
            r[4] = (r[4] << 1) | (r[3] >> 63);
            r[3] = (r[3] << 1) | (r[2] >> 63);
            r[2] = (r[2] << 1) | (r[1] >> 63);
            r[1] = (r[1] << 1) | (r[0] >> 63);
            r[0] = (r[0] << 1) | b;
            // if r >= N - 1 { r -= N - 1 }
            let (d0, br) = sbb(r[0], N_MINUS_1[0], 0);
            let (d1, br) = sbb(r[1], N_MINUS_1[1], br);
            let (d2, br) = sbb(r[2], N_MINUS_1[2], br);
            let (d3, br) = sbb(r[3], N_MINUS_1[3], br);
            let (d4, br) = sbb(r[4], 0, br);
            // The mask passes through `subtle`'s optimisation barrier: without it the
            // compiler turned the selects below into a branch on the borrow (reported by
            // scripts/ct-check.sh in SM9 signing, where Ha = H2(M || w) is secret until
            // the signature is published).
            let keep = 0u64.wrapping_sub(Choice::from(br as u8).unwrap_u8() as u64);
            r = [
                (r[0] & keep) | (d0 & !keep),
                (r[1] & keep) | (d1 & !keep),
                (r[2] & keep) | (d2 & !keep),
                (r[3] & keep) | (d3 & !keep),
                (r[4] & keep) | (d4 & !keep),
            ];
        }
    }
    let (s0, c) = adc(r[0], 1, 0);
    let (s1, c) = adc(r[1], 0, c);
    let (s2, c) = adc(r[2], 0, c);
    let (s3, _) = adc(r[3], 0, c);
    [s0, s1, s2, s3]
}

fn h_v(prefix: u8, parts: &[&[u8]]) -> [u64; 4] {
    let mut ha = [0u8; 40];
    let mut base = Sm3::new();
    base.update(&[prefix]);
    for p in parts {
        base.update(p);
    }
    let mut h1 = base.clone();
    h1.update(&1u32.to_be_bytes());
    ha[..32].copy_from_slice(&h1.finalize());
    base.update(&2u32.to_be_bytes());
    ha[32..].copy_from_slice(&base.finalize()[..8]);
    reduce_320(&ha)
}

/// H1(ID || hid, N) in [1, N-1], little-endian limbs.
pub fn h1(id: &[u8], hid: u8) -> [u64; 4] {
    h_v(0x01, &[id, &[hid]])
}

/// H2(parts..., N) in [1, N-1], little-endian limbs.
pub fn h2(parts: &[&[u8]]) -> [u64; 4] {
    h_v(0x02, parts)
}
