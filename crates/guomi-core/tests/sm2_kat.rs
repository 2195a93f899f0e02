//! SM2 known-answer tests (vectors/sm2.json, both the recommended and the example curve),
//! randomized round trips, encodings and negative tests.

use guomi_core::sm2::hazmat::{
    encrypt_with_fixed_k_for_testing, sign_digest_with_fixed_k_for_testing,
    sign_digest_with_fixed_randomness_for_testing,
};
use guomi_core::sm2::{
    convert_ciphertext, ecdh, message_digest, verify_many, CiphertextFormat, CiphertextParts,
    Curve, ExampleCurve, Initiator, PrivateKey, PublicKey, Responder, Signature, Sm2p256,
    VerifyItem, DEFAULT_UID,
};
use guomi_core::Error;
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/sm2.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn h(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap_or_else(|| panic!("missing {k}"))).unwrap()
}

fn h32(v: &Value, k: &str) -> [u8; 32] {
    h(v, k).try_into().unwrap()
}

fn is_example(v: &Value) -> bool {
    v.get("curve_params").is_some()
}

fn check_curve_params(v: &Value) {
    // G of the compiled-in example curve is the vector's (a and b enter every Z value,
    // which the sign and key exchange vectors check).
    let p = &v["curve_params"];
    let g = PrivateKey::<ExampleCurve>::from_be_integer(&[1])
        .unwrap()
        .public_key()
        .to_raw();
    assert_eq!(hex::encode(&g[..32]), p["gx"].as_str().unwrap());
    assert_eq!(hex::encode(&g[32..]), p["gy"].as_str().unwrap());
}

fn sign_vector<C: Curve>(v: &Value) {
    let key = PrivateKey::<C>::from_bytes(&h(v, "private_key")).unwrap();
    assert_eq!(key.public_key().x().to_vec(), h(v, "public_key_x"));
    assert_eq!(key.public_key().y().to_vec(), h(v, "public_key_y"));
    let uid = h(v, "user_id_hex");
    let z = key.z(&uid).unwrap();
    assert_eq!(z.to_vec(), h(v, "Z"), "{}", v["name"]);
    assert_eq!(key.public_key().compute_z(&uid).unwrap(), z);
    let e = message_digest(&z, &h(v, "message"));
    assert_eq!(e.to_vec(), h(v, "e"));
    let sig = sign_digest_with_fixed_k_for_testing(&key, &e, &h32(v, "k")).unwrap();
    assert_eq!(sig.r.to_vec(), h(v, "r"), "{}", v["name"]);
    assert_eq!(sig.s.to_vec(), h(v, "s"));
    let pk = key.public_key();
    assert!(pk.verify(&h(v, "message"), &uid, &sig));
    assert!(pk.verify_digest(&e, &sig));
    assert!(!pk.verify(b"other message", &uid, &sig));
    assert!(!pk.verify(&h(v, "message"), b"other uid", &sig));
    // Prepared key verifies the same.
    pk.prepare();
    assert!(pk.verify(&h(v, "message"), &uid, &sig));
    // A fresh random signature verifies too.
    let sig2 = key.sign(&h(v, "message"), &uid).unwrap();
    assert!(pk.verify(&h(v, "message"), &uid, &sig2));
}

fn encrypt_vector<C: Curve>(v: &Value) {
    let key = PrivateKey::<C>::from_bytes(&h(v, "private_key")).unwrap();
    let pk =
        PublicKey::<C>::from_coordinates(&h32(v, "public_key_x"), &h32(v, "public_key_y")).unwrap();
    assert!(&pk == key.public_key());
    let msg = h(v, "message");
    let parts = encrypt_with_fixed_k_for_testing(&pk, &msg, &h32(v, "k")).unwrap();
    assert_eq!(parts.c1_x.to_vec(), h(v, "C1_x"), "{}", v["name"]);
    assert_eq!(parts.c1_y.to_vec(), h(v, "C1_y"));
    assert_eq!(parts.c2, h(v, "C2"));
    assert_eq!(parts.c3.to_vec(), h(v, "C3"));
    let raw = parts.encode(CiphertextFormat::C1C3C2, true);
    assert_eq!(raw, h(v, "ciphertext_C1C3C2"));
    let der = parts.encode(CiphertextFormat::Der, true);
    assert_eq!(der, h(v, "ciphertext_der_gmt0009"));
    assert_eq!(&key.decrypt(&raw, None).unwrap()[..], &msg[..]);
    assert_eq!(&key.decrypt(&der, None).unwrap()[..], &msg[..]);
    assert_eq!(
        &key.decrypt(&der, Some(CiphertextFormat::Der)).unwrap()[..],
        &msg[..]
    );
    assert_eq!(&key.decrypt(&raw[1..], None).unwrap()[..], &msg[..]);
    let c1c2c3 = parts.encode(CiphertextFormat::C1C2C3, false);
    assert_eq!(
        &key.decrypt(&c1c2c3, Some(CiphertextFormat::C1C2C3))
            .unwrap()[..],
        &msg[..]
    );
    assert_eq!(
        convert_ciphertext::<C>(&der, None, CiphertextFormat::C1C3C2, true).unwrap(),
        raw
    );
    assert_eq!(
        convert_ciphertext::<C>(&raw, None, CiphertextFormat::Der, true).unwrap(),
        der
    );
    // Wrong C3 / truncated / extended: one opaque error.
    let mut bad = raw.clone();
    bad[70] ^= 1;
    assert_eq!(
        key.decrypt(&bad, None).unwrap_err(),
        Error::DecryptionFailed
    );
    assert_eq!(
        key.decrypt(&raw[..raw.len() - 1], None).unwrap_err(),
        Error::DecryptionFailed
    );
    let mut ext = raw.clone();
    ext.push(0);
    assert_eq!(
        key.decrypt(&ext, None).unwrap_err(),
        Error::DecryptionFailed
    );
}

