//! The scheduling that every many-message SIMD API shares (`sm3::many`, `zuc::many`):
//! one message per 32-bit lane, so a batch is sorted by length (the lanes of a group
//! then finish together), cut into lane groups, and the groups are shared by threads.
//!
//! What is specific to an algorithm stays with it: its lane trait (the SIMD operations
//! its rounds need), the generic rounds over that trait, and which kernel a backend
//! runs with how many lanes. A kernel file of a new architecture implements the lane
//! trait; the algorithm's dispatch names it; everything here is reused as it is.

/// Below this many bytes of input a batch runs on the calling thread: a thread hand-off
/// costs more than it saves (about 0.1 ms of work).
pub(crate) const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// How many threads a batch of `total_bytes` gets: one under [`PARALLEL_MIN_BYTES`],
/// else what `threads` asks for (see [`crate::parallel::threads`]).
pub(crate) fn threads_for(total_bytes: usize, threads: Option<usize>) -> usize {
    if total_bytes < PARALLEL_MIN_BYTES {
        1
    } else {
        crate::parallel::threads(threads)
    }
}

/// Calls `group(indices)` for the items `0..n` in ascending order of `key` (stable: equal
/// keys keep their order), `lanes` of them at a time (the last group may be smaller).
/// `group` gets the original indices, so it reads its inputs and writes its outputs in
/// place; the order never changes an item's result, only which lanes it shares.
pub(crate) fn for_each_group<K: Ord>(
    n: usize,
    lanes: usize,
    key: impl Fn(usize) -> K,
    mut group: impl FnMut(&[usize]),
) {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| key(i));
    for idx in order.chunks(lanes.max(1)) {
        group(idx);
    }
}

/// Runs a batch whose outputs are `out` (one per item): `work(start, piece)` on pieces
/// of `out` (`piece = out[start..start + piece.len()]`), shared by up to `threads` threads
/// as `(threads, align)` from [`crate::parallel::simd_split`] (or the algorithm's own
/// split) say; see [`crate::parallel::for_each_guided`].
pub(crate) fn run_batch<T: Send>(
    out: &mut [T],
    (threads, align): (usize, usize),
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    crate::parallel::for_each_guided(out, threads, 1, align, work)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_sorted_and_cover_every_item_once() {
        let lens = [50usize, 3, 7, 3, 100, 0, 9, 8, 2];
        for lanes in [0usize, 1, 2, 4, 16] {
            let mut seen = Vec::new();
            for_each_group(
                lens.len(),
                lanes,
                |i| lens[i],
                |idx| {
                    assert!(!idx.is_empty() && idx.len() <= lanes.max(1));
                    seen.extend_from_slice(idx);
                },
            );
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..lens.len()).collect::<Vec<_>>(), "lanes {lanes}");
            assert!(seen.windows(2).all(|w| lens[w[0]] <= lens[w[1]]));
            // Stable: the two items of length 3 keep their order.
            let p = |x| seen.iter().position(|&i| i == x).unwrap();
            assert!(p(1) < p(3));
        }
        for_each_group(0, 4, |i| i, |_| panic!("no group for no items"));
    }

    #[test]
    fn small_batches_stay_on_the_calling_thread() {
        assert_eq!(threads_for(PARALLEL_MIN_BYTES - 1, Some(0)), 1);
        assert_eq!(
            threads_for(PARALLEL_MIN_BYTES, Some(0)),
            crate::parallel::max_threads()
        );
        assert_eq!(threads_for(1 << 30, None), 1);
    }
}
