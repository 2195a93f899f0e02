//! SM4-GCM over many messages at once (`Sm4Gcm::encrypt_many_into` /
//! `decrypt_many_into`): byte for byte the one-message API on every variant, the 96-bit
//! nonce vectors of vectors/sm4.json, and failures confined to their own message.

use guomi_core::cpu;
use guomi_core::sm4::gcm::{GcmRow, Sm4Gcm};
use guomi_core::Error;
use serde_json::Value;

/// Deterministic test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A message: nonce, aad, plaintext.
type Msg = ([u8; 12], Vec<u8>, Vec<u8>);

/// `n` messages: lengths 0..300 with some over the fused (2 KiB) and one-message (16 KiB)
/// thresholds, AAD empty, short or longer than the one-call GHASH layout.
fn messages(rng: &mut Rng, n: usize) -> Vec<Msg> {
    const LONG: [usize; 10] = [511, 512, 2047, 2048, 2049, 4096, 4100, 16384, 16385, 20000];
    (0..n)
        .map(|i| {
            let len = if i % 9 == 4 {
                LONG[(i / 9) % LONG.len()]
            } else {
                rng.below(300)
            };
            let aad_len = match i % 4 {
                0 | 1 => 0,
                2 => rng.below(40),
                _ => 17 + rng.below(600),
            };
            let nonce = rng.bytes(12).try_into().unwrap();
            (nonce, rng.bytes(aad_len), rng.bytes(len))
        })
        .collect()
}

fn seal_many(g: &Sm4Gcm, msgs: &[Msg]) -> (Vec<Vec<u8>>, Vec<Result<(), Error>>) {
    let mut outs: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0xa5; m.2.len() + 16]).collect();
    let mut rows: Vec<GcmRow<'_>> = msgs
        .iter()
        .zip(outs.iter_mut())
        .map(|((nonce, aad, pt), out)| GcmRow {
            nonce,
            aad,
            input: pt,
            output: out,
        })
        .collect();
    let res = g.encrypt_many_into(&mut rows);
    drop(rows);
    (outs, res)
}

fn open_many(g: &Sm4Gcm, msgs: &[Msg], cts: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<Result<(), Error>>) {
    let mut outs: Vec<Vec<u8>> = cts
        .iter()
        .map(|c| vec![0xa5; c.len().saturating_sub(16)])
        .collect();
    let mut rows: Vec<GcmRow<'_>> = msgs
        .iter()
        .zip(cts)
        .zip(outs.iter_mut())
        .map(|(((nonce, aad, _), ct), out)| GcmRow {
            nonce,
            aad,
            input: ct,
            output: out,
        })
        .collect();
    let res = g.decrypt_many_into(&mut rows);
    drop(rows);
    (outs, res)
}

#[test]
fn many_agrees_with_one_message_calls_on_every_variant() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for v in cpu::variants() {
        let key: [u8; 16] = rng.bytes(16).try_into().unwrap();
        let g = Sm4Gcm::with_variant(&key, v);
        for n in [0usize, 1, 15, 16, 17, 100] {
            let msgs = messages(&mut rng, n);
            let (cts, res) = seal_many(&g, &msgs);
            assert_eq!(res.len(), n);
            for (i, ((nonce, aad, pt), ct)) in msgs.iter().zip(&cts).enumerate() {
                assert_eq!(res[i], Ok(()), "{v} n={n} row {i}");
                let mut one = vec![0u8; pt.len() + 16];
                g.encrypt_into(nonce, aad, pt, &mut one).unwrap();
                assert!(
                    *ct == one,
                    "{v} n={n} row {i}: {} bytes, aad {}",
                    pt.len(),
                    aad.len()
                );
            }
            let (pts, res) = open_many(&g, &msgs, &cts);
            for (i, ((nonce, aad, pt), ct)) in msgs.iter().zip(&cts).enumerate() {
                assert_eq!(res[i], Ok(()), "{v} n={n} row {i}");
                assert!(pts[i] == *pt, "{v} n={n} row {i}: {} bytes", pt.len());
                assert_eq!(g.decrypt(nonce, aad, ct).unwrap(), *pt);
            }
        }
    }
}

/// Flips one bit of the tag, the ciphertext, the AAD or the nonce of one message: only
/// that message fails, with `InvalidTag` and a zero-filled output, on every variant.
#[test]
fn tampering_fails_only_that_message() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for v in cpu::variants() {
        let g = Sm4Gcm::with_variant(&[0x42; 16], v);
        let mut msgs = messages(&mut rng, 90);
        for m in &mut msgs {
            if m.1.is_empty() {
                let n = 1 + rng.below(20);
                m.1 = rng.bytes(n);
            }
            if m.2.is_empty() {
                m.2 = rng.bytes(1);
            }
        }
        let (cts, res) = seal_many(&g, &msgs);
        assert!(res.iter().all(|r| r.is_ok()));
        for t in [0usize, 1, 4, 13, 22, 31, 40, 58, 76, 85, 89] {
            for what in ["tag", "ciphertext", "aad", "nonce"] {
                let (mut m2, mut c2) = (msgs.clone(), cts.clone());
                match what {
                    "tag" => *c2[t].last_mut().unwrap() ^= 0x80,
                    "ciphertext" => c2[t][0] ^= 1,
                    "aad" => m2[t].1[0] ^= 4,
                    _ => m2[t].0[11] ^= 1,
                }
                let (pts, res) = open_many(&g, &m2, &c2);
                for i in 0..msgs.len() {
                    if i == t {
                        assert_eq!(res[i], Err(Error::InvalidTag), "{v} {what} row {t}");
                        assert!(pts[i].iter().all(|&b| b == 0), "{v} {what} row {t}");
                    } else {
                        assert_eq!(res[i], Ok(()), "{v} {what} row {t}, row {i}");
                        assert!(pts[i] == msgs[i].2, "{v} {what} row {t}, row {i}");
                    }
                }
            }
        }
    }
}

