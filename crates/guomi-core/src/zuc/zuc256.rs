//! ZUC-256 (Team ZUC, "The ZUC-256 Stream Cipher", 2018): key/IV loading, keystream and
//! the MAC with 32-, 64- and 128-bit tags.
//!
//! The IV has 25 "bytes" IV0..IV24, of which IV17..IV24 are 6-bit values. It is accepted
//! in that 25-byte form (each of the last 8 bytes < 64) and in the 23-byte packed form of
//! GmSSL and gmsm (IV0..IV16 followed by the 48 bits of IV17..IV24, big-endian).

use super::core::State;
use super::{bit_length, Zuc};
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use zeroize::Zeroize;

/// Key size in bytes.
pub const KEY_SIZE: usize = 32;
/// IV size in the specification's form (IV17..IV24 one 6-bit value per byte).
pub const IV_SIZE: usize = 25;
/// IV size in the packed form (GmSSL, gmsm).
pub const IV_SIZE_PACKED: usize = 23;

/// The 7-bit constants d0..d15 for keystream generation.
pub(crate) const D_KEYSTREAM: [u8; 16] = [
    0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30,
];
/// The constants for the MAC: each tag size has its own (they differ in d0 and d2).
const D_MAC32: [u8; 16] = [
    0x22, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30,
];
const D_MAC64: [u8; 16] = [
    0x23, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30,
];
const D_MAC128: [u8; 16] = [
    0x23, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30,
];

/// A ZUC-256 IV in the specification's 25-value form.
#[derive(Clone, Copy)]
pub struct Zuc256Iv(pub(crate) [u8; 25]);

impl Zuc256Iv {
    /// Accepts the 25-byte form (IV17..IV24 must be < 64) or the 23-byte packed form.
    pub fn parse(iv: &[u8]) -> Result<Zuc256Iv> {
        let mut out = [0u8; 25];
        match iv.len() {
            IV_SIZE => {
                if iv[17..].iter().any(|&b| b >= 64) {
                    return Err(Error::InvalidValue(
                        "ZUC-256 IV bytes 17..24 are 6-bit values (must be < 64)",
                    ));
                }
                out.copy_from_slice(iv);
            }
            IV_SIZE_PACKED => {
                out[..17].copy_from_slice(&iv[..17]);
                let mut bits: u64 = 0;
                for &b in &iv[17..23] {
                    bits = (bits << 8) | u64::from(b);
                }
                for (i, v) in out[17..].iter_mut().enumerate() {
                    *v = ((bits >> (42 - 6 * i)) & 0x3f) as u8;
                }
            }
            n => {
                return Err(Error::InvalidLength {
                    what: "ZUC-256 IV",
                    expected: "25 or 23 bytes",
                    got: n,
                })
            }
        }
        Ok(Zuc256Iv(out))
    }

    /// The 23-byte packed form.
    pub fn packed(&self) -> [u8; 23] {
        let mut out = [0u8; 23];
        out[..17].copy_from_slice(&self.0[..17]);
        let bits = self.0[17..]
            .iter()
            .fold(0u64, |acc, &v| (acc << 6) | u64::from(v));
        out[17..].copy_from_slice(&bits.to_be_bytes()[2..]);
        out
    }
}

/// Key loading (ZUC-256 paper §2.1): s_i = a ∥ b ∥ c ∥ d with a, c, d bytes and b 7 bits.
fn load(key: &[u8; 32], iv: &[u8; 25], d: &[u8; 16]) -> State {
    let k = |i: usize| u32::from(key[i]);
    let v = |i: usize| u32::from(iv[i]);
    let d = |i: usize| u32::from(d[i]);
    let cell = |a: u32, b: u32, c: u32, e: u32| (a << 23) | (b << 16) | (c << 8) | e;
    State {
        s: [
            cell(k(0), d(0), k(21), k(16)),
            cell(k(1), d(1), k(22), k(17)),
            cell(k(2), d(2), k(23), k(18)),
            cell(k(3), d(3), k(24), k(19)),
            cell(k(4), d(4), k(25), k(20)),
            cell(v(0), d(5) | v(17), k(5), k(26)),
            cell(v(1), d(6) | v(18), k(6), k(27)),
            cell(v(10), d(7) | v(19), k(7), v(2)),
            cell(k(8), d(8) | v(20), v(3), v(11)),
            cell(k(9), d(9) | v(21), v(12), v(4)),
            cell(v(5), d(10) | v(22), k(10), k(28)),
            cell(k(11), d(11) | v(23), v(6), v(13)),
            cell(k(12), d(12) | v(24), v(7), v(14)),
            cell(k(13), d(13), v(15), v(8)),
            cell(k(14), d(14) | (k(31) >> 4), v(16), v(9)),
            cell(k(15), d(15) | (k(31) & 0x0f), k(30), k(29)),
        ],
        r1: 0,
        r2: 0,
    }
}

