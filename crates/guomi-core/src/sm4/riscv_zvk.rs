//! SM4 on the RISC-V vector ShangMi extension Zvksed (`vsm4r.vs`), vector-length
//! agnostic.
//!
//! `vsm4r` does four rounds on every 4 × 32-bit element group of its destination (one
//! block per group) with the four round keys of a single group (`.vs`: element group 0
//! of `vs2`). Unlike the scalar Zksed, its words are the standard's own 32-bit values
//! (element 0 = X0), so a block's big-endian bytes are byte-swapped into the elements
//! and, after the 32 rounds leave (X32, X33, X34, X35) in the group, R(...) = (X35, X34,
//! X33, X32) in big-endian bytes is exactly the group's 16 little-endian bytes reversed.
//! Both permutations are one `vrgatherei16` over the bytes (index `i ^ 3` in, `i ^ 15`
//! out), which needs only V (no Zvkb `vrev8`).
//!
//! The blocks run in groups of LMUL = 4 (`e32, m4`: VLEN/32 blocks per instruction, 4
//! at VLEN = 128). `vl` is always set to an exact multiple of the element-group size: the
//! loop takes `min(remaining, VLMAX)` words itself rather than trusting `vsetvli`'s split
//! of an AVL between VLMAX and 2·VLMAX. Vector features are not stable Rust target
//! features, so each `asm!` block enables them with `.option arch` and sets `vtype`
//! itself (it does not survive between blocks), and declares every vector register it
//! writes as clobbered.
//!
//! Nothing branches on or indexes memory with secret data.

#![allow(unsafe_code)]

use super::{Serial, BLOCK_SIZE, ROUNDS};
use core::arch::asm;

/// Counter blocks prepared per call of the CTR kernel (1 KiB of counter words).
const CTR_CHUNK: usize = 64;

/// Encrypts every block of `data` in place (ECB; decrypts with reversed keys) with the
/// standard's round keys `rk`. `data.len()` must be a multiple of 16.
///
/// # Safety
/// The CPU must implement V and Zvksed (`riscv_hwprobe` bits `RISCV_HWPROBE_IMA_V` and
/// `RISCV_HWPROBE_EXT_ZVKSED`), with VLEN ≥ 128 (implied by V).
pub(crate) unsafe fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    let p = data.as_mut_ptr();
    // SAFETY: the caller's CPU guarantee; `data.len()` bytes at `p`, in place.
    unsafe { crypt_ptr(rk, p, p, data.len()) }
}

