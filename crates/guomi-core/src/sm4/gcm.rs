//! SM4-GCM: Galois/Counter Mode (NIST SP 800-38D) with SM4 as the block cipher, as used by
//! RFC 8998 (TLS 1.3 TLS_SM4_GCM_SM3).
//!
//! * Nonce (IV): any length ≥ 1 byte; 12 bytes is the recommended, fast case (§8.2.1);
//!   other lengths are hashed into J0 with GHASH (§7.1 step 2).
//! * Tag: 16 bytes on encryption. Every verifier compares against a tag length the
//!   *caller* fixes: 16 bytes by default, or a truncated length of §5.2.1.2 (12..16, 8
//!   or 4 bytes) given explicitly ([`Sm4Gcm::decrypt_with_tag_len`],
//!   [`Sm4Gcm::decryptor_with_tag_len`]). The length is never taken from the tag being
//!   checked: a tag of another length is rejected with [`Error::InvalidTag`].
//! * Decryption verifies the tag (constant-time comparison) before any plaintext is
//!   returned; on failure the buffer is wiped and [`Error::InvalidTag`] is returned.
//!
//! Streaming: [`GcmEncryptor`] and [`GcmDecryptor`]. The decryptor buffers the ciphertext
//! and releases plaintext only from `finalize`, after the tag has verified (so no
//! unauthenticated plaintext ever escapes, at the cost of memory proportional to the
//! message); [`GcmDecryptor::new_unbuffered`] instead returns plaintext from each `update`
//! and verifies at `finalize`: the caller must then discard everything on `InvalidTag`.

use super::ghash::GhashKey;
use super::{Sm4, BLOCK_SIZE, KEY_SIZE};
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// Tag length produced by encryption.
pub const TAG_SIZE: usize = 16;
/// The recommended nonce length.
pub const NONCE_SIZE: usize = 12;
/// §5.2.1.1: plaintext ≤ 2^39 − 256 bits.
const MAX_PLAINTEXT: u64 = (1 << 36) - 32;

/// An SM4-GCM key (key schedule and GHASH key computed once).
#[derive(Clone)]
pub struct Sm4Gcm {
    cipher: Sm4,
    ghash: GhashKey,
}

impl core::fmt::Debug for Sm4Gcm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Gcm")
            .field("backend", &self.cipher.backend())
            .finish_non_exhaustive()
    }
}

/// Accepts the tag lengths this module supports (16, 15, 14, 13, 12, 8, 4 bytes).
///
/// # Errors
/// [`Error::InvalidLength`] for any other length.
pub fn check_tag_len(n: usize) -> Result<()> {
    if matches!(n, 4 | 8 | 12..=16) {
        Ok(())
    } else {
        Err(Error::InvalidLength {
            what: "tag",
            expected: "16 bytes (or 12..16, 8 or 4 for truncated tags)",
            got: n,
        })
    }
}

impl Sm4Gcm {
    /// A key for the active variant.
    pub fn new(key: &[u8; KEY_SIZE]) -> Sm4Gcm {
        Sm4Gcm::with_variant(key, cpu::active_variant())
    }

    /// A key for the best implementation at or below `backend` (clamped to what this CPU
    /// supports).
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Sm4Gcm {
        Sm4Gcm::with_variant(key, Variant::from(backend))
    }

    /// A key for `variant` (clamped to what this CPU supports).
    pub fn with_variant(key: &[u8; KEY_SIZE], variant: Variant) -> Sm4Gcm {
        let cipher = Sm4::with_variant(key, variant);
        // §6.4: H = CIPH_K(0^128).
        let mut h = [0u8; 16];
        cipher.encrypt_block(&mut h);
        let ghash = GhashKey::new(h, cipher.variant());
        h.zeroize();
        Sm4Gcm { cipher, ghash }
    }

    /// A key from a slice (16 bytes).
    pub fn from_slice(key: &[u8]) -> Result<Sm4Gcm> {
        let key: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Ok(Sm4Gcm::new(key))
    }

    /// A key from a slice (16 bytes) with an explicit backend.
    pub fn from_slice_with_backend(key: &[u8], backend: Backend) -> Result<Sm4Gcm> {
        let key: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Ok(Sm4Gcm::with_backend(key, backend))
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }

    /// The variant in use (chosen when the key was built).
    pub fn variant(&self) -> Variant {
        self.cipher.variant()
    }

