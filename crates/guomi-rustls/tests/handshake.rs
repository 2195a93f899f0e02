//! In-memory TLS 1.3 handshakes between rustls clients and servers on guomi's RFC 8998
//! provider: both suites, client authentication, resumption, and the ways a handshake
//! must fail.

mod common;

use std::sync::Arc;

use common::*;
use guomi_formats::x509::oid;
use guomi_rustls::{
    provider, suites, Sm2ClientVerifier, Sm2ServerVerifier, CURVE_SM2, SM2_SM3, TLS_SM4_CCM_SM3_ID,
    TLS_SM4_GCM_SM3_ID,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::server::ServerSessionMemoryCache;
use rustls::sign::{CertifiedKey, Signer, SigningKey};
use rustls::{
    AlertDescription, CertificateError, ClientConfig, Error, HandshakeKind, PeerMisbehaved,
    ProtocolVersion, ServerConfig, SignatureAlgorithm, SignatureScheme, SupportedCipherSuite,
};

fn provider_with(suite: SupportedCipherSuite) -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        cipher_suites: vec![suite],
        ..provider()
    })
}

fn client_with(
    provider: Arc<CryptoProvider>,
    roots: Vec<guomi_formats::x509::Certificate>,
) -> ClientConfig {
    ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Sm2ServerVerifier::new(roots).unwrap()))
        .with_no_client_auth()
}

fn server_for(pki: &Pki) -> ServerConfig {
    guomi_rustls::server_config(pki.server_chain(), pki.server.key_der()).unwrap()
}

fn full_handshake(suite: SupportedCipherSuite, expect: rustls::CipherSuite) {
    let pki = pki();
    let client = Arc::new(client_with(provider_with(suite), pki.roots()));
    let server = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    pump(&mut c, &mut s).unwrap();
    assert!(!c.is_handshaking() && !s.is_handshaking());
    for side in [&c.negotiated_cipher_suite(), &s.negotiated_cipher_suite()] {
        assert_eq!(side.unwrap().suite(), expect);
    }
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::TLSv1_3));
    assert_eq!(c.negotiated_key_exchange_group().unwrap().name(), CURVE_SM2);
    assert_eq!(s.negotiated_key_exchange_group().unwrap().name(), CURVE_SM2);
    assert_eq!(c.handshake_kind(), Some(HandshakeKind::Full));
    // The server's chain arrived as sent.
    assert_eq!(c.peer_certificates().unwrap(), &pki.server_chain()[..]);
    // Application data both ways, including a record larger than one fragment.
    assert_eq!(
        send_recv(&mut c, &mut s, b"ping over SM4"),
        b"ping over SM4"
    );
    let big = vec![0x5au8; 40_000];
    assert_eq!(send_recv(&mut s, &mut c, &big), big);
}

#[test]
fn sm4_gcm_sm3_handshake_and_data() {
    full_handshake(suites::TLS_SM4_GCM_SM3, TLS_SM4_GCM_SM3_ID);
}

#[test]
fn sm4_ccm_sm3_handshake_and_data() {
    full_handshake(suites::TLS_SM4_CCM_SM3, TLS_SM4_CCM_SM3_ID);
}

#[test]
fn server_prefers_gcm_when_both_offered() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    pump(&mut c, &mut s).unwrap();
    assert_eq!(
        c.negotiated_cipher_suite().unwrap().suite(),
        TLS_SM4_GCM_SM3_ID
    );
}

#[test]
fn ip_address_and_wildcard_names() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    for name in ["127.0.0.1", "www.example.test", "LOCALHOST"] {
        let (mut c, mut s) = connect(&client, &server, name);
        pump(&mut c, &mut s).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}

#[test]
fn client_authentication() {
    let pki = pki();
    let mut client = client_with(Arc::new(provider()), pki.roots());
    client.client_auth_cert_resolver = Arc::new(rustls::sign::SingleCertAndKey::from(
        guomi_rustls::certified_key(pki.client_chain(), &pki.client.key_der()).unwrap(),
    ));
    let verifier = Sm2ClientVerifier::new(pki.roots()).unwrap();
    let server = guomi_rustls::server_builder()
        .unwrap()
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(pki.server_chain(), pki.server.key_der())
        .unwrap();
    let (mut c, mut s) = connect(&Arc::new(client), &Arc::new(server), "localhost");
    pump(&mut c, &mut s).unwrap();
    assert_eq!(s.peer_certificates().unwrap(), &pki.client_chain()[..]);
    assert_eq!(
        send_recv(&mut c, &mut s, b"authenticated"),
        b"authenticated"
    );
}

