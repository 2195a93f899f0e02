//! Bounded big-endian readers and writers for the wire structures.

use crate::error::{Error, Result};

/// A cursor over a received message; every read checks the length first.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.buf.len() - self.pos < n {
            return Err(Error::decode(what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u24(&mut self, what: &str) -> Result<usize> {
        let b = self.take(3, what)?;
        Ok((usize::from(b[0]) << 16) | (usize::from(b[1]) << 8) | usize::from(b[2]))
    }

    /// `opaque x<0..2^8-1>`.
    pub(crate) fn vec8(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = usize::from(self.u8(what)?);
        self.take(n, what)
    }

    /// `opaque x<0..2^16-1>`.
    pub(crate) fn vec16(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = usize::from(self.u16(what)?);
        self.take(n, what)
    }

    /// `opaque x<0..2^24-1>`.
    pub(crate) fn vec24(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = self.u24(what)?;
        self.take(n, what)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// Fails unless everything was read.
    pub(crate) fn finish(&self, what: &str) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::decode(what))
        }
    }
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_u24(out: &mut Vec<u8>, v: usize) {
    debug_assert!(v < 1 << 24);
    out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8]);
}

/// Appends `opaque<..2^8-1>`; the caller guarantees the bound (all our own values).
pub(crate) fn put_vec8(out: &mut Vec<u8>, v: &[u8]) {
    debug_assert!(v.len() < 1 << 8);
    out.push(v.len() as u8);
    out.extend_from_slice(v);
}

pub(crate) fn put_vec16(out: &mut Vec<u8>, v: &[u8]) -> Result<()> {
    let n = u16::try_from(v.len()).map_err(|_| Error::Config("field over 65535 bytes".into()))?;
    put_u16(out, n);
    out.extend_from_slice(v);
    Ok(())
}

pub(crate) fn put_vec24(out: &mut Vec<u8>, v: &[u8]) -> Result<()> {
    if v.len() >= 1 << 24 {
        return Err(Error::Config("field over 2^24 - 1 bytes".into()));
    }
    put_u24(out, v.len());
    out.extend_from_slice(v);
    Ok(())
}
