//! Batch arguments (`zuc.eea3_many`, `zuc.eia3_many`): a list or tuple of many items read
//! without a counted reference per item.
//!
//! A list given to a batch call is held as one tuple for the call ([`Held`]): the tuple
//! owns a reference to every item, and a tuple cannot be changed once shared, so the items
//! (and, for items that are tuples, their elements) stay alive and in place while the GIL
//! is released, whatever other threads do to the caller's list. The exact `bytes`
//! elements of items that are exact tuples are then borrowed straight from their objects
//! (a `bytes` never changes), with no reference of their own to take and drop at the end
//! (a function call into the interpreter and, after a large batch, a cache miss each).

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
/// `b` must be exactly a `bytes` that is an element of an item of `owner`'s tuple, the
/// item being exactly a tuple.
#[allow(unsafe_code)]
unsafe fn held_contents<'a>(owner: &'a Held<'_>, b: &Bound<'_, PyBytes>) -> &'a [u8] {
    let _ = owner;
    let s = b.as_bytes();
    // SAFETY: (the caller's guarantee) `b` is exactly a `bytes` held by an exact tuple
    // that `owner`'s tuple holds. A tuple's elements cannot be replaced once another
    // reference to it exists (`PyTuple_SetItem` refuses a tuple whose refcount is not 1,
    // and Python code cannot change a tuple at all); `owner` holds a reference to the
    // item tuple for as long as it lives, so anyone else who could reach it holds a
    // second one. So `b` lives at least as long as `owner`, and its contents, immutable,
    // never change or move: the pointer and length stay valid for `'a`, with or without
    // the GIL.
    unsafe { std::slice::from_raw_parts(s.as_ptr(), s.len()) }
}
