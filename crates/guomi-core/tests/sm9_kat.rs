//! SM9 known answers: the GM/T 0044-2016 worked examples in vectors/sm9.json.

use guomi_core::sm9::{self, SignMasterKey};
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
