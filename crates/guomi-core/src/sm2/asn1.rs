//! The small subset of DER (ITU-T X.690) and PEM (RFC 7468) that SM2 needs: signatures
//! (GM/T 0009 §7.3 / GB/T 35276), ciphertexts (GM/T 0009 §7.2), SubjectPublicKeyInfo
//! (RFC 5280), SEC1 ECPrivateKey (RFC 5915) and PKCS#8 PrivateKeyInfo (RFC 5208).
//! Strict DER: definite minimal lengths, minimal non-negative INTEGERs, no trailing data.

use crate::error::{Error, Result};
use zeroize::Zeroizing;

pub(crate) const TAG_INTEGER: u8 = 0x02;
pub(crate) const TAG_BIT_STRING: u8 = 0x03;
pub(crate) const TAG_OCTET_STRING: u8 = 0x04;
pub(crate) const TAG_NULL: u8 = 0x05;
pub(crate) const TAG_OID: u8 = 0x06;
pub(crate) const TAG_SEQUENCE: u8 = 0x30;

/// id-ecPublicKey, 1.2.840.10045.2.1 (content octets).
pub(crate) const OID_EC_PUBLIC_KEY: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01];
/// sm2p256v1 / SM2, 1.2.156.10197.1.301 (content octets).
pub(crate) const OID_SM2: &[u8] = &[0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D];

fn bad() -> Error {
    Error::UnsupportedFormat("malformed DER")
}

/// Appends a tag-length-value.
pub(crate) fn write_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
    out.push(tag);
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
}

/// A TLV as a new vector.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(content.len() + 6);
    write_tlv(&mut v, tag, content);
    v
}

/// Appends a non-negative INTEGER given as big-endian bytes (leading zeros stripped,
/// a 0x00 sign byte added when the top bit is set).
pub(crate) fn write_uint(out: &mut Vec<u8>, be: &[u8]) {
    let skip = be.iter().take_while(|&&b| b == 0).count();
    let v = &be[skip..];
    let mut content = Vec::with_capacity(v.len() + 1);
    if v.is_empty() || v[0] & 0x80 != 0 {
        content.push(0);
    }
    content.extend_from_slice(v);
    write_tlv(out, TAG_INTEGER, &content);
}

/// A DER reader over a byte slice.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    pub(crate) fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Reads one TLV with the given tag and returns its content.
    pub(crate) fn read(&mut self, tag: u8) -> Result<&'a [u8]> {
        let d = self.data;
        if d.len() < self.pos + 2 || d[self.pos] != tag {
            return Err(bad());
        }
        let first = d[self.pos + 1];
        let mut p = self.pos + 2;
        let len = if first < 0x80 {
            first as usize
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || d.len() < p + n || d[p] == 0 {
                return Err(bad());
            }
            let mut len = 0usize;
            for &b in &d[p..p + n] {
                len = (len << 8) | b as usize;
            }
            p += n;
            if len < 0x80 {
                return Err(bad());
            }
            len
        };
        if d.len() - p < len {
            return Err(bad());
        }
        self.pos = p + len;
        Ok(&d[p..p + len])
    }

    /// Reads a non-negative INTEGER into 32 big-endian bytes (must fit).
    pub(crate) fn read_uint32(&mut self) -> Result<[u8; 32]> {
        let c = self.read(TAG_INTEGER)?;
        uint_to_32(c)
    }

    pub(crate) fn finish(&self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(bad())
        }
    }
}

