//! SM4 on plain Armv8 NEON (no SM4 instructions): constant time by construction.
//!
//! * S-box: the 256-byte table of GB/T 32907 §6.2 lives in sixteen q-registers, loaded once
//!   per call; a byte is looked up with `TBL`/`TBX` over four 64-byte quarters (index,
//!   index − 64, − 128, − 192: an out-of-range index gives 0 for `TBL` and leaves the byte
//!   unchanged for `TBX`, so exactly one quarter answers). Register lookups do not touch
//!   memory, so no address depends on the data or the key.
//! * Four blocks at a time, transposed: register i holds word X_i of four blocks (`LD4`
//!   and `ST4` transpose on the way in and out, `REV32` makes the words big-endian).
//! * L(B) = B ^ (B <<< 24) ^ ((B ^ B <<< 8 ^ B <<< 16) <<< 2): the byte rotations are one
//!   `TBL` or `REV32` each, the 2-bit rotation `SHL` + `SRI`.
//! * Rounds i and i + 1 share X_{i+2} ^ X_{i+3}.
//!
//! Per round and four blocks: 5/2 `EOR` for the round input, 3 `SUB` + 4 `TBL`/`TBX` for
//! τ, 10 for X_i ^ L(·) and a quarter of an `LD4R` for the round keys, about 20
//! instructions. Compiled (rustc 1.95, opt-level 3, read back with objdump), four rounds
//! are 81 instructions and four blocks 667 in ECB (10.4 per byte) and about 680 in CTR
//! (10.6 per byte), against about 58 per byte for the portable bitsliced code. Eight
//! blocks at a time would not fit: the table, four state words, four round keys and the
//! two constants already take 26 of the 32 registers.
#![allow(unsafe_code)]

use super::ROUNDS;
use core::arch::aarch64::*;
use zeroize::Zeroize;

/// The S-box of GB/T 32907 §6.2 (row r holds S(16r) .. S(16r + 15)).
const SBOX: [u8; 256] = [
    0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
    0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
    0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
    0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
    0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
    0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
    0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
    0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
    0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
    0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
    0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
    0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
    0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
    0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
    0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
    0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
];

/// `TBL` index rotating each 32-bit lane left by 8 bits.
const ROL8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];

/// Blocks per kernel call (one register holds one word of each).
const LANES: usize = 4;

/// The constants kept in registers by the kernels.
struct Consts {
    /// The S-box as four 64-byte quarters.
    sbox: [uint8x16x4_t; 4],
    /// 64 in every byte (the step between quarters).
    quarter: uint8x16_t,
    /// [`ROL8`].
    rol8: uint8x16_t,
}

