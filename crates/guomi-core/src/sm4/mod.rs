//! SM4 block cipher (GB/T 32907-2016, GM/T 0002-2012) and its modes of operation.
//!
//! * [`Sm4`]: the key schedule, done once per key; single blocks and batches.
//! * [`modes`]: ECB, CBC, CTR (128-bit big-endian counter), CFB (CFB128) and OFB, one-shot
//!   and streaming, with PKCS #7, ISO/IEC 7816-4, zero or no padding.
//! * [`gcm`]: SM4-GCM (NIST SP 800-38D, RFC 8998); [`ccm`]: SM4-CCM (SP 800-38C, RFC 3610).
//! * [`xts`]: SM4-XTS with ciphertext stealing, GB/T 17964-2021 and IEEE 1619 tweaks.
//!
//! Backends (chosen when an [`Sm4`] is built, stored in it as a [`cpu::Variant`] and as
//! the kernel with its CPU-proof token, `native::Native`, through which every operation
//! dispatches; an explicit request is clamped to what the CPU supports):
//! * `soft`: bitsliced S-box, portable and constant time;
//! * `x86_avx2`: AES-NI `aesenclast` + AVX2 nibble-shuffle affine maps, 16 blocks in flight
//!   (variant `avx2`: 256-bit `vaesenclast` where the CPU has VAES; `avx2-novaes`: 128-bit);
//! * `x86_avx512`: GFNI affine/affine-inverse S-box on zmm, 64 blocks in flight;
//! * `aarch64_neon`: NEON `TBL` register-table S-box; `aarch64_sm4e`: the `SM4E`
//!   instruction (FEAT_SM4), 8 blocks in flight;
//! * `riscv_zk`: scalar `sm4ed` (Zksed); `riscv_zvk`: vector `vsm4r` (Zvksed).
//!
//! The serial modes (CBC and CFB encryption, CBC-MAC, OFB) run one kernel call per
//! request with the round keys in registers on every backend but `neon` and `portable`;
//! ECB from one buffer into another reads one and writes the other, without a copy, on
//! `avx512`, `neon`, `armsm`, `zk` and `zvk`.
//!
//! GHASH has one file per carry-less multiplier (`ghash_*.rs`, see [`ghash`]).
//!
//! None of them indexes memory with secret data or branches on it.

#[cfg(target_arch = "aarch64")]
mod aarch64_neon;
#[cfg(target_arch = "aarch64")]
mod aarch64_sm4e;
pub mod ccm;
pub mod gcm;
mod ghash;
#[cfg(target_arch = "x86_64")]
mod ghash_pclmul;
#[cfg(target_arch = "aarch64")]
mod ghash_pmull;
#[cfg(target_arch = "x86_64")]
mod ghash_vpclmul;
#[cfg(target_arch = "riscv64")]
mod ghash_zvkg;
pub mod mac;
pub mod modes;
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
pub mod xts;

use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use zeroize::Zeroize;

pub use modes::{Decryptor, Encryptor, Mode, Padding};

/// Block size in bytes.
pub const BLOCK_SIZE: usize = 16;
/// Key size in bytes.
pub const KEY_SIZE: usize = 16;
/// Number of rounds (§7.1).
pub(crate) const ROUNDS: usize = 32;

/// §7.3 system parameter FK.
const FK: [u32; 4] = [0xa3b1_bac6, 0x56aa_3350, 0x677d_9197, 0xb270_22dc];

/// §7.3 fixed parameters CK_i: byte j of CK_i is (4i + j)·7 mod 256.
const CK: [u32; ROUNDS] = {
    let mut ck = [0u32; ROUNDS];
    let mut i = 0;
    while i < ROUNDS {
        let mut w = 0u32;
        let mut j = 0;
        while j < 4 {
            w = (w << 8) | (((4 * i + j) * 7) % 256) as u32;
            j += 1;
        }
        ck[i] = w;
        i += 1;
    }
    ck
};

