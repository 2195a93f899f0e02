//! X.509, PKCS#10 and protected keys: build, parse, verify, and every failure path.

use guomi_core::sm2::PrivateKey;
use guomi_core::Error;
use guomi_formats::sm2_keys::{PrivateKeyEncoding, PublicKeyEncoding};
use guomi_formats::x509::{
    verify_chain, Certificate, CertificateBuilder, CertificateRequest, GeneralNameValue,
    RequestBuilder,
};

const NOW: i64 = 1_750_000_000; // 2025-06-15
const DAY: i64 = 86_400;

fn ca(name: &str, key: &PrivateKey, path_len: Option<u8>) -> Certificate {
    let mut b =
        CertificateBuilder::new(name, key.public_key().clone(), NOW - DAY, NOW + 3650 * DAY)
            .unwrap();
    b.ca(path_len);
    b.self_sign(key).unwrap()
}

fn issue(
    name: &str,
    key: &PrivateKey,
    issuer: &Certificate,
    issuer_key: &PrivateKey,
    is_ca: bool,
    path_len: Option<u8>,
) -> Certificate {
    let mut b = CertificateBuilder::new(name, key.public_key().clone(), NOW - DAY, NOW + 365 * DAY)
        .unwrap();
    if is_ca {
        b.ca(path_len);
    }
    b.sign(issuer, issuer_key).unwrap()
}

#[test]
fn end_entity_basic_constraints_only_when_asked() {
    // Default: no extension. Asked for explicitly: critical cA=FALSE, DER
    // 30 0c 06 03 55 1d 13 01 01 ff 04 02 30 00 (what every leaf carried before).
    let k = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new("CN=ee", k.public_key().clone(), NOW, NOW + DAY).unwrap();
    assert_eq!(b.basic_constraints, None);
    let bc_ext = hex::decode("300c0603551d130101ff04023000").unwrap();
    let has = |der: &[u8]| der.windows(bc_ext.len()).any(|w| w == bc_ext);
    let c = b.self_sign(&k).unwrap();
    assert_eq!(c.basic_constraints().unwrap(), None);
    assert!(!has(c.to_der()));
    b.basic_constraints = Some((false, None));
    let c = b.self_sign(&k).unwrap();
    assert_eq!(c.basic_constraints().unwrap(), Some((false, None)));
    assert!(has(c.to_der()));
}

#[test]
fn build_parse_and_inspect() {
    let k = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=leaf.example,O=Example,C=CN",
        k.public_key().clone(),
        NOW,
        NOW + DAY,
    )
    .unwrap();
    b.subject_alt_names = vec![
        GeneralNameValue::Dns("leaf.example".into()),
        GeneralNameValue::Ip(vec![127, 0, 0, 1]),
        GeneralNameValue::Email("a@b.example".into()),
    ];
    b.extended_key_usage = vec![guomi_formats::x509::oid::SERVER_AUTH];
    b.serial = Some(vec![0x01, 0x02]);
    let c = b.self_sign(&k).unwrap();
    assert_eq!(c.subject(), "CN=leaf.example,O=Example,C=CN");
    assert_eq!(c.issuer(), c.subject());
    assert_eq!(c.serial(), &[1, 2]);
    assert_eq!(c.version(), 3);
    assert_eq!(c.not_before(), NOW);
    assert_eq!(c.not_after(), NOW + DAY);
    assert_eq!(c.signature_algorithm(), "1.2.156.10197.1.501");
    assert_eq!(&c.public_key().unwrap(), k.public_key());
    // End entities get no basicConstraints by default (GmSSL 3.1.1 refuses the empty
    // SEQUENCE of cA=FALSE); 2.5.29.19 appears nowhere in the certificate.
    assert_eq!(c.basic_constraints().unwrap(), None);
    assert!(!c
        .to_der()
        .windows(5)
        .any(|w| w == [0x06, 0x03, 0x55, 0x1d, 0x13]));
    assert_eq!(
        c.key_usage().unwrap().unwrap().names(),
        ["digitalSignature", "keyEncipherment"]
    );
    assert_eq!(c.subject_alt_names().unwrap().unwrap().len(), 3);
    assert_eq!(c.subject_key_id().unwrap().unwrap().len(), 20);
    assert_eq!(c.subject_key_id().unwrap(), c.authority_key_id().unwrap());
    c.verify_signature(&c).unwrap();
    let again = Certificate::from_pem(&c.to_pem().unwrap()).unwrap();
    assert_eq!(again, c);
    assert_eq!(c.fingerprint_sm3(), guomi_core::sm3::hash(c.to_der()));
    // A serial with the top bit set gets a sign byte; times after 2049 use GeneralizedTime.
    b.serial = Some(vec![0xff]);
    b.not_after = 2_600_000_000;
    let c2 = b.self_sign(&k).unwrap();
    assert_eq!(c2.serial(), &[0, 0xff]);
    assert_eq!(c2.not_after(), 2_600_000_000);
    // RFC 5280 §4.1.2.2: at most 20 octets encoded. 2^159 - 1 fits; 2^159 needs a sign
    // byte (21 octets) and is a typed argument error, not a late "malformed DER".
    let mut largest = vec![0xff; 20];
    largest[0] = 0x7f;
    b.serial = Some(largest.clone());
    assert_eq!(b.self_sign(&k).unwrap().serial(), &largest[..]);
    let mut too_big = vec![0; 20];
    too_big[0] = 0x80;
    for bad in [too_big, vec![1; 21], vec![], vec![0, 0]] {
        b.serial = Some(bad.clone());
        assert!(
            matches!(b.self_sign(&k), Err(Error::InvalidValue(m)) if m.contains("20")),
            "{bad:02x?}"
        );
    }
    b.serial = None;
    // The wrong key cannot self-sign.
    assert!(b.self_sign(&PrivateKey::generate().unwrap()).is_err());
}

