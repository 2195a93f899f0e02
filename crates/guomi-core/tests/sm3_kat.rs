//! SM3 and HMAC-SM3 known answers from vectors/sm3.json, on every backend.

use guomi_core::cpu::{self, Backend};
use guomi_core::sm3::{self, hmac::HmacSm3, many::hash_many, Sm3};
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/sm3.json");
    let text = std::fs::read_to_string(path).expect("vectors/sm3.json");
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn field(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap()).unwrap()
}

fn message(v: &Value) -> Vec<u8> {
    if v.get("message_pattern").is_some() {
        let n = v["message_length_bytes"].as_u64().unwrap() as usize;
        assert!(v["message_pattern"]
            .as_str()
            .unwrap()
            .contains("byte i = i & 0xff"));
        (0..n).map(|i| i as u8).collect()
    } else {
        field(v, "message")
    }
}

#[test]
fn sm3_digests_every_backend() {
    let digests: Vec<_> = vectors()
        .into_iter()
        .filter(|v| v.get("digest").is_some())
        .collect();
    assert!(digests.len() >= 8);
    for b in cpu::available() {
        cpu::with_backend(b, || {
            for v in &digests {
                let msg = message(v);
                let want = field(v, "digest");
                assert_eq!(sm3::hash(&msg).to_vec(), want, "{} on {b:?}", v["name"]);
                // Streaming in odd pieces gives the same digest.
                let mut h = Sm3::new();
                for piece in msg.chunks(61) {
                    h.update(piece);
                }
                assert_eq!(h.finalize().to_vec(), want);
            }
            // The multi-buffer path over every vector at once.
            let msgs: Vec<Vec<u8>> = digests.iter().map(message).collect();
            let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
            let got = hash_many(&refs, None);
            for (v, d) in digests.iter().zip(got) {
                assert_eq!(d.to_vec(), field(v, "digest"));
            }
        });
    }
}

#[test]
fn hmac_sm3_wycheproof() {
    let macs: Vec<_> = vectors()
        .into_iter()
        .filter(|v| v["algorithm"] == "HMAC-SM3")
        .collect();
    assert!(macs.len() > 100);
    let (mut valid, mut invalid) = (0, 0);
    for b in [Backend::Portable, cpu::detected()] {
        cpu::with_backend(b, || {
            for v in &macs {
                let (key, msg, tag) = (field(v, "key"), field(v, "message"), field(v, "tag"));
                let mut m = HmacSm3::new(&key);
                m.update(&msg);
                let ok = m.verify(&tag);
                match v["result"].as_str().unwrap() {
                    "valid" => {
                        assert!(ok, "{}", v["name"]);
                        assert_eq!(&sm3::hmac::hmac(&key, &msg)[..tag.len()], &tag[..]);
                        valid += 1;
                    }
                    _ => {
                        assert!(!ok, "{} must be rejected", v["name"]);
                        invalid += 1;
                    }
                }
            }
        });
    }
    assert!(valid > 0 && invalid > 0);
}

/// Regression: `verify` compares against the full 32-byte tag; a strict prefix (an
/// attacker-chosen length) is rejected.
#[test]
fn hmac_verify_rejects_every_strict_prefix() {
    let mut m = HmacSm3::new(b"key");
    m.update(b"message");
    let tag = m.tag();
    assert!(m.verify(&tag));
    for n in 0..tag.len() {
        assert!(!m.verify(&tag[..n]), "prefix of {n} bytes accepted");
    }
    let mut longer = tag.to_vec();
    longer.push(0);
    assert!(!m.verify(&longer));
}
