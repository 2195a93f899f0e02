//! SM4 on the RISC-V scalar ShangMi extension Zksed (`sm4ed`, `sm4ks`).
//!
//! `sm4ed rd, rs1, rs2, bs` looks up byte `bs` of `rs2` in the S-box, applies the round's
//! linear map L to it and XORs the result, rotated into byte position `bs`, into `rs1`:
//! four of them make one round (`x0 ^ T(t)`). `sm4ks` is the same with the key
//! schedule's L'. Both instructions work on words whose bytes are reversed relative to
//! GB/T 32907 (its words are big-endian; checked against the standard's L and L' for all
//! 256 S-box outputs: the Zksed linear map on a byte at bits 7..0 equals
//! `bswap(L(b << 24))`). So every word here lives in that byte-reversed domain: a block
//! loaded as little-endian words, the round keys and FK/CK byte-swapped once, and the
//! output words stored little-endian in reverse order (the final R of §7.1).
//!
//! Nothing branches on or indexes memory with secret data; the S-box is inside the
//! instruction.

#![allow(unsafe_code)]

use super::{Serial, BLOCK_SIZE, CK, FK, ROUNDS};
use core::arch::asm;
use zeroize::Zeroize;

/// Blocks kept in flight by the bulk paths: four independent `sm4ed` chains.
const LANES: usize = 4;

/// Reverses the bytes of each 32-bit half of `x`.
#[inline]
fn swap_halves(x: u64) -> u64 {
    const M8: u64 = 0x00ff_00ff_00ff_00ff;
    const M16: u64 = 0x0000_ffff_0000_ffff;
    let x = ((x >> 8) & M8) | ((x & M8) << 8);
    ((x >> 16) & M16) | ((x & M16) << 16)
}

/// The round keys in the byte-reversed domain (two words per 64-bit shuffle: RV64GC has
/// no byte-reverse instruction without Zbb/Zbkb).
#[inline]
fn swapped_keys(rk: &[u32; ROUNDS]) -> [u32; ROUNDS] {
    let mut out = [0u32; ROUNDS];
    for (o, k) in out.chunks_exact_mut(2).zip(rk.chunks_exact(2)) {
        let x = swap_halves(u64::from(k[0]) | (u64::from(k[1]) << 32));
        o[0] = x as u32;
        o[1] = (x >> 32) as u32;
    }
    out
}

/// `$x ^= rotl(L(S(byte $bs of $t)), 8·$bs)` by one `sm4ed` (or `sm4ks` with L').
macro_rules! zk_step {
    ($insn:literal, $x:expr, $t:expr, $bs:literal) => {
        // SAFETY: the enclosing function is compiled with `zksed`, which its caller
        // verified the CPU executes; the instruction only reads and writes the two
        // registers given.
        unsafe {
            asm!(
                concat!($insn, " {x}, {x}, {t}, ", $bs),
                x = inout(reg) $x,
                t = in(reg) $t,
                options(pure, nomem, nostack),
            )
        }
    };
}

/// The 32 rounds on `N` blocks at once (byte-reversed domain): `s[b]` = (X0..X3) in,
/// (X32..X35) out. The four `sm4ed` of a round are issued block after block, so the `N`
/// dependency chains overlap.
#[target_feature(enable = "zksed")]
#[inline]
unsafe fn rounds<const N: usize>(rk: &[u32; ROUNDS], s: &mut [[u32; 4]; N]) {
    // Round r + $j updates word $j: the indices are literals, so the state stays in
    // registers.
    macro_rules! round {
        ($r:expr, $j:literal) => {{
            let k = rk[$r + $j];
            let mut t = [0u32; N];
            for b in 0..N {
                t[b] = s[b][($j + 1) % 4] ^ s[b][($j + 2) % 4] ^ s[b][($j + 3) % 4] ^ k;
            }
            for b in 0..N {
                zk_step!("sm4ed", s[b][$j], t[b], "0");
            }
            for b in 0..N {
                zk_step!("sm4ed", s[b][$j], t[b], "1");
            }
            for b in 0..N {
                zk_step!("sm4ed", s[b][$j], t[b], "2");
            }
            for b in 0..N {
                zk_step!("sm4ed", s[b][$j], t[b], "3");
            }
        }};
    }
    for r in (0..ROUNDS).step_by(4) {
        round!(r, 0);
        round!(r, 1);
        round!(r, 2);
        round!(r, 3);
    }
}