fn kex_vector<C: Curve>(v: &Value) {
    let klen = v["klen_bytes"].as_u64().unwrap() as usize;
    let a = PrivateKey::<C>::from_bytes(&h(v, "d_A")).unwrap();
    let b = PrivateKey::<C>::from_bytes(&h(v, "d_B")).unwrap();
    assert_eq!(a.public_key().x().to_vec(), h(v, "P_A_x"));
    assert_eq!(b.public_key().y().to_vec(), h(v, "P_B_y"));
    let (ida, idb) = (
        v["id_A"].as_str().unwrap().as_bytes(),
        v["id_B"].as_str().unwrap().as_bytes(),
    );
    assert_eq!(a.z(ida).unwrap().to_vec(), h(v, "Z_A"));
    assert_eq!(b.z(idb).unwrap().to_vec(), h(v, "Z_B"));
    let mut init =
        Initiator::with_fixed_ephemeral_for_testing(&a, ida, b.public_key(), idb, &h32(v, "r_A"))
            .unwrap();
    let ra = init.ephemeral_public();
    assert_eq!(ra[1..33].to_vec(), h(v, "R_A_x"));
    assert_eq!(ra[33..].to_vec(), h(v, "R_A_y"));
    let (resp, kb) = Responder::respond_with_fixed_ephemeral_for_testing(
        &b,
        idb,
        a.public_key(),
        ida,
        &ra,
        klen,
        &h32(v, "r_B"),
    )
    .unwrap();
    let rb = resp.ephemeral_public();
    assert_eq!(rb[1..33].to_vec(), h(v, "R_B_x"));
    assert_eq!(rb[33..].to_vec(), h(v, "R_B_y"));
    assert_eq!(kb.key.to_vec(), h(v, "K"), "{}", v["name"]);
    assert_eq!(kb.confirmation.to_vec(), h(v, "S_1_eq_S_B"));
    let ka = init.finish(&rb, Some(&kb.confirmation), klen).unwrap();
    assert_eq!(ka.key.to_vec(), h(v, "K"));
    assert_eq!(ka.confirmation.to_vec(), h(v, "S_2_eq_S_A"));
    resp.confirm(&ka.confirmation).unwrap();
    assert!(resp.confirm(&[0u8; 32]).is_err());
    // Single use: r_A is gone after the first finish, whatever happens.
    assert_eq!(
        init.finish(&rb, Some(&kb.confirmation), klen).err(),
        Some(Error::AlreadyFinalized)
    );
    let mut wrong = kb.confirmation;
    wrong[0] ^= 1;
    let mut init2 =
        Initiator::with_fixed_ephemeral_for_testing(&a, ida, b.public_key(), idb, &h32(v, "r_A"))
            .unwrap();
    assert_eq!(
        init2.finish(&rb, Some(&wrong), klen).err(),
        Some(Error::InvalidTag)
    );
    assert_eq!(
        init2.finish(&rb, Some(&kb.confirmation), klen).err(),
        Some(Error::AlreadyFinalized)
    );
}

#[test]
fn all_vectors() {
    // Run under every variant (the SM2 field's MULX/ADX assembly and, with `-noadx`, the
    // portable Montgomery code), so that a future backend is covered automatically.
    for v in guomi_core::cpu::variants() {
        guomi_core::cpu::with_variant(v, run_all_vectors);
    }
}

