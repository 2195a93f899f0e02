//! Multi-core execution for the batch APIs (`sm3::many::hash_many`, `zuc::eea3_many`,
//! `sm2::verify_many`, ...), with one convention for the `threads` argument:
//! `None` or `Some(1)`: the calling thread only; `Some(0)`: every core; `Some(n)`: at most
//! `n` threads.
//!
//! Work runs on a process-local rayon pool that is created on first use and rebuilt when
//! the process id changes: a child created by `fork()` (Python's `multiprocessing` default
//! on Linux) does not inherit the parent's worker threads, and reusing the parent's pool
//! there would hang.

use rayon::prelude::*;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// The number of threads a `threads` argument asks for (at least 1).
pub fn threads(requested: Option<usize>) -> usize {
    match requested {
        None | Some(1) => 1,
        Some(0) => cores(),
        Some(n) => n,
    }
}

fn cores() -> usize {
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
        .num_threads(cores())
        .thread_name(|i| format!("guomi-{i}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    *slot = Some((pid, pool.clone()));
    Some(pool)
}

/// Runs `work` over `0..n` split into at most `threads` contiguous ranges (each at least
/// `min_len` long) and concatenates the results in order. With one range (or if no pool
/// can be started) everything runs on the calling thread.
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
    let chunk = n.div_ceil(parts);
    pool.install(|| {
        (0..parts)
            .into_par_iter()
            .map(|p| work(p * chunk..((p + 1) * chunk).min(n)))
            .collect::<Vec<Vec<R>>>()
    })
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
        assert_eq!(threads(None), 1);
        assert_eq!(threads(Some(1)), 1);
        assert_eq!(threads(Some(3)), 3);
        assert!(threads(Some(0)) >= 1);
    }
}
