//! Block-cipher MACs with SM4: GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) MAC algorithms
//! 1 to 4 and 6 to 8, and CMAC (NIST SP 800-38B; MAC algorithm 5). Tags are 16 bytes,
//! or a caller-fixed truncation of [`MIN_TAG_LEN`]`..=16` bytes.
//!
//! | variant | algorithm | key |
//! |---|---|---|
//! | [`MacVariant::CbcMac`] | 1: CBC-MAC | K (16 bytes) |
//! | [`MacVariant::Emac`] | 2: EMAC, output E_K'(H) | K ‖ K' (32 bytes) |
//! | [`MacVariant::AnsiRetail`] | 3: ANSI retail MAC, output E_K(D_K'(H)) | K ‖ K' (32 bytes) |
//! | [`MacVariant::MacDes`] | 4: MAC-DES, first block also E_K'', K'' = K' ⊕ F0F0…, output E_K'(H) | K ‖ K' (32 bytes) |
//! | [`MacVariant::Cmac`] | 5: CMAC (SP 800-38B) | K (16 bytes) |
//! | [`MacVariant::Lmac`] | 6: LMAC, CBC under E_K(0…01), last block under E_K(0…02) | K (16 bytes) |
//! | [`MacVariant::TrCbcMac`] | 7: TrCBC | K (16 bytes) |
//! | [`MacVariant::CbcrMac`] | 8: CBCR | K (16 bytes) |
//!
//! Algorithms 1 to 4 and 6 take an ISO/IEC 9797-1 padding method ([`MacPadding`],
//! default method 2). Method 1 pads an empty message to one zero block (ISO/IEC
//! 9797-1:2011 §6.1.1, as BouncyCastle's `CBCBlockCipherMac` does); method 3 prefixes
//! a block holding the message length in bits, so a streaming MAC with method 3 must be
//! told the message length up front ([`Mac::with_length`]) and checks it at the end.
//! TrCBC, CBCR and CMAC fix their own padding and refuse a `MacPadding`.
//!
//! TrCBC and CBCR follow gmsm's `cbcmac` package (v0.44.0): messages that are empty or
//! not a whole number of blocks get method-2 padding; TrCBC's truncated tag is then the
//! rightmost `tag_len` bytes (the leftmost otherwise); CBCR's chaining value starts at
//! E_K(0) and the last block is shifted left one bit (padded) or rotated right one bit
//! (unpadded) before the last encryption.

use super::{xor_in_place, Serial, Sm4, BLOCK_SIZE, KEY_SIZE};
use crate::error::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// The shortest caller-fixed tag length accepted: 8 bytes (64 bits, the floor NIST SP
/// 800-38B Appendix A gives for general use).
pub const MIN_TAG_LEN: usize = 8;

/// The full tag length, one SM4 block.
pub const TAG_LEN: usize = BLOCK_SIZE;

/// The MAC algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacVariant {
    /// Algorithm 1, CBC-MAC.
    CbcMac,
    /// Algorithm 2, EMAC (two keys).
    Emac,
    /// Algorithm 3, ANSI retail MAC (two keys).
    AnsiRetail,
    /// Algorithm 4, MAC-DES (two keys).
    MacDes,
    /// Algorithm 5, CMAC.
    Cmac,
    /// Algorithm 6, LMAC.
    Lmac,
    /// Algorithm 7, TrCBC.
    TrCbcMac,
    /// Algorithm 8, CBCR.
    CbcrMac,
}

impl MacVariant {
    /// Parses `"cbc-mac"`, `"emac"`, `"ansi-retail"`, `"mac-des"`, `"lmac"`,
    /// `"tr-cbc-mac"`, `"cbcr-mac"` or `"cmac"` (ASCII case-insensitive).
    pub fn parse(name: &str) -> Result<MacVariant> {
        match name.to_ascii_lowercase().as_str() {
            "cbc-mac" => Ok(MacVariant::CbcMac),
            "emac" => Ok(MacVariant::Emac),
            "ansi-retail" => Ok(MacVariant::AnsiRetail),
            "mac-des" => Ok(MacVariant::MacDes),
            "cmac" => Ok(MacVariant::Cmac),
            "lmac" => Ok(MacVariant::Lmac),
            "tr-cbc-mac" => Ok(MacVariant::TrCbcMac),
            "cbcr-mac" => Ok(MacVariant::CbcrMac),
            _ => Err(Error::InvalidValue(
                "unknown MAC variant: expected cbc-mac, emac, ansi-retail, mac-des, lmac, \
                 tr-cbc-mac, cbcr-mac or cmac",
            )),
        }
    }