#[test]
fn tampered_certificate_fails() {
    let k = PrivateKey::generate().unwrap();
    let c = ca("CN=Root", &k, None);
    let der = c.to_der().to_vec();
    // Flip a byte inside the subject public key / validity region of the TBS.
    let pos = der.len() / 2;
    let mut bad = der.clone();
    bad[pos] ^= 1;
    if let Ok(t) = Certificate::from_der(&bad) {
        assert!(t.verify_signature_with(k.public_key()).is_err());
    }
    // Flip the last byte (inside the signature).
    let mut bad = der.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let t = Certificate::from_der(&bad).unwrap();
    assert_eq!(
        t.verify_signature_with(k.public_key()),
        Err(Error::InvalidSignature)
    );
    assert!(Certificate::from_der(&der[..der.len() - 1]).is_err());
    assert!(
        Certificate::from_pem("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n")
            .is_err()
    );
}

#[test]
fn chain_ok_and_every_failure() {
    let rk = PrivateKey::generate().unwrap();
    let ik = PrivateKey::generate().unwrap();
    let lk = PrivateKey::generate().unwrap();
    let root = ca("CN=Root CA", &rk, Some(1));
    let int = issue("CN=Intermediate CA", &ik, &root, &rk, true, Some(0));
    let leaf = issue("CN=leaf", &lk, &int, &ik, false, None);
    let path = verify_chain(
        &leaf,
        std::slice::from_ref(&int),
        std::slice::from_ref(&root),
        NOW,
        None,
    )
    .unwrap();
    assert_eq!(path.len(), 3);
    assert_eq!(path[2], root);

    // Missing intermediate.
    let e = verify_chain(&leaf, &[], std::slice::from_ref(&root), NOW, None).unwrap_err();
    assert_eq!(e.subject, "CN=leaf");
    assert!(
        e.reason.contains("issuer \"CN=Intermediate CA\" not found"),
        "{e}"
    );
    // Expired / not yet valid.
    let e = verify_chain(
        &leaf,
        std::slice::from_ref(&int),
        std::slice::from_ref(&root),
        NOW + 400 * DAY,
        None,
    )
    .unwrap_err();
    assert!(e.reason.starts_with("expired"), "{e}");
    let e = verify_chain(
        &leaf,
        std::slice::from_ref(&int),
        std::slice::from_ref(&root),
        NOW - 2 * DAY,
        None,
    )
    .unwrap_err();
    assert!(e.reason.starts_with("not yet valid"), "{e}");
    // Untrusted root.
    let other = ca("CN=Other Root", &PrivateKey::generate().unwrap(), None);
    let e = verify_chain(&leaf, &[int.clone(), root.clone()], &[other], NOW, None).unwrap_err();
    assert_eq!(e.subject, "CN=Root CA");
    assert!(e.reason.contains("self-signed"), "{e}");
    // Same name, different key: wrong issuer.
    let fake_root = ca("CN=Root CA", &PrivateKey::generate().unwrap(), Some(1));
    let e = verify_chain(&leaf, std::slice::from_ref(&int), &[fake_root], NOW, None).unwrap_err();
    assert_eq!(e.subject, "CN=Intermediate CA");
    assert!(e.reason.contains("signature does not verify"), "{e}");
    // Non-CA issuer: a leaf "issuing" another certificate (built by hand: the builder
    // refuses, so use a CA builder under the leaf's name and key, then a non-CA twin).
    let mut nb =
        CertificateBuilder::new("CN=leaf", lk.public_key().clone(), NOW - DAY, NOW + DAY).unwrap();
    nb.basic_constraints = Some((true, None));
    nb.key_usage = None;
    let as_ca = nb.sign(&int, &ik).unwrap();
    let sub = CertificateBuilder::new(
        "CN=sub",
        PrivateKey::generate().unwrap().public_key().clone(),
        NOW - DAY,
        NOW + DAY,
    )
    .unwrap()
    .sign(&as_ca, &lk)
    .unwrap();
    let e = verify_chain(
        &sub,
        &[leaf.clone(), int.clone()],
        std::slice::from_ref(&root),
        NOW,
        None,
    )
    .unwrap_err();
    assert_eq!(e.subject, "CN=leaf");
    assert!(e.reason.contains("not a CA"), "{e}");
    // pathLen exceeded: int has pathLen 0, a second intermediate below it is too many.
    let i2k = PrivateKey::generate().unwrap();
    let int2 = issue("CN=Int2", &i2k, &int, &ik, true, None);
    let leaf2 = issue("CN=leaf2", &lk, &int2, &i2k, false, None);
    let e = verify_chain(
        &leaf2,
        &[int.clone(), int2.clone()],
        std::slice::from_ref(&root),
        NOW,
        None,
    )
    .unwrap_err();
    assert_eq!(e.subject, "CN=Intermediate CA");
    assert!(e.reason.contains("path length"), "{e}");
    // keyCertSign missing.
    let mut kb = CertificateBuilder::new(
        "CN=NoSign CA",
        ik.public_key().clone(),
        NOW - DAY,
        NOW + DAY,
    )
    .unwrap();
    kb.ca(None);
    kb.key_usage = Some(guomi_formats::x509::KeyUsageFlags(1));
    let nosign = kb.sign(&root, &rk).unwrap();
    let mut lb =
        CertificateBuilder::new("CN=leaf3", lk.public_key().clone(), NOW - DAY, NOW + DAY).unwrap();
    lb.key_usage = None;
    assert!(
        lb.sign(&nosign, &ik).is_err(),
        "the builder refuses a CA without keyCertSign"
    );
    // Purpose.
    let mut pb =
        CertificateBuilder::new("CN=client", lk.public_key().clone(), NOW - DAY, NOW + DAY)
            .unwrap();
    pb.extended_key_usage = vec![guomi_formats::x509::oid::CLIENT_AUTH];
    let client = pb.sign(&int, &ik).unwrap();
    let e = verify_chain(
        &client,
        std::slice::from_ref(&int),
        std::slice::from_ref(&root),
        NOW,
        Some(guomi_formats::x509::oid::SERVER_AUTH),
    )
    .unwrap_err();
    assert!(e.reason.contains("serverAuth"), "{e}");
    verify_chain(
        &client,
        std::slice::from_ref(&int),
        std::slice::from_ref(&root),
        NOW,
        Some(guomi_formats::x509::oid::CLIENT_AUTH),
    )
    .unwrap();
}

