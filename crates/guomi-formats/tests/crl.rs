//! CRLs in chain validation (RFC 5280 §6.3): revoked certificates at every depth, CRLs
//! that must not be relied on (wrong key, stale, not yet valid, issuer without cRLSign,
//! unsupported critical extensions), `require_crls`, removeFromCRL, and the bounds.

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::chain::{MAX_CRLS, MAX_SIGNATURE_CHECKS};
use guomi_formats::x509::{
    verify_chain_with_crls, Certificate, CertificateBuilder, Crl, CrlBuilder, KeyUsageFlags,
    Revocation,
};

const NOW: i64 = 1_750_000_000; // 2025-06-15
const DAY: i64 = 86_400;

struct Pki {
    root_key: PrivateKey,
    root: Certificate,
    int_key: PrivateKey,
    int: Certificate,
    leaf: Certificate,
}

fn pki() -> Pki {
    let root_key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=Root",
        root_key.public_key().clone(),
        NOW - DAY,
        NOW + 3650 * DAY,
    )
    .unwrap();
    b.ca(None);
    let root = b.self_sign(&root_key).unwrap();
    let int_key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=Int",
        int_key.public_key().clone(),
        NOW - DAY,
        NOW + 365 * DAY,
    )
    .unwrap();
    b.ca(None);
    b.serial = Some(vec![0x11]);
    let int = b.sign(&root, &root_key).unwrap();
    let leaf_key = PrivateKey::generate().unwrap();
    let mut b = CertificateBuilder::new(
        "CN=Leaf",
        leaf_key.public_key().clone(),
        NOW - DAY,
        NOW + 30 * DAY,
    )
    .unwrap();
    b.serial = Some(vec![0x22]);
    let leaf = b.sign(&int, &int_key).unwrap();
    Pki {
        root_key,
        root,
        int_key,
        int,
        leaf,
    }
}

fn crl(issuer: &Certificate, key: &PrivateKey, serials: &[(&[u8], Option<u8>)]) -> Crl {
    CrlBuilder {
        this_update: NOW - DAY,
        next_update: Some(NOW + 7 * DAY),
        crl_number: vec![1],
        revoked: serials
            .iter()
            .map(|(s, reason)| Revocation {
                serial: s.to_vec(),
                date: NOW - 3600,
                reason: *reason,
            })
            .collect(),
    }
    .sign(issuer, key)
    .unwrap()
}

fn check(p: &Pki, crls: &[Crl], require: bool) -> Result<Vec<Certificate>, String> {
    verify_chain_with_crls(
        &p.leaf,
        std::slice::from_ref(&p.int),
        std::slice::from_ref(&p.root),
        NOW,
        None,
        crls,
        require,
    )
    .map_err(|e| format!("{}@{}: {}", e.subject, e.depth, e.reason))
}

#[test]
fn unrevoked_paths_pass_and_revoked_ones_fail_naming_the_certificate() {
    let p = pki();
    let empty_int = crl(&p.int, &p.int_key, &[]);
    let empty_root = crl(&p.root, &p.root_key, &[]);
    assert_eq!(
        check(&p, &[empty_int.clone(), empty_root.clone()], true)
            .unwrap()
            .len(),
        3
    );
    // The leaf revoked by the intermediate, with a reason.
    let revoked_leaf = crl(&p.int, &p.int_key, &[(&[0x22], Some(1))]);
    let e = check(&p, &[revoked_leaf, empty_root.clone()], false).unwrap_err();
    assert!(e.starts_with("CN=Leaf@0: revoked on 2025-06-15"), "{e}");
    assert!(
        e.ends_with("(CRL of \"CN=Int\", reason keyCompromise)"),
        "{e}"
    );
    // The intermediate revoked by the root.
    let revoked_int = crl(&p.root, &p.root_key, &[(&[0x11], None)]);
    let e = check(&p, &[empty_int.clone(), revoked_int], false).unwrap_err();
    assert!(e.starts_with("CN=Int@1: revoked on"), "{e}");
    // Same serial listed in the other CA's CRL: not this certificate.
    let wrong_issuer = crl(&p.root, &p.root_key, &[(&[0x22], None)]);
    check(&p, &[wrong_issuer], false).unwrap();
    // removeFromCRL is not a revocation.
    let removed = crl(&p.int, &p.int_key, &[(&[0x22], Some(8))]);
    check(&p, &[removed], false).unwrap();
    // certificateHold is.
    let held = crl(&p.int, &p.int_key, &[(&[0x22], Some(6))]);
    let e = check(&p, &[held], false).unwrap_err();
    assert!(e.contains("reason certificateHold"), "{e}");
}

