//! Live interop with GmSSL 3.1.1's `tlcp_server` and `tlcp_client` (ECC_SM4_CBC_SM3, the
//! only TLCP suite GmSSL 3.1.1 implements), over loopback. Ignored by default: run with
//! `cargo test -p guomi-tlcp --test gmssl_live -- --ignored`. The `gmssl` binary is
//! `$GUOMI_GMSSL`, else the one `tests/interop` builds (`tests/interop/.build/gmssl/
//! build/bin/gmssl` under the repository root); without it the tests fail.

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{Certificate, CertificateBuilder, KeyUsageFlags};
use guomi_tlcp::{
    CertifiedKey, CipherSuite, ClientAuth, ClientConfig, ClientConnection, Connection,
    ServerConfig, ServerConnection,
};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn gmssl() -> PathBuf {
    if let Some(p) = std::env::var_os("GUOMI_GMSSL") {
        return p.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop/.build/gmssl/build/bin/gmssl")
}

fn run(dir: &Path, args: &[&str]) {
    let out = Command::new(gmssl())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run gmssl (set GUOMI_GMSSL)");
    assert!(
        out.status.success(),
        "gmssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("guomi-tlcp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Drives the handshake over a blocking socket.
fn handshake(conn: &mut Connection, s: &mut TcpStream) -> Result<(), String> {
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
fn read_app(conn: &mut Connection, s: &mut TcpStream, want: usize) -> Vec<u8> {
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

/// GmSSL's own PKI (the layout of its demos/scripts/tlcp_server.sh): root CA, sub CA,
/// signing and encryption certificates for the server.
fn gmssl_pki(dir: &Path) {
    for args in [
        "sm2keygen -pass 1234 -out rootcakey.pem",
        "certgen -C CN -O guomi -CN ROOTCA -days 30 -key rootcakey.pem -pass 1234 -out rootcacert.pem -key_usage keyCertSign -key_usage cRLSign -ca",
        "sm2keygen -pass 1234 -out cakey.pem",
        "reqgen -C CN -O guomi -CN SubCA -key cakey.pem -pass 1234 -out careq.pem",
        "reqsign -in careq.pem -days 30 -key_usage keyCertSign -path_len_constraint 0 -cacert rootcacert.pem -key rootcakey.pem -pass 1234 -out cacert.pem -ca",
        "sm2keygen -pass 1234 -out signkey.pem",
        "reqgen -C CN -O guomi -CN localhost -key signkey.pem -pass 1234 -out signreq.pem",
        "reqsign -in signreq.pem -days 30 -key_usage digitalSignature -cacert cacert.pem -key cakey.pem -pass 1234 -out signcert.pem",
        "sm2keygen -pass 1234 -out enckey.pem",
        "reqgen -C CN -O guomi -CN localhost -key enckey.pem -pass 1234 -out encreq.pem",
        "reqsign -in encreq.pem -days 30 -key_usage keyEncipherment -cacert cacert.pem -key cakey.pem -pass 1234 -out enccert.pem",
    ] {
        run(dir, &args.split(' ').collect::<Vec<_>>());
    }
    let mut double = std::fs::read_to_string(dir.join("signcert.pem")).unwrap();
    double += &std::fs::read_to_string(dir.join("enccert.pem")).unwrap();
    double += &std::fs::read_to_string(dir.join("cacert.pem")).unwrap();
    std::fs::write(dir.join("double_certs.pem"), double).unwrap();
}

/// guomi's own PKI: a CA, and an identity (signing + encryption) under it.
fn guomi_identity(dir: &Path, who: &str) -> (Certificate, CertifiedKey) {
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
    (ca.clone(), CertifiedKey::new(vec![sc], sk, ec, ek).unwrap())
}

struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn connect_retry(port: u16) -> TcpStream {
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

fn guomi_client_to_gmssl_server(client_auth: bool) {
    let dir = tempdir(if client_auth { "srv-auth" } else { "srv" });
    gmssl_pki(&dir);
    let (_our_ca, our_id) = guomi_identity(&dir, "client");
    let port = free_port().to_string();
    let mut args = vec![
        "tlcp_server",
        "-port",
        &port,
        "-cert",
        "double_certs.pem",
        "-key",
        "signkey.pem",
        "-pass",
        "1234",
        "-ex_key",
        "enckey.pem",
        "-ex_pass",
        "1234",
    ];
    if client_auth {
        args.extend(["-cacert", "guomi_ca.pem"]);
    }
    let _server = Child(
        Command::new(gmssl())
            .args(&args)
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let root = Certificate::from_pem(&std::fs::read_to_string(dir.join("rootcacert.pem")).unwrap())
        .unwrap();
    let mut cc = ClientConfig::new(vec![root]);
    // GmSSL's certificates carry no subjectAltName; guomi matches SANs only.
    cc.check_hostname = false;
    if client_auth {
        cc.identity = Some(our_id);
    }
    let mut s = connect_retry(port.parse().unwrap());
    let mut c = ClientConnection::new(Arc::new(cc), None).unwrap();
    handshake(&mut c, &mut s).unwrap();
    assert_eq!(c.negotiated_suite(), Some(CipherSuite::EccSm4CbcSm3));
    assert_eq!(c.peer_certificates().len(), 3);
    let msg = b"hello from guomi\n";
    c.send(msg).unwrap();
    s.write_all(&c.write_tls()).unwrap();
    assert_eq!(read_app(&mut c, &mut s, msg.len()), msg);
    c.close();
    let _ = s.write_all(&c.write_tls());
}

#[test]
#[ignore = "needs GmSSL 3.1.1's gmssl binary"]
fn guomi_client_gmssl_server() {
    guomi_client_to_gmssl_server(false);
}

#[test]
#[ignore = "needs GmSSL 3.1.1's gmssl binary"]
fn guomi_client_gmssl_server_client_auth() {
    guomi_client_to_gmssl_server(true);
}

#[test]
#[ignore = "needs GmSSL 3.1.1's gmssl binary"]
fn gmssl_client_guomi_server() {
    let dir = tempdir("cli");
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
        // Echo one line.
        let line = read_app(&mut conn, &mut s, 1);
        conn.send(&line).unwrap();
        s.write_all(&conn.write_tls()).unwrap();
        Ok((suite, line))
    });
    let mut client = Command::new(gmssl())
        .args([
            "tlcp_client",
            "-host",
            "127.0.0.1",
            "-port",
            &port,
            "-cacert",
            "guomi_ca.pem",
        ])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = client.stdin.take().unwrap();
    stdin.write_all(b"hello from gmssl\n").unwrap();
    let result = server.join().unwrap();
    drop(stdin);
    let out = client.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (suite, line) =
        result.unwrap_or_else(|e| panic!("guomi server: {e}; gmssl tlcp_client: {stderr}"));
    assert_eq!(suite, Some(CipherSuite::EccSm4CbcSm3));
    assert_eq!(line, b"hello from gmssl\n");
    assert!(
        stdout.contains("hello from gmssl"),
        "gmssl tlcp_client printed: {stdout} / {stderr}"
    );
}