#[test]
fn client_authentication_required_but_missing() {
    let pki = pki();
    let client = client_with(Arc::new(provider()), pki.roots());
    let server = guomi_rustls::server_builder()
        .unwrap()
        .with_client_cert_verifier(Arc::new(Sm2ClientVerifier::new(pki.roots()).unwrap()))
        .with_single_cert(pki.server_chain(), pki.server.key_der())
        .unwrap();
    let (mut c, mut s) = connect(&Arc::new(client), &Arc::new(server), "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().server();
    assert_eq!(err, Error::NoCertificatesPresented);
}

#[test]
fn optional_client_authentication_lets_anonymous_in() {
    let pki = pki();
    let client = client_with(Arc::new(provider()), pki.roots());
    let server = guomi_rustls::server_builder()
        .unwrap()
        .with_client_cert_verifier(Arc::new(
            Sm2ClientVerifier::new(pki.roots()).unwrap().optional(),
        ))
        .with_single_cert(pki.server_chain(), pki.server.key_der())
        .unwrap();
    let (mut c, mut s) = connect(&Arc::new(client), &Arc::new(server), "localhost");
    pump(&mut c, &mut s).unwrap();
    assert!(s.peer_certificates().is_none());
}

#[test]
fn client_certificate_from_untrusted_ca_is_refused() {
    let pki = pki();
    let other = ca("CN=other root");
    let rogue = leaf_with(
        "CN=rogue client",
        &other,
        oid::CLIENT_AUTH,
        vec![],
        now() - 10,
        now() + 1000,
    );
    let mut client = client_with(Arc::new(provider()), pki.roots());
    client.client_auth_cert_resolver = Arc::new(rustls::sign::SingleCertAndKey::from(
        guomi_rustls::certified_key(vec![rogue.der()], &rogue.key_der()).unwrap(),
    ));
    let server = guomi_rustls::server_builder()
        .unwrap()
        .with_client_cert_verifier(Arc::new(Sm2ClientVerifier::new(pki.roots()).unwrap()))
        .with_single_cert(pki.server_chain(), pki.server.key_der())
        .unwrap();
    let (mut c, mut s) = connect(&Arc::new(client), &Arc::new(server), "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().server();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::UnknownIssuer)
    );
}

/// Runs a first handshake (collecting the NewSessionTicket) and a second one with the
/// same client config; returns how the second went.
fn resume(server: ServerConfig, client: ClientConfig) -> (HandshakeKind, rustls::CipherSuite) {
    let client = Arc::new(client);
    let server = Arc::new(server);
    let (mut c, mut s) = connect(&client, &server, "localhost");
    pump(&mut c, &mut s).unwrap();
    assert_eq!(c.handshake_kind(), Some(HandshakeKind::Full));
    // Tickets travel after the handshake; a round of data makes sure they were processed.
    assert_eq!(send_recv(&mut s, &mut c, b"t"), b"t");
    let (mut c2, mut s2) = connect(&client, &server, "localhost");
    pump(&mut c2, &mut s2).unwrap();
    assert_eq!(send_recv(&mut c2, &mut s2, b"resumed"), b"resumed");
    assert_eq!(c2.handshake_kind(), s2.handshake_kind());
    (
        c2.handshake_kind().unwrap(),
        c2.negotiated_cipher_suite().unwrap().suite(),
    )
}

#[test]
fn resumption_with_sm4_gcm_tickets() {
    let pki = pki();
    let server = server_for(&pki);
    assert!(server.ticketer.enabled());
    let client = guomi_rustls::client_config(pki.roots()).unwrap();
    assert_eq!(resume(server, client).0, HandshakeKind::Resumed);
}

#[test]
fn resumption_with_ccm_suite() {
    let pki = pki();
    let client = client_with(provider_with(suites::TLS_SM4_CCM_SM3), pki.roots());
    let (kind, suite) = resume(server_for(&pki), client);
    assert_eq!(kind, HandshakeKind::Resumed);
    assert_eq!(suite, TLS_SM4_CCM_SM3_ID);
}

#[test]
fn stateful_resumption_without_tickets() {
    let pki = pki();
    let mut server = guomi_rustls::server_builder()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(pki.server_chain(), pki.server.key_der())
        .unwrap();
    server.session_storage = ServerSessionMemoryCache::new(16);
    assert!(!server.ticketer.enabled());
    let client = guomi_rustls::client_config(pki.roots()).unwrap();
    assert_eq!(resume(server, client).0, HandshakeKind::Resumed);
}

#[test]
fn tickets_from_another_server_key_give_a_full_handshake() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let first = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &first, "localhost");
    pump(&mut c, &mut s).unwrap();
    send_recv(&mut s, &mut c, b"t");
    // A second server with a fresh ticket key cannot open the ticket.
    let second = Arc::new(server_for(&pki));
    let (mut c2, mut s2) = connect(&client, &second, "localhost");
    pump(&mut c2, &mut s2).unwrap();
    assert_eq!(c2.handshake_kind(), Some(HandshakeKind::Full));
}

