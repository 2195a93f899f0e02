//! Handshake messages (GB/T 38636-2020 §6.4.5): encoding and bounded parsing.
//!
//! Every parser reads exactly its message body (trailing bytes are `decode_error`) and
//! bounds every list. Extensions in the hellos are parsed for structure and ignored
//! (TLCP defines none this engine acts on); we send none.

use crate::codec::{put_u16, put_u24, put_vec16, put_vec24, put_vec8, Reader};
use crate::error::{AlertDescription, Error, Result};
use crate::record::VERSION;

/// Handshake message types (§6.4.5.1).
pub(crate) mod hs {
    pub const HELLO_REQUEST: u8 = 0;
    pub const CLIENT_HELLO: u8 = 1;
    pub const SERVER_HELLO: u8 = 2;
    pub const CERTIFICATE: u8 = 11;
    pub const SERVER_KEY_EXCHANGE: u8 = 12;
    pub const CERTIFICATE_REQUEST: u8 = 13;
    pub const SERVER_HELLO_DONE: u8 = 14;
    pub const CERTIFICATE_VERIFY: u8 = 15;
    pub const CLIENT_KEY_EXCHANGE: u8 = 16;
    pub const FINISHED: u8 = 20;
}

/// Largest handshake message body accepted (certificate chains included): 64 KiB.
pub const MAX_HANDSHAKE_MESSAGE: usize = 1 << 16;
/// Most certificates accepted in a Certificate message.
pub const MAX_CERTIFICATES: usize = 10;
/// Most cipher suites read from a ClientHello.
const MAX_SUITES: usize = 512;
/// Most distinguished names read from a CertificateRequest.
const MAX_CA_NAMES: usize = 256;

/// The named curve SM2 (0x0029, as TLS 1.3's curveSM2; GmSSL 3.x, Tongsuo and openHiTLS
/// send it in TLCP's ECDHE parameters).
pub const CURVE_SM2: u16 = 0x0029;
/// ECCurveType named_curve.
const NAMED_CURVE: u8 = 3;
/// ClientCertificateType ecc_sign (64, "ecdsa_sign" in TLS numbering), as GmSSL sends.
pub const CERT_TYPE_ECC_SIGN: u8 = 64;

/// Prepends the handshake header (type, 24-bit length).
pub(crate) fn wrap(typ: u8, body: &[u8]) -> Result<Vec<u8>> {
    if body.len() > MAX_HANDSHAKE_MESSAGE {
        return Err(Error::Config("handshake message over 64 KiB".into()));
    }
    let mut out = Vec::with_capacity(4 + body.len());
    out.push(typ);
    put_u24(&mut out, body.len());
    out.extend_from_slice(body);
    Ok(out)
}

fn check_version(v: u16, what: &str) -> Result<()> {
    if v != VERSION {
        return Err(Error::protocol(
            AlertDescription::ProtocolVersion,
            format!("{what} version {v:#06x}, only TLCP 0x0101 is spoken"),
        ));
    }
    Ok(())
}

fn skip_extensions(r: &mut Reader<'_>) -> Result<()> {
    if r.is_empty() {
        return Ok(());
    }
    let exts = r.vec16("extensions")?;
    let mut e = Reader::new(exts);
    while !e.is_empty() {
        e.u16("extension type")?;
        e.vec16("extension data")?;
    }
    Ok(())
}

/// ClientHello (§6.4.5.2.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClientHello {
    pub random: [u8; 32],
    pub session_id: Vec<u8>,
    pub suites: Vec<u16>,
}

impl ClientHello {
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut b = Vec::new();
        put_u16(&mut b, VERSION);
        b.extend_from_slice(&self.random);
        put_vec8(&mut b, &self.session_id);
        let mut s = Vec::new();
        for id in &self.suites {
            put_u16(&mut s, *id);
        }
        put_vec16(&mut b, &s)?;
        put_vec8(&mut b, &[0]); // compression: null only
        wrap(hs::CLIENT_HELLO, &b)
    }

    pub fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body);
        check_version(r.u16("client version")?, "ClientHello")?;
        let random = r.take(32, "random")?.try_into().expect("32 bytes");
        let session_id = r.vec8("session id")?.to_vec();
        if session_id.len() > 32 {
            return Err(Error::decode("session id over 32 bytes"));
        }
        let s = r.vec16("cipher suites")?;
        if s.is_empty() || s.len() % 2 != 0 || s.len() / 2 > MAX_SUITES {
            return Err(Error::decode("cipher suite list"));
        }
        let suites = s
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        let comp = r.vec8("compression methods")?;
        if !comp.contains(&0) {
            return Err(Error::protocol(
                AlertDescription::IllegalParameter,
                "ClientHello does not offer null compression",
            ));
        }
        skip_extensions(&mut r)?;
        r.finish("ClientHello trailing bytes")?;
        Ok(ClientHello {
            random,
            session_id,
            suites,
        })
    }
}

