//! `conn`: configurations from options and the byte-driven `Connection` both bindings use:
//! every suite, client authentication, resumption by ticket, name and trust failures with
//! their alerts, an unverified client, and the option bounds.

mod common;

use std::sync::Arc;

use common::pki;
use guomi_rustls::conn::{
    self, alert_for, ClientAuth, ClientOptions, Connection, ServerOptions, MAX_SESSION_CACHE,
};
use rustls::{AlertDescription, Error};

fn client_opts(p: &common::Pki) -> ClientOptions {
    ClientOptions {
        roots: p.roots(),
        crls: vec![],
        require_crls: false,
        verify_peer: true,
        check_hostname: true,
        suites: vec![0x00C6, 0x00C7],
        identity: None,
        session_cache_size: 8,
    }
}

fn server_opts(p: &common::Pki) -> ServerOptions {
    ServerOptions {
        identity: (
            vec![p.server.cert.clone(), p.intermediate.cert.clone()],
            p.server.key.clone(),
        ),
        suites: vec![0x00C6, 0x00C7],
        client_auth: ClientAuth::None,
        client_roots: p.roots(),
        crls: vec![],
        require_crls: false,
        session_cache_size: 8,
    }
}

/// Runs both ends to completion; returns them or the first error (false: the client's).
fn handshake(c: &mut Connection, s: &mut Connection) -> Result<(), (bool, Error)> {
    for _ in 0..20 {
        let to_s = c.write_tls();
        let mut rest = &to_s[..];
        while !rest.is_empty() {
            let n = s.read_tls(rest);
            rest = &rest[n..];
            s.process().map_err(|e| (true, e))?;
        }
        let to_c = s.write_tls();
        let mut rest = &to_c[..];
        while !rest.is_empty() {
            let n = c.read_tls(rest);
            rest = &rest[n..];
            c.process().map_err(|e| (false, e))?;
        }
        if !c.is_handshaking() && !s.is_handshaking() && !c.wants_write() && !s.wants_write() {
            return Ok(());
        }
    }
    panic!("no progress");
}

fn exchange(c: &mut Connection, s: &mut Connection, data: &[u8]) -> Vec<u8> {
    c.send(data).unwrap();
    let bytes = c.write_tls();
    assert_eq!(s.read_tls(&bytes), bytes.len());
    s.process().unwrap();
    let mut out = Vec::new();
    s.recv(&mut out);
    // The server's tickets travel back.
    let back = s.write_tls();
    c.read_tls(&back);
    c.process().unwrap();
    out
}

#[test]
fn suites_resumption_and_close() {
    let p = pki();
    for suite in [0x00C6u16, 0x00C7] {
        let mut o = client_opts(&p);
        o.suites = vec![suite];
        let client = Arc::new(conn::client_config(o).unwrap());
        let server = Arc::new(conn::server_config(server_opts(&p)).unwrap());
        for round in 0..2 {
            let mut c = Connection::client(client.clone(), Some("localhost")).unwrap();
            let mut s = Connection::server(server.clone()).unwrap();
            handshake(&mut c, &mut s).unwrap();
            assert_eq!(c.negotiated_suite(), Some(suite));
            assert_eq!(c.protocol_version(), Some(0x0304));
            assert_eq!(s.server_name(), Some("localhost"));
            assert_eq!(c.peer_certificates().len(), 2);
            assert_eq!(c.is_resumed(), round == 1, "round {round}");
            assert_eq!(exchange(&mut c, &mut s, b"ping"), b"ping");
            c.close();
            let bye = c.write_tls();
            s.read_tls(&bye);
            s.process().unwrap();
            assert!(s.peer_closed());
            assert_eq!(s.recv(&mut Vec::new()), 0);
        }
    }
}

#[test]
fn client_authentication() {
    let p = pki();
    let mut so = server_opts(&p);
    so.client_auth = ClientAuth::Required;
    let server = Arc::new(conn::server_config(so).unwrap());
    let mut co = client_opts(&p);
    co.identity = Some((
        vec![p.client.cert.clone(), p.intermediate.cert.clone()],
        p.client.key.clone(),
    ));
    let client = Arc::new(conn::client_config(co).unwrap());
    let mut c = Connection::client(client, Some("localhost")).unwrap();
    let mut s = Connection::server(server.clone()).unwrap();
    handshake(&mut c, &mut s).unwrap();
    assert_eq!(s.peer_certificates()[0], p.client.cert.to_der());

    let anonymous = Arc::new(conn::client_config(client_opts(&p)).unwrap());
    let mut c = Connection::client(anonymous, Some("localhost")).unwrap();
    let mut s = Connection::server(server).unwrap();
    let (server_failed, e) = handshake(&mut c, &mut s).unwrap_err();
    assert!(server_failed);
    assert_eq!(alert_for(&e), Some(AlertDescription::CertificateRequired));
    // The error is sticky.
    assert_eq!(s.process().unwrap_err(), e);
    assert!(s.send(b"x").is_err());
}

