//! SM4 on x86-64 AES-NI + AVX2, and PCLMULQDQ GHASH.
//!
//! The SM4 S-box is affine-equivalent to the AES S-box (both are inversion in GF(2^8) up
//! to affine maps and a field isomorphism): `S(x) = M3·SubBytes_AES(M1·x + c1) + c3`,
//! with `M1, c1, M3, c3` derived and checked by `derive_affine.py`. The affine maps are two
//! 16-entry nibble lookups each (`vpshufb` indexed by nibbles of the data: the table is a
//! register, so this is constant time); `aesenclast` with a zero round key computes
//! SubBytes (after an inverse-ShiftRows shuffle cancels its ShiftRows).
//!
//! Sixteen blocks are in flight (two ymm groups of eight blocks, words transposed so
//! each register holds word i of eight blocks); single blocks use one xmm group.
#![allow(unsafe_code)]

use super::ROUNDS;
use core::arch::x86_64::*;

/// Nibble tables of `M1·x + c1` (low nibble, high nibble with c1 folded in).
const PRE_LO: [u8; 16] = [
    0x00, 0x8c, 0x30, 0xbc, 0x85, 0x09, 0xb5, 0x39, 0x9f, 0x13, 0xaf, 0x23, 0x1a, 0x96, 0x2a, 0xa6,
];
const PRE_HI: [u8; 16] = [
    0x3e, 0xe2, 0x10, 0xcc, 0xfb, 0x27, 0xd5, 0x09, 0x36, 0xea, 0x18, 0xc4, 0xf3, 0x2f, 0xdd, 0x01,
];
/// Nibble tables of `M3·y + c3`.
const POST_LO: [u8; 16] = [
    0x00, 0xb8, 0xca, 0x72, 0x3e, 0x86, 0xf4, 0x4c, 0x67, 0xdf, 0xad, 0x15, 0x59, 0xe1, 0x93, 0x2b,
];
const POST_HI: [u8; 16] = [
    0x6c, 0x8c, 0x3c, 0xdc, 0xf1, 0x11, 0xa1, 0x41, 0xac, 0x4c, 0xfc, 0x1c, 0x31, 0xd1, 0x61, 0x81,
];
/// `pshufb` mask applying AES InvShiftRows (cancels the ShiftRows inside `aesenclast`).
const INV_SHIFT_ROWS: [u8; 16] = [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];
/// Byte swap of each 32-bit word (SM4 words are big-endian).
const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
/// Rotations of each 32-bit word left by 8 and 16 bits, as byte shuffles.
const ROL8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
const ROL16: [u8; 16] = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
const ROL24: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

#[inline(always)]
unsafe fn c128(t: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

#[inline(always)]
unsafe fn c256(t: &[u8; 16]) -> __m256i {
    // SAFETY: as above; broadcast to both lanes (vpshufb works per 128-bit lane).
    unsafe { _mm256_broadcastsi128_si256(c128(t)) }
}

/// Constants kept in registers by the ymm kernel.
struct K256 {
    mask0f: __m256i,
    pre_lo: __m256i,
    pre_hi: __m256i,
    post_lo: __m256i,
    post_hi: __m256i,
    isr: __m256i,
    rol8: __m256i,
    rol16: __m256i,
    rol24: __m256i,
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn k256() -> K256 {
    // SAFETY: loads of constant tables; AVX2 enabled on this function.
    unsafe {
        K256 {
            mask0f: _mm256_set1_epi8(0x0f),
            pre_lo: c256(&PRE_LO),
            pre_hi: c256(&PRE_HI),
            post_lo: c256(&POST_LO),
            post_hi: c256(&POST_HI),
            isr: c256(&INV_SHIFT_ROWS),
            rol8: c256(&ROL8),
            rol16: c256(&ROL16),
            rol24: c256(&ROL24),
        }
    }
}

/// S-box on every byte of a ymm.
#[inline(always)]
unsafe fn sbox256(k: &K256, x: __m256i) -> __m256i {
    // SAFETY: called only from functions with avx2 + aes enabled.
    unsafe {
        let lo = _mm256_and_si256(x, k.mask0f);
        let hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), k.mask0f);
        let y = _mm256_xor_si256(
            _mm256_shuffle_epi8(k.pre_lo, lo),
            _mm256_shuffle_epi8(k.pre_hi, hi),
        );
        let y = _mm256_shuffle_epi8(y, k.isr);
        let z0 = _mm_aesenclast_si128(_mm256_castsi256_si128(y), _mm_setzero_si128());
        let z1 = _mm_aesenclast_si128(_mm256_extracti128_si256(y, 1), _mm_setzero_si128());
        let z = _mm256_inserti128_si256(_mm256_castsi128_si256(z0), z1, 1);
        let lo = _mm256_and_si256(z, k.mask0f);
        let hi = _mm256_and_si256(_mm256_srli_epi16(z, 4), k.mask0f);
        _mm256_xor_si256(
            _mm256_shuffle_epi8(k.post_lo, lo),
            _mm256_shuffle_epi8(k.post_hi, hi),
        )
    }
}

