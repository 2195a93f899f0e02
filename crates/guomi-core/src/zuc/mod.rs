//! ZUC stream cipher (GM/T 0001-2012, GB/T 33133-2016) and what is built on it.
//!
//! * [`Zuc`]: the keystream generator as a streaming object (ZUC-128 or ZUC-256) that
//!   XORs data of any length; [`keystream`] / [`zuc256::keystream`] the one-shot words.
//! * [`eea3`]: 3GPP 128-EEA3 confidentiality (ETSI/SAGE 128-EEA3 & 128-EIA3 Document 1
//!   §3 / GM/T 0001.2), bit-granular.
//! * [`eia3`]: 3GPP 128-EIA3 integrity (Document 1 §4 / GM/T 0001.3), bit-granular.
//! * [`zuc256`]: ZUC-256 (Team ZUC, "The ZUC-256 Stream Cipher", 2018): keystream and
//!   the MAC with 32-, 64- and 128-bit tags.
//! * [`guard::Eea3Guard`]: an EEA3 encryptor bound to one key that refuses to reuse a
//!   (COUNT, BEARER, DIRECTION), i.e. a keystream.
//! * [`many`]: many EEA3/EIA3 packets at once, in 8 (AVX2), 16 (AVX-512) or 4 (NEON)
//!   SIMD lanes.
//!
//! Backends (one file each): `soft` (portable, constant time, slow), `x86_avx2`
//! (S1 through AES-NI `aesenclast`, S0 through nibble `pshufb`), `x86_avx512` (S1
//! through GFNI `gf2p8affineinvqb`, S0 through `vpshufb`; EIA3 through PCLMULQDQ),
//! `aarch64_neon` (4-lane multi-buffer only: S0 by nibble `TBL`, S1 by `TBL`/`TBX` over
//! the table in registers). No backend indexes memory with secret data.

#[cfg(target_arch = "aarch64")]
mod aarch64_neon;
pub(crate) mod core;
pub mod eea3;
pub mod eia3;
pub mod guard;
pub mod many;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;
pub mod zuc256;

use self::core::State;
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use zeroize::Zeroize;

pub use eea3::eea3;
pub use eia3::eia3;

/// ZUC-128 key size in bytes.
pub const KEY_SIZE: usize = 16;
/// ZUC-128 IV size in bytes.
pub const IV_SIZE: usize = 16;

/// The functions a backend provides.
#[derive(Clone, Copy)]
pub(crate) struct Kernel {
    /// §3.6.1 initialization (32 rounds + the discarded first working round).
    pub(crate) init: fn(&mut State),
    /// §3.6.2 keystream words.
    pub(crate) generate: fn(&mut State, &mut [u32]),
    /// EIA3 accumulation over whole 32-bit message words: `msg` holds `n` big-endian
    /// words, `z` the keystream words z_j .. z_{j+n} (n + 1 words). Returns
    /// ⊕ over the set message bits i of the 32-bit keystream window at bit i.
    pub(crate) mac_words: fn(&[u8], &[u32]) -> u32,
    /// `out = input ⊕ z` (or `out ^= z` when `input` is None), z as big-endian words;
    /// `out.len() == 4 * z.len()`.
    pub(crate) xor_words: fn(Option<&[u8]>, &mut [u8], &[u32]),
}

/// The kernel of `variant`, clamped to what this CPU supports: every caller, whatever
/// backend it was handed, gets code this CPU can run.
pub(crate) fn kernel(variant: Variant) -> Kernel {
    let variant = variant.clamp();
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(t) = variant.avx512() {
            // S0 from VBMI register tables, except on Intel cores, where `vpermi2b`
            // takes 5 cycles and S0 by nibble shuffles shortens F's chain (see `cpu`).
            return match variant.vbmi() {
                Some(v) if !cpu::intel_core() => x86_avx512::kernel_vbmi(t, v),
                _ => x86_avx512::kernel(t),
            };
        }
        if let Some(t) = variant.avx2() {
            return x86_avx2::kernel(t);
        }
    }
    let _ = variant;
    Kernel {
        init: soft::init,
        generate: soft::generate,
        mac_words: mac_words_portable,
        xor_words: xor_words_portable,
    }
}

