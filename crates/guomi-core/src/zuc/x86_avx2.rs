//! ZUC on x86-64 with AVX2 / AES-NI / PCLMULQDQ (no table lookups with secret indexes):
//!
//! * S0 from its design (three 4-bit functions in a Feistel network, see `soft.rs`), each
//!   4-bit function one `pshufb` on 16 bytes at once;
//! * S1 = M·x^-1 ⊕ 0x55 in GF(2^8)/(x^8+x^7+x^3+x+1) computed with the AES S-box of
//!   `aesenclast`: the field is mapped onto the AES field by an isomorphism T and back
//!   by an affine map, S1(x) = N·SubBytes(T·x) ⊕ c, T and N applied as two nibble
//!   `pshufb` lookups each (matrices derived from the S1 table; the tests compare every
//!   input with the standard's table);
//! * single stream: R1 ∥ R2 ∥ R1 ∥ R2 in an xmm register, so the whole F (additions,
//!   L1/L2, both S-boxes) is vector code while the LFSR runs in scalar registers next
//!   to it; the copies let `aesenclast` run without InvShiftRows, and F's round is
//!   shortened further as described at [`Xmm`];
//! * 128-EIA3 folding by carry-less multiplication (PCLMULQDQ);
//! * many streams: one stream per 32-bit lane of a ymm register (8 lanes), see `many.rs`.
#![allow(unsafe_code)]

use super::core::{Fsm, State};
use super::many::Lanes;
use super::Kernel;
use crate::cpu::{Avx2, Vaes};
use core::arch::x86_64::*;

/// The single-stream functions; handed out only by [`kernel`], for its token.
const KERNEL: Kernel = Kernel {
    init,
    generate,
    mac_words,
    xor_words,
};

/// The single-stream kernel of the `avx2` backend, for the proof that this CPU runs it.
pub(crate) fn kernel(_: Avx2) -> Kernel {
    KERNEL
}

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

#[inline(always)]
unsafe fn bytes16(b: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// S0 on every byte of an xmm register.
#[inline(always)]
pub(crate) unsafe fn s0_xmm(x: __m128i) -> __m128i {
    // SAFETY: SSSE3 (part of this backend's requirements).
    unsafe { s0_xmm_with(x, &S0_TA) }
}

/// S0 on every byte with `ta` as the last 4-bit table (`S0_TA`, or it XOR a constant:
/// then that constant is XORed into every output byte).
#[inline(always)]
unsafe fn s0_xmm_with(x: __m128i, ta: &[u8; 16]) -> __m128i {
    // SAFETY: SSSE3 (part of this backend's requirements).
    unsafe {
        let m = _mm_set1_epi8(0x0f);
        let lo = _mm_and_si128(x, m);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), m);
        let t = _mm_xor_si128(hi, _mm_shuffle_epi8(bytes16(&S0_P1), lo));
        let u = _mm_xor_si128(lo, _mm_shuffle_epi8(bytes16(&S0_P2), t));
        _mm_xor_si128(_mm_shuffle_epi8(bytes16(ta), u), _mm_add_epi8(t, t))
    }
}

/// The byte shuffle of `w` = (W1, W2, W1, W2) giving (W1L ∥ W2H, W2L ∥ W1H) twice: the
/// inputs of L1 (lanes 0, 2) and L2 (lanes 1, 3).
const MIX: [u8; 16] = [6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5];

