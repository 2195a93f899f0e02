//! A strict DER reader and a small DER writer for the CMS structures (after
//! [`crate::ber::to_der`] every length is definite and minimal).

use der::oid::ObjectIdentifier;
use guomi_core::{Error, Result};

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const NULL: u8 = 0x05;
pub(crate) const OID: u8 = 0x06;
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
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub fn any(&mut self) -> Result<Tlv<'a>> {
        let start = self.pos;
        let tag = *self.data.get(start).ok_or(bad("truncated DER"))?;
        if tag & 0x1F == 0x1F {
            return Err(bad("DER high tag numbers are not supported"));
        }
        let first = *self.data.get(start + 1).ok_or(bad("truncated DER"))?;
        let mut p = start + 2;
        let len = if first < 0x80 {
            first as usize
        } else {
            let n = (first & 0x7F) as usize;
            if n == 0 || n > 4 {
                return Err(bad("DER length not supported"));
            }
            let b = self.data.get(p..p + n).ok_or(bad("truncated DER"))?;
            if b[0] == 0 {
                return Err(bad("non-minimal DER length"));
            }
            p += n;
            let l = b.iter().fold(0usize, |a, &x| (a << 8) | x as usize);
            if l < 0x80 {
                return Err(bad("non-minimal DER length"));
            }
            l
        };
        if len > self.data.len() - p {
            return Err(bad("truncated DER"));
        }
        self.pos = p + len;
        Ok(Tlv {
            tag,
            content: &self.data[p..p + len],
            raw: &self.data[start..p + len],
        })
    }

    pub fn next(&mut self, tag: u8, what: &'static str) -> Result<Tlv<'a>> {
        self.any()?.expect(tag, what)
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

/// One DER element.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag);
    crate::ber::push_len(&mut out, content.len());
    out.extend_from_slice(content);
    out
}

/// A constructed element from encoded parts.
pub(crate) fn cons(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    tlv(tag, &parts.concat())
}

pub(crate) fn oid(o: &ObjectIdentifier) -> Vec<u8> {
    tlv(OID, o.as_bytes())
}

pub(crate) fn small_int(v: u8) -> Vec<u8> {
    tlv(INTEGER, &[v])
}

/// AlgorithmIdentifier with no parameters.
pub(crate) fn alg(o: &ObjectIdentifier) -> Vec<u8> {
    cons(SEQUENCE, &[&oid(o)])
}

/// DER SET OF: the encodings sorted as octet strings (X.690 §11.6).
pub(crate) fn set_of(mut items: Vec<Vec<u8>>) -> Vec<u8> {
    items.sort();
    let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
    cons(SET, &refs)
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
        let v = cons(SEQUENCE, &[&small_int(3), &tlv(OCTET_STRING, &[1; 200])]);
        let t = Tlv::parse(&v).unwrap();
        assert_eq!(t.tag, SEQUENCE);
        let mut r = t.reader();
        assert_eq!(r.any().unwrap().small_uint().unwrap(), 3);
        assert_eq!(r.next(OCTET_STRING, "x").unwrap().content, &[1; 200][..]);
        r.finish().unwrap();
    }

    #[test]
    fn strict() {
        for bad in [
            &[0x04, 0x81, 0x01, 0x00][..],
            &[0x04, 0x82, 0x00, 0x80],
            &[0x04, 0x80, 0x00, 0x00],
            &[0x04, 0x02, 0x00],
            &[0x04, 0x00, 0x00],
        ] {
            assert!(Tlv::parse(bad).is_err(), "{bad:02x?}");
        }
    }

    #[test]
    fn set_of_sorts() {
        let s = set_of(vec![vec![0x04, 0x01, 0x02], vec![0x02, 0x01, 0x01]]);
        assert_eq!(s, [0x31, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x02]);
    }
}
