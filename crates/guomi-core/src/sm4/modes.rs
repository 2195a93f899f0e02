//! Confidentiality modes of SM4 (GB/T 17964-2021 / NIST SP 800-38A): ECB, CBC, CTR,
//! CFB (CFB128) and OFB, with padding for the block modes.
//!
//! * One-shot: [`encrypt`], [`decrypt`], [`encrypt_into`] (writes into a caller buffer of
//!   [`encrypted_len`] bytes). One-shot decryption is all-or-nothing: bad padding returns
//!   [`Error::InvalidPadding`] and no plaintext.
//! * Streaming: [`Encryptor`] / [`Decryptor`] (`update` any number of times, then
//!   `finalize`), in constant memory. A streaming decryptor with padding holds back the
//!   last block until `finalize`, where the padding is checked.
//!
//! CTR uses the whole 16-byte IV as a 128-bit big-endian counter (wrapping mod 2^128).
//! CFB is CFB128 (full-block feedback); a final partial block uses the first bytes of the
//! keystream, as OpenSSL does. The stream modes (CTR, CFB, OFB) take no padding.

use super::{iv16, xor_in_place, Serial, Sm4, BLOCK_SIZE, CHUNK};
use crate::error::{Error, Result};
use subtle::{ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

/// A confidentiality mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Electronic codebook (each block on its own; leaks equal blocks).
    Ecb,
    /// Cipher block chaining.
    Cbc,
    /// Counter mode with a 128-bit big-endian counter.
    Ctr,
    /// Cipher feedback, 128-bit segments.
    Cfb,
    /// Output feedback.
    Ofb,
}

impl Mode {
    /// Parses "ecb", "cbc", "ctr", "cfb" (or "cfb128") or "ofb" (any case).
    pub fn parse(name: &str) -> Result<Mode> {
        match name.to_ascii_lowercase().as_str() {
            "ecb" => Ok(Mode::Ecb),
            "cbc" => Ok(Mode::Cbc),
            "ctr" => Ok(Mode::Ctr),
            "cfb" | "cfb128" => Ok(Mode::Cfb),
            "ofb" => Ok(Mode::Ofb),
            _ => Err(Error::InvalidValue(
                "unknown mode: expected ecb, cbc, ctr, cfb or ofb",
            )),
        }
    }

    /// Whether the mode works on whole blocks (and so takes padding).
    pub fn is_block_mode(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }

    /// The padding used when none is given: PKCS #7 for ECB/CBC, none otherwise.
    pub fn default_padding(self) -> Padding {
        if self.is_block_mode() {
            Padding::Pkcs7
        } else {
            Padding::None
        }
    }
}

/// Block-cipher padding (ECB and CBC only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// PKCS #7 (RFC 5652 §6.3): n bytes of value n, 1 ≤ n ≤ 16; always added.
    Pkcs7,
    /// No padding: the data must be a whole number of blocks.
    None,
    /// ISO/IEC 7816-4: 0x80 then zero bytes; always added.
    Iso7816,
    /// Zero bytes up to the block boundary (none when already aligned); decryption strips
    /// every trailing zero byte of the last block, so data ending in 0x00 does not round-trip.
    Zero,
}

impl Padding {
    /// Parses "pkcs7", "none", "iso7816" or "zero" (any case).
    pub fn parse(name: &str) -> Result<Padding> {
        match name.to_ascii_lowercase().as_str() {
            "pkcs7" => Ok(Padding::Pkcs7),
            "none" => Ok(Padding::None),
            "iso7816" => Ok(Padding::Iso7816),
            "zero" => Ok(Padding::Zero),
            _ => Err(Error::InvalidValue(
                "unknown padding: expected pkcs7, none, iso7816 or zero",
            )),
        }
    }
}

fn check_params(
    mode: Mode,
    iv: Option<&[u8]>,
    padding: Option<Padding>,
) -> Result<([u8; 16], Padding)> {
    let padding = padding.unwrap_or(mode.default_padding());
    if !mode.is_block_mode() && padding != Padding::None {
        return Err(Error::InvalidValue(
            "padding applies only to ecb and cbc; stream modes take padding=\"none\"",
        ));
    }
    let iv = match (mode, iv) {
        (Mode::Ecb, None) => [0u8; 16],
        (Mode::Ecb, Some(_)) => return Err(Error::InvalidValue("ecb takes no iv")),
        (_, None) => return Err(Error::InvalidValue("this mode requires a 16-byte iv")),
        (_, Some(iv)) => iv16(iv)?,
    };
    Ok((iv, padding))
}

