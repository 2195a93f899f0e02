//! A bounded BER reader that normalises what peers write to DER (X.690 §8 -> §10), for
//! CMS and PKCS#12.
//!
//! BouncyCastle's streaming generators (CMS) and Java key stores (PKCS#12) write BER:
//! indefinite lengths (`0x80 ... 00 00`) and constructed OCTET STRINGs split into
//! chunks. Everything after this reader sees DER: definite, minimal lengths and primitive strings. What it does:
//!
//! * indefinite lengths become definite ones; long-form lengths become minimal;
//! * a constructed string type (OCTET STRING, BIT STRING and the character strings) is
//!   replaced by one primitive string holding the concatenation of its segments
//!   (X.690 §8.7.3, §8.6.3: segments are strings of the same type, BIT STRING segments
//!   other than the last have no unused bits);
//! * nothing else is changed (SET OF order is the signer's business; the signed
//!   attributes are re-sorted where the signature needs it, see `signed.rs`).
//!
//! Bounds (each a typed [`Error::UnsupportedFormat`], never a panic): input at most
//! [`MAX_INPUT`] bytes, nesting at most [`MAX_DEPTH`] levels, tag numbers below 31 (every
//! CMS and X.509 tag; the high-tag form is refused), lengths at most 4 length octets. The
//! work is linear in the input times the depth: each level copies its content once.
//!
//! This is the single entry for BER input: CMS ([`crate::cms::read_input`]) and PKCS#12
//! normalise with [`to_der`] before anything reads them, and everything after it reads
//! DER through the `der` crate. The BER headers are decoded here (the `der` crate reads
//! DER only); the DER written uses the crate's one writer (`crate::asn1`).

use crate::asn1::write_tlv;
use guomi_core::{Error, Result};

/// The largest BER/DER input accepted (bytes): 256 MiB.
pub const MAX_INPUT: usize = 256 << 20;
/// The deepest nesting of constructed encodings accepted.
pub const MAX_DEPTH: usize = 32;

fn bad(msg: &'static str) -> Error {
    Error::UnsupportedFormat(msg)
}

/// Universal string types whose constructed form is folded into the primitive one.
fn is_string_tag(number: u8) -> bool {
    matches!(
        number,
        0x03 | 0x04 | 0x0C | 0x12 | 0x13 | 0x14 | 0x16 | 0x17 | 0x18 | 0x1A | 0x1E
    )
}

/// One BER header: identifier octet, and the content length (`None`: indefinite).
struct Header {
    tag: u8,
    len: Option<usize>,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn header(&mut self) -> Result<Header> {
        let tag = *self.data.get(self.pos).ok_or(bad("truncated BER"))?;
        if tag & 0x1F == 0x1F {
            return Err(bad("BER high tag numbers are not supported"));
        }
        let first = *self.data.get(self.pos + 1).ok_or(bad("truncated BER"))?;
        self.pos += 2;
        let len = if first < 0x80 {
            Some(first as usize)
        } else if first == 0x80 {
            if tag & 0x20 == 0 {
                return Err(bad("BER indefinite length on a primitive encoding"));
            }
            None
        } else {
            let n = (first & 0x7F) as usize;
            if n > 4 {
                return Err(bad("BER length too large"));
            }
            let bytes = self
                .data
                .get(self.pos..self.pos + n)
                .ok_or(bad("truncated BER"))?;
            self.pos += n;
            Some(bytes.iter().fold(0usize, |a, &b| (a << 8) | b as usize))
        };
        if let Some(l) = len {
            if l > self.data.len() - self.pos {
                return Err(bad("truncated BER"));
            }
        }
        Ok(Header { tag, len })
    }

    fn at_eoc(&self) -> bool {
        self.data.get(self.pos..self.pos + 2) == Some(&[0, 0][..])
    }

