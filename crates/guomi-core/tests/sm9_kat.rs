//! SM9 known answers: the GM/T 0044-2016 worked examples in vectors/sm9.json.

use guomi_core::sm9::{self, hazmat, EncMasterKey, SignMasterKey};
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/sm9.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn hx(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap_or_else(|| panic!("missing {k}"))).unwrap()
}

fn by_op(op: &str) -> Vec<Value> {
    vectors()
        .into_iter()
        .filter(|v| v["operation"] == op)
        .collect()
}

/// Run under every backend variant this CPU has (the Fp MULX/ADX assembly and, with
/// `-noadx` or `portable`, the portable code).
#[test]
fn sign_example() {
    for v in guomi_core::cpu::variants() {
        guomi_core::cpu::with_variant(v, sign_example_vectors);
    }
}

fn sign_example_vectors() {
    let vs = by_op("sign");
    assert!(!vs.is_empty());
    for v in vs {
        let id = v["user_id"].as_str().unwrap().as_bytes().to_vec();
        let msg = hx(&v, "message");
        let mk = SignMasterKey::from_bytes(&hx(&v, "master_private_key_ks")).unwrap();
        let uk = mk.extract(&id).unwrap();
        assert_eq!(
            &uk.to_bytes()[1..],
            &hx(&v, "user_private_key_ds_A")[..],
            "ds_A"
        );
        let r: [u8; 32] = hx(&v, "r").try_into().unwrap();
        let sig = hazmat::sign_with_fixed_r_for_testing(&uk, &msg, &r).unwrap();
        assert_eq!(hex::encode(sig.h), hex::encode(hx(&v, "h")), "h");
        assert_eq!(sig.s.to_vec(), hx(&v, "S"), "S");
        let pk = mk.public_key();
        assert!(pk.verify(&sig, &msg, &id));
        assert!(!pk.verify(&sig, b"other message", &id));
        assert!(!pk.verify(&sig, &msg, b"Bob"));
    }
}

fn scalar(v: &Value, k: &str) -> [u8; 32] {
    hx(v, k).try_into().unwrap()
}

/// Run under every backend variant this CPU has (the Fp MULX/ADX assembly and, with
/// `-noadx` or `portable`, the portable code).
#[test]
fn encrypt_example() {
    for v in guomi_core::cpu::variants() {
        guomi_core::cpu::with_variant(v, encrypt_example_vectors);
    }
}

fn encrypt_example_vectors() {
    let vs = by_op("encrypt");
    assert!(!vs.is_empty());
    for v in vs {
        let id = v["user_id"].as_str().unwrap().as_bytes().to_vec();
        let msg = hx(&v, "message");
        let mk = EncMasterKey::from_bytes(&hx(&v, "master_private_key_ke")).unwrap();
        let pk = mk.public_key();
        assert_eq!(&pk.to_bytes()[1..], &hx(&v, "master_public_key_Ppub_e")[..]);
        let uk = mk.extract(&id, sm9::HID_ENCRYPT).unwrap();
        assert_eq!(
            &uk.to_bytes()[1..],
            &hx(&v, "user_private_key_de_B")[..],
            "de_B"
        );
        let ct =
            hazmat::encrypt_with_fixed_r_for_testing(&pk, &msg, &id, &scalar(&v, "r")).unwrap();
        assert_eq!(ct.c1.to_vec(), hx(&v, "C1"), "C1");
        assert_eq!(ct.c2, hx(&v, "C2"), "C2");
        assert_eq!(ct.c3.to_vec(), hx(&v, "C3"), "C3");
        assert_eq!(ct.to_raw(), hx(&v, "ciphertext_C1C3C2"));
        assert_eq!(*uk.decrypt_raw(&hx(&v, "ciphertext_C1C3C2")).unwrap(), msg);
        let der = ct.to_der();
        assert_eq!(sm9::Ciphertext::from_der(&der).unwrap(), ct);
        // A tampered C3 / C2 / C1 fails with the one opaque error.
        for i in [0usize, 70, 100] {
            let mut bad = hx(&v, "ciphertext_C1C3C2");
            bad[i] ^= 1;
            assert_eq!(
                uk.decrypt_raw(&bad),
                Err(guomi_core::Error::DecryptionFailed)
            );
        }
        // The user key reloads from bytes (validated against the master public key).
        let uk2 = sm9::EncUserKey::from_bytes(
            &hx(&v, "user_private_key_de_B"),
            &id,
            sm9::HID_ENCRYPT,
            &pk,
        )
        .unwrap();
        assert_eq!(*uk2.decrypt(&ct).unwrap(), msg);
        assert!(sm9::EncUserKey::from_bytes(
            &hx(&v, "user_private_key_de_B"),
            b"Carol",
            sm9::HID_ENCRYPT,
            &pk
        )
        .is_err());
    }
}