/// Length of the ciphertext of `len` bytes of plaintext.
pub fn encrypted_len(mode: Mode, padding: Option<Padding>, len: usize) -> Result<usize> {
    let padding = padding.unwrap_or(mode.default_padding());
    if !mode.is_block_mode() {
        return Ok(len);
    }
    let rem = len % BLOCK_SIZE;
    match padding {
        Padding::Pkcs7 | Padding::Iso7816 => Ok(len - rem + BLOCK_SIZE),
        Padding::Zero => Ok(if rem == 0 {
            len
        } else {
            len - rem + BLOCK_SIZE
        }),
        Padding::None if rem == 0 => Ok(len),
        Padding::None => Err(whole_blocks(len)),
    }
}

fn whole_blocks(got: usize) -> Error {
    Error::InvalidLength {
        what: "data",
        expected: "a multiple of 16 bytes (or use padding)",
        got,
    }
}

/// Writes the padding of a message whose last partial block has `rem` bytes into `tail`
/// (the bytes after the message up to the block boundary).
fn pad(padding: Padding, tail: &mut [u8]) {
    match padding {
        Padding::Pkcs7 => tail.fill(tail.len() as u8),
        Padding::Iso7816 => {
            tail.fill(0);
            tail[0] = 0x80;
        }
        Padding::Zero | Padding::None => tail.fill(0),
    }
}

/// Length of the unpadded message inside the final block `last` (constant time in the
/// block's contents); `Err(InvalidPadding)` when malformed.
fn unpad_len(padding: Padding, last: &[u8; 16]) -> Result<usize> {
    match padding {
        Padding::None => Ok(16),
        Padding::Pkcs7 => {
            let n = last[15];
            // valid iff 1 <= n <= 16 and the last n bytes all equal n.
            let mut ok = !n.ct_eq(&0) & n.ct_lt(&17);
            for (i, &b) in last.iter().enumerate() {
                let in_pad = (15 - i as u8).ct_lt(&n);
                ok &= !in_pad | b.ct_eq(&n);
            }
            // Declassified: padding valid or not. The one-shot API returns Ok(len) or
            // InvalidPadding, so the outcome and the plaintext length are public; the scan
            // above is constant time.
            if crate::ct::declassify_choice(ok) {
                Ok(16 - n as usize)
            } else {
                Err(Error::InvalidPadding)
            }
        }
        Padding::Iso7816 => {
            // Scan from the end: zero bytes, then exactly one 0x80.
            let mut found = subtle::Choice::from(0);
            let mut bad = subtle::Choice::from(0);
            let mut pos = 0u8;
            for i in (0..16).rev() {
                let b = last[i];
                let is80 = b.ct_eq(&0x80);
                let is0 = b.ct_eq(&0);
                // before the marker every byte must be zero
                bad |= !found & !is0 & !is80;
                let take = !found & is80;
                pos.conditional_assign(&(i as u8), take);
                found |= take;
            }
            // Declassified: padding valid or not, and the length (returned, as for PKCS #7).
            if crate::ct::declassify_choice(found & !bad) {
                Ok(pos as usize)
            } else {
                Err(Error::InvalidPadding)
            }
        }
        Padding::Zero => {
            let mut len = 0u8;
            let mut seen = subtle::Choice::from(0);
            for i in (0..16).rev() {
                let nz = !last[i].ct_eq(&0);
                let take = !seen & nz;
                len.conditional_assign(&(i as u8 + 1), take);
                seen |= nz;
            }
            Ok(len as usize)
        }
    }
}

/// The chaining state of one encryption or decryption.
#[derive(Clone)]
struct State {
    cipher: Sm4,
    mode: Mode,
    decrypt: bool,
    /// CBC: previous ciphertext block; CFB: feedback block being built; OFB: last output.
    reg: [u8; 16],
    /// CTR/CFB: current keystream block (OFB uses `reg`).
    ks: [u8; 16],
    /// Keystream bytes used in the current block (16 = none left).
    pos: usize,
    ctr: u128,
}

impl Drop for State {
    fn drop(&mut self) {
        self.reg.zeroize();
        self.ks.zeroize();
        self.ctr = 0;
    }
}

