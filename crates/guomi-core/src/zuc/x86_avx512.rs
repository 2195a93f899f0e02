//! ZUC on x86-64 with AVX-512 (F/BW/VL) + GFNI (no table lookups with secret indexes):
//!
//! * S1 = M·x^-1 ⊕ 0x55 over GF(2)[x]/(x^8+x^7+x^3+x+1): `gf2p8affineqb` maps the byte
//!   into the AES field by an isomorphism T, `gf2p8affineinvqb` inverts there and applies
//!   M·T^-1 and the constant. Matrices derived from the printed S1 table (the tests
//!   check every input against it):
//!   T = 0xdd06c8f01eae7c70, M·T^-1 = 0xb903e5360f14f0e3, constant 0x55;
//! * S0 from its 4-bit design with `vpshufb` (as in `x86_avx2`);
//! * single stream: R1 ∥ R2 in an xmm register, L1/L2 with `vprolvd` and `vpternlogd`;
//! * many streams: 16 streams, one per 32-bit lane of a zmm register;
//! * 128-EIA3 folding with PCLMULQDQ, the message bits reversed per byte with GFNI.
#![allow(unsafe_code)]

use super::core::{Fsm, State};
use super::many::Lanes;
use super::x86_avx2::{mac_words_clmul, s0_xmm, S0_P1, S0_P2, S0_TA};
use super::Kernel;
use crate::cpu::{Avx512, Vbmi};
use core::arch::x86_64::*;

/// The `avx512` single-stream functions without VBMI; handed out only by [`kernel`], for
/// its token.
const KERNEL: Kernel = Kernel {
    init,
    generate,
    mac_words,
    xor_words,
};

/// The `avx512` single-stream functions with VBMI/VBMI2; handed out only by
/// [`kernel_vbmi`], for its tokens.
const KERNEL_VBMI: Kernel = Kernel {
    init: init_vbmi_checked,
    generate: generate_vbmi_checked,
    mac_words,
    xor_words,
};

/// The `avx512` kernel without VBMI (variant `avx512-novbmi`, a CPU without VBMI, or an
/// Intel core: see `cpu::intel_core`), for the proof that this CPU runs it.
pub(crate) fn kernel(_: Avx512) -> Kernel {
    KERNEL
}

/// The `avx512` kernel with VBMI/VBMI2 (not chosen on Intel cores), for the proofs that
/// this CPU runs it.
pub(crate) fn kernel_vbmi(_: Avx512, _: Vbmi) -> Kernel {
    KERNEL_VBMI
}

/// GFNI matrices (row for output bit i in byte 7 - i).
const GF_T: i64 = 0xdd06_c8f0_1eae_7c70u64 as i64;
const GF_N: i64 = 0xb903_e536_0f14_f0e3u64 as i64;
/// Bit reversal within each byte.
const GF_REV: i64 = 0x8040_2010_0804_0201u64 as i64;

#[inline(always)]
unsafe fn s1_xmm(x: __m128i) -> __m128i {
    // SAFETY: GFNI (checked by cpu::detect for this backend).
    unsafe {
        _mm_gf2p8affineinv_epi64_epi8::<0x55>(
            _mm_gf2p8affine_epi64_epi8::<0>(x, _mm_set1_epi64x(GF_T)),
            _mm_set1_epi64x(GF_N),
        )
    }
}

