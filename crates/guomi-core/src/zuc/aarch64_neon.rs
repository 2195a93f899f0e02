//! ZUC 4-lane multi-buffer on aarch64 NEON (Advanced SIMD, every Armv8-A core): four
//! independent keystreams, one per 32-bit lane of a q-register, through the generic
//! rounds of `many::keystream_lanes`. No secret-indexed memory and no secret-dependent
//! branches:
//!
//! * S0 from its design (see `soft.rs`): t = x_H ⊕ P1[x_L], u = x_L ⊕ P2[t],
//!   S0(x) = TA[u] ⊕ (t << 1) with TA[u] = ((u << 4) <<< 1) ⊕ (P3[u] << 1); each 4-bit
//!   function is one `TBL` of a 16-byte register on all 16 bytes at once;
//! * S1 from the standard's 256-byte table held in sixteen q-registers, looked up by
//!   `TBL`/`TBX` over its four 64-byte quarters (index, index − 64, − 128, − 192: an
//!   out-of-range index gives 0 for `TBL` and leaves the byte for `TBX`, so exactly one
//!   quarter answers), as `sm4/aarch64_neon.rs` does for the SM4 S-box. Register lookups
//!   touch no memory, so no address depends on the key or the state;
//! * S = (S0, S1, S0, S1) on each word: both on every byte, then one `BSL`;
//! * L1 and L2 from byte rotations (`REV32` of halfwords, `TBL`) and one 2-bit or
//!   14-bit rotation each (`SHL` + `SRI`), on the 16-bit swaps of W1 ∥ W2 that F feeds
//!   them (the derivation is at `x86_avx2`'s `l1_l2`);
//! * the keystream words are transposed from lanes to streams four words at a time
//!   (`TRN1`/`TRN2` on 32- and 64-bit elements).
#![allow(unsafe_code)]

use super::core::tables::S1;
use super::core::State;
use super::many::Lanes;
use super::soft::{P1, P2, P3};
use core::arch::aarch64::*;

/// A packed 4-bit function (entry i in bits 4i..4i+3) as a 16-byte `TBL` table.
const fn nibbles(p: u64) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = ((p >> (4 * i)) & 15) as u8;
        i += 1;
    }
    t
}

/// S0's P1 and P2 as `TBL` tables.
const S0_P1: [u8; 16] = nibbles(P1);
const S0_P2: [u8; 16] = nibbles(P2);
/// TA[u] = ((u << 4) <<< 1) ⊕ (P3[u] << 1) (8-bit rotation), so S0 = TA[u] ⊕ (t << 1).
const S0_TA: [u8; 16] = {
    let p3 = nibbles(P3);
    let mut t = [0u8; 16];
    let mut u = 0;
    while u < 16 {
        t[u] = ((u as u8) << 4).rotate_left(1) ^ (p3[u] << 1);
        u += 1;
    }
    t
};

/// `TBL` indexes rotating each 32-bit lane left by 8 and by 24 bits (little-endian lanes:
/// byte j of x <<< 8k is byte (j − k) mod 4 of x).
const ROL8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
const ROL24: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

/// Four 32-bit lanes (four independent streams) in a q-register.
#[derive(Clone, Copy)]
pub(crate) struct Neon(uint32x4_t);

/// Loads a 16-byte constant.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn bytes16(b: &[u8; 16]) -> uint8x16_t {
    // SAFETY: 16 readable bytes.
    unsafe { vld1q_u8(b.as_ptr()) }
}

/// `x <<< K` on each 32-bit lane (K2 = 32 − K): `SHL`, then `SRI` inserts the high bits.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn rol<const K: i32, const K2: i32>(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: register-only NEON operations.
    unsafe { vsriq_n_u32::<K2>(vshlq_n_u32::<K>(x), x) }
}

/// Rotates each 32-bit lane by 16 bits (`REV32` of the halfwords).
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn rol16(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: register-only NEON operation.
    unsafe { vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x))) }
}

/// A byte permutation of `x` by the `TBL` index `idx`.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn shuffle(x: uint32x4_t, idx: uint8x16_t) -> uint32x4_t {
    // SAFETY: register-only NEON operation.
    unsafe { vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), idx)) }
}

