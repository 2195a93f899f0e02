//! The column operations. Each one calls the same core API as its scalar counterpart.

use super::kernel::{at_row, run_bool, run_parts, run_rows, PartResult, Shape};
use super::{Arg, BinaryOut, BoolOut, Column, IntArg, OnError, RowError};
use crate::error::{Error, Result};
use crate::sm2::{message_digest, PrivateKey, PublicKey, Signature};
use crate::sm4::gcm::{GcmRow, Sm4Gcm};
use crate::sm4::modes::{self, Mode, Padding};
use crate::sm4::Sm4;
use crate::zuc::eea3;
use zeroize::{Zeroize, Zeroizing};

/// SM4-GCM nonce length of the column format (`nonce || ciphertext || tag`).
pub const GCM_NONCE_SIZE: usize = 12;
/// Bytes a GCM row grows by: 12-byte nonce and 16-byte tag.
pub const GCM_OVERHEAD: usize = GCM_NONCE_SIZE + 16;

/// Rows per thread below which a thread is not worth starting, for operations of about a
/// microsecond per row.
const MIN_ROWS_FAST: usize = 512;
/// Input per thread below which a thread is not worth starting (as `sm3::many::hash_many`
/// and `zuc::many::eea3_many` decide): about 0.1–0.3 ms of hashing or encryption.
const MIN_PART_BYTES: usize = 64 * 1024;

/// Rows per thread for an operation whose cost follows the bytes of `col`'s rows:
/// [`MIN_ROWS_FAST`], or fewer when the rows are long enough for [`MIN_PART_BYTES`] in
/// fewer (a column of a few large documents is still shared by the threads), at least 1.
fn min_rows(col: &Column<'_>) -> usize {
    let per_row = col.value_bytes() / col.len().max(1);
    (MIN_PART_BYTES / per_row.max(1)).clamp(1, MIN_ROWS_FAST)
}

/// SM3 of every row (`fixed_size_binary(32)`), through the multi-lane `sm3::many::hash_many`.
pub fn sm3(col: &Column<'_>, threads: Option<usize>) -> std::result::Result<BinaryOut, RowError> {
    let n = col.len();
    run_parts(
        n,
        threads,
        min_rows(col),
        crate::sm3::many::simd_lanes(),
        Shape::Fixed(32),
        |i| Ok(col.get(i).map(|_| 32)),
        |mut part| {
            let rows: Vec<usize> = part.rows.clone().filter(|&i| !part.is_null(i)).collect();
            let msgs: Vec<&[u8]> = rows.iter().filter_map(|&i| col.get(i)).collect();
            if rows.len() == part.rows.len() {
                // No null row: the part's slots are the digests, in order.
                let (slots, _) = part.buf.as_chunks_mut::<32>();
                crate::sm3::many::hash_many_into(&msgs, slots);
            } else {
                let digests = crate::sm3::many::hash_many(&msgs, None);
                for (&i, d) in rows.iter().zip(&digests) {
                    part.slot(i).copy_from_slice(d);
                }
            }
            PartResult::default()
        },
    )
}

