//! SM4-XTS for storage: XEX with ciphertext stealing (IEEE Std 1619-2018 / GB/T 17964-2021).
//!
//! The 32-byte key is key1 (data key) || key2 (tweak key); the 16-byte tweak is encrypted
//! with key2 to give T, then for block j: C_j = E_K1(P_j ^ T_j) ^ T_j and T_{j+1} = T_j·α.
//! The two standards differ only in how T is multiplied by α:
//! * [`Standard::Ieee`]: T is a little-endian 128-bit number: T << 1, reduced by
//!   x^128 + x^7 + x^2 + x + 1 (XOR 0x87 into the low byte).
//! * [`Standard::Gb`]: T is in the GCM bit order (bit-reflected): T >> 1 of the big-endian
//!   number, reduced by XOR 0xe1 into the first byte.
//!
//! Data units must be at least 16 bytes; a final partial block uses ciphertext stealing.

use super::{xor_in_place, Sm4, BLOCK_SIZE};
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use zeroize::Zeroize;

/// How the tweak is multiplied by α between blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Standard {
    /// GB/T 17964-2021 (OpenSSL's default for SM4-XTS).
    Gb,
    /// IEEE Std 1619.
    Ieee,
}

impl Standard {
    /// Parses "gb" or "ieee" (any case).
    pub fn parse(name: &str) -> Result<Standard> {
        match name.to_ascii_lowercase().as_str() {
            "gb" => Ok(Standard::Gb),
            "ieee" => Ok(Standard::Ieee),
            _ => Err(Error::InvalidValue(
                "unknown XTS standard: expected \"gb\" or \"ieee\"",
            )),
        }
    }
}

/// T·α in the chosen convention.
#[inline]
fn mul_alpha(t: &mut [u8; 16], std: Standard) {
    match std {
        Standard::Ieee => {
            let v = u128::from_le_bytes(*t);
            let carry = (v >> 127) as u8;
            *t = (v << 1).to_le_bytes();
            t[0] ^= 0x87 & 0u8.wrapping_sub(carry);
        }
        Standard::Gb => {
            let v = u128::from_be_bytes(*t);
            let carry = (v & 1) as u8;
            *t = (v >> 1).to_be_bytes();
            t[0] ^= 0xe1 & 0u8.wrapping_sub(carry);
        }
    }
}

/// T·α on the numeric form of T (little-endian for IEEE, big-endian for GB).
#[inline(always)]
fn mul_alpha_num(v: u128, std: Standard) -> u128 {
    match std {
        Standard::Ieee => (v << 1) ^ (0x87 & 0u128.wrapping_sub(v >> 127)),
        Standard::Gb => (v >> 1) ^ ((0xe1 << 120) & 0u128.wrapping_sub(v & 1)),
    }
}

/// The stored bytes of a numeric tweak.
#[inline(always)]
fn tweak_bytes(v: u128, std: Standard) -> [u8; 16] {
    match std {
        Standard::Ieee => v.to_le_bytes(),
        Standard::Gb => v.to_be_bytes(),
    }
}

/// The numeric tweak of stored bytes.
#[inline(always)]
fn tweak_num(b: &[u8; 16], std: Standard) -> u128 {
    match std {
        Standard::Ieee => u128::from_le_bytes(*b),
        Standard::Gb => u128::from_be_bytes(*b),
    }
}

/// An SM4-XTS key pair.
#[derive(Clone)]
pub struct Sm4Xts {
    data: Sm4,
    tweak: Sm4,
    std: Standard,
}

impl core::fmt::Debug for Sm4Xts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Xts")
            .field("standard", &self.std)
            .finish_non_exhaustive()
    }
}

impl Sm4Xts {
    /// From a 32-byte key (key1 || key2) for the active backend.
    pub fn new(key: &[u8], std: Standard) -> Result<Sm4Xts> {
        Sm4Xts::with_variant(key, std, cpu::active_variant())
    }

    /// From a 32-byte key for the best implementation at or below `backend` (clamped to
    /// what this CPU supports).
    pub fn with_backend(key: &[u8], std: Standard, backend: Backend) -> Result<Sm4Xts> {
        Sm4Xts::with_variant(key, std, Variant::from(backend))
    }