    /// §7.1 step 2: the pre-counter block J0.
    fn j0(&self, nonce: &[u8]) -> Result<u128> {
        if nonce.is_empty() {
            return Err(Error::InvalidLength {
                what: "nonce",
                expected: "at least 1 byte (12 recommended)",
                got: 0,
            });
        }
        if nonce.len() == 12 {
            let mut j = [0u8; 16];
            j[..12].copy_from_slice(nonce);
            j[15] = 1;
            return Ok(u128::from_be_bytes(j));
        }
        // J0 = GHASH(IV || 0^(s+64) || [len(IV)]_64).
        let mut y = [0u8; 16];
        self.ghash.update_padded(&mut y, nonce);
        let mut len = [0u8; 16];
        len[8..].copy_from_slice(&((nonce.len() as u64) * 8).to_be_bytes());
        self.ghash.update_blocks(&mut y, &len);
        Ok(u128::from_be_bytes(y))
    }

    /// §6.5 GCTR with inc32 starting at `cb`, over `data` in place (any length).
    /// `secret_counter`: the counter came from a nonce that is not 96 bits (see
    /// [`gctr_secret`]).
    fn gctr(&self, cb: u128, data: &mut [u8], secret_counter: bool) {
        if secret_counter {
            gctr_secret(&self.cipher, cb, None, data);
        } else {
            gctr(&self.cipher, cb, data);
        }
    }

    fn tag(&self, j0: u128, aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let mut y = [0u8; 16];
        self.ghash.update_padded(&mut y, aad);
        self.ghash.update_padded(&mut y, ct);
        finish_tag(
            &self.cipher,
            &self.ghash,
            j0,
            y,
            aad.len() as u64,
            ct.len() as u64,
        )
    }

    /// Encrypts into `out` (`plaintext.len() + 16` bytes): ciphertext then tag.
    pub fn encrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if plaintext.len() as u64 > MAX_PLAINTEXT {
            return Err(Error::InvalidLength {
                what: "plaintext",
                expected: "at most 2^36 - 32 bytes",
                got: plaintext.len(),
            });
        }
        if out.len() != plaintext.len() + TAG_SIZE {
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "plaintext length + 16",
                got: out.len(),
            });
        }
        let j0 = self.j0(nonce)?;
        let secret_counter = nonce.len() != NONCE_SIZE;
        let (ct, tag) = out.split_at_mut(plaintext.len());
        let mut y = [0u8; 16];
        self.ghash.update_padded(&mut y, aad);
        // GCTR and GHASH a segment at a time, so GHASH reads ciphertext that is still in L1.
        let mut cb = inc32(j0);
        for (src, dst) in plaintext.chunks(SEGMENT).zip(ct.chunks_mut(SEGMENT)) {
            cb = gctr_any(&self.cipher, cb, src, dst, secret_counter);
            self.ghash.update_padded(&mut y, dst);
        }
        let t = finish_tag(
            &self.cipher,
            &self.ghash,
            j0,
            y,
            aad.len() as u64,
            ct.len() as u64,
        );
        tag.copy_from_slice(&t);
        Ok(())
    }

    /// Encrypts: returns ciphertext || 16-byte tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; plaintext.len() + TAG_SIZE];
        self.encrypt_into(nonce, aad, plaintext, &mut out)?;
        Ok(out)
    }

    /// Decrypts `data` = ciphertext || tag (`tag_len` bytes) in place; returns the plaintext
    /// length. On a bad tag the buffer is zeroized and `InvalidTag` returned.
    pub fn decrypt_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag_len: usize,
    ) -> Result<usize> {
        check_tag_len(tag_len)?;
        if data.len() < tag_len {
            return Err(Error::InvalidTag);
        }
        let j0 = self.j0(nonce)?;
        let n = data.len() - tag_len;
        let (ct, tag) = data.split_at_mut(n);
        let expected = self.tag(j0, aad, ct);
        // Declassified: tag matched or InvalidTag, public by definition (ct_eq).
        if !crate::ct::declassify_choice(expected[..tag_len].ct_eq(tag)) {
            data.zeroize();
            return Err(Error::InvalidTag);
        }
        self.gctr(inc32(j0), ct, nonce.len() != NONCE_SIZE);
        Ok(n)
    }

    /// Decrypts `data` = ciphertext || tag (`tag_len` bytes) into `out`
    /// (`data.len() - tag_len` bytes). The tag is checked first; on failure nothing is
    /// written and `InvalidTag` is returned.
    pub fn decrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &[u8],
        tag_len: usize,
        out: &mut [u8],
    ) -> Result<()> {
        check_tag_len(tag_len)?;
        if data.len() < tag_len {
            return Err(Error::InvalidTag);
        }
        let j0 = self.j0(nonce)?;
        let (ct, tag) = data.split_at(data.len() - tag_len);
        if out.len() != ct.len() {
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "ciphertext length",
                got: out.len(),
            });
        }
        let mut y = [0u8; 16];
        self.ghash.update_padded(&mut y, aad);
        // GHASH and GCTR a segment at a time into `out`, which the caller only sees if the
        // tag verifies (it is wiped otherwise).
        let mut cb = inc32(j0);
        let secret_counter = nonce.len() != NONCE_SIZE;
        for (src, dst) in ct.chunks(SEGMENT).zip(out.chunks_mut(SEGMENT)) {
            self.ghash.update_padded(&mut y, src);
            cb = gctr_any(&self.cipher, cb, src, dst, secret_counter);
        }
        let expected = finish_tag(
            &self.cipher,
            &self.ghash,
            j0,
            y,
            aad.len() as u64,
            ct.len() as u64,
        );
        // Declassified: tag matched or InvalidTag, public by definition (ct_eq).
        if !crate::ct::declassify_choice(expected[..tag_len].ct_eq(tag)) {
            out.zeroize();
            return Err(Error::InvalidTag);
        }
        Ok(())
    }

    /// Decrypts ciphertext || 16-byte tag; `InvalidTag` (and no plaintext) if it does not verify.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        self.decrypt_with_tag_len(nonce, aad, data, TAG_SIZE)
    }

    /// Like [`Sm4Gcm::decrypt`] with a truncated tag of `tag_len` bytes (16, 15, 14, 13, 12,
    /// 8 or 4; SP 800-38D §5.2.1.2 and Appendix C restrict the short ones).
    pub fn decrypt_with_tag_len(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>> {
        let mut out = data.to_vec();
        let n = self.decrypt_in_place(nonce, aad, &mut out, tag_len)?;
        out.truncate(n);
        Ok(out)
    }

    /// Starts a streaming encryption.
    pub fn encryptor(&self, nonce: &[u8], aad: &[u8]) -> Result<GcmEncryptor> {
        Ok(GcmEncryptor(Stream::new(self, nonce, aad, false)?))
    }

    /// Starts a streaming decryption that buffers and releases plaintext after verification,
    /// against a full 16-byte tag. `tag` may be empty here and given to
    /// [`GcmDecryptor::finalize_with_tag`] instead; a tag that is not 16 bytes long is
    /// rejected ([`Error::InvalidTag`]).
    pub fn decryptor(&self, nonce: &[u8], aad: &[u8], tag: &[u8]) -> Result<GcmDecryptor> {
        GcmDecryptor::with_options(self, nonce, aad, tag, TAG_SIZE, true)
    }

    /// Like [`Sm4Gcm::decryptor`] for tags truncated to `tag_len` bytes (16, 15, 14, 13,
    /// 12, 8 or 4: SP 800-38D §5.2.1.2), a length fixed here by the caller.
    pub fn decryptor_with_tag_len(
        &self,
        nonce: &[u8],
        aad: &[u8],
        tag: &[u8],
        tag_len: usize,
    ) -> Result<GcmDecryptor> {
        GcmDecryptor::with_options(self, nonce, aad, tag, tag_len, true)
    }
}

