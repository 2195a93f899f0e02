//! SM3 cryptographic hash (GB/T 32905-2016, GM/T 0004-2012).
//!
//! * [`Sm3`]: the streaming hasher; [`hash`] the one-shot form.
//! * [`hash_many`](many::hash_many): many independent messages at once (4/8/16 SIMD lanes).
//! * [`hmac`], [`kdf`]: HMAC-SM3 (RFC 2104), the GM/T 0003 KDF, PBKDF2-HMAC-SM3, HKDF-SM3.
//!
//! Backends: `soft` (portable), `x86_avx2` (single stream: assembly with the rounds in
//! general-purpose registers and the message expansion in xmm registers, AVX2 or, on the
//! `avx512` backend, AVX-512VL; plus 8-lane AVX2 multi-buffer), `x86_avx512` (16-lane
//! multi-buffer), `aarch64_sm3` (the SM3 instructions), `aarch64_neon` (4-lane NEON
//! multi-buffer), `riscv_zk`, `riscv_zvk` (Zksh, Zvksh). A hasher holds its single-stream
//! kernel with the CPU-proof token of its instructions (`native::Compress`); the
//! multi-buffer kernels take theirs from `many`'s dispatch. None of them uses
//! data-dependent branches or table lookups.

#[cfg(target_arch = "aarch64")]
mod aarch64_neon;
#[cfg(target_arch = "aarch64")]
mod aarch64_sm3;
pub mod hmac;
pub mod kdf;
pub mod many;
mod native;
#[cfg(target_arch = "riscv64")]
mod riscv_zk;
#[cfg(target_arch = "riscv64")]
mod riscv_zvk;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;
#[cfg(all(target_arch = "x86_64", feature = "kat-hooks"))]
#[doc(hidden)]
pub use x86_avx2::use_old_compress_for_testing;

use crate::cpu::{self, Backend};
use native::Compress;
use zeroize::Zeroize;

/// Digest size in bytes.
pub const DIGEST_SIZE: usize = 32;
/// Block size in bytes.
pub const BLOCK_SIZE: usize = 64;

/// §4.1 initial value IV.
pub(crate) const IV: [u32; 8] = [
    0x7380_166f,
    0x4914_b2b9,
    0x1724_42d7,
    0xda8a_0600,
    0xa96f_30bc,
    0x1631_38aa,
    0xe38d_ee4d,
    0xb0fb_0e4e,
];

/// §4.2 constants Tj, pre-rotated: `T_ROTATED[j] = Tj <<< (j mod 32)`.
pub(crate) const T_ROTATED: [u32; 64] = {
    let mut t = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        let tj: u32 = if j < 16 { 0x79cc_4519 } else { 0x7a87_9d8a };
        t[j] = tj.rotate_left((j % 32) as u32);
        j += 1;
    }
    t
};

/// The compression kernel for `backend`, clamped to what this CPU supports (so a
/// caller-chosen backend never runs instructions the CPU lacks), with its CPU-proof token.
fn compress_for(backend: Backend) -> Compress {
    let (compress, _backend) = Compress::for_backend(backend);
    #[cfg(test)]
    tests::COMPRESS_CHOSEN.with(|c| c.borrow_mut().push(_backend));
    compress
}

/// Streaming SM3 hasher. Cloning copies the state (hashlib's `copy()`).
#[derive(Clone)]
pub struct Sm3 {
    state: [u32; 8],
    buf: [u8; BLOCK_SIZE],
    buf_len: usize,
    /// Total message length in bytes.
    len: u64,
    compress: Compress,
}

impl Default for Sm3 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Sm3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm3").finish_non_exhaustive()
    }
}

impl Sm3 {
    /// A fresh hasher using the active backend.
    pub fn new() -> Self {
        Self::with_backend(cpu::active())
    }

    /// A fresh hasher using the best implementation at or below `backend`, clamped to
    /// what this CPU supports.
    pub fn with_backend(backend: Backend) -> Self {
        Sm3 {
            state: IV,
            buf: [0; BLOCK_SIZE],
            buf_len: 0,
            len: 0,
            compress: compress_for(backend),
        }
    }