/// HMAC-SM3 of every row under one key (`fixed_size_binary(32)`): keyed tokenization.
///
/// HMAC as RFC 2104 defines it, H((K0 ^ opad) || H((K0 ^ ipad) || m)) with K0 the key
/// (hashed first when longer than the 64-byte block) padded with zeros, exactly as
/// `sm3::hmac::HmacSm3`; both hashes of a batch of rows run through the multi-lane
/// `sm3::many::hash_many` (one row per SIMD lane) instead of one row at a time.
pub fn hmac_sm3(
    key: &[u8],
    col: &Column<'_>,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    const BATCH: usize = 1024;
    let mut k0 = [0u8; 64];
    if key.len() > 64 {
        k0[..32].copy_from_slice(&crate::sm3::hash(key));
    } else {
        k0[..key.len()].copy_from_slice(key);
    }
    let ipad = Zeroizing::new(k0.map(|b| b ^ 0x36));
    let opad = Zeroizing::new(k0.map(|b| b ^ 0x5c));
    k0.zeroize();
    run_parts(
        col.len(),
        threads,
        min_rows(col),
        crate::sm3::many::simd_lanes(),
        Shape::Fixed(32),
        |i| Ok(col.get(i).map(|_| 32)),
        |mut part| {
            let rows: Vec<usize> = part.rows.clone().filter(|&i| !part.is_null(i)).collect();
            let mut inner = Zeroizing::new(Vec::new());
            let mut outer = Zeroizing::new(Vec::with_capacity(BATCH * 96));
            let mut bounds = Vec::with_capacity(BATCH + 1);
            let mut digests = Zeroizing::new(vec![[0u8; 32]; BATCH.min(rows.len())]);
            // Without null rows, the slots of a batch are contiguous and in order, and the
            // tags are written straight into them.
            let dense = rows.len() == part.rows.len();
            let mut tags = Vec::new();
            for batch in rows.chunks(BATCH) {
                inner.clear();
                bounds.clear();
                for &i in batch {
                    bounds.push(inner.len());
                    inner.extend_from_slice(&ipad[..]);
                    inner.extend_from_slice(col.get(i).unwrap_or_default());
                }
                bounds.push(inner.len());
                let msgs: Vec<&[u8]> = bounds.windows(2).map(|w| &inner[w[0]..w[1]]).collect();
                let digests = &mut digests[..batch.len()];
                crate::sm3::many::hash_many_into(&msgs, digests);
                outer.clear();
                for d in digests.iter() {
                    outer.extend_from_slice(&opad[..]);
                    outer.extend_from_slice(d);
                }
                let msgs: Vec<&[u8]> = outer.chunks(96).collect();
                if dense {
                    let at = (batch[0] - part.rows.start) * 32;
                    let slots = &mut part.buf[at..at + batch.len() * 32];
                    crate::sm3::many::hash_many_into(&msgs, slots.as_chunks_mut::<32>().0);
                } else {
                    tags.resize(batch.len(), [0u8; 32]);
                    crate::sm3::many::hash_many_into(&msgs, &mut tags);
                    for (&i, t) in batch.iter().zip(&tags) {
                        part.slot(i).copy_from_slice(t);
                    }
                }
            }
            PartResult::default()
        },
    )
}

fn aad_len_check(aad: &Arg<'_>, n: usize) -> Result<()> {
    aad.check_len("aad column must have as many rows as the data", n)
}

/// Rows handed to the multi-message GCM kernel per call.
const GCM_BATCH: usize = 512;

/// SM4-GCM of every row: `nonce (12) || ciphertext || tag (16)`, each row with a fresh
/// random nonce. All nonces come from one OS CSPRNG fill before any row is encrypted.
/// `aad`: one value for every row, or a column (a null AAD row means empty AAD).
///
/// Each thread's rows go in batches through [`Sm4Gcm::encrypt_many_into`], which gives
/// exactly the bytes of one `encrypt_into` per row with the SM4 and GHASH work of many
/// rows batched.
pub fn sm4_gcm_encrypt(
    key: &[u8],
    col: &Column<'_>,
    aad: Arg<'_>,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let gcm = Sm4Gcm::from_slice(key)?;
    let n = col.len();
    aad_len_check(&aad, n)?;
    let mut nonces = vec![
        0u8;
        n.checked_mul(GCM_NONCE_SIZE)
            .ok_or(Error::InvalidValue("column too long"))?
    ];
    crate::rand::fill(&mut nonces)?;
    let (nonces, _) = nonces.as_chunks::<GCM_NONCE_SIZE>();
    run_parts(
        n,
        threads,
        min_rows(col),
        (1, 1),
        Shape::Var,
        |i| {
            col.get(i)
                .map(|v| {
                    v.len()
                        .checked_add(GCM_OVERHEAD)
                        .ok_or(Error::InvalidValue("row too long"))
                })
                .transpose()
                .map_err(at_row(i))
        },
        |mut part| {
            let mut rows = Vec::with_capacity(GCM_BATCH);
            let mut idx = Vec::with_capacity(GCM_BATCH);
            let mut slots = part.slots();
            loop {
                rows.clear();
                idx.clear();
                let mut more = false;
                for (i, slot) in slots.by_ref() {
                    let Some((nonce, body)) = slot.and_then(|s| s.split_first_chunk_mut()) else {
                        continue; // null row (a slot is never shorter than 28 bytes)
                    };
                    *nonce = nonces[i];
                    rows.push(GcmRow {
                        nonce,
                        aad: aad.get(i).unwrap_or_default(),
                        input: col.get(i).unwrap_or_default(),
                        output: body,
                    });
                    idx.push(i);
                    if rows.len() == GCM_BATCH {
                        more = true;
                        break;
                    }
                }
                let res = gcm.encrypt_many_into(&mut rows);
                if let Some((k, Err(e))) = res.into_iter().enumerate().find(|(_, r)| r.is_err()) {
                    return PartResult {
                        error: Some(at_row(idx[k])(e)),
                        ..PartResult::default()
                    };
                }
                if !more {
                    return PartResult::default();
                }
            }
        },
    )
}