const LOW32: u128 = 0xffff_ffff;

/// Bytes per GCTR/GHASH segment in the one-shot paths (fits in L1 with room to spare).
const SEGMENT: usize = 16 * 1024;

/// inc32 (§6.2): the low 32 bits incremented mod 2^32.
fn inc32(x: u128) -> u128 {
    (x & !LOW32) | (x.wrapping_add(1) & LOW32)
}

/// GCTR (§6.5) with the 32-bit increment, on `data` in place; returns the counter block
/// after the data (a partial final block consumes one).
fn gctr(cipher: &Sm4, mut cb: u128, data: &mut [u8]) -> u128 {
    let whole = data.len() / BLOCK_SIZE * BLOCK_SIZE;
    let (body, tail) = data.split_at_mut(whole);
    let mut rest = body;
    while !rest.is_empty() {
        // Run the 128-bit counter only up to the point where the low 32 bits wrap.
        let low = (cb & LOW32) as u64;
        let until_wrap = ((1u64 << 32) - low) as usize;
        let n = (rest.len() / BLOCK_SIZE).min(until_wrap);
        let (now, later) = rest.split_at_mut(n * BLOCK_SIZE);
        let mut c = cb;
        cipher.ctr_xor(&mut c, now);
        cb = (cb & !LOW32) | ((low + n as u64) & 0xffff_ffff) as u128;
        rest = later;
    }
    if !tail.is_empty() {
        let mut ks = cb.to_be_bytes();
        cipher.encrypt_block(&mut ks);
        super::xor_in_place(tail, &ks);
        ks.zeroize();
        cb = inc32(cb);
    }
    cb
}

/// GCTR from `src` into `dst`, choosing the path by whether the counter is secret.
fn gctr_any(cipher: &Sm4, cb: u128, src: &[u8], dst: &mut [u8], secret_counter: bool) -> u128 {
    if secret_counter {
        gctr_secret(cipher, cb, Some(src), dst)
    } else {
        gctr_to(cipher, cb, src, dst)
    }
}