    /// Reads one element at `depth`, appending its DER to `out`. `fold` is the string tag
    /// (without the constructed bit) whose segments are being concatenated: the content
    /// (not the header) is written.
    fn element(&mut self, out: &mut Vec<u8>, depth: usize, fold: Option<u8>) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(bad("BER nested too deeply"));
        }
        let h = self.header()?;
        if h.tag == 0 && h.len == Some(0) {
            return Err(bad("unexpected BER end-of-contents"));
        }
        let constructed = h.tag & 0x20 != 0;
        let universal = h.tag & 0xC0 == 0;
        if let Some(t) = fold {
            if h.tag & !0x20 != t {
                return Err(bad("BER constructed string has a segment of another type"));
            }
        }
        if !constructed {
            let len = h.len.unwrap_or(0);
            let content = &self.data[self.pos..self.pos + len];
            self.pos += len;
            return match fold {
                None => write_tlv(out, h.tag, content),
                Some(_) => {
                    out.extend_from_slice(content);
                    Ok(())
                }
            };
        }
        let string = universal && is_string_tag(h.tag & 0x1F);
        let mut body = Vec::new();
        let child_fold = if string { Some(h.tag & 0x1F) } else { None };
        match h.len {
            Some(len) => {
                let end = self.pos + len;
                let mut sub = Reader {
                    data: &self.data[..end],
                    pos: self.pos,
                };
                while sub.pos < end {
                    sub.element(&mut body, depth + 1, child_fold)?;
                }
                self.pos = end;
            }
            None => loop {
                if self.pos >= self.data.len() {
                    return Err(bad("truncated BER: missing end-of-contents"));
                }
                if self.at_eoc() {
                    self.pos += 2;
                    break;
                }
                self.element(&mut body, depth + 1, child_fold)?;
            },
        }
        if fold.is_some() {
            out.extend_from_slice(&body);
        } else if string {
            if h.tag & 0x1F == 0x03 {
                // A folded BIT STRING: the segments were concatenated with their
                // unused-bit octets; only the last segment may have unused bits.
                return Err(bad("constructed BER BIT STRING is not supported"));
            }
            write_tlv(out, h.tag & !0x20, &body)?;
        } else {
            write_tlv(out, h.tag, &body)?;
        }
        Ok(())
    }
}