/// S0 as printed in GM/T 0001.1 §3.4, for register-resident `vpermi2b` lookups
/// (a permutation of register contents: no memory access depends on the data).
const S0_TABLE: [u8; 256] = [
    0x3e, 0x72, 0x5b, 0x47, 0xca, 0xe0, 0x00, 0x33, 0x04, 0xd1, 0x54, 0x98, 0x09, 0xb9, 0x6d, 0xcb,
    0x7b, 0x1b, 0xf9, 0x32, 0xaf, 0x9d, 0x6a, 0xa5, 0xb8, 0x2d, 0xfc, 0x1d, 0x08, 0x53, 0x03, 0x90,
    0x4d, 0x4e, 0x84, 0x99, 0xe4, 0xce, 0xd9, 0x91, 0xdd, 0xb6, 0x85, 0x48, 0x8b, 0x29, 0x6e, 0xac,
    0xcd, 0xc1, 0xf8, 0x1e, 0x73, 0x43, 0x69, 0xc6, 0xb5, 0xbd, 0xfd, 0x39, 0x63, 0x20, 0xd4, 0x38,
    0x76, 0x7d, 0xb2, 0xa7, 0xcf, 0xed, 0x57, 0xc5, 0xf3, 0x2c, 0xbb, 0x14, 0x21, 0x06, 0x55, 0x9b,
    0xe3, 0xef, 0x5e, 0x31, 0x4f, 0x7f, 0x5a, 0xa4, 0x0d, 0x82, 0x51, 0x49, 0x5f, 0xba, 0x58, 0x1c,
    0x4a, 0x16, 0xd5, 0x17, 0xa8, 0x92, 0x24, 0x1f, 0x8c, 0xff, 0xd8, 0xae, 0x2e, 0x01, 0xd3, 0xad,
    0x3b, 0x4b, 0xda, 0x46, 0xeb, 0xc9, 0xde, 0x9a, 0x8f, 0x87, 0xd7, 0x3a, 0x80, 0x6f, 0x2f, 0xc8,
    0xb1, 0xb4, 0x37, 0xf7, 0x0a, 0x22, 0x13, 0x28, 0x7c, 0xcc, 0x3c, 0x89, 0xc7, 0xc3, 0x96, 0x56,
    0x07, 0xbf, 0x7e, 0xf0, 0x0b, 0x2b, 0x97, 0x52, 0x35, 0x41, 0x79, 0x61, 0xa6, 0x4c, 0x10, 0xfe,
    0xbc, 0x26, 0x95, 0x88, 0x8a, 0xb0, 0xa3, 0xfb, 0xc0, 0x18, 0x94, 0xf2, 0xe1, 0xe5, 0xe9, 0x5d,
    0xd0, 0xdc, 0x11, 0x66, 0x64, 0x5c, 0xec, 0x59, 0x42, 0x75, 0x12, 0xf5, 0x74, 0x9c, 0xaa, 0x23,
    0x0e, 0x86, 0xab, 0xbe, 0x2a, 0x02, 0xe7, 0x67, 0xe6, 0x44, 0xa2, 0x6c, 0xc2, 0x93, 0x9f, 0xf1,
    0xf6, 0xfa, 0x36, 0xd2, 0x50, 0x68, 0x9e, 0x62, 0x71, 0x15, 0x3d, 0xd6, 0x40, 0xc4, 0xe2, 0x0f,
    0x8e, 0x83, 0x77, 0x6b, 0x25, 0x05, 0x3f, 0x0c, 0x30, 0xea, 0x70, 0xb7, 0xa1, 0xe8, 0xa9, 0x65,
    0x8d, 0x27, 0x1a, 0xdb, 0x81, 0xb3, 0xa0, 0xf4, 0x45, 0x7a, 0x19, 0xdf, 0xee, 0x78, 0x34, 0x60,
];

/// S0 on every byte of an xmm register by two 128-entry `vpermi2b` lookups selected by
/// the top bit (AVX512-VBMI). `t` holds the table in four zmm registers.
#[inline(always)]
unsafe fn s0_vbmi(x: __m128i, t: &[__m512i; 4]) -> __m128i {
    // SAFETY: AVX512-VBMI/BW (checked before this path is chosen).
    unsafe {
        let z = _mm512_castsi128_si512(x);
        let lo = _mm512_permutex2var_epi8(t[0], z, t[1]);
        let hi = _mm512_permutex2var_epi8(t[2], z, t[3]);
        _mm512_castsi512_si128(_mm512_mask_blend_epi8(_mm512_movepi8_mask(z), lo, hi))
    }
}

#[inline(always)]
unsafe fn s0_tables() -> [__m512i; 4] {
    // SAFETY: AVX-512F; 256 readable bytes.
    unsafe {
        let p = S0_TABLE.as_ptr();
        [
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
        ]
    }
}

