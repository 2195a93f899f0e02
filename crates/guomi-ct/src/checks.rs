//! The named constant-time checks.
//!
//! Each check marks its secrets undefined ([`secret`]), runs one operation of guomi-core
//! through its public API, and declassifies ([`public`]) only what the operation hands to
//! the world anyway, each with the reason next to the call. Under valgrind memcheck any
//! branch or memory address that depends on a secret in between is reported.
//!
//! Set-up that is not the subject of the check (making a ciphertext, loading a key whose
//! loading has its own check) runs in [`quietly`]: reports are off, but definedness still
//! flows, so a key loaded from secret bytes stays secret.

use crate::rng::secret_randomness;
use crate::valgrind::{public, quietly, secret};
use guomi_core::sm2;
use guomi_core::sm3;
use guomi_core::sm4::{self, ccm::Sm4Ccm, gcm::Sm4Gcm, xts, Mode, Padding, Sm4};
use guomi_core::sm9;
use guomi_core::zuc;
use std::hint::black_box;

/// One named check.
pub struct Check {
    pub name: &'static str,
    /// What is secret and which operation runs.
    pub covers: &'static str,
    /// What the check releases, and why that is safe.
    pub declassifies: &'static str,
    pub run: fn(),
}

/// A test value of `n` bytes (not secret by itself; callers mark it).
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(151).wrapping_add(seed))
        .collect()
}

fn arr<const N: usize>(seed: u8) -> [u8; N] {
    bytes(N, seed).try_into().unwrap()
}

/// A secret copy of `v`.
fn secret_vec(v: &[u8]) -> Vec<u8> {
    let s = black_box(v.to_vec());
    secret(&s[..]);
    s
}

/// Declassifies a byte string the operation returns to its caller. Called only on
/// outputs that the API itself hands out (ciphertexts, tags, signatures, public points)
/// or, for decryption, on the plaintext after the operation has finished, so that the
/// harness can compare it (the core's work is over by then).
fn release(v: &[u8]) -> Vec<u8> {
    public(v);
    v.to_vec()
}

/// Declassifies the success or failure of a call (the API reports it to the caller) and
/// the inline part of its value (for a `Vec`: pointer and length; the length of what a
/// call returns is public).
fn outcome<T, E>(r: &Result<T, E>) -> bool {
    public(r);
    r.is_ok()
}

// ---------------------------------------------------------------------------- SM2

/// A fixed private scalar (in [1, n-2]).
const SM2_D: [u8; 32] = [
    0x39, 0x45, 0x20, 0x8f, 0x7b, 0x21, 0x44, 0xb1, 0x3f, 0x36, 0xe3, 0x8a, 0xc6, 0xd3, 0x9f, 0x95,
    0x88, 0x93, 0x93, 0x69, 0x28, 0x60, 0xb5, 0x1a, 0x42, 0xfb, 0x81, 0xef, 0x4d, 0xf7, 0xc5, 0xb8,
];

/// Loads an SM2 key from secret bytes without reporting (the load has its own check) and
/// declassifies its public half: the public key is public by definition.
fn sm2_secret_key(d: &[u8; 32]) -> sm2::PrivateKey {
    quietly(|| {
        let b = secret_vec(d);
        let key = sm2::PrivateKey::from_bytes(&b).expect("valid test key");
        // The public key d·G is published; the key object caches it inline.
        public(key.public_key());
        key
    })
}

fn sm2_public_key(d: &[u8; 32]) -> sm2::PublicKey {
    sm2::PrivateKey::from_bytes(d).unwrap().public_key().clone()
}

fn sm2_keygen() {
    let key = secret_randomness(sm2::PrivateKey::<sm2::Sm2p256>::generate).unwrap();
    // The public key is public by definition.
    public(key.public_key());
    let _ = black_box(key.public_key().to_uncompressed());
}

fn sm2_from_bytes() {
    let b = secret_vec(&SM2_D);
    let key = sm2::PrivateKey::<sm2::Sm2p256>::from_bytes(&b);
    // Whether the bytes are a valid key is the call's public outcome.
    assert!(outcome(&key));
    let key = key.unwrap();
    public(key.public_key()); // the derived public key is public
    let pk = key.public_key().to_uncompressed();
    assert_eq!(pk, sm2_public_key(&SM2_D).to_uncompressed());
    // to_bytes of the secret: a copy, must not branch either.
    let d = key.to_bytes();
    public(&d[..]); // released only for the comparison below (the harness's own check)
    assert_eq!(*d, SM2_D);
}

fn sm2_sign() {
    let key = sm2_secret_key(&SM2_D);
    let msg = b"message digest";
    let e = sm2::message_digest(&key.public_key().compute_z(sm2::DEFAULT_UID).unwrap(), msg);
    let sig = secret_randomness(|| key.sign_digest(&e)).unwrap();
    // (r, s) is the signature: published by definition.
    public(&sig);
    assert!(sm2_public_key(&SM2_D).verify_digest(&e, &sig));
    // The whole message path (Z_A from the key's cache, SM3) as well.
    let sig = secret_randomness(|| key.sign(msg, sm2::DEFAULT_UID)).unwrap();
    public(&sig); // the signature is published
    assert!(sm2_public_key(&SM2_D).verify(msg, sm2::DEFAULT_UID, &sig));
}

fn sm2_encrypt() {
    let pk = sm2_public_key(&SM2_D);
    let msg = secret_vec(&bytes(45, 3));
    let ct = secret_randomness(|| pk.encrypt(&msg, sm2::CiphertextFormat::C1C3C2, true)).unwrap();
    // The ciphertext is sent to the recipient: public by definition.
    let ct = release(&ct);
    let key: sm2::PrivateKey = sm2::PrivateKey::from_bytes(&SM2_D).unwrap();
    let m = key.decrypt(&ct, None).unwrap();
    public(&m[..]); // harness comparison only, after the operation
    assert_eq!(&m[..], &bytes(45, 3)[..]);
}