/// `v`, with its value hidden from the optimizer: the S-box steps then subtract one
/// register three times, instead of adding three separate constants (which the compiler
/// derives from a known value and then has no registers left to keep).
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn opaque(mut v: uint8x16_t) -> uint8x16_t {
    // SAFETY: an empty instruction sequence that claims to modify the register.
    unsafe {
        core::arch::asm!("/* {v:v} */", v = inout(vreg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// Loads [`Consts`].
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn consts() -> Consts {
    // SAFETY: each load reads 64 (or 16) bytes inside the constant tables.
    unsafe {
        Consts {
            sbox: core::array::from_fn(|q| vld1q_u8_x4(SBOX.as_ptr().add(64 * q))),
            quarter: opaque(vdupq_n_u8(64)),
            rol8: vld1q_u8(ROL8.as_ptr()),
        }
    }
}

/// The S-box on each of the 16 bytes of `t`, by register table lookups.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn sbox(c: &Consts, t: uint8x16_t) -> uint8x16_t {
    // SAFETY: register-only operations.
    unsafe {
        let s = vqtbl4q_u8(c.sbox[0], t);
        let t = vsubq_u8(t, c.quarter);
        let s = vqtbx4q_u8(s, c.sbox[1], t);
        let t = vsubq_u8(t, c.quarter);
        let s = vqtbx4q_u8(s, c.sbox[2], t);
        let t = vsubq_u8(t, c.quarter);
        vqtbx4q_u8(s, c.sbox[3], t)
    }
}

/// `x ^ L(b)` on each 32-bit lane, L of §6.2:
/// L(B) = B ^ (B <<< 24) ^ ((B ^ B <<< 8 ^ B <<< 16) <<< 2), with B <<< 16 and
/// B <<< 24 = (B <<< 8) <<< 16 by halfword swaps (`REV32`).
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn xor_l(c: &Consts, x: uint32x4_t, b: uint8x16_t) -> uint32x4_t {
    // SAFETY: register-only operations.
    unsafe {
        let rol16 = |v: uint8x16_t| vreinterpretq_u8_u16(vrev32q_u16(vreinterpretq_u16_u8(v)));
        let r8 = vqtbl1q_u8(b, c.rol8);
        let r16 = rol16(b);
        let r24 = rol16(r8);
        let a = vreinterpretq_u32_u8(veorq_u8(veorq_u8(b, r8), r16));
        let a2 = vsriq_n_u32::<30>(vshlq_n_u32::<2>(a), a);
        veorq_u32(veorq_u32(x, vreinterpretq_u32_u8(veorq_u8(b, r24))), a2)
    }
}

/// One round: X_{i+4} = X_i ^ L(τ(t)) with t = X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i given.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn round(c: &Consts, x0: uint32x4_t, t: uint32x4_t) -> uint32x4_t {
    // SAFETY: register-only operations.
    unsafe { xor_l(c, x0, sbox(c, vreinterpretq_u8_u32(t))) }
}

/// §7.1's 32 rounds on four transposed blocks: `x[i]` holds word X_i of each (as
/// numbers); on return `x[i]` holds X_{32+i}.
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn rounds(c: &Consts, rk: &[u32; ROUNDS], x: &mut [uint32x4_t; 4]) {
    // SAFETY: register operations, and `LD4R` of 4 words at `rk[r..r + 4]`, r ≤ 28.
    unsafe {
        let [mut x0, mut x1, mut x2, mut x3] = *x;
        for r in (0..ROUNDS).step_by(4) {
            let k = vld4q_dup_u32(rk.as_ptr().add(r));
            // Rounds r and r + 1 both use X_{r+2} ^ X_{r+3}; r + 2 and r + 3 both use
            // X_{r+4} ^ X_{r+5}.
            let m = veorq_u32(x2, x3);
            x0 = round(c, x0, veorq_u32(veorq_u32(m, x1), k.0));
            x1 = round(c, x1, veorq_u32(veorq_u32(m, x0), k.1));
            let m = veorq_u32(x0, x1);
            x2 = round(c, x2, veorq_u32(veorq_u32(m, x3), k.2));
            x3 = round(c, x3, veorq_u32(veorq_u32(m, x2), k.3));
        }
        *x = [x0, x1, x2, x3];
    }
}

/// Byte-reverses each 32-bit lane (big-endian words to numbers and back).
///
/// # Safety
/// Only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn rev32(v: uint32x4_t) -> uint32x4_t {
    // SAFETY: register-only operation.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(v))) }
}

/// Four consecutive blocks at `src` through the rounds, written to `dst` (the same
/// pointer for in place).
///
/// # Safety
/// 64 readable bytes at `src` and writable bytes at `dst`, the same or not overlapping;
/// only for functions compiled with the `neon` target feature.
#[inline(always)]
unsafe fn blocks4(c: &Consts, rk: &[u32; ROUNDS], src: *const u8, dst: *mut u8) {
    // SAFETY: `LD4`/`ST4` access exactly the 64 bytes at `src` and `dst` (caller),
    // unaligned allowed; the load comes before the store.
    unsafe {
        let v = vld4q_u32(src.cast::<u32>());
        let mut x = [rev32(v.0), rev32(v.1), rev32(v.2), rev32(v.3)];
        rounds(c, rk, &mut x);
        // R: (Y0, Y1, Y2, Y3) = (X35, X34, X33, X32).
        let y = uint32x4x4_t(rev32(x[3]), rev32(x[2]), rev32(x[1]), rev32(x[0]));
        vst4q_u32(dst.cast::<u32>(), y);
    }
}

/// CTR on four blocks at `p` with counters `ctr` .. `ctr + 3`, built transposed in
/// registers: the keystream XORed into the data in place.
///
/// # Safety
/// 64 readable and writable bytes at `p`; only for functions compiled with the `neon`
/// target feature.
#[inline(always)]
unsafe fn ctr4(c: &Consts, rk: &[u32; ROUNDS], ctr: u128, p: *mut u8) {
    // SAFETY: `LD4`/`ST4` access exactly the 64 bytes at `p` (caller); the other loads
    // read local arrays.
    unsafe {
        let mut x = if (ctr as u32) <= u32::MAX - (LANES as u32 - 1) {
            // No carry out of the last word within the four: only X3 differs (the counter
            // is public, so this branch leaks nothing).
            let step: [u32; 4] = [0, 1, 2, 3];
            [
                vdupq_n_u32((ctr >> 96) as u32),
                vdupq_n_u32((ctr >> 64) as u32),
                vdupq_n_u32((ctr >> 32) as u32),
                vaddq_u32(vdupq_n_u32(ctr as u32), vld1q_u32(step.as_ptr())),
            ]
        } else {
            let c: [u128; 4] = core::array::from_fn(|b| ctr.wrapping_add(b as u128));
            core::array::from_fn(|i| {
                let w: [u32; 4] = core::array::from_fn(|b| (c[b] >> (96 - 32 * i)) as u32);
                vld1q_u32(w.as_ptr())
            })
        };
        rounds(c, rk, &mut x);
        let d = vld4q_u32(p.cast::<u32>());
        let y = uint32x4x4_t(
            veorq_u32(d.0, rev32(x[3])),
            veorq_u32(d.1, rev32(x[2])),
            veorq_u32(d.2, rev32(x[1])),
            veorq_u32(d.3, rev32(x[0])),
        );
        vst4q_u32(p.cast::<u32>(), y);
    }
}

/// §7.1 on one block in place with the round keys `rk` (reversed keys decrypt): the
/// four-block kernel with the block's words in every lane.
///
/// # Safety
/// The CPU must have NEON (Advanced SIMD; every aarch64 Linux CPU does, and
/// `std::arch::is_aarch64_feature_detected!("neon")` says so).
#[target_feature(enable = "neon")]
pub(crate) unsafe fn crypt_block(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: NEON enabled here (the caller checked the CPU); register operations only.
    unsafe {
        let c = consts();
        let w = |i: usize| {
            u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ])
        };
        let mut x = [
            vdupq_n_u32(w(0)),
            vdupq_n_u32(w(1)),
            vdupq_n_u32(w(2)),
            vdupq_n_u32(w(3)),
        ];
        rounds(&c, rk, &mut x);
        for (i, y) in x.iter().rev().enumerate() {
            block[4 * i..4 * i + 4].copy_from_slice(&vgetq_lane_u32::<0>(*y).to_be_bytes());
        }
    }
}

