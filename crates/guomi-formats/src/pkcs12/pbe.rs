//! Password-based cryptography of PKCS#12: PBES2 (RFC 8018 §6.2) with PBKDF2 over
//! HMAC-SM3 or HMAC-SHA256 and SM4-CBC or AES-CBC, the gmsm / GM/T 0091 "SM PBES" OIDs,
//! the PKCS#12 key derivation of RFC 7292 appendix B (for the MAC) and PBMAC1 (RFC 9579).
//!
//! SM3, HMAC-SM3, PBKDF2-HMAC-SM3 and SM4 are guomi-core's. AES and SHA-256 (not SM
//! algorithms, needed only to read and write what OpenSSL 3 and Windows use) come from
//! RustCrypto's `aes`, `cbc`, `hmac` and `sha2`.

use crate::asn1;
use crate::x509::der_err;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use der::asn1::{ObjectIdentifier as Oid, OctetStringRef};
use der::{Decode, Sequence, Tagged};
use guomi_core::error::{Error, Result};
use guomi_core::sm3::hmac::HmacSm3;
use guomi_core::sm3::kdf::pbkdf2_hmac_sm3;
use guomi_core::sm4::modes::{self, Mode, Padding};
use guomi_core::sm4::Sm4;
use hmac::Mac;
use sha2::Digest;
use spki::AlgorithmIdentifierRef;
use zeroize::{Zeroize, Zeroizing};

/// Largest iteration count accepted, read or written (PBKDF2 and the PKCS#12 MAC KDF):
/// guomi's one PBKDF2 bound, 10 000 000.
pub const MAX_ITERATIONS: u32 = guomi_core::sm3::kdf::MAX_PBKDF2_ITERATIONS;

/// Object identifiers of this module.
pub mod oid {
    use der::asn1::ObjectIdentifier as Oid;
    /// PBES2 (RFC 8018): 1.2.840.113549.1.5.13.
    pub const PBES2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.13");
    /// PBKDF2 (RFC 8018): 1.2.840.113549.1.5.12.
    pub const PBKDF2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.12");
    /// PBMAC1 (RFC 8018 / RFC 9579): 1.2.840.113549.1.5.14.
    pub const PBMAC1: Oid = Oid::new_unwrap("1.2.840.113549.1.5.14");
    /// SM PBES as gmsm v0.44 writes it: 1.2.156.10197.6.4.1.5.2.
    pub const SM_PBES_GMSM: Oid = Oid::new_unwrap("1.2.156.10197.6.4.1.5.2");
    /// SM PBES as GM/T 0091-2020 prints it: 1.2.156.10197.6.1.4.1.5.2.
    pub const SM_PBES_STD: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.1.5.2");
    /// SM PBKDF (PBKDF2, default PRF HMAC-SM3) as gmsm writes it: 1.2.156.10197.6.4.1.5.1.
    pub const SM_PBKDF_GMSM: Oid = Oid::new_unwrap("1.2.156.10197.6.4.1.5.1");
    /// SM PBKDF as GM/T 0091-2020 prints it: 1.2.156.10197.6.1.4.1.5.1.
    pub const SM_PBKDF_STD: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.1.5.1");
    /// HMAC-SM3: 1.2.156.10197.1.401.2.
    pub const HMAC_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401.2");
    /// hmacWithSHA1: 1.2.840.113549.2.7.
    pub const HMAC_SHA1: Oid = Oid::new_unwrap("1.2.840.113549.2.7");
    /// hmacWithSHA256: 1.2.840.113549.2.9.
    pub const HMAC_SHA256: Oid = Oid::new_unwrap("1.2.840.113549.2.9");
    /// SM3: 1.2.156.10197.1.401.
    pub const SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401");
    /// SHA-1: 1.3.14.3.2.26.
    pub const SHA1: Oid = Oid::new_unwrap("1.3.14.3.2.26");
    /// SHA-256: 2.16.840.1.101.3.4.2.1.
    pub const SHA256: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.2.1");
    /// SM4-CBC: 1.2.156.10197.1.104.2.
    pub const SM4_CBC: Oid = Oid::new_unwrap("1.2.156.10197.1.104.2");
    /// AES-128-CBC: 2.16.840.1.101.3.4.1.2.
    pub const AES128_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.2");
    /// AES-192-CBC: 2.16.840.1.101.3.4.1.22.
    pub const AES192_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.22");
    /// AES-256-CBC: 2.16.840.1.101.3.4.1.42.
    pub const AES256_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.42");
}

