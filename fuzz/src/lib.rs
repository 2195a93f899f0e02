//! Helpers shared by the guomi fuzz targets: an input cursor, input-chosen chunking,
//! fixed keys and the fixed certificates written by `examples/make_seeds.rs`.

use guomi_core::sm2;
use std::sync::OnceLock;

/// Reads structured values off the front of a fuzz input; never fails (short input
/// yields zeros and empty slices).
pub struct Cursor<'a> {
    data: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data }
    }

    /// The next byte (0 when exhausted).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The next big-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.u8(), self.u8()])
    }

    /// The next big-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Up to `n` bytes.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (a, b) = self.data.split_at(n);
        self.data = b;
        a
    }

    /// A slice whose length is given by the next byte (so at most 255 bytes).
    pub fn bytes8(&mut self) -> &'a [u8] {
        let n = self.u8() as usize;
        self.take(n)
    }

    /// A slice whose length is given by the next u16.
    pub fn bytes16(&mut self) -> &'a [u8] {
        let n = self.u16() as usize;
        self.take(n)
    }

    /// Exactly `N` bytes, zero-padded when the input is short.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let s = self.take(N);
        a[..s.len()].copy_from_slice(s);
        a
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }

    /// Bytes left.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// Splits `data` into chunks whose lengths come from `sizes` (cycled; a 0 gives an empty
/// chunk, so empty updates are exercised too). With no sizes, one chunk.
pub fn chunks<'a>(data: &'a [u8], sizes: &[u8]) -> Vec<&'a [u8]> {
    if sizes.is_empty() {
        return vec![data];
    }
    let mut out = Vec::new();
    let mut rest = data;
    let mut i = 0usize;
    // Bound the number of chunks so that a run of zero sizes cannot loop for long.
    while !rest.is_empty() && out.len() < 4096 {
        let mut n = sizes[i % sizes.len()] as usize;
        // Sizes with the top bit set mean "large" chunks, to cross the SIMD widths.
        if n & 0x80 != 0 {
            n = (n & 0x7f) * 37;
        }
        let n = n.min(rest.len());
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
        i += 1;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The fixed SM2 private key of the targets (d = 0x5a5a...5a, which is in [1, n-2]).
pub const SM2_D: [u8; 32] = [0x5a; 32];

/// The fixed SM2 key pair.
pub fn sm2_key() -> &'static sm2::PrivateKey {
    static K: OnceLock<sm2::PrivateKey> = OnceLock::new();
    K.get_or_init(|| sm2::PrivateKey::from_bytes(&SM2_D).expect("fixed SM2 key"))
}

/// The fixed SM9 master keys (scalars) and identity.
pub const SM9_SIGN_MASTER: [u8; 32] = [0x11; 32];
/// See [`SM9_SIGN_MASTER`].
pub const SM9_ENC_MASTER: [u8; 32] = [0x22; 32];
/// The identity the fixed SM9 user keys belong to.
pub const SM9_ID: &[u8] = b"fuzz@guomi";

/// Fixed SM9 keys: (sign master public, sign user, enc master public, enc user).
pub struct Sm9Keys {
    /// Ppub-s.
    pub sign_pub: guomi_core::sm9::SignMasterPublicKey,
    /// ds for [`SM9_ID`].
    pub sign_user: guomi_core::sm9::SignUserKey,
    /// Ppub-e.
    pub enc_pub: guomi_core::sm9::EncMasterPublicKey,
    /// de for [`SM9_ID`], hid 3.
    pub enc_user: std::sync::Arc<guomi_core::sm9::EncUserKey>,
}

/// The fixed SM9 keys (extracted once).
pub fn sm9_keys() -> &'static Sm9Keys {
    use guomi_core::sm9::*;
    static K: OnceLock<Sm9Keys> = OnceLock::new();
    K.get_or_init(|| {
        let sm = SignMasterKey::from_bytes(&SM9_SIGN_MASTER).expect("fixed SM9 sign master");
        let em = EncMasterKey::from_bytes(&SM9_ENC_MASTER).expect("fixed SM9 enc master");
        Sm9Keys {
            sign_pub: sm.public_key(),
            sign_user: sm.extract(SM9_ID).expect("extract"),
            enc_pub: em.public_key(),
            enc_user: std::sync::Arc::new(em.extract(SM9_ID, HID_ENCRYPT).expect("extract")),
        }
    })
}

/// A fixed PKI made by `examples/make_seeds.rs` with keys d = 0x01.., 0x02.., 0x03..:
/// a self-signed root, an intermediate CA and a leaf (DER).
pub const ROOT_DER: &[u8] = include_bytes!("../fixtures/root.der");
/// See [`ROOT_DER`].
pub const INTER_DER: &[u8] = include_bytes!("../fixtures/inter.der");
/// See [`ROOT_DER`].
pub const LEAF_DER: &[u8] = include_bytes!("../fixtures/leaf.der");
/// A time (Unix seconds) inside the validity of the fixed certificates.
pub const PKI_TIME: i64 = 1_800_000_000;