#[test]
fn csr_build_parse_verify_issue() {
    let k = PrivateKey::generate().unwrap();
    let mut rb = RequestBuilder::new("CN=leaf,O=Example").unwrap();
    rb.subject_alt_names = vec![GeneralNameValue::Dns("leaf.example".into())];
    let req = rb.sign(&k).unwrap();
    let back = CertificateRequest::from_pem(&req.to_pem().unwrap()).unwrap();
    back.verify().unwrap();
    assert_eq!(back.subject(), "CN=leaf,O=Example");
    assert_eq!(&back.public_key().unwrap(), k.public_key());
    assert_eq!(
        back.subject_alt_names().unwrap(),
        vec![GeneralNameValue::Dns("leaf.example".into())]
    );
    let mut der = back.to_der().to_vec();
    let n = der.len();
    der[n - 2] ^= 1;
    let bad = CertificateRequest::from_der(&der).unwrap();
    assert_eq!(bad.verify(), Err(Error::InvalidSignature));
    assert!(CertificateBuilder::from_request(&bad, NOW, NOW + DAY).is_err());
    let rk = PrivateKey::generate().unwrap();
    let root = ca("CN=Root", &rk, None);
    let cert = CertificateBuilder::from_request(&back, NOW, NOW + DAY)
        .unwrap()
        .sign(&root, &rk)
        .unwrap();
    assert_eq!(cert.subject(), "CN=leaf,O=Example");
    assert_eq!(cert.issuer(), "CN=Root");
    cert.verify_signature(&root).unwrap();
    assert_eq!(cert.subject_alt_names().unwrap().unwrap().len(), 1);
}