/// ServerHello (§6.4.5.2.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServerHello {
    pub random: [u8; 32],
    pub session_id: Vec<u8>,
    pub suite: u16,
}

impl ServerHello {
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut b = Vec::new();
        put_u16(&mut b, VERSION);
        b.extend_from_slice(&self.random);
        put_vec8(&mut b, &self.session_id);
        put_u16(&mut b, self.suite);
        b.push(0);
        wrap(hs::SERVER_HELLO, &b)
    }

    pub fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body);
        check_version(r.u16("server version")?, "ServerHello")?;
        let random = r.take(32, "random")?.try_into().expect("32 bytes");
        let session_id = r.vec8("session id")?.to_vec();
        if session_id.len() > 32 {
            return Err(Error::decode("session id over 32 bytes"));
        }
        let suite = r.u16("cipher suite")?;
        if r.u8("compression")? != 0 {
            return Err(Error::protocol(
                AlertDescription::IllegalParameter,
                "server chose compression",
            ));
        }
        skip_extensions(&mut r)?;
        r.finish("ServerHello trailing bytes")?;
        Ok(ServerHello {
            random,
            session_id,
            suite,
        })
    }
}

/// Certificate (§6.4.5.3): a list of DER certificates.
pub(crate) fn encode_certificate(certs: &[Vec<u8>]) -> Result<Vec<u8>> {
    let mut list = Vec::new();
    for c in certs {
        put_vec24(&mut list, c)?;
    }
    let mut b = Vec::new();
    put_vec24(&mut b, &list)?;
    wrap(hs::CERTIFICATE, &b)
}

pub(crate) fn parse_certificate(body: &[u8]) -> Result<Vec<Vec<u8>>> {
    let mut r = Reader::new(body);
    let list = r.vec24("certificate list")?;
    r.finish("Certificate trailing bytes")?;
    let mut l = Reader::new(list);
    let mut out = Vec::new();
    while !l.is_empty() {
        if out.len() == MAX_CERTIFICATES {
            return Err(Error::decode("more than 10 certificates"));
        }
        let c = l.vec24("certificate")?;
        if c.is_empty() {
            return Err(Error::decode("empty certificate"));
        }
        out.push(c.to_vec());
    }
    Ok(out)
}

/// ServerECDHParams (RFC 4492 §5.4 as GB/T 38636 §6.4.5.4): named_curve(3) ||
/// curve (2) || point<1..255> (the 65-byte uncompressed point).
pub(crate) fn encode_ecdh_params(point: &[u8; 65]) -> Vec<u8> {
    let mut b = vec![NAMED_CURVE];
    put_u16(&mut b, CURVE_SM2);
    put_vec8(&mut b, point);
    b
}

/// Reads ECDH parameters from the start of `r`, returning (the raw parameter bytes, the
/// point).
fn parse_ecdh_params<'a>(r: &mut Reader<'a>) -> Result<(Vec<u8>, &'a [u8])> {
    let typ = r.u8("curve type")?;
    let curve = r.u16("named curve")?;
    if typ != NAMED_CURVE || curve != CURVE_SM2 {
        return Err(Error::protocol(
            AlertDescription::IllegalParameter,
            format!("ECDHE parameters: curve type {typ}, curve {curve:#06x}; expected named curve SM2 (0x0029)"),
        ));
    }
    let point = r.vec8("ECDHE point")?;
    if point.len() != 65 || point[0] != 4 {
        return Err(Error::protocol(
            AlertDescription::IllegalParameter,
            "ECDHE point must be 65-byte uncompressed",
        ));
    }
    let mut raw = vec![NAMED_CURVE];
    put_u16(&mut raw, CURVE_SM2);
    put_vec8(&mut raw, point);
    Ok((raw, point))
}