impl State {
    fn new(cipher: &Sm4, mode: Mode, decrypt: bool, iv: [u8; 16]) -> State {
        State {
            cipher: cipher.clone(),
            mode,
            decrypt,
            reg: iv,
            ks: [0; 16],
            pos: BLOCK_SIZE,
            ctr: u128::from_be_bytes(iv),
        }
    }

    /// ECB/CBC on whole blocks in place.
    fn blocks(&mut self, d: &mut [u8]) {
        debug_assert!(d.len().is_multiple_of(BLOCK_SIZE));
        match (self.mode, self.decrypt) {
            (Mode::Ecb, dec) => self.cipher.blocks(dec, d),
            // C_i = E(P_i ^ C_{i-1}): serial, single-block path.
            (Mode::Cbc, false) => self.cipher.serial(Serial::CbcEncrypt, &mut self.reg, d),
            (Mode::Cbc, true) => {
                // P_i = D(C_i) ^ C_{i-1}: all D(C_i) in parallel, a chunk at a time.
                let done = self.cipher.cbc_decrypt_fused(&mut self.reg, d);
                let d = &mut d[done..];
                let mut saved = [0u8; CHUNK];
                for chunk in d.chunks_mut(CHUNK) {
                    let n = chunk.len();
                    saved[..n].copy_from_slice(chunk);
                    self.cipher.blocks(true, chunk);
                    xor_in_place(&mut chunk[..16], &self.reg);
                    xor_in_place(&mut chunk[16..], &saved[..n - 16]);
                    self.reg.copy_from_slice(&saved[n - 16..n]);
                }
                saved.zeroize();
            }
            _ => unreachable!("stream modes do not use blocks()"),
        }
    }

    /// CTR/CFB/OFB on any number of bytes in place.
    fn stream(&mut self, d: &mut [u8]) {
        let mut i = 0;
        // Finish a partial keystream block.
        while self.pos < BLOCK_SIZE && i < d.len() {
            self.byte(&mut d[i]);
            i += 1;
        }
        let whole = (d.len() - i) / BLOCK_SIZE * BLOCK_SIZE;
        if whole > 0 {
            let body = &mut d[i..i + whole];
            match (self.mode, self.decrypt) {
                (Mode::Ctr, _) => self.cipher.ctr_xor(&mut self.ctr, body),
                (Mode::Ofb, _) => self.cipher.serial(Serial::Ofb, &mut self.reg, body),
                (Mode::Cfb, false) => self.cipher.serial(Serial::CfbEncrypt, &mut self.reg, body),
                (Mode::Cfb, true) => {
                    // P_i = C_i ^ E(C_{i-1}): keystream of a chunk in one batch.
                    let done = self.cipher.cfb_decrypt_fused(&mut self.reg, body);
                    let body = &mut body[done..];
                    let mut ks = [0u8; CHUNK];
                    for chunk in body.chunks_mut(CHUNK) {
                        let n = chunk.len();
                        ks[..16].copy_from_slice(&self.reg);
                        ks[16..n].copy_from_slice(&chunk[..n - 16]);
                        self.reg.copy_from_slice(&chunk[n - 16..]);
                        self.cipher.blocks(false, &mut ks[..n]);
                        xor_in_place(chunk, &ks[..n]);
                    }
                    ks.zeroize();
                }
                _ => unreachable!("block modes do not use stream()"),
            }
            i += whole;
        }
        while i < d.len() {
            self.byte(&mut d[i]);
            i += 1;
        }
    }

    /// One byte of a stream mode (refreshing the keystream block when needed).
    #[inline]
    fn byte(&mut self, x: &mut u8) {
        if self.pos == BLOCK_SIZE {
            match self.mode {
                Mode::Ctr => {
                    self.ks = self.ctr.to_be_bytes();
                    self.ctr = self.ctr.wrapping_add(1);
                    self.cipher.block(false, &mut self.ks);
                }
                Mode::Ofb => self.cipher.block(false, &mut self.reg),
                Mode::Cfb => {
                    self.ks = self.reg;
                    self.cipher.block(false, &mut self.ks);
                }
                _ => unreachable!(),
            }
            self.pos = 0;
        }
        let p = self.pos;
        match self.mode {
            Mode::Ofb => *x ^= self.reg[p],
            Mode::Ctr => *x ^= self.ks[p],
            Mode::Cfb => {
                let c = if self.decrypt { *x } else { *x ^ self.ks[p] };
                *x ^= self.ks[p];
                // The feedback register fills with ciphertext as the block is consumed.
                self.reg[p] = c;
            }
            _ => unreachable!(),
        }
        self.pos += 1;
    }
}

