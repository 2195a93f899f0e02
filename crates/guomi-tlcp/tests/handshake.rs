//! In-memory client <-> server handshakes over every suite, client authentication,
//! resumption, and the bad paths.

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{
    Certificate, CertificateBuilder, Crl, CrlBuilder, GeneralNameValue, KeyUsageFlags, Revocation,
};
use guomi_tlcp::{
    AlertDescription, CertifiedKey, CipherSuite, ClientAuth, ClientConfig, ClientConnection,
    Connection, Error, ServerConfig, ServerConnection,
};
use std::sync::Arc;

const SIGN: u16 = 1;
const ENC: u16 = (1 << 2) | (1 << 4);

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

struct Ca {
    cert: Certificate,
    key: PrivateKey,
}

fn ca(name: &str) -> Ca {
    let key = PrivateKey::generate().unwrap();
    let mut b =
        CertificateBuilder::new(name, key.public_key().clone(), now() - 3600, now() + 86400)
            .unwrap();
    b.ca(None);
    Ca {
        cert: b.self_sign(&key).unwrap(),
        key,
    }
}

fn leaf(ca: &Ca, name: &str, usage: u16, dns: Option<&str>) -> (Certificate, PrivateKey) {
    let key = PrivateKey::generate().unwrap();
    let mut b =
        CertificateBuilder::new(name, key.public_key().clone(), now() - 3600, now() + 86400)
            .unwrap();
    b.key_usage = Some(KeyUsageFlags(usage));
    if let Some(d) = dns {
        b.subject_alt_names = vec![GeneralNameValue::Dns(d.into())];
    }
    (b.sign(&ca.cert, &ca.key).unwrap(), key)
}

fn identity(ca: &Ca, who: &str, sign_usage: u16, enc_usage: u16) -> CertifiedKey {
    let (sc, sk) = leaf(
        ca,
        &format!("CN={who} sign"),
        sign_usage,
        Some("gw.example.cn"),
    );
    let (ec, ek) = leaf(
        ca,
        &format!("CN={who} enc"),
        enc_usage,
        Some("gw.example.cn"),
    );
    CertifiedKey::new(vec![sc], sk, ec, ek).unwrap()
}

struct Pki {
    ca: Ca,
    server: CertifiedKey,
    client: CertifiedKey,
}

fn pki() -> Pki {
    let ca = ca("CN=TLCP Test CA");
    let server = identity(&ca, "server", SIGN, ENC);
    let client = identity(&ca, "client", SIGN, ENC);
    Pki { ca, server, client }
}

fn server_config(p: &Pki, auth: ClientAuth) -> ServerConfig {
    let mut c = ServerConfig::new(p.server.clone());
    c.client_auth = auth;
    c.client_trust.roots = vec![p.ca.cert.clone()];
    c
}

fn client_config(p: &Pki, with_identity: bool) -> ClientConfig {
    let mut c = ClientConfig::new(vec![p.ca.cert.clone()]);
    if with_identity {
        c.identity = Some(p.client.clone());
    }
    c
}

/// Shuttles bytes until both sides are quiet; returns each side's first error.
fn drive(c: &mut Connection, s: &mut Connection) -> (Result<(), Error>, Result<(), Error>) {
    let (mut ce, mut se) = (Ok(()), Ok(()));
    for _ in 0..50 {
        let to_s = c.write_tls();
        let to_c = s.write_tls();
        if to_s.is_empty() && to_c.is_empty() {
            break;
        }
        if !to_s.is_empty() {
            assert_eq!(s.read_tls(&to_s), to_s.len());
            if let Err(e) = s.process() {
                se = se.and(Err(e));
            }
        }
        if !to_c.is_empty() {
            assert_eq!(c.read_tls(&to_c), to_c.len());
            if let Err(e) = c.process() {
                ce = ce.and(Err(e));
            }
        }
    }
    (ce, se)
}