#[test]
fn bad_lengths_fail_only_that_message() {
    let g = Sm4Gcm::new(&[9; 16]);
    let mut rng = Rng(77);
    let msgs = messages(&mut rng, 20);
    let (cts, _) = seal_many(&g, &msgs);

    // Encryption: an output one byte short is left untouched.
    let mut outs: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0x55; m.2.len() + 16]).collect();
    outs[3].pop();
    let mut rows: Vec<GcmRow<'_>> = msgs
        .iter()
        .zip(outs.iter_mut())
        .map(|((nonce, aad, pt), out)| GcmRow {
            nonce,
            aad,
            input: pt,
            output: out,
        })
        .collect();
    let res = g.encrypt_many_into(&mut rows);
    drop(rows);
    for (i, r) in res.iter().enumerate() {
        if i == 3 {
            assert!(matches!(r, Err(Error::InvalidLength { .. })), "{r:?}");
            assert!(outs[3].iter().all(|&b| b == 0x55));
        } else {
            assert_eq!(*r, Ok(()));
            assert_eq!(outs[i], cts[i]);
        }
    }

    // Decryption: inputs shorter than a tag, and an output of the wrong length.
    let mut c2 = cts.clone();
    c2[5] = cts[5][..15].to_vec();
    c2[6] = Vec::new();
    let mut outs: Vec<Vec<u8>> = c2
        .iter()
        .map(|c| vec![0x55; c.len().saturating_sub(16)])
        .collect();
    outs[7].push(0x55);
    let mut rows: Vec<GcmRow<'_>> = msgs
        .iter()
        .zip(&c2)
        .zip(outs.iter_mut())
        .map(|(((nonce, aad, _), ct), out)| GcmRow {
            nonce,
            aad,
            input: ct,
            output: out,
        })
        .collect();
    let res = g.decrypt_many_into(&mut rows);
    drop(rows);
    for (i, r) in res.iter().enumerate() {
        match i {
            5 | 6 => assert_eq!(*r, Err(Error::InvalidTag)),
            7 => {
                assert!(matches!(r, Err(Error::InvalidLength { .. })), "{r:?}");
                assert!(outs[7].iter().all(|&b| b == 0x55));
            }
            _ => {
                assert_eq!(*r, Ok(()));
                assert_eq!(outs[i], msgs[i].2);
            }
        }
    }

    // An empty batch.
    assert!(g.encrypt_many_into(&mut []).is_empty());
    assert!(g.decrypt_many_into(&mut []).is_empty());
}

/// The SM4-GCM vectors of vectors/sm4.json with a 96-bit nonce and a 128-bit tag (RFC 8998
/// A.1, Wycheproof), each key's vectors as one batch on every variant: valid ones encrypt
/// to their ciphertext and tag and decrypt back; invalid ones fail to decrypt.
#[test]
fn known_answers_in_batches() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/sm4.json"
    ))
    .unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    let h = |v: &Value, k: &str| hex::decode(v[k].as_str().unwrap()).unwrap();
    let mut by_key: std::collections::BTreeMap<Vec<u8>, Vec<&Value>> = Default::default();
    for v in all["vectors"].as_array().unwrap() {
        if v["mode"] == "GCM" && h(v, "iv").len() == 12 && h(v, "tag").len() == 16 {
            by_key.entry(h(v, "key")).or_default().push(v);
        }
    }
    let total: usize = by_key.values().map(Vec::len).sum();
    assert!(total >= 40, "{total} vectors");
    for variant in cpu::variants() {
        for (key, vs) in &by_key {
            let g = Sm4Gcm::with_variant(&key[..].try_into().unwrap(), variant);
            let msgs: Vec<Msg> = vs
                .iter()
                .map(|v| {
                    (
                        h(v, "iv").try_into().unwrap(),
                        h(v, "aad"),
                        h(v, "plaintext"),
                    )
                })
                .collect();
            let cts: Vec<Vec<u8>> = vs
                .iter()
                .map(|v| [h(v, "ciphertext"), h(v, "tag")].concat())
                .collect();
            let invalid: Vec<bool> = vs.iter().map(|v| v["result"] == "invalid").collect();
            let (sealed, res) = seal_many(&g, &msgs);
            let (opened, ores) = open_many(&g, &msgs, &cts);
            for i in 0..vs.len() {
                let name = vs[i]["name"].as_str().unwrap();
                assert_eq!(res[i], Ok(()));
                if invalid[i] {
                    assert_eq!(ores[i], Err(Error::InvalidTag), "{variant} {name}");
                    assert!(opened[i].iter().all(|&b| b == 0), "{variant} {name}");
                } else {
                    assert_eq!(sealed[i], cts[i], "{variant} {name}");
                    assert_eq!(ores[i], Ok(()), "{variant} {name}");
                    assert_eq!(opened[i], msgs[i].2, "{variant} {name}");
                }
            }
        }
    }
}
