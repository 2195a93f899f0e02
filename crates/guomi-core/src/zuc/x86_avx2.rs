//! ZUC on x86-64 with AVX2 / AES-NI / PCLMULQDQ (no table lookups with secret indexes):
//!
//! * S0 from its design (three 4-bit functions in a Feistel network, see `soft.rs`), each
//!   4-bit function one `pshufb` on 16 bytes at once;
//! * S1 = M·x^-1 ⊕ 0x55 in GF(2^8)/(x^8+x^7+x^3+x+1) computed with the AES S-box of
//!   `aesenclast`: the field is mapped onto the AES field by an isomorphism T and back
//!   by an affine map, S1(x) = N·SubBytes(T·x) ⊕ c, T and N applied as two nibble
//!   `pshufb` lookups each (matrices derived from the S1 table; the tests compare every
//!   input with the standard's table);
//! * single stream: R1 and R2 live in two lanes of an xmm register, so the whole F
//!   (additions, L1/L2, both S-boxes) is vector code while the LFSR runs in scalar
//!   registers next to it;
//! * 128-EIA3 folding by carry-less multiplication (PCLMULQDQ);
//! * many streams: one stream per 32-bit lane of a ymm register (8 lanes), see `many.rs`.
#![allow(unsafe_code)]

use super::core::{Fsm, State};
use super::many::Lanes;
use super::Kernel;
use core::arch::x86_64::*;

pub(crate) const KERNEL: Kernel = Kernel {
    init,
    generate,
    mac_words,
    xor_words,
};

/// S0's 4-bit functions P1 and P2, and TA[u] = ((u << 4) <<< 1) ⊕ (P3[u] << 1), so that
/// S0(x) = TA[u] ⊕ (t << 1) with t = x_H ⊕ P1[x_L], u = x_L ⊕ P2[t].
pub(crate) const S0_P1: [u8; 16] = [9, 15, 0, 14, 15, 15, 2, 10, 0, 4, 0, 12, 7, 5, 3, 9];
pub(crate) const S0_P2: [u8; 16] = [8, 13, 6, 5, 7, 0, 12, 4, 11, 1, 14, 10, 15, 3, 9, 2];
pub(crate) const S0_TA: [u8; 16] = [
    0x04, 0x2c, 0x54, 0x6c, 0x80, 0xba, 0xd4, 0xfe, 0x07, 0x27, 0x5b, 0x6b, 0x81, 0xb3, 0xd9, 0xfb,
];

/// T (ZUC S1 field -> AES field), by low and high nibble.
const S1_PRE_LO: [u8; 16] = [
    0x00, 0x01, 0x32, 0x33, 0x73, 0x72, 0x41, 0x40, 0x75, 0x74, 0x47, 0x46, 0x06, 0x07, 0x34, 0x35,
];
const S1_PRE_HI: [u8; 16] = [
    0x00, 0xd9, 0xe8, 0x31, 0xcd, 0x14, 0x25, 0xfc, 0x2d, 0xf4, 0xc5, 0x1c, 0xe0, 0x39, 0x08, 0xd1,
];
/// The affine map after the AES S-box (constant folded into the low-nibble table).
const S1_POST_LO: [u8; 16] = [
    0xfe, 0xb1, 0x6e, 0x21, 0xb5, 0xfa, 0x25, 0x6a, 0xc9, 0x86, 0x59, 0x16, 0x82, 0xcd, 0x12, 0x5d,
];
const S1_POST_HI: [u8; 16] = [
    0x00, 0x34, 0x42, 0x76, 0x36, 0x02, 0x74, 0x40, 0x66, 0x52, 0x24, 0x10, 0x50, 0x64, 0x12, 0x26,
];
/// InvShiftRows, applied before `aesenclast` so that its ShiftRows puts bytes back.
const INV_SHIFT_ROWS: [u8; 16] = [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];