/// `MIX` followed by a rotation of every lane left by `8 * k` bits (`k[lane % 2]`).
const fn mix_rol(k: [usize; 2]) -> [u8; 16] {
    let mut r = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let lane = i / 4;
        // Byte j of x <<< 8k is byte (j - k) mod 4 of x.
        r[i] = MIX[lane * 4 + (i % 4 + 4 - k[lane % 2]) % 4];
        i += 1;
    }
    r
}
/// The single-stream F: R1 ∥ R2 ∥ R1 ∥ R2 in the four lanes of an xmm register, R2's
/// lanes XORed with the `u32` (X2 of the coming round when `ahead`/`next_ahead`
/// folded it in, 0 otherwise).
///
/// The copies are what make the round short (F's latency bounds a single stream):
/// * `aesenclast`'s ShiftRows leaves rows 0 and 2 alone when columns c and c + 2 hold
///   the same word, and the S1 bytes are exactly rows 0 and 2, so no InvShiftRows;
/// * the S0 bytes enter S1's nibble lookups as index 0 (mask `S1_NIBBLE`), so they
///   enter `aesenclast` as 0 and leave it as 0 (key `S0_BYTES_63`); the high-nibble
///   lookup after it then needs no mask, and S0's bytes join by an XOR, not a blend;
/// * L1 and L2 come from byte rotations of W (one shuffle each, from W directly) and
///   one pair of per-lane shifts per rotation left: L1 = m ⊕ m<<<24 ⊕ (m ⊕ m<<<8 ⊕
///   m<<<16)<<<2 and L2 = m ⊕ m<<<8 ⊕ (m ⊕ m<<<8 ⊕ m<<<16)<<<14;
/// * W2 = R2 ⊕ X2 is done a round early, in the XOR that joins S0's bytes, so a
///   round starts with W1 = R1 + X1 alone.
#[derive(Clone, Copy)]
pub(crate) struct Xmm(__m128i, u32);

/// `x` in lanes 1 and 3.
#[inline(always)]
unsafe fn lanes13(x: u32) -> __m128i {
    // SAFETY: SSE2 (part of this backend's requirements).
    unsafe { _mm_set1_epi64x((u64::from(x) << 32) as i64) }
}

/// F's tables and masks, as statics for the assembly's RIP-relative operands.
mod k {
    use super::{mix_rol, S0_TA};

    pub(super) static MIX: [u8; 16] = super::MIX;
    pub(super) static ROL8: [u8; 16] = mix_rol([1, 1]);
    pub(super) static ROL16: [u8; 16] = mix_rol([2, 2]);
    /// <<< 24 for L1's lanes, <<< 8 for L2's.
    pub(super) static ROL24_8: [u8; 16] = mix_rol([3, 1]);
    /// <<< 2 in L1's lanes, <<< 14 in L2's, as left and right shift counts.
    pub(super) static LEFT: [u32; 4] = [2, 14, 2, 14];
    pub(super) static RIGHT: [u32; 4] = [30, 18, 30, 18];
    pub(super) static NIBBLE: [u8; 16] = [0x0f; 16];
    /// 0x0f on the S1 bytes (even in memory order), 0 on the S0 bytes.
    pub(super) static S1_NIBBLE: [u8; 16] = [
        0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0,
    ];
    /// `aesenclast` key: SubBytes(0) = 0x63 on the S0 bytes is cancelled to 0.
    pub(super) static S0_BYTES_63: [u8; 16] = [
        0, 0x63, 0, 0x63, 0, 0x63, 0, 0x63, 0, 0x63, 0, 0x63, 0, 0x63, 0, 0x63,
    ];
    pub(super) static S0_BYTES: [u8; 16] = [
        0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff,
    ];
    pub(super) static S0_P1: [u8; 16] = super::S0_P1;
    pub(super) static S0_P2: [u8; 16] = super::S0_P2;
    /// `S0_TA` with S1's affine constant (`S1_POST_LO[0]`) XORed in: the S1 lookups
    /// leave that constant on the S0 bytes, and this cancels it.
    pub(super) static S0_TA_POST: [u8; 16] = {
        let mut r = S0_TA;
        let mut i = 0;
        while i < 16 {
            r[i] ^= super::S1_POST_LO[0];
            i += 1;
        }
        r
    };
    pub(super) static S1_PRE_LO: [u8; 16] = super::S1_PRE_LO;
    pub(super) static S1_PRE_HI: [u8; 16] = super::S1_PRE_HI;
    pub(super) static S1_POST_LO: [u8; 16] = super::S1_POST_LO;
    pub(super) static S1_POST_HI: [u8; 16] = super::S1_POST_HI;
}

