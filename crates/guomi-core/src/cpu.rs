//! Runtime CPU-feature detection and backend selection: the one place in the crate that
//! asks the CPU what it can do.
//!
//! Each architecture has one ladder of backends; each algorithm uses the best
//! implementation it has at or below the active level:
//!
//! | arch     | backend    | requires                                                   |
//! |----------|------------|------------------------------------------------------------|
//! | any      | `portable` | nothing: plain Rust, constant time                         |
//! | x86-64   | `avx2`     | AVX2, AES-NI, PCLMULQDQ, BMI1/BMI2, SSSE3                  |
//! | x86-64   | `avx512`   | `avx2` plus AVX-512 F/BW/VL, GFNI, VAES, VPCLMULQDQ         |
//! | aarch64  | `neon`     | Advanced SIMD (every Armv8-A core)                         |
//! | aarch64  | `armsm`    | `neon` plus FEAT_SM3 and FEAT_SM4 (`sm3 sm4` in cpuinfo)   |
//! | riscv64  | `zk`       | scalar Zksed and Zksh                                      |
//! | riscv64  | `zvk`      | `zk` plus V, Zvksed and Zvksh                              |
//!
//! Backends of different architectures are not comparable ([`Backend`] is only
//! partially ordered): `portable` is below every other one, and `avx2 <= neon` is false.
//!
//! Inside a backend, optional [`Feature`]s select sub-variants:
//!
//! | feature | used by                                  | at backend       |
//! |---------|------------------------------------------|------------------|
//! | `vaes`  | SM4 S-box through 256-bit `vaesenclast`  | `avx2`           |
//! | `vbmi`  | ZUC S0 from register tables (VBMI/VBMI2): 16 lanes; one stream except on Intel | `avx512` |
//! | `adx`   | SM2 field, SM9 Fp: MULX/ADCX/ADOX asm    | `avx2`, `avx512` |
//! | `pmull` | GHASH with PMULL (FEAT_PMULL)            | `neon`, `armsm`  |
//! | `zvkg`  | GHASH with `vghsh` (Zvkg)                | `zvk`            |
//!
//! Detection: CPUID on x86-64; on aarch64 the operating system's view (Linux `getauxval`
//! `AT_HWCAP`, macOS `sysctl`), through `std::arch::is_aarch64_feature_detected!`; on
//! riscv64 Linux the `riscv_hwprobe` system call ([`riscv`]), which reports the vector
//! crypto extensions that the standard library's detection does not yet expose.
//!
//! Code that runs an instruction an architecture's baseline lacks takes a CPU-proof
//! token ([`Avx2`], [`Avx512`], [`Vaes`], [`Vbmi`], [`ArmSm`], [`Pmull`], [`Zk`], [`Zvk`],
//! [`Zvkg`]): a zero-sized value that only the detection here constructs, held by key and
//! context objects, so safe code cannot reach an instruction the CPU lacks.
//!
//! Cores with the same features can differ in latencies enough to change which form of a
//! kernel is fastest. The few kernels where that was measured ask [`intel_core`]:
//!
//! | kernel | on Intel cores | elsewhere |
//! |--------|----------------|-----------|
//! | ZUC single stream (`avx512`) | S0 by nibble shuffles, even with `vbmi` | S0 from `vbmi` register tables |
//!
//! Both forms of each such kernel are tested on every CPU that can run them (the tests
//! call them directly), whichever of them this CPU's variants select.
//!
//! A [`Variant`] is a backend with some of its features turned off; its name is the
//! backend's followed by `-no<feature>` for each one off (`avx2-novaes`,
//! `avx512-novbmi`, `neon-nopmull`, ...). [`variants`] lists one variant per code path
//! this CPU can run (the full backend, and each feature off on its own), which is what
//! the tests iterate.
//!
//! The active variant is the best one this CPU supports, unless forced:
//! * the environment variable `GUOMI_BACKEND=<backend or variant name>` (read once), or
//! * [`force`] / [`force_variant`] (process-wide), or
//! * [`with_backend`] / [`with_variant`] (the current thread only; what tests use).
//!
//! Forcing a backend that the CPU lacks is an error, never a silent fallback. Functions
//! that take an explicit [`Backend`] or [`Variant`] (`Sm3::with_backend`,
//! `eia3_with`, ...) all follow one rule: the request is *clamped* to what this CPU
//! supports ([`Variant::clamp`]; another architecture's backend becomes `portable`), so a
//! safe function never runs an instruction the CPU lacks. Key objects record the clamped
//! variant they were built with.

