//! Writes the fixed PKI (`fixtures/*.der`) and the seed corpora (`corpus/TARGET/*`).
//! Run from `fuzz/` with `cargo run --example make_seeds`. The input layouts here must
//! match the targets in `fuzz_targets/` (each target documents its layout).

use guomi_core::sm2::{self, CiphertextFormat, PrivateKey};
use guomi_core::sm4::{ccm::Sm4Ccm, gcm::Sm4Gcm};
use guomi_core::{sm9, zuc};
use guomi_formats::envelope::{self, Header, Kem, Sealer};
use guomi_formats::sm2_keys::{PrivateKeyEncoding, PublicKeyEncoding};
use guomi_formats::x509::{self, CertificateBuilder, Prf, RequestBuilder};
use guomi_fuzz::*;
use std::fs;
use std::path::Path;

fn put(target: &str, name: &str, data: &[u8]) {
    let dir = Path::new("corpus").join(target);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(name), data).unwrap();
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn main() {
    // Fixed PKI: root (d = 01..), intermediate CA (d = 02..), leaf (d = 03..).
    let kr = PrivateKey::from_bytes(&[1; 32]).unwrap();
    let ki = PrivateKey::from_bytes(&[2; 32]).unwrap();
    let kl = PrivateKey::from_bytes(&[3; 32]).unwrap();
    let nb = 1_700_000_000;
    let na = 1_900_000_000;
    let mut b =
        CertificateBuilder::new("CN=Fuzz Root,O=guomi", kr.public_key().clone(), nb, na).unwrap();
    b.ca(Some(1));
    b.serial = Some(vec![1]);
    let root = b.self_sign(&kr).unwrap();
    let mut b =
        CertificateBuilder::new("CN=Fuzz CA,O=guomi", ki.public_key().clone(), nb, na).unwrap();
    b.ca(Some(0));
    b.serial = Some(vec![2]);
    let inter = b.sign(&root, &kr).unwrap();
    let mut b = CertificateBuilder::new("CN=leaf.example,O=guomi", kl.public_key().clone(), nb, na)
        .unwrap();
    b.serial = Some(vec![3]);
    b.extended_key_usage = vec![x509::oid::SERVER_AUTH];
    b.subject_alt_names = vec![x509::GeneralNameValue::Dns("leaf.example".into())];
    let leaf = b.sign(&inter, &ki).unwrap();
    fs::create_dir_all("fixtures").unwrap();
    fs::write("fixtures/root.der", root.to_der()).unwrap();
    fs::write("fixtures/inter.der", inter.to_der()).unwrap();
    fs::write("fixtures/leaf.der", leaf.to_der()).unwrap();
    let csr = RequestBuilder::new("CN=req.example,O=guomi")
        .unwrap()
        .sign(&kl)
        .unwrap();

    // x509: sel 0 cert DER, 1 CSR DER, 2 PEM text, 3 chain, 4 signature check (5, CRL DER:
    // the committed seeds corpus/x509/crl0 and crl1, an OpenSSL and a guomi CRL).
    let t = "x509";
    for (i, c) in [&root, &inter, &leaf].iter().enumerate() {
        put(t, &format!("cert{i}"), &cat(&[&[0], c.to_der()]));
        put(t, &format!("sig{i}"), &cat(&[&[4], c.to_der()]));
    }
    put(t, "csr", &cat(&[&[1], csr.to_der()]));
    let bundle = format!("{}{}", leaf.to_pem().unwrap(), inter.to_pem().unwrap());
    put(t, "pem_bundle", &cat(&[&[2], bundle.as_bytes()]));
    put(
        t,
        "pem_csr",
        &cat(&[&[2], csr.to_pem().unwrap().as_bytes()]),
    );
    // chain: sel, count, flags, then count × (u16 length, DER).
    let mut ch = vec![3u8, 2, 0b11];
    for c in [&leaf, &inter] {
        ch.extend_from_slice(&(c.to_der().len() as u16).to_be_bytes());
        ch.extend_from_slice(c.to_der());
    }
    put(t, "chain", &ch);

    // sm2_keys: sel, body.
    let t = "sm2_keys";
    let k = sm2_key();
    let p = k.public_key();
    put(t, "pub65", &cat(&[&[0], &p.to_uncompressed()]));
    put(t, "pub64", &cat(&[&[0], &p.to_raw()]));
    put(t, "pub33", &cat(&[&[0], &p.to_compressed()]));
    put(t, "spki", &cat(&[&[1], &p.to_spki_der()]));
    put(t, "spki_pem", &cat(&[&[2], p.to_spki_pem().as_bytes()]));
    put(t, "sec1", &cat(&[&[3], &k.to_sec1_der()]));
    put(t, "pkcs8", &cat(&[&[4], &k.to_pkcs8_der()]));
    put(t, "raw", &cat(&[&[5], &SM2_D]));
    put(t, "sec1_pem", &cat(&[&[6], k.to_sec1_pem().as_bytes()]));
    put(t, "pkcs8_pem", &cat(&[&[6], k.to_pkcs8_pem().as_bytes()]));
    for (i, prf) in [Prf::HmacSm3, Prf::HmacSha256].into_iter().enumerate() {
        let e = x509::encrypt_private_key_der(k, PASSWORD, prf, 16).unwrap();
        for mode in 0..3u8 {
            put(t, &format!("epki{i}_{mode}"), &cat(&[&[7, mode], &e]));
        }
    }

    // sm2_sig: sel, uid (u8 len), sig (u8 len), msg.
    let t = "sm2_sig";
    let msg = b"message digest";
    let sig = k.sign(msg, sm2::DEFAULT_UID).unwrap();
    for (i, s) in [sig.to_der(), sig.to_raw().to_vec()].iter().enumerate() {
        put(
            t,
            &format!("sig{i}"),
            &cat(&[&[0, 16], sm2::DEFAULT_UID, &[s.len() as u8], s, msg]),
        );
        put(
            t,
            &format!("sign{i}"),
            &cat(&[&[1, 16], sm2::DEFAULT_UID, &[s.len() as u8], s, msg]),
        );
    }

    // sm2_ct: sel, k[32], body.
    let t = "sm2_ct";
    let parts = p.encrypt_parts(b"encryption standard").unwrap();
    let kk = [7u8; 32];
    for (i, (fmt, sel)) in [
        (CiphertextFormat::C1C3C2, 1u8),
        (CiphertextFormat::C1C2C3, 2),
        (CiphertextFormat::Der, 3),
    ]
    .into_iter()
    .enumerate()
    {
        for prefix in [false, true] {
            let ct = parts.encode(fmt, prefix);
            put(t, &format!("ct{i}{prefix}"), &cat(&[&[sel], &kk, &ct]));
            if fmt == CiphertextFormat::C1C3C2 {
                put(t, &format!("auto{prefix}"), &cat(&[&[0], &kk, &ct]));
            }
        }
    }
    put(t, "encrypt", &cat(&[&[4], &kk, b"abc"]));
    let (_, c1) = p.encapsulate(32).unwrap();
    put(t, "decap", &cat(&[&[8], &kk, &[32], &c1]));

    // sm9: sel, body.
    let t = "sm9";
    let s9 = sm9_keys();
    let ct = s9.enc_pub.encrypt(b"Chinese IBE standard", SM9_ID).unwrap();
    put(t, "ct_der", &cat(&[&[0], &ct.to_der()]));
    put(t, "ct_raw", &cat(&[&[1], &ct.to_raw()]));
    let sg = s9.sign_user.sign(b"Chinese IBS standard").unwrap();
    let mut m = b"Chinese IBS standard".to_vec();
    m.insert(0, 20);
    put(
        t,
        "sig_der",
        &cat(&[&[2], &ct_prefix(&sg.to_der()), &m[1..]]),
    );
    put(
        t,
        "sig_raw",
        &cat(&[&[3], &ct_prefix(&sg.to_raw()), &m[1..]]),
    );
    put(t, "key_spub", &cat(&[&[4, 0], &s9.sign_pub.to_bytes()]));
    put(t, "key_epub", &cat(&[&[4, 1], &s9.enc_pub.to_bytes()]));
    put(
        t,
        "key_suser",
        &cat(&[&[4, 2], &s9.sign_user.to_bytes()[..]]),
    );
    put(
        t,
        "key_euser",
        &cat(&[&[4, 3], &s9.enc_user.to_bytes()[..]]),
    );
    put(t, "key_master", &cat(&[&[4, 4], &SM9_SIGN_MASTER]));
    put(
        t,
        "pairing",
        &cat(&[&[4, 5], &sm9::generator_p1(), &sm9::generator_p2()]),
    );
    let (_, c) = s9.enc_pub.encapsulate(SM9_ID, 32).unwrap();
    put(t, "decap", &cat(&[&[5, 32], &c]));
    put(t, "encrypt", &cat(&[&[6], &[9u8; 32], b"abc"]));
    put(t, "sign", &cat(&[&[7], &[9u8; 32], b"abc"]));

    // envelope: sel, splits (u8 len), body.
    let t = "envelope";
    let key = [0x42u8; 16];
    let data: Vec<u8> = (0..3000u32).map(|i| i as u8).collect();
    let env = envelope::seal_with_key(&key, 10, &data).unwrap();
    put(t, "key", &cat(&[&[0, 3, 7, 0x90, 1], &env]));
    let h = Header::new(Kem::Password, 10, 16u32.to_be_bytes().to_vec()).unwrap();
    let secret = h.password_secret(PASSWORD).unwrap();
    let mut s = Sealer::new(h, &secret[..]).unwrap();
    let mut env = Vec::new();
    s.update(&data[..1500], &mut env).unwrap();
    s.finalize(&mut env).unwrap();
    put(t, "password", &cat(&[&[1, 2, 0x85, 3], &env]));
    let mut s = Sealer::to_sm2(p, 10).unwrap();
    let mut env = Vec::new();
    s.update(&data[..1100], &mut env).unwrap();
    s.finalize(&mut env).unwrap();
    put(t, "sm2", &cat(&[&[2, 1, 0x88], &env]));
    let mut s = Sealer::to_sm9(&s9.enc_pub, SM9_ID, 10).unwrap();
    let mut env = Vec::new();
    s.update(b"sm9 envelope", &mut env).unwrap();
    s.finalize(&mut env).unwrap();
    put(t, "sm9", &cat(&[&[3, 1, 5], &env]));
    put(t, "seal", &cat(&[&[4, 1, 9], &data[..2100]]));
    put(t, "header", &cat(&[&[5, 0], &env[..60]]));

    // aead_mac: GCM: sel 0, key16, nonce (u8 len), aad (u8 len), tag selector, splits, data.
    let t = "aead_mac";
    let gk = [0x24u8; 16];
    let g = Sm4Gcm::new(&gk);
    let nonce = [0x11u8; 12];
    let ct = g
        .encrypt(&nonce, b"aad", b"gcm plaintext that spans blocks")
        .unwrap();
    put(
        t,
        "gcm",
        &cat(&[
            &[0],
            &gk,
            &[12],
            &nonce,
            &[3],
            b"aad",
            &[0],
            &[2, 5, 16],
            &ct,
        ]),
    );
    let ct8 = &ct[..ct.len() - 8];
    put(
        t,
        "gcm_tag8",
        &cat(&[&[0], &gk, &[12], &nonce, &[3], b"aad", &[5], &[1, 1], ct8]),
    );
    // CCM: sel 1, key16, tag_len, nonce (u8 len), aad (u8 len), data.
    let c = Sm4Ccm::new(&gk, 16).unwrap();
    let ct = c.encrypt(&nonce, b"aad", b"ccm plaintext").unwrap();
    put(
        t,
        "ccm",
        &cat(&[&[1], &gk, &[16, 12], &nonce, &[3], b"aad", &ct]),
    );
    // EIA3: sel 2, key16, count u32, bearer, direction, length flag + u16, mac (u8 len), data.
    let zk = [0x33u8; 16];
    let mac = zuc::eia3(&zk, 0x1234, 3, 1, b"zuc eia3 message", None).unwrap();
    put(
        t,
        "eia3",
        &cat(&[
            &[2],
            &zk,
            &[0, 0, 0x12, 0x34, 3, 1, 0, 0, 0, 4],
            &mac,
            b"zuc eia3 message",
        ]),
    );
    // ZUC-256 MAC: sel 3, key (u8 len), iv (u8 len), length flag + u16, tag (u8 len), data.
    let k256 = [0x44u8; 32];
    let iv = [0x3fu8; 25];
    let tag = zuc::zuc256::mac(&k256, &iv, b"zuc-256 message", 64, None).unwrap();
    put(
        t,
        "zuc256",
        &cat(&[
            &[3, 32],
            &k256,
            &[25],
            &iv,
            &[0, 0, 0, 8],
            &tag,
            b"zuc-256 message",
        ]),
    );

    // stream_diff / backend_diff: sel, splits (u8 len), then parameters and data; any
    // bytes work, these only give each selector a start.
    for t in ["stream_diff", "backend_diff"] {
        for sel in 0..7u8 {
            let mut v = vec![sel, 4, 1, 15, 0x82, 0];
            v.extend((0..300u32).map(|i| (i * 7) as u8));
            put(t, &format!("sel{sel}"), &v);
        }
    }
    eprintln!("fixtures and corpora written");
}

/// A u8 length prefix.
fn ct_prefix(b: &[u8]) -> Vec<u8> {
    let mut v = vec![b.len() as u8];
    v.extend_from_slice(b);
    v
}