/// R1, R2 in lanes 0 and 1 of an xmm register; `VBMI` selects the S0 method. The S-box
/// outputs are put together by bitwise selects (`vpternlogd` under a byte mask held in
/// a vector): with VBMI, S0's two 128-entry lookups under the sign of each input byte
/// (`vpcmpgtb`), then S0 on the odd bytes and S1 on the even ones. `MERGED = false`
/// with VBMI (the earlier code, kept for comparison; ignored without VBMI) blends them
/// under mask registers instead (`vpmovb2m`, `vpblendmb`): same result, but a masked
/// blend takes 3 cycles on Intel cores and 1 on Zen 4, and F's chain had two of them plus
/// the mask's 3, so the selects take about 11 % off a keystream word on Intel (F's
/// latency bounds the single stream).
///
/// With `AHEAD` (the default), the working-mode rounds fold the next round's X2 into
/// lane 1 as the S-box outputs are joined (`Fsm::next_ahead`; the second field holds the
/// X2 folded in, 0 when none): the next round then starts with one masked add (W1 = R1 ⊞
/// X1, lane 1 already W2 = R2 ⊕ X2) instead of an add, an XOR and a blend, one cycle less
/// on F's chain. `AHEAD = false` is the earlier code, kept for comparison.
#[derive(Clone, Copy)]
struct Xmm<const VBMI: bool, const MERGED: bool = true, const AHEAD: bool = true>(__m128i, u32);

impl<const VBMI: bool, const MERGED: bool, const AHEAD: bool> Xmm<VBMI, MERGED, AHEAD> {
    /// F's update from W (W1 in lane 0, W2 in lane 1): R1 = S(L1(W1L ∥ W2H)) in lane 0,
    /// R2 = S(L2(W2L ∥ W1H)) in lane 1, XOR `after`.
    #[inline(always)]
    unsafe fn update(w: __m128i, after: __m128i) -> __m128i {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI
        // (and VBMI where `VBMI`; cpu::detect).
        unsafe {
            // Lane 0 = W1L ∥ W2H, lane 1 = W2L ∥ W1H: one 64-bit rotation.
            let m = _mm_rol_epi64::<16>(w);
            // L1 on lane 0 (rotations 2, 10, 18, 24), L2 on lane 1 (8, 14, 22, 30).
            let a = _mm_rolv_epi32(m, _mm_set_epi32(0, 0, 8, 2));
            let b = _mm_rolv_epi32(m, _mm_set_epi32(0, 0, 14, 10));
            let c = _mm_rolv_epi32(m, _mm_set_epi32(0, 0, 22, 18));
            let d = _mm_rolv_epi32(m, _mm_set_epi32(0, 0, 30, 24));
            let l = _mm_ternarylogic_epi32::<0x96>(_mm_ternarylogic_epi32::<0x96>(m, a, b), c, d);
            // S0 on the odd bytes (memory order), S1 on the even ones.
            if VBMI && !MERGED {
                let s0 = s0_vbmi(l, &s0_tables());
                return _mm_xor_si128(_mm_mask_blend_epi8(0xaaaa, s1_xmm(l), s0), after);
            }
            let s0 = if VBMI {
                let t = s0_tables();
                let z = _mm512_castsi128_si512(l);
                let lo = _mm512_castsi512_si128(_mm512_permutex2var_epi8(t[0], z, t[1]));
                let hi = _mm512_castsi512_si128(_mm512_permutex2var_epi8(t[2], z, t[3]));
                // 0xff where the byte's top bit is set: entries 128..=255 (`hi`).
                let top = _mm_cmpgt_epi8(_mm_setzero_si128(), l);
                _mm_ternarylogic_epi32::<0xca>(top, hi, lo)
            } else {
                s0_xmm(l)
            };
            let odd = _mm_set1_epi16(0xff00u16 as i16);
            // (odd ∧ S0) ⊕ after while S1 is still on its way (GF(2^8) results reach
            // integer instructions late on Intel cores), then (¬odd ∧ S1) ⊕ that.
            let q = _mm_ternarylogic_epi32::<0x6a>(odd, s0, after);
            _mm_ternarylogic_epi32::<0xa6>(odd, s1_xmm(l), q)
        }
    }
}