/// Portable EIA3 accumulation: for every message bit set, XOR the keystream window at
/// that bit, with masks instead of branches.
pub(crate) fn mac_words_portable(msg: &[u8], z: &[u32]) -> u32 {
    let mut t = 0u32;
    for (j, word) in msg.chunks_exact(4).enumerate() {
        let m = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        let k = (u64::from(z[j]) << 32) | u64::from(z[j + 1]);
        for b in 0..32 {
            let mask = 0u32.wrapping_sub((m >> (31 - b)) & 1);
            t ^= mask & ((k >> (32 - b)) as u32);
        }
    }
    t
}

/// The streaming buffer's size in words: a call's tail under this goes through it, and
/// longer data is generated straight into the output a multiple of it at a time.
const BUF_WORDS: usize = 64;
/// The words a streaming call's tail generates are a multiple of this: the generator's
/// unrolled block, so that many small calls do not pay its word-at-a-time path.
const TAIL_WORDS: usize = 16;
/// Keystream words generated per generator call for bulk data.
const BULK_WORDS: usize = 512;

/// The ZUC keystream generator, streaming: successive calls continue the keystream.
/// Keystream word z_i is emitted as 4 big-endian bytes.
#[derive(Clone)]
pub struct Zuc {
    state: State,
    kernel: Kernel,
    buf: [u8; 4 * BUF_WORDS],
    /// Unused keystream bytes are `buf[pos..]`.
    pos: usize,
    /// Whether `buf` ever held keystream (so that drop wipes it).
    used: bool,
}

impl ::core::fmt::Debug for Zuc {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.debug_struct("Zuc").finish_non_exhaustive()
    }
}

impl Drop for Zuc {
    fn drop(&mut self) {
        if self.used {
            self.buf.zeroize();
        }
    }
}

impl Zuc {
    pub(crate) fn from_loaded(mut state: State, variant: Variant) -> Zuc {
        let kernel = kernel(variant);
        (kernel.init)(&mut state);
        Zuc {
            state,
            kernel,
            buf: [0; 4 * BUF_WORDS],
            pos: 4 * BUF_WORDS,
            used: false,
        }
    }

    /// ZUC-128 (GM/T 0001.1 §3.6) with a 16-byte key and a 16-byte IV, on the active
    /// variant (kept by the object for its lifetime).
    pub fn new(key: &[u8], iv: &[u8]) -> Result<Zuc> {
        Self::with_variant(key, iv, cpu::active_variant())
    }

    /// ZUC-128 on the best implementation at or below `backend` (clamped to what this
    /// CPU supports).
    pub fn with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Zuc> {
        Self::with_variant(key, iv, Variant::from(backend))
    }

