//! SM3 4-lane multi-buffer on aarch64 NEON (Advanced SIMD, every Armv8-A core): four
//! independent messages, one per 32-bit lane of a q-register, through the generic rounds
//! of `many::compress_lanes_unrolled`.
//!
//! * rotations: `SHL` + `SRI` (shift left, then insert the bits shifted out from the
//!   right: two instructions, no `ORR`);
//! * FF1 (majority) = `BSL`(A ⊕ B, C, A): where A and B differ the majority is C;
//!   GG1 (choose) = `BSL`(E, F, G), one instruction;
//! * the per-lane blend of finished messages: `CMTST` of the lane mask against
//!   (1, 2, 4, 8), then `BSL`.
//!
//! No data-dependent branches or memory indexes. On the `armsm` backend `hash_many` hashes
//! one message at a time with the SM3 instructions instead (fewer instructions a byte,
//! see `many::kernel`); these lanes serve `neon`.
#![allow(unsafe_code)]

use super::many::{Lanes, MultiCompress};
use core::arch::aarch64::*;

/// Four 32-bit lanes in a q-register.
#[derive(Clone, Copy)]
pub(crate) struct Neon(uint32x4_t);

/// The lane bits of a `blend` mask, lane i holding bit i.
const LANE_BITS: [u32; 4] = [1, 2, 4, 8];

// SAFETY (every method): NEON is part of every aarch64 target Rust builds this crate for,
// and `Neon` values exist only inside `compress4` (compiled with the `neon` feature,
// chosen only for a variant whose `neon()` holds); the loads and stores are bounded by
// the slices' lengths (asserted).
impl Lanes for Neon {
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vdupq_n_u32(x)) }
    }
    #[inline(always)]
    fn load(words: &[u32]) -> Self {
        assert!(words.len() >= 4);
        // SAFETY: reads 4 words inside `words`.
        unsafe { Neon(vld1q_u32(words.as_ptr())) }
    }
    #[inline(always)]
    fn store(self, words: &mut [u32]) {
        assert!(words.len() >= 4);
        // SAFETY: writes 4 words inside `words`.
        unsafe { vst1q_u32(words.as_mut_ptr(), self.0) }
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
    fn xor3(self, b: Self, c: Self) -> Self {
        // (`EOR3` needs FEAT_SHA3, which not every core has.)
        self.xor(b).xor(c)
    }
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        // SAFETY: register-only NEON operations (see above).
        unsafe { Neon(vbslq_u32(veorq_u32(self.0, b.0), c.0, self.0)) }
    }
    #[inline(always)]
    fn choose(self, b: Self, c: Self) -> Self {
        // SAFETY: register-only NEON operation (see above).
        unsafe { Neon(vbslq_u32(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn rol<const R: u32>(self) -> Self {
        /// `x <<< r`: `SHL` by r, then `SRI` by 32 - r inserts the high bits.
        macro_rules! rol {
            ($r:literal, $s:literal) => {
                Neon(vsriq_n_u32::<$s>(vshlq_n_u32::<$r>(self.0), self.0))
            };
        }
        // SAFETY: register-only NEON operations (see above).
        unsafe {
            match R {
                7 => rol!(7, 25),
                9 => rol!(9, 23),
                12 => rol!(12, 20),
                15 => rol!(15, 17),
                17 => rol!(17, 15),
                19 => rol!(19, 13),
                23 => rol!(23, 9),
                _ => unreachable!("SM3 uses no other rotation"),
            }
        }
    }
    #[inline(always)]
    fn blend(keep_new: u32, new: Self, old: Self) -> Self {
        // SAFETY: register operations and a 4-word load of a constant.
        unsafe {
            let mask = vtstq_u32(vdupq_n_u32(keep_new), vld1q_u32(LANE_BITS.as_ptr()));
            Neon(vbslq_u32(mask, new.0, old.0))
        }
    }
}

/// 4-lane multi-buffer compression.
#[derive(Clone, Copy)]
pub(crate) struct Neonx4;

impl MultiCompress for Neonx4 {
    const LANES: usize = 4;
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        // SAFETY: chosen only for a variant whose `neon()` holds (`many::kernel`): a CPU
        // with Advanced SIMD.
        unsafe { compress4(state, words, active) }
    }
}

#[target_feature(enable = "neon")]
unsafe fn compress4(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
    super::many::compress_lanes_unrolled::<Neon>(state, words, active);
}