/// The hash under a PRF or a MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hash {
    /// SM3 (GB/T 32905).
    Sm3,
    /// SHA-256 (FIPS 180-4).
    Sha256,
    /// SHA-1: read only, as the hash of a PKCS#12 MAC (Java and BouncyCastle key stores
    /// still write it); never as a PBKDF2 PRF, never written.
    Sha1,
}

impl Hash {
    /// The name shown by `info`.
    pub fn name(self) -> &'static str {
        match self {
            Hash::Sm3 => "sm3",
            Hash::Sha256 => "sha256",
            Hash::Sha1 => "sha1",
        }
    }

    /// The digest length u (RFC 7292 appendix B.2).
    pub fn out_len(self) -> usize {
        match self {
            Hash::Sm3 | Hash::Sha256 => 32,
            Hash::Sha1 => 20,
        }
    }

    /// The digest OID (for MacData).
    pub fn digest_oid(self) -> Oid {
        match self {
            Hash::Sm3 => oid::SM3,
            Hash::Sha256 => oid::SHA256,
            Hash::Sha1 => oid::SHA1,
        }
    }

    /// The HMAC OID (PBKDF2 PRF, PBMAC1).
    pub fn hmac_oid(self) -> Oid {
        match self {
            Hash::Sm3 => oid::HMAC_SM3,
            Hash::Sha256 => oid::HMAC_SHA256,
            Hash::Sha1 => oid::HMAC_SHA1,
        }
    }

    fn digest(self, parts: &[&[u8]]) -> [u8; 32] {
        match self {
            Hash::Sm3 => {
                let mut h = guomi_core::sm3::Sm3::new();
                for p in parts {
                    h.update(p);
                }
                h.finalize()
            }
            Hash::Sha256 => {
                let mut h = sha2::Sha256::new();
                for p in parts {
                    h.update(p);
                }
                h.finalize().into()
            }
            Hash::Sha1 => {
                let mut h = sha1::Sha1::new();
                for p in parts {
                    sha1::Digest::update(&mut h, p);
                }
                let mut out = [0u8; 32];
                out[..20].copy_from_slice(&sha1::Digest::finalize(h));
                out
            }
        }
    }

    /// HMAC(key, data) (SHA-1: the first 20 bytes).
    pub fn hmac(self, key: &[u8], data: &[u8]) -> [u8; 32] {
        match self {
            Hash::Sm3 => {
                let mut m = HmacSm3::new(key);
                m.update(data);
                m.finalize()
            }
            Hash::Sha256 => {
                let mut m = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(key)
                    .expect("HMAC takes keys of any length");
                m.update(data);
                m.finalize().into_bytes().into()
            }
            Hash::Sha1 => {
                let mut m = <hmac::Hmac<sha1::Sha1> as Mac>::new_from_slice(key)
                    .expect("HMAC takes keys of any length");
                m.update(data);
                let mut out = [0u8; 32];
                out[..20].copy_from_slice(&m.finalize().into_bytes());
                out
            }
        }
    }

    /// Checks `HMAC(key, data) == tag` in constant time (the tag length is the full digest
    /// length, never taken from `tag`).
    pub fn hmac_verify(self, key: &[u8], data: &[u8], tag: &[u8]) -> bool {
        match self {
            Hash::Sm3 => {
                let mut m = HmacSm3::new(key);
                m.update(data);
                m.verify(tag)
            }
            Hash::Sha256 => {
                let mut m = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(key)
                    .expect("HMAC takes keys of any length");
                m.update(data);
                m.verify_slice(tag).is_ok()
            }
            Hash::Sha1 => {
                let mut m = <hmac::Hmac<sha1::Sha1> as Mac>::new_from_slice(key)
                    .expect("HMAC takes keys of any length");
                m.update(data);
                m.verify_slice(tag).is_ok()
            }
        }
    }

    /// PBKDF2-HMAC-<hash> (RFC 8018 §5.2).
    pub fn pbkdf2(
        self,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
        out: &mut [u8],
    ) -> Result<()> {
        check_iterations(iterations)?;
        match self {
            Hash::Sm3 => pbkdf2_hmac_sm3(password, salt, iterations, out),
            Hash::Sha256 => {
                let prf = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(password)
                    .expect("HMAC takes keys of any length");
                for (i, chunk) in out.chunks_mut(32).enumerate() {
                    let mut m = prf.clone();
                    m.update(salt);
                    m.update(&(i as u32 + 1).to_be_bytes());
                    let mut u: [u8; 32] = m.finalize().into_bytes().into();
                    let mut t = u;
                    for _ in 1..iterations {
                        let mut m = prf.clone();
                        m.update(&u);
                        u = m.finalize().into_bytes().into();
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
            Hash::Sha1 => Err(Error::UnsupportedFormat(
                "PBES2: PBKDF2 PRF hmacWithSHA1 is not supported: re-export with HMAC-SM3 or \
                 HMAC-SHA256",
            )),
        }
    }

    /// The PKCS#12 key derivation (RFC 7292 appendix B.2) with `id` (1 key, 2 IV, 3 MAC
    /// key) over this hash (v = 64; u = 32 for SM3 and SHA-256, 20 for SHA-1). `bmp_password` is
    /// the password as a BMPString with its two-zero-byte terminator.
    pub fn pkcs12_kdf(
        self,
        id: u8,
        bmp_password: &[u8],
        salt: &[u8],
        iterations: u32,
        out: &mut [u8],
    ) -> Result<()> {
        const V: usize = 64;
        check_iterations(iterations)?;
        let d = [id; V];
        let fill = |src: &[u8]| -> Zeroizing<Vec<u8>> {
            let len = src.len().div_ceil(V) * V;
            Zeroizing::new((0..len).map(|i| src[i % src.len()]).collect())
        };
        let mut i_buf = Zeroizing::new(Vec::new());
        if !salt.is_empty() {
            i_buf.extend_from_slice(&fill(salt));
        }
        if !bmp_password.is_empty() {
            i_buf.extend_from_slice(&fill(bmp_password));
        }
        let u = self.out_len();
        for chunk in out.chunks_mut(u) {
            let mut a = Zeroizing::new(self.digest(&[&d, &i_buf]));
            for _ in 1..iterations {
                *a = self.digest(&[&a[..u]]);
            }
            chunk.copy_from_slice(&a[..chunk.len()]);
            // B = A repeated to v bytes; I_j = (I_j + B + 1) mod 2^(8v).
            for block in i_buf.chunks_mut(V) {
                let mut carry = 1u16;
                for k in (0..V).rev() {
                    let s = u16::from(block[k]) + u16::from(a[k % u]) + carry;
                    block[k] = s as u8;
                    carry = s >> 8;
                }
            }
        }
        Ok(())
    }
}

fn check_iterations(iterations: u32) -> Result<()> {
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::UnsupportedFormat(
            "PBKDF2 iteration count out of range (1 to 10000000)",
        ));
    }
    Ok(())
}