/// Inverse of [`sm4_gcm_encrypt`]. A row that does not authenticate (or is shorter than
/// 28 bytes) fails with `InvalidTag`: `OnError::Raise` reports the first such row,
/// `OnError::Null` makes it null. No plaintext of a failing row is ever written.
///
/// Each thread's rows go in batches through [`Sm4Gcm::decrypt_many_into`] (the same
/// bytes and verdicts as one `decrypt_into` per row with a 16-byte tag).
pub fn sm4_gcm_decrypt(
    key: &[u8],
    col: &Column<'_>,
    aad: Arg<'_>,
    on_error: OnError,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let gcm = Sm4Gcm::from_slice(key)?;
    let n = col.len();
    aad_len_check(&aad, n)?;
    run_parts(
        n,
        threads,
        min_rows(col),
        (1, 1),
        Shape::Var,
        |i| Ok(col.get(i).map(|v| v.len().saturating_sub(GCM_OVERHEAD))),
        |mut part| {
            let mut out = PartResult::default();
            let mut rows = Vec::with_capacity(GCM_BATCH);
            let mut idx = Vec::with_capacity(GCM_BATCH);
            let mut slots = part.slots();
            loop {
                rows.clear();
                idx.clear();
                let mut more = false;
                // A row too short for a nonce and a tag, which fails before the kernel;
                // under `Raise` the batch stops there, so that an earlier failing row in
                // the batch is still the one reported.
                let mut short = None;
                for (i, slot) in slots.by_ref() {
                    let Some(slot) = slot else { continue };
                    let row = col.get(i).unwrap_or_default();
                    let split = row.split_first_chunk();
                    let Some((nonce, input)) = split.filter(|(_, b)| b.len() >= 16) else {
                        match on_error {
                            OnError::Raise => {
                                short = Some(i);
                                break;
                            }
                            OnError::Null => {
                                out.failed.push(i);
                                continue;
                            }
                        }
                    };
                    rows.push(GcmRow {
                        nonce,
                        aad: aad.get(i).unwrap_or_default(),
                        input,
                        output: slot,
                    });
                    idx.push(i);
                    if rows.len() == GCM_BATCH {
                        more = true;
                        break;
                    }
                }
                let res = gcm.decrypt_many_into(&mut rows);
                for (k, r) in res.into_iter().enumerate() {
                    if let Err(e) = r {
                        match on_error {
                            OnError::Raise => {
                                out.error = Some(at_row(idx[k])(e));
                                return out;
                            }
                            OnError::Null => out.failed.push(idx[k]),
                        }
                    }
                }
                if let Some(i) = short {
                    out.error = Some(at_row(i)(Error::InvalidTag));
                    return out;
                }
                if !more {
                    return out;
                }
            }
        },
    )
}

