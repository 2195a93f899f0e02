//! SM4 on x86-64 GFNI + AVX-512, and VPCLMULQDQ GHASH.
//!
//! S-box: `S(x) = M2·inv(M1·x + c1) + c2` with inversion in the AES field, which is
//! exactly `vgf2p8affineinvqb(vgf2p8affineqb(x, M1, c1), M2, c2)`; `M1, c1, M2, c2` come
//! from `derive_affine.py` (checked there against the §6.2 table, and in the tests here).
//! L uses `vprold`, XORs of three use `vpternlogd`. Sixteen blocks per zmm (words
//! transposed: register i holds word i of 16 blocks), four zmm groups (64 blocks) in
//! flight to hide the latency of the GF(2^8) instructions.
//!
//! GHASH: four blocks per zmm with VPCLMULQDQ, sixteen blocks per reduction.
#![allow(unsafe_code)]

use super::ROUNDS;
use core::arch::x86_64::*;

/// `vgf2p8affineqb` matrix and constant of `M1·x + c1`.
const M1: i64 = 0x4c28_7db9_1a22_505d;
const C1: i32 = 0x3e;
/// `vgf2p8affineinvqb` matrix and constant of `M2·inv(y) + c2`.
const M2: i64 = 0xf3ab_34a9_74a6_b589u64 as i64;
const C2: i32 = 0xd3;

const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

#[inline(always)]
unsafe fn bswap_mask512() -> __m512i {
    // SAFETY: AVX-512F enabled by the callers; reads a 16-byte constant.
    unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(BSWAP32.as_ptr().cast())) }
}

#[inline(always)]
unsafe fn transpose512(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    // SAFETY: AVX-512F enabled by the callers.
    unsafe {
        let t0 = _mm512_unpacklo_epi32(a, b);
        let t1 = _mm512_unpackhi_epi32(a, b);
        let t2 = _mm512_unpacklo_epi32(c, d);
        let t3 = _mm512_unpackhi_epi32(c, d);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    }
}

/// G groups of 16 blocks (256·G bytes at `p`) through the 32 rounds.
#[inline(always)]
unsafe fn rounds512<const G: usize>(rk: &[u32; ROUNDS], p: *mut u8) {
    // SAFETY: the caller guarantees 256·G readable and writable bytes at `p` and enables
    // avx512f/bw/vl + gfni.
    unsafe {
        let bswap = bswap_mask512();
        let m1 = _mm512_set1_epi64(M1);
        let m2 = _mm512_set1_epi64(M2);
        let mut x = [[_mm512_setzero_si512(); G]; 4];
        for g in 0..G {
            let q = p.add(256 * g);
            let r: [__m512i; 4] = core::array::from_fn(|i| {
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.add(64 * i).cast()), bswap)
            });
            let t = transpose512(r[0], r[1], r[2], r[3]);
            for i in 0..4 {
                x[i][g] = t[i];
            }
        }
        for (r, &key) in rk.iter().enumerate() {
            let kk = _mm512_set1_epi32(key as i32);
            let (i0, i1, i2, i3) = (r % 4, (r + 1) % 4, (r + 2) % 4, (r + 3) % 4);
            for g in 0..G {
                // T(X1 ^ X2 ^ X3 ^ rk): τ by GFNI, then L.
                let t = _mm512_ternarylogic_epi32::<0x96>(
                    x[i1][g],
                    x[i2][g],
                    _mm512_xor_si512(x[i3][g], kk),
                );
                let s = _mm512_gf2p8affine_epi64_epi8::<C1>(t, m1);
                let s = _mm512_gf2p8affineinv_epi64_epi8::<C2>(s, m2);
                let a = _mm512_ternarylogic_epi32::<0x96>(
                    s,
                    _mm512_rol_epi32::<2>(s),
                    _mm512_rol_epi32::<10>(s),
                );
                let b = _mm512_ternarylogic_epi32::<0x96>(
                    x[i0][g],
                    _mm512_rol_epi32::<18>(s),
                    _mm512_rol_epi32::<24>(s),
                );
                x[i0][g] = _mm512_xor_si512(a, b);
            }
        }
        for g in 0..G {
            let t = transpose512(x[3][g], x[2][g], x[1][g], x[0][g]);
            let q = p.add(256 * g);
            for (i, v) in t.iter().enumerate() {
                _mm512_storeu_si512(q.add(64 * i).cast(), _mm512_shuffle_epi8(*v, bswap));
            }
        }
    }
}

