//! Byte encodings of SM9 values: points (GM/T 0044 Part 1 §6 / GmSSL: 04 || x || y, with
//! Fp2 coordinates as high coefficient || low coefficient), scalars (32 bytes big-endian)
//! (the DER forms of signatures and ciphertexts use the core's reader and writer, `crate::der`).

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
        // Declassified: the format byte (never key material, even in a key's encoding).
        65 if crate::ct::declassify(b[0]) == 0x04 => &b[1..],
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
    // Declassified: coordinates below p or InvalidKey (returned). The values are taken by
    // constant-time selects: `CtOption::unwrap` would branch on each `is_some` on its own.
    if !crate::ct::declassify_choice(x.is_some() & y.is_some()) {
        return Err(Error::InvalidKey("point coordinate is not below p"));
    }
    let p = G1Affine {
        x: x.unwrap_or(Fp::ZERO),
        y: y.unwrap_or(Fp::ZERO),
    };
    // Declassified: on the curve or InvalidKey (returned).
    if !crate::ct::declassify_choice(g1_on_curve(&p)) {
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
        // Declassified: the format byte, as in `g1_from_bytes`.
        129 if crate::ct::declassify(b[0]) == 0x04 => &b[1..],
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
    // Declassified: on the twist, then in the subgroup, or InvalidKey (returned).
    if !crate::ct::declassify_choice(G2::affine_on_curve(&p)) {
        return Err(Error::InvalidKey("point is not on the SM9 twist curve"));
    }
    if !crate::ct::declassify_choice(g2_in_subgroup(&p)) {
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
    // Declassified: each outcome is an InvalidKey the caller gets (a master private key is
    // secret). The value is taken by a constant-time select, not `CtOption::unwrap`.
    if !crate::ct::declassify_choice(s.is_some()) {
        return Err(Error::InvalidKey("scalar is not below the group order N"));
    }
    let s = s.unwrap_or(Fn::ZERO);
    if crate::ct::declassify_choice(s.is_zero()) {
        return Err(Error::InvalidKey("scalar is zero"));
    }
    Ok(s)
}

/// Projective to affine; `None` for the identity.
pub fn g1_affine(p: &G1) -> Option<G1Affine> {
    p.to_affine()
}