/// One-shot encryption into `out` (`out.len()` must be [`encrypted_len`]).
pub fn encrypt_into(
    cipher: &Sm4,
    mode: Mode,
    iv: Option<&[u8]>,
    padding: Option<Padding>,
    data: &[u8],
    out: &mut [u8],
) -> Result<()> {
    let (iv, padding) = check_params(mode, iv, padding)?;
    let n = encrypted_len(mode, Some(padding), data.len())?;
    if out.len() != n {
        return Err(Error::InvalidLength {
            what: "output buffer",
            expected: "encrypted_len() bytes",
            got: out.len(),
        });
    }
    let mut st = State::new(cipher, mode, false, iv);
    // Whole blocks of ECB and CTR go straight from `data` to `out` (no extra copy pass).
    let whole = data.len() / BLOCK_SIZE * BLOCK_SIZE;
    match mode {
        Mode::Ecb => cipher.blocks_to(false, &data[..whole], &mut out[..whole]),
        Mode::Ctr => cipher.ctr_xor_to(&mut st.ctr, &data[..whole], &mut out[..whole]),
        _ => out[..whole].copy_from_slice(&data[..whole]),
    }
    let done = if matches!(mode, Mode::Ecb | Mode::Ctr) {
        whole
    } else {
        0
    };
    out[whole..data.len()].copy_from_slice(&data[whole..]);
    if mode.is_block_mode() {
        pad(padding, &mut out[data.len()..]);
        st.blocks(&mut out[done..]);
    } else {
        st.stream(&mut out[done..]);
    }
    Ok(())
}

/// One-shot decryption without padding (or any stream mode) from `data` into `out` of the
/// same length.
pub fn decrypt_into_unpadded(
    cipher: &Sm4,
    mode: Mode,
    iv: Option<&[u8]>,
    data: &[u8],
    out: &mut [u8],
) -> Result<()> {
    let (iv, padding) = check_params(mode, iv, Some(Padding::None))?;
    debug_assert_eq!(padding, Padding::None);
    if out.len() != data.len() {
        return Err(Error::InvalidLength {
            what: "output buffer",
            expected: "the input length",
            got: out.len(),
        });
    }
    if mode.is_block_mode() && !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(Error::InvalidLength {
            what: "ciphertext",
            expected: "a multiple of 16 bytes",
            got: data.len(),
        });
    }
    let mut st = State::new(cipher, mode, true, iv);
    let whole = data.len() / BLOCK_SIZE * BLOCK_SIZE;
    match mode {
        Mode::Ecb => cipher.blocks_to(true, data, out),
        Mode::Ctr => {
            cipher.ctr_xor_to(&mut st.ctr, &data[..whole], &mut out[..whole]);
            out[whole..].copy_from_slice(&data[whole..]);
            st.stream(&mut out[whole..]);
        }
        _ => {
            out.copy_from_slice(data);
            if mode.is_block_mode() {
                st.blocks(out);
            } else {
                st.stream(out);
            }
        }
    }
    Ok(())
}

/// One-shot encryption. `padding = None` means the mode's default.
pub fn encrypt(
    cipher: &Sm4,
    mode: Mode,
    iv: Option<&[u8]>,
    padding: Option<Padding>,
    data: &[u8],
) -> Result<Vec<u8>> {
    let mut out = vec![0u8; encrypted_len(mode, padding, data.len())?];
    encrypt_into(cipher, mode, iv, padding, data, &mut out)?;
    Ok(out)
}

