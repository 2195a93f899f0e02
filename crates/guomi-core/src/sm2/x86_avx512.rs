//! The `avx512` backend of SM2's constant-time table scans: a comb-table entry (an
//! affine point, 64 bytes) is one zmm register. Every entry of a row is loaded; the wanted one is kept by a blend under
//! a mask register from comparing the public entry number with the secret digit (no
//! secret index, branch or masked memory access). The field arithmetic stays in
//! `x86_avx2.rs` (MULX/ADX, the same on both backends).
#![allow(unsafe_code)]

use super::x86_avx2::entry_number;
use core::arch::x86_64::*;

/// Proof that the thread's active variant is the `avx512` backend on a CPU that runs it
/// (so AVX-512 F and VL are present). Read once per scalar multiplication (`table.rs`).
#[derive(Clone, Copy)]
pub(super) struct Avx512Scan(());

impl Avx512Scan {
    /// `Some` when the active variant's backend is `avx512` and supported here.
    #[inline]
    pub(super) fn active() -> Option<Self> {
        let v = crate::cpu::active_variant();
        (v.backend() >= crate::cpu::Backend::Avx512 && v.is_supported()).then_some(Avx512Scan(()))
    }

    /// Entry `max(digit, 1) - 1` of a row of N affine points (32 in a comb window, 16 in
    /// the fixed-window table), in constant time.
    #[inline]
    pub(super) fn select_8<const N: usize>(self, row: &[[u64; 8]; N], digit: u8) -> [u64; 8] {
        // SAFETY: an `Avx512Scan` exists only when this CPU runs the avx512 backend,
        // which requires AVX-512 F and VL (`cpu::detect`).
        unsafe { select_8(row, digit) }
    }
}

#[target_feature(enable = "avx512f,avx512vl,avx2")]
unsafe fn select_8<const N: usize>(row: &[[u64; 8]; N], digit: u8) -> [u64; 8] {
    let want = _mm512_set1_epi64(entry_number(digit));
    let one = _mm512_set1_epi64(1);
    let mut idx = one;
    let mut acc = _mm512_setzero_si512();
    for e in row {
        let k = _mm512_cmpeq_epi64_mask(idx, want);
        // SAFETY: `e` is 64 readable bytes; unaligned load.
        let v = unsafe { _mm512_loadu_si512(e.as_ptr().cast()) };
        acc = _mm512_mask_blend_epi64(k, acc, v);
        idx = _mm512_add_epi64(idx, one);
    }
    let mut out = [0u64; 8];
    // SAFETY: `out` is 64 writable bytes.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), acc) };
    out
}
