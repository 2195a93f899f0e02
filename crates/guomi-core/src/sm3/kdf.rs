//! Key derivation with SM3:
//! * [`kdf`]: the key derivation function of GM/T 0003.4-2012 §5.4.3 (used by SM2/SM9);
//! * [`pbkdf2_hmac_sm3`]: PBKDF2 (RFC 8018 §5.2) with HMAC-SM3;
//! * [`hkdf_extract`] / [`hkdf_expand`] / [`hkdf`]: HKDF (RFC 5869) with HMAC-SM3.

use super::{hmac::HmacSm3, Sm3, DIGEST_SIZE};
use crate::error::{Error, Result};
use zeroize::Zeroize;

/// Largest GM/T 0003 KDF output, in bytes: the standard requires klen < (2^32 - 1) · v
/// with v = 256 bits (GM/T 0003.4-2012 §5.4.3), so the 32-bit counter never wraps; in
/// bytes that is at most (2^32 - 1) · 32 - 1.
pub const KDF_MAX_LEN: u64 = (u32::MAX as u64) * DIGEST_SIZE as u64 - 1;
/// Largest PBKDF2 output, in bytes: dkLen <= (2^32 - 1) · hLen (RFC 8018 §5.2 step 1).
pub const PBKDF2_MAX_LEN: u64 = (u32::MAX as u64) * DIGEST_SIZE as u64;
/// Largest HKDF output, in bytes: L <= 255 · HashLen (RFC 5869 §2.3).
pub const HKDF_MAX_LEN: usize = 255 * DIGEST_SIZE;
/// Largest PBKDF2 iteration count accepted, everywhere guomi runs PBKDF2 (the SM3 KDF
/// functions, password envelopes, encrypted PKCS#8 keys): a count read from a hostile
/// file must not stall the reader for hours. Ten million HMAC-SM3 iterations take
/// seconds; the counts in use (1 000 to a few hundred thousand) are far below.
pub const MAX_PBKDF2_ITERATIONS: u32 = 10_000_000;

/// Largest output of one call that returns a new buffer (the Python `sm3.kdf` and
/// `sm3.pbkdf2_hmac`): 1 GiB for the KDF, 1 MiB for PBKDF2. The standards allow up to
/// 128 GiB, but such a request is a mistake or an attack on memory and time (4 GiB of
/// KDF output takes minutes); callers who need more stream it with [`kdf_into`].
pub const KDF_MAX_CALL_LEN: u64 = 1 << 30;
/// See [`KDF_MAX_CALL_LEN`]: PBKDF2 costs `iterations` HMACs per 32 bytes of output, and
/// keys are at most a few hundred bytes.
pub const PBKDF2_MAX_CALL_LEN: u64 = 1 << 20;

