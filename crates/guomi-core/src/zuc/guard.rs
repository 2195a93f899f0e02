//! The keystream-reuse guard for 128-EEA3.
//!
//! A stream cipher leaks `P1 ⊕ P2` when two messages are encrypted with the same
//! keystream. In EEA3 the keystream is fixed by (key, COUNT, BEARER, DIRECTION), so an
//! [`Eea3Guard`] bound to one key remembers every (COUNT, BEARER, DIRECTION) it has
//! encrypted under and refuses a second encryption under the same triple
//! ([`Error::KeystreamReuse`]). Decryption is not restricted (it reuses the keystream by
//! definition). The memory grows by one entry per encrypted packet.

use super::check_framing;
use super::eea3::Key128;
use crate::error::{Error, Result};
use std::collections::HashSet;

/// An EEA3 encryptor bound to one key that refuses keystream reuse.
pub struct Eea3Guard {
    key: Key128,
    used: HashSet<u64>,
    allow_reuse: bool,
}

impl core::fmt::Debug for Eea3Guard {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Eea3Guard")
            .field("used", &self.used.len())
            .finish_non_exhaustive()
    }
}

/// The EEA3 IV is determined by this 38-bit value.
fn slot(count: u32, bearer: u8, direction: u8) -> u64 {
    (u64::from(count) << 6) | (u64::from(bearer) << 1) | u64::from(direction)
}

impl Eea3Guard {
    /// A guard for `key` (16 bytes). `allow_reuse = true` turns the check off, for
    /// callers that manage COUNT themselves (dangerous: see the module documentation).
    pub fn new(key: &[u8], allow_reuse: bool) -> Result<Eea3Guard> {
        Ok(Eea3Guard {
            key: Key128::new(key)?,
            used: HashSet::new(),
            allow_reuse,
        })
    }

    /// Records (COUNT, BEARER, DIRECTION) as used; fails if it already was.
    pub fn reserve(&mut self, count: u32, bearer: u8, direction: u8) -> Result<()> {
        check_framing(bearer, direction)?;
        if self.allow_reuse {
            return Ok(());
        }
        if !self.used.insert(slot(count, bearer, direction)) {
            return Err(Error::KeystreamReuse);
        }
        Ok(())
    }

    /// Forgets a reservation (used when the encryption itself failed on bad input).
    pub fn release(&mut self, count: u32, bearer: u8, direction: u8) {
        if !self.allow_reuse {
            self.used.remove(&slot(count, bearer, direction));
        }
    }

    /// Whether (COUNT, BEARER, DIRECTION) was already used for encryption.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for a BEARER above 31 or a DIRECTION above 1 (as
    /// [`Self::reserve`]).
    pub fn is_used(&self, count: u32, bearer: u8, direction: u8) -> Result<bool> {
        check_framing(bearer, direction)?;
        Ok(self.used.contains(&slot(count, bearer, direction)))
    }

    /// Number of distinct (COUNT, BEARER, DIRECTION) encrypted so far.
    pub fn used_count(&self) -> usize {
        self.used.len()
    }

    /// Whether the reuse check is turned off.
    pub fn allows_reuse(&self) -> bool {
        self.allow_reuse
    }

    /// The key (for the bindings, which run the encryption without the GIL).
    pub fn key(&self) -> &Key128 {
        &self.key
    }

    /// 128-EEA3 encryption under the guard into `out` (see [`super::eea3::eea3_into`]).
    pub fn encrypt_into(
        &mut self,
        count: u32,
        bearer: u8,
        direction: u8,
        data: &[u8],
        length_bits: Option<u64>,
        out: &mut [u8],
    ) -> Result<()> {
        super::bit_length(data.len(), length_bits)?;
        self.reserve(count, bearer, direction)?;
        super::eea3::eea3_into(
            self.key.as_bytes(),
            count,
            bearer,
            direction,
            data,
            length_bits,
            out,
        )
    }

    /// 128-EEA3 encryption under the guard.
    pub fn encrypt(
        &mut self,
        count: u32,
        bearer: u8,
        direction: u8,
        data: &[u8],
        length_bits: Option<u64>,
    ) -> Result<Vec<u8>> {
        let mut out = vec![0u8; super::eea3::output_len(data.len(), length_bits)?];
        self.encrypt_into(count, bearer, direction, data, length_bits, &mut out)?;
        Ok(out)
    }

    /// 128-EEA3 decryption (never restricted).
    pub fn decrypt(
        &self,
        count: u32,
        bearer: u8,
        direction: u8,
        data: &[u8],
        length_bits: Option<u64>,
    ) -> Result<Vec<u8>> {
        super::eea3::eea3(
            self.key.as_bytes(),
            count,
            bearer,
            direction,
            data,
            length_bits,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_reuse_and_opt_out_allows_it() {
        let mut g = Eea3Guard::new(&[1u8; 16], false).unwrap();
        let c1 = g.encrypt(5, 3, 1, b"hello", None).unwrap();
        assert_eq!(
            g.encrypt(5, 3, 1, b"world", None),
            Err(Error::KeystreamReuse)
        );
        // A different BEARER, DIRECTION or COUNT is a different keystream.
        g.encrypt(5, 4, 1, b"x", None).unwrap();
        g.encrypt(5, 3, 0, b"x", None).unwrap();
        g.encrypt(6, 3, 1, b"x", None).unwrap();
        assert_eq!(g.used_count(), 4);
        assert_eq!(g.decrypt(5, 3, 1, &c1, None).unwrap(), b"hello");
        // Bad input does not burn the slot.
        assert!(g.encrypt(7, 32, 0, b"x", None).is_err());
        assert!(g.encrypt(7, 3, 0, b"x", Some(9)).is_err());
        assert!(!g.is_used(7, 3, 0).unwrap());
        // Out-of-range framing is an error here too, not a plain `false`.
        assert!(g.is_used(7, 32, 0).is_err());
        assert!(g.is_used(7, 3, 2).is_err());
        let mut open = Eea3Guard::new(&[1u8; 16], true).unwrap();
        assert_eq!(open.encrypt(5, 3, 1, b"hello", None).unwrap(), c1);
        assert_eq!(open.encrypt(5, 3, 1, b"hello", None).unwrap(), c1);
    }
}
