//! SM2 signatures. Layout: selector, uid (u8 length), signature (u8 length), message.
//!
//! Invariants: DER and raw parsers are strict and canonical (re-encoding gives the input
//! back) and agree with `from_bytes`; verification with the fixed key never panics and
//! gives the same answer through `verify`, `verify_digest`, the streaming verifier and
//! `verify_many`; selector bit 0 also signs the message and checks the round trip.
#![no_main]

use guomi_core::sm2::{self, message_digest, verify_many, Signature, VerifyItem};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

fn verify_all_ways(
    pk: &sm2::PublicKey,
    uid: &[u8],
    msg: &[u8],
    sig: &Signature,
    splits: &[u8],
) -> bool {
    let v = pk.verify(msg, uid, sig);
    match pk.compute_z(uid) {
        Ok(z) => {
            assert_eq!(pk.verify_digest(&message_digest(&z, msg), sig), v);
            let mut h = pk.verifier(uid).unwrap();
            for part in chunks(msg, splits) {
                h.update(part);
            }
            assert_eq!(pk.verify_digest(&h.finalize(), sig), v);
        }
        Err(_) => assert!(!v, "verified with an invalid uid"),
    }
    for enc in [sig.to_der(), sig.to_raw().to_vec()] {
        let item = VerifyItem {
            key: pk,
            signature: &enc,
            message: msg,
            uid,
        };
        assert_eq!(verify_many(&[item], None), vec![v]);
    }
    v
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let uid = c.bytes8();
    let sig_bytes = c.bytes8();
    let msg = c.rest();
    let key = sm2_key();
    let pk = key.public_key();

    let der = Signature::from_der(sig_bytes);
    let raw = Signature::from_raw(sig_bytes);
    if let Ok(s) = &der {
        assert_eq!(
            s.to_der(),
            sig_bytes,
            "non-canonical DER signature accepted"
        );
        assert_eq!(&Signature::from_raw(&s.to_raw()).unwrap(), s);
    }
    if let Ok(s) = &raw {
        assert_eq!(&s.to_raw()[..], sig_bytes);
        assert_eq!(&Signature::from_der(&s.to_der()).unwrap(), s);
    }
    match Signature::from_bytes(sig_bytes) {
        Ok(s) => {
            let expect = der
                .clone()
                .or(raw.clone())
                .expect("from_bytes accepted what neither parser did");
            assert_eq!(s, expect);
            verify_all_ways(pk, uid, msg, &s, uid);
        }
        Err(_) => assert!(der.is_err() && raw.is_err()),
    }

    if sel & 1 == 1 {
        let Ok(s) = key.sign(msg, uid) else {
            assert!(uid.is_empty() || uid.len() > sm2::MAX_UID_LEN);
            return;
        };
        assert!(verify_all_ways(pk, uid, msg, &s, sig_bytes));
        assert_eq!(Signature::from_der(&s.to_der()).unwrap(), s);
        let mut other = msg.to_vec();
        other.push(sel);
        assert!(
            !pk.verify(&other, uid, &s),
            "signature valid for another message"
        );
        let mut bad = s;
        bad.s[31] ^= 1;
        assert!(!pk.verify(msg, uid, &bad), "tampered signature verified");
    }
});
