use super::*;

const VEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/pkcs12/");

// DER composition for hand-made inputs (crate::asn1; these cannot fail).
fn seq(parts: &[&[u8]]) -> Vec<u8> {
    asn1::seq(parts).unwrap()
}

fn explicit(n: u8, inner: &[u8]) -> Vec<u8> {
    asn1::explicit(n, inner).unwrap()
}

fn octets(b: &[u8]) -> Vec<u8> {
    asn1::octets(b).unwrap()
}

fn int_u32(v: u32) -> Vec<u8> {
    asn1::uint(v).unwrap()
}

fn oid_der(o: &Oid) -> Vec<u8> {
    asn1::oid(o).unwrap()
}

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    asn1::tlv(tag, content).unwrap()
}

use asn1::null;

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(format!("{VEC}{name}")).unwrap()
}

fn pem_key(name: &str) -> PrivateKey {
    PrivateKey::from_pem(&String::from_utf8(vector(name)).unwrap()).unwrap()
}

fn pem_cert(name: &str) -> Vec<u8> {
    Certificate::from_pem(&String::from_utf8(vector(name)).unwrap())
        .unwrap()
        .to_der()
        .to_vec()
}

#[test]
fn reads_openssl3_aes_and_sm4_files() {
    let key = pem_key("openssl3-key.pem");
    let cert = pem_cert("openssl3-cert.pem");
    for (file, mac, scheme) in [
        (
            "openssl3-aes256-sha256.p12",
            "sha256",
            "PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC, 2048 iterations",
        ),
        (
            "openssl3-sm4-sm3mac.p12",
            "sm3",
            "PBES2, PBKDF2-HMAC-SHA256, SM4-CBC, 2048 iterations",
        ),
    ] {
        let p = load(&vector(file), b"test1234").unwrap();
        assert_eq!(p.key.as_ref().unwrap(), &key, "{file}");
        assert_eq!(p.certificate.as_deref(), Some(&cert[..]));
        assert!(p.chain.is_empty());
        assert_eq!(p.friendly_name.as_deref(), Some("guomi key"));
        assert_eq!(p.info.mac, mac);
        assert_eq!(p.info.mac_iterations, 2048);
        assert!(
            p.info.contents.iter().any(|c| c.ends_with(scheme)),
            "{:?}",
            p.info
        );
        assert!(matches!(
            load(&vector(file), b"test1235"),
            Err(Error::InvalidKey(_))
        ));
        assert!(matches!(
            load(&vector(file), b""),
            Err(Error::InvalidKey(_))
        ));
    }
}

#[test]
fn reads_a_chain_and_picks_the_key_certificate() {
    let p = load(&vector("openssl3-chain-sm4.p12"), b"test1234").unwrap();
    assert_eq!(p.key.unwrap(), pem_key("openssl3-leaf-key.pem"));
    assert_eq!(p.certificate.unwrap(), pem_cert("openssl3-leaf-cert.pem"));
    assert_eq!(p.chain, vec![pem_cert("openssl3-ca-cert.pem")]);
}

#[test]
fn legacy_3des_is_named() {
    let e = load(&vector("openssl3-legacy-3des-sha1.p12"), b"test1234").unwrap_err();
    // The SHA-1 MAC verifies; the 3DES bag is named with how to re-export.
    match e {
        Error::UnsupportedFormat(m) => {
            assert!(
                m.contains("3-KeyTripleDES") && m.contains("re-export"),
                "{m}"
            )
        }
        e => panic!("{e:?}"),
    }
    // With a wrong password, the MAC fails first.
    assert!(matches!(
        load(&vector("openssl3-legacy-3des-sha1.p12"), b"test1235"),
        Err(Error::InvalidKey(_))
    ));
}

