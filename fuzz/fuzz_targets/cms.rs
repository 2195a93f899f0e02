//! CMS (RFC 5652): the BER normaliser, SignedData verification and EnvelopedData
//! decryption. Layout: selector byte, body.
//!
//! 0 BER -> DER; 1 verify (attached), 2 verify with detached content "detached",
//! 3 verify with the vectors' root as trust root, 4 decrypt with the vectors' signer key,
//! 5 decrypt with that key and its certificate.
//!
//! Invariants: nothing panics; the normaliser is idempotent (its DER output normalises
//! to itself) and what it accepts, every later stage reads again; a verified SignedData
//! has at least one signer.
#![no_main]

use guomi_core::sm2::PrivateKey;
use guomi_formats::cms;
use guomi_formats::x509::{load_private_key_pem, Certificate};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Fixtures {
    root: Certificate,
    cert: Certificate,
    key: PrivateKey,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| Fixtures {
        root: Certificate::from_pem(include_str!("../../vectors/cms/root.pem")).unwrap(),
        cert: Certificate::from_pem(include_str!("../../vectors/cms/signer.pem")).unwrap(),
        key: load_private_key_pem(include_str!("../../vectors/cms/signer.key"), None).unwrap(),
    })
}

/// 2026-12-01: inside the vectors' validity.
const AT: i64 = 1_796_083_200;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let f = fixtures();
    match sel % 6 {
        0 => {
            if let Ok(der) = guomi_formats::ber::to_der(body) {
                assert_eq!(guomi_formats::ber::to_der(&der).unwrap(), der);
            }
        }
        1 => {
            if let Ok(v) = cms::verify(body, None, &[], &[], AT) {
                assert!(!v.signers.is_empty());
            }
        }
        2 => {
            if let Ok(v) = cms::verify(body, Some(b"detached"), &[], &[], AT) {
                assert_eq!(v.content, b"detached");
            }
        }
        3 => {
            if let Ok(v) = cms::verify(body, None, core::slice::from_ref(&f.root), &[], AT) {
                assert!(!v.signers.is_empty());
            }
        }
        4 => {
            let _ = cms::decrypt(body, &f.key, None);
        }
        _ => {
            let _ = cms::decrypt(body, &f.key, Some(&f.cert));
        }
    }
});
