//! Known-answer tests for ZUC-128, 128-EEA3, 128-EIA3 and ZUC-256 from vectors/zuc.json,
//! run on every backend this CPU supports.

use guomi_core::cpu::{self, Backend};
use guomi_core::zuc::{self, eea3, eia3, many, zuc256, Zuc};
use guomi_core::Error;
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/zuc.json");
    let text = std::fs::read_to_string(path).expect("vectors/zuc.json");
    let v: Value = serde_json::from_str(&text).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn of(alg: &str) -> Vec<Value> {
    let all: Vec<Value> = vectors()
        .into_iter()
        .filter(|v| v["algorithm"] == alg)
        .collect();
    assert!(!all.is_empty(), "no {alg} vectors");
    all
}

/// Runs `f` under every variant of this CPU (each backend, and each with one optional
/// feature such as VBMI off), forced on this thread; `f` gets the variant's backend.
fn each_backend(f: impl Fn(Backend)) {
    for v in cpu::variants() {
        cpu::with_variant(v, || f(v.backend()));
    }
}

fn count(v: &Value) -> u32 {
    u32::from_str_radix(v["count"].as_str().unwrap(), 16).unwrap()
}

#[test]
fn zuc128_keystream_sets() {
    let vs = of("ZUC-128");
    assert_eq!(vs.len(), 3);
    each_backend(|b| {
        for v in &vs {
            let words = v["keystream_words"].as_object().unwrap();
            let n: usize = words
                .keys()
                .map(|k| k.parse::<usize>().unwrap())
                .max()
                .unwrap();
            let ks = zuc::keystream(&h(&v["key"]), &h(&v["iv"]), n).unwrap();
            for (idx, word) in words {
                let i: usize = idx.parse().unwrap(); // 1-based
                assert_eq!(
                    hex::encode(&ks[4 * (i - 1)..4 * i]),
                    word.as_str().unwrap(),
                    "{} z{i} {b:?}",
                    v["name"]
                );
            }
        }
    });
}

#[test]
fn eea3_sets_both_directions() {
    let vs = of("128-EEA3");
    assert_eq!(vs.len(), 3);
    each_backend(|b| {
        for v in &vs {
            let bits = v["length_bits"].as_u64().unwrap();
            let (pt, ct) = (h(&v["plaintext"]), h(&v["ciphertext"]));
            let (key, c, be, d) = (
                h(&v["key"]),
                count(v),
                v["bearer"].as_u64().unwrap() as u8,
                v["direction"].as_u64().unwrap() as u8,
            );
            assert_eq!(
                eea3(&key, c, be, d, &pt, Some(bits)).unwrap(),
                ct,
                "{} {b:?}",
                v["name"]
            );
            assert_eq!(
                eea3(&key, c, be, d, &ct, Some(bits)).unwrap(),
                pt,
                "{} decrypt {b:?}",
                v["name"]
            );
        }
    });
}

/// EEA3 test set 5 as the ETSI document prints it: 32-bit words, so the data is padded
/// to 504 bytes (126 words); the JSON entry is the 503-byte (ceil(4019/8)) printing.
/// Both give the same ciphertext bits: the output is ceil(length_bits/8) bytes.
#[test]
fn eea3_set5_both_printings() {
    let v = of("128-EEA3")
        .into_iter()
        .find(|v| v["length_bits"] == 4019)
        .unwrap();
    let (mut pt_words, mut ct_words) = (h(&v["plaintext"]), h(&v["ciphertext"]));
    assert_eq!(pt_words.len(), 503);
    pt_words.push(0);
    ct_words.push(0);
    each_backend(|b| {
        let out = eea3(&h(&v["key"]), count(&v), 26, 0, &pt_words, Some(4019)).unwrap();
        assert_eq!(out.len(), 503);
        assert_eq!(out, ct_words[..503], "{b:?}");
        assert_eq!(*out.last().unwrap() & 0x1f, 0, "unused bits are zero");
        // Garbage in the unused trailing bits of the input does not leak to the output.
        let mut noisy = pt_words.clone();
        noisy[502] |= 0x1f;
        noisy[503] = 0xff;
        assert_eq!(
            eea3(&h(&v["key"]), count(&v), 26, 0, &noisy, Some(4019)).unwrap(),
            out
        );
    });
}

