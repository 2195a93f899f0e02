//! Live interop with GmSSL 3.1.1's `tls13_server` and `tls13_client` over loopback
//! (TLS_SM4_GCM_SM3, curveSM2, sm2sig_sm3; GmSSL implements only the GCM suite).
//!
//! What works: a rustls client against `tls13_server` (key schedule, SM4-GCM records,
//! curveSM2, sm2sig_sm3 with the RFC 8998 identifier and certificate checks both ways).
//! What cannot work with rustls 0.23, checked as expected failures: GmSSL reading
//! rustls's coalesced handshake flights (see `assert_gmssl_record_limitation`).
//!
//! Ignored by default: it needs the `gmssl` binary that `tests/interop/tls_peers.py`
//! builds into `tests/interop/.build/gmssl/build/bin/gmssl` (or `GUOMI_GMSSL`). Run with
//! `cargo test -p guomi-rustls --test gmssl_live -- --ignored`.
//!
//! GmSSL 3.1.1 fails on the change_cipher_spec records RFC 8446 D.4 allows (and rustls
//! always sends), so the rustls side writes through `compat::DropChangeCipherSpec`.
//!
//! Keys come from GmSSL's `sm2keygen` (its encrypted PKCS#8, which guomi-formats reads);
//! certificates from guomi-formats's builder, with SANs for the rustls client's name check
//! and no basicConstraints on the leaves (GmSSL 3.1.1 refuses an empty one).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use guomi_core::sm2::PrivateKey;
use guomi_formats::sm2_keys::PrivateKeyEncoding;
use guomi_formats::x509::{
    load_private_key_pem, Certificate, CertificateBuilder, GeneralNameValue, KeyUsageFlags,
};
use guomi_rustls::compat::DropChangeCipherSpec;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConnection, ServerConnection, StreamOwned};

const PASS: &str = "1234";
const TIMEOUT: Duration = Duration::from_secs(20);

fn gmssl() -> PathBuf {
    let p = std::env::var_os("GUOMI_GMSSL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/interop/.build/gmssl/build/bin/gmssl")
        });
    assert!(
        p.exists(),
        "no gmssl at {p:?}: build it with tests/interop/tls_peers.py or set GUOMI_GMSSL"
    );
    p
}

fn workdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("guomi-rustls-gmssl-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(dir: &Path, args: &[&str]) {
    let out = Command::new(gmssl())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gmssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A key made by `gmssl sm2keygen` (file `<who>key.pem`), loaded into guomi.
fn gmssl_key(dir: &Path, who: &str) -> PrivateKey {
    let file = format!("{who}key.pem");
    let pubf = format!("{who}pub.pem");
    run(
        dir,
        &["sm2keygen", "-pass", PASS, "-out", &file, "-pubout", &pubf],
    );
    let text = std::fs::read_to_string(dir.join(&file)).unwrap();
    load_private_key_pem(&text, Some(PASS.as_bytes())).unwrap()
}

struct Set {
    dir: PathBuf,
    ca: Certificate,
    server: Certificate,
    server_key: PrivateKey,
    client: Certificate,
    client_key: PrivateKey,
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn make_set(tag: &str) -> Set {
    let dir = workdir(tag);
    let ca_key = gmssl_key(&dir, "ca");
    let mut b = CertificateBuilder::new(
        "C=CN,O=guomi interop,CN=guomi rustls test CA",
        ca_key.public_key().clone(),
        now() - 3600,
        now() + 86_400,
    )
    .unwrap();
    b.ca(None);
    let ca = b.self_sign(&ca_key).unwrap();
    let leaf = |cn: &str, key: &PrivateKey, sans: Vec<GeneralNameValue>| {
        let mut b =
            CertificateBuilder::new(cn, key.public_key().clone(), now() - 3600, now() + 86_400)
                .unwrap();
        b.basic_constraints = None;
        b.key_usage = Some(KeyUsageFlags(1)); // digitalSignature
        b.subject_alt_names = sans;
        b.sign(&ca, &ca_key).unwrap()
    };
    let server_key = gmssl_key(&dir, "server");
    let server = leaf(
        "C=CN,O=guomi interop,CN=localhost",
        &server_key,
        vec![
            GeneralNameValue::Dns("localhost".into()),
            GeneralNameValue::Ip(vec![127, 0, 0, 1]),
        ],
    );
    let client_key = gmssl_key(&dir, "client");
    let client = leaf(
        "C=CN,O=guomi interop,CN=guomi rustls client",
        &client_key,
        vec![],
    );
    for (name, cert) in [
        ("ca.pem", &ca),
        ("server.pem", &server),
        ("client.pem", &client),
    ] {
        std::fs::write(dir.join(name), cert.to_pem().unwrap()).unwrap();
    }
    Set {
        dir,
        ca,
        server,
        server_key,
        client,
        client_key,
    }
}

fn der(c: &Certificate) -> CertificateDer<'static> {
    CertificateDer::from(c.to_der().to_vec())
}

fn key_der(k: &PrivateKey) -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(k.to_pkcs8_der().to_vec()))
}

