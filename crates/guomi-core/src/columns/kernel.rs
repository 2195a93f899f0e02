//! The row loop shared by every column kernel: per-row output sizes, one preallocated
//! values buffer, disjoint slices of it handed to the threads of [`crate::parallel`], then
//! (only when some rows came out shorter than their slot) one compaction pass.

use crate::error::Error;
use std::ops::Range;
use zeroize::Zeroize;

/// What a kernel does with a row whose operation fails (decryption that does not
/// authenticate, bad padding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// Stop and report the first failing row.
    Raise,
    /// Make the failing row null and go on.
    Null,
}

/// A kernel failure: the error and, when one row caused it, that row's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    /// The row (in the whole column) that failed, if the failure belongs to one row.
    pub row: Option<usize>,
    /// What went wrong.
    pub error: Error,
}

impl From<Error> for RowError {
    fn from(error: Error) -> Self {
        RowError { row: None, error }
    }
}

pub(crate) fn at_row(row: usize) -> impl FnOnce(Error) -> RowError {
    move |error| RowError {
        row: Some(row),
        error,
    }
}

/// A column of byte strings in Arrow layout.
#[derive(Debug, Default)]
pub struct BinaryOut {
    /// Number of rows.
    pub len: usize,
    /// The values of every row, back to back.
    pub data: Vec<u8>,
    /// `len + 1` row boundaries into `data` (variable width); empty when `width` is set.
    pub offsets: Vec<usize>,
    /// `Some(w)`: every row is `w` bytes (`fixed_size_binary(w)`; null rows are zeros).
    pub width: Option<usize>,
    /// Validity bitmap (LSB first), `None` when no row is null.
    pub validity: Option<Vec<u8>>,
    /// Number of null rows.
    pub null_count: usize,
}

/// A column of booleans in Arrow layout.
#[derive(Debug, Default)]
pub struct BoolOut {
    /// Number of rows.
    pub len: usize,
    /// Value bitmap (LSB first).
    pub values: Vec<u8>,
    /// Validity bitmap, `None` when no row is null.
    pub validity: Option<Vec<u8>>,
    /// Number of null rows.
    pub null_count: usize,
}

#[derive(Clone, Copy)]
pub(crate) enum Shape {
    Fixed(usize),
    Var,
}

fn clear_bit(bits: &mut [u8], i: usize) {
    bits[i >> 3] &= !(1u8 << (i & 7));
}

fn bit(bits: &[u8], i: usize) -> bool {
    (bits[i >> 3] >> (i & 7)) & 1 == 1
}

/// The part of the output one thread writes: rows `rows`, whose slots are `buf`
/// (starting at byte `base` of the whole values buffer).
pub(crate) struct Part<'a> {
    pub rows: Range<usize>,
    pub base: usize,
    pub buf: &'a mut [u8],
    pub offsets: &'a [usize],
    pub validity: &'a [u8],
}

impl Part<'_> {
    /// Whether row `i` (a row of the whole column) is null in the input.
    pub fn is_null(&self, i: usize) -> bool {
        !bit(self.validity, i)
    }

    /// The output slot of row `i`.
    pub fn slot(&mut self, i: usize) -> &mut [u8] {
        let (a, b) = (self.offsets[i] - self.base, self.offsets[i + 1] - self.base);
        &mut self.buf[a..b]
    }

    /// Every row of the part in order with its slot (`None` for a null row), all slots
    /// borrowed at once so that a batch of rows can be handed to one call.
    pub fn slots(&mut self) -> impl Iterator<Item = (usize, Option<&mut [u8]>)> + '_ {
        let (offsets, validity) = (self.offsets, self.validity);
        let mut rest: &mut [u8] = self.buf;
        self.rows.clone().map(move |i| {
            let (slot, tail) = core::mem::take(&mut rest).split_at_mut(offsets[i + 1] - offsets[i]);
            rest = tail;
            (i, bit(validity, i).then_some(slot))
        })
    }
}

/// One part before and after it is worked: its rows, its slots, its report.
struct PartSlot<'a> {
    rows: Range<usize>,
    buf: &'a mut [u8],
    result: PartResult,
}