    /// The variant's name as [`MacVariant::parse`] accepts it.
    pub fn name(self) -> &'static str {
        match self {
            MacVariant::CbcMac => "cbc-mac",
            MacVariant::Emac => "emac",
            MacVariant::AnsiRetail => "ansi-retail",
            MacVariant::MacDes => "mac-des",
            MacVariant::Cmac => "cmac",
            MacVariant::Lmac => "lmac",
            MacVariant::TrCbcMac => "tr-cbc-mac",
            MacVariant::CbcrMac => "cbcr-mac",
        }
    }

    /// The key length in bytes: 32 (K ‖ K') for EMAC, ANSI retail and MAC-DES, else 16.
    pub fn key_len(self) -> usize {
        match self {
            MacVariant::Emac | MacVariant::AnsiRetail | MacVariant::MacDes => 2 * KEY_SIZE,
            _ => KEY_SIZE,
        }
    }

    /// Whether the variant takes an ISO/IEC 9797-1 padding method.
    pub fn takes_padding(self) -> bool {
        !matches!(
            self,
            MacVariant::Cmac | MacVariant::TrCbcMac | MacVariant::CbcrMac
        )
    }
}

/// ISO/IEC 9797-1:2011 padding methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacPadding {
    /// Method 1: zeros to a whole block (an empty message becomes one zero block).
    M1,
    /// Method 2: one 1 bit (0x80), then zeros to a whole block; always added.
    M2,
    /// Method 3: a first block with the message length in bits, then method 1.
    M3,
}

impl MacPadding {
    /// Parses `"iso9797-m1"`, `"iso9797-m2"` or `"iso9797-m3"` (ASCII case-insensitive).
    pub fn parse(name: &str) -> Result<MacPadding> {
        match name.to_ascii_lowercase().as_str() {
            "iso9797-m1" => Ok(MacPadding::M1),
            "iso9797-m2" => Ok(MacPadding::M2),
            "iso9797-m3" => Ok(MacPadding::M3),
            _ => Err(Error::InvalidValue(
                "unknown MAC padding: expected iso9797-m1, iso9797-m2 or iso9797-m3",
            )),
        }
    }
}

/// Checks a caller-fixed tag length (`MIN_TAG_LEN..=16`).
pub fn check_tag_len(tag_len: usize) -> Result<()> {
    if (MIN_TAG_LEN..=TAG_LEN).contains(&tag_len) {
        Ok(())
    } else {
        Err(Error::InvalidValue(
            "SM4 MAC tag_length must be between 8 and 16 bytes",
        ))
    }
}

/// A streaming SM4 MAC: [`Mac::update`] any number of times, then [`Mac::finalize`] or
/// [`Mac::verify`] (each ends the object). Clone it to MAC a common prefix once.
#[derive(Clone)]
pub struct Mac {
    variant: MacVariant,
    padding: Option<MacPadding>,
    tag_len: usize,
    /// The CBC key (LMAC: keyed with E_K(0…01)).
    k: Sm4,
    /// EMAC, ANSI retail, MAC-DES: K'; LMAC: the last-block key E_K(0…02).
    k2: Option<Sm4>,
    /// MAC-DES: K'' = K' ⊕ F0…F0, applied after the first block.
    k3: Option<Sm4>,
    /// CMAC subkeys K1, K2.
    sub: [[u8; BLOCK_SIZE]; 2],
    /// The CBC chaining value H.
    h: [u8; BLOCK_SIZE],
    /// The pending (possibly full) last block: it is processed only once more data comes.
    buf: [u8; BLOCK_SIZE],
    buf_len: usize,
    /// Message bytes fed so far.
    total: u64,
    /// Method 3: the message length declared up front.
    declared: Option<u64>,
    /// Whether a block went through the chain (MAC-DES applies K'' after the first).
    started: bool,
    finalized: bool,
}