/// ServerKeyExchange (§6.4.5.4): ECC = signature<u16>; ECDHE = ServerECDHParams ||
/// signature<u16>. The signature is DER SM2 (r, s).
pub(crate) fn encode_server_key_exchange(params: Option<&[u8]>, sig: &[u8]) -> Result<Vec<u8>> {
    let mut b = Vec::new();
    if let Some(p) = params {
        b.extend_from_slice(p);
    }
    put_vec16(&mut b, sig)?;
    wrap(hs::SERVER_KEY_EXCHANGE, &b)
}

/// Returns (raw ECDH params and point, for ECDHE) and the signature.
#[allow(clippy::type_complexity)]
pub(crate) fn parse_server_key_exchange(
    body: &[u8],
    ecdhe: bool,
) -> Result<(Option<(Vec<u8>, Vec<u8>)>, Vec<u8>)> {
    let mut r = Reader::new(body);
    let params = if ecdhe {
        let (raw, point) = parse_ecdh_params(&mut r)?;
        Some((raw, point.to_vec()))
    } else {
        None
    };
    let sig = r.vec16("signature")?.to_vec();
    r.finish("ServerKeyExchange trailing bytes")?;
    Ok((params, sig))
}

/// CertificateRequest (§6.4.5.5): certificate_types<1..2^8-1> ||
/// certificate_authorities<0..2^16-1> (each a DistinguishedName<1..2^16-1>).
pub(crate) fn encode_certificate_request(ca_names: &[Vec<u8>]) -> Result<Vec<u8>> {
    let mut b = Vec::new();
    put_vec8(&mut b, &[CERT_TYPE_ECC_SIGN]);
    let mut names = Vec::new();
    for n in ca_names {
        put_vec16(&mut names, n)?;
    }
    put_vec16(&mut b, &names)?;
    wrap(hs::CERTIFICATE_REQUEST, &b)
}

/// Returns the certificate types and the CA names.
pub(crate) fn parse_certificate_request(body: &[u8]) -> Result<(Vec<u8>, Vec<Vec<u8>>)> {
    let mut r = Reader::new(body);
    let types = r.vec8("certificate types")?.to_vec();
    if types.is_empty() {
        return Err(Error::decode("empty certificate type list"));
    }
    let names = r.vec16("certificate authorities")?;
    r.finish("CertificateRequest trailing bytes")?;
    let mut n = Reader::new(names);
    let mut out = Vec::new();
    while !n.is_empty() {
        if out.len() == MAX_CA_NAMES {
            return Err(Error::decode("too many certificate authorities"));
        }
        let dn = n.vec16("distinguished name")?;
        if dn.is_empty() {
            return Err(Error::decode("empty distinguished name"));
        }
        out.push(dn.to_vec());
    }
    Ok((types, out))
}

/// ClientKeyExchange, ECC (§6.4.5.8): the SM2 ciphertext (GM/T 0009 DER) as
/// opaque<u16>, as GmSSL and gmtls send it.
pub(crate) fn encode_cke_ecc(ciphertext: &[u8]) -> Result<Vec<u8>> {
    let mut b = Vec::new();
    put_vec16(&mut b, ciphertext)?;
    wrap(hs::CLIENT_KEY_EXCHANGE, &b)
}

pub(crate) fn parse_cke_ecc(body: &[u8]) -> Result<Vec<u8>> {
    let mut r = Reader::new(body);
    let c = r.vec16("encrypted pre-master secret")?.to_vec();
    r.finish("ClientKeyExchange trailing bytes")?;
    Ok(c)
}

/// ClientKeyExchange, ECDHE: ClientECDHEParams = named_curve(3) || SM2 (0x0029) ||
/// point<u8>, without an outer length (Tongsuo and openHiTLS; see the crate docs).
pub(crate) fn encode_cke_ecdhe(point: &[u8; 65]) -> Result<Vec<u8>> {
    wrap(hs::CLIENT_KEY_EXCHANGE, &encode_ecdh_params(point))
}

pub(crate) fn parse_cke_ecdhe(body: &[u8]) -> Result<Vec<u8>> {
    let mut r = Reader::new(body);
    let (_, point) = parse_ecdh_params(&mut r)?;
    r.finish("ClientKeyExchange trailing bytes")?;
    Ok(point.to_vec())
}

/// CertificateVerify (§6.4.5.9): signature<u16> (DER SM2).
pub(crate) fn encode_certificate_verify(sig: &[u8]) -> Result<Vec<u8>> {
    let mut b = Vec::new();
    put_vec16(&mut b, sig)?;
    wrap(hs::CERTIFICATE_VERIFY, &b)
}