/// The password as a PKCS#12 BMPString (UTF-16BE) with the two-byte zero terminator.
/// The password must be UTF-8 (characters outside the BMP are refused, as the BMPString
/// cannot hold them).
pub fn bmp_password(password: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let s = core::str::from_utf8(password)
        .map_err(|_| Error::InvalidValue("the PKCS#12 password must be UTF-8 text"))?;
    let mut out = Zeroizing::new(Vec::with_capacity(2 * s.len() + 2));
    for c in s.chars() {
        let c = u32::from(c);
        if c > 0xFFFF {
            return Err(Error::InvalidValue(
                "the PKCS#12 password must be in the Basic Multilingual Plane",
            ));
        }
        out.extend_from_slice(&(c as u16).to_be_bytes());
    }
    out.extend_from_slice(&[0, 0]);
    Ok(out)
}

/// The symmetric cipher of a PBES2 scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// SM4-CBC (16-byte key).
    Sm4Cbc,
    /// AES-128-CBC.
    Aes128Cbc,
    /// AES-192-CBC.
    Aes192Cbc,
    /// AES-256-CBC.
    Aes256Cbc,
}

impl Cipher {
    fn from_oid(o: &Oid) -> Option<Cipher> {
        Some(match *o {
            oid::SM4_CBC => Cipher::Sm4Cbc,
            oid::AES128_CBC => Cipher::Aes128Cbc,
            oid::AES192_CBC => Cipher::Aes192Cbc,
            oid::AES256_CBC => Cipher::Aes256Cbc,
            _ => return None,
        })
    }

