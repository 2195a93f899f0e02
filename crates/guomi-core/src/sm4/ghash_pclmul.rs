//! GHASH (SP 800-38D) with PCLMULQDQ: the `avx2` backend's carry-less multiplication.
//!
//! Blocks are byte-reversed into 128-bit integers and H is stored
//! pre-multiplied by x (H' = H·x), so that the reflected product needs no extra shift; the
//! reduction modulo x^128 + x^7 + x^2 + x + 1 folds twice with the constant 0xc2·2^56.
#![allow(unsafe_code)]

use super::ghash::HPowers;
use crate::cpu::Avx2;
use core::arch::x86_64::*;

const POLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;

#[inline(always)]
unsafe fn ld(p: &[u64; 2]) -> __m128i {
    // SAFETY: 16 readable bytes.
    unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
}

#[inline(always)]
unsafe fn bswap128(x: __m128i) -> __m128i {
    // SAFETY: SSSE3 enabled by the callers.
    unsafe {
        _mm_shuffle_epi8(
            x,
            _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        )
    }
}

/// Unreduced product a·b as (lo, hi) with Karatsuba-free schoolbook (4 multiplies).
#[inline(always)]
unsafe fn clmul_wide(a: __m128i, b: __m128i) -> (__m128i, __m128i, __m128i) {
    // SAFETY: PCLMULQDQ enabled by the callers.
    unsafe {
        let lo = _mm_clmulepi64_si128(a, b, 0x00);
        let hi = _mm_clmulepi64_si128(a, b, 0x11);
        let mid = _mm_xor_si128(
            _mm_clmulepi64_si128(a, b, 0x01),
            _mm_clmulepi64_si128(a, b, 0x10),
        );
        (lo, mid, hi)
    }
}

/// Folds (lo, mid, hi) and reduces to 128 bits.
#[inline(always)]
pub(super) unsafe fn reduce(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: PCLMULQDQ + SSE2 enabled by the callers.
    unsafe {
        let lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
        let hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
        let poly = _mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 1);
        let t = _mm_clmulepi64_si128(lo, poly, 0x10);
        let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 78), t);
        let t = _mm_clmulepi64_si128(lo, poly, 0x10);
        let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 78), t);
        _mm_xor_si128(lo, hi)
    }
}

#[inline(always)]
unsafe fn gfmul(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: PCLMULQDQ enabled by the callers.
    unsafe {
        let (lo, mid, hi) = clmul_wide(a, b);
        reduce(lo, mid, hi)
    }
}

#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn powers_pclmul(h: &[u8; 16], out: &mut HPowers) {
    // SAFETY: PCLMULQDQ enabled here; loads/stores are of local arrays.
    unsafe {
        // H' = H·x in the byte-reversed domain: a 1-bit left shift, reduced by POLY.
        let hb = u128::from_be_bytes(*h);
        let hp = (hb << 1) ^ (POLY & 0u128.wrapping_sub(hb >> 127));
        let h1 = _mm_set_epi64x((hp >> 64) as u64 as i64, hp as u64 as i64);
        let mut cur = h1;
        for o in out.iter_mut() {
            _mm_storeu_si128(o.as_mut_ptr().cast(), cur);
            cur = gfmul(cur, h1);
        }
    }
}

/// H^1..H^32 (as H'^k) for [`ghash`] and the AVX-512 GHASH.
pub(crate) fn ghash_powers(_: Avx2, h: &[u8; 16], out: &mut HPowers) {
    // SAFETY: the token proves PCLMULQDQ and SSSE3.
    unsafe { powers_pclmul(h, out) }
}