// SAFETY (every method): NEON is part of every aarch64 target Rust builds this crate for,
// and `Neon` values exist only inside `keystream_x4_neon` (compiled with the `neon`
// feature, chosen only for a variant whose `neon()` holds); loads and stores are bounded
// by the slices' lengths (asserted or sliced).
impl Lanes for Neon {
    const N: usize = 4;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vdupq_n_u32(x)) }
    }
    #[inline(always)]
    fn load(w: &[u32]) -> Self {
        assert!(w.len() >= 4);
        // SAFETY: reads 4 words inside `w`.
        unsafe { Neon(vld1q_u32(w.as_ptr())) }
    }
    #[inline(always)]
    fn store(self, w: &mut [u32]) {
        assert!(w.len() >= 4);
        // SAFETY: writes 4 words inside `w`.
        unsafe { vst1q_u32(w.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vaddq_u32(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(veorq_u32(self.0, o.0)) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vandq_u32(self.0, o.0)) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vorrq_u32(self.0, o.0)) }
    }
    #[inline(always)]
    fn shl<const K: i32>(self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vshlq_n_u32::<K>(self.0)) }
    }
    #[inline(always)]
    fn shr<const K: i32>(self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vshrq_n_u32::<K>(self.0)) }
    }
    #[inline(always)]
    fn rol<const K: i32, const K2: i32>(self) -> Self {
        // SAFETY: register-only NEON operations (see above).
        unsafe { Neon(rol::<K, K2>(self.0)) }
    }
    #[inline(always)]
    fn or_and(self, b: Self, c: Self) -> Self {
        self.or(b).and(c)
    }
    #[inline(always)]
    fn high16_low16(self, lo: Self) -> Self {
        // SAFETY: register-only NEON operations (see above).
        unsafe { Neon(vbslq_u32(vdupq_n_u32(0xffff_0000), self.0, lo.0)) }
    }
    #[inline(always)]
    fn concat16(self, lo: Self) -> Self {
        // (self << 16) | (lo >> 16): `SLI` keeps the low 16 bits of lo >> 16.
        // SAFETY: register-only NEON operations (see above).
        unsafe { Neon(vsliq_n_u32::<16>(vshrq_n_u32::<16>(lo.0), self.0)) }
    }
    #[inline(always)]
    fn l1_l2(w1: Self, w2: Self) -> (Self, Self) {
        // SAFETY: register operations and 16-byte loads of constants (see above).
        unsafe {
            // W1L ∥ W2H = y <<< 16 with y = W2H ∥ W1L, and W2L ∥ W1H = y2 <<< 16 with
            // y2 = W1H ∥ W2L:
            // L1(y <<< 16) = y<<<16 ⊕ y<<<8 ⊕ (y ⊕ y<<<16 ⊕ y<<<24) <<< 2,
            // L2(y2 <<< 16) = q ⊕ (q ⊕ y2) <<< 14 with q = y2<<<16 ⊕ y2<<<24.
            let high = vdupq_n_u32(0xffff_0000);
            let y = vbslq_u32(high, w2.0, w1.0);
            let y2 = vbslq_u32(high, w1.0, w2.0);
            let (r8, r24) = (bytes16(&ROL8), bytes16(&ROL24));
            let a16 = rol16(y);
            let t = veorq_u32(veorq_u32(y, a16), shuffle(y, r24));
            let l1 = veorq_u32(veorq_u32(a16, shuffle(y, r8)), rol::<2, 30>(t));
            let q = veorq_u32(rol16(y2), shuffle(y2, r24));
            let l2 = veorq_u32(q, rol::<14, 18>(veorq_u32(q, y2)));
            (Neon(l1), Neon(l2))
        }
    }
    #[inline(always)]
    fn sbox(self) -> Self {
        // SAFETY: register operations and loads of constant tables (see above).
        unsafe {
            let x = vreinterpretq_u8_u32(self.0);
            // S0 on every byte.
            let lo = vandq_u8(x, vdupq_n_u8(0x0f));
            let hi = vshrq_n_u8::<4>(x);
            let t = veorq_u8(hi, vqtbl1q_u8(bytes16(&S0_P1), lo));
            let u = veorq_u8(lo, vqtbl1q_u8(bytes16(&S0_P2), t));
            let s0 = veorq_u8(vqtbl1q_u8(bytes16(&S0_TA), u), vaddq_u8(t, t));
            // S1 on every byte, one 64-byte quarter of the table at a time.
            let quarter = vdupq_n_u8(64);
            let q = |k: usize| vld1q_u8_x4(S1.as_ptr().add(64 * k));
            let s1 = vqtbl4q_u8(q(0), x);
            let i = vsubq_u8(x, quarter);
            let s1 = vqtbx4q_u8(s1, q(1), i);
            let i = vsubq_u8(i, quarter);
            let s1 = vqtbx4q_u8(s1, q(2), i);
            let i = vsubq_u8(i, quarter);
            let s1 = vqtbx4q_u8(s1, q(3), i);
            // S0 on bytes 3 and 1 of each word (the big-endian bytes 0 and 2).
            let mask = vreinterpretq_u8_u32(vdupq_n_u32(0xff00_ff00));
            Neon(vreinterpretq_u32_u8(vbslq_u8(mask, s0, s1)))
        }
    }
    #[inline(always)]
    fn store_columns(rows: &[Self; 16], out: &mut [Vec<u32>], offset: usize) {
        // SAFETY: register operations; each store writes 4 words inside
        // `out[lane][offset..offset + 16]` (bounds checked by the slicing).
        unsafe {
            for g in 0..4 {
                let r = &rows[4 * g..4 * g + 4];
                let a0 = vtrn1q_u32(r[0].0, r[1].0);
                let a1 = vtrn2q_u32(r[0].0, r[1].0);
                let a2 = vtrn1q_u32(r[2].0, r[3].0);
                let a3 = vtrn2q_u32(r[2].0, r[3].0);
                let d = |a: uint32x4_t| vreinterpretq_u64_u32(a);
                let w = |a: uint64x2_t| vreinterpretq_u32_u64(a);
                // Column i: word i of rows 4g .. 4g + 3, i.e. stream i's words.
                let cols = [
                    w(vtrn1q_u64(d(a0), d(a2))),
                    w(vtrn1q_u64(d(a1), d(a3))),
                    w(vtrn2q_u64(d(a0), d(a2))),
                    w(vtrn2q_u64(d(a1), d(a3))),
                ];
                for (o, c) in out.iter_mut().zip(cols) {
                    let dst = &mut o[offset + 4 * g..offset + 4 * g + 4];
                    vst1q_u32(dst.as_mut_ptr(), c);
                }
            }
        }
    }
}