#[test]
fn eia3_sets() {
    let vs = of("128-EIA3");
    assert_eq!(vs.len(), 3);
    each_backend(|b| {
        for v in &vs {
            let bits = v["length_bits"].as_u64().unwrap();
            let mut msg = h(&v["message"]);
            let (key, c, be, d) = (
                h(&v["key"]),
                count(v),
                v["bearer"].as_u64().unwrap() as u8,
                v["direction"].as_u64().unwrap() as u8,
            );
            let mac = eia3(&key, c, be, d, &msg, Some(bits)).unwrap();
            assert_eq!(mac.to_vec(), h(&v["mac"]), "{} {b:?}", v["name"]);
            // Bits after length_bits are not authenticated.
            msg.extend_from_slice(&[0xa5; 7]);
            if bits % 8 != 0 {
                let last = (bits / 8) as usize;
                msg[last] |= 0xff >> (bits % 8);
            }
            assert_eq!(
                eia3(&key, c, be, d, &msg, Some(bits)).unwrap(),
                mac,
                "{} padding {b:?}",
                v["name"]
            );
        }
    });
}

#[test]
fn zuc256_keystream_and_encryption() {
    each_backend(|b| {
        for v in of("ZUC-256") {
            let key = h(&v["key"]);
            let iv = h(&v["iv"]);
            if let Some(words) = v["keystream_words"].as_array() {
                let expect: String = words.iter().map(|w| w.as_str().unwrap()).collect();
                assert_eq!(
                    hex::encode(zuc256::keystream(&key, &iv, words.len()).unwrap()),
                    expect,
                    "{b:?}"
                );
                let packed = h(&v["iv_packed_23_bytes"]);
                assert_eq!(
                    hex::encode(zuc256::keystream(&key, &packed, words.len()).unwrap()),
                    expect,
                    "packed {b:?}"
                );
                assert_eq!(
                    zuc256::Zuc256Iv::parse(&iv).unwrap().packed().to_vec(),
                    packed
                );
            } else {
                let pt = h(&v["plaintext"]);
                let mut data = pt.clone();
                Zuc::new_256(&key, &iv).unwrap().apply_keystream(&mut data);
                assert_eq!(data, h(&v["ciphertext"]), "{} {b:?}", v["name"]);
                // The packed IV gives the same keystream.
                let packed = zuc256::Zuc256Iv::parse(&iv).unwrap().packed();
                Zuc::new_256(&key, &packed)
                    .unwrap()
                    .apply_keystream(&mut data);
                assert_eq!(data, pt);
            }
        }
    });
}

#[test]
fn zuc256_mac_all_tag_sizes() {
    let vs = of("ZUC-256-MAC");
    assert!(vs.len() >= 9);
    each_backend(|b| {
        for v in &vs {
            let tag_bits = v["tag_bits"].as_u64().unwrap() as u32;
            let bits = v["length_bits"].as_u64().unwrap();
            let (key, iv, msg) = (h(&v["key"]), h(&v["iv"]), h(&v["message"]));
            let mac = zuc256::mac(&key, &iv, &msg, tag_bits, Some(bits)).unwrap();
            assert_eq!(
                hex::encode(&mac),
                v["mac"].as_str().unwrap(),
                "{} {b:?}",
                v["name"]
            );
            let packed = zuc256::Zuc256Iv::parse(&iv).unwrap().packed();
            assert_eq!(
                zuc256::mac(&key, &packed, &msg, tag_bits, Some(bits)).unwrap(),
                mac
            );
        }
    });
}

