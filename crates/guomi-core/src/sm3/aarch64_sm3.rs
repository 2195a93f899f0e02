//! SM3 compression with the Armv8.2 SM3 instructions (FEAT_SM3): `SM3PARTW1`/`SM3PARTW2`
//! expand the message four words at a time, and each round is one `SM3SS1`, one
//! `SM3TT1A`/`SM3TT1B` and one `SM3TT2A`/`SM3TT2B` (instruction semantics: Arm
//! Architecture Reference Manual, "SM3 instructions"; the Linux kernel's
//! `arch/arm64/crypto/sm3-ce-core.S` uses the same instructions).
//!
//! The state lives in two vectors with the word order reversed, as the round instructions
//! expect: `abcd` holds D, C, B, A in lanes 0..3 and `efgh` holds H, G, F, E (so A and E,
//! the words every round reads first, sit in lane 3). `SM3SS1` reads the round constant
//! from lane 3 of its third source: [`T_LANE3`] holds one such vector per round, loaded
//! two at a time by LDP inside the loop. No data-dependent branches or memory indexes.
//!
//! Static count of the block loop (release build, `aarch64-linux-gnu-objdump -d`): 306
//! instructions per 64-byte block, 4.8 per byte: 192 round instructions, 26 SM3PARTW1/2,
//! 27 EXT (LLVM shares one per expansion with the next), 16 EOR for W' and 2 for the
//! feed-forward, 32 LDP of constants and 2 of message, 4 REV32, 2 MOV, 3 of loop control.
//! No stack frame; 18 instructions of set-up and wind-down per call.

#![allow(unsafe_code)]

use super::T_ROTATED;
use core::arch::aarch64::{
    uint32x4_t, veorq_u32, vextq_u32, vld1q_u32, vld1q_u8_x4, vreinterpretq_u32_u8, vrev32q_u8,
    vrev64q_u32, vst1q_u32,
};
use core::arch::asm;

/// The round constants as `SM3SS1` reads them: `T_LANE3[j]` has `T_ROTATED[j]` in lane 3
/// (the other lanes are not read). Loaded inside the loop by assembly (not `pure`, so
/// it stays there): from `vld1q_u32` LLVM made 64 constants hoisted out of the loop and
/// mostly spilled, about 150 instructions of set-up per call.
static T_LANE3: [[u32; 4]; 64] = {
    let mut t = [[0u32; 4]; 64];
    let mut j = 0;
    while j < 64 {
        t[j][3] = T_ROTATED[j];
        j += 1;
    }
    t
};

/// The state words `w[0..4]` as a vector in reversed order (`w[3]` in lane 0, `w[0]` in
/// lane 3), and back: the same permutation is its own inverse.
#[inline]
#[target_feature(enable = "neon")]
fn reverse(v: uint32x4_t) -> uint32x4_t {
    let v = vrev64q_u32(v);
    vextq_u32::<2>(v, v)
}