fn run_all_vectors() {
    let mut counts = std::collections::BTreeMap::new();
    for v in vectors() {
        let op = v["operation"].as_str().unwrap().to_string();
        let ex = is_example(&v);
        if ex {
            check_curve_params(&v);
        }
        match (op.as_str(), ex) {
            ("sign", false) => sign_vector::<Sm2p256>(&v),
            ("sign", true) => sign_vector::<ExampleCurve>(&v),
            ("encrypt", false) => encrypt_vector::<Sm2p256>(&v),
            ("encrypt", true) => encrypt_vector::<ExampleCurve>(&v),
            ("key_exchange", false) => kex_vector::<Sm2p256>(&v),
            ("key_exchange", true) => kex_vector::<ExampleCurve>(&v),
            ("verify_digest", false) => {
                let pk = PublicKey::<Sm2p256>::from_coordinates(
                    &h32(&v, "public_key_x"),
                    &h32(&v, "public_key_y"),
                )
                .unwrap();
                let key = PrivateKey::<Sm2p256>::from_bytes(&h(&v, "private_key")).unwrap();
                assert!(&pk == key.public_key());
                let sig = Signature::from_der(&h(&v, "signature_der")).unwrap();
                assert_eq!(sig.r.to_vec(), h(&v, "r"));
                assert_eq!(sig.to_der(), h(&v, "signature_der"));
                assert_eq!(v["expected"], "valid");
                assert!(pk.verify_digest(&h32(&v, "e"), &sig));
                let mut e = h32(&v, "e");
                e[31] ^= 1;
                assert!(!pk.verify_digest(&e, &sig));
            }
            other => panic!("unhandled vector {other:?}"),
        }
        *counts
            .entry(format!("{op}/{}", if ex { "example" } else { "sm2p256v1" }))
            .or_insert(0) += 1;
    }
    assert_eq!(counts.values().sum::<i32>(), 8, "{counts:?}");
}

fn n_bytes() -> [u8; 32] {
    hex::decode("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123")
        .unwrap()
        .try_into()
        .unwrap()
}

fn sub_be(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = a[i] as i16 - b[i] as i16 - borrow;
        out[i] = d.rem_euclid(256) as u8;
        borrow = (d < 0) as i16;
    }
    out
}

#[test]
fn signature_range_checks() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let pk = key.public_key();
    let msg = b"range checks";
    let sig = key.sign(msg, DEFAULT_UID).unwrap();
    assert!(pk.verify(msg, DEFAULT_UID, &sig));
    let n = n_bytes();
    let zero = [0u8; 32];
    for (r, s) in [
        (zero, sig.s),
        (n, sig.s),
        (sig.r, zero),
        (sig.r, n),
        ([0xff; 32], sig.s),
        (sig.r, [0xff; 32]),
    ] {
        assert!(!pk.verify(msg, DEFAULT_UID, &Signature { r, s }));
    }
    // r + s = n: t = 0 must be rejected.
    let s = sub_be(&n, &sig.r);
    assert!(!pk.verify(msg, DEFAULT_UID, &Signature { r: sig.r, s }));
    // s + n does not fit; r - 1, s - 1 are wrong.
    let mut r1 = sig.r;
    r1[31] ^= 1;
    assert!(!pk.verify(msg, DEFAULT_UID, &Signature { r: r1, s: sig.s }));
    // Too-long uid.
    assert!(key.sign(msg, &vec![b'a'; 8192]).is_err());
    assert!(key.sign(msg, &vec![b'a'; 8191]).is_ok());
    assert!(!pk.verify(msg, &vec![b'a'; 8192], &sig));
    // Empty uid works.
    let s2 = key.sign(msg, b"").unwrap();
    assert!(pk.verify(msg, b"", &s2));
    assert!(!pk.verify(msg, DEFAULT_UID, &s2));
}

#[test]
fn signature_encodings() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    for _ in 0..200 {
        let sig = key.sign(b"x", DEFAULT_UID).unwrap();
        let der = sig.to_der();
        assert!((8..=72).contains(&der.len()));
        assert_eq!(Signature::from_der(&der).unwrap(), sig);
        assert_eq!(Signature::from_bytes(&der).unwrap(), sig);
        assert_eq!(Signature::from_bytes(&sig.to_raw()).unwrap(), sig);
    }
    // Leading zeros: r = 1, s = 0x80.
    let mut r = [0u8; 32];
    r[31] = 1;
    let mut s = [0u8; 32];
    s[31] = 0x80;
    let sig = Signature { r, s };
    assert_eq!(sig.to_der(), hex::decode("300702010102020080").unwrap());
    assert_eq!(Signature::from_der(&sig.to_der()).unwrap(), sig);
    // Malformed DER.
    for bad in [
        "3006020101020180",
        "30070201010202007f",
        "3008020101020200800000",
        "300702010102020080ff",
        "3007020201020200",
    ] {
        assert!(
            Signature::from_der(&hex::decode(bad).unwrap()).is_err(),
            "{bad}"
        );
    }
    assert!(Signature::from_bytes(&[0u8; 63]).is_err());
}

