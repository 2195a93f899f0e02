//! The `avx2` backend of SM2's field arithmetic: Montgomery multiplication modulo the
//! SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 in x86-64 assembly.
//!
//! The 512-bit product uses BMI2 `mulx` with ADX `adcx`/`adox` (two carry chains); the
//! Montgomery reduction needs no multiplication at all: with -p^-1 mod 2^64 = 1 the
//! quotient digit is the low limb u, and u·p = u·2^256 - u·2^224 - u·2^96 + u·2^64 - u
//! is applied as shifts of u, one borrow chain per round on the low half of the product
//! only; the high half joins in the final conditional subtraction. 16 multiplications in
//! all (a generic Montgomery product needs 32). Used when the CPU has BMI2 and ADX and
//! the active backend is `avx2` or higher; constant time (no branches; the final
//! subtraction selects with `cmov`).
//!
//! The point doubling for a = -3 ([`point_double`]) is one assembly block built from the
//! same operations (the `*_body!` macros): its products are in program order critical
//! chain first, each followed by an independent one, and its values pass through a
//! 256-byte frame on its own stack, wiped before it is given back. It replaces the
//! compiled formula in the wNAF loops (verification) and in `Jacobian::double`; the
//! constant-time windowed loops keep the compiled formula (`point.rs::Sm2AsmSplit`).
//!
//! The rest of the crate calls only the safe wrappers below, which check the switch.
#![allow(unsafe_code)]

use super::field::Limbs;

// Whether products modulo the SM2 prime use this assembly: the thread's active variant
// has `cpu::Feature::Adx` (backend `avx2` or higher, not `-noadx`, and a CPU with BMI2 +
// ADX). [`select`] records the choice at the start of each scalar multiplication, per
// thread. The hot path reads a process-wide copy while no thread runs under a
// `cpu::with_variant` override (then every thread's variant is the process-wide one), and
// the thread's own copy otherwise, so a thread under another forced variant never
// changes this one's code path, and a field product costs no thread-local access in
// normal use. Only [`select`] writes either copy, and only with the value of
// `Variant::has(Feature::Adx)`, which checks the CPU: that is what makes the safe
// wrappers below sound.
static SM2P_ASM_PROCESS: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

thread_local! {
    static SM2P_ASM_THREAD: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Reads `cpu::active_variant()` and switches the assembly on or off for this thread.
#[inline]
pub(super) fn select() {
    use core::sync::atomic::Ordering::Relaxed;
    let want = crate::cpu::active_variant().has(crate::cpu::Feature::Adx);
    SM2P_ASM_THREAD.with(|c| c.set(want));
    // Only a thread without an override speaks for the process; write only on change
    // (verify_many's threads would otherwise bounce the cache line).
    if !crate::cpu::thread_overridden() && SM2P_ASM_PROCESS.load(Relaxed) != want {
        SM2P_ASM_PROCESS.store(want, Relaxed);
    }
}

/// Whether [`select`] switched the assembly on for this thread.
#[inline(always)]
pub(super) fn selected() -> bool {
    if crate::cpu::thread_overrides_active() {
        SM2P_ASM_THREAD.with(core::cell::Cell::get)
    } else {
        SM2P_ASM_PROCESS.load(core::sync::atomic::Ordering::Relaxed)
    }
}

/// [`mont_mul`] when the assembly is switched on for this thread ([`selected`]), else
/// `None` (the caller then uses the portable code).
#[inline(always)]
pub(super) fn mont_mul_selected(a: &Limbs, b: &Limbs) -> Option<Limbs> {
    if selected() {
        // SAFETY: `selected()` is true only after `Variant::has(Feature::Adx)`, which
        // requires BMI2 and ADX on this CPU (see the switch above).
        Some(unsafe { mont_mul(a, b) })
    } else {
        None
    }
}

/// [`mont_sqr`] when the assembly is switched on for this thread, else `None`.
#[inline(always)]
pub(super) fn mont_sqr_selected(a: &Limbs) -> Option<Limbs> {
    if selected() {
        // SAFETY: as in `mont_mul_selected`.
        Some(unsafe { mont_sqr(a) })
    } else {
        None
    }
}

/// Proof that the assembly is switched on for this thread ([`selected`], so the CPU has
/// BMI2 and ADX): a point formula checks the switch once and then runs every field
/// operation through this handle (no check per operation). The operations are those
/// modulo the SM2 prime only; callers obtain the handle for that field only.
#[derive(Clone, Copy)]
pub(super) struct FieldAsm(());

impl FieldAsm {
    /// `Some` when [`selected`].
    #[inline(always)]
    pub(super) fn selected() -> Option<Self> {
        selected().then_some(FieldAsm(()))
    }

    /// [`mont_mul`].
    #[inline(always)]
    pub(super) fn mul(self, a: &Limbs, b: &Limbs) -> Limbs {
        // SAFETY: a `FieldAsm` exists only when `selected()`, which implies BMI2 and ADX.
        unsafe { mont_mul(a, b) }
    }

    /// [`mont_sqr`].
    #[inline(always)]
    pub(super) fn sqr(self, a: &Limbs) -> Limbs {
        // SAFETY: as in `mul`.
        unsafe { mont_sqr(a) }
    }

    /// [`add_mod`].
    #[inline(always)]
    pub(super) fn add(self, a: &Limbs, b: &Limbs) -> Limbs {
        add_mod(a, b)
    }

    /// [`sub_mod`].
    #[inline(always)]
    pub(super) fn sub(self, a: &Limbs, b: &Limbs) -> Limbs {
        sub_mod(a, b)
    }

    /// [`half_mod`].
    #[inline(always)]
    pub(super) fn half(self, a: &Limbs) -> Limbs {
        half_mod(a)
    }

    /// [`point_double`]: the doubling of (X, Y, Z) (limbs < p) on a curve over the SM2
    /// prime with a = -3, as (X3, Y3, Z3) (limbs < p).
    #[inline(always)]
    pub(super) fn double(self, x: &Limbs, y: &Limbs, z: &Limbs) -> [Limbs; 3] {
        // SAFETY: as in `mul`.
        unsafe { point_double(x, y, z) }
    }
}

/// [`mont_mul`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(super) fn mont_mul_detected(a: &Limbs, b: &Limbs) -> Option<Limbs> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_mul(a, b) })
    } else {
        None
    }
}

/// [`mont_sqr`] when this CPU has BMI2 and ADX, whatever the active variant (tests).
#[cfg(test)]
pub(super) fn mont_sqr_detected(a: &Limbs) -> Option<Limbs> {
    if crate::cpu::Feature::Adx.is_detected() {
        // SAFETY: BMI2 and ADX were just checked on this CPU.
        Some(unsafe { mont_sqr(a) })
    } else {
        None
    }
}

/// The SM2 prime p.
pub(super) const SM2_P: Limbs = [
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];

/// The SM2 prime p, read by the final conditional subtraction (`mont_final!`).
static P: Limbs = SM2_P;