fn mode_iv<'a>(mode: Mode, iv: Option<&'a Column<'a>>, n: usize) -> Result<Option<&'a Column<'a>>> {
    match (mode, iv) {
        (Mode::Ecb, None) => Ok(None),
        (Mode::Ecb, Some(_)) => Err(Error::InvalidValue("ecb takes no iv")),
        (_, None) => Err(Error::InvalidValue(
            "this mode requires an iv column (16 bytes per row)",
        )),
        (_, Some(c)) if c.len() != n => Err(Error::InvalidValue(
            "iv column must have as many rows as the data",
        )),
        (_, Some(c)) => Ok(Some(c)),
    }
}

/// The IV of row `i` (checked to be 16 bytes) when the data row is not null.
fn row_iv<'a>(iv: Option<&'a Column<'a>>, i: usize) -> Result<Option<&'a [u8]>> {
    let Some(c) = iv else { return Ok(None) };
    match c.get(i) {
        None => Err(Error::InvalidValue(
            "iv is null in a row whose data is not null",
        )),
        Some(v) if v.len() != 16 => Err(Error::InvalidLength {
            what: "iv",
            expected: "16 bytes",
            got: v.len(),
        }),
        Some(v) => Ok(Some(v)),
    }
}

/// SM4 in ECB, CBC, CTR, CFB or OFB over every row, with the IV of each row from `iv`
/// (none for ECB). `padding`: the mode's default when `None` (PKCS #7 for ECB/CBC).
pub fn sm4_encrypt(
    key: &[u8],
    mode: Mode,
    col: &Column<'_>,
    iv: Option<&Column<'_>>,
    padding: Option<Padding>,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let cipher = Sm4::from_slice(key)?;
    let n = col.len();
    let iv = mode_iv(mode, iv, n)?;
    if !mode.is_block_mode() && padding.is_some_and(|p| p != Padding::None) {
        return Err(Error::InvalidValue(
            "padding applies only to ecb and cbc; stream modes take padding=\"none\"",
        )
        .into());
    }
    run_rows(
        n,
        threads,
        min_rows(col),
        Shape::Var,
        OnError::Raise,
        |i| match col.get(i) {
            None => Ok(None),
            Some(v) => {
                row_iv(iv, i).map_err(at_row(i))?;
                modes::encrypted_len(mode, padding, v.len())
                    .map(Some)
                    .map_err(at_row(i))
            }
        },
        |i, slot| {
            let v = col.get(i).unwrap_or_default();
            modes::encrypt_into(&cipher, mode, row_iv(iv, i)?, padding, v, slot)?;
            Ok(slot.len())
        },
    )
}

/// Inverse of [`sm4_encrypt`]. Rows with bad padding or a length that is not a whole
/// number of blocks (ECB/CBC) fail: `OnError::Raise` reports the first, `OnError::Null`
/// makes them null.
pub fn sm4_decrypt(
    key: &[u8],
    mode: Mode,
    col: &Column<'_>,
    iv: Option<&Column<'_>>,
    padding: Option<Padding>,
    on_error: OnError,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let cipher = Sm4::from_slice(key)?;
    let n = col.len();
    let iv = mode_iv(mode, iv, n)?;
    if !mode.is_block_mode() && padding.is_some_and(|p| p != Padding::None) {
        return Err(Error::InvalidValue(
            "padding applies only to ecb and cbc; stream modes take padding=\"none\"",
        )
        .into());
    }
    run_rows(
        n,
        threads,
        min_rows(col),
        Shape::Var,
        on_error,
        |i| match col.get(i) {
            None => Ok(None),
            Some(v) => {
                row_iv(iv, i).map_err(at_row(i))?;
                Ok(Some(v.len()))
            }
        },
        |i, slot| {
            slot.copy_from_slice(col.get(i).unwrap_or_default());
            modes::decrypt_in_place(&cipher, mode, row_iv(iv, i)?, padding, slot)
        },
    )
}