pub(crate) fn parse_certificate_verify(body: &[u8]) -> Result<Vec<u8>> {
    let mut r = Reader::new(body);
    let s = r.vec16("signature")?.to_vec();
    r.finish("CertificateVerify trailing bytes")?;
    Ok(s)
}

pub(crate) fn encode_finished(verify_data: &[u8; 12]) -> Result<Vec<u8>> {
    wrap(hs::FINISHED, verify_data)
}

pub(crate) fn parse_finished(body: &[u8]) -> Result<[u8; 12]> {
    body.try_into()
        .map_err(|_| Error::decode("Finished must be 12 bytes"))
}

/// Splits complete handshake messages off the front of `buf`: (type, body, total
/// length) or `None` while incomplete. Oversized messages fail as soon as the header is
/// seen.
pub(crate) fn next_message(buf: &[u8]) -> Result<Option<(u8, &[u8], usize)>> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = (usize::from(buf[1]) << 16) | (usize::from(buf[2]) << 8) | usize::from(buf[3]);
    if len > MAX_HANDSHAKE_MESSAGE {
        return Err(Error::protocol(
            AlertDescription::DecodeError,
            format!("handshake message of {len} bytes (at most 64 KiB)"),
        ));
    }
    if buf.len() < 4 + len {
        return Ok(None);
    }
    Ok(Some((buf[0], &buf[4..4 + len], 4 + len)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips() {
        let ch = ClientHello {
            random: [1; 32],
            session_id: vec![2; 32],
            suites: vec![0xE013, 0xE051],
        };
        let m = ch.encode().unwrap();
        let (t, body, n) = next_message(&m).unwrap().unwrap();
        assert_eq!((t, n), (hs::CLIENT_HELLO, m.len()));
        assert_eq!(ClientHello::parse(body).unwrap(), ch);
        let sh = ServerHello {
            random: [3; 32],
            session_id: vec![],
            suite: 0xE053,
        };
        let m = sh.encode().unwrap();
        assert_eq!(ServerHello::parse(&m[4..]).unwrap(), sh);
    }

    #[test]
    fn hello_rejects() {
        let ch = ClientHello {
            random: [1; 32],
            session_id: vec![],
            suites: vec![0xE013],
        };
        let m = ch.encode().unwrap();
        let body = &m[4..];
        // Every truncation fails, never panics.
        for n in 0..body.len() {
            assert!(ClientHello::parse(&body[..n]).is_err(), "{n}");
        }
        let mut v = body.to_vec();
        v[1] = 3; // 0x0103
        assert_eq!(
            ClientHello::parse(&v).unwrap_err().alert(),
            Some(AlertDescription::ProtocolVersion)
        );
        let mut v = body.to_vec();
        v.push(0);
        assert!(ClientHello::parse(&v).is_err());
        // Extensions are accepted and ignored.
        let mut v = body.to_vec();
        v.extend_from_slice(&[0, 4, 0, 1, 0, 0]);
        assert!(ClientHello::parse(&v).is_ok());
    }

    #[test]
    fn certificate_lists() {
        let m = encode_certificate(&[vec![1, 2], vec![3]]).unwrap();
        assert_eq!(
            parse_certificate(&m[4..]).unwrap(),
            vec![vec![1, 2], vec![3]]
        );
        let many: Vec<Vec<u8>> = (0..11).map(|_| vec![1]).collect();
        let m = encode_certificate(&many).unwrap();
        assert!(parse_certificate(&m[4..]).is_err());
        assert!(parse_certificate(&[0, 0, 5, 0, 0, 1]).is_err());
    }

    #[test]
    fn ecdh_params() {
        let mut p = [4u8; 65];
        p[1] = 9;
        let m = encode_cke_ecdhe(&p).unwrap();
        assert_eq!(&m[4..8], &[3, 0, 0x29, 65]);
        assert_eq!(parse_cke_ecdhe(&m[4..]).unwrap(), p.to_vec());
        let mut bad = m[4..].to_vec();
        bad[2] = 30;
        assert_eq!(
            parse_cke_ecdhe(&bad).unwrap_err().alert(),
            Some(AlertDescription::IllegalParameter)
        );
    }

    #[test]
    fn oversized_message_header() {
        assert!(next_message(&[11, 0x01, 0x00, 0x01]).is_err());
        assert!(next_message(&[11, 0x01, 0x00, 0x00]).unwrap().is_none());
    }
}
