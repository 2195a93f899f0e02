//! SM4 on x86-64 AES-NI + AVX2 (the `avx2` backend's GHASH is `ghash_pclmul.rs`).
//!
//! The SM4 S-box is affine-equivalent to the AES S-box (both are inversion in GF(2^8) up
//! to affine maps and a field isomorphism): `S(x) = M3·SubBytes_AES(M1·x + c1) + c3`,
//! with `M1, c1, M3, c3` derived and checked by `derive_affine.py`. The affine maps are two
//! 16-entry nibble lookups each (`vpshufb` indexed by nibbles of the data: the table is a
//! register, so this is constant time); `aesenclast` with a zero round key computes
//! SubBytes (after an inverse-ShiftRows shuffle cancels its ShiftRows).
//!
//! Sixteen blocks are in flight (two ymm groups of eight blocks, words transposed so
//! each register holds word i of eight blocks); a single block uses one xmm group, and
//! the serial modes (CBC/CFB encryption, CBC-MAC, OFB) run their rounds in a basis where
//! a round is `aesenclast` and one linear map (see "Serial modes" below).
#![allow(unsafe_code)]
// Register groups are indexed by position (g) across several arrays at once.
#![allow(clippy::needless_range_loop)]

use super::ROUNDS;
use crate::cpu::{Avx2, Vaes};
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

/// S-box on every byte of a ymm. `VAES`: one 256-bit `vaesenclast` instead of two
/// 128-bit `aesenclast` with a lane extract/insert (callers enable the `vaes` feature).
#[inline(always)]
unsafe fn sbox256<const VAES: bool>(k: &K256, x: __m256i) -> __m256i {
    // SAFETY: called only from functions with avx2 + aes (and vaes when VAES) enabled.
    unsafe {
        let lo = _mm256_and_si256(x, k.mask0f);
        let hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), k.mask0f);
        let y = _mm256_xor_si256(
            _mm256_shuffle_epi8(k.pre_lo, lo),
            _mm256_shuffle_epi8(k.pre_hi, hi),
        );
        let y = _mm256_shuffle_epi8(y, k.isr);
        let z = if VAES {
            _mm256_aesenclast_epi128(y, _mm256_setzero_si256())
        } else {
            let z0 = _mm_aesenclast_si128(_mm256_castsi256_si128(y), _mm_setzero_si128());
            let z1 = _mm_aesenclast_si128(_mm256_extracti128_si256(y, 1), _mm_setzero_si128());
            _mm256_inserti128_si256(_mm256_castsi128_si256(z0), z1, 1)
        };
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

/// §7.1 one round on G groups: X0 ^= T(X1 ^ X2 ^ X3 ^ rk), T = L ∘ τ.
#[inline(always)]
unsafe fn round256<const G: usize, const VAES: bool>(
    k: &K256,
    x0: &mut [__m256i; G],
    x1: &[__m256i; G],
    x2: &[__m256i; G],
    x3: &[__m256i; G],
    key: u32,
) {
    // SAFETY: AVX2 + AES enabled by the callers.
    unsafe {
        let kk = _mm256_set1_epi32(key as i32);
        for g in 0..G {
            let t = _mm256_xor_si256(_mm256_xor_si256(x1[g], x2[g]), _mm256_xor_si256(x3[g], kk));
            let s = sbox256::<VAES>(k, t);
            x0[g] = _mm256_xor_si256(x0[g], l256(k, s));
        }
    }
}

