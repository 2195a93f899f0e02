//! The TLCP handshake state machines and message parsers (guomi-tlcp), both sides.
//! Layout: selector, prefix count, body.
//!
//! Selector bit 0: 0 = a server, 1 = a client. Bit 1: 0 = the body is raw TLS bytes;
//! 1 = the body is a sequence of handshake messages (type byte, u16 length, body),
//! each framed as a plaintext handshake record (the state-machine fuzzer: arbitrary
//! message sequences). Bits 2-3: the suite both sides allow. Before the body, the peer
//! is fed the first `prefix count % 8` records of a real handshake with a real
//! counterpart (so the body lands in later states: after the ClientHello, after part of
//! the server's flight, ...).
//!
//! Invariants: nothing panics; an error is sticky (a second `process` fails too); a
//! connection never reports a completed handshake without a suite.
#![no_main]

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{Certificate, CertificateBuilder, GeneralNameValue, KeyUsageFlags};
use guomi_fuzz::*;
use guomi_tlcp::{
    CertifiedKey, CipherSuite, ClientAuth, ClientConfig, ClientConnection, Connection,
    ServerConfig, ServerConnection, Trust,
};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

const NB: i64 = 1_700_000_000;
const NA: i64 = 1_900_000_000;
const AT: i64 = 1_800_000_000;

struct Pki {
    root: Certificate,
    server: CertifiedKey,
    client: CertifiedKey,
}

fn pki() -> &'static Pki {
    static P: OnceLock<Pki> = OnceLock::new();
    P.get_or_init(|| {
        let kr = PrivateKey::from_bytes(&[1; 32]).unwrap();
        let mut b =
            CertificateBuilder::new("CN=Fuzz TLCP Root", kr.public_key().clone(), NB, NA).unwrap();
        b.ca(None);
        let root = b.self_sign(&kr).unwrap();
        let leaf = |d: u8, name: &str, usage: u16| {
            let k = PrivateKey::from_bytes(&[d; 32]).unwrap();
            let mut b = CertificateBuilder::new(name, k.public_key().clone(), NB, NA).unwrap();
            b.key_usage = Some(KeyUsageFlags(usage));
            b.subject_alt_names = vec![GeneralNameValue::Dns("tlcp.example".into())];
            (b.sign(&root, &kr).unwrap(), k)
        };
        let id = |d: u8, who: &str| {
            let (sc, sk) = leaf(d, &format!("CN={who} sign"), 1);
            let (ec, ek) = leaf(d + 1, &format!("CN={who} enc"), (1 << 2) | (1 << 4));
            CertifiedKey::new(vec![sc], sk, ec, ek).unwrap()
        };
        let server = id(2, "server");
        let client = id(4, "client");
        Pki {
            root,
            server,
            client,
        }
    })
}

fn trust() -> Trust {
    Trust {
        roots: vec![pki().root.clone()],
        time: Some(AT),
        ..Trust::default()
    }
}

fn configs(suite: CipherSuite) -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let mut cc = ClientConfig::new(vec![]);
    cc.trust = trust();
    cc.identity = Some(pki().client.clone());
    cc.suites = vec![suite];
    let mut sc = ServerConfig::new(pki().server.clone());
    sc.suites = vec![suite];
    sc.client_auth = ClientAuth::Optional;
    sc.client_trust = trust();
    (Arc::new(cc), Arc::new(sc))
}

/// Splits a byte stream into whole records.
fn records(mut b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while b.len() >= 5 {
        let n = 5 + usize::from(u16::from_be_bytes([b[3], b[4]]));
        if b.len() < n {
            break;
        }
        out.push(b[..n].to_vec());
        b = &b[n..];
    }
    out
}

fn feed(conn: &mut Connection, bytes: &[u8]) {
    let mut off = 0;
    while off < bytes.len() {
        let n = conn.read_tls(&bytes[off..]);
        off += n;
        if conn.process().is_err() {
            assert!(conn.process().is_err(), "errors are sticky");
            return;
        }
        if n == 0 {
            return;
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let prefix = usize::from(c.u8() % 8);
    let suite = CipherSuite::ALL[usize::from((sel >> 2) & 3)];
    let (cc, sc) = configs(suite);
    let client_side = sel & 1 == 1;
    let framed = sel & 2 == 2;

    // A real counterpart, to reach later states.
    let mut real_client = ClientConnection::new(cc.clone(), Some("tlcp.example")).unwrap();
    let mut real_server = ServerConnection::new(sc.clone()).unwrap();
    let mut target: Connection;
    if client_side {
        let mut me = ClientConnection::new(cc, Some("tlcp.example")).unwrap();
        let hello = me.write_tls();
        real_server.read_tls(&hello);
        let _ = real_server.process();
        let flight = records(&real_server.write_tls());
        for r in flight.iter().take(prefix) {
            feed(&mut me, r);
        }
        target = take(me);
    } else {
        let mut me = ServerConnection::new(sc).unwrap();
        if prefix > 0 {
            feed(&mut me, &real_client.write_tls());
            let flight = me.write_tls();
            real_client.read_tls(&flight);
            let _ = real_client.process();
            let second = records(&real_client.write_tls());
            for r in second.iter().take(prefix - 1) {
                feed(&mut me, r);
            }
        }
        target = take_server(me);
    }

    let body = c.rest();
    if framed {
        let mut m = Cursor::new(body);
        let mut bytes = Vec::new();
        while !m.is_empty() {
            let typ = m.u8();
            let msg = m.bytes16();
            let mut hs = vec![typ, 0, (msg.len() >> 8) as u8, msg.len() as u8];
            hs.extend_from_slice(msg);
            for chunk in hs.chunks(1 << 14) {
                bytes.extend_from_slice(&[22, 1, 1, (chunk.len() >> 8) as u8, chunk.len() as u8]);
                bytes.extend_from_slice(chunk);
            }
        }
        feed(&mut target, &bytes);
    } else {
        feed(&mut target, body);
    }
    if !target.is_handshaking() && target.error().is_none() {
        assert!(target.negotiated_suite().is_some());
    }
    let _ = target.write_tls();
});

fn take(c: ClientConnection) -> Connection {
    c.into_inner()
}

fn take_server(s: ServerConnection) -> Connection {
    s.into_inner()
}