/// L: `{w}` = (W1, W2, W1, W2) becomes L1 ∥ L2 twice (the formulas at [`Xmm`]).
macro_rules! f_l {
    () => {
        concat!(
            "vpshufb {m}, {w}, xmmword ptr [rip + {mix}]\n",
            "vpshufb {a}, {w}, xmmword ptr [rip + {rol8}]\n",
            "vpshufb {b}, {w}, xmmword ptr [rip + {rol16}]\n",
            "vpshufb {w}, {w}, xmmword ptr [rip + {rol24_8}]\n",
            "vpxor {a}, {a}, {m}\n",
            "vpxor {w}, {w}, {m}\n",
            "vpxor {a}, {a}, {b}\n",
            "vpsllvd {b}, {a}, xmmword ptr [rip + {left}]\n",
            "vpsrlvd {a}, {a}, xmmword ptr [rip + {right}]\n",
            "vpxor {w}, {w}, {b}\n",
            "vpxor {w}, {w}, {a}\n",
        )
    };
}

/// S: `{w}` = L becomes (S0, S1, S0, S1) of every lane XOR `{after}`. S1's lookups and
/// `aesenclast` come first in program order: they are F's critical path, and the
/// scheduler gives the older of two ready instructions a shuffle pipe first.
macro_rules! f_s {
    () => {
        concat!(
            // S1's T, by nibble (the S0 bytes look up index 0), then SubBytes.
            "vpsrlw {h}, {w}, 4\n",
            "vmovdqu {t}, xmmword ptr [rip + {s1_nibble}]\n",
            "vpand {a}, {w}, {t}\n",
            "vpand {b}, {h}, {t}\n",
            "vmovdqu {m}, xmmword ptr [rip + {pre_lo}]\n",
            "vpshufb {a}, {m}, {a}\n",
            "vmovdqu {m}, xmmword ptr [rip + {pre_hi}]\n",
            "vpshufb {b}, {m}, {b}\n",
            "vpxor {a}, {a}, {b}\n",
            "vaesenclast {a}, {a}, xmmword ptr [rip + {key63}]\n",
            // S0 on every byte (`s0_xmm_with`), kept on the S0 bytes, XOR `after`.
            "vmovdqu {t}, xmmword ptr [rip + {nibble}]\n",
            "vpand {m}, {w}, {t}\n",
            "vpand {h}, {h}, {t}\n",
            "vmovdqu {b}, xmmword ptr [rip + {p1}]\n",
            "vpshufb {b}, {b}, {m}\n",
            "vpxor {b}, {b}, {h}\n",
            "vmovdqu {h}, xmmword ptr [rip + {p2}]\n",
            "vpshufb {h}, {h}, {b}\n",
            "vpxor {h}, {h}, {m}\n",
            "vmovdqu {m}, xmmword ptr [rip + {ta}]\n",
            "vpshufb {m}, {m}, {h}\n",
            "vpaddb {b}, {b}, {b}\n",
            "vpxor {m}, {m}, {b}\n",
            "vpand {m}, {m}, xmmword ptr [rip + {s0_bytes}]\n",
            "vpxor {m}, {m}, {after}\n",
            // S1's affine map after SubBytes, joined with S0's bytes.
            "vpsrlw {b}, {a}, 4\n",
            "vpand {a}, {a}, xmmword ptr [rip + {s1_nibble}]\n",
            "vmovdqu {h}, xmmword ptr [rip + {post_hi}]\n",
            "vpshufb {b}, {h}, {b}\n",
            "vmovdqu {h}, xmmword ptr [rip + {post_lo}]\n",
            "vpshufb {a}, {h}, {a}\n",
            "vpxor {b}, {b}, {m}\n",
            "vpxor {w}, {a}, {b}\n",
        )
    };
}

