//! The SM3 single-stream compression kernels, selected once per hasher: each
//! [`Compress`] value holds the CPU-proof token ([`cpu::Avx2`], [`cpu::Avx512`],
//! [`cpu::ArmSm`], [`cpu::Zk`], [`cpu::Zvk`]) of the instructions its kernel runs, so the
//! calls below are sound by construction. [`Compress::for_backend`] is the one place that
//! obtains the tokens.

#![allow(unsafe_code)]

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
))]
use crate::cpu;
use crate::cpu::{Backend, Variant};

/// A hasher's compression kernel and the proof that this CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Compress {
    /// The portable rounds (`soft`).
    Portable,
    /// x86-64 assembly, AVX2 message expansion (`x86_avx2`).
    #[cfg(target_arch = "x86_64")]
    Avx2(cpu::Avx2),
    /// x86-64 assembly, AVX-512VL message expansion (`x86_avx2`).
    #[cfg(target_arch = "x86_64")]
    Avx512(cpu::Avx512),
    /// aarch64 SM3SS1/SM3TT*/SM3PARTW* (`aarch64_sm3`).
    #[cfg(target_arch = "aarch64")]
    ArmSm(cpu::ArmSm),
    /// riscv64 Zksh `sm3p0`/`sm3p1` (`riscv_zk`).
    #[cfg(target_arch = "riscv64")]
    Zk(cpu::Zk),
    /// riscv64 Zvksh `vsm3me`/`vsm3c` (`riscv_zvk`).
    #[cfg(target_arch = "riscv64")]
    Zvk(cpu::Zvk),
}

impl Compress {
    /// The kernel for `backend`, clamped to what this CPU supports (so a caller-chosen
    /// backend never runs instructions the CPU lacks), and the backend it runs.
    pub(super) fn for_backend(backend: Backend) -> (Compress, Backend) {
        let variant = Variant::from(backend).clamp();
        (Compress::for_variant(variant), variant.backend())
    }

    fn for_variant(variant: Variant) -> Compress {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = variant.avx512() {
                return Compress::Avx512(t);
            }
            if let Some(t) = variant.avx2() {
                return Compress::Avx2(t);
            }
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = variant.arm_sm() {
            return Compress::ArmSm(t);
        }
        #[cfg(target_arch = "riscv64")]
        {
            if let Some(t) = variant.zvk() {
                return Compress::Zvk(t);
            }
            if let Some(t) = variant.zk() {
                return Compress::Zk(t);
            }
        }
        let _ = variant;
        Compress::Portable
    }

    /// Compresses the whole 64-byte blocks of `blocks` into `state`.
    #[inline]
    pub(super) fn blocks(self, state: &mut [u32; 8], blocks: &[u8]) {
        match self {
            Compress::Portable => super::soft::compress(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Compress::Avx2(t) => super::x86_avx2::compress(t, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Compress::Avx512(t) => super::x86_avx2::compress_avx512(t, state, blocks),
            // SAFETY: the token proves FEAT_SM3.
            #[cfg(target_arch = "aarch64")]
            Compress::ArmSm(_) => unsafe { super::aarch64_sm3::compress(state, blocks) },
            // SAFETY: the token proves Zksh.
            #[cfg(target_arch = "riscv64")]
            Compress::Zk(_) => unsafe { super::riscv_zk::compress(state, blocks) },
            // SAFETY: the token proves V and Zvksh.
            #[cfg(target_arch = "riscv64")]
            Compress::Zvk(_) => unsafe { super::riscv_zvk::compress(state, blocks) },
        }
    }
}
