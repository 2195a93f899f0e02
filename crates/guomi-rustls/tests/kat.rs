//! Known-answer tests for the pieces the provider hands to rustls: SM3, HMAC-SM3 and
//! HKDF-SM3 (with TLS 1.3's HKDF-Expand-Label), the SM4-GCM/CCM record AEADs, a whole
//! protected record, the curveSM2 share check and the sm2sig_sm3 identifier.
//!
//! Sources: RFC 8998 Appendix A (AEADs), Wycheproof (HMAC-SM3, SM4-GCM, SM4-CCM), the
//! SM3 "abc" example of GB/T 32905-2016 A.1. No published HKDF-SM3 or SM-suite record
//! vectors exist: those below are computed, with Python's `hmac` over OpenSSL's SM3 and
//! `cryptography`'s SM4-GCM (OpenSSL) plus an SP 800-38C CCM over its SM4-ECB, which
//! also reproduces RFC 8998 A.2.

use guomi_rustls::aead::{Sm4AeadKey, Sm4Mode, SM4_CCM, SM4_GCM};
use guomi_rustls::hash::{HKDF_SM3, HMAC_SM3, SM3};
use rustls::crypto::cipher::{
    InboundOpaqueMessage, OutboundChunks, OutboundPlainMessage, Tls13AeadAlgorithm,
};
use rustls::crypto::hash::Hash;
use rustls::crypto::hmac::Hmac;
use rustls::crypto::tls13::Hkdf;
use rustls::crypto::SupportedKxGroup;
use rustls::{ContentType, ProtocolVersion};
use serde_json::Value;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn vectors(file: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn field(v: &Value, k: &str) -> Vec<u8> {
    h(v[k].as_str().unwrap_or_else(|| panic!("{k} in {v}")))
}

#[test]
fn sm3_through_rustls_hash() {
    // GB/T 32905-2016 Appendix A.1.
    let want = h("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0");
    assert_eq!(SM3.hash(b"abc").as_ref(), &want[..]);
    let mut ctx = SM3.start();
    ctx.update(b"a");
    let fork = ctx.fork();
    ctx.update(b"bc");
    assert_eq!(ctx.fork_finish().as_ref(), &want[..]);
    assert_eq!(ctx.finish().as_ref(), &want[..]);
    assert_eq!(fork.finish().as_ref(), SM3.hash(b"a").as_ref());
    assert_eq!(SM3.output_len(), 32);
}

#[test]
fn hmac_sm3_wycheproof() {
    let mut n = 0;
    for v in vectors("sm3.json") {
        if v["algorithm"] != "HMAC-SM3" || v["tag_size_bits"] != 256 || v["result"] != "valid" {
            continue;
        }
        let key = HMAC_SM3.with_key(&field(&v, "key"));
        let msg = field(&v, "message");
        let (a, b) = msg.split_at(msg.len() / 2);
        assert_eq!(
            key.sign(&[&msg]).as_ref(),
            &field(&v, "tag")[..],
            "{}",
            v["name"]
        );
        assert_eq!(key.sign_concat(a, &[], b).as_ref(), &field(&v, "tag")[..]);
        n += 1;
    }
    assert!(n >= 10, "only {n} HMAC-SM3 vectors");
}

/// HKDF-Expand-Label (RFC 8446 §7.1) info for `label` and `context`.
fn label(len: u16, label: &[u8], context: &[u8]) -> Vec<u8> {
    let mut full = b"tls13 ".to_vec();
    full.extend_from_slice(label);
    let mut out = len.to_be_bytes().to_vec();
    out.push(full.len() as u8);
    out.extend_from_slice(&full);
    out.push(context.len() as u8);
    out.extend_from_slice(context);
    out
}

#[test]
fn hkdf_sm3_computed_vectors() {
    // RFC 5869 test case 1's shape (IKM 22 bytes, salt 0..12, info f0..f9, L = 42) with
    // SM3; computed with Python hmac over OpenSSL's SM3.
    let ikm: Vec<u8> = (0u8..22).collect();
    let salt: Vec<u8> = (0u8..13).collect();
    let info: Vec<u8> = (0xf0u8..0xfa).collect();
    // rustls does not expose the PRK; guomi-core's extract (the same HMAC) does.
    let prk = guomi_core::sm3::kdf::hkdf_extract(&salt, &ikm);
    assert_eq!(
        prk.to_vec(),
        h("cfe5070fece8f350d6a259547fa824aa305f862163b205c0315471209917ea5f")
    );
    let mut okm = [0u8; 42];
    HKDF_SM3
        .extract_from_secret(Some(&salt), &ikm)
        .expand_slice(&[&info], &mut okm)
        .unwrap();
    assert_eq!(
        okm.to_vec(),
        h("0d83625e1178bec7152c1f162ccd6420b41978ed24f0aaaefba3644f13b0f49fcf52d5fed31d97c3071b")
    );
    // guomi-core's own HKDF agrees.
    let mut core = [0u8; 42];
    guomi_core::sm3::kdf::hkdf(&ikm, &salt, &info, &mut core).unwrap();
    assert_eq!(core, okm);
    // Longer than 255 blocks is refused, not truncated.
    let mut too_long = vec![0u8; 255 * 32 + 1];
    assert!(HKDF_SM3
        .extract_from_secret(None, &ikm)
        .expand_slice(&[&info], &mut too_long)
        .is_err());
}

#[test]
fn tls13_key_schedule_pieces_with_sm3() {
    // Early Secret = HKDF-Extract(0, 0^32) and Derive-Secret(., "derived", "") (RFC 8446
    // §7.1), computed with Python over OpenSSL's SM3.
    let early = guomi_core::sm3::kdf::hkdf_extract(&[], &[0u8; 32]);
    assert_eq!(
        early.to_vec(),
        h("a4f50a29c327e9acc4ddd4dbe32b75a6a1d77e4bbe823e3d71fdcc1a5fa52757")
    );
    let empty_hash = SM3.hash(b"");
    let derived = HKDF_SM3.extract_from_zero_ikm(None).expand_block(&[&label(
        32,
        b"derived",
        empty_hash.as_ref(),
    )]);
    assert_eq!(
        derived.as_ref(),
        &h("8bf1d43b3cb61da421895be55c07b3c1f49d7af9f9c728240cee1fc8039252f4")[..]
    );
    // Traffic key and IV from a secret, through rustls's own label code.
    let secret = rustls::crypto::tls13::OkmBlock::new(&h(
        "0000000000000000000000000000000011111111111111111111111111111111",
    ));
    let expander = HKDF_SM3.expander_for_okm(&secret);
    let key = rustls::internal::derive_traffic_key(expander.as_ref(), &SM4_GCM);
    let iv = rustls::internal::derive_traffic_iv(expander.as_ref());
    assert_eq!(key.as_ref(), &h("dd48c43eb4047a31a7a1ee9d42f6abfb")[..]);
    assert_eq!(iv.as_ref(), &h("4de1746b54cfcebfb3b60b94")[..]);
}

fn rfc8998_vector(mode: &str) -> Value {
    vectors("sm4.json")
        .into_iter()
        .find(|v| v["mode"] == mode && v["name"].as_str().unwrap().contains("RFC 8998"))
        .unwrap()
}

#[test]
fn rfc8998_appendix_a_aeads() {
    for (mode, m) in [("GCM", Sm4Mode::Gcm), ("CCM", Sm4Mode::Ccm)] {
        let v = rfc8998_vector(mode);
        let key = Sm4AeadKey::new(m, &field(&v, "key")).unwrap();
        let nonce: [u8; 12] = field(&v, "iv").try_into().unwrap();
        let (aad, pt) = (field(&v, "aad"), field(&v, "plaintext"));
        let mut want = field(&v, "ciphertext");
        want.extend_from_slice(&field(&v, "tag"));
        let mut out = vec![0u8; pt.len() + 16];
        key.seal_into(&nonce, &aad, &pt, &mut out).unwrap();
        assert_eq!(out, want, "{mode}");
        let n = key.open_in_place(&nonce, &aad, &mut out).unwrap();
        assert_eq!(&out[..n], &pt[..]);
        // Any flipped bit, in ciphertext, tag, AAD or nonce, is refused.
        for i in [0, pt.len() - 1, pt.len(), pt.len() + 15] {
            let mut bad = want.clone();
            bad[i] ^= 1;
            assert_eq!(
                key.open_in_place(&nonce, &aad, &mut bad),
                Err(rustls::Error::DecryptError)
            );
            assert!(bad.iter().all(|&b| b == 0), "buffer wiped after a failure");
        }
        let mut bad_aad = aad.clone();
        bad_aad[0] ^= 1;
        assert!(key
            .open_in_place(&nonce, &bad_aad, &mut want.clone())
            .is_err());
        let mut bad_nonce = nonce;
        bad_nonce[11] ^= 1;
        assert!(key
            .open_in_place(&bad_nonce, &aad, &mut want.clone())
            .is_err());
        // Too short for a tag.
        assert!(key.open_in_place(&nonce, &aad, &mut [0u8; 15]).is_err());
    }
    assert!(Sm4AeadKey::new(Sm4Mode::Gcm, &[0u8; 15]).is_err());
    assert!(Sm4AeadKey::new(Sm4Mode::Ccm, &[0u8; 32]).is_err());
}

#[test]
fn wycheproof_sm4_aeads_with_tls_shapes() {
    // Every Wycheproof SM4-GCM/CCM case with TLS 1.3's shape (12-byte nonce, 16-byte
    // tag): valid ones must match, invalid ones must be refused.
    let mut counts = [0usize; 2];
    for v in vectors("sm4.json") {
        let m = match v["mode"].as_str() {
            Some("GCM") => Sm4Mode::Gcm,
            Some("CCM") => Sm4Mode::Ccm,
            _ => continue,
        };
        let (iv, tag) = (field(&v, "iv"), field(&v, "tag"));
        if iv.len() != 12 || tag.len() != 16 || v["result"].is_null() {
            continue;
        }
        let key = Sm4AeadKey::new(m, &field(&v, "key")).unwrap();
        let nonce: [u8; 12] = iv.try_into().unwrap();
        let mut sealed = field(&v, "ciphertext");
        sealed.extend_from_slice(&tag);
        let opened = key.open_in_place(&nonce, &field(&v, "aad"), &mut sealed.clone());
        if v["result"] == "valid" {
            assert!(opened.is_ok(), "{}", v["name"]);
            counts[0] += 1;
        } else if v["result"] == "invalid" {
            assert!(opened.is_err(), "{}", v["name"]);
            counts[1] += 1;
        }
    }
    assert!(counts[0] >= 10 && counts[1] >= 10, "{counts:?}");
}

/// Seals one application-data record with sequence number 5 under the key and IV derived
/// above, through the provider's `MessageEncrypter`, and opens it again.
fn record(alg: &dyn Tls13AeadAlgorithm, want: &str) {
    let secret = rustls::crypto::tls13::OkmBlock::new(&h(
        "0000000000000000000000000000000011111111111111111111111111111111",
    ));
    let expander = HKDF_SM3.expander_for_okm(&secret);
    let key = || rustls::internal::derive_traffic_key(expander.as_ref(), alg);
    let iv = || rustls::internal::derive_traffic_iv(expander.as_ref());
    let mut enc = alg.encrypter(key(), iv());
    let msg = OutboundPlainMessage {
        typ: ContentType::ApplicationData,
        version: ProtocolVersion::TLSv1_2,
        payload: OutboundChunks::Single(b"hello, RFC 8998"),
    };
    assert_eq!(enc.encrypted_payload_len(15), 32);
    let opaque = enc.encrypt(msg, 5).unwrap();
    let wire = opaque.encode();
    let mut expected = h("1703030020");
    expected.extend_from_slice(&h(want));
    assert_eq!(wire, expected);

    let mut dec = alg.decrypter(key(), iv());
    let mut body = wire[5..].to_vec();
    let inbound = InboundOpaqueMessage::new(
        ContentType::ApplicationData,
        ProtocolVersion::TLSv1_2,
        &mut body,
    );
    let plain = dec.decrypt(inbound, 5).unwrap();
    assert_eq!(plain.typ, ContentType::ApplicationData);
    assert_eq!(plain.payload, b"hello, RFC 8998");
    // The wrong sequence number is a different nonce: refused.
    let mut body = wire[5..].to_vec();
    let inbound = InboundOpaqueMessage::new(
        ContentType::ApplicationData,
        ProtocolVersion::TLSv1_2,
        &mut body,
    );
    assert!(dec.decrypt(inbound, 6).is_err());
}

#[test]
fn protected_record_sm4_gcm() {
    // cryptography (OpenSSL) SM4-GCM, nonce = iv ^ 5, AAD = 17 03 03 00 20.
    record(
        &SM4_GCM,
        "54e0230edc4049ca57f5ac4b2e4c6a613aa1b96963a3c8da268cf2e9c7f4b5b8",
    );
}

#[test]
fn protected_record_sm4_ccm() {
    // SP 800-38C CCM (q = 3, t = 16) over cryptography's SM4-ECB, same inputs.
    record(
        &SM4_CCM,
        "a5aac2a1343f572d0931d895cec5c036f4e1dd0fa6fb279aab6f567a5b45dc64",
    );
}

#[test]
fn curve_sm2_shares() {
    use guomi_rustls::kx::{parse_share, CURVE_SM2_GROUP};
    let a = CURVE_SM2_GROUP.start().unwrap();
    let b = CURVE_SM2_GROUP.start().unwrap();
    let (pa, pb) = (a.pub_key().to_vec(), b.pub_key().to_vec());
    assert_eq!(pa.len(), 65);
    assert_eq!(pa[0], 4);
    assert_eq!(a.group(), guomi_rustls::CURVE_SM2);
    let sa = a.complete(&pb).unwrap();
    let sb = b.complete(&pa).unwrap();
    assert_eq!(sa.secret_bytes(), sb.secret_bytes());
    assert_eq!(sa.secret_bytes().len(), 32);
    // The secret is the x-coordinate of d_a * Q_b: equal to pb's own ECDH with a fixed key.
    let fixed: guomi_core::sm2::PrivateKey =
        guomi_core::sm2::PrivateKey::from_bytes(&[7u8; 32]).unwrap();
    let via_group = CURVE_SM2_GROUP
        .start_and_complete(&fixed.public_key().to_uncompressed())
        .unwrap();
    let peer = guomi_core::sm2::PublicKey::from_bytes(&via_group.pub_key).unwrap();
    let direct = guomi_core::sm2::ecdh(&fixed, &peer).unwrap();
    assert_eq!(via_group.secret.secret_bytes(), &direct[..]);

    // Refused: every form but uncompressed, off-curve points, coordinates >= p, infinity.
    let good = fixed.public_key().to_uncompressed();
    let mut off = good;
    off[64] ^= 1;
    let mut big_x = good;
    big_x[1..33].fill(0xff);
    let mut hybrid = good;
    hybrid[0] = 6 | (good[64] & 1);
    let bad: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        good[1..].to_vec(),                          // raw x || y
        fixed.public_key().to_compressed().to_vec(), // compressed
        hybrid.to_vec(),
        off.to_vec(),
        big_x.to_vec(),
        [&good[..], &[0u8][..]].concat(), // trailing byte
        {
            let mut z = vec![0u8; 65];
            z[0] = 4;
            z
        }, // (0, 0)
    ];
    for share in bad {
        assert!(parse_share(&share).is_err(), "{}", hex::encode(&share));
        let kx = CURVE_SM2_GROUP.start().unwrap();
        assert_eq!(
            kx.complete(&share).err(),
            Some(rustls::Error::PeerMisbehaved(
                rustls::PeerMisbehaved::InvalidKeyShare
            ))
        );
    }
}

