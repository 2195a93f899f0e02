//! SM9 digital signatures (GM/T 0044-2016 Part 2 §6.2 signing A1-A7, §7.2 verification
//! B1-B9), with raw h || S and GmSSL's DER SM9Signature encodings.

use super::bn256::fp::Fn;
use super::bn256::pairing::pairing;
use super::bn256::{p2_table, G2};
use super::encoding::{g1_from_bytes, g1_to_bytes, g1_to_xy};
use super::hash::{h1, h2};
use super::keys::{SignMasterPublicKey, SignUserKey, HID_SIGN};
use crate::der::{self, Reader, TAG_OCTET_STRING, TAG_SEQUENCE};
use crate::error::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// Length of a raw signature h (32) || S (65, 04 || x || y).
pub const RAW_SIGNATURE_LEN: usize = 97;

/// A signature (h, S).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub h: [u8; 32],
    pub s: [u8; 65],
}

impl Signature {
    /// h || S (97 bytes).
    pub fn to_raw(&self) -> Vec<u8> {
        let mut o = Vec::with_capacity(RAW_SIGNATURE_LEN);
        o.extend_from_slice(&self.h);
        o.extend_from_slice(&self.s);
        o
    }

    /// Parses h || S (97 bytes; 96 bytes with S as x || y is accepted too).
    pub fn from_raw(b: &[u8]) -> Result<Self> {
        let s = match b.len() {
            97 if b[32] == 0x04 => b[32..].try_into().unwrap(),
            96 => {
                let mut s = [0u8; 65];
                s[0] = 4;
                s[1..].copy_from_slice(&b[32..]);
                s
            }
            97 => {
                return Err(Error::UnsupportedFormat(
                    "S must be an uncompressed point (04 || x || y)",
                ))
            }
            n => {
                return Err(Error::InvalidLength {
                    what: "signature",
                    expected: "97 bytes (h || 04 || x || y)",
                    got: n,
                })
            }
        };
        Ok(Self {
            h: b[..32].try_into().unwrap(),
            s,
        })
    }

    /// DER SM9Signature ::= SEQUENCE { h OCTET STRING, S BIT STRING } (GmSSL sm9_signature_to_der).
    pub fn to_der(&self) -> Vec<u8> {
        let mut items = Vec::with_capacity(104);
        der::write_tlv(&mut items, TAG_OCTET_STRING, &self.h);
        der::write_bit_string(&mut items, &self.s);
        der::sequence(&items)
    }

    /// Parses the DER form (strict: nothing may follow).
    pub fn from_der(b: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(b);
        let seq = outer.read(TAG_SEQUENCE)?;
        outer.finish()?;
        let mut r = Reader::new(seq);
        let h = r.read(TAG_OCTET_STRING)?;
        let s = r.read_bit_string()?;
        r.finish()?;
        if h.len() != 32 || s.len() != 65 || s[0] != 0x04 {
            return Err(Error::UnsupportedFormat(
                "SM9 signature: h must be 32 bytes and S 65 bytes (04 || x || y)",
            ));
        }
        Ok(Self {
            h: h.try_into().unwrap(),
            s: s.try_into().unwrap(),
        })
    }
}

/// Whether 32 big-endian bytes are a scalar in [1, N-1] (constant time).
pub(crate) fn scalar_in_range(b: &[u8; 32]) -> bool {
    let s = Fn::from_be_bytes(b);
    let ok = s.is_some() & !s.unwrap_or(Fn::ZERO).is_zero();
    bool::from(ok)
}

impl SignUserKey {
    /// Signs `msg` (Part 2 §6.2). The random r of A2 is hedged: HMAC-SM3 keyed with ds_A
    /// over SM3(M) and 32 fresh bytes from the OS CSPRNG (RFC 6979 §3.6 style, see
    /// `sm2::nonce`), with rejection sampling into [1, N-1]. An OS RNG failure is an
    /// error.
    pub fn sign(&self, msg: &[u8]) -> Result<Signature> {
        let secret = Zeroizing::new(g1_to_xy(&self.ds));
        let digest = crate::sm3::hash(msg);
        let drbg = crate::sm2::nonce::hedged(&secret[..], &digest)?;
        Ok(self.sign_with_drbg(msg, drbg))
    }

    /// A2-A7 with r drawn from `drbg` until one gives a signature.
    pub(crate) fn sign_with_drbg(
        &self,
        msg: &[u8],
        mut drbg: crate::sm2::nonce::HedgedNonces,
    ) -> Signature {
        loop {
            let rb = drbg.next(scalar_in_range);
            let mut r = Fn::from_be_bytes(&rb).unwrap_or(Fn::ZERO);
            let out = self.sign_with_r(msg, &r);
            r.zeroize();
            if let Some(sig) = out {
                return sig;
            }
        }
    }

    /// Signing with a given r. `None` when l = 0 (A5: pick another r).
    pub(crate) fn sign_with_r(&self, msg: &[u8], r: &Fn) -> Option<Signature> {
        // A1, A3: w = g^r with g = e(P1, Ppub-s) from the key's cache.
        let (_, table) = self.public.g();
        let mut w_gt = table.pow(&r.to_raw());
        let w = Zeroizing::new(w_gt.to_bytes());
        w_gt.zeroize();
        // A4: h = H2(M || w, N).
        let h = Fn::from_raw(h2(&[msg, &w[..]]));
        // A5: l = (r - h) mod N, l != 0.
        let mut l = r.sub(&h);
        // Declassified: l = 0 goes back to A1 with a fresh r; the outcome only discards r.
        if crate::ct::declassify_choice(l.is_zero()) {
            return None;
        }
        // A6: S = [l] ds_A.
        let s = self.ds_mul(&l).to_affine().expect("l != 0");
        l.zeroize();
        Some(Signature {
            h: h.to_be_bytes(),
            s: g1_to_bytes(&s),
        })
    }
}

impl SignMasterPublicKey {
    /// Verifies (Part 2 §7.2, B1-B9). Any malformed or wrong input gives `false`.
    pub fn verify(&self, sig: &Signature, msg: &[u8], user_id: &[u8]) -> bool {
        // B1: h in [1, N-1].
        let h = Fn::from_be_bytes(&sig.h);
        if !bool::from(h.is_some()) {
            return false;
        }
        let h = h.unwrap();
        if bool::from(h.is_zero()) {
            return false;
        }
        // B2: S in G1.
        let Ok(s) = g1_from_bytes(&sig.s, "S") else {
            return false;
        };
        // B3, B4: t = g^h.
        let (_, table) = self.g();
        let t = table.pow(&h.to_raw());
        // B5, B6: P = [H1(ID || 01, N)] P2 + Ppub-s.
        let p = p2_table()
            .mul(&h1(user_id, HID_SIGN))
            .add(&G2::from_affine(self.ppub()));
        let Some(p) = p.to_affine() else {
            return false;
        };
        // B7, B8: w' = e(S, P) t.
        let w = pairing(&s, &p).mul(&t);
        // B9: h2 = H2(M || w', N) == h.
        let h2v = Fn::from_raw(h2(&[msg, &w.to_bytes()]));
        h2v == h
    }
}
