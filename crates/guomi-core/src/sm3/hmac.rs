//! HMAC-SM3 (RFC 2104 / GB/T 15852.2 with SM3: B = 64, L = 32).

use super::{Sm3, BLOCK_SIZE, DIGEST_SIZE};
use zeroize::Zeroize;

/// Streaming HMAC-SM3. Keys longer than the block are hashed first (RFC 2104 §2).
#[derive(Clone)]
pub struct HmacSm3 {
    inner: Sm3,
    outer: Sm3,
}

impl core::fmt::Debug for HmacSm3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HmacSm3").finish_non_exhaustive()
    }
}

impl HmacSm3 {
    /// Keys the MAC with `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        let mut block = [0u8; BLOCK_SIZE];
        if key.len() > BLOCK_SIZE {
            block[..DIGEST_SIZE].copy_from_slice(&super::hash(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let mut pad = [0u8; BLOCK_SIZE];
        let mut inner = Sm3::new();
        for (p, k) in pad.iter_mut().zip(block) {
            *p = k ^ 0x36;
        }
        inner.update(&pad);
        let mut outer = Sm3::new();
        for (p, k) in pad.iter_mut().zip(block) {
            *p = k ^ 0x5c;
        }
        outer.update(&pad);
        pad.zeroize();
        block.zeroize();
        HmacSm3 { inner, outer }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The tag of everything absorbed so far (the object stays usable).
    pub fn tag(&self) -> [u8; DIGEST_SIZE] {
        let mut inner = self.inner.digest();
        let mut outer = self.outer.clone();
        outer.update(&inner);
        inner.zeroize();
        outer.finalize()
    }

    /// Consumes the object and returns the tag.
    pub fn finalize(self) -> [u8; DIGEST_SIZE] {
        self.tag()
    }

    /// Checks `tag` (a full or truncated tag, at least 4 bytes) in constant time.
    pub fn verify(&self, tag: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        let full = self.tag();
        (4..=DIGEST_SIZE).contains(&tag.len()) && bool::from(full[..tag.len()].ct_eq(tag))
    }
}

/// One-shot HMAC-SM3.
pub fn hmac(key: &[u8], data: &[u8]) -> [u8; DIGEST_SIZE] {
    let mut m = HmacSm3::new(key);
    m.update(data);
    m.finalize()
}