#[test]
fn untrusted_server_certificate() {
    let pki = pki();
    let other = ca("CN=some other root");
    let client = Arc::new(guomi_rustls::client_config(vec![other.cert]).unwrap());
    let server = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().client();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::UnknownIssuer)
    );
}

#[test]
fn missing_intermediate_fails() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(
        guomi_rustls::server_config(vec![pki.server.der()], pki.server.key_der()).unwrap(),
    );
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().client();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::UnknownIssuer)
    );
}

#[test]
fn wrong_hostname() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    for name in ["evil.test", "a.b.example.test", "example.test", "127.0.0.2"] {
        let (mut c, mut s) = connect(&client, &server, name);
        let err = pump(&mut c, &mut s).unwrap_err().client();
        assert_eq!(
            err,
            Error::InvalidCertificate(CertificateError::NotValidForName),
            "{name}"
        );
    }
}

#[test]
fn expired_server_certificate() {
    let pki = pki();
    let stale = leaf_with(
        "CN=localhost",
        &pki.intermediate,
        oid::SERVER_AUTH,
        server_sans(),
        now() - 10 * 86_400,
        now() - 86_400,
    );
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(
        guomi_rustls::server_config(vec![stale.der(), pki.intermediate.der()], stale.key_der())
            .unwrap(),
    );
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().client();
    assert_eq!(err, Error::InvalidCertificate(CertificateError::Expired));
}

#[test]
fn server_certificate_for_client_auth_only_is_refused() {
    let pki = pki();
    let wrong = leaf_with(
        "CN=localhost",
        &pki.intermediate,
        oid::CLIENT_AUTH,
        server_sans(),
        now() - 10,
        now() + 1000,
    );
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(
        guomi_rustls::server_config(vec![wrong.der(), pki.intermediate.der()], wrong.key_der())
            .unwrap(),
    );
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().client();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::InvalidPurpose)
    );
}

/// Offset of the first application-data record (type 23) in a flight.
fn first_app_data_record(flight: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 5 <= flight.len() {
        let len = u16::from_be_bytes([flight[i + 3], flight[i + 4]]) as usize;
        if flight[i] == 23 {
            return Some(i);
        }
        i += 5 + len;
    }
    None
}

#[test]
fn tampered_record_is_refused() {
    use std::io::Write;
    let pki = pki();
    for suite in [suites::TLS_SM4_GCM_SM3, suites::TLS_SM4_CCM_SM3] {
        let client = Arc::new(client_with(provider_with(suite), pki.roots()));
        let server = Arc::new(server_for(&pki));
        let (mut c, mut s) = connect(&client, &server, "localhost");
        pump(&mut c, &mut s).unwrap();
        c.writer().write_all(b"do not change me").unwrap();
        let mut bytes = take_tls(&mut c);
        let at = first_app_data_record(&bytes).unwrap();
        bytes[at + 5 + 3] ^= 0x01; // one ciphertext bit
        assert_eq!(feed(&mut s, &bytes), Err(Error::DecryptError));
        // The server answers with a fatal bad_record_mac alert.
        let alert = take_tls(&mut s);
        assert!(feed(&mut c, &alert).is_err());
    }
}

