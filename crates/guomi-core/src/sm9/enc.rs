//! SM9 public-key encryption with the KDF-based stream cipher (GM/T 0044-2016 Part 4
//! §7.2 A1-A8, §7.3 B1-B5) and key encapsulation (Part 4 §6.2/§6.3).
//!
//! Raw ciphertext: C1 (64 bytes, x || y) || C3 (32) || C2 (len(M)), the order of
//! GB/T 38635.2 and the standard's example (gmsm writes the same); C1 may also be
//! written and read as `04 || x || y` (65 bytes, see [`Ciphertext::from_raw_with`]). DER: GmSSL's
//! SM9Cipher ::= SEQUENCE { EnType INTEGER (0 = KDF stream), C1 BIT STRING (04 || x || y),
//! C3 OCTET STRING, CipherText OCTET STRING }.
//!
//! The block-cipher (SM4) variant is not implemented here; `EnType` is checked so that
//! it can be added.

use super::bn256::fp::Fn;
use super::bn256::fp12::Fp12;
use super::bn256::pairing::pairing_prepared;
use super::bn256::G1Affine;
use super::encoding::{g1_from_bytes, g1_to_bytes, g1_to_xy};
use super::keys::{hedged_scalar, EncMasterPublicKey, EncUserKey, HID_ENCRYPT};
use crate::der::{self, Reader, TAG_OCTET_STRING, TAG_SEQUENCE};
use crate::error::{Error, Result};
use crate::sm3::{kdf::kdf_into, Sm3};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// EnType of the KDF stream cipher in GmSSL's SM9Cipher.
pub const ENC_TYPE_XOR: u8 = 0;

/// The data cipher of Part 4 §7.2 A6: the KDF stream (`C2 = M xor K1`) or the SM4 block
/// cipher keyed with a 16-byte K1 (`C2 = Enc(K1, M)`). The standard leaves the block
/// mode open; these follow emmansun/gmsm and its EnType numbers (facts, not code): ECB
/// and CBC with PKCS#7 padding, CBC/CFB/OFB with a random 16-byte IV prefixed to C2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Cipher {
    /// KDF stream cipher (EnType 0), the standard's example.
    #[default]
    Kdf,
    /// SM4-ECB, PKCS#7 (EnType 1).
    Sm4Ecb,
    /// SM4-CBC, PKCS#7, IV || ciphertext (EnType 2).
    Sm4Cbc,
    /// SM4-OFB, IV || ciphertext (EnType 4).
    Sm4Ofb,
    /// SM4-CFB, IV || ciphertext (EnType 8).
    Sm4Cfb,
}

impl Cipher {
    /// The EnType value of the DER SM9Cipher.
    pub fn en_type(self) -> u8 {
        match self {
            Cipher::Kdf => ENC_TYPE_XOR,
            Cipher::Sm4Ecb => 1,
            Cipher::Sm4Cbc => 2,
            Cipher::Sm4Ofb => 4,
            Cipher::Sm4Cfb => 8,
        }
    }

    /// The cipher of an EnType value.
    pub fn from_en_type(v: u8) -> Result<Cipher> {
        Ok(match v {
            0 => Cipher::Kdf,
            1 => Cipher::Sm4Ecb,
            2 => Cipher::Sm4Cbc,
            4 => Cipher::Sm4Ofb,
            8 => Cipher::Sm4Cfb,
            _ => return Err(Error::UnsupportedFormat("SM9 ciphertext: unknown EnType")),
        })
    }

