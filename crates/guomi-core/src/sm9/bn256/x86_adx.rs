//! The `adx` code path of the SM9 base field Fp: Montgomery multiplication modulo the
//! SM9 prime p (GM/T 0044-2016 Part 1 Appendix A) in x86-64 assembly.
//!
//! Interleaved CIOS (coarsely integrated operand scanning) over four 64-bit limbs: for
//! each limb b[i], t += a * b[i] and then t += m * p with m = t[0] * (-p^-1 mod 2^64),
//! shifting one limb out. BMI2 `mulx` leaves the flags alone, so the low halves of the
//! products run on the ADX `adox` (OF) carry chain and the high halves on `adcx` (CF).
//! p uses all 256 bits, so t keeps a sixth limb: after each step t < 2p < 2^257, and one
//! final conditional subtraction (selected with `cmov`) gives the result below p. No
//! branches, no secret-dependent memory access: constant time.
//!
//! The same scan also computes sums of two, three and four products with one reduction
//! ([`mont_mul2`], [`mont_mul3`], [`mont_mul4`]): the product rows of every term are
//! accumulated before each reduction row. The Fp2 product is two sums of two products,
//! the Fp4 product four sums of four, the Fp4 squaring two sums of three and two of two;
//! one Montgomery reduction per output coefficient (lazy reduction). The accumulator
//! keeps a fifth limb, and the result (below (k p^2 + 2^256 p) / 2^256 for k terms) takes
//! up to three conditional subtractions.
//!
//! Used when the CPU has BMI2 and ADX and the thread's active backend variant has
//! `cpu::Feature::Adx` (`avx2` or higher, not `-noadx`); the portable CIOS in `fp.rs`
//! remains the code path everywhere else. The rest of the crate calls only the safe
//! wrappers below, which check the switch.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

// Whether products in Fp use this assembly: the thread's active variant has
// `cpu::Feature::Adx`. [`select`] records the choice at the start of each SM9 operation
// (pairing, scalar multiplication, GT exponentiation), per thread; the hot path reads a
// process-wide copy while no thread runs under a `cpu::with_variant` override, and the
// thread's own copy otherwise (the same scheme as the SM2 field's assembly). Only
// [`select`] writes either copy, and only with the value of `Variant::has(Feature::Adx)`,
// which checks the CPU: that is what makes the safe wrappers below sound.
static FP_ASM_PROCESS: AtomicBool = AtomicBool::new(false);

thread_local! {
    static FP_ASM_THREAD: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Reads `cpu::active_variant()` and switches the assembly on or off for this thread.
#[inline]
pub(crate) fn select() {
    let want = crate::cpu::active_variant().has(crate::cpu::Feature::Adx);
    FP_ASM_THREAD.with(|c| c.set(want));
    // Only a thread without an override speaks for the process; write only on change.
    if !crate::cpu::thread_overridden() && FP_ASM_PROCESS.load(Relaxed) != want {
        FP_ASM_PROCESS.store(want, Relaxed);
    }
}

/// Whether [`select`] switched the assembly on for this thread.
#[inline(always)]
pub(crate) fn selected() -> bool {
    if crate::cpu::thread_overrides_active() {
        FP_ASM_THREAD.with(core::cell::Cell::get)
    } else {
        FP_ASM_PROCESS.load(Relaxed)
    }
}

/// Proof that the assembly is switched on ([`selected`] returned true, which implies
/// that this CPU has BMI2 and ADX): the Fp2 product and squaring check the switch once
/// and then call the products through this token.
#[derive(Clone, Copy)]
pub(crate) struct Adx(());

impl Adx {
    /// The token when the assembly is switched on for this thread, else `None`.
    #[inline(always)]
    pub(crate) fn get() -> Option<Self> {
        if selected() {
            Some(Self(()))
        } else {
            None
        }
    }

    /// [`mont_mul`].
    #[inline(always)]
    pub(crate) fn mul(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        // SAFETY: the token exists only if `selected()` was true, which requires BMI2
        // and ADX on this CPU.
        unsafe { mont_mul(a, b) }
    }

    /// [`mont_mul2`].
    #[inline(always)]
    pub(crate) fn mul2(self, x: &[u64; 8], y: &[u64; 8]) -> [u64; 4] {
        // SAFETY: as in `Adx::mul`.
        unsafe { mont_mul2(x, y) }
    }
}

/// [`mont_mul`] when the assembly is switched on for this thread ([`selected`]), else
/// `None` (the caller then runs the portable code).
#[inline(always)]
pub(crate) fn mont_mul_selected(a: &[u64; 4], b: &[u64; 4]) -> Option<[u64; 4]> {
    if selected() {
        // SAFETY: `selected()` is true only after `Variant::has(Feature::Adx)`, which
        // requires BMI2 and ADX on this CPU (see the switch above).
        Some(unsafe { mont_mul(a, b) })
    } else {
        None
    }
}

/// [`mont_mul`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(crate) fn mont_mul_detected(a: &[u64; 4], b: &[u64; 4]) -> Option<[u64; 4]> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_mul(a, b) })
    } else {
        None
    }
}