/// R1 (lane 0) ∥ R2 (lane 1): W1L ∥ W2H in lane 0, W2L ∥ W1H in lane 1.
pub(crate) const MIX: [u8; 16] = [
    6, 7, 0, 1, 2, 3, 4, 5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
];

#[inline(always)]
unsafe fn bytes16(b: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// S0 on every byte of an xmm register.
#[inline(always)]
pub(crate) unsafe fn s0_xmm(x: __m128i) -> __m128i {
    // SAFETY: SSSE3 (part of this backend's requirements).
    unsafe {
        let m = _mm_set1_epi8(0x0f);
        let lo = _mm_and_si128(x, m);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), m);
        let t = _mm_xor_si128(hi, _mm_shuffle_epi8(bytes16(&S0_P1), lo));
        let u = _mm_xor_si128(lo, _mm_shuffle_epi8(bytes16(&S0_P2), t));
        _mm_xor_si128(_mm_shuffle_epi8(bytes16(&S0_TA), u), _mm_add_epi8(t, t))
    }
}

/// S1 on every byte of an xmm register through `aesenclast`.
#[inline(always)]
unsafe fn s1_xmm(x: __m128i) -> __m128i {
    // SAFETY: SSSE3 and AES-NI (checked by `cpu::detect` for this backend).
    unsafe {
        let m = _mm_set1_epi8(0x0f);
        let y = _mm_shuffle_epi8(x, bytes16(&INV_SHIFT_ROWS));
        let pre = _mm_xor_si128(
            _mm_shuffle_epi8(bytes16(&S1_PRE_LO), _mm_and_si128(y, m)),
            _mm_shuffle_epi8(
                bytes16(&S1_PRE_HI),
                _mm_and_si128(_mm_srli_epi16::<4>(y), m),
            ),
        );
        let a = _mm_aesenclast_si128(pre, _mm_setzero_si128());
        _mm_xor_si128(
            _mm_shuffle_epi8(bytes16(&S1_POST_LO), _mm_and_si128(a, m)),
            _mm_shuffle_epi8(
                bytes16(&S1_POST_HI),
                _mm_and_si128(_mm_srli_epi16::<4>(a), m),
            ),
        )
    }
}

/// S = (S0, S1, S0, S1) on each 32-bit lane (S0 on the odd bytes in memory order).
#[inline(always)]
unsafe fn sbox_xmm(x: __m128i) -> __m128i {
    // SAFETY: SSE4.1 blend; see s0_xmm / s1_xmm.
    unsafe {
        let sel = _mm_set1_epi32(0xff00_ff00u32 as i32);
        _mm_blendv_epi8(s1_xmm(x), s0_xmm(x), sel)
    }
}

/// R1, R2 in lanes 0 and 1 of an xmm register.
#[derive(Clone, Copy)]
pub(crate) struct Xmm(__m128i);

// SAFETY (every method): `Xmm` values exist only inside `init_avx2` / `generate_avx2`,
// which require AVX2 + AES-NI (and what they imply).
impl Fsm for Xmm {
    #[inline(always)]
    fn from_regs(r1: u32, r2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Xmm(_mm_set_epi32(0, 0, r2 as i32, r1 as i32)) }
    }
    #[inline(always)]
    fn regs(self) -> (u32, u32) {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            (
                _mm_cvtsi128_si32(self.0) as u32,
                _mm_extract_epi32::<1>(self.0) as u32,
            )
        }
    }
    #[inline(always)]
    fn w(self, x0: u32) -> u32 {
        let (r1, r2) = self.regs();
        (x0 ^ r1).wrapping_add(r2)
    }
    #[inline(always)]
    fn round_barrier() {
        // See `x86_avx512`: keeps each round's scalar and vector work together.
        if core::hint::black_box(false) {
            cold_path();
        }
    }
    #[inline(always)]
    fn next(self, x1: u32, x2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            let x = _mm_set_epi32(0, 0, x2 as i32, x1 as i32);
            let w = _mm_blend_epi32::<0b0010>(_mm_add_epi32(self.0, x), _mm_xor_si128(self.0, x));
            let m = _mm_shuffle_epi8(w, bytes16(&MIX));
            // L1 on lane 0 (rotations 2, 10, 18, 24), L2 on lane 1 (8, 14, 22, 30).
            let rol = |c: __m128i| {
                _mm_or_si128(
                    _mm_sllv_epi32(m, c),
                    _mm_srlv_epi32(m, _mm_sub_epi32(_mm_set1_epi32(32), c)),
                )
            };
            let a = rol(_mm_set_epi32(0, 0, 8, 2));
            let b = rol(_mm_set_epi32(0, 0, 14, 10));
            let c = rol(_mm_set_epi32(0, 0, 22, 18));
            let d = rol(_mm_set_epi32(0, 0, 30, 24));
            let l = _mm_xor_si128(_mm_xor_si128(m, a), _mm_xor_si128(_mm_xor_si128(b, c), d));
            Xmm(sbox_xmm(l))
        }
    }
}

