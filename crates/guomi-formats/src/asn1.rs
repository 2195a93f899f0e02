//! Raw DER elements for the structures guomi-formats composes from already-encoded parts
//! (SM2 key containers, CMS, PKCS#12), on the `der` crate: lengths are read and written
//! by [`der::Length`] (definite, minimal: X.690 §10.1), element bodies are taken by
//! [`der::SliceReader`]. The typed structures (X.509, CRLs, PBES2 parameters, the
//! PKCS#12 reader) use the `der` crate's types directly; this module is for the places
//! that need the exact octets of an element (the signed attributes of CMS, RFC 5652
//! §5.4; an eContent kept as written) or write SET OF and `[n]` wrappers around encoded
//! parts.
//!
//! BER input is first normalised by [`crate::ber::to_der`]; what this reader sees must
//! already be DER. Tags are single identifier octets (the high-tag form, never used by
//! these formats, is refused). The largest element is [`der::Length::MAX`] (256 MiB,
//! the same bound as [`crate::ber::MAX_INPUT`]); a longer one is a typed error.

use der::oid::ObjectIdentifier;
use der::{Decode, Encode, ErrorKind, Length, Reader as _, SliceReader};
use guomi_core::{Error, Result};

pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const NULL: u8 = 0x05;
pub(crate) const OID: u8 = 0x06;
pub(crate) const BMP_STRING: u8 = 0x1E;
pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;

/// `[n]` context-specific, constructed.
pub(crate) const fn ctx_cons(n: u8) -> u8 {
    0xA0 | n
}

/// `[n]` context-specific, primitive.
pub(crate) const fn ctx_prim(n: u8) -> u8 {
    0x80 | n
}

pub(crate) fn bad(msg: &'static str) -> Error {
    Error::UnsupportedFormat(msg)
}

fn too_long(_: der::Error) -> Error {
    bad("DER element longer than 256 MiB")
}

// ---------------------------------------------------------------------------------------
// Writing

/// Appends one element: `tag`, the DER length of `content` (by [`der::Length`]) and
/// `content`. Growing `out` only as needed lets a caller reserve a buffer for secrets.
pub(crate) fn write_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) -> Result<()> {
    let len = Length::try_from(content.len()).map_err(too_long)?;
    out.push(tag);
    len.encode_to_vec(out).map_err(too_long)?;
    out.extend_from_slice(content);
    Ok(())
}

/// One element.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(content.len() + 6);
    write_tlv(&mut out, tag, content)?;
    Ok(out)
}

/// A constructed element from encoded parts.
pub(crate) fn cons(tag: u8, parts: &[&[u8]]) -> Result<Vec<u8>> {
    tlv(tag, &parts.concat())
}

/// SEQUENCE of encoded parts.
pub(crate) fn seq(parts: &[&[u8]]) -> Result<Vec<u8>> {
    cons(SEQUENCE, parts)
}

/// `[n]` EXPLICIT around one encoded element.
pub(crate) fn explicit(n: u8, inner: &[u8]) -> Result<Vec<u8>> {
    tlv(ctx_cons(n), inner)
}

/// DER SET OF: the encodings sorted as octet strings (X.690 §11.6).
pub(crate) fn set_of<T: AsRef<[u8]>>(items: &[T]) -> Result<Vec<u8>> {
    let mut v: Vec<&[u8]> = items.iter().map(AsRef::as_ref).collect();
    v.sort_unstable();
    cons(SET, &v)
}

/// OCTET STRING.
pub(crate) fn octets(b: &[u8]) -> Result<Vec<u8>> {
    tlv(OCTET_STRING, b)
}

/// OBJECT IDENTIFIER.
pub(crate) fn oid(o: &ObjectIdentifier) -> Result<Vec<u8>> {
    o.to_der()
        .map_err(|_| bad("OBJECT IDENTIFIER does not encode"))
}

/// A non-negative INTEGER.
pub(crate) fn uint(v: u32) -> Result<Vec<u8>> {
    v.to_der().map_err(|_| bad("INTEGER does not encode"))
}

/// AlgorithmIdentifier with no parameters.
pub(crate) fn alg(o: &ObjectIdentifier) -> Result<Vec<u8>> {
    seq(&[&oid(o)?])
}

