//! SM3 on x86-64 with AVX2/BMI2:
//! * single stream: the portable rounds compiled with BMI2 so rotations become `rorx`;
//! * 8-lane multi-buffer: eight independent messages, one per 32-bit lane of a ymm.
#![allow(unsafe_code)]

use super::many::{Lanes, MultiCompress};
use core::arch::x86_64::*;

/// Single-stream compression with BMI2 enabled.
pub(crate) fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: this backend is selected only when `cpu::detected() >= Avx2`, which checks BMI2/AVX2.
    unsafe { compress_bmi2(state, blocks) }
}

#[target_feature(enable = "bmi1,bmi2,avx2")]
unsafe fn compress_bmi2(state: &mut [u32; 8], blocks: &[u8]) {
    super::soft::compress_inline(state, blocks, value_barrier);
}

/// Returns `x` unchanged but opaque to the optimiser, so LLVM cannot reassociate the
/// round's sums: the value that arrives last on the critical path is then added last,
/// which saves a cycle per round.
#[inline(always)]
fn value_barrier(mut x: u32) -> u32 {
    // SAFETY: an empty asm block that only names the register; no memory, no flags.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags))
    };
    x
}

/// Eight 32-bit lanes in a ymm register.
#[derive(Clone, Copy)]
pub(crate) struct Ymm(__m256i);

macro_rules! rol {
    ($x:expr, $n:literal) => {
        _mm256_or_si256(
            _mm256_slli_epi32::<$n>($x),
            _mm256_srli_epi32::<{ 32 - $n }>($x),
        )
    };
}

// SAFETY (for every method): `Ymm` values exist only inside `compress8`, which requires AVX2.
impl Lanes for Ymm {
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe { Ymm(_mm256_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    fn load(words: &[u32]) -> Self {
        debug_assert!(words.len() >= 8);
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe { Ymm(_mm256_loadu_si256(words.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, words: &mut [u32]) {
        debug_assert!(words.len() >= 8);
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe { Ymm(_mm256_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe { Ymm(_mm256_xor_si256(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        // (x & y) | (z & (x | y))
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe {
            Ymm(_mm256_or_si256(
                _mm256_and_si256(self.0, b.0),
                _mm256_and_si256(c.0, _mm256_or_si256(self.0, b.0)),
            ))
        }
    }
    #[inline(always)]
    fn choose(self, b: Self, c: Self) -> Self {
        // (x & y) | (!x & z)
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe {
            Ymm(_mm256_or_si256(
                _mm256_and_si256(self.0, b.0),
                _mm256_andnot_si256(self.0, c.0),
            ))
        }
    }
    #[inline(always)]
    fn rol<const R: u32>(self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe {
            match R {
                7 => Ymm(rol!(self.0, 7)),
                9 => Ymm(rol!(self.0, 9)),
                12 => Ymm(rol!(self.0, 12)),
                15 => Ymm(rol!(self.0, 15)),
                17 => Ymm(rol!(self.0, 17)),
                19 => Ymm(rol!(self.0, 19)),
                23 => Ymm(rol!(self.0, 23)),
                _ => unreachable!("SM3 uses no other rotation"),
            }
        }
    }
    #[inline(always)]
    fn blend(keep_new: u32, new: Self, old: Self) -> Self {
        // Lane i takes `new` where bit i of the mask is set.
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX2.
        unsafe {
            let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            let m = _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_set1_epi32(keep_new as i32), bits),
                bits,
            );
            Ymm(_mm256_blendv_epi8(old.0, new.0, m))
        }
    }
}

/// 8-lane multi-buffer compression.
pub(crate) struct Avx2x8;

impl MultiCompress for Avx2x8 {
    const LANES: usize = 8;
    fn compress(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        // SAFETY: chosen only when the CPU supports AVX2.
        unsafe { compress8(state, words, active) }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn compress8(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
    super::many::compress_lanes::<Ymm>(state, words, active);
}