/// GCTR for a counter that is secret: with a nonce that is not 96 bits, J0 = GHASH_H(IV)
/// depends on the key, and [`gctr`]/[`gctr_to`] would split the data where the low 32
/// bits wrap (a loop bound and slice lengths that depend on J0; found by the valgrind
/// constant-time check, `sm4-gcm-long-nonce`). Here every counter block is built with
/// the branch-free inc32 and the blocks are encrypted as ECB (constant time on every
/// backend), so the work depends only on the data length. XORs the keystream into
/// `dst` (from `src` when given, else in place); returns the next counter block.
fn gctr_secret(cipher: &Sm4, mut cb: u128, src: Option<&[u8]>, dst: &mut [u8]) -> u128 {
    const CHUNK: usize = 32 * BLOCK_SIZE;
    let mut ks = [0u8; CHUNK];
    for (i, d) in dst.chunks_mut(CHUNK).enumerate() {
        let blocks = d.len().div_ceil(BLOCK_SIZE);
        for b in ks[..blocks * BLOCK_SIZE].chunks_exact_mut(BLOCK_SIZE) {
            b.copy_from_slice(&cb.to_be_bytes());
            cb = inc32(cb);
        }
        cipher.blocks(false, &mut ks[..blocks * BLOCK_SIZE]);
        match src {
            Some(s) => {
                for ((o, x), k) in d.iter_mut().zip(&s[i * CHUNK..]).zip(&ks) {
                    *o = x ^ k;
                }
            }
            None => {
                for (o, k) in d.iter_mut().zip(&ks) {
                    *o ^= k;
                }
            }
        }
    }
    ks.zeroize();
    cb
}

/// GCTR from `src` into `dst` (equal lengths); returns the next counter block.
fn gctr_to(cipher: &Sm4, mut cb: u128, src: &[u8], dst: &mut [u8]) -> u128 {
    let whole = src.len() / BLOCK_SIZE * BLOCK_SIZE;
    let (mut s, mut d) = (&src[..whole], &mut dst[..whole]);
    while !s.is_empty() {
        // Run the 128-bit counter only up to the point where the low 32 bits wrap.
        let low = (cb & LOW32) as u64;
        let until_wrap = ((1u64 << 32) - low) as usize;
        let n = (s.len() / BLOCK_SIZE).min(until_wrap) * BLOCK_SIZE;
        let (s_now, s_later) = s.split_at(n);
        let (d_now, d_later) = core::mem::take(&mut d).split_at_mut(n);
        let mut c = cb;
        cipher.ctr_xor_to(&mut c, s_now, d_now);
        cb = (cb & !LOW32) | ((low + (n / BLOCK_SIZE) as u64) & 0xffff_ffff) as u128;
        s = s_later;
        d = d_later;
    }
    if whole < src.len() {
        let mut ks = cb.to_be_bytes();
        cipher.encrypt_block(&mut ks);
        for ((o, i), k) in dst[whole..].iter_mut().zip(&src[whole..]).zip(ks) {
            *o = i ^ k;
        }
        ks.zeroize();
        cb = inc32(cb);
    }
    cb
}

/// §7.1 steps 5-6: S = GHASH(... || [len(A)]_64 || [len(C)]_64), T = MSB(GCTR(J0, S)).
fn finish_tag(
    cipher: &Sm4,
    ghash: &GhashKey,
    j0: u128,
    mut y: [u8; 16],
    aad_len: u64,
    ct_len: u64,
) -> [u8; 16] {
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&(aad_len * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(ct_len * 8).to_be_bytes());
    ghash.update_blocks(&mut y, &lens);
    let mut ek = j0.to_be_bytes();
    cipher.encrypt_block(&mut ek);
    super::xor_in_place(&mut y, &ek);
    ek.zeroize();
    y
}

/// Shared streaming state: counter, GHASH accumulator and partial blocks.
#[derive(Clone)]
struct Stream {
    cipher: Sm4,
    ghash: GhashKey,
    j0: u128,
    cb: u128,
    y: [u8; 16],
    aad_len: u64,
    ct_len: u64,
    /// Keystream of the current partial block and how much of it is used (16 = none).
    ks: [u8; 16],
    ks_pos: usize,
    /// Ciphertext bytes not yet absorbed by GHASH (less than one block).
    pending: [u8; 16],
    pending_len: usize,
    decrypt: bool,
    finalized: bool,
    /// An `update` failed: every later call fails too, so that `finalize` can never
    /// tag (or release) a message of which some bytes were not processed.
    poisoned: bool,
    /// The counter came from a nonce that is not 96 bits (see [`gctr_secret`]).
    secret_counter: bool,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.ks.zeroize();
        self.pending.zeroize();
        self.y.zeroize();
    }
}

