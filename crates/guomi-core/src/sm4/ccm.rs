//! SM4-CCM: Counter with CBC-MAC (NIST SP 800-38C, RFC 3610) with SM4, as used by RFC 8998.
//!
//! Nonce 7..13 bytes (q = 15 − nonce length bytes of length field), tag 4, 6, ..., 16
//! bytes. Decryption checks the tag in constant time before returning any plaintext.

use super::{xor_in_place, Serial, Sm4, BLOCK_SIZE, KEY_SIZE};
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// An SM4-CCM key with a fixed tag length.
#[derive(Clone)]
pub struct Sm4Ccm {
    cipher: Sm4,
    tag_len: usize,
}

impl core::fmt::Debug for Sm4Ccm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Ccm")
            .field("tag_len", &self.tag_len)
            .finish_non_exhaustive()
    }
}

fn check_tag_len(t: usize) -> Result<()> {
    if (4..=16).contains(&t) && t.is_multiple_of(2) {
        Ok(())
    } else {
        Err(Error::InvalidLength {
            what: "tag",
            expected: "4, 6, 8, 10, 12, 14 or 16 bytes",
            got: t,
        })
    }
}

impl Sm4Ccm {
    /// A key for the active variant with a `tag_len`-byte tag (4, 6, ..., 16), the length
    /// every decryption checks (fixed by the caller, never taken from a ciphertext).
    pub fn new(key: &[u8; KEY_SIZE], tag_len: usize) -> Result<Sm4Ccm> {
        Sm4Ccm::with_variant(key, tag_len, cpu::active_variant())
    }

    /// As [`Sm4Ccm::new`] for the best implementation at or below `backend` (clamped to
    /// what this CPU supports).
    pub fn with_backend(key: &[u8; KEY_SIZE], tag_len: usize, backend: Backend) -> Result<Sm4Ccm> {
        Sm4Ccm::with_variant(key, tag_len, Variant::from(backend))
    }

    /// As [`Sm4Ccm::new`] for `variant` (clamped to what this CPU supports).
    pub fn with_variant(key: &[u8; KEY_SIZE], tag_len: usize, variant: Variant) -> Result<Sm4Ccm> {
        check_tag_len(tag_len)?;
        Ok(Sm4Ccm {
            cipher: Sm4::with_variant(key, variant),
            tag_len,
        })
    }