fn sm2_decrypt() {
    let pk = sm2_public_key(&SM2_D);
    let ct = pk
        .encrypt(&bytes(45, 5), sm2::CiphertextFormat::C1C3C2, true)
        .unwrap();
    let key = sm2_secret_key(&SM2_D);
    let m = key.decrypt(&ct, None);
    // Success or DecryptionFailed is returned to the caller (one opaque error).
    assert!(outcome(&m));
    let m = m.unwrap();
    public(&m[..]); // harness comparison only, after the operation
    assert_eq!(&m[..], &bytes(45, 5)[..]);
    // A tampered C3 must fail, and the failing path must be constant time too.
    let mut bad = ct.clone();
    bad[70] ^= 1;
    let r = key.decrypt(&bad, None);
    assert!(!outcome(&r));
}

fn sm2_decapsulate() {
    let pk = sm2_public_key(&SM2_D);
    let (k, c1) = pk.encapsulate(48).unwrap();
    let key = sm2_secret_key(&SM2_D);
    let k2 = key.decapsulate(&c1, 48);
    assert!(outcome(&k2)); // success/failure is the call's public outcome
    let k2 = k2.unwrap();
    public(&k2[..]); // harness comparison only, after the operation
    assert_eq!(&k[..], &k2[..]);
}

fn sm2_ecdh() {
    const PEER_D: [u8; 32] = [0x5a; 32];
    let peer = sm2_public_key(&PEER_D);
    let key = sm2_secret_key(&SM2_D);
    let s = sm2::ecdh(&key, &peer);
    assert!(outcome(&s)); // success/failure is the call's public outcome
    let s = s.unwrap();
    public(&s[..]); // harness comparison only, after the operation
    let other = sm2::ecdh(
        &sm2::PrivateKey::from_bytes(&PEER_D).unwrap(),
        &sm2_public_key(&SM2_D),
    )
    .unwrap();
    assert_eq!(&s[..], &other[..]);
}

/// Runs `f` with valgrind's reports on (`loud`) or off.
fn run_as(loud: bool, f: &mut dyn FnMut()) {
    if loud {
        f()
    } else {
        quietly(f)
    }
}

/// Runs an SM2 key exchange; `check_initiator` says which role's secrets are reported
/// (the other role runs quietly with its own secrets).
fn sm2_kex(check_initiator: bool) {
    const B_D: [u8; 32] = [0x27; 32];
    let a_key = sm2_secret_key(&SM2_D);
    let b_key = sm2_secret_key(&B_D);
    let (a_pub, b_pub) = (a_key.public_key().clone(), b_key.public_key().clone());
    let (ida, idb) = (b"alice@example".as_slice(), b"bob@example".as_slice());
    // The checked role reports; the other runs quietly.
    let run_a = |f: &mut dyn FnMut()| run_as(check_initiator, f);
    let run_b = |f: &mut dyn FnMut()| run_as(!check_initiator, f);

    let mut init = None;
    run_a(&mut || {
        init = Some(secret_randomness(|| sm2::Initiator::new(&a_key, ida, &b_pub, idb)).unwrap());
    });
    let mut init = init.unwrap();
    // R_A = [r_A]G is sent to the responder: public by definition.
    let ra = init.ephemeral_public();
    public(&ra);

    let mut resp = None;
    run_b(&mut || {
        resp = Some(
            secret_randomness(|| sm2::Responder::respond(&b_key, idb, &a_pub, ida, &ra, 16))
                .unwrap(),
        );
    });
    let (resp, b_out) = resp.unwrap();
    // R_B and S_B are sent to the initiator: public by definition.
    let rb = resp.ephemeral_public();
    public(&rb);
    public(&b_out.confirmation);
    let sb = b_out.confirmation;

    let mut a_out = None;
    run_a(&mut || {
        let r = init.finish(&rb, Some(&sb), 16);
        // Whether S_B matched is the confirmation's public outcome.
        assert!(outcome(&r));
        a_out = Some(r.unwrap());
    });
    let a_out = a_out.unwrap();
    public(&a_out.confirmation); // S_A is sent to the responder
    run_b(&mut || {
        let r = resp.confirm(&a_out.confirmation);
        assert!(outcome(&r)); // the confirmation's outcome is public
    });
    // A wrong confirmation is rejected (its outcome is public), in both roles.
    let mut bad = sb;
    bad[0] ^= 1;
    // The initiator is single use, so a second one checks the wrong S_B (against its own,
    // fresh r_A: the comparison path is the same).
    let mut init2 = None;
    run_a(&mut || {
        init2 = Some(secret_randomness(|| sm2::Initiator::new(&a_key, ida, &b_pub, idb)).unwrap());
    });
    let mut init2 = init2.unwrap();
    public(&init2.ephemeral_public());
    run_a(&mut || assert!(!outcome(&init2.finish(&rb, Some(&bad), 16))));
    run_b(&mut || assert!(!outcome(&resp.confirm(&bad))));
    // The shared keys, for the harness's comparison only.
    public(&a_out.key[..]);
    public(&b_out.key[..]);
    assert_eq!(&a_out.key[..], &b_out.key[..]);
}

fn sm2_kex_initiator() {
    sm2_kex(true)
}

fn sm2_kex_responder() {
    sm2_kex(false)
}

// ---------------------------------------------------------------------------- SM3

/// Lengths that cover the empty message, partial blocks, the padding boundary and the
/// multi-block paths.
const HASH_LENS: [usize; 6] = [0, 3, 55, 64, 119, 64 * 9 + 17];

fn sm3_hash() {
    for &n in &HASH_LENS {
        let m = secret_vec(&bytes(n, 1));
        let d = sm3::hash(&m);
        public(&d); // digest of a secret: released here for the comparison below only
        let mut h = sm3::Sm3::new();
        let (a, b) = m.split_at(n / 3);
        h.update(a);
        h.update(b);
        let d2 = h.finalize();
        public(&d2);
        assert_eq!(d, d2);
    }
}