fn connect(
    cc: ClientConfig,
    sc: Arc<ServerConfig>,
) -> (
    ClientConnection,
    ServerConnection,
    Result<(), Error>,
    Result<(), Error>,
) {
    let mut c = ClientConnection::new(Arc::new(cc), Some("gw.example.cn")).unwrap();
    let mut s = ServerConnection::new(sc).unwrap();
    let (ce, se) = drive(&mut c, &mut s);
    (c, s, ce, se)
}

fn echo(c: &mut Connection, s: &mut Connection) {
    let big: Vec<u8> = (0..40000u32).map(|i| i as u8).collect();
    c.send(b"ping").unwrap();
    c.send(&big).unwrap();
    let (ce, se) = drive(c, s);
    ce.unwrap();
    se.unwrap();
    let mut got = Vec::new();
    s.recv(&mut got);
    assert_eq!(&got[..4], b"ping");
    assert_eq!(&got[4..], &big[..]);
    s.send(b"pong").unwrap();
    drive(c, s).0.unwrap();
    let mut got = Vec::new();
    c.recv(&mut got);
    assert_eq!(got, b"pong");
}

#[test]
fn every_suite_with_and_without_client_auth() {
    let p = pki();
    for suite in CipherSuite::ALL {
        for auth in [ClientAuth::None, ClientAuth::Required] {
            let mut sc = server_config(&p, auth);
            sc.suites = vec![suite];
            let with_id = auth == ClientAuth::Required || suite.is_ecdhe();
            let (mut c, mut s, ce, se) = connect(client_config(&p, with_id), Arc::new(sc));
            ce.unwrap();
            se.unwrap();
            assert!(!c.is_handshaking() && !s.is_handshaking());
            assert_eq!(c.negotiated_suite(), Some(suite));
            assert_eq!(s.negotiated_suite(), Some(suite));
            assert_eq!(c.peer_certificates().len(), 2);
            assert_eq!(
                s.peer_certificates().len(),
                if suite.is_ecdhe() {
                    2
                } else if auth != ClientAuth::None {
                    1
                } else {
                    0
                }
            );
            assert_eq!(c.protocol_version(), 0x0101);
            echo(&mut c, &mut s);
            // close_notify both ways.
            c.close();
            drive(&mut c, &mut s).1.unwrap();
            assert!(s.peer_closed() && c.peer_closed());
            assert_eq!(c.send(b"x").unwrap_err(), Error::Closed);
        }
    }
}