/// §6.2 L on each word: B ^ (B<<<2) ^ (B<<<10) ^ (B<<<18) ^ (B<<<24)
/// = B ^ (B<<<24) ^ ((B ^ B<<<8 ^ B<<<16) <<< 2).
#[inline(always)]
unsafe fn l256(k: &K256, b: __m256i) -> __m256i {
    // SAFETY: AVX2 enabled by the callers.
    unsafe {
        let a = _mm256_xor_si256(
            b,
            _mm256_xor_si256(
                _mm256_shuffle_epi8(b, k.rol8),
                _mm256_shuffle_epi8(b, k.rol16),
            ),
        );
        let a2 = _mm256_or_si256(_mm256_slli_epi32(a, 2), _mm256_srli_epi32(a, 30));
        _mm256_xor_si256(_mm256_xor_si256(b, _mm256_shuffle_epi8(b, k.rol24)), a2)
    }
}

/// 4x4 transpose of 32-bit words within each 128-bit lane of four registers.
#[inline(always)]
unsafe fn transpose256(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> [__m256i; 4] {
    // SAFETY: AVX2 enabled by the callers.
    unsafe {
        let t0 = _mm256_unpacklo_epi32(a, b);
        let t1 = _mm256_unpackhi_epi32(a, b);
        let t2 = _mm256_unpacklo_epi32(c, d);
        let t3 = _mm256_unpackhi_epi32(c, d);
        [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ]
    }
}

/// G groups of 8 blocks (128·G bytes at `p`) through the 32 rounds.
#[inline(always)]
unsafe fn rounds256<const G: usize>(k: &K256, rk: &[u32; ROUNDS], p: *mut u8) {
    // SAFETY: the caller guarantees 128·G readable and writable bytes at `p`; AVX2 + AES
    // are enabled on the calling function.
    unsafe {
        let bswap = c256(&BSWAP32);
        let mut x = [[_mm256_setzero_si256(); G]; 4];
        for g in 0..G {
            let q = p.add(128 * g).cast::<__m256i>();
            let r: [__m256i; 4] =
                core::array::from_fn(|i| _mm256_shuffle_epi8(_mm256_loadu_si256(q.add(i)), bswap));
            let t = transpose256(r[0], r[1], r[2], r[3]);
            for i in 0..4 {
                x[i][g] = t[i];
            }
        }
        for (r, &key) in rk.iter().enumerate() {
            let kk = _mm256_set1_epi32(key as i32);
            let (i0, i1, i2, i3) = (r % 4, (r + 1) % 4, (r + 2) % 4, (r + 3) % 4);
            for g in 0..G {
                let t = _mm256_xor_si256(
                    _mm256_xor_si256(x[i1][g], x[i2][g]),
                    _mm256_xor_si256(x[i3][g], kk),
                );
                let s = sbox256(k, t);
                x[i0][g] = _mm256_xor_si256(x[i0][g], l256(k, s));
            }
        }
        for g in 0..G {
            // R(X32..X35) = (X35, X34, X33, X32).
            let t = transpose256(x[3][g], x[2][g], x[1][g], x[0][g]);
            let q = p.add(128 * g).cast::<__m256i>();
            for (i, v) in t.iter().enumerate() {
                _mm256_storeu_si256(q.add(i), _mm256_shuffle_epi8(*v, bswap));
            }
        }
    }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn crypt_blocks_avx2(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: AVX2 + AES enabled here; every pointer range below lies inside `data` or
    // inside the local buffer.
    unsafe {
        let k = k256();
        let mut chunks = data.chunks_exact_mut(256);
        for c in &mut chunks {
            rounds256::<2>(&k, rk, c.as_mut_ptr());
        }
        let rest = chunks.into_remainder();
        let mut r128 = rest.chunks_exact_mut(128);
        for c in &mut r128 {
            rounds256::<1>(&k, rk, c.as_mut_ptr());
        }
        let tail = r128.into_remainder();
        if !tail.is_empty() {
            let mut buf = [0u8; 128];
            buf[..tail.len()].copy_from_slice(tail);
            rounds256::<1>(&k, rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
            buf.fill(0);
        }
    }
}

/// Every block of `data` (whole blocks).
pub(crate) fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: this backend is selected only when `cpu::detected() >= Avx2`, which checks
    // AVX2, AES-NI and SSSE3.
    unsafe { crypt_blocks_avx2(rk, data) }
}

/// One block (latency path: a single 128-bit group).
#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn crypt_block_aesni(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: AES-NI + SSSE3 enabled here; all loads/stores are of local arrays.
    unsafe {
        let m0f = _mm_set1_epi8(0x0f);
        let (pl, ph, ql, qh, isr) = (
            c128(&PRE_LO),
            c128(&PRE_HI),
            c128(&POST_LO),
            c128(&POST_HI),
            c128(&INV_SHIFT_ROWS),
        );
        let (r8, r16, r24) = (c128(&ROL8), c128(&ROL16), c128(&ROL24));
        let w = _mm_shuffle_epi8(c128(block), c128(&BSWAP32));
        // Word i of the block in lane 0 of x[i].
        let mut x = [
            w,
            _mm_srli_si128(w, 4),
            _mm_srli_si128(w, 8),
            _mm_srli_si128(w, 12),
        ];
        for (r, &key) in rk.iter().enumerate() {
            let (i0, i1, i2, i3) = (r % 4, (r + 1) % 4, (r + 2) % 4, (r + 3) % 4);
            let t = _mm_xor_si128(
                _mm_xor_si128(x[i1], x[i2]),
                _mm_xor_si128(x[i3], _mm_cvtsi32_si128(key as i32)),
            );
            let y = _mm_xor_si128(
                _mm_shuffle_epi8(pl, _mm_and_si128(t, m0f)),
                _mm_shuffle_epi8(ph, _mm_and_si128(_mm_srli_epi16(t, 4), m0f)),
            );
            let z = _mm_aesenclast_si128(_mm_shuffle_epi8(y, isr), _mm_setzero_si128());
            let s = _mm_xor_si128(
                _mm_shuffle_epi8(ql, _mm_and_si128(z, m0f)),
                _mm_shuffle_epi8(qh, _mm_and_si128(_mm_srli_epi16(z, 4), m0f)),
            );
            let a = _mm_xor_si128(
                s,
                _mm_xor_si128(_mm_shuffle_epi8(s, r8), _mm_shuffle_epi8(s, r16)),
            );
            let a2 = _mm_or_si128(_mm_slli_epi32(a, 2), _mm_srli_epi32(a, 30));
            x[i0] = _mm_xor_si128(
                x[i0],
                _mm_xor_si128(_mm_xor_si128(s, _mm_shuffle_epi8(s, r24)), a2),
            );
        }
        let mut out = [0u32; 4];
        for i in 0..4 {
            out[i] = _mm_cvtsi128_si32(x[3 - i]) as u32;
        }
        for i in 0..4 {
            block[4 * i..4 * i + 4].copy_from_slice(&out[i].to_be_bytes());
        }
    }
}

/// One block.
pub(crate) fn crypt_block(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: selected only when the CPU has AVX2 + AES-NI (cpu::detected() >= Avx2).
    unsafe { crypt_block_aesni(rk, block) }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn tau_aesni(w: u32) -> u32 {
    // SAFETY: AES-NI + SSSE3 enabled here.
    unsafe {
        let m0f = _mm_set1_epi8(0x0f);
        let t = _mm_cvtsi32_si128(w as i32);
        let y = _mm_xor_si128(
            _mm_shuffle_epi8(c128(&PRE_LO), _mm_and_si128(t, m0f)),
            _mm_shuffle_epi8(c128(&PRE_HI), _mm_and_si128(_mm_srli_epi16(t, 4), m0f)),
        );
        let z = _mm_aesenclast_si128(
            _mm_shuffle_epi8(y, c128(&INV_SHIFT_ROWS)),
            _mm_setzero_si128(),
        );
        let s = _mm_xor_si128(
            _mm_shuffle_epi8(c128(&POST_LO), _mm_and_si128(z, m0f)),
            _mm_shuffle_epi8(c128(&POST_HI), _mm_and_si128(_mm_srli_epi16(z, 4), m0f)),
        );
        _mm_cvtsi128_si32(s) as u32
    }
}

/// §6.2 τ of one word.
pub(crate) fn tau(w: u32) -> u32 {
    // SAFETY: selected only when the CPU has AVX2 + AES-NI.
    unsafe { tau_aesni(w) }
}

// ---------------------------------------------------------------------------------------
// GHASH with PCLMULQDQ. Blocks are byte-reversed into 128-bit integers and H is stored
// pre-multiplied by x (H' = H·x), so that the reflected product needs no extra shift; the
// reduction modulo x^128 + x^7 + x^2 + x + 1 folds twice with the constant 0xc2·2^56.

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
unsafe fn powers_pclmul(h: &[u8; 16], out: &mut [[u64; 2]; 16]) {
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

/// H^1..H^16 (as H'^k) for [`ghash`] and the AVX-512 GHASH.
pub(crate) fn ghash_powers(h: &[u8; 16], out: &mut [[u64; 2]; 16]) {
    // SAFETY: only called for backends >= Avx2, whose detection checks PCLMULQDQ and SSSE3.
    unsafe { powers_pclmul(h, out) }
}

#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn ghash_pclmul(powers: &[[u64; 2]; 16], y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: PCLMULQDQ + SSSE3 enabled here; every 16-byte load is inside `data`.
    unsafe {
        let mut acc = bswap128(_mm_loadu_si128(y.as_ptr().cast()));
        let mut blocks = data.chunks_exact(128);
        for c in &mut blocks {
            // (acc ^ X0)·H^8 ^ X1·H^7 ^ ... ^ X7·H^1, one reduction.
            let mut lo = _mm_setzero_si128();
            let mut mid = lo;
            let mut hi = lo;
            for i in 0..8 {
                let mut x = bswap128(_mm_loadu_si128(c.as_ptr().add(16 * i).cast()));
                if i == 0 {
                    x = _mm_xor_si128(x, acc);
                }
                let (l, m, h) = clmul_wide(x, ld(&powers[7 - i]));
                lo = _mm_xor_si128(lo, l);
                mid = _mm_xor_si128(mid, m);
                hi = _mm_xor_si128(hi, h);
            }
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
pub(crate) fn ghash(powers: &[[u64; 2]; 16], y: &mut [u8; 16], data: &[u8]) {
    // SAFETY: only used for backends >= Avx2 (PCLMULQDQ and SSSE3 checked by detection).
    unsafe { ghash_pclmul(powers, y, data) }
}