#[test]
fn tampered_tag_and_truncated_record_are_refused() {
    use std::io::Write;
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    for what in ["tag", "truncated"] {
        let (mut c, mut s) = connect(&client, &server, "localhost");
        pump(&mut c, &mut s).unwrap();
        c.writer().write_all(b"payload").unwrap();
        let mut bytes = take_tls(&mut c);
        let at = first_app_data_record(&bytes).unwrap();
        let len = u16::from_be_bytes([bytes[at + 3], bytes[at + 4]]) as usize;
        match what {
            // The last byte of the tag.
            "tag" => bytes[at + 5 + len - 1] ^= 0x80,
            // One byte shorter, with the header's length to match: the length is in the
            // additional data and the tag moves, so this must fail too.
            _ => {
                bytes.remove(at + 5 + len - 1);
                bytes[at + 3..at + 5].copy_from_slice(&((len - 1) as u16).to_be_bytes());
            }
        }
        assert!(feed(&mut s, &bytes).is_err(), "{what}");
    }
}

/// Finds the curveSM2 KeyShareEntry (group 0x0029, length 65, 0x04) in a flight.
fn key_share_offset(flight: &[u8]) -> usize {
    flight
        .windows(5)
        .position(|w| w == [0x00, 0x29, 0x00, 0x41, 0x04])
        .expect("a curveSM2 key share")
        + 4
}

#[test]
fn invalid_client_key_share_is_refused() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    // y + 1: off the curve.
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let mut done = false;
    let err = pump_with(&mut c, &mut s, |to_server, flight| {
        if to_server && !done {
            let at = key_share_offset(flight);
            flight[at + 64] ^= 0x01;
            done = true;
        }
    })
    .unwrap_err()
    .server();
    assert_eq!(err, Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare));
}

#[test]
fn invalid_server_key_share_is_refused() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let mut done = false;
    let err = pump_with(&mut c, &mut s, |to_server, flight| {
        if !to_server && !done {
            // 04 || x || y -> 04 || x || x: almost surely off the curve.
            let at = key_share_offset(flight);
            let x: Vec<u8> = flight[at + 1..at + 33].to_vec();
            flight[at + 33..at + 65].copy_from_slice(&x);
            done = true;
        }
    })
    .unwrap_err()
    .client();
    assert_eq!(err, Error::PeerMisbehaved(PeerMisbehaved::InvalidKeyShare));
}

/// A server key that signs correctly but with the wrong SM2 identifier, or claims a
/// signature scheme the client never offered.
#[derive(Debug)]
struct Misbehaving {
    key: guomi_core::sm2::PrivateKey,
    uid: &'static [u8],
    claim: SignatureScheme,
}

impl SigningKey for Misbehaving {
    fn choose_scheme(&self, _offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        Some(Box::new(MisbehavingSigner {
            key: self.key.clone(),
            uid: self.uid,
            claim: self.claim,
        }))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::ECDSA
    }
}

#[derive(Debug)]
struct MisbehavingSigner {
    key: guomi_core::sm2::PrivateKey,
    uid: &'static [u8],
    claim: SignatureScheme,
}

impl Signer for MisbehavingSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        Ok(self.key.sign(message, self.uid).unwrap().to_der())
    }

    fn scheme(&self) -> SignatureScheme {
        self.claim
    }
}

fn misbehaving_server(pki: &Pki, uid: &'static [u8], claim: SignatureScheme) -> ServerConfig {
    let key = Misbehaving {
        key: pki.server.key.clone(),
        uid,
        claim,
    };
    guomi_rustls::server_builder()
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
            CertifiedKey::new(pki.server_chain(), Arc::new(key)),
        )))
}

#[test]
fn certificate_verify_with_the_wrong_sm2_identifier_fails() {
    // RFC 8998 §3.2.1: handshake signatures use "TLSv1.3+GM+Cipher+Suite", not the default.
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(misbehaving_server(
        &pki,
        guomi_core::sm2::DEFAULT_UID,
        SM2_SM3,
    ));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().client();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::BadSignature)
    );
}

#[test]
fn certificate_verify_with_the_right_identifier_passes() {
    // The same misbehaving plumbing with the right identifier: the control case.
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(misbehaving_server(
        &pki,
        guomi_rustls::TLS13_SM2_ID,
        SM2_SM3,
    ));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    pump(&mut c, &mut s).unwrap();
}

#[test]
fn certificate_verify_with_an_unoffered_scheme_fails() {
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    for claim in [
        SignatureScheme::ECDSA_NISTP256_SHA256,
        SignatureScheme::ED25519,
    ] {
        let server = Arc::new(misbehaving_server(&pki, guomi_rustls::TLS13_SM2_ID, claim));
        let (mut c, mut s) = connect(&client, &server, "localhost");
        let err = pump(&mut c, &mut s).unwrap_err().client();
        assert_eq!(
            err,
            Error::PeerMisbehaved(PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme)
        );
    }
}

