//! SM3 compression (GB/T 32905-2016 §5.3) with the RISC-V scalar ShangMi extension Zksh:
//! the permutations P0 and P1 are one instruction each (`sm3p0`, `sm3p1`); the rest is
//! the portable round. Data-independent control flow, no tables.

#![allow(unsafe_code)]

use super::T_ROTATED;
use core::arch::asm;
use zeroize::Zeroize;

/// P0 or P1 (`$insn` = "sm3p0" / "sm3p1") of a word.
macro_rules! zksh {
    ($insn:literal, $x:expr) => {{
        let x: u32 = $x;
        let out: u32;
        // SAFETY: the enclosing function is compiled with `zksh`, which its caller
        // verified the CPU executes; the instruction reads one register and writes one.
        unsafe {
            asm!(
                concat!($insn, " {o}, {x}"),
                o = lateout(reg) out,
                x = in(reg) x,
                options(pure, nomem, nostack),
            )
        };
        out
    }};
}

/// Compresses whole 64-byte blocks into `state` (the standard's words A..H).
/// `blocks.len()` must be a multiple of 64.
///
/// # Safety
/// The CPU must implement Zksh (`sm3p0`, `sm3p1`), e.g. checked with
/// `is_riscv_feature_detected!("zksh")` or the `riscv_hwprobe` bit `RISCV_HWPROBE_EXT_ZKSH`.
#[target_feature(enable = "zksh")]
pub(crate) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert!(blocks.len().is_multiple_of(64));
    let mut w = [0u32; 68];
    for block in blocks.chunks_exact(64) {
        for (w, b) in w.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_be_bytes(b.try_into().unwrap());
        }
        // §5.3.2: W_j = P1(W_{j-16} ^ W_{j-9} ^ (W_{j-3} <<< 15)) ^ (W_{j-13} <<< 7) ^ W_{j-6}.
        for j in 16..68 {
            w[j] = zksh!("sm3p1", w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15))
                ^ w[j - 13].rotate_left(7)
                ^ w[j - 6];
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        // §5.3.3, one round with FF_j and GG_j given.
        macro_rules! round {
            ($j:expr, $ff:expr, $gg:expr) => {{
                let j = $j;
                let a12 = a.rotate_left(12);
                let ss1 = a12
                    .wrapping_add(e)
                    .wrapping_add(T_ROTATED[j])
                    .rotate_left(7);
                let ss2 = ss1 ^ a12;
                let tt1 = $ff(a, b, c)
                    .wrapping_add(d)
                    .wrapping_add(ss2)
                    .wrapping_add(w[j] ^ w[j + 4]);
                let tt2 = $gg(e, f, g)
                    .wrapping_add(h)
                    .wrapping_add(ss1)
                    .wrapping_add(w[j]);
                d = c;
                c = b.rotate_left(9);
                b = a;
                a = tt1;
                h = g;
                g = f.rotate_left(19);
                f = e;
                e = zksh!("sm3p0", tt2);
            }};
        }
        let xor3 = |x: u32, y: u32, z: u32| x ^ y ^ z;
        let maj = |x: u32, y: u32, z: u32| (x & y) | (z & (x | y));
        let choose = |x: u32, y: u32, z: u32| ((y ^ z) & x) ^ z;
        for j in 0..16 {
            round!(j, xor3, xor3);
        }
        for j in 16..64 {
            round!(j, maj, choose);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s ^= v;
        }
    }
    w.zeroize();
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sm3::{soft, IV};

    /// Whether the tests may run the Zksh kernel: the CPU reports Zksh, or
    /// `GUOMI_TEST_ZK=1` asserts it (qemu-user before 8.x has no `riscv_hwprobe`, so
    /// std's detection says no even under `-cpu rv64,zksh=true`).
    fn zksh() -> bool {
        std::arch::is_riscv_feature_detected!("zksh")
            || std::env::var_os("GUOMI_TEST_ZK").is_some_and(|v| v == "1")
    }

    /// Deterministic test bytes (xorshift64).
    pub(crate) fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    /// "abc" padded to one block (§5.2).
    pub(crate) fn abc_block() -> [u8; 64] {
        let mut b = [0u8; 64];
        b[..3].copy_from_slice(b"abc");
        b[3] = 0x80;
        b[63] = 24;
        b
    }

    /// GB/T 32905-2016 Appendix A example 1: SM3("abc").
    pub(crate) const ABC_DIGEST: [u32; 8] = [
        0x66c7_f0f4,
        0x62ee_edd9,
        0xd1f2_d46b,
        0xdc10_e4e2,
        0x4167_c487,
        0x5cf2_f7a2,
        0x297d_a02b,
        0x8f4b_a8e0,
    ];

    #[test]
    fn abc() {
        if !zksh() {
            return;
        }
        let mut s = IV;
        // SAFETY: Zksh checked above.
        unsafe { compress(&mut s, &abc_block()) };
        assert_eq!(s, ABC_DIGEST);
    }

    #[test]
    fn matches_portable() {
        if !zksh() {
            return;
        }
        for n in 0..=20usize {
            for off in [0usize, 1] {
                let buf = bytes(n as u64 + 11, 64 * n + off);
                let data = &buf[off..];
                let start: [u32; 8] = core::array::from_fn(|i| IV[i] ^ (n * 0x1234_5679) as u32);
                let mut want = start;
                soft::compress(&mut want, data);
                let mut got = start;
                // SAFETY: as above.
                unsafe { compress(&mut got, data) };
                assert_eq!(got, want, "n={n} off={off}");
            }
        }
    }
}