    /// Parses "kdf", "sm4-ecb", "sm4-cbc", "sm4-cfb" or "sm4-ofb".
    pub fn parse(name: &str) -> Result<Cipher> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "kdf" | "xor" => Cipher::Kdf,
            "sm4-ecb" => Cipher::Sm4Ecb,
            "sm4-cbc" | "sm4" => Cipher::Sm4Cbc,
            "sm4-cfb" => Cipher::Sm4Cfb,
            "sm4-ofb" => Cipher::Sm4Ofb,
            _ => {
                return Err(Error::InvalidValue(
                    "cipher must be 'kdf', 'sm4-ecb', 'sm4-cbc', 'sm4-cfb' or 'sm4-ofb'",
                ))
            }
        })
    }

    /// Length of K1: the message length for the stream cipher, 16 for SM4.
    fn k1_len(self, msg_len: usize) -> usize {
        match self {
            Cipher::Kdf => msg_len,
            _ => crate::sm4::KEY_SIZE,
        }
    }

    fn sm4_mode(self) -> Option<crate::sm4::modes::Mode> {
        use crate::sm4::modes::Mode;
        match self {
            Cipher::Kdf => None,
            Cipher::Sm4Ecb => Some(Mode::Ecb),
            Cipher::Sm4Cbc => Some(Mode::Cbc),
            Cipher::Sm4Cfb => Some(Mode::Cfb),
            Cipher::Sm4Ofb => Some(Mode::Ofb),
        }
    }

    /// A6: C2 from M and K1.
    fn seal(self, k1: &[u8], msg: &[u8]) -> Result<Vec<u8>> {
        let Some(mode) = self.sm4_mode() else {
            return Ok(msg.iter().zip(k1).map(|(m, k)| m ^ k).collect());
        };
        let sm4 = crate::sm4::Sm4::from_slice(k1)?;
        if mode == crate::sm4::modes::Mode::Ecb {
            return crate::sm4::modes::encrypt(&sm4, mode, None, None, msg);
        }
        let iv = crate::rand::bytes::<16>()?;
        let mut out = iv.to_vec();
        out.extend_from_slice(&crate::sm4::modes::encrypt(
            &sm4,
            mode,
            Some(&iv),
            None,
            msg,
        )?);
        Ok(out)
    }

    /// B5: M from C2 and K1 (called only after C3 has been verified).
    fn open(self, k1: &[u8], c2: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let Some(mode) = self.sm4_mode() else {
            return Ok(Zeroizing::new(
                c2.iter().zip(k1).map(|(c, k)| c ^ k).collect(),
            ));
        };
        let sm4 = crate::sm4::Sm4::from_slice(k1)?;
        let (iv, body) = if mode == crate::sm4::modes::Mode::Ecb {
            (None, c2)
        } else if c2.len() >= 16 {
            (Some(&c2[..16]), &c2[16..])
        } else {
            return Err(Error::DecryptionFailed);
        };
        crate::sm4::modes::decrypt(&sm4, mode, iv, None, body)
            .map(Zeroizing::new)
            .map_err(|_| Error::DecryptionFailed)
    }
}

/// How C3 is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mac {
    /// MAC(K2, Z) = SM3(Z || K2): GM/T 0044 Part 4 §5.4.5 (the standard; its example).
    #[default]
    Sm3,
    /// HMAC-SM3(K2, C2): what GmSSL 3.x computes instead (for interoperability only).
    HmacSm3,
}

/// An SM9 ciphertext (KDF stream cipher).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    /// C1 = [r] Q_B.
    pub c1: [u8; 64],
    /// C3 = MAC(K2, C2) = SM3(C2 || K2).
    pub c3: [u8; 32],
    /// C2 = M xor K1 (or Enc(K1, M) for the SM4 ciphers).
    pub c2: Vec<u8>,
    /// The data cipher (EnType); not part of the raw encoding.
    pub cipher: Cipher,
}

impl Ciphertext {
    /// C1 (x || y) || C3 || C2.
    pub fn to_raw(&self) -> Vec<u8> {
        self.to_raw_c1(false)
    }

    /// C1 || C3 || C2 with C1 as `04 || x || y` (65 bytes) when `c1_prefix`, else
    /// `x || y` (64 bytes).
    pub fn to_raw_c1(&self, c1_prefix: bool) -> Vec<u8> {
        let mut o = Vec::with_capacity(97 + self.c2.len());
        if c1_prefix {
            o.push(4);
        }
        o.extend_from_slice(&self.c1);
        o.extend_from_slice(&self.c3);
        o.extend_from_slice(&self.c2);
        o
    }