    /// ZUC-128 on `variant` (clamped to what this CPU supports).
    pub fn with_variant(key: &[u8], iv: &[u8], variant: Variant) -> Result<Zuc> {
        let key: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "ZUC-128 key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        let iv: &[u8; 16] = iv.try_into().map_err(|_| Error::InvalidLength {
            what: "ZUC-128 IV",
            expected: "16 bytes",
            got: iv.len(),
        })?;
        Ok(Self::from_loaded(self::core::load_128(key, iv), variant))
    }

    /// ZUC-256 keystream generator (32-byte key; IV in the 25-byte or 23-byte form).
    pub fn new_256(key: &[u8], iv: &[u8]) -> Result<Zuc> {
        zuc256::Zuc256Iv::parse(iv)
            .and_then(|iv| zuc256::generator(key, &iv, &zuc256::D_KEYSTREAM, cpu::active_variant()))
    }

    /// Whole keystream words, continuing the stream. Buffered bytes (after a byte-wise
    /// call that did not end on a word boundary) are consumed first, so the words are
    /// always the next 4·n bytes of the stream.
    pub fn words(&mut self, out: &mut [u32]) {
        if self.pos == self.buf.len() {
            self.generate(out);
        } else {
            for w in out.iter_mut() {
                let mut b = [0u8; 4];
                self.fill(&mut b);
                *w = u32::from_be_bytes(b);
            }
        }
    }

    /// Puts the next `words` (at most [`BUF_WORDS`]) keystream words at the end of the
    /// buffer, as its unused bytes.
    fn refill(&mut self, words: usize) {
        let mut z = [0u32; BUF_WORDS];
        self.generate(&mut z[..words]);
        let start = 4 * (BUF_WORDS - words);
        for (c, w) in self.buf[start..].chunks_exact_mut(4).zip(&z[..words]) {
            c.copy_from_slice(&w.to_be_bytes());
        }
        z[..words].zeroize();
        self.pos = start;
        self.used = true;
    }

    /// The next `out.len()` keystream words, straight from the kernel.
    fn generate(&mut self, out: &mut [u32]) {
        #[cfg(test)]
        tests::GENERATED.with(|g| g.set(g.get() + out.len()));
        (self.kernel.generate)(&mut self.state, out);
    }

    /// Writes the next `out.len()` keystream bytes into `out`.
    pub fn fill(&mut self, out: &mut [u8]) {
        out.fill(0);
        self.xor_into(None, out, Tail::Buffered);
    }

    /// XORs the keystream into `data` in place (encryption = decryption).
    pub fn apply_keystream(&mut self, data: &mut [u8]) {
        self.xor_into(None, data, Tail::Buffered);
    }

    /// `out = input ⊕ keystream`. `input` and `out` must have the same length.
    pub fn apply_keystream_into(&mut self, input: &[u8], out: &mut [u8]) {
        assert_eq!(input.len(), out.len(), "input and output lengths differ");
        self.xor_into(Some(input), out, Tail::Buffered);
    }

    /// [`Zuc::fill`] as the generator's last use: it generates the ceil(n / 4) words
    /// that `out` needs and no more (the streaming calls round a tail up to 16-word
    /// blocks, and the bulk of the data to 64-word ones, for the calls that follow).
    pub fn fill_once(mut self, out: &mut [u8]) {
        out.fill(0);
        self.xor_into(None, out, Tail::Exact);
    }

    /// [`Zuc::apply_keystream_into`] as the generator's last use (see [`Zuc::fill_once`]).
    pub fn apply_keystream_once(mut self, input: &[u8], out: &mut [u8]) {
        assert_eq!(input.len(), out.len(), "input and output lengths differ");
        self.xor_into(Some(input), out, Tail::Exact);
    }

    /// The one loop behind `fill` / `apply*`: `input` None means `out` is both input
    /// and output.
    fn xor_into(&mut self, input: Option<&[u8]>, out: &mut [u8], tail: Tail) {
        let mut done = 0;
        let n = out.len();
        // 1. Buffered keystream bytes.
        let take = (self.buf.len() - self.pos).min(n);
        if take > 0 {
            let ks = &self.buf[self.pos..self.pos + take];
            xor_bytes(input.map(|i| &i[..take]), &mut out[..take], ks);
            self.pos += take;
            done = take;
        }
        // 2. Words generated straight into a stack buffer: whole buffers' worth (so that
        // the per-call cost of the generator is spread over many words), or, for a last
        // use, every word still needed, the last one perhaps in part.
        let mut z = [0u32; BULK_WORDS];
        let mut dirty = 0;
        loop {
            let left = n - done;
            let words = match tail {
                Tail::Buffered if left >= 4 * BUF_WORDS => {
                    (left / 4).min(BULK_WORDS) / BUF_WORDS * BUF_WORDS
                }
                Tail::Exact if left > 0 => left.div_ceil(4).min(BULK_WORDS),
                _ => break,
            };
            self.generate(&mut z[..words]);
            dirty = dirty.max(words);
            let whole = (left / 4).min(words);
            (self.kernel.xor_words)(
                input.map(|i| &i[done..done + 4 * whole]),
                &mut out[done..done + 4 * whole],
                &z[..whole],
            );
            done += 4 * whole;
            if whole < words {
                let mut ks = z[whole].to_be_bytes();
                xor_bytes(input.map(|i| &i[done..]), &mut out[done..], &ks[..n - done]);
                ks.zeroize();
                done = n;
            }
        }
        z[..dirty].zeroize();
        // 3. The tail of a streaming call (under a buffer), through the buffer: the
        // words it needs, rounded up to whole blocks of the generator.
        if done < n {
            let take = n - done;
            self.refill(take.div_ceil(4).next_multiple_of(TAIL_WORDS));
            let ks = &self.buf[self.pos..self.pos + take];
            xor_bytes(input.map(|i| &i[done..]), &mut out[done..], ks);
            self.pos += take;
        }
    }
}