/// §7.1 on every block of `data` in place (ECB with `rk`; reversed keys decrypt): four
/// blocks at a time, a shorter tail through a zeroed local buffer.
///
/// # Safety
/// The CPU must have NEON (Advanced SIMD; every aarch64 Linux CPU does, and
/// `std::arch::is_aarch64_feature_detected!("neon")` says so).
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon")]
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
#[target_feature(enable = "neon")]
pub(crate) unsafe fn crypt_blocks_to(rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    assert!(src.len().is_multiple_of(16), "whole blocks only");
    assert_eq!(src.len(), dst.len(), "equal lengths");
    // SAFETY: the caller's CPU guarantee; distinct borrows of `src.len()` bytes each.
    unsafe { crypt_ptr(rk, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// The ECB loop over `len` bytes (a multiple of 16) from `src` to `dst`.
///
/// # Safety
/// NEON; `len` readable bytes at `src` and writable bytes at `dst`, the same pointer or
/// not overlapping.
#[target_feature(enable = "neon")]
unsafe fn crypt_ptr(rk: &[u32; ROUNDS], mut src: *const u8, mut dst: *mut u8, len: usize) {
    // SAFETY: each kernel call gets the next 64 of the `len` bytes (caller) or the local
    // buffer.
    unsafe {
        let c = consts();
        let mut buf = [0u8; 16 * LANES];
        let mut rest = len;
        while rest > 0 {
            // One call site for whole chunks and the tail (through `buf`), so the kernel
            // is inlined once, with the table in registers.
            let n = rest.min(buf.len());
            let whole = n == buf.len();
            let (s, d) = if whole {
                (src, dst)
            } else {
                core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), n);
                (buf.as_ptr(), buf.as_mut_ptr())
            };
            blocks4(&c, rk, s, d);
            if !whole {
                core::ptr::copy_nonoverlapping(buf.as_ptr(), dst, n);
                buf.zeroize();
            }
            (src, dst, rest) = (src.add(n), dst.add(n), rest - n);
        }
    }
}

/// CTR: XORs the keystream E(counter), E(counter + 1), ... (128-bit big-endian counter,
/// wrapping modulo 2^128) into every block of `data`, and advances `counter` by the
/// number of blocks. The counters of four blocks are built transposed in registers.
///
/// # Safety
/// The CPU must have NEON (Advanced SIMD; every aarch64 Linux CPU does, and
/// `std::arch::is_aarch64_feature_detected!("neon")` says so).
///
/// # Panics
/// If `data.len()` is not a multiple of 16.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn ctr_xor(rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16), "whole blocks only");
    // SAFETY: NEON enabled here (the caller checked the CPU); each kernel call gets 64
    // bytes of `data` or of the local buffer.
    unsafe {
        let c = consts();
        let mut ctr = *counter;
        let mut buf = [0u8; 16 * LANES];
        for ch in data.chunks_mut(16 * LANES) {
            // One call site for whole chunks and the tail, as in `crypt_blocks`.
            let whole = ch.len() == buf.len();
            let p = if whole {
                ch.as_mut_ptr()
            } else {
                buf[..ch.len()].copy_from_slice(ch);
                buf.as_mut_ptr()
            };
            ctr4(&c, rk, ctr, p);
            if !whole {
                ch.copy_from_slice(&buf[..ch.len()]);
                buf.zeroize();
            }
            ctr = ctr.wrapping_add((ch.len() / 16) as u128);
        }
        *counter = ctr;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{soft, Sm4};
    use super::*;
    use crate::cpu::Backend;

    fn have_neon() -> bool {
        std::arch::is_aarch64_feature_detected!("neon")
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

    /// The register table is the S-box of the portable code (through τ, which applies
    /// it to each byte of a word).
    #[test]
    fn table_is_the_sbox() {
        for x in 0..=255u32 {
            let w = x | ((x ^ 0x3c) << 8) | ((255 - x) << 16) | (x.wrapping_mul(11) & 0xff) << 24;
            let want = soft::tau(w).to_be_bytes();
            let got = w.to_be_bytes().map(|b| SBOX[b as usize]);
            assert_eq!(got, want, "x={x}");
        }
    }

    /// GB/T 32907-2016 A.1: key = plaintext = 0123456789abcdeffedcba9876543210.
    #[test]
    fn known_answer() {
        if !have_neon() {
            return;
        }
        let k: [u8; 16] = hex::decode("0123456789abcdeffedcba9876543210")
            .unwrap()
            .try_into()
            .unwrap();
        let ct = hex::decode("681edf34d206965e86b3e94f536e4246").unwrap();
        let c = Sm4::with_backend(&k, Backend::Portable);
        let mut b = k;
        // SAFETY: NEON checked above.
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

    /// Every length from 0 to 40 blocks and some long ones, against the portable
    /// backend, both directions; and `crypt_block` on each block alone.
    #[test]
    fn blocks_agree_with_portable() {
        if !have_neon() {
            return;
        }
        for seed in 0..4u8 {
            let c = Sm4::with_backend(&key(seed), Backend::Portable);
            for n in (0..=40).chain([63, 64, 65, 257]) {
                let plain = data(n, seed);
                let mut want = plain.clone();
                soft::crypt_blocks(&c.rk.enc, &mut want);
                let mut got = plain.clone();
                // SAFETY: NEON checked above.
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
        if !have_neon() {
            return;
        }
        let c = Sm4::with_backend(&key(9), Backend::Portable);
        let rk = &c.rk.enc;
        for start in [
            0u128,
            5,
            0xffff_fffb,
            0xffff_fffd,
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
                // SAFETY: NEON checked above.
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
}