/// One round of the Montgomery reduction of the low half W = [u, w1, w2, w3] of the
/// product (-p^-1 mod 2^64 = 1, so the quotient digit is the low limb u itself):
/// (W + u·p) / 2^64 = [w1, w2, w3, 0] + u·2^192 - u·2^160 - u·2^32 + u
/// = [w1, w2, w3, u] - [v0, v1, lo, hi], with lo = u << 32, hi = u >> 32 and
/// v = [v0, v1] = u·2^32 - u (>= 0, < 2^96). One borrow chain, in place; u's register
/// becomes the top limb. It never borrows out: u·2^192 >= u·2^160 + v (equality only for
/// u = 0), so the result is the exact value (W + u·p) / 2^64 < 2^192 + p < 2^256.
/// Operands are template text ("{t0}"); `lo`, `hi`, `v0`, `v1` name scratch registers.
#[rustfmt::skip]
macro_rules! red_round {
    ($u:literal, $w1:literal, $w2:literal, $w3:literal,
     lo = $lo:literal, hi = $hi:literal, v0 = $v0:literal, v1 = $v1:literal) => {
        concat!(
            "mov ", $lo, ", ", $u, "\n",
            "shl ", $lo, ", 32\n",
            "mov ", $hi, ", ", $u, "\n",
            "shr ", $hi, ", 32\n",
            "mov ", $v0, ", ", $lo, "\n",
            "sub ", $v0, ", ", $u, "\n",
            "mov ", $v1, ", ", $hi, "\n",
            "sbb ", $v1, ", 0\n",
            "sub ", $w1, ", ", $v0, "\n",
            "sbb ", $w2, ", ", $v1, "\n",
            "sbb ", $w3, ", ", $lo, "\n",
            "sbb ", $u, ", ", $hi, "\n",
        )
    };
}

/// The end of a Montgomery product: R + H mod p for R <= p (the reduced low half) and
/// H < p (the high half of the product), so R + H < 2p. Both R + H and R + (H - p mod
/// 2^256) are formed at once, the first on the `adcx` (CF) chain in H's registers, the
/// second on the `adox` (OF) chain in D's; R + H >= p exactly when the second carries
/// out (then its low 256 bits are R + H - p < p), and `cmovo` selects it (constant time).
/// H - p is independent of R, so it is computed while the reduction runs.
#[rustfmt::skip]
macro_rules! mont_final {
    (r = [$r0:literal, $r1:literal, $r2:literal, $r3:literal],
     h = [$h0:literal, $h1:literal, $h2:literal, $h3:literal],
     d = [$d0:literal, $d1:literal, $d2:literal, $d3:literal]) => {
        concat!(
            // D = H - p mod 2^256 (p's limbs 0 and 2 are -1, sign-extended immediates).
            "mov ", $d0, ", ", $h0, "\n",
            "sub ", $d0, ", -1\n",
            "mov ", $d1, ", ", $h1, "\n",
            "sbb ", $d1, ", qword ptr [rip + {P} + 8]\n",
            "mov ", $d2, ", ", $h2, "\n",
            "sbb ", $d2, ", -1\n",
            "mov ", $d3, ", ", $h3, "\n",
            "sbb ", $d3, ", qword ptr [rip + {P} + 24]\n",
            // Clears CF and OF.
            "test ", $d3, ", ", $d3, "\n",
            "adcx ", $h0, ", ", $r0, "\n",
            "adox ", $d0, ", ", $r0, "\n",
            "adcx ", $h1, ", ", $r1, "\n",
            "adox ", $d1, ", ", $r1, "\n",
            "adcx ", $h2, ", ", $r2, "\n",
            "adox ", $d2, ", ", $r2, "\n",
            "adcx ", $h3, ", ", $r3, "\n",
            "adox ", $d3, ", ", $r3, "\n",
            "cmovo ", $h0, ", ", $d0, "\n",
            "cmovo ", $h1, ", ", $d1, "\n",
            "cmovo ", $h2, ", ", $d2, "\n",
            "cmovo ", $h3, ", ", $d3, "\n",
        )
    };
}

/// Row i (1 to 3) of the schoolbook product in [`mul_body!`]: rdx = b_i times the four
/// limbs of a (in memory at `$a`) added into `c` = the five product limbs from i up, on
/// two carry chains (`adox` low halves, `adcx` high halves); c4 is zeroed first (which
/// also clears CF and OF) and takes the top.
#[rustfmt::skip]
macro_rules! mul_row {
    ($a:literal, $b:expr, [$c0:literal, $c1:literal, $c2:literal, $c3:literal, $c4:literal],
     lo = $lo:literal, hi = $hi:literal) => {
        concat!(
            "mov rdx, ", $b, "\n",
            "xor ", $c4, ", ", $c4, "\n",
            "mulx ", $hi, ", ", $lo, ", qword ptr [", $a, "]\n",
            "adox ", $c0, ", ", $lo, "\n",
            "adcx ", $c1, ", ", $hi, "\n",
            "mulx ", $hi, ", ", $lo, ", qword ptr [", $a, " + 8]\n",
            "adox ", $c1, ", ", $lo, "\n",
            "adcx ", $c2, ", ", $hi, "\n",
            "mulx ", $hi, ", ", $lo, ", qword ptr [", $a, " + 16]\n",
            "adox ", $c2, ", ", $lo, "\n",
            "adcx ", $c3, ", ", $hi, "\n",
            "mulx ", $hi, ", ", $lo, ", qword ptr [", $a, " + 24]\n",
            "adox ", $c3, ", ", $lo, "\n",
            "adcx ", $c4, ", ", $hi, "\n",
            "mov ", $lo, ", 0\n",
            "adox ", $c4, ", ", $lo, "\n",
        )
    };
}

/// The Montgomery product a·b·2^-256 mod p of [`mont_mul`] as template text: a is read
/// from memory at address `$a` (e.g. "{a}" or "rsp + 96"), the limbs of b are registers or
/// memory operands (`bm = "rsp + 160"`: b in memory there). The result ends in
/// [t4, h0, h1, h2]; t0-t3, lo, hi, x and rdx are overwritten. When b is in registers,
/// h0-h2 may be b0-b2 (each is zeroed only after its limb has been moved into rdx).
#[rustfmt::skip]
macro_rules! mul_body {
    (a = $a:literal, bm = $bm:literal, $($rest:tt)*) => {
        mul_body!(a = $a,
            b = [concat!("qword ptr [", $bm, "]"), concat!("qword ptr [", $bm, " + 8]"),
                 concat!("qword ptr [", $bm, " + 16]"), concat!("qword ptr [", $bm, " + 24]")],
            $($rest)*)
    };
    (a = $a:literal, b = [$b0:expr, $b1:expr, $b2:expr, $b3:expr],
     t = [$t0:literal, $t1:literal, $t2:literal, $t3:literal, $t4:literal],
     h = [$h0:literal, $h1:literal, $h2:literal], lo = $lo:literal, hi = $hi:literal,
     x = $x:literal) => {
        concat!(
            "mov rdx, ", $b0, "\n",
            "mulx ", $t1, ", ", $t0, ", qword ptr [", $a, "]\n",
            "mulx ", $t2, ", ", $lo, ", qword ptr [", $a, " + 8]\n",
            "add ", $t1, ", ", $lo, "\n",
            "mulx ", $t3, ", ", $lo, ", qword ptr [", $a, " + 16]\n",
            "adc ", $t2, ", ", $lo, "\n",
            "mulx ", $t4, ", ", $lo, ", qword ptr [", $a, " + 24]\n",
            "adc ", $t3, ", ", $lo, "\n",
            "adc ", $t4, ", 0\n",
            mul_row!($a, $b1, [$t1, $t2, $t3, $t4, $h0], lo = $lo, hi = $hi),
            mul_row!($a, $b2, [$t2, $t3, $t4, $h0, $h1], lo = $lo, hi = $hi),
            mul_row!($a, $b3, [$t3, $t4, $h0, $h1, $h2], lo = $lo, hi = $hi),
            // T = [t0, t1, t2, t3 | t4, h0, h1, h2]; R ends in [t0, t1, t2, t3].
            red_round!($t0, $t1, $t2, $t3, lo = $lo, hi = $hi, v0 = "rdx", v1 = $x),
            red_round!($t1, $t2, $t3, $t0, lo = $lo, hi = $hi, v0 = "rdx", v1 = $x),
            red_round!($t2, $t3, $t0, $t1, lo = $lo, hi = $hi, v0 = "rdx", v1 = $x),
            red_round!($t3, $t0, $t1, $t2, lo = $lo, hi = $hi, v0 = "rdx", v1 = $x),
            mont_final!(r = [$t0, $t1, $t2, $t3], h = [$t4, $h0, $h1, $h2],
                d = [$lo, $hi, "rdx", $x]),
        )
    };
}