/// §7.3 L': B ^ (B <<< 13) ^ (B <<< 23).
fn l_prime(b: u32) -> u32 {
    b ^ b.rotate_left(13) ^ b.rotate_left(23)
}

/// Round keys of both directions; zeroized on drop.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    pub(crate) enc: [u32; ROUNDS],
    pub(crate) dec: [u32; ROUNDS],
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.enc.zeroize();
        self.dec.zeroize();
    }
}

/// An SM4 key: the §7.3 key schedule done once, plus the variant chosen at construction.
#[derive(Clone)]
pub struct Sm4 {
    rk: RoundKeys,
    variant: Variant,
    /// The backend's kernel (with its CPU proof), or none for `portable`.
    native: native::Native,
}

impl core::fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4")
            .field("variant", &self.variant.name())
            .finish_non_exhaustive()
    }
}

/// The best SM4 implementation at or below `requested` that this CPU runs.
fn effective(requested: Variant) -> Variant {
    requested.clamp()
}

impl Sm4 {
    /// Schedules `key` for the active variant ([`cpu::active_variant`]).
    pub fn new(key: &[u8; KEY_SIZE]) -> Sm4 {
        Sm4::with_variant(key, cpu::active_variant())
    }

    /// Schedules `key` for the best implementation at or below `backend` (clamped to
    /// what this CPU supports).
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Sm4 {
        Sm4::with_variant(key, Variant::from(backend))
    }

    /// Schedules `key` for `variant`, clamped to what this CPU supports.
    pub fn with_variant(key: &[u8; KEY_SIZE], variant: Variant) -> Sm4 {
        let variant = effective(variant);
        let native = native::Native::for_variant(variant);
        let enc = native
            .expand_key(key)
            .unwrap_or_else(|| schedule(native, key));
        // §7.2: decryption uses the round keys in reverse order.
        let mut dec = enc;
        dec.reverse();
        Sm4 {
            rk: RoundKeys { enc, dec },
            variant,
            native,
        }
    }

    /// Schedules a key given as a slice (must be 16 bytes).
    pub fn from_slice(key: &[u8]) -> Result<Sm4> {
        let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Ok(Sm4::new(key))
    }

    /// Like [`Sm4::from_slice`] with an explicit backend.
    pub fn from_slice_with_backend(key: &[u8], backend: Backend) -> Result<Sm4> {
        let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Ok(Sm4::with_backend(key, backend))
    }

    /// Like [`Sm4::from_slice`] with an explicit variant.
    pub fn from_slice_with_variant(key: &[u8], variant: Variant) -> Result<Sm4> {
        let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Ok(Sm4::with_variant(key, variant))
    }

    /// The backend this key object uses.
    pub fn backend(&self) -> Backend {
        self.variant.backend()
    }

    /// The variant (backend and optional features) this key object uses.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// §7.1 encryption of one block in place.
    pub fn encrypt_block(&self, block: &mut [u8; BLOCK_SIZE]) {
        self.block(false, block);
    }

    /// §7.2 decryption of one block in place.
    pub fn decrypt_block(&self, block: &mut [u8; BLOCK_SIZE]) {
        self.block(true, block);
    }

    /// Encrypts every block of `data` in place (ECB; `data.len()` a multiple of 16).
    ///
    /// # Panics
    /// If `data.len()` is not a multiple of 16.
    pub fn encrypt_blocks(&self, data: &mut [u8]) {
        assert!(data.len().is_multiple_of(BLOCK_SIZE), "whole blocks only");
        self.blocks(false, data);
    }

    /// Decrypts every block of `data` in place (ECB; `data.len()` a multiple of 16).
    ///
    /// # Panics
    /// If `data.len()` is not a multiple of 16.
    pub fn decrypt_blocks(&self, data: &mut [u8]) {
        assert!(data.len().is_multiple_of(BLOCK_SIZE), "whole blocks only");
        self.blocks(true, data);
    }