fn sm3_kdf() {
    // One block at a time (64 B out) and in SIMD lanes (100 and 1000 B out), with Z's tail
    // padded into one block (Z of 64 B) or two (124 B).
    for &(z_len, out_len) in &[(64usize, 64usize), (64, 100), (124, 100), (124, 1000)] {
        let z = secret_vec(&bytes(z_len, 2));
        let k = sm3::kdf::kdf(&z, out_len).unwrap();
        public(&k[..]); // derived key, released for the test's own use only
        assert_eq!(k.len(), out_len);
    }
}

fn pbkdf2_hmac_sm3() {
    // Short and long (hashed) passwords; two output blocks, a few iterations each.
    for &n in &[8usize, 100] {
        let pw = secret_vec(&bytes(n, 3));
        let mut out = [0u8; 40];
        sm3::kdf::pbkdf2_hmac_sm3(&pw, b"public salt", 3, &mut out).unwrap();
        public(&out[..]); // derived key, released for the test's own use only
        assert_ne!(out, [0u8; 40]);
    }
}

fn hmac_sm3() {
    for &n in &[5usize, 64, 100] {
        let key = secret_vec(&bytes(n, 4));
        let msg = secret_vec(&bytes(77, 5));
        let t = sm3::hmac::hmac(&key, &msg);
        public(&t); // the tag is sent with the message: public by definition
        let mut h = sm3::hmac::HmacSm3::new(&key);
        h.update(&msg);
        // The tag comparison's outcome is public by definition.
        let ok = black_box(h.verify(&t));
        public(&ok);
        assert!(ok);
        let mut bad = t;
        bad[31] ^= 0x80;
        let ok = black_box(h.verify(&bad));
        public(&ok); // the tag comparison's outcome is public by definition
        assert!(!ok);
    }
}

// ---------------------------------------------------------------------------- TLCP

/// The CBC record check (MAC-then-encrypt, Lucky 13): secret MAC and SM4 keys, so every
/// decrypted byte (data, MAC, padding) is secret; records of several lengths and
/// paddings, and tampered ones whose padding and MAC fail.
fn tlcp_cbc_record() {
    use guomi_tlcp::record::{ContentType, RecordState};
    let mac_key: [u8; 32] = arr(11);
    let enc_key: [u8; 16] = arr(12);
    secret(&mac_key);
    secret(&enc_key);
    for &n in &[0usize, 1, 15, 16, 47, 300, 1000] {
        let data = bytes(n, 13);
        let (mut tx, mut rx) = (
            RecordState::cbc(&mac_key, &enc_key),
            RecordState::cbc(&mac_key, &enc_key),
        );
        let sent = secret_randomness(|| tx.seal(ContentType::ApplicationData, &data));
        assert!(outcome(&sent));
        let rec = release(&sent.unwrap()); // the record goes on the wire: public
        let got = rx.open(ContentType::ApplicationData, &rec[5..]);
        assert!(outcome(&got)); // accepted or refused: the peer learns it
        let got = got.unwrap();
        public(&got[..]); // harness comparison only, after the check
        assert_eq!(got, data);
        // Tampering with the block before the last garbles the padding and the MAC.
        let mut bad = rec.clone();
        let at = bad.len() - 17;
        bad[at] ^= 0x5a;
        let r = rx.open(ContentType::ApplicationData, &bad[5..]);
        assert!(!outcome(&r));
    }
}

/// The ECC pre-master: SM2 decryption with a secret key, then the length and version
/// check that swaps in a random pre-master without a branch (valid, wrong version, wrong
/// length, undecryptable).
fn tlcp_pre_master() {
    use guomi_tlcp::conn::Connection;
    let pk = sm2_public_key(&SM2_D);
    let key = sm2_secret_key(&SM2_D);
    let mut good = vec![0x01, 0x01];
    good.extend_from_slice(&bytes(46, 7));
    let mut wrong_version = good.clone();
    wrong_version[1] = 0x03;
    for pms in [good.clone(), wrong_version, bytes(47, 8)] {
        let ct = pk.encrypt(&pms, sm2::CiphertextFormat::Der, true).unwrap();
        let out = secret_randomness(|| Connection::decrypt_pre_master_for_ct_check(&key, &ct));
        assert!(outcome(&out));
        let out = out.unwrap();
        public(&out[..]); // harness comparison only, after the check
        assert_eq!(out.len(), 48);
        assert_eq!(out[..] == good[..], pms == good);
    }
    let out = secret_randomness(|| {
        Connection::decrypt_pre_master_for_ct_check(&key, &[0x30, 0x03, 1, 2, 3])
    });
    assert!(outcome(&out));
}

// ---------------------------------------------------------------------------- SM4

const SM4_KEY: [u8; 16] = [
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
];

fn sm4_secret_key() -> [u8; 16] {
    let k = black_box(SM4_KEY);
    secret(&k);
    k
}

/// Lengths for the confidentiality modes: under one block, many blocks (the SIMD
/// paths take 4, 8 or 16 blocks at a time) and a tail.
const MODE_LENS: [usize; 3] = [5, 16 * 17 + 9, 16 * 33];

fn sm4_key_schedule() {
    let k = sm4_secret_key();
    let c = Sm4::new(&k);
    let mut block = arr::<16>(7);
    secret(&block);
    c.encrypt_block(&mut block);
    public(&block); // a ciphertext block is public by definition
    c.decrypt_block(&mut block);
    public(&block); // harness comparison only
    assert_eq!(block, arr::<16>(7));
    let _ = Sm4::from_slice(&k).unwrap();
}

fn sm4_mode(mode: Mode) {
    let key = sm4_secret_key();
    let c = Sm4::new(&key);
    let iv = arr::<16>(9);
    let iv = if mode == Mode::Ecb {
        None
    } else {
        Some(&iv[..])
    };
    for &n in &MODE_LENS {
        let pt = secret_vec(&bytes(n, 11));
        // Block modes get their default PKCS #7 padding; stream modes none.
        let ct = sm4::modes::encrypt(&c, mode, iv, None, &pt).unwrap();
        let ct = release(&ct); // the ciphertext is public by definition
        let back = sm4::modes::decrypt(&c, mode, iv, None, &ct);
        // Padding valid or InvalidPadding, and the plaintext length, are returned to the
        // caller (the length of the unpadded plaintext is public in every CBC/ECB use).
        assert!(outcome(&back));
        let back = back.unwrap();
        public(&back[..]); // harness comparison only
        assert_eq!(back, bytes(n, 11));
    }
}