/// What one part reports back.
#[derive(Default)]
pub(crate) struct PartResult {
    /// The first failing row under `OnError::Raise`.
    pub error: Option<RowError>,
    /// Rows that failed under `OnError::Null`.
    pub failed: Vec<usize>,
    /// Rows that used fewer bytes than their slot: (row, bytes used).
    pub short: Vec<(usize, usize)>,
}

/// The whole loop. `size(i)`: the slot size of row `i`, `None` for a null row (an error
/// there always stops the kernel: it is a malformed input, not a failed row). `work`
/// fills one part. At most one part per `min_len` rows; `simd` = (lanes, fewest rows
/// for the lanes) of a multi-lane kernel that `work` runs over a part's rows, (1, 1) for
/// row-by-row work: parts are then cut as `parallel::simd_split` says (whole lane groups,
/// only the last part ending in a partial one).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_parts(
    n: usize,
    threads: Option<usize>,
    min_len: usize,
    simd: (usize, usize),
    shape: Shape,
    mut size: impl FnMut(usize) -> Result<Option<usize>, RowError>,
    work: impl Fn(Part<'_>) -> PartResult + Sync,
) -> Result<BinaryOut, RowError> {
    let mut validity = vec![0xffu8; n.div_ceil(8)];
    let mut null_count = 0usize;
    let mut offsets = Vec::with_capacity(n + 1);
    let mut at = 0usize;
    offsets.push(0);
    let too_big = || Error::InvalidValue("column output too large");
    for i in 0..n {
        let s = match size(i)? {
            Some(s) => s,
            None => {
                clear_bit(&mut validity, i);
                null_count += 1;
                match shape {
                    Shape::Fixed(w) => w,
                    Shape::Var => 0,
                }
            }
        };
        at = at.checked_add(s).ok_or_else(too_big)?;
        offsets.push(at);
    }
    if isize::try_from(at).is_err() {
        return Err(too_big().into());
    }
    let mut data = vec![0u8; at];

    // One entry per part, in row order: its rows, its slots, and (once worked) its
    // report. One part per thread, handed out as the threads get to them
    // (`for_each_guided`: the calling thread takes the first, and takes the next one too
    // if a pool thread has not started yet); each thread writes its part's slots in place.
    let threads = crate::parallel::threads(threads)
        .min(n / min_len.max(1))
        .max(1);
    let (parts, align) = crate::parallel::simd_split(n, threads, simd.0, simd.1);
    let mut todo: Vec<PartSlot<'_>> = Vec::with_capacity(parts);
    let mut rest: &mut [u8] = &mut data;
    for rows in crate::parallel::split_aligned(n, parts, align) {
        let (buf, tail) = rest.split_at_mut(offsets[rows.end] - offsets[rows.start]);
        todo.push(PartSlot {
            rows,
            buf,
            result: PartResult::default(),
        });
        rest = tail;
    }
    let (offsets_ref, validity_ref) = (&offsets, &validity);
    crate::parallel::for_each_guided(&mut todo, parts, 1, 1, |_, chunk| {
        for p in chunk {
            p.result = work(Part {
                base: offsets_ref[p.rows.start],
                rows: p.rows.clone(),
                buf: core::mem::take(&mut p.buf),
                offsets: offsets_ref,
                validity: validity_ref,
            });
        }
    });
    let results: Vec<PartResult> = todo.into_iter().map(|p| p.result).collect();

    let mut short = Vec::new();
    for r in results {
        if let Some(e) = r.error {
            data.zeroize();
            return Err(e);
        }
        for i in r.failed {
            clear_bit(&mut validity, i);
            null_count += 1;
            let slot = &mut data[offsets[i]..offsets[i + 1]];
            slot.zeroize();
            if let Shape::Var = shape {
                short.push((i, 0));
            }
        }
        short.extend(r.short);
    }
    if !short.is_empty() {
        short.sort_unstable();
        compact(&mut data, &mut offsets, &short);
    }
    let (offsets, width) = match shape {
        Shape::Fixed(w) => (Vec::new(), Some(w)),
        Shape::Var => (offsets, None),
    };
    Ok(BinaryOut {
        len: n,
        data,
        offsets,
        width,
        validity: (null_count > 0).then_some(validity),
        null_count,
    })
}

