//! Portable, constant-time SM4 rounds: a bitsliced S-box.
//!
//! Bulk: 64 blocks at a time, fully bitsliced (bit k of word i of 64 blocks in one u64;
//! the rotations of L become plane renamings, transposes only on load and store).
//! Fewer blocks (single blocks of the serial modes, tails): 16 at a time, where each round
//! transposes the 64 S-box inputs (4 bytes of 16 blocks) into eight bit planes and back.
//!
//! The circuit uses the affine-equivalence of the SM4 S-box with inversion in GF(2^8)
//! (`S(x) = A·(A·x + C)^-1 + C` over GF(2)[x]/(x^8+x^7+x^6+x^5+x^4+x^2+1)), with the
//! inversion done in the isomorphic tower field GF((2^4)^2): GF(16) = GF(2)[z]/(z^4+z+1),
//! GF(256) = GF(16)[y]/(y^2 + y + λ), λ = z^3. The field isomorphism is folded into the
//! affine maps, so the S-box is `S(x) = M_out·inv_tower(M_in·x + c_in) + C`.
//! `derive_affine.py` derives `M_in`, `c_in`, `M_out` and checks them against the §6.2
//! table for all 256 inputs.
//!
//! Everything is AND/XOR/NOT on planes: no branch and no memory access depends on the
//! data or the key.

use super::ROUNDS;

/// Rows of `M_in` (output bit i = parity(row[i] & x)) and `c_in`: x ↦ tower(A·x + C).
const IN_ROWS: [u8; 8] = [0xd8, 0x65, 0xbe, 0xe3, 0x93, 0x40, 0xc4, 0x7f];
const IN_C: u8 = 0xac;
/// Rows of `M_out` = A·Φ^-1 and the constant C = 0xd3.
const OUT_ROWS: [u8; 8] = [0x93, 0x45, 0xe4, 0x95, 0x1a, 0xba, 0x57, 0x19];
const OUT_C: u8 = 0xd3;

type Planes = [u64; 8];
/// A GF(16) element in bit planes (coefficients of 1, z, z^2, z^3).
type Nib = [u64; 4];

/// `M·x + c` on bit planes (M and c are public constants).
#[inline(always)]
fn affine(x: &Planes, rows: &[u8; 8], c: u8) -> Planes {
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut acc = 0u64;
        for (j, p) in x.iter().enumerate() {
            if (rows[i] >> j) & 1 == 1 {
                acc ^= *p;
            }
        }
        if (c >> i) & 1 == 1 {
            acc = !acc;
        }
        *o = acc;
    }
    out
}

/// GF(16) product modulo z^4 + z + 1.
#[inline(always)]
fn g16_mul(a: &Nib, b: &Nib) -> Nib {
    let mut p = [0u64; 7];
    for i in 0..4 {
        for j in 0..4 {
            p[i + j] ^= a[i] & b[j];
        }
    }
    // z^k = z^(k-4)·(z + 1), folded from the top.
    for k in (4..7).rev() {
        let v = p[k];
        p[k - 4] ^= v;
        p[k - 3] ^= v;
    }
    [p[0], p[1], p[2], p[3]]
}

/// GF(16) square (linear: a0 + a1 z^2 + a2 z^4 + a3 z^6, reduced).
#[inline(always)]
fn g16_sqr(a: &Nib) -> Nib {
    [a[0] ^ a[2], a[2], a[1] ^ a[3], a[3]]
}

/// Multiplication by λ = z^3 (linear).
#[inline(always)]
fn g16_mul_lambda(a: &Nib) -> Nib {
    [a[1], a[1] ^ a[2], a[2] ^ a[3], a[0] ^ a[3]]
}

/// GF(16) inverse as a^14 = a^2·a^4·a^8 (0 maps to 0).
#[inline(always)]
fn g16_inv(a: &Nib) -> Nib {
    let a2 = g16_sqr(a);
    let a4 = g16_sqr(&a2);
    let a8 = g16_sqr(&a4);
    g16_mul(&g16_mul(&a2, &a4), &a8)
}

/// Inversion in GF((2^4)^2): (a·y + b)^-1 = a·d·y + (a + b)·d with
/// d = (a^2·λ + a·b + b^2)^-1 (0 maps to 0).
#[inline(always)]
fn tower_inv(x: &Planes) -> Planes {
    let b: Nib = [x[0], x[1], x[2], x[3]];
    let a: Nib = [x[4], x[5], x[6], x[7]];
    let ab = g16_mul(&a, &b);
    let l = g16_mul_lambda(&g16_sqr(&a));
    let b2 = g16_sqr(&b);
    let delta: Nib = core::array::from_fn(|i| l[i] ^ ab[i] ^ b2[i]);
    let d = g16_inv(&delta);
    let hi = g16_mul(&a, &d);
    let a_b: Nib = core::array::from_fn(|i| a[i] ^ b[i]);
    let lo = g16_mul(&a_b, &d);
    [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
}

/// The S-box on 64 bytes held as bit planes.
#[inline(always)]
fn sbox_planes(x: &Planes) -> Planes {
    affine(&tower_inv(&affine(x, &IN_ROWS, IN_C)), &OUT_ROWS, OUT_C)
}

/// Transposes the 8x8 bit matrix held in `x` (row k = byte k, column j = bit j).
#[inline(always)]
fn transpose8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^= t ^ (t << 28);
    x
}

