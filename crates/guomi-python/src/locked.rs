//! The one concurrency model of guomi's stateful Python objects (hash and MAC objects,
//! streaming cipher and AEAD objects, streaming signers, envelope sealers and openers, key
//! exchanges): each object holds its state behind a lock, as `hashlib`'s objects do.
//!
//! Two threads calling one object are serialised: each call sees the state that the
//! previous call left, whole. A thread that finds the lock taken waits for it with the GIL
//! released, so the holder (which may be hashing a large buffer without the GIL) can
//! finish and take the GIL back; no call blocks the interpreter while it waits.
//!
//! A panic while the lock is held (a bug: `#[guard_panics]` reports it as
//! `InternalError`) may have left the state half-updated, so the object refuses every
//! later call with `InternalError` instead of producing a digest or tag of unknown input.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;

use crate::error::InternalError;

/// State `T` behind a lock; see the module documentation.
pub struct Locked<T>(Mutex<T>);

impl<T: Send> Locked<T> {
    pub fn new(state: T) -> Self {
        Locked(Mutex::new(state))
    }

    /// Takes the lock. If another thread holds it, waits with the GIL released.
    pub fn lock(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, T>> {
        loop {
            match self.0.try_lock() {
                Ok(guard) => return Ok(guard),
                Err(TryLockError::Poisoned(_)) => return Err(poisoned()),
                // Wait for the holder without the GIL (it may need the GIL to finish),
                // then try again with the GIL held: the guard cannot leave `detach`.
                Err(TryLockError::WouldBlock) => py.detach(|| drop(self.0.lock())),
            }
        }
    }
}

fn poisoned() -> PyErr {
    InternalError::new_err(
        "this object is unusable: an internal error interrupted an earlier call on it",
    )
}
