//! Byte encodings of SM9 values: points (GM/T 0044 Part 1 §6 / GmSSL: 04 || x || y, with
//! Fp2 coordinates as high coefficient || low coefficient), scalars (32 bytes big-endian)
//! and the minimal DER reader/writer for the GmSSL signature and ciphertext structures.

use super::bn256::fp::{Fn, Fp};
use super::bn256::fp2::Fp2;
use super::bn256::{g1_on_curve, g2_in_subgroup, G1Affine, G2Affine, G1, G2};
use crate::error::{Error, Result};

/// 04 || x || y (65 bytes).
pub fn g1_to_bytes(p: &G1Affine) -> [u8; 65] {
    let mut o = [0u8; 65];
    o[0] = 0x04;
    o[1..33].copy_from_slice(&p.x.to_be_bytes());
    o[33..].copy_from_slice(&p.y.to_be_bytes());
    o
}

/// x || y (64 bytes, the form hashed by the KDF and H2 inputs).
pub fn g1_to_xy(p: &G1Affine) -> [u8; 64] {
    let mut o = [0u8; 64];
    o.copy_from_slice(&g1_to_bytes(p)[1..]);
    o
}

/// Parses 04 || x || y (65 bytes) or x || y (64 bytes); the point must be on the curve
/// (G1 has cofactor 1, so this is also the subgroup check). The identity has no encoding.
pub fn g1_from_bytes(b: &[u8], what: &'static str) -> Result<G1Affine> {
    let xy = match b.len() {
        65 if b[0] == 0x04 => &b[1..],
        65 => {
            return Err(Error::UnsupportedFormat(
                "only uncompressed points (04 || x || y) are supported",
            ))
        }
        64 => b,
        n => {
            return Err(Error::InvalidLength {
                what,
                expected: "65 bytes (04 || x || y) or 64 bytes (x || y)",
                got: n,
            })
        }
    };
    let x = Fp::from_be_bytes(xy[..32].try_into().unwrap());
    let y = Fp::from_be_bytes(xy[32..].try_into().unwrap());
    if !bool::from(x.is_some() & y.is_some()) {
        return Err(Error::InvalidKey("point coordinate is not below p"));
    }
    let p = G1Affine {
        x: x.unwrap(),
        y: y.unwrap(),
    };
    if !bool::from(g1_on_curve(&p)) {
        return Err(Error::InvalidKey("point is not on the SM9 curve"));
    }
    Ok(p)
}

/// 04 || x1 || x0 || y1 || y0 (129 bytes).
pub fn g2_to_bytes(p: &G2Affine) -> [u8; 129] {
    let mut o = [0u8; 129];
    o[0] = 0x04;
    o[1..65].copy_from_slice(&p.x.to_bytes());
    o[65..].copy_from_slice(&p.y.to_bytes());
    o
}

/// Parses 04 || x1 || x0 || y1 || y0 (129 bytes) or the same without 04 (128 bytes); the
/// point must be on the twist and in the order-N subgroup.
pub fn g2_from_bytes(b: &[u8], what: &'static str) -> Result<G2Affine> {
    let xy = match b.len() {
        129 if b[0] == 0x04 => &b[1..],
        129 => {
            return Err(Error::UnsupportedFormat(
                "only uncompressed points (04 || x || y) are supported",
            ))
        }
        128 => b,
        n => {
            return Err(Error::InvalidLength {
                what,
                expected: "129 bytes (04 || x || y) or 128 bytes",
                got: n,
            })
        }
    };
    let x = Fp2::from_bytes(xy[..64].try_into().unwrap());
    let y = Fp2::from_bytes(xy[64..].try_into().unwrap());
    let (Some(x), Some(y)) = (x, y) else {
        return Err(Error::InvalidKey("point coordinate is not below p"));
    };
    let p = G2Affine { x, y };
    if !bool::from(G2::affine_on_curve(&p)) {
        return Err(Error::InvalidKey("point is not on the SM9 twist curve"));
    }
    if !bool::from(g2_in_subgroup(&p)) {
        return Err(Error::InvalidKey(
            "point is not in the order-N subgroup of the twist",
        ));
    }
    Ok(p)
}