/// Checks the output length of one buffer-returning call (see [`KDF_MAX_CALL_LEN`]).
pub fn check_kdf_call_len(len: u64) -> Result<()> {
    if len > KDF_MAX_CALL_LEN {
        return Err(Error::InvalidLength {
            what: "SM3 KDF output",
            expected: "at most 1073741824 bytes (1 GiB) per call",
            got: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Checks the output length of one buffer-returning PBKDF2 call (see
/// [`PBKDF2_MAX_CALL_LEN`]).
pub fn check_pbkdf2_call_len(len: u64) -> Result<()> {
    if len > PBKDF2_MAX_CALL_LEN {
        return Err(Error::InvalidLength {
            what: "PBKDF2 output",
            expected: "at most 1048576 bytes (1 MiB) per call",
            got: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Checks a requested GM/T 0003 KDF output length (bytes) against [`KDF_MAX_LEN`].
pub fn check_kdf_len(len: u64) -> Result<()> {
    if len > KDF_MAX_LEN {
        return Err(Error::InvalidLength {
            what: "SM3 KDF output",
            expected: "at most 137438953439 bytes ((2^32 - 1) * 32 - 1, GM/T 0003)",
            got: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Checks a requested PBKDF2 output length (bytes) against [`PBKDF2_MAX_LEN`].
pub fn check_pbkdf2_len(len: u64) -> Result<()> {
    if len > PBKDF2_MAX_LEN {
        return Err(Error::InvalidLength {
            what: "PBKDF2 output",
            expected: "at most 137438953440 bytes ((2^32 - 1) * 32, RFC 8018)",
            got: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Checks a requested HKDF output length (bytes) against [`HKDF_MAX_LEN`].
pub fn check_hkdf_len(len: u64) -> Result<()> {
    if len > HKDF_MAX_LEN as u64 {
        return Err(Error::InvalidLength {
            what: "HKDF output",
            expected: "at most 8160 bytes (255 * 32, RFC 5869)",
            got: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Checks a PBKDF2 iteration count: 1 to [`MAX_PBKDF2_ITERATIONS`].
pub fn check_pbkdf2_iterations(iterations: u64) -> Result<()> {
    if iterations == 0 || iterations > u64::from(MAX_PBKDF2_ITERATIONS) {
        return Err(Error::InvalidValue(
            "PBKDF2 iterations must be 1 to 10000000",
        ));
    }
    Ok(())
}

/// GM/T 0003 KDF: `K = Ha1 || Ha2 || ...` with `Ha_i = SM3(Z || ct)`, `ct` a 32-bit
/// big-endian counter from 1, truncated to `out.len()` bytes; `out.len()` at most
/// [`KDF_MAX_LEN`], checked with a typed error.
pub fn try_kdf_into(z: &[u8], out: &mut [u8]) -> Result<()> {
    check_kdf_len(out.len() as u64)?;
    kdf_blocks(z, out);
    Ok(())
}

/// [`try_kdf_into`] for internal callers whose lengths are bounded far below
/// [`KDF_MAX_LEN`] (SM2/SM9 keys and messages held in memory).
///
/// # Panics
/// If `out.len()` exceeds [`KDF_MAX_LEN`] (more than 128 GiB): the counter would wrap and
/// the key stream repeat, which must never happen silently. Lengths from outside go
/// through [`try_kdf_into`] or [`kdf`].
pub fn kdf_into(z: &[u8], out: &mut [u8]) {
    assert!(
        out.len() as u64 <= KDF_MAX_LEN,
        "SM3 KDF output longer than (2^32 - 1) * 32 - 1 bytes"
    );
    kdf_blocks(z, out);
}

fn kdf_blocks(z: &[u8], out: &mut [u8]) {
    let mut prefix = Sm3::new();
    prefix.update(z);
    let done = super::many::kdf_prefix_lanes(&prefix, out);
    // At most 2^32 - 1 blocks (the length was checked), so the counter `ct` fits in u32.
    let first = (done / DIGEST_SIZE) as u32 + 1;
    for (chunk, ct) in out[done..].chunks_mut(DIGEST_SIZE).zip(first..=u32::MAX) {
        let mut h = prefix.clone();
        h.update(&ct.to_be_bytes());
        let mut d = h.finalize();
        chunk.copy_from_slice(&d[..chunk.len()]);
        d.zeroize();
    }
}

/// GM/T 0003 KDF returning `length` bytes; `length` at most [`KDF_MAX_LEN`], checked
/// before anything is allocated.
pub fn kdf(z: &[u8], length: usize) -> Result<Vec<u8>> {
    check_kdf_len(length as u64)?;
    let mut out = vec![0u8; length];
    kdf_blocks(z, &mut out);
    Ok(out)
}

/// PBKDF2-HMAC-SM3 (RFC 8018 §5.2). `iterations`: 1 to [`MAX_PBKDF2_ITERATIONS`];
/// `out.len()`: at most [`PBKDF2_MAX_LEN`] (typed errors otherwise, before any work).
pub fn pbkdf2_hmac_sm3(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<()> {
    check_pbkdf2_iterations(u64::from(iterations))?;
    check_pbkdf2_len(out.len() as u64)?;
    let keyed = HmacSm3::new(password);
    // At most 2^32 - 1 blocks (the length was checked): the block index fits in u32.
    for (chunk, block) in out.chunks_mut(DIGEST_SIZE).zip(1..=u32::MAX) {
        let mut m = keyed.clone();
        m.update(salt);
        m.update(&block.to_be_bytes());
        let mut u = m.finalize();
        let mut t = u;
        keyed.pbkdf2_chain(&u, iterations, &mut t);
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

/// HKDF-Expand (RFC 5869 §2.3). `out.len()` must be at most [`HKDF_MAX_LEN`] (8160)
/// bytes.
pub fn hkdf_expand(prk: &[u8], info: &[u8], out: &mut [u8]) -> Result<()> {
    check_hkdf_len(out.len() as u64)?;
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
    fn call_lengths_are_bounded() {
        assert!(check_kdf_call_len(KDF_MAX_CALL_LEN).is_ok());
        assert!(check_pbkdf2_call_len(PBKDF2_MAX_CALL_LEN).is_ok());
        for len in [KDF_MAX_CALL_LEN + 1, 1 << 32, 1 << 40, u64::MAX] {
            assert!(matches!(
                check_kdf_call_len(len),
                Err(Error::InvalidLength { .. })
            ));
        }
        for len in [PBKDF2_MAX_CALL_LEN + 1, 1 << 32, u64::MAX] {
            assert!(matches!(
                check_pbkdf2_call_len(len),
                Err(Error::InvalidLength { .. })
            ));
        }
    }

    #[test]
    fn kdf_matches_definition() {
        let z = b"some shared secret z value of arbitrary length...................";
        let out = kdf(z, 100).unwrap();
        let mut expect = Vec::new();
        for ct in 1u32..=4 {
            let mut m = z.to_vec();
            m.extend_from_slice(&ct.to_be_bytes());
            expect.extend_from_slice(&crate::sm3::hash(&m));
        }
        assert_eq!(out, expect[..100]);
        assert!(kdf(z, 0).unwrap().is_empty());
    }

    #[test]
    fn kdf_every_backend_matches_definition() {
        // Lengths around the lane groups (8 and 16 blocks of 32 bytes) and the smallest
        // group worth its setup; Z with a tail of every kind (none, one padded block, two).
        let z: Vec<u8> = (0..200u32).map(|i| (i * 131 + 17) as u8).collect();
        let lens: [usize; 23] = [
            0, 1, 32, 64, 65, 95, 96, 97, 255, 256, 257, 320, 511, 512, 513, 543, 544, 577, 608,
            609, 1024, 1025, 4000,
        ];
        for z_len in [0, 1, 32, 51, 52, 55, 56, 60, 63, 64, 65, 100, 124, 128, 200] {
            let z = &z[..z_len];
            for &len in &lens {
                let mut expect = Vec::new();
                for ct in 1u32..=len.div_ceil(32) as u32 {
                    let mut m = z.to_vec();
                    m.extend_from_slice(&ct.to_be_bytes());
                    let mut h = Sm3::with_backend(crate::cpu::Backend::Portable);
                    h.update(&m);
                    expect.extend_from_slice(&h.finalize());
                }
                expect.truncate(len);
                for b in crate::cpu::available() {
                    let got = crate::cpu::with_backend(b, || kdf(z, len).unwrap());
                    assert_eq!(got, expect, "Z {z_len} B, {len} B, {b:?}");
                }
            }
        }
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
    fn pbkdf2_known_answers() {
        // OpenSSL 3's PBKDF2 with SM3 (Python's hashlib.pbkdf2_hmac("sm3", ...)).
        let cases: [(&[u8], &[u8], u32, &str); 3] = [
            (
                b"password",
                b"salt",
                2,
                "fee723a2bc966e11dffb66133f4e8df577383c78ade30e3298edbd3e54ed85b7",
            ),
            (
                b"password",
                b"salt",
                4096,
                "b6e8f2074c87432b78f62e5ced980fdff89e86af2f693dab1638e2b3683045dd844438500eead50c",
            ),
            (
                &[b'k'; 100],
                b"NaCl",
                1000,
                "8181b5277c08621b769acecf654e17f447f1d436bf41d112f3bfdc2862cc5b74\
                 943ce1428af373906205d2fd33692b7e25453a78b5bbf8de55e96115693b3139",
            ),
        ];
        for (pw, salt, iterations, want) in cases {
            for b in crate::cpu::available() {
                let mut out = vec![0u8; want.len() / 2];
                crate::cpu::with_backend(b, || pbkdf2_hmac_sm3(pw, salt, iterations, &mut out))
                    .unwrap();
                let got: String = out.iter().map(|x| format!("{x:02x}")).collect();
                assert_eq!(got, want, "{iterations} iterations, {b:?}");
            }
        }
    }

    #[test]
    fn pbkdf2_matches_definition() {
        // T_i = U_1 ^ ... ^ U_c with U_1 = HMAC(P, S ∥ i), U_j = HMAC(P, U_(j-1)).
        for key_len in [0usize, 5, 64, 65, 100] {
            let pw: Vec<u8> = (0..key_len).map(|i| (i * 37 + 1) as u8).collect();
            for iterations in 1..=5u32 {
                let mut want = Vec::new();
                for block in 1u32..=3 {
                    let mut m = b"salt".to_vec();
                    m.extend_from_slice(&block.to_be_bytes());
                    let mut u = crate::sm3::hmac::hmac(&pw, &m);
                    let mut t = u;
                    for _ in 1..iterations {
                        u = crate::sm3::hmac::hmac(&pw, &u);
                        t.iter_mut().zip(u).for_each(|(a, b)| *a ^= b);
                    }
                    want.extend_from_slice(&t);
                }
                want.truncate(70);
                let mut out = [0u8; 70];
                pbkdf2_hmac_sm3(&pw, b"salt", iterations, &mut out).unwrap();
                assert_eq!(
                    out[..],
                    want[..],
                    "key {key_len} B, {iterations} iterations"
                );
            }
        }
    }

    #[test]
    fn output_length_bounds_are_typed_errors() {
        use crate::Error;
        let huge = [1u64 << 50, 1 << 63, u64::MAX];
        assert_eq!(KDF_MAX_LEN, 0xffff_ffff * 32 - 1);
        assert!(check_kdf_len(KDF_MAX_LEN).is_ok());
        for n in [KDF_MAX_LEN + 1].into_iter().chain(huge) {
            assert!(
                matches!(check_kdf_len(n), Err(Error::InvalidLength { .. })),
                "{n}"
            );
        }
        assert!(check_pbkdf2_len(PBKDF2_MAX_LEN).is_ok());
        for n in [PBKDF2_MAX_LEN + 1].into_iter().chain(huge) {
            assert!(
                matches!(check_pbkdf2_len(n), Err(Error::InvalidLength { .. })),
                "{n}"
            );
        }
        assert!(check_hkdf_len(HKDF_MAX_LEN as u64).is_ok());
        for n in [HKDF_MAX_LEN as u64 + 1].into_iter().chain(huge) {
            assert!(
                matches!(check_hkdf_len(n), Err(Error::InvalidLength { .. })),
                "{n}"
            );
        }
        let mut out = [0u8; 70];
        try_kdf_into(b"z", &mut out).unwrap();
        assert_eq!(out[..], kdf(b"z", 70).unwrap()[..]);
    }

    #[test]
    fn pbkdf2_iteration_bound() {
        use crate::Error;
        // The bound itself is accepted (no output block: no work).
        assert!(pbkdf2_hmac_sm3(b"pw", b"s", MAX_PBKDF2_ITERATIONS, &mut []).is_ok());
        assert!(pbkdf2_hmac_sm3(b"pw", b"s", MAX_PBKDF2_ITERATIONS + 1, &mut [0; 32]).is_err());
        assert!(pbkdf2_hmac_sm3(b"pw", b"s", u32::MAX, &mut [0; 32]).is_err());
        assert!(check_pbkdf2_iterations(u64::from(MAX_PBKDF2_ITERATIONS)).is_ok());
        for n in [
            0,
            u64::from(MAX_PBKDF2_ITERATIONS) + 1,
            1 << 50,
            1 << 63,
            u64::MAX,
        ] {
            assert!(
                matches!(check_pbkdf2_iterations(n), Err(Error::InvalidValue(_))),
                "{n}"
            );
        }
    }

    #[test]
    fn hkdf_lengths() {
        let mut out = vec![0u8; 255 * 32];
        hkdf(b"ikm", b"", b"info", &mut out).unwrap();
        let mut too_long = vec![0u8; 255 * 32 + 1];
        assert!(hkdf(b"ikm", b"", b"info", &mut too_long).is_err());
    }
}