impl Stream {
    fn new(key: &Sm4Gcm, nonce: &[u8], aad: &[u8], decrypt: bool) -> Result<Stream> {
        let j0 = key.j0(nonce)?;
        let mut y = [0u8; 16];
        key.ghash.update_padded(&mut y, aad);
        Ok(Stream {
            cipher: key.cipher.clone(),
            ghash: key.ghash.clone(),
            j0,
            cb: (j0 & !LOW32) | (j0.wrapping_add(1) & LOW32),
            y,
            aad_len: aad.len() as u64,
            ct_len: 0,
            ks: [0; 16],
            ks_pos: BLOCK_SIZE,
            pending: [0; 16],
            pending_len: 0,
            decrypt,
            finalized: false,
            poisoned: false,
            secret_counter: nonce.len() != NONCE_SIZE,
        })
    }

    fn absorb(&mut self, mut ct: &[u8]) {
        if self.pending_len > 0 {
            let take = (16 - self.pending_len).min(ct.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&ct[..take]);
            self.pending_len += take;
            ct = &ct[take..];
            if self.pending_len < 16 {
                return;
            }
            let p = self.pending;
            self.ghash.update_blocks(&mut self.y, &p);
            self.pending_len = 0;
        }
        let whole = ct.len() / 16 * 16;
        self.ghash.update_blocks(&mut self.y, &ct[..whole]);
        self.pending[..ct.len() - whole].copy_from_slice(&ct[whole..]);
        self.pending_len = ct.len() - whole;
    }

    fn inc(&mut self) {
        self.cb = (self.cb & !LOW32) | (self.cb.wrapping_add(1) & LOW32);
    }

    /// Applies the keystream to `d` in place.
    fn xor(&mut self, d: &mut [u8]) {
        let mut i = 0;
        while self.ks_pos < 16 && i < d.len() {
            d[i] ^= self.ks[self.ks_pos];
            self.ks_pos += 1;
            i += 1;
        }
        let whole = (d.len() - i) / 16 * 16;
        if whole > 0 {
            if self.secret_counter {
                self.cb = gctr_secret(&self.cipher, self.cb, None, &mut d[i..i + whole]);
            } else {
                gctr(&self.cipher, self.cb, &mut d[i..i + whole]);
                let low = ((self.cb & LOW32) as u64 + (whole / 16) as u64) & 0xffff_ffff;
                self.cb = (self.cb & !LOW32) | low as u128;
            }
            i += whole;
        }
        if i < d.len() {
            self.ks = self.cb.to_be_bytes();
            self.cipher.encrypt_block(&mut self.ks);
            self.inc();
            self.ks_pos = 0;
            while i < d.len() {
                d[i] ^= self.ks[self.ks_pos];
                self.ks_pos += 1;
                i += 1;
            }
        }
    }

    /// Whether the stream still takes data: not finalized, no failed update.
    fn usable(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::InvalidValue(
                "an earlier update of this SM4-GCM stream failed: it can no longer be used",
            ));
        }
        if self.finalized {
            return Err(Error::AlreadyFinalized);
        }
        Ok(())
    }

    /// Checks that `len` more bytes keep the message within §5.2.1.1 (at most
    /// 2^39 − 256 bits) without moving the counter; the total it would reach is the
    /// `got` of the error. A failure poisons the stream.
    fn room(&mut self, len: usize) -> Result<u64> {
        let total = self.ct_len.saturating_add(len as u64);
        if total > MAX_PLAINTEXT {
            self.poisoned = true;
            return Err(Error::InvalidLength {
                what: "message",
                expected: "at most 2^36 - 32 bytes in all",
                got: usize::try_from(total).unwrap_or(usize::MAX),
            });
        }
        Ok(total)
    }

    /// Counts `len` more bytes of text, checked by [`Stream::room`] first.
    fn count(&mut self, len: usize) -> Result<()> {
        self.ct_len = self.room(len)?;
        Ok(())
    }

    /// Processes `data` into `out` (same length).
    fn update_to(&mut self, data: &[u8], out: &mut [u8]) -> Result<()> {
        self.usable()?;
        if out.len() != data.len() {
            self.poisoned = true;
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "the input length",
                got: out.len(),
            });
        }
        self.count(data.len())?;
        out.copy_from_slice(data);
        if self.decrypt {
            self.absorb(data);
            self.xor(out);
        } else {
            self.xor(out);
            self.absorb(out);
        }
        Ok(())
    }

    fn update_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        self.usable()?;
        self.count(data.len())?;
        let start = out.len();
        out.extend_from_slice(data);
        if self.decrypt {
            self.absorb(data);
            self.xor(&mut out[start..]);
        } else {
            self.xor(&mut out[start..]);
            // GHASH the ciphertext just written.
            self.absorb(&out[start..]);
        }
        Ok(())
    }

    fn tag(&mut self) -> Result<[u8; 16]> {
        self.usable()?;
        self.finalized = true;
        let mut y = self.y;
        if self.pending_len > 0 {
            let mut last = [0u8; 16];
            last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            self.ghash.update_blocks(&mut y, &last);
        }
        Ok(finish_tag(
            &self.cipher,
            &self.ghash,
            self.j0,
            y,
            self.aad_len,
            self.ct_len,
        ))
    }
}

