//! SM4 with the Armv8 SM4 instructions (FEAT_SM4): `SM4E` runs four rounds on one block,
//! `SM4EKEY` four steps of the key schedule.
//!
//! `SM4E Vd.4S, Vn.4S` (Arm ARM, "SM4E"): lane i of `Vd` holds the state word X_i as a
//! number, lane j of `Vn` the round key rk_j; after four rounds lane i holds X_{i+4}. The
//! standard's words are big-endian, so a block is loaded with each 32-bit lane
//! byte-reversed (`REV32`); after the 32 rounds the lanes hold X32..X35, and the output
//! (X35, X34, X33, X32) in big-endian bytes is exactly the 16 bytes of the register in
//! reverse order (one `TBL`). The 32 round keys are eight registers, loaded once per call.
//!
//! Each `SM4E` of a block needs the previous one's result, so a lone block is bound by the
//! instruction's latency; the bulk paths keep eight independent blocks in flight.
//! Compiled (rustc 1.95, opt-level 3, read back with objdump), the ECB loop is 91
//! instructions per eight blocks (64 `SM4E`, 8 `REV32`, 8 `TBL`, 4 `LDP`, 4 `STP`, 3 of
//! loop control): 0.71 per byte; the CTR loop, with the counters built in registers, 106:
//! 0.83 per byte.
//!
//! The instructions are constant time by design; nothing here branches on or indexes
//! memory with secret data (the CTR fast path tests the public counter only).
#![allow(unsafe_code)]

use super::{Serial, ROUNDS};
use core::arch::aarch64::*;
use core::arch::asm;

/// `TBL` index reversing the 16 bytes of a register: lanes (X32, X33, X34, X35) as
/// numbers become the bytes of X35 ‖ X34 ‖ X33 ‖ X32, each big-endian (§7.1's R).
const REVERSE: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// Blocks in flight in the bulk paths.
const WIDE: usize = 8;

/// Four rounds of §7.1 on the block in `x` with the round keys in the lanes of `k`.
///
/// # Safety
/// Only for functions compiled with the `sm4` target feature (the CPU has FEAT_SM4).
#[inline(always)]
unsafe fn sm4e(x: uint32x4_t, k: uint32x4_t) -> uint32x4_t {
    let mut x = x;
    // SAFETY: SM4E reads and writes registers only; the caller runs with FEAT_SM4.
    unsafe {
        asm!(
            "sm4e {x:v}.4s, {k:v}.4s",
            x = inout(vreg) x,
            k = in(vreg) k,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    x
}

/// The 32 round keys as eight registers of four.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn round_keys(rk: &[u32; ROUNDS]) -> [uint32x4_t; 8] {
    // SAFETY: 4·j + 4 ≤ 32 words of `rk` are read by each load.
    core::array::from_fn(|j| unsafe { vld1q_u32(rk.as_ptr().add(4 * j)) })
}

/// The 32 rounds on one block held as state words (lane i = X_i).
///
/// # Safety
/// Only for functions compiled with the `neon` and `sm4` target features.
#[inline(always)]
unsafe fn rounds<const G: usize>(k: &[uint32x4_t; 8], x: &mut [uint32x4_t; G]) {
    for kj in k {
        for xb in x.iter_mut() {
            // SAFETY: FEAT_SM4 is enabled on the calling function.
            *xb = unsafe { sm4e(*xb, *kj) };
        }
    }
}

/// Loads a block as state words: each 32-bit lane byte-reversed (the words are
/// big-endian).
///
/// # Safety
/// 16 readable bytes at `p`; only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn load(p: *const u8) -> uint32x4_t {
    // SAFETY: 16 readable bytes at `p` (caller); unaligned loads are allowed.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p))) }
}