    fn keys(&self, decrypt: bool) -> &[u32; ROUNDS] {
        if decrypt {
            &self.rk.dec
        } else {
            &self.rk.enc
        }
    }

    /// One block: the lowest-latency path of the backend.
    #[inline]
    pub(crate) fn block(&self, decrypt: bool, block: &mut [u8; BLOCK_SIZE]) {
        let rk = self.keys(decrypt);
        if !self.native.block(rk, block) {
            soft::crypt_blocks(rk, block);
        }
    }

    /// Many blocks: the widest path of the backend.
    #[inline]
    pub(crate) fn blocks(&self, decrypt: bool, data: &mut [u8]) {
        debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
        let rk = self.keys(decrypt);
        if !self.native.blocks(rk, data) {
            soft::crypt_blocks(rk, data);
        }
    }

    /// CTR keystream XORed into `data` (whole blocks), counter = 128-bit big-endian,
    /// advanced by the number of blocks.
    pub(crate) fn ctr_xor(&self, counter: &mut u128, data: &mut [u8]) {
        debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
        let done = self.native.ctr_xor(&self.rk.enc, counter, data);
        let data = &mut data[done..];
        if data.is_empty() {
            return;
        }
        let mut buf = [0u8; CHUNK];
        for chunk in data.chunks_mut(CHUNK) {
            let ks = &mut buf[..chunk.len()];
            for b in ks.chunks_exact_mut(BLOCK_SIZE) {
                b.copy_from_slice(&counter.to_be_bytes());
                *counter = counter.wrapping_add(1);
            }
            self.blocks(false, ks);
            xor_in_place(chunk, ks);
        }
        buf.zeroize();
    }
}

impl Sm4 {
    /// CTR keystream XORed into `dst` from `src` (whole blocks, equal lengths).
    pub(crate) fn ctr_xor_to(&self, counter: &mut u128, src: &[u8], dst: &mut [u8]) {
        debug_assert_eq!(src.len(), dst.len());
        let done = self.native.ctr_xor_to(&self.rk.enc, counter, src, dst);
        let (src, dst) = (&src[done..], &mut dst[done..]);
        if src.is_empty() {
            return;
        }
        dst.copy_from_slice(src);
        self.ctr_xor(counter, dst);
    }
}

/// The serial (one block after another) modes, run by [`Sm4::serial`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Serial {
    /// C_i = E(P_i ^ C_{i-1}); `reg` = C_{i-1}.
    CbcEncrypt,
    /// CBC-MAC: Y_i = E(Y_{i-1} ^ B_i), data left unchanged; `reg` = Y.
    CbcMac,
    /// CFB128 encryption: C_i = P_i ^ E(C_{i-1}).
    CfbEncrypt,
    /// OFB: O_i = E(O_{i-1}), C_i = P_i ^ O_i.
    Ofb,
}

impl Sm4 {
    /// A serial mode over whole blocks, on the backend's lowest-latency path.
    pub(crate) fn serial(&self, mode: Serial, reg: &mut [u8; 16], data: &mut [u8]) {
        debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
        let rk = &self.rk.enc;
        if self.native.serial(rk, mode, reg, data) {
            return;
        }
        // Block by block (`neon`, `portable`).
        for b in data.chunks_exact_mut(BLOCK_SIZE) {
            match mode {
                Serial::CbcEncrypt | Serial::CbcMac => {
                    xor_in_place(reg, b);
                    self.block(false, reg);
                    if mode == Serial::CbcEncrypt {
                        b.copy_from_slice(reg);
                    }
                }
                Serial::CfbEncrypt => {
                    self.block(false, reg);
                    xor_in_place(b, reg);
                    reg.copy_from_slice(b);
                }
                Serial::Ofb => {
                    self.block(false, reg);
                    xor_in_place(b, reg);
                }
            }
        }
    }
}

