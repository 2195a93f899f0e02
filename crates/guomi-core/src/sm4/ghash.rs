//! GHASH (NIST SP 800-38D §6.4) for SM4-GCM: portable constant-time multiplication
//! (carry-less products from integer multiplications with masked bit classes), and
//! dispatch to the carry-less-multiply backends, one file each: PCLMULQDQ
//! (`ghash_pclmul.rs`, `avx2`), VPCLMULQDQ (`ghash_vpclmul.rs`, `avx512`), PMULL
//! (`ghash_pmull.rs`, `neon`/`armsm` with `pmull`), Zvkg (`ghash_zvkg.rs`, `zvk`).

#![cfg_attr(
    any(target_arch = "aarch64", target_arch = "riscv64"),
    allow(unsafe_code)
)]

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
))]
use crate::cpu;
use crate::cpu::Variant;
use zeroize::Zeroize;

/// 32x32 -> 64-bit carry-less product with integer multiplications: each operand is split
/// into four classes of bits (positions ≡ 0, 1, 2, 3 mod 4), so every column of a partial
/// product sums at most 8 ones and the carries land in the three "holes" above it, which
/// the final masks discard. Constant time wherever integer multiplication is (every
/// mainstream 64-bit CPU).
#[inline(always)]
fn bmul32(x: u32, y: u32) -> u64 {
    const M: [u64; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
    let (x, y) = (u64::from(x), u64::from(y));
    let xs = M.map(|m| x & m);
    let ys = M.map(|m| y & m);
    let z = |c: usize| -> u64 { (0..4).fold(0, |acc, i| acc ^ (xs[i] * ys[(c + 4 - i) % 4])) };
    (z(0) & 0x1111_1111_1111_1111)
        | (z(1) & 0x2222_2222_2222_2222)
        | (z(2) & 0x4444_4444_4444_4444)
        | (z(3) & 0x8888_8888_8888_8888)
}

/// 64x64 -> 128-bit carry-less product (Karatsuba over 32-bit halves).
#[inline(always)]
fn clmul64(a: u64, b: u64) -> u128 {
    let (a0, a1, b0, b1) = (a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32);
    let lo = bmul32(a0, b0);
    let hi = bmul32(a1, b1);
    let mid = bmul32(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    (u128::from(hi) << 64) ^ (u128::from(mid) << 32) ^ u128::from(lo)
}

/// Product in GF(2^128) = GF(2)[x]/(x^128 + x^7 + x^2 + x + 1), operands and result in the
/// normal bit order (bit i = coefficient of x^i).
fn gf128_mul_normal(a: u128, b: u128) -> u128 {
    let (a0, a1, b0, b1) = (a as u64, (a >> 64) as u64, b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    let (low, high) = (lo ^ (mid << 64), hi ^ (mid >> 64));
    // x^128 = x^7 + x^2 + x + 1: fold the high half, then the bits it pushed past x^127.
    let spill = (high >> 127) ^ (high >> 126) ^ (high >> 121);
    low ^ high
        ^ (high << 1)
        ^ (high << 2)
        ^ (high << 7)
        ^ spill
        ^ (spill << 1)
        ^ (spill << 2)
        ^ (spill << 7)
}

/// §6.3 multiplication in the GCM bit order (bit 0 = MSB of byte 0), for the tests.
#[cfg(test)]
fn gf128_mul(x: u128, h: u128) -> u128 {
    gf128_mul_normal(x.reverse_bits(), h.reverse_bits()).reverse_bits()
}

/// H^1..H^32 in the carry-less-multiply representation of the x86 backends.
pub(crate) type HPowers = [[u64; 2]; 32];

/// Inputs shorter than this (in bytes: 32 blocks) take the `ghash_short` paths alone.
#[cfg(target_arch = "x86_64")]
const SHORT_BYTES: usize = 32 * 16;

/// A GHASH key: the hash subkey H = E_K(0^128) and, for the SIMD backends, its powers.
#[derive(Clone)]
pub(crate) struct GhashKey {
    /// The aarch64/riscv64 carry-less-multiply kernel, with its CPU proof.
    native: Native,
    h: u128,
    /// H^1..H^32 in the backend's carry-less-multiply representation (x86; H^1..H^8 for
    /// PMULL).
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    powers: HPowers,
    /// For the AVX-512 short path: H^32..H^1 (`rev[i]` = H^(32 − i)) and the Karatsuba
    /// middle factor of each (h.lo ^ h.hi in both qwords).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    rev: HPowers,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    rev_kara: HPowers,
}

impl Drop for GhashKey {
    fn drop(&mut self) {
        self.h.zeroize();
        self.powers.zeroize();
        self.rev.zeroize();
        self.rev_kara.zeroize();
    }
}

/// The GHASH kernels, each with the proof that this CPU runs it.
#[derive(Clone, Copy)]
enum Native {
    /// Portable.
    None,
    /// x86-64 PCLMULQDQ (`avx2`).
    #[cfg(target_arch = "x86_64")]
    Pclmul(cpu::Avx2),
    /// x86-64 VPCLMULQDQ on zmm (`avx512`).
    #[cfg(target_arch = "x86_64")]
    Vpclmul(cpu::Avx512),
    /// aarch64 PMULL.
    #[cfg(target_arch = "aarch64")]
    Pmull(cpu::Pmull),
    /// riscv64 Zvkg.
    #[cfg(target_arch = "riscv64")]
    Zvkg(cpu::Zvkg),
}

impl GhashKey {
    /// The key for hash subkey `h` on `variant` (clamped to what this CPU supports).
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn new(h: [u8; 16], variant: Variant) -> GhashKey {
        let variant = variant.clamp();
        #[allow(unused_mut)]
        let mut powers = [[0u64; 2]; 32];
        #[allow(unused_mut)]
        let mut native = Native::None;
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = variant.avx2() {
            super::ghash_pclmul::ghash_powers(t, &h, &mut powers);
            native = match variant.avx512() {
                Some(t) => Native::Vpclmul(t),
                None => Native::Pclmul(t),
            };
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = variant.pmull() {
            let first: &mut [[u64; 2]; 8] = (&mut powers[..8]).try_into().unwrap();
            // SAFETY: the token proves PMULL.
            unsafe { super::ghash_pmull::powers(&h, first) };
            native = Native::Pmull(t);
        }
        #[cfg(target_arch = "riscv64")]
        if let Some(t) = variant.zvkg() {
            native = Native::Zvkg(t);
        }
        let mut rev = powers;
        rev.reverse();
        let rev_kara = rev.map(|[lo, hi]| [lo ^ hi, lo ^ hi]);
        GhashKey {
            native,
            h: u128::from_be_bytes(h),
            powers,
            rev,
            rev_kara,
        }
    }

    /// Absorbs `data` (whole blocks) into `y`.
    ///
    /// On the x86 backends a short input (under 32 blocks, such as one small message of
    /// a batch) takes one aggregated reduction (`ghash_short`: four blocks per zmm on
    /// AVX-512, one per xmm on AVX2); a longer one has
    /// its first `blocks mod 16` blocks done that way and the rest (whole groups of 16)
    /// by the backend's wide kernel, so no block is ever multiplied serially.
    pub(crate) fn update_blocks(&self, y: &mut [u8; 16], data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(16));
        match self.native {
            Native::None => {}
            #[cfg(target_arch = "x86_64")]
            Native::Pclmul(t) => {
                if data.len() < SHORT_BYTES {
                    super::ghash_pclmul::ghash_short(t, &self.powers, y, data);
                    return;
                }
                let head = data.len() % 256;
                super::ghash_pclmul::ghash_short(t, &self.powers, y, &data[..head]);
                super::ghash_pclmul::ghash(t, &self.powers, y, &data[head..]);
                return;
            }
            #[cfg(target_arch = "x86_64")]
            Native::Vpclmul(t) => {
                let short = |y: &mut [u8; 16], d: &[u8]| {
                    super::ghash_vpclmul::ghash_short(t, &self.rev, &self.rev_kara, y, d);
                };
                if data.len() < SHORT_BYTES {
                    short(y, data);
                    return;
                }
                let head = data.len() % 256;
                short(y, &data[..head]);
                super::ghash_vpclmul::ghash(t, &self.powers, y, &data[head..]);
                return;
            }
            #[cfg(target_arch = "aarch64")]
            Native::Pmull(_) => {
                // SAFETY: the token proves PMULL.
                unsafe { super::ghash_pmull::ghash(&self.powers, y, data) };
                return;
            }
            #[cfg(target_arch = "riscv64")]
            Native::Zvkg(_) => {
                let h = self.h.to_be_bytes();
                // SAFETY: the token proves V and Zvkg.
                unsafe { super::ghash_zvkg::ghash(&h, y, data) };
                return;
            }
        }
        // Portable: work in the normal bit order, reversing the GCM-ordered blocks once
        // each.
        let h = self.h.reverse_bits();
        let mut acc = u128::from_be_bytes(*y).reverse_bits();
        for b in data.chunks_exact(16) {
            acc ^= u128::from_be_bytes(b.try_into().unwrap()).reverse_bits();
            acc = gf128_mul_normal(acc, h);
        }
        *y = acc.reverse_bits().to_be_bytes();
    }

    /// Absorbs `data`, zero-padding a final partial block.
    pub(crate) fn update_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        let whole = data.len() / 16 * 16;
        self.update_blocks(y, &data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(y, &last);
            last.zeroize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu;

    #[test]
    fn backends_agree_on_ghash() {
        let h = hex::decode("66e94bd4ef8a2c3b884cfa59ca342b2e")
            .unwrap()
            .try_into()
            .unwrap();
        // Every split of the x86 paths: short (< 32 blocks), head + groups of 16, several
        // groups of 32 inside the wide kernels.
        let data: Vec<u8> = (0..16 * 140).map(|i| (i * 31 + 7) as u8).collect();
        let reference = {
            let k = GhashKey::new(h, cpu::Backend::Portable.into());
            let mut out = Vec::new();
            for n in 0..140 {
                let mut y = [0x5au8; 16];
                k.update_blocks(&mut y, &data[..16 * n]);
                out.push(y);
            }
            out
        };
        // GCM spec test case 2 (AES): GHASH(H, {}, C) with one block gives a known value.
        for b in cpu::variants() {
            let k = GhashKey::new(h, b);
            for n in 0..140 {
                let mut y = [0x5au8; 16];
                k.update_blocks(&mut y, &data[..16 * n]);
                assert_eq!(y, reference[n], "{b:?} n={n}");
            }
        }
    }

    /// Bit-serial reference (SP 800-38D Algorithm 1).
    fn reference_mul(x: u128, h: u128) -> u128 {
        let mut z = 0u128;
        let mut v = h;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            v = if v & 1 == 1 {
                (v >> 1) ^ (0xe1 << 120)
            } else {
                v >> 1
            };
        }
        z
    }

    #[test]
    fn integer_multiply_clmul_matches_bit_serial() {
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut cases = vec![
            (u128::MAX, u128::MAX),
            (1, u128::MAX),
            (u128::MAX, 1 << 127),
            (0, 5),
        ];
        for _ in 0..2000 {
            let a = (u128::from(next()) << 64) | u128::from(next());
            let b = (u128::from(next()) << 64) | u128::from(next());
            cases.push((a, b));
        }
        for (a, b) in cases {
            assert_eq!(gf128_mul(a, b), reference_mul(a, b), "{a:x} {b:x}");
        }
        assert_eq!(bmul32(u32::MAX, u32::MAX), 0x5555_5555_5555_5555);
    }

    #[test]
    fn gf128_known_product() {
        // From the GCM specification (McGrew–Viega), AES test case 2:
        // H = 66e94bd4ef8a2c3b884cfa59ca342b2e, C = 0388dace60b6a392f328c2b971b2fe78,
        // GHASH(H, {}, C) = f38cbb1ad69223dcc3457ae5b6b0f885.
        let h = u128::from_str_radix("66e94bd4ef8a2c3b884cfa59ca342b2e", 16).unwrap();
        let c = u128::from_str_radix("0388dace60b6a392f328c2b971b2fe78", 16).unwrap();
        let len = 128u128; // len(A) = 0, len(C) = 128 bits
        let x1 = gf128_mul(c, h);
        let x2 = gf128_mul(x1 ^ len, h);
        assert_eq!(
            x2,
            u128::from_str_radix("f38cbb1ad69223dcc3457ae5b6b0f885", 16).unwrap()
        );
    }
}
