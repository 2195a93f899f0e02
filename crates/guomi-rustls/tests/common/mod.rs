//! Shared test fixtures: a small SM2 PKI made with guomi-formats's builders, and an
//! in-memory pump between a rustls client and server.
#![allow(dead_code)]

use std::ops::DerefMut;
use std::sync::Arc;

use guomi_core::sm2::PrivateKey;
use guomi_formats::sm2_keys::PrivateKeyEncoding;
use guomi_formats::x509::{oid, Certificate, CertificateBuilder, GeneralNameValue};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{
    ClientConfig, ClientConnection, ConnectionCommon, Error, ServerConfig, ServerConnection,
};

/// Now, as Unix seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

const DAY: i64 = 86_400;

/// A certificate with its key.
pub struct Issued {
    pub cert: Certificate,
    pub key: PrivateKey,
}

impl Issued {
    pub fn der(&self) -> CertificateDer<'static> {
        CertificateDer::from(self.cert.to_der().to_vec())
    }

    pub fn key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.to_pkcs8_der().to_vec()))
    }
}

/// Root CA -> intermediate CA -> server and client leaves.
pub struct Pki {
    pub root: Issued,
    pub intermediate: Issued,
    pub server: Issued,
    pub client: Issued,
}

pub fn ca(name: &str) -> Issued {
    let key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        name,
        key.public_key().clone(),
        now() - DAY,
        now() + 30 * DAY,
    )
    .unwrap();
    b.ca(None);
    Issued {
        cert: b.self_sign(&key).unwrap(),
        key,
    }
}

pub fn sub_ca(name: &str, issuer: &Issued) -> Issued {
    let key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        name,
        key.public_key().clone(),
        now() - DAY,
        now() + 30 * DAY,
    )
    .unwrap();
    b.ca(Some(0));
    Issued {
        cert: b.sign(&issuer.cert, &issuer.key).unwrap(),
        key,
    }
}

/// A leaf for `purpose` with the given names, valid from `from` to `to` (Unix seconds).
pub fn leaf_with(
    name: &str,
    issuer: &Issued,
    purpose: guomi_formats::x509::ObjectIdentifier,
    sans: Vec<GeneralNameValue>,
    from: i64,
    to: i64,
) -> Issued {
    let key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(name, key.public_key().clone(), from, to).unwrap();
    b.extended_key_usage = vec![purpose];
    b.subject_alt_names = sans;
    Issued {
        cert: b.sign(&issuer.cert, &issuer.key).unwrap(),
        key,
    }
}

pub fn server_sans() -> Vec<GeneralNameValue> {
    vec![
        GeneralNameValue::Dns("localhost".into()),
        GeneralNameValue::Dns("*.example.test".into()),
        GeneralNameValue::Ip(vec![127, 0, 0, 1]),
    ]
}

pub fn pki() -> Pki {
    let root = ca("CN=guomi test root,O=guomi");
    let intermediate = sub_ca("CN=guomi test intermediate,O=guomi", &root);
    let server = leaf_with(
        "CN=localhost",
        &intermediate,
        oid::SERVER_AUTH,
        server_sans(),
        now() - DAY,
        now() + 10 * DAY,
    );
    let client = leaf_with(
        "CN=guomi client",
        &intermediate,
        oid::CLIENT_AUTH,
        vec![],
        now() - DAY,
        now() + 10 * DAY,
    );
    Pki {
        root,
        intermediate,
        server,
        client,
    }
}

impl Pki {
    pub fn server_chain(&self) -> Vec<CertificateDer<'static>> {
        vec![self.server.der(), self.intermediate.der()]
    }

    pub fn client_chain(&self) -> Vec<CertificateDer<'static>> {
        vec![self.client.der(), self.intermediate.der()]
    }

    pub fn roots(&self) -> Vec<Certificate> {
        vec![self.root.cert.clone()]
    }
}

/// Which side failed, and how.
#[derive(Debug)]
pub enum Failure {
    Client(Error),
    Server(Error),
}

impl Failure {
    pub fn client(self) -> Error {
        match self {
            Failure::Client(e) => e,
            Failure::Server(e) => panic!("expected the client to fail, the server did: {e:?}"),
        }
    }

    pub fn server(self) -> Error {
        match self {
            Failure::Server(e) => e,
            Failure::Client(e) => panic!("expected the server to fail, the client did: {e:?}"),
        }
    }
}

/// Everything `from` wants to send.
pub fn take_tls<D>(from: &mut impl DerefMut<Target = ConnectionCommon<D>>) -> Vec<u8> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).unwrap();
    }
    buf
}

/// Feeds `data` to `to` and processes it.
pub fn feed<D>(
    to: &mut impl DerefMut<Target = ConnectionCommon<D>>,
    data: &[u8],
) -> Result<(), Error> {
    let mut rd = data;
    while !rd.is_empty() {
        to.read_tls(&mut rd).unwrap();
        to.process_new_packets()?;
    }
    Ok(())
}

/// Moves bytes both ways until neither side has anything to send.
pub fn pump(client: &mut ClientConnection, server: &mut ServerConnection) -> Result<(), Failure> {
    pump_with(client, server, |_, _| {})
}

/// As [`pump`], letting `tamper` edit each flight (`true` = client to server) in flight.
pub fn pump_with(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
    mut tamper: impl FnMut(bool, &mut Vec<u8>),
) -> Result<(), Failure> {
    for _ in 0..32 {
        let mut c2s = take_tls(client);
        let mut s2c = take_tls(server);
        if c2s.is_empty() && s2c.is_empty() {
            return Ok(());
        }
        if !c2s.is_empty() {
            tamper(true, &mut c2s);
            feed(server, &c2s).map_err(Failure::Server)?;
        }
        if !s2c.is_empty() {
            tamper(false, &mut s2c);
            feed(client, &s2c).map_err(Failure::Client)?;
        }
    }
    panic!("handshake did not settle");
}

pub fn connect(
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
    name: &str,
) -> (ClientConnection, ServerConnection) {
    let c = ClientConnection::new(
        client.clone(),
        ServerName::try_from(name.to_string()).unwrap(),
    )
    .unwrap();
    let s = ServerConnection::new(server.clone()).unwrap();
    (c, s)
}

/// Sends `msg` one way and returns what the peer reads (draining the peer's plaintext
/// as records arrive, since rustls buffers at most a few records of it).
pub fn send_recv<A, B>(
    from: &mut impl DerefMut<Target = ConnectionCommon<A>>,
    to: &mut impl DerefMut<Target = ConnectionCommon<B>>,
    msg: &[u8],
) -> Vec<u8> {
    use std::io::{Read, Write};
    from.writer().write_all(msg).unwrap();
    let bytes = take_tls(from);
    let mut rd = &bytes[..];
    let mut out = Vec::new();
    while !rd.is_empty() {
        to.read_tls(&mut rd).unwrap();
        to.process_new_packets().unwrap();
        let mut chunk = [0u8; 4096];
        loop {
            match to.reader().read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
        }
    }
    out
}
