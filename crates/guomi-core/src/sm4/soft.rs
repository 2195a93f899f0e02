//! Portable, constant-time SM4 rounds: a bitsliced S-box.
//!
//! Sixteen blocks go through the rounds together. In each round the 64 S-box inputs
//! (4 bytes of 16 blocks) are transposed into eight 64-bit bit planes, the S-box is
//! evaluated as a boolean circuit on the planes, and the planes are transposed back.
//! The circuit uses the affine-equivalence of the SM4 S-box with inversion in
//! GF(2^8) = GF(2)[x]/(x^8+x^7+x^6+x^5+x^4+x^2+1):
//!
//! `S(x) = A·(A·x + C)^-1 + C`, `A` circulant, `C = 0xd3` (see `derive_affine.py`,
//! which finds and checks this representation against the table of GB/T 32907 §6.2).
//!
//! The inversion is `x^254` (4 multiplications, 7 squarings), all AND/XOR on planes:
//! no branch and no memory access depends on the data or the key.

use super::ROUNDS;

/// Rows of `A` (output bit i = parity(row[i] & x)); from `derive_affine.py`.
const A_ROWS: [u8; 8] = [0xa7, 0x4f, 0x9e, 0x3d, 0x7a, 0xf4, 0xe9, 0xd3];
/// The constant `C` of the representation.
const C: u8 = 0xd3;

type Planes = [u64; 8];

/// `A·x + C` on bit planes (A and C are public constants).
#[inline(always)]
fn affine(x: &Planes) -> Planes {
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut acc = 0u64;
        for (j, p) in x.iter().enumerate() {
            if (A_ROWS[i] >> j) & 1 == 1 {
                acc ^= *p;
            }
        }
        if (C >> i) & 1 == 1 {
            acc = !acc;
        }
        *o = acc;
    }
    out
}

/// Reduces a 15-coefficient product modulo x^8+x^7+x^6+x^5+x^4+x^2+1.
#[inline(always)]
fn reduce(mut p: [u64; 15]) -> Planes {
    // x^8 = x^7+x^6+x^5+x^4+x^2+1; fold from the top so carries cascade correctly.
    for k in (8..15).rev() {
        let v = p[k];
        p[k - 1] ^= v;
        p[k - 2] ^= v;
        p[k - 3] ^= v;
        p[k - 4] ^= v;
        p[k - 6] ^= v;
        p[k - 8] ^= v;
    }
    [p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]]
}

#[inline(always)]
fn gf_mul(a: &Planes, b: &Planes) -> Planes {
    let mut p = [0u64; 15];
    for i in 0..8 {
        for j in 0..8 {
            p[i + j] ^= a[i] & b[j];
        }
    }
    reduce(p)
}

#[inline(always)]
fn gf_sqr(a: &Planes) -> Planes {
    let mut p = [0u64; 15];
    for i in 0..8 {
        p[2 * i] = a[i];
    }
    reduce(p)
}

/// `x^254` = x^-1 (0 maps to 0).
#[inline(always)]
fn gf_inv(x: &Planes) -> Planes {
    let x2 = gf_sqr(x);
    let x3 = gf_mul(&x2, x);
    let x6 = gf_sqr(&x3);
    let x12 = gf_sqr(&x6);
    let x14 = gf_mul(&x12, &x2);
    let x15 = gf_mul(&x12, &x3);
    let x30 = gf_sqr(&x15);
    let x60 = gf_sqr(&x30);
    let x120 = gf_sqr(&x60);
    let x240 = gf_sqr(&x120);
    gf_mul(&x240, &x14)
}

/// The S-box on 64 bytes held as bit planes.
#[inline(always)]
fn sbox_planes(x: &Planes) -> Planes {
    affine(&gf_inv(&affine(x)))
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

/// §6.2 τ of one word (the key schedule uses this).
pub(crate) fn tau(word: u32) -> u32 {
    let mut w = [0u32; 16];
    w[0] = word;
    tau16(&mut w);
    w[0]
}

/// §6.2 L: B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24).
#[inline(always)]
fn l(b: u32) -> u32 {
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// §7.1 the 32 rounds on up to 16 blocks (`data.len()` = 16·n, n ≤ 16).
fn crypt16(rk: &[u32; ROUNDS], data: &mut [u8]) {
    let n = data.len() / 16;
    debug_assert!(n <= 16 && data.len() % 16 == 0);
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

/// Runs the rounds with `rk` on every block of `data` (a whole number of blocks).
pub(crate) fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    for chunk in data.chunks_mut(256) {
        crypt16(rk, chunk);
    }
}