/// Transposes the 8x8 byte matrix `w` (row m = word m, column j = byte j).
#[inline(always)]
fn transpose_bytes(w: &mut [u64; 8]) {
    for m in 0..4 {
        let (a, b) = (w[m], w[m + 4]);
        w[m] = (a & 0x0000_0000_ffff_ffff) | (b << 32);
        w[m + 4] = (a >> 32) | (b & 0xffff_ffff_0000_0000);
    }
    for m in [0, 1, 4, 5] {
        let (a, b) = (w[m], w[m + 2]);
        w[m] = (a & 0x0000_ffff_0000_ffff) | ((b & 0x0000_ffff_0000_ffff) << 16);
        w[m + 2] = ((a >> 16) & 0x0000_ffff_0000_ffff) | (b & 0xffff_0000_ffff_0000);
    }
    for m in [0, 2, 4, 6] {
        let (a, b) = (w[m], w[m + 1]);
        w[m] = (a & 0x00ff_00ff_00ff_00ff) | ((b & 0x00ff_00ff_00ff_00ff) << 8);
        w[m + 1] = ((a >> 8) & 0x00ff_00ff_00ff_00ff) | (b & 0xff00_ff00_ff00_ff00);
    }
}

/// §6.2 τ on sixteen words at once (the S-box on each of their 64 bytes).
#[inline(always)]
fn tau16(words: &mut [u32; 16]) {
    let mut w = [0u64; 8];
    for m in 0..8 {
        w[m] = transpose8x8(u64::from(words[2 * m]) | (u64::from(words[2 * m + 1]) << 32));
    }
    // Now byte j of w[m] holds bit j of the 8 bytes of words 2m, 2m+1: gather plane j.
    transpose_bytes(&mut w);
    let s = sbox_planes(&w);
    let mut w = s;
    transpose_bytes(&mut w);
    for m in 0..8 {
        let v = transpose8x8(w[m]);
        words[2 * m] = v as u32;
        words[2 * m + 1] = (v >> 32) as u32;
    }
}

/// §6.2 τ of one word: its four bytes as the rows of an 8x8 bit matrix, transposed into
/// eight (4-bit) planes, through the same circuit, and back. Used by the key schedule and
/// the single-block path.
pub(crate) fn tau(word: u32) -> u32 {
    let x = transpose8x8(u64::from(word));
    let planes: Planes = core::array::from_fn(|j| (x >> (8 * j)) & 0xff);
    let s = sbox_planes(&planes);
    // The constants of the affine maps also flip the unused bits: mask each plane.
    let y = s
        .iter()
        .enumerate()
        .fold(0u64, |acc, (j, p)| acc | ((p & 0xff) << (8 * j)));
    transpose8x8(y) as u32
}

/// §7.1 on one block with scalar words and [`tau`]: the latency path of the serial modes.
fn crypt1(rk: &[u32; ROUNDS], block: &mut [u8]) {
    let w = |i: usize| u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
    let mut x = [w(0), w(1), w(2), w(3)];
    for (r, &k) in rk.iter().enumerate() {
        let t = x[(r + 1) % 4] ^ x[(r + 2) % 4] ^ x[(r + 3) % 4] ^ k;
        x[r % 4] ^= l(tau(t));
    }
    for i in 0..4 {
        block[4 * i..4 * i + 4].copy_from_slice(&x[3 - i].to_be_bytes());
    }
}

/// §6.2 L: B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24).
#[inline(always)]
fn l(b: u32) -> u32 {
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// §7.1 the 32 rounds on up to 16 blocks (`data.len()` = 16·n, n ≤ 16).
fn crypt16(rk: &[u32; ROUNDS], data: &mut [u8]) {
    let n = data.len() / 16;
    debug_assert!(n <= 16 && data.len().is_multiple_of(16));
    let mut x = [[0u32; 16]; 4];
    for (b, block) in data.chunks_exact(16).enumerate() {
        for i in 0..4 {
            x[i][b] = u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ]);
        }
    }
    for (r, &k) in rk.iter().enumerate() {
        // X_{i+4} = X_i ^ T(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i); the four words rotate roles.
        let (i0, i1, i2, i3) = (r % 4, (r + 1) % 4, (r + 2) % 4, (r + 3) % 4);
        let mut t = [0u32; 16];
        for b in 0..16 {
            t[b] = x[i1][b] ^ x[i2][b] ^ x[i3][b] ^ k;
        }
        tau16(&mut t);
        for b in 0..16 {
            x[i0][b] ^= l(t[b]);
        }
    }
    // §7.1 (Y0..Y3) = R(X32..X35) = (X35, X34, X33, X32); after 32 rounds X32..X35 sit in
    // x[0..4] in order.
    for (b, block) in data.chunks_exact_mut(16).enumerate().take(n) {
        for i in 0..4 {
            block[4 * i..4 * i + 4].copy_from_slice(&x[3 - i][b].to_be_bytes());
        }
    }
}