fn sm4_ecb() {
    sm4_mode(Mode::Ecb)
}
fn sm4_cbc() {
    sm4_mode(Mode::Cbc)
}
fn sm4_ctr() {
    sm4_mode(Mode::Ctr)
}
fn sm4_cfb() {
    sm4_mode(Mode::Cfb)
}
fn sm4_ofb() {
    sm4_mode(Mode::Ofb)
}

/// PKCS #7 unpadding of a secret last block, one call per pad length 1..=16 and for bad
/// padding: the scan over the block must not branch on its bytes.
fn sm4_pkcs7_unpad() {
    let key = sm4_secret_key();
    let c = Sm4::new(&key);
    let iv = arr::<16>(3);
    for n in 16..=32 {
        let pt = secret_vec(&bytes(n, 13));
        let ct = release(&sm4::modes::encrypt(&c, Mode::Cbc, Some(&iv), None, &pt).unwrap());
        let back = sm4::modes::decrypt(&c, Mode::Cbc, Some(&iv), Some(Padding::Pkcs7), &ct);
        assert!(outcome(&back)); // valid/invalid padding is reported to the caller
                                 // The plaintext length is public (declassified with the outcome above).
        assert_eq!(back.unwrap().len(), n);
    }
    // Bad padding: a secret last block whose padding is wrong.
    let raw = secret_vec(&[0x11u8; 32]);
    let ct =
        release(&sm4::modes::encrypt(&c, Mode::Cbc, Some(&iv), Some(Padding::None), &raw).unwrap());
    let back = sm4::modes::decrypt(&c, Mode::Cbc, Some(&iv), Some(Padding::Pkcs7), &ct);
    assert!(!outcome(&back)); // InvalidPadding is reported to the caller
}

fn sm4_xts() {
    let mut k = bytes(32, 21);
    k[16] ^= 0xff; // the two halves must differ
    let k = secret_vec(&k);
    let tweak = arr::<16>(22);
    for std in [xts::Standard::Gb, xts::Standard::Ieee] {
        let x = xts::Sm4Xts::new(&k, std).unwrap();
        for n in [16usize, 16 * 9 + 5, 16 * 20] {
            let pt = secret_vec(&bytes(n, 23));
            let ct = release(&x.encrypt(&tweak, &pt).unwrap()); // ciphertext: public
            let back = x.decrypt(&tweak, &ct).unwrap();
            public(&back[..]); // harness comparison only
            assert_eq!(back, bytes(n, 23));
        }
    }
}

fn sm4_gcm() {
    let key = sm4_secret_key();
    let g = Sm4Gcm::new(&key);
    let nonce = arr::<12>(31);
    for &n in &[0usize, 5, 16 * 17 + 9] {
        // AAD is public in every protocol; the plaintext is secret.
        let aad = bytes(n / 2 + 3, 32);
        let pt = secret_vec(&bytes(n, 33));
        let ct = release(&g.encrypt(&nonce, &aad, &pt).unwrap()); // ciphertext || tag
        let back = g.decrypt(&nonce, &aad, &ct);
        // The tag check's outcome is public by definition.
        assert!(outcome(&back));
        let back = back.unwrap();
        public(&back[..]); // harness comparison only
        assert_eq!(back, bytes(n, 33));
        // A tampered tag: rejected, and the GHASH/tag path does not branch on secrets.
        let mut bad = ct.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(!outcome(&g.decrypt(&nonce, &aad, &bad)));
    }
}

/// Many GCM messages in one call (the column API's kernel): short ones sharing the
/// keystream buffer, one through the fused CTR kernel, one on the one-message path.
fn sm4_gcm_many() {
    use guomi_core::sm4::gcm::GcmRow;
    let key = sm4_secret_key();
    let g = Sm4Gcm::new(&key);
    let lens = [0usize, 5, 16, 100, 16 * 17 + 9, 2100, 16 * 1024 + 3];
    let nonces: Vec<[u8; 12]> = (0..lens.len()).map(|i| arr::<12>(50 + i as u8)).collect();
    let aads: Vec<Vec<u8>> = lens.iter().map(|&n| bytes(n % 37, 51)).collect();
    let pts: Vec<Vec<u8>> = lens.iter().map(|&n| secret_vec(&bytes(n, 52))).collect();
    let mut cts: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0; n + 16]).collect();
    let mut rows: Vec<GcmRow<'_>> = (nonces.iter().zip(&aads).zip(&pts).zip(cts.iter_mut()))
        .map(|(((nonce, aad), pt), out)| GcmRow {
            nonce,
            aad,
            input: pt,
            output: out,
        })
        .collect();
    let res = g.encrypt_many_into(&mut rows);
    drop(rows);
    assert!(res.iter().all(outcome));
    let mut cts: Vec<Vec<u8>> = cts.iter().map(|c| release(c)).collect();
    *cts[3].last_mut().unwrap() ^= 1; // one tampered tag
    let mut outs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0; n]).collect();
    let mut rows: Vec<GcmRow<'_>> = (nonces.iter().zip(&aads).zip(&cts).zip(outs.iter_mut()))
        .map(|(((nonce, aad), ct), out)| GcmRow {
            nonce,
            aad,
            input: ct,
            output: out,
        })
        .collect();
    let res = g.decrypt_many_into(&mut rows);
    drop(rows);
    for (i, r) in res.iter().enumerate() {
        // Each message's tag check outcome is public.
        assert_eq!(outcome(r), i != 3);
        if i != 3 {
            public(&outs[i][..]); // harness comparison only
            assert_eq!(outs[i], bytes(lens[i], 52));
        }
    }
}

/// GCM with a nonce that is not 96 bits: J0 = GHASH(H, nonce) is derived from the key.
fn sm4_gcm_long_nonce() {
    let key = sm4_secret_key();
    let g = Sm4Gcm::new(&key);
    let pt = secret_vec(&bytes(40, 34));
    let ct = release(&g.encrypt(&arr::<20>(35), b"", &pt).unwrap()); // ciphertext || tag
    assert!(outcome(&g.decrypt(&arr::<20>(35), b"", &ct))); // tag outcome: public
}