impl Drop for Mac {
    fn drop(&mut self) {
        self.sub.zeroize();
        self.h.zeroize();
        self.buf.zeroize();
    }
}

impl core::fmt::Debug for Mac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mac")
            .field("variant", &self.variant.name())
            .field("tag_len", &self.tag_len)
            .finish_non_exhaustive()
    }
}

fn sm4_of(key: &[u8]) -> Sm4 {
    let mut k = [0u8; KEY_SIZE];
    k.copy_from_slice(key);
    let c = Sm4::new(&k);
    k.zeroize();
    c
}

/// x << 1 over the block; returns the bit shifted out.
fn shift_left(x: &mut [u8; BLOCK_SIZE]) -> u8 {
    let mut carry = 0u8;
    for b in x.iter_mut().rev() {
        let msb = *b >> 7;
        *b = (*b << 1) | carry;
        carry = msb;
    }
    carry
}

/// x rotated right by one bit over the block.
fn rotate_right(x: &mut [u8; BLOCK_SIZE]) {
    let mut carry = x[BLOCK_SIZE - 1] << 7;
    for b in x.iter_mut() {
        let lsb = *b << 7;
        *b = (*b >> 1) | carry;
        carry = lsb;
    }
}

/// SP 800-38B §6.1 doubling in GF(2^128), R = 0x87 (constant time).
fn dbl(x: &mut [u8; BLOCK_SIZE]) {
    let msb = shift_left(x);
    x[BLOCK_SIZE - 1] ^= 0x87 & 0u8.wrapping_sub(msb);
}

impl Mac {
    /// A MAC over a message of any length. Padding method 3 needs the length up front:
    /// use [`Mac::with_length`] (or [`mac`]).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a key of the wrong length ([`MacVariant::key_len`]);
    /// [`Error::InvalidValue`] for a `padding` given to CMAC, TrCBC or CBCR, for
    /// method 3 here, or a `tag_len` outside `MIN_TAG_LEN..=16`.
    pub fn new(
        key: &[u8],
        variant: MacVariant,
        padding: Option<MacPadding>,
        tag_len: usize,
    ) -> Result<Mac> {
        Mac::with_length(key, variant, padding, tag_len, None)
    }

