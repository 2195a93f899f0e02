//! Portable ZUC backend: plain Rust, no secret-indexed memory and no secret-dependent
//! branches.
//!
//! * S0 (GM/T 0001.1 §3.4) is computed from its design (the ZUC design and evaluation
//!   report: a three-round Feistel-like network of the 4-bit functions P1, P2, P3
//!   followed by a rotation; the decomposition was re-derived from the printed table and
//!   is checked against it in the tests). Each 4-bit function is a 64-bit constant read with a
//!   variable *shift* (`(P >> 4·i) & 15`), which is a register operation, not a memory
//!   access.
//! * S1 is the inversion in GF(2^8) = GF(2)[x]/(x^8 + x^7 + x^3 + x + 1) followed by an
//!   affine map (S1(x) = M·x^-1 ⊕ 0x55; the matrix M and the field were derived from the
//!   printed table and are checked against it in the tests). The inversion is x^254 on
//!   four bytes at once (SWAR): the Frobenius powers x^2, x^4, x^16 as masked linear
//!   maps and four masked shift-and-xor multiplications.
//!
//! This is constant time on CPUs whose shifts take a fixed time for any count (all
//! mainstream 64-bit CPUs), but slow (tens of MB/s): the x86 backends compute the same
//! S-boxes with GFNI / AES-NI and byte shuffles.

use super::core::{l1, l2, Fsm};

/// The 4-bit functions of S0, packed: entry i is bits 4i..4i+3 (also the NEON lanes'
/// `TBL` tables).
pub(super) const P1: u64 = 0x9357_c040_a2ff_e0f9;
pub(super) const P2: u64 = 0x293f_ae1b_4c07_56d8;
pub(super) const P3: u64 = 0xdc90_5d33_fad0_6a62;

#[inline(always)]
fn lut4(table: u64, i: u32) -> u32 {
    ((table >> (4 * (i & 15))) & 15) as u32
}

/// S0(x): t = x_H ⊕ P1(x_L), u = x_L ⊕ P2(t), w = t ⊕ P3(u), S0(x) = (u ∥ w) <<< 1.
#[inline(always)]
pub(crate) fn s0(x: u32) -> u32 {
    let hi = (x >> 4) & 15;
    let lo = x & 15;
    let t = hi ^ lut4(P1, lo);
    let u = lo ^ lut4(P2, t);
    let w = t ^ lut4(P3, u);
    let y = (u << 4) | w;
    ((y << 1) | (y >> 7)) & 0xff
}

/// Multiplication of four independent bytes (one per byte lane of `a` and `b`) in
/// GF(2)[x]/(x^8 + x^7 + x^3 + x + 1), without branches or tables.
#[inline(always)]
fn gmul4(mut a: u32, b: u32) -> u32 {
    let mut r = 0;
    for i in 0..8 {
        let mask = ((b >> i) & 0x0101_0101).wrapping_mul(0xff);
        r ^= a & mask;
        let carry = (a >> 7) & 0x0101_0101;
        a = ((a << 1) & 0xfefe_fefe) ^ carry.wrapping_mul(0x8b);
    }
    r
}

/// Multiplication in GF(2)[x]/(x^8 + x^7 + x^3 + x + 1) (compile time only).
const fn gmul8(mut a: u32, mut b: u32) -> u32 {
    let mut r = 0;
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        b >>= 1;
        a <<= 1;
        if a & 0x100 != 0 {
            a ^= 0x18b;
        }
    }
    r
}

/// Columns of the GF(2)-linear map x -> x^(2^k) (squaring is linear in characteristic 2).
const fn frobenius_cols(k: u32) -> [u32; 8] {
    let mut cols = [0u32; 8];
    let mut i = 0;
    while i < 8 {
        let mut v = 1u32 << i;
        let mut j = 0;
        while j < k {
            v = gmul8(v, v);
            j += 1;
        }
        cols[i] = v;
        i += 1;
    }
    cols
}

const SQ1: [u32; 8] = frobenius_cols(1);
const SQ2: [u32; 8] = frobenius_cols(2);
const SQ4: [u32; 8] = frobenius_cols(4);