/// The Montgomery square a^2·2^-256 mod p of [`mont_sqr`] as template text, a in the
/// registers a0-a3 (overwritten). The result ends in [t4, t5, t6, lo]; a0-a3, t1-t3, hi
/// and rdx are overwritten.
#[rustfmt::skip]
macro_rules! sqr_body {
    (a = [$a0:literal, $a1:literal, $a2:literal, $a3:literal],
     t = [$t1:literal, $t2:literal, $t3:literal, $t4:literal, $t5:literal, $t6:literal],
     lo = $lo:literal, hi = $hi:literal) => {
        concat!(
            "mov rdx, ", $a0, "\n",
            "mulx ", $t2, ", ", $t1, ", ", $a1, "\n",
            "mulx ", $t3, ", ", $lo, ", ", $a2, "\n",
            "add ", $t2, ", ", $lo, "\n",
            "mulx ", $t4, ", ", $lo, ", ", $a3, "\n",
            "adc ", $t3, ", ", $lo, "\n",
            "adc ", $t4, ", 0\n",
            "mov rdx, ", $a1, "\n",
            "xor ", $t5, ", ", $t5, "\n",
            "mulx ", $hi, ", ", $lo, ", ", $a2, "\n",
            "adox ", $t3, ", ", $lo, "\n",
            "adcx ", $t4, ", ", $hi, "\n",
            "mulx ", $hi, ", ", $lo, ", ", $a3, "\n",
            "adox ", $t4, ", ", $lo, "\n",
            "adcx ", $t5, ", ", $hi, "\n",
            "mov ", $lo, ", 0\n",
            "adox ", $t5, ", ", $lo, "\n",
            "mov rdx, ", $a2, "\n",
            "mulx ", $t6, ", ", $lo, ", ", $a3, "\n",
            "add ", $t5, ", ", $lo, "\n",
            "adc ", $t6, ", 0\n",
            // Double the cross products; t7 is `lo` from here on.
            "xor ", $lo, ", ", $lo, "\n",
            "add ", $t1, ", ", $t1, "\n",
            "adc ", $t2, ", ", $t2, "\n",
            "adc ", $t3, ", ", $t3, "\n",
            "adc ", $t4, ", ", $t4, "\n",
            "adc ", $t5, ", ", $t5, "\n",
            "adc ", $t6, ", ", $t6, "\n",
            "adc ", $lo, ", 0\n",
            // Add the squares; each limb's register takes the low half of its square
            // (t0 = a0^2 stays in a0's register).
            "mov rdx, ", $a0, "\n",
            "mulx ", $hi, ", ", $a0, ", rdx\n",
            "add ", $t1, ", ", $hi, "\n",
            "mov rdx, ", $a1, "\n",
            "mulx ", $hi, ", ", $a1, ", rdx\n",
            "adc ", $t2, ", ", $a1, "\n",
            "adc ", $t3, ", ", $hi, "\n",
            "mov rdx, ", $a2, "\n",
            "mulx ", $hi, ", ", $a2, ", rdx\n",
            "adc ", $t4, ", ", $a2, "\n",
            "adc ", $t5, ", ", $hi, "\n",
            "mov rdx, ", $a3, "\n",
            "mulx ", $hi, ", ", $a3, ", rdx\n",
            "adc ", $t6, ", ", $a3, "\n",
            "adc ", $lo, ", ", $hi, "\n",
            // T = [a0, t1, t2, t3 | t4, t5, t6, lo]; R ends in [a0, t1, t2, t3].
            red_round!($a0, $t1, $t2, $t3, lo = $a1, hi = $hi, v0 = "rdx", v1 = $a2),
            red_round!($t1, $t2, $t3, $a0, lo = $a1, hi = $hi, v0 = "rdx", v1 = $a2),
            red_round!($t2, $t3, $a0, $t1, lo = $a1, hi = $hi, v0 = "rdx", v1 = $a2),
            red_round!($t3, $a0, $t1, $t2, lo = $a1, hi = $hi, v0 = "rdx", v1 = $a2),
            mont_final!(r = [$a0, $t1, $t2, $t3], h = [$t4, $t5, $t6, $lo],
                d = [$a1, $hi, "rdx", $a2]),
        )
    };
}

/// r = r + b mod p ([`add_mod`]) as template text, for r, b < p; b's limbs are registers
/// or memory operands (`bm`: b in memory at that address), t0-t3 scratch registers (may be
/// b's own), c a scratch register whose 32-bit name is c32.
#[rustfmt::skip]
macro_rules! add_body {
    (r = $r:tt, bm = $bm:literal, $($rest:tt)*) => {
        add_body!(r = $r,
            b = [concat!("qword ptr [", $bm, "]"), concat!("qword ptr [", $bm, " + 8]"),
                 concat!("qword ptr [", $bm, " + 16]"), concat!("qword ptr [", $bm, " + 24]")],
            $($rest)*)
    };
    (r = [$r0:literal, $r1:literal, $r2:literal, $r3:literal],
     b = [$b0:expr, $b1:expr, $b2:expr, $b3:expr],
     t = [$t0:literal, $t1:literal, $t2:literal, $t3:literal], c = $c:literal,
     c32 = $c32:literal) => {
        concat!(
            "xor ", $c32, ", ", $c32, "\n",
            "add ", $r0, ", ", $b0, "\n",
            "adc ", $r1, ", ", $b1, "\n",
            "adc ", $r2, ", ", $b2, "\n",
            "adc ", $r3, ", ", $b3, "\n",
            "adc ", $c, ", 0\n",
            "mov ", $t0, ", ", $r0, "\n",
            "sub ", $t0, ", qword ptr [rip + {P}]\n",
            "mov ", $t1, ", ", $r1, "\n",
            "sbb ", $t1, ", qword ptr [rip + {P} + 8]\n",
            "mov ", $t2, ", ", $r2, "\n",
            "sbb ", $t2, ", qword ptr [rip + {P} + 16]\n",
            "mov ", $t3, ", ", $r3, "\n",
            "sbb ", $t3, ", qword ptr [rip + {P} + 24]\n",
            "sbb ", $c, ", 0\n",
            "cmovnc ", $r0, ", ", $t0, "\n",
            "cmovnc ", $r1, ", ", $t1, "\n",
            "cmovnc ", $r2, ", ", $t2, "\n",
            "cmovnc ", $r3, ", ", $t3, "\n",
        )
    };
}