#[test]
fn require_crls_fails_a_certificate_without_one() {
    let p = pki();
    let empty_int = crl(&p.int, &p.int_key, &[]);
    check(&p, std::slice::from_ref(&empty_int), false).unwrap();
    let e = check(&p, &[empty_int], true).unwrap_err();
    assert_eq!(
        e,
        "CN=Int@1: no CRL from its issuer \"CN=Root\" among the CRLs given"
    );
    let e = check(&p, &[], true).unwrap_err();
    assert!(
        e.starts_with("CN=Leaf@0: no CRL from its issuer \"CN=Int\""),
        "{e}"
    );
}

#[test]
fn unusable_crls_fail_closed() {
    let p = pki();
    // A CRL with the intermediate's name signed by another key.
    let mallory = PrivateKey::generate().unwrap();
    let mut b =
        CertificateBuilder::new("CN=Int", mallory.public_key().clone(), NOW - DAY, NOW + DAY)
            .unwrap();
    b.ca(None);
    let fake_int = b.self_sign(&mallory).unwrap();
    let forged = crl(&fake_int, &mallory, &[]);
    let e = check(&p, &[forged], false).unwrap_err();
    assert_eq!(
        e,
        "CN=Int@1: its CRL's signature does not verify with its key"
    );
    // Stale and not-yet-valid CRLs.
    let mut stale = CrlBuilder {
        this_update: NOW - 10 * DAY,
        next_update: Some(NOW - DAY),
        crl_number: vec![2],
        revoked: vec![],
    };
    let e = check(&p, &[stale.sign(&p.int, &p.int_key).unwrap()], false).unwrap_err();
    assert!(
        e.starts_with("CN=Int@1: its CRL is out of date (nextUpdate"),
        "{e}"
    );
    stale.this_update = NOW + DAY;
    stale.next_update = None;
    let e = check(&p, &[stale.sign(&p.int, &p.int_key).unwrap()], false).unwrap_err();
    assert!(e.starts_with("CN=Int@1: its CRL is not yet valid"), "{e}");
    // No nextUpdate: current from thisUpdate on.
    stale.this_update = NOW - DAY;
    check(&p, &[stale.sign(&p.int, &p.int_key).unwrap()], false).unwrap();
}

#[test]
fn issuer_without_crl_sign_cannot_revoke() {
    let p = pki();
    // An intermediate whose keyUsage is keyCertSign only: its CRLs are refused.
    let mut b = CertificateBuilder::new(
        "CN=Int",
        p.int_key.public_key().clone(),
        NOW - DAY,
        NOW + 365 * DAY,
    )
    .unwrap();
    b.ca(None);
    b.key_usage = Some(KeyUsageFlags(KeyUsageFlags::KEY_CERT_SIGN));
    b.serial = Some(vec![0x11]);
    let int = b.sign(&p.root, &p.root_key).unwrap();
    // Build the CRL with the normal intermediate (the builder refuses the restricted one).
    let list = crl(&p.int, &p.int_key, &[]);
    assert!(CrlBuilder::default().sign(&int, &p.int_key).is_err());
    let e = verify_chain_with_crls(
        &p.leaf,
        &[int],
        std::slice::from_ref(&p.root),
        NOW,
        None,
        &[list],
        false,
    )
    .unwrap_err();
    assert_eq!(e.depth, 1);
    assert_eq!(
        e.reason,
        "issued a CRL but its keyUsage does not allow cRLSign"
    );
}