use crate::error::{Error, Result};
use core::cmp::Ordering as CmpOrdering;
use std::cell::Cell;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// An implementation level. Partially ordered: within one architecture's ladder a higher
/// level may use everything a lower one does; `portable` is below all; backends of
/// different architectures are incomparable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Plain Rust, constant time, any CPU.
    Portable = 0,
    /// x86-64 AVX2 + AES-NI + PCLMULQDQ + BMI2.
    Avx2 = 1,
    /// x86-64 AVX-512 (F/BW/VL) + GFNI + VAES + VPCLMULQDQ.
    Avx512 = 2,
    /// aarch64 Advanced SIMD (NEON).
    Neon = 3,
    /// aarch64 NEON + the SM3 and SM4 instructions (FEAT_SM3, FEAT_SM4).
    ArmSm = 4,
    /// riscv64 scalar ShangMi extensions Zksed and Zksh.
    Zk = 5,
    /// riscv64 `zk` plus the vector ShangMi extensions (V, Zvksed, Zvksh).
    Zvk = 6,
}

/// The architecture a backend belongs to (`None` for `portable`, which belongs to all)
/// and its rank in that architecture's ladder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    X86,
    Arm,
    RiscV,
}

impl PartialOrd for Backend {
    fn partial_cmp(&self, other: &Backend) -> Option<CmpOrdering> {
        match (self.family(), other.family()) {
            (Some(a), Some(b)) if a != b => None,
            _ => Some(self.rank().cmp(&other.rank())),
        }
    }
}

impl Backend {
    /// All backends of every architecture, `portable` first, then each ladder lowest
    /// first.
    pub const ALL: [Backend; 7] = [
        Backend::Portable,
        Backend::Avx2,
        Backend::Avx512,
        Backend::Neon,
        Backend::ArmSm,
        Backend::Zk,
        Backend::Zvk,
    ];

    /// The backend's name as used by `GUOMI_BACKEND` and the Python API.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
            Backend::Neon => "neon",
            Backend::ArmSm => "armsm",
            Backend::Zk => "zk",
            Backend::Zvk => "zvk",
        }
    }

    /// Parses a backend name (of any architecture: whether this CPU runs it is
    /// [`Backend::is_supported`]).
    pub fn parse(name: &str) -> Result<Backend> {
        let name = name.trim().to_ascii_lowercase();
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or(Error::UnsupportedBackend(
                "unknown backend: expected portable, avx2, avx512, neon, armsm, zk or zvk",
            ))
    }

    fn family(self) -> Option<Family> {
        match self {
            Backend::Portable => None,
            Backend::Avx2 | Backend::Avx512 => Some(Family::X86),
            Backend::Neon | Backend::ArmSm => Some(Family::Arm),
            Backend::Zk | Backend::Zvk => Some(Family::RiscV),
        }
    }

    /// The position in the backend's own ladder (`portable` = 0).
    fn rank(self) -> u8 {
        match self {
            Backend::Portable => 0,
            Backend::Avx2 | Backend::Neon | Backend::Zk => 1,
            Backend::Avx512 | Backend::ArmSm | Backend::Zvk => 2,
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        self <= detected()
    }

    fn from_u8(v: u8) -> Option<Backend> {
        Backend::ALL.get(v as usize).copied()
    }
}

/// The best backend this CPU supports (detected once).
pub fn detected() -> Backend {
    detection().backend
}

/// What [`detect`] found: the best backend, the optional features and the vendor.
#[derive(Clone, Copy)]
struct Detection {
    backend: Backend,
    /// Bit `Feature as u8` set when the CPU has the feature.
    features: u8,
    /// CPUID's vendor string is `GenuineIntel`.
    #[cfg(target_arch = "x86_64")]
    intel: bool,
}

/// Whether this CPU is an Intel core (CPUID vendor `GenuineIntel`; detected once). Used
/// only to pick between two forms of a kernel that both run on this CPU, never to
/// decide what it supports (see the module's table).
#[cfg(target_arch = "x86_64")]
pub(crate) fn intel_core() -> bool {
    detection().intel
}