/// G groups of 8 blocks (128·G bytes at `p`) through the 32 rounds.
#[inline(always)]
unsafe fn rounds256<const G: usize, const VAES: bool>(k: &K256, rk: &[u32; ROUNDS], p: *mut u8) {
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
        let [mut x0, mut x1, mut x2, mut x3] = x;
        // Unrolled by four so that the roles of the words rotate without any indexing.
        for r in (0..ROUNDS).step_by(4) {
            round256::<G, VAES>(k, &mut x0, &x1, &x2, &x3, rk[r]);
            round256::<G, VAES>(k, &mut x1, &x2, &x3, &x0, rk[r + 1]);
            round256::<G, VAES>(k, &mut x2, &x3, &x0, &x1, rk[r + 2]);
            round256::<G, VAES>(k, &mut x3, &x0, &x1, &x2, rk[r + 3]);
        }
        let x = [x0, x1, x2, x3];
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

/// Dword position p of a transposed ymm holds block 2·(p mod 4) + p/4 of its group.
const LANE_BLOCK8: [u32; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// CTR on 32 blocks: counters built in transposed form, keystream XORed from `src` into
/// `dst` (512 bytes each; the same buffer or disjoint). The low 32 bits of `ctr` must not
/// wrap within the 32 blocks.
#[inline(always)]
unsafe fn ctr32<const VAES: bool>(
    k: &K256,
    rk: &[u32; ROUNDS],
    ctr: u128,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY: 512 readable bytes at `src`, writable at `dst`; AVX2 + AES (+ VAES) enabled
    // by the callers.
    unsafe {
        const G: usize = 4;
        let bswap = c256(&BSWAP32);
        let lanes = _mm256_loadu_si256(LANE_BLOCK8.as_ptr().cast());
        let low = _mm256_add_epi32(_mm256_set1_epi32(ctr as u32 as i32), lanes);
        let mut x0 = [_mm256_set1_epi32((ctr >> 96) as u32 as i32); G];
        let mut x1 = [_mm256_set1_epi32((ctr >> 64) as u32 as i32); G];
        let mut x2 = [_mm256_set1_epi32((ctr >> 32) as u32 as i32); G];
        let mut x3: [__m256i; G] =
            core::array::from_fn(|g| _mm256_add_epi32(low, _mm256_set1_epi32(8 * g as i32)));
        for r in (0..ROUNDS).step_by(4) {
            round256::<G, VAES>(k, &mut x0, &x1, &x2, &x3, rk[r]);
            round256::<G, VAES>(k, &mut x1, &x2, &x3, &x0, rk[r + 1]);
            round256::<G, VAES>(k, &mut x2, &x3, &x0, &x1, rk[r + 2]);
            round256::<G, VAES>(k, &mut x3, &x0, &x1, &x2, rk[r + 3]);
        }
        for g in 0..G {
            let t = transpose256(x3[g], x2[g], x1[g], x0[g]);
            for (i, v) in t.iter().enumerate() {
                let off = 128 * g + 32 * i;
                let ks = _mm256_shuffle_epi8(*v, bswap);
                let d = _mm256_xor_si256(_mm256_loadu_si256(src.add(off).cast()), ks);
                _mm256_storeu_si256(dst.add(off).cast(), d);
            }
        }
    }
}

#[inline(always)]
unsafe fn ctr_impl<const VAES: bool>(
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> usize {
    // SAFETY: `len` readable bytes at `src` and writable at `dst`; features enabled by the
    // callers; every 512-byte step stays below `len`.
    unsafe {
        let k = k256();
        let mut off = 0;
        while len - off >= 512 {
            let c = *counter;
            if (c as u32) > u32::MAX - 31 {
                break; // a 32-bit carry inside the step: the generic path takes the rest
            }
            ctr32::<VAES>(&k, rk, c, src.add(off), dst.add(off));
            *counter = c.wrapping_add(32);
            off += 512;
        }
        off
    }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn ctr_aesni(
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> usize {
    // SAFETY: forwarded to `ctr_impl` with AVX2 + AES enabled here.
    unsafe { ctr_impl::<false>(rk, counter, src, dst, len) }
}

#[target_feature(enable = "avx2,aes,ssse3,vaes")]
unsafe fn ctr_vaes(
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> usize {
    // SAFETY: forwarded to `ctr_impl` with AVX2 + AES + VAES enabled here.
    unsafe { ctr_impl::<true>(rk, counter, src, dst, len) }
}

/// Fused CTR from `src` into `dst` (equal lengths) for the longest prefix of 32-block
/// steps, with 256-bit `vaesenclast` when given the VAES proof; returns the bytes done
/// (the caller finishes the rest).
pub(crate) fn ctr_xor_to(
    _: Avx2,
    vaes: Option<Vaes>,
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    assert_eq!(src.len(), dst.len());
    if vaes.is_some() {
        // SAFETY: the tokens prove AVX2, AES-NI, SSSE3 and VAES; `src`/`dst` are distinct
        // borrows of equal length.
        unsafe { ctr_vaes(rk, counter, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
    } else {
        // SAFETY: as above, without VAES.
        unsafe { ctr_aesni(rk, counter, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
    }
}

/// Fused CTR in place for the longest prefix of 32-block steps; returns the bytes done.
pub(crate) fn ctr_xor(
    _: Avx2,
    vaes: Option<Vaes>,
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    data: &mut [u8],
) -> usize {
    let p = data.as_mut_ptr();
    if vaes.is_some() {
        // SAFETY: as `ctr_xor_to`; source and destination are the same `data`.
        unsafe { ctr_vaes(rk, counter, p, p, data.len()) }
    } else {
        // SAFETY: as above, without VAES.
        unsafe { ctr_aesni(rk, counter, p, p, data.len()) }
    }
}

#[inline(always)]
unsafe fn crypt_blocks_impl<const VAES: bool>(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: AVX2 + AES (+ VAES) enabled by the callers; every pointer range below lies
    // inside `data` or inside the local buffer.
    unsafe {
        let k = k256();
        let mut chunks = data.chunks_exact_mut(512);
        for c in &mut chunks {
            rounds256::<4, VAES>(&k, rk, c.as_mut_ptr());
        }
        let rest = chunks.into_remainder();
        let mut chunks = rest.chunks_exact_mut(256);
        for c in &mut chunks {
            rounds256::<2, VAES>(&k, rk, c.as_mut_ptr());
        }
        let rest = chunks.into_remainder();
        let mut r128 = rest.chunks_exact_mut(128);
        for c in &mut r128 {
            rounds256::<1, VAES>(&k, rk, c.as_mut_ptr());
        }
        let tail = r128.into_remainder();
        if !tail.is_empty() {
            let mut buf = [0u8; 128];
            buf[..tail.len()].copy_from_slice(tail);
            rounds256::<1, VAES>(&k, rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
            buf.fill(0);
        }
    }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn crypt_blocks_avx2(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: AVX2 + AES enabled here.
    unsafe { crypt_blocks_impl::<false>(rk, data) }
}

#[target_feature(enable = "avx2,aes,ssse3,vaes")]
unsafe fn crypt_blocks_vaes(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: AVX2 + AES + VAES enabled here.
    unsafe { crypt_blocks_impl::<true>(rk, data) }
}

/// Every block of `data` (whole blocks), with 256-bit `vaesenclast` when given the VAES
/// proof.
pub(crate) fn crypt_blocks(_: Avx2, vaes: Option<Vaes>, rk: &[u32; ROUNDS], data: &mut [u8]) {
    if vaes.is_some() {
        // SAFETY: the tokens prove AVX2, AES-NI, SSSE3 and VAES.
        unsafe { crypt_blocks_vaes(rk, data) }
    } else {
        // SAFETY: the token proves AVX2, AES-NI, SSSE3.
        unsafe { crypt_blocks_avx2(rk, data) }
    }
}

/// τ then the parts of L on one block whose words are broadcast to all lanes (so the
/// ShiftRows inside `aesenclast` is the identity). Returns (s ^ (s <<< 24), rol2(...)):
/// L(s) is their XOR.
#[inline(always)]
unsafe fn tau_l1(t: __m128i) -> (__m128i, __m128i) {
    // SAFETY: AES-NI + SSSE3 enabled by the callers.
    unsafe {
        let m0f = _mm_set1_epi8(0x0f);
        let y = _mm_xor_si128(
            _mm_shuffle_epi8(c128(&PRE_LO), _mm_and_si128(t, m0f)),
            _mm_shuffle_epi8(c128(&PRE_HI), _mm_and_si128(_mm_srli_epi16(t, 4), m0f)),
        );
        let z = _mm_aesenclast_si128(y, _mm_setzero_si128());
        let s = _mm_xor_si128(
            _mm_shuffle_epi8(c128(&POST_LO), _mm_and_si128(z, m0f)),
            _mm_shuffle_epi8(c128(&POST_HI), _mm_and_si128(_mm_srli_epi16(z, 4), m0f)),
        );
        let a = _mm_xor_si128(
            s,
            _mm_xor_si128(
                _mm_shuffle_epi8(s, c128(&ROL8)),
                _mm_shuffle_epi8(s, c128(&ROL16)),
            ),
        );
        let a2 = _mm_or_si128(_mm_slli_epi32(a, 2), _mm_srli_epi32(a, 30));
        (_mm_xor_si128(s, _mm_shuffle_epi8(s, c128(&ROL24))), a2)
    }
}

/// Round `r` of the single-block path: X_{r+4} (into `x0`) = X_r ^ L(τ(t)); `x2`, `x3`
/// are X_{r+2}, X_{r+3}, which give the next round's input.
#[inline(always)]
unsafe fn step1(
    t: &mut __m128i,
    x0: &mut __m128i,
    x2: __m128i,
    x3: __m128i,
    rk: &[u32; ROUNDS],
    r: usize,
) {
    // SAFETY: AES-NI + SSSE3 enabled by the callers.
    unsafe {
        let (c, a2) = tau_l1(*t);
        let x0c = _mm_xor_si128(*x0, c);
        if r + 1 < ROUNDS {
            let pre = _mm_xor_si128(_mm_xor_si128(x2, x3), _mm_set1_epi32(rk[r + 1] as i32));
            *t = _mm_xor_si128(_mm_xor_si128(pre, x0c), a2);
        }
        *x0 = _mm_xor_si128(x0c, a2);
    }
}

/// One block held in an xmm (bytes as in memory) through the rounds.
#[inline(always)]
unsafe fn block1(rk: &[u32; ROUNDS], v: __m128i) -> __m128i {
    // SAFETY: AES-NI + SSSE3 enabled by the callers.
    unsafe {
        let bswap = c128(&BSWAP32);
        let w = _mm_shuffle_epi8(v, bswap);
        // Word i broadcast to every lane of x_i.
        let (mut x0, mut x1, mut x2, mut x3) = (
            _mm_shuffle_epi32(w, 0x00),
            _mm_shuffle_epi32(w, 0x55),
            _mm_shuffle_epi32(w, 0xaa),
            _mm_shuffle_epi32(w, 0xff),
        );
        // The next round's input t_{i+1} = (X_{i+2} ^ X_{i+3} ^ rk_{i+1} ^ X_i ^ c) ^ a2 takes
        // one XOR after L; everything else is off the critical path.
        let mut t = _mm_xor_si128(
            _mm_xor_si128(x1, x2),
            _mm_xor_si128(x3, _mm_set1_epi32(rk[0] as i32)),
        );
        for r in (0..ROUNDS).step_by(4) {
            step1(&mut t, &mut x0, x2, x3, rk, r);
            step1(&mut t, &mut x1, x3, x0, rk, r + 1);
            step1(&mut t, &mut x2, x0, x1, rk, r + 2);
            step1(&mut t, &mut x3, x1, x2, rk, r + 3);
        }
        let y = _mm_unpacklo_epi64(_mm_unpacklo_epi32(x3, x2), _mm_unpacklo_epi32(x1, x0));
        _mm_shuffle_epi8(y, bswap)
    }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn crypt_block_aesni(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: AES-NI + SSSE3 enabled here; 16-byte load/store of `block`.
    unsafe {
        let v = block1(rk, _mm_loadu_si128(block.as_ptr().cast()));
        _mm_storeu_si128(block.as_mut_ptr().cast(), v);
    }
}

// ---------------------------------------------------------------------------------------
// Serial modes (CBC/CFB encryption, CBC-MAC, OFB): one block at a time, so the latency of a
// round is what counts. The rounds run in another basis (derivation and a model checked
// against the S-box table in `derive_affine.py` §6): with G = L·M3 and N = M1·L·M3, the
// state words are V_j = G^-1(X_j), and a round is
//     z' = aesenclast(y, kk),  y' = N(z'),  V_{i+4} = z' ^ (V_{i+2} ^ V_{i+3} ^ rho_{i+1}),
// where kk = V_i ^ V_{i+2} ^ V_{i+3} ^ rho_{i+1} ^ kappa is ready long before y (so the
// round's XOR with the other words rides in `aesenclast`'s own key addition), and N is
// six nibble lookups on z', z' <<< 8 ^ z' <<< 16 and z' <<< 24: the affine maps before and
// after the AES S-box and L are one linear map, and no XOR follows it. Blocks chain in the
// V basis too (G^-1 is linear: G^-1(P ^ C) = G^-1(P) ^ V), so the conversions to and
// from bytes are off the critical path.
//
// Words are held "spread": byte k of a word at bytes 2k and 2k + 8, zero between. That
// state is unchanged by `aesenclast`'s ShiftRows (rows 0 and 2 repeat with period two,
// rows 1 and 3 are constant), its zero bytes give SubBytes(0) = 0x63, which kk's odd
// bytes cancel, and the high nibble of every byte is one 16-bit shift away.

/// N = M1·L·M3 as bytewise maps of x, x <<< 8 ^ x <<< 16 and x <<< 24 (by nibble).
const N0_LO: [u8; 16] = [
    0x00, 0x86, 0xd3, 0x55, 0x78, 0xfe, 0xab, 0x2d, 0x1c, 0x9a, 0xcf, 0x49, 0x64, 0xe2, 0xb7, 0x31,
];
const N0_HI: [u8; 16] = [
    0x00, 0xeb, 0xdc, 0x37, 0xf0, 0x1b, 0x2c, 0xc7, 0xcd, 0x26, 0x11, 0xfa, 0x3d, 0xd6, 0xe1, 0x0a,
];
const N1_LO: [u8; 16] = [
    0x00, 0xd3, 0x0d, 0xde, 0xa0, 0x73, 0xad, 0x7e, 0x42, 0x91, 0x4f, 0x9c, 0xe2, 0x31, 0xef, 0x3c,
];
const N1_HI: [u8; 16] = [
    0x00, 0xb4, 0x49, 0xfd, 0x82, 0x36, 0xcb, 0x7f, 0xbc, 0x08, 0xf5, 0x41, 0x3e, 0x8a, 0x77, 0xc3,
];
const N3_LO: [u8; 16] = [
    0x00, 0x55, 0xde, 0x8b, 0xd8, 0x8d, 0x06, 0x53, 0x5e, 0x0b, 0x80, 0xd5, 0x86, 0xd3, 0x58, 0x0d,
];
const N3_HI: [u8; 16] = [
    0x00, 0x5f, 0x95, 0xca, 0x72, 0x2d, 0xe7, 0xb8, 0x71, 0x2e, 0xe4, 0xbb, 0x03, 0x5c, 0x96, 0xc9,
];
/// G = L·M3 (V basis -> words), bytewise maps of x, x <<< 8, x <<< 16, x <<< 24 (low
/// nibble, high nibble each).
const G_MAPS: [[u8; 16]; 8] = [
    [
        0x00, 0x58, 0xe2, 0xba, 0xc6, 0x9e, 0x24, 0x7c, 0xfb, 0xa3, 0x19, 0x41, 0x3d, 0x65, 0xdf,
        0x87,
    ],
    [
        0x00, 0x60, 0x10, 0x70, 0xe9, 0x89, 0xf9, 0x99, 0xc0, 0xa0, 0xd0, 0xb0, 0x29, 0x49, 0x39,
        0x59,
    ],
    [
        0x00, 0xe2, 0x2b, 0xc9, 0xf8, 0x1a, 0xd3, 0x31, 0x9d, 0x7f, 0xb6, 0x54, 0x65, 0x87, 0x4e,
        0xac,
    ],
    [
        0x00, 0x83, 0x41, 0xc2, 0x76, 0xf5, 0x37, 0xb4, 0x03, 0x80, 0x42, 0xc1, 0x75, 0xf6, 0x34,
        0xb7,
    ],
    [
        0x00, 0xe2, 0x2b, 0xc9, 0xf8, 0x1a, 0xd3, 0x31, 0x9d, 0x7f, 0xb6, 0x54, 0x65, 0x87, 0x4e,
        0xac,
    ],
    [
        0x00, 0x83, 0x41, 0xc2, 0x76, 0xf5, 0x37, 0xb4, 0x03, 0x80, 0x42, 0xc1, 0x75, 0xf6, 0x34,
        0xb7,
    ],
    [
        0x00, 0xba, 0xc9, 0x73, 0x3e, 0x84, 0xf7, 0x4d, 0x66, 0xdc, 0xaf, 0x15, 0x58, 0xe2, 0x91,
        0x2b,
    ],
    [
        0x00, 0xe3, 0x51, 0xb2, 0x9f, 0x7c, 0xce, 0x2d, 0xc3, 0x20, 0x92, 0x71, 0x5c, 0xbf, 0x0d,
        0xee,
    ],
];
/// G^-1 (words -> V basis), laid out as `G_MAPS`.
const GINV_MAPS: [[u8; 16]; 8] = [
    [
        0x00, 0x0b, 0x12, 0x19, 0xf1, 0xfa, 0xe3, 0xe8, 0x68, 0x63, 0x7a, 0x71, 0x99, 0x92, 0x8b,
        0x80,
    ],
    [
        0x00, 0xec, 0xdb, 0x37, 0x20, 0xcc, 0xfb, 0x17, 0xea, 0x06, 0x31, 0xdd, 0xca, 0x26, 0x11,
        0xfd,
    ],
    [
        0x00, 0x3d, 0x59, 0x64, 0x36, 0x0b, 0x6f, 0x52, 0x4b, 0x76, 0x12, 0x2f, 0x7d, 0x40, 0x24,
        0x19,
    ],
    [
        0x00, 0xc7, 0x23, 0xe4, 0x2b, 0xec, 0x08, 0xcf, 0xf8, 0x3f, 0xdb, 0x1c, 0xd3, 0x14, 0xf0,
        0x37,
    ],
    [
        0x00, 0x2b, 0xf8, 0xd3, 0x0b, 0x20, 0xf3, 0xd8, 0x12, 0x39, 0xea, 0xc1, 0x19, 0x32, 0xe1,
        0xca,
    ],
    [
        0x00, 0xf1, 0x68, 0x99, 0xec, 0x1d, 0x84, 0x75, 0xdb, 0x2a, 0xb3, 0x42, 0x37, 0xc6, 0x5f,
        0xae,
    ],
    [
        0x00, 0xe7, 0xc9, 0x2e, 0xd1, 0x36, 0x18, 0xff, 0x82, 0x65, 0x4b, 0xac, 0x53, 0xb4, 0x9a,
        0x7d,
    ],
    [
        0x00, 0x16, 0xa1, 0xb7, 0x3d, 0x2b, 0x9c, 0x8a, 0x59, 0x4f, 0xf8, 0xee, 0x64, 0x72, 0xc5,
        0xd3,
    ],
];
/// rho_i = G^-1(rk_i) ^ RHO_C, RHO_C = N^-1(c1 in every byte).
const RHO_C: u32 = 0xc0c0_c0c0;
/// kappa = M3^-1·c3 in the word's bytes; 0x63 (SubBytes(0)) in the zero bytes between.
const KAPPA: [u8; 16] = [
    0x97, 0x63, 0x97, 0x63, 0x97, 0x63, 0x97, 0x63, 0x97, 0x63, 0x97, 0x63, 0x97, 0x63, 0x97, 0x63,
];
/// Rotations of a spread word left by 8, 16 and 24 bits.
const SP_ROL8: [u8; 16] = [
    6, 0x80, 0, 0x80, 2, 0x80, 4, 0x80, 14, 0x80, 8, 0x80, 10, 0x80, 12, 0x80,
];
const SP_ROL16: [u8; 16] = [
    4, 0x80, 6, 0x80, 0, 0x80, 2, 0x80, 12, 0x80, 14, 0x80, 8, 0x80, 10, 0x80,
];
const SP_ROL24: [u8; 16] = [
    2, 0x80, 4, 0x80, 6, 0x80, 0, 0x80, 10, 0x80, 12, 0x80, 14, 0x80, 8, 0x80,
];
/// Word j of four packed words (dword j) -> spread.
const SPREAD: [[u8; 16]; 4] = [
    [
        0, 0x80, 1, 0x80, 2, 0x80, 3, 0x80, 0, 0x80, 1, 0x80, 2, 0x80, 3, 0x80,
    ],
    [
        4, 0x80, 5, 0x80, 6, 0x80, 7, 0x80, 4, 0x80, 5, 0x80, 6, 0x80, 7, 0x80,
    ],
    [
        8, 0x80, 9, 0x80, 10, 0x80, 11, 0x80, 8, 0x80, 9, 0x80, 10, 0x80, 11, 0x80,
    ],
    [
        12, 0x80, 13, 0x80, 14, 0x80, 15, 0x80, 12, 0x80, 13, 0x80, 14, 0x80, 15, 0x80,
    ],
];
/// A spread word -> dword j of a packed register (zero elsewhere).
const PACK: [[u8; 16]; 4] = [
    [
        0, 2, 4, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
    [
        0x80, 0x80, 0x80, 0x80, 0, 2, 4, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
    [
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 2, 4, 6, 0x80, 0x80, 0x80, 0x80,
    ],
    [
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 2, 4, 6,
    ],
];

/// Constants of the serial rounds, kept in registers.
struct Basis {
    m0f: __m128i,
    n: [__m128i; 6],
    rol: [__m128i; 3],
    kappa: __m128i,
}

#[inline(always)]
unsafe fn basis() -> Basis {
    // SAFETY: loads of constant tables; SSSE3 enabled by the callers.
    unsafe {
        Basis {
            m0f: _mm_set1_epi8(0x0f),
            n: [N0_LO, N0_HI, N1_LO, N1_HI, N3_LO, N3_HI].map(|t| c128(&t)),
            rol: [SP_ROL8, SP_ROL16, SP_ROL24].map(|t| c128(&t)),
            kappa: c128(&KAPPA),
        }
    }
}

/// N of a spread word (the result is spread).
#[inline(always)]
unsafe fn n_spread(k: &Basis, z: __m128i) -> __m128i {
    // SAFETY: SSSE3 enabled by the callers.
    unsafe {
        // In the spread layout each 16-bit lane is one byte, so the high nibbles are one
        // shift away; the zero bytes index entry 0 of every table, which is 0.
        let look = |lo: __m128i, hi: __m128i, x: __m128i| {
            _mm_xor_si128(
                _mm_shuffle_epi8(lo, _mm_and_si128(x, k.m0f)),
                _mm_shuffle_epi8(hi, _mm_srli_epi16(x, 4)),
            )
        };
        let w = _mm_xor_si128(_mm_shuffle_epi8(z, k.rol[0]), _mm_shuffle_epi8(z, k.rol[1]));
        let r24 = _mm_shuffle_epi8(z, k.rol[2]);
        _mm_xor_si128(
            _mm_xor_si128(look(k.n[0], k.n[1], z), look(k.n[4], k.n[5], r24)),
            look(k.n[2], k.n[3], w),
        )
    }
}

/// A linear map that commutes with byte rotations, on four packed words: the XOR over d
/// of `maps[2d..2d+2]` (bytewise, by nibble) applied to x <<< 8d.
#[inline(always)]
unsafe fn linear_packed(maps: &[[u8; 16]; 8], x: __m128i) -> __m128i {
    // SAFETY: SSSE3 enabled by the callers.
    unsafe {
        let m0f = _mm_set1_epi8(0x0f);
        let rotated = [
            x,
            _mm_shuffle_epi8(x, c128(&ROL8)),
            _mm_shuffle_epi8(x, c128(&ROL16)),
            _mm_shuffle_epi8(x, c128(&ROL24)),
        ];
        let mut acc = _mm_setzero_si128();
        for (d, r) in rotated.into_iter().enumerate() {
            acc = _mm_xor_si128(
                acc,
                _mm_shuffle_epi8(c128(&maps[2 * d]), _mm_and_si128(r, m0f)),
            );
            acc = _mm_xor_si128(
                acc,
                _mm_shuffle_epi8(
                    c128(&maps[2 * d + 1]),
                    _mm_and_si128(_mm_srli_epi16(r, 4), m0f),
                ),
            );
        }
        acc
    }
}

/// Sixteen bytes (four big-endian words) -> G^-1 of each word, spread.
#[inline(always)]
unsafe fn to_basis(v: __m128i) -> [__m128i; 4] {
    // SAFETY: SSSE3 enabled by the callers.
    unsafe {
        let g = linear_packed(&GINV_MAPS, _mm_shuffle_epi8(v, c128(&BSWAP32)));
        [0, 1, 2, 3].map(|j| _mm_shuffle_epi8(g, c128(&SPREAD[j])))
    }
}

/// The block (X35, X34, X33, X32) as sixteen bytes from V32..V35 (spread, in `v[0..4]`).
#[inline(always)]
unsafe fn from_basis(v: &[__m128i; 4]) -> __m128i {
    // SAFETY: SSSE3 enabled by the callers.
    unsafe {
        let packed = _mm_or_si128(
            _mm_or_si128(
                _mm_shuffle_epi8(v[3], c128(&PACK[0])),
                _mm_shuffle_epi8(v[2], c128(&PACK[1])),
            ),
            _mm_or_si128(
                _mm_shuffle_epi8(v[1], c128(&PACK[2])),
                _mm_shuffle_epi8(v[0], c128(&PACK[3])),
            ),
        );
        _mm_shuffle_epi8(linear_packed(&G_MAPS, packed), c128(&BSWAP32))
    }
}

/// Round `r` in the V basis: `vi` holds V_r and becomes V_{r+4}; `vi2`, `vi3` are
/// V_{r+2}, V_{r+3}; `y` is the round's S-box input and becomes the next one's.
#[inline(always)]
unsafe fn step_basis(
    k: &Basis,
    rho: &[__m128i; ROUNDS],
    y: &mut __m128i,
    vi: &mut __m128i,
    vi2: __m128i,
    vi3: __m128i,
    r: usize,
) {
    // SAFETY: AES-NI + SSSE3 enabled by the callers.
    unsafe {
        if r + 1 < ROUNDS {
            let u = _mm_xor_si128(_mm_xor_si128(vi2, vi3), rho[r + 1]);
            let z = _mm_aesenclast_si128(*y, _mm_xor_si128(_mm_xor_si128(u, *vi), k.kappa));
            *vi = _mm_xor_si128(z, u);
            *y = n_spread(k, z);
        } else {
            *vi = _mm_aesenclast_si128(*y, _mm_xor_si128(*vi, k.kappa));
        }
    }
}

/// The 32 rounds from V0..V3 (spread) to V32..V35.
#[inline(always)]
unsafe fn rounds_basis(k: &Basis, rho: &[__m128i; ROUNDS], v: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: AES-NI + SSSE3 enabled by the callers.
    unsafe {
        let [mut v0, mut v1, mut v2, mut v3] = v;
        let mut y = n_spread(
            k,
            _mm_xor_si128(_mm_xor_si128(v1, v2), _mm_xor_si128(v3, rho[0])),
        );
        for r in (0..ROUNDS).step_by(4) {
            step_basis(k, rho, &mut y, &mut v0, v2, v3, r);
            step_basis(k, rho, &mut y, &mut v1, v3, v0, r + 1);
            step_basis(k, rho, &mut y, &mut v2, v0, v1, r + 2);
            step_basis(k, rho, &mut y, &mut v3, v1, v2, r + 3);
        }
        [v0, v1, v2, v3]
    }
}

#[target_feature(enable = "avx2,aes,ssse3")]
unsafe fn serial_aesni(
    rk: &[u32; ROUNDS],
    mode: super::Serial,
    reg: &mut [u8; 16],
    data: &mut [u8],
) {
    if data.len() < 16 {
        return;
    }
    // SAFETY: features enabled here; every 16-byte access lies inside `reg`, `data`, `rk`
    // or `rho`.
    unsafe {
        let k = basis();
        // rho_i = G^-1(rk_i) ^ RHO_C, spread.
        let mut rho = [_mm_setzero_si128(); ROUNDS];
        for (m, four) in rk.chunks_exact(4).enumerate() {
            let g = _mm_xor_si128(
                linear_packed(&GINV_MAPS, _mm_loadu_si128(four.as_ptr().cast())),
                _mm_set1_epi32(RHO_C as i32),
            );
            for j in 0..4 {
                rho[4 * m + j] = _mm_shuffle_epi8(g, c128(&SPREAD[j]));
            }
        }
        // `prev[j]` = G^-1 of word j of the chaining value (the IV, then E's last output).
        let mut prev = to_basis(_mm_loadu_si128(reg.as_ptr().cast()));
        // CFB: G^-1 of the previous plaintext block (E's input is P_{i-1} ^ E_{i-1}).
        let mut last_p = [_mm_setzero_si128(); 4];
        let mut out = _mm_setzero_si128();
        for b in data.chunks_exact_mut(16) {
            let q = b.as_mut_ptr().cast::<__m128i>();
            let p = _mm_loadu_si128(q);
            let add = match mode {
                super::Serial::CbcEncrypt | super::Serial::CbcMac => to_basis(p),
                super::Serial::CfbEncrypt => core::mem::replace(&mut last_p, to_basis(p)),
                super::Serial::Ofb => [_mm_setzero_si128(); 4],
            };
            let v = rounds_basis(
                &k,
                &rho,
                [0, 1, 2, 3].map(|j| _mm_xor_si128(add[j], prev[j])),
            );
            // The block E produced, in the V basis: word j is V_{35-j}.
            prev = [v[3], v[2], v[1], v[0]];
            if mode == super::Serial::CbcMac {
                continue;
            }
            out = from_basis(&v);
            match mode {
                super::Serial::CbcEncrypt => _mm_storeu_si128(q, out),
                _ => {
                    _mm_storeu_si128(q, _mm_xor_si128(p, out));
                    if mode == super::Serial::CfbEncrypt {
                        out = _mm_xor_si128(p, out);
                    }
                }
            }
        }
        if mode == super::Serial::CbcMac {
            out = from_basis(&[prev[3], prev[2], prev[1], prev[0]]);
        }
        _mm_storeu_si128(reg.as_mut_ptr().cast(), out);
        // The rho are key material: wipe them (volatile, so the stores stay).
        for r in rho.iter_mut() {
            core::ptr::write_volatile(r, _mm_setzero_si128());
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// A serial mode over whole blocks of `data`, chaining through `reg`.
pub(crate) fn serial(
    _: Avx2,
    rk: &[u32; ROUNDS],
    mode: super::Serial,
    reg: &mut [u8; 16],
    data: &mut [u8],
) {
    // SAFETY: the token proves AVX2 + AES-NI + SSSE3.
    unsafe { serial_aesni(rk, mode, reg, data) }
}

/// One block.
pub(crate) fn crypt_block(_: Avx2, rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: the token proves AVX2 + AES-NI + SSSE3.
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
pub(crate) fn tau(_: Avx2, w: u32) -> u32 {
    // SAFETY: the token proves AVX2 + AES-NI + SSSE3.
    unsafe { tau_aesni(w) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{Backend, Feature, Variant};

    /// The fused CTR kernels (with and without VAES) against counter blocks encrypted by
    /// the portable rounds, across 32-bit carries.
    #[test]
    fn fused_ctr_agrees_with_portable() {
        if !Backend::Avx2.is_supported() {
            return;
        }
        let c = super::super::Sm4::with_backend(&[0x3c; 16], Backend::Portable);
        let rk = &c.rk.enc;
        for start in [
            0u128,
            0xffff_ffe0,
            0xffff_ffc1,
            (7u128 << 64) | 0xffff_fe00,
            u128::MAX - 40,
        ] {
            let n = 512 * 5 + 48;
            let src: Vec<u8> = (0..n).map(|i| (i * 13) as u8).collect();
            let mut want = vec![0u8; n];
            for (i, b) in want.chunks_exact_mut(16).enumerate() {
                b.copy_from_slice(&start.wrapping_add(i as u128).to_be_bytes());
            }
            super::super::soft::crypt_blocks(rk, &mut want);
            for (w, s) in want.iter_mut().zip(&src) {
                *w ^= s;
            }
            let mut variants: Vec<bool> = vec![false];
            if Feature::Vaes.is_detected() {
                variants.push(true);
            }
            for vaes in variants {
                let mut ctr = start;
                let mut dst = vec![0u8; n];
                // SAFETY: AVX2 + AES checked above, VAES when `vaes`; equal lengths.
                let done = unsafe {
                    if vaes {
                        ctr_vaes(rk, &mut ctr, src.as_ptr(), dst.as_mut_ptr(), n)
                    } else {
                        ctr_aesni(rk, &mut ctr, src.as_ptr(), dst.as_mut_ptr(), n)
                    }
                };
                assert_eq!(ctr, start.wrapping_add((done / 16) as u128));
                assert_eq!(&dst[..done], &want[..done], "vaes={vaes} start={start:x}");
            }
        }
    }

    /// The serial modes (rounds in the V basis, chaining in it) against the portable
    /// backend, and against GB/T 32907 A.1 and A.2.
    #[test]
    fn serial_agrees_with_portable_and_the_standard() {
        if !Backend::Avx2.is_supported() {
            return;
        }
        let t = Variant::from(Backend::Avx2).avx2().unwrap();
        let serial = |rk: &[u32; ROUNDS], m, r: &mut [u8; 16], d: &mut [u8]| serial(t, rk, m, r, d);
        super::super::tests::check_serial_kernels(&[("avx2", &serial)]);
        super::super::tests::check_serial_known_answer(&serial);
    }

    /// Both S-box variants (with and without VAES) against the portable rounds.
    #[test]
    fn vaes_and_aesni_paths_agree_with_portable() {
        if !Backend::Avx2.is_supported() {
            return;
        }
        let c = super::super::Sm4::with_backend(&[0x5c; 16], Backend::Portable);
        let rk = &c.rk.enc;
        for n in [1usize, 2, 7, 8, 9, 16, 17, 32, 33, 64, 65, 100] {
            let data: Vec<u8> = (0..16 * n).map(|i| (i * 7 + n) as u8).collect();
            let mut want = data.clone();
            super::super::soft::crypt_blocks(rk, &mut want);
            let mut a = data.clone();
            // SAFETY: AVX2 + AES checked above (Backend::Avx2 is supported).
            unsafe { crypt_blocks_avx2(rk, &mut a) };
            assert_eq!(a, want, "aes-ni n={n}");
            if Feature::Vaes.is_detected() {
                let mut b = data.clone();
                // SAFETY: VAES detected just above.
                unsafe { crypt_blocks_vaes(rk, &mut b) };
                assert_eq!(b, want, "vaes n={n}");
            }
            let mut one: [u8; 16] = data[..16].try_into().unwrap();
            crypt_block(Variant::from(Backend::Avx2).avx2().unwrap(), rk, &mut one);
            assert_eq!(&one[..], &want[..16]);
        }
    }
}