    /// As [`Mac::new`], with the message length declared up front (required for padding
    /// method 3; checked at the end: a different total fails with
    /// [`Error::InvalidValue`]).
    ///
    /// # Errors
    /// As [`Mac::new`]; method 3 without `length` is [`Error::InvalidValue`].
    pub fn with_length(
        key: &[u8],
        variant: MacVariant,
        padding: Option<MacPadding>,
        tag_len: usize,
        length: Option<u64>,
    ) -> Result<Mac> {
        let expected = if variant.key_len() == 2 * KEY_SIZE {
            "32 bytes (K || K')"
        } else {
            "16 bytes"
        };
        if key.len() != variant.key_len() {
            return Err(Error::InvalidLength {
                what: "key",
                expected,
                got: key.len(),
            });
        }
        check_tag_len(tag_len)?;
        let padding = match (variant.takes_padding(), padding) {
            (true, p) => Some(p.unwrap_or(MacPadding::M2)),
            (false, None) => None,
            (false, Some(_)) => {
                return Err(Error::InvalidValue(
                    "cmac, tr-cbc-mac and cbcr-mac have a fixed padding: pass no padding",
                ))
            }
        };
        if padding == Some(MacPadding::M3) && length.is_none() {
            return Err(Error::InvalidValue(
                "padding iso9797-m3 needs the message length up front (length=)",
            ));
        }
        let k1 = sm4_of(&key[..KEY_SIZE]);
        let (k, k2, k3) = match variant {
            MacVariant::Emac | MacVariant::AnsiRetail => (k1, Some(sm4_of(&key[KEY_SIZE..])), None),
            MacVariant::MacDes => {
                let mut kk = [0u8; KEY_SIZE];
                kk.copy_from_slice(&key[KEY_SIZE..]);
                kk.iter_mut().for_each(|b| *b ^= 0xf0);
                let k3 = Sm4::new(&kk);
                kk.zeroize();
                (k1, Some(sm4_of(&key[KEY_SIZE..])), Some(k3))
            }
            MacVariant::Lmac => {
                let mut a = [0u8; BLOCK_SIZE];
                let mut b = [0u8; BLOCK_SIZE];
                a[BLOCK_SIZE - 1] = 1;
                b[BLOCK_SIZE - 1] = 2;
                k1.encrypt_block(&mut a);
                k1.encrypt_block(&mut b);
                let (ka, kb) = (Sm4::new(&a), Sm4::new(&b));
                a.zeroize();
                b.zeroize();
                (ka, Some(kb), None)
            }
            _ => (k1, None, None),
        };
        let mut sub = [[0u8; BLOCK_SIZE]; 2];
        let mut h = [0u8; BLOCK_SIZE];
        match variant {
            MacVariant::Cmac => {
                k.encrypt_block(&mut sub[0]);
                dbl(&mut sub[0]);
                sub[1] = sub[0];
                dbl(&mut sub[1]);
            }
            MacVariant::CbcrMac => k.encrypt_block(&mut h),
            _ => {}
        }
        let mut m = Mac {
            variant,
            padding,
            tag_len,
            k,
            k2,
            k3,
            sub,
            h,
            buf: [0u8; BLOCK_SIZE],
            buf_len: 0,
            total: 0,
            declared: length,
            started: false,
            finalized: false,
        };
        if padding == Some(MacPadding::M3) {
            // The length block L_D: the bit length, right-aligned, big-endian.
            let bits = u128::from(length.unwrap_or(0)) * 8;
            let mut lb = bits.to_be_bytes();
            m.chain(&mut lb);
        }
        Ok(m)
    }

    /// The variant.
    pub fn variant(&self) -> MacVariant {
        self.variant
    }

    /// The tag length fixed at construction.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// H = E_K(H ⊕ B) over whole blocks of `data` (left unchanged in value; the serial
    /// kernel needs a mutable buffer), MAC-DES's K'' after the very first block.
    fn chain(&mut self, data: &mut [u8]) {
        debug_assert!(data.len().is_multiple_of(BLOCK_SIZE));
        if data.is_empty() {
            return;
        }
        let mut data = data;
        if !self.started {
            self.started = true;
            let (first, rest) = data.split_at_mut(BLOCK_SIZE);
            self.k.serial(Serial::CbcMac, &mut self.h, first);
            if let Some(k3) = &self.k3 {
                k3.encrypt_block(&mut self.h);
            }
            data = rest;
        }
        self.k.serial(Serial::CbcMac, &mut self.h, data);
    }

    /// Feeds `data`.
    ///
    /// # Errors
    /// [`Error::AlreadyFinalized`] after [`Mac::finalize`] or [`Mac::verify`].
    pub fn update(&mut self, mut data: &[u8]) -> Result<()> {
        if self.finalized {
            return Err(Error::AlreadyFinalized);
        }
        self.total = self.total.saturating_add(data.len() as u64);
        if data.is_empty() {
            return Ok(());
        }
        // Top up the pending block; process it only if more data follows.
        if self.buf_len > 0 || data.len() <= BLOCK_SIZE {
            let n = (BLOCK_SIZE - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + n].copy_from_slice(&data[..n]);
            self.buf_len += n;
            data = &data[n..];
            if data.is_empty() {
                return Ok(());
            }
            let mut b = self.buf;
            self.chain(&mut b);
            b.zeroize();
            self.buf_len = 0;
        }
        // Whole blocks, keeping the last (possibly full) block pending.
        let keep = match data.len() % BLOCK_SIZE {
            0 => BLOCK_SIZE,
            r => r,
        };
        let (whole, rest) = data.split_at(data.len() - keep);
        let mut tmp = [0u8; 1024];
        for c in whole.chunks(1024) {
            tmp[..c.len()].copy_from_slice(c);
            self.chain(&mut tmp[..c.len()]);
        }
        tmp.zeroize();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
        Ok(())
    }

