//! SM9 known answers: the GM/T 0044-2016 worked examples in vectors/sm9.json.

use guomi_core::sm9::{self, EncMasterKey, SignMasterKey};
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/sm9.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn hx(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap_or_else(|| panic!("missing {k}"))).unwrap()
}

fn by_op(op: &str) -> Vec<Value> {
    vectors().into_iter().filter(|v| v["operation"] == op).collect()
}

#[test]
fn sign_example() {
    let vs = by_op("sign");
    assert!(!vs.is_empty());
    for v in vs {
        let id = v["user_id"].as_str().unwrap().as_bytes().to_vec();
        let msg = hx(&v, "message");
        let mk = SignMasterKey::from_bytes(&hx(&v, "master_private_key_ks")).unwrap();
        let uk = mk.extract(&id).unwrap();
        assert_eq!(&uk.to_bytes()[1..], &hx(&v, "user_private_key_ds_A")[..], "ds_A");
        let r: [u8; 32] = hx(&v, "r").try_into().unwrap();
        let sig = sm9::sign::sign_with_r_bytes(&uk, &msg, &r).unwrap();
        assert_eq!(hex::encode(sig.h), hex::encode(hx(&v, "h")), "h");
        assert_eq!(sig.s.to_vec(), hx(&v, "S"), "S");
        let pk = mk.public_key();
        assert!(pk.verify(&sig, &msg, &id));
        assert!(!pk.verify(&sig, b"other message", &id));
        assert!(!pk.verify(&sig, &msg, b"Bob"));
    }
}

fn scalar(v: &Value, k: &str) -> sm9::bn256::fp::Fn {
    let b: [u8; 32] = hx(v, k).try_into().unwrap();
    sm9::bn256::fp::Fn::from_be_bytes(&b).unwrap()
}

#[test]
fn encrypt_example() {
    let vs = by_op("encrypt");
    assert!(!vs.is_empty());
    for v in vs {
        let id = v["user_id"].as_str().unwrap().as_bytes().to_vec();
        let msg = hx(&v, "message");
        let mk = EncMasterKey::from_bytes(&hx(&v, "master_private_key_ke")).unwrap();
        let pk = mk.public_key();
        assert_eq!(&pk.to_bytes()[1..], &hx(&v, "master_public_key_Ppub_e")[..]);
        let uk = mk.extract(&id, sm9::HID_ENCRYPT).unwrap();
        assert_eq!(&uk.to_bytes()[1..], &hx(&v, "user_private_key_de_B")[..], "de_B");
        let ct = pk.encrypt_with_r(&msg, &id, &scalar(&v, "r")).unwrap().unwrap();
        assert_eq!(ct.c1.to_vec(), hx(&v, "C1"), "C1");
        assert_eq!(ct.c2, hx(&v, "C2"), "C2");
        assert_eq!(ct.c3.to_vec(), hx(&v, "C3"), "C3");
        assert_eq!(ct.to_raw(), hx(&v, "ciphertext_C1C3C2"));
        assert_eq!(uk.decrypt_raw(&hx(&v, "ciphertext_C1C3C2")).unwrap(), msg);
        let der = ct.to_der();
        assert_eq!(sm9::Ciphertext::from_der(&der).unwrap(), ct);
        // A tampered C3 / C2 / C1 fails with the one opaque error.
        for i in [0usize, 70, 100] {
            let mut bad = hx(&v, "ciphertext_C1C3C2");
            bad[i] ^= 1;
            assert_eq!(uk.decrypt_raw(&bad), Err(guomi_core::Error::DecryptionFailed));
        }
        // The user key reloads from bytes (validated against the master public key).
        let uk2 = sm9::EncUserKey::from_bytes(&hx(&v, "user_private_key_de_B"), &id, sm9::HID_ENCRYPT, &pk).unwrap();
        assert_eq!(uk2.decrypt(&ct).unwrap(), msg);
        assert!(sm9::EncUserKey::from_bytes(&hx(&v, "user_private_key_de_B"), b"Carol", sm9::HID_ENCRYPT, &pk).is_err());
    }
}

#[test]
fn key_exchange_example() {
    use std::sync::Arc;
    let vs = by_op("key_exchange");
    assert!(!vs.is_empty());
    for v in vs {
        let id_a = v["id_A"].as_str().unwrap().as_bytes().to_vec();
        let id_b = v["id_B"].as_str().unwrap().as_bytes().to_vec();
        let mk = EncMasterKey::from_bytes(&hx(&v, "master_private_key_ke")).unwrap();
        assert_eq!(&mk.public_key().to_bytes()[1..], &hx(&v, "master_public_key_Ppub_e")[..]);
        let ka = mk.extract(&id_a, sm9::HID_EXCHANGE).unwrap();
        let kb = mk.extract(&id_b, sm9::HID_EXCHANGE).unwrap();
        assert_eq!(&ka.to_bytes()[1..], &hx(&v, "user_private_key_de_A")[..], "de_A");
        assert_eq!(&kb.to_bytes()[1..], &hx(&v, "user_private_key_de_B")[..], "de_B");
        let klen = v["klen_bytes"].as_u64().unwrap() as usize;
        let mut a = sm9::KeyExchange::new_with_r(Arc::new(ka), &id_b, true, scalar(&v, "r_A")).unwrap();
        assert_eq!(a.ephemeral().to_vec(), hx(&v, "R_A"), "R_A");
        let mut b = sm9::KeyExchange::new_with_r(Arc::new(kb), &id_a, false, scalar(&v, "r_B")).unwrap();
        let (skb, sb) = b.respond(&a.ephemeral(), klen).unwrap();
        assert_eq!(skb, hx(&v, "SK"), "SK_B");
        assert_eq!(sb.to_vec(), hx(&v, "S_B"), "S_B");
        let (ska, sa) = a.finish(&b.ephemeral(), klen, Some(&sb)).unwrap();
        assert_eq!(ska, hx(&v, "SK"), "SK_A");
        assert_eq!(sa.to_vec(), hx(&v, "S_A"), "S_A");
        b.confirm(&sa).unwrap();
        let mut bad = sa;
        bad[0] ^= 1;
        assert_eq!(b.confirm(&bad), Err(guomi_core::Error::InvalidTag));
    }
}