    /// Parses C1 (64) || C3 (32) || C2 of the KDF stream cipher.
    pub fn from_raw(b: &[u8]) -> Result<Self> {
        Self::from_raw_with(b, Cipher::Kdf)
    }

    /// Parses C1 || C3 (32) || C2 made with `cipher`, C1 as `x || y` (64 bytes) or
    /// `04 || x || y` (65 bytes). A leading 04 is read as the prefix when bytes 1..65
    /// are a point of G1, else as the first byte of a bare x (a valid ciphertext is
    /// misread only if 64 bytes happen to be a curve point: probability about 2^-256).
    pub fn from_raw_with(b: &[u8], cipher: Cipher) -> Result<Self> {
        if b.len() < 96 {
            return Err(Error::DecryptionFailed);
        }
        let b = if b.len() >= 97 && b[0] == 4 && g1_from_bytes(&b[1..65], "C1").is_ok() {
            &b[1..]
        } else {
            b
        };
        Ok(Self {
            c1: b[..64].try_into().unwrap(),
            c3: b[64..96].try_into().unwrap(),
            c2: b[96..].to_vec(),
            cipher,
        })
    }

    /// GmSSL's DER SM9Cipher.
    pub fn to_der(&self) -> Vec<u8> {
        let mut items = Vec::with_capacity(self.c2.len() + 120);
        der::write_uint(&mut items, &[self.cipher.en_type()]);
        let mut c1 = [0u8; 65];
        c1[0] = 4;
        c1[1..].copy_from_slice(&self.c1);
        der::write_bit_string(&mut items, &c1);
        der::write_tlv(&mut items, TAG_OCTET_STRING, &self.c3);
        der::write_tlv(&mut items, TAG_OCTET_STRING, &self.c2);
        der::sequence(&items)
    }

    /// Parses the DER SM9Cipher (its EnType names the data cipher).
    pub fn from_der(b: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(b);
        let seq = outer.read(TAG_SEQUENCE)?;
        outer.finish()?;
        let mut r = Reader::new(seq);
        let en_type = r.read_small_uint()?;
        let c1 = r.read_bit_string()?;
        let c3 = r.read(TAG_OCTET_STRING)?;
        let c2 = r.read(TAG_OCTET_STRING)?;
        r.finish()?;
        let cipher = Cipher::from_en_type(en_type)?;
        if c1.len() != 65 || c1[0] != 4 || c3.len() != 32 {
            return Err(Error::UnsupportedFormat(
                "SM9 ciphertext: C1 must be 04 || x || y and C3 32 bytes",
            ));
        }
        Ok(Self {
            c1: c1[1..].try_into().unwrap(),
            c3: c3.try_into().unwrap(),
            c2: c2.to_vec(),
            cipher,
        })
    }
}

/// Longest SM9 plaintext, in bytes: K1 || K2 comes from the GM/T 0003 KDF, whose counter is
/// 32 bits, so klen1 + 256 bits < (2^32 - 1) · 256 bits.
pub const MAX_MESSAGE_LENGTH: u64 = (u32::MAX as u64 - 2) * 32;

fn message_len_ok(len: usize) -> bool {
    (len as u64) <= MAX_MESSAGE_LENGTH
}

/// The KDF input C || w || ID (secret: w is the pairing value). Wiped on drop.
fn kdf_input(c1: &[u8; 64], w: &[u8; 384], id: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut z = Zeroizing::new(Vec::with_capacity(64 + 384 + id.len()));
    z.extend_from_slice(c1);
    z.extend_from_slice(w);
    z.extend_from_slice(id);
    z
}

/// A KEM result: the key K (wiped on drop) and C = 04 || x || y.
pub type Encapsulated = (Zeroizing<Vec<u8>>, [u8; 65]);