// SAFETY (every method): `Xmm` values exist only inside `init_avx512` /
// `generate_avx512`, compiled with and selected for AVX-512VL + GFNI.
impl<const VBMI: bool, const MERGED: bool, const AHEAD: bool> Fsm for Xmm<VBMI, MERGED, AHEAD> {
    #[inline(always)]
    fn from_regs(r1: u32, r2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Xmm(_mm_set_epi32(0, 0, r2 as i32, r1 as i32), 0) }
    }
    #[inline(always)]
    fn regs(self) -> (u32, u32) {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        // Lanes 0 and 1 in one move.
        let v = unsafe { _mm_cvtsi128_si64(self.0) } as u64;
        (v as u32, (v >> 32) as u32 ^ self.1)
    }
    #[inline(always)]
    fn w(self, x0: u32) -> u32 {
        let (r1, r2) = self.regs();
        (x0 ^ r1).wrapping_add(r2)
    }
    #[inline(always)]
    fn round_barrier() {
        // A never-taken branch on an opaque, public value ends the basic block after
        // each round, so LLVM keeps the rounds' scalar LFSR work interleaved with F's
        // vector chain instead of hoisting all of it ahead (which it does otherwise in
        // release builds and which lengthens the critical path).
        if core::hint::black_box(false) {
            cold_path();
        }
    }
    #[inline(always)]
    fn next(self, x1: u32, x2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe {
            // Lane 1 holds R2 ⊕ self.1.
            let x = _mm_set_epi32(0, 0, (x2 ^ self.1) as i32, x1 as i32);
            // W1 = R1 ⊞ X1 (lane 0), W2 = R2 ⊕ X2 (lane 1).
            let w =
                _mm_mask_blend_epi32(0b0010, _mm_add_epi32(self.0, x), _mm_xor_si128(self.0, x));
            Xmm(Self::update(w, _mm_setzero_si128()), 0)
        }
    }
    #[inline(always)]
    fn ahead(self, x2: u32) -> Self {
        if !AHEAD {
            return self;
        }
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe {
            let x = _mm_set_epi32(0, 0, (x2 ^ self.1) as i32, 0);
            Xmm(_mm_xor_si128(self.0, x), x2)
        }
    }
    #[inline(always)]
    fn next_ahead(self, x1: u32, x2: u32, x2_next: u32) -> Self {
        if !AHEAD {
            return self.next(x1, x2);
        }
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI
        // (cpu::detect). Lane 1 already holds R2 ⊕ X2 (`next_ahead`'s contract; the
        // tests check it through `core::generate`).
        unsafe {
            // X1 and the next X2 in one move: X1 is added to lane 0 only (lane 1 keeps
            // W2), the next X2 goes to lane 1 of the join.
            let v = _mm_cvtsi64_si128(((u64::from(x2_next) << 32) | u64::from(x1)) as i64);
            let w = _mm_mask_add_epi32(self.0, 0b0001, self.0, v);
            Xmm(Self::update(w, _mm_maskz_mov_epi32(0b0010, v)), x2_next)
        }
    }
}

#[cold]
#[inline(never)]
fn cold_path() {}

/// Whether the CPU has AVX512-VBMI and VBMI2 (register-table S0, `vpshldd`), as
/// detected by `cpu`.
fn has_vbmi() -> bool {
    crate::cpu::Feature::Vbmi.is_detected()
}

fn init(st: &mut State) {
    // SAFETY: reached only through `kernel` or `kernel_vbmi`, whose token proves the
    // `avx512` level (AVX-512 F/BW/VL + GFNI, and the `avx2` level).
    unsafe { init_avx512(st) }
}

fn generate(st: &mut State, out: &mut [u32]) {
    // SAFETY: as `init`.
    unsafe { generate_avx512(st, out) }
}

fn init_vbmi_checked(st: &mut State) {
    if has_vbmi() {
        // SAFETY: as `init`, and the CPU has VBMI/VBMI2 (checked just now).
        unsafe { init_vbmi(st) }
    } else {
        init(st)
    }
}

fn generate_vbmi_checked(st: &mut State, out: &mut [u32]) {
    if has_vbmi() {
        // SAFETY: as `init`, and the CPU has VBMI/VBMI2 (checked just now).
        unsafe { generate_vbmi(st, out) }
    } else {
        generate(st, out)
    }
}