/// A GF(2)-linear map of four byte lanes, given by the images of the 8 basis bits;
/// masks instead of lookups.
#[inline(always)]
fn linear4(x: u32, cols: &[u32; 8]) -> u32 {
    let mut r = 0;
    for (i, col) in cols.iter().enumerate() {
        let mask = ((x >> i) & 0x0101_0101).wrapping_mul(0xff);
        r ^= mask & col.wrapping_mul(0x0101_0101);
    }
    r
}

/// x^-1 (0 for 0) of four byte lanes: x^254 = x^240 · x^14 with x^2, x^12 = (x^3)^4 and
/// x^240 = (x^15)^16 as linear (Frobenius) maps and four multiplications.
#[inline(always)]
fn ginv4(x: u32) -> u32 {
    let x2 = linear4(x, &SQ1);
    let x3 = gmul4(x2, x);
    let x12 = linear4(x3, &SQ2);
    let x14 = gmul4(x12, x2);
    let x15 = gmul4(x12, x3);
    let x240 = linear4(x15, &SQ4);
    gmul4(x240, x14)
}

/// Columns of the S1 output matrix M (image of each input bit).
const S1_M: [u32; 8] = [0x97, 0x3e, 0x6d, 0xcb, 0xee, 0xdd, 0xbb, 0x77];

/// S1 of four byte lanes.
#[inline(always)]
pub(crate) fn s1x4(x: u32) -> u32 {
    let y = ginv4(x);
    let mut r = 0x5555_5555;
    for (i, col) in S1_M.iter().enumerate() {
        let mask = ((y >> i) & 0x0101_0101).wrapping_mul(0xff);
        r ^= mask & col.wrapping_mul(0x0101_0101);
    }
    r
}

/// The S-box layer S = (S0, S1, S0, S1) applied to u and v (§3.4).
#[inline(always)]
fn sbox2(u: u32, v: u32) -> (u32, u32) {
    // S1 bytes are bits 16..23 and 0..7 of each word: gather them into four lanes.
    let s1 = s1x4((u & 0x00ff_00ff) | ((v & 0x00ff_00ff) << 8));
    let s0w = |x: u32| (s0(x >> 24) << 24) | (s0((x >> 8) & 0xff) << 8);
    (
        s0w(u) | (s1 & 0x00ff_00ff),
        s0w(v) | ((s1 >> 8) & 0x00ff_00ff),
    )
}

/// R1, R2 in two scalars.
#[derive(Clone, Copy)]
pub(crate) struct Scalar(u32, u32);

impl Fsm for Scalar {
    #[inline(always)]
    fn from_regs(r1: u32, r2: u32) -> Self {
        Scalar(r1, r2)
    }
    #[inline(always)]
    fn regs(self) -> (u32, u32) {
        (self.0, self.1)
    }
    #[inline(always)]
    fn w(self, x0: u32) -> u32 {
        (x0 ^ self.0).wrapping_add(self.1)
    }
    #[inline(always)]
    fn next(self, x1: u32, x2: u32) -> Self {
        let w1 = self.0.wrapping_add(x1);
        let w2 = self.1 ^ x2;
        let u = l1((w1 << 16) | (w2 >> 16));
        let v = l2((w2 << 16) | (w1 >> 16));
        let (r1, r2) = sbox2(u, v);
        Scalar(r1, r2)
    }
}

pub(crate) fn init(st: &mut super::core::State) {
    super::core::init::<Scalar>(st);
}

pub(crate) fn generate(st: &mut super::core::State, out: &mut [u32]) {
    super::core::generate::<Scalar>(st, out);
}

#[cfg(test)]
mod tests {
    use super::super::core::tables::{sbox_word, S0, S1};
    use super::*;

    #[test]
    fn sboxes_match_the_standard_tables() {
        for x in 0..256u32 {
            assert_eq!(s0(x), u32::from(S0[x as usize]), "S0({x:#x})");
            let four = x * 0x0101_0101;
            assert_eq!(
                s1x4(four),
                u32::from(S1[x as usize]) * 0x0101_0101,
                "S1({x:#x})"
            );
        }
        let mut x = 0x1234_5678u32;
        for _ in 0..1000 {
            x = x.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
            let y = x.rotate_left(13) ^ 0xdead_beef;
            assert_eq!(sbox2(x, y), (sbox_word(x), sbox_word(y)));
        }
    }
}