/// One `asm!` block of `$code` on `$w` with `$after`, every table and temporary bound.
macro_rules! f_asm {
    ($w:ident, $after:expr, $($code:expr),+) => {
        core::arch::asm!(
            $($code,)+
            w = inout(xmm_reg) $w,
            after = in(xmm_reg) $after,
            m = out(xmm_reg) _, a = out(xmm_reg) _, b = out(xmm_reg) _,
            h = out(xmm_reg) _, t = out(xmm_reg) _,
            mix = sym k::MIX, rol8 = sym k::ROL8, rol16 = sym k::ROL16,
            rol24_8 = sym k::ROL24_8, left = sym k::LEFT, right = sym k::RIGHT,
            nibble = sym k::NIBBLE, s1_nibble = sym k::S1_NIBBLE,
            key63 = sym k::S0_BYTES_63, s0_bytes = sym k::S0_BYTES,
            p1 = sym k::S0_P1, p2 = sym k::S0_P2, ta = sym k::S0_TA_POST,
            pre_lo = sym k::S1_PRE_LO, pre_hi = sym k::S1_PRE_HI,
            post_lo = sym k::S1_POST_LO, post_hi = sym k::S1_POST_HI,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
}

impl Xmm {
    /// F's update from W = (W1, W2, W1, W2): S(L1, L2) twice, XOR `after` (lanes 1, 3).
    ///
    /// One assembly block, in the order `f_s` gives: LLVM put S0's shuffles ahead of
    /// S1's, where they compete with F's critical path for the two shuffle pipes, and
    /// made `MIX` two instructions (a word shuffle and a broadcast), which lengthened the
    /// chain; the round took about 28 cycles on Zen 3 against 22 now.
    #[inline(always)]
    unsafe fn update(mut w: __m128i, after: __m128i) -> __m128i {
        // SAFETY: AVX2 (variable shifts, VEX encodings) and AES-NI, this backend's
        // requirements (checked by `cpu::detect`); the block reads only the statics of
        // `k`, by constant addresses, and touches no other memory, stack or flag.
        unsafe { f_asm!(w, after, f_l!(), f_s!()) };
        w
    }

    /// S = (S0, S1, S0, S1) on each lane of `l`, whose lanes 2, 3 equal lanes 0, 1 (the
    /// ShiftRows of `aesenclast` relies on it), XOR `after`: [`Xmm::update`]'s second
    /// half alone, for the tests.
    #[cfg(test)]
    unsafe fn sbox(mut l: __m128i, after: __m128i) -> __m128i {
        // SAFETY: as in `update`; L's operands are only named in a comment.
        unsafe {
            f_asm!(
                l,
                after,
                f_s!(),
                "/* {mix} {rol8} {rol16} {rol24_8} {left} {right} */"
            )
        };
        l
    }
}

// SAFETY (every method): `Xmm` values exist only inside `init_avx2` / `generate_avx2`,
// which require AVX2 + AES-NI (and what they imply).
impl Fsm for Xmm {
    #[inline(always)]
    fn from_regs(r1: u32, r2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Xmm(_mm_set_epi32(r2 as i32, r1 as i32, r2 as i32, r1 as i32), 0) }
    }
    #[inline(always)]
    fn regs(self) -> (u32, u32) {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        // Lanes 0 and 1 in one move (an extract would be two more vector µops).
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
        // See `x86_avx512`: keeps each round's scalar and vector work together.
        if core::hint::black_box(false) {
            cold_path();
        }
    }
    #[inline(always)]
    fn next(self, x1: u32, x2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            let x = _mm_set1_epi64x(((u64::from(x2 ^ self.1) << 32) | u64::from(x1)) as i64);
            let w = _mm_blend_epi32::<0b1010>(_mm_add_epi32(self.0, x), _mm_xor_si128(self.0, x));
            Xmm(Self::update(w, _mm_setzero_si128()), 0)
        }
    }
    #[inline(always)]
    fn ahead(self, x2: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Xmm(_mm_xor_si128(self.0, lanes13(x2 ^ self.1)), x2) }
    }
    #[inline(always)]
    fn next_ahead(self, x1: u32, _x2: u32, x2_next: u32) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI
        // (cpu::detect). Lanes 1 and 3 already hold R2 ⊕ X2 (`next_ahead`'s contract;
        // the tests check it through `core::generate`).
        unsafe {
            // X1 and the next X2 enter in one move and one broadcast; masks split them
            // (lanes 0, 2 and 1, 3) on any vector pipe, not a shuffle or shift pipe.
            let v = _mm_set1_epi64x(((u64::from(x2_next) << 32) | u64::from(x1)) as i64);
            let lo = _mm_set1_epi64x(0xffff_ffff);
            let w = _mm_add_epi32(self.0, _mm_and_si128(v, lo));
            Xmm(Self::update(w, _mm_andnot_si128(lo, v)), x2_next)
        }
    }
}