/// One worker of the randomized round trips: `iters` sign/verify and encrypt/decrypt
/// round trips over fresh keys (every 32nd with a forced leading zero byte in d).
fn round_trip_worker(seed: usize, iters: usize) -> (usize, usize) {
    let mut leading_zero_keys = 0;
    let mut leading_zero_c1 = 0;
    let mut key = PrivateKey::<Sm2p256>::generate().unwrap();
    for i in 0..iters {
        if i % 16 == 0 {
            let mut d = *key.to_bytes();
            d[0] = 0;
            d[1] |= 1;
            key = if i % 32 == 0 {
                PrivateKey::from_bytes(&d).unwrap()
            } else {
                PrivateKey::generate().unwrap()
            };
        }
        let d = key.to_bytes();
        if d[0] == 0 {
            leading_zero_keys += 1;
            assert_eq!(
                PrivateKey::<Sm2p256>::from_be_integer(&d[1..]).unwrap(),
                key
            );
            assert!(matches!(
                PrivateKey::<Sm2p256>::from_bytes(&d[1..]),
                Err(Error::InvalidLength { .. })
            ));
        }
        let pk = key.public_key();
        let msg: Vec<u8> = (0..((seed + i) % 97)).map(|j| (i * 7 + j) as u8).collect();
        let sig = key.sign(&msg, DEFAULT_UID).unwrap();
        assert!(pk.verify(&msg, DEFAULT_UID, &sig));
        let ct = pk.encrypt(&msg, CiphertextFormat::C1C3C2, true).unwrap();
        assert_eq!(ct.len(), msg.len() + 97);
        if ct[1] == 0 || ct[33] == 0 {
            leading_zero_c1 += 1;
            // C1 with a leading zero coordinate byte also survives DER and no-04 forms.
            let der =
                convert_ciphertext::<Sm2p256>(&ct, None, CiphertextFormat::Der, true).unwrap();
            assert_eq!(&key.decrypt(&der, None).unwrap()[..], &msg[..]);
            assert_eq!(&key.decrypt(&ct[1..], None).unwrap()[..], &msg[..]);
        }
        assert_eq!(&key.decrypt(&ct, None).unwrap()[..], &msg[..]);
        if i % 16 == 0 {
            let der =
                convert_ciphertext::<Sm2p256>(&ct, None, CiphertextFormat::Der, true).unwrap();
            assert_eq!(&key.decrypt(&der, None).unwrap()[..], &msg[..]);
            for enc in [
                pk.to_uncompressed().to_vec(),
                pk.to_raw().to_vec(),
                pk.to_compressed().to_vec(),
            ] {
                assert!(&PublicKey::<Sm2p256>::from_bytes(&enc).unwrap() == pk);
            }
            assert_eq!(Signature::from_der(&sig.to_der()).unwrap(), sig);
        }
    }
    (leading_zero_keys, leading_zero_c1)
}

#[test]
fn randomized_round_trips() {
    // 20,000 sign/verify + encrypt/decrypt round trips by default, spread over the
    // available cores; the full 100,000 of issue 3:
    //   SM2_ROUND_TRIPS=100000 cargo test --release -p guomi-core --test sm2_kat randomized
    let iters: usize = std::env::var("SM2_ROUND_TRIPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    let per = iters.div_ceil(threads);
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || round_trip_worker(t * 1000, per)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let lz_keys: usize = results.iter().map(|r| r.0).sum();
    let lz_c1: usize = results.iter().map(|r| r.1).sum();
    assert!(lz_keys >= iters / 32);
    if iters >= 10_000 {
        // About 2/256 of C1 points have a leading zero byte in x or y.
        assert!(lz_c1 > 0);
    }
    eprintln!("round trips: {}, keys with a leading zero byte: {lz_keys}, C1 with a leading zero coordinate byte: {lz_c1}", per * threads);
}

#[test]
fn prepared_keys_agree() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let pk = PublicKey::<Sm2p256>::from_bytes(&key.public_key().to_uncompressed()).unwrap();
    pk.prepare();
    assert!(pk.is_prepared());
    for i in 0..50 {
        let msg = vec![i as u8; i];
        let sig = key.sign(&msg, b"id").unwrap();
        assert!(pk.verify(&msg, b"id", &sig));
        let ct = pk.encrypt(&msg, CiphertextFormat::C1C2C3, false).unwrap();
        assert_eq!(
            &key.decrypt(&ct, Some(CiphertextFormat::C1C2C3)).unwrap()[..],
            &msg[..]
        );
    }
}