/// Run under every backend variant this CPU has (the Fp MULX/ADX assembly and, with
/// `-noadx` or `portable`, the portable code).
#[test]
fn key_exchange_example() {
    for v in guomi_core::cpu::variants() {
        guomi_core::cpu::with_variant(v, key_exchange_example_vectors);
    }
}

fn key_exchange_example_vectors() {
    use std::sync::Arc;
    let vs = by_op("key_exchange");
    assert!(!vs.is_empty());
    for v in vs {
        let id_a = v["id_A"].as_str().unwrap().as_bytes().to_vec();
        let id_b = v["id_B"].as_str().unwrap().as_bytes().to_vec();
        let mk = EncMasterKey::from_bytes(&hx(&v, "master_private_key_ke")).unwrap();
        assert_eq!(
            &mk.public_key().to_bytes()[1..],
            &hx(&v, "master_public_key_Ppub_e")[..]
        );
        let ka = mk.extract(&id_a, sm9::HID_EXCHANGE).unwrap();
        let kb = mk.extract(&id_b, sm9::HID_EXCHANGE).unwrap();
        assert_eq!(
            &ka.to_bytes()[1..],
            &hx(&v, "user_private_key_de_A")[..],
            "de_A"
        );
        assert_eq!(
            &kb.to_bytes()[1..],
            &hx(&v, "user_private_key_de_B")[..],
            "de_B"
        );
        let klen = v["klen_bytes"].as_u64().unwrap() as usize;
        let mut a = hazmat::key_exchange_with_fixed_r_for_testing(
            Arc::new(ka),
            &id_b,
            true,
            &scalar(&v, "r_A"),
        )
        .unwrap();
        assert_eq!(a.ephemeral().to_vec(), hx(&v, "R_A"), "R_A");
        let mut b = hazmat::key_exchange_with_fixed_r_for_testing(
            Arc::new(kb),
            &id_a,
            false,
            &scalar(&v, "r_B"),
        )
        .unwrap();
        let (skb, sb) = b.respond(&a.ephemeral(), klen).unwrap();
        assert_eq!(skb.to_vec(), hx(&v, "SK"), "SK_B");
        assert_eq!(sb.to_vec(), hx(&v, "S_B"), "S_B");
        let (ska, sa) = a.finish(&b.ephemeral(), klen, Some(&sb)).unwrap();
        assert_eq!(ska.to_vec(), hx(&v, "SK"), "SK_A");
        assert_eq!(sa.to_vec(), hx(&v, "S_A"), "S_A");
        b.confirm(&sa).unwrap();
        let mut bad = sa;
        bad[0] ^= 1;
        assert_eq!(b.confirm(&bad), Err(guomi_core::Error::InvalidTag));
    }
}