#[test]
fn server_without_a_shared_suite_fails() {
    let pki = pki();
    let client = Arc::new(client_with(
        provider_with(suites::TLS_SM4_CCM_SM3),
        pki.roots(),
    ));
    // The server speaks GCM only, the client CCM only.
    let server = Arc::new(
        ServerConfig::builder_with_provider(provider_with(suites::TLS_SM4_GCM_SM3))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(pki.server_chain(), pki.server.key_der())
            .unwrap(),
    );
    let (mut c, mut s) = connect(&client, &server, "localhost");
    let err = pump(&mut c, &mut s).unwrap_err().server();
    assert!(matches!(err, Error::PeerIncompatible(_)), "{err:?}");
}

#[test]
fn mismatched_key_and_certificate_are_refused() {
    let pki = pki();
    let err = guomi_rustls::server_config(pki.server_chain(), pki.client.key_der()).unwrap_err();
    assert_eq!(
        err,
        Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)
    );
    // rustls's own check (through the key's SPKI) agrees.
    let loaded =
        rustls::sign::CertifiedKey::from_der(pki.server_chain(), pki.client.key_der(), &provider());
    assert!(loaded.is_err());
    let ok =
        rustls::sign::CertifiedKey::from_der(pki.server_chain(), pki.server.key_der(), &provider());
    assert!(ok.is_ok());
}

#[test]
fn fatal_alert_reaches_the_peer() {
    // An untrusted server: the client aborts with a bad_certificate-class alert and the
    // server sees it.
    let pki = pki();
    let other = ca("CN=another root");
    let client = Arc::new(guomi_rustls::client_config(vec![other.cert]).unwrap());
    let server = Arc::new(server_for(&pki));
    let (mut c, mut s) = connect(&client, &server, "localhost");
    assert!(pump(&mut c, &mut s).is_err());
    let alert = take_tls(&mut c);
    match feed(&mut s, &alert) {
        Err(Error::AlertReceived(a)) => assert_eq!(a, AlertDescription::UnknownCA),
        other => panic!("expected an alert, got {other:?}"),
    }
}

#[test]
fn certificate_der_roundtrip_in_verifier() {
    // from_der builds the same verifier as new().
    let pki = pki();
    let v = Sm2ServerVerifier::from_der(&[CertificateDer::from(pki.root.cert.to_der().to_vec())]);
    assert!(v.is_ok());
    assert!(Sm2ServerVerifier::from_der(&[CertificateDer::from(vec![0x30, 0x00])]).is_err());
    assert!(Sm2ServerVerifier::new(vec![]).is_err());
}

#[test]
fn revoked_server_certificate_is_refused() {
    use guomi_formats::x509::{CrlBuilder, Revocation};
    let pki = pki();
    let crl_for = |revoked: Vec<Revocation>| {
        CrlBuilder {
            this_update: now() - 60,
            next_update: Some(now() + 3600),
            crl_number: vec![1],
            revoked,
        }
        .sign(&pki.intermediate.cert, &pki.intermediate.key)
        .unwrap()
    };
    let root_crl = CrlBuilder {
        this_update: now() - 60,
        next_update: Some(now() + 3600),
        crl_number: vec![1],
        revoked: vec![],
    }
    .sign(&pki.root.cert, &pki.root.key)
    .unwrap();
    let server = Arc::new(server_for(&pki));
    let revoke = Revocation {
        serial: pki.server.cert.serial().to_vec(),
        date: now() - 30,
        reason: Some(1),
    };
    for (crls, ok) in [
        (vec![crl_for(vec![]), root_crl.clone()], true),
        (vec![crl_for(vec![revoke]), root_crl.clone()], false),
    ] {
        let verifier = Sm2ServerVerifier::new(pki.roots())
            .unwrap()
            .with_crls(crls, true);
        let client = Arc::new(
            guomi_rustls::client_builder()
                .unwrap()
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth(),
        );
        let (mut c, mut s) = connect(&client, &server, "localhost");
        let r = pump(&mut c, &mut s);
        if ok {
            r.unwrap();
        } else {
            assert_eq!(
                r.unwrap_err().client(),
                Error::InvalidCertificate(CertificateError::Revoked)
            );
        }
    }
    // CRLs required but none for the intermediate's issuer: fails closed.
    let verifier = Sm2ServerVerifier::new(pki.roots())
        .unwrap()
        .with_crls(vec![root_crl], true);
    let client = Arc::new(
        guomi_rustls::client_builder()
            .unwrap()
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth(),
    );
    let (mut c, mut s) = connect(&client, &server, "localhost");
    assert!(matches!(
        pump(&mut c, &mut s).unwrap_err().client(),
        Error::InvalidCertificate(_)
    ));
}

