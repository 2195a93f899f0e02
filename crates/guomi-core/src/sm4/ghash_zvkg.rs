//! GHASH (NIST SP 800-38D §6.4) by the RISC-V vector extension Zvkg (`vghsh.vv`).
//!
//! `vghsh.vv vd, vs2, vs1` computes Y ← (Y ⊕ X) · H on one 128-bit element group, with
//! Y in `vd`, H in `vs2` and the block X in `vs1`, all in GCM's own byte order (the
//! instruction reverses the bits of each byte itself), so the bytes load unchanged. One
//! block per instruction: each product depends on the previous one, so the chain is
//! serial by nature. The loads are byte loads (`e8`), so no alignment is needed.
//!
//! Vector features are not stable Rust target features: the `asm!` block enables them
//! with `.option arch` and sets `vtype` itself.

#![allow(unsafe_code)]

use core::arch::asm;

/// Absorbs `data` (whole 16-byte blocks) into the GHASH state `y` with the hash subkey
/// `h` (both as the 16 bytes of SP 800-38D, H = E_K(0^128)).
///
/// # Safety
/// The CPU must implement V and Zvkg (`riscv_hwprobe` bits `RISCV_HWPROBE_IMA_V` and
/// `RISCV_HWPROBE_EXT_ZVKG`).
pub(crate) unsafe fn ghash(h: &[u8; 16], y: &mut [u8; 16], data: &[u8]) {
    debug_assert!(data.len().is_multiple_of(16));
    let blocks = data.len() / 16;
    if blocks == 0 {
        return;
    }
    // SAFETY: the caller guarantees V and Zvkg. The kernel reads `h`, `y` and the 16·
    // `blocks` bytes of `data` and writes only `y`; the vector registers it writes are
    // declared clobbered.
    unsafe {
        asm!(
            ".option push",
            ".option arch, +v, +zvkg",
            "vsetivli zero, 16, e8, m1, ta, ma",
            "vle8.v v1, ({y})",
            "vle8.v v2, ({h})",
            "2:",
            "vsetivli zero, 16, e8, m1, ta, ma",
            "vle8.v v3, ({p})",
            "vsetivli zero, 4, e32, m1, ta, ma",
            "vghsh.vv v1, v2, v3",
            "addi {p}, {p}, 16",
            "addi {n}, {n}, -1",
            "bnez {n}, 2b",
            "vsetivli zero, 16, e8, m1, ta, ma",
            "vse8.v v1, ({y})",
            ".option pop",
            y = in(reg) y.as_mut_ptr(),
            h = in(reg) h.as_ptr(),
            p = inout(reg) data.as_ptr() => _,
            n = inout(reg) blocks => _,
            out("v1") _, out("v2") _, out("v3") _,
            options(nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{Backend, Variant};
    use crate::sm4::ghash::GhashKey;
    use crate::sm4::riscv_zk::tests::bytes;
    use crate::sm4::riscv_zvk::tests::{hwprobe_has, HWPROBE_V, HWPROBE_ZVKG};

    #[test]
    fn matches_portable() {
        if !hwprobe_has(HWPROBE_V | HWPROBE_ZVKG) {
            return;
        }
        for seed in 0..8u64 {
            let h: [u8; 16] = bytes(300 + seed, 16).try_into().unwrap();
            let key = GhashKey::new(h, Variant::from(Backend::Portable));
            for n in 0..=20usize {
                for off in [0usize, 1, 3] {
                    let y0: [u8; 16] = bytes(400 + seed * 31 + n as u64, 16).try_into().unwrap();
                    let buf = bytes(seed * 100 + n as u64, 16 * n + off);
                    let data = &buf[off..];
                    let mut want = y0;
                    key.update_blocks(&mut want, data);
                    let mut got = y0;
                    // SAFETY: V and Zvkg checked above.
                    unsafe { ghash(&h, &mut got, data) };
                    assert_eq!(got, want, "seed={seed} n={n} off={off}");
                }
            }
        }
    }

    #[test]
    fn known_product() {
        if !hwprobe_has(HWPROBE_V | HWPROBE_ZVKG) {
            return;
        }
        // SP 800-38D test case 2 (AES-128, zero key, zero IV, one zero block):
        // H = 66e94bd4ef8a2c3b884cfa59ca342b2e, C = 0388dace60b6a392f328c2b971b2fe78,
        // GHASH(H, {}, C) = f38cbb1b..., the block of lengths 0 || 128 included.
        let h = hex16("66e94bd4ef8a2c3b884cfa59ca342b2e");
        let mut data = hex16("0388dace60b6a392f328c2b971b2fe78").to_vec();
        data.extend_from_slice(&hex16("00000000000000000000000000000080"));
        let mut y = [0u8; 16];
        // SAFETY: V and Zvkg checked above.
        unsafe { ghash(&h, &mut y, &data) };
        assert_eq!(y, hex16("f38cbb1ad69223dcc3457ae5b6b0f885"));
    }

    fn hex16(s: &str) -> [u8; 16] {
        hex::decode(s).unwrap().try_into().unwrap()
    }
}