/// Transposes the 64x64 bit matrix `a` in place: bit c of `a[r]` moves to bit r of `a[c]`.
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            // Swap the upper-right and lower-left j x j blocks of each 2j x 2j block.
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// One round on fully bitsliced words: `x0[k]` holds bit k of word X0 of 64 blocks.
/// §7.1: X0 ^= L(τ(X1 ^ X2 ^ X3 ^ rk)); the rotations of L are plane renamings.
#[inline(always)]
fn round64(x0: &mut [u64; 32], x1: &[u64; 32], x2: &[u64; 32], x3: &[u64; 32], rk: u32) {
    let mut t = [0u64; 32];
    for k in 0..32 {
        // The round key is secret: a mask, not a branch.
        let key = 0u64.wrapping_sub(u64::from((rk >> k) & 1));
        t[k] = x1[k] ^ x2[k] ^ x3[k] ^ key;
    }
    // τ: the S-box on each byte (planes 8j..8j+8 are the bits of byte j).
    let mut s = [0u64; 32];
    for j in 0..4 {
        let byte: Planes = core::array::from_fn(|m| t[8 * j + m]);
        s[8 * j..8 * j + 8].copy_from_slice(&sbox_planes(&byte));
    }
    // L: bit k of (s <<< n) is bit (k - n) mod 32 of s.
    for k in 0..32 {
        x0[k] ^= s[k] ^ s[(k + 30) % 32] ^ s[(k + 22) % 32] ^ s[(k + 14) % 32] ^ s[(k + 8) % 32];
    }
}

/// §7.1 on exactly 64 blocks (1024 bytes) with the whole state bitsliced: the bit-matrix
/// transposes happen once per block, not once per round.
fn crypt64(rk: &[u32; ROUNDS], data: &mut [u8]) {
    debug_assert_eq!(data.len(), 1024);
    // Rows: word 2h in the low half, word 2h + 1 in the high half, one row per block.
    let mut planes = [[0u64; 64]; 2];
    for (b, block) in data.chunks_exact(16).enumerate() {
        let w = |i: usize| {
            u64::from(u32::from_be_bytes(
                block[4 * i..4 * i + 4].try_into().unwrap(),
            ))
        };
        planes[0][b] = w(0) | (w(1) << 32);
        planes[1][b] = w(2) | (w(3) << 32);
    }
    transpose64(&mut planes[0]);
    transpose64(&mut planes[1]);
    let mut x0: [u64; 32] = planes[0][..32].try_into().unwrap();
    let mut x1: [u64; 32] = planes[0][32..].try_into().unwrap();
    let mut x2: [u64; 32] = planes[1][..32].try_into().unwrap();
    let mut x3: [u64; 32] = planes[1][32..].try_into().unwrap();
    for r in (0..ROUNDS).step_by(4) {
        round64(&mut x0, &x1, &x2, &x3, rk[r]);
        round64(&mut x1, &x2, &x3, &x0, rk[r + 1]);
        round64(&mut x2, &x3, &x0, &x1, rk[r + 2]);
        round64(&mut x3, &x0, &x1, &x2, rk[r + 3]);
    }
    // (Y0, Y1, Y2, Y3) = (X35, X34, X33, X32) = (x3, x2, x1, x0).
    planes[0][..32].copy_from_slice(&x3);
    planes[0][32..].copy_from_slice(&x2);
    planes[1][..32].copy_from_slice(&x1);
    planes[1][32..].copy_from_slice(&x0);
    transpose64(&mut planes[0]);
    transpose64(&mut planes[1]);
    for (b, block) in data.chunks_exact_mut(16).enumerate() {
        let (r0, r1) = (planes[0][b], planes[1][b]);
        block[0..4].copy_from_slice(&(r0 as u32).to_be_bytes());
        block[4..8].copy_from_slice(&((r0 >> 32) as u32).to_be_bytes());
        block[8..12].copy_from_slice(&(r1 as u32).to_be_bytes());
        block[12..16].copy_from_slice(&((r1 >> 32) as u32).to_be_bytes());
    }
}

/// Runs the rounds with `rk` on every block of `data` (a whole number of blocks):
/// 64 blocks at a time fully bitsliced, the rest 16 at a time.
pub(crate) fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    let mut big = data.chunks_exact_mut(1024);
    for chunk in &mut big {
        crypt64(rk, chunk);
    }
    let rest = big.into_remainder();
    if rest.len() == 16 {
        crypt1(rk, rest);
        return;
    }
    for chunk in rest.chunks_mut(256) {
        crypt16(rk, chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose64_moves_bit_r_c_to_c_r() {
        for (r, c) in [
            (0usize, 0usize),
            (0, 63),
            (63, 0),
            (5, 40),
            (40, 5),
            (31, 32),
            (62, 1),
        ] {
            let mut a = [0u64; 64];
            a[r] = 1 << c;
            transpose64(&mut a);
            for (i, v) in a.iter().enumerate() {
                assert_eq!(*v, if i == c { 1 << r } else { 0 }, "({r},{c})");
            }
        }
    }
}