/// The PBKDF2 password of the encrypted-key and password-envelope seeds.
pub const PASSWORD: &[u8] = b"guomi-fuzz";

/// Largest PBKDF2 iteration count a target lets through to the parsers (speed only).
pub const FUZZ_MAX_ITERATIONS: u32 = 2048;

/// Whether every DER INTEGER anywhere in `der` (walking constructed values) is at most
/// `max`. Anything this walker cannot follow counts as "no" (the input is skipped), so a
/// target can keep hostile PBKDF2 iteration counts away from the parser.
pub fn der_integers_at_most(der: &[u8], max: u64) -> bool {
    fn walk(mut d: &[u8], max: u64, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        while !d.is_empty() {
            if d.len() < 2 {
                return false;
            }
            let tag = d[0];
            if tag & 0x1f == 0x1f {
                return false;
            }
            let (len, hdr) = match d[1] {
                n if n < 0x80 => (n as usize, 2),
                0x81 if d.len() >= 3 => (d[2] as usize, 3),
                0x82 if d.len() >= 4 => (u16::from_be_bytes([d[2], d[3]]) as usize, 4),
                0x83 if d.len() >= 5 => (
                    ((d[2] as usize) << 16) | ((d[3] as usize) << 8) | d[4] as usize,
                    5,
                ),
                _ => return false,
            };
            if d.len() < hdr + len {
                return false;
            }
            let body = &d[hdr..hdr + len];
            if tag == 0x02 {
                if body.len() > 8 {
                    return false;
                }
                let v = body.iter().fold(0u64, |a, &b| (a << 8) | b as u64);
                if v > max {
                    return false;
                }
            } else if tag & 0x20 != 0 && !walk(body, max, depth + 1) {
                return false;
            }
            d = &d[hdr + len..];
        }
        true
    }
    walk(der, max, 0)
}

/// Standard base64 with padding (for wrapping fuzzed DER in PEM).
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// `der` as a PEM block with `label` (64-column lines) and optional header lines.
pub fn pem(label: &str, headers: &[String], der: &[u8]) -> String {
    let mut s = format!("-----BEGIN {label}-----\n");
    for h in headers {
        s.push_str(h);
        s.push('\n');
    }
    if !headers.is_empty() {
        s.push('\n');
    }
    let b = base64(der);
    for line in b.as_bytes().chunks(64) {
        s.push_str(core::str::from_utf8(line).unwrap());
        s.push('\n');
    }
    s.push_str(&format!("-----END {label}-----\n"));
    s
}

/// `der` (one DER SEQUENCE) with `extra` appended inside the SEQUENCE, re-encoded with
/// a correct length; `None` when `der` is not a single definite-length SEQUENCE.
pub fn append_inside_sequence(der: &[u8], extra: &[u8]) -> Option<Vec<u8>> {
    if der.len() < 2 || der[0] != 0x30 {
        return None;
    }
    let (len, hdr) = match der[1] {
        n if n < 0x80 => (n as usize, 2),
        0x81 => (*der.get(2)? as usize, 3),
        0x82 => (u16::from_be_bytes([*der.get(2)?, *der.get(3)?]) as usize, 4),
        _ => return None,
    };
    if der.len() != hdr + len {
        return None;
    }
    let mut content = der[hdr..].to_vec();
    content.extend_from_slice(extra);
    let n = content.len();
    let mut out = vec![0x30];
    if n < 0x80 {
        out.push(n as u8);
    } else if n < 0x100 {
        out.extend_from_slice(&[0x81, n as u8]);
    } else if n < 0x10000 {
        out.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]);
    } else {
        return None;
    }
    out.extend_from_slice(&content);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_answers() {
        // RFC 4648 §10.
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn integer_walker() {
        // SEQUENCE { INTEGER 2048, SEQUENCE { INTEGER 1 } }
        let ok = [
            0x30, 0x09, 0x02, 0x02, 0x08, 0x00, 0x30, 0x03, 0x02, 0x01, 0x01,
        ];
        assert!(der_integers_at_most(&ok, 2048));
        assert!(!der_integers_at_most(&ok, 2047));
        assert!(!der_integers_at_most(&ok[..5], 4096));
    }

    #[test]
    fn chunking_covers_input() {
        let d: Vec<u8> = (0..200).collect();
        let c = chunks(&d, &[0, 3, 0x81]);
        assert_eq!(c.concat(), d);
        assert!(c.iter().any(|x| x.is_empty()));
    }
}