#[test]
fn sm2sig_sm3_uses_the_rfc8998_identifier() {
    use rustls::sign::SigningKey;
    let key = guomi_core::sm2::PrivateKey::generate().unwrap();
    let signing = guomi_rustls::sign::Sm2SigningKey::new(key.clone());
    assert!(signing
        .choose_scheme(&[rustls::SignatureScheme::ECDSA_NISTP256_SHA256])
        .is_none());
    let signer = signing.choose_scheme(&[guomi_rustls::SM2_SM3]).unwrap();
    assert_eq!(signer.scheme(), guomi_rustls::SM2_SM3);
    assert_eq!(u16::from(signer.scheme()), 0x0708);
    let msg = b"content to be signed";
    let sig = signer.sign(msg).unwrap();
    let parsed = guomi_core::sm2::Signature::from_der(&sig).unwrap();
    assert!(key
        .public_key()
        .verify(msg, b"TLSv1.3+GM+Cipher+Suite", &parsed));
    assert!(!key
        .public_key()
        .verify(msg, guomi_core::sm2::DEFAULT_UID, &parsed));
    assert!(guomi_rustls::sign::verify_handshake_signature(
        key.public_key(),
        msg,
        &sig
    ));
    // Raw r || s is not what TLS carries: refused.
    assert!(!guomi_rustls::sign::verify_handshake_signature(
        key.public_key(),
        msg,
        &parsed.to_raw()
    ));

    // The pki-types algorithms: handshake (TLS ID) and certificate (default ID).
    use rustls::pki_types::SignatureVerificationAlgorithm;
    let point = key.public_key().to_uncompressed();
    assert!(guomi_rustls::sign::SM2_SM3_HANDSHAKE
        .verify_signature(&point, msg, &sig)
        .is_ok());
    assert!(guomi_rustls::sign::SM2_SM3_CERTIFICATE
        .verify_signature(&point, msg, &sig)
        .is_err());
    let cert_sig = key
        .sign(msg, guomi_core::sm2::DEFAULT_UID)
        .unwrap()
        .to_der();
    assert!(guomi_rustls::sign::SM2_SM3_CERTIFICATE
        .verify_signature(&point, msg, &cert_sig)
        .is_ok());
}