#[target_feature(enable = "avx512f,avx512vl,avx512bw,gfni,avx2,sse4.1,ssse3,bmi2")]
unsafe fn init_avx512(st: &mut State) {
    super::core::init::<Xmm<false>>(st);
}

#[target_feature(enable = "avx512f,avx512vl,avx512bw,gfni,avx2,sse4.1,ssse3,bmi2")]
unsafe fn generate_avx512(st: &mut State, out: &mut [u32]) {
    super::core::generate::<Xmm<false>>(st, out);
}

#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512vbmi,gfni,avx2,sse4.1,ssse3,bmi2")]
unsafe fn init_vbmi(st: &mut State) {
    super::core::init::<Xmm<true>>(st);
}

#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512vbmi,gfni,avx2,sse4.1,ssse3,bmi2")]
unsafe fn generate_vbmi(st: &mut State, out: &mut [u32]) {
    super::core::generate::<Xmm<true>>(st, out);
}

#[inline(always)]
unsafe fn bitrev_gfni(x: __m128i) -> __m128i {
    // SAFETY: GFNI.
    unsafe { _mm_gf2p8affine_epi64_epi8::<0>(x, _mm_set1_epi64x(GF_REV)) }
}

fn mac_words(msg: &[u8], z: &[u32]) -> u32 {
    // SAFETY: as `init`: AVX-512 F/BW/VL, GFNI, VPCLMULQDQ, PCLMULQDQ, SSE4.1, SSSE3.
    unsafe { mac_words_avx512(msg, z) }
}

fn xor_words(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
    // SAFETY: as `init` (the `avx512` level includes AVX2).
    unsafe { super::x86_avx2::xor_words_avx2(input, out, z) }
}

/// 128-EIA3 folding, eight message words per step with VPCLMULQDQ on zmm (four 64×64
/// carry-less products per instruction); the same arithmetic as
/// `x86_avx2::mac_words_clmul`, which handles the tail.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,gfni,vpclmulqdq,pclmulqdq,avx2,sse4.1,ssse3")]
unsafe fn mac_words_avx512(msg: &[u8], z: &[u32]) -> u32 {
    let n = msg.len() / 4;
    debug_assert!(z.len() > n);
    let mut j = 0;
    // SAFETY: features enabled on this function; the loads read msg[4j..4j + 32] and
    // z[j..j + 9] with j + 8 <= n < z.len() (slicing checks the bounds).
    let t = unsafe {
        let rev = _mm256_set1_epi64x(GF_REV);
        let mut acc = _mm512_setzero_si512();
        while j + 8 <= n {
            let m = _mm256_gf2p8affine_epi64_epi8::<0>(
                _mm256_loadu_si256(msg[4 * j..4 * j + 32].as_ptr().cast()),
                rev,
            );
            let m8 = _mm512_cvtepu32_epi64(m);
            // K_i = z_{j+i} ∥ z_{j+i+1}
            let lo = _mm512_cvtepu32_epi64(_mm256_loadu_si256(z[j + 1..j + 9].as_ptr().cast()));
            let hi = _mm512_cvtepu32_epi64(_mm256_loadu_si256(z[j..j + 8].as_ptr().cast()));
            let k = _mm512_or_si512(lo, _mm512_slli_epi64::<32>(hi));
            acc = _mm512_ternarylogic_epi64::<0x96>(
                acc,
                _mm512_clmulepi64_epi128::<0x00>(m8, k),
                _mm512_clmulepi64_epi128::<0x11>(m8, k),
            );
            j += 8;
        }
        let x = _mm_xor_si128(
            _mm_xor_si128(
                _mm512_castsi512_si128(acc),
                _mm512_extracti32x4_epi32::<1>(acc),
            ),
            _mm_xor_si128(
                _mm512_extracti32x4_epi32::<2>(acc),
                _mm512_extracti32x4_epi32::<3>(acc),
            ),
        );
        (_mm_cvtsi128_si64(x) as u64 >> 32) as u32
    };
    // SAFETY: features enabled on this function.
    t ^ unsafe { mac_words_clmul(&msg[4 * j..], &z[j..], bitrev_gfni) }
}

