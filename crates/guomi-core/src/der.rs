//! The core's one DER (ITU-T X.690) reader and writer, for the algorithms' own encodings:
//! the SM2 signatures and ciphertexts of GM/T 0009 (§7.3 / GB/T 35276, §7.2) and the SM9
//! signatures and ciphertexts of GM/T 0044 (GmSSL's SM9Signature / SM9Cipher). Strict DER:
//! definite minimal lengths, minimal non-negative INTEGERs, BIT STRINGs without unused bits,
//! no trailing data. guomi-formats reads and writes its containers (X.509, PKCS#8, CMS,
//! PKCS#12) with the `der` crate instead.

use crate::error::{Error, Result};

pub const TAG_INTEGER: u8 = 0x02;
pub const TAG_BIT_STRING: u8 = 0x03;
pub const TAG_OCTET_STRING: u8 = 0x04;
pub const TAG_NULL: u8 = 0x05;
pub const TAG_OID: u8 = 0x06;
pub const TAG_SEQUENCE: u8 = 0x30;

/// id-ecPublicKey, 1.2.840.10045.2.1 (content octets).
pub const OID_EC_PUBLIC_KEY: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01];
/// sm2p256v1 / SM2, 1.2.156.10197.1.301 (content octets).
pub const OID_SM2: &[u8] = &[0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D];

fn bad() -> Error {
    Error::UnsupportedFormat("malformed DER")
}

/// Appends a tag-length-value.
pub fn write_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
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
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(content.len() + 6);
    write_tlv(&mut v, tag, content);
    v
}

/// Appends a non-negative INTEGER given as big-endian bytes (leading zeros stripped,
/// a 0x00 sign byte added when the top bit is set).
pub fn write_uint(out: &mut Vec<u8>, be: &[u8]) {
    let skip = be.iter().take_while(|&&b| b == 0).count();
    let v = &be[skip..];
    let mut content = Vec::with_capacity(v.len() + 1);
    if v.is_empty() || v[0] & 0x80 != 0 {
        content.push(0);
    }
    content.extend_from_slice(v);
    write_tlv(out, TAG_INTEGER, &content);
}

/// Appends a BIT STRING with no unused bits.
pub fn write_bit_string(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut content = Vec::with_capacity(bytes.len() + 1);
    content.push(0);
    content.extend_from_slice(bytes);
    write_tlv(out, TAG_BIT_STRING, &content);
}

/// SEQUENCE { items } from already-encoded items.
pub fn sequence(items: &[u8]) -> Vec<u8> {
    tlv(TAG_SEQUENCE, items)
}

/// A DER reader over a byte slice.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Reads one TLV with the given tag and returns its content.
    pub fn read(&mut self, tag: u8) -> Result<&'a [u8]> {
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

    /// Reads a BIT STRING with no unused bits and returns its bytes.
    pub fn read_bit_string(&mut self) -> Result<&'a [u8]> {
        match self.read(TAG_BIT_STRING)? {
            [0, rest @ ..] => Ok(rest),
            _ => Err(bad()),
        }
    }

    /// Reads a non-negative INTEGER of at most one byte's value (0..=255).
    pub fn read_small_uint(&mut self) -> Result<u8> {
        match self.read(TAG_INTEGER)? {
            [v] if *v < 0x80 => Ok(*v),
            [0, v] if *v >= 0x80 => Ok(*v),
            _ => Err(bad()),
        }
    }

    /// Reads a non-negative INTEGER into 32 big-endian bytes (must fit).
    pub fn read_uint32(&mut self) -> Result<[u8; 32]> {
        let c = self.read(TAG_INTEGER)?;
        uint_to_32(c)
    }

    pub fn finish(&self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(bad())
        }
    }
}

/// Minimal non-negative INTEGER content to 32 big-endian bytes.
pub fn uint_to_32(c: &[u8]) -> Result<[u8; 32]> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn bit_strings_and_small_integers() {
        let mut v = Vec::new();
        write_bit_string(&mut v, &[4, 5]);
        write_uint(&mut v, &[0x7f]);
        write_uint(&mut v, &[0x80]);
        write_uint(&mut v, &[0]);
        assert_eq!(v, [3, 3, 0, 4, 5, 2, 1, 0x7f, 2, 2, 0, 0x80, 2, 1, 0]);
        let seq = sequence(&v);
        let mut outer = Reader::new(&seq);
        let mut r = Reader::new(outer.read(TAG_SEQUENCE).unwrap());
        assert!(outer.finish().is_ok());
        assert_eq!(r.read_bit_string().unwrap(), &[4, 5]);
        assert_eq!(r.read_small_uint().unwrap(), 0x7f);
        assert_eq!(r.read_small_uint().unwrap(), 0x80);
        assert_eq!(r.read_small_uint().unwrap(), 0);
        assert!(r.finish().is_ok());
        // Unused bits, non-minimal, negative and too-large integers are refused.
        assert!(Reader::new(&[3, 2, 1, 0x80]).read_bit_string().is_err());
        assert!(Reader::new(&[3, 0]).read_bit_string().is_err());
        assert!(Reader::new(&[2, 2, 0, 0x7f]).read_small_uint().is_err());
        assert!(Reader::new(&[2, 1, 0x80]).read_small_uint().is_err());
        assert!(Reader::new(&[2, 2, 1, 0]).read_small_uint().is_err());
        assert!(Reader::new(&[2, 0]).read_small_uint().is_err());
    }
}