/// Written by OpenSSL 3.0.19 (`openssl ec -in k.pem -sm4 -passout pass:pw`): legacy PEM,
/// DEK-Info SM4-CBC, key = MD5(password || iv[..8]).
const OPENSSL_LEGACY_SM4: &str = "-----BEGIN SM2 PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: SM4-CBC,FB5F74ABC31489C66CDCB977406E194A\n\nMUD1neiYHR5RHRe6rZHRSQL0a6YhrXdzGSkECFbcN/O2XjR2b61V07gA1ns6nJpl\n4mIu+IWtdvjlfX3zP4IF2yZgfr8cFLPuN246/f4bYRTlmo4nfmM4sukofpS5bYe1\nixD1Xdf+4yh8c3i0sjPzCfVf9tlLQ6HqO7VLzkm4Fdc=\n-----END SM2 PRIVATE KEY-----\n";
/// Written by OpenSSL 3.0.19 (`openssl pkcs8 -topk8 -v2 sm4-cbc -v2prf hmacWithSHA256
/// -passout pass:pw`) from the same key: 8-byte salt, 2048 iterations.
const OPENSSL_PBES2_SHA256: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHrMFYGCSqGSIb3DQEFDTBJMCkGCSqGSIb3DQEFDDAcBAjPkka7mUqqugICCAAw\nDAYIKoZIhvcNAgkFADAcBggqgRzPVQFoAgQQR9k8VGdq3vB1nETIFZ1YqgSBkOtl\nX9AVZVcBuLTuipZ/layTIitH0rMdH1wCBpGO6PBmUkkQBi26BzhyxqQf3OnBsD0g\n8K/V0fYEHz5gesRLOQiXzQdjTcRSDTZjV9ugrKwBOKaddT6PjenBro30mgqzy15A\nQTPXgGD81PUj5Iif55sm5DRKc598HdhhIfLFxt8HLlmzX2wtAr5+lL/75KJ1uQ==\n-----END ENCRYPTED PRIVATE KEY-----\n";
/// d of that key (`openssl pkey -text`).
const OPENSSL_D: &str = "e47b16ca250d6d630435e439b44ba5c12563930ba5af26b1cfa24aa0de6c5b1a";
/// A three-level chain made by OpenSSL 3.0.19 (`req -x509 ... -sigopt
/// distid:1234567812345678`, `x509 -req ... -sigopt distid:...`): root, intermediate, leaf.
const OPENSSL_CHAIN: [&str; 3] = ["-----BEGIN CERTIFICATE-----\nMIIBdDCCARugAwIBAgIUUmmhUB6b2gIxu4K/3tRCo2cjuIswCgYIKoEcz1UBg3Uw\nEDEOMAwGA1UEAwwFT1Jvb3QwHhcNMjYxMTMwMDE1NjM1WhcNMjYxMjMwMDE1NjM1\nWjAQMQ4wDAYDVQQDDAVPUm9vdDBZMBMGByqGSM49AgEGCCqBHM9VAYItA0IABAvQ\ni/hCY4T6M4usGRiNZUCRvHO1hSP4DSM/kYMQjWeYbAj6p70Qw3ROMv8tn3tDVIEb\nEnYRByWiLADJD1TDrS6jUzBRMB0GA1UdDgQWBBR82NFdAz9EXZZ1i6D6Km7yiP+k\nJDAfBgNVHSMEGDAWgBR82NFdAz9EXZZ1i6D6Km7yiP+kJDAPBgNVHRMBAf8EBTAD\nAQH/MAoGCCqBHM9VAYN1A0cAMEQCIGhmTg4BhQcBPLwnYGubw1f5To5dMPrQCye1\nff7gyDAUAiAkbPFlvBOlqPTGv6txp7ihux+EQO1P9Dnm0RZjv79qYA==\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nMIIBhTCCASqgAwIBAgIUHbC9SLiTZmL/z7HMCReIsnwc0jAwCgYIKoEcz1UBg3Uw\nEDEOMAwGA1UEAwwFT1Jvb3QwHhcNMjYxMTMwMDE1NjM1WhcNMjYxMjEwMDE1NjM1\nWjAPMQ0wCwYDVQQDDARPU3ViMFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAE6TGT\n09lk/R1OyUqE3dPJ8lCgMdqClcwZAcCF5qmAzZq/4A6uPiXQWCjIZMUSK6iSCmMx\n1XHubLHBOKe1cBGEv6NjMGEwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMC\nAgQwHQYDVR0OBBYEFJHrXKTXjNh3TfeSkajAh5HXz+HAMB8GA1UdIwQYMBaAFHzY\n0V0DP0RdlnWLoPoqbvKI/6QkMAoGCCqBHM9VAYN1A0kAMEYCIQD9vu5cvXPDlU5z\nWYg/CRsEoru6Hai1YE6LA+4FypuZ+gIhAJN/56jLL/do25NUyUmju/Tw/1l7ErQQ\nlB4QsTnUEJAe\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nMIIBGDCBwAIUZmpGrsTDDMxsS3KwKYb/2ms6kvEwCgYIKoEcz1UBg3UwDzENMAsG\nA1UEAwwET1N1YjAeFw0yNjExMzAwMTU2MzVaFw0yNjEyMDUwMTU2MzVaMBAxDjAM\nBgNVBAMMBU9MZWFmMFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAEGfGYd0XQ9QIf\nyduJPxw0AbZUG00NXojXiVdH/sHakgpxJ+++bcSf1QCRpYdDisxey3qvW2Tf/4fQ\nc6cGQYRCUTAKBggqgRzPVQGDdQNHADBEAiA+Y5OaH6FIG/0+M05t4fvp5Tn3KD8R\nazWWpiEdC8tD3gIgUJrFEcK+wCvLO2CKwjcBatMkmaV0vguOYkaEtRY0EhI=\n-----END CERTIFICATE-----\n"];