impl Sm4 {
    /// ECB from `src` into `dst` (whole blocks, equal lengths) without a separate copy
    /// where the backend supports it.
    pub(crate) fn blocks_to(&self, decrypt: bool, src: &[u8], dst: &mut [u8]) {
        debug_assert_eq!(src.len(), dst.len());
        if self.native.blocks_to(self.keys(decrypt), src, dst) {
            return;
        }
        dst.copy_from_slice(src);
        self.blocks(decrypt, dst);
    }

    /// Fills `tw` (a multiple of 64 bytes, the first 64 already holding T_0..T_3) with the
    /// following XTS tweaks, four at a time, where the backend can; returns whether it did.
    pub(crate) fn xts_tweaks(&self, gb: bool, tw: &mut [u8]) -> bool {
        self.native.xts_tweaks(gb, tw)
    }

    /// Fused CBC decryption of a prefix of `data` where the backend has it; returns the
    /// number of bytes done (the caller handles the rest).
    pub(crate) fn cbc_decrypt_fused(&self, reg: &mut [u8; 16], data: &mut [u8]) -> usize {
        self.native.chain_decrypt(&self.rk.dec, false, reg, data)
    }

    /// Fused CFB decryption of a prefix of `data`; returns the bytes done.
    pub(crate) fn cfb_decrypt_fused(&self, reg: &mut [u8; 16], data: &mut [u8]) -> usize {
        self.native.chain_decrypt(&self.rk.enc, true, reg, data)
    }

    /// XEX over whole blocks: `data = E/D(data ^ tweaks) ^ tweaks` (tweaks as long as data).
    pub(crate) fn xex(&self, decrypt: bool, tweaks: &[u8], data: &mut [u8]) {
        debug_assert!(tweaks.len() >= data.len());
        let done = self.native.xex(self.keys(decrypt), tweaks, data);
        let (rest, tw) = (&mut data[done..], &tweaks[done..]);
        xor_in_place(rest, tw);
        self.blocks(decrypt, rest);
        xor_in_place(rest, tw);
    }
}

/// Bytes processed per batch by the generic mode helpers (64 blocks: what the widest
/// backend keeps in flight).
pub(crate) const CHUNK: usize = 64 * BLOCK_SIZE;

/// The §7.3 key schedule with the kernel's S-box: the encryption round keys.
fn schedule(native: native::Native, key: &[u8; KEY_SIZE]) -> [u32; ROUNDS] {
    // §7.3: (K0, K1, K2, K3) = (MK0 ^ FK0, ..., MK3 ^ FK3);
    // rk_i = K_{i+4} = K_i ^ T'(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^ CK_i).
    let mut k = [0u32; 4];
    for (i, w) in k.iter_mut().enumerate() {
        *w = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
            ^ FK[i];
    }
    let mut enc = [0u32; ROUNDS];
    for i in 0..ROUNDS {
        let t = k[(i + 1) % 4] ^ k[(i + 2) % 4] ^ k[(i + 3) % 4] ^ CK[i];
        k[i % 4] ^= l_prime(tau(native, t));
        enc[i] = k[i % 4];
    }
    k.zeroize();
    enc
}

/// τ (§6.2) of one word with the kernel's S-box.
fn tau(native: native::Native, w: u32) -> u32 {
    native.tau(w).unwrap_or_else(|| soft::tau(w))
}

/// `a ^= b` over the common length.
#[inline]
pub(crate) fn xor_in_place(a: &mut [u8], b: &[u8]) {
    let n = a.len().min(b.len());
    let (a, b) = (&mut a[..n], &b[..n]);
    let mut ac = a.chunks_exact_mut(8);
    let mut bc = b.chunks_exact(8);
    for (x, y) in (&mut ac).zip(&mut bc) {
        let v = u64::from_ne_bytes(x[..8].try_into().unwrap())
            ^ u64::from_ne_bytes(y.try_into().unwrap());
        x.copy_from_slice(&v.to_ne_bytes());
    }
    for (x, y) in ac.into_remainder().iter_mut().zip(bc.remainder()) {
        *x ^= y;
    }
}