#[test]
fn decrypt_rejects_bad_ciphertexts() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let pk = key.public_key();
    let ct = pk
        .encrypt(b"attack at dawn", CiphertextFormat::C1C3C2, true)
        .unwrap();
    // Off-curve C1.
    let mut bad = ct.clone();
    bad[64] ^= 1;
    assert_eq!(
        key.decrypt(&bad, None).unwrap_err(),
        Error::DecryptionFailed
    );
    // C1 = infinity encodings / zeros.
    let mut zero = ct.clone();
    zero[1..65].fill(0);
    assert_eq!(
        key.decrypt(&zero, None).unwrap_err(),
        Error::DecryptionFailed
    );
    assert_eq!(
        key.decrypt(&[0u8], None).unwrap_err(),
        Error::DecryptionFailed
    );
    assert_eq!(key.decrypt(&[], None).unwrap_err(), Error::DecryptionFailed);
    assert_eq!(
        key.decrypt(&ct[..96], None).unwrap_err(),
        Error::DecryptionFailed
    );
    // Wrong order.
    assert_eq!(
        key.decrypt(&ct, Some(CiphertextFormat::C1C2C3))
            .unwrap_err(),
        Error::DecryptionFailed
    );
    // Wrong key.
    let other = PrivateKey::<Sm2p256>::generate().unwrap();
    assert_eq!(
        other.decrypt(&ct, None).unwrap_err(),
        Error::DecryptionFailed
    );
    // Malformed DER.
    let der = convert_ciphertext::<Sm2p256>(&ct, None, CiphertextFormat::Der, true).unwrap();
    assert_eq!(
        key.decrypt(&der[..der.len() - 1], Some(CiphertextFormat::Der))
            .unwrap_err(),
        Error::DecryptionFailed
    );
    assert!(CiphertextParts::from_der(&der[..der.len() - 1]).is_err());
    // Empty message round trip.
    let e = pk.encrypt(b"", CiphertextFormat::C1C3C2, true).unwrap();
    assert_eq!(e.len(), 97);
    assert!(key.decrypt(&e, None).unwrap().is_empty());
}

#[test]
fn kem_and_ecdh() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    for len in [1usize, 16, 32, 33, 100] {
        let (k, c1) = key.public_key().encapsulate(len).unwrap();
        assert_eq!(k.len(), len);
        assert_eq!(key.decapsulate(&c1, len).unwrap(), k);
        assert_eq!(key.decapsulate(&c1[1..], len).unwrap(), k);
    }
    assert!(matches!(
        key.public_key().encapsulate(0),
        Err(Error::InvalidLength { .. })
    ));
    let mut c1 = key.public_key().encapsulate(16).unwrap().1;
    c1[10] ^= 1;
    assert_eq!(
        key.decapsulate(&c1, 16).unwrap_err(),
        Error::DecryptionFailed
    );
    let other = PrivateKey::<Sm2p256>::generate().unwrap();
    assert_eq!(
        ecdh(&key, other.public_key()).unwrap(),
        ecdh(&other, key.public_key()).unwrap()
    );
}

#[test]
fn key_exchange_round_trip() {
    for klen in [1usize, 16, 32, 48, 100] {
        let a = PrivateKey::<Sm2p256>::generate().unwrap();
        let b = PrivateKey::<Sm2p256>::generate().unwrap();
        let mut init = Initiator::new(&a, b"alice", b.public_key(), b"bob").unwrap();
        let (resp, kb) = Responder::respond(
            &b,
            b"bob",
            a.public_key(),
            b"alice",
            &init.ephemeral_public(),
            klen,
        )
        .unwrap();
        let ka = init
            .finish(&resp.ephemeral_public(), Some(&kb.confirmation), klen)
            .unwrap();
        assert_eq!(ka.key, kb.key);
        resp.confirm(&ka.confirmation).unwrap();
        // Mismatched IDs give different keys and failing confirmation.
        let mut init = Initiator::new(&a, b"alice", b.public_key(), b"bob").unwrap();
        let (resp2, kb2) = Responder::respond(
            &b,
            b"bob",
            a.public_key(),
            b"mallory",
            &init.ephemeral_public(),
            klen,
        )
        .unwrap();
        assert_eq!(
            init.finish(&resp2.ephemeral_public(), Some(&kb2.confirmation), klen)
                .err(),
            Some(Error::InvalidTag)
        );
        // An off-curve ephemeral is refused.
        let mut bad = init.ephemeral_public();
        bad[5] ^= 1;
        assert!(Responder::respond(&b, b"bob", a.public_key(), b"alice", &bad, klen).is_err());
    }
}