/// Streaming SM4-GCM encryption: `update` returns ciphertext, `finalize` the 16-byte tag.
///
/// A failed `update` (the message would pass 2^36 − 32 bytes, or a wrong output buffer)
/// poisons the stream, here and in [`GcmDecryptor`]: every later call fails with
/// [`Error::InvalidValue`], so no tag is ever computed over, and no plaintext released
/// for, a message with bytes that were not processed.
#[derive(Clone)]
pub struct GcmEncryptor(Stream);

impl GcmEncryptor {
    /// Encrypts the next piece of plaintext, appending ciphertext to `out`.
    pub fn update_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        self.0.update_into(data, out)
    }

    /// How many bytes the next `update` of `len` bytes returns (always `len`).
    pub fn update_len(&self, len: usize) -> usize {
        if self.0.finalized {
            0
        } else {
            len
        }
    }

    /// Encrypts the next piece of plaintext into `out` (same length as `data`).
    pub fn update_to(&mut self, data: &[u8], out: &mut [u8]) -> Result<()> {
        self.0.update_to(data, out)
    }

    /// Encrypts the next piece of plaintext.
    pub fn update(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(data.len());
        self.0.update_into(data, &mut out)?;
        Ok(out)
    }

    /// Ends the message; returns the 16-byte tag.
    pub fn finalize(&mut self) -> Result<[u8; 16]> {
        self.0.tag()
    }
}

/// Streaming SM4-GCM decryption; the tag is given up front or at `finalize`, and checked
/// at `finalize` against the tag length fixed at construction.
///
/// Buffered plaintext lives in a buffer that grows by copying into a new, larger
/// allocation and wiping the old one (never by a plain reallocation), and is wiped on
/// failure and on drop, so no stale copy of unauthenticated plaintext is left in freed
/// memory.
#[derive(Clone)]
pub struct GcmDecryptor {
    s: Stream,
    tag: Vec<u8>,
    /// The tag length the caller fixed (16 by default).
    tag_len: usize,
    /// `Some`: plaintext is held here until the tag verifies (the default, safe design).
    buffered: Option<Vec<u8>>,
}

impl GcmDecryptor {
    /// A decryptor that returns plaintext from every `update` before it is authenticated,
    /// against a full 16-byte tag. Only for callers that discard all output when
    /// `finalize` fails.
    pub fn new_unbuffered(
        key: &Sm4Gcm,
        nonce: &[u8],
        aad: &[u8],
        tag: &[u8],
    ) -> Result<GcmDecryptor> {
        GcmDecryptor::with_options(key, nonce, aad, tag, TAG_SIZE, false)
    }

    /// The general constructor: `tag` (empty: given to `finalize_with_tag` later), the
    /// caller-fixed `tag_len` (16, 12..15, 8 or 4; otherwise [`Error::InvalidLength`]) and
    /// whether plaintext is held until the tag verifies. A non-empty `tag` whose length is
    /// not `tag_len` is rejected at once with [`Error::InvalidTag`].
    pub fn with_options(
        key: &Sm4Gcm,
        nonce: &[u8],
        aad: &[u8],
        tag: &[u8],
        tag_len: usize,
        buffered: bool,
    ) -> Result<GcmDecryptor> {
        check_tag_len(tag_len)?;
        if !tag.is_empty() && tag.len() != tag_len {
            return Err(Error::InvalidTag);
        }
        Ok(GcmDecryptor {
            s: Stream::new(key, nonce, aad, true)?,
            tag: tag.to_vec(),
            tag_len,
            buffered: buffered.then(Vec::new),
        })
    }

    /// The tag length this decryptor checks, in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// Whether plaintext is held until `finalize` verifies the tag.
    pub fn is_buffered(&self) -> bool {
        self.buffered.is_some()
    }