#[test]
fn round_trips_and_bad_input() {
    use guomi_core::Error;
    use std::sync::Arc;
    // Signatures: random IDs and messages, raw and DER.
    let mk = SignMasterKey::generate().unwrap();
    let pk = mk.public_key();
    for n in 0..3usize {
        let id = guomi_core::rand::bytes::<12>().unwrap();
        let msg = vec![n as u8; n * 50];
        let uk = mk.extract(&id).unwrap();
        let sig = uk.sign(&msg).unwrap();
        assert!(pk.verify(&sig, &msg, &id));
        let raw = sig.to_raw();
        assert_eq!(sm9::Signature::from_raw(&raw).unwrap(), sig);
        assert_eq!(sm9::Signature::from_der(&sig.to_der()).unwrap(), sig);
        let mut bad = sig.clone();
        bad.h[5] ^= 1;
        assert!(!pk.verify(&bad, &msg, &id));
        let mut bad = sig.clone();
        bad.s[40] ^= 1;
        assert!(!pk.verify(&bad, &msg, &id));
        let mut bad = sig.clone();
        bad.h = [0; 32];
        assert!(!pk.verify(&bad, &msg, &id));
        let mut bad = sig.clone();
        bad.h = n_bytes();
        assert!(!pk.verify(&bad, &msg, &id));
    }
    assert!(matches!(
        sm9::Signature::from_raw(&[0u8; 50]),
        Err(Error::InvalidLength { .. })
    ));
    assert!(matches!(
        sm9::Signature::from_der(&[0x30, 0x03, 0x04, 0x01, 0x00]),
        Err(Error::UnsupportedFormat(_))
    ));
    // Master key range.
    assert!(matches!(
        SignMasterKey::from_bytes(&[0u8; 32]),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        SignMasterKey::from_bytes(&n_bytes()),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        EncMasterKey::from_bytes(&[1u8; 31]),
        Err(Error::InvalidLength { .. })
    ));
    // Public keys round trip; off-curve points are refused.
    let pkb = pk.to_bytes();
    assert_eq!(
        sm9::SignMasterPublicKey::from_bytes(&pkb)
            .unwrap()
            .to_bytes(),
        pkb
    );
    let mut bad = pkb;
    bad[128] ^= 1;
    assert!(matches!(
        sm9::SignMasterPublicKey::from_bytes(&bad),
        Err(Error::InvalidKey(_))
    ));
    // Encryption, KEM.
    let em = EncMasterKey::generate().unwrap();
    let epk = em.public_key();
    let uk = em.extract(b"bob", sm9::HID_ENCRYPT).unwrap();
    for len in [0usize, 1, 31, 257] {
        let msg = vec![0xa5u8; len];
        let ct = epk.encrypt(&msg, b"bob").unwrap();
        assert_eq!(*uk.decrypt(&ct).unwrap(), msg);
        assert_eq!(
            *uk.decrypt(&sm9::Ciphertext::from_der(&ct.to_der()).unwrap())
                .unwrap(),
            msg
        );
        assert_eq!(
            em.extract(b"bob2", sm9::HID_ENCRYPT).unwrap().decrypt(&ct),
            Err(Error::DecryptionFailed)
        );
        let mut bad = ct.clone();
        bad.c3[0] ^= 1;
        assert_eq!(uk.decrypt(&bad), Err(Error::DecryptionFailed));
    }
    let (k, c) = epk.encapsulate(b"bob", 48).unwrap();
    assert_eq!(uk.decapsulate(&c, 48).unwrap(), k);
    let mut bad = c;
    bad[64] ^= 1;
    assert_eq!(uk.decapsulate(&bad, 48), Err(Error::DecryptionFailed));
    // Key exchange without confirmation, wrong-role calls.
    let ka = Arc::new(em.extract(b"A", sm9::HID_EXCHANGE).unwrap());
    let kb = Arc::new(em.extract(b"B", sm9::HID_EXCHANGE).unwrap());
    let mut a = sm9::KeyExchange::new(ka, b"B", true).unwrap();
    let mut b = sm9::KeyExchange::new(kb, b"A", false).unwrap();
    assert!(matches!(
        a.respond(&b.ephemeral(), 16),
        Err(Error::InvalidValue(_))
    ));
    let (k1, _) = b.respond(&a.ephemeral(), 20).unwrap();
    let (k2, sa) = a.finish(&b.ephemeral(), 20, None).unwrap();
    assert_eq!(k1, k2);
    b.confirm(&sa).unwrap();
    assert_eq!(
        a.finish(&b.ephemeral(), 20, None),
        Err(Error::AlreadyFinalized)
    );
}

fn n_bytes() -> [u8; 32] {
    hex::decode("b640000002a3a6f1d603ab4ff58ec74449f2934b18ea8beee56ee19cd69ecf25")
        .unwrap()
        .try_into()
        .unwrap()
}

