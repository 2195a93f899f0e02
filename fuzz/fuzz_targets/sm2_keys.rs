//! SM2 key parsers. Layout: selector byte, then the body.
//!
//! 0 point (65/64/33 bytes), 1 SPKI DER, 2 SPKI PEM, 3 SEC1 DER, 4 PKCS#8 DER,
//! 5 raw 32-byte scalar, 6 PEM private key (plain), 7 encrypted PKCS#8 (mode byte, DER;
//! PBKDF2 counts above FUZZ_MAX_ITERATIONS are skipped), 8 legacy encrypted PEM
//! (16-byte IV, DER), 9 any PEM text through the loader.
//!
//! Invariants: every accepted key re-encodes in every form and parses back to the same
//! key; a point's canonical encoding equals the input; strict DER parsers reject a
//! trailing byte; an encrypted key that opens also opens after re-encryption and not
//! with another password.
#![no_main]

use guomi_core::sm2::Sm2p256;
use guomi_formats::sm2_keys::{PrivateKeyEncoding, PublicKeyEncoding};
use guomi_formats::x509::{self, Prf};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

type PublicKey = guomi_core::sm2::PublicKey<Sm2p256>;
type PrivateKey = guomi_core::sm2::PrivateKey<Sm2p256>;

fn check_pub(pk: &PublicKey) {
    assert_eq!(&PublicKey::from_bytes(&pk.to_uncompressed()).unwrap(), pk);
    assert_eq!(&PublicKey::from_bytes(&pk.to_raw()).unwrap(), pk);
    assert_eq!(&PublicKey::from_bytes(&pk.to_compressed()).unwrap(), pk);
    assert_eq!(&PublicKey::from_coordinates(&pk.x(), &pk.y()).unwrap(), pk);
    let der = pk.to_spki_der();
    assert_eq!(&PublicKey::from_spki_der(&der).unwrap(), pk);
    assert_eq!(&PublicKey::from_spki_pem(&pk.to_spki_pem()).unwrap(), pk);
    let mut long = der.clone();
    long.push(0);
    assert!(
        PublicKey::from_spki_der(&long).is_err(),
        "SPKI with a trailing byte accepted"
    );
}

fn check_priv(k: &PrivateKey) {
    assert_eq!(&PrivateKey::from_bytes(&k.to_bytes()[..]).unwrap(), k);
    let sec1 = k.to_sec1_der();
    let pkcs8 = k.to_pkcs8_der();
    assert_eq!(&PrivateKey::from_sec1_der(&sec1).unwrap(), k);
    assert_eq!(&PrivateKey::from_pkcs8_der(&pkcs8).unwrap(), k);
    assert_eq!(&PrivateKey::from_der(&sec1).unwrap(), k);
    assert_eq!(&PrivateKey::from_der(&pkcs8).unwrap(), k);
    assert_eq!(&PrivateKey::from_pem(&k.to_sec1_pem()).unwrap(), k);
    assert_eq!(&PrivateKey::from_pem(&k.to_pkcs8_pem()).unwrap(), k);
    assert_eq!(
        &x509::load_private_key_pem(&k.to_pkcs8_pem(), None).unwrap(),
        k
    );
    assert_eq!(&x509::load_private_key_der(&sec1, None).unwrap(), k);
    // The public key is d·G: the same as that of a fresh import of d.
    assert_eq!(
        PrivateKey::from_bytes(&k.to_bytes()[..])
            .unwrap()
            .public_key(),
        k.public_key()
    );
    check_pub(k.public_key());
}

fn trailing_rejected(body: &[u8], parse: impl Fn(&[u8]) -> bool, what: &str) {
    let mut long = body.to_vec();
    long.push(0);
    assert!(!parse(&long), "{what} with a trailing byte accepted");
}

/// A NULL inside the outer SEQUENCE, after the last field, is not a valid encoding.
fn inner_junk_rejected(body: &[u8], parse: impl Fn(&[u8]) -> bool, what: &str) {
    if let Some(long) = append_inside_sequence(body, &[0x05, 0x00]) {
        assert!(
            !parse(&long),
            "{what} with junk inside the SEQUENCE accepted"
        );
    }
}

