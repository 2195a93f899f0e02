//! HMAC-SM3 (RFC 2104 / GB/T 15852.2 with SM3: B = 64, L = 32).

use super::{Sm3, BLOCK_SIZE, DIGEST_SIZE};
use crate::error::{Error, Result};
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

    /// PBKDF2's U_2 … U_c (RFC 8018 §5.2) XORed into `t`: U_1 = `u`, U_(i+1) = HMAC(P,
    /// U_i) for i < `iterations`. An HMAC of a 32-byte message is one inner and one outer
    /// compression of fixed padded blocks (message ∥ 0x80 ∥ zeros ∥ 768 in bits), so the
    /// two blocks are laid out once and each iteration restarts the chaining values from
    /// the keyed states: no hasher copies and no wipes per iteration; the blocks and the
    /// chaining values are wiped at the end. `self` must be freshly keyed (nothing
    /// absorbed after the key block).
    pub(super) fn pbkdf2_chain(
        &self,
        u: &[u8; DIGEST_SIZE],
        iterations: u32,
        t: &mut [u8; DIGEST_SIZE],
    ) {
        debug_assert!(self.inner.len == BLOCK_SIZE as u64 && self.inner.buf_len == 0);
        let compress = self.inner.compress;
        let mut inner_block = [0u8; BLOCK_SIZE];
        let mut outer_block = [0u8; BLOCK_SIZE];
        for b in [&mut inner_block, &mut outer_block] {
            b[DIGEST_SIZE] = 0x80;
            b[BLOCK_SIZE - 8..]
                .copy_from_slice(&(((BLOCK_SIZE + DIGEST_SIZE) * 8) as u64).to_be_bytes());
        }
        inner_block[..DIGEST_SIZE].copy_from_slice(u);
        let mut state = [0u32; 8];
        for _ in 1..iterations {
            state = self.inner.state;
            compress.blocks(&mut state, &inner_block);
            for (c, w) in outer_block.chunks_exact_mut(4).zip(state) {
                c.copy_from_slice(&w.to_be_bytes());
            }
            state = self.outer.state;
            compress.blocks(&mut state, &outer_block);
            for ((c, x), w) in inner_block
                .chunks_exact_mut(4)
                .zip(t.chunks_exact_mut(4))
                .zip(state)
            {
                let b = w.to_be_bytes();
                c.copy_from_slice(&b);
                for (x, b) in x.iter_mut().zip(b) {
                    *x ^= b;
                }
            }
        }
        state.zeroize();
        inner_block[..DIGEST_SIZE].zeroize();
        outer_block[..DIGEST_SIZE].zeroize();
    }

    /// The tag of `prefix ∥ data[..len]` where `len` is secret and `min_len..=data.len()`
    /// are its public bounds, computed with the same compressions, branches and memory
    /// accesses whatever `len` is (a TLS CBC record's MAC check: Lucky 13). The blocks
    /// that hold only message bytes for every possible `len` are hashed as usual; each
    /// block that may hold the end of the message, the 0x80 byte or the length is built
    /// byte by byte with masks and compressed, and the chaining value after the block
    /// that really ends the message is kept by a masked copy. A `len` outside the bounds
    /// is clamped without a branch. `prefix`'s bytes may be secret too (a record header
    /// carries the length), its length is public. `self` must be freshly keyed.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] if `self` has absorbed data or `min_len > data.len()`.
    pub fn tag_secret_len(
        &self,
        prefix: &[u8],
        data: &[u8],
        len: usize,
        min_len: usize,
    ) -> Result<[u8; DIGEST_SIZE]> {
        use subtle::{
            ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater, ConstantTimeLess,
        };
        if self.inner.len != BLOCK_SIZE as u64 || self.inner.buf_len != 0 || min_len > data.len() {
            return Err(Error::InvalidValue(
                "tag_secret_len needs a freshly keyed HMAC and min_len <= data.len()",
            ));
        }
        let (p, max_len) = (prefix.len(), data.len());
        let mut l = len as u64;
        l = u64::conditional_select(&l, &(max_len as u64), l.ct_gt(&(max_len as u64)));
        l = u64::conditional_select(&l, &(min_len as u64), l.ct_lt(&(min_len as u64)));
        // Offsets in the stream prefix ∥ data (the key block before it is whole).
        let end = p as u64 + l; // where 0x80 goes
        let final_block = (end + 8) / BLOCK_SIZE as u64; // the block that holds the length
        let bit_len = ((BLOCK_SIZE as u64 + end) * 8).to_be_bytes();
        let total = p + max_len;
        let byte_at = |i: usize| -> u8 {
            // Branches on the public position only.
            if i < p {
                prefix[i]
            } else if i < total {
                data[i - p]
            } else {
                0
            }
        };
        // Whole blocks of message bytes whatever len is.
        let fixed = (p + min_len) / BLOCK_SIZE * BLOCK_SIZE;
        let mut h = self.inner.clone();
        h.update(&prefix[..fixed.min(p)]);
        if fixed > p {
            h.update(&data[..fixed - p]);
        }
        let compress = h.compress;
        let mut state = h.state;
        let mut result = [0u32; 8];
        let mut block = [0u8; BLOCK_SIZE];
        for b in fixed / BLOCK_SIZE..=(total + 8) / BLOCK_SIZE {
            let is_final = (b as u64).ct_eq(&final_block);
            for (j, out) in block.iter_mut().enumerate() {
                let i = b * BLOCK_SIZE + j;
                let mut v = u8::conditional_select(&0, &byte_at(i), (i as u64).ct_lt(&end));
                v |= u8::conditional_select(&0, &0x80, (i as u64).ct_eq(&end));
                if j >= BLOCK_SIZE - 8 {
                    v = u8::conditional_select(&v, &bit_len[j - (BLOCK_SIZE - 8)], is_final);
                }
                *out = v;
            }
            compress.blocks(&mut state, &block);
            for (r, s) in result.iter_mut().zip(state) {
                r.conditional_assign(&s, is_final);
            }
        }
        let mut inner = [0u8; DIGEST_SIZE];
        for (c, w) in inner.chunks_exact_mut(4).zip(result) {
            c.copy_from_slice(&w.to_be_bytes());
        }
        let mut outer = self.outer.clone();
        outer.update(&inner);
        block.zeroize();
        state.zeroize();
        result.zeroize();
        inner.zeroize();
        Ok(outer.finalize())
    }

    /// Consumes the object and returns the tag.
    pub fn finalize(self) -> [u8; DIGEST_SIZE] {
        self.tag()
    }

    /// Checks `tag` against the full 32-byte tag in constant time. A tag of any other
    /// length (a truncated one included) is simply `false`: the verifier, not the tag,
    /// fixes the length (see [`HmacSm3::verify_truncated`] for truncated tags).
    pub fn verify(&self, tag: &[u8]) -> bool {
        self.verify_len(tag, DIGEST_SIZE)
    }

    /// Checks a tag truncated to `tag_len` bytes, a length the caller fixes
    /// ([`MIN_TAG_LEN`]`..=32`): `tag` must be exactly `tag_len` bytes and equal the
    /// first `tag_len` bytes of the tag (constant time); any other length is `false`.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] if `tag_len` is outside `MIN_TAG_LEN..=32`.
    pub fn verify_truncated(&self, tag: &[u8], tag_len: usize) -> Result<bool> {
        check_tag_len(tag_len)?;
        Ok(self.verify_len(tag, tag_len))
    }

    fn verify_len(&self, tag: &[u8], tag_len: usize) -> bool {
        use subtle::ConstantTimeEq;
        let mut full = self.tag();
        let ok = tag.len() == tag_len && bool::from(full[..tag_len].ct_eq(tag));
        full.zeroize();
        ok
    }
}

