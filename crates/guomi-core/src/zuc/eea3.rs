//! 128-EEA3, the 3GPP confidentiality algorithm (ETSI/SAGE "Specification of the 3GPP
//! Confidentiality and Integrity Algorithms 128-EEA3 & 128-EIA3", Document 1 §3;
//! GM/T 0001.2-2012).

use super::{bit_length, check_framing, key128, Zuc};
use crate::cpu::{self, Backend, Variant};
use crate::error::Result;
use zeroize::Zeroize;

/// A 128-bit EEA3/EIA3 key, wiped on drop.
#[derive(Clone)]
pub struct Key128([u8; 16]);

impl Key128 {
    /// Checks the length (16 bytes).
    pub fn new(key: &[u8]) -> Result<Key128> {
        Ok(Key128(*key128(key)?))
    }

    /// The key bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl Drop for Key128 {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl core::fmt::Debug for Key128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Key128(..)")
    }
}

/// Document 1 §3.3: the 128-bit IV built from COUNT, BEARER and DIRECTION:
/// IV0..IV3 = COUNT, IV4 = BEARER ∥ DIRECTION ∥ 00, IV5..IV7 = 0, IV8..IV15 = IV0..IV7.
pub(crate) fn iv(count: u32, bearer: u8, direction: u8) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = (bearer << 3) | (direction << 2);
    iv.copy_within(0..8, 8);
    iv
}

/// The length of the EEA3 output for `data_len` input bytes and an optional bit length:
/// ceil(length_bits / 8) bytes.
pub fn output_len(data_len: usize, length_bits: Option<u64>) -> Result<usize> {
    Ok(bit_length(data_len, length_bits)?.1)
}

/// 128-EEA3 into `out` (which must be [`output_len`] bytes): the first `length_bits`
/// bits of `data` (all of it when `None`) XOR the keystream; the unused trailing bits of
/// the last byte are set to zero (Document 1 §3.5). Encryption and decryption are the
/// same operation. `backend` is clamped to what this CPU supports.
#[allow(clippy::too_many_arguments)]
pub fn eea3_into_with(
    backend: Backend,
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    eea3_into_variant(
        Variant::from(backend),
        key,
        count,
        bearer,
        direction,
        data,
        length_bits,
        out,
    )
}

/// [`eea3_into_with`] on a [`Variant`] (clamped to what this CPU supports).
#[allow(clippy::too_many_arguments)]
pub fn eea3_into_variant(
    variant: Variant,
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    let key = key128(key)?;
    check_framing(bearer, direction)?;
    let (bits, nbytes) = bit_length(data.len(), length_bits)?;
    assert_eq!(
        out.len(),
        nbytes,
        "output buffer must be output_len() bytes"
    );
    Zuc::from_loaded(
        super::core::load_128(key, &iv(count, bearer, direction)),
        variant,
    )
    .apply_keystream_once(&data[..nbytes], out);
    let rem = (bits % 8) as u32;
    if rem != 0 {
        out[nbytes - 1] &= 0xffu8 << (8 - rem);
    }
    Ok(())
}

/// [`eea3_into_with`] on the active variant.
pub fn eea3_into(
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    eea3_into_variant(
        cpu::active_variant(),
        key,
        count,
        bearer,
        direction,
        data,
        length_bits,
        out,
    )
}

/// 128-EEA3 of `data` (see [`eea3_into_with`]); returns ceil(length_bits / 8) bytes.
pub fn eea3(
    key: &[u8],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let mut out = vec![0u8; output_len(data.len(), length_bits)?];
    eea3_into(key, count, bearer, direction, data, length_bits, &mut out)?;
    Ok(out)
}
