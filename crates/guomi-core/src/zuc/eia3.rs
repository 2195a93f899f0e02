//! 128-EIA3, the 3GPP integrity algorithm (ETSI/SAGE 128-EEA3 & 128-EIA3 Document 1 §4;
//! GM/T 0001.3-2012).

use super::{bit_length, check_framing, kernel, key128, Zuc};
use crate::cpu::{self, Backend, Variant};
use crate::error::Result;
use zeroize::Zeroize;

/// MAC size in bytes.
pub const MAC_SIZE: usize = 4;

/// Document 1 §4.3: IV0..IV3 = COUNT, IV4 = BEARER ∥ 000, IV5 = IV6 = IV7 = 0,
/// IV8 = IV0 ⊕ (DIRECTION << 7), IV9..IV13 = IV1..IV5, IV14 = IV6 ⊕ (DIRECTION << 7),
/// IV15 = IV7.
pub(crate) fn iv(count: u32, bearer: u8, direction: u8) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = bearer << 3;
    iv.copy_within(0..8, 8);
    iv[8] ^= direction << 7;
    iv[14] ^= direction << 7;
    iv
}

/// Message words folded per keystream refill.
const CHUNK: usize = 256;

/// Document 1 §4.4-4.5 on an initialized generator: with L = `bits`,
/// T = ⊕_{i: M_i = 1} z_i, T ^= z_L, MAC = T ⊕ z_{32(L'-1)}, L' = ceil((L + 64) / 32),
/// where z_i is the 32-bit keystream window starting at keystream bit i.
pub(crate) fn mac_with(
    z: &mut Zuc,
    mac_words: fn(&[u8], &[u32]) -> u32,
    data: &[u8],
    bits: u64,
) -> u32 {
    let full = (bits / 32) as usize; // whole message words
    let rem = (bits % 32) as u32;
    let mut ks = [0u32; CHUNK + 1];
    let mut dirty = 2;
    z.words(&mut ks[..1]);
    let mut t = 0u32;
    let mut prev = 0u32; // z_{j-1} after each chunk
    let mut j = 0;
    while j < full {
        let take = CHUNK.min(full - j);
        dirty = dirty.max(take + 1);
        z.words(&mut ks[1..=take]);
        t ^= mac_words(&data[4 * j..4 * (j + take)], &ks[..=take]);
        prev = ks[take - 1];
        ks[0] = ks[take];
        j += take;
    }
    if rem != 0 {
        // The last, partial word: bits beyond L are cleared before folding.
        let mut last = [0u8; 4];
        let start = 4 * full;
        let nbytes = rem.div_ceil(8) as usize;
        last[..nbytes].copy_from_slice(&data[start..start + nbytes]);
        let m = u32::from_be_bytes(last) & (u32::MAX << (32 - rem));
        z.words(&mut ks[1..2]);
        t ^= mac_words(&m.to_be_bytes(), &ks[..2]);
        prev = ks[0];
        ks[0] = ks[1];
        last.zeroize();
    }
    // With nmsg = ceil(L / 32) message words: ks[0] = keystream word nmsg (0-based)
    // and prev = word nmsg - 1.
    let window_at_l = if rem == 0 {
        ks[0]
    } else {
        (prev << rem) | (ks[0] >> (32 - rem))
    };
    t ^= window_at_l;
    let mut last = [0u32; 1];
    z.words(&mut last);
    ks[..dirty].zeroize();
    t ^ last[0]
}

/// Document 1 §4.4-4.5 on a precomputed keystream `ks` = z_0 .. z_{L'-1}
/// (L' = ceil(L / 32) + 2 words); used by the batch code.
pub(crate) fn mac_from_keystream(
    mac_words: fn(&[u8], &[u32]) -> u32,
    data: &[u8],
    bits: u64,
    ks: &[u32],
) -> u32 {
    let full = (bits / 32) as usize;
    let rem = (bits % 32) as u32;
    let mut t = mac_words(&data[..4 * full], &ks[..=full]);
    let nmsg = full + usize::from(rem != 0);
    if rem != 0 {
        let mut last = [0u8; 4];
        let nbytes = rem.div_ceil(8) as usize;
        last[..nbytes].copy_from_slice(&data[4 * full..4 * full + nbytes]);
        let m = u32::from_be_bytes(last) & (u32::MAX << (32 - rem));
        t ^= mac_words(&m.to_be_bytes(), &ks[full..full + 2]);
        last.zeroize();
    }
    let window_at_l = if rem == 0 {
        ks[nmsg]
    } else {
        (ks[nmsg - 1] << rem) | (ks[nmsg] >> (32 - rem))
    };
    t ^ window_at_l ^ ks[nmsg + 1]
}

/// 128-EIA3 MAC (4 bytes) of the first `length_bits` bits of `data` (all when `None`),
/// on the given backend (clamped to what this CPU supports).
pub fn eia3_with(
    backend: Backend,
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; MAC_SIZE]> {
    eia3_variant(
        Variant::from(backend),
        key,
        count,
        bearer,
        direction,
        data,
        length_bits,
    )
}

/// [`eia3_with`] on a [`Variant`] (clamped to what this CPU supports).
pub fn eia3_variant(
    variant: Variant,
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; MAC_SIZE]> {
    let key = key128(key)?;
    check_framing(bearer, direction)?;
    let (bits, _) = bit_length(data.len(), length_bits)?;
    let mut z = Zuc::from_loaded(
        super::core::load_128(key, &iv(count, bearer, direction)),
        variant,
    );
    Ok(mac_with(&mut z, kernel(variant).mac_words, data, bits).to_be_bytes())
}

/// 128-EIA3 MAC on the active variant.
pub fn eia3(
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; MAC_SIZE]> {
    eia3_variant(
        cpu::active_variant(),
        key,
        count,
        bearer,
        direction,
        data,
        length_bits,
    )
}

/// Checks a 128-EIA3 MAC in constant time. The MAC length is fixed by the algorithm
/// (4 bytes): a `mac` of any other length is simply false.
pub fn verify(
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    mac: &[u8],
    length_bits: Option<u64>,
) -> Result<bool> {
    use subtle::ConstantTimeEq;
    let expect = eia3(key, count, bearer, direction, data, length_bits)?;
    Ok(mac.len() == MAC_SIZE && bool::from(expect.ct_eq(mac)))
}
