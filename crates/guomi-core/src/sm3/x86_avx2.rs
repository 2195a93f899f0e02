//! SM3 on x86-64 with AVX2/BMI2:
//! * single stream: hand-scheduled assembly (`compress`, and `compress_avx512` for the
//!   `avx512` backend): the 64 rounds in general-purpose registers (BMI1/BMI2 `andn`,
//!   `rorx`), the message expansion in xmm registers (AVX2, or AVX-512VL `vprold` and
//!   `vpternlogd`) run alongside them;
//! * 8-lane multi-buffer: eight independent messages, one per 32-bit lane of a ymm.
#![allow(unsafe_code)]

use super::many::{Lanes, MultiCompress};
use crate::cpu::Avx2;
use core::arch::x86_64::*;

/// Single-stream compression (the assembly below, AVX2 message expansion).
pub(crate) fn compress(_: Avx2, state: &mut [u32; 8], blocks: &[u8]) {
    #[cfg(feature = "kat-hooks")]
    if OLD_COMPRESS_FOR_TESTING.load(core::sync::atomic::Ordering::Relaxed) {
        // SAFETY: as below (the same requirements).
        return unsafe { compress_bmi2(state, blocks) };
    }
    // SAFETY: the token proves the `avx2` level: BMI1, BMI2, AVX and AVX2 (all the
    // assembly uses).
    unsafe { compress_asm(state, blocks) }
}

/// Single-stream compression with the AVX-512VL message expansion (the `avx512` backend).
pub(crate) fn compress_avx512(_: crate::cpu::Avx512, state: &mut [u32; 8], blocks: &[u8]) {
    #[cfg(feature = "kat-hooks")]
    if OLD_COMPRESS_FOR_TESTING.load(core::sync::atomic::Ordering::Relaxed) {
        // SAFETY: as below (the same requirements).
        return unsafe { compress_bmi2(state, blocks) };
    }
    // SAFETY: the token proves the `avx512` level: AVX-512F/VL on top of everything the
    // `avx2` level has.
    unsafe { compress_asm512(state, blocks) }
}

/// Benchmarks only: `true` routes [`compress`] to the compiled-Rust rounds it replaced
/// (`compress_bmi2`), so that both can be timed alternately in one process.
#[cfg(feature = "kat-hooks")]
static OLD_COMPRESS_FOR_TESTING: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

/// Benchmarks only (the `kat-hooks` feature): selects the previous single-stream SM3
/// compression (the portable rounds compiled with BMI2) instead of the assembly, process-wide.
#[cfg(feature = "kat-hooks")]
pub fn use_old_compress_for_testing(old: bool) {
    OLD_COMPRESS_FOR_TESTING.store(old, core::sync::atomic::Ordering::Relaxed);
}

#[cfg(any(test, feature = "kat-hooks"))]
/// The portable rounds compiled with BMI2 (`rorx`): the previous single-stream code, kept
/// as the reference the assembly is measured and tested against.
#[target_feature(enable = "bmi1,bmi2,avx2")]
unsafe fn compress_bmi2(state: &mut [u32; 8], blocks: &[u8]) {
    super::soft::compress_inline(state, blocks, value_barrier);
}

/// Returns `x` unchanged but opaque to the optimiser, so LLVM cannot reassociate the
/// round's sums: the value that arrives last on the critical path is then added last,
/// which saves a cycle per round.
#[cfg(any(test, feature = "kat-hooks"))]
#[inline(always)]
fn value_barrier(mut x: u32) -> u32 {
    // SAFETY: an empty asm block that only names the register; no memory, no flags.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags))
    };
    x
}

/// `vpshufb` mask: reverses the bytes of each 32-bit lane (big-endian message words).
static BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