/// One-shot decryption in place: returns the plaintext length (a prefix of `data`).
/// On error the buffer is zeroized.
pub fn decrypt_in_place(
    cipher: &Sm4,
    mode: Mode,
    iv: Option<&[u8]>,
    padding: Option<Padding>,
    data: &mut [u8],
) -> Result<usize> {
    let (iv, padding) = check_params(mode, iv, padding)?;
    let mut st = State::new(cipher, mode, true, iv);
    if !mode.is_block_mode() {
        st.stream(data);
        return Ok(data.len());
    }
    if !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(Error::InvalidLength {
            what: "ciphertext",
            expected: "a multiple of 16 bytes",
            got: data.len(),
        });
    }
    if data.is_empty() {
        return match padding {
            Padding::None | Padding::Zero => Ok(0),
            _ => Err(Error::InvalidPadding),
        };
    }
    st.blocks(data);
    let n = data.len();
    let last: [u8; 16] = data[n - 16..].try_into().unwrap();
    match unpad_len(padding, &last) {
        Ok(k) => Ok(n - 16 + k),
        Err(e) => {
            data.zeroize();
            Err(e)
        }
    }
}

/// One-shot decryption. Bad padding: `Err(InvalidPadding)` and no plaintext.
pub fn decrypt(
    cipher: &Sm4,
    mode: Mode,
    iv: Option<&[u8]>,
    padding: Option<Padding>,
    data: &[u8],
) -> Result<Vec<u8>> {
    let mut out = data.to_vec();
    let n = decrypt_in_place(cipher, mode, iv, padding, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Streaming encryption or decryption (shared by [`Encryptor`] and [`Decryptor`]).
#[derive(Clone)]
struct Streamer {
    st: State,
    padding: Padding,
    /// ECB/CBC: bytes waiting for a whole block.
    buf: [u8; 16],
    buf_len: usize,
    total: usize,
    finalized: bool,
}

impl Drop for Streamer {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

impl Streamer {
    fn new(
        cipher: &Sm4,
        mode: Mode,
        decrypt: bool,
        iv: Option<&[u8]>,
        padding: Option<Padding>,
    ) -> Result<Self> {
        let (iv, padding) = check_params(mode, iv, padding)?;
        Ok(Streamer {
            st: State::new(cipher, mode, decrypt, iv),
            padding,
            buf: [0; 16],
            buf_len: 0,
            total: 0,
            finalized: false,
        })
    }

    /// Exactly how many bytes `update` of `len` bytes produces now.
    fn update_len(&self, len: usize) -> usize {
        if self.finalized {
            return 0;
        }
        if !self.st.mode.is_block_mode() {
            return len;
        }
        let total = self.buf_len + len;
        let mut blocks = total / BLOCK_SIZE;
        // A decryptor that unpads keeps the last whole block back for finalize().
        if self.st.decrypt
            && self.padding != Padding::None
            && total.is_multiple_of(BLOCK_SIZE)
            && blocks > 0
        {
            blocks -= 1;
        }
        blocks * BLOCK_SIZE
    }

    /// Processes `data` into `out`, which must be exactly `update_len(data.len())` bytes.
    fn update_to(&mut self, data: &[u8], out: &mut [u8]) -> Result<()> {
        if self.finalized {
            return Err(Error::AlreadyFinalized);
        }
        let n = self.update_len(data.len());
        if out.len() != n {
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "update_len() bytes",
                got: out.len(),
            });
        }
        self.total += data.len();
        if !self.st.mode.is_block_mode() {
            out.copy_from_slice(data);
            self.st.stream(out);
            return Ok(());
        }
        if n == 0 {
            let total = self.buf_len + data.len();
            self.buf[self.buf_len..total].copy_from_slice(data);
            self.buf_len = total;
            return Ok(());
        }
        let from_data = n - self.buf_len;
        out[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
        out[self.buf_len..].copy_from_slice(&data[..from_data]);
        let rest = &data[from_data..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
        self.st.blocks(out);
        Ok(())
    }

    fn update_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.resize(start + self.update_len(data.len()), 0);
        let r = self.update_to(data, &mut out[start..]);
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    fn finalize_into(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if self.finalized {
            return Err(Error::AlreadyFinalized);
        }
        self.finalized = true;
        if !self.st.mode.is_block_mode() {
            return Ok(());
        }
        let n = self.buf_len;
        if !self.st.decrypt {
            match self.padding {
                Padding::None if n != 0 => return Err(whole_blocks(self.total)),
                Padding::None => return Ok(()),
                Padding::Zero if n == 0 => return Ok(()),
                _ => {}
            }
            let mut block = self.buf;
            pad(self.padding, &mut block[n..]);
            self.st.blocks(&mut block);
            out.extend_from_slice(&block);
            return Ok(());
        }
        match (self.padding, n) {
            (_, 0) if matches!(self.padding, Padding::None | Padding::Zero) => Ok(()),
            (Padding::None, _) => Err(Error::InvalidLength {
                what: "ciphertext",
                expected: "a multiple of 16 bytes",
                got: self.total,
            }),
            (_, 16) => {
                let mut block = self.buf;
                self.st.blocks(&mut block);
                let k = unpad_len(self.padding, &block);
                let r = k.map(|k| out.extend_from_slice(&block[..k]));
                block.zeroize();
                r
            }
            (_, 0) => Err(Error::InvalidPadding),
            _ => Err(Error::InvalidLength {
                what: "ciphertext",
                expected: "a multiple of 16 bytes",
                got: self.total,
            }),
        }
    }
}

macro_rules! streaming_type {
    ($name:ident, $decrypt:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone)]
        pub struct $name(Streamer);

        impl $name {
            /// Starts; `padding = None` means the mode's default.
            pub fn new(
                cipher: &Sm4,
                mode: Mode,
                iv: Option<&[u8]>,
                padding: Option<Padding>,
            ) -> Result<Self> {
                Streamer::new(cipher, mode, $decrypt, iv, padding).map($name)
            }

            /// Processes `data`, appending the output that is ready to `out`.
            pub fn update_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
                self.0.update_into(data, out)
            }

            /// Exactly how many bytes the next `update` of `len` bytes returns.
            pub fn update_len(&self, len: usize) -> usize {
                self.0.update_len(len)
            }

            /// Processes `data` into `out` of exactly [`Self::update_len`] bytes.
            pub fn update_to(&mut self, data: &[u8], out: &mut [u8]) -> Result<()> {
                self.0.update_to(data, out)
            }

            /// Processes `data` and returns the output that is ready.
            pub fn update(&mut self, data: &[u8]) -> Result<Vec<u8>> {
                let mut out = Vec::with_capacity(data.len() + BLOCK_SIZE);
                self.0.update_into(data, &mut out)?;
                Ok(out)
            }

            /// Ends the message and returns the last output; later calls fail with
            /// [`Error::AlreadyFinalized`].
            pub fn finalize(&mut self) -> Result<Vec<u8>> {
                let mut out = Vec::new();
                self.0.finalize_into(&mut out)?;
                Ok(out)
            }

            /// Upper bound of the bytes the next `update` of `len` bytes may return.
            pub fn max_update_len(&self, len: usize) -> usize {
                len + BLOCK_SIZE
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("mode", &self.0.st.mode)
                    .finish_non_exhaustive()
            }
        }
    };
}