/// The next four expanded message words `W[j..j+4]` (GB/T 32905 §5.3.2) from the sixteen
/// before them, `w0` = `W[j-16..j-12]` through `w3` = `W[j-4..j]`.
#[inline]
#[target_feature(enable = "neon,sm4")]
fn expand(w0: uint32x4_t, w1: uint32x4_t, w2: uint32x4_t, w3: uint32x4_t) -> uint32x4_t {
    // W[j-9..j-5], W[j-6..j-2] and W[j-13..j-9].
    let w9 = vextq_u32::<3>(w1, w2);
    let w6 = vextq_u32::<2>(w2, w3);
    let w13 = vextq_u32::<3>(w0, w1);
    let mut w = w0;
    // SAFETY: SM3PARTW1/SM3PARTW2 only compute on vector registers; the function's
    // target features (FEAT_SM3) make them available.
    unsafe {
        // P1(W[j-16] ^ W[j-9] ^ (W[j-3] <<< 15)) for the four words, the last one with a
        // partial W[j] (lanes 1..3 of w3 are W[j-3..j]).
        asm!(
            "sm3partw1 {w:v}.4s, {w9:v}.4s, {w3:v}.4s",
            w = inout(vreg) w,
            w9 = in(vreg) w9,
            w3 = in(vreg) w3,
            options(pure, nomem, nostack, preserves_flags),
        );
        // ^ (W[j-13] <<< 7) ^ W[j-6], and the correction of the last word.
        asm!(
            "sm3partw2 {w:v}.4s, {w6:v}.4s, {w13:v}.4s",
            w = inout(vreg) w,
            w6 = in(vreg) w6,
            w13 = in(vreg) w13,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    w
}

/// Compresses whole 64-byte blocks into `state` (GB/T 32905 §5.3; the same contract as
/// `soft::compress`). `blocks.len()` must be a multiple of 64.
///
/// # Safety
///
/// The CPU must implement Advanced SIMD and FEAT_SM3 (checked by the caller, e.g. with
/// `is_aarch64_feature_detected!("sm4")`, Rust's name for FEAT_SM3 + FEAT_SM4).
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 64, 0);
    // SAFETY: `state` is 8 words, read as two 4-word vectors.
    let (mut abcd, mut efgh) = unsafe {
        (
            reverse(vld1q_u32(state.as_ptr())),
            reverse(vld1q_u32(state.as_ptr().add(4))),
        )
    };
    let t = T_LANE3.as_ptr();

    // One round with the constant `$tj` and the message words in lane `$lane` of `$w`
    // (W[j]) and `$wp` (W'[j] = W[j] ^ W[j+4]); `$tt1`/`$tt2` are the A (rounds 0..15)
    // or B forms.
    macro_rules! round {
        ($tt1:literal, $tt2:literal, $tj:ident, $lane:literal, $w:ident, $wp:ident) => {{
            let ss1: uint32x4_t;
            // SAFETY: register-only SM3 instructions; the function's target features
            // make them available.
            unsafe {
                // SS1 = ((A <<< 12) + E + (Tj <<< j)) <<< 7, in lane 3.
                asm!(
                    "sm3ss1 {ss1:v}.4s, {abcd:v}.4s, {efgh:v}.4s, {tj:v}.4s",
                    ss1 = lateout(vreg) ss1,
                    abcd = in(vreg) abcd,
                    efgh = in(vreg) efgh,
                    tj = in(vreg) $tj,
                    options(pure, nomem, nostack, preserves_flags),
                );
                // A, B, C, D <- TT1, A, B <<< 9, C.
                asm!(
                    concat!($tt1, " {abcd:v}.4s, {ss1:v}.4s, {wp:v}.s[", $lane, "]"),
                    abcd = inout(vreg) abcd,
                    ss1 = in(vreg) ss1,
                    wp = in(vreg) $wp,
                    options(pure, nomem, nostack, preserves_flags),
                );
                // E, F, G, H <- P0(TT2), E, F <<< 19, G.
                asm!(
                    concat!($tt2, " {efgh:v}.4s, {ss1:v}.4s, {w:v}.s[", $lane, "]"),
                    efgh = inout(vreg) efgh,
                    ss1 = in(vreg) ss1,
                    w = in(vreg) $w,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
        }};
    }
    // Rounds 4g..4g+4 from W[4g..4g+8] (the window's first two vectors of W[4g..4g+16]);
    // then the window slides, with `expand` taking in W[4g+16..4g+20] (needed three steps
    // later).
    macro_rules! step {
        ($tt1:literal, $tt2:literal, $g:expr, $w:ident) => {{
            let (t0, t1, t2, t3): (uint32x4_t, uint32x4_t, uint32x4_t, uint32x4_t);
            // SAFETY: `$g` < 16: the 64 bytes at offset 64·g are `T_LANE3[4g..4g+4]`.
            unsafe {
                asm!(
                    "ldp {t0:q}, {t1:q}, [{t}, #{off}]",
                    "ldp {t2:q}, {t3:q}, [{t}, #{off} + 32]",
                    t0 = lateout(vreg) t0,
                    t1 = lateout(vreg) t1,
                    t2 = lateout(vreg) t2,
                    t3 = lateout(vreg) t3,
                    t = in(reg) t,
                    off = const 64 * ($g),
                    options(readonly, nostack, preserves_flags),
                );
            }
            let wp = veorq_u32($w[0], $w[1]);
            let w0 = $w[0];
            round!($tt1, $tt2, t0, "0", w0, wp);
            round!($tt1, $tt2, t1, "1", w0, wp);
            round!($tt1, $tt2, t2, "2", w0, wp);
            round!($tt1, $tt2, t3, "3", w0, wp);
        }};
        ($tt1:literal, $tt2:literal, $g:expr, $w:ident, slide) => {{
            step!($tt1, $tt2, $g, $w);
            $w = [$w[1], $w[2], $w[3], $w[0]];
        }};
        ($tt1:literal, $tt2:literal, $g:expr, $w:ident, expand) => {{
            step!($tt1, $tt2, $g, $w);
            $w = [$w[1], $w[2], $w[3], expand($w[0], $w[1], $w[2], $w[3])];
        }};
    }

    for block in blocks.chunks_exact(64) {
        // SAFETY: `block` is 64 bytes.
        let m = unsafe { vld1q_u8_x4(block.as_ptr()) };
        // The message words are big-endian.
        let mut w = [m.0, m.1, m.2, m.3].map(|v| vreinterpretq_u32_u8(vrev32q_u8(v)));
        let (abcd0, efgh0) = (abcd, efgh);
        step!("sm3tt1a", "sm3tt2a", 0, w, expand);
        step!("sm3tt1a", "sm3tt2a", 1, w, expand);
        step!("sm3tt1a", "sm3tt2a", 2, w, expand);
        step!("sm3tt1a", "sm3tt2a", 3, w, expand);
        step!("sm3tt1b", "sm3tt2b", 4, w, expand);
        step!("sm3tt1b", "sm3tt2b", 5, w, expand);
        step!("sm3tt1b", "sm3tt2b", 6, w, expand);
        step!("sm3tt1b", "sm3tt2b", 7, w, expand);
        step!("sm3tt1b", "sm3tt2b", 8, w, expand);
        step!("sm3tt1b", "sm3tt2b", 9, w, expand);
        step!("sm3tt1b", "sm3tt2b", 10, w, expand);
        step!("sm3tt1b", "sm3tt2b", 11, w, expand);
        step!("sm3tt1b", "sm3tt2b", 12, w, expand);
        step!("sm3tt1b", "sm3tt2b", 13, w, slide);
        step!("sm3tt1b", "sm3tt2b", 14, w, slide);
        step!("sm3tt1b", "sm3tt2b", 15, w);
        abcd = veorq_u32(abcd, abcd0);
        efgh = veorq_u32(efgh, efgh0);
    }
    // SAFETY: `state` is 8 words, written as two 4-word vectors.
    unsafe {
        vst1q_u32(state.as_mut_ptr(), reverse(abcd));
        vst1q_u32(state.as_mut_ptr().add(4), reverse(efgh));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm3::{soft, BLOCK_SIZE, IV};

    /// Whether this CPU (or emulator) has FEAT_SM3; prints why a test is skipped.
    fn have_sm3() -> bool {
        let ok = std::arch::is_aarch64_feature_detected!("sm4");
        if !ok {
            eprintln!("skipped: no FEAT_SM3/FEAT_SM4 on this CPU");
        }
        ok
    }

    /// §5.2 padding of `msg`: whole blocks.
    fn pad(msg: &[u8]) -> Vec<u8> {
        let mut v = msg.to_vec();
        v.push(0x80);
        while v.len() % BLOCK_SIZE != BLOCK_SIZE - 8 {
            v.push(0);
        }
        v.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
        v
    }

    /// SM3 of `msg` with `compress` from the IV, as hex.
    fn digest_hex(compress: impl Fn(&mut [u32; 8], &[u8]), msg: &[u8]) -> String {
        let mut state = IV;
        compress(&mut state, &pad(msg));
        state.iter().map(|w| format!("{w:08x}")).collect()
    }

    /// The kernel, behind the feature check the callers of the tests have made.
    fn sm3_ce(state: &mut [u32; 8], blocks: &[u8]) {
        // SAFETY: every test calls this only after `have_sm3()` returned true.
        unsafe { compress(state, blocks) }
    }

    /// Deterministic test bytes (xorshift64).
    fn bytes(n: usize, mut seed: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 32) as u8
            })
            .collect()
    }

    #[test]
    fn standard_examples() {
        if !have_sm3() {
            return;
        }
        // GB/T 32905-2016 Appendix A, examples 1 and 2.
        assert_eq!(
            digest_hex(sm3_ce, b"abc"),
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
        );
        assert_eq!(
            digest_hex(sm3_ce, &b"abcd".repeat(16)),
            "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
        );
    }

    #[test]
    fn matches_portable_every_length() {
        if !have_sm3() {
            return;
        }
        let data = bytes(300, 0x1234_5678_9abc_def1);
        for n in 0..=300 {
            assert_eq!(
                digest_hex(sm3_ce, &data[..n]),
                digest_hex(soft::compress, &data[..n]),
                "len {n}"
            );
        }
    }

    #[test]
    fn matches_portable_one_mib_and_chaining() {
        if !have_sm3() {
            return;
        }
        let data = bytes(1 << 20, 0x0f1e_2d3c_4b5a_6978);
        // Several calls in a row chain the state exactly as one call does.
        let mut want = [0x0102_0304u32, 5, 6, 7, 8, 9, 10, 0xffff_ffff];
        let mut got = want;
        soft::compress(&mut want, &data);
        sm3_ce(&mut got, &data[..64 * 1000]);
        sm3_ce(&mut got, &data[64 * 1000..64 * 1001]);
        sm3_ce(&mut got, &[]);
        sm3_ce(&mut got, &data[64 * 1001..]);
        assert_eq!(got, want);
        assert_eq!(digest_hex(sm3_ce, &data), digest_hex(soft::compress, &data));
    }
}
