//! Key derivation with SM3:
//! * [`kdf`]: the key derivation function of GM/T 0003.4-2012 §5.4.3 (used by SM2/SM9);
//! * [`pbkdf2_hmac_sm3`]: PBKDF2 (RFC 8018 §5.2) with HMAC-SM3;
//! * [`hkdf_extract`] / [`hkdf_expand`] / [`hkdf`]: HKDF (RFC 5869) with HMAC-SM3.

use super::{hmac::HmacSm3, Sm3, DIGEST_SIZE};
use crate::error::{Error, Result};
use zeroize::Zeroize;

/// GM/T 0003 KDF: `K = Ha1 || Ha2 || ...` with `Ha_i = SM3(Z || ct)`, `ct` a 32-bit
/// big-endian counter from 1, truncated to `out.len()` bytes.
pub fn kdf_into(z: &[u8], out: &mut [u8]) {
    // The counter is 32 bits; 2^32 - 1 blocks (128 GiB) is far beyond any caller's reach
    // from `usize` lengths we accept, but keep the arithmetic honest.
    debug_assert!((out.len() as u64).div_ceil(DIGEST_SIZE as u64) < u32::MAX as u64);
    let mut prefix = Sm3::new();
    prefix.update(z);
    for (i, chunk) in out.chunks_mut(DIGEST_SIZE).enumerate() {
        let mut h = prefix.clone();
        h.update(&(i as u32 + 1).to_be_bytes());
        let mut d = h.finalize();
        chunk.copy_from_slice(&d[..chunk.len()]);
        d.zeroize();
    }
}

/// GM/T 0003 KDF returning `length` bytes.
pub fn kdf(z: &[u8], length: usize) -> Vec<u8> {
    let mut out = vec![0u8; length];
    kdf_into(z, &mut out);
    out
}

/// PBKDF2-HMAC-SM3 (RFC 8018 §5.2). `iterations` must be at least 1.
pub fn pbkdf2_hmac_sm3(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<()> {
    if iterations == 0 {
        return Err(Error::InvalidValue("iterations must be at least 1"));
    }
    let keyed = HmacSm3::new(password);
    for (i, chunk) in out.chunks_mut(DIGEST_SIZE).enumerate() {
        let mut m = keyed.clone();
        m.update(salt);
        m.update(&(i as u32 + 1).to_be_bytes());
        let mut u = m.finalize();
        let mut t = u;
        for _ in 1..iterations {
            let mut m = keyed.clone();
            m.update(&u);
            u = m.finalize();
            for (a, b) in t.iter_mut().zip(u) {
                *a ^= b;
            }
        }
        chunk.copy_from_slice(&t[..chunk.len()]);
        t.zeroize();
        u.zeroize();
    }
    Ok(())
}

/// HKDF-Extract (RFC 5869 §2.2). An empty salt means 32 zero bytes.
pub fn hkdf_extract(salt: &[u8], ikm: &[u8]) -> [u8; DIGEST_SIZE] {
    let zeros = [0u8; DIGEST_SIZE];
    let mut m = HmacSm3::new(if salt.is_empty() { &zeros } else { salt });
    m.update(ikm);
    m.finalize()
}

/// HKDF-Expand (RFC 5869 §2.3). `out.len()` must be at most 255 * 32 bytes.
pub fn hkdf_expand(prk: &[u8], info: &[u8], out: &mut [u8]) -> Result<()> {
    if out.len() > 255 * DIGEST_SIZE {
        return Err(Error::InvalidValue(
            "HKDF output length must be at most 8160 bytes",
        ));
    }
    let keyed = HmacSm3::new(prk);
    let mut t = [0u8; DIGEST_SIZE];
    for (i, chunk) in out.chunks_mut(DIGEST_SIZE).enumerate() {
        let mut m = keyed.clone();
        if i > 0 {
            m.update(&t);
        }
        m.update(info);
        m.update(&[i as u8 + 1]);
        t = m.finalize();
        chunk.copy_from_slice(&t[..chunk.len()]);
    }
    t.zeroize();
    Ok(())
}

/// HKDF (RFC 5869): extract then expand.
pub fn hkdf(ikm: &[u8], salt: &[u8], info: &[u8], out: &mut [u8]) -> Result<()> {
    let mut prk = hkdf_extract(salt, ikm);
    let r = hkdf_expand(&prk, info, out);
    prk.zeroize();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kdf_matches_definition() {
        let z = b"some shared secret z value of arbitrary length...................";
        let out = kdf(z, 100);
        let mut expect = Vec::new();
        for ct in 1u32..=4 {
            let mut m = z.to_vec();
            m.extend_from_slice(&ct.to_be_bytes());
            expect.extend_from_slice(&crate::sm3::hash(&m));
        }
        assert_eq!(out, expect[..100]);
        assert!(kdf(z, 0).is_empty());
    }

    #[test]
    fn pbkdf2_one_iteration_is_hmac() {
        let mut out = [0u8; 40];
        pbkdf2_hmac_sm3(b"pw", b"salt", 1, &mut out).unwrap();
        let mut m = b"salt".to_vec();
        m.extend_from_slice(&1u32.to_be_bytes());
        assert_eq!(out[..32], crate::sm3::hmac::hmac(b"pw", &m));
        assert!(pbkdf2_hmac_sm3(b"pw", b"salt", 0, &mut out).is_err());
    }

    #[test]
    fn hkdf_lengths() {
        let mut out = vec![0u8; 255 * 32];
        hkdf(b"ikm", b"", b"info", &mut out).unwrap();
        let mut too_long = vec![0u8; 255 * 32 + 1];
        assert!(hkdf(b"ikm", b"", b"info", &mut too_long).is_err());
    }
}