streaming_type!(
    Encryptor,
    false,
    "Streaming SM4 encryption in any [`Mode`]."
);
streaming_type!(
    Decryptor,
    true,
    "Streaming SM4 decryption in any [`Mode`]. With padding, the last block is held back and \
     checked at `finalize` (earlier output has already been released)."
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpad_cases() {
        let mut b = [7u8; 16];
        b[15] = 1;
        assert_eq!(unpad_len(Padding::Pkcs7, &b), Ok(15));
        assert_eq!(unpad_len(Padding::Pkcs7, &[16u8; 16]), Ok(0));
        assert_eq!(
            unpad_len(Padding::Pkcs7, &[17u8; 16]),
            Err(Error::InvalidPadding)
        );
        assert_eq!(
            unpad_len(Padding::Pkcs7, &[0u8; 16]),
            Err(Error::InvalidPadding)
        );
        b[14] = 3;
        b[15] = 2;
        assert_eq!(unpad_len(Padding::Pkcs7, &b), Err(Error::InvalidPadding));
        let mut c = [0u8; 16];
        c[3] = 0x80;
        c[2] = 0x80;
        assert_eq!(unpad_len(Padding::Iso7816, &c), Ok(3));
        c[9] = 1;
        assert_eq!(unpad_len(Padding::Iso7816, &c), Err(Error::InvalidPadding));
        assert_eq!(
            unpad_len(Padding::Iso7816, &[0u8; 16]),
            Err(Error::InvalidPadding)
        );
        let mut z = [0u8; 16];
        assert_eq!(unpad_len(Padding::Zero, &z), Ok(0));
        z[4] = 9;
        assert_eq!(unpad_len(Padding::Zero, &z), Ok(5));
    }
}