/// The output block bytes (§7.1's R and big-endian words) of the state after 32 rounds.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn output(rev: uint8x16_t, y: uint32x4_t) -> uint8x16_t {
    let mut out: uint8x16_t;
    // SAFETY: a register-only table lookup (the index is a public constant). Written as
    // `asm!` because the compiler turns the intrinsic with a known index into two
    // instructions (`REV64` + `EXT`).
    unsafe {
        asm!(
            "tbl {o:v}.16b, {{{y:v}.16b}}, {r:v}.16b",
            o = lateout(vreg) out,
            y = in(vreg) y,
            r = in(vreg) rev,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    out
}

/// `G` consecutive blocks at `src` through the rounds, written to `dst` (the same
/// pointer for in place).
///
/// # Safety
/// 16·G readable bytes at `src` and writable bytes at `dst`, either the same or not
/// overlapping; only for functions compiled with the `neon` and `sm4` target features.
#[inline(always)]
unsafe fn blocks<const G: usize>(
    k: &[uint32x4_t; 8],
    rev: uint8x16_t,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY: every access is one of the 16·G bytes at `src` or `dst` (caller); every
    // load comes before the first store; NEON and SM4 are enabled on the calling function.
    unsafe {
        let mut x: [uint32x4_t; G] = core::array::from_fn(|b| load(src.add(16 * b)));
        rounds(k, &mut x);
        for (b, y) in x.iter().enumerate() {
            vst1q_u8(dst.add(16 * b), output(rev, *y));
        }
    }
}

/// The counter block `c` as state words: lane i = word i of its big-endian bytes.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn counter_words(c: u128) -> uint32x4_t {
    // Lanes 0, 1 = (c >> 96, c >> 64) = the high half rotated by 32; lanes 2, 3 the same
    // for the low half.
    let hi = ((c >> 64) as u64).rotate_left(32);
    let lo = (c as u64).rotate_left(32);
    // SAFETY: register-only operations.
    unsafe { vreinterpretq_u32_u64(vcombine_u64(vcreate_u64(hi), vcreate_u64(lo))) }
}

/// CTR on `G` blocks at `p` with counters `ctr`, `ctr + 1`, ...: the keystream XORed
/// into the data in place.
///
/// # Safety
/// 16·G readable and writable bytes at `p`; only for functions compiled with the `neon`
/// and `sm4` target features.
#[inline(always)]
unsafe fn ctr_blocks<const G: usize>(k: &[uint32x4_t; 8], rev: uint8x16_t, ctr: u128, p: *mut u8) {
    // SAFETY: every access is one of the 16·G bytes at `p` (caller); NEON and SM4 are
    // enabled on the calling function.
    unsafe {
        let mut x: [uint32x4_t; G] = if (ctr as u32) <= u32::MAX - (G as u32 - 1) {
            // No carry out of the last word within the group: the counters differ in
            // lane 3 only (the counter is public, so this branch leaks nothing).
            let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
            let mut v = counter_words(ctr);
            core::array::from_fn(|_| {
                let c = v;
                v = vaddq_u32(v, one);
                c
            })
        } else {
            core::array::from_fn(|b| counter_words(ctr.wrapping_add(b as u128)))
        };
        rounds(k, &mut x);
        for (b, y) in x.iter().enumerate() {
            let q = p.add(16 * b);
            vst1q_u8(q, veorq_u8(vld1q_u8(q), output(rev, *y)));
        }
    }
}

/// §7.1 on one block in place with the round keys `rk` (reversed keys decrypt): eight
/// dependent `SM4E`, the lowest latency, for the serial modes.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn crypt_block(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: NEON + SM4 enabled here (the caller checked the CPU); 16 bytes of `block`.
    unsafe {
        let k = round_keys(rk);
        let rev = vld1q_u8(REVERSE.as_ptr());
        let p = block.as_mut_ptr();
        blocks::<1>(&k, rev, p, p);
    }
}

/// §7.1 on every block of `data` in place (ECB with `rk`; reversed keys decrypt): eight
/// blocks at a time, then a 4-, 2- and 1-block tail as needed.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn crypt_blocks(rk: &[u32; ROUNDS], data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16), "whole blocks only");
    let p = data.as_mut_ptr();
    // SAFETY: the caller's CPU guarantee; `data.len()` bytes at `p`, in place.
    unsafe { crypt_ptr(rk, p, p, data.len()) }
}