/// The shortest truncated HMAC-SM3 tag [`HmacSm3::verify_truncated`] accepts: 4 bytes
/// (32 bits, the floor of NIST SP 800-107 Rev. 1 §5.3.3; RFC 2104 §5 recommends at
/// least half the hash, 16 bytes, and at least 80 bits).
pub const MIN_TAG_LEN: usize = 4;

/// Checks a caller-fixed truncated tag length (`MIN_TAG_LEN..=32`).
pub fn check_tag_len(tag_len: usize) -> Result<()> {
    if (MIN_TAG_LEN..=DIGEST_SIZE).contains(&tag_len) {
        Ok(())
    } else {
        Err(Error::InvalidValue(
            "HMAC-SM3 tag_length must be between 4 and 32 bytes",
        ))
    }
}

/// One-shot HMAC-SM3.
pub fn hmac(key: &[u8], data: &[u8]) -> [u8; DIGEST_SIZE] {
    let mut m = HmacSm3::new(key);
    m.update(data);
    m.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every secret length in the window, for prefixes and windows that put the end of
    /// the message, the 0x80 byte and the length field in every position of a block.
    #[test]
    fn tag_secret_len_matches_hmac() {
        let key = [0x0bu8; 32];
        let m = HmacSm3::new(&key);
        let data: Vec<u8> = (0..700u32).map(|i| (i * 7 + 3) as u8).collect();
        for p in [0usize, 1, 13, 55, 56, 63, 64, 100] {
            let prefix: Vec<u8> = (0..p as u32).map(|i| (i * 13 + 1) as u8).collect();
            for max in [0usize, 1, 40, 64, 119, 128, 300, 700] {
                let min = max.saturating_sub(255);
                for len in min..=max {
                    let mut want = prefix.clone();
                    want.extend_from_slice(&data[..len]);
                    let got = m.tag_secret_len(&prefix, &data[..max], len, min).unwrap();
                    assert_eq!(got, hmac(&key, &want), "p {p} max {max} len {len}");
                }
                // Out of the window: clamped, never a panic.
                let low = m.tag_secret_len(&prefix, &data[..max], 0, min).unwrap();
                assert_eq!(
                    low,
                    m.tag_secret_len(&prefix, &data[..max], min, min).unwrap()
                );
                let high = m
                    .tag_secret_len(&prefix, &data[..max], usize::MAX, min)
                    .unwrap();
                assert_eq!(
                    high,
                    m.tag_secret_len(&prefix, &data[..max], max, min).unwrap()
                );
            }
        }
    }

    #[test]
    fn tag_secret_len_refuses_misuse() {
        let mut m = HmacSm3::new(b"k");
        assert!(m.tag_secret_len(b"", b"abc", 1, 4).is_err());
        m.update(b"x");
        assert!(m.tag_secret_len(b"", b"abc", 1, 0).is_err());
    }
}