    /// From a 32-byte key for `variant` (clamped to what this CPU supports).
    pub fn with_variant(key: &[u8], std: Standard, variant: Variant) -> Result<Sm4Xts> {
        if key.len() != 32 {
            return Err(Error::InvalidLength {
                what: "key",
                expected: "32 bytes (key1 || key2)",
                got: key.len(),
            });
        }
        let (k1, k2) = key.split_at(16);
        // Equal halves turn XTS into XEX with one key, which Rogaway (2004) shows is
        // insecure for the first block of a unit. IEEE 1619 §5.1 only splits the key in
        // two; the check is FIPS 140-2 IG A.9 / FIPS 140-3 IG C.I (XTS-AES of SP 800-38E).
        // Declassified: the halves are equal -> InvalidKey, returned (ct_eq compares them).
        if crate::ct::declassify_choice(subtle::ConstantTimeEq::ct_eq(k1, k2)) {
            return Err(Error::InvalidKey(
                "XTS key halves must differ (key1 == key2 is refused, as FIPS 140-3 IG C.I requires)",
            ));
        }
        Ok(Sm4Xts {
            data: Sm4::with_variant(k1.try_into().unwrap(), variant),
            tweak: Sm4::with_variant(k2.try_into().unwrap(), variant),
            std,
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.data.backend()
    }

    /// The variant in use (chosen when the key was built).
    pub fn variant(&self) -> Variant {
        self.data.variant()
    }

    /// Encrypts one data unit (≥ 16 bytes) under `tweak` (16 bytes).
    pub fn encrypt(&self, tweak: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut out = data.to_vec();
        self.crypt_in_place(tweak, &mut out, false)?;
        Ok(out)
    }

    /// Decrypts one data unit (≥ 16 bytes) under `tweak` (16 bytes).
    pub fn decrypt(&self, tweak: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut out = data.to_vec();
        self.crypt_in_place(tweak, &mut out, true)?;
        Ok(out)
    }

    /// Encrypts or decrypts one data unit in place.
    pub fn crypt_in_place(&self, tweak: &[u8], d: &mut [u8], decrypt: bool) -> Result<()> {
        let mut t: [u8; 16] = tweak.try_into().map_err(|_| Error::InvalidLength {
            what: "tweak",
            expected: "16 bytes",
            got: tweak.len(),
        })?;
        if d.len() < BLOCK_SIZE {
            return Err(Error::InvalidLength {
                what: "data",
                expected: "at least 16 bytes",
                got: d.len(),
            });
        }
        self.tweak.encrypt_block(&mut t);
        let n = d.len();
        let r = n % BLOCK_SIZE;
        // Blocks handled by plain XEX; with stealing, the last whole block is special.
        let plain_blocks = if r == 0 {
            n / BLOCK_SIZE
        } else {
            n / BLOCK_SIZE - 1
        };
        self.xex_blocks(&mut t, &mut d[..plain_blocks * BLOCK_SIZE], decrypt);
        if r != 0 {
            // IEEE 1619 §5.3.2 / §5.4.2 ciphertext stealing; `t` is T_{m-1} here.
            let m1 = plain_blocks * BLOCK_SIZE;
            let mut t_next = t;
            mul_alpha(&mut t_next, self.std);
            let (first_t, second_t) = if decrypt { (t_next, t) } else { (t, t_next) };
            let mut cc: [u8; 16] = d[m1..m1 + 16].try_into().unwrap();
            self.xex_one(&first_t, &mut cc, decrypt);
            // Swap: the partial block takes the head of cc; cc's tail completes the last block.
            let mut pp = cc;
            pp[..r].copy_from_slice(&d[m1 + 16..]);
            d[m1 + 16..].copy_from_slice(&cc[..r]);
            self.xex_one(&second_t, &mut pp, decrypt);
            d[m1..m1 + 16].copy_from_slice(&pp);
            cc.zeroize();
            pp.zeroize();
            t_next.zeroize();
        }
        t.zeroize();
        Ok(())
    }

    fn xex_one(&self, t: &[u8; 16], b: &mut [u8; 16], decrypt: bool) {
        xor_in_place(b, t);
        self.data.block(decrypt, b);
        xor_in_place(b, t);
    }

    /// XEX over whole blocks, a chunk at a time; `t` advances past them.
    fn xex_blocks(&self, t: &mut [u8; 16], d: &mut [u8], decrypt: bool) {
        const TW: usize = 2048;
        let mut tw = [0u8; TW];
        // Keep T as a number: little-endian for IEEE, big-endian (bit-reflected) for GB.
        let mut v = match self.std {
            Standard::Ieee => u128::from_le_bytes(*t),
            Standard::Gb => u128::from_be_bytes(*t),
        };
        for chunk in d.chunks_mut(TW) {
            let n = chunk.len();
            // The first four tweaks one by one; with AVX-512 the rest four at a time.
            let blocks = n / BLOCK_SIZE;
            let first = if n.is_multiple_of(64) && blocks > 4 {
                4
            } else {
                blocks
            };
            for b in tw[..first * BLOCK_SIZE].chunks_exact_mut(BLOCK_SIZE) {
                b.copy_from_slice(&tweak_bytes(v, self.std));
                v = mul_alpha_num(v, self.std);
            }
            let mut done = first * BLOCK_SIZE;
            if done < n && self.data.xts_tweaks(self.std == Standard::Gb, &mut tw[..n]) {
                // Continue after the last tweak written: T_m = T_{m-1}·α.
                let last: [u8; 16] = tw[n - BLOCK_SIZE..n].try_into().unwrap();
                v = mul_alpha_num(tweak_num(&last, self.std), self.std);
                done = n;
            }
            for b in tw[done..n].chunks_exact_mut(BLOCK_SIZE) {
                b.copy_from_slice(&tweak_bytes(v, self.std));
                v = mul_alpha_num(v, self.std);
            }
            self.data.xex(decrypt, &tw[..n], chunk);
        }
        *t = match self.std {
            Standard::Ieee => v.to_le_bytes(),
            Standard::Gb => v.to_be_bytes(),
        };
        v.zeroize();
        tw.zeroize();
    }
}

/// One-shot XTS encryption with a 32-byte key.
pub fn encrypt(key: &[u8], tweak: &[u8], data: &[u8], std: Standard) -> Result<Vec<u8>> {
    Sm4Xts::new(key, std)?.encrypt(tweak, data)
}

/// One-shot XTS decryption with a 32-byte key.
pub fn decrypt(key: &[u8], tweak: &[u8], data: &[u8], std: Standard) -> Result<Vec<u8>> {
    Sm4Xts::new(key, std)?.decrypt(tweak, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_key_halves_cite_the_rule_that_requires_the_check() {
        let err = encrypt(&[7u8; 32], &[0u8; 16], &[0u8; 16], Standard::Ieee)
            .expect_err("equal halves are refused");
        let Error::InvalidKey(msg) = err else {
            panic!("not InvalidKey: {err:?}")
        };
        // IEEE 1619 does not require distinct halves; the FIPS 140 guidance does.
        assert!(msg.contains("IG C.I") && !msg.contains("1619"), "{msg}");
    }
}