#[test]
fn openssl_written_protected_keys() {
    use guomi_formats::x509::load_private_key_pem;
    for text in [OPENSSL_LEGACY_SM4, OPENSSL_PBES2_SHA256] {
        let k = load_private_key_pem(text, Some(b"pw")).unwrap();
        assert_eq!(hex::encode(&k.to_bytes()[..]), OPENSSL_D);
        assert!(matches!(
            load_private_key_pem(text, Some(b"pW")),
            Err(Error::InvalidKey(_))
        ));
        assert!(matches!(
            load_private_key_pem(text, None),
            Err(Error::InvalidValue(_))
        ));
    }
}

#[test]
fn openssl_three_level_chain_validates() {
    let c: Vec<Certificate> = OPENSSL_CHAIN
        .iter()
        .map(|p| Certificate::from_pem(p).unwrap())
        .collect();
    let at = c[2].not_before() + 60;
    let path = verify_chain(&c[2], &[c[1].clone()], &[c[0].clone()], at, None).unwrap();
    assert_eq!(path.len(), 3);
    assert_eq!(c[0].subject(), "CN=ORoot");
    c[1].verify_signature(&c[0]).unwrap();
    c[2].verify_signature(&c[1]).unwrap();
    assert!(c[2].verify_signature(&c[0]).is_err());
    let e = verify_chain(
        &c[2],
        &[c[1].clone()],
        &[c[0].clone()],
        c[2].not_after() + 1,
        None,
    )
    .unwrap_err();
    assert_eq!(e.subject, "CN=OLeaf");
}

/// A CA certificate with `subject` and `key`, issued (signed) by `signer` under the same
/// issuer name as the subject: a "mutually signed" CA when several share the name.
fn cross(subject: &str, key: &PrivateKey, signer: &PrivateKey) -> Certificate {
    let mut b = CertificateBuilder::new(
        subject,
        key.public_key().clone(),
        NOW - DAY,
        NOW + 3650 * DAY,
    )
    .unwrap();
    b.ca(None);
    // The builder wants the issuer's certificate: a throwaway one for the signer's key
    // under the same name gives the issuer name and key identifier.
    let signer_cert = ca(subject, signer, None);
    b.sign(&signer_cert, signer).unwrap()
}