/// Sixteen 32-bit lanes (sixteen independent streams) in a zmm register. `VBMI`: S0 by
/// register-table `vpermi2b` and the half-word concatenation by `vpshldd`
/// (AVX512-VBMI/VBMI2), else nibble `vpshufb` and shifts.
#[derive(Clone, Copy)]
struct Zmm<const VBMI: bool>(__m512i);

#[inline(always)]
unsafe fn bytes64(b: &[u8; 16]) -> __m512i {
    // SAFETY: AVX-512F; 16 readable bytes broadcast to all four 128-bit lanes.
    unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(b.as_ptr().cast())) }
}

// SAFETY (every method): `Zmm` values exist only inside `keystream_x16_avx512`, compiled
// with and selected for AVX-512 F/BW + GFNI.
impl<const VBMI: bool> Lanes for Zmm<VBMI> {
    const N: usize = 16;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    fn load(w: &[u32]) -> Self {
        assert!(w.len() >= 16);
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_loadu_si512(w.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, w: &mut [u32]) {
        assert!(w.len() >= 16);
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { _mm512_storeu_si512(w.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_xor_si512(self.0, o.0)) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_and_si512(self.0, o.0)) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_or_si512(self.0, o.0)) }
    }
    #[inline(always)]
    fn shl<const K: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_sllv_epi32(self.0, _mm512_set1_epi32(K))) }
    }
    #[inline(always)]
    fn shr<const K: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_srlv_epi32(self.0, _mm512_set1_epi32(K))) }
    }
    #[inline(always)]
    fn rol<const K: i32, const K2: i32>(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_rol_epi32::<K>(self.0)) }
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0x96>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn or_and(self, b: Self, c: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0xa8>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn concat16(self, lo: Self) -> Self {
        if VBMI {
            // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
            unsafe { Zmm(_mm512_shldi_epi32::<16>(self.0, lo.0)) }
        } else {
            // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
            unsafe {
                Zmm(_mm512_or_si512(
                    _mm512_slli_epi32::<16>(self.0),
                    _mm512_srli_epi32::<16>(lo.0),
                ))
            }
        }
    }
    #[inline(always)]
    fn sbox(self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe {
            let x = self.0;
            let m = _mm512_set1_epi8(0x0f);
            let lo = _mm512_and_si512(x, m);
            let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(x), m);
            let t = _mm512_xor_si512(hi, _mm512_shuffle_epi8(bytes64(&S0_P1), lo));
            let u = _mm512_xor_si512(lo, _mm512_shuffle_epi8(bytes64(&S0_P2), t));
            let s0 = _mm512_xor_si512(
                _mm512_shuffle_epi8(bytes64(&S0_TA), u),
                _mm512_add_epi8(t, t),
            );
            let s1 = _mm512_gf2p8affineinv_epi64_epi8::<0x55>(
                _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_set1_epi64(GF_T)),
                _mm512_set1_epi64(GF_N),
            );
            // sel ? S0 : S1, S0 on the odd bytes.
            Zmm(_mm512_ternarylogic_epi32::<0xca>(
                _mm512_set1_epi32(0xff00_ff00u32 as i32),
                s0,
                s1,
            ))
        }
    }
    #[inline(always)]
    fn store_columns(rows: &[Self; 16], out: &mut [Vec<u32>], offset: usize) {
        // SAFETY: reached only from code compiled with and selected for AVX-512/GFNI (cpu::detect).
        unsafe {
            let c = Self::transpose(rows);
            for (o, col) in out.iter_mut().zip(c.iter()) {
                let dst = &mut o[offset..offset + 16];
                _mm512_storeu_si512(dst.as_mut_ptr().cast(), *col);
            }
        }
    }
}