/// Checks a 16-byte IV.
pub(crate) fn iv16(iv: &[u8]) -> Result<[u8; 16]> {
    iv.try_into().map_err(|_| Error::InvalidLength {
        what: "iv",
        expected: "16 bytes",
        got: iv.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The S-box table of GB/T 32907 §6.2, for checking the circuits only.
    pub(crate) const SBOX: [u8; 256] = [
        0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c,
        0x05, 0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86,
        0x06, 0x99, 0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed,
        0xcf, 0xac, 0x62, 0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa,
        0x75, 0x8f, 0x3f, 0xa6, 0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c,
        0x19, 0xe6, 0x85, 0x4f, 0xa8, 0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb,
        0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35, 0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25,
        0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87, 0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52,
        0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e, 0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38,
        0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1, 0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34,
        0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3, 0x1d, 0xf6, 0xe2, 0x2e, 0x82,
        0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f, 0xd5, 0xdb, 0x37, 0x45,
        0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51, 0x8d, 0x1b, 0xaf,
        0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8, 0x0a, 0xc1,
        0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0, 0x89,
        0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
        0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39,
        0x48,
    ];

    fn tau_table(w: u32) -> u32 {
        u32::from_be_bytes(w.to_be_bytes().map(|b| SBOX[b as usize]))
    }

    #[test]
    fn tau_matches_table_on_every_backend() {
        for b in cpu::available() {
            for x in 0..=255u32 {
                let w =
                    x | (x.wrapping_mul(7) & 0xff) << 8 | ((x ^ 0x5a) << 16) | ((255 - x) << 24);
                assert_eq!(
                    tau(native::Native::for_variant(effective(b.into())), w),
                    tau_table(w),
                    "backend {b:?} x={x}"
                );
            }
        }
    }

    #[test]
    fn ck_constants() {
        assert_eq!(CK[0], 0x0007_0e15);
        assert_eq!(CK[31], 0x646b_7279);
    }

    #[test]
    fn example_1_every_backend_and_batch_size() {
        let key: [u8; 16] = hex::decode("0123456789abcdeffedcba9876543210")
            .unwrap()
            .try_into()
            .unwrap();
        let ct = hex::decode("681edf34d206965e86b3e94f536e4246").unwrap();
        for v in cpu::variants() {
            let c = Sm4::with_variant(&key, v);
            let b = v;
            let mut blk = key;
            c.encrypt_block(&mut blk);
            assert_eq!(&blk[..], &ct[..], "{b:?}");
            c.decrypt_block(&mut blk);
            assert_eq!(blk, key);
            for n in [
                1usize, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 200,
            ] {
                let mut data: Vec<u8> = key.iter().copied().cycle().take(16 * n).collect();
                c.encrypt_blocks(&mut data);
                for chunk in data.chunks(16) {
                    assert_eq!(chunk, &ct[..], "{b:?} n={n}");
                }
                c.decrypt_blocks(&mut data);
                assert!(data.chunks(16).all(|ch| ch == key), "{b:?} n={n}");
            }
        }
    }

    #[test]
    fn blocks_to_matches_in_place_every_variant() {
        let key: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(41) ^ 0x3c);
        for v in cpu::variants() {
            let c = Sm4::with_variant(&key, v);
            for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 130] {
                let src: Vec<u8> = (0..16 * n).map(|i| (i * 13 + i / 7) as u8).collect();
                for decrypt in [false, true] {
                    let mut want = src.clone();
                    c.blocks(decrypt, &mut want);
                    let mut got = vec![0u8; src.len()];
                    c.blocks_to(decrypt, &src, &mut got);
                    assert_eq!(got, want, "{v:?} n={n} decrypt={decrypt}");
                }
                // A destination that is not word-aligned.
                let mut buf = vec![0u8; src.len() + 1];
                c.blocks_to(false, &src, &mut buf[1..]);
                let mut want = src.clone();
                c.blocks(false, &mut want);
                assert_eq!(&buf[1..], &want[..], "{v:?} n={n} unaligned");
            }
        }
    }

    /// `Sm4::serial` of every variant against the portable one: every mode, chains of 0
    /// to 130 blocks, whole and split in two calls; and the fused CBC/CFB decryption
    /// against the definitions.
    #[test]
    fn serial_and_chain_decrypt_every_variant() {
        for seed in 0..3u8 {
            let key: [u8; 16] =
                core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ seed.wrapping_mul(101));
            let portable = Sm4::with_backend(&key, Backend::Portable);
            let iv: [u8; 16] = core::array::from_fn(|i| (i as u8) ^ seed ^ 0x77);
            for v in cpu::variants() {
                let c = Sm4::with_variant(&key, v);
                for n in [0usize, 1, 2, 3, 7, 8, 9, 16, 17, 33, 130] {
                    let data: Vec<u8> = (0..16 * n)
                        .map(|i| (i as u8).wrapping_mul(seed | 1) ^ 0xa5)
                        .collect();
                    for mode in [
                        Serial::CbcEncrypt,
                        Serial::CbcMac,
                        Serial::CfbEncrypt,
                        Serial::Ofb,
                    ] {
                        let (mut want, mut want_reg) = (data.clone(), iv);
                        portable.serial(mode, &mut want_reg, &mut want);
                        for cut in [0, n / 2, n] {
                            let (mut got, mut reg) = (data.clone(), iv);
                            let (lo, hi) = got.split_at_mut(16 * cut);
                            c.serial(mode, &mut reg, lo);
                            c.serial(mode, &mut reg, hi);
                            assert_eq!(got, want, "{v:?} {mode:?} n={n} cut={cut}");
                            assert_eq!(reg, want_reg, "{v:?} {mode:?} n={n} cut={cut}");
                        }
                    }
                    // CBC: P_i = D(C_i) ^ C_{i-1}; CFB: P_i = C_i ^ E(C_{i-1}).
                    let prev: Vec<u8> = iv.iter().chain(&data).copied().take(data.len()).collect();
                    let mut cbc = data.clone();
                    portable.blocks(true, &mut cbc);
                    xor_in_place(&mut cbc, &prev);
                    let mut cfb = prev.clone();
                    portable.blocks(false, &mut cfb);
                    xor_in_place(&mut cfb, &data);
                    let last: [u8; 16] = if n > 0 {
                        data[data.len() - 16..].try_into().unwrap()
                    } else {
                        iv
                    };
                    for (cfb_mode, want) in [(false, &cbc), (true, &cfb)] {
                        let (mut got, mut reg) = (data.clone(), iv);
                        let done = if cfb_mode {
                            c.cfb_decrypt_fused(&mut reg, &mut got)
                        } else {
                            c.cbc_decrypt_fused(&mut reg, &mut got)
                        };
                        assert!(done <= got.len() && done % 16 == 0);
                        assert_eq!(&got[..done], &want[..done], "{v:?} cfb={cfb_mode} n={n}");
                        assert_eq!(&got[done..], &data[done..], "{v:?} cfb={cfb_mode} n={n}");
                        if done == data.len() {
                            assert_eq!(reg, last, "{v:?} cfb={cfb_mode} n={n}");
                        }
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    /// A backend's serial kernel, as the checks below call it.
    pub(crate) type SerialKernel<'a> = &'a dyn Fn(&[u32; ROUNDS], Serial, &mut [u8; 16], &mut [u8]);

    #[cfg(target_arch = "x86_64")]
    /// Checks serial kernels against the portable backend: every mode, 8 keys, chains of
    /// 0 to 130 blocks (no chaining; the block loop; the CFB carry of the previous
    /// plaintext), and the first kernel's chains split in two calls at every block
    /// boundary for short inputs (every 7th for long ones).
    pub(crate) fn check_serial_kernels(kernels: &[(&str, SerialKernel<'_>)]) {
        for seed in 0..8u8 {
            let key: [u8; 16] =
                core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ seed.wrapping_mul(101));
            let portable = Sm4::with_backend(&key, Backend::Portable);
            let rk = &portable.rk.enc;
            for mode in [
                Serial::CbcEncrypt,
                Serial::CbcMac,
                Serial::CfbEncrypt,
                Serial::Ofb,
            ] {
                for n in [0usize, 1, 2, 3, 4, 5, 8, 33, 130] {
                    let data: Vec<u8> = (0..16 * n)
                        .map(|i| (i as u8).wrapping_mul(seed | 1) ^ 0xa5)
                        .collect();
                    let iv: [u8; 16] = core::array::from_fn(|i| (i as u8) ^ seed);
                    let (mut want, mut want_reg) = (data.clone(), iv);
                    portable.serial(mode, &mut want_reg, &mut want);
                    if mode != Serial::CbcMac && n > 0 {
                        assert_ne!(want, data, "{mode:?} n={n}");
                    }
                    for (name, kernel) in kernels {
                        let what = format!("{name} {mode:?} n={n} seed={seed}");
                        let (mut a, mut ra) = (data.clone(), iv);
                        kernel(rk, mode, &mut ra, &mut a);
                        assert_eq!(a, want, "{what}");
                        assert_eq!(ra, want_reg, "{what}");
                    }
                    let (_, first) = kernels[0];
                    for cut in (0..=n).step_by(if n > 5 { 7 } else { 1 }) {
                        let (mut d, mut rd) = (data.clone(), iv);
                        let (lo, hi) = d.split_at_mut(16 * cut);
                        first(rk, mode, &mut rd, lo);
                        first(rk, mode, &mut rd, hi);
                        assert_eq!(d, want, "{mode:?} n={n} seed={seed} cut={cut}");
                        assert_eq!(rd, want_reg, "{mode:?} n={n} seed={seed} cut={cut}");
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    /// A serial kernel against GB/T 32907-2016 Appendix A (key = plaintext =
    /// 0123456789abcdeffedcba9876543210): A.1's ciphertext 681edf34d206965e86b3e94f536e4246
    /// as the first CBC block with a zero IV and as OFB's first keystream block with
    /// IV = P, and A.2's one million encryptions (595298c7c6fd271f0402f804c33d3f66) as a
    /// CBC-MAC of zero blocks with IV = P.
    pub(crate) fn check_serial_known_answer(serial: SerialKernel<'_>) {
        let p: [u8; 16] = [
            0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
            0x32, 0x10,
        ];
        let want = [
            0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e,
            0x42, 0x46,
        ];
        let c = Sm4::with_backend(&p, Backend::Portable);
        let (mut reg, mut data) = ([0u8; 16], p);
        serial(&c.rk.enc, Serial::CbcEncrypt, &mut reg, &mut data);
        assert_eq!((data, reg), (want, want));
        let (mut reg, mut data) = (p, [0u8; 16]);
        serial(&c.rk.enc, Serial::Ofb, &mut reg, &mut data);
        assert_eq!((data, reg), (want, want));
        let mut reg = p;
        let mut zeros = vec![0u8; 16 * 1000];
        for _ in 0..1000 {
            serial(&c.rk.enc, Serial::CbcMac, &mut reg, &mut zeros);
        }
        assert_eq!(
            reg,
            [
                0x59, 0x52, 0x98, 0xc7, 0xc6, 0xfd, 0x27, 0x1f, 0x04, 0x02, 0xf8, 0x04, 0xc3, 0x3d,
                0x3f, 0x66
            ]
        );
    }
}