#[cold]
#[inline(never)]
fn cold_path() {}

fn init(st: &mut State) {
    // SAFETY: reached only through `kernel`, whose token proves the `avx2` level (AVX2,
    // AES-NI, SSE4.1, SSSE3, BMI2).
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
fn xor_words(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
    // SAFETY: reached only through `kernel`, whose token proves AVX2.
    unsafe { xor_words_avx2(input, out, z) }
}

/// As `xor_words` (also the `avx512` kernel's).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn xor_words_avx2(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
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
    // SAFETY: reached only through `kernel`, whose token proves AVX2, PCLMULQDQ, SSE4.1
    // and SSSE3.
    unsafe { mac_words_avx2(msg, z) }
}

#[target_feature(enable = "avx2,pclmulqdq,sse4.1,ssse3")]
unsafe fn mac_words_avx2(msg: &[u8], z: &[u32]) -> u32 {
    // SAFETY: features enabled on this function.
    unsafe { mac_words_clmul(msg, z, bitrev_bytes) }
}

/// Eight 32-bit lanes (eight independent streams) in a ymm register; `VAES`: S1's AES
/// S-box by one 256-bit `vaesenclast` instead of one `aesenclast` per 128-bit half.
#[derive(Clone, Copy)]
pub(crate) struct Ymm<const VAES: bool>(__m256i);

#[inline(always)]
unsafe fn bytes32(b: &[u8; 16]) -> __m256i {
    // SAFETY: AVX2; 16 readable bytes, broadcast to both halves.
    unsafe { _mm256_broadcastsi128_si256(bytes16(b)) }
}

