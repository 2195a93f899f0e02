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
//! [`for_each_guided`] cuts a batch's output into contiguous pieces handed out while the
//! work runs (large first, small last), so that a thread that starts late takes less;
//! each element is written once, in place, and the answer never depends on the thread
//! count. [`simd_split`] says how many threads a SIMD batch is worth and where its pieces
//! may be cut; [`split`] and [`split_aligned`] cut `0..n` into balanced contiguous ranges
//! (sizes differ by at most one item or lane group; none is empty unless the whole input
//! is) whose union is exactly `0..n`, in order.
//!
//! Work runs on a process-local rayon pool that is created on first use and rebuilt when
//! the process id changes: a child created by `fork()` (Python's `multiprocessing` default
//! on Linux) does not inherit the parent's worker threads, and reusing the parent's pool
//! there would hang.
//!
//! A call never waits for a pool thread that has not started on it (`with_helpers`):
//! the calling thread works from the start, and when it runs out of work, helpers that
//! have not started are dropped instead of awaited. So a small batch is not held up by a
//! pool that is busy with another caller's large one, nor by the wake-up of an idle
//! thread (on a virtual machine the host wakes an idle virtual CPU: 20–300 µs measured on
//! one cloud guest, more than a small batch takes on one thread).

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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
/// number of logical CPUs (at least 1). Asked of the OS once per process: on Linux the
/// question reads the affinity mask and cgroup files (tens of microseconds, more than a
/// small batch takes), and the pool is sized once anyway.
pub fn max_threads() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        #[cfg(test)]
        tests::OS_QUERIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
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

/// How a batch of `n` items is shared by at most `threads` threads when its kernel works
/// on `lanes` items at once and hands a group of fewer than `min_simd` items to the
/// one-item code instead: `(threads, align)` for [`for_each_guided`] (with `min_len` 1).
///
/// A SIMD group costs about what its longest item costs, however many lanes it fills, so
/// * more than one group: pieces of whole groups, at most one thread per group;
/// * fewer than `min_simd` items: one item at a time, spread over the threads;
/// * otherwise (one group): one thread, since a thread per part of the group would cost
///   each thread about what the whole group costs one.
pub fn simd_split(n: usize, threads: usize, lanes: usize, min_simd: usize) -> (usize, usize) {
    let (threads, lanes) = (threads.max(1), lanes.max(1));
    if n > lanes {
        (threads.min(n.div_ceil(lanes)), lanes)
    } else if n < min_simd {
        (threads.min(n).max(1), 1)
    } else {
        (1, lanes)
    }
}

/// The number of parts for `n` items on at most `threads` threads, each part at least
/// `min_len` long, and the pool to run them on; `None` when everything should run on the
/// calling thread (one part, or no pool could be started).
fn plan(n: usize, threads: usize, min_len: usize) -> Option<(usize, Arc<rayon::ThreadPool>)> {
    let parts = threads.min(n / min_len.max(1)).max(1);
    #[cfg(test)]
    tests::LAST_PARTS.with(|c| c.set(parts));
    if parts == 1 {
        return None;
    }
    pool().map(|p| (parts, p))
}

/// Cuts `0..n` into at most `parts` contiguous ranges whose lengths are multiples of
/// `align` (a SIMD kernel's lane count), except the last, which takes the remainder. The
/// `ceil(n / align)` groups are balanced over the ranges (counts differ by at most one);
/// no range is empty unless `n` is 0 (the single range `0..0`). `parts` and `align` are
/// taken as at least 1.
pub fn split_aligned(n: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
    let align = align.max(1);
    let groups = n.div_ceil(align);
    split(groups, parts)
        .map(|g| (g.start * align).min(n)..(g.end * align).min(n))
        .collect()
}