    /// Decrypts the next piece of ciphertext. Buffered: appends nothing to `out`.
    pub fn update_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match self.buffered.as_mut() {
            Some(buf) => buffer_update(&mut self.s, data, buf),
            None => self.s.update_into(data, out),
        }
    }

    /// How many bytes the next `update` of `len` bytes returns (0 when buffered).
    pub fn update_len(&self, len: usize) -> usize {
        if self.buffered.is_some() {
            0
        } else {
            len
        }
    }

    /// Decrypts the next piece of ciphertext into `out` of [`Self::update_len`] bytes
    /// (buffered: `out` is empty and the plaintext is kept until `finalize`).
    pub fn update_to(&mut self, data: &[u8], out: &mut [u8]) -> Result<()> {
        match self.buffered.as_mut() {
            Some(buf) => {
                if !out.is_empty() {
                    return Err(Error::InvalidLength {
                        what: "output buffer",
                        expected: "0 bytes (buffered)",
                        got: out.len(),
                    });
                }
                buffer_update(&mut self.s, data, buf)
            }
            None => self.s.update_to(data, out),
        }
    }

    /// Decrypts the next piece of ciphertext (empty when buffered).
    pub fn update(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.update_into(data, &mut out)?;
        Ok(out)
    }

    /// Verifies the tag. Buffered: returns the whole plaintext; unbuffered: returns nothing.
    /// A wrong tag gives `InvalidTag` (buffered plaintext is wiped).
    pub fn finalize(&mut self) -> Result<Vec<u8>> {
        self.s.usable()?;
        if self.tag.is_empty() {
            return Err(Error::InvalidValue(
                "no tag: give it to the decryptor or to finalize",
            ));
        }
        let tag = core::mem::take(&mut self.tag);
        self.finalize_with_tag(&tag)
    }

    /// Like [`GcmDecryptor::finalize`], with the tag given now instead of at construction.
    /// The tag must be exactly the length fixed at construction ([`Self::tag_len`]);
    /// any other length is [`Error::InvalidTag`].
    pub fn finalize_with_tag(&mut self, tag: &[u8]) -> Result<Vec<u8>> {
        let mut t = self.s.tag()?;
        // Declassified: tag matched or InvalidTag, public by definition (ct_eq).
        let ok =
            tag.len() == self.tag_len && crate::ct::declassify_choice(t[..self.tag_len].ct_eq(tag));
        t.zeroize();
        let mut buf = self.buffered.take().unwrap_or_default();
        if !ok {
            buf.zeroize();
            return Err(Error::InvalidTag);
        }
        Ok(buf)
    }
}

/// Appends the decryption of `data` to the buffered plaintext without leaving copies in
/// freed memory: when `buf` must grow, the plaintext moves to a new allocation and the
/// old one is wiped before it is freed (a plain `Vec` reallocation would free it as is).
fn buffer_update(s: &mut Stream, data: &[u8], buf: &mut Vec<u8>) -> Result<()> {
    s.usable()?;
    // The message bound is checked before the buffer grows (a failure poisons).
    if let Err(e) = s.room(data.len()) {
        buf.zeroize();
        return Err(e);
    }
    // `buf` and `data` are both in memory (each at most isize::MAX bytes): no overflow.
    let need = buf.len() + data.len();
    if need > buf.capacity() {
        let cap = need.max(buf.capacity().saturating_mul(2));
        let mut grown = Vec::with_capacity(cap);
        grown.extend_from_slice(buf);
        buf.zeroize();
        *buf = grown;
    }
    let before = buf.capacity();
    let r = s.update_into(data, buf);
    debug_assert_eq!(buf.capacity(), before, "the buffer must not reallocate");
    if r.is_err() {
        // The stream is poisoned: nothing buffered can ever be released.
        buf.zeroize();
    }
    r
}

impl Drop for GcmDecryptor {
    fn drop(&mut self) {
        if let Some(b) = self.buffered.as_mut() {
            b.zeroize();
        }
    }
}

// Many short messages under one key: `Sm4Gcm::encrypt_many_into` / `decrypt_many_into`
// (96-bit nonces), byte for byte one call per message with the SM4 and GHASH work of the
// messages batched. A child module (declared down here so that the lines above keep their
// numbers, which the constant-time suppressions cite), sharing this one's private key
// parts and GCTR helpers.
#[path = "gcm_many.rs"]
mod many;
pub use many::GcmRow;

#[cfg(test)]
mod tests {
    use super::*;

