//! Multi-core execution for the batch APIs (`sm3::many::hash_many`, `zuc::many::eea3_many`,
//! `zuc::many::eia3_many`, `sm2::verify_many`, ...), with one convention for the `threads`
//! argument:
//!
//! * `None` or `Some(1)`: the calling thread only;
//! * `Some(0)`: every core (the pool size);
//! * `Some(n)`: at most `n` threads. The bound is the pool size, i.e. the number of
//!   logical CPUs the OS reports (`std::thread::available_parallelism`); a larger `n` is
//!   clamped to it (more threads than cores would only add hand-off costs), so every
//!   `usize` is accepted and none is an error.
//!
//! Work is cut into at most that many contiguous, balanced ranges (sizes differ by at most
//! one; no range is empty unless the whole input is) whose union is exactly `0..n`, in
//! order; the results are concatenated in that order, so the answer never depends on the
//! thread count.
//!
//! Work runs on a process-local rayon pool that is created on first use and rebuilt when
//! the process id changes: a child created by `fork()` (Python's `multiprocessing` default
//! on Linux) does not inherit the parent's worker threads, and reusing the parent's pool
//! there would hang.

use rayon::prelude::*;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// The number of threads a `threads` argument asks for: at least 1, at most the pool size
/// ([`max_threads`]); larger requests are clamped.
pub fn threads(requested: Option<usize>) -> usize {
    match requested {
        None | Some(1) => 1,
        Some(0) => max_threads(),
        Some(n) => n.min(max_threads()),
    }
}

/// The largest thread count the batch APIs use: the size of the worker pool, i.e. the
/// number of logical CPUs (at least 1).
pub fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn pool() -> Option<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, pool)) = slot.as_ref() {
        if *owner == pid {
            return Some(pool.clone());
        }
    }
    // A pool inherited through fork has no threads behind it; dropping it would wait for
    // them, so it is forgotten instead.
    if let Some(stale) = slot.take() {
        std::mem::forget(stale);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(max_threads())
        .thread_name(|i| format!("guomi-{i}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    *slot = Some((pid, pool.clone()));
    Some(pool)
}

/// `parts` contiguous ranges covering `0..n` exactly, in order, balanced (lengths differ by
/// at most one). `parts` is taken as at least 1 and at most `n` (so no range is empty
/// unless `n` is 0, which gives the single range `0..0`).
pub fn split(n: usize, parts: usize) -> impl ExactSizeIterator<Item = Range<usize>> {
    let parts = parts.clamp(1, n.max(1));
    let (base, extra) = (n / parts, n % parts);
    // Part p starts after p parts of `base` items and min(p, extra) longer ones; neither
    // product can exceed n, so nothing overflows.
    (0..parts).map(move |p| {
        let start = p * base + p.min(extra);
        start..start + base + usize::from(p < extra)
    })
}

/// Runs `work` over `0..n` split into at most `threads` contiguous ranges (each at least
/// `min_len` long, see [`split`]) and concatenates the results in order. With one range
/// (or if no pool can be started) everything runs on the calling thread.
pub fn map_ranges<R: Send>(
    n: usize,
    threads: usize,
    min_len: usize,
    work: impl Fn(Range<usize>) -> Vec<R> + Sync,
) -> Vec<R> {
    let parts = threads.min(n / min_len.max(1)).max(1);
    let serial = || work(0..n);
    if parts == 1 {
        return serial();
    }
    let Some(pool) = pool() else { return serial() };
    let ranges: Vec<Range<usize>> = split(n, parts).collect();
    pool.install(|| ranges.into_par_iter().map(&work).collect::<Vec<Vec<R>>>())
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_everything_in_order() {
        for n in [0usize, 1, 5, 64, 1000] {
            for t in [1usize, 2, 3, 8] {
                let out = map_ranges(n, t, 4, |r| r.collect::<Vec<_>>());
                assert_eq!(out, (0..n).collect::<Vec<_>>(), "n {n} threads {t}");
            }
        }
    }

    #[test]
    fn thread_convention() {
        let max = max_threads();
        assert!(max >= 1);
        assert_eq!(threads(None), 1);
        assert_eq!(threads(Some(1)), 1);
        assert_eq!(threads(Some(3)), 3.min(max));
        assert_eq!(threads(Some(0)), max);
        // More than the pool is clamped, up to the largest usize.
        for n in [max, max + 1, 1024, usize::MAX] {
            assert_eq!(threads(Some(n)), max);
        }
    }

    #[test]
    fn split_is_exact_balanced_and_ordered() {
        for n in 0..=300usize {
            for parts in 0..=64usize {
                let ranges: Vec<Range<usize>> = split(n, parts).collect();
                assert_eq!(
                    ranges.len(),
                    parts.clamp(1, n.max(1)),
                    "n {n} parts {parts}"
                );
                let mut next = 0;
                for r in &ranges {
                    assert_eq!(r.start, next, "n {n} parts {parts}");
                    assert!(
                        r.end > r.start || n == 0,
                        "empty range, n {n} parts {parts}"
                    );
                    next = r.end;
                }
                assert_eq!(next, n);
                let (min, max) = ranges
                    .iter()
                    .map(|r| r.len())
                    .fold((usize::MAX, 0), |(a, b), l| (a.min(l), b.max(l)));
                assert!(max - min <= 1, "unbalanced, n {n} parts {parts}");
            }
        }
        // Huge inputs do not overflow.
        let big: Vec<Range<usize>> = split(usize::MAX, 7).collect();
        assert_eq!((big[0].start, big[6].end), (0, usize::MAX));
    }
}