/// The byte-reversed-domain state of the block in `w` (four little-endian loads).
#[inline]
fn state_of(w: &[u32]) -> [u32; 4] {
    [w[0], w[1], w[2], w[3]]
}

/// R(X32..X35) = (X35, X34, X33, X32): the output words in memory order.
#[inline]
fn output_of(s: &[u32; 4]) -> [u32; 4] {
    [s[3], s[2], s[1], s[0]]
}

/// Encrypts (or, with reversed keys, decrypts) the blocks in `words` (little-endian
/// words of the data, four per block) in place; `k` = round keys byte-reversed.
#[target_feature(enable = "zksed")]
unsafe fn crypt_words(k: &[u32; ROUNDS], words: &mut [u32]) {
    let mut groups = words.chunks_exact_mut(4 * LANES);
    for g in &mut groups {
        let mut s = [[0u32; 4]; LANES];
        for (s, w) in s.iter_mut().zip(g.chunks_exact(4)) {
            *s = state_of(w);
        }
        // SAFETY: `zksed` is enabled here as in `rounds`.
        unsafe { rounds(k, &mut s) };
        for (out, s) in g.chunks_exact_mut(4).zip(&s) {
            out.copy_from_slice(&output_of(s));
        }
    }
    for blk in groups.into_remainder().chunks_exact_mut(4) {
        let mut s = [state_of(blk)];
        // SAFETY: as above.
        unsafe { rounds(k, &mut s) };
        blk.copy_from_slice(&output_of(&s[0]));
    }
}

/// `crypt_words` from `src` into `dst` (equal lengths).
#[target_feature(enable = "zksed")]
unsafe fn crypt_words_to(k: &[u32; ROUNDS], src: &[u32], dst: &mut [u32]) {
    let mut groups = dst.chunks_exact_mut(4 * LANES);
    let mut from = src.chunks_exact(4 * LANES);
    for (g, f) in (&mut groups).zip(&mut from) {
        let mut s = [[0u32; 4]; LANES];
        for (s, w) in s.iter_mut().zip(f.chunks_exact(4)) {
            *s = state_of(w);
        }
        // SAFETY: `zksed` is enabled here as in `rounds`.
        unsafe { rounds(k, &mut s) };
        for (out, s) in g.chunks_exact_mut(4).zip(&s) {
            out.copy_from_slice(&output_of(s));
        }
    }
    let tail = from.remainder().chunks_exact(4);
    for (blk, f) in groups.into_remainder().chunks_exact_mut(4).zip(tail) {
        let mut s = [state_of(f)];
        // SAFETY: as above.
        unsafe { rounds(k, &mut s) };
        blk.copy_from_slice(&output_of(&s[0]));
    }
}

/// Encrypts one block in place with the standard's round keys `rk` (decrypts with them
/// reversed).
///
/// # Safety
/// The CPU must implement Zksed (`sm4ed`), e.g. checked with
/// `is_riscv_feature_detected!("zksed")` or the `riscv_hwprobe` bit `RISCV_HWPROBE_EXT_ZKSED`.
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn crypt_block(rk: &[u32; ROUNDS], block: &mut [u8; BLOCK_SIZE]) {
    let mut k = swapped_keys(rk);
    let mut s = [[0u32; 4]];
    for (w, b) in s[0].iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes(b.try_into().unwrap());
    }
    // SAFETY: the caller guarantees Zksed.
    unsafe { rounds(&k, &mut s) };
    for (out, w) in block.chunks_exact_mut(4).zip(output_of(&s[0])) {
        out.copy_from_slice(&w.to_le_bytes());
    }
    k.zeroize();
}