/// One to four blocks (64 bytes at `p`) in one xmm group: the latency path.
#[inline(always)]
unsafe fn rounds128(rk: &[u32; ROUNDS], p: *mut u8) {
    // SAFETY: 64 readable/writable bytes at `p`; avx512vl + gfni enabled by the callers.
    unsafe {
        let bswap = _mm_loadu_si128(BSWAP32.as_ptr().cast());
        let m1 = _mm_set1_epi64x(M1);
        let m2 = _mm_set1_epi64x(M2);
        let r: [__m128i; 4] = core::array::from_fn(|i| {
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(16 * i).cast()), bswap)
        });
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        let mut x = [
            _mm_unpacklo_epi64(t0, t2),
            _mm_unpackhi_epi64(t0, t2),
            _mm_unpacklo_epi64(t1, t3),
            _mm_unpackhi_epi64(t1, t3),
        ];
        for (r, &key) in rk.iter().enumerate() {
            let kk = _mm_set1_epi32(key as i32);
            let (i0, i1, i2, i3) = (r % 4, (r + 1) % 4, (r + 2) % 4, (r + 3) % 4);
            let t = _mm_ternarylogic_epi32::<0x96>(x[i1], x[i2], _mm_xor_si128(x[i3], kk));
            let s = _mm_gf2p8affine_epi64_epi8::<C1>(t, m1);
            let s = _mm_gf2p8affineinv_epi64_epi8::<C2>(s, m2);
            let a =
                _mm_ternarylogic_epi32::<0x96>(s, _mm_rol_epi32::<2>(s), _mm_rol_epi32::<10>(s));
            let b = _mm_ternarylogic_epi32::<0x96>(
                x[i0],
                _mm_rol_epi32::<18>(s),
                _mm_rol_epi32::<24>(s),
            );
            x[i0] = _mm_xor_si128(a, b);
        }
        let t0 = _mm_unpacklo_epi32(x[3], x[2]);
        let t1 = _mm_unpackhi_epi32(x[3], x[2]);
        let t2 = _mm_unpacklo_epi32(x[1], x[0]);
        let t3 = _mm_unpackhi_epi32(x[1], x[0]);
        let y = [
            _mm_unpacklo_epi64(t0, t2),
            _mm_unpackhi_epi64(t0, t2),
            _mm_unpacklo_epi64(t1, t3),
            _mm_unpackhi_epi64(t1, t3),
        ];
        for (i, v) in y.iter().enumerate() {
            _mm_storeu_si128(p.add(16 * i).cast(), _mm_shuffle_epi8(*v, bswap));
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn crypt_blocks_gfni(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: features enabled here; every pointer range lies inside `data` or a local buffer.
    unsafe {
        let mut c4 = data.chunks_exact_mut(1024);
        for c in &mut c4 {
            rounds512::<4>(rk, c.as_mut_ptr());
        }
        let rest = c4.into_remainder();
        let mut c1 = rest.chunks_exact_mut(256);
        for c in &mut c1 {
            rounds512::<1>(rk, c.as_mut_ptr());
        }
        let tail = c1.into_remainder();
        let mut buf = [0u8; 256];
        if tail.len() > 64 {
            buf[..tail.len()].copy_from_slice(tail);
            rounds512::<1>(rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
        } else if !tail.is_empty() {
            buf[..tail.len()].copy_from_slice(tail);
            rounds128(rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
        }
        buf.fill(0);
    }
}

/// Every block of `data` (whole blocks).
pub(crate) fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: this backend is selected only when `cpu::detected() >= Avx512`, which checks
    // AVX-512 F/BW/VL and GFNI.
    unsafe { crypt_blocks_gfni(rk, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn crypt_block_gfni(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: features enabled here; the buffer is local.
    unsafe {
        let mut buf = [0u8; 64];
        buf[..16].copy_from_slice(block);
        rounds128(rk, buf.as_mut_ptr());
        block.copy_from_slice(&buf[..16]);
        buf.fill(0);
    }
}

/// One block.
pub(crate) fn crypt_block(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: selected only when the CPU has AVX-512VL and GFNI (cpu::detected() >= Avx512).
    unsafe { crypt_block_gfni(rk, block) }
}

#[target_feature(enable = "avx512f,avx512vl,gfni")]
unsafe fn tau_gfni(w: u32) -> u32 {
    // GFNI and AVX-512VL are enabled on this function, so the intrinsics are safe here.
    let t = _mm_cvtsi32_si128(w as i32);
    let s = _mm_gf2p8affine_epi64_epi8::<C1>(t, _mm_set1_epi64x(M1));
    let s = _mm_gf2p8affineinv_epi64_epi8::<C2>(s, _mm_set1_epi64x(M2));
    _mm_cvtsi128_si32(s) as u32
}

/// §6.2 τ of one word.
pub(crate) fn tau(w: u32) -> u32 {
    // SAFETY: selected only when the CPU has GFNI and AVX-512 (cpu::detected() >= Avx512).
    unsafe { tau_gfni(w) }
}

// ---------------------------------------------------------------------------------------
// GHASH: the representation of x86_avx2.rs (byte-reversed blocks, H' = H·x), four blocks
// per zmm, sixteen blocks per reduction.

#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn ghash_vpclmul(powers: &[[u64; 2]; 16], y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: features enabled here; each 64-byte load lies inside `data`.
    unsafe {
        let rev = _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ));
        // Lane j of register i multiplies block 4i + j of a 16-block group by H^(16 - 4i - j).
        let hp: [__m512i; 4] = core::array::from_fn(|i| {
            let l = |j: usize| _mm_loadu_si128(powers[15 - 4 * i - j].as_ptr().cast());
            let v = _mm512_castsi128_si512(l(0));
            let v = _mm512_inserti32x4::<1>(v, l(1));
            let v = _mm512_inserti32x4::<2>(v, l(2));
            _mm512_inserti32x4::<3>(v, l(3))
        });
        let mut acc = _mm_shuffle_epi8(
            _mm_loadu_si128(y.as_ptr().cast()),
            _mm512_castsi512_si128(rev),
        );
        let mut groups = data.chunks_exact(256);
        for c in &mut groups {
            let mut lo = _mm512_setzero_si512();
            let mut mid = lo;
            let mut hi = lo;
            for i in 0..4 {
                let mut x =
                    _mm512_shuffle_epi8(_mm512_loadu_si512(c.as_ptr().add(64 * i).cast()), rev);
                if i == 0 {
                    x = _mm512_xor_si512(x, _mm512_castsi128_si512(acc));
                }
                let h = hp[i];
                lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, h, 0x00));
                hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, h, 0x11));
                mid = _mm512_ternarylogic_epi64::<0x96>(
                    mid,
                    _mm512_clmulepi64_epi128(x, h, 0x01),
                    _mm512_clmulepi64_epi128(x, h, 0x10),
                );
            }
            acc = super::x86_avx2::reduce(fold(lo), fold(mid), fold(hi));
        }
        let rest = groups.remainder();
        let _ = powers;
        _mm_storeu_si128(
            y.as_mut_ptr().cast(),
            _mm_shuffle_epi8(acc, _mm512_castsi512_si128(rev)),
        );
        if !rest.is_empty() {
            super::x86_avx2::ghash(powers, y, rest);
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
pub(crate) fn ghash(powers: &[[u64; 2]; 16], y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: selected only for the Avx512 backend, whose detection checks VPCLMULQDQ,
    // PCLMULQDQ and AVX-512 F/BW/VL.
    unsafe { ghash_vpclmul(powers, y, data) }
}