#[cold]
#[inline(never)]
fn cold_path() {}

fn init(st: &mut State) {
    // SAFETY: this kernel is selected only when `cpu::detected() >= Avx2`.
    unsafe { init_avx2(st) }
}

fn generate(st: &mut State, out: &mut [u32]) {
    // SAFETY: as above.
    unsafe { generate_avx2(st, out) }
}

#[target_feature(enable = "avx2,aes,sse4.1,ssse3,bmi2")]
unsafe fn init_avx2(st: &mut State) {
    super::core::init::<Xmm>(st);
}

#[target_feature(enable = "avx2,aes,sse4.1,ssse3,bmi2")]
unsafe fn generate_avx2(st: &mut State, out: &mut [u32]) {
    super::core::generate::<Xmm>(st, out);
}

/// `out = input ⊕ z` (or `out ^= z`), z as big-endian words, 32 bytes at a time.
pub(crate) fn xor_words(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
    // SAFETY: selected only when the CPU has AVX2 (cpu::detect).
    unsafe { xor_words_avx2(input, out, z) }
}

#[target_feature(enable = "avx2")]
unsafe fn xor_words_avx2(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
    let n = z.len();
    assert!(out.len() == 4 * n && input.is_none_or(|i| i.len() == 4 * n));
    let mut k = 0;
    // SAFETY: AVX2 enabled; every load/store covers bytes 4k..4k + 32 <= 4n of the
    // checked slices, or words k..k + 8 <= n of `z`.
    unsafe {
        let bswap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
            9, 8, 15, 14, 13, 12,
        );
        while k + 8 <= n {
            let ks = _mm256_shuffle_epi8(_mm256_loadu_si256(z.as_ptr().add(k).cast()), bswap);
            let src = match input {
                Some(i) => _mm256_loadu_si256(i.as_ptr().add(4 * k).cast()),
                None => _mm256_loadu_si256(out.as_ptr().add(4 * k).cast()),
            };
            _mm256_storeu_si256(
                out.as_mut_ptr().add(4 * k).cast(),
                _mm256_xor_si256(src, ks),
            );
            k += 8;
        }
    }
    super::xor_words_portable(input.map(|i| &i[4 * k..]), &mut out[4 * k..], &z[k..]);
}

/// Reverses the bits of every byte (two nibble lookups).
#[inline(always)]
unsafe fn bitrev_bytes(x: __m128i) -> __m128i {
    const REV_LO: [u8; 16] = [
        0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0, 0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70,
        0xf0,
    ];
    const REV_HI: [u8; 16] = [
        0x00, 0x08, 0x04, 0x0c, 0x02, 0x0a, 0x06, 0x0e, 0x01, 0x09, 0x05, 0x0d, 0x03, 0x0b, 0x07,
        0x0f,
    ];
    // SAFETY: SSSE3.
    unsafe {
        let m = _mm_set1_epi8(0x0f);
        _mm_or_si128(
            _mm_shuffle_epi8(bytes16(&REV_LO), _mm_and_si128(x, m)),
            _mm_shuffle_epi8(bytes16(&REV_HI), _mm_and_si128(_mm_srli_epi16::<4>(x), m)),
        )
    }
}

