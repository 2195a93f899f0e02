//! The SM4 kernels of the SIMD backends, selected once per key: each [`Native`] value
//! holds the CPU-proof token ([`cpu::Avx2`], [`cpu::Avx512`], [`cpu::ArmSm`],
//! [`cpu::Zk`], ...) of the instructions its kernel runs, so the calls below are sound by
//! construction. `Sm4` dispatches every operation through here, and falls back to the
//! portable code (`soft`) where a method answers "not done".
//!
//! | backend | single block (serial modes)    | many blocks (ECB, CTR, ...)        |
//! |---------|--------------------------------|------------------------------------|
//! | `avx2`  | `x86_avx2` (AES-NI S-box)      | `x86_avx2`, 16 blocks (VAES: 32)   |
//! | `avx512`| `x86_avx512` (GFNI S-box)      | `x86_avx512`, 64 blocks on zmm     |
//! | `neon`  | `aarch64_neon` (TBL S-box)     | `aarch64_neon`, 4+ blocks in flight |
//! | `armsm` | `aarch64_sm4e` (SM4E)          | `aarch64_sm4e`, 8 blocks in flight  |
//! | `zk`    | `riscv_zk` (`sm4ed`)           | `riscv_zk`                          |
//! | `zvk`   | `riscv_zk` (`sm4ed`: lower latency than a vector group for one block) | `riscv_zvk` (`vsm4r`) |
//!
//!
//! The serial modes (CBC and CFB encryption, CBC-MAC, OFB) run in one kernel call per
//! request with the round keys and the chaining value in registers (`serial`), except on
//! `neon`, where they go block by block.

#![allow(unsafe_code)]

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
))]
use crate::cpu;
use crate::cpu::Variant;

use super::{Serial, ROUNDS};

/// The key's kernel and the proof that this CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Native {
    /// No kernel here: `portable`.
    None,
    /// x86-64 AES-NI S-box on AVX2, with 256-bit VAES where the variant uses it.
    #[cfg(target_arch = "x86_64")]
    Avx2(cpu::Avx2, Option<cpu::Vaes>),
    /// x86-64 GFNI S-box on AVX-512.
    #[cfg(target_arch = "x86_64")]
    Avx512(cpu::Avx512),
    /// aarch64 NEON (baseline on every aarch64 CPU Rust targets).
    #[cfg(target_arch = "aarch64")]
    Neon,
    /// aarch64 SM4E.
    #[cfg(target_arch = "aarch64")]
    ArmSm(cpu::ArmSm),
    /// riscv64 scalar Zksed.
    #[cfg(target_arch = "riscv64")]
    Zk(cpu::Zk),
    /// riscv64 vector Zvksed (with the scalar one for single blocks).
    #[cfg(target_arch = "riscv64")]
    Zvk(cpu::Zvk, cpu::Zk),
}

impl Native {
    /// The kernel for a (clamped) variant.
    pub(crate) fn for_variant(variant: Variant) -> Native {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = variant.avx512() {
                return Native::Avx512(t);
            }
            if let Some(t) = variant.avx2() {
                return Native::Avx2(t, variant.vaes());
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if let Some(t) = variant.arm_sm() {
                return Native::ArmSm(t);
            }
            if variant.neon() {
                return Native::Neon;
            }
        }
        #[cfg(target_arch = "riscv64")]
        if let Some(zk) = variant.zk() {
            return match variant.zvk() {
                Some(zvk) => Native::Zvk(zvk, zk),
                None => Native::Zk(zk),
            };
        }
        let _ = variant;
        Native::None
    }