pub(crate) fn generator(key: &[u8], iv: &Zuc256Iv, d: &[u8; 16], variant: Variant) -> Result<Zuc> {
    let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidLength {
        what: "ZUC-256 key",
        expected: "32 bytes",
        got: key.len(),
    })?;
    Ok(Zuc::from_loaded(load(key, &iv.0, d), variant))
}

/// The first `words` ZUC-256 keystream words as 4·`words` big-endian bytes (`words` at
/// most [`super::MAX_KEYSTREAM_WORDS`]).
pub fn keystream(key: &[u8], iv: &[u8], words: usize) -> Result<Vec<u8>> {
    let n = super::keystream_len(words)?;
    let z = Zuc::new_256(key, iv)?;
    let mut out = vec![0u8; n];
    z.fill_once(&mut out);
    Ok(out)
}

/// Keystream words folded per refill in [`mac_with`].
const MAC_CHUNK: usize = 256;

/// ZUC-256 MAC (paper §3) of the first `length_bits` bits of `data` (all when `None`),
/// with a `tag_bits` = 32, 64 or 128-bit tag, on the given backend:
/// Tag = z[0, t); for each message bit i set, Tag ^= z[t + i, 2t + i);
/// finally Tag ^= z[L + t, L + 2t).
///
/// Tag word k (32 bits) only ever sees 32-bit windows of the keystream shifted by
/// t + 32k bits, so each tag word is a 128-EIA3-style fold of the message against the
/// keystream starting at word t/32 + k: the backend's folding (PCLMULQDQ on x86) runs
/// once per tag word. `backend` is clamped to what this CPU supports.
pub fn mac_with(
    backend: Backend,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    mac_variant(Variant::from(backend), key, iv, data, tag_bits, length_bits)
}

/// [`mac_with`] on a [`Variant`] (clamped to what this CPU supports).
pub fn mac_variant(
    variant: Variant,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let d = match tag_bits {
        32 => &D_MAC32,
        64 => &D_MAC64,
        128 => &D_MAC128,
        _ => return Err(Error::InvalidValue("tag_bits must be 32, 64 or 128")),
    };
    let iv = Zuc256Iv::parse(iv)?;
    let (bits, _) = bit_length(data.len(), length_bits)?;
    let mut z = generator(key, &iv, d, variant)?;
    let mac_words = super::kernel(variant).mac_words;
    let w = (tag_bits / 32) as usize;
    let full = (bits / 32) as usize;
    let rem = (bits % 32) as u32;
    let mut tag = [0u32; 4];
    z.words(&mut tag[..w]);
    // ks[0..] = keystream words from index w + j (j = message words folded so far).
    let mut ks = [0u32; MAC_CHUNK + 5];
    z.words(&mut ks[..w + 1]);
    let mut j = 0;
    while j < full {
        let take = MAC_CHUNK.min(full - j);
        z.words(&mut ks[w + 1..w + 1 + take]);
        for (k, t) in tag.iter_mut().enumerate().take(w) {
            *t ^= mac_words(&data[4 * j..4 * (j + take)], &ks[k..k + take + 1]);
        }
        ks.copy_within(take..take + w + 1, 0);
        j += take;
    }
    // Now ks[k] = keystream word w + k + full.
    if rem != 0 {
        let mut last = [0u8; 4];
        let nbytes = rem.div_ceil(8) as usize;
        last[..nbytes].copy_from_slice(&data[4 * full..4 * full + nbytes]);
        let m = (u32::from_be_bytes(last) & (u32::MAX << (32 - rem))).to_be_bytes();
        z.words(&mut ks[w + 1..w + 2]);
        for (k, t) in tag.iter_mut().enumerate().take(w) {
            *t ^= mac_words(&m, &ks[k..k + 2]);
            *t ^= (ks[k] << rem) | (ks[k + 1] >> (32 - rem));
        }
        last.zeroize();
    } else {
        for (k, t) in tag.iter_mut().enumerate().take(w) {
            *t ^= ks[k];
        }
    }
    ks.zeroize();
    let mut out = Vec::with_capacity(4 * w);
    for t in &tag[..w] {
        out.extend_from_slice(&t.to_be_bytes());
    }
    tag.zeroize();
    Ok(out)
}