impl<const VBMI: bool> Zmm<VBMI> {
    /// 16×16 transposition of 32-bit words: unpack 32 / 64-bit pairs inside 128-bit
    /// lanes, then a 4×4 transposition of the 128-bit lanes with `vshufi32x4`.
    #[inline(always)]
    unsafe fn transpose(r: &[Self; 16]) -> [__m512i; 16] {
        // SAFETY: AVX-512F.
        unsafe {
            let mut a = [_mm512_setzero_si512(); 16];
            for i in 0..8 {
                a[2 * i] = _mm512_unpacklo_epi32(r[2 * i].0, r[2 * i + 1].0);
                a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i].0, r[2 * i + 1].0);
            }
            // b[4i + j], 128-bit lane k: rows 4i..4i+3 of stream 4k + j.
            let mut b = [_mm512_setzero_si512(); 16];
            for i in 0..4 {
                b[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
                b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
                b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
                b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
            }
            let mut c = [_mm512_setzero_si512(); 16];
            for j in 0..4 {
                let e0 = _mm512_shuffle_i32x4::<0x44>(b[j], b[4 + j]);
                let e1 = _mm512_shuffle_i32x4::<0xee>(b[j], b[4 + j]);
                let e2 = _mm512_shuffle_i32x4::<0x44>(b[8 + j], b[12 + j]);
                let e3 = _mm512_shuffle_i32x4::<0xee>(b[8 + j], b[12 + j]);
                c[j] = _mm512_shuffle_i32x4::<0x88>(e0, e2);
                c[4 + j] = _mm512_shuffle_i32x4::<0xdd>(e0, e2);
                c[8 + j] = _mm512_shuffle_i32x4::<0x88>(e1, e3);
                c[12 + j] = _mm512_shuffle_i32x4::<0xdd>(e1, e3);
            }
            c
        }
    }
}