#[test]
fn round_trip_both_encryptions() {
    let key = pem_key("openssl3-leaf-key.pem");
    let cert = pem_cert("openssl3-leaf-cert.pem");
    let ca = pem_cert("openssl3-ca-cert.pem");
    for enc in [Encryption::Sm, Encryption::Aes] {
        let der = dump(
            Some(&key),
            Some(&cert),
            &[&ca],
            "pässwört".as_bytes(),
            enc,
            1000,
            Some("leaf ключ"),
        )
        .unwrap();
        let p = load(&der, "pässwört".as_bytes()).unwrap();
        assert_eq!(p.key.as_ref(), Some(&key));
        assert_eq!(p.certificate.as_deref(), Some(&cert[..]));
        assert_eq!(p.chain, vec![ca.clone()]);
        assert_eq!(p.friendly_name.as_deref(), Some("leaf ключ"));
        let (mac, scheme) = match enc {
            Encryption::Sm => ("sm3", "PBES2, PBKDF2-HMAC-SM3, SM4-CBC, 1000 iterations"),
            Encryption::Aes => (
                "sha256",
                "PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC, 1000 iterations",
            ),
        };
        assert_eq!(p.info.mac, mac);
        assert_eq!(p.info.contents.len(), 3, "{:?}", p.info);
        assert!(p
            .info
            .contents
            .iter()
            .all(|c| c == "data" || c.ends_with(scheme)));
        assert!(matches!(load(&der, b"wrong"), Err(Error::InvalidKey(_))));
        // Key only, certificate only.
        let k = load(
            &dump(Some(&key), None, &[], b"pw", enc, 1, None).unwrap(),
            b"pw",
        )
        .unwrap();
        assert_eq!(k.key.as_ref(), Some(&key));
        assert!(k.certificate.is_none() && k.friendly_name.is_none());
        let c = load(
            &dump(None, Some(&cert), &[], b"pw", enc, 1, None).unwrap(),
            b"pw",
        )
        .unwrap();
        assert!(c.key.is_none());
        assert_eq!(c.certificate.as_deref(), Some(&cert[..]));
    }
}