fn detection() -> Detection {
    static DETECTED: OnceLock<Detection> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}
#[cfg(target_arch = "x86_64")]
fn detect() -> Detection {
    use std::arch::is_x86_feature_detected as has;
    // "GenuineIntel" in EBX, EDX, ECX. (Not asked under Miri, which cannot run CPUID.)
    let intel = !cfg!(miri) && {
        // SAFETY: CPUID exists on every x86-64 CPU. (A safe function from Rust 1.94 on,
        // an `unsafe fn` in the oldest toolchain this crate supports: hence the
        // allowances.)
        #[allow(unsafe_code, unused_unsafe)]
        let vendor = unsafe { core::arch::x86_64::__cpuid(0) };
        (vendor.ebx, vendor.edx, vendor.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
    };
    let mut features = 0u8;
    if has!("vaes") {
        features |= Feature::Vaes.bit();
    }
    if has!("avx512vbmi") && has!("avx512vbmi2") {
        features |= Feature::Vbmi.bit();
    }
    if has!("bmi2") && has!("adx") {
        features |= Feature::Adx.bit();
    }
    let avx2 = has!("avx2")
        && has!("aes")
        && has!("pclmulqdq")
        && has!("bmi1")
        && has!("bmi2")
        && has!("ssse3")
        && has!("sse4.1");
    if !avx2 {
        return Detection {
            backend: Backend::Portable,
            features,
            intel,
        };
    }
    let avx512 = has!("avx512f")
        && has!("avx512bw")
        && has!("avx512vl")
        && has!("gfni")
        && has!("vaes")
        && has!("vpclmulqdq");
    Detection {
        backend: if avx512 {
            Backend::Avx512
        } else {
            Backend::Avx2
        },
        features,
        intel,
    }
}

#[cfg(target_arch = "aarch64")]
fn detect() -> Detection {
    use std::arch::is_aarch64_feature_detected as has;
    // Under Miri, which cannot ask the OS, everything is plain Rust.
    if cfg!(miri) || !has!("neon") {
        return Detection {
            backend: Backend::Portable,
            features: 0,
        };
    }
    let features = if has!("pmull") {
        Feature::Pmull.bit()
    } else {
        0
    };
    // Rust's `sm4` feature is FEAT_SM3 and FEAT_SM4 together (`sm3 sm4` in cpuinfo).
    let backend = if has!("sm4") {
        Backend::ArmSm
    } else {
        Backend::Neon
    };
    Detection { backend, features }
}

#[cfg(target_arch = "riscv64")]
fn detect() -> Detection {
    let ext = if cfg!(miri) { None } else { riscv::probe() };
    let Some(ext) = ext else {
        return Detection {
            backend: Backend::Portable,
            features: 0,
        };
    };
    let zk = ext.has(riscv::ZKSED | riscv::ZKSH);
    let zvk = zk && ext.has(riscv::V | riscv::ZVKSED | riscv::ZVKSH);
    let features = if zvk && ext.has(riscv::ZVKG) {
        Feature::Zvkg.bit()
    } else {
        0
    };
    let backend = match (zk, zvk) {
        (_, true) => Backend::Zvk,
        (true, false) => Backend::Zk,
        _ => Backend::Portable,
    };
    Detection { backend, features }
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
fn detect() -> Detection {
    Detection {
        backend: Backend::Portable,
        features: 0,
    }
}

/// RISC-V extension discovery through Linux's `riscv_hwprobe` system call (Linux 6.4;
/// the bits of `RISCV_HWPROBE_KEY_IMA_EXT_0` below from 6.8), the only interface that
/// reports the vector crypto extensions. Constants from the kernel's
/// `arch/riscv/include/uapi/asm/hwprobe.h`.
#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv {
    /// `__NR_riscv_hwprobe`.
    const SYS_RISCV_HWPROBE: usize = 258;
    /// `RISCV_HWPROBE_KEY_IMA_EXT_0`: a bit mask of extensions.
    const KEY_IMA_EXT_0: i64 = 4;
    /// `RISCV_HWPROBE_IMA_V`.
    pub(crate) const V: u64 = 1 << 2;
    /// `RISCV_HWPROBE_EXT_ZKSED`.
    pub(crate) const ZKSED: u64 = 1 << 14;
    /// `RISCV_HWPROBE_EXT_ZKSH`.
    pub(crate) const ZKSH: u64 = 1 << 15;
    /// `RISCV_HWPROBE_EXT_ZVKG`.
    pub(crate) const ZVKG: u64 = 1 << 20;
    /// `RISCV_HWPROBE_EXT_ZVKSED`.
    pub(crate) const ZVKSED: u64 = 1 << 24;
    /// `RISCV_HWPROBE_EXT_ZVKSH`.
    pub(crate) const ZVKSH: u64 = 1 << 25;

    /// The extension bits the kernel reported.
    #[derive(Clone, Copy)]
    pub(crate) struct Extensions(u64);

    impl Extensions {
        /// Whether every bit of `mask` is set.
        pub(crate) fn has(self, mask: u64) -> bool {
            self.0 & mask == mask
        }
    }

    /// Asks the kernel for `RISCV_HWPROBE_KEY_IMA_EXT_0` over all CPUs (`None` when the
    /// call fails, e.g. on a kernel older than 6.4 or one that does not know the key).
    pub(crate) fn probe() -> Option<Extensions> {
        // struct riscv_hwprobe { __s64 key; __u64 value; }
        let mut pair: [u64; 2] = [KEY_IMA_EXT_0 as u64, 0];
        let ret: isize;
        // SAFETY: riscv_hwprobe(pairs, pair_count = 1, cpusetsize = 0, cpus = NULL,
        // flags = 0) writes only into the one 16-byte pair it is given, which lives for
        // the call. The `ecall` clobbers nothing but a0 (the result).
        #[allow(unsafe_code)]
        unsafe {
            core::arch::asm!(
                "ecall",
                in("a7") SYS_RISCV_HWPROBE,
                inlateout("a0") pair.as_mut_ptr() => ret,
                in("a1") 1usize,
                in("a2") 0usize,
                in("a3") 0usize,
                in("a4") 0usize,
                options(nostack),
            );
        }
        // The kernel sets the key to -1 when it does not know it.
        (ret == 0 && pair[0] == KEY_IMA_EXT_0 as u64).then_some(Extensions(pair[1]))
    }
}

/// Proof that this CPU executes the `avx2` level (AVX2, AES-NI, PCLMULQDQ, SSSE3,
/// SSE4.1, BMI1/2): only [`Variant`] constructs it, from detection.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

/// Proof that this CPU executes the `avx512` level: AVX-512F/BW/VL, GFNI, VAES and
/// VPCLMULQDQ, on top of everything [`Avx2`] proves.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

/// Proof that this CPU executes VAES on 256-bit registers (with [`Avx2`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vaes(());

/// Proof that this CPU executes AVX512-VBMI and VBMI2 (with [`Avx512`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vbmi(());

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The `avx2` level, which the `avx512` level includes (detection reports `avx512`
    /// only on top of everything `avx2` requires).
    #[inline]
    pub(crate) fn avx2(self) -> Avx2 {
        Avx2(())
    }
}

/// Proof that this CPU executes FEAT_SM3 and FEAT_SM4 (and NEON): only [`Variant`]
/// constructs it, from detection.
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArmSm(());

/// Proof that this CPU executes PMULL/PMULL2 (FEAT_PMULL).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pmull(());

/// Proof that this CPU executes the scalar Zksed and Zksh instructions.
#[cfg(target_arch = "riscv64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zk(());

/// Proof that this CPU executes V, Zvksed and Zvksh (and Zksed, Zksh).
#[cfg(target_arch = "riscv64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zvk(());

/// Proof that this CPU executes V and Zvkg.
#[cfg(target_arch = "riscv64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zvkg(());

/// The CPU-proof tokens of a variant: each is `Some` only when the variant uses that
/// level or feature and this CPU has it.
impl Variant {
    /// The `avx2` level, when this variant uses it (`avx2` and `avx512`).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn avx2(self) -> Option<Avx2> {
        (self.backend >= Backend::Avx2 && self.is_supported()).then_some(Avx2(()))
    }

    /// The `avx512` level, when this variant uses it.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn avx512(self) -> Option<Avx512> {
        (self.backend == Backend::Avx512 && self.is_supported()).then_some(Avx512(()))
    }

    /// VAES, when this variant uses it (`avx2` on a CPU with VAES, not `avx2-novaes`).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn vaes(self) -> Option<Vaes> {
        self.has(Feature::Vaes).then_some(Vaes(()))
    }

    /// AVX512-VBMI/VBMI2, when this variant uses them (`avx512` on a CPU with them, not
    /// `avx512-novbmi`).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn vbmi(self) -> Option<Vbmi> {
        self.has(Feature::Vbmi).then_some(Vbmi(()))
    }

    /// `armsm`'s instructions, when this variant uses them.
    #[cfg(target_arch = "aarch64")]
    #[inline]
    pub(crate) fn arm_sm(self) -> Option<ArmSm> {
        (self.backend == Backend::ArmSm && self.is_supported()).then_some(ArmSm(()))
    }

    /// NEON SIMD kernels (every aarch64 CPU), when this variant uses them (`neon` and
    /// above).
    #[cfg(target_arch = "aarch64")]
    #[inline]
    pub(crate) fn neon(self) -> bool {
        self.backend >= Backend::Neon && self.is_supported()
    }

    /// PMULL, when this variant uses it.
    #[cfg(target_arch = "aarch64")]
    #[inline]
    pub(crate) fn pmull(self) -> Option<Pmull> {
        self.has(Feature::Pmull).then_some(Pmull(()))
    }

    /// Zksed/Zksh, when this variant uses them (`zk` and above).
    #[cfg(target_arch = "riscv64")]
    #[inline]
    pub(crate) fn zk(self) -> Option<Zk> {
        (self.backend >= Backend::Zk && self.is_supported()).then_some(Zk(()))
    }

    /// The vector ShangMi extensions, when this variant uses them.
    #[cfg(target_arch = "riscv64")]
    #[inline]
    pub(crate) fn zvk(self) -> Option<Zvk> {
        (self.backend == Backend::Zvk && self.is_supported()).then_some(Zvk(()))
    }

    /// Zvkg, when this variant uses it.
    #[cfg(target_arch = "riscv64")]
    #[inline]
    pub(crate) fn zvkg(self) -> Option<Zvkg> {
        self.has(Feature::Zvkg).then_some(Zvkg(()))
    }
}