fn leaf_under(subject: &str, issuer_key: &PrivateKey) -> Certificate {
    let k = PrivateKey::generate().unwrap();
    let issuer = ca(subject, issuer_key, None);
    issue("CN=victim leaf", &k, &issuer, issuer_key, false, None)
}

#[test]
fn a_dozen_same_name_same_key_cas_answer_quickly() {
    // Twelve CA certificates with one name and one key, each signing the others: before
    // path building was bounded this took exponential time (every ordering is a path).
    let key = PrivateKey::generate().unwrap();
    let cas: Vec<Certificate> = (0..12).map(|_| cross("CN=Loop CA", &key, &key)).collect();
    let leaf = leaf_under("CN=Loop CA", &key);
    let unrelated = ca("CN=Unrelated Root", &PrivateKey::generate().unwrap(), None);
    let t = std::time::Instant::now();
    let e = verify_chain(&leaf, &cas, &[unrelated], NOW, None).unwrap_err();
    assert!(t.elapsed().as_millis() < 1000, "{:?}", t.elapsed());
    assert_eq!(e.subject, "CN=Loop CA");
    assert!(e.reason.contains("not among the trust roots"), "{e}");
    // One of them trusted: found at once.
    let path = verify_chain(&leaf, &cas, &cas[5..6], NOW, None).unwrap();
    assert_eq!(path.len(), 2);
}

#[test]
fn cross_signed_cas_with_distinct_keys_hit_the_work_cap() {
    use guomi_formats::x509::chain::GAVE_UP;
    // 12 keys under one name, every key certified by every other: 132 certificates and
    // 12!-ish loop-free orderings.
    let keys: Vec<PrivateKey> = (0..12).map(|_| PrivateKey::generate().unwrap()).collect();
    let mut cas = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        for (j, s) in keys.iter().enumerate() {
            if i != j {
                cas.push(cross("CN=Mesh CA", k, s));
            }
        }
    }
    let leaf = leaf_under("CN=Mesh CA", &keys[0]);
    let unrelated = ca("CN=Unrelated Root", &PrivateKey::generate().unwrap(), None);
    let t = std::time::Instant::now();
    let e = verify_chain(&leaf, &cas, &[unrelated], NOW, None).unwrap_err();
    assert!(t.elapsed().as_millis() < 1000, "{:?}", t.elapsed());
    assert!(e.reason.starts_with(GAVE_UP), "{e}");
    assert_eq!((e.subject.as_str(), e.depth), ("CN=victim leaf", 0));
    // With a real root among the noise the path is still found, memoized per issuer key.
    let root = ca("CN=Mesh CA", &keys[0], None);
    let leaf5 = leaf_under("CN=Mesh CA", &keys[5]);
    let path = verify_chain(&leaf5, &cas, std::slice::from_ref(&root), NOW, None).unwrap();
    assert_eq!(path.len(), 3);
    assert_eq!(path[2], root);
    assert_eq!(&path[1].public_key().unwrap(), keys[5].public_key());
}

#[test]
fn too_many_certificates_and_too_long_paths_are_refused() {
    use guomi_formats::x509::chain::{MAX_CERTIFICATES, MAX_PATH_LEN};
    let rk = PrivateKey::generate().unwrap();
    let root = ca("CN=Root", &rk, None);
    let lk = PrivateKey::generate().unwrap();
    let leaf = issue("CN=leaf", &lk, &root, &rk, false, None);
    let many = vec![root.clone(); MAX_CERTIFICATES];
    let e = verify_chain(&leaf, &many, std::slice::from_ref(&root), NOW, None).unwrap_err();
    assert!(e.reason.contains("too many certificates"), "{e}");
    assert!(verify_chain(&leaf, &many[1..], std::slice::from_ref(&root), NOW, None).is_ok());
    // A straight chain of MAX_PATH_LEN certificates validates; one more does not.
    let mut keys = vec![rk.clone()];
    let mut chain = vec![root.clone()];
    for i in 0..MAX_PATH_LEN - 1 {
        let k = PrivateKey::generate().unwrap();
        let c = issue(
            &format!("CN=Level {i}"),
            &k,
            chain.last().unwrap(),
            keys.last().unwrap(),
            true,
            None,
        );
        keys.push(k);
        chain.push(c);
    }
    // chain[0] is the root; chain[MAX_PATH_LEN - 1] is the deepest CA.
    let ints: Vec<Certificate> = chain[1..].to_vec();
    let ok = verify_chain(
        &chain[MAX_PATH_LEN - 1],
        &ints,
        std::slice::from_ref(&root),
        NOW,
        None,
    )
    .unwrap();
    assert_eq!(ok.len(), MAX_PATH_LEN);
    let deeper = issue(
        "CN=too deep",
        &lk,
        &chain[MAX_PATH_LEN - 1],
        &keys[MAX_PATH_LEN - 1],
        false,
        None,
    );
    let e = verify_chain(&deeper, &ints, &[root], NOW, None).unwrap_err();
    assert!(e.reason.contains("too long"), "{e}");
}