#[test]
fn optional_client_auth_without_certificate() {
    let p = pki();
    let mut sc = server_config(&p, ClientAuth::Optional);
    sc.suites = vec![CipherSuite::EccSm4CbcSm3];
    let (_c, s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
    ce.unwrap();
    se.unwrap();
    assert!(s.peer_certificates().is_empty());
}

#[test]
fn required_client_auth_refuses_anonymous_client() {
    let p = pki();
    let mut sc = server_config(&p, ClientAuth::Required);
    sc.suites = vec![CipherSuite::EccSm4GcmSm3];
    let (_c, _s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
    assert_eq!(
        se.unwrap_err().alert(),
        Some(AlertDescription::HandshakeFailure)
    );
    assert_eq!(
        ce.unwrap_err(),
        Error::AlertReceived(AlertDescription::HandshakeFailure)
    );
}

#[test]
fn ecdhe_needs_client_identity() {
    let p = pki();
    // Without an identity the client does not offer ECDHE: no suite in common.
    let mut sc = server_config(&p, ClientAuth::None);
    sc.suites = vec![CipherSuite::EcdheSm4CbcSm3];
    let (_c, _s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
    assert_eq!(
        se.unwrap_err().alert(),
        Some(AlertDescription::HandshakeFailure)
    );
    assert_eq!(
        ce.unwrap_err(),
        Error::AlertReceived(AlertDescription::HandshakeFailure)
    );
    // Offering only ECDHE without an identity is a configuration error.
    let mut cc = client_config(&p, false);
    cc.suites = vec![CipherSuite::EcdheSm4GcmSm3];
    assert!(matches!(
        ClientConnection::new(Arc::new(cc), Some("gw.example.cn")),
        Err(Error::Config(_))
    ));
    // A server sending ECDHE with a client that has no CertificateRequest... : a client
    // with an identity but a server that never asks for certificates cannot happen with
    // this server (ECDHE always requests); the client refuses such a flight.
}

#[test]
fn resumption() {
    let p = pki();
    for suite in CipherSuite::ALL {
        let mut sc = server_config(&p, ClientAuth::None);
        sc.suites = vec![suite];
        let sc = Arc::new(sc);
        let cc = Arc::new(client_config(&p, true));
        let mut c = ClientConnection::new(cc.clone(), Some("gw.example.cn")).unwrap();
        let mut s = ServerConnection::new(sc.clone()).unwrap();
        let (ce, se) = drive(&mut c, &mut s);
        ce.unwrap();
        se.unwrap();
        assert!(!c.is_resumed());
        let session = c.session().expect("session");
        assert_eq!(session.id().len(), 32);
        assert_eq!(sc.session_cache.len(), 1);

        let mut c2 =
            ClientConnection::resume(cc.clone(), Some("gw.example.cn"), session.clone()).unwrap();
        let mut s2 = ServerConnection::new(sc.clone()).unwrap();
        let (ce, se) = drive(&mut c2, &mut s2);
        ce.unwrap();
        se.unwrap();
        assert!(c2.is_resumed() && s2.is_resumed());
        assert_eq!(c2.session_id(), session.id());
        assert_eq!(c2.peer_certificates().len(), 2);
        echo(&mut c2, &mut s2);

        // An unknown session ID gives a full handshake.
        let other = ServerConfig {
            session_cache: Arc::new(guomi_tlcp::SessionCache::new(4)),
            ..server_config(&p, ClientAuth::None)
        };
        let mut c3 = ClientConnection::resume(cc, Some("gw.example.cn"), session).unwrap();
        let mut s3 = ServerConnection::new(Arc::new(other)).unwrap();
        let (ce, se) = drive(&mut c3, &mut s3);
        ce.unwrap();
        se.unwrap();
        assert!(!c3.is_resumed() && !s3.is_resumed());
    }
}

#[test]
fn session_cache_is_bounded() {
    let p = pki();
    let mut sc = server_config(&p, ClientAuth::None);
    sc.session_cache = Arc::new(guomi_tlcp::SessionCache::new(2));
    sc.suites = vec![CipherSuite::EccSm4GcmSm3];
    let sc = Arc::new(sc);
    let mut first = None;
    for _ in 0..4 {
        let (c, _s, ce, se) = connect(client_config(&p, false), sc.clone());
        ce.unwrap();
        se.unwrap();
        first.get_or_insert(c.session().unwrap());
    }
    assert_eq!(sc.session_cache.len(), 2);
    // The oldest was evicted: offering it gives a full handshake.
    let mut c = ClientConnection::resume(
        Arc::new(client_config(&p, false)),
        Some("gw.example.cn"),
        first.unwrap(),
    )
    .unwrap();
    let mut s = ServerConnection::new(sc).unwrap();
    let (ce, se) = drive(&mut c, &mut s);
    ce.unwrap();
    se.unwrap();
    assert!(!c.is_resumed());
}

#[test]
fn no_cache_means_empty_session_id() {
    let p = pki();
    let mut sc = server_config(&p, ClientAuth::None);
    sc.session_cache = Arc::new(guomi_tlcp::SessionCache::new(0));
    let (c, _s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
    ce.unwrap();
    se.unwrap();
    assert!(c.session_id().is_empty());
    assert!(c.session().is_none());
}

fn expect_client_cert_error(p: &Pki, server_identity: CertifiedKey, alert: AlertDescription) {
    let mut sc = ServerConfig::new(server_identity);
    sc.suites = vec![CipherSuite::EccSm4CbcSm3];
    let (_c, _s, ce, se) = connect(client_config(p, false), Arc::new(sc));
    let e = ce.unwrap_err();
    assert_eq!(e.alert(), Some(alert), "{e}");
    assert_eq!(se.unwrap_err(), Error::AlertReceived(alert));
}

#[test]
fn wrong_key_usage() {
    let p = pki();
    // Signing certificate without digitalSignature.
    expect_client_cert_error(
        &p,
        identity(&p.ca, "s1", ENC, ENC),
        AlertDescription::UnsupportedCertificate,
    );
    // Encryption certificate with only digitalSignature.
    expect_client_cert_error(
        &p,
        identity(&p.ca, "s2", SIGN, SIGN),
        AlertDescription::UnsupportedCertificate,
    );
}

#[test]
fn untrusted_certificates() {
    let p = pki();
    let other = ca("CN=Other CA");
    expect_client_cert_error(
        &p,
        identity(&other, "evil", SIGN, ENC),
        AlertDescription::UnknownCa,
    );
    // Signing and encryption certificates from two different anchors, both trusted.
    let (sc, sk) = leaf(&p.ca, "CN=mix sign", SIGN, Some("gw.example.cn"));
    let (ec, ek) = leaf(&other, "CN=mix enc", ENC, None);
    let mixed = CertifiedKey::new(vec![sc], sk, ec, ek).unwrap();
    let mut sconf = ServerConfig::new(mixed);
    sconf.suites = vec![CipherSuite::EccSm4CbcSm3];
    let mut cconf = client_config(&p, false);
    cconf.trust.roots.push(other.cert.clone());
    let (_c, _s, ce, _se) = connect(cconf, Arc::new(sconf));
    let e = ce.unwrap_err();
    assert!(e.to_string().contains("different trust anchors"), "{e}");
}

#[test]
fn untrusted_client_certificate() {
    let p = pki();
    let other = ca("CN=Other CA");
    let mut cc = client_config(&p, false);
    cc.identity = Some(identity(&other, "intruder", SIGN, ENC));
    let (_c, _s, ce, se) = connect(cc, Arc::new(server_config(&p, ClientAuth::Required)));
    assert_eq!(se.unwrap_err().alert(), Some(AlertDescription::UnknownCa));
    assert!(ce.is_err());
}

#[test]
fn revoked_server_certificate() {
    let p = pki();
    let crl: Crl = {
        let mut b = CrlBuilder {
            this_update: now() - 60,
            next_update: Some(now() + 86400),
            crl_number: vec![1],
            revoked: vec![],
        };
        b.revoked.push(Revocation {
            serial: p.server.clone_sign_serial(),
            date: now() - 30,
            reason: None,
        });
        b.sign(&p.ca.cert, &p.ca.key).unwrap()
    };
    let mut cc = client_config(&p, false);
    cc.trust.crls = vec![crl];
    let (_c, _s, ce, _se) = connect(cc, Arc::new(server_config(&p, ClientAuth::None)));
    assert_eq!(
        ce.unwrap_err().alert(),
        Some(AlertDescription::CertificateRevoked)
    );
}

trait SignSerial {
    fn clone_sign_serial(&self) -> Vec<u8>;
}

impl SignSerial for CertifiedKey {
    fn clone_sign_serial(&self) -> Vec<u8> {
        self.sign_certificate().serial().to_vec()
    }
}

#[test]
fn hostname_mismatch() {
    let p = pki();
    let mut c = ClientConnection::new(Arc::new(client_config(&p, false)), Some("other.example.cn"))
        .unwrap();
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    let (ce, _) = drive(&mut c, &mut s);
    assert_eq!(
        ce.unwrap_err().alert(),
        Some(AlertDescription::BadCertificate)
    );
    // check_hostname off: accepted.
    let mut cc = client_config(&p, false);
    cc.check_hostname = false;
    let mut c = ClientConnection::new(Arc::new(cc), None).unwrap();
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    let (ce, se) = drive(&mut c, &mut s);
    ce.unwrap();
    se.unwrap();
    // check_hostname without a name is a configuration error.
    assert!(matches!(
        ClientConnection::new(Arc::new(client_config(&p, false)), None),
        Err(Error::Config(_))
    ));
}

/// Runs until the client has sent its whole second flight, then lets `tamper` change
/// the client's bytes before the server sees them.
fn tampered_client_flight(
    suite: CipherSuite,
    tamper: impl Fn(&mut Vec<u8>),
) -> (Result<(), Error>, Result<(), Error>) {
    let p = pki();
    let mut sc = server_config(&p, ClientAuth::None);
    sc.suites = vec![suite];
    let mut c =
        ClientConnection::new(Arc::new(client_config(&p, true)), Some("gw.example.cn")).unwrap();
    let mut s = ServerConnection::new(Arc::new(sc)).unwrap();
    let hello = c.write_tls();
    s.read_tls(&hello);
    s.process().unwrap();
    let flight = s.write_tls();
    c.read_tls(&flight);
    c.process().unwrap();
    let mut second = c.write_tls();
    tamper(&mut second);
    s.read_tls(&second);
    let se = s.process();
    let back = s.write_tls();
    c.read_tls(&back);
    (c.process(), se)
}

#[test]
fn tampered_finished() {
    for suite in CipherSuite::ALL {
        // The last record is the encrypted Finished: flip its last byte.
        let (ce, se) = tampered_client_flight(suite, |b| {
            let n = b.len();
            b[n - 1] ^= 1;
        });
        assert_eq!(
            se.unwrap_err().alert(),
            Some(AlertDescription::BadRecordMac)
        );
        assert_eq!(
            ce.unwrap_err(),
            Error::AlertReceived(AlertDescription::BadRecordMac)
        );
    }
}

#[test]
fn tampered_key_exchange_fails_at_finished() {
    // Flip a byte inside the ECC ClientKeyExchange ciphertext (record 1 of the flight,
    // after 5 + 4 + 2 header bytes): the server continues with a random pre-master and
    // fails at Finished (bad_record_mac, as the keys differ).
    let (_ce, se) = tampered_client_flight(CipherSuite::EccSm4GcmSm3, |b| {
        b[5 + 4 + 2 + 40] ^= 1;
    });
    let e = se.unwrap_err();
    assert!(
        matches!(
            e.alert(),
            Some(AlertDescription::BadRecordMac | AlertDescription::DecryptError)
        ),
        "{e}"
    );
}

#[test]
fn unexpected_messages() {
    let p = pki();
    // A server that receives a ServerHelloDone first.
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    s.read_tls(&[22, 1, 1, 0, 4, 14, 0, 0, 0]);
    assert_eq!(
        s.process().unwrap_err().alert(),
        Some(AlertDescription::UnexpectedMessage)
    );
    let alert = s.write_tls();
    assert_eq!(alert, [21, 1, 1, 0, 2, 2, 10]);
    // The error sticks.
    assert!(s.process().is_err());
    // Application data before the handshake.
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    s.read_tls(&[23, 1, 1, 0, 1, 0]);
    assert_eq!(
        s.process().unwrap_err().alert(),
        Some(AlertDescription::UnexpectedMessage)
    );
    // A ChangeCipherSpec before keys.
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    s.read_tls(&[20, 1, 1, 0, 1, 1]);
    assert_eq!(
        s.process().unwrap_err().alert(),
        Some(AlertDescription::UnexpectedMessage)
    );
    // A client that receives a ClientHello.
    let mut c =
        ClientConnection::new(Arc::new(client_config(&p, false)), Some("gw.example.cn")).unwrap();
    let hello = c.write_tls();
    c.read_tls(&hello);
    assert_eq!(
        c.process().unwrap_err().alert(),
        Some(AlertDescription::UnexpectedMessage)
    );
}

#[test]
fn renegotiation_refused() {
    let p = pki();
    for suite in [CipherSuite::EccSm4CbcSm3, CipherSuite::EccSm4GcmSm3] {
        let mut sc = server_config(&p, ClientAuth::None);
        sc.suites = vec![suite];
        let (mut c, mut s, ce, se) =
            connect(client_config(&p, false), Arc::new(sc.clone_for_test()));
        ce.unwrap();
        se.unwrap();
        // ClientHello after the handshake, under the connection's keys.
        c.send_handshake_message_for_testing(1, &[0; 40]).unwrap();
        let (ce, se) = drive(&mut c, &mut s);
        assert_eq!(
            se.unwrap_err().alert(),
            Some(AlertDescription::NoRenegotiation)
        );
        assert_eq!(
            ce.unwrap_err(),
            Error::AlertReceived(AlertDescription::NoRenegotiation)
        );
        // HelloRequest to a client.
        let (mut c, mut s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
        ce.unwrap();
        se.unwrap();
        s.send_handshake_message_for_testing(0, &[]).unwrap();
        let (ce, _) = drive(&mut c, &mut s);
        assert_eq!(
            ce.unwrap_err().alert(),
            Some(AlertDescription::NoRenegotiation)
        );
        // Any other handshake message after the handshake: unexpected_message.
        let mut sc = server_config(&p, ClientAuth::None);
        sc.suites = vec![suite];
        let (mut c, mut s, ce, se) = connect(client_config(&p, false), Arc::new(sc));
        ce.unwrap();
        se.unwrap();
        c.send_handshake_message_for_testing(20, &[0; 12]).unwrap();
        let (_, se) = drive(&mut c, &mut s);
        assert_eq!(
            se.unwrap_err().alert(),
            Some(AlertDescription::UnexpectedMessage)
        );
    }
}

trait CloneForTest {
    fn clone_for_test(&self) -> ServerConfig;
}

impl CloneForTest for ServerConfig {
    fn clone_for_test(&self) -> ServerConfig {
        ServerConfig {
            identity: self.identity.clone(),
            suites: self.suites.clone(),
            client_auth: self.client_auth,
            client_trust: self.client_trust.clone(),
            session_cache: self.session_cache.clone(),
        }
    }
}

#[test]
fn truncated_and_oversized_records() {
    let p = pki();
    let (mut c, mut s, ce, se) = connect(
        client_config(&p, false),
        Arc::new(server_config(&p, ClientAuth::None)),
    );
    ce.unwrap();
    se.unwrap();
    c.send(b"hello").unwrap();
    let rec = c.write_tls();
    // Truncated: nothing happens until the rest arrives.
    s.read_tls(&rec[..rec.len() - 1]);
    s.process().unwrap();
    let mut got = Vec::new();
    assert_eq!(s.recv(&mut got), 0);
    s.read_tls(&rec[rec.len() - 1..]);
    s.process().unwrap();
    assert_eq!(s.recv(&mut got), 5);
    // Oversized header.
    s.read_tls(&[23, 1, 1, 0x48, 0x01]);
    assert_eq!(
        s.process().unwrap_err().alert(),
        Some(AlertDescription::RecordOverflow)
    );
    // Plaintext-phase limit is 2^14.
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    s.read_tls(&[22, 1, 1, 0x40, 0x01]);
    assert_eq!(
        s.process().unwrap_err().alert(),
        Some(AlertDescription::RecordOverflow)
    );
    // read_tls takes at most MAX_INCOMING bytes.
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    let lots = vec![0u8; guomi_tlcp::conn::MAX_INCOMING + 10];
    assert_eq!(s.read_tls(&lots), guomi_tlcp::conn::MAX_INCOMING);
}

#[test]
fn downgrade_to_disallowed_suite() {
    let p = pki();
    // A client offering only CBC; a server allowing only GCM: no common suite.
    let mut cc = client_config(&p, false);
    cc.suites = vec![CipherSuite::EccSm4CbcSm3];
    let mut sc = server_config(&p, ClientAuth::None);
    sc.suites = vec![CipherSuite::EccSm4GcmSm3];
    let (_c, _s, ce, se) = connect(cc, Arc::new(sc));
    assert_eq!(
        se.unwrap_err().alert(),
        Some(AlertDescription::HandshakeFailure)
    );
    assert_eq!(
        ce.unwrap_err(),
        Error::AlertReceived(AlertDescription::HandshakeFailure)
    );

    // A server answering with a suite the client did not offer: rewrite the suite in the
    // ServerHello (offset: record 5 + handshake 4 + version 2 + random 32 + sid len 1 +
    // 32-byte session id).
    let mut cc = client_config(&p, false);
    cc.suites = vec![CipherSuite::EccSm4GcmSm3];
    let mut c = ClientConnection::new(Arc::new(cc), Some("gw.example.cn")).unwrap();
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    s.read_tls(&c.write_tls());
    s.process().unwrap();
    let mut flight = s.write_tls();
    let off = 5 + 4 + 2 + 32 + 1 + 32;
    assert_eq!(&flight[off..off + 2], &[0xE0, 0x53]);
    flight[off + 1] = 0x13;
    c.read_tls(&flight);
    assert_eq!(
        c.process().unwrap_err().alert(),
        Some(AlertDescription::IllegalParameter)
    );
}

#[test]
fn garbage_never_panics() {
    let p = pki();
    let sc = Arc::new(server_config(&p, ClientAuth::Optional));
    let mut x: u64 = 0x1234_5678_9abc_def0;
    for n in 0..300 {
        let mut s = ServerConnection::new(sc.clone()).unwrap();
        let mut buf = vec![22, 1, 1, 0, 0];
        let len = (n % 120) + 1;
        buf[4] = len as u8;
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf.push(x as u8);
        }
        if n % 3 == 0 {
            buf[5] = 1; // ClientHello type
        }
        s.read_tls(&buf);
        let _ = s.process();
    }
}

#[test]
fn tampered_handshake_transcript_fails_finished() {
    // A man in the middle rewrites an unused suite in the plaintext ClientHello: the
    // negotiation is unchanged, the keys agree, but the transcripts differ, so the
    // server's check of the client's Finished fails (decrypt_error).
    let p = pki();
    let mut cc = client_config(&p, false);
    cc.suites = vec![CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3];
    let mut c = ClientConnection::new(Arc::new(cc), Some("gw.example.cn")).unwrap();
    let mut s = ServerConnection::new(Arc::new(server_config(&p, ClientAuth::None))).unwrap();
    let mut hello = c.write_tls();
    // record 5 + handshake 4 + version 2 + random 32 + empty session id 1 + suites len 2.
    let off = 5 + 4 + 2 + 32 + 1 + 2;
    assert_eq!(&hello[off..off + 4], &[0xE0, 0x53, 0xE0, 0x13]);
    hello[off + 3] = 0x11;
    s.read_tls(&hello);
    s.process().unwrap();
    let (ce, se) = drive(&mut c, &mut s);
    assert_eq!(
        se.unwrap_err().alert(),
        Some(AlertDescription::DecryptError)
    );
    assert_eq!(
        ce.unwrap_err(),
        Error::AlertReceived(AlertDescription::DecryptError)
    );
}

#[test]
fn ecc_client_double_certificate_option() {
    let p = pki();
    for double in [false, true] {
        let mut sc = server_config(&p, ClientAuth::Required);
        sc.suites = vec![CipherSuite::EccSm4GcmSm3];
        let mut cc = client_config(&p, true);
        cc.ecc_client_double_certificate = double;
        let (_c, s, ce, se) = connect(cc, Arc::new(sc));
        ce.unwrap();
        se.unwrap();
        assert_eq!(s.peer_certificates().len(), if double { 2 } else { 1 });
    }
}
