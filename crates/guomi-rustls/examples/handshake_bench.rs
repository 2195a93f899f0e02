//! Handshakes per second and record throughput of the RFC 8998 provider, in memory (no
//! sockets), one thread: full handshakes for each suite, ticket resumptions, and 16 KiB
//! application-data records. Client-side and server-side work are timed apart (each
//! side's own calls into rustls), so each side's handshakes/s is what one core doing only
//! that side would reach. Medians over rounds; run with `--release`:
//!
//! `cargo run --release -p guomi-rustls --example handshake_bench [rounds]`

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use guomi_core::sm2::PrivateKey;
use guomi_formats::sm2_keys::PrivateKeyEncoding;
use guomi_formats::x509::{CertificateBuilder, GeneralNameValue};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, HandshakeKind, ServerConfig, ServerConnection};

fn pki() -> (
    guomi_formats::x509::Certificate,
    Vec<CertificateDer<'static>>,
    PrivateKeyDer<'static>,
) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let ca_key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=bench CA",
        ca_key.public_key().clone(),
        now - 60,
        now + 86_400,
    )
    .unwrap();
    b.ca(None);
    let ca = b.self_sign(&ca_key).unwrap();
    let key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=localhost",
        key.public_key().clone(),
        now - 60,
        now + 86_400,
    )
    .unwrap();
    b.subject_alt_names = vec![GeneralNameValue::Dns("localhost".into())];
    let leaf = b.sign(&ca, &ca_key).unwrap();
    let chain = vec![
        CertificateDer::from(leaf.to_der().to_vec()),
        CertificateDer::from(ca.to_der().to_vec()),
    ];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.to_pkcs8_der().to_vec()));
    (ca, chain, key)
}

#[derive(Default)]
struct Times {
    client: Duration,
    server: Duration,
}

fn step(c: &mut ClientConnection, s: &mut ServerConnection, t: &mut Times) -> bool {
    let mut moved = false;
    let start = Instant::now();
    let mut buf = Vec::new();
    while c.wants_write() {
        c.write_tls(&mut buf).unwrap();
    }
    t.client += start.elapsed();
    if !buf.is_empty() {
        moved = true;
        let start = Instant::now();
        let mut rd = &buf[..];
        while !rd.is_empty() {
            s.read_tls(&mut rd).unwrap();
            s.process_new_packets().unwrap();
        }
        t.server += start.elapsed();
    }
    let start = Instant::now();
    let mut buf = Vec::new();
    while s.wants_write() {
        s.write_tls(&mut buf).unwrap();
    }
    t.server += start.elapsed();
    if !buf.is_empty() {
        moved = true;
        let start = Instant::now();
        let mut rd = &buf[..];
        while !rd.is_empty() {
            c.read_tls(&mut rd).unwrap();
            c.process_new_packets().unwrap();
        }
        t.client += start.elapsed();
    }
    moved
}