/// How [`Zuc::xor_into`] generates what a call needs beyond whole buffers.
#[derive(Clone, Copy)]
enum Tail {
    /// Whole blocks of the generator into the buffer, whose unused bytes serve the
    /// next call.
    Buffered,
    /// The words needed and no more: the generator is not used again.
    Exact,
}

/// `out = in ⊕ ks` (or `out ^= ks` when `input` is None).
#[inline]
fn xor_bytes(input: Option<&[u8]>, out: &mut [u8], ks: &[u8]) {
    match input {
        Some(i) => {
            for ((o, a), k) in out.iter_mut().zip(i).zip(ks) {
                *o = a ^ k;
            }
        }
        None => {
            for (o, k) in out.iter_mut().zip(ks) {
                *o ^= k;
            }
        }
    }
}

/// `out = in ⊕ z` with z as big-endian words; `out.len() == 4 * z.len()`.
#[inline]
pub(crate) fn xor_words_portable(input: Option<&[u8]>, out: &mut [u8], z: &[u32]) {
    debug_assert_eq!(out.len(), 4 * z.len());
    match input {
        Some(i) => {
            for ((o, a), w) in out.chunks_exact_mut(4).zip(i.chunks_exact(4)).zip(z) {
                let v = u32::from_ne_bytes([a[0], a[1], a[2], a[3]]) ^ w.to_be();
                o.copy_from_slice(&v.to_ne_bytes());
            }
        }
        None => {
            for (o, w) in out.chunks_exact_mut(4).zip(z) {
                let v = u32::from_ne_bytes([o[0], o[1], o[2], o[3]]) ^ w.to_be();
                o.copy_from_slice(&v.to_ne_bytes());
            }
        }
    }
}

/// The most keystream words one call returns: 2^27 words (512 MiB), the 2^32-bit
/// LENGTH limit of 128-EEA3 (3GPP TS 33.401 Annex B). A larger request is
/// `InvalidValue`, never an allocation the size of the caller's number.
pub const MAX_KEYSTREAM_WORDS: usize = 1 << 27;

/// The byte length of `words` keystream words, checked against [`MAX_KEYSTREAM_WORDS`].
pub fn keystream_len(words: usize) -> Result<usize> {
    if words > MAX_KEYSTREAM_WORDS {
        return Err(Error::InvalidValue(
            "words must be at most 2^27 (512 MiB of keystream) per call",
        ));
    }
    Ok(4 * words)
}

/// The first `words` ZUC-128 keystream words z1, z2, ... as 4·`words` big-endian bytes
/// (`words` at most [`MAX_KEYSTREAM_WORDS`]).
pub fn keystream(key: &[u8], iv: &[u8], words: usize) -> Result<Vec<u8>> {
    let n = keystream_len(words)?;
    let mut out = vec![0u8; n];
    Zuc::new(key, iv)?.fill_once(&mut out);
    Ok(out)
}

#[cfg(test)]
mod keystream_bound_tests {
    use super::*;