/// SM2 signatures of every row (GB/T 32918.2 with Z_A for `uid`, computed once): raw
/// 64-byte r || s (`fixed_size_binary(64)`), or DER when `der`.
pub fn sm2_sign(
    key: &PrivateKey,
    uid: &[u8],
    der: bool,
    col: &Column<'_>,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let z = key.z(uid)?;
    let sign = |i: usize| -> Result<Signature> {
        key.sign_digest(&message_digest(&z, col.get(i).unwrap_or_default()))
    };
    if !der {
        return run_rows(
            col.len(),
            threads,
            4,
            Shape::Fixed(64),
            OnError::Raise,
            |i| Ok(col.get(i).map(|_| 64)),
            |i, slot| {
                slot.copy_from_slice(&sign(i)?.to_raw());
                Ok(64)
            },
        );
    }
    // DER is at most 72 bytes (two 33-byte INTEGERs and their headers).
    run_rows(
        col.len(),
        threads,
        4,
        Shape::Var,
        OnError::Raise,
        |i| Ok(col.get(i).map(|_| 72)),
        |i, slot| {
            let der = sign(i)?.to_der();
            slot[..der.len()].copy_from_slice(&der);
            Ok(der.len())
        },
    )
}

/// The public keys of [`sm2_verify`]: one key for every row, or a column of encoded keys
/// (65-byte `04||x||y`, 64-byte `x||y` or 33-byte compressed per row).
#[derive(Clone, Copy, Debug)]
pub enum PublicKeys<'a> {
    /// One key for every row.
    One(&'a PublicKey),
    /// Row `i` is verified with the key in row `i`.
    Column(&'a Column<'a>),
}

/// Verifies row `i` of `signatures` (DER or raw, detected per row) on row `i` of
/// `messages`. `None` (null) when the message, the signature or the row's key is null;
/// `false` for a malformed signature or key, as the scalar `verify`.
pub fn sm2_verify(
    keys: PublicKeys<'_>,
    uid: &[u8],
    signatures: &Column<'_>,
    messages: &Column<'_>,
    threads: Option<usize>,
) -> std::result::Result<BoolOut, RowError> {
    let n = messages.len();
    if signatures.len() != n {
        return Err(Error::InvalidValue("signature and message columns differ in length").into());
    }
    if uid.len() > crate::sm2::MAX_UID_LEN {
        return Err(Error::InvalidValue("uid too long (at most 8191 bytes)").into());
    }
    Ok(match keys {
        PublicKeys::One(key) => {
            key.prepare();
            let z = key.compute_z(uid)?;
            run_bool(n, threads, 4, |i| {
                let (sig, msg) = (signatures.get(i)?, messages.get(i)?);
                let Ok(sig) = Signature::from_bytes(sig) else {
                    return Some(false);
                };
                Some(key.verify_digest(&message_digest(&z, msg), &sig))
            })
        }
        PublicKeys::Column(keys) => {
            if keys.len() != n {
                return Err(Error::InvalidValue(
                    "public key column must have as many rows as the messages",
                )
                .into());
            }
            run_bool(n, threads, 4, |i| {
                let (k, sig, msg) = (keys.get(i)?, signatures.get(i)?, messages.get(i)?);
                let (Ok(key), Ok(sig)) = (
                    PublicKey::<crate::sm2::Sm2p256>::from_bytes(k),
                    Signature::from_bytes(sig),
                ) else {
                    return Some(false);
                };
                Some(key.verify(msg, uid, &sig))
            })
        }
    })
}

fn int_in<T: TryFrom<i128>>(v: Option<i128>, what: &'static str) -> Result<Option<T>> {
    v.map(|v| T::try_from(v).map_err(|_| Error::InvalidValue(what)))
        .transpose()
}