#[test]
fn key_bytes_and_points() {
    // (The DER/PEM containers are tested in guomi-formats: tests/sm2_keys.rs.)
    for _ in 0..5 {
        let key = PrivateKey::<Sm2p256>::generate().unwrap();
        assert_eq!(
            PrivateKey::<Sm2p256>::from_bytes(&key.to_bytes()[..]).unwrap(),
            key
        );
        assert!(format!("{key:?}").contains("<hidden>"));
        assert!(!format!("{key:?}").contains(&hex::encode(&key.to_bytes()[..])));
    }
    let key = PrivateKey::<Sm2p256>::from_bytes(
        &hex::decode("3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8").unwrap(),
    )
    .unwrap();
    // Out-of-range private keys.
    let n = n_bytes();
    assert!(PrivateKey::<Sm2p256>::from_bytes(&n).is_err());
    let mut n1 = n;
    n1[31] -= 1; // n - 1 is not allowed
    assert!(PrivateKey::<Sm2p256>::from_bytes(&n1).is_err());
    n1[31] -= 1; // n - 2 is
    assert!(PrivateKey::<Sm2p256>::from_bytes(&n1).is_ok());
    assert!(PrivateKey::<Sm2p256>::from_bytes(&[0u8; 32]).is_err());
    assert!(PrivateKey::<Sm2p256>::from_bytes(&[0u8; 34]).is_err());
    // Bad points.
    assert!(PublicKey::<Sm2p256>::from_bytes(&[4u8; 65]).is_err());
    assert!(PublicKey::<Sm2p256>::from_bytes(&[0u8; 64]).is_err());
    assert!(matches!(
        PublicKey::<Sm2p256>::from_bytes(&[4u8; 10]),
        Err(Error::InvalidLength { .. })
    ));
    let mut c = key.public_key().to_compressed();
    c[0] = 5;
    assert!(matches!(
        PublicKey::<Sm2p256>::from_bytes(&c),
        Err(Error::UnsupportedFormat(_))
    ));
    // A compressed x with no square root.
    let mut found_bad = false;
    for i in 0u8..20 {
        let mut c = [0u8; 33];
        c[0] = 2;
        c[32] = i;
        if PublicKey::<Sm2p256>::from_bytes(&c).is_err() {
            found_bad = true;
        }
    }
    assert!(found_bad);
    // Hybrid form.
    let mut hy = key.public_key().to_uncompressed();
    hy[0] = 6 | (hy[64] & 1);
    assert!(&PublicKey::<Sm2p256>::from_bytes(&hy).unwrap() == key.public_key());
    hy[0] ^= 1;
    assert!(PublicKey::<Sm2p256>::from_bytes(&hy).is_err());
}

#[test]
fn verify_many_matches_single() {
    let keys: Vec<_> = (0..4)
        .map(|_| PrivateKey::<Sm2p256>::generate().unwrap())
        .collect();
    let msgs: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; i]).collect();
    let sigs: Vec<Vec<u8>> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| keys[i % 4].sign(m, DEFAULT_UID).unwrap().to_der())
        .collect();
    let mut items: Vec<VerifyItem> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| VerifyItem {
            key: keys[i % 4].public_key(),
            signature: &sigs[i],
            message: m,
            uid: DEFAULT_UID,
        })
        .collect();
    items[7].message = b"tampered";
    items[9].signature = b"garbage";
    for threads in [None, Some(1), Some(2)] {
        let r = verify_many(&items, threads);
        for (i, ok) in r.iter().enumerate() {
            assert_eq!(*ok, i != 7 && i != 9, "{i} {threads:?}");
        }
    }
}

#[test]
fn streaming_matches_one_shot() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let msg = vec![0x5au8; 10_000];
    let mut s = key.signer(b"uid").unwrap();
    for c in msg.chunks(333) {
        s.update(c);
    }
    let sig = key.sign_digest(&s.finalize()).unwrap();
    assert!(key.public_key().verify(&msg, b"uid", &sig));
    let mut v = key.public_key().verifier(b"uid").unwrap();
    v.update(&msg);
    assert!(key.public_key().verify_digest(&v.finalize(), &sig));
}

#[test]
fn rustcrypto_sm2_signatures_both_ways() {
    use rustcrypto_sm2::dsa::{signature::Signer as _, signature::Verifier as _};
    use rustcrypto_sm2::dsa::{Signature as RcSignature, SigningKey, VerifyingKey};
    for (i, distid) in ["1234567812345678", "", "ALICE123@YAHOO.COM"]
        .iter()
        .cycle()
        .take(60)
        .enumerate()
    {
        let key = PrivateKey::<Sm2p256>::generate().unwrap();
        let msg = vec![i as u8; i * 3];
        let theirs = SigningKey::from_slice(distid, &key.to_bytes()[..]).unwrap();
        let their_pub =
            VerifyingKey::from_sec1_bytes(distid, &key.public_key().to_uncompressed()).unwrap();
        // RustCrypto signs -> guomi verifies.
        let sig: RcSignature = theirs.sign(&msg);
        let ours = Signature::from_raw(&sig.to_bytes()).unwrap();
        assert!(key.public_key().verify(&msg, distid.as_bytes(), &ours));
        assert!(!key.public_key().verify(b"other", distid.as_bytes(), &ours));
        // guomi signs -> RustCrypto verifies.
        let mine = key.sign(&msg, distid.as_bytes()).unwrap();
        let rc = RcSignature::from_slice(&mine.to_raw()).unwrap();
        assert!(their_pub.verify(&msg, &rc).is_ok());
        assert!(their_pub.verify(b"other", &rc).is_err());
    }
}

#[test]
fn test_hooks_reject_out_of_range_nonces() {
    let a = PrivateKey::<Sm2p256>::generate().unwrap();
    let b = PrivateKey::<Sm2p256>::generate().unwrap();
    for bad in [[0u8; 32], n_bytes(), [0xff; 32]] {
        assert!(
            Initiator::with_fixed_ephemeral_for_testing(&a, b"a", b.public_key(), b"b", &bad)
                .is_err()
        );
        assert!(sign_digest_with_fixed_k_for_testing(&a, &[1; 32], &bad).is_err());
        assert!(encrypt_with_fixed_k_for_testing(a.public_key(), b"m", &bad).is_err());
    }
}