#[test]
fn dump_rejects_bad_arguments() {
    let key = pem_key("openssl3-key.pem");
    let cert = pem_cert("openssl3-leaf-cert.pem");
    let e = Encryption::Sm;
    assert!(matches!(
        dump(Some(&key), Some(&cert), &[], b"pw", e, 1, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        dump(Some(&key), None, &[], b"pw", e, 0, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        dump(Some(&key), None, &[], b"pw", e, MAX_ITERATIONS + 1, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        dump(None, None, &[], b"pw", e, 1, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        dump(Some(&key), None, &[], &[0xff], e, 1, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        dump(Some(&key), None, &[], b"pw", e, 1, Some("😀")),
        Err(Error::InvalidValue(_))
    ));
    assert!(dump(None, Some(b"\x30\x00"), &[], b"pw", e, 1, None).is_err());
    let many = vec![&cert[..]; 63];
    assert!(matches!(
        dump(None, None, &many, b"pw", e, 1, None),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        Encryption::parse("des"),
        Err(Error::InvalidValue(_))
    ));
    assert_eq!(Encryption::parse("SM").unwrap(), Encryption::Sm);
}

#[test]
fn every_flipped_byte_fails_the_mac_or_the_parse() {
    let key = pem_key("openssl3-key.pem");
    let cert = pem_cert("openssl3-cert.pem");
    let der = dump(Some(&key), Some(&cert), &[], b"pw", Encryption::Sm, 1, None).unwrap();
    for pos in (0..der.len()).step_by(3) {
        let mut bad = der.clone();
        bad[pos] ^= 0x01;
        match load(&bad, b"pw") {
            Err(Error::InvalidKey(_)) | Err(Error::UnsupportedFormat(_)) => {}
            // Only bytes outside the MACed part and not in the structure can change
            // without an error: none in this layout, except the MAC iteration count's
            // and salt's... which change the MAC key.
            other => panic!("pos {pos}: {other:?}"),
        }
    }
}

#[test]
fn hostile_bounds_are_typed_errors() {
    assert!(matches!(
        load(&vec![0u8; MAX_PFX_LEN + 1], b""),
        Err(Error::UnsupportedFormat(_))
    ));
    assert!(matches!(load(b"", b""), Err(Error::UnsupportedFormat(_))));
    assert!(matches!(
        load(b"\x30\x80\x00\x00", b""),
        Err(Error::UnsupportedFormat(_))
    ));
    // A MAC with an iteration count above the bound is refused before any work.
    let key = pem_key("openssl3-key.pem");
    let der = dump(Some(&key), None, &[], b"pw", Encryption::Aes, 1, None).unwrap();
    // The MAC iteration count is the last INTEGER: 02 01 01.
    let n = der.len();
    assert_eq!(&der[n - 3..], &[2, 1, 1]);
    let mut big = der[..n - 3].to_vec();
    big.extend_from_slice(&[2, 4, 0x7f, 0xff, 0xff, 0xff]);
    // Fix the outer lengths: rebuild the MacData and PFX sequences.
    let p = AnyRef::from_der(&der).unwrap();
    let parts = elements(&p, Tag::Sequence).unwrap();
    let mac = elements(&parts[2], Tag::Sequence).unwrap();
    let mac2 = seq(&[
        &mac[0].to_der_vec().unwrap(),
        &mac[1].to_der_vec().unwrap(),
        &int_u32(0x7fff_ffff),
    ]);
    let pfx = seq(&[
        &parts[0].to_der_vec().unwrap(),
        &parts[1].to_der_vec().unwrap(),
        &mac2,
    ]);
    assert!(
        matches!(load(&pfx, b"pw"), Err(Error::UnsupportedFormat(m)) if m.contains("iteration"))
    );
    // No MAC at all.
    let nomac = seq(&[
        &parts[0].to_der_vec().unwrap(),
        &parts[1].to_der_vec().unwrap(),
    ]);
    assert!(
        matches!(load(&nomac, b"pw"), Err(Error::UnsupportedFormat(m)) if m.contains("no MAC"))
    );
}

#[test]
fn pkcs12_kdf_is_the_rfc7292_construction() {
    // Independent check against OpenSSL-written MACs is in reads_openssl3_*; here the
    // carry across the 64-byte blocks (I_j + B + 1) and a multi-block output.
    let mut a = [0u8; 70];
    Hash::Sha256
        .pkcs12_kdf(1, &[0, 0], &[0xff; 64], 1, &mut a)
        .unwrap();
    let mut b = [0u8; 32];
    Hash::Sha256
        .pkcs12_kdf(1, &[0, 0], &[0xff; 64], 1, &mut b)
        .unwrap();
    assert_eq!(a[..32], b);
    assert_ne!(a[32..64], a[..32]);
    assert!(Hash::Sm3.pkcs12_kdf(3, &[0, 0], b"s", 0, &mut b).is_err());
}

#[test]
fn reads_bouncycastle_files() {
    // PKCS12PfxPduBuilder, AES-256-CBC + PBKDF2-HMAC-SHA256, SHA-256 MAC (32-byte salt,
    // 1024 iterations), localKeyId 01020304, friendlyName "bc key".
    let p = load(&vector("bc-1.87-builder-aes256-sha256.p12"), b"test1234").unwrap();
    assert_eq!(p.key.unwrap(), pem_key("openssl3-key.pem"));
    assert_eq!(p.certificate.unwrap(), pem_cert("openssl3-cert.pem"));
    assert_eq!(p.friendly_name.as_deref(), Some("bc key"));
    assert_eq!(
        (p.info.mac.as_str(), p.info.mac_iterations),
        ("sha256", 1024)
    );
    // PBMAC1 (RFC 9579) from BcPKCS12PBMac1CalculatorBuilder.
    let p = load(&vector("bc-1.87-builder-aes256-pbmac1.p12"), b"test1234").unwrap();
    assert_eq!(p.key.unwrap(), pem_key("openssl3-key.pem"));
    assert_eq!(p.info.mac, "PBMAC1 (PBKDF2-HMAC-SHA256, HMAC-SHA256)");
    assert!(matches!(
        load(&vector("bc-1.87-builder-aes256-pbmac1.p12"), b"test1235"),
        Err(Error::InvalidKey(_))
    ));
    // KeyStore.getInstance("PKCS12", "BC") writes BER (indefinite lengths) with
    // 3DES/RC2 and a SHA-1 MAC by default: the BER is read, the MAC verifies, the 3DES key
    // bag is refused by name.
    assert!(matches!(
        load(&vector("bc-1.87-keystore-pkcs12-default.p12"), b"test1234"),
        Err(Error::UnsupportedFormat(m)) if m.contains("3-KeyTripleDES")
    ));
    // KeyStore "PKCS12-DEF-AES256-AES128": BER, AES-256/AES-128-CBC with
    // PBKDF2-HMAC-SHA256, SHA-1 MAC (600000 iterations): read.
    let p = load(
        &vector("bc-1.87-keystore-def-aes256-aes128.p12"),
        b"test1234",
    )
    .unwrap();
    assert_eq!(p.key.unwrap(), pem_key("openssl3-key.pem"));
    assert_eq!(p.certificate.unwrap(), pem_cert("openssl3-cert.pem"));
    assert_eq!(p.friendly_name.as_deref(), Some("bc key"));
    assert_eq!(
        (p.info.mac.as_str(), p.info.mac_iterations),
        ("sha1", 600_000)
    );
    assert!(matches!(
        load(
            &vector("bc-1.87-keystore-def-aes256-aes128.p12"),
            b"test1235"
        ),
        Err(Error::InvalidKey(_))
    ));
}

/// A PBES2 AlgorithmIdentifier (PBKDF2-HMAC-SM3, SM4-CBC) claiming `iterations`.
fn pbes2_claiming(iterations: u32) -> Vec<u8> {
    use crate::x509::oid as x;
    let kdf = seq(&[
        &oid_der(&x::PBKDF2),
        &seq(&[
            &octets(&[7; 16]),
            &int_u32(iterations),
            &seq(&[&oid_der(&x::HMAC_SM3), &null()]),
        ]),
    ]);
    let enc = seq(&[&oid_der(&x::SM4_CBC), &octets(&[9; 16])]);
    seq(&[&oid_der(&x::PBES2), &seq(&[&kdf, &enc])])
}

/// An encryptedData ContentInfo of `ciphertext` under `alg`.
fn encrypted_part(alg: &[u8], ciphertext: &[u8]) -> Vec<u8> {
    let eci = seq(&[&oid_der(&oid::DATA), alg, &tlv(0x80, ciphertext)]);
    let ed = seq(&[&int_u32(0), &eci]);
    seq(&[&oid_der(&oid::ENCRYPTED_DATA), &explicit(0, &ed)])
}

/// Hardening review 6: 64 encrypted parts at the per-derivation maximum would cost
/// minutes of CPU; the total is refused before the first derivation (even the MAC's)
/// runs, whatever the password.
#[test]
fn derivation_budget_is_checked_before_any_derivation() {
    let part = encrypted_part(&pbes2_claiming(MAX_ITERATIONS), &[0; 16]);
    for parts in [4, MAX_BAGS] {
        let refs: Vec<&[u8]> = vec![&part; parts];
        let pfx = seal(&seq(&refs), b"pw", Encryption::Sm, 1).unwrap();
        for password in [&b"pw"[..], b"wrong"] {
            assert!(
                matches!(
                    load(&pfx, password),
                    Err(Error::UnsupportedFormat(m)) if m.contains("MAX_TOTAL_ITERATIONS")
                ),
                "{parts} parts"
            );
        }
    }
    // The MAC's own iterations count: three parts at the maximum fit alone, not with
    // a MAC at the maximum too (refused before the MAC runs: a wrong password does not
    // get as far as the MAC check).
    let refs: Vec<&[u8]> = vec![&part; 3];
    let auth = seq(&refs);
    let pfx = seal(&auth, b"pw", Encryption::Sm, 1).unwrap();
    assert_eq!(visible_iterations(&auth), 3 * u64::from(MAX_ITERATIONS));
    let p = AnyRef::from_der(&pfx).unwrap();
    let top = elements(&p, Tag::Sequence).unwrap();
    let mac = elements(&top[2], Tag::Sequence).unwrap();
    let mac2 = seq(&[
        &mac[0].to_der_vec().unwrap(),
        &mac[1].to_der_vec().unwrap(),
        &int_u32(MAX_ITERATIONS),
    ]);
    let heavy = seq(&[
        &top[0].to_der_vec().unwrap(),
        &top[1].to_der_vec().unwrap(),
        &mac2,
    ]);
    assert!(matches!(
        load(&heavy, b"wrong"),
        Err(Error::UnsupportedFormat(m)) if m.contains("MAX_TOTAL_ITERATIONS")
    ));
}

/// Every derivation counts, the MAC's and the parts', and a file exactly at the budget
/// loads; a shrouded key found only after decrypting a part is charged before its own
/// derivation runs.
#[test]
fn derivation_budget_counts_every_derivation() {
    let key = pem_key("openssl3-key.pem");
    let cert = pem_cert("openssl3-cert.pem");
    // dump: MAC + encrypted certificates + shrouded key, 100 iterations each.
    let der = dump(
        Some(&key),
        Some(&cert),
        &[],
        b"pw",
        Encryption::Sm,
        100,
        None,
    )
    .unwrap();
    assert_eq!(load_within(&der, b"pw", 300).unwrap().key.unwrap(), key);
    assert!(matches!(
        load_within(&der, b"pw", 299),
        Err(Error::UnsupportedFormat(m)) if m.contains("MAX_TOTAL_ITERATIONS")
    ));
    // A shrouded key inside an encrypted part: 200 visible (MAC, part), 100 hidden.
    let scheme = Encryption::Sm.scheme();
    let (alg, ct) = pbe::encrypt(scheme, b"pw", 100, &key.to_pkcs8_der()).unwrap();
    let bag = seq(&[
        &oid_der(&oid::SHROUDED_KEY_BAG),
        &explicit(0, &seq(&[&alg, &octets(&ct)])),
    ]);
    let (alg2, ct2) = pbe::encrypt(scheme, b"pw", 100, &seq(&[&bag])).unwrap();
    let auth = seq(&[&encrypted_part(&alg2, &ct2)]);
    assert_eq!(visible_iterations(&auth), 100);
    let pfx = seal(&auth, b"pw", Encryption::Sm, 100).unwrap();
    assert_eq!(load_within(&pfx, b"pw", 300).unwrap().key.unwrap(), key);
    assert!(matches!(
        load_within(&pfx, b"pw", 299),
        Err(Error::UnsupportedFormat(m)) if m.contains("MAX_TOTAL_ITERATIONS")
    ));
}