/// Runs `work(start, piece)` over `out` cut into pieces handed out while the work runs,
/// guided self-scheduling: each thread (the calling one first, then the pool's as they wake up)
/// takes the next piece of `out` when it has finished its last one, and a piece is about
/// `1 / (2 · threads)` of what is left (a multiple of `align`, at least `min_len` rounded
/// up to it; only the last piece can be shorter). So the first pieces are large and the
/// last ones small: a worker that wakes up late, or is preempted, takes less, and the
/// threads finish within about one small piece of each other. With a static split the
/// call waited for the slowest half instead.
///
/// `work(start, piece)` gets `piece = out[start..start + piece.len()]`; every element is
/// in exactly one piece, so each is written once, in place. Which thread takes which
/// piece varies from call to call, so `work` must give the same result for an element
/// whatever piece it is in.
pub fn for_each_guided<T: Send>(
    out: &mut [T],
    threads: usize,
    min_len: usize,
    align: usize,
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    let n = out.len();
    let Some((parts, pool)) = plan(n, threads, min_len) else {
        return work(0, out);
    };
    let align = align.max(1);
    let smallest = min_len.max(1).next_multiple_of(align);
    // (start of what is left, what is left).
    let left = Mutex::new((0usize, out));
    let claim = || {
        let mut guard = left.lock().unwrap_or_else(|e| e.into_inner());
        let (start, rest) = &mut *guard;
        if rest.is_empty() {
            return None;
        }
        let len = (rest.len() / (2 * parts))
            .next_multiple_of(align)
            .max(smallest)
            .min(rest.len());
        let (piece, tail) = std::mem::take(rest).split_at_mut(len);
        *rest = tail;
        let piece_start = *start;
        *start += len;
        Some((piece_start, piece))
    };
    let run = || {
        while let Some((start, piece)) = claim() {
            work(start, piece);
        }
    };
    with_helpers(&pool, parts - 1, &run, run);
}

