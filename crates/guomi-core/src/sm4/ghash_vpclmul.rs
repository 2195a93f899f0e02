//! GHASH (SP 800-38D) with VPCLMULQDQ on zmm: the `avx512` backend's carry-less
//! multiplication, in the representation of `ghash_pclmul.rs` (byte-reversed blocks,
//! H' = H·x), four blocks per zmm, sixteen blocks per reduction.
#![allow(unsafe_code)]

use super::ghash::HPowers;
use crate::cpu::Avx512;
use core::arch::x86_64::*;

#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn ghash_vpclmul(powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: features enabled here; each 64-byte load lies inside `data`.
    unsafe {
        let rev = _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ));
        // Lane j of register i multiplies block 4i + j of a 32-block group by H^(32 - 4i - j);
        // registers 4..8 alone serve a 16-block group.
        let hp: [__m512i; 8] = core::array::from_fn(|i| {
            let l = |j: usize| _mm_loadu_si128(powers[31 - 4 * i - j].as_ptr().cast());
            let v = _mm512_castsi128_si512(l(0));
            let v = _mm512_inserti32x4::<1>(v, l(1));
            let v = _mm512_inserti32x4::<2>(v, l(2));
            _mm512_inserti32x4::<3>(v, l(3))
        });
        // Karatsuba: (h.lo ^ h.hi) precomputed in the low qword of each lane.
        let hk: [__m512i; 8] =
            hp.map(|h| _mm512_xor_si512(h, _mm512_shuffle_epi32::<_MM_PERM_BADC>(h)));
        let rev128 = _mm512_castsi512_si128(rev);
        let mut acc = _mm_shuffle_epi8(_mm_loadu_si128(y.as_ptr().cast()), rev128);
        // One reduction per `n` zmm (4n blocks), starting at power register 8 - n.
        let group = |acc: __m128i, p: *const u8, n: usize| -> __m128i {
            let mut lo = _mm512_setzero_si512();
            let mut mid = lo;
            let mut hi = lo;
            for i in 0..n {
                let mut x = _mm512_shuffle_epi8(_mm512_loadu_si512(p.add(64 * i).cast()), rev);
                if i == 0 {
                    x = _mm512_xor_si512(x, _mm512_castsi128_si512(acc));
                }
                let k = 8 - n + i;
                let xs = _mm512_xor_si512(x, _mm512_shuffle_epi32::<_MM_PERM_BADC>(x));
                lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, hp[k], 0x00));
                hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, hp[k], 0x11));
                mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(xs, hk[k], 0x00));
            }
            let (lo, hi) = (fold(lo), fold(hi));
            let mid = _mm_xor_si128(fold(mid), _mm_xor_si128(lo, hi));
            super::ghash_pclmul::reduce(lo, mid, hi)
        };
        let mut off = 0;
        while data.len() - off >= 512 {
            acc = group(acc, data.as_ptr().add(off), 8);
            off += 512;
        }
        if data.len() - off >= 256 {
            acc = group(acc, data.as_ptr().add(off), 4);
            off += 256;
        }
        _mm_storeu_si128(y.as_mut_ptr().cast(), _mm_shuffle_epi8(acc, rev128));
        if off < data.len() {
            // SAFETY: PCLMULQDQ and SSSE3 are enabled here (the caller's CPU has them).
            super::ghash_pclmul::ghash_pclmul(powers, y, &data[off..]);
        }
    }
}

/// XOR of the four 128-bit lanes.
#[inline(always)]
unsafe fn fold(v: __m512i) -> __m128i {
    // SAFETY: AVX-512F enabled by the callers.
    unsafe {
        let a = _mm_xor_si128(_mm512_castsi512_si128(v), _mm512_extracti32x4_epi32::<1>(v));
        let b = _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        );
        _mm_xor_si128(a, b)
    }
}

/// GHASH of whole blocks into `y`.
pub(crate) fn ghash(_: Avx512, powers: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: the token proves the avx512 level: VPCLMULQDQ, PCLMULQDQ, SSSE3 and
    // AVX-512 F/BW/VL.
    unsafe { ghash_vpclmul(powers, y, data) }
}

/// GHASH of a few blocks, four per zmm and one reduction per up to 32 (the grouping of
/// `ghash_pclmul::ghash_short`). `rev[i]` is H^(32 − i) and `rev_kara[i]` holds its Karatsuba
/// middle factor (h.lo ^ h.hi) in the low qword, so the powers a group of g blocks needs
/// are the contiguous entries 32 − g..32; a group's last zmm loads only the lanes it has
/// (masked loads, the others zero).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn ghash_short_vpclmul(rev: &HPowers, rev_kara: &HPowers, y: &mut [u8; 16], data: &[u8]) {
    let m = data.len() / 16;
    if m == 0 {
        return;
    }
    // SAFETY: features enabled here. Masked loads touch only the lanes of their mask:
    // data blocks `off + j .. off + j + k` with `off + j + k <= m`, and power entries
    // `32 - g + j .. 32 - g + j + k` with `j + k <= g`, all inside their arrays; every
    // pointer formed points inside its array.
    unsafe {
        let rev_bytes = _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ));
        let rev128 = _mm512_castsi512_si128(rev_bytes);
        let mut acc = _mm_shuffle_epi8(_mm_loadu_si128(y.as_ptr().cast()), rev128);
        let (p, hp, hk) = (
            data.as_ptr(),
            rev.as_ptr().cast::<u64>(),
            rev_kara.as_ptr().cast::<u64>(),
        );
        let mut off = 0;
        let mut g = (m - 1) % 32 + 1;
        while off < m {
            let mut lo = _mm512_setzero_si512();
            let mut mid = lo;
            let mut hi = lo;
            let mut j = 0;
            while j < g {
                let k = (g - j).min(4);
                let mask = (0xffu16 >> (8 - 2 * k)) as __mmask8;
                let ld = |q: *const u8| _mm512_maskz_loadu_epi64(mask, q.cast());
                let mut x = _mm512_shuffle_epi8(ld(p.add(16 * (off + j))), rev_bytes);
                if j == 0 {
                    x = _mm512_xor_si512(x, _mm512_zextsi128_si512(acc));
                }
                let e = 2 * (32 - g + j);
                let (h, hkk) = (ld(hp.add(e).cast()), ld(hk.add(e).cast()));
                let xs = _mm512_xor_si512(x, _mm512_shuffle_epi32::<_MM_PERM_BADC>(x));
                lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, h, 0x00));
                hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, h, 0x11));
                mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(xs, hkk, 0x00));
                j += 4;
            }
            let (lo, hi) = (fold(lo), fold(hi));
            let mid = _mm_xor_si128(fold(mid), _mm_xor_si128(lo, hi));
            acc = super::ghash_pclmul::reduce(lo, mid, hi);
            off += g;
            g = 32;
        }
        _mm_storeu_si128(y.as_mut_ptr().cast(), _mm_shuffle_epi8(acc, rev128));
    }
}

/// GHASH of whole blocks into `y` with no setup: the path for short inputs (one small
/// message). `rev`, `rev_kara`: see [`ghash_short_vpclmul`].
pub(crate) fn ghash_short(
    _: Avx512,
    rev: &HPowers,
    rev_kara: &HPowers,
    y: &mut [u8; 16],
    data: &[u8],
) {
    // SAFETY: the token proves the avx512 level: VPCLMULQDQ, PCLMULQDQ, SSSE3 and
    // AVX-512 F/BW/VL.
    unsafe { ghash_short_vpclmul(rev, rev_kara, y, data) }
}