    /// GCTR with inc32 across a wrap of the low 32 bits (possible when J0 comes from a
    /// nonce of another length than 12 bytes), on every backend, against a block model.
    #[test]
    fn gctr_wraps_the_low_word_only() {
        for b in cpu::available() {
            let c = Sm4::with_backend(&[0x42; 16], b);
            for start in [0xffff_fff0u32, 0xffff_ff80, 0xffff_f800, 0xffff_ffff] {
                let cb = (0x0102_0304_0506_0708_090a_0b0c_u128 << 32) | u128::from(start);
                let n = 16 * 300 + 7;
                let mut data = vec![0u8; n];
                let next = gctr(&c, cb, &mut data);
                let mut model = Vec::new();
                let mut ctr = cb;
                while model.len() < n {
                    let mut k = ctr.to_be_bytes();
                    c.encrypt_block(&mut k);
                    model.extend_from_slice(&k);
                    ctr = inc32(ctr);
                }
                model.truncate(n);
                assert_eq!(data, model, "{b:?} {start:#x}");
                assert_eq!(next, ctr, "{b:?} {start:#x}");
                let src = vec![0u8; n];
                let mut out = vec![0u8; n];
                gctr_to(&c, cb, &src, &mut out);
                assert_eq!(out, model, "{b:?} {start:#x} out of place");
                // The constant-time path for secret counters gives the same bytes.
                let mut out = vec![0u8; n];
                assert_eq!(gctr_secret(&c, cb, Some(&src), &mut out), ctr);
                assert_eq!(out, model, "{b:?} {start:#x} secret, out of place");
                let mut data = vec![0u8; n];
                assert_eq!(gctr_secret(&c, cb, None, &mut data), ctr);
                assert_eq!(data, model, "{b:?} {start:#x} secret, in place");
            }
        }
    }

    /// Objects built under `cpu::with_variant` keep that variant, after the override ends.
    #[test]
    fn objects_keep_the_variant_they_were_built_with() {
        for v in cpu::variants() {
            let (k, g, c, x) = cpu::with_variant(v, || {
                (
                    Sm4::new(&[1; 16]),
                    Sm4Gcm::new(&[1; 16]),
                    super::super::ccm::Sm4Ccm::new(&[1; 16], 16).unwrap(),
                    super::super::xts::Sm4Xts::new(
                        &[[1u8; 16], [2; 16]].concat(),
                        super::super::xts::Standard::Gb,
                    )
                    .unwrap(),
                )
            });
            assert_eq!(k.variant(), v);
            assert_eq!(g.variant(), v);
            assert_eq!(c.variant(), v);
            assert_eq!(x.variant(), v);
        }
    }

    /// A failed `update` poisons the stream (hardening review 8b): the length counter
    /// does not move past the bound, the error names the real total, and no later
    /// `update` or `finalize` can tag (or release) bytes that were never processed.
    #[test]
    fn failed_update_poisons_the_stream() {
        let g = Sm4Gcm::new(&[7; 16]);
        // Encryptor, both update paths: the message would pass 2^36 - 32 bytes.
        for to in [false, true] {
            let mut e = g.encryptor(&[1; 12], b"").unwrap();
            e.0.ct_len = MAX_PLAINTEXT - 1;
            let r = if to {
                e.update_to(b"ab", &mut [0u8; 2])
            } else {
                e.update_into(b"ab", &mut Vec::new())
            };
            match r {
                Err(Error::InvalidLength { what, got, .. }) => {
                    assert_eq!(what, "message");
                    assert_eq!(got as u64, MAX_PLAINTEXT + 1);
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(e.0.ct_len, MAX_PLAINTEXT - 1);
            assert!(matches!(e.finalize(), Err(Error::InvalidValue(_))));
            assert!(matches!(e.update(b""), Err(Error::InvalidValue(_))));
        }
        // A wrong output buffer also poisons: nothing was encrypted, so no tag.
        let mut e = g.encryptor(&[1; 12], b"").unwrap();
        assert!(matches!(
            e.update_to(b"abc", &mut [0u8; 2]),
            Err(Error::InvalidLength { got: 2, .. })
        ));
        assert!(matches!(e.finalize(), Err(Error::InvalidValue(_))));
        // Decryptors, buffered and not: finalize never verifies or returns plaintext.
        let ct = g.encrypt(&[1; 12], b"", b"").unwrap();
        for buffered in [true, false] {
            let mut d = GcmDecryptor::with_options(&g, &[1; 12], b"", &ct, 16, buffered).unwrap();
            d.s.ct_len = MAX_PLAINTEXT;
            assert!(matches!(
                d.update(b"x"),
                Err(Error::InvalidLength {
                    what: "message",
                    ..
                })
            ));
            d.s.ct_len = 0;
            assert!(matches!(d.finalize(), Err(Error::InvalidValue(_))));
        }
    }

    /// Objects built under `cpu::with_backend` keep that backend.
    #[test]
    fn objects_take_the_thread_backend() {
        for b in cpu::available() {
            cpu::with_backend(b, || {
                assert_eq!(Sm4::new(&[1; 16]).backend(), b);
                assert_eq!(Sm4Gcm::new(&[1; 16]).backend(), b);
                let g = Sm4Gcm::new(&[1; 16]);
                let ct = g.encrypt(&[2; 12], b"a", b"hello").unwrap();
                assert_eq!(g.decrypt(&[2; 12], b"a", &ct).unwrap(), b"hello");
            });
        }
    }
}