/// ECB from `src` into `dst` (equal lengths, whole blocks) without a copy: the loop of
/// [`crypt_blocks`] reading one buffer and writing the other.
///
/// # Safety
/// As [`crypt_blocks`].
///
/// # Panics
/// If the lengths differ or are not a multiple of 16.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn crypt_blocks_to(rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    assert!(src.len().is_multiple_of(16), "whole blocks only");
    assert_eq!(src.len(), dst.len(), "equal lengths");
    // SAFETY: the caller's CPU guarantee; `src` and `dst` are distinct borrows of
    // `src.len()` bytes each.
    unsafe { crypt_ptr(rk, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// The ECB loop over `len` bytes (a multiple of 16) from `src` to `dst`.
///
/// # Safety
/// FEAT_SM4 and NEON; `len` readable bytes at `src` and writable bytes at `dst`, the same
/// pointer or not overlapping.
#[target_feature(enable = "neon,sm4")]
unsafe fn crypt_ptr(rk: &[u32; ROUNDS], mut src: *const u8, mut dst: *mut u8, len: usize) {
    // SAFETY: each kernel call gets the next 16·G of the `len` bytes (caller).
    unsafe {
        let k = round_keys(rk);
        let rev = vld1q_u8(REVERSE.as_ptr());
        let mut rest = len;
        while rest >= 16 * WIDE {
            blocks::<WIDE>(&k, rev, src, dst);
            (src, dst, rest) = (src.add(16 * WIDE), dst.add(16 * WIDE), rest - 16 * WIDE);
        }
        if rest >= 64 {
            blocks::<4>(&k, rev, src, dst);
            (src, dst, rest) = (src.add(64), dst.add(64), rest - 64);
        }
        if rest >= 32 {
            blocks::<2>(&k, rev, src, dst);
            (src, dst, rest) = (src.add(32), dst.add(32), rest - 32);
        }
        if rest > 0 {
            blocks::<1>(&k, rev, src, dst);
        }
    }
}

/// CTR: XORs the keystream E(counter), E(counter + 1), ... (128-bit big-endian counter,
/// wrapping modulo 2^128) into every block of `data`, and advances `counter` by the
/// number of blocks. Eight counters are built in registers and encrypted at a time.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn ctr_xor(rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16), "whole blocks only");
    // SAFETY: NEON + SM4 enabled here (the caller checked the CPU); each kernel call gets
    // a chunk of exactly 16·G bytes of `data`.
    unsafe {
        let k = round_keys(rk);
        let rev = vld1q_u8(REVERSE.as_ptr());
        let mut ctr = *counter;
        let mut wide = data.chunks_exact_mut(16 * WIDE);
        for c in &mut wide {
            ctr_blocks::<WIDE>(&k, rev, ctr, c.as_mut_ptr());
            ctr = ctr.wrapping_add(WIDE as u128);
        }
        let mut rest = wide.into_remainder();
        if rest.len() >= 64 {
            ctr_blocks::<4>(&k, rev, ctr, rest.as_mut_ptr());
            ctr = ctr.wrapping_add(4);
            rest = &mut rest[64..];
        }
        if rest.len() >= 32 {
            ctr_blocks::<2>(&k, rev, ctr, rest.as_mut_ptr());
            ctr = ctr.wrapping_add(2);
            rest = &mut rest[32..];
        }
        if !rest.is_empty() {
            ctr_blocks::<1>(&k, rev, ctr, rest.as_mut_ptr());
            ctr = ctr.wrapping_add(1);
        }
        *counter = ctr;
    }
}

/// A serial mode over the whole blocks of `data` with `rk` (the encryption keys), the
/// round keys held in registers across blocks and the chaining value `reg` in a
/// register; `reg` is updated for the next call.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn serial(rk: &[u32; ROUNDS], mode: Serial, reg: &mut [u8; 16], data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16), "whole blocks only");
    // SAFETY: NEON + SM4 enabled here (the caller checked the CPU); every load and store
    // is one block of `data` or `reg`.
    unsafe {
        let k = round_keys(rk);
        let rev = vld1q_u8(REVERSE.as_ptr());
        // The chaining value as bytes.
        let mut r = vld1q_u8(reg.as_ptr());
        // E of a block given as bytes, as bytes.
        macro_rules! enc {
            ($x:expr) => {{
                let mut s = [vreinterpretq_u32_u8(vrev32q_u8($x))];
                rounds(&k, &mut s);
                output(rev, s[0])
            }};
        }
        let blocks = data.chunks_exact_mut(16);
        match mode {
            Serial::CbcEncrypt => {
                for b in blocks {
                    r = enc!(veorq_u8(r, vld1q_u8(b.as_ptr())));
                    vst1q_u8(b.as_mut_ptr(), r);
                }
            }
            Serial::CbcMac => {
                for b in blocks {
                    r = enc!(veorq_u8(r, vld1q_u8(b.as_ptr())));
                }
            }
            Serial::CfbEncrypt => {
                for b in blocks {
                    r = veorq_u8(enc!(r), vld1q_u8(b.as_ptr()));
                    vst1q_u8(b.as_mut_ptr(), r);
                }
            }
            Serial::Ofb => {
                for b in blocks {
                    r = enc!(r);
                    vst1q_u8(b.as_mut_ptr(), veorq_u8(r, vld1q_u8(b.as_ptr())));
                }
            }
        }
        vst1q_u8(reg.as_mut_ptr(), r);
    }
}