/// A child process whose stdout and stderr are collected by threads.
struct Peer {
    child: Child,
    out: Arc<Mutex<Vec<u8>>>,
    err: Arc<Mutex<Vec<u8>>>,
}

impl Peer {
    fn spawn(dir: &Path, args: &[&str]) -> Peer {
        let mut child = Command::new(gmssl())
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let collect = |mut r: Box<dyn Read + Send>| {
            let buf = Arc::new(Mutex::new(Vec::new()));
            let b = buf.clone();
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = r.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    b.lock().unwrap().extend_from_slice(&chunk[..n]);
                }
            });
            buf
        };
        let out = collect(Box::new(child.stdout.take().unwrap()));
        let err = collect(Box::new(child.stderr.take().unwrap()));
        Peer { child, out, err }
    }

    fn text(&self) -> String {
        format!(
            "stdout: {}\nstderr: {}",
            String::from_utf8_lossy(&self.out.lock().unwrap()),
            String::from_utf8_lossy(&self.err.lock().unwrap())
        )
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// gmssl tls13_server <-> rustls client: handshake, one echoed line. `Err`: what went
/// wrong, with GmSSL's output.
fn rustls_client_to_gmssl(client_auth: bool) -> Result<(), String> {
    let set = make_set(if client_auth { "c-auth" } else { "c" });
    let port = free_port().to_string();
    let key = set.dir.join("serverkey.pem");
    let mut args = vec![
        "tls13_server",
        "-port",
        &port,
        "-cert",
        "server.pem",
        "-key",
        key.to_str().unwrap(),
        "-pass",
        PASS,
    ];
    if client_auth {
        args.extend(["-cacert", "ca.pem"]);
    }
    let server = Peer::spawn(&set.dir, &args);
    let deadline = Instant::now() + TIMEOUT;
    let tcp = loop {
        match TcpStream::connect(format!("127.0.0.1:{port}")) {
            Ok(s) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("gmssl tls13_server did not listen: {e}\n{}", server.text()),
        }
    };
    tcp.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut config = guomi_rustls::client_config(vec![set.ca.clone()]).unwrap();
    if client_auth {
        config.client_auth_cert_resolver = Arc::new(rustls::sign::SingleCertAndKey::from(
            guomi_rustls::certified_key(vec![der(&set.client)], &key_der(&set.client_key)).unwrap(),
        ));
    }
    let conn = ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
        .unwrap();
    let mut tls = StreamOwned::new(conn, DropChangeCipherSpec::new(tcp));
    let line = b"hello from rustls over RFC 8998\n";
    let fail = |what: &str, e: std::io::Error, server: &Peer| {
        // Let GmSSL finish writing its error trace.
        std::thread::sleep(Duration::from_millis(300));
        format!("{what}: {e}\n{}", server.text())
    };
    if let Err(e) = tls.write_all(line).and_then(|_| tls.flush()) {
        return Err(fail("handshake/write", e, &server));
    }
    let mut reply = Vec::new();
    let mut reader = BufReader::new(&mut tls);
    if let Err(e) = reader.read_until(b'\n', &mut reply) {
        return Err(fail("read", e, &server));
    }
    assert_eq!(reply, line, "{}", server.text());
    assert_eq!(
        tls.conn.negotiated_cipher_suite().unwrap().suite(),
        guomi_rustls::TLS_SM4_GCM_SM3_ID
    );
    assert_eq!(
        tls.conn.negotiated_key_exchange_group().unwrap().name(),
        guomi_rustls::CURVE_SM2
    );
    Ok(())
}

/// rustls server <-> gmssl tls13_client: handshake, one echoed line. `Err`: what went
/// wrong, with GmSSL's output.
fn gmssl_client_to_rustls(client_auth: bool) -> Result<(), String> {
    let set = make_set(if client_auth { "s-auth" } else { "s" });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let chain = vec![der(&set.server), der(&set.ca)];
    let config = if client_auth {
        guomi_rustls::server_builder()
            .unwrap()
            .with_client_cert_verifier(Arc::new(
                guomi_rustls::Sm2ClientVerifier::new(vec![set.ca.clone()]).unwrap(),
            ))
            .with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
                guomi_rustls::certified_key(chain, &key_der(&set.server_key)).unwrap(),
            )))
    } else {
        guomi_rustls::server_config(chain, key_der(&set.server_key)).unwrap()
    };
    let config = Arc::new(config);
    let server = std::thread::spawn(move || -> Result<(Vec<u8>, u16, bool), String> {
        let (tcp, _) = listener.accept().map_err(|e| e.to_string())?;
        tcp.set_read_timeout(Some(TIMEOUT)).unwrap();
        let conn = ServerConnection::new(config).map_err(|e| e.to_string())?;
        let mut tls = StreamOwned::new(conn, DropChangeCipherSpec::new(tcp));
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !got.ends_with(b"\n") {
            let n = tls
                .read(&mut buf)
                .map_err(|e| format!("server read: {e}"))?;
            if n == 0 {
                return Err("eof before a line".into());
            }
            got.extend_from_slice(&buf[..n]);
        }
        tls.write_all(&got).map_err(|e| e.to_string())?;
        tls.flush().map_err(|e| e.to_string())?;
        let suite = u16::from(tls.conn.negotiated_cipher_suite().unwrap().suite());
        let authed = tls.conn.peer_certificates().is_some();
        Ok((got, suite, authed))
    });
    let ckey = set.dir.join("clientkey.pem");
    let mut args = vec![
        "tls13_client",
        "-host",
        "127.0.0.1",
        "-port",
        &port,
        "-cacert",
        "ca.pem",
    ];
    if client_auth {
        args.extend([
            "-cert",
            "client.pem",
            "-key",
            ckey.to_str().unwrap(),
            "-pass",
            PASS,
        ]);
    }
    let mut client = Peer::spawn(&set.dir, &args);
    let line = b"hello from gmssl over RFC 8998\n";
    client
        .child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(line)
        .unwrap();
    let deadline = Instant::now() + TIMEOUT;
    while !client
        .out
        .lock()
        .unwrap()
        .windows(line.len())
        .any(|w| w == line)
    {
        if Instant::now() > deadline || client.child.try_wait().unwrap().is_some() {
            std::thread::sleep(Duration::from_millis(300));
            return Err(format!("no echo\n{}", client.text()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (got, suite, authed) = server
        .join()
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}\n{}", client.text()));
    assert_eq!(got, line);
    assert_eq!(suite, 0x00c6);
    assert_eq!(authed, client_auth);
    Ok(())
}

/// GmSSL 3.1.1 reads exactly one handshake message per record (`tls_record_get_handshake`
/// requires the record to be one whole message), while rustls 0.23 sends each flight's
/// messages coalesced into one record, as RFC 8446 §5.1 allows. So GmSSL fails on
/// rustls's server flight (EncryptedExtensions..Finished) and on its client-auth flight
/// (Certificate, CertificateVerify, Finished). rustls has no setting to split them and the
/// records are encrypted, so no transport shim can. Checked as an expected failure, so a
/// change on either side shows.
fn assert_gmssl_record_limitation(result: Result<(), String>) {
    let err = result.expect_err("GmSSL 3.1.1 now accepts coalesced handshake records");
    assert!(
        err.contains("tls_record_get_handshake"),
        "another failure: {err}"
    );
}

#[test]
#[ignore = "needs GmSSL 3.1.1 (tests/interop/tls_peers.py builds it)"]
fn rustls_client_gmssl_server() {
    rustls_client_to_gmssl(false).unwrap();
}

#[test]
#[ignore = "needs GmSSL 3.1.1 (tests/interop/tls_peers.py builds it)"]
fn rustls_client_gmssl_server_with_client_auth_fails_on_coalesced_records() {
    assert_gmssl_record_limitation(rustls_client_to_gmssl(true));
}

#[test]
#[ignore = "needs GmSSL 3.1.1 (tests/interop/tls_peers.py builds it)"]
fn gmssl_client_rustls_server_fails_on_coalesced_records() {
    assert_gmssl_record_limitation(gmssl_client_to_rustls(false));
}

#[test]
#[ignore = "needs GmSSL 3.1.1 (tests/interop/tls_peers.py builds it)"]
fn gmssl_client_rustls_server_with_client_auth_fails_on_coalesced_records() {
    assert_gmssl_record_limitation(gmssl_client_to_rustls(true));
}