/// Normalises one BER element (all of `data`, no trailing bytes) to DER.
pub fn to_der(data: &[u8]) -> Result<Vec<u8>> {
    if data.len() > MAX_INPUT {
        return Err(bad("BER/DER input larger than 256 MiB"));
    }
    if data.is_empty() {
        return Err(bad("empty BER/DER input"));
    }
    let mut r = Reader { data, pos: 0 };
    let mut out = Vec::with_capacity(data.len());
    r.element(&mut out, 0, None)?;
    if r.pos != data.len() {
        return Err(bad("trailing bytes after the BER/DER structure"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_passes_through() {
        let der = [0x30, 0x06, 0x04, 0x01, 0xAA, 0x02, 0x01, 0x05];
        assert_eq!(to_der(&der).unwrap(), der);
    }

    #[test]
    fn indefinite_and_constructed_octets() {
        // SEQUENCE (indef) { OCTET STRING (constructed, indef) { 04 02 'ab', 04 01 'c' } }
        let ber = [
            0x30, 0x80, 0x24, 0x80, 0x04, 0x02, b'a', b'b', 0x04, 0x01, b'c', 0x00, 0x00, 0x00,
            0x00,
        ];
        assert_eq!(
            to_der(&ber).unwrap(),
            [0x30, 0x05, 0x04, 0x03, b'a', b'b', b'c']
        );
    }

    #[test]
    fn nested_constructed_segments_and_long_lengths() {
        // OCTET STRING constructed { constructed { 04 01 'x' }, 04 81 01 'y' }
        let ber = [
            0x24, 0x09, 0x24, 0x03, 0x04, 0x01, b'x', 0x04, 0x81, 0x01, b'y',
        ];
        assert_eq!(to_der(&ber).unwrap(), [0x04, 0x02, b'x', b'y']);
        // long-form length for a short value becomes minimal
        assert_eq!(
            to_der(&[0x04, 0x82, 0x00, 0x01, 0x41]).unwrap(),
            [0x04, 0x01, 0x41]
        );
    }

    #[test]
    fn long_content_keeps_long_lengths() {
        let mut ber = vec![0x04, 0x80 | 2, 0x01, 0x00];
        ber.extend(std::iter::repeat_n(7u8, 256));
        let der = to_der(&ber).unwrap();
        assert_eq!(der, ber);
    }

    #[test]
    fn rejects_bad_input() {
        let cases: &[&[u8]] = &[
            &[],
            &[0x30],
            &[0x30, 0x05, 0x04],
            &[0x30, 0x80, 0x04, 0x00],             // no end-of-contents
            &[0x04, 0x80, 0x00, 0x00],             // indefinite primitive
            &[0x1F, 0x81, 0x01, 0x00],             // high tag number
            &[0x04, 0x85, 1, 0, 0, 0, 0],          // 5 length octets
            &[0x04, 0x01, 0x00, 0x00],             // trailing bytes
            &[0x24, 0x03, 0x02, 0x01, 0x00],       // INTEGER segment in an OCTET STRING
            &[0x23, 0x04, 0x03, 0x02, 0x00, 0x01], // constructed BIT STRING
            &[0x30, 0x02, 0x00, 0x00],             // EOC inside a definite length
        ];
        for c in cases {
            assert!(
                matches!(to_der(c), Err(Error::UnsupportedFormat(_))),
                "{c:02x?}"
            );
        }
    }

    #[test]
    fn depth_bomb_is_refused() {
        let mut bomb = Vec::new();
        for _ in 0..10_000 {
            bomb.extend_from_slice(&[0x30, 0x80]);
        }
        assert!(matches!(to_der(&bomb), Err(Error::UnsupportedFormat(_))));
        // MAX_DEPTH levels are fine
        let mut ok = Vec::new();
        for _ in 0..=MAX_DEPTH {
            ok.extend_from_slice(&[0x30, 0x80]);
        }
        for _ in 0..=MAX_DEPTH {
            ok.extend_from_slice(&[0, 0]);
        }
        assert!(to_der(&ok).is_ok());
        let mut deep = vec![0x30, 0x80];
        deep.extend_from_slice(&ok);
        deep.extend_from_slice(&[0, 0]);
        assert!(to_der(&deep).is_err());
    }

    #[test]
    fn normalizes_what_java_key_stores_write() {
        // SEQUENCE(indef) { INTEGER 3, OCTET STRING(constructed, indef) { "ab", "c" } }
        let ber = [
            0x30, 0x80, 2, 1, 3, 0x24, 0x80, 4, 2, b'a', b'b', 4, 1, b'c', 0, 0, 0, 0,
        ];
        assert_eq!(
            to_der(&ber).unwrap(),
            [0x30, 8, 2, 1, 3, 4, 3, b'a', b'b', b'c']
        );
        // Long-form lengths are made minimal.
        assert_eq!(to_der(&[4, 0x81, 1, 7]).unwrap(), [4, 1, 7]);
        for bad_input in [
            &[][..],
            &[0x30],
            &[0x30, 0x80],                // no end-of-contents
            &[0x04, 0x80, 0, 0],          // indefinite primitive
            &[0x30, 3, 2, 1],             // short
            &[0x24, 0x80, 2, 1, 1, 0, 0], // a segment that is not an OCTET STRING
            &[0x30, 0, 0],                // trailing byte
            &[0x1f, 1, 0],                // high tag number
            &[0x30, 0x85, 0, 0, 0, 0, 0], // length of length 5
        ] {
            assert!(to_der(bad_input).is_err(), "{bad_input:?}");
        }
    }
}