/// Whether helpers may still start, how many are running, and the first panic of one.
struct GateState {
    open: bool,
    running: usize,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// What a call shares with its helpers' jobs; the jobs own it (`Arc`), so it outlives
/// the call.
struct Gate {
    state: Mutex<GateState>,
    /// Signalled when the last running helper returns.
    idle: Condvar,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A pointer to the call's helper task that a pool job can carry: the job is `'static`,
/// the task is not (it borrows the call's data), so the lifetime is erased and the pointer
/// is dereferenced only under the gate's protocol (see [`with_helpers`]).
struct TaskPtr(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync`, so calling it from another thread through a shared
// pointer is sound; when it may be called is [`with_helpers`]'s protocol.
#[allow(unsafe_code)]
unsafe impl Send for TaskPtr {}

/// Closes the gate and waits until no helper runs: on return and on unwind.
struct Close<'a>(&'a Gate);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.open = false;
        while s.running > 0 {
            s = self.0.idle.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Runs `caller` on the calling thread while up to `helpers` pool threads run `task`, and
/// returns `caller`'s result once `caller` has returned and every helper that started
/// has returned. A helper that a pool thread has not started by then never runs `task`:
/// its job finds the gate closed and returns. So the call never waits for an idle thread
/// to wake up (a scoped spawn would: it cannot return before every job it spawned has
/// run), and `task` must not count on the helpers: work it leaves is done by `caller`.
///
/// A panic in `caller` is propagated after the running helpers have returned; the first
/// panic of a helper is propagated once `caller` has returned.
fn with_helpers<R>(
    pool: &rayon::ThreadPool,
    helpers: usize,
    task: &(dyn Fn() + Sync),
    caller: impl FnOnce() -> R,
) -> R {
    let gate = Arc::new(Gate {
        state: Mutex::new(GateState {
            open: true,
            running: 0,
            panic: None,
        }),
        idle: Condvar::new(),
    });
    #[allow(unsafe_code)]
    // SAFETY: only the lifetime bound of the trait object changes (same layout). The
    // pointer is dereferenced only by a job that found the gate open and counted itself
    // in `running`, under the gate's lock, and until it counts itself out; `close` below
    // (on return and on unwind alike) closes the gate and waits until `running` is 0
    // before this function returns, and `task` (and all it borrows) outlives this call.
    // So no job dereferences it after this call returns; a job that starts later sees the
    // gate closed and drops the pointer unused.
    let ptr = TaskPtr(unsafe {
        std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(
            task,
        )
    });
    let close = Close(&gate);
    for _ in 0..helpers {
        let (gate, ptr) = (gate.clone(), TaskPtr(ptr.0));
        pool.spawn(move || {
            // The whole `TaskPtr` moves in (a closure would capture the field alone).
            let ptr = ptr;
            {
                let mut s = gate.lock();
                if !s.open {
                    return;
                }
                s.running += 1;
            }
            #[allow(unsafe_code)]
            // SAFETY: counted in `running` with the gate open: the call that owns the
            // task waits for this job before returning (see above).
            let task = unsafe { &*ptr.0 };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            let mut s = gate.lock();
            if let Err(p) = result {
                s.panic.get_or_insert(p);
            }
            s.running -= 1;
            let last = s.running == 0;
            drop(s);
            if last {
                gate.idle.notify_all();
            }
        });
    }
    let out = caller();
    drop(close);
    if let Some(p) = gate.lock().panic.take() {
        std::panic::resume_unwind(p);
    }
    out
}

/// Batches produced one by one on the calling thread (`produce`, until it returns `None`)
/// while pool threads already run `work` on the batches produced so far: for a batch call
/// whose argument conversion can only happen on the calling thread (under Python's GIL),
/// so that the conversion overlaps the computation instead of preceding it.
///
/// Once everything is produced, the calling thread runs `finish(run)`, where `run` works
/// on the batches still queued and then waits until the pool's last batch is done (the
/// binding calls it with the GIL released); when `finish` returns, every batch has been
/// worked on exactly once. The results come back in production order, whatever thread
/// ran them. With `threads` <= 1 (or no pool), `run` works on every batch itself.
///
/// A panic in `produce`, `work` or `finish` is propagated to the caller after every
/// thread has stopped (no thread is left waiting for batches that will not come).
pub fn pipeline<B: Send, R: Send>(
    threads: usize,
    mut produce: impl FnMut() -> Option<B>,
    work: impl Fn(B) -> R + Sync,
    finish: impl FnOnce(&mut (dyn FnMut() + Send)),
) -> Vec<R> {
    use std::collections::VecDeque;
    use std::sync::Condvar;

    struct State<B> {
        queue: VecDeque<(usize, B)>,
        /// Nothing more will be produced.
        done: bool,
        /// Batches being worked on.
        busy: usize,
    }
    let state = Mutex::new(State {
        queue: VecDeque::new(),
        done: false,
        busy: 0,
    });
    // Signalled when a batch is queued, when production ends and when a batch is done.
    let changed = Condvar::new();
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());

    /// Marks one batch done when dropped, also on unwind (so no waiter hangs).
    struct Busy<'a, B>(&'a Mutex<State<B>>, &'a Condvar);
    impl<B> Drop for Busy<'_, B> {
        fn drop(&mut self) {
            let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
            g.busy -= 1;
            drop(g);
            self.1.notify_all();
        }
    }
    /// Ends production when dropped, also on unwind (so idle workers return).
    struct Done<'a, B>(&'a Mutex<State<B>>, &'a Condvar);
    impl<B> Drop for Done<'_, B> {
        fn drop(&mut self) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).done = true;
            self.1.notify_all();
        }
    }

    // Takes the next queued batch (waiting for one while production goes on, if `wait`),
    // or `None` when there is nothing left to take.
    let take = |wait: bool| -> Option<(usize, B, Busy<'_, B>)> {
        let mut g = lock();
        loop {
            if let Some((seq, b)) = g.queue.pop_front() {
                g.busy += 1;
                return Some((seq, b, Busy(&state, &changed)));
            }
            if g.done || !wait {
                return None;
            }
            g = changed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    };
    let run_one = |(seq, b, busy): (usize, B, Busy<'_, B>)| {
        let r = work(b);
        results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((seq, r));
        drop(busy);
    };
    // The calling thread's part once production is over: what is still queued, then
    // waiting for the batches other threads are on.
    let mut drain = || {
        while let Some(job) = take(false) {
            run_one(job);
        }
        let mut g = lock();
        while g.busy > 0 {
            g = changed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    };
    let mut produce_all = || {
        let done = Done(&state, &changed);
        let mut seq = 0;
        while let Some(b) = produce() {
            lock().queue.push_back((seq, b));
            changed.notify_one();
            seq += 1;
        }
        drop(done);
    };
    match (threads > 1).then(pool).flatten() {
        Some(pool) => {
            let worker = || {
                while let Some(job) = take(true) {
                    run_one(job);
                }
            };
            with_helpers(&pool, threads - 1, &worker, || {
                produce_all();
                finish(&mut drain);
            });
        }
        None => {
            produce_all();
            finish(&mut drain);
        }
    }
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_unstable_by_key(|(seq, _)| *seq);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn pipeline_runs_every_batch_once_in_order() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for n in [0usize, 1, 2, 7, 64] {
            for t in [0usize, 1, 2, 3, 8] {
                let ran = AtomicUsize::new(0);
                let finished = AtomicUsize::new(0);
                let mut next = 0;
                let out = pipeline(
                    t,
                    || {
                        // A slow producer: the workers wait for batches.
                        std::thread::sleep(std::time::Duration::from_micros(50));
                        (next < n).then(|| {
                            next += 1;
                            next - 1
                        })
                    },
                    |b: usize| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        b * 10
                    },
                    |run| {
                        run();
                        // Every batch is done when `run` returns.
                        finished.store(ran.load(Ordering::Relaxed), Ordering::Relaxed);
                    },
                );
                assert_eq!(
                    out,
                    (0..n).map(|b| b * 10).collect::<Vec<_>>(),
                    "n {n} t {t}"
                );
                assert_eq!(ran.load(Ordering::Relaxed), n);
                assert_eq!(finished.load(Ordering::Relaxed), n, "n {n} t {t}");
            }
        }
    }

    #[test]
    fn pipeline_panics_propagate_without_hanging() {
        for t in [1usize, 2, 4] {
            // In the work (on whichever thread runs batch 3).
            let r = std::panic::catch_unwind(|| {
                let mut next = 0;
                pipeline(
                    t,
                    || {
                        next += 1;
                        (next <= 20).then_some(next)
                    },
                    |b: usize| assert_ne!(b, 3, "bad batch"),
                    |run| run(),
                )
            });
            assert!(r.is_err(), "t {t}");
            // In the producer, with batches queued and workers waiting for more.
            let r = std::panic::catch_unwind(|| {
                let mut next = 0;
                pipeline(
                    t,
                    || {
                        next += 1;
                        assert_ne!(next, 5, "bad item");
                        Some(next)
                    },
                    |b: usize| b,
                    |run| run(),
                )
            });
            assert!(r.is_err(), "t {t}");
        }
    }

    /// Occupies every pool thread until the returned sender is dropped.
    fn block_pool() -> std::sync::mpsc::Sender<()> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = pool().expect("pool");
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(Mutex::new(wait));
        let started = Arc::new(AtomicUsize::new(0));
        for _ in 0..pool.current_num_threads() {
            let (wait, started) = (wait.clone(), started.clone());
            pool.spawn(move || {
                started.fetch_add(1, Ordering::SeqCst);
                // Returns when the sender is dropped (the one lock is taken in turn).
                let _ = wait.lock().unwrap().recv();
            });
        }
        while started.load(Ordering::SeqCst) < pool.current_num_threads() {
            std::thread::yield_now();
        }
        release
    }

    #[test]
    fn a_call_does_not_wait_for_helpers_that_have_not_started() {
        // Every pool thread busy: the helpers of the calls below cannot start. A scoped
        // spawn waited for them (the calls returned only once the pool was free again);
        // now the calling thread does all the work and returns.
        let release = block_pool();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut out = vec![0usize; 1000];
            for_each_guided(&mut out, 2, 1, 1, |start, piece| {
                for (k, o) in piece.iter_mut().enumerate() {
                    *o = start + k;
                }
            });
            let mut next = 0;
            let batches = pipeline(
                2,
                || {
                    next += 1;
                    (next <= 10).then_some(next)
                },
                |b: usize| b * 2,
                |run| run(),
            );
            done.send((out, batches)).unwrap();
        });
        let got = finished.recv_timeout(std::time::Duration::from_secs(20));
        drop(release);
        let (out, batches) = got.expect("the calls waited for a pool thread");
        assert_eq!(out, (0..1000).collect::<Vec<_>>());
        assert_eq!(batches, (1..=10).map(|b| b * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_helper_panic_propagates() {
        // The calling thread is slow, so a helper takes pieces, and every piece a helper
        // takes panics: the call must panic, after the calling thread has finished.
        let caller = std::thread::current().id();
        let helped = std::sync::atomic::AtomicBool::new(false);
        let r = std::panic::catch_unwind(|| {
            let mut out = vec![0u8; 64];
            for_each_guided(&mut out, 2, 1, 1, |_, piece| {
                if std::thread::current().id() != caller {
                    helped.store(true, std::sync::atomic::Ordering::SeqCst);
                    panic!("helper");
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
                piece.fill(1);
            });
        });
        // (A helper that never started leaves nothing to propagate.)
        assert_eq!(r.is_err(), helped.into_inner());
    }

    thread_local! {
        /// The part count of the calling thread's last `plan` (1: it ran alone).
        pub(crate) static LAST_PARTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn simd_splits() {
        // Many items: whole groups, at most one thread per group.
        assert_eq!(simd_split(4096, 2, 16, 7), (2, 16));
        assert_eq!(simd_split(16, 2, 8, 5), (2, 8));
        assert_eq!(simd_split(9, 2, 8, 5), (2, 8));
        assert_eq!(simd_split(24, 8, 8, 5), (3, 8));
        // One group: one thread.
        assert_eq!(simd_split(16, 2, 16, 7), (1, 16));
        assert_eq!(simd_split(5, 2, 8, 5), (1, 8));
        // Too few for the SIMD kernel: one item at a time, spread.
        assert_eq!(simd_split(4, 2, 8, 5), (2, 1));
        assert_eq!(simd_split(2, 8, 8, 3), (2, 1));
        assert_eq!(simd_split(1, 2, 8, 3), (1, 1));
        // No SIMD kernel (portable): every item its own group.
        assert_eq!(simd_split(3, 2, 1, 1), (2, 1));
        // Degenerate arguments.
        assert_eq!(simd_split(0, 2, 8, 5), (1, 1));
        assert_eq!(simd_split(7, 0, 0, 0), (1, 1));
        for (n, t, lanes, min_simd) in [
            (16usize, 2, 8, 5),
            (17, 2, 16, 7),
            (2, 2, 8, 3),
            (100, 3, 8, 5),
        ] {
            let (threads, align) = simd_split(n, t, lanes, min_simd);
            let mut out = vec![0u8; n];
            let pieces = std::sync::atomic::AtomicUsize::new(0);
            for_each_guided(&mut out, threads, 1, align, |start, chunk| {
                pieces.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // Whole groups but for the last piece.
                assert!(
                    start % align == 0 && (chunk.len() % align == 0 || start + chunk.len() == n)
                );
                chunk.fill(1);
            });
            assert!(out.iter().all(|&b| b == 1));
            if max_threads() >= t {
                assert_eq!(LAST_PARTS.with(|c| c.get()), threads, "n {n} threads {t}");
                assert!(pieces.into_inner() >= threads);
            }
        }
    }

    /// How often `max_threads` asked the OS (once per process).
    pub(super) static OS_QUERIES: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    #[test]
    fn the_cpu_count_is_asked_once() {
        // A `threads` argument is resolved on every batch call; asking the OS each time
        // cost about 50 µs a call (cgroup files), three times a 16 x 1 KiB EEA3 batch.
        for _ in 0..100 {
            assert!(threads(Some(2)) >= 1);
            assert!(threads(Some(0)) >= 1);
        }
        assert_eq!(OS_QUERIES.load(std::sync::atomic::Ordering::Relaxed), 1);
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

    #[test]
    fn aligned_ranges_are_exact_and_lane_multiples() {
        for n in 0..=200usize {
            for parts in 0..=5usize {
                for align in [0usize, 1, 8, 16] {
                    let rs = split_aligned(n, parts, align);
                    let a = align.max(1);
                    assert!(!rs.is_empty() && rs.len() <= parts.max(1));
                    let mut next = 0;
                    for (i, r) in rs.iter().enumerate() {
                        assert_eq!(r.start, next, "n {n} parts {parts} align {align}");
                        assert!(r.end > r.start || n == 0);
                        if i + 1 < rs.len() {
                            assert_eq!(r.len() % a, 0, "n {n} parts {parts} align {align}");
                        }
                        next = r.end;
                    }
                    assert_eq!(next, n);
                }
            }
        }
        assert_eq!(split_aligned(4096, 2, 16), vec![0..2048, 2048..4096]);
        assert_eq!(split_aligned(100, 2, 16), vec![0..64, 64..100]);
    }

    #[test]
    fn guided_pieces_cover_everything_once_aligned() {
        use std::sync::Mutex as M;
        for n in [0usize, 1, 15, 16, 17, 100, 1000, 4096, 5000] {
            for t in [1usize, 2, 3, 8] {
                let mut out = vec![usize::MAX; n];
                let pieces = M::new(Vec::new());
                for_each_guided(&mut out, t, 16, 16, |start, piece| {
                    for (k, o) in piece.iter_mut().enumerate() {
                        assert_eq!(*o, usize::MAX, "written twice");
                        *o = start + k;
                    }
                    pieces.lock().unwrap().push(start..start + piece.len());
                });
                assert_eq!(out, (0..n).collect::<Vec<_>>(), "n {n} threads {t}");
                let mut pieces = pieces.into_inner().unwrap();
                pieces.sort_by_key(|r| r.start);
                // Contiguous, and every piece but the last a multiple of 16 long.
                let mut next = 0;
                for (i, r) in pieces.iter().enumerate() {
                    assert_eq!(r.start, next, "n {n} threads {t}");
                    assert!(!r.is_empty() || n == 0);
                    if i + 1 < pieces.len() {
                        assert_eq!(r.len() % 16, 0, "n {n} threads {t}");
                        assert!(r.len() >= 16);
                    }
                    next = r.end;
                }
                assert_eq!(next, n);
                if t > 1 && n >= 64 {
                    // Large inputs are cut into at least one piece per thread, the first
                    // the largest.
                    let parts = t.min(n / 16);
                    assert!(pieces.len() >= parts, "n {n} threads {t}: {pieces:?}");
                    if n >= 1000 {
                        assert!(pieces.len() > 2 * parts, "n {n} threads {t}: {pieces:?}");
                    }
                    assert!(pieces.iter().all(|r| r.len() <= pieces[0].len()));
                }
            }
        }
    }
}
