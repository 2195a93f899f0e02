//! SM2 key containers (SubjectPublicKeyInfo, SEC1, PKCS#8; DER and PEM): round trips,
//! the bytes OpenSSL 3 writes, the bare SM2 algorithm OID, and strictness.

use guomi_core::sm2::{PrivateKey, PublicKey};
use guomi_formats::sm2_keys::{PrivateKeyEncoding, PublicKeyEncoding};

#[test]
fn key_encodings() {
    for _ in 0..20 {
        let key: PrivateKey = PrivateKey::generate().unwrap();
        let pk = key.public_key();
        assert_eq!(PrivateKey::from_der(&key.to_pkcs8_der()).unwrap(), key);
        assert_eq!(PrivateKey::from_der(&key.to_sec1_der()).unwrap(), key);
        assert_eq!(PrivateKey::from_pem(&key.to_pkcs8_pem()).unwrap(), key);
        assert_eq!(PrivateKey::from_pem(&key.to_sec1_pem()).unwrap(), key);
        assert!(&PublicKey::from_spki_der(&pk.to_spki_der()).unwrap() == pk);
        assert!(&PublicKey::from_spki_pem(&pk.to_spki_pem()).unwrap() == pk);
    }
    // OpenSSL 3 writes this PKCS#8 for the GB/T 32918.5 example key (id-ecPublicKey + SM2).
    let key: PrivateKey = PrivateKey::from_bytes(
        &hex::decode("3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8").unwrap(),
    )
    .unwrap();
    let der = key.to_pkcs8_der();
    assert_eq!(
        &der[..26],
        &hex::decode("308187020100301306072a8648ce3d020106082a811ccf5501822d").unwrap()[..26]
    );
    // The bare SM2 OID as the algorithm (GM/T 0015-2023) is read.
    let spki = key.public_key().to_spki_der();
    let mut bare = Vec::new();
    let mut alg = vec![
        0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D, 0x05, 0x00,
    ];
    let mut body = vec![0x30, alg.len() as u8];
    body.append(&mut alg);
    body.extend_from_slice(&spki[spki.len() - 68..]); // BIT STRING 03 42 00 04 ...
    bare.push(0x30);
    bare.push(body.len() as u8);
    bare.extend_from_slice(&body);
    assert!(&PublicKey::from_spki_der(&bare).unwrap() == key.public_key());
}

#[test]
fn containers_are_strict() {
    let key: PrivateKey = PrivateKey::generate().unwrap();
    let pk = key.public_key();
    // Trailing bytes after the outer structure.
    for mut der in [
        key.to_pkcs8_der().to_vec(),
        key.to_sec1_der().to_vec(),
        pk.to_spki_der(),
    ] {
        der.push(0);
        assert!(PrivateKey::from_der(&der).is_err());
        assert!(PublicKey::from_spki_der(&der).is_err());
    }
    // A SEC1 key whose embedded public key is another key's.
    let other: PrivateKey = PrivateKey::generate().unwrap();
    let mut sec1 = key.to_sec1_der().to_vec();
    let at = sec1.len() - 64;
    sec1[at..].copy_from_slice(&other.public_key().to_uncompressed()[1..]);
    assert!(PrivateKey::from_sec1_der(&sec1).is_err());
    // Encrypted PEM is refused here with a pointer to the loader that takes a password.
    assert!(PrivateKey::from_pem(
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAA==\n-----END ENCRYPTED PRIVATE KEY-----\n"
    )
    .is_err());
    // The PEM label must match.
    assert!(PublicKey::from_spki_pem(&key.to_pkcs8_pem()).is_err());
    assert!(PrivateKey::from_pem(&pk.to_spki_pem()).is_err());
}