/// 128-EIA3 folding with PCLMULQDQ. For a message word m (bits b = 0..31, first bit
/// most significant) and K = z_j ∥ z_{j+1}, the contribution ⊕_b m_b·(K << b)[63:32]
/// is bits 32..63 of clmul(rev(m), K), where rev(m) has message bit b at position b
/// (per-byte bit reversal of the little-endian word).
#[inline(always)]
pub(crate) unsafe fn mac_words_clmul(
    msg: &[u8],
    z: &[u32],
    bitrev: unsafe fn(__m128i) -> __m128i,
) -> u32 {
    debug_assert_eq!(msg.len() % 4, 0);
    debug_assert!(z.len() > msg.len() / 4);
    // SAFETY: SSE2/SSSE3/SSE4.1/PCLMULQDQ (this backend's requirements); every load
    // reads within `msg` / `z` (bounds checked by the slicing below).
    // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
    unsafe {
        let mut acc = _mm_setzero_si128();
        let n = msg.len() / 4;
        let mut j = 0;
        // K_j = z_j ∥ z_{j+1} as 64-bit lanes: dwords (z_{j+1}, z_j) — one pshufd of
        // the loaded words (z_j, z_{j+1}, z_{j+2}, z_{j+3}) gives K_j and K_{j+1}.
        while j + 5 <= n {
            let m = bitrev(_mm_loadu_si128(msg[4 * j..4 * j + 16].as_ptr().cast()));
            let z0 = _mm_loadu_si128(z[j..j + 4].as_ptr().cast());
            let z2 = _mm_loadu_si128(z[j + 2..j + 6].as_ptr().cast());
            let k01 = _mm_shuffle_epi32::<0b01_10_00_01>(z0);
            let k23 = _mm_shuffle_epi32::<0b01_10_00_01>(z2);
            // Message words 0..3 zero-extended to 64-bit lanes.
            let m01 = _mm_cvtepu32_epi64(m);
            let m23 = _mm_cvtepu32_epi64(_mm_srli_si128::<8>(m));
            acc = _mm_xor_si128(acc, _mm_clmulepi64_si128::<0x00>(m01, k01));
            acc = _mm_xor_si128(acc, _mm_clmulepi64_si128::<0x11>(m01, k01));
            acc = _mm_xor_si128(acc, _mm_clmulepi64_si128::<0x00>(m23, k23));
            acc = _mm_xor_si128(acc, _mm_clmulepi64_si128::<0x11>(m23, k23));
            j += 4;
        }
        while j < n {
            let mut w = [0u8; 16];
            w[..4].copy_from_slice(&msg[4 * j..4 * j + 4]);
            let m = _mm_cvtepu32_epi64(bitrev(_mm_loadu_si128(w.as_ptr().cast())));
            let k = _mm_set_epi64x(0, ((u64::from(z[j]) << 32) | u64::from(z[j + 1])) as i64);
            acc = _mm_xor_si128(acc, _mm_clmulepi64_si128::<0x00>(m, k));
            j += 1;
        }
        (_mm_cvtsi128_si64(acc) as u64 >> 32) as u32
    }
}

fn mac_words(msg: &[u8], z: &[u32]) -> u32 {
    // SAFETY: selected only when the CPU has AVX2 + PCLMULQDQ (cpu::detect).
    unsafe { mac_words_avx2(msg, z) }
}

#[target_feature(enable = "avx2,pclmulqdq,sse4.1,ssse3")]
unsafe fn mac_words_avx2(msg: &[u8], z: &[u32]) -> u32 {
    // SAFETY: features enabled on this function.
    unsafe { mac_words_clmul(msg, z, bitrev_bytes) }
}