/// Encrypts every block of `data` in place (ECB; decrypts with reversed keys), four
/// blocks interleaved. `data.len()` must be a multiple of 16.
///
/// # Safety
/// The CPU must implement Zksed (see [`crypt_block`]).
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    let mut k = swapped_keys(rk);
    // SAFETY: every bit pattern is a valid u32; the middle part is properly aligned.
    let (head, words, _) = unsafe { data.align_to_mut::<u32>() };
    if head.is_empty() {
        // Word-aligned data (the usual case): in place, native (little-endian) words.
        // SAFETY: the caller guarantees Zksed.
        unsafe { crypt_words(&k, words) };
    } else {
        // Through an aligned buffer, converted byte by byte.
        let mut buf = [0u32; 16 * LANES];
        for chunk in data.chunks_mut(4 * buf.len()) {
            let w = &mut buf[..chunk.len() / 4];
            for (w, b) in w.iter_mut().zip(chunk.chunks_exact(4)) {
                *w = u32::from_le_bytes(b.try_into().unwrap());
            }
            // SAFETY: as above.
            unsafe { crypt_words(&k, w) };
            for (w, b) in w.iter().zip(chunk.chunks_exact_mut(4)) {
                b.copy_from_slice(&w.to_le_bytes());
            }
        }
        buf.zeroize();
    }
    k.zeroize();
}

/// ECB from `src` into `dst` (equal lengths, whole blocks): without a copy when both are
/// word-aligned (the usual case for heap buffers), else copied and done in place.
///
/// # Safety
/// The CPU must implement Zksed (see [`crypt_block`]).
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn crypt_blocks_to(rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    debug_assert!(src.len().is_multiple_of(BLOCK_SIZE));
    assert_eq!(src.len(), dst.len(), "equal lengths");
    // SAFETY: every bit pattern is a valid u32; the middle parts are properly aligned.
    let (sh, sw, _) = unsafe { src.align_to::<u32>() };
    // SAFETY: as above.
    let (dh, dw, _) = unsafe { dst.align_to_mut::<u32>() };
    if sh.is_empty() && dh.is_empty() {
        let mut k = swapped_keys(rk);
        // SAFETY: the caller guarantees Zksed; both are all of their buffers (whole
        // blocks, no head).
        unsafe { crypt_words_to(&k, sw, dw) };
        k.zeroize();
    } else {
        dst.copy_from_slice(src);
        // SAFETY: as above.
        unsafe { crypt_blocks(rk, dst) };
    }
}