/// The 128-bit tag has no vector in the file; check its structure instead: with the same
/// key and IV, tags of different sizes use different d-constants and are unrelated, and
/// a one-bit change in the message changes the tag.
#[test]
fn zuc256_mac_128_behaves() {
    let key = [0x11u8; 32];
    let iv = [0x22u8; 23];
    let msg = vec![0x5au8; 100];
    let t128 = zuc256::mac(&key, &iv, &msg, 128, None).unwrap();
    assert_eq!(t128.len(), 16);
    let t64 = zuc256::mac(&key, &iv, &msg, 64, None).unwrap();
    assert_ne!(t128[..8], t64[..]);
    let mut m2 = msg.clone();
    m2[50] ^= 1;
    assert_ne!(zuc256::mac(&key, &iv, &m2, 128, None).unwrap(), t128);
    for v in cpu::variants() {
        assert_eq!(
            zuc256::mac_variant(v, &key, &iv, &msg, 128, None).unwrap(),
            t128
        );
    }
}

#[test]
fn bad_input_is_typed() {
    let k = [0u8; 16];
    assert!(matches!(
        eea3(&k[..15], 0, 0, 0, b"x", None),
        Err(Error::InvalidLength { .. })
    ));
    assert!(matches!(
        eia3(&[0u8; 17], 0, 0, 0, b"x", None),
        Err(Error::InvalidLength { .. })
    ));
    assert!(matches!(
        eea3(&k, 0, 32, 0, b"x", None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        eia3(&k, 0, 0, 2, b"x", None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        eea3(&k, 0, 0, 0, b"x", Some(9)),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        eia3(&k, 0, 0, 0, b"x", Some(9)),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        Zuc::new(&k, &[0u8; 15]),
        Err(Error::InvalidLength { .. })
    ));
    assert!(matches!(
        zuc256::keystream(&[0u8; 32], &[0u8; 24], 1),
        Err(Error::InvalidLength { .. })
    ));
    assert!(matches!(
        zuc256::keystream(&[0u8; 31], &[0u8; 23], 1),
        Err(Error::InvalidLength { .. })
    ));
    let mut iv25 = [0u8; 25];
    iv25[20] = 64;
    assert!(matches!(
        zuc256::keystream(&[0u8; 32], &iv25, 1),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        zuc256::mac(&[0u8; 32], &[0u8; 23], b"", 48, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        zuc256::mac(&[0u8; 32], &[0u8; 23], b"", 32, Some(1)),
        Err(Error::InvalidValue(_))
    ));
    // Zero-length messages are fine.
    assert_eq!(eea3(&k, 0, 0, 0, b"", None).unwrap(), b"");
    assert_eq!(eea3(&k, 0, 0, 0, b"abc", Some(0)).unwrap(), b"");
    eia3(&k, 0, 0, 0, b"", None).unwrap();
}

/// Bit lengths that are not multiples of 8 or 32: the MAC of L bits equals the MAC of
/// the same bits with garbage after them, and equals the bit-by-bit reference.
#[test]
fn eia3_every_bit_length_matches_reference() {
    let key: Vec<u8> = (0..16).collect();
    let msg: Vec<u8> = (0..40u32).map(|i| (i * 73 + 11) as u8).collect();
    each_backend(|b| {
        for bits in 0..=(8 * msg.len() as u64) {
            let got = eia3(&key, 0x1234_5678, 9, 1, &msg, Some(bits)).unwrap();
            assert_eq!(
                got,
                reference_eia3(&key, 0x1234_5678, 9, 1, &msg, bits),
                "L={bits} {b:?}"
            );
        }
    });
}

/// Straight from Document 1 §4.4: bit-by-bit, with the keystream as a bit array.
fn reference_eia3(key: &[u8], count: u32, bearer: u8, dir: u8, msg: &[u8], l: u64) -> [u8; 4] {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = bearer << 3;
    iv.copy_within(0..8, 8);
    iv[8] ^= dir << 7;
    iv[14] ^= dir << 7;
    let nwords = (l.div_ceil(32) + 2) as usize;
    let ks = zuc::keystream(key, &iv, nwords).unwrap();
    let bit = |i: u64| (ks[(i / 8) as usize] >> (7 - i % 8)) & 1;
    let word = |i: u64| (0..32).fold(0u32, |acc, k| (acc << 1) | u32::from(bit(i + k)));
    let mut t = 0u32;
    for i in 0..l {
        if (msg[(i / 8) as usize] >> (7 - i % 8)) & 1 == 1 {
            t ^= word(i);
        }
    }
    t ^= word(l);
    (t ^ word(32 * (nwords as u64 - 1))).to_be_bytes()
}

#[test]
fn eea3_bit_lengths_and_backends_agree() {
    let key = [0x42u8; 16];
    let data: Vec<u8> = (0..700u32).map(|i| (i * 31) as u8).collect();
    let full = zuc::eea3::eea3_into_with;
    for bits in [
        0u64, 1, 7, 8, 9, 31, 32, 33, 255, 256, 257, 1023, 2047, 5600,
    ] {
        let n = bits.div_ceil(8) as usize;
        let mut expect = vec![0u8; n];
        full(
            Backend::Portable,
            &key,
            7,
            5,
            1,
            &data,
            Some(bits),
            &mut expect,
        )
        .unwrap();
        for b in cpu::variants() {
            let mut out = vec![0u8; n];
            zuc::eea3::eea3_into_variant(b, &key, 7, 5, 1, &data, Some(bits), &mut out).unwrap();
            assert_eq!(out, expect, "{bits} {b:?}");
        }
        // Round trip.
        let back = eea3(&key, 7, 5, 1, &expect, Some(bits)).unwrap();
        assert_eq!(back[..n.saturating_sub(1)], data[..n.saturating_sub(1)]);
    }
}

#[test]
fn many_matches_one_by_one() {
    let keys: Vec<[u8; 16]> = (0..37u8).map(|i| [i.wrapping_mul(13); 16]).collect();
    let datas: Vec<Vec<u8>> = (0..37usize)
        .map(|i| (0..(i * 57) % 1500).map(|j| (i + j) as u8).collect())
        .collect();
    let items: Vec<many::Item<'_>> = (0..37)
        .map(|i| {
            (
                &keys[i][..],
                i as u32 * 1000,
                (i % 32) as u8,
                (i % 2) as u8,
                &datas[i][..],
            )
        })
        .collect();
    let expect_c: Vec<Vec<u8>> = items
        .iter()
        .map(|&(k, c, b, d, m)| eea3(k, c, b, d, m, None).unwrap())
        .collect();
    let expect_m: Vec<[u8; 4]> = items
        .iter()
        .map(|&(k, c, b, d, m)| eia3(k, c, b, d, m, None).unwrap())
        .collect();
    each_backend(|b| {
        for threads in [None, Some(0), Some(3)] {
            assert_eq!(
                many::eea3_many(&items, threads).unwrap(),
                expect_c,
                "{b:?} {threads:?}"
            );
            assert_eq!(
                many::eia3_many(&items, threads).unwrap(),
                expect_m,
                "{b:?} {threads:?}"
            );
        }
    });
    let mut bad = items.clone();
    bad[5].2 = 40;
    assert!(matches!(
        many::eea3_many(&bad, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        many::eia3_many(&bad, None),
        Err(Error::InvalidValue(_))
    ));
}

/// Large batches take the threaded path (rayon); results are the same and in order.
#[test]
fn many_threaded_path() {
    let keys: Vec<[u8; 16]> = (0..120u8).map(|i| [i; 16]).collect();
    let datas: Vec<Vec<u8>> = (0..120usize)
        .map(|i| vec![(i * 7) as u8; 600 + (i * 13) % 900])
        .collect();
    let items: Vec<many::Item<'_>> = (0..120)
        .map(|i| {
            (
                &keys[i][..],
                i as u32,
                (i % 32) as u8,
                (i % 2) as u8,
                &datas[i][..],
            )
        })
        .collect();
    assert!(datas.iter().map(Vec::len).sum::<usize>() > 64 * 1024);
    let expect_c: Vec<Vec<u8>> = items
        .iter()
        .map(|&(k, c, b, d, m)| eea3(k, c, b, d, m, None).unwrap())
        .collect();
    let expect_m: Vec<[u8; 4]> = items
        .iter()
        .map(|&(k, c, b, d, m)| eia3(k, c, b, d, m, None).unwrap())
        .collect();
    each_backend(|b| {
        for threads in [Some(0), Some(2), Some(5)] {
            assert_eq!(
                many::eea3_many(&items, threads).unwrap(),
                expect_c,
                "{b:?} {threads:?}"
            );
            assert_eq!(
                many::eia3_many(&items, threads).unwrap(),
                expect_m,
                "{b:?} {threads:?}"
            );
        }
    });
}

/// The verifier fixes the MAC size (`tag_bits`); the tag's own length never selects it.
#[test]
fn zuc256_mac_verify_uses_the_callers_size() {
    let (key, iv, msg) = ([0x31u8; 32], [0x17u8; 25], b"hello ZUC-256".repeat(9));
    let tags: Vec<(u32, Vec<u8>)> = [32u32, 64, 128]
        .iter()
        .map(|&t| (t, zuc256::mac(&key, &iv, &msg, t, None).unwrap()))
        .collect();
    for (t, tag) in &tags {
        assert!(zuc256::mac_verify(&key, &iv, &msg, tag, *t, None).unwrap());
        for n in 0..tag.len() {
            assert!(!zuc256::mac_verify(&key, &iv, &msg, &tag[..n], *t, None).unwrap());
        }
        let mut long = tag.clone();
        long.push(0);
        assert!(!zuc256::mac_verify(&key, &iv, &msg, &long, *t, None).unwrap());
        for (other, otag) in &tags {
            if other != t {
                // A valid 32-bit MAC must not pass a verifier set for 128 bits, etc.
                assert!(!zuc256::mac_verify(&key, &iv, &msg, otag, *t, None).unwrap());
            }
        }
    }
    for bad in [0u32, 8, 16, 48, 96, 256] {
        assert!(matches!(
            zuc256::mac_verify(&key, &iv, &msg, &tags[0].1, bad, None),
            Err(Error::InvalidValue(_))
        ));
    }
}

/// Every function that takes an explicit backend accepts every backend, supported or not,
/// and clamps it to what the CPU runs (same bytes as the portable code).
#[test]
fn explicit_backends_are_clamped() {
    let key = [0x5au8; 16];
    let data: Vec<u8> = (0..999u32).map(|i| (i * 7) as u8).collect();
    let want_eia3 = eia3::eia3_with(Backend::Portable, &key, 1, 2, 1, &data, None).unwrap();
    let mut want_eea3 = vec![0u8; data.len()];
    eea3::eea3_into_with(
        Backend::Portable,
        &key,
        1,
        2,
        1,
        &data,
        None,
        &mut want_eea3,
    )
    .unwrap();
    let want_mac =
        zuc256::mac_with(Backend::Portable, &[1; 32], &[2; 25], &data, 64, None).unwrap();
    let mut want_ks = [0u32; 40];
    Zuc::with_backend(&key, &[3; 16], Backend::Portable)
        .unwrap()
        .words(&mut want_ks);
    for b in Backend::ALL {
        assert_eq!(
            eia3::eia3_with(b, &key, 1, 2, 1, &data, None).unwrap(),
            want_eia3
        );
        let mut out = vec![0u8; data.len()];
        eea3::eea3_into_with(b, &key, 1, 2, 1, &data, None, &mut out).unwrap();
        assert_eq!(out, want_eea3, "{b:?}");
        assert_eq!(
            zuc256::mac_with(b, &[1; 32], &[2; 25], &data, 64, None).unwrap(),
            want_mac
        );
        let mut ks = [0u32; 40];
        Zuc::with_backend(&key, &[3; 16], b).unwrap().words(&mut ks);
        assert_eq!(ks, want_ks, "{b:?}");
    }
}