/// r = r - b mod p ([`sub_mod`]) as template text, for r, b < p; b's limbs are registers
/// or memory operands (`bm`: b in memory there); m, k1, k3 scratch registers (k1 and k3
/// may be b1 and b3).
#[rustfmt::skip]
macro_rules! sub_body {
    (r = $r:tt, bm = $bm:literal, $($rest:tt)*) => {
        sub_body!(r = $r,
            b = [concat!("qword ptr [", $bm, "]"), concat!("qword ptr [", $bm, " + 8]"),
                 concat!("qword ptr [", $bm, " + 16]"), concat!("qword ptr [", $bm, " + 24]")],
            $($rest)*)
    };
    (r = [$r0:literal, $r1:literal, $r2:literal, $r3:literal],
     b = [$b0:expr, $b1:expr, $b2:expr, $b3:expr],
     m = $m:literal, k1 = $k1:literal, k3 = $k3:literal) => {
        concat!(
            "sub ", $r0, ", ", $b0, "\n",
            "sbb ", $r1, ", ", $b1, "\n",
            "sbb ", $r2, ", ", $b2, "\n",
            "sbb ", $r3, ", ", $b3, "\n",
            "sbb ", $m, ", ", $m, "\n",
            "mov ", $k1, ", ", $m, "\n",
            "and ", $k1, ", qword ptr [rip + {P} + 8]\n",
            "mov ", $k3, ", ", $m, "\n",
            "and ", $k3, ", qword ptr [rip + {P} + 24]\n",
            "add ", $r0, ", ", $m, "\n",
            "adc ", $r1, ", ", $k1, "\n",
            "adc ", $r2, ", ", $m, "\n",
            "adc ", $r3, ", ", $k3, "\n",
        )
    };
}

/// r = r / 2 mod p ([`half_mod`]) as template text, for r < p; k, p1, p3, c scratch
/// registers (c32: c's 32-bit name).
#[rustfmt::skip]
macro_rules! half_body {
    (r = [$r0:literal, $r1:literal, $r2:literal, $r3:literal],
     k = $k:literal, p1 = $p1:literal, p3 = $p3:literal, c = $c:literal, c32 = $c32:literal) => {
        concat!(
            "mov ", $k, ", ", $r0, "\n",
            "and ", $k, ", 1\n",
            "neg ", $k, "\n",
            "mov ", $p1, ", ", $k, "\n",
            "and ", $p1, ", qword ptr [rip + {P} + 8]\n",
            "mov ", $p3, ", ", $k, "\n",
            "and ", $p3, ", qword ptr [rip + {P} + 24]\n",
            "xor ", $c32, ", ", $c32, "\n",
            "add ", $r0, ", ", $k, "\n",
            "adc ", $r1, ", ", $p1, "\n",
            "adc ", $r2, ", ", $k, "\n",
            "adc ", $r3, ", ", $p3, "\n",
            "adc ", $c, ", 0\n",
            // The 257-bit shift by shr/shl/or (`shrd` is slow on some CPUs): each limb
            // takes the low bit of the next one before that one is shifted.
            "shr ", $r0, ", 1\n",
            "mov ", $k, ", ", $r1, "\n",
            "shl ", $k, ", 63\n",
            "or ", $r0, ", ", $k, "\n",
            "shr ", $r1, ", 1\n",
            "mov ", $k, ", ", $r2, "\n",
            "shl ", $k, ", 63\n",
            "or ", $r1, ", ", $k, "\n",
            "shr ", $r2, ", 1\n",
            "mov ", $k, ", ", $r3, "\n",
            "shl ", $k, ", 63\n",
            "or ", $r2, ", ", $k, "\n",
            "shr ", $r3, ", 1\n",
            "shl ", $c, ", 63\n",
            "or ", $r3, ", ", $c, "\n",
        )
    };
}

/// Four limbs from registers to memory at `$at` (`st4!`) or back (`ld4!`).
#[rustfmt::skip]
macro_rules! st4 {
    ($at:literal, [$r0:literal, $r1:literal, $r2:literal, $r3:literal]) => {
        concat!(
            "mov qword ptr [", $at, "], ", $r0, "\n",
            "mov qword ptr [", $at, " + 8], ", $r1, "\n",
            "mov qword ptr [", $at, " + 16], ", $r2, "\n",
            "mov qword ptr [", $at, " + 24], ", $r3, "\n",
        )
    };
}

#[rustfmt::skip]
macro_rules! ld4 {
    ([$r0:literal, $r1:literal, $r2:literal, $r3:literal], $at:literal) => {
        concat!(
            "mov ", $r0, ", qword ptr [", $at, "]\n",
            "mov ", $r1, ", qword ptr [", $at, " + 8]\n",
            "mov ", $r2, ", qword ptr [", $at, " + 16]\n",
            "mov ", $r3, ", qword ptr [", $at, " + 24]\n",
        )
    };
}