/// The little-endian words of a 16-byte block: its state in the byte-reversed domain.
#[inline]
fn le_words(b: &[u8]) -> [u32; 4] {
    core::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// Stores words little-endian into a 16-byte block.
#[inline]
fn store_le(b: &mut [u8], w: &[u32; 4]) {
    for (o, w) in b.chunks_exact_mut(4).zip(w) {
        o.copy_from_slice(&w.to_le_bytes());
    }
}

/// `a ^ b` word by word.
#[inline]
fn xor4(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// A serial mode over the whole blocks of `data` with `rk` (the encryption keys): the
/// round keys byte-swapped once per call, the chaining value kept as words across the
/// blocks; `reg` is updated for the next call.
///
/// # Safety
/// The CPU must implement Zksed (see [`crypt_block`]).
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn serial(rk: &[u32; ROUNDS], mode: Serial, reg: &mut [u8; 16], data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    let mut k = swapped_keys(rk);
    let mut r = le_words(reg);
    // E of a state, as the output words in memory order.
    macro_rules! enc {
        ($x:expr) => {{
            let mut s = [$x];
            // SAFETY: the caller guarantees Zksed.
            unsafe { rounds(&k, &mut s) };
            output_of(&s[0])
        }};
    }
    let blocks = data.chunks_exact_mut(BLOCK_SIZE);
    match mode {
        Serial::CbcEncrypt => {
            for b in blocks {
                r = enc!(xor4(r, le_words(b)));
                store_le(b, &r);
            }
        }
        Serial::CbcMac => {
            for b in blocks {
                r = enc!(xor4(r, le_words(b)));
            }
        }
        Serial::CfbEncrypt => {
            for b in blocks {
                r = xor4(enc!(r), le_words(b));
                store_le(b, &r);
            }
        }
        Serial::Ofb => {
            for b in blocks {
                r = enc!(r);
                store_le(b, &xor4(r, le_words(b)));
            }
        }
    }
    store_le(reg, &r);
    r.zeroize();
    k.zeroize();
}

/// A 128-bit big-endian counter and its blocks in the byte-reversed domain.
struct Counter {
    value: u128,
    /// The upper 64 bits the cached words belong to.
    hi: u64,
    /// X0, X1 of the current counter block (from `hi`).
    hi_words: [u32; 2],
}

impl Counter {
    fn new(value: u128) -> Counter {
        let hi = (value >> 64) as u64;
        Counter {
            value,
            hi,
            hi_words: Self::words(hi),
        }
    }

    /// The two byte-reversed-domain words of a big-endian 64-bit half: the little-endian
    /// loads of its bytes.
    #[inline]
    fn words(half: u64) -> [u32; 2] {
        let x = swap_halves(half);
        [(x >> 32) as u32, x as u32]
    }

    /// The current counter block as a state, and the counter advanced by one. The upper
    /// half is re-swapped only when it changed (the counter is public, so the branch
    /// reveals nothing).
    #[inline]
    fn next(&mut self) -> [u32; 4] {
        let hi = (self.value >> 64) as u64;
        if hi != self.hi {
            self.hi = hi;
            self.hi_words = Self::words(hi);
        }
        let [x2, x3] = Self::words(self.value as u64);
        self.value = self.value.wrapping_add(1);
        [self.hi_words[0], self.hi_words[1], x2, x3]
    }
}

/// The keystream of the next `N` counter blocks, as output words in memory order.
#[target_feature(enable = "zksed")]
#[inline]
unsafe fn keystream<const N: usize>(k: &[u32; ROUNDS], ctr: &mut Counter) -> [[u32; 4]; N] {
    let mut s = [[0u32; 4]; N];
    for s in s.iter_mut() {
        *s = ctr.next();
    }
    // SAFETY: `zksed` is enabled here as in `rounds`.
    unsafe { rounds(k, &mut s) };
    s.map(|s| output_of(&s))
}

/// XORs the CTR keystream into `data` (whole blocks): block i is encrypted from
/// `*counter + i` (128-bit big-endian, wrapping), and `*counter` advances by the number
/// of blocks.
///
/// # Safety
/// The CPU must implement Zksed (see [`crypt_block`]).
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn ctr_xor(rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
    let mut k = swapped_keys(rk);
    let mut ctr = Counter::new(*counter);
    // SAFETY: every bit pattern is a valid u32; the middle part is properly aligned.
    let (head, words, _) = unsafe { data.align_to_mut::<u32>() };
    if head.is_empty() {
        let mut groups = words.chunks_exact_mut(4 * LANES);
        for g in &mut groups {
            // SAFETY: the caller guarantees Zksed.
            let mut ks = unsafe { keystream::<LANES>(&k, &mut ctr) };
            for (w, k) in g.iter_mut().zip(ks.as_flattened()) {
                *w ^= k;
            }
            ks.as_flattened_mut().zeroize();
        }
        for blk in groups.into_remainder().chunks_exact_mut(4) {
            // SAFETY: as above.
            let mut ks = unsafe { keystream::<1>(&k, &mut ctr) };
            for (w, k) in blk.iter_mut().zip(&ks[0]) {
                *w ^= k;
            }
            ks[0].zeroize();
        }
    } else {
        for chunk in data.chunks_mut(BLOCK_SIZE * LANES) {
            let mut ks = if chunk.len() == BLOCK_SIZE * LANES {
                // SAFETY: as above.
                unsafe { keystream::<LANES>(&k, &mut ctr) }
            } else {
                let mut ks = [[0u32; 4]; LANES];
                for s in ks.iter_mut().take(chunk.len() / BLOCK_SIZE) {
                    // SAFETY: as above.
                    *s = unsafe { keystream::<1>(&k, &mut ctr) }[0];
                }
                ks
            };
            for (b, k) in chunk.chunks_exact_mut(4).zip(ks.as_flattened()) {
                let v = u32::from_le_bytes(b.try_into().unwrap()) ^ k;
                b.copy_from_slice(&v.to_le_bytes());
            }
            ks.as_flattened_mut().zeroize();
        }
    }
    *counter = ctr.value;
    k.zeroize();
}

/// The §7.3 key schedule by `sm4ks`: the encryption round keys rk_0..rk_31, equal to the
/// portable schedule's.
///
/// # Safety
/// The CPU must implement Zksed (see [`crypt_block`]).
#[target_feature(enable = "zksed")]
pub(crate) unsafe fn expand_key(key: &[u8; 16]) -> [u32; ROUNDS] {
    /// FK with its words byte-reversed.
    const FK_SWAPPED: [u32; 4] = {
        let mut out = [0u32; 4];
        let mut i = 0;
        while i < 4 {
            out[i] = FK[i].swap_bytes();
            i += 1;
        }
        out
    };

    /// CK with its words byte-reversed.
    const CK_SWAPPED: [u32; ROUNDS] = {
        let mut out = [0u32; ROUNDS];
        let mut i = 0;
        while i < ROUNDS {
            out[i] = CK[i].swap_bytes();
            i += 1;
        }
        out
    };

    // (K0..K3) = MK ^ FK, byte-reversed: little-endian loads of the key ^ swapped FK.
    let mut k: [u32; 4] = core::array::from_fn(|i| {
        u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap()) ^ FK_SWAPPED[i]
    });
    let mut rk = [0u32; ROUNDS];
    for r in (0..ROUNDS).step_by(4) {
        for j in 0..4 {
            let t = k[(j + 1) % 4] ^ k[(j + 2) % 4] ^ k[(j + 3) % 4] ^ CK_SWAPPED[r + j];
            zk_step!("sm4ks", k[j], t, "0");
            zk_step!("sm4ks", k[j], t, "1");
            zk_step!("sm4ks", k[j], t, "2");
            zk_step!("sm4ks", k[j], t, "3");
            rk[r + j] = k[j];
        }
    }
    k.zeroize();
    let out = swapped_keys(&rk);
    rk.zeroize();
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::Backend;
    use crate::sm4::{soft, Sm4};

    /// Whether the tests may run the Zksed kernels: the CPU reports Zksed, or
    /// `GUOMI_TEST_ZK=1` asserts it (qemu-user before 8.x has no `riscv_hwprobe`, so
    /// std's detection says no even under `-cpu rv64,zksed=true`).
    fn zksed() -> bool {
        std::arch::is_riscv_feature_detected!("zksed")
            || std::env::var_os("GUOMI_TEST_ZK").is_some_and(|v| v == "1")
    }

    /// Deterministic test bytes (xorshift64).
    pub(crate) fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    pub(crate) const KAT_KEY: [u8; 16] = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ];
    pub(crate) const KAT_CT: [u8; 16] = [
        0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42,
        0x46,
    ];

    /// Round keys from the portable schedule.
    pub(crate) fn portable_keys(key: &[u8; 16]) -> (Sm4, [u32; ROUNDS], [u32; ROUNDS]) {
        let c = Sm4::with_backend(key, Backend::Portable);
        let (enc, dec) = (c.rk.enc, c.rk.dec);
        (c, enc, dec)
    }

    #[test]
    fn known_answer() {
        if !zksed() {
            return;
        }
        let (_, enc, dec) = portable_keys(&KAT_KEY);
        let mut b = KAT_KEY;
        // SAFETY: Zksed checked above.
        unsafe { crypt_block(&enc, &mut b) };
        assert_eq!(b, KAT_CT);
        // SAFETY: as above.
        unsafe { crypt_block(&dec, &mut b) };
        assert_eq!(b, KAT_KEY);
        let mut d = [KAT_KEY; 5].concat();
        // SAFETY: as above.
        unsafe { crypt_blocks(&enc, &mut d) };
        assert_eq!(d, [KAT_CT; 5].concat());
        // GB/T 32907 A.2: 1,000,000 encryptions of P give 595298c7c6fd271f0402f804c33d3f66.
        let mut b = KAT_KEY;
        for _ in 0..1_000_000 {
            // SAFETY: as above.
            unsafe { crypt_block(&enc, &mut b) };
        }
        assert_eq!(
            b,
            [
                0x59, 0x52, 0x98, 0xc7, 0xc6, 0xfd, 0x27, 0x1f, 0x04, 0x02, 0xf8, 0x04, 0xc3, 0x3d,
                0x3f, 0x66
            ]
        );
    }

    #[test]
    fn key_schedule_matches_portable() {
        if !zksed() {
            return;
        }
        for seed in 0..64u64 {
            let key: [u8; 16] = if seed == 0 {
                KAT_KEY
            } else {
                bytes(seed, 16).try_into().unwrap()
            };
            let (_, enc, _) = portable_keys(&key);
            // SAFETY: Zksed checked above.
            assert_eq!(unsafe { expand_key(&key) }, enc, "seed {seed}");
        }
    }

    #[test]
    fn blocks_match_portable() {
        if !zksed() {
            return;
        }
        for seed in 0..4u64 {
            let key: [u8; 16] = bytes(100 + seed, 16).try_into().unwrap();
            let (_, enc, dec) = portable_keys(&key);
            for n in (0..=40).chain([257]) {
                // Offset 0: word-aligned in place; 1: the unaligned path.
                for off in [0usize, 1] {
                    let data = bytes(seed * 1000 + n as u64, 16 * n);
                    let mut want = data.clone();
                    soft::crypt_blocks(&enc, &mut want);
                    let mut buf = vec![0u8; 16 * n + off];
                    buf[off..].copy_from_slice(&data);
                    // SAFETY: Zksed checked above.
                    unsafe { crypt_blocks(&enc, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &want[..], "n={n} off={off}");
                    // SAFETY: as above.
                    unsafe { crypt_blocks(&dec, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &data[..], "n={n} off={off} decrypt");
                }
                if n > 0 {
                    let mut one: [u8; 16] = bytes(seed + 7, 16).try_into().unwrap();
                    let mut want = one;
                    soft::crypt_blocks(&enc, &mut want);
                    // SAFETY: as above.
                    unsafe { crypt_block(&enc, &mut one) };
                    assert_eq!(one, want);
                }
            }
        }
    }

    #[test]
    fn ctr_matches_portable() {
        if !zksed() {
            return;
        }
        let key: [u8; 16] = bytes(5, 16).try_into().unwrap();
        let (portable, enc, _) = portable_keys(&key);
        let starts = [
            0u128,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            u128::from(u32::MAX) - 2,
            u128::from(u64::MAX) - 5,
            u128::MAX - 3,
            u128::MAX,
        ];
        for (i, &start) in starts.iter().enumerate() {
            for n in (0..=40).chain([257]) {
                for off in [0usize, 1] {
                    let data = bytes(i as u64 * 977 + n as u64, 16 * n);
                    let (mut want, mut want_ctr) = (data.clone(), start);
                    portable.ctr_xor(&mut want_ctr, &mut want);
                    let mut buf = vec![0u8; 16 * n + off];
                    buf[off..].copy_from_slice(&data);
                    let mut ctr = start;
                    // SAFETY: Zksed checked above.
                    unsafe { ctr_xor(&enc, &mut ctr, &mut buf[off..]) };
                    assert_eq!(&buf[off..], &want[..], "start={start:#x} n={n} off={off}");
                    assert_eq!(ctr, want_ctr, "start={start:#x} n={n}");
                    assert_eq!(ctr, start.wrapping_add(n as u128));
                }
            }
        }
    }
}