/// An optional CPU feature that selects a sub-variant inside a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// VAES on 256-bit registers: the `avx2` SM4 S-box runs two blocks per
    /// `vaesenclast` (without it, 128-bit AES-NI).
    Vaes = 0,
    /// AVX512-VBMI + VBMI2: the `avx512` ZUC S0 from register tables and `vpshldd`
    /// (without it, nibble `vpshufb`).
    Vbmi = 1,
    /// BMI2 + ADX: SM2 products modulo p and SM9 Fp products in MULX/ADCX/ADOX assembly
    /// at `avx2` and above (without it, the portable Montgomery code).
    Adx = 2,
    /// aarch64 PMULL/PMULL2 (FEAT_PMULL): GHASH by carry-less multiplication at `neon`
    /// and `armsm` (without it, the portable GHASH).
    Pmull = 3,
    /// riscv64 Zvkg: GHASH by `vghsh` at `zvk` (without it, the portable GHASH).
    Zvkg = 4,
}

impl Feature {
    /// All features, in name order of variant names.
    pub const ALL: [Feature; 5] = [
        Feature::Vaes,
        Feature::Vbmi,
        Feature::Adx,
        Feature::Pmull,
        Feature::Zvkg,
    ];

    /// The feature's name (`vaes`, `vbmi`, `adx`, `pmull`, `zvkg`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::Vaes => "vaes",
            Feature::Vbmi => "vbmi",
            Feature::Adx => "adx",
            Feature::Pmull => "pmull",
            Feature::Zvkg => "zvkg",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Whether this CPU has the feature (whatever backend is active).
    pub fn is_detected(self) -> bool {
        detection().features & self.bit() != 0
    }