/// Keystreams of up to 16 streams at once (see `many::keystream_lanes`), with VBMI when
/// given its proof.
pub(crate) fn keystream_x16(
    _: Avx512,
    vbmi: Option<Vbmi>,
    states: &[&State],
    words: usize,
    out: &mut [Vec<u32>],
) {
    // SAFETY: the token proves AVX-512 F/BW/VL, GFNI and AVX2; VBMI/VBMI2 only with
    // their token.
    unsafe {
        if vbmi.is_some() {
            keystream_x16_vbmi(states, words, out)
        } else {
            keystream_x16_avx512(states, words, out)
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni,avx2")]
unsafe fn keystream_x16_avx512(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Zmm<false>>(states, words, out);
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,gfni,avx2")]
unsafe fn keystream_x16_vbmi(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Zmm<true>>(states, words, out);
}

#[cfg(test)]
mod tests {
    use super::super::core::load_128;
    use super::*;

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512vbmi,gfni,avx2,sse4.1,ssse3,bmi2")]
    unsafe fn init_vbmi_blended(st: &mut State) {
        super::super::core::init::<Xmm<true, false, false>>(st);
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512vbmi,gfni,avx2,sse4.1,ssse3,bmi2")]
    unsafe fn generate_vbmi_blended(st: &mut State, out: &mut [u32]) {
        super::super::core::generate::<Xmm<true, false, false>>(st, out);
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512vbmi,gfni,avx2,sse4.1,ssse3,bmi2")]
    unsafe fn generate_vbmi_not_ahead(st: &mut State, out: &mut [u32]) {
        super::super::core::generate::<Xmm<true, true, false>>(st, out);
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,gfni,avx2,sse4.1,ssse3,bmi2")]
    unsafe fn generate_avx512_not_ahead(st: &mut State, out: &mut [u32]) {
        super::super::core::generate::<Xmm<false, true, false>>(st, out);
    }

    /// Every single-stream variant of this backend (X2 folded ahead or not, selects or
    /// the earlier blends, with and without VBMI) against the portable backend, for
    /// several keys and IVs, and lengths around the 16-word groups.
    #[test]
    fn single_stream_variants_agree() {
        if !crate::cpu::Backend::Avx512.is_supported() {
            return;
        }
        type Init = unsafe fn(&mut State);
        type Gen = unsafe fn(&mut State, &mut [u32]);
        let mut variants: Vec<(&str, Init, Gen)> = vec![
            ("no VBMI, ahead", init_avx512, generate_avx512),
            ("no VBMI", init_avx512, generate_avx512_not_ahead),
        ];
        if has_vbmi() {
            variants.push(("VBMI, ahead", init_vbmi, generate_vbmi));
            variants.push(("VBMI", init_vbmi, generate_vbmi_not_ahead));
            variants.push(("VBMI, blended", init_vbmi_blended, generate_vbmi_blended));
        }
        for seed in 0..6u8 {
            let key: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ seed);
            let iv: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(11) ^ !seed);
            for n in [1usize, 15, 16, 17, 31, 32, 33, 100, 2048] {
                // n words, then 19 more from a second call.
                let mut want = vec![0u32; n + 19];
                let mut st = load_128(&key, &iv);
                super::super::soft::init(&mut st);
                super::super::soft::generate(&mut st, &mut want);
                for (name, init, generate) in &variants {
                    let mut got = vec![0u32; n];
                    let mut st = load_128(&key, &iv);
                    // SAFETY: AVX-512 F/VL/BW and GFNI checked above, VBMI where pushed.
                    unsafe {
                        init(&mut st);
                        generate(&mut st, &mut got);
                    }
                    assert_eq!(got, want[..n], "{name}: seed {seed} n {n}");
                    // The state after the call continues the stream (R2 restored from
                    // the folded lane).
                    let mut more = vec![0u32; 19];
                    // SAFETY: as above.
                    unsafe { generate(&mut st, &mut more) };
                    assert_eq!(more, want[n..], "{name}: seed {seed} n {n}, next call");
                }
            }
        }
    }

    /// A/B timing of the single-stream generator (not a correctness test): 2048 words
    /// (one 8 KiB EEA3 packet) with X2 folded ahead, the selects without it, the earlier
    /// blends and the path without VBMI,
    /// alternated; minimum over 2000 runs in cycles per word at `GUOMI_GHZ` (default 3.69):
    /// `cargo test -p guomi-core --lib zuc::x86_avx512::tests::ab_generate -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn ab_generate() {
        if !crate::cpu::Backend::Avx512.is_supported() || !has_vbmi() {
            return;
        }
        let ghz: f64 = std::env::var("GUOMI_GHZ")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3.69);
        let mut st0 = load_128(&[3u8; 16], &[5u8; 16]);
        // SAFETY: AVX-512 F/VL/BW, GFNI and VBMI checked above.
        unsafe { init_vbmi(&mut st0) };
        type Gen = unsafe fn(&mut State, &mut [u32]);
        let ahead: Gen = generate_vbmi;
        let kernels: [(&str, Gen); 5] = [
            ("X2 folded ahead", ahead),
            ("selects", generate_vbmi_not_ahead),
            ("blended", generate_vbmi_blended),
            ("no VBMI, X2 folded ahead", generate_avx512),
            ("no VBMI", generate_avx512_not_ahead),
        ];
        let mut out = vec![0u32; 2048];
        let mut best = [f64::MAX; 5];
        for _ in 0..2000 {
            for (k, (_, f)) in kernels.iter().enumerate() {
                let mut st = st0.clone();
                let t = std::time::Instant::now();
                // SAFETY: as above.
                unsafe { f(&mut st, &mut out) };
                best[k] = best[k].min(t.elapsed().as_secs_f64());
            }
        }
        for (k, (name, _)) in kernels.iter().enumerate() {
            println!(
                "ZUC 2048 words, {name}: best {:.2} µs, {:.2} cycles/word",
                best[k] * 1e6,
                best[k] * ghz * 1e9 / 2048.0
            );
        }
    }

    /// Both 16-lane variants against single streams.
    #[test]
    fn both_lane_variants_agree() {
        if !crate::cpu::Backend::Avx512.is_supported() {
            return;
        }
        let owned: Vec<State> = (0..13u8)
            .map(|i| load_128(&[i; 16], &[i ^ 0x5a; 16]))
            .collect();
        let states: Vec<&State> = owned.iter().collect();
        let mut want = Vec::new();
        for st in &owned {
            let mut st = st.clone();
            super::super::soft::init(&mut st);
            let mut w = vec![0u32; 48];
            super::super::soft::generate(&mut st, &mut w);
            want.push(w);
        }
        let mut got = vec![Vec::new(); states.len()];
        // SAFETY: AVX-512 F/BW/VL + GFNI checked above.
        unsafe { keystream_x16_avx512(&states, 40, &mut got) };
        assert_eq!(got, want);
        if has_vbmi() {
            let mut got = vec![Vec::new(); states.len()];
            // SAFETY: VBMI/VBMI2 checked.
            unsafe { keystream_x16_vbmi(&states, 40, &mut got) };
            assert_eq!(got, want);
        }
    }
}
