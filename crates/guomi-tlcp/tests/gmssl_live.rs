//! Live interop with GmSSL 3.1.1's `tlcp_server` and `tlcp_client` (ECC_SM4_CBC_SM3, the
//! only TLCP suite GmSSL 3.1.1 implements), over loopback. Ignored by default: run with
//! `cargo test -p guomi-tlcp --test gmssl_live -- --ignored`. The `gmssl` binary is
//! `$GUOMI_GMSSL`, else the one `tests/interop` builds (`tests/interop/.build/gmssl/
//! build/bin/gmssl` under the repository root); without it the tests fail.

use guomi_formats::x509::Certificate;
use guomi_tlcp::{
    CipherSuite, ClientAuth, ClientConfig, ClientConnection, ServerConfig, ServerConnection,
};
mod common;

use common::*;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

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
        let line = read_line(&mut conn, &mut s);
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