/// Moves every row down to close the gaps left by rows shorter than their slot.
fn compact(data: &mut Vec<u8>, offsets: &mut [usize], short: &[(usize, usize)]) {
    let n = offsets.len() - 1;
    let mut s = 0;
    let mut to = offsets[0];
    for i in 0..n {
        let from = offsets[i];
        let mut len = offsets[i + 1] - from;
        if s < short.len() && short[s].0 == i {
            len = short[s].1;
            s += 1;
        }
        data.copy_within(from..from + len, to);
        offsets[i] = to;
        to += len;
    }
    // Wipe the tail that held moved or dropped bytes before cutting it off.
    data[to..].zeroize();
    data.truncate(to);
    offsets[n] = to;
}

/// [`run_parts`] with one call per non-null row: `work(i, slot)` fills row `i`'s slot and
/// returns the bytes it used; its errors follow `on_error`.
pub(crate) fn run_rows(
    n: usize,
    threads: Option<usize>,
    min_len: usize,
    shape: Shape,
    on_error: OnError,
    size: impl FnMut(usize) -> Result<Option<usize>, RowError>,
    work: impl Fn(usize, &mut [u8]) -> crate::Result<usize> + Sync,
) -> Result<BinaryOut, RowError> {
    run_parts(n, threads, min_len, (1, 1), shape, size, |mut part| {
        let mut res = PartResult::default();
        for i in part.rows.clone() {
            if part.is_null(i) {
                continue;
            }
            let slot = part.slot(i);
            let cap = slot.len();
            match work(i, slot) {
                Ok(used) if used == cap => {}
                Ok(used) => res.short.push((i, used)),
                Err(e) => match on_error {
                    OnError::Raise => {
                        res.error = Some(at_row(i)(e));
                        return res;
                    }
                    OnError::Null => res.failed.push(i),
                },
            }
        }
        res
    })
}