    /// Whether a backend's code uses the feature at all.
    fn used_by(self, backend: Backend) -> bool {
        match self {
            Feature::Vaes => backend == Backend::Avx2,
            Feature::Vbmi => backend == Backend::Avx512,
            Feature::Adx => backend >= Backend::Avx2,
            Feature::Pmull => backend >= Backend::Neon,
            Feature::Zvkg => backend == Backend::Zvk,
        }
    }
}

/// A backend with some of its optional [`Feature`]s turned off: one code path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    backend: Backend,
    /// Bit `Feature as u8` set when the feature is turned off (only features the
    /// backend uses are ever set).
    off: u8,
}

impl From<Backend> for Variant {
    /// The backend with every feature the CPU has.
    fn from(backend: Backend) -> Variant {
        Variant { backend, off: 0 }
    }
}

impl core::fmt::Display for Variant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.backend.name())?;
        for feat in Feature::ALL {
            if self.off & feat.bit() != 0 {
                write!(f, "-no{}", feat.name())?;
            }
        }
        Ok(())
    }
}

impl Variant {
    /// The backend part of the variant.
    pub fn backend(self) -> Backend {
        self.backend
    }

    /// The same variant with `feature` turned off (no change if the backend does not use
    /// it).
    pub fn without(self, feature: Feature) -> Variant {
        let off = if feature.used_by(self.backend) {
            self.off | feature.bit()
        } else {
            self.off
        };
        Variant { off, ..self }
    }