    fn oid(self) -> Oid {
        match self {
            Cipher::Sm4Cbc => oid::SM4_CBC,
            Cipher::Aes128Cbc => oid::AES128_CBC,
            Cipher::Aes192Cbc => oid::AES192_CBC,
            Cipher::Aes256Cbc => oid::AES256_CBC,
        }
    }

    /// The name shown by `info`.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::Sm4Cbc => "SM4-CBC",
            Cipher::Aes128Cbc => "AES-128-CBC",
            Cipher::Aes192Cbc => "AES-192-CBC",
            Cipher::Aes256Cbc => "AES-256-CBC",
        }
    }

    fn key_len(self) -> usize {
        match self {
            Cipher::Sm4Cbc | Cipher::Aes128Cbc => 16,
            Cipher::Aes192Cbc => 24,
            Cipher::Aes256Cbc => 32,
        }
    }

    fn encrypt(self, key: &[u8], iv: &[u8; 16], msg: &[u8]) -> Result<Vec<u8>> {
        if self == Cipher::Sm4Cbc {
            let k: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidValue("key"))?;
            return modes::encrypt(&Sm4::new(k), Mode::Cbc, Some(iv), Some(Padding::Pkcs7), msg);
        }
        let mut buf = vec![0u8; msg.len() + 16 - msg.len() % 16];
        buf[..msg.len()].copy_from_slice(msg);
        let bad = |_| Error::InvalidValue("AES key");
        let n = match self {
            Cipher::Aes128Cbc => cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
                .map_err(bad)?
                .encrypt_padded_mut::<Pkcs7>(&mut buf, msg.len())
                .map(|c| c.len()),
            Cipher::Aes192Cbc => cbc::Encryptor::<aes::Aes192>::new_from_slices(key, iv)
                .map_err(bad)?
                .encrypt_padded_mut::<Pkcs7>(&mut buf, msg.len())
                .map(|c| c.len()),
            _ => cbc::Encryptor::<aes::Aes256>::new_from_slices(key, iv)
                .map_err(bad)?
                .encrypt_padded_mut::<Pkcs7>(&mut buf, msg.len())
                .map(|c| c.len()),
        }
        .map_err(|_| Error::InvalidValue("AES-CBC buffer"))?;
        buf.truncate(n);
        Ok(buf)
    }

    /// Decrypts in place and returns the plaintext length; every failure is
    /// `InvalidPadding` (the caller makes it opaque).
    fn decrypt(self, key: &[u8], iv: &[u8], buf: &mut [u8]) -> Result<usize> {
        let bad = |_| Error::InvalidPadding;
        match self {
            Cipher::Sm4Cbc => {
                let k: &[u8; 16] = key.try_into().map_err(|_| Error::InvalidPadding)?;
                modes::decrypt_in_place(
                    &Sm4::new(k),
                    Mode::Cbc,
                    Some(iv),
                    Some(Padding::Pkcs7),
                    buf,
                )
                .map_err(|_| Error::InvalidPadding)
            }
            Cipher::Aes128Cbc => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
                .map_err(bad)?
                .decrypt_padded_mut::<Pkcs7>(buf)
                .map(|p| p.len())
                .map_err(|_| Error::InvalidPadding),
            Cipher::Aes192Cbc => cbc::Decryptor::<aes::Aes192>::new_from_slices(key, iv)
                .map_err(bad)?
                .decrypt_padded_mut::<Pkcs7>(buf)
                .map(|p| p.len())
                .map_err(|_| Error::InvalidPadding),
            Cipher::Aes256Cbc => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
                .map_err(bad)?
                .decrypt_padded_mut::<Pkcs7>(buf)
                .map(|p| p.len())
                .map_err(|_| Error::InvalidPadding),
        }
    }
}

/// A PBES2 scheme: PBKDF2 with an HMAC PRF, then a CBC cipher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheme {
    /// PRF hash.
    pub prf: Hash,
    /// Cipher.
    pub cipher: Cipher,
}

impl Scheme {
    /// "PBES2, PBKDF2-HMAC-SM3, SM4-CBC" style description.
    pub fn describe(&self) -> String {
        format!(
            "PBES2, PBKDF2-HMAC-{}, {}",
            self.prf.name().to_ascii_uppercase(),
            self.cipher.name()
        )
    }
}

