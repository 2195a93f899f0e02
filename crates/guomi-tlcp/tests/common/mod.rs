//! Helpers shared by the live interop tests: blocking-socket drivers and a child guard.
#![allow(dead_code)]

use guomi_core::sm2::PrivateKey;
use guomi_formats::sm2_keys::PrivateKeyEncoding;
use guomi_formats::x509::{Certificate, CertificateBuilder, GeneralNameValue, KeyUsageFlags};
use guomi_tlcp::{CertifiedKey, Connection};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Drives the handshake over a blocking socket.
pub fn handshake(conn: &mut Connection, s: &mut TcpStream) -> Result<(), String> {
    let mut buf = vec![0u8; 32768];
    loop {
        let out = conn.write_tls();
        if !out.is_empty() {
            s.write_all(&out).map_err(|e| e.to_string())?;
        }
        if !conn.is_handshaking() {
            return match conn.error() {
                Some(e) => Err(e.to_string()),
                None => Ok(()),
            };
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("EOF during handshake".into());
        }
        let mut off = 0;
        while off < n {
            off += conn.read_tls(&buf[off..n]);
            if let Err(e) = conn.process() {
                let _ = s.write_all(&conn.write_tls());
                return Err(e.to_string());
            }
        }
    }
}

/// Reads until `want` bytes of application data arrived.
pub fn read_app(conn: &mut Connection, s: &mut TcpStream, want: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = vec![0u8; 32768];
    while got.len() < want {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "EOF");
        let mut off = 0;
        while off < n {
            off += conn.read_tls(&buf[off..n]);
            conn.process().unwrap();
        }
        conn.recv(&mut got);
    }
    got
}

/// Reads application data until it ends with a newline (peers may split a write into
/// several records: gmtls sends 1/n-1 records with CBC below TLS 1.1's version number).
pub fn read_line(conn: &mut Connection, s: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    while !got.ends_with(b"\n") {
        got.extend(read_app(conn, s, 1));
    }
    got
}

/// Kills and reaps the child process it holds when dropped.
pub struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn connect_retry(port: u16) -> TcpStream {
    let start = Instant::now();
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => return s,
            Err(_) if start.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => panic!("connect: {e}"),
        }
    }
}

/// A fresh temporary directory for one test.
pub fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("guomi-tlcp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// guomi's own PKI: a CA, and an identity (signing + encryption) under it.
pub fn guomi_identity(dir: &Path, who: &str) -> (Certificate, CertifiedKey) {
    let ca_key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=guomi test CA",
        ca_key.public_key().clone(),
        now() - 3600,
        now() + 86400,
    )
    .unwrap();
    b.ca(None);
    let ca = b.self_sign(&ca_key).unwrap();
    std::fs::write(dir.join("guomi_ca.pem"), ca.to_pem().unwrap()).unwrap();
    let make = |usage: u16, tag: &str| {
        let k = PrivateKey::generate().unwrap();
        let mut b = CertificateBuilder::new(
            &format!("CN={who} {tag}"),
            k.public_key().clone(),
            now() - 3600,
            now() + 86400,
        )
        .unwrap();
        b.key_usage = Some(KeyUsageFlags(usage));
        // GmSSL 3.1.1 rejects the empty basicConstraints SEQUENCE that is the DER of
        // cA=FALSE (x509_basic_constraints_from_der: dlen == 0 is an error): leave the
        // extension out of end-entity certificates it must read.
        b.basic_constraints = None;
        b.subject_alt_names = vec![GeneralNameValue::Dns("localhost".into())];
        (b.sign(&ca, &ca_key).unwrap(), k)
    };
    let (sc, sk) = make(1, "sign");
    let (ec, ek) = make((1 << 2) | (1 << 4), "enc");
    std::fs::write(
        dir.join(format!("guomi_{who}_sign.pem")),
        sc.to_pem().unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join(format!("guomi_{who}_enc.pem")),
        ec.to_pem().unwrap(),
    )
    .unwrap();
    // Unencrypted PKCS#8 PEM keys, for peers that read those (gmtls-peer).
    std::fs::write(
        dir.join(format!("guomi_{who}_sign.key")),
        sk.to_pkcs8_pem().as_bytes(),
    )
    .unwrap();
    std::fs::write(
        dir.join(format!("guomi_{who}_enc.key")),
        ek.to_pkcs8_pem().as_bytes(),
    )
    .unwrap();
    (ca.clone(), CertifiedKey::new(vec![sc], sk, ec, ek).unwrap())
}
