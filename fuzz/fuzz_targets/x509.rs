//! X.509 certificates, PKCS#10 requests and chain verification. Layout: selector, body.
//!
//! 0 certificate DER, 1 CSR DER, 2 PEM text (bundle and CSR), 3 chain: count byte
//! (intermediates, at most 4), flag byte, then count × (u16 length, DER); 4 certificate
//! DER checked against the fixed root and intermediate; 5 CRL DER: every accessor, the
//! signature against both fixed CAs, and the fixed chain validated with it.
//!
//! Invariants: parsed DER re-serializes to the input and through PEM; every accessor
//! returns without panicking; a validated path starts at the leaf, ends at the trust
//! root, has each certificate signed by the next, and is no longer than the candidates;
//! a CRL's DER re-serializes to the input, and chain validation with any CRL returns
//! (a path, or an error) without panicking.
#![no_main]

use guomi_core::sm2::{PublicKey as Pk, Sm2p256};
use guomi_core::sm3;
use guomi_formats::sm2_keys::PublicKeyEncoding;
use guomi_formats::x509::{
    oid, verify_chain, verify_chain_with_crls, Certificate, CertificateBuilder, CertificateRequest,
    Crl,
};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

type PublicKey = Pk<Sm2p256>;

struct Pki {
    root: Certificate,
    inter: Certificate,
    leaf: Certificate,
}

fn pki() -> &'static Pki {
    static P: OnceLock<Pki> = OnceLock::new();
    P.get_or_init(|| Pki {
        root: Certificate::from_der(ROOT_DER).unwrap(),
        inter: Certificate::from_der(INTER_DER).unwrap(),
        leaf: Certificate::from_der(LEAF_DER).unwrap(),
    })
}

fn check_cert(c: &Certificate, der: &[u8]) {
    assert_eq!(c.to_der(), der);
    assert_eq!(c.fingerprint_sm3(), sm3::hash(der));
    let _ = (c.version(), c.serial(), c.subject(), c.issuer());
    let _ = (
        c.subject_der(),
        c.issuer_der(),
        c.not_before(),
        c.not_after(),
    );
    let _ = (c.signature_algorithm(), c.signature(), c.tbs_der());
    let _ = (c.public_key(), c.spki_der(), c.extensions());
    let _ = (c.basic_constraints(), c.key_usage(), c.extended_key_usage());
    let _ = (
        c.subject_alt_names(),
        c.subject_key_id(),
        c.authority_key_id(),
    );
    let _ = c.is_self_issued();
    if let Ok(pem) = c.to_pem() {
        let back = Certificate::from_pem(&pem).unwrap();
        assert_eq!(back.to_der(), der);
    }
    if let (Ok(pk), Ok(spki)) = (c.public_key(), c.spki_der()) {
        // Not byte equality: a hybrid (06/07) point re-encodes as 04.
        assert_eq!(PublicKey::from_spki_der(&spki).unwrap(), pk);
        assert_eq!(PublicKey::from_spki_der(&pk.to_spki_der()).unwrap(), pk);
    }
    // Self-verification must give an answer, never a panic; a certificate that verifies
    // under its own key is one whose key is the signer.
    if c.verify_signature(c).is_ok() {
        let pk = c.public_key().unwrap();
        assert!(c.verify_signature_with(&pk).is_ok());
    }
}