fn sm4_ccm() {
    let key = sm4_secret_key();
    for tag_len in [4usize, 16] {
        let c = Sm4Ccm::new(&key, tag_len).unwrap();
        let nonce = arr::<12>(41);
        for &n in &[0usize, 5, 16 * 9 + 3] {
            let aad = bytes(n / 3 + 1, 42);
            let pt = secret_vec(&bytes(n, 43));
            let ct = release(&c.encrypt(&nonce, &aad, &pt).unwrap()); // ciphertext || tag
            let back = c.decrypt(&nonce, &aad, &ct);
            assert!(outcome(&back)); // the tag check's outcome is public by definition
            let back = back.unwrap();
            public(&back[..]); // harness comparison only
            assert_eq!(back, bytes(n, 43));
            let mut bad = ct.clone();
            *bad.last_mut().unwrap() ^= 1;
            assert!(!outcome(&c.decrypt(&nonce, &aad, &bad))); // tag outcome: public
        }
    }
}

// ---------------------------------------------------------------------------- ZUC

fn zuc_keystream() {
    let key = secret_vec(&bytes(16, 51));
    let iv = bytes(16, 52);
    let mut z = zuc::Zuc::new(&key, &iv).unwrap();
    let mut ks = vec![0u8; 4 * 70 + 3];
    z.fill(&mut ks);
    let ks = release(&ks); // keystream: released for the comparison below only
    assert_eq!(
        ks[..280],
        zuc::keystream(&bytes(16, 51), &iv, 70).unwrap()[..]
    );
}

fn zuc_eea3() {
    let key = secret_vec(&bytes(16, 53));
    for &n in &[3usize, 100, 4 * 40 + 2] {
        let data = secret_vec(&bytes(n, 54));
        let ct = zuc::eea3(&key, 0x12345678, 0x15, 1, &data, None).unwrap();
        let ct = release(&ct); // ciphertext: public by definition
        let back = zuc::eea3(&key, 0x12345678, 0x15, 1, &ct, None).unwrap();
        public(&back[..]); // harness comparison only
        assert_eq!(back, bytes(n, 54));
        // A bit length that ends inside a byte (the tail is masked).
        let ct = zuc::eea3(&key, 7, 3, 0, &data, Some(8 * n as u64 - 3)).unwrap();
        public(&ct[..]); // ciphertext: public
    }
}

fn zuc_eia3() {
    let key = secret_vec(&bytes(16, 55));
    for &n in &[1usize, 64, 4 * 50 + 1] {
        let data = secret_vec(&bytes(n, 56));
        let mac = zuc::eia3(&key, 0xa94059da, 0x0a, 1, &data, None).unwrap();
        public(&mac); // the MAC is sent with the message: public by definition
        let ok = zuc::eia3::verify(&key, 0xa94059da, 0x0a, 1, &data, &mac, None).unwrap();
        let ok = black_box(ok);
        public(&ok); // the MAC comparison's outcome is public by definition
        assert!(ok);
        let mut bad = mac;
        bad[0] ^= 1;
        let ok =
            black_box(zuc::eia3::verify(&key, 0xa94059da, 0x0a, 1, &data, &bad, None).unwrap());
        public(&ok); // the MAC comparison's outcome is public by definition
        assert!(!ok);
    }
}

fn zuc_many() {
    // 11 packets: a full lane group of every SIMD width up to 8 and single streams, of
    // mixed lengths; each under its own secret key.
    let keys: Vec<Vec<u8>> = (0..11u8).map(|i| secret_vec(&bytes(16, 60 + i))).collect();
    let data: Vec<Vec<u8>> = (0..11usize)
        .map(|i| secret_vec(&bytes(40 + 37 * i, 80 + i as u8)))
        .collect();
    let items: Vec<zuc::many::Item<'_>> = keys
        .iter()
        .zip(&data)
        .enumerate()
        .map(|(i, (k, d))| (&k[..], i as u32, 3, 1, &d[..]))
        .collect();
    let cts = zuc::many::eea3_many(&items, None).unwrap();
    let macs = zuc::many::eia3_many(&items, None).unwrap();
    for (i, (ct, mac)) in cts.iter().zip(&macs).enumerate() {
        public(&ct[..]); // ciphertext: public by definition
        public(&mac[..]); // the MAC is sent with the message: public by definition
                          // The one-packet outputs, public too, for the comparison.
        let (k, c, b, d, m) = items[i];
        assert_eq!(
            ct[..],
            release(&zuc::eea3(k, c, b, d, m, None).unwrap())[..]
        );
        assert_eq!(
            mac[..],
            release(&zuc::eia3(k, c, b, d, m, None).unwrap())[..]
        );
    }
}

fn zuc256_iv() -> Vec<u8> {
    // The 25-byte form: bytes 17..24 are 6-bit values.
    let mut iv = bytes(25, 61);
    for b in &mut iv[17..] {
        *b &= 0x3f;
    }
    iv
}

fn zuc256_keystream() {
    let key = secret_vec(&bytes(32, 62));
    let iv = zuc256_iv();
    let ks = zuc::zuc256::keystream(&key, &iv, 70).unwrap();
    public(&ks[..]); // keystream: released for the length check only
    assert_eq!(ks.len(), 280);
}

fn zuc256_mac() {
    let key = secret_vec(&bytes(32, 63));
    let iv = zuc256_iv();
    let data = secret_vec(&bytes(150, 64));
    for bits in [32u32, 64, 128] {
        let tag = zuc::zuc256::mac(&key, &iv, &data, bits, None).unwrap();
        let tag = release(&tag); // the tag is public by definition
        let ok = black_box(zuc::zuc256::mac_verify(&key, &iv, &data, &tag, bits, None).unwrap());
        public(&ok); // the tag comparison's outcome is public by definition
        assert!(ok);
        let mut bad = tag.clone();
        bad[0] ^= 1;
        let ok = black_box(zuc::zuc256::mac_verify(&key, &iv, &data, &bad, bits, None).unwrap());
        public(&ok); // the tag comparison's outcome is public by definition
        assert!(!ok);
    }
}