/// KEM and key-exchange key lengths: 1..=MAX_KEY_LENGTH, checked before any allocation.
#[test]
fn key_lengths_are_bounded() {
    use guomi_core::sm2::MAX_KEY_LENGTH;
    use guomi_core::Error;
    use std::sync::Arc;
    let em = EncMasterKey::generate().unwrap();
    let epk = em.public_key();
    let uk = em.extract(b"bob", sm9::HID_ENCRYPT).unwrap();
    let (_, c) = epk.encapsulate(b"bob", 16).unwrap();
    let ka = Arc::new(em.extract(b"A", sm9::HID_EXCHANGE).unwrap());
    let kb = Arc::new(em.extract(b"B", sm9::HID_EXCHANGE).unwrap());
    let is_len = |e: Error| {
        matches!(
            e,
            Error::InvalidLength {
                what: "key_length",
                ..
            }
        )
    };
    for bad in [0usize, MAX_KEY_LENGTH + 1, 1 << 50, 1 << 63, usize::MAX] {
        assert!(is_len(epk.encapsulate(b"bob", bad).unwrap_err()), "{bad}");
        assert!(is_len(uk.decapsulate(&c, bad).unwrap_err()), "{bad}");
        let mut a = sm9::KeyExchange::new(ka.clone(), b"B", true).unwrap();
        let mut b = sm9::KeyExchange::new(kb.clone(), b"A", false).unwrap();
        assert!(is_len(b.respond(&a.ephemeral(), bad).unwrap_err()));
        assert!(is_len(a.finish(&b.ephemeral(), bad, None).unwrap_err()));
        // Both calls consumed r.
        assert_eq!(
            b.respond(&a.ephemeral(), 16).err(),
            Some(Error::AlreadyFinalized)
        );
        assert_eq!(
            a.finish(&b.ephemeral(), 16, None).err(),
            Some(Error::AlreadyFinalized)
        );
    }
    for good in [1usize, MAX_KEY_LENGTH] {
        let (k, c) = epk.encapsulate(b"bob", good).unwrap();
        assert_eq!(k.len(), good);
        assert_eq!(uk.decapsulate(&c, good).unwrap(), k);
        let mut a = sm9::KeyExchange::new(ka.clone(), b"B", true).unwrap();
        let mut b = sm9::KeyExchange::new(kb.clone(), b"A", false).unwrap();
        let (k1, sb) = b.respond(&a.ephemeral(), good).unwrap();
        let (k2, _) = a.finish(&b.ephemeral(), good, Some(&sb)).unwrap();
        assert_eq!(k1.len(), good);
        assert_eq!(k1, k2);
    }
}

/// Every KeyExchange is single use: after success, a wrong S_B or a bad peer point, a
/// second respond/finish is AlreadyFinalized.
#[test]
fn key_exchange_is_single_use() {
    use guomi_core::Error;
    use std::sync::Arc;
    let em = EncMasterKey::generate().unwrap();
    let ka = Arc::new(em.extract(b"A", sm9::HID_EXCHANGE).unwrap());
    let kb = Arc::new(em.extract(b"B", sm9::HID_EXCHANGE).unwrap());
    let pair = || {
        (
            sm9::KeyExchange::new(ka.clone(), b"B", true).unwrap(),
            sm9::KeyExchange::new(kb.clone(), b"A", false).unwrap(),
        )
    };
    // After success (both roles).
    let (mut a, mut b) = pair();
    let (_, sb) = b.respond(&a.ephemeral(), 16).unwrap();
    a.finish(&b.ephemeral(), 16, Some(&sb)).unwrap();
    let (a2, b2) = pair();
    assert_eq!(
        b.respond(&a2.ephemeral(), 16).err(),
        Some(Error::AlreadyFinalized)
    );
    assert_eq!(
        a.finish(&b2.ephemeral(), 16, None).err(),
        Some(Error::AlreadyFinalized)
    );
    // After a wrong S_B: no retry with another S_B or R_B.
    let (mut a, mut b) = pair();
    let (_, sb) = b.respond(&a.ephemeral(), 16).unwrap();
    let mut wrong = sb;
    wrong[3] ^= 1;
    assert_eq!(
        a.finish(&b.ephemeral(), 16, Some(&wrong)).err(),
        Some(Error::InvalidTag)
    );
    assert_eq!(
        a.finish(&b.ephemeral(), 16, Some(&sb)).err(),
        Some(Error::AlreadyFinalized)
    );
    // After a bad peer point (both roles).
    let (mut a, mut b) = pair();
    let mut bad = b.ephemeral();
    bad[9] ^= 1;
    assert!(a.finish(&bad, 16, None).is_err());
    assert_eq!(
        a.finish(&b.ephemeral(), 16, None).err(),
        Some(Error::AlreadyFinalized)
    );
    let mut bad = a.ephemeral();
    bad[9] ^= 1;
    assert!(b.respond(&bad, 16).is_err());
    assert_eq!(
        b.respond(&a.ephemeral(), 16).err(),
        Some(Error::AlreadyFinalized)
    );
}