#[cfg(test)]
/// Bit-by-bit reference (tests): ZUC-256 MAC (paper §3) of the first `length_bits` bits of `data` (all when `None`),
/// with a `tag_bits` = 32, 64 or 128-bit tag, on the given backend:
/// Tag = z[0, t); for each message bit i set, Tag ^= z[t + i, 2t + i);
/// finally Tag ^= z[L + t, L + 2t).
pub(crate) fn mac_bitwise(
    backend: Backend,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let d = match tag_bits {
        32 => &D_MAC32,
        64 => &D_MAC64,
        128 => &D_MAC128,
        _ => return Err(Error::InvalidValue("tag_bits must be 32, 64 or 128")),
    };
    let iv = Zuc256Iv::parse(iv)?;
    let (bits, _) = bit_length(data.len(), length_bits)?;
    let mut z = generator(key, &iv, d, backend.into())?;
    let t = tag_bits as usize;
    let next = |z: &mut Zuc| {
        let mut w = [0u32; 1];
        z.words(&mut w);
        w[0]
    };
    // Tag = the first t keystream bits, left-aligned in a u128.
    let mut tag: u128 = 0;
    for i in 0..t / 32 {
        tag |= u128::from(next(&mut z)) << (96 - 32 * i);
    }
    // `win` holds keystream bits [t + i, t + i + 128); `ahead` the next 32 bits,
    // of which `left` are still unused.
    let mut win: u128 = 0;
    for i in 0..4 {
        win |= u128::from(next(&mut z)) << (96 - 32 * i);
    }
    let mut ahead = next(&mut z);
    let mut left = 32u32;
    let mut i: u64 = 0;
    for byte in data.iter().take(bits.div_ceil(8) as usize) {
        for b in 0..8 {
            if i == bits {
                break;
            }
            let bit = u128::from((byte >> (7 - b)) & 1);
            tag ^= win & 0u128.wrapping_sub(bit);
            win = (win << 1) | u128::from(ahead >> 31);
            ahead <<= 1;
            left -= 1;
            if left == 0 {
                ahead = next(&mut z);
                left = 32;
            }
            i += 1;
        }
    }
    tag ^= win;
    let mask: u128 = if t == 128 {
        u128::MAX
    } else {
        !(u128::MAX >> t)
    };
    let tag = tag & mask;
    win.zeroize();
    ahead.zeroize();
    Ok(tag.to_be_bytes()[..t / 8].to_vec())
}

/// ZUC-256 MAC on the active backend.
pub fn mac(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    mac_variant(cpu::active_variant(), key, iv, data, tag_bits, length_bits)
}

/// Checks a ZUC-256 MAC in constant time against a `tag_bits` = 32, 64 or 128-bit tag, a
/// size the *caller* fixes (never taken from `tag`): a `tag` that is not `tag_bits / 8`
/// bytes long is simply `false`.
///
/// # Errors
/// [`Error::InvalidValue`] if `tag_bits` is not 32, 64 or 128; key, IV and length errors
/// as in [`mac`].
pub fn mac_verify(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<bool> {
    use subtle::ConstantTimeEq;
    let mut expect = mac(key, iv, data, tag_bits, length_bits)?;
    let ok = tag.len() == expect.len() && bool::from(expect.ct_eq(tag));
    expect.zeroize();
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-wise MAC equals the bit-by-bit definition for every tag size, many
    /// lengths and every backend.
    #[test]
    fn mac_matches_bitwise_reference() {
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37) ^ 0x5c).collect();
        let iv = [0x15u8; 23];
        let msg: Vec<u8> = (0..1300u32).map(|i| (i * 89 + 7) as u8).collect();
        for v in crate::cpu::variants() {
            let b = v.backend();
            for tag_bits in [32, 64, 128] {
                for bits in [
                    0u64, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 400, 4000, 8191, 8192, 8193,
                    10400,
                ] {
                    assert_eq!(
                        mac_variant(v, &key, &iv, &msg, tag_bits, Some(bits)).unwrap(),
                        mac_bitwise(b, &key, &iv, &msg, tag_bits, Some(bits)).unwrap(),
                        "{b:?} t={tag_bits} L={bits}"
                    );
                }
            }
        }
    }
}
