//! Randomness: the operating system's CSPRNG only. A failure is an error, never a
//! fallback (DESIGN.md, security rules).

use crate::error::{Error, Result};

/// Fills `buf` from the OS CSPRNG (getrandom(2) on Linux).
pub fn fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|_| Error::Random)
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