/// RFC 8018 `PBES2-params` (also the SM PBES of GM/T 0091).
#[derive(Sequence)]
pub(crate) struct Pbes2Params<'a> {
    pub(crate) kdf: AlgorithmIdentifierRef<'a>,
    pub(crate) enc: AlgorithmIdentifierRef<'a>,
}

/// RFC 8018 `PBKDF2-params`.
#[derive(Sequence)]
pub(crate) struct Pbkdf2Params<'a> {
    pub(crate) salt: OctetStringRef<'a>,
    pub(crate) iterations: u32,
    #[asn1(optional = "true")]
    pub(crate) key_length: Option<u32>,
    #[asn1(optional = "true")]
    pub(crate) prf: Option<AlgorithmIdentifierRef<'a>>,
}

/// Legacy password-based schemes, refused with their name and how to re-export.
fn legacy_name(o: &Oid) -> Option<&'static str> {
    Some(match o.to_string().as_str() {
        "1.2.840.113549.1.12.1.1" => {
            "PKCS#12: pbeWithSHAAnd128BitRC4 is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.12.1.2" => {
            "PKCS#12: pbeWithSHAAnd40BitRC4 is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.12.1.3" => {
            "PKCS#12: pbeWithSHAAnd3-KeyTripleDES-CBC is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.12.1.4" => {
            "PKCS#12: pbeWithSHAAnd2-KeyTripleDES-CBC is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.12.1.5" => {
            "PKCS#12: pbeWithSHAAnd128BitRC2-CBC is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.12.1.6" => {
            "PKCS#12: pbeWithSHAAnd40BitRC2-CBC is not supported (legacy): re-export with \
             `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256` \
             or `guomi pkcs12 create`"
        }
        "1.2.840.113549.1.5.1"
        | "1.2.840.113549.1.5.3"
        | "1.2.840.113549.1.5.4"
        | "1.2.840.113549.1.5.6"
        | "1.2.840.113549.1.5.10"
        | "1.2.840.113549.1.5.11" => {
            "PKCS#12: PBES1 (DES/RC2 with MD2/MD5/SHA-1) is not supported (legacy): re-export \
             with PBES2, e.g. `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC`"
        }
        _ => return None,
    })
}

/// What [`decrypt`] found: the scheme and its iteration count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Used {
    /// The PBES2 scheme.
    pub scheme: Scheme,
    /// PBKDF2 iterations.
    pub iterations: u32,
}

/// Parses a PBES2 (or SM PBES) AlgorithmIdentifier: scheme, salt, iterations, IV.
fn parse_pbes2<'a>(alg: &AlgorithmIdentifierRef<'a>) -> Result<(Scheme, &'a [u8], u32, &'a [u8])> {
    if let Some(msg) = legacy_name(&alg.oid) {
        return Err(Error::UnsupportedFormat(msg));
    }
    if ![oid::PBES2, oid::SM_PBES_GMSM, oid::SM_PBES_STD].contains(&alg.oid) {
        return Err(Error::UnsupportedFormat(
            "unknown password-based encryption (PBES2 or SM PBES expected)",
        ));
    }
    let pbes2: Pbes2Params<'a> = alg
        .parameters
        .ok_or(Error::UnsupportedFormat("PBES2 parameters missing"))?
        .decode_as()
        .map_err(der_err)?;
    let sm_kdf = [oid::SM_PBKDF_GMSM, oid::SM_PBKDF_STD].contains(&pbes2.kdf.oid);
    if pbes2.kdf.oid != oid::PBKDF2 && !sm_kdf {
        return Err(Error::UnsupportedFormat(
            "PBES2: only PBKDF2 is supported as key derivation",
        ));
    }
    let kdf: Pbkdf2Params<'a> = pbes2
        .kdf
        .parameters
        .ok_or(Error::UnsupportedFormat("PBKDF2 parameters missing"))?
        .decode_as()
        .map_err(der_err)?;
    let prf = match &kdf.prf {
        None if sm_kdf => Hash::Sm3,
        None => {
            return Err(Error::UnsupportedFormat(
                "PBES2: PBKDF2 PRF hmacWithSHA1 is not supported: re-export with HMAC-SM3 or \
                 HMAC-SHA256",
            ))
        }
        Some(a) => {
            if let Some(p) = a.parameters {
                if p.tag() != der::Tag::Null || !p.value().is_empty() {
                    return Err(Error::UnsupportedFormat("malformed DER"));
                }
            }
            match a.oid {
                oid::HMAC_SM3 => Hash::Sm3,
                oid::HMAC_SHA256 => Hash::Sha256,
                oid::HMAC_SHA1 => {
                    return Err(Error::UnsupportedFormat(
                        "PBES2: PBKDF2 PRF hmacWithSHA1 is not supported: re-export with \
                         HMAC-SM3 or HMAC-SHA256",
                    ))
                }
                _ => {
                    return Err(Error::UnsupportedFormat(
                        "PBES2: PBKDF2 PRF must be HMAC-SM3 or HMAC-SHA256",
                    ))
                }
            }
        }
    };
    let cipher = Cipher::from_oid(&pbes2.enc.oid).ok_or(Error::UnsupportedFormat(
        "PBES2: the cipher must be SM4-CBC or AES-128/192/256-CBC",
    ))?;
    if kdf
        .key_length
        .is_some_and(|l| l as usize != cipher.key_len())
    {
        return Err(Error::UnsupportedFormat(
            "PBES2: PBKDF2 keyLength does not match the cipher",
        ));
    }
    check_iterations(kdf.iterations)?;
    let iv: OctetStringRef<'a> = pbes2
        .enc
        .parameters
        .ok_or(Error::UnsupportedFormat("PBES2: CBC IV missing"))?
        .decode_as()
        .map_err(der_err)?;
    if iv.as_bytes().len() != 16 {
        return Err(Error::UnsupportedFormat(
            "PBES2: the CBC IV must be 16 bytes",
        ));
    }
    Ok((
        Scheme { prf, cipher },
        kdf.salt.as_bytes(),
        kdf.iterations,
        iv.as_bytes(),
    ))
}

/// Checks a PBES2 AlgorithmIdentifier without deriving anything (for `info` and to find
/// unsupported algorithms before the MAC work).
pub fn inspect(alg: &AlgorithmIdentifierRef<'_>) -> Result<Used> {
    let (scheme, _, iterations, _) = parse_pbes2(alg)?;
    Ok(Used { scheme, iterations })
}

/// Decrypts `ciphertext` under a PBES2 (or SM PBES) AlgorithmIdentifier with `password`
/// (raw UTF-8 bytes, as OpenSSL, BouncyCastle and gmsm pass it to PBKDF2). A bad padding
/// is `InvalidPadding`; the caller turns it into its one opaque error.
pub fn decrypt(
    alg: &AlgorithmIdentifierRef<'_>,
    password: &[u8],
    ciphertext: &[u8],
) -> Result<(Zeroizing<Vec<u8>>, Used)> {
    let (scheme, salt, iterations, iv) = parse_pbes2(alg)?;
    let mut key = Zeroizing::new(vec![0u8; scheme.cipher.key_len()]);
    scheme.prf.pbkdf2(password, salt, iterations, &mut key)?;
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let n = scheme.cipher.decrypt(&key, iv, &mut buf)?;
    buf.truncate(n);
    Ok((buf, Used { scheme, iterations }))
}

/// Encrypts `msg` with PBES2 (random 16-byte salt and IV from the OS); returns the DER
/// AlgorithmIdentifier and the ciphertext.
pub fn encrypt(
    scheme: Scheme,
    password: &[u8],
    iterations: u32,
    msg: &[u8],
) -> Result<(Vec<u8>, Vec<u8>)> {
    check_iterations(iterations)?;
    let salt = guomi_core::rand::bytes::<16>()?;
    let iv = guomi_core::rand::bytes::<16>()?;
    let mut key = Zeroizing::new(vec![0u8; scheme.cipher.key_len()]);
    scheme.prf.pbkdf2(password, &salt, iterations, &mut key)?;
    let ct = scheme.cipher.encrypt(&key, &iv, msg)?;
    // PBKDF2-params as OpenSSL 3 writes them: no keyLength, prf {hmac, NULL}.
    let kdf = asn1::seq(&[
        &asn1::oid(&oid::PBKDF2)?,
        &asn1::seq(&[
            &asn1::octets(&salt)?,
            &asn1::uint(iterations)?,
            &asn1::seq(&[&asn1::oid(&scheme.prf.hmac_oid())?, &asn1::null()])?,
        ])?,
    ])?;
    let enc = asn1::seq(&[&asn1::oid(&scheme.cipher.oid())?, &asn1::octets(&iv)?])?;
    let alg = asn1::seq(&[&asn1::oid(&oid::PBES2)?, &asn1::seq(&[&kdf, &enc])?])?;
    Ok((alg, ct))
}

/// Parses a DER AlgorithmIdentifier.
pub fn alg_ref(der: &[u8]) -> Result<AlgorithmIdentifierRef<'_>> {
    AlgorithmIdentifierRef::from_der(der).map_err(der_err)
}

#[derive(Sequence)]
struct Pbmac1Params<'a> {
    kdf: AlgorithmIdentifierRef<'a>,
    mac: AlgorithmIdentifierRef<'a>,
}