// Stack frame of `sm3_blocks!` (offsets from rsp after `sub rsp, 576`):
//   [0, 272)    W_0 .. W_67
//   [272, 528)  W'_0 .. W'_63 (W'_j = W_j ^ W_j+4)
//   [528, 560)  the chaining value V_i of the current block (for the feed-forward)
//   560: state pointer, 568: end of the input.
// The rounds read W_j and W'_j as memory operands (a load is not an ALU operation). The
// expansion of group g (W_4g .. W_4g+3, and W' group g-1) runs in rounds 4g-16 .. 4g-13,
// so its stores are 12 or more rounds old when they are read.
//
// General-purpose registers: the eight state words in r8d..r15d (roles renamed from round
// to round, as in `soft::compress_inline`), rsi the current block, eax/ecx/edx/edi
// temporaries. xmm0..xmm4 hold the last five 4-word groups of W (group g in xmm(g mod 5)),
// xmm5..xmm13 are temporaries, xmm15 the byte-swap mask.

/// One round, §5.3.3, for register roles A..H (template text): B and F are rotated in
/// place, D receives TT1 (the next A) and H receives P0(TT2) (the next E); the caller
/// renames (A..H) -> (D, A, B, C, H, E, F, G). `$t` is T_j <<< (j mod 32) as a signed
/// 32-bit decimal.
///
/// The speed is set by the chain E -> SS1 = ((A <<< 12) + T_j + E) <<< 7 ->
/// TT2 = GG + H + W_j + SS1 -> P0(TT2) = the next E (6 cycles in rounds 0..15, 7 after),
/// while the round's ~24 ALU operations need 6 cycles of Zen 4's four ALUs. So the
/// instructions on that chain come first in program order (the scheduler runs the oldest
/// ready operation first) and each sum adds its latest-arriving term last; TT1 (the next
/// A, needed one round later) and the rotations of B and F come after. Measured on Zen 4,
/// this order is 12% faster than the same instructions in the order of the specification.
#[rustfmt::skip]
macro_rules! sm3_round {
    // Rounds 0..15: FF = GG = x ^ y ^ z.
    (lo, $a:literal, $b:literal, $c:literal, $d:literal,
     $e:literal, $f:literal, $g:literal, $h:literal, $j:literal, $t:literal) => {
        concat!(
            "rorx eax, ", $a, ", 20\n",              // A <<< 12
            "lea ecx, [rax + ", $t, "]\n",
            "add ", $h, ", dword ptr [rsp + 4*", $j, "]\n",
            "mov edi, ", $f, "\n",
            "xor edi, ", $g, "\n",
            "add ecx, ", $e, "\n",
            "xor edi, ", $e, "\n",                   // GG
            "rorx ecx, ecx, 25\n",                   // SS1
            "add ", $h, ", edi\n",
            "add ", $h, ", ecx\n",                   // TT2
            "rorx edi, ", $h, ", 23\n",
            "rorx edx, ", $h, ", 15\n",
            "xor ", $h, ", edi\n",
            "xor ", $h, ", edx\n",                   // P0(TT2)
            "xor eax, ecx\n",                        // SS2
            "add ", $d, ", dword ptr [rsp + 272 + 4*", $j, "]\n",
            "mov edx, ", $b, "\n",
            "xor edx, ", $c, "\n",
            "xor edx, ", $a, "\n",                   // FF
            "add ", $d, ", edx\n",
            "add ", $d, ", eax\n",                   // TT1
            "rorx ", $b, ", ", $b, ", 23\n",         // B <<< 9
            "rorx ", $f, ", ", $f, ", 13\n",         // F <<< 19
        )
    };
    // Rounds 16..63: GG = (E & F) + (!E & G), FF = (A & (B ^ C)) + (B & C) (the two
    // terms of each have no bit in common, so they are added to TT2/TT1 one by one).
    (hi, $a:literal, $b:literal, $c:literal, $d:literal,
     $e:literal, $f:literal, $g:literal, $h:literal, $j:literal, $t:literal) => {
        concat!(
            "rorx eax, ", $a, ", 20\n",
            "lea ecx, [rax + ", $t, "]\n",
            "add ", $h, ", dword ptr [rsp + 4*", $j, "]\n",
            "andn edi, ", $e, ", ", $g, "\n",
            "add ecx, ", $e, "\n",
            "mov edx, ", $f, "\n",
            "and edx, ", $e, "\n",
            "add ", $h, ", edi\n",
            "rorx ecx, ecx, 25\n",
            "add ", $h, ", edx\n",
            "add ", $h, ", ecx\n",
            "rorx edi, ", $h, ", 23\n",
            "rorx edx, ", $h, ", 15\n",
            "xor ", $h, ", edi\n",
            "xor ", $h, ", edx\n",
            "xor eax, ecx\n",
            "add ", $d, ", dword ptr [rsp + 272 + 4*", $j, "]\n",
            "mov edx, ", $b, "\n",
            "xor edx, ", $c, "\n",
            "and edx, ", $a, "\n",
            "add ", $d, ", edx\n",
            "mov edx, ", $b, "\n",
            "and edx, ", $c, "\n",
            "add ", $d, ", edx\n",
            "add ", $d, ", eax\n",
            "rorx ", $b, ", ", $b, ", 23\n",
            "rorx ", $f, ", ", $f, ", 13\n",
        )
    };
}

