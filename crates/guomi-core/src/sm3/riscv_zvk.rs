//! SM3 compression (GB/T 32905-2016 §5.3) with the RISC-V vector extension Zvksh:
//! `vsm3me.vv` expands eight message words at a time and `vsm3c.vi` does two rounds.
//!
//! Both work on one 8 × 32-bit element group (`e32`, `vl` = 8; LMUL = 2 so that it fits
//! at VLEN = 128) whose words are in memory (big-endian) byte order: the message block
//! loads unchanged, and the state {A, ..., H} (element 0 = A) is byte-swapped on the way
//! in and out, in scalar code since V alone has no byte reverse (that is Zvkb).
//!
//! `vsm3c.vi vd, vs2, r` does rounds 2r and 2r + 1 and reads W_{2r}, W_{2r+1} from
//! elements 0, 1 of `vs2` and W_{2r+4}, W_{2r+5} from elements 4, 5; so eight rounds
//! 8k..8k+7 need the windows W_{8k..}, W_{8k+2..}, W_{8k+4..}, W_{8k+6..}, which are
//! slides of G_k = W_{8k..8k+7} and G_{k+1}. G_{k+2} = `vsm3me`(G_{k+1}, G_k) replaces
//! G_k, up to G_8 = W_64..W_71 (the last window needs W_67).
//!
//! Vector features are not stable Rust target features: the `asm!` block enables them
//! with `.option arch`, sets `vtype` itself and declares every vector register it writes
//! as clobbered.

#![allow(unsafe_code)]

use core::arch::asm;

/// Eight rounds 8k..8k+7 as assembly text: `$r0..$r3` = 4k..4k+3 (the `vsm3c`
/// immediates), `$ga` holds G_k and `$gb` G_{k+1}; `$me` appends the expansion of
/// G_{k+2} into `$ga`.
macro_rules! eight_rounds {
    ($r0:literal, $r1:literal, $r2:literal, $r3:literal, $ga:literal, $gb:literal) => {
        concat!(
            "vsm3c.vi v0, ",
            $ga,
            ", ",
            $r0,
            "\n",
            "vslidedown.vi v4, ",
            $ga,
            ", 2\n",
            "vsm3c.vi v0, v4, ",
            $r1,
            "\n",
            "vslidedown.vi v4, ",
            $ga,
            ", 4\n",
            "vslideup.vi v4, ",
            $gb,
            ", 4\n",
            "vsm3c.vi v0, v4, ",
            $r2,
            "\n",
            "vslidedown.vi v6, v4, 2\n",
            "vsm3c.vi v0, v6, ",
            $r3,
            "\n",
        )
    };
    ($r0:literal, $r1:literal, $r2:literal, $r3:literal, $ga:literal, $gb:literal, me) => {
        concat!(
            eight_rounds!($r0, $r1, $r2, $r3, $ga, $gb),
            "vsm3me.vv ",
            $ga,
            ", ",
            $gb,
            ", ",
            $ga,
            "\n",
        )
    };
}

/// Compresses whole 64-byte blocks into `state` (the standard's words A..H).
/// `blocks.len()` must be a multiple of 64.
///
/// # Safety
/// The CPU must implement V and Zvksh (`riscv_hwprobe` bits `RISCV_HWPROBE_IMA_V` and
/// `RISCV_HWPROBE_EXT_ZVKSH`).
pub(crate) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert!(blocks.len().is_multiple_of(64));
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    let mut s = state.map(u32::swap_bytes);
    // SAFETY: the caller guarantees V and Zvksh. The kernel reads and writes the 32 bytes
    // of `s` and reads the 64·`n` bytes of `blocks`; every vector register it writes is
    // declared clobbered.
    unsafe {
        asm!(
            ".option push",
            ".option arch, +v, +zvksh",
            "li {t}, 32",
            "vsetivli zero, 8, e32, m2, ta, ma",
            "vle32.v v0, ({s})",
            "2:",
            // G_0 = W_0..W_7 in v16, G_1 = W_8..W_15 in v18, as bytes.
            "vsetvli zero, {t}, e8, m2, ta, ma",
            "vle8.v v16, ({p})",
            "addi {p}, {p}, 32",
            "vle8.v v18, ({p})",
            "addi {p}, {p}, 32",
            "vsetivli zero, 8, e32, m2, ta, ma",
            "vmv.v.v v2, v0",
            eight_rounds!("0", "1", "2", "3", "v16", "v18", me),
            eight_rounds!("4", "5", "6", "7", "v18", "v16", me),
            eight_rounds!("8", "9", "10", "11", "v16", "v18", me),
            eight_rounds!("12", "13", "14", "15", "v18", "v16", me),
            eight_rounds!("16", "17", "18", "19", "v16", "v18", me),
            eight_rounds!("20", "21", "22", "23", "v18", "v16", me),
            eight_rounds!("24", "25", "26", "27", "v16", "v18", me),
            eight_rounds!("28", "29", "30", "31", "v18", "v16"),
            "vxor.vv v0, v0, v2",
            "addi {n}, {n}, -1",
            "bnez {n}, 2b",
            "vse32.v v0, ({s})",
            ".option pop",
            s = in(reg) s.as_mut_ptr(),
            p = inout(reg) blocks.as_ptr() => _,
            n = inout(reg) n => _,
            t = out(reg) _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            options(nostack),
        );
    }
    *state = s.map(u32::swap_bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm3::riscv_zk::tests::{abc_block, bytes, ABC_DIGEST};
    use crate::sm3::{soft, IV};

    /// Whether the CPU reports V and Zvksh through `riscv_hwprobe` (syscall 258, key
    /// `RISCV_HWPROBE_KEY_IMA_EXT_0` = 4; bits `RISCV_HWPROBE_IMA_V` = 1 << 2 and
    /// `RISCV_HWPROBE_EXT_ZVKSH` = 1 << 25 of Linux `arch/riscv/include/uapi/asm/hwprobe.h`).
    /// Under qemu-user this needs qemu 8.2 or later (e.g. qemu 10 `-cpu max`).
    fn zvksh() -> bool {
        const MASK: u64 = 1 << 2 | 1 << 25;
        let mut pair: [u64; 2] = [4, 0];
        let ret: isize;
        // SAFETY: riscv_hwprobe(pairs, 1, 0, NULL, 0) writes only the one 16-byte pair,
        // which outlives the call; the `ecall` returns in a0 and clobbers nothing else.
        unsafe {
            asm!(
                "ecall",
                in("a7") 258usize,
                inlateout("a0") pair.as_mut_ptr() => ret,
                in("a1") 1usize,
                in("a2") 0usize,
                in("a3") 0usize,
                in("a4") 0usize,
                options(nostack),
            );
        }
        ret == 0 && pair[0] == 4 && pair[1] & MASK == MASK
    }

    #[test]
    fn abc() {
        if !zvksh() {
            return;
        }
        let mut s = IV;
        // SAFETY: V and Zvksh checked above.
        unsafe { compress(&mut s, &abc_block()) };
        assert_eq!(s, ABC_DIGEST);
    }

    #[test]
    fn matches_portable() {
        if !zvksh() {
            return;
        }
        for n in 0..=20usize {
            for off in [0usize, 1, 3] {
                let buf = bytes(n as u64 + 17, 64 * n + off);
                let data = &buf[off..];
                let start: [u32; 8] = core::array::from_fn(|i| IV[i] ^ (n * 0x2468_ace1) as u32);
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