#[test]
fn key_provider_loads_sm2_keys_only() {
    use guomi_formats::sm2_keys::PrivateKeyEncoding;
    use rustls::crypto::KeyProvider;
    use rustls::pki_types::{
        PrivateKeyDer, PrivatePkcs1KeyDer, PrivatePkcs8KeyDer, PrivateSec1KeyDer,
    };
    let key = guomi_core::sm2::PrivateKey::generate().unwrap();
    let kp = &guomi_rustls::sign::SM2_KEY_PROVIDER;
    let pkcs8 = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.to_pkcs8_der().to_vec()));
    let sec1 = PrivateKeyDer::Sec1(PrivateSec1KeyDer::from(key.to_sec1_der().to_vec()));
    for der in [pkcs8, sec1] {
        let loaded = kp.load_private_key(der).unwrap();
        let spki = loaded.public_key().unwrap();
        use guomi_formats::sm2_keys::PublicKeyEncoding;
        assert_eq!(spki.as_ref(), &key.public_key().to_spki_der()[..]);
    }
    let junk = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x00]));
    assert!(kp.load_private_key(junk).is_err());
    let rsa = PrivateKeyDer::Pkcs1(PrivatePkcs1KeyDer::from(vec![0x30, 0x00]));
    assert!(kp.load_private_key(rsa).is_err());
}

