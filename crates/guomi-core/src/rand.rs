//! Randomness: the operating system's CSPRNG only. A failure is an error, never a
//! fallback (DESIGN.md, security rules).

use crate::error::{Error, Result};

/// Fills `buf` from the OS CSPRNG (getrandom(2) on Linux).
pub fn fill(buf: &mut [u8]) -> Result<()> {
    #[cfg(test)]
    if test_hooks::intercept() {
        return Err(Error::Random);
    }
    getrandom::fill(buf).map_err(|_| Error::Random)
}

/// Unit-test hooks (this thread only): count the OS CSPRNG calls, or make them fail.
#[cfg(test)]
pub(crate) mod test_hooks {
    use core::cell::Cell;

    thread_local! {
        static CALLS: Cell<usize> = const { Cell::new(0) };
        static FAIL: Cell<bool> = const { Cell::new(false) };
    }

    /// Counts a call; whether it must fail.
    pub(super) fn intercept() -> bool {
        CALLS.with(|c| c.set(c.get() + 1));
        FAIL.with(Cell::get)
    }

    /// `f`'s result and the number of OS CSPRNG calls it made on this thread, every one
    /// failing if `fail`.
    pub(crate) fn calls<T>(fail: bool, f: impl FnOnce() -> T) -> (T, usize) {
        let before = CALLS.with(Cell::get);
        FAIL.with(|x| x.set(fail));
        let r = f();
        FAIL.with(|x| x.set(false));
        (r, CALLS.with(Cell::get) - before)
    }
}

/// Returns `N` random bytes from the OS CSPRNG.
pub fn bytes<const N: usize>() -> Result<[u8; N]> {
    let mut b = [0u8; N];
    fill(&mut b)?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_bytes_differ() {
        let a = super::bytes::<32>().unwrap();
        let b = super::bytes::<32>().unwrap();
        assert_ne!(a, b);
    }
}