fn mac(kind: Mac, k2: &[u8], c2: &[u8]) -> [u8; 32] {
    match kind {
        Mac::Sm3 => {
            let mut h = Sm3::new();
            h.update(c2);
            h.update(k2);
            h.finalize()
        }
        Mac::HmacSm3 => crate::sm3::hmac::hmac(k2, c2),
    }
}

impl EncMasterPublicKey {
    /// Encrypts `msg` to `user_id` (Part 4 §7.2) with r from the OS CSPRNG.
    pub fn encrypt(&self, msg: &[u8], user_id: &[u8]) -> Result<Ciphertext> {
        self.encrypt_mac(msg, user_id, Mac::Sm3)
    }

    /// [`Self::encrypt`] with a choice of C3 computation.
    pub fn encrypt_mac(&self, msg: &[u8], user_id: &[u8], mac_kind: Mac) -> Result<Ciphertext> {
        self.encrypt_with(msg, user_id, Cipher::Kdf, mac_kind)
    }

    /// [`Self::encrypt`] with a choice of data cipher and C3 computation.
    pub fn encrypt_with(
        &self,
        msg: &[u8],
        user_id: &[u8],
        cipher: Cipher,
        mac_kind: Mac,
    ) -> Result<Ciphertext> {
        if !message_len_ok(msg.len()) {
            return Err(Error::InvalidLength {
                what: "SM9 plaintext",
                expected: "at most (2^32 - 3) * 32 bytes",
                got: msg.len(),
            });
        }
        // A1-A2: r hedged with the master key, the ID and the plaintext (crate::sm2::nonce).
        let ctx = crate::sm2::nonce::context_digest(&[
            b"SM9 encrypt",
            &self.to_bytes(),
            &(user_id.len() as u64).to_be_bytes(),
            user_id,
            msg,
        ]);
        let mut seq = crate::sm2::nonce::hedged_public(&ctx)?;
        loop {
            let mut r = hedged_scalar(&mut seq);
            let out = self.encrypt_with_r_mac(msg, user_id, &r, mac_kind, cipher);
            r.zeroize();
            if let Some(c) = out? {
                return Ok(c);
            }
        }
    }

    /// Encryption with a given r (known-answer tests). `Ok(None)`: K1 was all zero (A6:
    /// pick another r).
    #[cfg(feature = "kat-hooks")]
    pub(crate) fn encrypt_with_r(
        &self,
        msg: &[u8],
        user_id: &[u8],
        r: &Fn,
    ) -> Result<Option<Ciphertext>> {
        self.encrypt_with_r_mac(msg, user_id, r, Mac::Sm3, Cipher::Kdf)
    }

    fn encrypt_with_r_mac(
        &self,
        msg: &[u8],
        user_id: &[u8],
        r: &Fn,
        mac_kind: Mac,
        cipher: Cipher,
    ) -> Result<Option<Ciphertext>> {
        // A1, A3: C1 = [r] Q_B, Q_B = [H1(ID_B || hid, N)] P1 + Ppub-e.
        let c1 = self.mul_q_affine(user_id, HID_ENCRYPT, r, "C1 is the point at infinity")?;
        let c1 = g1_to_xy(&c1);
        // A4, A5: w = g^r, g = e(Ppub-e, P2) from the key's cache.
        let w = gt_bytes(self.g().1.pow(&r.to_raw()));
        // A6: K = KDF(C1 || w || ID_B, klen1 + 32); C2 = M xor K1 or Enc(K1, M).
        let z = kdf_input(&c1, &w, user_id);
        drop(w);
        let k1_len = cipher.k1_len(msg.len());
        let mut k = Zeroizing::new(vec![0u8; k1_len + 32]);
        kdf_into(&z, &mut k);
        drop(z);
        let (k1, k2) = k.split_at(k1_len);
        // Declassified: K1 all zero means a fresh r; the outcome only discards r.
        if k1_len > 0 && crate::ct::declassify(k1.iter().fold(0u8, |a, &b| a | b) == 0) {
            return Ok(None);
        }
        // A7: C3 = MAC(K2, C2).
        let c2 = cipher.seal(k1, msg)?;
        let c3 = mac(mac_kind, k2, &c2);
        Ok(Some(Ciphertext { c1, c3, c2, cipher }))
    }

