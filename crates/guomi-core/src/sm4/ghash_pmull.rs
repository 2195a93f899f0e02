//! GHASH (NIST SP 800-38D §6.4) with the aarch64 carry-less multiplies PMULL/PMULL2
//! (FEAT_PMULL, Rust's target feature "aes").
//!
//! Representation. A GCM block, read as a big-endian 128-bit integer, holds the
//! coefficient of x^0 in its most significant bit: the "reflected" order. The carry-less
//! product of two reflected operands is the reflected product times x, so H is stored
//! pre-divided by x (H·x^-1, a one-bit left shift of the integer, reduced by
//! 0xc2000000_00000000_00000000_00000001) and the products come out right. The reduction
//! modulo x^128 + x^7 + x^2 + x + 1 folds the low 128 bits of the 256-bit product (the
//! high degrees) twice with a multiplication by 0xc200000000000000 (x^1 + x^2 + x^7,
//! reflected; the x^0 term of the polynomial is a plain XOR). This is the technique of
//! Gueron and Kounavis's carry-less multiplication white paper, used by OpenSSL's
//! ghashv8-armx and the Linux kernel's ghash-ce; the code here is written from it.
//!
//! In registers a 128-bit value V sits "swapped": lane 0 holds the high 64 bits of V and
//! lane 1 the low ones. That is what a 16-byte load followed by REV64 gives, so a block
//! costs one instruction to bring into form; products index their lanes accordingly.
//!
//! Blocks are absorbed eight per iteration, (Y ^ X_0)·H^8 ^ X_1·H^7 ^ ... ^ X_7·H, with
//! schoolbook products (four multiplies each, no Karatsuba fix-up) accumulated unreduced
//! and one reduction per group; a shorter last group uses H^k..H^1 the same way. The
//! control flow and the memory accesses depend only on the data length.
//!
//! Static count of the 8-block loop (release build, `aarch64-linux-gnu-objdump -d`): 88
//! instructions per 128 bytes, 11 per block, 0.69 per byte: 34 PMULL/PMULL2 (32 products,
//! 2 for the reduction), 34 EOR, 8 REV64, 4 LDP of data, 2 EXT, 3 reloads of spilled
//! powers, 3 of loop control. Karatsuba (3 multiplies a block) would need an EXT and an
//! EOR per block to fold the data and the same count overall, with longer chains.

#![allow(unsafe_code)]

use core::arch::aarch64::{
    uint64x2_t, vcombine_u64, vcreate_u64, vdupq_n_u64, veorq_u64, vextq_u64, vld1q_u64, vld1q_u8,
    vld1q_u8_x4, vreinterpretq_u64_u8, vreinterpretq_u8_u64, vrev64q_u8, vst1q_u64, vst1q_u8,
};
use core::arch::asm;

/// x + x^2 + x^7 in the reflected order, placed so that the product with a 64-bit
/// reflected value lands in the qword above it (see the module documentation).
const POLY: u64 = 0xc200_0000_0000_0000;