#[test]
fn ambiguous_raw_ciphertexts_decrypt() {
    // Raw ciphertexts without the 04 prefix whose x1 starts with 04 (looks prefixed) or
    // 30 (looks like DER) must still decrypt with format detection.
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let pk = key.public_key();
    pk.prepare();
    let mut seen = [false; 2];
    for i in 0..20_000u32 {
        let msg = i.to_be_bytes();
        let ct = pk.encrypt(&msg, CiphertextFormat::C1C3C2, false).unwrap();
        let which = match ct[0] {
            0x04 => 0,
            0x30 => 1,
            _ => continue,
        };
        seen[which] = true;
        assert_eq!(&key.decrypt(&ct, None).unwrap()[..], &msg[..]);
        let c1c2c3 =
            convert_ciphertext::<Sm2p256>(&ct, None, CiphertextFormat::C1C2C3, false).unwrap();
        assert_eq!(
            &key.decrypt(&c1c2c3, Some(CiphertextFormat::C1C2C3))
                .unwrap()[..],
            &msg[..]
        );
        if seen == [true, true] {
            return;
        }
    }
    panic!("no ambiguous ciphertext in 20,000 tries: {seen:?}");
}

/// Key lengths of the KEM and the key exchange: 1..=MAX_KEY_LENGTH, checked before any
/// allocation (2^50 or 2^63 bytes must be a typed error, not an abort or a panic).
#[test]
fn key_lengths_are_bounded() {
    use guomi_core::sm2::MAX_KEY_LENGTH;
    assert_eq!(MAX_KEY_LENGTH, 65536);
    let a = PrivateKey::<Sm2p256>::generate().unwrap();
    let b = PrivateKey::<Sm2p256>::generate().unwrap();
    let (_, c1) = a.public_key().encapsulate(16).unwrap();
    for bad in [0usize, MAX_KEY_LENGTH + 1, 1 << 50, 1 << 63, usize::MAX] {
        let is_len = |e: Error| {
            matches!(
                e,
                Error::InvalidLength {
                    what: "key_length",
                    ..
                }
            )
        };
        assert!(
            is_len(a.public_key().encapsulate(bad).unwrap_err()),
            "{bad}"
        );
        assert!(is_len(a.decapsulate(&c1, bad).unwrap_err()), "{bad}");
        let mut init = Initiator::new(&a, b"a", b.public_key(), b"b").unwrap();
        let r = Responder::respond(
            &b,
            b"b",
            a.public_key(),
            b"a",
            &init.ephemeral_public(),
            bad,
        );
        assert!(is_len(r.err().unwrap()), "{bad}");
        let (resp, _) =
            Responder::respond(&b, b"b", a.public_key(), b"a", &init.ephemeral_public(), 16)
                .unwrap();
        assert!(is_len(
            init.finish(&resp.ephemeral_public(), None, bad)
                .err()
                .unwrap()
        ));
        // The failed call consumed r_A.
        assert_eq!(
            init.finish(&resp.ephemeral_public(), None, 16).err(),
            Some(Error::AlreadyFinalized)
        );
    }
    for good in [1usize, MAX_KEY_LENGTH] {
        let (k, c1) = a.public_key().encapsulate(good).unwrap();
        assert_eq!(k.len(), good);
        assert_eq!(a.decapsulate(&c1, good).unwrap(), k);
        let mut init = Initiator::new(&a, b"a", b.public_key(), b"b").unwrap();
        let (resp, kb) = Responder::respond(
            &b,
            b"b",
            a.public_key(),
            b"a",
            &init.ephemeral_public(),
            good,
        )
        .unwrap();
        let ka = init
            .finish(&resp.ephemeral_public(), Some(&kb.confirmation), good)
            .unwrap();
        assert_eq!(ka.key.len(), good);
        assert_eq!(ka.key, kb.key);
    }
}