/// NULL.
pub(crate) fn null() -> Vec<u8> {
    vec![NULL, 0]
}

/// BMPString of `s` (characters outside the BMP are replaced by U+FFFD).
pub(crate) fn bmp_string(s: &str) -> Result<Vec<u8>> {
    let mut b = Vec::with_capacity(2 * s.len());
    for c in s.chars() {
        let c = u16::try_from(u32::from(c)).unwrap_or(0xFFFD);
        b.extend_from_slice(&c.to_be_bytes());
    }
    tlv(BMP_STRING, &b)
}

// ---------------------------------------------------------------------------------------
// Reading

/// One DER element: its tag, its content and its whole encoding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tlv<'a> {
    pub tag: u8,
    pub content: &'a [u8],
    pub raw: &'a [u8],
}

impl<'a> Tlv<'a> {
    /// Parses all of `data` as one element.
    pub fn parse(data: &'a [u8]) -> Result<Tlv<'a>> {
        let mut r = Reader::new(data);
        let t = r.any()?;
        r.finish()?;
        Ok(t)
    }

    pub fn expect(self, tag: u8, what: &'static str) -> Result<Tlv<'a>> {
        if self.tag == tag {
            Ok(self)
        } else {
            Err(bad(what))
        }
    }

    /// A reader over this element's content.
    pub fn reader(&self) -> Reader<'a> {
        Reader::new(self.content)
    }

    pub fn oid(&self) -> Result<ObjectIdentifier> {
        if self.tag != OID {
            return Err(bad("expected an OBJECT IDENTIFIER"));
        }
        ObjectIdentifier::from_bytes(self.content).map_err(|_| bad("malformed OBJECT IDENTIFIER"))
    }

    /// A small non-negative INTEGER (versions).
    pub fn small_uint(&self) -> Result<u32> {
        if self.tag != INTEGER || self.content.is_empty() || self.content.len() > 4 {
            return Err(bad("expected a small INTEGER"));
        }
        if self.content[0] & 0x80 != 0 {
            return Err(bad("negative version"));
        }
        Ok(self.content.iter().fold(0u32, |a, &b| (a << 8) | b as u32))
    }
}

/// Reads consecutive DER elements from a slice.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    /// `None` when `data` is longer than [`der::Length::MAX`]: every read fails.
    r: Option<SliceReader<'a>>,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            r: SliceReader::new(data).ok(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.r {
            Some(r) => r.is_finished(),
            None => self.data.is_empty(),
        }
    }

    pub fn peek_tag(&self) -> Option<u8> {
        self.r.as_ref()?.peek_byte()
    }

    pub fn any(&mut self) -> Result<Tlv<'a>> {
        let r = self
            .r
            .as_mut()
            .ok_or(bad("DER input longer than 256 MiB"))?;
        let start = usize::try_from(r.position()).map_err(too_long)?;
        let tag = r.read_byte().map_err(|_| bad("truncated DER"))?;
        if tag & 0x1F == 0x1F {
            return Err(bad("DER high tag numbers are not supported"));
        }
        let len = Length::decode(r).map_err(|e| match e.kind() {
            ErrorKind::Incomplete { .. } => bad("truncated DER"),
            _ => bad("DER length not definite and minimal"),
        })?;
        let content = r.read_slice(len).map_err(|_| bad("truncated DER"))?;
        let end = usize::try_from(r.position()).map_err(too_long)?;
        Ok(Tlv {
            tag,
            content,
            raw: &self.data[start..end],
        })
    }

    pub fn next(&mut self, tag: u8, what: &'static str) -> Result<Tlv<'a>> {
        self.any()?.expect(tag, what)
    }

    /// The content of the next element, which must have `tag`.
    pub fn read(&mut self, tag: u8) -> Result<&'a [u8]> {
        Ok(self.next(tag, "unexpected DER element")?.content)
    }

    /// The next element if it has `tag`.
    pub fn optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>> {
        if self.peek_tag() == Some(tag) {
            self.any().map(Some)
        } else {
            Ok(None)
        }
    }

    pub fn finish(&self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(bad("unexpected trailing DER elements"))
        }
    }

    /// Every remaining element, at most `max` of them.
    pub fn all(&mut self, max: usize, what: &'static str) -> Result<Vec<Tlv<'a>>> {
        let mut v = Vec::new();
        while !self.is_empty() {
            if v.len() == max {
                return Err(bad(what));
            }
            v.push(self.any()?);
        }
        Ok(v)
    }
}