    /// The full 16-byte output before truncation (`padded` tells TrCBC which end).
    fn compute(&mut self) -> ([u8; BLOCK_SIZE], bool) {
        let mut last = [0u8; BLOCK_SIZE];
        last[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
        let full = self.buf_len == BLOCK_SIZE;
        let mut padded = !full;
        match self.padding {
            Some(MacPadding::M1) | Some(MacPadding::M3) => {}
            Some(MacPadding::M2) => {
                if full {
                    self.chain(&mut last);
                    last = [0u8; BLOCK_SIZE];
                    last[0] = 0x80;
                } else {
                    last[self.buf_len] = 0x80;
                }
            }
            None => {
                if !full {
                    last[self.buf_len] = 0x80;
                }
            }
        }
        let mut h = self.h;
        match self.variant {
            MacVariant::CbcMac | MacVariant::TrCbcMac => {
                self.chain(&mut last);
                h = self.h;
            }
            MacVariant::Emac | MacVariant::MacDes => {
                self.chain(&mut last);
                h = self.h;
                self.k2.as_ref().unwrap_or(&self.k).encrypt_block(&mut h);
            }
            MacVariant::AnsiRetail => {
                self.chain(&mut last);
                h = self.h;
                self.k2.as_ref().unwrap_or(&self.k).decrypt_block(&mut h);
                self.k.encrypt_block(&mut h);
            }
            MacVariant::Lmac => {
                xor_in_place(&mut h, &last);
                self.k2.as_ref().unwrap_or(&self.k).encrypt_block(&mut h);
            }
            MacVariant::Cmac => {
                xor_in_place(&mut h, &last);
                xor_in_place(&mut h, &self.sub[usize::from(padded)]);
                self.k.encrypt_block(&mut h);
            }
            MacVariant::CbcrMac => {
                xor_in_place(&mut h, &last);
                if padded {
                    shift_left(&mut h);
                } else {
                    rotate_right(&mut h);
                }
                self.k.encrypt_block(&mut h);
            }
        }
        if self.variant != MacVariant::TrCbcMac {
            padded = false;
        }
        last.zeroize();
        (h, padded)
    }

    /// Ends the message and writes the `tag_len`-byte tag.
    ///
    /// # Errors
    /// [`Error::AlreadyFinalized`] if called twice (or after [`Mac::verify`]);
    /// [`Error::InvalidValue`] if a declared length does not match the data fed.
    pub fn finalize(&mut self) -> Result<Vec<u8>> {
        if self.finalized {
            return Err(Error::AlreadyFinalized);
        }
        self.finalized = true;
        if let Some(n) = self.declared {
            if n != self.total {
                return Err(Error::InvalidValue(
                    "the data fed does not match the declared length",
                ));
            }
        }
        let (mut full, right) = self.compute();
        let t = self.tag_len;
        let out = if right {
            full[BLOCK_SIZE - t..].to_vec()
        } else {
            full[..t].to_vec()
        };
        full.zeroize();
        Ok(out)
    }

    /// Ends the message and compares `tag` in constant time with the `tag_len`-byte tag
    /// fixed at construction; a `tag` of any other length is `false`.
    ///
    /// # Errors
    /// As [`Mac::finalize`].
    pub fn verify(&mut self, tag: &[u8]) -> Result<bool> {
        let mut t = self.finalize()?;
        let ok = tag.len() == t.len() && bool::from(t.as_slice().ct_eq(tag));
        t.zeroize();
        Ok(ok)
    }
}

/// One-shot MAC of `data` (method 3's length block included).
///
/// # Errors
/// As [`Mac::new`].
pub fn mac(
    key: &[u8],
    variant: MacVariant,
    padding: Option<MacPadding>,
    tag_len: usize,
    data: &[u8],
) -> Result<Vec<u8>> {
    let mut m = Mac::with_length(key, variant, padding, tag_len, Some(data.len() as u64))?;
    m.update(data)?;
    m.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    const K: &str = "0123456789abcdeffedcba9876543210";
    const K2: &str = "4149d2aded9456681ec8b511d9e7ee04";
    const M32: &[u8] = b"This is the test message for mac";
    const M25: &[u8] = b"This is the test message ";

    fn one(v: &str, p: Option<&str>, key: &[u8], data: &[u8]) -> String {
        let v = MacVariant::parse(v).unwrap();
        let p = p.map(|p| MacPadding::parse(p).unwrap());
        let t = mac(key, v, p, 16, data).unwrap();
        t.iter().map(|b| format!("{b:02x}")).collect()
    }

    // GB/T 15852.1-2020 Annex B vectors as quoted in gmsm v0.44.0 cbcmac_test.go.
    #[test]
    fn annex_cbc_mac_and_emac() {
        let k = h(K);
        let kk = [h(K), h(K2)].concat();
        let m2 = Some("iso9797-m2");
        let m3 = Some("iso9797-m3");
        assert_eq!(
            one("cbc-mac", m2, &k, b""),
            "8c338e5a27e349beae39214feda97099"
        );
        assert_eq!(
            one("cbc-mac", m2, &k, M32),
            "4b6553af3c4e27448412315ac7849535"
        );
        assert_eq!(
            one("cbc-mac", m2, &k, M25),
            "421ad1690aa152e2846fa2a5d83445a9"
        );
        assert_eq!(
            one("cbc-mac", m3, &k, M32),
            "71af7e4553404cbcc4f2973cdbd0f063"
        );
        assert_eq!(
            one("cbc-mac", m3, &k, M25),
            "6a4a86f5b5e468dad27df25fb9d9be16"
        );
        assert_eq!(
            one("emac", None, &kk, b""),
            "2cf6edf63cce144489eaddf07b4938db"
        );
        assert_eq!(
            one("emac", m2, &kk, M32),
            "e423e35599afd948aec50bdee838e9ea"
        );
        assert_eq!(
            one("emac", m3, &kk, M25),
            "ffd5f1f2e5eda5cbf402d65a5b0b1953"
        );
    }

    #[test]
    fn streaming_matches_one_shot_for_every_split() {
        let data: Vec<u8> = (0u8..70).collect();
        let kk = [h(K), h(K2)].concat();
        for v in [
            "cbc-mac",
            "emac",
            "ansi-retail",
            "mac-des",
            "cmac",
            "lmac",
            "tr-cbc-mac",
            "cbcr-mac",
        ] {
            let var = MacVariant::parse(v).unwrap();
            let key = &kk[..var.key_len()];
            let pads: &[Option<MacPadding>] = if var.takes_padding() {
                &[
                    Some(MacPadding::M1),
                    Some(MacPadding::M2),
                    Some(MacPadding::M3),
                ]
            } else {
                &[None]
            };
            for &p in pads {
                for n in [0usize, 1, 15, 16, 17, 32, 33, 48, 70] {
                    let want = mac(key, var, p, 16, &data[..n]).unwrap();
                    for split in [0, 1, 5, 16, 17, n] {
                        let split = split.min(n);
                        let mut m = Mac::with_length(key, var, p, 16, Some(n as u64)).unwrap();
                        m.update(&data[..split]).unwrap();
                        for c in data[split..n].chunks(7) {
                            m.update(c).unwrap();
                        }
                        assert_eq!(m.finalize().unwrap(), want, "{v} {p:?} n={n} split={split}");
                    }
                }
            }
        }
    }

    // NIST SP 800-38B Appendix D.1 (AES) has no SM4 counterpart; check the CMAC subkey
    // doubling and the complete/incomplete last block against an explicit computation.
    #[test]
    fn cmac_by_hand() {
        let k = h(K);
        let c = sm4_of(&k);
        let mut l = [0u8; 16];
        c.encrypt_block(&mut l);
        let mut k1 = l;
        dbl(&mut k1);
        let mut k2 = k1;
        dbl(&mut k2);
        // Empty message: E(K2 ^ 80 00 ..).
        let mut x = k2;
        x[0] ^= 0x80;
        c.encrypt_block(&mut x);
        assert_eq!(mac(&k, MacVariant::Cmac, None, 16, b"").unwrap(), x);
        // One whole block: E(M ^ K1).
        let mut y = k1;
        xor_in_place(&mut y, &M32[..16]);
        c.encrypt_block(&mut y);
        assert_eq!(mac(&k, MacVariant::Cmac, None, 16, &M32[..16]).unwrap(), y);
    }

    #[test]
    fn m1_empty_is_one_zero_block() {
        let k = h(K);
        let c = sm4_of(&k);
        let mut z = [0u8; 16];
        c.encrypt_block(&mut z);
        let t = mac(&k, MacVariant::CbcMac, Some(MacPadding::M1), 16, b"").unwrap();
        assert_eq!(t, z);
        assert_eq!(
            mac(&k, MacVariant::CbcMac, Some(MacPadding::M1), 16, &[0u8; 16]).unwrap(),
            z
        );
    }

    #[test]
    fn tr_cbc_truncation_takes_the_right_end_when_padded() {
        let k = h(K);
        let full = mac(&k, MacVariant::TrCbcMac, None, 16, M25).unwrap();
        let t8 = mac(&k, MacVariant::TrCbcMac, None, 8, M25).unwrap();
        assert_eq!(t8, full[8..]);
        let full = mac(&k, MacVariant::TrCbcMac, None, 16, M32).unwrap();
        let t8 = mac(&k, MacVariant::TrCbcMac, None, 8, M32).unwrap();
        assert_eq!(t8, full[..8]);
        // Unpadded TrCBC is plain CBC-MAC without padding (method 1 on whole blocks).
        assert_eq!(
            full,
            mac(&k, MacVariant::CbcMac, Some(MacPadding::M1), 16, M32).unwrap()
        );
    }

    #[test]
    fn bad_inputs() {
        let k = h(K);
        assert!(matches!(
            MacVariant::parse("hmac"),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            MacPadding::parse("pkcs7"),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            Mac::new(&k, MacVariant::Emac, None, 16),
            Err(Error::InvalidLength { got: 16, .. })
        ));
        assert!(matches!(
            Mac::new(
                &[k.clone(), k.clone()].concat(),
                MacVariant::CbcMac,
                None,
                16
            ),
            Err(Error::InvalidLength { got: 32, .. })
        ));
        for v in [MacVariant::Cmac, MacVariant::TrCbcMac, MacVariant::CbcrMac] {
            assert!(matches!(
                Mac::new(&k, v, Some(MacPadding::M2), 16),
                Err(Error::InvalidValue(_))
            ));
        }
        assert!(matches!(
            Mac::new(&k, MacVariant::CbcMac, Some(MacPadding::M3), 16),
            Err(Error::InvalidValue(_))
        ));
        for t in [0, 7, 17] {
            assert!(matches!(
                Mac::new(&k, MacVariant::Cmac, None, t),
                Err(Error::InvalidValue(_))
            ));
        }
        let mut m =
            Mac::with_length(&k, MacVariant::CbcMac, Some(MacPadding::M3), 16, Some(3)).unwrap();
        m.update(b"ab").unwrap();
        assert!(matches!(m.finalize(), Err(Error::InvalidValue(_))));
        assert_eq!(m.update(b"c"), Err(Error::AlreadyFinalized));
    }

    #[test]
    fn verify_fixed_length() {
        let k = h(K);
        let tag = mac(&k, MacVariant::Cmac, None, 16, M25).unwrap();
        let mut m = Mac::new(&k, MacVariant::Cmac, None, 16).unwrap();
        m.update(M25).unwrap();
        let m2 = m.clone();
        assert!(m.verify(&tag).unwrap());
        assert_eq!(m.verify(&tag), Err(Error::AlreadyFinalized));
        // A correct prefix is not accepted by a full-length verifier.
        assert!(!m2.clone().verify(&tag[..8]).unwrap());
        let mut bad = tag.clone();
        bad[15] ^= 1;
        assert!(!m2.clone().verify(&bad).unwrap());
        let mut m8 = Mac::new(&k, MacVariant::Cmac, None, 8).unwrap();
        m8.update(M25).unwrap();
        assert!(m8.clone().verify(&tag[..8]).unwrap());
        assert!(!m8.verify(&tag).unwrap());
    }
}