/// Keystreams of up to 4 streams at once (see `many::keystream_lanes`).
pub(crate) fn keystream_x4(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    // SAFETY: called only for a variant whose `neon()` holds (`many::keystream_group`):
    // a CPU with Advanced SIMD.
    unsafe { keystream_x4_neon(states, words, out) }
}

#[target_feature(enable = "neon")]
unsafe fn keystream_x4_neon(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Neon>(states, words, out);
}

#[cfg(test)]
mod tests {
    use super::super::core::tables::sbox_word;
    use super::super::core::{l1, l2};
    use super::*;

    #[test]
    fn sbox_matches_the_standard_tables() {
        // Every byte value in every byte position of a word.
        for x in 0..=255u32 {
            let words = [
                x * 0x0101_0101,
                x.rotate_left(8) ^ 0x5a00_3c00,
                (x << 24) | (255 - x),
                (x << 8) ^ 0x1234_5600,
            ];
            let mut got = [0u32; 4];
            Neon::load(&words).sbox().store(&mut got);
            for (g, w) in got.iter().zip(words) {
                assert_eq!(*g, sbox_word(w), "{w:#010x}");
            }
        }
    }

    #[test]
    fn l1_l2_match_the_standard() {
        let mut x = 0x0123_4567u32;
        for _ in 0..200 {
            let w1: [u32; 4] = core::array::from_fn(|i| {
                x = x.wrapping_mul(0x9e37_79b9).wrapping_add(i as u32);
                x
            });
            let w2: [u32; 4] = core::array::from_fn(|i| w1[i].rotate_left(13) ^ 0xdead_beef);
            let (a, b) = Neon::l1_l2(Neon::load(&w1), Neon::load(&w2));
            let (mut ga, mut gb) = ([0u32; 4], [0u32; 4]);
            a.store(&mut ga);
            b.store(&mut gb);
            for i in 0..4 {
                let (h1, l1w) = (w1[i] >> 16, w1[i] & 0xffff);
                let (h2, l2w) = (w2[i] >> 16, w2[i] & 0xffff);
                assert_eq!(ga[i], l1((l1w << 16) | h2));
                assert_eq!(gb[i], l2((l2w << 16) | h1));
            }
        }
    }

    #[test]
    fn columns_are_the_streams() {
        let rows: [Neon; 16] = core::array::from_fn(|t| {
            let w: [u32; 4] = core::array::from_fn(|lane| (100 * lane + t) as u32);
            Neon::load(&w)
        });
        for lanes in 1..=4 {
            let mut out = vec![vec![0u32; 32]; lanes];
            Neon::store_columns(&rows, &mut out, 16);
            for (lane, o) in out.iter().enumerate() {
                let want: Vec<u32> = (0..16).map(|t| (100 * lane + t) as u32).collect();
                assert_eq!(&o[16..], &want[..]);
                assert!(o[..16].iter().all(|&w| w == 0));
            }
        }
    }
}
