//! What the timing examples (`sm2_bench`, `sm3_bench`, `sm9_bench`, `kdf_bench`) share: their
//! `[ROUNDS] [VARIANT ...]` arguments and the statistics they print.

use guomi_core::cpu::{self, Variant};

/// `[ROUNDS] [VARIANT ...]`: the number of rounds (`default` when absent or not a number)
/// and the backend variants to run (the active one when none is named). Panics on an
/// unknown variant name or one this CPU cannot run.
pub fn rounds_and_variants<S: AsRef<str>>(args: &[S], default: usize) -> (usize, Vec<Variant>) {
    let rounds = args
        .first()
        .and_then(|a| a.as_ref().parse().ok())
        .unwrap_or(default);
    let mut variants: Vec<Variant> = args
        .iter()
        .skip(1)
        .map(|n| Variant::parse(n.as_ref()).expect("variant name"))
        .collect();
    if variants.is_empty() {
        variants.push(cpu::active_variant());
    }
    for v in &variants {
        assert!(v.is_supported(), "{v} is not supported on this CPU");
    }
    (rounds, variants)
}

/// (minimum, lower quartile, median) of the samples: on a loaded machine the low end of
/// the distribution is the run least disturbed by other processes.
pub fn low_stats(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 4], v[v.len() / 2])
}
