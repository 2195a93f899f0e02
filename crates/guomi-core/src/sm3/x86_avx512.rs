//! SM3 16-lane multi-buffer on x86-64 AVX-512: sixteen independent messages, one per
//! 32-bit lane of a zmm; `vpternlogd` for the boolean functions, `vprold` for rotations.
#![allow(unsafe_code)]

use super::many::{Lanes, MultiCompress};
use core::arch::x86_64::*;

/// Sixteen 32-bit lanes in a zmm register.
#[derive(Clone, Copy)]
pub(crate) struct Zmm(__m512i);

// SAFETY (for every method): `Zmm` values exist only inside `compress16`, which requires AVX-512F.
impl Lanes for Zmm {
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    fn load(words: &[u32]) -> Self {
        debug_assert!(words.len() >= 16);
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_loadu_si512(words.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, words: &mut [u32]) {
        debug_assert!(words.len() >= 16);
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_xor_si512(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0x96>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0xe8>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn choose(self, b: Self, c: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0xca>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn rol<const R: u32>(self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe {
            match R {
                7 => Zmm(_mm512_rol_epi32::<7>(self.0)),
                9 => Zmm(_mm512_rol_epi32::<9>(self.0)),
                12 => Zmm(_mm512_rol_epi32::<12>(self.0)),
                15 => Zmm(_mm512_rol_epi32::<15>(self.0)),
                17 => Zmm(_mm512_rol_epi32::<17>(self.0)),
                19 => Zmm(_mm512_rol_epi32::<19>(self.0)),
                23 => Zmm(_mm512_rol_epi32::<23>(self.0)),
                _ => unreachable!("SM3 uses no other rotation"),
            }
        }
    }
    #[inline(always)]
    fn blend(keep_new: u32, new: Self, old: Self) -> Self {
        // SAFETY: the lane type exists only inside code compiled for and selected on AVX-512.
        unsafe { Zmm(_mm512_mask_blend_epi32(keep_new as __mmask16, old.0, new.0)) }
    }
}

/// 16-lane multi-buffer compression, with the proof that this CPU runs it.
#[derive(Clone, Copy)]
pub(crate) struct Avx512x16(pub(crate) crate::cpu::Avx512);

impl MultiCompress for Avx512x16 {
    const LANES: usize = 16;
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        // SAFETY: the token proves the `avx512` level, AVX-512F included.
        unsafe { compress16(state, words, active) }
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn compress16(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
    super::many::compress_lanes::<Zmm>(state, words, active);
}