/// [`mont_mul2`] when the assembly is switched on for this thread ([`selected`]), else
/// `None`.
#[inline(always)]
pub(crate) fn mont_mul2_selected(x: &[u64; 8], y: &[u64; 8]) -> Option<[u64; 4]> {
    if selected() {
        // SAFETY: as in `mont_mul_selected`.
        Some(unsafe { mont_mul2(x, y) })
    } else {
        None
    }
}

/// [`mont_mul2`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(crate) fn mont_mul2_detected(x: &[u64; 8], y: &[u64; 8]) -> Option<[u64; 4]> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_mul2(x, y) })
    } else {
        None
    }
}

/// [`mont_mul4`] when the assembly is switched on for this thread ([`selected`]), else
/// `None`.
#[inline(always)]
pub(crate) fn mont_mul4_selected(x: &[u64; 16], y: &[u64; 16]) -> Option<[u64; 4]> {
    if selected() {
        // SAFETY: as in `mont_mul_selected`.
        Some(unsafe { mont_mul4(x, y) })
    } else {
        None
    }
}

/// [`mont_mul4`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(crate) fn mont_mul4_detected(x: &[u64; 16], y: &[u64; 16]) -> Option<[u64; 4]> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_mul4(x, y) })
    } else {
        None
    }
}

/// [`mont_mul3`] when the assembly is switched on for this thread ([`selected`]), else
/// `None`.
#[inline(always)]
pub(crate) fn mont_mul3_selected(x: &[u64; 12], y: &[u64; 12]) -> Option<[u64; 4]> {
    if selected() {
        // SAFETY: as in `mont_mul_selected`.
        Some(unsafe { mont_mul3(x, y) })
    } else {
        None
    }
}

/// [`mont_mul3`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(crate) fn mont_mul3_detected(x: &[u64; 12], y: &[u64; 12]) -> Option<[u64; 4]> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_mul3(x, y) })
    } else {
        None
    }
}