/// The carry-less product of lanes 0 of `a` and `b` (PMULL).
///
/// Inline assembly rather than `vmull_p64`: the intrinsic takes its operands as scalars,
/// and LLVM then kept some of the powers of H in general-purpose registers, moving them
/// back into vectors inside the loop.
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let r;
    // SAFETY: PMULL computes on vector registers only; the function's target features
    // (FEAT_PMULL) make it available.
    unsafe {
        asm!(
            "pmull {r:v}.1q, {a:v}.1d, {b:v}.1d",
            r = lateout(vreg) r,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// The carry-less product of lanes 1 of `a` and `b` (PMULL2).
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull2(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let r;
    // SAFETY: as in `pmull`.
    unsafe {
        asm!(
            "pmull2 {r:v}.1q, {a:v}.2d, {b:v}.2d",
            r = lateout(vreg) r,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// The two lanes of `v` exchanged.
#[inline]
#[target_feature(enable = "neon")]
fn swap(v: uint64x2_t) -> uint64x2_t {
    vextq_u64::<1>(v, v)
}

/// A GCM block (or Y) in the swapped register form.
#[inline]
#[target_feature(enable = "neon")]
fn from_bytes(b: &[u8; 16]) -> uint64x2_t {
    // SAFETY: `b` is 16 readable bytes.
    unsafe { vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(b.as_ptr()))) }
}

/// An unreduced 256-bit product sum: `hi`, `mid` and `lo` are the 128-bit products of the
/// high qwords, the cross terms and the low qwords, each in the natural lane order.
#[derive(Clone, Copy)]
struct Wide {
    hi: uint64x2_t,
    mid: uint64x2_t,
    lo: uint64x2_t,
}

impl Wide {
    /// x·h for `x`, `h` in the swapped form and `hs` = `swap(h)`.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn mul(x: uint64x2_t, h: uint64x2_t, hs: uint64x2_t) -> Wide {
        Wide {
            hi: pmull(x, h),
            mid: veorq_u64(pmull(x, hs), pmull2(x, hs)),
            lo: pmull2(x, h),
        }
    }

    /// Adds x·h (as [`Wide::mul`]).
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn mul_add(&mut self, x: uint64x2_t, h: uint64x2_t, hs: uint64x2_t) {
        self.hi = veorq_u64(self.hi, pmull(x, h));
        self.lo = veorq_u64(self.lo, pmull2(x, h));
        self.mid = veorq_u64(self.mid, pmull(x, hs));
        self.mid = veorq_u64(self.mid, pmull2(x, hs));
    }

    /// The sum reduced modulo the GCM polynomial, in the swapped form.
    ///
    /// With the 256-bit value in qwords z3 (top, degrees 0..63) .. z0 (degrees 192..255)
    /// and the middle term m1:m0 added at z2:z1: fold z0 into z2:z1 (a multiplication by
    /// POLY plus z0 itself into z2), then the updated z1 into z3:z2 the same way.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn reduce(self) -> uint64x2_t {
        let poly = vdupq_n_u64(POLY);
        // Lane 0: z1 ^ m0 ^ (z0·POLY).lo (the new z1); lane 1: z0 ^ m1 ^ (z0·POLY).hi
        // (all that goes into z2 so far).
        let u = veorq_u64(veorq_u64(pmull(self.lo, poly), swap(self.lo)), self.mid);
        // z3:z2 ^= z1·POLY, and z1 itself into z3 (lane 0 of `u` in the swapped form).
        let top = veorq_u64(self.hi, pmull(u, poly));
        veorq_u64(swap(top), u)
    }
}

/// H^1..H^8 for [`ghash`]: `out[i]` = H^(i+1)·x^-1 as a 128-bit reflected integer in the
/// swapped register form (`out[i][0]` its high 64 bits, `out[i][1]` its low 64 bits),
/// where `h` is the hash subkey E_K(0^128) in GCM byte order.
///
/// # Safety
///
/// The CPU must implement Advanced SIMD and FEAT_PMULL (checked by the caller, e.g. with
/// `is_aarch64_feature_detected!("pmull")`; Rust's target feature "aes" covers both).
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn powers(h: &[u8; 16], out: &mut [[u64; 2]; 8]) {
    // H·x^-1: shift the reflected integer left by one; the bit shifted out (the
    // coefficient of x^0) comes back as x^-1 = x^127 + x^6 + x + 1.
    let r = u128::from_be_bytes(*h);
    let twisted =
        (r << 1) ^ (0u128.wrapping_sub(r >> 127) & 0xc200_0000_0000_0000_0000_0000_0000_0001);
    // Straight into a register (no buffer of key material to wipe).
    let h1 = vcombine_u64(
        vcreate_u64((twisted >> 64) as u64),
        vcreate_u64(twisted as u64),
    );
    let h1s = swap(h1);
    let mut cur = h1;
    for o in out.iter_mut() {
        // SAFETY: `o` is two writable u64s.
        unsafe { vst1q_u64(o.as_mut_ptr(), cur) };
        cur = Wide::mul(cur, h1, h1s).reduce();
    }
}

/// Absorbs the whole 16-byte blocks of `data` into the GHASH accumulator `y` (GCM byte
/// order): Y <- (Y ^ X)·H for each block X in turn. `powers[..8]` are H^1..H^8 as
/// [`powers`] writes them; the other entries are not read.
///
/// # Safety
///
/// The CPU must implement Advanced SIMD and FEAT_PMULL (checked by the caller, e.g. with
/// `is_aarch64_feature_detected!("pmull")`; Rust's target feature "aes" covers both).
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn ghash(powers: &[[u64; 2]; 32], y: &mut [u8; 16], data: &[u8]) {
    debug_assert!(data.len().is_multiple_of(16));
    if data.len() < 16 {
        return;
    }
    // SAFETY: `powers[i]` (bounds-checked) is two readable u64s.
    let power = |i: usize| unsafe { vld1q_u64(powers[i].as_ptr()) };
    let mut acc = from_bytes(y);

    let mut groups = data.chunks_exact(128);
    if data.len() >= 128 {
        // H^1..H^8 and their swaps stay in registers across the loop.
        let h: [uint64x2_t; 8] = core::array::from_fn(power);
        let hs = h.map(|v| swap(v));
        for g in &mut groups {
            // SAFETY: `g` is 128 readable bytes.
            let (a, b) = unsafe { (vld1q_u8_x4(g.as_ptr()), vld1q_u8_x4(g.as_ptr().add(64))) };
            let x = [a.0, a.1, a.2, a.3, b.0, b.1, b.2, b.3]
                .map(|v| vreinterpretq_u64_u8(vrev64q_u8(v)));
            let mut sum = Wide::mul(veorq_u64(acc, x[0]), h[7], hs[7]);
            for i in 1..8 {
                sum.mul_add(x[i], h[7 - i], hs[7 - i]);
            }
            acc = sum.reduce();
        }
    }

    // The last 1..7 blocks: (Y ^ X_0)·H^k ^ ... ^ X_(k-1)·H, one reduction; the powers
    // come straight from the table (no set-up for a short input).
    let rest = groups.remainder();
    let k = rest.len() / 16;
    if k > 0 {
        let block = |i: usize| from_bytes(rest[16 * i..16 * i + 16].try_into().unwrap());
        let hk = power(k - 1);
        let mut sum = Wide::mul(veorq_u64(acc, block(0)), hk, swap(hk));
        for i in 1..k {
            let hk = power(k - 1 - i);
            sum.mul_add(block(i), hk, swap(hk));
        }
        acc = sum.reduce();
    }

    // SAFETY: `y` is 16 writable bytes.
    unsafe { vst1q_u8(y.as_mut_ptr(), vrev64q_u8(vreinterpretq_u8_u64(acc))) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether this CPU (or emulator) has PMULL; prints why a test is skipped.
    fn have_pmull() -> bool {
        let ok = std::arch::is_aarch64_feature_detected!("pmull");
        if !ok {
            eprintln!("skipped: no FEAT_PMULL on this CPU");
        }
        ok
    }

    /// The power table for `h` as `GhashKey` holds it: the first 8 entries from
    /// `powers`, the rest junk (which `ghash` must not read).
    fn table(h: &[u8; 16]) -> [[u64; 2]; 32] {
        let mut p8 = [[0u64; 2]; 8];
        // SAFETY: every caller checked `have_pmull()` first.
        unsafe { powers(h, &mut p8) };
        let mut t = [[0x5eed_0bad_f00d_cafe_u64; 2]; 32];
        t[..8].copy_from_slice(&p8);
        t
    }

    /// GHASH of `data` from `y` with the PMULL kernel.
    fn pmull_ghash(t: &[[u64; 2]; 32], mut y: [u8; 16], data: &[u8]) -> [u8; 16] {
        // SAFETY: every caller checked `have_pmull()` first.
        unsafe { ghash(t, &mut y, data) };
        y
    }

    /// GHASH of `data` from `y` by the bit-serial multiplication of SP 800-38D
    /// Algorithm 1 (independent of every kernel and of `GhashKey`'s dispatch).
    fn reference_ghash(h: [u8; 16], y: [u8; 16], data: &[u8]) -> [u8; 16] {
        let h = u128::from_be_bytes(h);
        let mut acc = u128::from_be_bytes(y);
        for b in data.chunks_exact(16) {
            let x = acc ^ u128::from_be_bytes(b.try_into().unwrap());
            let (mut z, mut v) = (0u128, h);
            for i in 0..128 {
                if (x >> (127 - i)) & 1 == 1 {
                    z ^= v;
                }
                v = (v >> 1) ^ ((v & 1) * (0xe1 << 120));
            }
            acc = z;
        }
        acc.to_be_bytes()
    }

    /// Deterministic test bytes (xorshift64).
    fn bytes(n: usize, mut seed: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 32) as u8
            })
            .collect()
    }

    #[test]
    fn gcm_spec_test_case_2() {
        if !have_pmull() {
            return;
        }
        // McGrew–Viega GCM specification, AES test case 2: H, one ciphertext block C,
        // and GHASH(H, {}, C) over C and the length block (len(A) = 0, len(C) = 128).
        let h: [u8; 16] = hex::decode("66e94bd4ef8a2c3b884cfa59ca342b2e")
            .unwrap()
            .try_into()
            .unwrap();
        let mut data = hex::decode("0388dace60b6a392f328c2b971b2fe78").unwrap();
        data.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]);
        let want = hex::decode("f38cbb1ad69223dcc3457ae5b6b0f885").unwrap();
        assert_eq!(pmull_ghash(&table(&h), [0; 16], &data).to_vec(), want);
        assert_eq!(reference_ghash(h, [0; 16], &data).to_vec(), want);
    }

    #[test]
    fn matches_reference_0_to_40_blocks() {
        if !have_pmull() {
            return;
        }
        let data = bytes(16 * 40, 7);
        for (s, seed) in [11u64, 12, 13, 14].into_iter().enumerate() {
            let hy = bytes(32, seed);
            let mut h: [u8; 16] = hy[..16].try_into().unwrap();
            let y: [u8; 16] = hy[16..].try_into().unwrap();
            // The coefficient of x^0 of H (the top bit of byte 0) set and clear: the
            // twist's two cases.
            h[0] = (h[0] & 0x7f) | ((s as u8 & 1) << 7);
            let t = table(&h);
            for n in 0..=40 {
                let d = &data[..16 * n];
                assert_eq!(
                    pmull_ghash(&t, y, d),
                    reference_ghash(h, y, d),
                    "h {h:02x?} blocks {n}"
                );
            }
        }
    }

    #[test]
    fn matches_reference_1000_blocks_and_edges() {
        if !have_pmull() {
            return;
        }
        let data = bytes(16 * 1000, 99);
        let mut keys: Vec<[u8; 16]> = (0..4)
            .map(|i| bytes(16, 1000 + i).try_into().unwrap())
            .collect();
        keys.extend([[0u8; 16], [0xff; 16], {
            let mut one = [0u8; 16];
            one[0] = 0x80; // H = 1
            one
        }]);
        for h in keys {
            let t = table(&h);
            let y = [0xa5; 16];
            assert_eq!(
                pmull_ghash(&t, y, &data),
                reference_ghash(h, y, &data),
                "h {h:02x?}"
            );
            // Split calls chain like one call.
            let mut y2 = pmull_ghash(&t, y, &data[..16 * 37]);
            y2 = pmull_ghash(&t, y2, &data[16 * 37..]);
            assert_eq!(y2, reference_ghash(h, y, &data), "h {h:02x?} split");
        }
    }

    #[test]
    fn powers_are_powers() {
        if !have_pmull() {
            return;
        }
        // GHASH of one block X from Y = 0 with the kernel is X·H; the k-th power times
        // 1 must match k successive multiplications by H of the reference.
        let h: [u8; 16] = bytes(16, 5).try_into().unwrap();
        let t = table(&h);
        let mut one = [0u8; 16];
        one[0] = 0x80;
        for k in 1..=8 {
            // Blocks 1, 0, ..., 0 (k of them): 1·H^k.
            let mut data = vec![0u8; 16 * k];
            data[0] = 0x80;
            assert_eq!(
                pmull_ghash(&t, [0; 16], &data),
                reference_ghash(h, [0; 16], &data),
                "k {k}"
            );
        }
        assert_eq!(pmull_ghash(&t, [0; 16], &one), h, "1·H = H");
    }
}