    /// A key from a slice (16 bytes).
    pub fn from_slice_with_backend(key: &[u8], tag_len: usize, backend: Backend) -> Result<Sm4Ccm> {
        let key: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "key",
            expected: "16 bytes",
            got: key.len(),
        })?;
        Sm4Ccm::with_backend(key, tag_len, backend)
    }

    /// The tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }

    /// The variant in use (chosen when the key was built).
    pub fn variant(&self) -> Variant {
        self.cipher.variant()
    }

    fn check(&self, nonce: &[u8], len: usize) -> Result<usize> {
        if !(7..=13).contains(&nonce.len()) {
            return Err(Error::InvalidLength {
                what: "nonce",
                expected: "7 to 13 bytes",
                got: nonce.len(),
            });
        }
        let q = 15 - nonce.len();
        if q < 8 && (len as u64) >> (8 * q) != 0 {
            return Err(Error::InvalidLength {
                what: "plaintext",
                expected: "less than 2^(8q) bytes, q = 15 - nonce length",
                got: len,
            });
        }
        Ok(q)
    }

    /// SP 800-38C A.2 formatting + CBC-MAC: T = MSB_t(Y_r).
    fn mac(&self, nonce: &[u8], q: usize, aad: &[u8], pt: &[u8]) -> [u8; 16] {
        // B0: flags = 64·Adata + 8·((t−2)/2) + (q−1) || N || Q.
        let mut y = [0u8; 16];
        y[0] = (u8::from(!aad.is_empty()) << 6)
            | ((((self.tag_len - 2) / 2) as u8) << 3)
            | (q as u8 - 1);
        y[1..1 + nonce.len()].copy_from_slice(nonce);
        let qbytes = (pt.len() as u64).to_be_bytes();
        y[16 - q.min(8)..].copy_from_slice(&qbytes[8 - q.min(8)..]);
        self.cipher.encrypt_block(&mut y);
        if !aad.is_empty() {
            // A.2.2: the length of a, then a, zero-padded to a block multiple.
            let mut first = Vec::with_capacity(10 + aad.len());
            let a = aad.len() as u64;
            if a < (1 << 16) - (1 << 8) {
                first.extend_from_slice(&(a as u16).to_be_bytes());
            } else if a <= u64::from(u32::MAX) {
                first.extend_from_slice(&[0xff, 0xfe]);
                first.extend_from_slice(&(a as u32).to_be_bytes());
            } else {
                first.extend_from_slice(&[0xff, 0xff]);
                first.extend_from_slice(&a.to_be_bytes());
            }
            first.extend_from_slice(aad);
            self.cbc_mac(&mut y, &first);
        }
        self.cbc_mac(&mut y, pt);
        y
    }

    /// Y_i = E(Y_{i−1} ^ B_i) over `data` zero-padded to whole blocks.
    fn cbc_mac(&self, y: &mut [u8; 16], data: &[u8]) {
        let whole = data.len() / BLOCK_SIZE * BLOCK_SIZE;
        // The serial kernel takes a mutable buffer; CBC-MAC leaves it unchanged, so feed
        // it from a small stack copy a chunk at a time.
        let mut buf = [0u8; 1024];
        for chunk in data[..whole].chunks(1024) {
            buf[..chunk.len()].copy_from_slice(chunk);
            self.cipher
                .serial(Serial::CbcMac, y, &mut buf[..chunk.len()]);
        }
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.cipher.serial(Serial::CbcMac, y, &mut last);
            last.zeroize();
        }
        buf.zeroize();
    }

    /// A.3: counter block Ctr_i = flags(q−1) || N || [i]_q.
    fn ctr0(nonce: &[u8], q: usize) -> u128 {
        let mut c = [0u8; 16];
        c[0] = q as u8 - 1;
        c[1..1 + nonce.len()].copy_from_slice(nonce);
        u128::from_be_bytes(c)
    }

    fn s0(&self, ctr0: u128) -> [u8; 16] {
        let mut s = ctr0.to_be_bytes();
        self.cipher.encrypt_block(&mut s);
        s
    }

    /// P ^ (S1 || S2 || ...), in place.
    fn ctr(&self, ctr0: u128, data: &mut [u8]) {
        let whole = data.len() / 16 * 16;
        let mut c = ctr0.wrapping_add(1);
        let (body, tail) = data.split_at_mut(whole);
        self.cipher.ctr_xor(&mut c, body);
        if !tail.is_empty() {
            let mut ks = c.to_be_bytes();
            self.cipher.encrypt_block(&mut ks);
            xor_in_place(tail, &ks);
            ks.zeroize();
        }
    }

    /// Encrypts into `out` (`plaintext.len() + tag_len` bytes): ciphertext || tag.
    pub fn encrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        let q = self.check(nonce, plaintext.len())?;
        if out.len() != plaintext.len() + self.tag_len {
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "plaintext length + tag length",
                got: out.len(),
            });
        }
        let mut t = self.mac(nonce, q, aad, plaintext);
        let c0 = Self::ctr0(nonce, q);
        let (ct, tag) = out.split_at_mut(plaintext.len());
        ct.copy_from_slice(plaintext);
        self.ctr(c0, ct);
        xor_in_place(&mut t, &self.s0(c0));
        tag.copy_from_slice(&t[..self.tag_len]);
        Ok(())
    }

    /// Encrypts: returns ciphertext || tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; plaintext.len() + self.tag_len];
        self.encrypt_into(nonce, aad, plaintext, &mut out)?;
        Ok(out)
    }

    /// Decrypts ciphertext || tag in place; returns the plaintext length. A wrong tag
    /// wipes the buffer and returns `InvalidTag`.
    pub fn decrypt_in_place(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<usize> {
        if data.len() < self.tag_len {
            return Err(Error::InvalidTag);
        }
        let n = data.len() - self.tag_len;
        let q = self.check(nonce, n)?;
        let c0 = Self::ctr0(nonce, q);
        let (ct, tag) = data.split_at_mut(n);
        self.ctr(c0, ct);
        let mut t = self.mac(nonce, q, aad, ct);
        xor_in_place(&mut t, &self.s0(c0));
        // Declassified: tag matched or InvalidTag, public by definition (ct_eq).
        let ok = crate::ct::declassify_choice(t[..self.tag_len].ct_eq(tag));
        t.zeroize();
        if !ok {
            data.zeroize();
            return Err(Error::InvalidTag);
        }
        Ok(n)
    }

    /// Decrypts ciphertext || tag into `out` (`data.len() - tag_len` bytes); on a wrong
    /// tag `out` is wiped and `InvalidTag` returned.
    pub fn decrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if data.len() < self.tag_len {
            return Err(Error::InvalidTag);
        }
        let n = data.len() - self.tag_len;
        let q = self.check(nonce, n)?;
        if out.len() != n {
            return Err(Error::InvalidLength {
                what: "output buffer",
                expected: "ciphertext length",
                got: out.len(),
            });
        }
        let c0 = Self::ctr0(nonce, q);
        out.copy_from_slice(&data[..n]);
        self.ctr(c0, out);
        let mut t = self.mac(nonce, q, aad, out);
        xor_in_place(&mut t, &self.s0(c0));
        // Declassified: tag matched or InvalidTag, public by definition (ct_eq).
        let ok = crate::ct::declassify_choice(t[..self.tag_len].ct_eq(&data[n..]));
        t.zeroize();
        if !ok {
            out.zeroize();
            return Err(Error::InvalidTag);
        }
        Ok(())
    }

    /// Decrypts ciphertext || tag; `InvalidTag` and no plaintext if it does not verify.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut out = data.to_vec();
        let n = self.decrypt_in_place(nonce, aad, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}