/// `G` blocks of CBC decryption (`CFB` false: P_i = D(C_i) ^ C_{i-1}, `k` the decryption
/// keys) or CFB decryption (`CFB` true: P_i = C_i ^ E(C_{i-1}), `k` the encryption keys)
/// in place at `p`; `r` holds C_{-1} and is left holding the last ciphertext block.
///
/// # Safety
/// 16·G readable and writable bytes at `p`; only for functions compiled with the `neon`
/// and `sm4` target features.
#[inline(always)]
unsafe fn chain_blocks<const G: usize, const CFB: bool>(
    k: &[uint32x4_t; 8],
    rev: uint8x16_t,
    r: &mut uint8x16_t,
    p: *mut u8,
) {
    // SAFETY: every access is one of the 16·G bytes at `p` (caller); all loads come
    // before the stores; NEON and SM4 are enabled on the calling function.
    unsafe {
        let c: [uint8x16_t; G] = core::array::from_fn(|b| vld1q_u8(p.add(16 * b)));
        let prev: [uint8x16_t; G] = core::array::from_fn(|b| if b == 0 { *r } else { c[b - 1] });
        let input = if CFB { &prev } else { &c };
        let mut x: [uint32x4_t; G] =
            core::array::from_fn(|b| vreinterpretq_u32_u8(vrev32q_u8(input[b])));
        rounds(k, &mut x);
        let other = if CFB { &c } else { &prev };
        for b in 0..G {
            vst1q_u8(p.add(16 * b), veorq_u8(output(rev, x[b]), other[b]));
        }
        *r = c[G - 1];
    }
}

/// CBC decryption (`cfb` false, `rk` the decryption keys) or CFB decryption (`cfb` true,
/// `rk` the encryption keys) of every block of `data` in place, eight blocks in flight;
/// `reg` (C_{-1}) is left holding the last ciphertext block. Returns `data.len()`.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn chain_decrypt(
    rk: &[u32; ROUNDS],
    cfb: bool,
    reg: &mut [u8; 16],
    data: &mut [u8],
) -> usize {
    assert!(data.len().is_multiple_of(16), "whole blocks only");
    // SAFETY: NEON + SM4 enabled here (the caller checked the CPU); each kernel call gets
    // the next 16·G bytes of `data`.
    unsafe {
        let k = round_keys(rk);
        let rev = vld1q_u8(REVERSE.as_ptr());
        let mut r = vld1q_u8(reg.as_ptr());
        let mut wide = data.chunks_exact_mut(16 * WIDE);
        for c in &mut wide {
            if cfb {
                chain_blocks::<WIDE, true>(&k, rev, &mut r, c.as_mut_ptr());
            } else {
                chain_blocks::<WIDE, false>(&k, rev, &mut r, c.as_mut_ptr());
            }
        }
        for c in wide.into_remainder().chunks_exact_mut(16) {
            if cfb {
                chain_blocks::<1, true>(&k, rev, &mut r, c.as_mut_ptr());
            } else {
                chain_blocks::<1, false>(&k, rev, &mut r, c.as_mut_ptr());
            }
        }
        vst1q_u8(reg.as_mut_ptr(), r);
    }
    data.len()
}