    #[test]
    fn keystream_words_are_bounded() {
        assert_eq!(
            keystream_len(MAX_KEYSTREAM_WORDS),
            Ok(4 * MAX_KEYSTREAM_WORDS)
        );
        for words in [MAX_KEYSTREAM_WORDS + 1, 1 << 32, usize::MAX] {
            assert!(matches!(keystream_len(words), Err(Error::InvalidValue(_))));
            assert!(keystream(&[0; 16], &[0; 16], words).is_err());
            assert!(matches!(
                zuc256::keystream(&[0; 32], &[0; 25], words),
                Err(Error::InvalidValue(_))
            ));
        }
        assert_eq!(keystream(&[0; 16], &[0; 16], 0).unwrap(), Vec::<u8>::new());
    }
}

/// Checks the 3GPP framing parameters shared by EEA3 and EIA3.
pub(crate) fn check_framing(bearer: u8, direction: u8) -> Result<()> {
    if bearer > 31 {
        return Err(Error::InvalidValue("bearer must be in 0..=31 (5 bits)"));
    }
    if direction > 1 {
        return Err(Error::InvalidValue("direction must be 0 or 1"));
    }
    Ok(())
}

/// Resolves an optional bit length against the data: `None` means every bit of `data`;
/// a length longer than the data is an error. Returns (length in bits, bytes used).
pub(crate) fn bit_length(data_len: usize, length_bits: Option<u64>) -> Result<(u64, usize)> {
    let avail = (data_len as u64)
        .checked_mul(8)
        .ok_or(Error::InvalidValue("data too long"))?;
    let bits = match length_bits {
        None => avail,
        Some(b) if b <= avail => b,
        Some(_) => return Err(Error::InvalidValue("length_bits is longer than the data")),
    };
    Ok((bits, bits.div_ceil(8) as usize))
}

