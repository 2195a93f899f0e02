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
    for b in cpu::variants() {
        cpu::with_variant(b, || {
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
                // The tag size is the test group's, fixed by the verifier.
                let size = v["tag_size_bits"].as_u64().unwrap() as usize / 8;
                let ok = m.verify_truncated(&tag, size).unwrap();
                assert_eq!(m.verify(&tag), ok && size == 32, "{}", v["name"]);
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

/// A truncated tag verifies only with an explicit, caller-fixed length, and then only at
/// exactly that length.
#[test]
fn hmac_verify_truncated_accepts_exactly_the_fixed_length() {
    let mut m = HmacSm3::new(b"key");
    m.update(b"message");
    let tag = m.tag();
    for n in sm3::hmac::MIN_TAG_LEN..=32 {
        assert!(m.verify_truncated(&tag[..n], n).unwrap(), "{n}");
        for other in 0..=32 {
            if other != n {
                assert!(
                    !m.verify_truncated(&tag[..other], n).unwrap(),
                    "{other} vs {n}"
                );
            }
        }
        let mut bad = tag[..n].to_vec();
        bad[n - 1] ^= 1;
        assert!(!m.verify_truncated(&bad, n).unwrap());
    }
    for n in [0, 1, 3, 33, usize::MAX] {
        assert!(matches!(
            m.verify_truncated(&tag, n),
            Err(guomi_core::Error::InvalidValue(_))
        ));
    }
}

/// `Sm3::with_backend` accepts every backend, supported or not, and clamps it to what
/// the CPU runs (a request above the CPU must never execute missing instructions).
#[test]
fn with_backend_clamps_to_the_cpu() {
    let abc = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0";
    for b in Backend::ALL {
        let mut h = Sm3::with_backend(b);
        h.update(b"abc");
        assert_eq!(hex::encode(h.finalize()), abc, "{b:?}");
    }
}