// ---------------------------------------------------------------------------- SM9

const SM9_ID: &[u8] = b"Bob";

/// A signing user key in bytes, and its master public key (set-up, not secret).
fn sm9_sign_material() -> ([u8; 65], sm9::SignMasterPublicKey) {
    let master = sm9::SignMasterKey::from_bytes(&arr::<32>(71)).unwrap();
    let user = master.extract(SM9_ID).unwrap();
    (*user.to_bytes(), master.public_key())
}

fn sm9_enc_material() -> ([u8; 129], sm9::EncMasterPublicKey) {
    let master = sm9::EncMasterKey::from_bytes(&arr::<32>(72)).unwrap();
    let user = master.extract(SM9_ID, sm9::keys::HID_ENCRYPT).unwrap();
    (*user.to_bytes(), master.public_key())
}

fn sm9_sign_key_load() {
    let (b, mpk) = quietly(sm9_sign_material);
    let b = secret_vec(&b);
    let k = sm9::SignUserKey::from_bytes(&b, SM9_ID, &mpk);
    // Whether the bytes are this ID's key is the call's public outcome.
    assert!(outcome(&k));
}

fn sm9_enc_key_load() {
    let (b, mpk) = quietly(sm9_enc_material);
    let b = secret_vec(&b);
    let k = sm9::EncUserKey::from_bytes(&b, SM9_ID, sm9::keys::HID_ENCRYPT, &mpk);
    assert!(outcome(&k)); // key valid or not: the call's public outcome
}

fn sm9_sign() {
    let (b, mpk) = quietly(sm9_sign_material);
    let key = quietly(|| {
        let b = secret_vec(&b);
        sm9::SignUserKey::from_bytes(&b, SM9_ID, &mpk).unwrap()
    });
    let sig = secret_randomness(|| key.sign(b"sm9 message")).unwrap();
    let raw = release(&sig.to_raw()); // the signature is public by definition
    let sig = sm9::Signature::from_raw(&raw).unwrap();
    assert!(mpk.verify(&sig, b"sm9 message", SM9_ID));
}

fn sm9_decrypt() {
    let (b, mpk) = quietly(sm9_enc_material);
    let key = quietly(|| {
        let b = secret_vec(&b);
        sm9::EncUserKey::from_bytes(&b, SM9_ID, sm9::keys::HID_ENCRYPT, &mpk).unwrap()
    });
    let ct = mpk.encrypt(&bytes(40, 73), SM9_ID).unwrap();
    let m = key.decrypt(&ct);
    assert!(outcome(&m)); // success or DecryptionFailed is returned to the caller
    let m = m.unwrap();
    public(&m[..]); // harness comparison only
    assert_eq!(&m[..], &bytes(40, 73)[..]);
    let mut bad = ct.clone();
    bad.c3[0] ^= 1;
    assert!(!outcome(&key.decrypt(&bad))); // the C3 check's outcome is public
}

fn sm9_decapsulate() {
    let (b, mpk) = quietly(sm9_enc_material);
    let key = quietly(|| {
        let b = secret_vec(&b);
        sm9::EncUserKey::from_bytes(&b, SM9_ID, sm9::keys::HID_ENCRYPT, &mpk).unwrap()
    });
    let (k, c) = mpk.encapsulate(SM9_ID, 32).unwrap();
    let k2 = key.decapsulate(&c, 32);
    assert!(outcome(&k2)); // success/failure is the call's public outcome
    let k2 = k2.unwrap();
    public(&k2[..]); // harness comparison only
    assert_eq!(&k[..], &k2[..]);
}

/// SM9 key exchange, both roles: secret de_A, de_B and the hedged r_A, r_B; the GT
/// exponentiations g^r (fixed-base table and the Frobenius-split two-base ladder).
fn sm9_kex() {
    use sm9::keys::HID_EXCHANGE;
    let (a_b, b_b, mpk) = quietly(|| {
        let master = sm9::EncMasterKey::from_bytes(&arr::<32>(74)).unwrap();
        let a = master.extract(b"Alice", HID_EXCHANGE).unwrap();
        let b = master.extract(SM9_ID, HID_EXCHANGE).unwrap();
        (*a.to_bytes(), *b.to_bytes(), master.public_key())
    });
    let load = |b: &[u8; 129], id: &[u8]| {
        quietly(|| {
            let b = secret_vec(b);
            std::sync::Arc::new(sm9::EncUserKey::from_bytes(&b, id, HID_EXCHANGE, &mpk).unwrap())
        })
    };
    let (a_key, b_key) = (load(&a_b, b"Alice"), load(&b_b, SM9_ID));
    let mut a = secret_randomness(|| sm9::KeyExchange::new(a_key, SM9_ID, true)).unwrap();
    let ra = a.ephemeral();
    public(&ra); // R_A is sent to the responder
    let mut b = secret_randomness(|| sm9::KeyExchange::new(b_key, b"Alice", false)).unwrap();
    let rb = b.ephemeral();
    public(&rb); // R_B is sent to the initiator
    let r = b.respond(&ra, 16);
    assert!(outcome(&r)); // a bad R_A would be an error returned to the caller
    let (skb, sb) = r.unwrap();
    public(&sb); // S_B is sent to the initiator
    let r = a.finish(&rb, 16, Some(&sb));
    assert!(outcome(&r)); // whether S_B matched is the confirmation's public outcome
    let (ska, sa) = r.unwrap();
    public(&sa); // S_A is sent to the responder
    assert!(outcome(&b.confirm(&sa)));
    let mut bad = sa;
    bad[0] ^= 1;
    assert!(!outcome(&b.confirm(&bad)));
    // The shared keys, for the harness's comparison only.
    public(&ska[..]);
    public(&skb[..]);
    assert_eq!(&ska[..], &skb[..]);
}

// ---------------------------------------------------------------------------- inversion