#[test]
fn names_trust_and_unverified() {
    let p = pki();
    let server = Arc::new(conn::server_config(server_opts(&p)).unwrap());
    let client = Arc::new(conn::client_config(client_opts(&p)).unwrap());
    let mut c = Connection::client(client, Some("other.test")).unwrap();
    let mut s = Connection::server(server.clone()).unwrap();
    let (server_failed, e) = handshake(&mut c, &mut s).unwrap_err();
    assert!(!server_failed);
    assert!(matches!(e, Error::InvalidCertificate(_)), "{e:?}");
    assert_eq!(alert_for(&e), Some(AlertDescription::BadCertificate));
    // The server hears the alert.
    let alert = c.write_tls();
    s.read_tls(&alert);
    let e = s.process().unwrap_err();
    assert_eq!(alert_for(&e), Some(AlertDescription::BadCertificate));
    assert_eq!(e, Error::AlertReceived(AlertDescription::BadCertificate));

    // Another CA of the same name: the chain's signature fails (decrypt_error, as
    // rustls maps BadSignature).
    let stranger = common::pki();
    let other = Arc::new(conn::client_config(client_opts(&stranger)).unwrap());
    let mut c = Connection::client(other, Some("localhost")).unwrap();
    let mut s = Connection::server(server.clone()).unwrap();
    let (server_failed, e) = handshake(&mut c, &mut s).unwrap_err();
    assert!(!server_failed);
    assert!(matches!(e, Error::InvalidCertificate(_)), "{e:?}");
    assert_eq!(alert_for(&e), Some(AlertDescription::DecryptError));

    // No path validation, no name: still a complete, encrypted connection.
    let mut o = client_opts(&stranger);
    o.verify_peer = false;
    o.check_hostname = false;
    let unverified = Arc::new(conn::client_config(o).unwrap());
    let mut c = Connection::client(unverified, None).unwrap();
    let mut s = Connection::server(server).unwrap();
    handshake(&mut c, &mut s).unwrap();
    assert_eq!(s.server_name(), None);
    assert_eq!(exchange(&mut c, &mut s, b"anyway"), b"anyway");
}

#[test]
fn option_bounds() {
    let p = pki();
    let mut o = client_opts(&p);
    o.suites = vec![0x1301];
    assert!(conn::client_config(o).is_err());
    let mut o = client_opts(&p);
    o.suites = vec![];
    assert!(conn::client_config(o).is_err());
    let mut o = client_opts(&p);
    o.session_cache_size = MAX_SESSION_CACHE + 1;
    assert!(conn::client_config(o).is_err());
    let mut o = client_opts(&p);
    o.verify_peer = false; // check_hostname without verification makes no sense
    assert!(conn::client_config(o).is_err());
    let mut o = client_opts(&p);
    o.roots = vec![];
    assert!(conn::client_config(o).is_err());
    let mut so = server_opts(&p);
    so.identity.1 = p.client.key.clone(); // not the leaf's key
    assert!(conn::server_config(so).is_err());
    let mut so = server_opts(&p);
    so.identity.0 = vec![];
    assert!(conn::server_config(so).is_err());
    let client = Arc::new(conn::client_config(client_opts(&p)).unwrap());
    assert!(Connection::client(client, Some("not a name!")).is_err());
    // No session cache: no tickets, no resumption.
    let mut so = server_opts(&p);
    so.session_cache_size = 0;
    let server = Arc::new(conn::server_config(so).unwrap());
    let client = Arc::new(conn::client_config(client_opts(&p)).unwrap());
    for _ in 0..2 {
        let mut c = Connection::client(client.clone(), Some("localhost")).unwrap();
        let mut s = Connection::server(server.clone()).unwrap();
        handshake(&mut c, &mut s).unwrap();
        exchange(&mut c, &mut s, b"x");
        assert!(!c.is_resumed());
    }
}