/// The MAC algorithm of a PFX: the digest of the PKCS#12 KDF MAC, or PBMAC1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacKind {
    /// RFC 7292 appendix B: HMAC keyed by the PKCS#12 KDF (ID 3) over this hash.
    Pkcs12(Hash),
    /// RFC 9579 PBMAC1: PBKDF2 with `prf` over the UTF-8 password, HMAC with `mac`.
    Pbmac1 {
        /// PBKDF2 PRF.
        prf: Hash,
        /// HMAC hash.
        mac: Hash,
        /// PBKDF2 iterations.
        iterations: u32,
    },
}

fn hash_of_hmac(o: &Oid) -> Result<Hash> {
    match *o {
        oid::HMAC_SM3 => Ok(Hash::Sm3),
        oid::HMAC_SHA256 => Ok(Hash::Sha256),
        _ => Err(Error::UnsupportedFormat(
            "PKCS#12 PBMAC1: only HMAC-SM3 and HMAC-SHA256 are supported",
        )),
    }
}

/// Verifies a PFX MAC (RFC 7292 §5.1 / RFC 9579) over `data` in constant time. A wrong
/// password or a changed file is `InvalidKey` (one message).
pub fn verify_mac(
    alg: &AlgorithmIdentifierRef<'_>,
    tag: &[u8],
    salt: &[u8],
    iterations: u32,
    password: &[u8],
    data: &[u8],
) -> Result<MacKind> {
    let kind = mac_kind(alg, iterations)?;
    let mut key = Zeroizing::new([0u8; 32]);
    let h = match kind {
        MacKind::Pkcs12(h) => {
            let bmp = bmp_password(password)?;
            h.pkcs12_kdf(3, &bmp, salt, iterations, &mut key[..h.out_len()])?;
            h
        }
        MacKind::Pbmac1 { prf, mac, .. } => {
            let p: Pbmac1Params<'_> = alg
                .parameters
                .ok_or(Error::UnsupportedFormat("PBMAC1 parameters missing"))?
                .decode_as()
                .map_err(der_err)?;
            let kdf: Pbkdf2Params<'_> = p
                .kdf
                .parameters
                .ok_or(Error::UnsupportedFormat("PBKDF2 parameters missing"))?
                .decode_as()
                .map_err(der_err)?;
            // RFC 9579 §3: keyLength is required; the HMAC key is 32 bytes here.
            if kdf.key_length != Some(32) {
                return Err(Error::UnsupportedFormat(
                    "PKCS#12 PBMAC1: PBKDF2 keyLength must be 32",
                ));
            }
            prf.pbkdf2(password, kdf.salt.as_bytes(), kdf.iterations, &mut key[..])?;
            mac
        }
    };
    let key_len = match kind {
        MacKind::Pkcs12(h) => h.out_len(),
        MacKind::Pbmac1 { .. } => 32,
    };
    if tag.len() != h.out_len() || !h.hmac_verify(&key[..key_len], data, tag) {
        return Err(mac_failed());
    }
    Ok(kind)
}