// SAFETY (every method): `Ymm` values exist only inside functions compiled with AVX2
// and AES-NI (and VAES for `Ymm<true>`), chosen only when the CPU has them.
impl<const VAES: bool> Lanes for Ymm<VAES> {
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
    fn high16_low16(self, lo: Self) -> Self {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe { Ymm(_mm256_blend_epi16::<0b1010_1010>(lo.0, self.0)) }
    }
    #[inline(always)]
    fn l1_l2(w1: Self, w2: Self) -> (Self, Self) {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI (cpu::detect).
        unsafe {
            // W1L ∥ W2H = y <<< 16 with y = W2H ∥ W1L (16-bit blend), and W2L ∥ W1H =
            // y2 <<< 16 with y2 = W1H ∥ W2L. L's rotations by 8, 16 and 24 of those are
            // byte shuffles of y and y2, and the rest is one rotation each:
            // L1(y <<< 16) = y<<<16 ⊕ y<<<8 ⊕ (y ⊕ y<<<16 ⊕ y<<<24) <<< 2,
            // L2(y2 <<< 16) = q ⊕ (q ⊕ y2) <<< 14 with q = y2<<<16 ⊕ y2<<<24.
            let y = _mm256_blend_epi16::<0b1010_1010>(w1.0, w2.0);
            let y2 = _mm256_blend_epi16::<0b1010_1010>(w2.0, w1.0);
            let (r8, r16, r24) = (
                bytes32(&LANE_ROL[1]),
                bytes32(&LANE_ROL[2]),
                bytes32(&LANE_ROL[3]),
            );
            let a16 = _mm256_shuffle_epi8(y, r16);
            let t = _mm256_xor_si256(_mm256_xor_si256(y, a16), _mm256_shuffle_epi8(y, r24));
            let l1 = _mm256_xor_si256(
                _mm256_xor_si256(a16, _mm256_shuffle_epi8(y, r8)),
                Ymm::<VAES>(t).rol::<2, 30>().0,
            );
            let q = _mm256_xor_si256(_mm256_shuffle_epi8(y2, r16), _mm256_shuffle_epi8(y2, r24));
            let l2 = _mm256_xor_si256(q, Ymm::<VAES>(_mm256_xor_si256(q, y2)).rol::<14, 18>().0);
            (Ymm(l1), Ymm(l2))
        }
    }
    #[inline(always)]
    fn store_columns(rows: &[Self; 16], out: &mut [Vec<u32>], offset: usize) {
        // SAFETY: reached only from code compiled with and selected for AVX2/AES-NI
        // (cpu::detect); each store writes 8 words inside `out[lane][offset..offset + 16]`
        // (bounds checked by the slicing).
        unsafe {
            for half in 0..2 {
                let cols = transpose8(rows[8 * half..8 * half + 8].try_into().expect("8 rows"));
                for (o, col) in out.iter_mut().zip(cols) {
                    let dst = &mut o[offset + 8 * half..offset + 8 * half + 8];
                    _mm256_storeu_si256(dst.as_mut_ptr().cast(), col);
                }
            }
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
            // S1: T on every byte (from S0's nibbles), InvShiftRows (T maps each byte
            // alone, so it commutes with moving bytes), then AES SubBytes on each
            // 128-bit half, whose ShiftRows puts the bytes back, then N.
            let pre = _mm256_shuffle_epi8(
                _mm256_xor_si256(
                    _mm256_shuffle_epi8(bytes32(&S1_PRE_LO), lo),
                    _mm256_shuffle_epi8(bytes32(&S1_PRE_HI), hi),
                ),
                bytes32(&INV_SHIFT_ROWS),
            );
            let a = if VAES {
                _mm256_aesenclast_epi128(pre, _mm256_setzero_si256())
            } else {
                let z = _mm_setzero_si128();
                let a0 = _mm_aesenclast_si128(_mm256_castsi256_si128(pre), z);
                let a1 = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(pre), z);
                _mm256_set_m128i(a1, a0)
            };
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

/// Rotations of every 32-bit lane left by 0, 8, 16 and 24 bits, as byte shuffles.
const LANE_ROL: [[u8; 16]; 4] = {
    let mut r = [[0u8; 16]; 4];
    let mut k = 0;
    while k < 4 {
        let mut i = 0;
        while i < 16 {
            // Byte j of x <<< 8k is byte (j - k) mod 4 of x.
            r[k][i] = (i / 4 * 4 + (i % 4 + 4 - k) % 4) as u8;
            i += 1;
        }
        k += 1;
    }
    r
};

/// The 8 × 8 transposition of 32-bit words: column i of `r` (word i of every row) as
/// vector i.
#[inline(always)]
unsafe fn transpose8<const VAES: bool>(r: &[Ymm<VAES>; 8]) -> [__m256i; 8] {
    // SAFETY: AVX2.
    unsafe {
        let mut a = [_mm256_setzero_si256(); 8];
        for i in 0..4 {
            a[2 * i] = _mm256_unpacklo_epi32(r[2 * i].0, r[2 * i + 1].0);
            a[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i].0, r[2 * i + 1].0);
        }
        // b[4i + j], 128-bit half h: rows 4i..4i + 3 of column 4h + j.
        let mut b = [_mm256_setzero_si256(); 8];
        for i in 0..2 {
            b[4 * i] = _mm256_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
            b[4 * i + 1] = _mm256_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
            b[4 * i + 2] = _mm256_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
            b[4 * i + 3] = _mm256_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
        }
        let mut c = [_mm256_setzero_si256(); 8];
        for j in 0..4 {
            c[j] = _mm256_permute2x128_si256::<0x20>(b[j], b[4 + j]);
            c[4 + j] = _mm256_permute2x128_si256::<0x31>(b[j], b[4 + j]);
        }
        c
    }
}

/// Keystreams of up to 8 streams at once (see `many::keystream_lanes`), with the
/// 256-bit `vaesenclast` form when given the VAES proof.
pub(crate) fn keystream_x8(
    _: Avx2,
    vaes: Option<Vaes>,
    states: &[&State],
    words: usize,
    out: &mut [Vec<u32>],
) {
    if vaes.is_some() {
        // SAFETY: the tokens prove AVX2, AES-NI, SSE4.1, SSSE3 and VAES.
        unsafe { keystream_x8_vaes(states, words, out) }
    } else {
        // SAFETY: the token proves AVX2, AES-NI, SSE4.1 and SSSE3.
        unsafe { keystream_x8_avx2(states, words, out) }
    }
}

#[target_feature(enable = "avx2,aes,sse4.1,ssse3")]
unsafe fn keystream_x8_avx2(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Ymm<false>>(states, words, out);
}

#[target_feature(enable = "avx2,aes,vaes,sse4.1,ssse3")]
unsafe fn keystream_x8_vaes(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    super::many::keystream_lanes::<Ymm<true>>(states, words, out);
}

#[cfg(test)]
mod tests {
    use super::super::core::tables::sbox_word;
    use super::super::core::{l1, l2};
    use super::*;