/// An AlgorithmIdentifier: its OID and its parameters (`None` when absent or NULL).
pub(crate) fn parse_alg<'a>(t: Tlv<'a>) -> Result<(ObjectIdentifier, Option<Tlv<'a>>)> {
    let t = t.expect(SEQUENCE, "expected an AlgorithmIdentifier")?;
    let mut r = t.reader();
    let o = r.any()?.oid()?;
    let params = if r.is_empty() {
        None
    } else {
        let p = r.any()?;
        if p.tag == NULL && p.content.is_empty() {
            None
        } else {
            Some(p)
        }
    };
    r.finish()?;
    Ok((o, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes() {
        let v = seq(&[&uint(3).unwrap(), &tlv(OCTET_STRING, &[1; 200]).unwrap()]).unwrap();
        assert_eq!(&v[..6], [0x30, 0x81, 206, 2, 1, 3]);
        let t = Tlv::parse(&v).unwrap();
        assert_eq!(t.tag, SEQUENCE);
        assert_eq!(t.raw, &v[..]);
        let mut r = t.reader();
        assert_eq!(r.any().unwrap().small_uint().unwrap(), 3);
        let o = r.next(OCTET_STRING, "x").unwrap();
        assert_eq!(o.content, &[1; 200][..]);
        assert_eq!(&o.raw[..3], [4, 0x81, 200]);
        r.finish().unwrap();
    }

    #[test]
    fn lengths() {
        assert_eq!(tlv(4, &[0; 127]).unwrap()[..2], [4, 127]);
        assert_eq!(tlv(4, &[0; 128]).unwrap()[..3], [4, 0x81, 128]);
        assert_eq!(tlv(4, &[0; 300]).unwrap()[..4], [4, 0x82, 1, 44]);
        assert_eq!(
            tlv(4, &vec![0; 70000]).unwrap()[..5],
            [4, 0x83, 1, 0x11, 0x70]
        );
    }

    #[test]
    fn strict() {
        for bad in [
            &[0x04, 0x81, 0x01, 0x00][..], // non-minimal long form
            &[0x04, 0x82, 0x00, 0x80],     // leading zero length octet
            &[0x04, 0x80, 0x00, 0x00],     // indefinite
            &[0x04, 0x85, 0, 0, 0, 0, 1],  // five length octets
            &[0x04, 0x02, 0x00],           // truncated
            &[0x04, 0x00, 0x00],           // trailing
            &[0x1F, 0x20, 0x00],           // high tag number
            &[0x04],
            &[],
        ] {
            assert!(Tlv::parse(bad).is_err(), "{bad:02x?}");
        }
        // Any single-octet tag is an element, as in BER normalised to DER.
        assert_eq!(Tlv::parse(&[0x07, 0x01, 0x00]).unwrap().tag, 0x07);
    }

    #[test]
    fn values() {
        assert_eq!(uint(0).unwrap(), [2, 1, 0]);
        assert_eq!(uint(128).unwrap(), [2, 2, 0, 128]);
        assert_eq!(uint(2048).unwrap(), [2, 2, 8, 0]);
        assert_eq!(uint(u32::MAX).unwrap(), [2, 5, 0, 255, 255, 255, 255]);
        assert_eq!(null(), [5, 0]);
        assert_eq!(bmp_string("A").unwrap(), [0x1e, 2, 0, 0x41]);
        assert_eq!(bmp_string("\u{1F600}").unwrap(), [0x1e, 2, 0xFF, 0xFD]);
        let sm3 = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401");
        assert_eq!(
            alg(&sm3).unwrap(),
            [0x30, 0x0A, 0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x83, 0x11]
        );
    }

    #[test]
    fn set_of_sorts() {
        let s = set_of(&[vec![0x04, 0x01, 0x02], vec![0x02, 0x01, 0x01]]).unwrap();
        assert_eq!(s, [0x31, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x02]);
        let s = set_of(&[&[2u8, 1, 5][..], &[2, 1, 3]]).unwrap();
        assert_eq!(s, [0x31, 6, 2, 1, 3, 2, 1, 5]);
    }
}
