//! Many SM4-GCM messages in one call: [`Sm4Gcm::encrypt_many_into`] and
//! [`Sm4Gcm::decrypt_many_into`], the kernel of the column API.
//!
//! One message through [`Sm4Gcm::encrypt_into`] pays a fixed cost that dominates short
//! messages: E(K, J0) and a partial last block each as a single-block SM4 call (the
//! latency path), a counter batch filled only partly, and GHASH calls with their own
//! setup. Here the counter blocks of many messages, each message's J0 included, go into
//! one keystream buffer that is encrypted by full-width SM4 calls (the backend's widest
//! ECB kernel, one key schedule); each message is then GHASHed in one call over its AAD,
//! ciphertext and length block, which for a short message is one aggregated reduction
//! over the powers of H. Messages of [`FUSED_MIN`] bytes or more run their whole blocks
//! through the backend's fused CTR kernel instead (only J0 and a partial last block go
//! through the buffer), and messages over [`ALONE_MAX`] bytes take the one-message path,
//! whose fixed cost no longer matters.
//!
//! Only 96-bit nonces are taken (the type says so): the counters then depend only on the
//! public nonce, so the secret-counter handling of other nonce lengths never arises.
//! Decryption computes each message's tag before any of its plaintext exists, compares
//! it with the full 16-byte tag in constant time, and writes plaintext only for messages
//! that verify; the output of a message that does not is zero-filled.

use super::{gctr_to, Sm4Gcm, MAX_PLAINTEXT, NONCE_SIZE, SEGMENT, TAG_SIZE};
use crate::error::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// One message of a batch for [`Sm4Gcm::encrypt_many_into`] and
/// [`Sm4Gcm::decrypt_many_into`].
#[derive(Debug)]
pub struct GcmRow<'a> {
    /// The 96-bit nonce.
    pub nonce: &'a [u8; NONCE_SIZE],
    /// Additional authenticated data (may be empty).
    pub aad: &'a [u8],
    /// Encryption: the plaintext (at most 2^36 − 32 bytes). Decryption: the ciphertext
    /// followed by its 16-byte tag.
    pub input: &'a [u8],
    /// Encryption: `input.len() + 16` bytes, receives ciphertext || tag. Decryption:
    /// `input.len() - 16` bytes, receives the plaintext if the tag verifies and zeros if
    /// it does not.
    pub output: &'a mut [u8],
}

/// Blocks in the keystream buffer (8 KiB: whole calls of the widest ECB kernels, which
/// take 128 blocks (AVX-512) or 32 (AVX2) at a time, and well inside L1 with the data).
const KS_BLOCKS: usize = 512;
/// Messages with at least this many bytes of whole blocks take the fused CTR kernel for
/// them (counters built in registers, no keystream buffer).
const FUSED_MIN: usize = 2048;
/// Messages longer than this take the one-message path.
const ALONE_MAX: usize = SEGMENT;
/// Bytes of messages scheduled before the buffer is flushed even if not full, so that a
/// message's ciphertext is still in cache when it is GHASHed (matters for fused ones).
const PENDING_MAX: usize = 32 * 1024;
/// Bytes of the buffer in which a short message's AAD, ciphertext and length block are
/// laid out for one GHASH call (32 blocks: one reduction on the x86 backends).
const SCRATCH: usize = 32 * 16;

/// Bytes of `len` run through the fused CTR kernel (whole blocks), 0 for short messages.
fn fused_bytes(len: usize) -> usize {
    let whole = len / 16 * 16;
    if whole >= FUSED_MIN {
        whole
    } else {
        0
    }
}

/// Blocks `k0..k0 + n` of message `row` occupy the next `n` blocks of the keystream
/// buffer. Block 0 is J0 (its encryption masks the tag), block k ≥ 1 the counter of
/// bytes `16(k − 1)..16k` of the message.
#[derive(Clone, Copy)]
struct Run {
    row: usize,
    k0: usize,
    n: usize,
    /// The message's last run: after it, its ciphertext is complete.
    last: bool,
}