/// The 16-byte key as an array, or the typed length error.
pub(crate) fn key128(key: &[u8]) -> Result<&[u8; 16]> {
    key.try_into().map_err(|_| Error::InvalidLength {
        what: "ZUC-128 key",
        expected: "16 bytes",
        got: key.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::core::tables::sbox_word;
    use super::core::{l1, l2, Fsm};
    use super::*;

    /// Table-based reference FSM (tests only).
    #[derive(Clone, Copy)]
    struct Reference(u32, u32);
    impl Fsm for Reference {
        fn from_regs(r1: u32, r2: u32) -> Self {
            Reference(r1, r2)
        }
        fn regs(self) -> (u32, u32) {
            (self.0, self.1)
        }
        fn w(self, x0: u32) -> u32 {
            (x0 ^ self.0).wrapping_add(self.1)
        }
        fn next(self, x1: u32, x2: u32) -> Self {
            let w1 = self.0.wrapping_add(x1);
            let w2 = self.1 ^ x2;
            Reference(
                sbox_word(l1((w1 << 16) | (w2 >> 16))),
                sbox_word(l2((w2 << 16) | (w1 >> 16))),
            )
        }
    }

    #[test]
    fn every_backend_matches_the_table_reference() {
        let key: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(29) ^ 0x5a).collect();
        let iv: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(71) ^ 0xc3).collect();
        let mut st = core::load_128(key[..].try_into().unwrap(), iv[..].try_into().unwrap());
        core::init::<Reference>(&mut st);
        let mut expect = vec![0u32; 301];
        core::generate::<Reference>(&mut st, &mut expect[..17]);
        core::generate::<Reference>(&mut st, &mut expect[17..]);
        for b in cpu::variants() {
            let mut z = Zuc::with_variant(&key, &iv, b).unwrap();
            let mut got = vec![0u32; 301];
            z.words(&mut got[..5]);
            z.words(&mut got[5..]);
            assert_eq!(got, expect, "{b:?}");
        }
    }

    std::thread_local! {
        /// Keystream words this thread's `Zuc` objects have generated.
        pub(super) static GENERATED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// The words `f` makes this thread's generators produce.
    fn generated_by(f: impl FnOnce()) -> usize {
        let before = GENERATED.with(|g| g.get());
        f();
        GENERATED.with(|g| g.get()) - before
    }

    #[test]
    fn one_shot_calls_generate_only_the_words_they_need() {
        let key = [0x3cu8; 16];
        let data = vec![0xa5u8; 4 * BULK_WORDS + 9];
        for n in [
            0usize,
            1,
            3,
            4,
            5,
            63,
            64,
            65,
            100,
            255,
            256,
            257,
            1000,
            2051,
            data.len(),
        ] {
            let words = generated_by(|| {
                eea3::eea3(&key, 7, 3, 1, &data[..n], None).unwrap();
            });
            assert_eq!(words, n.div_ceil(4), "eea3 of {n} bytes");
            let bits = 8 * n / 3;
            let words = generated_by(|| {
                eea3::eea3(&key, 7, 3, 1, &data[..n], Some(bits as u64)).unwrap();
            });
            assert_eq!(words, bits.div_ceil(32), "eea3 of {bits} bits");
        }
        for w in [0usize, 1, 2, 17, 64, 65, 600] {
            assert_eq!(generated_by(|| drop(keystream(&key, &[1; 16], w))), w);
            let words = generated_by(|| drop(zuc256::keystream(&[2; 32], &[0; 25], w)));
            assert_eq!(words, w, "zuc256 keystream of {w} words");
        }
        // A streaming call's tail generates whole blocks of 16 words, and the calls that
        // follow use what it left first.
        let mut z = Zuc::new(&key, &[1; 16]).unwrap();
        assert_eq!(generated_by(|| z.fill(&mut [0; 5])), 16);
        assert_eq!(generated_by(|| z.fill(&mut [0; 59])), 0);
        assert_eq!(generated_by(|| z.fill(&mut [0; 1])), 16);
        assert_eq!(generated_by(|| z.fill(&mut [0; 63 + 100])), 32);
        assert_eq!(generated_by(|| z.fill(&mut [0; 28 + 300])), 64 + 16);
    }

    #[test]
    fn one_shot_equals_streaming_at_every_length() {
        let key = [0x61u8; 16];
        let iv = [0x2fu8; 16];
        let data: Vec<u8> = (0..4 * BULK_WORDS + 300).map(|i| (i * 131) as u8).collect();
        for b in cpu::variants() {
            let mut stream = vec![0u8; data.len()];
            Zuc::with_variant(&key, &iv, b)
                .unwrap()
                .apply_keystream_into(&data, &mut stream);
            let lengths = (0..=300).chain([1023, 1024, 1025, 2047, 2048, 2049, data.len()]);
            for n in lengths {
                let mut once = vec![0u8; n];
                Zuc::with_variant(&key, &iv, b)
                    .unwrap()
                    .apply_keystream_once(&data[..n], &mut once);
                assert_eq!(once, stream[..n], "{b:?} {n} bytes");
                let mut ks = vec![0u8; n];
                Zuc::with_variant(&key, &iv, b).unwrap().fill_once(&mut ks);
                let xored: Vec<u8> = ks.iter().zip(&data).map(|(k, d)| k ^ d).collect();
                assert_eq!(xored, stream[..n], "{b:?} fill_once {n} bytes");
            }
        }
    }

    #[test]
    fn streaming_equals_one_shot() {
        let key = [7u8; 16];
        let iv = [9u8; 16];
        let mut one = vec![0u8; 3000];
        Zuc::new(&key, &iv).unwrap().fill(&mut one);
        for b in cpu::variants() {
            for step in [1usize, 3, 4, 63, 64, 255, 256, 257, 1000] {
                let mut z = Zuc::with_variant(&key, &iv, b).unwrap();
                let mut got = vec![0u8; 3000];
                for c in got.chunks_mut(step) {
                    z.apply_keystream(c);
                }
                assert_eq!(got, one, "{b:?} step {step}");
            }
        }
    }
}