/// Test values for the field inversions: 0 (whose inverse is defined as 0), 1, 2, the
/// all-ones and 2^255 patterns (reduced mod m by the callee) and two mixed values.
fn inversion_inputs() -> Vec<[u8; 32]> {
    let mut top = [0u8; 32];
    top[0] = 0x80;
    let mut two = [0u8; 32];
    two[31] = 2;
    let mut one = [0u8; 32];
    one[31] = 1;
    vec![[0; 32], one, two, [0xff; 32], top, arr(7), arr(200)]
}

fn modinv() {
    use guomi_core::sm9::bn256::fp::{Fn as Sm9Fn, Fp as Sm9Fp};
    let mut outputs = Vec::new();
    for x in inversion_inputs() {
        let s: [u8; 32] = secret_vec(&x).try_into().unwrap();
        let ip = sm2::hazmat::invert_for_testing("p", &s);
        let in_ = sm2::hazmat::invert_for_testing("n", &s);
        let jp = Sm9Fp::from_be_bytes_reduce(&s).invert().to_be_bytes();
        let jn = Sm9Fn::from_be_bytes_reduce(&s).invert().to_be_bytes();
        // Released after the inversions, for the harness's checks below only.
        for r in [ip, in_, jp, jn] {
            outputs.push(release(&r));
        }
    }
    // Each inverse inverts back to the input mod m (so real inversions ran), and for
    // SM9 a·a^-1 = 1 (0 for a = 0).
    for (i, x) in inversion_inputs().iter().enumerate() {
        let o: Vec<[u8; 32]> = outputs[4 * i..4 * i + 4]
            .iter()
            .map(|v| v.as_slice().try_into().unwrap())
            .collect();
        assert_eq!(
            sm2::hazmat::invert_for_testing("p", &o[0]),
            reduce_once(x, &SM2_P)
        );
        assert_eq!(
            sm2::hazmat::invert_for_testing("n", &o[1]),
            reduce_once(x, &SM2_N)
        );
        let (a, b) = (
            Sm9Fp::from_be_bytes_reduce(x),
            Sm9Fn::from_be_bytes_reduce(x),
        );
        let (ai, bi) = (
            Sm9Fp::from_be_bytes_reduce(&o[2]),
            Sm9Fn::from_be_bytes_reduce(&o[3]),
        );
        let zero = x.iter().all(|&b| b == 0);
        assert_eq!(a.mul(&ai), if zero { Sm9Fp::ZERO } else { Sm9Fp::ONE });
        assert_eq!(b.mul(&bi), if zero { Sm9Fn::ZERO } else { Sm9Fn::ONE });
        assert_eq!(ai.invert(), a);
    }
}

/// sm2p256v1's p and n, big-endian (GB/T 32918.5-2017 §5).
const SM2_P: [u8; 32] = [
    0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
];
const SM2_N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x72, 0x03, 0xdf, 0x6b, 0x21, 0xc6, 0x05, 0x2b, 0x53, 0xbb, 0xf4, 0x09, 0x39, 0xd5, 0x41, 0x23,
];

/// x mod m for x < 2m (public values only: variable time).
fn reduce_once(x: &[u8; 32], m: &[u8; 32]) -> [u8; 32] {
    if x < m {
        return *x;
    }
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = x[i] as i16 - m[i] as i16 - borrow;
        borrow = (d < 0) as i16;
        out[i] = d.rem_euclid(256) as u8;
    }
    out
}

// ---------------------------------------------------------------------------- list

macro_rules! check {
    ($name:literal, $f:ident, $covers:literal, $declass:literal) => {
        Check {
            name: $name,
            covers: $covers,
            declassifies: $declass,
            run: $f,
        }
    };
}