/// Hedged SM9 signing: fresh randomness each call; with it fixed (test hook) the signature
/// is reproducible and verifies.
#[test]
fn hedged_signing_nonces() {
    let mk = SignMasterKey::generate().unwrap();
    let pk = mk.public_key();
    let uk = mk.extract(b"alice").unwrap();
    let s1 = uk.sign(b"msg").unwrap();
    let s2 = uk.sign(b"msg").unwrap();
    assert_ne!(s1, s2);
    assert!(pk.verify(&s1, b"msg", b"alice") && pk.verify(&s2, b"msg", b"alice"));
    let f1 = hazmat::sign_with_fixed_randomness_for_testing(&uk, b"msg", &[3; 32]);
    let f2 = hazmat::sign_with_fixed_randomness_for_testing(&uk, b"msg", &[3; 32]);
    assert_eq!(f1, f2);
    assert!(pk.verify(&f1, b"msg", b"alice"));
    assert_ne!(
        hazmat::sign_with_fixed_randomness_for_testing(&uk, b"msg", &[4; 32]),
        f1
    );
    let g = hazmat::sign_with_fixed_randomness_for_testing(&uk, b"msh", &[3; 32]);
    assert_ne!(g.h, f1.h);
    assert!(pk.verify(&g, b"msh", b"alice"));
}

/// Master keys are exactly 32 bytes; user keys 65/64 (G1) or 129/128 (G2) bytes.
#[test]
fn key_from_bytes_is_strict() {
    use guomi_core::Error;
    let mk = SignMasterKey::generate().unwrap();
    let em = EncMasterKey::generate().unwrap();
    let d = mk.to_bytes();
    for n in [0usize, 1, 31, 33, 64] {
        let mut b = vec![0u8; n];
        let k = n.min(32);
        b[n - k..].copy_from_slice(&d[32 - k..]);
        assert!(matches!(
            SignMasterKey::from_bytes(&b),
            Err(Error::InvalidLength { .. })
        ));
        assert!(matches!(
            EncMasterKey::from_bytes(&b),
            Err(Error::InvalidLength { .. })
        ));
    }
    assert_eq!(SignMasterKey::from_bytes(&d[..]).unwrap().to_bytes(), d);
    let uk = mk.extract(b"u").unwrap();
    let ub = uk.to_bytes();
    for n in [0usize, 33, 63, 66] {
        let b = vec![4u8; n];
        assert!(matches!(
            sm9::SignUserKey::from_bytes(&b, b"u", &mk.public_key()),
            Err(Error::InvalidLength { .. })
        ));
    }
    assert!(sm9::SignUserKey::from_bytes(&ub[..], b"u", &mk.public_key()).is_ok());
    let eu = em.extract(b"u", sm9::HID_ENCRYPT).unwrap();
    let eb = eu.to_bytes();
    assert!(matches!(
        sm9::EncUserKey::from_bytes(&eb[..100], b"u", sm9::HID_ENCRYPT, &em.public_key()),
        Err(Error::InvalidLength { .. })
    ));
    assert!(sm9::EncUserKey::from_bytes(&eb[..], b"u", sm9::HID_ENCRYPT, &em.public_key()).is_ok());
}