/// `$dst = $src <<< $n` on each 32-bit lane (AVX2 has no vector rotate); `$tmp` scratch.
#[rustfmt::skip]
macro_rules! vrol {
    ($dst:literal, $src:literal, $n:literal, $m:literal, $tmp:literal) => {
        concat!(
            "vpslld ", $tmp, ", ", $src, ", ", $n, "\n",
            "vpsrld ", $dst, ", ", $src, ", ", $m, "\n",
            "vpxor ", $dst, ", ", $dst, ", ", $tmp, "\n",
        )
    };
}

/// `$x ^= P1($y)` lane-wise (P1(y) = y ^ (y <<< 15) ^ (y <<< 23)); xmm9..xmm12 scratch.
#[rustfmt::skip]
macro_rules! vxor_p1 {
    ($x:literal, $y:literal) => {
        concat!(
            "vpslld xmm9, ", $y, ", 15\n",
            "vpsrld xmm10, ", $y, ", 17\n",
            "vpslld xmm11, ", $y, ", 23\n",
            "vpsrld xmm12, ", $y, ", 9\n",
            "vpxor xmm9, xmm9, xmm10\n",
            "vpxor xmm11, xmm11, xmm12\n",
            "vpxor ", $x, ", ", $x, ", ", $y, "\n",
            "vpxor ", $x, ", ", $x, ", xmm9\n",
            "vpxor ", $x, ", ", $x, ", xmm11\n",
        )
    };
}

/// The message expansion (§5.3.2) of group g = W_4g .. W_4g+3 (4 <= g <= 16) from the
/// four groups before it, in four parts (one per round). `$n` receives group g, `$g0` ..
/// `$g3` hold groups g-4 .. g-1. All four words are first computed without the
/// (W_j-3 <<< 15) term of W_4g+3, which is W_4g itself; as P1 is linear, that word is then
/// fixed with P1(W_4g <<< 15). Part 4 stores group g to W and group g-1 to W'.
#[rustfmt::skip]
macro_rules! expand {
    (1, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vpalignr xmm5, ", $g1, ", ", $g0, ", 12\n",   // W_j-13 ..
            "vpalignr xmm6, ", $g2, ", ", $g1, ", 12\n",   // W_j-9 ..
            "vpalignr xmm7, ", $g3, ", ", $g2, ", 8\n",    // W_j-6 ..
            "vpsrldq xmm8, ", $g3, ", 4\n",                // W_j-3, W_j-2, W_j-1, 0
            vrol!("xmm8", "xmm8", 15, 17, "xmm9"),
            "vpxor xmm8, xmm8, xmm6\n",
            "vpxor xmm8, xmm8, ", $g0, "\n",
        )
    };
    (2, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            vrol!("xmm6", "xmm5", 7, 25, "xmm13"),
            "vpxor ", $n, ", xmm6, xmm7\n",
            vxor_p1!($n, "xmm8"),
        )
    };
    (3, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vpslldq xmm5, ", $n, ", 12\n",
            vrol!("xmm5", "xmm5", 15, 17, "xmm13"),
            vxor_p1!($n, "xmm5"),
        )
    };
    (4, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vmovdqu xmmword ptr [rsp + 16*", $gi, "], ", $n, "\n",
            "vpxor xmm13, ", $g3, ", ", $n, "\n",
            "vmovdqu xmmword ptr [rsp + 272 - 16 + 16*", $gi, "], xmm13\n",
        )
    };
}