/// §7.3 key schedule with `SM4EKEY`: the 32 encryption round keys of `key` (reverse them
/// to decrypt), equal to the portable schedule's.
///
/// # Safety
/// The CPU must have FEAT_SM4 (and NEON), i.e.
/// `std::arch::is_aarch64_feature_detected!("sm4")` is true.
#[target_feature(enable = "neon,sm4")]
pub(crate) unsafe fn expand_key(key: &[u8; 16]) -> [u32; ROUNDS] {
    let (fk, ck) = (super::FK, super::CK);
    let mut rk = [0u32; ROUNDS];
    // SAFETY: NEON + SM4 enabled here (the caller checked the CPU); the loads read the
    // 16 bytes of `key`, the 4 words of `fk` and 4 of the 32 words of `ck`, the stores
    // write 4 of the 32 words of `rk`.
    unsafe {
        // (K0, K1, K2, K3) = MK ^ FK, as state words.
        let mut kv = veorq_u32(load(key.as_ptr()), vld1q_u32(fk.as_ptr()));
        for j in 0..ROUNDS / 4 {
            let c = vld1q_u32(ck.as_ptr().add(4 * j));
            // SM4EKEY: lanes of the result = rk_{4j..4j+4} = K_{4j+4..4j+8}.
            asm!(
                "sm4ekey {k:v}.4s, {k:v}.4s, {c:v}.4s",
                k = inout(vreg) kv,
                c = in(vreg) c,
                options(pure, nomem, nostack, preserves_flags)
            );
            vst1q_u32(rk.as_mut_ptr().add(4 * j), kv);
        }
    }
    rk
}

#[cfg(test)]
mod tests {
    use super::super::{soft, Sm4};
    use super::*;
    use crate::cpu::Backend;

    fn have_sm4() -> bool {
        std::arch::is_aarch64_feature_detected!("sm4")
    }

    /// A key derived from `seed` (not all bytes alike).
    fn key(seed: u8) -> [u8; 16] {
        core::array::from_fn(|i| {
            (i as u8)
                .wrapping_mul(37)
                .wrapping_add(seed.wrapping_mul(91))
        })
    }

    /// `n` blocks of data derived from `seed`.
    fn data(n: usize, seed: u8) -> Vec<u8> {
        (0..16 * n)
            .map(|i| ((i * 7 + i / 13) as u8) ^ seed.wrapping_mul(53))
            .collect()
    }

    /// The portable CTR: counter blocks encrypted by `soft`, XORed into `data`.
    fn soft_ctr(rk: &[u32; ROUNDS], start: u128, data: &mut [u8]) {
        let mut ks = vec![0u8; data.len()];
        for (i, b) in ks.chunks_exact_mut(16).enumerate() {
            b.copy_from_slice(&start.wrapping_add(i as u128).to_be_bytes());
        }
        soft::crypt_blocks(rk, &mut ks);
        for (d, k) in data.iter_mut().zip(&ks) {
            *d ^= k;
        }
    }

    /// GB/T 32907-2016 A.1: key = plaintext = 0123456789abcdeffedcba9876543210.
    #[test]
    fn known_answer() {
        if !have_sm4() {
            return;
        }
        let k: [u8; 16] = hex::decode("0123456789abcdeffedcba9876543210")
            .unwrap()
            .try_into()
            .unwrap();
        let ct = hex::decode("681edf34d206965e86b3e94f536e4246").unwrap();
        let c = Sm4::with_backend(&k, Backend::Portable);
        let mut b = k;
        // SAFETY: FEAT_SM4 checked above.
        unsafe { crypt_block(&c.rk.enc, &mut b) };
        assert_eq!(&b[..], &ct[..]);
        // SAFETY: as above.
        unsafe { crypt_block(&c.rk.dec, &mut b) };
        assert_eq!(b, k);
        let mut many = k.repeat(11);
        // SAFETY: as above.
        unsafe { crypt_blocks(&c.rk.enc, &mut many) };
        assert!(many.chunks(16).all(|b| b == &ct[..]));
    }