    /// Whether code running under this variant uses `feature`: the backend uses it, it is
    /// not turned off, the CPU has it and the CPU runs the backend. Every path guarded by
    /// this may rely on the feature being present.
    #[inline]
    pub fn has(self, feature: Feature) -> bool {
        let d = detection();
        feature.used_by(self.backend)
            && self.off & feature.bit() == 0
            && d.features & feature.bit() != 0
            && self.backend <= d.backend
    }

    /// The variant this CPU actually runs for the request: the backend lowered to the
    /// detected one (features the CPU lacks are never used, see [`Variant::has`]).
    pub fn clamp(self) -> Variant {
        let detected = detected();
        let backend = match self.backend.partial_cmp(&detected) {
            Some(CmpOrdering::Less | CmpOrdering::Equal) => self.backend,
            Some(CmpOrdering::Greater) => detected,
            None => Backend::Portable,
        };
        let mut v = Variant::from(backend);
        for feat in Feature::ALL {
            if self.off & feat.bit() != 0 {
                v = v.without(feat);
            }
        }
        v
    }

    /// Whether this CPU can run the variant's backend.
    pub fn is_supported(self) -> bool {
        self.backend.is_supported()
    }

    /// The variant's name, e.g. `avx2-novaes` (see [`Variant::parse`]).
    pub fn name(self) -> String {
        self.to_string()
    }

    /// Parses `backend` or `backend-nofeature-...` (e.g. `avx512-novbmi-noadx`).
    pub fn parse(name: &str) -> Result<Variant> {
        let name = name.trim().to_ascii_lowercase();
        let mut parts = name.split('-');
        let mut v = Variant::from(Backend::parse(parts.next().unwrap_or(""))?);
        for part in parts {
            let feat = part
                .strip_prefix("no")
                .and_then(|f| Feature::ALL.into_iter().find(|x| x.name() == f))
                .ok_or(Error::UnsupportedBackend(
                    "unknown backend variant: expected a backend name, optionally followed \
                     by -novaes, -novbmi, -noadx, -nopmull or -nozvkg",
                ))?;
            if !feat.used_by(v.backend) {
                return Err(Error::UnsupportedBackend(
                    "this backend does not use the feature named in the variant",
                ));
            }
            v = v.without(feat);
        }
        Ok(v)
    }

    fn encode(self) -> u16 {
        u16::from(self.backend as u8) | (u16::from(self.off) << 8)
    }

    fn decode(x: u16) -> Option<Variant> {
        let backend = Backend::from_u8((x & 0xff) as u8)?;
        Some(Variant {
            backend,
            off: (x >> 8) as u8,
        })
    }
}

/// Every backend this CPU supports, lowest first.
pub fn available() -> Vec<Backend> {
    Backend::ALL
        .iter()
        .copied()
        .filter(|b| b.is_supported())
        .collect()
}

/// One variant per code path this CPU can run, lowest backend first: each supported
/// backend with all its features, then with each feature it uses (and the CPU has)
/// turned off on its own.
pub fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for b in available() {
        let full = Variant::from(b);
        out.push(full);
        for feat in Feature::ALL {
            if feat.used_by(b) && feat.is_detected() {
                out.push(full.without(feat));
            }
        }
    }
    out
}