/// As `expand!` with AVX-512VL: `vprold` rotations and `vpternlogd` three-way XORs
/// (0x96); xmm5..xmm10 scratch.
#[rustfmt::skip]
macro_rules! expand512 {
    (1, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vpalignr xmm5, ", $g1, ", ", $g0, ", 12\n",
            "vpalignr xmm6, ", $g2, ", ", $g1, ", 12\n",
            "vpalignr xmm7, ", $g3, ", ", $g2, ", 8\n",
            "vpsrldq xmm8, ", $g3, ", 4\n",
            "vprold xmm8, xmm8, 15\n",
            "vpternlogd xmm8, xmm6, ", $g0, ", 0x96\n",
        )
    };
    (2, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vprold xmm9, xmm8, 15\n",
            "vprold xmm10, xmm8, 23\n",
            "vprold ", $n, ", xmm5, 7\n",
            "vpternlogd xmm8, xmm9, xmm10, 0x96\n",
            "vpternlogd ", $n, ", xmm7, xmm8, 0x96\n",
        )
    };
    (3, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        concat!(
            "vpslldq xmm5, ", $n, ", 12\n",
            "vprold xmm5, xmm5, 15\n",
            "vprold xmm9, xmm5, 15\n",
            "vprold xmm10, xmm5, 23\n",
            "vpternlogd ", $n, ", xmm9, xmm10, 0x96\n",
            "vpxor ", $n, ", ", $n, ", xmm5\n",
        )
    };
    (4, $n:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $gi:literal) => {
        expand!(4, $n, $g0, $g1, $g2, $g3, $gi)
    };
}