#[test]
fn provider_contents() {
    let p = guomi_rustls::provider();
    let ids: Vec<u16> = p
        .cipher_suites
        .iter()
        .map(|s| u16::from(s.suite()))
        .collect();
    assert_eq!(ids, [0x00c6, 0x00c7]);
    assert_eq!(p.kx_groups.len(), 1);
    assert_eq!(u16::from(p.kx_groups[0].name()), 0x0029);
    assert_eq!(
        p.signature_verification_algorithms.mapping[0].0,
        guomi_rustls::SM2_SM3
    );
    let mut buf = [0u8; 64];
    p.secure_random.fill(&mut buf).unwrap();
    assert!(buf.iter().any(|&b| b != 0));
    assert!(!p.fips());
}

#[test]
fn ticketer_roundtrip_and_refusals() {
    use guomi_rustls::ticketer::Sm4GcmTicketer;
    use rustls::server::ProducesTickets;
    let t = Sm4GcmTicketer::new(3600).unwrap();
    let other = Sm4GcmTicketer::new(3600).unwrap();
    let plain = b"session state";
    let a = t.encrypt(plain).unwrap();
    let b = t.encrypt(plain).unwrap();
    assert_ne!(a, b, "fresh nonce per ticket");
    assert_eq!(a.len(), 16 + 12 + plain.len() + 16);
    assert_eq!(t.decrypt(&a).unwrap(), plain);
    assert!(other.decrypt(&a).is_none(), "another key");
    for i in [0, 16, 28, a.len() - 1] {
        let mut bad = a.clone();
        bad[i] ^= 1;
        assert!(t.decrypt(&bad).is_none(), "byte {i}");
    }
    assert!(t.decrypt(&a[..a.len() - 1]).is_none());
    assert!(t.decrypt(&[]).is_none());
    assert_eq!(t.lifetime(), 3600);
    let rotating = guomi_rustls::ticketer::ticketer().unwrap();
    let sealed = rotating.encrypt(plain).unwrap();
    assert_eq!(rotating.decrypt(&sealed).unwrap(), plain);
}

#[test]
fn dns_name_matching_rules() {
    use guomi_rustls::verify::dns_matches;
    assert!(dns_matches("example.test", "EXAMPLE.test"));
    assert!(dns_matches("example.test.", "example.test"));
    assert!(dns_matches("*.example.test", "a.example.test"));
    assert!(!dns_matches("*.example.test", "example.test"));
    assert!(!dns_matches("*.example.test", "a.b.example.test"));
    assert!(!dns_matches("*.example.test", ".example.test"));
    assert!(
        !dns_matches("*.test", "a.test"),
        "wildcard over a single label"
    );
    assert!(!dns_matches("a*.example.test", "ab.example.test"));
    assert!(!dns_matches("*.*.example.test", "a.b.example.test"));
    assert!(!dns_matches("", ""));
    assert!(!dns_matches("exämple.test", "exämple.test"));
}