    /// The §7.3 encryption round keys by the key-expansion instruction (`SM4EKEY`,
    /// `sm4ks`), when the kernel has one.
    #[cfg_attr(
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
        allow(unused_variables)
    )]
    pub(crate) fn expand_key(self, key: &[u8; 16]) -> Option<[u32; ROUNDS]> {
        match self {
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
            Native::ArmSm(_) => Some(unsafe { super::aarch64_sm4e::expand_key(key) }),
            #[cfg(target_arch = "riscv64")]
            // SAFETY: the Zk token proves Zksed.
            Native::Zk(_) | Native::Zvk(..) => Some(unsafe { super::riscv_zk::expand_key(key) }),
            _ => None,
        }
    }

    /// τ (§6.2) of one word with the kernel's S-box, for the key schedule where the
    /// kernel has no key-expansion instruction; `None` for the portable one.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn tau(self, w: u32) -> Option<u32> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => Some(super::x86_avx512::tau(t, w)),
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, _) => Some(super::x86_avx2::tau(t, w)),
            _ => None,
        }
    }

    /// One block in place; `false` when there is no native kernel.
    #[inline]
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn block(self, rk: &[u32; ROUNDS], block: &mut [u8; 16]) -> bool {
        match self {
            Native::None => false,
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::crypt_block(t, rk, block);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, _) => {
                super::x86_avx2::crypt_block(t, rk, block);
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::Neon => {
                // SAFETY: NEON is part of every aarch64 target Rust builds for.
                unsafe { super::aarch64_neon::crypt_block(rk, block) };
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::crypt_block(rk, block) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) | Native::Zvk(..) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::crypt_block(rk, block) };
                true
            }
        }
    }

    /// Whole blocks in place; `false` when there is no native kernel.
    #[inline]
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn blocks(self, rk: &[u32; ROUNDS], data: &mut [u8]) -> bool {
        match self {
            Native::None => false,
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::crypt_blocks(t, rk, data);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, vaes) => {
                super::x86_avx2::crypt_blocks(t, vaes, rk, data);
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::Neon => {
                // SAFETY: NEON is part of every aarch64 target Rust builds for.
                unsafe { super::aarch64_neon::crypt_blocks(rk, data) };
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::crypt_blocks(rk, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::crypt_blocks(rk, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvk(..) => {
                // SAFETY: the Zvk token proves V and Zvksed.
                unsafe { super::riscv_zvk::crypt_blocks(rk, data) };
                true
            }
        }
    }

    /// Whole blocks from `src` into `dst` (equal lengths) without a copy; `false` when
    /// there is no native kernel.
    #[inline]
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn blocks_to(self, rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) -> bool {
        match self {
            Native::None => false,
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::crypt_blocks_to(t, rk, src, dst);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(..) => false,
            #[cfg(target_arch = "aarch64")]
            Native::Neon => {
                // SAFETY: NEON is part of every aarch64 target Rust builds for.
                unsafe { super::aarch64_neon::crypt_blocks_to(rk, src, dst) };
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::crypt_blocks_to(rk, src, dst) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::crypt_blocks_to(rk, src, dst) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvk(..) => {
                // SAFETY: the Zvk token proves V and Zvksed.
                unsafe { super::riscv_zvk::crypt_blocks_to(rk, src, dst) };
                true
            }
        }
    }

    /// A serial mode over whole blocks with the encryption keys `rk`, the keys and the
    /// chaining value held in registers across blocks; `false` when there is no native
    /// kernel.
    #[inline]
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn serial(
        self,
        rk: &[u32; ROUNDS],
        mode: Serial,
        reg: &mut [u8; 16],
        data: &mut [u8],
    ) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::serial(t, rk, mode, reg, data);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, _) => {
                super::x86_avx2::serial(t, rk, mode, reg, data);
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::serial(rk, mode, reg, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::serial(rk, mode, reg, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvk(..) => {
                // SAFETY: the Zvk token proves V and Zvksed.
                unsafe { super::riscv_zvk::serial(rk, mode, reg, data) };
                true
            }
            _ => false,
        }
    }

    /// Fused CBC decryption (`cfb` false, `rk` the decryption keys) or CFB decryption
    /// (`cfb` true, the encryption keys) of a prefix of `data`, blocks in flight in
    /// registers; returns the bytes done (0 without such a kernel).
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_variables)
    )]
    pub(crate) fn chain_decrypt(
        self,
        rk: &[u32; ROUNDS],
        cfb: bool,
        reg: &mut [u8; 16],
        data: &mut [u8],
    ) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) if cfb => super::x86_avx512::cfb_decrypt(t, rk, reg, data),
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => super::x86_avx512::cbc_decrypt(t, rk, reg, data),
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
            Native::ArmSm(_) => unsafe { super::aarch64_sm4e::chain_decrypt(rk, cfb, reg, data) },
            _ => 0,
        }
    }

    /// The CTR keystream (128-bit big-endian counter, advanced) XORed into a prefix of
    /// whole blocks of `data`; returns the bytes done (0 without a kernel; `avx2` does
    /// whole 32-block steps and leaves the rest to the caller).
    #[inline]
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn ctr_xor(self, rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) -> usize {
        match self {
            Native::None => 0,
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::ctr_xor(t, rk, counter, data);
                data.len()
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, vaes) => super::x86_avx2::ctr_xor(t, vaes, rk, counter, data),
            #[cfg(target_arch = "aarch64")]
            Native::Neon => {
                // SAFETY: NEON is part of every aarch64 target Rust builds for.
                unsafe { super::aarch64_neon::ctr_xor(rk, counter, data) };
                data.len()
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::ctr_xor(rk, counter, data) };
                data.len()
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::ctr_xor(rk, counter, data) };
                data.len()
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvk(..) => {
                // SAFETY: the Zvk token proves V and Zvksed.
                unsafe { super::riscv_zvk::ctr_xor(rk, counter, data) };
                data.len()
            }
        }
    }

    /// CTR from `src` into `dst` (equal lengths) for a prefix of whole blocks; returns the
    /// bytes done (0 where the kernel has no copy-free CTR: the caller copies and runs
    /// [`Native::ctr_xor`]).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn ctr_xor_to(
        self,
        rk: &[u32; ROUNDS],
        counter: &mut u128,
        src: &[u8],
        dst: &mut [u8],
    ) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => {
                super::x86_avx512::ctr_xor_to(t, rk, counter, src, dst);
                src.len()
            }
            #[cfg(target_arch = "x86_64")]
            Native::Avx2(t, vaes) => super::x86_avx2::ctr_xor_to(t, vaes, rk, counter, src, dst),
            _ => 0,
        }
    }

    /// Fills `tw` (a multiple of 64 bytes, the first 64 holding T_0..T_3) with the next
    /// XTS tweaks where the kernel can; returns whether it did.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn xts_tweaks(self, gb: bool, tw: &mut [u8]) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) if !tw.is_empty() && tw.len().is_multiple_of(64) => {
                super::x86_avx512::xts_tweaks(t, gb, tw);
                true
            }
            _ => false,
        }
    }

    /// XEX (`data = E/D(data ^ tweaks) ^ tweaks`) on a prefix of `data`; returns the
    /// bytes done.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn xex(self, rk: &[u32; ROUNDS], tweaks: &[u8], data: &mut [u8]) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Native::Avx512(t) => super::x86_avx512::xex(t, rk, tweaks, data),
            _ => 0,
        }
    }
}