/// The initiator is single use: after success, a wrong S_B, or a bad R_B, any further
/// finish is AlreadyFinalized (r_A is never reused with another peer ephemeral).
#[test]
fn initiator_is_single_use() {
    let a = PrivateKey::<Sm2p256>::generate().unwrap();
    let b = PrivateKey::<Sm2p256>::generate().unwrap();
    let respond = |ra: &[u8]| Responder::respond(&b, b"b", a.public_key(), b"a", ra, 16).unwrap();
    // After success.
    let mut init = Initiator::new(&a, b"a", b.public_key(), b"b").unwrap();
    let (resp, kb) = respond(&init.ephemeral_public());
    init.finish(&resp.ephemeral_public(), Some(&kb.confirmation), 16)
        .unwrap();
    let (resp2, _) = respond(&init.ephemeral_public());
    assert_eq!(
        init.finish(&resp2.ephemeral_public(), None, 16).err(),
        Some(Error::AlreadyFinalized)
    );
    // After a wrong confirmation.
    let mut init = Initiator::new(&a, b"a", b.public_key(), b"b").unwrap();
    let (resp, _) = respond(&init.ephemeral_public());
    assert_eq!(
        init.finish(&resp.ephemeral_public(), Some(&[0u8; 32]), 16)
            .err(),
        Some(Error::InvalidTag)
    );
    assert_eq!(
        init.finish(&resp.ephemeral_public(), None, 16).err(),
        Some(Error::AlreadyFinalized)
    );
    // After a bad peer point.
    let mut init = Initiator::new(&a, b"a", b.public_key(), b"b").unwrap();
    let (resp, _) = respond(&init.ephemeral_public());
    let mut bad = resp.ephemeral_public();
    bad[7] ^= 1;
    assert!(matches!(
        init.finish(&bad, None, 16),
        Err(Error::InvalidKey(_))
    ));
    assert_eq!(
        init.finish(&resp.ephemeral_public(), None, 16).err(),
        Some(Error::AlreadyFinalized)
    );
    // R_A stays readable.
    assert_eq!(init.ephemeral_public()[0], 4);
}

/// Hedged nonces: the public signer draws fresh randomness (two signatures of one message
/// differ); with the randomness fixed (test-only hook) k is reproducible, the signature
/// verifies, and each seed input changes it.
#[test]
fn hedged_signing_nonces() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let pk = key.public_key();
    let e = message_digest(&key.z(DEFAULT_UID).unwrap(), b"hedged");
    let s1 = key.sign_digest(&e).unwrap();
    let s2 = key.sign_digest(&e).unwrap();
    assert_ne!(s1, s2);
    assert!(pk.verify_digest(&e, &s1) && pk.verify_digest(&e, &s2));
    let f1 = sign_digest_with_fixed_randomness_for_testing(&key, &e, &[7u8; 32]);
    let f2 = sign_digest_with_fixed_randomness_for_testing(&key, &e, &[7u8; 32]);
    assert_eq!(f1, f2);
    assert!(pk.verify_digest(&e, &f1));
    assert_ne!(
        sign_digest_with_fixed_randomness_for_testing(&key, &e, &[8u8; 32]),
        f1
    );
    let mut e2 = e;
    e2[0] ^= 1;
    let g = sign_digest_with_fixed_randomness_for_testing(&key, &e2, &[7u8; 32]);
    assert_ne!(g.r, f1.r);
    assert!(pk.verify_digest(&e2, &g));
    let other = PrivateKey::<Sm2p256>::generate().unwrap();
    assert_ne!(
        sign_digest_with_fixed_randomness_for_testing(&other, &e, &[7u8; 32]).r,
        f1.r
    );
    // The example curve (a different n) goes through the same DRBG.
    let ex = PrivateKey::<ExampleCurve>::from_be_integer(&[5]).unwrap();
    let sig = sign_digest_with_fixed_randomness_for_testing(&ex, &e, &[1u8; 32]);
    assert!(ex.public_key().verify_digest(&e, &sig));
}

/// from_bytes takes exactly 32 bytes; short or long input is InvalidLength (a truncated
/// buffer must not become a weak key); from_be_integer is the explicit lenient path.
#[test]
fn private_key_from_bytes_is_strict() {
    let key = PrivateKey::<Sm2p256>::generate().unwrap();
    let d = key.to_bytes();
    for n in [0usize, 1, 16, 31, 33, 34, 64] {
        let mut b = vec![0u8; n];
        let k = n.min(32);
        b[n - k..].copy_from_slice(&d[32 - k..]);
        assert!(
            matches!(
                PrivateKey::<Sm2p256>::from_bytes(&b),
                Err(Error::InvalidLength { got, .. }) if got == n
            ),
            "{n}"
        );
    }
    assert_eq!(PrivateKey::<Sm2p256>::from_bytes(&d[..]).unwrap(), key);
    let mut padded = vec![0u8];
    padded.extend_from_slice(&d[..]);
    assert_eq!(
        PrivateKey::<Sm2p256>::from_be_integer(&padded).unwrap(),
        key
    );
    assert_eq!(
        PrivateKey::<Sm2p256>::from_be_integer(&[1])
            .unwrap()
            .to_bytes()[31],
        1
    );
    padded[0] = 1;
    assert!(matches!(
        PrivateKey::<Sm2p256>::from_be_integer(&padded),
        Err(Error::InvalidLength { .. })
    ));
    assert!(PrivateKey::<Sm2p256>::from_be_integer(&[]).is_err());
    assert!(matches!(
        PrivateKey::<Sm2p256>::from_be_integer(&[0]),
        Err(Error::InvalidKey(_))
    ));
}
