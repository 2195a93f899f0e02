//! Interoperability shims for peers that break TLS 1.3's rules.
//!
//! GmSSL 3.1.1's `tls13_client` and `tls13_server` do not ignore the unprotected
//! change_cipher_spec records that RFC 8446 Appendix D.4 ("middlebox compatibility mode")
//! lets an implementation send, although RFC 8446 §5 says a TLS 1.3 receiver MUST simply
//! drop them: GmSSL tries to decrypt the record and aborts with bad_record_mac. rustls
//! always sends one (a server after its ServerHello, a client before its second flight),
//! with no setting to turn it off. [`DropChangeCipherSpec`] wraps the transport and removes
//! those records from what rustls writes; nothing else is touched. A change_cipher_spec is
//! outside the transcript and carries no data, so the handshake is the same with or
//! without it. Use it only towards such peers.

use std::io::{self, Read, Write};

/// The content type of a change_cipher_spec record.
const CHANGE_CIPHER_SPEC: u8 = 20;

/// A transport (`Read + Write`) whose written byte stream, a sequence of TLS records, loses
/// every change_cipher_spec record. Reads pass through. Records may arrive split across
/// `write` calls in any way.
#[derive(Debug)]
pub struct DropChangeCipherSpec<S> {
    inner: S,
    header: [u8; 5],
    have: usize,
    remaining: usize,
    dropping: bool,
}

impl<S> DropChangeCipherSpec<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        DropChangeCipherSpec {
            inner,
            header: [0; 5],
            have: 0,
            remaining: 0,
            dropping: false,
        }
    }

    /// The wrapped transport.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped transport, mutably (writes through it bypass the filter).
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

impl<S: Read> Read for DropChangeCipherSpec<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<S: Write> Write for DropChangeCipherSpec<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut i = 0;
        while i < buf.len() {
            if self.remaining == 0 {
                // A record header, possibly split.
                let take = (5 - self.have).min(buf.len() - i);
                self.header[self.have..self.have + take].copy_from_slice(&buf[i..i + take]);
                self.have += take;
                i += take;
                if self.have == 5 {
                    self.have = 0;
                    self.remaining = u16::from_be_bytes([self.header[3], self.header[4]]) as usize;
                    self.dropping = self.header[0] == CHANGE_CIPHER_SPEC;
                    if !self.dropping {
                        self.inner.write_all(&self.header)?;
                    }
                }
            } else {
                let take = self.remaining.min(buf.len() - i);
                if !self.dropping {
                    self.inner.write_all(&buf[i..i + take])?;
                }
                self.remaining -= take;
                i += take;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_only_ccs_records_however_split() {
        let stream: Vec<u8> = [
            &[22u8, 3, 3, 0, 2, 0xaa, 0xbb][..],
            &[20, 3, 3, 0, 1, 1],
            &[23, 3, 3, 0, 3, 1, 2, 3],
            &[20, 3, 3, 0, 1, 1],
            &[23, 3, 3, 0, 0],
        ]
        .concat();
        let want: Vec<u8> = [
            &[22u8, 3, 3, 0, 2, 0xaa, 0xbb][..],
            &[23, 3, 3, 0, 3, 1, 2, 3],
            &[23, 3, 3, 0, 0],
        ]
        .concat();
        for step in 1..=stream.len() {
            let mut f = DropChangeCipherSpec::new(Vec::new());
            for chunk in stream.chunks(step) {
                assert_eq!(f.write(chunk).unwrap(), chunk.len());
            }
            assert_eq!(f.get_ref(), &want, "chunks of {step}");
        }
    }
}
