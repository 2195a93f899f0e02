//! A tiny DER writer for the PKCS#12 structures (definite lengths, canonical forms).

use der::asn1::ObjectIdentifier;
use der::Encode;

/// Tag-length-value with a definite, minimal length.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag);
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = (n as u64).to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (8 - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// SEQUENCE of already encoded elements.
pub fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// SET OF already encoded elements, sorted as DER requires (X.690 §11.6).
pub fn set_of(parts: &[&[u8]]) -> Vec<u8> {
    let mut v: Vec<&[u8]> = parts.to_vec();
    v.sort();
    tlv(0x31, &v.concat())
}

/// `[n]` EXPLICIT (constructed context-specific).
pub fn explicit(n: u8, inner: &[u8]) -> Vec<u8> {
    tlv(0xa0 | n, inner)
}

/// OCTET STRING.
pub fn octets(b: &[u8]) -> Vec<u8> {
    tlv(0x04, b)
}

/// NULL.
pub fn null() -> Vec<u8> {
    vec![0x05, 0x00]
}

/// A non-negative INTEGER.
pub fn int_u32(v: u32) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count().min(3);
    let mut content = Vec::with_capacity(5);
    if bytes[skip] & 0x80 != 0 {
        content.push(0);
    }
    content.extend_from_slice(&bytes[skip..]);
    tlv(0x02, &content)
}

/// OBJECT IDENTIFIER.
pub fn oid_der(o: &ObjectIdentifier) -> Vec<u8> {
    o.to_der().expect("an OID always encodes")
}

/// BMPString of `s` (characters outside the BMP are replaced by U+FFFD).
pub fn bmp_string(s: &str) -> Vec<u8> {
    let mut b = Vec::with_capacity(2 * s.len());
    for c in s.chars() {
        let c = u32::from(c);
        let c = if c > 0xFFFF { 0xFFFD } else { c as u16 };
        b.extend_from_slice(&c.to_be_bytes());
    }
    tlv(0x1e, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        assert_eq!(int_u32(0), [2, 1, 0]);
        assert_eq!(int_u32(128), [2, 2, 0, 128]);
        assert_eq!(int_u32(2048), [2, 2, 8, 0]);
        assert_eq!(int_u32(u32::MAX), [2, 5, 0, 255, 255, 255, 255]);
        assert_eq!(tlv(4, &[0; 200])[..3], [4, 0x81, 200]);
        assert_eq!(tlv(4, &[0; 300])[..4], [4, 0x82, 1, 44]);
        assert_eq!(
            set_of(&[&[2, 1, 5], &[2, 1, 3]]),
            [0x31, 6, 2, 1, 3, 2, 1, 5]
        );
        assert_eq!(bmp_string("A"), [0x1e, 2, 0, 0x41]);
    }
}
