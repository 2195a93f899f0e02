//! SM9 parsers, decryption and verification with fixed keys. Layout: selector, body.
//!
//! 0 DER ciphertext, 1 raw ciphertext, 2 DER signature, 3 raw signature (both: u8
//! length, signature, message), 4 key/point parsers (sub-selector byte, bytes),
//! 5 decapsulate (key length byte, C), 6 encrypt with r (32 bytes) and decrypt back,
//! 7 sign with r (32 bytes) and verify.
//!
//! Invariants: accepted encodings are canonical (re-encoding gives the input); every
//! decryption failure is `DecryptionFailed`; raw and DER forms of one ciphertext or
//! signature give the same answer; round trips hold and tampering is detected.
#![no_main]

use guomi_core::sm9::{
    self, encoding, hazmat, Ciphertext, EncMasterKey, EncMasterPublicKey, EncUserKey, Mac,
    SignMasterKey, SignMasterPublicKey, SignUserKey, Signature, HID_ENCRYPT,
};
use guomi_core::Error;
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

fn check_decrypt(ct: &Ciphertext) {
    let k = sm9_keys();
    for mac in [Mac::Sm3, Mac::HmacSm3] {
        match k.enc_user.decrypt_mac(ct, mac) {
            Ok(m) => {
                // The DER form decrypts the same.
                let again = Ciphertext::from_der(&ct.to_der()).unwrap();
                assert_eq!(k.enc_user.decrypt_mac(&again, mac).unwrap(), m);
            }
            Err(e) => assert_eq!(e, Error::DecryptionFailed),
        }
    }
}

fn check_sig(sig: &Signature, msg: &[u8]) {
    let k = sm9_keys();
    let v = k.sign_pub.verify(sig, msg, SM9_ID);
    assert_eq!(Signature::from_der(&sig.to_der()).unwrap(), *sig);
    assert_eq!(Signature::from_raw(&sig.to_raw()).unwrap(), *sig);
    if v {
        assert!(!k.sign_pub.verify(sig, msg, b"someone else"));
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let keys = sm9_keys();
    match sel % 8 {
        0 => {
            let body = c.rest();
            if let Ok(ct) = Ciphertext::from_der(body) {
                assert_eq!(
                    ct.to_der(),
                    body,
                    "non-canonical SM9 DER ciphertext accepted"
                );
                check_decrypt(&ct);
            }
        }
        1 => {
            let body = c.rest();
            let r = keys.enc_user.decrypt_raw(body);
            match Ciphertext::from_raw(body) {
                Ok(ct) => {
                    assert_eq!(ct.to_raw(), body);
                    assert_eq!(keys.enc_user.decrypt(&ct), r);
                    check_decrypt(&ct);
                }
                Err(_) => assert!(r.is_err()),
            }
            if let Err(e) = r {
                assert!(
                    e == Error::DecryptionFailed
                        || matches!(e, Error::UnsupportedFormat(_) | Error::InvalidLength { .. }),
                    "{e:?}"
                );
            }
        }
        2 | 3 => {
            let sig = c.bytes8();
            let msg = c.rest();
            let parsed = if sel % 8 == 2 {
                Signature::from_der(sig).inspect(|s| assert_eq!(s.to_der(), sig))
            } else {
                Signature::from_raw(sig).inspect(|s| {
                    if sig.len() == 97 {
                        assert_eq!(s.to_raw(), sig)
                    } else {
                        assert_eq!(sig.len(), 96);
                        assert_eq!(&s.to_raw()[33..], &sig[32..]);
                    }
                })
            };
            if let Ok(s) = parsed {
                check_sig(&s, msg);
            }
        }
        4 => {
            let sub = c.u8();
            let body = c.rest();
            match sub % 6 {
                0 => {
                    if let Ok(p) = SignMasterPublicKey::from_bytes(body) {
                        let b = p.to_bytes();
                        assert!(body == b || body == &b[1..]);
                        SignMasterPublicKey::from_bytes(&b).unwrap();
                    }
                }
                1 => {
                    if let Ok(p) = EncMasterPublicKey::from_bytes(body) {
                        let b = p.to_bytes();
                        assert!(body == b || body == &b[1..]);
                    }
                }
                2 => {
                    if let Ok(u) = SignUserKey::from_bytes(body, SM9_ID, &keys.sign_pub) {
                        // A user key that loads is the one extracted for this ID.
                        assert_eq!(u.to_bytes(), keys.sign_user.to_bytes());
                        let s = u.sign(b"m").unwrap();
                        assert!(keys.sign_pub.verify(&s, b"m", SM9_ID));
                    }
                }
                3 => {
                    if let Ok(u) = EncUserKey::from_bytes(body, SM9_ID, HID_ENCRYPT, &keys.enc_pub)
                    {
                        assert_eq!(u.to_bytes(), keys.enc_user.to_bytes());
                    }
                }
                4 => {
                    if let Ok(m) = SignMasterKey::from_bytes(body) {
                        assert_eq!(&m.to_bytes()[..], body);
                    }
                    if let Ok(m) = EncMasterKey::from_bytes(body) {
                        assert_eq!(&m.to_bytes()[..], body);
                    }
                }
                _ => {
                    let (p, q) = body.split_at(body.len().min(65));
                    if let Ok(g1) = encoding::g1_from_bytes(p, "p") {
                        assert_eq!(&encoding::g1_to_bytes(&g1)[..], p);
                    }
                    let _ = sm9::pairing(p, q);
                }
            }
        }
        5 => {
            let len = c.u8() as usize;
            let body = c.rest();
            match keys.enc_user.decapsulate(body, len) {
                Ok(k) => assert_eq!(k.len(), len),
                Err(e) => assert!(
                    e == Error::DecryptionFailed
                        || (len == 0 && matches!(e, Error::InvalidLength { .. })),
                    "{e:?}"
                ),
            }
        }
        6 => {
            let r: [u8; 32] = c.array();
            let msg = c.take(256);
            let Ok(ct) = hazmat::encrypt_with_fixed_r_for_testing(&keys.enc_pub, msg, SM9_ID, &r)
            else {
                return;
            };
            assert_eq!(&keys.enc_user.decrypt(&ct).unwrap()[..], msg);
            assert_eq!(&keys.enc_user.decrypt_raw(&ct.to_raw()).unwrap()[..], msg);
            let der = Ciphertext::from_der(&ct.to_der()).unwrap();
            assert_eq!(&keys.enc_user.decrypt(&der).unwrap()[..], msg);
            let mut bad = ct.clone();
            bad.c3[5] ^= 1;
            assert_eq!(keys.enc_user.decrypt(&bad), Err(Error::DecryptionFailed));
        }
        _ => {
            let r: [u8; 32] = c.array();
            let msg = c.rest();
            let Ok(s) = hazmat::sign_with_fixed_r_for_testing(&keys.sign_user, msg, &r) else {
                return;
            };
            assert!(keys.sign_pub.verify(&s, msg, SM9_ID));
            check_sig(&s, msg);
            let mut other = msg.to_vec();
            other.push(1);
            assert!(!keys.sign_pub.verify(&s, &other, SM9_ID));
        }
    }
});