    /// A hasher on `backend` that has absorbed `len` bytes (a whole number of blocks) and
    /// reached the chaining value `state` (the multi-buffer code hands a lane over with it).
    #[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
    pub(crate) fn resume(backend: Backend, state: [u32; 8], len: u64) -> Self {
        debug_assert!(len.is_multiple_of(BLOCK_SIZE as u64));
        let mut h = Self::with_backend(backend);
        h.state = state;
        h.len = len;
        h
    }

    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let take = (BLOCK_SIZE - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < BLOCK_SIZE {
                return;
            }
            self.compress.blocks(&mut self.state, &self.buf);
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % BLOCK_SIZE;
        if whole > 0 {
            self.compress.blocks(&mut self.state, &data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// §5.2 padding and the final compression; returns the digest of everything absorbed.
    /// The hasher itself is left unchanged (so `digest()` may be called repeatedly).
    pub fn digest(&self) -> [u8; DIGEST_SIZE] {
        let mut state = self.state;
        finish(
            self.compress,
            &mut state,
            &self.buf[..self.buf_len],
            self.len,
        )
    }

    /// Consumes the hasher and returns the digest.
    pub fn finalize(self) -> [u8; DIGEST_SIZE] {
        self.digest()
    }
}

impl Drop for Sm3 {
    fn drop(&mut self) {
        self.state.zeroize();
        self.buf.zeroize();
    }
}

/// §5.2 padding of the last partial block `rest` (under 64 bytes) of a `len`-byte message
/// and the final compression from `state` (zeroized afterwards); the digest.
fn finish(compress: Compress, state: &mut [u32; 8], rest: &[u8], len: u64) -> [u8; DIGEST_SIZE] {
    debug_assert!(rest.len() < BLOCK_SIZE);
    let mut tail = [0u8; 2 * BLOCK_SIZE];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let total = if rest.len() < BLOCK_SIZE - 8 {
        BLOCK_SIZE
    } else {
        2 * BLOCK_SIZE
    };
    tail[total - 8..total].copy_from_slice(&len.wrapping_mul(8).to_be_bytes());
    compress.blocks(state, &tail[..total]);
    // Only the message bytes are secret (the padding and the length are not): wiping
    // just those is up to 128 fewer volatile byte stores per call.
    tail[..rest.len()].zeroize();
    let mut out = [0u8; DIGEST_SIZE];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state.iter()) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    state.zeroize();
    out
}

/// One-shot SM3 of `data` (whole blocks straight from `data`, no streaming buffer).
pub fn hash(data: &[u8]) -> [u8; DIGEST_SIZE] {
    hash_on(cpu::active(), data)
}

/// [`hash`] on the best implementation at or below `backend` (clamped to this CPU).
pub(crate) fn hash_on(backend: Backend, data: &[u8]) -> [u8; DIGEST_SIZE] {
    let compress = compress_for(backend);
    let mut state = IV;
    let whole = data.len() - data.len() % BLOCK_SIZE;
    if whole > 0 {
        compress.blocks(&mut state, &data[..whole]);
    }
    finish(compress, &mut state, &data[whole..], data.len() as u64)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        /// Every backend `compress_for` chose on this thread (tests take and clear it).
        pub(crate) static COMPRESS_CHOSEN: std::cell::RefCell<Vec<Backend>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    #[test]
    fn standard_examples_every_backend() {
        // GB/T 32905-2016 Appendix A, examples 1 and 2.
        let abc = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0";
        let abcd16 = "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732";
        for b in cpu::available() {
            let mut h = Sm3::with_backend(b);
            h.update(b"abc");
            assert_eq!(hex(&h.digest()), abc);
            let mut h = Sm3::with_backend(b);
            for _ in 0..16 {
                h.update(b"ab");
                h.update(b"cd");
            }
            assert_eq!(hex(&h.finalize()), abcd16);
        }
    }

    #[test]
    fn padding_boundaries_agree_across_backends() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 300] {
            let reference = {
                let mut h = Sm3::with_backend(Backend::Portable);
                h.update(&data[..n]);
                h.finalize()
            };
            for b in cpu::available() {
                let mut h = Sm3::with_backend(b);
                for chunk in data[..n].chunks(13) {
                    h.update(chunk);
                }
                assert_eq!(h.finalize(), reference, "len {n} backend {b:?}");
            }
        }
    }

    #[test]
    fn one_shot_matches_streaming_every_backend() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 13 + 5) as u8).collect();
        for n in [0, 1, 32, 55, 56, 63, 64, 65, 119, 120, 128, 191, 192, 1000] {
            let mut h = Sm3::with_backend(Backend::Portable);
            h.update(&data[..n]);
            let want = h.finalize();
            for b in cpu::available() {
                assert_eq!(
                    cpu::with_backend(b, || hash(&data[..n])),
                    want,
                    "len {n} backend {b:?}"
                );
            }
        }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