    /// [`Self::encapsulate`] with C as `04 || x || y` (65 bytes) when `c1_prefix`, else
    /// `x || y` (64 bytes, as BouncyCastle writes it).
    pub fn encapsulate_c1(
        &self,
        user_id: &[u8],
        key_length: usize,
        c1_prefix: bool,
    ) -> Result<(Zeroizing<Vec<u8>>, Vec<u8>)> {
        let (k, c) = self.encapsulate(user_id, key_length)?;
        let c = if c1_prefix { &c[..] } else { &c[1..] };
        Ok((k, c.to_vec()))
    }

    /// Key encapsulation (Part 4 §6.2): returns (K, C) with C = 04 || x || y (65 bytes).
    /// `key_length` is 1 to [`crate::sm2::MAX_KEY_LENGTH`] bytes ([`Error::InvalidLength`]
    /// otherwise, checked before anything is allocated).
    pub fn encapsulate(&self, user_id: &[u8], key_length: usize) -> Result<Encapsulated> {
        crate::sm2::check_key_length(key_length)?;
        let ctx = crate::sm2::nonce::context_digest(&[
            b"SM9 KEM",
            &self.to_bytes(),
            &(key_length as u64).to_be_bytes(),
            user_id,
        ]);
        let mut seq = crate::sm2::nonce::hedged_public(&ctx)?;
        loop {
            let mut r = hedged_scalar(&mut seq);
            let out = self.encapsulate_with_r(user_id, key_length, &r);
            r.zeroize();
            if let Some(kc) = out? {
                return Ok(kc);
            }
        }
    }

    /// Encapsulation with a given r. `Ok(None)`: K was all zero (pick another r).
    fn encapsulate_with_r(
        &self,
        user_id: &[u8],
        key_length: usize,
        r: &Fn,
    ) -> Result<Option<Encapsulated>> {
        // A1-A3: C = [r] Q_B.
        let c = self.mul_q_affine(user_id, HID_ENCRYPT, r, "C is the point at infinity")?;
        // A4, A5: w = g^r.
        let w = gt_bytes(self.g().1.pow(&r.to_raw()));
        // A6: K = KDF(C || w || ID_B, klen), not all zero.
        let z = kdf_input(&g1_to_xy(&c), &w, user_id);
        drop(w);
        let mut k = Zeroizing::new(vec![0u8; key_length]);
        kdf_into(&z, &mut k);
        drop(z);
        // Declassified: K all zero means a fresh r; the outcome only discards r.
        if crate::ct::declassify(k.iter().fold(0u8, |a, &b| a | b) == 0) {
            return Ok(None);
        }
        Ok(Some((k, g1_to_bytes(&c))))
    }
}

/// The 384-byte encoding of a secret GT element, wiping the element.
fn gt_bytes(mut g: Fp12) -> Zeroizing<[u8; 384]> {
    let b = Zeroizing::new(g.to_bytes());
    g.zeroize();
    b
}

impl EncUserKey {
    fn w_of(&self, c1: &G1Affine) -> Zeroizing<[u8; 384]> {
        // B2: w' = e(C1, de_B), de_B's lines prepared in the key.
        gt_bytes(pairing_prepared(c1, self.lines()))
    }

    /// Decrypts (Part 4 §7.3). Every failure is the same opaque `DecryptionFailed`. The
    /// plaintext, K and every intermediate are wiped when dropped.
    pub fn decrypt(&self, ct: &Ciphertext) -> Result<Zeroizing<Vec<u8>>> {
        self.decrypt_mac(ct, Mac::Sm3)
    }