/// `a + b mod m` for a, b < m (any 4-limb modulus m > 2^255, so that a + b < 2m and
/// one subtraction suffices): an `add`/`adc` chain, a trial subtraction of m
/// (`sub`/`sbb` from memory) and a `cmov` selection. Only baseline x86-64 instructions
/// (no BMI2/ADX): used on every variant. Inlined at the call sites (the compiler
/// allocates the registers); no branches, no secret-dependent memory access.
#[inline(always)]
pub(crate) fn add_mod(a: &[u64; 4], b: &[u64; 4], m: &[u64; 4]) -> [u64; 4] {
    let (mut a0, mut a1, mut a2, mut a3) = (a[0], a[1], a[2], a[3]);
    let (mut t0, mut t1, mut t2, mut t3) = (b[0], b[1], b[2], b[3]);
    // SAFETY: baseline x86-64 instructions only; reads the 32 bytes of `m` (a valid
    // [u64; 4] reference), writes only the declared registers and the flags, no stack.
    unsafe {
        core::arch::asm!(
            "add {a0}, {t0}",
            "adc {a1}, {t1}",
            "adc {a2}, {t2}",
            "adc {a3}, {t3}",
            "sbb {c}, {c}",
            "mov {t0}, {a0}",
            "mov {t1}, {a1}",
            "mov {t2}, {a2}",
            "mov {t3}, {a3}",
            "sub {t0}, qword ptr [{m}]",
            "sbb {t1}, qword ptr [{m} + 8]",
            "sbb {t2}, qword ptr [{m} + 16]",
            "sbb {t3}, qword ptr [{m} + 24]",
            // CF = 1 iff there was no carry out of the sum and the trial subtraction
            // borrowed, i.e. a + b < m: keep the sum; else take the difference.
            "sbb {c}, 0",
            "cmovnc {a0}, {t0}",
            "cmovnc {a1}, {t1}",
            "cmovnc {a2}, {t2}",
            "cmovnc {a3}, {t3}",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            c = out(reg) _,
            m = in(reg) m.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    let _ = (t0, t1, t2, t3);
    [a0, a1, a2, a3]
}

/// `a - b mod m` for a, b < m: a `sub`/`sbb` chain, then m masked by the borrow added
/// back. Baseline x86-64 only, inlined, constant time (see [`add_mod`]).
#[inline(always)]
pub(crate) fn sub_mod(a: &[u64; 4], b: &[u64; 4], m: &[u64; 4]) -> [u64; 4] {
    let (mut a0, mut a1, mut a2, mut a3) = (a[0], a[1], a[2], a[3]);
    let (mut t0, mut t1, mut t2, mut t3) = (b[0], b[1], b[2], b[3]);
    // SAFETY: as in `add_mod`.
    unsafe {
        core::arch::asm!(
            "sub {a0}, {t0}",
            "sbb {a1}, {t1}",
            "sbb {a2}, {t2}",
            "sbb {a3}, {t3}",
            "sbb {c}, {c}",
            "mov {t0}, qword ptr [{m}]",
            "mov {t1}, qword ptr [{m} + 8]",
            "mov {t2}, qword ptr [{m} + 16]",
            "mov {t3}, qword ptr [{m} + 24]",
            "and {t0}, {c}",
            "and {t1}, {c}",
            "and {t2}, {c}",
            "and {t3}, {c}",
            "add {a0}, {t0}",
            "adc {a1}, {t1}",
            "adc {a2}, {t2}",
            "adc {a3}, {t3}",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            c = out(reg) _,
            m = in(reg) m.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    let _ = (t0, t1, t2, t3);
    [a0, a1, a2, a3]
}

/// p (little-endian limbs) and -p^-1 mod 2^64, read by the assembly.
static P_INV: [u64; 5] = [
    super::fp::Fp::MODULUS[0],
    super::fp::Fp::MODULUS[1],
    super::fp::Fp::MODULUS[2],
    super::fp::Fp::MODULUS[3],
    super::fp::FP_INV,
];

/// `a * b * 2^-256 mod p` for a, b < p (Montgomery product), fully reduced.
///
/// Kept out of line: a pairing makes thousands of field products from hundreds of call
/// sites, and inlining each copy would overflow the instruction cache.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline(never)]
unsafe fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // 32 bytes through each of `a` and `b` (valid [u64; 4] references) and 40 bytes of
    // the static `P_INV`, writes only the declared registers and does not use the stack.
    unsafe {
        core::arch::asm!(
            "xor r8, r8",
            "xor r9, r9",
            "xor r10, r10",
            "xor r11, r11",
            "xor r12, r12",
            "mov rdx, qword ptr [rdi + 0]",
            "xor r13, r13",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, r8",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 8]",
            "xor r8, r8",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, r9",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 16]",
            "xor r9, r9",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, r10",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 24]",
            "xor r10, r10",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, r11",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov r11, r12",
            "sub r11, qword ptr [rcx + 0]",
            "mov r14, r13",
            "sbb r14, qword ptr [rcx + 8]",
            "mov r15, r8",
            "sbb r15, qword ptr [rcx + 16]",
            "mov rax, r9",
            "sbb rax, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovc r11, r12",
            "cmovc r14, r13",
            "cmovc r15, r8",
            "cmovc rax, r9",
            in("rsi") a.as_ptr(),
            in("rdi") b.as_ptr(),
            in("rcx") P_INV.as_ptr(),
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") r0,
            out("r12") _,
            out("r13") _,
            out("r14") r1,
            out("r15") r2,
            out("rax") r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `(x0 y0 + x1 y1) 2^-256 mod p` for x = x0 || x1 and y = y0 || y1 (each half four
/// little-endian limbs below p), fully reduced: a sum of two Montgomery products with
/// one reduction (the Fp2 product is two of these).
///
/// The same interleaved CIOS as [`mont_mul`], with two product rows per limb of y
/// before each reduction row. The accumulator stays below 3p < 2^258 between steps
/// (five limbs, the sixth catches the carries of a step), and the result is below
/// (2p^2 + 2^256 p) / 2^256 < 2.43p, so two conditional subtractions of p (`cmov`)
/// reduce it. No branches, no secret-dependent memory access: constant time.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline(never)]
unsafe fn mont_mul2(x: &[u64; 8], y: &[u64; 8]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // 64 bytes through each of `x` and `y` (valid [u64; 8] references) and 40 bytes of
    // the static `P_INV`, writes only the declared registers and does not use the stack.
    unsafe {
        core::arch::asm!(
            "xor r8, r8",
            "xor r9, r9",
            "xor r10, r10",
            "xor r11, r11",
            "xor r12, r12",
            "xor r13, r13",
            "mov rdx, qword ptr [rdi + 0]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, r8",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "xor r8, r8",
            "mov rdx, qword ptr [rdi + 8]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 40]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, r9",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "xor r9, r9",
            "mov rdx, qword ptr [rdi + 16]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 48]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, r10",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "xor r10, r10",
            "mov rdx, qword ptr [rdi + 24]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 56]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, r11",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            inout("rsi") x.as_ptr() => _,
            in("rdi") y.as_ptr(),
            in("rcx") P_INV.as_ptr(),
            out("rdx") _,
            out("r8") r2,
            out("r9") r3,
            out("r10") _,
            out("r11") _,
            out("r12") r0,
            out("r13") r1,
            out("r14") _,
            out("r15") _,
            out("rax") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `(x0 y0 + x1 y1 + x2 y2 + x3 y3) 2^-256 mod p` for x = x0 || x1 || x2 || x3 and
/// y = y0 || .. || y3 (each quarter four little-endian limbs below p), fully reduced:
/// a sum of four Montgomery products with one reduction (an Fp4 product is four of
/// these).
///
/// [`mont_mul2`] with four product rows per limb of y: the accumulator stays below
/// 5p < 2^259 between steps, the result is below (4p^2 + 2^256 p) / 2^256 < 3.85p, and
/// three conditional subtractions of p (`cmov`) reduce it. Constant time.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline(never)]
unsafe fn mont_mul4(x: &[u64; 16], y: &[u64; 16]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // 128 bytes through each of `x` and `y` (valid [u64; 16] references) and 40 bytes of
    // the static `P_INV`, writes only the declared registers and does not use the stack.
    unsafe {
        core::arch::asm!(
            "xor r8, r8",
            "xor r9, r9",
            "xor r10, r10",
            "xor r11, r11",
            "xor r12, r12",
            "xor r13, r13",
            "mov rdx, qword ptr [rdi + 0]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 64]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 96]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 96]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 104]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 112]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 120]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, r8",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "xor r8, r8",
            "mov rdx, qword ptr [rdi + 8]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 40]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 72]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 104]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 96]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 104]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 112]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 120]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, r9",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "xor r9, r9",
            "mov rdx, qword ptr [rdi + 16]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 48]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 80]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 112]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 96]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 104]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 112]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 120]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, r10",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "xor r10, r10",
            "mov rdx, qword ptr [rdi + 24]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 56]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 88]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 120]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 96]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 104]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 112]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 120]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, r11",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            inout("rsi") x.as_ptr() => _,
            in("rdi") y.as_ptr(),
            in("rcx") P_INV.as_ptr(),
            out("rdx") _,
            out("r8") r2,
            out("r9") r3,
            out("r10") _,
            out("r11") _,
            out("r12") r0,
            out("r13") r1,
            out("r14") _,
            out("r15") _,
            out("rax") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `(x0 y0 + x1 y1 + x2 y2) 2^-256 mod p` (each third of x and y four little-endian
/// limbs below p), fully reduced: [`mont_mul4`] with three product rows. The result is
/// below (3p^2 + 2^256 p) / 2^256 < 3.14p: three conditional subtractions. Constant
/// time.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline(never)]
unsafe fn mont_mul3(x: &[u64; 12], y: &[u64; 12]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // 96 bytes through each of `x` and `y` (valid [u64; 12] references) and 40 bytes of
    // the static `P_INV`, writes only the declared registers and does not use the stack.
    unsafe {
        core::arch::asm!(
            "xor r8, r8",
            "xor r9, r9",
            "xor r10, r10",
            "xor r11, r11",
            "xor r12, r12",
            "xor r13, r13",
            "mov rdx, qword ptr [rdi + 0]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, qword ptr [rdi + 64]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "mov rdx, r8",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r8, r15",
            "adcx r9, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r11, r15",
            "adcx r12, r14",
            "adox r12, rax",
            "adcx r13, rax",
            "adox r13, rax",
            "xor r8, r8",
            "mov rdx, qword ptr [rdi + 8]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 40]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, qword ptr [rdi + 72]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "mov rdx, r9",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r9, r15",
            "adcx r10, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r12, r15",
            "adcx r13, r14",
            "adox r13, rax",
            "adcx r8, rax",
            "adox r8, rax",
            "xor r9, r9",
            "mov rdx, qword ptr [rdi + 16]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 48]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, qword ptr [rdi + 80]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "mov rdx, r10",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r10, r15",
            "adcx r11, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r13, r15",
            "adcx r8, r14",
            "adox r8, rax",
            "adcx r9, rax",
            "adox r9, rax",
            "xor r10, r10",
            "mov rdx, qword ptr [rdi + 24]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 56]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 32]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 40]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 48]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 56]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, qword ptr [rdi + 88]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rsi + 64]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rsi + 72]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rsi + 80]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rsi + 88]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov rdx, r11",
            "imul rdx, qword ptr [rcx + 32]",
            "xor rax, rax",
            "mulx r14, r15, qword ptr [rcx + 0]",
            "adox r11, r15",
            "adcx r12, r14",
            "mulx r14, r15, qword ptr [rcx + 8]",
            "adox r12, r15",
            "adcx r13, r14",
            "mulx r14, r15, qword ptr [rcx + 16]",
            "adox r13, r15",
            "adcx r8, r14",
            "mulx r14, r15, qword ptr [rcx + 24]",
            "adox r8, r15",
            "adcx r9, r14",
            "adox r9, rax",
            "adcx r10, rax",
            "adox r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            "mov r14, r12",
            "sub r14, qword ptr [rcx + 0]",
            "mov r15, r13",
            "sbb r15, qword ptr [rcx + 8]",
            "mov rdx, r8",
            "sbb rdx, qword ptr [rcx + 16]",
            "mov rsi, r9",
            "sbb rsi, qword ptr [rcx + 24]",
            "sbb r10, 0",
            "cmovnc r12, r14",
            "cmovnc r13, r15",
            "cmovnc r8, rdx",
            "cmovnc r9, rsi",
            "cmovc r10, rax",
            inout("rsi") x.as_ptr() => _,
            in("rdi") y.as_ptr(),
            in("rcx") P_INV.as_ptr(),
            out("rdx") _,
            out("r8") r2,
            out("r9") r3,
            out("r10") _,
            out("r11") _,
            out("r12") r0,
            out("r13") r1,
            out("r14") _,
            out("r15") _,
            out("rax") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}