/// # Safety
/// The CPU must have PCLMULQDQ and SSSE3.
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
pub(super) unsafe fn ghash_pclmul(powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: PCLMULQDQ + SSSE3 enabled here; every 16-byte load is inside `data`.
    unsafe {
        let mut acc = bswap128(_mm_loadu_si128(y.as_ptr().cast()));
        // Karatsuba: (h.lo ^ h.hi) of H^1..H^16 in the low qword.
        let hk: [__m128i; 16] = core::array::from_fn(|i| {
            let h = ld(&powers[i]);
            _mm_xor_si128(h, _mm_shuffle_epi32(h, 78))
        });
        let mut blocks = data.chunks_exact(256);
        for c in &mut blocks {
            // (acc ^ X0)·H^16 ^ X1·H^15 ^ ... ^ X15·H^1, one reduction.
            let mut lo = _mm_setzero_si128();
            let mut mid = lo;
            let mut hi = lo;
            for i in 0..16 {
                let mut x = bswap128(_mm_loadu_si128(c.as_ptr().add(16 * i).cast()));
                if i == 0 {
                    x = _mm_xor_si128(x, acc);
                }
                let h = ld(&powers[15 - i]);
                let xs = _mm_xor_si128(x, _mm_shuffle_epi32(x, 78));
                lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, h, 0x00));
                hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, h, 0x11));
                mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(xs, hk[15 - i], 0x00));
            }
            let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
            acc = reduce(lo, mid, hi);
        }
        let h1 = ld(&powers[0]);
        for b in blocks.remainder().chunks_exact(16) {
            let x = bswap128(_mm_loadu_si128(b.as_ptr().cast()));
            acc = gfmul(_mm_xor_si128(acc, x), h1);
        }
        _mm_storeu_si128(y.as_mut_ptr().cast(), bswap128(acc));
    }
}

/// GHASH of whole blocks into `y`.
pub(crate) fn ghash(_: Avx2, powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: the token proves PCLMULQDQ and SSSE3.
    unsafe { ghash_pclmul(powers, y, data) }
}

/// GHASH of a few blocks, one reduction per up to 32: with m blocks, the first group has
/// `(m - 1) % 32 + 1` blocks and every later one 32; a group of g blocks X_0..X_{g-1}
/// turns the accumulator into (acc ^ X_0)·H^g ^ X_1·H^(g-1) ^ ... ^ X_{g-1}·H (Karatsuba
/// products, the middle factor of each power formed on the fly, so there is no setup).
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn ghash_short_pclmul(powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    let m = data.len() / 16;
    if m == 0 {
        return;
    }
    // SAFETY: PCLMULQDQ + SSSE3 enabled here; every 16-byte load lies inside `data`
    // (block `off + j < m`) or `powers` (index `g - 1 - j < 32`).
    unsafe {
        let mut acc = bswap128(_mm_loadu_si128(y.as_ptr().cast()));
        let p = data.as_ptr();
        let mut off = 0;
        let mut g = (m - 1) % 32 + 1;
        while off < m {
            let mut lo = _mm_setzero_si128();
            let mut mid = lo;
            let mut hi = lo;
            for j in 0..g {
                let mut x = bswap128(_mm_loadu_si128(p.add(16 * (off + j)).cast()));
                if j == 0 {
                    x = _mm_xor_si128(x, acc);
                }
                let h = ld(&powers[g - 1 - j]);
                let hk = _mm_xor_si128(h, _mm_shuffle_epi32(h, 78));
                let xk = _mm_xor_si128(x, _mm_shuffle_epi32(x, 78));
                lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, h, 0x00));
                hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, h, 0x11));
                mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(xk, hk, 0x00));
            }
            let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
            acc = reduce(lo, mid, hi);
            off += g;
            g = 32;
        }
        _mm_storeu_si128(y.as_mut_ptr().cast(), bswap128(acc));
    }
}

/// GHASH of whole blocks into `y` with one reduction per up to 32 blocks and no setup:
/// the path for short inputs (one small message) of both x86 backends.
pub(crate) fn ghash_short(_: Avx2, powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: the token proves PCLMULQDQ and SSSE3.
    unsafe { ghash_short_pclmul(powers, y, data) }
}