fn check_encrypted(k: &PrivateKey) {
    check_priv(k);
    let again = x509::encrypt_private_key_der(k, PASSWORD, Prf::HmacSm3, 1).unwrap();
    assert_eq!(&x509::decrypt_private_key_der(&again, PASSWORD).unwrap(), k);
    assert!(x509::decrypt_private_key_der(&again, b"another password").is_err());
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    match sel % 10 {
        0 => {
            let body = c.rest();
            if let Ok(pk) = PublicKey::from_bytes(body) {
                check_pub(&pk);
                // Accepted encodings are canonical.
                match body.len() {
                    // 04, or the hybrid 06/07 whose parity bit was checked.
                    65 => {
                        assert_eq!(pk.to_uncompressed()[1..], body[1..]);
                        let hybrid = 6 | (pk.y()[31] & 1);
                        assert!(body[0] == 4 || body[0] == hybrid, "prefix {}", body[0]);
                    }
                    64 => assert_eq!(&pk.to_raw()[..], body),
                    33 => assert_eq!(&pk.to_compressed()[..], body),
                    n => panic!("point of {n} bytes accepted"),
                }
            }
        }
        1 => {
            let body = c.rest();
            if let Ok(pk) = PublicKey::from_spki_der(body) {
                check_pub(&pk);
                trailing_rejected(body, |b| PublicKey::from_spki_der(b).is_ok(), "SPKI");
                inner_junk_rejected(body, |b| PublicKey::from_spki_der(b).is_ok(), "SPKI");
            }
        }
        2 => {
            if let Ok(text) = core::str::from_utf8(c.rest()) {
                if let Ok(pk) = PublicKey::from_spki_pem(text) {
                    check_pub(&pk);
                }
            }
        }
        3 => {
            let body = c.rest();
            if let Ok(k) = PrivateKey::from_sec1_der(body) {
                check_priv(&k);
                trailing_rejected(body, |b| PrivateKey::from_sec1_der(b).is_ok(), "SEC1");
                inner_junk_rejected(body, |b| PrivateKey::from_sec1_der(b).is_ok(), "SEC1");
                assert_eq!(PrivateKey::from_der(body).unwrap(), k);
            }
        }
        4 => {
            let body = c.rest();
            if let Ok(k) = PrivateKey::from_pkcs8_der(body) {
                check_priv(&k);
                trailing_rejected(body, |b| PrivateKey::from_pkcs8_der(b).is_ok(), "PKCS#8");
                // Fields after the private key other than [0] attributes and [1] public
                // key are refused.
                inner_junk_rejected(body, |b| PrivateKey::from_pkcs8_der(b).is_ok(), "PKCS#8");
                assert_eq!(PrivateKey::from_der(body).unwrap(), k);
            }
        }
        5 => {
            let body = c.rest();
            if let Ok(k) = PrivateKey::from_bytes(body) {
                // 1 to 32 bytes are left-padded; 33 bytes need a leading zero.
                let kb = k.to_bytes();
                match body.len() {
                    1..=32 => assert_eq!(&kb[32 - body.len()..], body),
                    33 => assert_eq!((body[0], &kb[..]), (0, &body[1..])),
                    n => panic!("private key of {n} bytes accepted"),
                }
                check_priv(&k);
                let sig = k.sign(b"msg", b"uid").unwrap();
                assert!(k.public_key().verify(b"msg", b"uid", &sig));
                assert!(!k.public_key().verify(b"msh", b"uid", &sig));
            }
        }
        6 => {
            if let Ok(text) = core::str::from_utf8(c.rest()) {
                let a = PrivateKey::from_pem(text);
                if let Ok(k) = &a {
                    check_priv(k);
                }
                if !text.to_ascii_uppercase().contains("ENCRYPTED PRIVATE") {
                    if let Ok(k) = x509::load_private_key_pem(text, None) {
                        check_priv(&k);
                    }
                }
            }
        }
        7 => {
            let mode = c.u8();
            let der = c.rest();
            if !der_integers_at_most(der, FUZZ_MAX_ITERATIONS as u64) {
                return;
            }
            let r = match mode % 3 {
                0 => x509::decrypt_private_key_der(der, PASSWORD),
                1 => x509::load_private_key_der(der, Some(PASSWORD)),
                _ => x509::load_private_key_pem(
                    &pem("ENCRYPTED PRIVATE KEY", &[], der),
                    Some(PASSWORD),
                ),
            };
            if let Ok(k) = r {
                check_encrypted(&k);
                if mode.is_multiple_of(3) {
                    assert!(x509::decrypt_private_key_der(der, b"not the password").is_err());
                }
            }
        }
        8 => {
            let iv: [u8; 16] = c.array();
            let der = c.rest();
            let hex: String = iv.iter().map(|b| format!("{b:02X}")).collect();
            let headers = [
                "Proc-Type: 4,ENCRYPTED".to_string(),
                format!("DEK-Info: SM4-CBC,{hex}"),
            ];
            let label = if sel & 0x80 != 0 {
                "SM2 PRIVATE KEY"
            } else {
                "EC PRIVATE KEY"
            };
            let text = pem(label, &headers, der);
            if let Ok(k) = x509::load_private_key_pem(&text, Some(PASSWORD)) {
                check_priv(&k);
            }
        }
        _ => {
            // Arbitrary PEM text; PBES2 blocks are kept out (their iteration count is
            // inside base64 that this harness does not decode).
            if let Ok(text) = core::str::from_utf8(c.rest()) {
                if text.to_ascii_uppercase().contains("ENCRYPTED PRIVATE") {
                    return;
                }
                let pw = if sel & 0x80 != 0 {
                    Some(PASSWORD)
                } else {
                    None
                };
                if let Ok(k) = x509::load_private_key_pem(text, pw) {
                    check_priv(&k);
                }
            }
        }
    }
});