/// Reads the MAC algorithm (and bounds its iteration count) without computing anything.
pub fn mac_kind(alg: &AlgorithmIdentifierRef<'_>, iterations: u32) -> Result<MacKind> {
    if let Some(p) = alg.parameters {
        if alg.oid != oid::PBMAC1 && (p.tag() != der::Tag::Null || !p.value().is_empty()) {
            return Err(Error::UnsupportedFormat("malformed DER"));
        }
    }
    match alg.oid {
        oid::SM3 => {
            check_iterations(iterations)?;
            Ok(MacKind::Pkcs12(Hash::Sm3))
        }
        oid::SHA256 => {
            check_iterations(iterations)?;
            Ok(MacKind::Pkcs12(Hash::Sha256))
        }
        oid::SHA1 => {
            check_iterations(iterations)?;
            Ok(MacKind::Pkcs12(Hash::Sha1))
        }
        oid::PBMAC1 => {
            let p: Pbmac1Params<'_> = alg
                .parameters
                .ok_or(Error::UnsupportedFormat("PBMAC1 parameters missing"))?
                .decode_as()
                .map_err(der_err)?;
            if p.kdf.oid != oid::PBKDF2 {
                return Err(Error::UnsupportedFormat(
                    "PKCS#12 PBMAC1: only PBKDF2 is supported",
                ));
            }
            let kdf: Pbkdf2Params<'_> = p
                .kdf
                .parameters
                .ok_or(Error::UnsupportedFormat("PBKDF2 parameters missing"))?
                .decode_as()
                .map_err(der_err)?;
            check_iterations(kdf.iterations)?;
            let prf = match &kdf.prf {
                Some(a) => hash_of_hmac(&a.oid)?,
                None => {
                    return Err(Error::UnsupportedFormat(
                        "PKCS#12 PBMAC1: PRF hmacWithSHA1 is not supported",
                    ))
                }
            };
            Ok(MacKind::Pbmac1 {
                prf,
                mac: hash_of_hmac(&p.mac.oid)?,
                iterations: kdf.iterations,
            })
        }
        _ => Err(Error::UnsupportedFormat(
            "PKCS#12: the MAC digest must be SM3 or SHA-256 (or PBMAC1)",
        )),
    }
}

