//! Batch arguments (`sm3.hash_many`, `zuc.eea3_many`): a list or tuple of many items read
//! without a counted reference per item, and new `bytes` results that worker threads fill.
//!
//! A list given to a batch call is held as one tuple for the call ([`Held`]): the tuple
//! owns a reference to every item, and a tuple cannot be changed once shared, so the items
//! (and, for items that are tuples, their elements) stay alive and in place while the GIL
//! is released, whatever other threads do to the caller's list. Exact `bytes` items are
//! then borrowed straight from their objects (a `bytes` never changes), with no reference
//! of their own to take and drop (each was a function call into the interpreter and, at
//! the end of a large batch, a cache miss per object).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// A list or tuple argument, held as a tuple for the duration of a call.
pub struct Held<'py>(Bound<'py, PyTuple>);

impl<'py> Held<'py> {
    /// `obj` held as a tuple if it is exactly a `list` (copied into a new tuple: one
    /// reference per item, taken by the interpreter in one loop) or exactly a `tuple`
    /// (itself); `None` for anything else, which the caller converts the general way.
    pub fn new(obj: &Bound<'py, PyAny>) -> Option<Self> {
        if let Ok(t) = obj.cast_exact::<PyTuple>() {
            return Some(Held(t.clone()));
        }
        obj.cast_exact::<PyList>().ok().map(|l| Held(l.to_tuple()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Item `i` (`i < len()`).
    pub fn item(&self, i: usize) -> PyResult<Borrowed<'_, 'py, PyAny>> {
        self.0.get_borrowed_item(i)
    }

    /// The contents of item `i` if it is exactly a `bytes`, borrowed for as long as
    /// `self` is.
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        let item = self.0.get_borrowed_item(i).ok()?;
        let b = item.cast_exact::<PyBytes>().ok()?;
        // SAFETY: `b` is an item of `self`'s tuple.
        Some(unsafe { held_contents(self, &b) })
    }

    /// Item `i` if it is exactly a tuple of `n` elements.
    pub fn tuple(&self, i: usize, n: usize) -> Option<HeldTuple<'_, 'py>> {
        let item = self.0.get_borrowed_item(i).ok()?;
        let t = item.cast_exact::<PyTuple>().ok()?.to_owned();
        (t.len() == n).then_some(HeldTuple { _outer: self, t })
    }
}

/// An item of a [`Held`] that is exactly a tuple (so it and its elements live as long as
/// the `Held` does).
pub struct HeldTuple<'a, 'py> {
    _outer: &'a Held<'py>,
    t: Bound<'py, PyTuple>,
}

impl<'a, 'py> HeldTuple<'a, 'py> {
    /// Element `j` (`j` < the `n` given to [`Held::tuple`]).
    pub fn item(&self, j: usize) -> PyResult<Borrowed<'_, 'py, PyAny>> {
        self.t.get_borrowed_item(j)
    }

    /// The contents of element `j` if it is exactly a `bytes`, borrowed for as long as
    /// the outer [`Held`] is.
    pub fn bytes(&self, j: usize) -> Option<&'a [u8]> {
        let item = self.t.get_borrowed_item(j).ok()?;
        let b = item.cast_exact::<PyBytes>().ok()?;
        // SAFETY: `b` is an element of `self.t`, an exact tuple that is an item of the
        // outer `Held`'s tuple.
        Some(unsafe { held_contents(self._outer, &b) })
    }
}

/// The contents of `b`, for as long as `owner` is borrowed.
///
/// # Safety
/// `b` must be exactly a `bytes` that `owner`'s tuple holds, directly or as an element of
/// an item that is exactly a tuple.
#[allow(unsafe_code)]
unsafe fn held_contents<'a>(owner: &'a Held<'_>, b: &Bound<'_, PyBytes>) -> &'a [u8] {
    let _ = owner;
    let s = b.as_bytes();
    // SAFETY: (the caller's guarantee) `b` is exactly a `bytes` held by `owner`'s tuple (directly, or as an
    // element of an exact tuple that tuple holds). A tuple's elements cannot be replaced
    // once it is shared (`PyTuple_SetItem` refuses a tuple with more than one reference;
    // ours always has the `Held`'s, and an element tuple has its container's), so `b`
    // lives at least as long as `owner`, and its contents are immutable and never move:
    // the pointer and length stay valid, and the bytes unchanged, for `'a`, with or
    // without the GIL.
    unsafe { std::slice::from_raw_parts(s.as_ptr(), s.len()) }
}

/// The error of a batch argument that failed to convert, as PyO3 reports one for a
/// typed argument (the same exception, with the note "while processing 'NAME'").
pub fn argument_error(py: Python<'_>, name: &str, e: PyErr) -> PyErr {
    let _ = e
        .value(py)
        .call_method1("add_note", (format!("while processing '{name}'"),));
    e
}