/// Four rounds from `$j` (the roles return to r8d..r15d = A..H after them), with the
/// expansion of group `$gi` (in `$x`, from `$x0`..`$x3`; by the macro `$exp`) interleaved,
/// or none.
#[rustfmt::skip]
macro_rules! sm3_four {
    ($exp:ident, $k:ident, $j0:literal, $j1:literal, $j2:literal, $j3:literal,
     $t0:literal, $t1:literal, $t2:literal, $t3:literal
     $(, $gi:literal, $x:literal, $x0:literal, $x1:literal, $x2:literal, $x3:literal)?) => {
        concat!(
            $($exp!(1, $x, $x0, $x1, $x2, $x3, $gi),)?
            sm3_round!($k, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", $j0, $t0),
            $($exp!(2, $x, $x0, $x1, $x2, $x3, $gi),)?
            sm3_round!($k, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", $j1, $t1),
            $($exp!(3, $x, $x0, $x1, $x2, $x3, $gi),)?
            sm3_round!($k, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", $j2, $t2),
            $($exp!(4, $x, $x0, $x1, $x2, $x3, $gi),)?
            sm3_round!($k, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", $j3, $t3),
        )
    };
}

/// `vmovdqu [rsp + off], xmm0` for each offset.
#[rustfmt::skip]
macro_rules! zero_frame {
    ($($off:literal)*) => {
        concat!($("vmovdqu xmmword ptr [rsp + ", $off, "], xmm0\n",)*)
    };
}

/// The whole compression of the blocks in [`$start`, `$end`) (at least one) into the eight
/// words at `$state`, in one assembly block, with `$exp` (`expand` or `expand512`) for the
/// message expansion. Per block: the 16 message words are loaded and byte-swapped
/// (`vpshufb`) and stored with the first W'; the 64 rounds run with the expansion of the
/// next groups interleaved; the chaining value is fed forward. Constant time: no branch or
/// address depends on the data (the only branch is the loop over the blocks).
#[rustfmt::skip]
macro_rules! sm3_blocks {
    ($exp:ident, $state:expr, $start:expr, $end:expr) => {
        core::arch::asm!(
            "sub rsp, 576",
            "mov qword ptr [rsp + 560], rdi",
            "mov qword ptr [rsp + 568], rdx",
            "mov r8d, dword ptr [rdi]",
            "mov r9d, dword ptr [rdi + 4]",
            "mov r10d, dword ptr [rdi + 8]",
            "mov r11d, dword ptr [rdi + 12]",
            "mov r12d, dword ptr [rdi + 16]",
            "mov r13d, dword ptr [rdi + 20]",
            "mov r14d, dword ptr [rdi + 24]",
            "mov r15d, dword ptr [rdi + 28]",
            "vmovdqu xmm15, xmmword ptr [rip + {bswap}]",
            "2:",
            "mov dword ptr [rsp + 528], r8d",
            "mov dword ptr [rsp + 532], r9d",
            "mov dword ptr [rsp + 536], r10d",
            "mov dword ptr [rsp + 540], r11d",
            "mov dword ptr [rsp + 544], r12d",
            "mov dword ptr [rsp + 548], r13d",
            "mov dword ptr [rsp + 552], r14d",
            "mov dword ptr [rsp + 556], r15d",
            "vmovdqu xmm0, xmmword ptr [rsi]",
            "vmovdqu xmm1, xmmword ptr [rsi + 16]",
            "vmovdqu xmm2, xmmword ptr [rsi + 32]",
            "vmovdqu xmm3, xmmword ptr [rsi + 48]",
            "vpshufb xmm0, xmm0, xmm15",
            "vpshufb xmm1, xmm1, xmm15",
            "vpshufb xmm2, xmm2, xmm15",
            "vpshufb xmm3, xmm3, xmm15",
            "vmovdqu xmmword ptr [rsp], xmm0",
            "vmovdqu xmmword ptr [rsp + 16], xmm1",
            "vmovdqu xmmword ptr [rsp + 32], xmm2",
            "vmovdqu xmmword ptr [rsp + 48], xmm3",
            "vpxor xmm5, xmm0, xmm1",
            "vpxor xmm6, xmm1, xmm2",
            "vpxor xmm7, xmm2, xmm3",
            "vmovdqu xmmword ptr [rsp + 272], xmm5",
            "vmovdqu xmmword ptr [rsp + 288], xmm6",
            "vmovdqu xmmword ptr [rsp + 304], xmm7",
            sm3_four!($exp, lo, 0, 1, 2, 3, "2043430169", "-208106958", "-416213915", "-832427829",
                      4, "xmm4", "xmm0", "xmm1", "xmm2", "xmm3"),
            sm3_four!($exp, lo, 4, 5, 6, 7, "-1664855657", "965255983", "1930511966", "-433943364",
                      5, "xmm0", "xmm1", "xmm2", "xmm3", "xmm4"),
            sm3_four!($exp, lo, 8, 9, 10, 11, "-867886727", "-1735773453", "823420391", "1646840782",
                      6, "xmm1", "xmm2", "xmm3", "xmm4", "xmm0"),
            sm3_four!($exp, lo, 12, 13, 14, 15, "-1001285732", "-2002571463", "289824371", "579648742",
                      7, "xmm2", "xmm3", "xmm4", "xmm0", "xmm1"),
            sm3_four!($exp, hi, 16, 17, 18, 19, "-1651869049", "991229199", "1982458398", "-330050500",
                      8, "xmm3", "xmm4", "xmm0", "xmm1", "xmm2"),
            sm3_four!($exp, hi, 20, 21, 22, 23, "-660100999", "-1320201997", "1654563303", "-985840690",
                      9, "xmm4", "xmm0", "xmm1", "xmm2", "xmm3"),
            sm3_four!($exp, hi, 24, 25, 26, 27, "-1971681379", "351604539", "703209078", "1406418156",
                      10, "xmm0", "xmm1", "xmm2", "xmm3", "xmm4"),
            sm3_four!($exp, hi, 28, 29, 30, 31, "-1482130984", "1330705329", "-1633556638", "1027854021",
                      11, "xmm1", "xmm2", "xmm3", "xmm4", "xmm0"),
            sm3_four!($exp, hi, 32, 33, 34, 35, "2055708042", "-183551212", "-367102423", "-734204845",
                      12, "xmm2", "xmm3", "xmm4", "xmm0", "xmm1"),
            sm3_four!($exp, hi, 36, 37, 38, 39, "-1468409689", "1358147919", "-1578671458", "1137624381",
                      13, "xmm3", "xmm4", "xmm0", "xmm1", "xmm2"),
            sm3_four!($exp, hi, 40, 41, 42, 43, "-2019718534", "255530229", "511060458", "1022120916",
                      14, "xmm4", "xmm0", "xmm1", "xmm2", "xmm3"),
            sm3_four!($exp, hi, 44, 45, 46, 47, "2044241832", "-206483632", "-412967263", "-825934525",
                      15, "xmm0", "xmm1", "xmm2", "xmm3", "xmm4"),
            sm3_four!($exp, hi, 48, 49, 50, 51, "-1651869049", "991229199", "1982458398", "-330050500",
                      16, "xmm1", "xmm2", "xmm3", "xmm4", "xmm0"),
            sm3_four!($exp, hi, 52, 53, 54, 55, "-660100999", "-1320201997", "1654563303", "-985840690"),
            sm3_four!($exp, hi, 56, 57, 58, 59, "-1971681379", "351604539", "703209078", "1406418156"),
            sm3_four!($exp, hi, 60, 61, 62, 63, "-1482130984", "1330705329", "-1633556638", "1027854021"),
            // V_i+1 = ABCDEFGH ^ V_i.
            "xor r8d, dword ptr [rsp + 528]",
            "xor r9d, dword ptr [rsp + 532]",
            "xor r10d, dword ptr [rsp + 536]",
            "xor r11d, dword ptr [rsp + 540]",
            "xor r12d, dword ptr [rsp + 544]",
            "xor r13d, dword ptr [rsp + 548]",
            "xor r14d, dword ptr [rsp + 552]",
            "xor r15d, dword ptr [rsp + 556]",
            "add rsi, 64",
            "cmp rsi, qword ptr [rsp + 568]",
            "jb 2b",
            "mov rdi, qword ptr [rsp + 560]",
            "mov dword ptr [rdi], r8d",
            "mov dword ptr [rdi + 4], r9d",
            "mov dword ptr [rdi + 8], r10d",
            "mov dword ptr [rdi + 12], r11d",
            "mov dword ptr [rdi + 16], r12d",
            "mov dword ptr [rdi + 20], r13d",
            "mov dword ptr [rdi + 24], r14d",
            "mov dword ptr [rdi + 28], r15d",
            // The frame held the message schedule and the chaining values (secret for
            // HMAC keys and KDF inputs): wiped before it is given back.
            "vpxor xmm0, xmm0, xmm0",
            zero_frame!(0 16 32 48 64 80 96 112 128 144 160 176 192 208 224 240 256 272 288 304 320 336 352 368 384 400 416 432 448 464 480 496 512 528 544 560),
            "add rsp, 576",
            bswap = sym BSWAP32,
            inout("rdi") $state => _,
            inout("rsi") $start => _,
            inout("rdx") $end => _,
            out("rax") _, out("rcx") _,
            out("r8") _, out("r9") _, out("r10") _, out("r11") _,
            out("r12") _, out("r13") _, out("r14") _, out("r15") _,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
            out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
        )
    };
}

/// The whole 64-byte blocks of `blocks` as [start, end) pointers, `None` when there are none.
fn block_range(blocks: &[u8]) -> Option<(*const u8, *const u8)> {
    debug_assert_eq!(blocks.len() % 64, 0);
    let whole = blocks.len() / 64 * 64;
    (whole > 0).then(|| {
        let r = blocks[..whole].as_ptr_range();
        (r.start, r.end)
    })
}

/// Compresses whole 64-byte blocks into `state` (`sm3_blocks!` with the AVX2 expansion).
///
/// # Safety
/// The CPU must support AVX2, BMI1 and BMI2. `blocks.len()` must be a multiple of 64.
unsafe fn compress_asm(state: &mut [u32; 8], blocks: &[u8]) {
    let Some((start, end)) = block_range(blocks) else {
        return;
    };
    // SAFETY: the caller guarantees AVX2/BMI1/BMI2. The assembly reads the whole blocks in
    // [start, end) (at least one) and the 16-byte static mask, reads and writes the 32
    // bytes of `state` (a valid exclusive reference), and uses 576 bytes of its own stack
    // frame (wiped, and rsp restored, at the end). Every register it writes is declared as
    // clobbered.
    unsafe { sm3_blocks!(expand, state.as_mut_ptr(), start, end) }
}

/// As [`compress_asm`] with the AVX-512VL expansion (`vprold`, `vpternlogd`).
///
/// # Safety
/// The CPU must support AVX-512F/VL, AVX2, BMI1 and BMI2. `blocks.len()` must be a multiple
/// of 64.
unsafe fn compress_asm512(state: &mut [u32; 8], blocks: &[u8]) {
    let Some((start, end)) = block_range(blocks) else {
        return;
    };
    // SAFETY: as in `compress_asm`, and the caller guarantees AVX-512F/VL.
    unsafe { sm3_blocks!(expand512, state.as_mut_ptr(), start, end) }
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

/// 8-lane multi-buffer compression, with the proof that this CPU runs it.
#[derive(Clone, Copy)]
pub(crate) struct Avx2x8(pub(crate) Avx2);

impl MultiCompress for Avx2x8 {
    const LANES: usize = 8;
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        // SAFETY: the token proves AVX2.
        unsafe { compress8(state, words, active) }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn compress8(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
    super::many::compress_lanes::<Ymm>(state, words, active);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{self, Backend};

    fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect()
    }

    fn iv_words(iv: &[u8]) -> [u32; 8] {
        let mut w = [0u32; 8];
        for (w, c) in w.iter_mut().zip(iv.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        w
    }

    /// The assembly against the portable compression (and the compiled-Rust BMI2 one) on
    /// multi-block inputs from pseudo-random chaining values.
    #[test]
    fn asm_compress_matches_portable() {
        if !Backend::Avx2.is_supported() {
            return;
        }
        let mut checked = 0;
        let lens = (0..=1100usize).chain([65536, 65536 + 64, 3 * 65536]);
        for (i, len) in lens.enumerate() {
            let whole = len - len % 64;
            let data = pseudo_random(whole, 0x9e37_79b9_7f4a_7c15 ^ i as u64);
            let iv = pseudo_random(32, i as u64 + 1);
            let mut want = iv_words(&iv);
            let (mut got, mut bmi2) = (want, want);
            super::super::soft::compress(&mut want, &data);
            // SAFETY: AVX2 (with BMI1/BMI2) is supported, checked above.
            unsafe { compress_asm(&mut got, &data) };
            assert_eq!(got, want, "len {len}");
            // SAFETY: as above.
            unsafe { compress_bmi2(&mut bmi2, &data) };
            assert_eq!(bmi2, want, "len {len}");
            if Backend::Avx512.is_supported() {
                let mut got512 = iv_words(&iv);
                // SAFETY: AVX-512 (F/VL) is supported, checked just above.
                unsafe { compress_asm512(&mut got512, &data) };
                assert_eq!(got512, want, "len {len} (AVX-512 expansion)");
            }
            checked += 1;
        }
        assert!(checked > 1100);
        // And through the public one-shot hash on every variant that runs it.
        let data = pseudo_random(70_000, 7);
        let want = cpu::with_backend(Backend::Portable, || super::super::hash(&data));
        for v in cpu::variants() {
            assert_eq!(
                cpu::with_variant(v, || super::super::hash(&data)),
                want,
                "{v:?}"
            );
        }
    }
}