/// Computes a PKCS#12 KDF MAC: (DigestInfo algorithm DER, tag).
pub fn compute_mac(
    hash: Hash,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    data: &[u8],
) -> Result<[u8; 32]> {
    let bmp = bmp_password(password)?;
    let mut key = Zeroizing::new([0u8; 32]);
    hash.pkcs12_kdf(3, &bmp, salt, iterations, &mut key[..])?;
    Ok(hash.hmac(&key[..], data))
}

fn mac_failed() -> Error {
    Error::InvalidKey("cannot open the PKCS#12 file: wrong password or the file was changed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbkdf2_sha256_rfc7914() {
        let mut out = [0u8; 64];
        Hash::Sha256
            .pbkdf2(b"passwd", b"salt", 1, &mut out)
            .unwrap();
        assert_eq!(
            hex::encode(out),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        );
    }

    #[test]
    fn bmp_password_encoding() {
        assert_eq!(&bmp_password(b"ab").unwrap()[..], &[0, b'a', 0, b'b', 0, 0]);
        assert_eq!(&bmp_password(b"").unwrap()[..], &[0, 0]);
        assert_eq!(&bmp_password("é".as_bytes()).unwrap()[..], &[0, 0xe9, 0, 0]);
        assert!(bmp_password(&[0xff]).is_err());
        assert!(bmp_password("😀".as_bytes()).is_err());
    }

    #[test]
    fn aes_cbc_round_trip_and_bad_padding() {
        for c in [
            Cipher::Aes128Cbc,
            Cipher::Aes192Cbc,
            Cipher::Aes256Cbc,
            Cipher::Sm4Cbc,
        ] {
            let key = vec![7u8; c.key_len()];
            let iv = [9u8; 16];
            for len in [0usize, 1, 15, 16, 17, 100] {
                let msg = vec![0x5a; len];
                let ct = c.encrypt(&key, &iv, &msg).unwrap();
                assert_eq!(ct.len(), len + 16 - len % 16);
                let mut buf = ct.clone();
                let n = c.decrypt(&key, &iv, &mut buf).unwrap();
                assert_eq!(&buf[..n], &msg[..]);
                let mut bad = ct.clone();
                let l = bad.len();
                bad[l - 1] ^= 1;
                // A flipped last byte breaks the padding (or, rarely, yields another one).
                let mut wrong_key = ct.clone();
                assert!(c
                    .decrypt(&[8u8; 32][..c.key_len()], &iv, &mut wrong_key)
                    .map_or(true, |n| n != len || wrong_key[..n] != msg[..]));
            }
        }
    }
}