/// The keystream buffer and what is waiting in it.
struct Batch<'k> {
    gcm: &'k Sm4Gcm,
    decrypt: bool,
    ks: [u8; KS_BLOCKS * 16],
    used: usize,
    runs: Vec<Run>,
    pending: usize,
    scratch: [u8; SCRATCH],
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.ks.zeroize();
        self.scratch.zeroize();
    }
}

impl<'k> Batch<'k> {
    fn new(gcm: &'k Sm4Gcm, decrypt: bool) -> Batch<'k> {
        Batch {
            gcm,
            decrypt,
            ks: [0; KS_BLOCKS * 16],
            used: 0,
            runs: Vec::with_capacity(KS_BLOCKS),
            pending: 0,
            scratch: [0; SCRATCH],
        }
    }

    /// Schedules one message: its blocks that go through the buffer (flushing it when it
    /// fills), and for encryption the fused CTR of its whole blocks right away.
    fn add(&mut self, rows: &mut [GcmRow<'_>], res: &mut [Result<()>], r: usize) {
        let row = &mut rows[r];
        let len = if self.decrypt {
            row.input.len() - TAG_SIZE
        } else {
            row.input.len()
        };
        let nonce = *row.nonce;
        let fused = fused_bytes(len);
        let nb = len.div_ceil(16);
        if fused == 0 {
            self.push(rows, res, r, &nonce, 0, nb + 1, true);
        } else {
            if !self.decrypt {
                // Counter blocks 1..=fused/16 start at inc32(J0); the plaintext is
                // authenticated only through the ciphertext, so it may go now.
                let cb = j0(&nonce) + 1;
                gctr_to(
                    &self.gcm.cipher,
                    cb,
                    &row.input[..fused],
                    &mut row.output[..fused],
                );
            }
            let tail = nb > fused / 16;
            self.push(rows, res, r, &nonce, 0, 1, !tail);
            if tail {
                self.push(rows, res, r, &nonce, nb, 1, true);
            }
        }
        self.pending += len;
        if self.pending >= PENDING_MAX {
            self.flush(rows, res);
        }
    }

    /// Puts the counter blocks `k0..k0 + n` of message `r` into the buffer.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        rows: &mut [GcmRow<'_>],
        res: &mut [Result<()>],
        r: usize,
        nonce: &[u8; NONCE_SIZE],
        mut k0: usize,
        mut n: usize,
        last: bool,
    ) {
        let base = j0(nonce);
        while n > 0 {
            if self.used == KS_BLOCKS {
                self.flush(rows, res);
            }
            let take = n.min(KS_BLOCKS - self.used);
            let blocks = &mut self.ks[16 * self.used..16 * (self.used + take)];
            for (k, b) in (k0..).zip(blocks.chunks_exact_mut(16)) {
                // J0 + k: the low word is 1 + k ≤ 2^32 − 1 for any message within
                // MAX_PLAINTEXT, so inc32 never wraps and adding is inc32.
                b.copy_from_slice(&(base + k as u128).to_be_bytes());
            }
            self.runs.push(Run {
                row: r,
                k0,
                n: take,
                last: last && take == n,
            });
            self.used += take;
            k0 += take;
            n -= take;
        }
    }

    /// Encrypts the buffer and applies it to the messages it belongs to.
    fn flush(&mut self, rows: &mut [GcmRow<'_>], res: &mut [Result<()>]) {
        if self.used > 0 {
            self.gcm
                .cipher
                .blocks(false, &mut self.ks[..16 * self.used]);
        }
        let mut pos = 0;
        for i in 0..self.runs.len() {
            let run = self.runs[i];
            if self.decrypt {
                self.open_run(&mut rows[run.row], &mut res[run.row], run, pos);
            } else {
                self.seal_run(&mut rows[run.row], run, pos);
            }
            pos += 16 * run.n;
        }
        self.runs.clear();
        self.used = 0;
        self.pending = 0;
    }

    /// Encryption: the keystream of one run at `pos` in the buffer.
    fn seal_run(&mut self, row: &mut GcmRow<'_>, run: Run, mut pos: usize) {
        let len = row.input.len();
        let (mut k, mut n) = (run.k0, run.n);
        if k == 0 {
            // E(K, J0) waits in the tag's place for S.
            row.output[len..].copy_from_slice(&self.ks[pos..pos + 16]);
            (k, n, pos) = (1, n - 1, pos + 16);
        }
        if n > 0 {
            let (b0, b1) = (16 * (k - 1), (16 * (k - 1 + n)).min(len));
            xor_to(
                &mut row.output[b0..b1],
                &row.input[b0..b1],
                &self.ks[pos..pos + (b1 - b0)],
            );
        }
        if run.last {
            let (ct, tag) = row.output.split_at_mut(len);
            let s = ghash(self.gcm, &mut self.scratch, row.aad, ct);
            super::super::xor_in_place(tag, &s);
        }
    }

    /// Decryption: the keystream of one run at `pos`. At the message's J0 block its tag is
    /// computed and checked; plaintext is written only if it verified.
    fn open_run(&mut self, row: &mut GcmRow<'_>, res: &mut Result<()>, run: Run, mut pos: usize) {
        let (ct, tag) = row.input.split_at(row.input.len() - TAG_SIZE);
        let (mut k, mut n) = (run.k0, run.n);
        if k == 0 {
            let mut expected = ghash(self.gcm, &mut self.scratch, row.aad, ct);
            super::super::xor_in_place(&mut expected, &self.ks[pos..pos + 16]);
            // Declassified: this message's tag matched or InvalidTag, public by definition
            // and returned per message (the comparison is ct_eq).
            let ok = crate::ct::declassify_choice(expected.ct_eq(tag));
            expected.zeroize();
            if ok {
                let fused = fused_bytes(ct.len());
                if fused > 0 {
                    let cb = j0(row.nonce) + 1;
                    gctr_to(&self.gcm.cipher, cb, &ct[..fused], &mut row.output[..fused]);
                }
            } else {
                row.output.fill(0);
                *res = Err(Error::InvalidTag);
            }
            (k, n, pos) = (1, n - 1, pos + 16);
        }
        if n > 0 && res.is_ok() {
            let (b0, b1) = (16 * (k - 1), (16 * (k - 1 + n)).min(ct.len()));
            xor_to(
                &mut row.output[b0..b1],
                &ct[b0..b1],
                &self.ks[pos..pos + (b1 - b0)],
            );
        }
    }
}

/// J0 of a 96-bit nonce (§7.1 step 2): nonce || 0^31 || 1.
fn j0(nonce: &[u8; NONCE_SIZE]) -> u128 {
    let mut j = [0u8; 16];
    j[..NONCE_SIZE].copy_from_slice(nonce);
    j[15] = 1;
    u128::from_be_bytes(j)
}

/// S = GHASH(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64) (§7.1 step 5): for a
/// short message in one call over the blocks laid out in `scratch`.
fn ghash(gcm: &Sm4Gcm, scratch: &mut [u8; SCRATCH], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    let (a, c) = (aad.len(), ct.len());
    let (ap, cp) = (a.div_ceil(16) * 16, c.div_ceil(16) * 16);
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&(a as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(c as u64 * 8).to_be_bytes());
    let mut y = [0u8; 16];
    if ap + cp + 16 <= SCRATCH {
        scratch[..a].copy_from_slice(aad);
        scratch[a..ap].fill(0);
        scratch[ap..ap + c].copy_from_slice(ct);
        scratch[ap + c..ap + cp].fill(0);
        scratch[ap + cp..ap + cp + 16].copy_from_slice(&lens);
        gcm.ghash.update_blocks(&mut y, &scratch[..ap + cp + 16]);
    } else {
        gcm.ghash.update_padded(&mut y, aad);
        gcm.ghash.update_padded(&mut y, ct);
        gcm.ghash.update_blocks(&mut y, &lens);
    }
    y
}

/// `dst = a ^ b` (equal lengths).
#[inline]
fn xor_to(dst: &mut [u8], a: &[u8], b: &[u8]) {
    let mut d = dst.chunks_exact_mut(16);
    let mut x = a.chunks_exact(16);
    let mut y = b.chunks_exact(16);
    for ((d, x), y) in (&mut d).zip(&mut x).zip(&mut y) {
        let v =
            u128::from_ne_bytes(x.try_into().unwrap()) ^ u128::from_ne_bytes(y.try_into().unwrap());
        d.copy_from_slice(&v.to_ne_bytes());
    }
    for ((d, x), y) in d
        .into_remainder()
        .iter_mut()
        .zip(x.remainder())
        .zip(y.remainder())
    {
        *d = x ^ y;
    }
}

impl Sm4Gcm {
    /// Encrypts every message of `rows`, each exactly as [`Sm4Gcm::encrypt_into`] with
    /// its 12-byte nonce would (byte for byte the same ciphertext and tag), but with the
    /// counter blocks of many messages (their J0 included) encrypted together by
    /// full-width SM4 calls and each message GHASHed in one call.
    ///
    /// Returns one result per message, in order: `Ok(())`, or
    /// [`Error::InvalidLength`] when the plaintext is over 2^36 − 32 bytes or the output
    /// is not `input.len() + 16` bytes (that message's output is left untouched; the
    /// others are processed). Work is linear in the total length of the messages.
    pub fn encrypt_many_into(&self, rows: &mut [GcmRow<'_>]) -> Vec<Result<()>> {
        let mut res: Vec<Result<()>> = vec![Ok(()); rows.len()];
        let mut batch = Batch::new(self, false);
        for r in 0..rows.len() {
            let row = &mut rows[r];
            let len = row.input.len();
            if len as u64 > MAX_PLAINTEXT {
                res[r] = Err(Error::InvalidLength {
                    what: "plaintext",
                    expected: "at most 2^36 - 32 bytes",
                    got: len,
                });
            } else if row.output.len() != len + TAG_SIZE {
                res[r] = Err(Error::InvalidLength {
                    what: "output buffer",
                    expected: "plaintext length + 16",
                    got: row.output.len(),
                });
            } else if len > ALONE_MAX {
                res[r] = self.encrypt_into(row.nonce, row.aad, row.input, row.output);
            } else {
                batch.add(rows, &mut res, r);
            }
        }
        batch.flush(rows, &mut res);
        res
    }

    /// Decrypts every message of `rows` (`input` = ciphertext || 16-byte tag), each as
    /// [`Sm4Gcm::decrypt_into`] with its 12-byte nonce and a 16-byte tag would, with the
    /// counter blocks of many messages encrypted together.
    ///
    /// Returns one result per message, in order: `Ok(())` (the plaintext is in `output`),
    /// [`Error::InvalidTag`] when the input is shorter than 16 bytes or its tag does not
    /// verify (compared in constant time at the full 16 bytes, before any of the
    /// message's plaintext is computed; its output is zero-filled), or
    /// [`Error::InvalidLength`] when the output is not `input.len() - 16` bytes (left
    /// untouched). One failing message does not affect the others.
    pub fn decrypt_many_into(&self, rows: &mut [GcmRow<'_>]) -> Vec<Result<()>> {
        let mut res: Vec<Result<()>> = vec![Ok(()); rows.len()];
        let mut batch = Batch::new(self, true);
        for r in 0..rows.len() {
            let row = &mut rows[r];
            let Some(len) = row.input.len().checked_sub(TAG_SIZE) else {
                row.output.fill(0);
                res[r] = Err(Error::InvalidTag);
                continue;
            };
            if row.output.len() != len {
                res[r] = Err(Error::InvalidLength {
                    what: "output buffer",
                    expected: "ciphertext length",
                    got: row.output.len(),
                });
            } else if len > ALONE_MAX {
                res[r] = self.decrypt_into(row.nonce, row.aad, row.input, TAG_SIZE, row.output);
            } else {
                batch.add(rows, &mut res, r);
            }
        }
        batch.flush(rows, &mut res);
        res
    }
}