/// ECB from `src` into `dst` (equal lengths, whole blocks) without a copy.
///
/// # Safety
/// As [`crypt_blocks`].
pub(crate) unsafe fn crypt_blocks_to(rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    debug_assert!(src.len().is_multiple_of(BLOCK_SIZE));
    assert_eq!(src.len(), dst.len(), "equal lengths");
    // SAFETY: the caller's CPU guarantee; distinct borrows of `src.len()` bytes each.
    unsafe { crypt_ptr(rk, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// The ECB kernel over `len` bytes (a multiple of 16) from `src` to `dst`.
///
/// # Safety
/// V and Zvksed; `len` readable bytes at `src` and writable bytes at `dst`, the same
/// pointer or not overlapping (each group is loaded before it is stored).
unsafe fn crypt_ptr(rk: &[u32; ROUNDS], src: *const u8, dst: *mut u8, len: usize) {
    let words = len / 4;
    if words == 0 {
        return;
    }
    // SAFETY: the caller guarantees V and Zvksed. The kernel reads the 128 bytes of `rk`,
    // reads `len` bytes at `src` and writes `len` at `dst` (in steps of at most VLMAX
    // words); every vector register it writes is declared clobbered.
    unsafe {
        asm!(
            ".option push",
            ".option arch, +v, +zvksed",
            // Round keys rk_{4i}..rk_{4i+3} in v0..v7, one element group each.
            "vsetivli zero, 4, e32, m1, ta, ma",
            "vle32.v v0, ({rk})",
            "addi {t}, {rk}, 16",
            "vle32.v v1, ({t})",
            "addi {t}, {rk}, 32",
            "vle32.v v2, ({t})",
            "addi {t}, {rk}, 48",
            "vle32.v v3, ({t})",
            "addi {t}, {rk}, 64",
            "vle32.v v4, ({t})",
            "addi {t}, {rk}, 80",
            "vle32.v v5, ({t})",
            "addi {t}, {rk}, 96",
            "vle32.v v6, ({t})",
            "addi {t}, {rk}, 112",
            "vle32.v v7, ({t})",
            // Byte permutations (16-bit indices: VLMAX of e8/m4 may exceed 256):
            // v16 = i ^ 3 (byte-swap each word), v24 = i ^ 15 (reverse each block).
            "vsetvli {max}, zero, e16, m8, ta, ma",
            "vid.v v16",
            "vxor.vi v24, v16, 15",
            "vxor.vi v16, v16, 3",
            // VLMAX of e32/m4 = VLMAX of e16/m8 / 4, a multiple of 4 (VLEN >= 128).
            "srli {max}, {max}, 2",
            "2:",
            "mv {n}, {rem}",
            "bleu {rem}, {max}, 3f",
            "mv {n}, {max}",
            "3:",
            "slli {t}, {n}, 2",
            "vsetvli zero, {t}, e8, m4, ta, ma",
            "vle8.v v12, ({s})",
            "vrgatherei16.vv v8, v12, v16",
            "vsetvli zero, {n}, e32, m4, ta, ma",
            "vsm4r.vs v8, v0",
            "vsm4r.vs v8, v1",
            "vsm4r.vs v8, v2",
            "vsm4r.vs v8, v3",
            "vsm4r.vs v8, v4",
            "vsm4r.vs v8, v5",
            "vsm4r.vs v8, v6",
            "vsm4r.vs v8, v7",
            "vsetvli zero, {t}, e8, m4, ta, ma",
            "vrgatherei16.vv v12, v8, v24",
            "vse8.v v12, ({d})",
            "add {s}, {s}, {t}",
            "add {d}, {d}, {t}",
            "sub {rem}, {rem}, {n}",
            "bnez {rem}, 2b",
            ".option pop",
            rk = in(reg) rk.as_ptr(),
            s = inout(reg) src => _,
            d = inout(reg) dst => _,
            rem = inout(reg) words => _,
            n = out(reg) _,
            t = out(reg) _,
            max = out(reg) _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            out("v20") _, out("v21") _, out("v22") _, out("v23") _,
            out("v24") _, out("v25") _, out("v26") _, out("v27") _,
            out("v28") _, out("v29") _, out("v30") _, out("v31") _,
            options(nostack),
        );
    }
}

/// One serial-mode kernel: the round keys in v0..v7, the byte permutations i ^ 3 (v16,
/// byte-swap each word) and i ^ 15 (v17, reverse the block), the chaining value as bytes
/// in v12 from `reg` and back; `$body` runs once per block at `p` (v8 the state for the
/// rounds, `e8` with vl = 16 on entry and exit, v13 free).
macro_rules! serial_kernel {
    ($rk:expr, $reg:expr, $data:expr, $($body:tt)*) => {
        asm!(
            ".option push",
            ".option arch, +v, +zvksed",
            "vsetivli zero, 4, e32, m1, ta, ma",
            "vle32.v v0, ({rk})",
            "addi {t}, {rk}, 16",
            "vle32.v v1, ({t})",
            "addi {t}, {rk}, 32",
            "vle32.v v2, ({t})",
            "addi {t}, {rk}, 48",
            "vle32.v v3, ({t})",
            "addi {t}, {rk}, 64",
            "vle32.v v4, ({t})",
            "addi {t}, {rk}, 80",
            "vle32.v v5, ({t})",
            "addi {t}, {rk}, 96",
            "vle32.v v6, ({t})",
            "addi {t}, {rk}, 112",
            "vle32.v v7, ({t})",
            "vsetivli zero, 16, e8, m1, ta, ma",
            "vid.v v16",
            "vxor.vi v17, v16, 15",
            "vxor.vi v16, v16, 3",
            "vle8.v v12, ({reg})",
            "2:",
            $($body)*
            "addi {p}, {p}, 16",
            "bne {p}, {end}, 2b",
            "vse8.v v12, ({reg})",
            ".option pop",
            rk = in(reg) $rk.as_ptr(),
            reg = in(reg) $reg.as_mut_ptr(),
            p = inout(reg) $data.as_mut_ptr() => _,
            end = in(reg) $data.as_mut_ptr().add($data.len()),
            t = out(reg) _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
            out("v8") _, out("v12") _, out("v13") _,
            out("v16") _, out("v17") _,
            options(nostack),
        )
    };
}

/// A serial mode over the whole blocks of `data` with `rk` (the encryption keys), one
/// block at a time through `vsm4r.vs` with the round keys and the chaining value kept in
/// vector registers; `reg` is updated for the next call.
///
/// # Safety
/// The CPU must implement V and Zvksed (see [`crypt_blocks`]).
pub(crate) unsafe fn serial(rk: &[u32; ROUNDS], mode: Serial, reg: &mut [u8; 16], data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    if data.len() < BLOCK_SIZE {
        return;
    }
    // The 32 rounds on v8 (e32, vl = 4), back to e8 with vl = 16.
    macro_rules! rounds {
        () => {
            concat!(
                "vsetivli zero, 4, e32, m1, ta, ma\n",
                "vsm4r.vs v8, v0\n",
                "vsm4r.vs v8, v1\n",
                "vsm4r.vs v8, v2\n",
                "vsm4r.vs v8, v3\n",
                "vsm4r.vs v8, v4\n",
                "vsm4r.vs v8, v5\n",
                "vsm4r.vs v8, v6\n",
                "vsm4r.vs v8, v7\n",
                "vsetivli zero, 16, e8, m1, ta, ma",
            )
        };
    }
    // SAFETY: the caller guarantees V and Zvksed. Each kernel reads the 128 bytes of
    // `rk`, reads and writes the 16 bytes of `reg` and the whole blocks of `data` (at
    // least one: `p` reaches `end` after the last); every vector register it writes is
    // declared clobbered.
    unsafe {
        match mode {
            // C_i = E(P_i ^ C_{i-1}).
            Serial::CbcEncrypt => serial_kernel!(
                rk,
                reg,
                data,
                "vle8.v v13, ({p})",
                "vxor.vv v13, v13, v12",
                "vrgather.vv v8, v13, v16",
                rounds!(),
                "vrgather.vv v12, v8, v17",
                "vse8.v v12, ({p})",
            ),
            // Y_i = E(B_i ^ Y_{i-1}), the data left unchanged.
            Serial::CbcMac => serial_kernel!(
                rk,
                reg,
                data,
                "vle8.v v13, ({p})",
                "vxor.vv v13, v13, v12",
                "vrgather.vv v8, v13, v16",
                rounds!(),
                "vrgather.vv v12, v8, v17",
            ),
            // C_i = P_i ^ E(C_{i-1}).
            Serial::CfbEncrypt => serial_kernel!(
                rk,
                reg,
                data,
                "vrgather.vv v8, v12, v16",
                rounds!(),
                "vrgather.vv v12, v8, v17",
                "vle8.v v13, ({p})",
                "vxor.vv v12, v12, v13",
                "vse8.v v12, ({p})",
            ),
            // O_i = E(O_{i-1}), C_i = P_i ^ O_i.
            Serial::Ofb => serial_kernel!(
                rk,
                reg,
                data,
                "vrgather.vv v8, v12, v16",
                rounds!(),
                "vrgather.vv v12, v8, v17",
                "vle8.v v13, ({p})",
                "vxor.vv v13, v13, v12",
                "vse8.v v13, ({p})",
            ),
        }
    }
}

/// XORs the CTR keystream into `data` (whole blocks): block i is encrypted from
/// `*counter + i` (128-bit big-endian, wrapping), and `*counter` advances by the number
/// of blocks.
///
/// The counter blocks are written as the standard's words (X0 = the top 32 bits, ...)
/// into a buffer, `CTR_CHUNK` blocks at a time, so they load without a byte swap; the
/// 128-bit carries stay in scalar code.
///
/// # Safety
/// The CPU must implement V and Zvksed (see [`crypt_blocks`]).
pub(crate) unsafe fn ctr_xor(rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    let mut ctr = *counter;
    let mut words = [0u32; 4 * CTR_CHUNK];
    for chunk in data.chunks_mut(BLOCK_SIZE * CTR_CHUNK) {
        let n = chunk.len() / BLOCK_SIZE;
        for w in words[..4 * n].chunks_exact_mut(4) {
            w.copy_from_slice(&[
                (ctr >> 96) as u32,
                (ctr >> 64) as u32,
                (ctr >> 32) as u32,
                ctr as u32,
            ]);
            ctr = ctr.wrapping_add(1);
        }
        // SAFETY: the caller guarantees V and Zvksed. The kernel reads the 128 bytes of
        // `rk` and the first 4·`n` counter words, and reads and writes exactly `chunk`
        // (16·`n` bytes), in steps of at most VLMAX words; every vector register it
        // writes is declared clobbered.
        unsafe {
            asm!(
                ".option push",
                ".option arch, +v, +zvksed",
                "vsetivli zero, 4, e32, m1, ta, ma",
                "vle32.v v0, ({rk})",
                "addi {t}, {rk}, 16",
                "vle32.v v1, ({t})",
                "addi {t}, {rk}, 32",
                "vle32.v v2, ({t})",
                "addi {t}, {rk}, 48",
                "vle32.v v3, ({t})",
                "addi {t}, {rk}, 64",
                "vle32.v v4, ({t})",
                "addi {t}, {rk}, 80",
                "vle32.v v5, ({t})",
                "addi {t}, {rk}, 96",
                "vle32.v v6, ({t})",
                "addi {t}, {rk}, 112",
                "vle32.v v7, ({t})",
                // v24 = i ^ 15: each block's 16 bytes reversed (see the module docs).
                "vsetvli {max}, zero, e16, m8, ta, ma",
                "vid.v v24",
                "vxor.vi v24, v24, 15",
                "srli {max}, {max}, 2",
                "2:",
                "mv {n}, {rem}",
                "bleu {rem}, {max}, 3f",
                "mv {n}, {max}",
                "3:",
                "slli {t}, {n}, 2",
                "vsetvli zero, {n}, e32, m4, ta, ma",
                "vle32.v v8, ({c})",
                "vsm4r.vs v8, v0",
                "vsm4r.vs v8, v1",
                "vsm4r.vs v8, v2",
                "vsm4r.vs v8, v3",
                "vsm4r.vs v8, v4",
                "vsm4r.vs v8, v5",
                "vsm4r.vs v8, v6",
                "vsm4r.vs v8, v7",
                "vsetvli zero, {t}, e8, m4, ta, ma",
                "vrgatherei16.vv v12, v8, v24",
                "vle8.v v16, ({p})",
                "vxor.vv v12, v12, v16",
                "vse8.v v12, ({p})",
                "add {p}, {p}, {t}",
                "add {c}, {c}, {t}",
                "sub {rem}, {rem}, {n}",
                "bnez {rem}, 2b",
                ".option pop",
                rk = in(reg) rk.as_ptr(),
                c = inout(reg) words.as_ptr() => _,
                p = inout(reg) chunk.as_mut_ptr() => _,
                rem = inout(reg) 4 * n => _,
                n = out(reg) _,
                t = out(reg) _,
                max = out(reg) _,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _,
                out("v4") _, out("v5") _, out("v6") _, out("v7") _,
                out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _,
                out("v16") _, out("v17") _, out("v18") _, out("v19") _,
                out("v24") _, out("v25") _, out("v26") _, out("v27") _,
                out("v28") _, out("v29") _, out("v30") _, out("v31") _,
                options(nostack),
            );
        }
    }
    *counter = ctr;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sm4::riscv_zk::tests::{bytes, portable_keys, KAT_CT, KAT_KEY};
    use crate::sm4::soft;

    /// `RISCV_HWPROBE_IMA_V` (Linux `arch/riscv/include/uapi/asm/hwprobe.h`).
    pub(crate) const HWPROBE_V: u64 = 1 << 2;
    /// `RISCV_HWPROBE_EXT_ZVKG`.
    pub(crate) const HWPROBE_ZVKG: u64 = 1 << 20;
    /// `RISCV_HWPROBE_EXT_ZVKSED`.
    const HWPROBE_ZVKSED: u64 = 1 << 24;

    /// Whether the CPU reports every extension bit in `mask` through `riscv_hwprobe`
    /// (syscall 258, key `RISCV_HWPROBE_KEY_IMA_EXT_0` = 4); false when the call fails.
    /// Under qemu-user this needs qemu 8.2 or later (e.g. qemu 10 `-cpu max`).
    pub(crate) fn hwprobe_has(mask: u64) -> bool {
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
        ret == 0 && pair[0] == 4 && pair[1] & mask == mask
    }

    fn zvksed() -> bool {
        hwprobe_has(HWPROBE_V | HWPROBE_ZVKSED)
    }

    #[test]
    fn known_answer() {
        if !zvksed() {
            return;
        }
        let (_, enc, dec) = portable_keys(&KAT_KEY);
        for n in [1usize, 3, 4, 5, 17] {
            let mut d = [KAT_KEY].repeat(n).concat();
            // SAFETY: V and Zvksed checked above.
            unsafe { crypt_blocks(&enc, &mut d) };
            assert_eq!(d, [KAT_CT].repeat(n).concat(), "n={n}");
            // SAFETY: as above.
            unsafe { crypt_blocks(&dec, &mut d) };
            assert_eq!(d, [KAT_KEY].repeat(n).concat(), "n={n}");
        }
    }

    #[test]
    fn blocks_match_portable() {
        if !zvksed() {
            return;
        }
        for seed in 0..4u64 {
            let key: [u8; 16] = bytes(200 + seed, 16).try_into().unwrap();
            let (_, enc, dec) = portable_keys(&key);
            for n in (0..=40).chain([257]) {
                for off in [0usize, 1] {
                    let data = bytes(seed * 1000 + n as u64, 16 * n);
                    let mut want = data.clone();
                    soft::crypt_blocks(&enc, &mut want);
                    let mut buf = vec![0u8; 16 * n + off];
                    buf[off..].copy_from_slice(&data);
                    // SAFETY: V and Zvksed checked above.
                    unsafe { crypt_blocks(&enc, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &want[..], "n={n} off={off}");
                    // SAFETY: as above.
                    unsafe { crypt_blocks(&dec, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &data[..], "n={n} off={off} decrypt");
                }
            }
        }
    }

    #[test]
    fn ctr_matches_portable() {
        if !zvksed() {
            return;
        }
        let key: [u8; 16] = bytes(6, 16).try_into().unwrap();
        let (portable, enc, _) = portable_keys(&key);
        let starts = [
            0u128,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            u128::from(u32::MAX) - 2,
            u128::from(u64::MAX) - 5,
            u128::MAX - 3,
            u128::MAX,
        ];
        for (i, &start) in starts.iter().enumerate() {
            for n in (0..=40).chain([64, 65, 129, 257]) {
                for off in [0usize, 1] {
                    let data = bytes(i as u64 * 977 + n as u64, 16 * n);
                    let (mut want, mut want_ctr) = (data.clone(), start);
                    portable.ctr_xor(&mut want_ctr, &mut want);
                    let mut buf = vec![0u8; 16 * n + off];
                    buf[off..].copy_from_slice(&data);
                    let mut ctr = start;
                    // SAFETY: V and Zvksed checked above.
                    unsafe { ctr_xor(&enc, &mut ctr, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &want[..], "start={start:#x} n={n} off={off}");
                    assert_eq!(ctr, want_ctr, "start={start:#x} n={n}");
                    assert_eq!(ctr, start.wrapping_add(n as u128));
                }
            }
        }
    }
}