    /// [`Self::decrypt`] with a choice of C3 computation.
    pub fn decrypt_mac(&self, ct: &Ciphertext, mac_kind: Mac) -> Result<Zeroizing<Vec<u8>>> {
        if !message_len_ok(ct.c2.len()) {
            return Err(Error::DecryptionFailed);
        }
        // B1: C1 in G1.
        let c1 = g1_from_bytes(&ct.c1, "C1").map_err(|_| Error::DecryptionFailed)?;
        let w = self.w_of(&c1);
        // B3: K' = KDF(C1 || w' || ID_B, mlen + 32); M' = C2 xor K1'.
        let z = kdf_input(&ct.c1, &w, &self.id);
        drop(w);
        let k1_len = ct.cipher.k1_len(ct.c2.len());
        let mut k = Zeroizing::new(vec![0u8; k1_len + 32]);
        kdf_into(&z, &mut k);
        drop(z);
        let (k1, k2) = k.split_at(k1_len);
        let k1_zero = k1_len > 0 && k1.iter().fold(0u8, |a, &b| a | b) == 0;
        // B4: u = MAC(K2', C2) == C3, in constant time; M' only after it passes.
        let u = mac(mac_kind, k2, &ct.c2);
        // Declassified: C3 matched and K1 not all zero, or DecryptionFailed (one opaque
        // error; only the combined bit is released).
        if crate::ct::declassify_choice(u.ct_eq(&ct.c3) & !subtle::Choice::from(k1_zero as u8)) {
            ct.cipher.open(k1, &ct.c2)
        } else {
            Err(Error::DecryptionFailed)
        }
    }

    /// Decrypts a raw C1 || C3 || C2 ciphertext.
    pub fn decrypt_raw(&self, b: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        self.decrypt(&Ciphertext::from_raw(b)?)
    }

    /// Key decapsulation (Part 4 §6.3): C is 04 || x || y (65 bytes) or x || y (64).
    /// `key_length` is 1 to [`crate::sm2::MAX_KEY_LENGTH`] bytes ([`Error::InvalidLength`]
    /// otherwise, checked first); every other failure is `DecryptionFailed`.
    pub fn decapsulate(&self, c: &[u8], key_length: usize) -> Result<Zeroizing<Vec<u8>>> {
        crate::sm2::check_key_length(key_length)?;
        // B1: C in G1.
        let cp = g1_from_bytes(c, "C").map_err(|_| Error::DecryptionFailed)?;
        // B2, B3: w' = e(C, de_B); K' = KDF(C || w' || ID_B, klen), not all zero.
        let w = self.w_of(&cp);
        let z = kdf_input(&g1_to_xy(&cp), &w, &self.id);
        drop(w);
        let mut k = Zeroizing::new(vec![0u8; key_length]);
        kdf_into(&z, &mut k);
        drop(z);
        // Declassified: K all zero -> DecryptionFailed, returned to the caller.
        if crate::ct::declassify(k.iter().fold(0u8, |a, &b| a | b) == 0) {
            return Err(Error::DecryptionFailed);
        }
        Ok(k)
    }
}

#[cfg(test)]
mod c1_prefix_tests {
    use super::*;

    #[test]
    fn raw_c1_with_and_without_04() {
        let p1 = g1_to_xy(&crate::sm9::bn256::consts_p1());
        let mut bare = p1.to_vec();
        bare.extend_from_slice(&[7u8; 32]);
        bare.extend_from_slice(b"c2");
        let a = Ciphertext::from_raw(&bare).unwrap();
        let mut pre = vec![4u8];
        pre.extend_from_slice(&bare);
        let b = Ciphertext::from_raw(&pre).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_raw_c1(true), pre);
        assert_eq!(a.to_raw_c1(false), bare);
        // 04 followed by 64 bytes that are not a point: a bare C1 starting with 04.
        let mut odd = vec![4u8; 64];
        odd.extend_from_slice(&[7u8; 33]);
        assert_eq!(&Ciphertext::from_raw(&odd).unwrap().c1[..], &odd[..64]);
    }
}