/// `der` with the CRL extensions' SEQUENCE given one more extension (critical), and
/// re-signed: a CRL as a delta or partitioned CRL issuer would write it.
fn with_critical_extension(issuer: &Certificate, key: &PrivateKey, oid_der: &[u8]) -> Crl {
    let base = crl(issuer, key, &[]);
    // TBSCertList fields: rebuild from the parts with the der crate.
    use der::{Decode, Encode, Tagged};
    use x509_cert::ext::Extension;
    let tbs = base.tbs_der().to_vec();
    let mut any = der::asn1::SequenceOf::<der::Any, 16>::from_der(&tbs).unwrap();
    let last = any.iter().last().unwrap().clone();
    let mut exts = x509_cert::ext::Extensions::from_der(last.value()).unwrap();
    exts.push(Extension {
        extn_id: der::asn1::ObjectIdentifier::from_bytes(oid_der).unwrap(),
        critical: true,
        extn_value: der::asn1::OctetString::new(vec![0x30, 0x00]).unwrap(),
    });
    let mut fields: Vec<der::Any> = any.iter().cloned().collect();
    let inner = exts.to_der().unwrap();
    let tagged = der::Any::new(last.tag(), inner).unwrap();
    *fields.last_mut().unwrap() = tagged;
    any = der::asn1::SequenceOf::new();
    for f in fields {
        any.add(f).unwrap();
    }
    let new_tbs = any.to_der().unwrap();
    let sig = key
        .sign(&new_tbs, guomi_core::sm2::DEFAULT_UID)
        .unwrap()
        .to_der();
    let mut alg = Vec::new();
    der::Header::new(der::Tag::Sequence, der::Length::new(10))
        .unwrap()
        .encode_to_vec(&mut alg)
        .unwrap();
    alg.extend_from_slice(&[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75]);
    let bits = der::asn1::BitString::from_bytes(&sig)
        .unwrap()
        .to_der()
        .unwrap();
    let mut body = new_tbs;
    body.extend_from_slice(&alg);
    body.extend_from_slice(&bits);
    let mut out = Vec::new();
    der::Header::new(
        der::Tag::Sequence,
        der::Length::try_from(body.len()).unwrap(),
    )
    .unwrap()
    .encode_to_vec(&mut out)
    .unwrap();
    out.extend_from_slice(&body);
    let c = Crl::from_der(&out).unwrap();
    c.verify_signature(issuer).unwrap();
    c
}

#[test]
fn delta_and_partitioned_crls_are_refused() {
    let p = pki();
    // deltaCRLIndicator 2.5.29.27 and issuingDistributionPoint 2.5.29.28, critical.
    for oid in [[0x55, 0x1d, 0x1b], [0x55, 0x1d, 0x1c]] {
        let c = with_critical_extension(&p.int, &p.int_key, &oid);
        assert!(c.unknown_critical_extension().is_some());
        let e = check(&p, &[c], false).unwrap_err();
        assert!(
            e.starts_with("CN=Int@1: its CRL carries the unsupported critical extension 2.5.29.2"),
            "{e}"
        );
    }
}

#[test]
fn bounds() {
    let p = pki();
    let one = crl(&p.int, &p.int_key, &[]);
    let many = vec![one.clone(); MAX_CRLS + 1];
    let e = check(&p, &many, false).unwrap_err();
    assert!(e.contains("too many CRLs given"), "{e}");
    // MAX_CRLS distinct CRLs from one issuer: their signature checks hit the budget.
    let distinct: Vec<Crl> = (0..MAX_SIGNATURE_CHECKS + 1)
        .map(|i| {
            CrlBuilder {
                this_update: NOW - DAY,
                next_update: None,
                crl_number: vec![(i >> 8) as u8, i as u8],
                revoked: vec![],
            }
            .sign(&p.int, &p.int_key)
            .unwrap()
        })
        .collect();
    let e = check(&p, &distinct, false).unwrap_err();
    assert!(e.contains("gave up"), "{e}");
    // The same CRL given twice is checked once per issuer key.
    check(&p, &[one.clone(), one], false).unwrap();
}