/// A boolean column from `f(i)` (`None`: null), rows spread over threads. Each thread
/// writes its own bytes of the value and validity bitmaps in place (pieces are cut at
/// whole bytes, 8 rows, and handed out while the work runs: `for_each_guided`).
pub(crate) fn run_bool(
    n: usize,
    threads: Option<usize>,
    min_len: usize,
    f: impl Fn(usize) -> Option<bool> + Sync,
) -> BoolOut {
    let threads = crate::parallel::threads(threads);
    // (values, validity) per group of 8 rows; validity bits past `n` stay set.
    let mut bytes = vec![(0u8, 0xffu8); n.div_ceil(8)];
    crate::parallel::for_each_guided(
        &mut bytes,
        threads,
        min_len.div_ceil(8),
        1,
        |start, chunk| {
            for (k, (values, valid)) in chunk.iter_mut().enumerate() {
                let first = (start + k) * 8;
                for b in 0..(n - first).min(8) {
                    match f(first + b) {
                        Some(true) => *values |= 1 << b,
                        Some(false) => {}
                        None => *valid &= !(1u8 << b),
                    }
                }
            }
        },
    );
    let null_count = bytes.iter().map(|&(_, m)| m.count_zeros() as usize).sum();
    let (values, validity) = bytes.into_iter().unzip();
    BoolOut {
        len: n,
        values,
        validity: (null_count > 0).then_some(validity),
        null_count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(out: &BinaryOut) -> Vec<Option<Vec<u8>>> {
        (0..out.len)
            .map(|i| {
                if out.validity.as_ref().is_some_and(|v| !bit(v, i)) {
                    return None;
                }
                Some(match out.width {
                    Some(w) => out.data[i * w..(i + 1) * w].to_vec(),
                    None => out.data[out.offsets[i]..out.offsets[i + 1]].to_vec(),
                })
            })
            .collect()
    }

    #[test]
    fn short_failed_and_null_rows_for_every_thread_count() {
        // Row i: null if i % 7 == 3; fails if i % 5 == 1; otherwise i % 4 bytes of value i
        // in a slot of 3 bytes.
        let n = 103;
        for threads in [None, Some(2), Some(0), Some(8)] {
            let out = run_rows(
                n,
                threads,
                4,
                Shape::Var,
                OnError::Null,
                |i| Ok((i % 7 != 3).then_some(3)),
                |i, slot| {
                    if i % 5 == 1 {
                        slot.fill(0xee);
                        return Err(Error::InvalidTag);
                    }
                    let k = i % 4;
                    slot[..k.min(3)].fill(i as u8);
                    Ok(k.min(3))
                },
            )
            .unwrap();
            let want: Vec<Option<Vec<u8>>> = (0..n)
                .map(|i| (i % 7 != 3 && i % 5 != 1).then(|| vec![i as u8; (i % 4).min(3)]))
                .collect();
            assert_eq!(rows(&out), want, "threads {threads:?}");
            assert_eq!(out.null_count, want.iter().filter(|r| r.is_none()).count());
        }
    }

    #[test]
    fn raise_names_the_first_failing_row() {
        for threads in [None, Some(0), Some(3)] {
            let err = run_rows(
                50,
                threads,
                1,
                Shape::Fixed(2),
                OnError::Raise,
                |_| Ok(Some(2)),
                |i, _| {
                    if i == 17 || i == 40 {
                        Err(Error::InvalidTag)
                    } else {
                        Ok(2)
                    }
                },
            )
            .unwrap_err();
            assert_eq!(err.row, Some(17));
            assert_eq!(err.error, Error::InvalidTag);
        }
    }

    #[test]
    fn parts_written_in_place_for_every_thread_count() {
        // Fixed-width rows over several parts: row i holds i's bytes, null if i % 11 == 5.
        let n = 1000;
        let want: Vec<Option<Vec<u8>>> = (0..n)
            .map(|i| (i % 11 != 5).then(|| (i as u32).to_le_bytes().to_vec()))
            .collect();
        for threads in [None, Some(1), Some(2), Some(0), Some(64)] {
            let out = run_rows(
                n,
                threads,
                16,
                Shape::Fixed(4),
                OnError::Raise,
                |i| Ok((i % 11 != 5).then_some(4)),
                |i, slot| {
                    slot.copy_from_slice(&(i as u32).to_le_bytes());
                    Ok(4)
                },
            )
            .unwrap();
            assert_eq!(rows(&out), want, "threads {threads:?}");
            // Null rows are zeros.
            assert_eq!(&out.data[5 * 4..6 * 4], &[0; 4]);
            // The first failing row is named, whichever part it is in.
            for (a, b) in [(300, 900), (700, 900)] {
                let err = run_rows(
                    n,
                    threads,
                    16,
                    Shape::Fixed(4),
                    OnError::Raise,
                    |_| Ok(Some(4)),
                    |i, _| {
                        if i == a || i == b {
                            Err(Error::InvalidTag)
                        } else {
                            Ok(4)
                        }
                    },
                )
                .unwrap_err();
                assert_eq!(err.row, Some(a), "threads {threads:?}");
            }
        }
    }

    #[test]
    fn bools_for_every_thread_count() {
        for n in [0usize, 1, 7, 8, 9, 63, 64, 65, 1001] {
            let f = |i: usize| (i % 7 != 3).then_some(i % 3 == 1);
            let want = run_bool(n, None, 1, f);
            assert_eq!(want.null_count, (0..n).filter(|i| i % 7 == 3).count());
            for i in 0..n {
                assert_eq!(bit(&want.values, i), f(i) == Some(true), "n {n} row {i}");
                let valid = want.validity.as_ref().is_none_or(|v| bit(v, i));
                assert_eq!(valid, f(i).is_some(), "n {n} row {i}");
            }
            for threads in [Some(1), Some(2), Some(0), Some(64)] {
                let got = run_bool(n, threads, 1, f);
                assert_eq!(
                    (got.len, &got.values, &got.validity, got.null_count),
                    (want.len, &want.values, &want.validity, want.null_count),
                    "n {n} threads {threads:?}"
                );
            }
        }
    }

    #[test]
    fn bools_keep_nulls() {
        let out = run_bool(10, Some(0), 1, |i| (i != 4).then_some(i % 2 == 0));
        assert_eq!(out.null_count, 1);
        assert_eq!(out.values, vec![0b0100_0101, 0b01]);
        assert_eq!(out.validity, Some(vec![0b1110_1111, 0xff]));
    }
}