/// A scalar in [1, N-1] from 32 big-endian bytes.
pub fn scalar_from_bytes(b: &[u8], what: &'static str) -> Result<Fn> {
    let arr: &[u8; 32] = b.try_into().map_err(|_| Error::InvalidLength {
        what,
        expected: "32 bytes",
        got: b.len(),
    })?;
    let s = Fn::from_be_bytes(arr);
    if !bool::from(s.is_some()) {
        return Err(Error::InvalidKey("scalar is not below the group order N"));
    }
    let s = s.unwrap();
    if bool::from(s.is_zero()) {
        return Err(Error::InvalidKey("scalar is zero"));
    }
    Ok(s)
}

/// Projective to affine; `None` for the identity.
pub fn g1_affine(p: &G1) -> Option<G1Affine> {
    p.to_affine()
}

// ---- minimal DER ----

fn der_len(out: &mut Vec<u8>, n: usize) {
    if n < 0x80 {
        out.push(n as u8);
    } else if n < 0x100 {
        out.extend_from_slice(&[0x81, n as u8]);
    } else if n < 0x10000 {
        out.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]);
    } else if n < 0x100_0000 {
        out.extend_from_slice(&[0x83, (n >> 16) as u8, (n >> 8) as u8, n as u8]);
    } else {
        out.extend_from_slice(&[
            0x84,
            (n >> 24) as u8,
            (n >> 16) as u8,
            (n >> 8) as u8,
            n as u8,
        ]);
    }
}

/// Appends a TLV.
pub fn der_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
    out.push(tag);
    der_len(out, content.len());
    out.extend_from_slice(content);
}

/// SEQUENCE { items } from already-encoded items.
pub fn der_sequence(items: &[u8]) -> Vec<u8> {
    let mut o = Vec::with_capacity(items.len() + 6);
    der_tlv(&mut o, 0x30, items);
    o
}

/// A BIT STRING with no unused bits.
pub fn der_bit_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(0x03);
    der_len(out, bytes.len() + 1);
    out.push(0);
    out.extend_from_slice(bytes);
}

/// A small non-negative INTEGER.
pub fn der_small_int(out: &mut Vec<u8>, v: u8) {
    if v < 0x80 {
        der_tlv(out, 0x02, &[v]);
    } else {
        der_tlv(out, 0x02, &[0, v]);
    }
}

/// A strict DER reader over a byte slice.
pub struct DerReader<'a> {
    data: &'a [u8],
}

const BAD_DER: Error = Error::UnsupportedFormat("malformed DER");

impl<'a> DerReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Reads one TLV with `tag`; returns its content.
    pub fn read(&mut self, tag: u8) -> Result<&'a [u8]> {
        let d = self.data;
        if d.len() < 2 || d[0] != tag {
            return Err(BAD_DER);
        }
        let (len, hdr) = if d[1] < 0x80 {
            (d[1] as usize, 2)
        } else {
            let nb = (d[1] & 0x7f) as usize;
            if nb == 0 || nb > 4 || d.len() < 2 + nb {
                return Err(BAD_DER);
            }
            let mut l = 0usize;
            for &b in &d[2..2 + nb] {
                l = (l << 8) | b as usize;
            }
            // Minimal length encoding only.
            if l < 0x80 || d[2] == 0 {
                return Err(BAD_DER);
            }
            (l, 2 + nb)
        };
        if d.len() - hdr < len {
            return Err(BAD_DER);
        }
        self.data = &d[hdr + len..];
        Ok(&d[hdr..hdr + len])
    }

    /// Reads a BIT STRING with no unused bits.
    pub fn read_bit_string(&mut self) -> Result<&'a [u8]> {
        let c = self.read(0x03)?;
        if c.is_empty() || c[0] != 0 {
            return Err(BAD_DER);
        }
        Ok(&c[1..])
    }

    /// Reads a small non-negative INTEGER (0..=255).
    pub fn read_small_int(&mut self) -> Result<u8> {
        let c = self.read(0x02)?;
        match c {
            [v] if *v < 0x80 => Ok(*v),
            [0, v] if *v >= 0x80 => Ok(*v),
            _ => Err(BAD_DER),
        }
    }

    /// Fails unless everything was read.
    pub fn finish(&self) -> Result<()> {
        if self.data.is_empty() {
            Ok(())
        } else {
            Err(BAD_DER)
        }
    }
}