#[test]
fn rustls_webpki_helper_verifies_sm2sig_sm3_with_the_provider_algorithms() {
    // rustls's own `verify_tls13_signature` (webpki parses the certificate, the provider's
    // algorithm checks the signature) agrees with the verifiers here.
    use rustls::sign::SigningKey;
    let pki = pki();
    let signing = guomi_rustls::sign::Sm2SigningKey::new(pki.server.key.clone());
    let msg = b"CertificateVerify content";
    let sig = signing
        .choose_scheme(&[SM2_SM3])
        .unwrap()
        .sign(msg)
        .unwrap();
    let mut encoded = 0x0708u16.to_be_bytes().to_vec();
    encoded.extend_from_slice(&(sig.len() as u16).to_be_bytes());
    encoded.extend_from_slice(&sig);
    let dss = <rustls::DigitallySignedStruct as rustls::internal::msgs::codec::Codec>::read_bytes(
        &encoded,
    )
    .unwrap();
    let algs = provider().signature_verification_algorithms;
    rustls::crypto::verify_tls13_signature(msg, &pki.server.der(), &dss, &algs).unwrap();
    assert!(
        rustls::crypto::verify_tls13_signature(b"other", &pki.server.der(), &dss, &algs).is_err()
    );
}

/// The extensions of a ClientHello flight: (type, body).
fn client_hello_parts(flight: &[u8]) -> (Vec<u16>, Vec<(u16, Vec<u8>)>) {
    let u16_at = |b: &[u8], i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    assert_eq!(flight[0], 22, "a handshake record");
    let hs = &flight[5..];
    assert_eq!(hs[0], 1, "ClientHello");
    let body = &hs[4..];
    let mut i = 2 + 32; // legacy_version, random
    i += 1 + body[i] as usize; // legacy_session_id
    let n = u16_at(body, i) as usize;
    let suites = body[i + 2..i + 2 + n]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    i += 2 + n;
    i += 1 + body[i] as usize; // legacy_compression_methods
    let end = i + 2 + u16_at(body, i) as usize;
    i += 2;
    let mut exts = Vec::new();
    while i < end {
        let (t, len) = (u16_at(body, i), u16_at(body, i + 2) as usize);
        exts.push((t, body[i + 4..i + 4 + len].to_vec()));
        i += 4 + len;
    }
    (suites, exts)
}

#[test]
fn client_hello_carries_the_rfc8998_profile() {
    // RFC 8998 §3.3.1.1: the SM suites, curveSM2 in supported_groups and key_share,
    // sm2sig_sm3 in signature_algorithms; nothing else is offered.
    let pki = pki();
    let client = Arc::new(guomi_rustls::client_config(pki.roots()).unwrap());
    let server = Arc::new(server_for(&pki));
    let (mut c, _s) = connect(&client, &server, "localhost");
    let flight = take_tls(&mut c);
    let (suites, exts) = client_hello_parts(&flight);
    let suites: Vec<u16> = suites.into_iter().filter(|&s| s != 0x00ff).collect();
    assert_eq!(suites, [0x00c6, 0x00c7]);
    let ext = |t: u16| &exts.iter().find(|e| e.0 == t).expect("extension").1;
    assert_eq!(
        ext(0x000a)[..],
        [0x00, 0x02, 0x00, 0x29],
        "supported_groups"
    );
    assert_eq!(
        ext(0x000d)[..],
        [0x00, 0x02, 0x07, 0x08],
        "signature_algorithms"
    );
    let ks = ext(0x0033);
    assert_eq!(
        ks[..6],
        [0x00, 0x45, 0x00, 0x29, 0x00, 0x41],
        "one curveSM2 share"
    );
    assert_eq!(ks[6], 0x04, "uncompressed");
    assert_eq!(ext(0x002b)[..], [0x02, 0x03, 0x04], "TLS 1.3 only");
}