/// Every check, in the order the script runs them.
pub const CHECKS: &[Check] = &[
    check!("sm2-keygen", sm2_keygen,
        "PrivateKey::generate with secret OS randomness; public-key derivation",
        "the public key; the accept/reject outcome of rejection sampling"),
    check!("sm2-from-bytes", sm2_from_bytes,
        "PrivateKey::from_bytes of secret bytes: range check [1, n-2], d·G, to_bytes",
        "valid/invalid (returned to the caller); the public key"),
    check!("sm2-sign", sm2_sign,
        "sign_digest and sign with a secret d and secret nonce randomness",
        "the signature (r, s); the retry outcome (r = 0, r + k = n, s = 0)"),
    check!("sm2-encrypt", sm2_encrypt,
        "encrypt of a secret message with a secret k",
        "the ciphertext; k's rejection-sampling and retry outcomes"),
    check!("sm2-decrypt", sm2_decrypt,
        "decrypt (C1C3C2) with a secret d, good and tampered C3",
        "success or DecryptionFailed"),
    check!("sm2-decapsulate", sm2_decapsulate,
        "KEM decapsulation with a secret d",
        "success or DecryptionFailed"),
    check!("sm2-ecdh", sm2_ecdh,
        "ecdh (shared x-coordinate) with a secret d",
        "success or failure (infinity)"),
    check!("sm2-kex-initiator", sm2_kex_initiator,
        "key exchange, initiator: secret d_A and r_A; finish with good and bad S_B",
        "R_A, S_A (sent to the peer); the S_B check's outcome"),
    check!("sm2-kex-responder", sm2_kex_responder,
        "key exchange, responder: secret d_B and r_B; confirm with good and bad S_A",
        "R_B, S_B (sent to the peer); the S_A check's outcome"),
    check!("modinv", modinv,
        "the constant-time field inversion (safegcd) of secret values mod SM2 p and n and SM9 p and N, 0 included",
        "the inverses, after the inversions (for the harness's round-trip check)"),
    check!("sm3-hash", sm3_hash,
        "SM3 of secret messages (0 to 593 bytes), one-shot and streaming",
        "nothing during hashing (digests after, for comparison)"),
    check!("sm3-kdf", sm3_kdf,
        "the GM/T 0003 KDF of a secret Z",
        "nothing during the KDF"),
    check!("pbkdf2-hmac-sm3", pbkdf2_hmac_sm3,
        "PBKDF2-HMAC-SM3 of a secret password (public salt and iteration count)",
        "nothing during the derivation"),
    check!("hmac-sm3", hmac_sm3,
        "HMAC-SM3 with secret keys (short, block-sized, long) and message; verify",
        "the tag; the tag comparison's outcome"),
    check!("tlcp-cbc-record", tlcp_cbc_record,
        "TLCP CBC records with secret keys: sealing, and the check (Lucky 13) with every decrypted byte secret; valid and tampered records",
        "the record sent; accepted or refused, and an accepted record's length"),
    check!("tlcp-pre-master", tlcp_pre_master,
        "TLCP ECC pre-master: SM2 decryption with a secret key, the length/version check and the random substitute",
        "decrypted or not (SM2's tag check); nothing about the version check"),
    check!("sm4-key-schedule", sm4_key_schedule,
        "SM4 key expansion of a secret key; one block each way",
        "the ciphertext block"),
    check!("sm4-ecb", sm4_ecb,
        "ECB with PKCS #7, secret key and plaintext, encrypt and decrypt",
        "the ciphertext; padding valid/invalid and the plaintext length"),
    check!("sm4-cbc", sm4_cbc,
        "CBC with PKCS #7, secret key and plaintext, encrypt and decrypt",
        "the ciphertext; padding valid/invalid and the plaintext length"),
    check!("sm4-ctr", sm4_ctr,
        "CTR, secret key and plaintext, encrypt and decrypt",
        "the ciphertext"),
    check!("sm4-cfb", sm4_cfb,
        "CFB128, secret key and plaintext, encrypt and decrypt",
        "the ciphertext"),
    check!("sm4-ofb", sm4_ofb,
        "OFB, secret key and plaintext, encrypt and decrypt",
        "the ciphertext"),
    check!("sm4-pkcs7-unpad", sm4_pkcs7_unpad,
        "CBC decryption with PKCS #7 unpadding of a secret last block, every pad length and a bad pad",
        "padding valid/invalid and the plaintext length"),
    check!("sm4-xts", sm4_xts,
        "XTS (GB and IEEE tweaks), secret key and data, with ciphertext stealing",
        "the ciphertext"),
    check!("sm4-gcm", sm4_gcm,
        "GCM, 96-bit nonce: secret key (so secret H) and plaintext, GHASH, tag check good and bad",
        "ciphertext and tag; the tag check's outcome"),
    check!("sm4-gcm-many", sm4_gcm_many,
        "GCM over many messages at once (the column kernel): secret key and plaintexts, shared keystream buffer, fused CTR, one tampered tag",
        "ciphertexts and tags; each message's tag check outcome"),
    check!("sm4-gcm-long-nonce", sm4_gcm_long_nonce,
        "GCM with a 160-bit nonce: J0 = GHASH(H, nonce) is secret, so is every counter block",
        "ciphertext and tag; the tag check's outcome"),
    check!("sm4-ccm", sm4_ccm,
        "CCM (4- and 16-byte tags): secret key and plaintext, tag check good and bad",
        "ciphertext and tag; the tag check's outcome"),
    check!("zuc-keystream", zuc_keystream,
        "ZUC-128 initialisation and keystream with a secret key",
        "nothing during the run (the keystream after, for comparison)"),
    check!("zuc-eea3", zuc_eea3,
        "128-EEA3 with a secret key and data (whole and partial last byte)",
        "the ciphertext"),
    check!("zuc-eia3", zuc_eia3,
        "128-EIA3 MAC and verify with a secret key and data",
        "the MAC; the MAC comparison's outcome"),
    check!("zuc-many", zuc_many,
        "eea3_many / eia3_many (the lane kernels) with secret keys and data",
        "the ciphertexts and MACs"),
    check!("zuc256-keystream", zuc256_keystream,
        "ZUC-256 initialisation and keystream with a secret key",
        "nothing during the run"),
    check!("zuc256-mac", zuc256_mac,
        "ZUC-256 MAC (32/64/128-bit) and verify with a secret key and data",
        "the tag; the tag comparison's outcome"),
    check!("sm9-sign-key-load", sm9_sign_key_load,
        "SignUserKey::from_bytes of a secret ds_A (on-curve and pairing check)",
        "valid/invalid (returned to the caller)"),
    check!("sm9-enc-key-load", sm9_enc_key_load,
        "EncUserKey::from_bytes of a secret de_B (twist, subgroup and pairing checks)",
        "valid/invalid (returned to the caller)"),
    check!("sm9-sign", sm9_sign,
        "SM9 signing with a secret ds_A and secret r",
        "the signature (h, S); r's rejection-sampling and retry outcomes"),
    check!("sm9-decrypt", sm9_decrypt,
        "SM9 decryption with a secret de_B, good and tampered C3",
        "success or DecryptionFailed"),
    check!("sm9-decapsulate", sm9_decapsulate,
        "SM9 KEM decapsulation with a secret de_B",
        "success or DecryptionFailed"),
    check!("sm9-kex", sm9_kex,
        "SM9 key exchange, both roles: secret de_A, de_B, r_A, r_B; confirm good and bad S_A",
        "R_A, R_B, S_B, S_A (sent to the peer); the confirmations' outcomes"),
];

/// The deliberately leaky functions of the self-test: memcheck must flag both.
pub mod planted {
    use super::{black_box, secret};

    /// A branch on a secret byte.
    #[inline(never)]
    pub fn branch() -> u32 {
        let s = black_box([0x5au8; 1]);
        secret(&s);
        if black_box(s[0]) & 1 == 1 {
            black_box(1)
        } else {
            black_box(2)
        }
    }

    /// A table load at a secret index (what a table-based S-box does).
    #[inline(never)]
    pub fn table() -> u8 {
        static SBOX: [u8; 256] = {
            let mut t = [0u8; 256];
            let mut i = 0;
            while i < 256 {
                t[i] = (i as u8).wrapping_mul(7) ^ 0x63;
                i += 1;
            }
            t
        };
        let s = black_box([0x5au8; 1]);
        secret(&s);
        let v = SBOX[black_box(s[0]) as usize];
        super::public(&v); // the loaded value is declassified: only the address can leak
        v
    }
}
