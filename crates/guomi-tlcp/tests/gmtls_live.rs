//! Live interop with tjfoc gmsm v1.4.1's gmtls (the `gmtls-peer` program of
//! `tests/interop/peers/go_gmtls`) over loopback, ECC_SM4_CBC_SM3 (gmtls's ECDHE server
//! is a stub and its client does plain ECDH, and it has no GCM suites). Ignored by
//! default: `cargo test -p guomi-tlcp --test gmtls_live -- --ignored`. The peer is
//! `$GUOMI_GMTLS_PEER`, else the one `tests/interop` builds
//! (`tests/interop/.build/go_gmtls/gmtls-peer` under the repository root).

mod common;

use common::*;
use guomi_tlcp::{
    CipherSuite, ClientAuth, ClientConfig, ClientConnection, ServerConfig, ServerConnection,
};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

fn peer() -> PathBuf {
    if let Some(p) = std::env::var_os("GUOMI_GMTLS_PEER") {
        return p.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop/.build/go_gmtls/gmtls-peer")
}

fn guomi_client_to_gmtls_server(client_auth: bool) {
    let dir = tempdir(if client_auth {
        "gmtls-srv-auth"
    } else {
        "gmtls-srv"
    });
    let (ca, _server_id) = guomi_identity(&dir, "server");
    std::fs::rename(dir.join("guomi_ca.pem"), dir.join("server_ca.pem")).unwrap();
    let (_client_ca, client_id) = guomi_identity(&dir, "client");
    let mut args = vec![
        "server",
        "-port",
        "0",
        "-sign-cert",
        "guomi_server_sign.pem",
        "-sign-key",
        "guomi_server_sign.key",
        "-enc-cert",
        "guomi_server_enc.pem",
        "-enc-key",
        "guomi_server_enc.key",
        "-once",
    ];
    if client_auth {
        args.extend(["-client-auth", "verify", "-ca", "guomi_ca.pem"]);
    }
    let mut child = Child(
        Command::new(peer())
            .args(&args)
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run gmtls-peer (set GUOMI_GMTLS_PEER)"),
    );
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("\"listening\""), "{line}");
    let port: u16 = line
        .split("\"port\":")
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches('}')
        .parse()
        .unwrap();
    let mut cc = ClientConfig::new(vec![ca]);
    if client_auth {
        cc.identity = Some(client_id);
    }
    let mut s = connect_retry(port);
    let mut c = ClientConnection::new(Arc::new(cc), Some("localhost")).unwrap();
    handshake(&mut c, &mut s).unwrap();
    assert_eq!(c.negotiated_suite(), Some(CipherSuite::EccSm4CbcSm3));
    assert_eq!(c.peer_certificates().len(), 2);
    let msg = b"hello gmtls from guomi\n";
    c.send(msg).unwrap();
    s.write_all(&c.write_tls()).unwrap();
    assert_eq!(read_app(&mut c, &mut s, msg.len()), msg);
    c.close();
    let _ = s.write_all(&c.write_tls());
    let mut events = String::new();
    while out.read_line(&mut events).unwrap_or(0) > 0 {}
    assert!(events.contains("\"handshake\""), "{events}");
}

#[test]
#[ignore = "needs the gmtls-peer program (tests/interop)"]
fn guomi_client_gmtls_server() {
    guomi_client_to_gmtls_server(false);
}

#[test]
#[ignore = "needs the gmtls-peer program (tests/interop)"]
fn guomi_client_gmtls_server_client_auth() {
    guomi_client_to_gmtls_server(true);
}

#[test]
#[ignore = "needs the gmtls-peer program (tests/interop)"]
fn gmtls_client_guomi_server() {
    let dir = tempdir("gmtls-cli");
    let (_ca, id) = guomi_identity(&dir, "server");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let mut sc = ServerConfig::new(id);
    sc.client_auth = ClientAuth::None;
    let sc = Arc::new(sc);
    let server = std::thread::spawn(move || -> Result<_, String> {
        let (mut s, _) = listener.accept().map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut conn = ServerConnection::new(sc).unwrap();
        handshake(&mut conn, &mut s)?;
        let suite = conn.negotiated_suite();
        let line = read_line(&mut conn, &mut s);
        conn.send(&line).unwrap();
        s.write_all(&conn.write_tls()).unwrap();
        Ok((suite, line))
    });
    let out = Command::new(peer())
        .args([
            "client",
            "-port",
            &port,
            "-ca",
            "guomi_ca.pem",
            "-server-name",
            "localhost",
            "-message",
            "hi from gmtls",
        ])
        .current_dir(&dir)
        .output()
        .expect("run gmtls-peer (set GUOMI_GMTLS_PEER)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result = server.join().unwrap();
    let (suite, line) =
        result.unwrap_or_else(|e| panic!("guomi server: {e}; gmtls-peer: {stdout}"));
    assert_eq!(suite, Some(CipherSuite::EccSm4CbcSm3));
    assert_eq!(line, b"hi from gmtls\n");
    assert!(
        stdout.contains("\"reply\"") && stdout.contains("hi from gmtls"),
        "{stdout}"
    );
}