/// Minimal non-negative INTEGER content to 32 big-endian bytes.
pub(crate) fn uint_to_32(c: &[u8]) -> Result<[u8; 32]> {
    if c.is_empty() || c[0] & 0x80 != 0 || (c.len() > 1 && c[0] == 0 && c[1] & 0x80 == 0) {
        return Err(bad());
    }
    let v = if c[0] == 0 && c.len() > 1 { &c[1..] } else { c };
    if v.len() > 32 {
        return Err(bad());
    }
    let mut out = [0u8; 32];
    out[32 - v.len()..].copy_from_slice(v);
    Ok(out)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub(crate) fn base64_encode(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Base64 decoding, ignoring ASCII whitespace; strict about padding.
pub(crate) fn base64_decode(text: &str) -> Result<Vec<u8>> {
    let err = || Error::UnsupportedFormat("malformed PEM base64");
    // May be a private key: zeroizing buffers, sized once (growing would free copies).
    let mut chars = Zeroizing::new(Vec::with_capacity(text.len()));
    chars.extend(text.bytes().filter(|c| !c.is_ascii_whitespace()));
    if !chars.len().is_multiple_of(4) {
        return Err(err());
    }
    let mut out = Zeroizing::new(Vec::with_capacity(chars.len() / 4 * 3));
    for (ci, quad) in chars.chunks(4).enumerate() {
        let last = ci == chars.len() / 4 - 1;
        let mut n = 0u32;
        let mut pad = 0;
        for (i, &c) in quad.iter().enumerate() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if last && i >= 2 => {
                    pad += 1;
                    0
                }
                _ => return Err(err()),
            };
            if pad > 0 && c != b'=' {
                return Err(err());
            }
            n = (n << 6) | v as u32;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Ok(core::mem::take(&mut *out))
}

/// PEM text with the given label (64-character lines).
pub(crate) fn pem_encode(label: &str, der: &[u8]) -> String {
    let b = Zeroizing::new(base64_encode(der));
    let mut s = format!("-----BEGIN {label}-----\n");
    for line in b.as_bytes().chunks(64) {
        s.push_str(core::str::from_utf8(line).unwrap());
        s.push('\n');
    }
    s.push_str(&format!("-----END {label}-----\n"));
    s
}

/// The DER body of the first PEM block with one of `labels`; returns (label, der).
pub(crate) fn pem_decode<'l>(text: &str, labels: &[&'l str]) -> Result<(&'l str, Vec<u8>)> {
    for &label in labels {
        let begin = format!("-----BEGIN {label}-----");
        let end = format!("-----END {label}-----");
        if let Some(start) = text.find(&begin) {
            let body_start = start + begin.len();
            let Some(stop) = text[body_start..].find(&end) else {
                return Err(Error::UnsupportedFormat("PEM block has no END line"));
            };
            let body = &text[body_start..body_start + stop];
            if body.contains(':') {
                return Err(Error::UnsupportedFormat(
                    "encrypted PEM (Proc-Type headers) is not supported",
                ));
            }
            return Ok((label, base64_decode(body)?));
        }
    }
    Err(Error::UnsupportedFormat(
        "no PEM block with an expected label",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        for n in 0..20 {
            let d: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(base64_decode(&base64_encode(&d)).unwrap(), d);
        }
        assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
        assert!(base64_decode("Zm9vYg=").is_err());
        assert!(base64_decode("Zm=vYg==").is_err());
    }

    #[test]
    fn der_lengths() {
        let big = vec![7u8; 300];
        let t = tlv(TAG_OCTET_STRING, &big);
        assert_eq!(&t[..4], &[4, 0x82, 1, 44]);
        let mut r = Reader::new(&t);
        assert_eq!(r.read(TAG_OCTET_STRING).unwrap(), &big[..]);
        assert!(r.finish().is_ok());
        // Non-minimal length forms are refused.
        assert!(Reader::new(&[4, 0x81, 3, 1, 2, 3])
            .read(TAG_OCTET_STRING)
            .is_err());
        assert!(Reader::new(&[4, 0x82, 0, 3, 1, 2, 3])
            .read(TAG_OCTET_STRING)
            .is_err());
        // Integers.
        let mut v = Vec::new();
        write_uint(&mut v, &[0, 0, 0x80, 1]);
        assert_eq!(v, [2, 3, 0, 0x80, 1]);
        assert!(uint_to_32(&[0, 1]).is_err());
        assert!(uint_to_32(&[0x80]).is_err());
        assert_eq!(uint_to_32(&[0]).unwrap(), [0; 32]);
    }
}