/// `a * b * 2^-256 mod p` for a, b < p.
///
/// The product T = a·b is formed in full (T < p^2 < 2^256·p, so its high half H < p); the four
/// reduction rounds take the low half only (they need nothing above it), giving
/// R = (T_lo + U·p) / 2^256 <= p, and the result is R + H reduced once (`mont_final!`).
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline]
unsafe fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // 32 bytes through `a` (a valid [u64; 4] reference; `b` comes in registers, whose
    // limbs become the upper product limbs once moved into rdx) and 16 bytes of the
    // static `P`, writes only the declared registers and does not use the stack.
    unsafe {
        core::arch::asm!(
            mul_body!(a = "{a}", b = ["{b0}", "{b1}", "{b2}", "{b3}"],
                t = ["{t0}", "{t1}", "{t2}", "{t3}", "{t4}"], h = ["{b0}", "{b1}", "{b2}"],
                lo = "{lo}", hi = "{hi}", x = "{a}"),
            a = inout(reg) a.as_ptr() => _,
            b0 = inout(reg) b[0] => r1,
            b1 = inout(reg) b[1] => r2,
            b2 = inout(reg) b[2] => r3,
            b3 = in(reg) b[3],
            P = sym P,
            t0 = out(reg) _,
            t1 = out(reg) _,
            t2 = out(reg) _,
            t3 = out(reg) _,
            t4 = out(reg) r0,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a^2 * 2^-256 mod p` for a < p: the 6 cross products once, doubled, plus the 4
/// squares (10 multiplications), then the same reduction as [`mont_mul`]. The limbs of
/// `a` come in registers, which hold t0 and the reduction's scratch values once each
/// limb has been squared (t7 lives in `lo`).
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline]
unsafe fn mont_sqr(a: &Limbs) -> Limbs {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: as in `mont_mul`: BMI2 and ADX are guaranteed by the caller; the assembly
    // reads only registers and 16 bytes of `P`, writes only declared registers and does
    // not use the stack.
    unsafe {
        core::arch::asm!(
            sqr_body!(a = ["{a0}", "{a1}", "{a2}", "{a3}"],
                t = ["{t1}", "{t2}", "{t3}", "{t4}", "{t5}", "{t6}"], lo = "{lo}", hi = "{hi}"),
            a0 = inout(reg) a[0] => _,
            a1 = inout(reg) a[1] => _,
            a2 = inout(reg) a[2] => _,
            a3 = inout(reg) a[3] => _,
            P = sym P,
            t1 = out(reg) _,
            t2 = out(reg) _,
            t3 = out(reg) _,
            t4 = out(reg) r0,
            t5 = out(reg) r1,
            t6 = out(reg) r2,
            lo = out(reg) r3,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

// Stack frame of `point_double` (byte offsets from rsp after `sub rsp, 256`; each slot
// one field element, reused once its first value is dead):
//   0: X, then X3      32: Y, then 2Y       64: Z
//  96: X + Z^2, then S·X - X3, then Y3     128: S = (2Y)^2, then S^2 / 2
// 160: X - Z^2, then 3M                    192: S·X          224: 2·S·X

/// 2P for P = (X, Y, Z) on a curve over the SM2 prime with a = -3, in one assembly block:
/// the formula of `point.rs::double_with` (dbl-2001-b), with the same results (every
/// output fully reduced, so the order of the operations cannot change them):
/// y2 = 2Y; S = y2^2; ZZ = Z^2; Z3 = y2·Z; M = 3(X + ZZ)(X - ZZ); X3 = M^2 - 2·S·X;
/// Y3 = M·(S·X - X3) - S^2 / 2.
///
/// The products are in program order critical chain first (ZZ, M, M^2, M·(S·X - X3)),
/// each followed by an independent one (S, S·X, S^2, Z3) that fills its latency: the
/// out-of-order core runs the oldest ready instruction first. Values pass between the
/// products through a 256-byte frame on the assembly's own stack, wiped before it is
/// given back. Constant time: no branch, no address depending on the data.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`cpu::Feature::Adx`).
#[inline]
unsafe fn point_double(x: &Limbs, y: &Limbs, z: &Limbs) -> [Limbs; 3] {
    let [mut x0, mut x1, mut x2, mut x3] = *x;
    let [mut y0, mut y1, mut y2, mut y3] = *y;
    let [mut z0, mut z1, mut z2, mut z3] = *z;
    // SAFETY: the caller guarantees BMI2 (mulx) and ADX (adcx/adox). The assembly reads
    // the static `P` and its own 256-byte stack frame (below rsp, allocated with `sub rsp`
    // and released with `add rsp`, rsp 16-byte aligned on entry since `nostack` is not
    // given), writes only that frame (zeroed before release) and the declared registers.
    unsafe {
        core::arch::asm!(
            "sub rsp, 256",
            st4!("rsp", ["r8", "r9", "r10", "r11"]),
            st4!("rsp + 32", ["r12", "r13", "r14", "r15"]),
            st4!("rsp + 64", ["rax", "rcx", "rsi", "rdi"]),
            // ZZ = Z^2 (chain), into [r11, r12, r13, r14].
            sqr_body!(a = ["rax", "rcx", "rsi", "rdi"], t = ["r8", "r9", "r10", "r11", "r12", "r13"],
                lo = "r14", hi = "r15"),
            // X - ZZ and X + ZZ, to the frame.
            ld4!(["rax", "rcx", "rsi", "rdi"], "rsp"),
            sub_body!(r = ["rax", "rcx", "rsi", "rdi"], b = ["r11", "r12", "r13", "r14"],
                m = "r8", k1 = "r9", k3 = "r10"),
            st4!("rsp + 160", ["rax", "rcx", "rsi", "rdi"]),
            add_body!(r = ["r11", "r12", "r13", "r14"], bm = "rsp", t = ["rax", "rcx", "rsi", "rdi"],
                c = "r8", c32 = "r8d"),
            st4!("rsp + 96", ["r11", "r12", "r13", "r14"]),
            // y2 = 2Y and S = y2^2 (independent).
            ld4!(["rax", "rcx", "rsi", "rdi"], "rsp + 32"),
            add_body!(r = ["rax", "rcx", "rsi", "rdi"], b = ["rax", "rcx", "rsi", "rdi"],
                t = ["r8", "r9", "r10", "r11"], c = "r12", c32 = "r12d"),
            st4!("rsp + 32", ["rax", "rcx", "rsi", "rdi"]),
            sqr_body!(a = ["rax", "rcx", "rsi", "rdi"], t = ["r8", "r9", "r10", "r11", "r12", "r13"],
                lo = "r14", hi = "r15"),
            st4!("rsp + 128", ["r11", "r12", "r13", "r14"]),
            // M = (X + ZZ)(X - ZZ) (chain), into [rax, rcx, rsi, rdi]; 3M = 2M + M.
            mul_body!(a = "rsp + 96", bm = "rsp + 160", t = ["r8", "r9", "r10", "r11", "rax"],
                h = ["rcx", "rsi", "rdi"], lo = "r12", hi = "r13", x = "r14"),
            "mov r8, rax",
            "mov r9, rcx",
            "mov r10, rsi",
            "mov r11, rdi",
            add_body!(r = ["r8", "r9", "r10", "r11"], b = ["r8", "r9", "r10", "r11"],
                t = ["r12", "r13", "r14", "r15"], c = "rdx", c32 = "edx"),
            add_body!(r = ["rax", "rcx", "rsi", "rdi"], b = ["r8", "r9", "r10", "r11"],
                t = ["r8", "r9", "r10", "r11"], c = "rdx", c32 = "edx"),
            st4!("rsp + 160", ["rax", "rcx", "rsi", "rdi"]),
            // S·X and 2·S·X (independent).
            mul_body!(a = "rsp", bm = "rsp + 128", t = ["r8", "r9", "r10", "r11", "rax"],
                h = ["rcx", "rsi", "rdi"], lo = "r12", hi = "r13", x = "r14"),
            st4!("rsp + 192", ["rax", "rcx", "rsi", "rdi"]),
            add_body!(r = ["rax", "rcx", "rsi", "rdi"], b = ["rax", "rcx", "rsi", "rdi"],
                t = ["r8", "r9", "r10", "r11"], c = "r12", c32 = "r12d"),
            st4!("rsp + 224", ["rax", "rcx", "rsi", "rdi"]),
            // (3M)^2 (chain), into [r11, r12, r13, r14]; X3 = (3M)^2 - 2·S·X;
            // S·X - X3.
            ld4!(["rax", "rcx", "rsi", "rdi"], "rsp + 160"),
            sqr_body!(a = ["rax", "rcx", "rsi", "rdi"], t = ["r8", "r9", "r10", "r11", "r12", "r13"],
                lo = "r14", hi = "r15"),
            sub_body!(r = ["r11", "r12", "r13", "r14"], bm = "rsp + 224", m = "r8", k1 = "r9", k3 = "r10"),
            st4!("rsp", ["r11", "r12", "r13", "r14"]),
            ld4!(["rax", "rcx", "rsi", "rdi"], "rsp + 192"),
            sub_body!(r = ["rax", "rcx", "rsi", "rdi"], b = ["r11", "r12", "r13", "r14"],
                m = "r8", k1 = "r9", k3 = "r10"),
            st4!("rsp + 96", ["rax", "rcx", "rsi", "rdi"]),
            // S^2 / 2 (independent).
            ld4!(["rax", "rcx", "rsi", "rdi"], "rsp + 128"),
            sqr_body!(a = ["rax", "rcx", "rsi", "rdi"], t = ["r8", "r9", "r10", "r11", "r12", "r13"],
                lo = "r14", hi = "r15"),
            half_body!(r = ["r11", "r12", "r13", "r14"], k = "r8", p1 = "r9", p3 = "r10", c = "r15",
                c32 = "r15d"),
            st4!("rsp + 128", ["r11", "r12", "r13", "r14"]),
            // Y3 = 3M·(S·X - X3) - S^2 / 2 (chain).
            mul_body!(a = "rsp + 160", bm = "rsp + 96", t = ["r8", "r9", "r10", "r11", "rax"],
                h = ["rcx", "rsi", "rdi"], lo = "r12", hi = "r13", x = "r14"),
            sub_body!(r = ["rax", "rcx", "rsi", "rdi"], bm = "rsp + 128", m = "r8", k1 = "r9", k3 = "r10"),
            st4!("rsp + 96", ["rax", "rcx", "rsi", "rdi"]),
            // Z3 = y2·Z (independent), into [rax, rcx, rsi, rdi].
            mul_body!(a = "rsp + 32", bm = "rsp + 64", t = ["r8", "r9", "r10", "r11", "rax"],
                h = ["rcx", "rsi", "rdi"], lo = "r12", hi = "r13", x = "r14"),
            ld4!(["r8", "r9", "r10", "r11"], "rsp"),
            ld4!(["r12", "r13", "r14", "r15"], "rsp + 96"),
            // The frame held secret-dependent values (a scalar multiplication's
            // intermediate points): wiped before it is given back.
            "xorps xmm0, xmm0",
            "movups xmmword ptr [rsp], xmm0",
            "movups xmmword ptr [rsp + 16], xmm0",
            "movups xmmword ptr [rsp + 32], xmm0",
            "movups xmmword ptr [rsp + 48], xmm0",
            "movups xmmword ptr [rsp + 64], xmm0",
            "movups xmmword ptr [rsp + 80], xmm0",
            "movups xmmword ptr [rsp + 96], xmm0",
            "movups xmmword ptr [rsp + 112], xmm0",
            "movups xmmword ptr [rsp + 128], xmm0",
            "movups xmmword ptr [rsp + 144], xmm0",
            "movups xmmword ptr [rsp + 160], xmm0",
            "movups xmmword ptr [rsp + 176], xmm0",
            "movups xmmword ptr [rsp + 192], xmm0",
            "movups xmmword ptr [rsp + 208], xmm0",
            "movups xmmword ptr [rsp + 224], xmm0",
            "movups xmmword ptr [rsp + 240], xmm0",
            "add rsp, 256",
            P = sym P,
            inout("r8") x0,
            inout("r9") x1,
            inout("r10") x2,
            inout("r11") x3,
            inout("r12") y0,
            inout("r13") y1,
            inout("r14") y2,
            inout("r15") y3,
            inout("rax") z0,
            inout("rcx") z1,
            inout("rsi") z2,
            inout("rdi") z3,
            out("rdx") _,
            out("xmm0") _,
            options(pure, readonly),
        );
    }
    [[x0, x1, x2, x3], [y0, y1, y2, y3], [z0, z1, z2, z3]]
}

/// [`add_mod`] when the assembly is switched on for this thread, else `None`.
#[inline(always)]
pub(super) fn add_mod_selected(a: &Limbs, b: &Limbs) -> Option<Limbs> {
    // add/adc/sbb/cmov are baseline x86-64; the switch only keeps one code path per
    // variant (the portable variant runs the portable code).
    if selected() {
        Some(add_mod(a, b))
    } else {
        None
    }
}

/// [`sub_mod`] when the assembly is switched on for this thread, else `None`.
#[inline(always)]
pub(super) fn sub_mod_selected(a: &Limbs, b: &Limbs) -> Option<Limbs> {
    if selected() {
        Some(sub_mod(a, b))
    } else {
        None
    }
}

/// `a + b mod p` for a, b < p: one carry chain, then p subtracted and the result chosen
/// with `cmov` (constant time). Limbs travel in registers (no stores), which matters for
/// the many short additions of the point formulas.
#[inline(always)]
pub(super) fn add_mod(a: &Limbs, b: &Limbs) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: only baseline x86-64 instructions on registers and 32 bytes of the static
    // `P`; no stack use.
    unsafe {
        core::arch::asm!(
            add_body!(r = ["{r0}", "{r1}", "{r2}", "{r3}"], b = ["{b0}", "{b1}", "{b2}", "{b3}"],
                t = ["{b0}", "{b1}", "{b2}", "{b3}"], c = "{c}", c32 = "{c:e}"),
            r0 = inout(reg) r0,
            r1 = inout(reg) r1,
            r2 = inout(reg) r2,
            r3 = inout(reg) r3,
            b0 = inout(reg) b[0] => _,
            b1 = inout(reg) b[1] => _,
            b2 = inout(reg) b[2] => _,
            b3 = inout(reg) b[3] => _,
            c = out(reg) _,
            P = sym P,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a - b mod p` for a, b < p: one borrow chain, then p added under the borrow mask
/// (constant time).
#[inline(always)]
pub(super) fn sub_mod(a: &Limbs, b: &Limbs) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: as in `add_mod`.
    unsafe {
        core::arch::asm!(
            sub_body!(r = ["{r0}", "{r1}", "{r2}", "{r3}"], b = ["{b0}", "{b1}", "{b2}", "{b3}"],
                m = "{m}", k1 = "{b1}", k3 = "{b3}"),
            r0 = inout(reg) r0,
            r1 = inout(reg) r1,
            r2 = inout(reg) r2,
            r3 = inout(reg) r3,
            b0 = in(reg) b[0],
            b1 = inout(reg) b[1] => _,
            b2 = in(reg) b[2],
            b3 = inout(reg) b[3] => _,
            m = out(reg) _,
            P = sym P,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a / 2 mod p` for a < p: p added under the mask of a's low bit, then the 257-bit sum
/// shifted right by one (no branch; the doubling's 8Y^4 = S^2 / 2). In assembly so that
/// the mask cannot become a branch when the doubling is inlined into a loop.
#[inline(always)]
pub(super) fn half_mod(a: &Limbs) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: only baseline x86-64 instructions on registers and 32 bytes of the static
    // `P`; no stack use.
    unsafe {
        core::arch::asm!(
            half_body!(r = ["{r0}", "{r1}", "{r2}", "{r3}"], k = "{k}", p1 = "{p1}", p3 = "{p3}",
                c = "{c}", c32 = "{c:e}"),
            r0 = inout(reg) r0,
            r1 = inout(reg) r1,
            r2 = inout(reg) r2,
            r3 = inout(reg) r3,
            k = out(reg) _,
            p1 = out(reg) _,
            p3 = out(reg) _,
            c = out(reg) _,
            P = sym P,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// Proof that the thread's active variant is the `avx2` backend or higher, on a CPU that
/// runs it (so AVX2 is present): the table scans below may use it. Read once per scalar
/// multiplication (`table.rs`); `-noadx` variants scan with AVX2 too (the feature only
/// concerns the field assembly).
#[derive(Clone, Copy)]
pub(super) struct Avx2Scan(());

impl Avx2Scan {
    /// `Some` when the active variant's backend is `avx2` or higher and supported here.
    #[inline]
    pub(super) fn active() -> Option<Self> {
        let v = crate::cpu::active_variant();
        (v.backend() >= crate::cpu::Backend::Avx2 && v.is_supported()).then_some(Avx2Scan(()))
    }

    /// Entry `max(digit, 1) - 1` of a row of N affine points (x ∥ y limbs; 32 in a comb
    /// window, 16 in the fixed-window table), read in constant time: every entry is
    /// loaded and masked by comparing the public entry number with the secret digit (no
    /// secret index or branch).
    #[inline]
    pub(super) fn select_8<const N: usize>(self, row: &[[u64; 8]; N], digit: u8) -> [u64; 8] {
        // SAFETY: an `Avx2Scan` exists only when this CPU runs AVX2 (`active`).
        unsafe { select_8(row, digit) }
    }
}

/// `digit`, or 1 when it is 0 (the digit-0 addition reads entry 1 and is discarded by the
/// caller), without a branch.
#[inline(always)]
pub(super) fn entry_number(digit: u8) -> i64 {
    let d = u64::from(digit);
    (d | (d.wrapping_sub(1) >> 63)) as i64
}

#[target_feature(enable = "avx2")]
unsafe fn select_8<const N: usize>(row: &[[u64; 8]; N], digit: u8) -> [u64; 8] {
    use core::arch::x86_64::*;
    let want = _mm256_set1_epi64x(entry_number(digit));
    let one = _mm256_set1_epi64x(1);
    let mut idx = one;
    let (mut a0, mut a1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    for e in row {
        let m = _mm256_cmpeq_epi64(idx, want);
        let p = e.as_ptr().cast::<__m256i>();
        // SAFETY: `e` is 64 readable bytes; unaligned loads.
        let (v0, v1) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
        a0 = _mm256_or_si256(a0, _mm256_and_si256(m, v0));
        a1 = _mm256_or_si256(a1, _mm256_and_si256(m, v1));
        idx = _mm256_add_epi64(idx, one);
    }
    let mut out = [0u64; 8];
    let p = out.as_mut_ptr().cast::<__m256i>();
    // SAFETY: `out` is 64 writable bytes.
    unsafe {
        _mm256_storeu_si256(p, a0);
        _mm256_storeu_si256(p.add(1), a1);
    }
    out
}

/// `m - y mod m` (0 for y = 0) when `neg` is 1, else `y`, for y < m and any modulus m:
/// the negation of a selected table point, without a branch (`neg` is a secret 0 or 1,
/// used only by `cmov`).
#[inline(always)]
pub(super) fn neg_if(y: &Limbs, m: &Limbs, neg: u8) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *y;
    // SAFETY: only baseline x86-64 instructions on registers; no memory or stack use.
    unsafe {
        core::arch::asm!(
            // k = all ones when y != 0; then (m & k) - y, which is m - y or 0.
            "mov {k}, {r0}",
            "or {k}, {r1}",
            "or {k}, {r2}",
            "or {k}, {r3}",
            "neg {k}",
            "sbb {k}, {k}",
            "and {m0}, {k}",
            "and {m1}, {k}",
            "and {m2}, {k}",
            "and {m3}, {k}",
            "sub {m0}, {r0}",
            "sbb {m1}, {r1}",
            "sbb {m2}, {r2}",
            "sbb {m3}, {r3}",
            "test {neg:e}, {neg:e}",
            "cmovnz {r0}, {m0}",
            "cmovnz {r1}, {m1}",
            "cmovnz {r2}, {m2}",
            "cmovnz {r3}, {m3}",
            r0 = inout(reg) r0,
            r1 = inout(reg) r1,
            r2 = inout(reg) r2,
            r3 = inout(reg) r3,
            m0 = inout(reg) m[0] => _,
            m1 = inout(reg) m[1] => _,
            m2 = inout(reg) m[2] => _,
            m3 = inout(reg) m[3] => _,
            neg = in(reg) u32::from(neg),
            k = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    [r0, r1, r2, r3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The halving against its definition (2 · (a / 2) = a, and the portable formula:
    /// a even: a >> 1; a odd: (a + p) >> 1 as a 257-bit sum) at the edges and along a
    /// chain of values.
    #[test]
    fn half_mod_matches_definition() {
        let reference = |a: &Limbs| -> Limbs {
            let odd = a[0] & 1 == 1;
            let mut s = [0u64; 5];
            let mut carry = 0u128;
            for i in 0..4 {
                let t = a[i] as u128 + if odd { SM2_P[i] as u128 } else { 0 } + carry;
                s[i] = t as u64;
                carry = t >> 64;
            }
            s[4] = carry as u64;
            [
                (s[0] >> 1) | (s[1] << 63),
                (s[1] >> 1) | (s[2] << 63),
                (s[2] >> 1) | (s[3] << 63),
                (s[3] >> 1) | (s[4] << 63),
            ]
        };
        let pm1 = [SM2_P[0] - 1, SM2_P[1], SM2_P[2], SM2_P[3]];
        let pm2 = [SM2_P[0] - 2, SM2_P[1], SM2_P[2], SM2_P[3]];
        let mut vals = vec![
            [0u64; 4],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [3, 0, 0, 0],
            pm1,
            pm2,
        ];
        let mut x: Limbs = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            7,
            0x8796a5b4c3d2e1f0,
        ];
        for i in 0..10_000u64 {
            vals.push(x);
            x = add_mod(&add_mod(&x, &x), &[i | 1, i << 9, 0, 0]);
        }
        for a in &vals {
            let h = half_mod(a);
            assert_eq!(h, reference(a), "{a:x?}");
            assert_eq!(add_mod(&h, &h), *a, "{a:x?}");
        }
    }

    /// `a * b * 2^-256 mod p` by the textbook method, independent of the assembly's and
    /// the portable field's SM2 shortcuts: the full product, then four rounds that add
    /// u·p·2^(64i) with multiplications (u = the current limb i, as -p^-1 mod 2^64 = 1)
    /// and propagate the carry to the top, then one subtraction of p.
    fn reference_mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
        let mut t = [0u64; 9];
        for i in 0..4 {
            let mut c = 0u128;
            for j in 0..4 {
                let x = t[i + j] as u128 + a[i] as u128 * b[j] as u128 + c;
                t[i + j] = x as u64;
                c = x >> 64;
            }
            t[i + 4] = c as u64;
        }
        for i in 0..4 {
            let u = t[i];
            let mut c = 0u128;
            for j in 0..4 {
                let x = t[i + j] as u128 + u as u128 * SM2_P[j] as u128 + c;
                t[i + j] = x as u64;
                c = x >> 64;
            }
            for limb in t.iter_mut().skip(i + 4) {
                let x = *limb as u128 + c;
                *limb = x as u64;
                c = x >> 64;
            }
            assert_eq!(t[i], 0);
        }
        let r = [t[4], t[5], t[6], t[7]];
        let (d, borrow) = wrapping_sub(&r, &SM2_P);
        if t[8] == 1 || borrow == 0 {
            d
        } else {
            r
        }
    }

    fn wrapping_sub(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
        let mut r = [0u64; 4];
        let mut borrow = 0u64;
        for i in 0..4 {
            let (x, b1) = a[i].overflowing_sub(b[i]);
            let (x, b2) = x.overflowing_sub(borrow);
            r[i] = x;
            borrow = u64::from(b1 | b2);
        }
        (r, borrow)
    }

    /// a · b mod 2^256.
    fn mul_low(a: &Limbs, b: &Limbs) -> Limbs {
        let mut t = [0u64; 4];
        for i in 0..4 {
            let mut c = 0u128;
            for j in 0..4 - i {
                let x = t[i + j] as u128 + a[i] as u128 * b[j] as u128 + c;
                t[i + j] = x as u64;
                c = x >> 64;
            }
        }
        t
    }

    /// a^-1 mod 2^256 for odd a (Newton: each step doubles the correct low bits).
    fn inv_mod_2_256(a: &Limbs) -> Limbs {
        let mut x = *a; // a·a = 1 mod 8
        for _ in 0..7 {
            let ax = mul_low(a, &x);
            let two_minus = wrapping_sub(&[2, 0, 0, 0], &ax).0;
            x = mul_low(&x, &two_minus);
        }
        assert_eq!(mul_low(a, &x), [1, 0, 0, 0]);
        x
    }

    fn is_reduced(a: &Limbs) -> bool {
        wrapping_sub(a, &SM2_P).1 == 1
    }

    /// Checks the product and the square of `a`, `b` against the reference and the
    /// portable field.
    fn check(a: &Limbs, b: &Limbs) {
        let Some(r) = mont_mul_detected(a, b) else {
            return;
        };
        let want = super::super::field::mont_mul(a, b, &SM2_P, 1);
        assert_eq!(r, want, "{a:x?} * {b:x?}");
        assert_eq!(
            mont_sqr_detected(a).unwrap(),
            mont_mul_detected(a, a).unwrap(),
            "{a:x?}^2"
        );
        assert!(is_reduced(&r));
    }

    /// The reference against the portable field (so that it checks the assembly with an
    /// independent method).
    #[test]
    fn reference_matches_portable() {
        let mut s = 0x5eed_u64;
        for _ in 0..2000 {
            let a = random_reduced(&mut s);
            let b = random_reduced(&mut s);
            assert_eq!(
                reference_mont_mul(&a, &b),
                super::super::field::mont_mul(&a, &b, &SM2_P, 1)
            );
        }
    }

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn random_reduced(s: &mut u64) -> Limbs {
        loop {
            let a = [splitmix(s), splitmix(s), splitmix(s), splitmix(s)];
            if is_reduced(&a) {
                return a;
            }
        }
    }

    /// The Montgomery product and square in assembly against the portable field on
    /// 1,000,000 random pairs (and against the textbook reference on some of them).
    #[test]
    fn mont_mul_random_pairs() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let mut s = 0x1234_5678_9abc_def0_u64;
        for i in 0..1_000_000 {
            let a = random_reduced(&mut s);
            let b = random_reduced(&mut s);
            check(&a, &b);
            if i % 64 == 0 {
                assert_eq!(
                    mont_mul_detected(&a, &b).unwrap(),
                    reference_mont_mul(&a, &b)
                );
            }
        }
    }

    /// Edge values: operands near 0 and p, limbs of all ones, u = 2^32 - 1 and
    /// u = 2^64 - 1 in the first round, every pair of them; then products whose low half
    /// is chosen so that the four quotient digits take extreme values (the low half
    /// T_lo = -U·p mod 2^256 for a chosen quotient U; b = T_lo · a^-1 mod 2^256 for odd
    /// a), which includes T_lo = p (the reduced low half is then p itself) and
    /// T_lo = 2^256 - 1.
    #[test]
    fn mont_mul_edges() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let p = SM2_P;
        let m = u64::MAX;
        let sub = |k: u64| wrapping_sub(&p, &[k, 0, 0, 0]).0;
        let mut edge = vec![
            [0u64; 4],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [0xFFFF_FFFF, 0, 0, 0],
            [1 << 32, 0, 0, 0],
            [m, 0, 0, 0],
            [m, m, 0, 0],
            [m, m, m, 0],
            [0, 0, 0, 1 << 63],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [m, m, m, p[3] - 1],
            [0, 0xFFFF_FFFF_0000_0000, 0, 0],
            // 2^256 mod p (Montgomery 1) and (p + 1) / 2.
            [1, 0xFFFF_FFFF, 0, 0x1_0000_0000],
            [0, 0x7FFF_FFFF_8000_0000, m, 0x7FFF_FFFF_7FFF_FFFF],
        ];
        for k in 1..=4 {
            edge.push(sub(k));
        }
        edge.push(wrapping_sub(&p, &[0, 1 << 32, 0, 0]).0);
        edge.push(wrapping_sub(&p, &[0, 0, 0, 1 << 32]).0);
        for a in &edge {
            assert!(is_reduced(a), "{a:x?}");
            for b in &edge {
                check(a, b);
                assert_eq!(mont_mul_detected(a, b).unwrap(), reference_mont_mul(a, b));
            }
        }
        let digits = [
            0,
            1,
            2,
            0xFFFF_FFFF,
            1 << 32,
            0x1_0000_0001,
            1 << 63,
            m - 1,
            m,
        ];
        let odd_a: Vec<Limbs> = vec![
            [1, 0, 0, 0],
            [m, 0, 0, 0],
            sub(0),
            sub(2),
            [
                0x0123_4567_89ab_cdef,
                0xfedc_ba98_7654_3210,
                7,
                0x8796_a5b4_c3d2_e1f0,
            ],
            [3, 0, 0, 0x4000_0000_0000_0000],
        ];
        let mut hits = 0;
        let mut s = 99_u64;
        for round in 0..2000 {
            let u: Limbs = if round == 0 {
                [m; 4] // T_lo = p
            } else {
                core::array::from_fn(|_| digits[(splitmix(&mut s) % digits.len() as u64) as usize])
            };
            let t_lo = wrapping_sub(&[0; 4], &mul_low(&u, &p)).0;
            for a in &odd_a {
                if !is_reduced(a) {
                    continue;
                }
                let b = mul_low(&t_lo, &inv_mod_2_256(a));
                if is_reduced(&b) {
                    assert_eq!(mul_low(a, &b), t_lo);
                    check(a, &b);
                    assert_eq!(mont_mul_detected(a, &b).unwrap(), reference_mont_mul(a, &b));
                    hits += 1;
                }
            }
        }
        assert!(hits > 1000, "{hits}");
    }

    /// The conditional negation: y unchanged for neg = 0; p - y (0 for 0) for neg = 1.
    #[test]
    fn neg_if_matches_sub_mod() {
        let pm1 = [SM2_P[0] - 1, SM2_P[1], SM2_P[2], SM2_P[3]];
        for y in [
            [0u64; 4],
            [1, 0, 0, 0],
            pm1,
            [5, 6, 7, 8],
            [0, 0, 0, 1 << 63],
        ] {
            assert_eq!(neg_if(&y, &SM2_P, 0), y);
            assert_eq!(neg_if(&y, &SM2_P, 1), sub_mod(&[0; 4], &y), "{y:x?}");
            assert_eq!(add_mod(&neg_if(&y, &SM2_P, 1), &y), [0; 4]);
        }
    }
}