fn check_csr(r: &CertificateRequest, der: &[u8]) {
    assert_eq!(r.to_der(), der);
    let _ = (r.subject(), r.public_key(), r.signature_algorithm());
    let _ = (r.requested_extensions(), r.subject_alt_names());
    if let Ok(pem) = r.to_pem() {
        assert_eq!(CertificateRequest::from_pem(&pem).unwrap().to_der(), der);
    }
    if r.verify().is_ok() {
        // A verified request can be turned into a certificate builder.
        let b = CertificateBuilder::from_request(r, 1_700_000_000, 1_900_000_000);
        assert!(b.is_ok() || r.subject_alt_names().is_err(), "{b:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    match sel % 6 {
        0 => {
            let body = c.rest();
            if let Ok(cert) = Certificate::from_der(body) {
                check_cert(&cert, body);
            }
        }
        1 => {
            let body = c.rest();
            if let Ok(r) = CertificateRequest::from_der(body) {
                check_csr(&r, body);
            }
        }
        2 => {
            let Ok(text) = core::str::from_utf8(c.rest()) else {
                return;
            };
            if let Ok(all) = Certificate::all_from_pem(text) {
                for cert in &all {
                    check_cert(cert, cert.to_der());
                }
                if let Some(first) = all.first() {
                    assert_eq!(
                        Certificate::from_pem(text).unwrap().to_der(),
                        first.to_der()
                    );
                }
            }
            if let Ok(r) = CertificateRequest::from_pem(text) {
                check_csr(&r, r.to_der());
            }
        }
        3 => {
            let p = pki();
            let count = (c.u8() % 5) as usize;
            let flags = c.u8();
            let mut fuzzed = Vec::new();
            for _ in 0..count {
                if let Ok(cert) = Certificate::from_der(c.bytes16()) {
                    fuzzed.push(cert);
                }
            }
            // Leaf: the fixed one, or the first fuzzed certificate.
            let leaf = if flags & 1 == 1 || fuzzed.is_empty() {
                p.leaf.clone()
            } else {
                fuzzed.remove(0)
            };
            let mut inters = fuzzed;
            if flags & 2 == 2 {
                inters.push(p.inter.clone());
            }
            let purpose = if flags & 4 == 4 {
                Some(oid::SERVER_AUTH)
            } else {
                None
            };
            let at = if flags & 8 == 8 {
                c.u32() as i64 * 2
            } else {
                PKI_TIME
            };
            if let Ok(path) =
                verify_chain(&leaf, &inters, std::slice::from_ref(&p.root), at, purpose)
            {
                assert_eq!(path[0].to_der(), leaf.to_der());
                assert_eq!(path.last().unwrap().to_der(), p.root.to_der());
                assert!(path.len() <= inters.len() + 2);
                for w in path.windows(2) {
                    assert!(
                        w[0].verify_signature(&w[1]).is_ok(),
                        "path link does not verify"
                    );
                    assert!(w[0].not_before() <= at && at <= w[0].not_after());
                }
                // Each intermediate appears once.
                for (i, a) in path.iter().enumerate() {
                    for b in &path[i + 1..] {
                        assert_ne!(a.to_der(), b.to_der(), "certificate repeated on a path");
                    }
                }
            }
        }
        5 => {
            let p = pki();
            let body = c.rest();
            if let Ok(crl) = Crl::from_der(body) {
                assert_eq!(crl.to_der(), body);
                let _ = (
                    crl.version(),
                    crl.issuer(),
                    crl.issuer_der(),
                    crl.this_update(),
                );
                let _ = (
                    crl.next_update(),
                    crl.signature_algorithm(),
                    crl.signature(),
                );
                let _ = (crl.tbs_der(), crl.crl_number(), crl.authority_key_id());
                let _ = (crl.extension_list(), crl.unknown_critical_extension());
                let _ = (crl.revoked(), crl.find(p.leaf.serial()));
                if let Ok(pem) = crl.to_pem() {
                    assert_eq!(Crl::from_pem(&pem).unwrap().to_der(), body);
                }
                for issuer in [&p.root, &p.inter] {
                    let _ = crl.verify_signature(issuer);
                }
                for require in [false, true] {
                    let _ = verify_chain_with_crls(
                        &p.leaf,
                        std::slice::from_ref(&p.inter),
                        std::slice::from_ref(&p.root),
                        PKI_TIME,
                        None,
                        std::slice::from_ref(&crl),
                        require,
                    );
                }
            }
        }
        _ => {
            let p = pki();
            let body = c.rest();
            if let Ok(cert) = Certificate::from_der(body) {
                for issuer in [&p.root, &p.inter] {
                    let a = cert.verify_signature(issuer).is_ok();
                    let b = cert
                        .verify_signature_with(&issuer.public_key().unwrap())
                        .is_ok();
                    if a {
                        assert!(b, "verify_signature ok but verify_signature_with not");
                    }
                }
            }
        }
    }
});