const AUTO: u16 = u16::MAX;
static FORCED: AtomicU16 = AtomicU16::new(AUTO);
static ENV_FORCED: OnceLock<Option<Variant>> = OnceLock::new();

thread_local! {
    static THREAD_FORCED: Cell<Option<Variant>> = const { Cell::new(None) };
}

/// How many [`with_variant`] scopes are open in the whole process.
static THREAD_OVERRIDES: AtomicUsize = AtomicUsize::new(0);

/// Whether any thread currently runs under a [`with_variant`] / [`with_backend`]
/// override. While none does, every thread's variant is the process-wide one, so a hot
/// path may read a process-wide cache of its choice instead of thread-local state.
#[inline]
pub fn thread_overrides_active() -> bool {
    THREAD_OVERRIDES.load(Ordering::Acquire) != 0
}

/// Whether the current thread runs under a [`with_variant`] override.
#[inline]
pub fn thread_overridden() -> bool {
    THREAD_FORCED.with(Cell::get).is_some()
}

fn env_name() -> Option<String> {
    let name = std::env::var("GUOMI_BACKEND").ok()?;
    if name.trim().is_empty() || name.trim().eq_ignore_ascii_case("auto") {
        None
    } else {
        Some(name)
    }
}

fn env_forced() -> Option<Variant> {
    *ENV_FORCED.get_or_init(|| {
        // An unusable request falls back to detection here; `check_env` reports it.
        Variant::parse(&env_name()?)
            .ok()
            .filter(|v| v.is_supported())
    })
}

/// Reports whether `GUOMI_BACKEND` names a backend or variant this CPU can run (Ok when
/// unset).
pub fn check_env() -> Result<()> {
    match env_name() {
        Some(name) => {
            if Variant::parse(&name)?.is_supported() {
                Ok(())
            } else {
                Err(Error::UnsupportedBackend(
                    "GUOMI_BACKEND names a backend this CPU does not support",
                ))
            }
        }
        None => Ok(()),
    }
}

/// The backend in use on this thread: thread override, then [`force`], then
/// `GUOMI_BACKEND`, then detection.
#[inline]
pub fn active() -> Backend {
    active_variant().backend
}

/// The variant in use on this thread (same order as [`active`]).
#[inline]
pub fn active_variant() -> Variant {
    if let Some(v) = THREAD_FORCED.with(Cell::get) {
        return v;
    }
    if let Some(v) = Variant::decode(FORCED.load(Ordering::Relaxed)) {
        return v;
    }
    env_forced().unwrap_or_else(|| Variant::from(detected()))
}

/// Forces a backend for the whole process (`None` returns to automatic selection).
pub fn force(backend: Option<Backend>) -> Result<()> {
    force_variant(backend.map(Variant::from))
}

/// Forces a variant for the whole process (`None` returns to automatic selection).
pub fn force_variant(variant: Option<Variant>) -> Result<()> {
    match variant {
        None => FORCED.store(AUTO, Ordering::Relaxed),
        Some(v) if v.is_supported() => FORCED.store(v.encode(), Ordering::Relaxed),
        Some(_) => {
            return Err(Error::UnsupportedBackend(
                "this CPU does not support the requested backend",
            ))
        }
    }
    Ok(())
}

/// Runs `f` with `backend` (all its features) forced on the current thread only.
///
/// # Panics
/// If the CPU does not support `backend` (this is a test helper).
pub fn with_backend<T>(backend: Backend, f: impl FnOnce() -> T) -> T {
    with_variant(Variant::from(backend), f)
}

