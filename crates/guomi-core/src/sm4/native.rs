//! The SM4 kernels of the aarch64 and riscv64 backends, selected once per key: each
//! [`Native`] value holds the CPU-proof token ([`cpu::ArmSm`], [`cpu::Zk`], ...) of the
//! instructions its kernel runs, so the calls below are sound by construction.
//!
//! | backend | single block (serial modes)    | many blocks (ECB, CTR, ...)        |
//! |---------|--------------------------------|------------------------------------|
//! | `neon`  | `aarch64_neon` (TBL S-box)     | `aarch64_neon`, 4+ blocks in flight |
//! | `armsm` | `aarch64_sm4e` (SM4E)          | `aarch64_sm4e`, 8 blocks in flight  |
//! | `zk`    | `riscv_zk` (`sm4ed`)           | `riscv_zk`                          |
//! | `zvk`   | `riscv_zk` (`sm4ed`: lower latency than a vector group for one block) | `riscv_zvk` (`vsm4r`) |
//!
//! On x86-64 there is only [`Native::None`]: its kernels are chosen by the variant.

#![allow(unsafe_code)]

#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
use crate::cpu;
use crate::cpu::Variant;

use super::{Serial, ROUNDS};

/// The key's non-x86 kernel and the proof that this CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Native {
    /// No kernel here: the x86 backends or `portable`.
    None,
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

    /// One block in place; `false` when there is no native kernel.
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
        allow(unused_variables)
    )]
    pub(crate) fn block(self, rk: &[u32; ROUNDS], block: &mut [u8; 16]) -> bool {
        match self {
            Native::None => false,
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
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
        allow(unused_variables)
    )]
    pub(crate) fn blocks(self, rk: &[u32; ROUNDS], data: &mut [u8]) -> bool {
        match self {
            Native::None => false,
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
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
        allow(unused_variables)
    )]
    pub(crate) fn blocks_to(self, rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) -> bool {
        match self {
            Native::None => false,
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
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
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
    #[cfg_attr(not(target_arch = "aarch64"), allow(unused_variables))]
    pub(crate) fn chain_decrypt(
        self,
        rk: &[u32; ROUNDS],
        cfb: bool,
        reg: &mut [u8; 16],
        data: &mut [u8],
    ) -> usize {
        match self {
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
            Native::ArmSm(_) => unsafe { super::aarch64_sm4e::chain_decrypt(rk, cfb, reg, data) },
            _ => 0,
        }
    }

    /// The CTR keystream (128-bit big-endian counter, advanced) XORed into whole blocks;
    /// `false` when there is no native kernel.
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "aarch64", target_arch = "riscv64")),
        allow(unused_variables)
    )]
    pub(crate) fn ctr_xor(self, rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) -> bool {
        match self {
            Native::None => false,
            #[cfg(target_arch = "aarch64")]
            Native::Neon => {
                // SAFETY: NEON is part of every aarch64 target Rust builds for.
                unsafe { super::aarch64_neon::ctr_xor(rk, counter, data) };
                true
            }
            #[cfg(target_arch = "aarch64")]
            Native::ArmSm(_) => {
                // SAFETY: the ArmSm token proves FEAT_SM4 (and NEON).
                unsafe { super::aarch64_sm4e::ctr_xor(rk, counter, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zk(_) => {
                // SAFETY: the Zk token proves Zksed.
                unsafe { super::riscv_zk::ctr_xor(rk, counter, data) };
                true
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvk(..) => {
                // SAFETY: the Zvk token proves V and Zvksed.
                unsafe { super::riscv_zvk::ctr_xor(rk, counter, data) };
                true
            }
        }
    }
}
