//! Safe entry points of the aarch64 and riscv64 SM3 compression kernels, handed out only
//! by `compress_for` after it obtained the CPU-proof token of their instructions
//! ([`crate::cpu::ArmSm`], [`crate::cpu::Zk`], [`crate::cpu::Zvk`]).

#![allow(unsafe_code)]

/// SM3SS1/SM3TT*/SM3PARTW* compression.
#[cfg(target_arch = "aarch64")]
pub(super) fn compress_armsm(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: returned by `compress_for` only for a variant whose `arm_sm()` token
    // exists, i.e. a CPU with FEAT_SM3.
    unsafe { super::aarch64_sm3::compress(state, blocks) }
}

/// Zksh (`sm3p0`/`sm3p1`) compression.
#[cfg(target_arch = "riscv64")]
pub(super) fn compress_zk(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: returned by `compress_for` only for a variant whose `zk()` token exists,
    // i.e. a CPU with Zksh.
    unsafe { super::riscv_zk::compress(state, blocks) }
}

/// Zvksh (`vsm3me`/`vsm3c`) compression.
#[cfg(target_arch = "riscv64")]
pub(super) fn compress_zvk(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: returned by `compress_for` only for a variant whose `zvk()` token exists,
    // i.e. a CPU with V and Zvksh.
    unsafe { super::riscv_zvk::compress(state, blocks) }
}