/// One handshake (plus the server's tickets reaching the client); its times.
fn handshake(client: &Arc<ClientConfig>, server: &Arc<ServerConfig>, want: HandshakeKind) -> Times {
    let mut t = Times::default();
    let start = Instant::now();
    let mut c =
        ClientConnection::new(client.clone(), ServerName::try_from("localhost").unwrap()).unwrap();
    t.client += start.elapsed();
    let start = Instant::now();
    let mut s = ServerConnection::new(server.clone()).unwrap();
    t.server += start.elapsed();
    while step(&mut c, &mut s, &mut t) {}
    assert_eq!(c.handshake_kind(), Some(want));
    t
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn provider_with(suite: rustls::SupportedCipherSuite) -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        cipher_suites: vec![suite],
        ..guomi_rustls::provider()
    })
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("rounds"))
        .unwrap_or(15);
    let per_round = 40;
    let (ca, chain, key) = pki();
    let server = Arc::new(guomi_rustls::server_config(chain, key).unwrap());
    println!(
        "guomi-rustls {} on rustls 0.23; {rounds} rounds x {per_round} handshakes, medians",
        env!("CARGO_PKG_VERSION")
    );
    println!(
        "{:<42} {:>12} {:>12} {:>12}",
        "", "client hs/s", "server hs/s", "both, 1 core"
    );
    for (name, suite) in [
        ("TLS_SM4_GCM_SM3", guomi_rustls::suites::TLS_SM4_GCM_SM3),
        ("TLS_SM4_CCM_SM3", guomi_rustls::suites::TLS_SM4_CCM_SM3),
    ] {
        let verifier = Arc::new(guomi_rustls::Sm2ServerVerifier::new(vec![ca.clone()]).unwrap());
        let make = |resume: bool| {
            let mut c = ClientConfig::builder_with_provider(provider_with(suite))
                .with_protocol_versions(&[&rustls::version::TLS13])
                .unwrap()
                .dangerous()
                .with_custom_certificate_verifier(verifier.clone())
                .with_no_client_auth();
            if !resume {
                c.resumption = rustls::client::Resumption::disabled();
            }
            Arc::new(c)
        };
        for (label, client, kind) in [
            ("full", make(false), HandshakeKind::Full),
            (
                "resumed (SM4-GCM ticket)",
                make(true),
                HandshakeKind::Resumed,
            ),
        ] {
            if kind == HandshakeKind::Resumed {
                handshake(&client, &server, HandshakeKind::Full); // first ticket
            }
            let (mut cs, mut ss, mut both) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..rounds {
                let mut sum = Times::default();
                for _ in 0..per_round {
                    let t = handshake(&client, &server, kind);
                    sum.client += t.client;
                    sum.server += t.server;
                }
                let n = per_round as f64;
                cs.push(n / sum.client.as_secs_f64());
                ss.push(n / sum.server.as_secs_f64());
                both.push(n / (sum.client + sum.server).as_secs_f64());
            }
            println!(
                "{:<42} {:>12.0} {:>12.0} {:>12.0}",
                format!("{name} {label}"),
                median(cs),
                median(ss),
                median(both)
            );
        }
    }

    // Records: 16 KiB of application data each way through a connected pair.
    println!("\n{:<42} {:>12}", "16 KiB records, seal + open", "MB/s");
    for (name, suite) in [
        ("TLS_SM4_GCM_SM3", guomi_rustls::suites::TLS_SM4_GCM_SM3),
        ("TLS_SM4_CCM_SM3", guomi_rustls::suites::TLS_SM4_CCM_SM3),
    ] {
        let client = Arc::new(
            ClientConfig::builder_with_provider(provider_with(suite))
                .with_protocol_versions(&[&rustls::version::TLS13])
                .unwrap()
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(
                    guomi_rustls::Sm2ServerVerifier::new(vec![ca.clone()]).unwrap(),
                ))
                .with_no_client_auth(),
        );
        let mut c =
            ClientConnection::new(client, ServerName::try_from("localhost").unwrap()).unwrap();
        let mut s = ServerConnection::new(server.clone()).unwrap();
        let mut t = Times::default();
        while step(&mut c, &mut s, &mut t) {}
        let data = vec![0x42u8; 16 * 1024];
        let mut sink = vec![0u8; 16 * 1024];
        let mut rates = Vec::new();
        for _ in 0..rounds {
            let n = 256;
            let start = Instant::now();
            for _ in 0..n {
                c.writer().write_all(&data).unwrap();
                let mut wire = Vec::with_capacity(17 * 1024);
                while c.wants_write() {
                    c.write_tls(&mut wire).unwrap();
                }
                let mut rd = &wire[..];
                while !rd.is_empty() {
                    s.read_tls(&mut rd).unwrap();
                    s.process_new_packets().unwrap();
                }
                s.reader().read_exact(&mut sink).unwrap();
            }
            let secs = start.elapsed().as_secs_f64();
            rates.push((n * data.len()) as f64 / secs / 1e6);
        }
        println!("{:<42} {:>12.0}", name, median(rates));
    }
}