/// Eight 32-bit lanes (eight independent streams) in a ymm register.
#[derive(Clone, Copy)]
pub(crate) struct Ymm(__m256i);

#[inline(always)]
unsafe fn bytes32(b: &[u8; 16]) -> __m256i {
    // SAFETY: AVX2; 16 readable bytes, broadcast to both halves.
    unsafe { _mm256_broadcastsi128_si256(bytes16(b)) }
}

// SAFETY (every method): `Ymm` values exist only inside functions compiled with AVX2
// and AES-NI (`many_avx2`), chosen only when the CPU has them.
impl Lanes for Ymm {
    const N: usize = 8;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    fn load(w: &[u32]) -> Self {
        assert!(w.len() >= 8);
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_loadu_si256(w.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, w: &mut [u32]) {
        assert!(w.len() >= 8);
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_xor_si256(self.0, o.0)) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_and_si256(self.0, o.0)) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_or_si256(self.0, o.0)) }
    }
    #[inline(always)]
    fn shl<const K: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_slli_epi32::<K>(self.0)) }
    }
    #[inline(always)]
    fn shr<const K: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_srli_epi32::<K>(self.0)) }
    }
    #[inline(always)]
    fn rol<const K: i32, const K2: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            Ymm(_mm256_or_si256(
                _mm256_slli_epi32::<K>(self.0),
                _mm256_srli_epi32::<K2>(self.0),
            ))
        }
    }
    #[inline(always)]
    fn sbox(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            let x = self.0;
            let m = _mm256_set1_epi8(0x0f);
            let lo = _mm256_and_si256(x, m);
            let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(x), m);
            // S0
            let t = _mm256_xor_si256(hi, _mm256_shuffle_epi8(bytes32(&S0_P1), lo));
            let u = _mm256_xor_si256(lo, _mm256_shuffle_epi8(bytes32(&S0_P2), t));
            let s0 = _mm256_xor_si256(
                _mm256_shuffle_epi8(bytes32(&S0_TA), u),
                _mm256_add_epi8(t, t),
            );
            // S1: T, then AES SubBytes on each 128-bit half, then N.
            let ys = _mm256_shuffle_epi8(x, bytes32(&INV_SHIFT_ROWS));
            let ylo = _mm256_and_si256(ys, m);
            let yhi = _mm256_and_si256(_mm256_srli_epi16::<4>(ys), m);
            let pre = _mm256_xor_si256(
                _mm256_shuffle_epi8(bytes32(&S1_PRE_LO), ylo),
                _mm256_shuffle_epi8(bytes32(&S1_PRE_HI), yhi),
            );
            let z = _mm_setzero_si128();
            let a0 = _mm_aesenclast_si128(_mm256_castsi256_si128(pre), z);
            let a1 = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(pre), z);
            let a = _mm256_set_m128i(a1, a0);
            let s1 = _mm256_xor_si256(
                _mm256_shuffle_epi8(bytes32(&S1_POST_LO), _mm256_and_si256(a, m)),
                _mm256_shuffle_epi8(
                    bytes32(&S1_POST_HI),
                    _mm256_and_si256(_mm256_srli_epi16::<4>(a), m),
                ),
            );
            Ymm(_mm256_blendv_epi8(
                s1,
                s0,
                _mm256_set1_epi32(0xff00_ff00u32 as i32),
            ))
        }
    }
}

/// Keystreams of up to 8 streams at once (see `many::keystream_lanes`).
pub(crate) fn keystream_x8(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    // SAFETY: called only when the active backend is AVX2 or better (cpu::detect checked
    // AVX2 and AES-NI).
    // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
    unsafe { keystream_x8_avx2(states, words, out) }
}

#[target_feature(enable = "avx2,aes,sse4.1,ssse3")]
unsafe fn keystream_x8_avx2(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Ymm>(states, words, out);
}
