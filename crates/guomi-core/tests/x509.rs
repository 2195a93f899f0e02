//! X.509, PKCS#10 and protected keys: build, parse, verify, and every failure path.

use guomi_core::sm2::PrivateKey;
use guomi_core::x509::{
    verify_chain, Certificate, CertificateBuilder, CertificateRequest, GeneralNameValue,
    RequestBuilder,
};
use guomi_core::Error;

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
    b.extended_key_usage = vec![guomi_core::x509::oid::SERVER_AUTH];
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
    assert_eq!(c.basic_constraints().unwrap(), Some((false, None)));
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
    match Certificate::from_der(&bad) {
        Ok(t) => assert!(t.verify_signature_with(k.public_key()).is_err()),
        Err(_) => {}
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
    let path = verify_chain(&leaf, &[int.clone()], &[root.clone()], NOW, None).unwrap();
    assert_eq!(path.len(), 3);
    assert_eq!(path[2], root);

    // Missing intermediate.
    let e = verify_chain(&leaf, &[], &[root.clone()], NOW, None).unwrap_err();
    assert_eq!(e.subject, "CN=leaf");
    assert!(
        e.reason.contains("issuer \"CN=Intermediate CA\" not found"),
        "{e}"
    );
    // Expired / not yet valid.
    let e = verify_chain(
        &leaf,
        &[int.clone()],
        &[root.clone()],
        NOW + 400 * DAY,
        None,
    )
    .unwrap_err();
    assert!(e.reason.starts_with("expired"), "{e}");
    let e = verify_chain(&leaf, &[int.clone()], &[root.clone()], NOW - 2 * DAY, None).unwrap_err();
    assert!(e.reason.starts_with("not yet valid"), "{e}");
    // Untrusted root.
    let other = ca("CN=Other Root", &PrivateKey::generate().unwrap(), None);
    let e = verify_chain(&leaf, &[int.clone(), root.clone()], &[other], NOW, None).unwrap_err();
    assert_eq!(e.subject, "CN=Root CA");
    assert!(e.reason.contains("self-signed"), "{e}");
    // Same name, different key: wrong issuer.
    let fake_root = ca("CN=Root CA", &PrivateKey::generate().unwrap(), Some(1));
    let e = verify_chain(&leaf, &[int.clone()], &[fake_root], NOW, None).unwrap_err();
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
        &[root.clone()],
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
        &[root.clone()],
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
    kb.key_usage = Some(guomi_core::x509::KeyUsageFlags(1));
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
    pb.extended_key_usage = vec![guomi_core::x509::oid::CLIENT_AUTH];
    let client = pb.sign(&int, &ik).unwrap();
    let e = verify_chain(
        &client,
        &[int.clone()],
        &[root.clone()],
        NOW,
        Some(guomi_core::x509::oid::SERVER_AUTH),
    )
    .unwrap_err();
    assert!(e.reason.contains("serverAuth"), "{e}");
    verify_chain(
        &client,
        &[int.clone()],
        &[root.clone()],
        NOW,
        Some(guomi_core::x509::oid::CLIENT_AUTH),
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