    /// GB/T 32907-2016 A.2: the A.1 plaintext encrypted 1 000 000 times with its key.
    #[test]
    fn known_answer_million() {
        if !have_sm4() {
            return;
        }
        let k: [u8; 16] = hex::decode("0123456789abcdeffedcba9876543210")
            .unwrap()
            .try_into()
            .unwrap();
        let c = Sm4::with_backend(&k, Backend::Portable);
        let mut b = k;
        for _ in 0..1_000_000 {
            // SAFETY: FEAT_SM4 checked above.
            unsafe { crypt_block(&c.rk.enc, &mut b) };
        }
        assert_eq!(hex::encode(b), "595298c7c6fd271f0402f804c33d3f66");
    }

    /// Every length from 0 to 40 blocks and some long ones, against the portable
    /// backend, both directions; and `crypt_block` on each block alone.
    #[test]
    fn blocks_agree_with_portable() {
        if !have_sm4() {
            return;
        }
        for seed in 0..4u8 {
            let c = Sm4::with_backend(&key(seed), Backend::Portable);
            for n in (0..=40).chain([63, 64, 65, 257]) {
                let plain = data(n, seed);
                let mut want = plain.clone();
                soft::crypt_blocks(&c.rk.enc, &mut want);
                let mut got = plain.clone();
                // SAFETY: FEAT_SM4 checked above.
                unsafe { crypt_blocks(&c.rk.enc, &mut got) };
                assert_eq!(got, want, "seed={seed} n={n}");
                // SAFETY: as above.
                unsafe { crypt_blocks(&c.rk.dec, &mut got) };
                assert_eq!(got, plain, "decrypt seed={seed} n={n}");
                let mut one = plain.clone();
                for b in one.chunks_exact_mut(16) {
                    // SAFETY: as above.
                    unsafe { crypt_block(&c.rk.enc, b.try_into().unwrap()) };
                }
                assert_eq!(one, want, "crypt_block seed={seed} n={n}");
            }
        }
    }

    /// CTR against the portable CTR for every length up to 40 blocks and some long ones,
    /// from counters whose low word, low half or whole value wraps inside the data;
    /// split calls continue the counter.
    #[test]
    fn ctr_agrees_with_portable() {
        if !have_sm4() {
            return;
        }
        let c = Sm4::with_backend(&key(9), Backend::Portable);
        let rk = &c.rk.enc;
        for start in [
            0u128,
            5,
            0xffff_fff9,
            0xffff_fffb,
            0xffff_ffff,
            (3u128 << 32) | 0xffff_fff0,
            (1u128 << 64) - 3,
            (0x1234u128 << 96) | ((1u128 << 64) - 17),
            u128::MAX - 6,
            u128::MAX,
        ] {
            for n in (0..=40).chain([129, 257]) {
                let plain = data(n, n as u8);
                let mut want = plain.clone();
                soft_ctr(rk, start, &mut want);
                let mut got = plain.clone();
                let mut ctr = start;
                // SAFETY: FEAT_SM4 checked above.
                unsafe { ctr_xor(rk, &mut ctr, &mut got) };
                assert_eq!(got, want, "start={start:x} n={n}");
                assert_eq!(ctr, start.wrapping_add(n as u128), "start={start:x} n={n}");
                let cut = 16 * (n / 3);
                let mut split = plain.clone();
                let mut ctr = start;
                let (a, b) = split.split_at_mut(cut);
                // SAFETY: as above.
                unsafe {
                    ctr_xor(rk, &mut ctr, a);
                    ctr_xor(rk, &mut ctr, b);
                }
                assert_eq!(split, want, "split start={start:x} n={n}");
            }
        }
    }

    /// `SM4EKEY` schedule equals the portable one (and so encrypts A.1 correctly).
    #[test]
    fn expand_key_matches_portable() {
        if !have_sm4() {
            return;
        }
        for seed in 0..32u8 {
            let k = key(seed);
            let c = Sm4::with_backend(&k, Backend::Portable);
            // SAFETY: FEAT_SM4 checked above.
            let rk = unsafe { expand_key(&k) };
            assert_eq!(rk, c.rk.enc, "seed={seed}");
        }
    }
}