/// Runs `f` with `variant` forced on the current thread only.
///
/// # Panics
/// If the CPU does not support the variant's backend (this is a test helper).
pub fn with_variant<T>(variant: Variant, f: impl FnOnce() -> T) -> T {
    assert!(
        variant.is_supported(),
        "backend {variant} not supported on this CPU"
    );
    struct Restore(Option<Variant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_FORCED.with(|c| c.set(self.0));
            THREAD_OVERRIDES.fetch_sub(1, Ordering::AcqRel);
        }
    }
    THREAD_OVERRIDES.fetch_add(1, Ordering::AcqRel);
    let _restore = Restore(THREAD_FORCED.with(|c| c.replace(Some(variant))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendor from CPUID agrees with the kernel's view of the CPU.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn vendor_matches_proc_cpuinfo() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let vendor = info
            .lines()
            .find_map(|l| l.strip_prefix("vendor_id"))
            .and_then(|l| l.split(':').nth(1))
            .map(str::trim)
            .expect("a vendor_id line");
        assert_eq!(intel_core(), vendor == "GenuineIntel", "{vendor}");
    }

    /// Under emulation, the CI names the backend the emulated CPU model must be detected
    /// as (`GUOMI_EXPECT_BACKEND=armsm` for `qemu-aarch64 -cpu max`, `neon` for
    /// `-cpu cortex-a72`, `zvk`/`zk`/`portable` for the riscv64 models): the detection
    /// ladder itself is checked there, not only the kernels.
    #[test]
    fn detected_backend_is_the_expected_one() {
        if let Ok(want) = std::env::var("GUOMI_EXPECT_BACKEND") {
            assert_eq!(detected().name(), want.trim());
        }
    }

    #[test]
    fn ladder_and_names() {
        assert!(Backend::Portable < Backend::Avx2 && Backend::Avx2 < Backend::Avx512);
        assert!(Backend::Portable < Backend::Neon && Backend::Neon < Backend::ArmSm);
        assert!(Backend::Portable < Backend::Zk && Backend::Zk < Backend::Zvk);
        // Different architectures are incomparable.
        assert_eq!(Backend::Avx2.partial_cmp(&Backend::Neon), None);
        assert_eq!(Backend::Avx512.partial_cmp(&Backend::Zk), None);
        assert_eq!(Backend::ArmSm.partial_cmp(&Backend::Avx512), None);
        // Every supported backend belongs to this CPU's one ladder.
        for a in available() {
            for b in available() {
                assert!(a.partial_cmp(&b).is_some(), "{a:?} {b:?}");
            }
        }
        for b in Backend::ALL {
            assert_eq!(Backend::parse(b.name()).unwrap(), b);
        }
        assert!(Backend::parse("sse9").is_err());
        assert!(available().contains(&Backend::Portable));
    }

    #[test]
    fn variant_names_round_trip_and_clamp() {
        for v in variants() {
            assert_eq!(Variant::parse(&v.name()).unwrap(), v, "{v}");
            assert!(v.is_supported());
            assert_eq!(v.clamp(), v);
        }
        assert_eq!(variants()[0], Variant::from(Backend::Portable));
        assert_eq!(
            Variant::parse("AVX512-noVBMI-noadx").unwrap().name(),
            "avx512-novbmi-noadx"
        );
        assert!(
            Variant::parse("avx2-novbmi").is_err(),
            "avx2 does not use VBMI"
        );
        assert!(Variant::parse("portable-noadx").is_err());
        assert!(Variant::parse("avx2-nofoo").is_err());
        assert!(Variant::parse("avx2-vaes").is_err());
        // An explicit request above the CPU is lowered to what it runs.
        for b in Backend::ALL {
            let c = Variant::from(b).clamp();
            assert!(c.is_supported() && c.backend() <= b);
            let want = match b.partial_cmp(&detected()) {
                Some(CmpOrdering::Greater) => detected(),
                Some(_) => b,
                None => Backend::Portable,
            };
            assert_eq!(c.backend(), want, "{b:?}");
        }
        // Portable never uses a feature; a turned-off feature is never used.
        for f in Feature::ALL {
            assert!(!Variant::from(Backend::Portable).has(f));
            for b in Backend::ALL {
                assert!(!Variant::from(b).without(f).has(f));
                if Variant::from(b).has(f) {
                    assert!(f.is_detected() && b.is_supported());
                }
            }
        }
    }

    #[test]
    fn thread_variant_override_restores() {
        let before = active_variant();
        for v in variants() {
            with_variant(v, || {
                assert_eq!(active_variant(), v);
                assert_eq!(active(), v.backend());
            });
        }
        assert_eq!(active_variant(), before);
    }

    #[test]
    fn thread_override_restores() {
        let before = active();
        with_backend(Backend::Portable, || {
            assert_eq!(active(), Backend::Portable)
        });
        assert_eq!(active(), before);
    }
}