    /// F's update as printed in the standard (§3.4), with the S-box tables.
    fn reference_next(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        let w1 = r1.wrapping_add(x1);
        let w2 = r2 ^ x2;
        (
            sbox_word(l1((w1 << 16) | (w2 >> 16))),
            sbox_word(l2((w2 << 16) | (w1 >> 16))),
        )
    }

    #[target_feature(enable = "avx2,aes,sse4.1,ssse3,bmi2")]
    unsafe fn check_fsm() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut rand = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        };
        // `next` from fresh registers, and chains of `next_ahead` (X2 folded a round
        // early) mixed with plain `next` calls, against the reference.
        for _ in 0..20_000 {
            let (r1, r2, x1, x2, x0) = (rand(), rand(), rand(), rand(), rand());
            let f = Xmm::from_regs(r1, r2);
            assert_eq!(f.regs(), (r1, r2));
            assert_eq!(f.w(x0), (x0 ^ r1).wrapping_add(r2));
            assert_eq!(f.next(x1, x2).regs(), reference_next(r1, r2, x1, x2));
        }
        for run in 0..200 {
            let (mut r1, mut r2) = (rand(), rand());
            let mut f = Xmm::from_regs(r1, r2);
            let mut x2 = rand();
            f = f.ahead(x2);
            assert_eq!(f.regs(), (r1, r2));
            for round in 0..40 {
                let (x0, x1, x2_next) = (rand(), rand(), rand());
                assert_eq!(f.w(x0), (x0 ^ r1).wrapping_add(r2));
                (r1, r2) = reference_next(r1, r2, x1, x2);
                if (run + round) % 7 == 6 {
                    // A plain round leaves nothing folded; fold again after it.
                    f = f.next(x1, x2).ahead(x2_next);
                } else {
                    f = f.next_ahead(x1, x2, x2_next);
                }
                assert_eq!(f.regs(), (r1, r2), "run {run} round {round}");
                x2 = x2_next;
            }
            // A plain `next` on a folded value is still right.
            let x1 = rand();
            assert_eq!(f.next(x1, x2).regs(), reference_next(r1, r2, x1, x2));
        }
    }

    #[target_feature(enable = "avx2,aes,sse4.1,ssse3")]
    unsafe fn check_sbox() {
        for x in 0..=255u32 {
            for y in [x, x ^ 0x5a, 255 - x] {
                let (a, b) = (x * 0x0101_0101, (y * 0x0101_0101) ^ 0x00ff_0000);
                // SAFETY: the caller checked the features.
                let s = unsafe {
                    Xmm::sbox(
                        _mm_set_epi32(b as i32, a as i32, b as i32, a as i32),
                        _mm_setzero_si128(),
                    )
                };
                let mut got = [0u32; 4];
                // SAFETY: 16 writable bytes.
                unsafe { _mm_storeu_si128(got.as_mut_ptr().cast(), s) };
                let want = [sbox_word(a), sbox_word(b)];
                assert_eq!(got, [want[0], want[1], want[0], want[1]], "{x:#x} {y:#x}");
            }
        }
    }

    #[test]
    fn sbox_matches_the_standard_tables() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("aes")) {
            return;
        }
        // SAFETY: features checked above.
        unsafe { check_sbox() }
    }

    #[test]
    fn fsm_matches_the_standard() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("aes")) {
            return;
        }
        // SAFETY: features checked above.
        unsafe { check_fsm() }
    }
}