/// 128-EEA3 of every row with that row's key, COUNT, BEARER and DIRECTION (each one value
/// or a column), and optionally a bit length per row. A null in any of them makes the
/// output row null.
#[allow(clippy::too_many_arguments)]
pub fn zuc_eea3(
    key: Arg<'_>,
    count: IntArg<'_>,
    bearer: IntArg<'_>,
    direction: IntArg<'_>,
    data: &Column<'_>,
    length_bits: Option<IntArg<'_>>,
    threads: Option<usize>,
) -> std::result::Result<BinaryOut, RowError> {
    let n = data.len();
    key.check_len("key column must have as many rows as the data", n)?;
    count.check_len("count column must have as many rows as the data", n)?;
    bearer.check_len("bearer column must have as many rows as the data", n)?;
    direction.check_len("direction column must have as many rows as the data", n)?;
    if let Some(l) = &length_bits {
        l.check_len("length_bits column must have as many rows as the data", n)?;
    }
    // (key, count, bearer, direction, length_bits) of row i; None if any is null.
    type Params<'k> = (&'k [u8], u32, u8, u8, Option<u64>);
    let params = |i: usize| -> Result<Option<Params<'_>>> {
        let (Some(k), Some(c), Some(b), Some(d)) = (
            key.get(i),
            int_in::<u32>(count.get(i), "count must be in 0..2^32")?,
            int_in::<u8>(bearer.get(i), "bearer must be in 0..=31 (5 bits)")?,
            int_in::<u8>(direction.get(i), "direction must be 0 or 1")?,
        ) else {
            return Ok(None);
        };
        let bits = match &length_bits {
            None => None,
            Some(l) => match int_in::<u64>(l.get(i), "length_bits must be >= 0")? {
                None => return Ok(None),
                Some(b) => Some(b),
            },
        };
        Ok(Some((k, c, b, d, bits)))
    };
    run_rows(
        n,
        threads,
        min_rows(data),
        Shape::Var,
        OnError::Raise,
        |i| {
            let Some(v) = data.get(i) else {
                return Ok(None);
            };
            match params(i).map_err(at_row(i))? {
                None => Ok(None),
                Some((_, _, _, _, bits)) => {
                    eea3::output_len(v.len(), bits).map(Some).map_err(at_row(i))
                }
            }
        },
        |i, slot| {
            let (k, c, b, d, bits) = params(i)?.ok_or(Error::InvalidValue("null row"))?;
            eea3::eea3_into(k, c, b, d, data.get(i).unwrap_or_default(), bits, slot)?;
            Ok(slot.len())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::view::{Chunk, Values};
    use super::*;

    #[test]
    fn a_column_of_a_few_long_rows_is_shared_by_the_threads() {
        // 4 rows of 64 KiB: parts had at least 512 rows, so such a column ran on one
        // thread whatever `threads` said.
        let data: Vec<u8> = (0..4 * 65536).map(|i| (i * 7 % 251) as u8).collect();
        let offsets: Vec<i64> = (0..=4).map(|i| i * 65536).collect();
        let column = |rows: usize| {
            let chunk = Chunk::new(
                rows,
                None,
                Values::Offsets64 {
                    offsets: &offsets[..=rows],
                    data: &data,
                },
            )
            .unwrap();
            Column::new(vec![chunk])
        };
        let (col, two) = (column(4), column(2));
        assert_eq!(min_rows(&col), 1);
        let parts = || crate::parallel::tests::LAST_PARTS.with(|c| c.replace(0));
        let key = [9u8; 16];
        for threads in [Some(2), Some(0)] {
            let t = crate::parallel::threads(threads);
            // Row by row (ECB, no padding): the rows are spread.
            let none = Some(Padding::None);
            let out = sm4_encrypt(&key, Mode::Ecb, &col, None, none, threads).unwrap();
            assert_eq!(parts(), t.min(4), "threads {threads:?}");
            let cipher = Sm4::from_slice(&key).unwrap();
            let want: Vec<u8> = data
                .chunks(65536)
                .flat_map(|row| modes::encrypt(&cipher, Mode::Ecb, None, none, row).unwrap())
                .collect();
            assert_eq!(out.data, want);
            // SM3 lanes: two rows, one per thread (a lane group of two costs two hashes).
            let out = sm3(&two, threads).unwrap();
            assert_eq!(parts(), t.min(2), "threads {threads:?}");
            let want: Vec<u8> = data[..2 * 65536]
                .chunks(65536)
                .flat_map(crate::sm3::hash)
                .collect();
            assert_eq!(out.data, want);
        }
        // Short rows keep the per-row bound.
        let short = Chunk::new(
            1,
            None,
            Values::Fixed {
                width: 100,
                data: &data[..100],
            },
        )
        .unwrap();
        assert_eq!(min_rows(&Column::new(vec![short])), MIN_ROWS_FAST);
    }
}