/// A DER SEQUENCE with `extra` appended inside it (short or 2-byte lengths).
fn inject(der: &[u8], extra: &[u8]) -> Vec<u8> {
    let (hdr, len) = match der[1] {
        n if n < 0x80 => (2, n as usize),
        0x81 => (3, der[2] as usize),
        0x82 => (4, u16::from_be_bytes([der[2], der[3]]) as usize),
        _ => unreachable!(),
    };
    assert_eq!(hdr + len, der.len());
    let mut body = der[hdr..].to_vec();
    body.extend_from_slice(extra);
    let mut out = vec![der[0]];
    match body.len() {
        n if n < 0x80 => out.push(n as u8),
        n if n < 0x100 => out.extend_from_slice(&[0x81, n as u8]),
        n => out.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]),
    }
    out.extend_from_slice(&body);
    out
}

#[test]
fn key_formats_reject_trailing_data() {
    use guomi_core::sm2::PublicKey;
    use guomi_formats::x509::{
        decrypt_private_key_der, encrypt_private_key_der, load_private_key_der, Prf,
    };
    let k = PrivateKey::generate().unwrap();
    let pkcs8 = k.to_pkcs8_der();
    let sec1 = k.to_sec1_der();
    let spki = k.public_key().to_spki_der();
    assert!(load_private_key_der(&pkcs8, None).is_ok());
    // Fields after the key inside the PKCS#8 SEQUENCE were ignored before.
    for extra in [
        &[0x05u8, 0x00][..],
        &[0x82, 0x01, 0x00],
        &[0xa0, 0x00, 0x05, 0x00],
    ] {
        let bad = inject(&pkcs8, extra);
        assert!(matches!(
            <PrivateKey>::from_pkcs8_der(&bad),
            Err(Error::UnsupportedFormat(_))
        ));
        assert!(load_private_key_der(&bad, None).is_err());
    }
    // RFC 5958 [0] attributes and [1] publicKey stay accepted.
    assert!(<PrivateKey>::from_pkcs8_der(&inject(&pkcs8, &[0xa0, 0x00, 0x81, 0x01, 0x00])).is_ok());
    for good in [&pkcs8[..], &sec1[..]] {
        let mut after = good.to_vec();
        after.push(0);
        assert!(<PrivateKey>::from_der(&after).is_err());
        assert!(<PrivateKey>::from_der(&inject(good, &[0x05, 0x00])).is_err());
    }
    let mut after = spki.clone();
    after.push(0);
    assert!(<PublicKey>::from_spki_der(&after).is_err());
    assert!(<PublicKey>::from_spki_der(&inject(&spki, &[0x05, 0x00])).is_err());
    // Encrypted PKCS#8: after and inside the outer SEQUENCE.
    let enc = encrypt_private_key_der(&k, b"pw", Prf::HmacSm3, 10).unwrap();
    assert!(decrypt_private_key_der(&enc, b"pw").is_ok());
    let mut after = enc.clone();
    after.push(0);
    for bad in [after, inject(&enc, &[0x05, 0x00])] {
        assert!(matches!(
            decrypt_private_key_der(&bad, b"pw"),
            Err(Error::UnsupportedFormat(_))
        ));
    }
    // Certificates too.
    let c = ca("CN=Strict", &k, None);
    let mut after = c.to_der().to_vec();
    after.push(0);
    assert!(Certificate::from_der(&after).is_err());
    assert!(Certificate::from_der(&inject(c.to_der(), &[0x05, 0x00])).is_err());
}
