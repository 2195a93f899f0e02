//! Streaming == one-shot, with input-chosen chunking. Layout: selector, split sizes (u8
//! length), then per selector:
//!
//! 0 SM3: message. 1 HMAC-SM3: key (u8 length), message.
//! 2 SM4 ECB/CBC/CTR/CFB/OFB: mode/padding byte, key[16], iv[16], data (encrypted with
//!   the streaming encryptor and decrypted as a ciphertext by the streaming decryptor).
//! 3 SM4-GCM: key[16], nonce (u8 length), aad (u8 length), data.
//! 4 SM4-CCM and 5 SM4-XTS (no streaming API: one-shot == in-place == into-buffer, round
//!   trip). 6 ZUC keystream: key[16], iv[16], byte-wise/word-wise/one-shot.
//!
//! Invariants: every chunking gives the one-shot answer (output and errors); round trips;
//! HMAC tags of another length do not verify (design rule: the verifier's tag length is
//! fixed, never taken from the tag).
#![no_main]

use guomi_core::sm3::{self, hmac::HmacSm3, Sm3};
use guomi_core::sm4::{
    ccm::Sm4Ccm,
    gcm::Sm4Gcm,
    modes::{self, Decryptor, Encryptor, Mode, Padding},
    xts::{Sm4Xts, Standard},
    Sm4,
};
use guomi_core::zuc::{self, Zuc};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

const MODES: [Mode; 5] = [Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Cfb, Mode::Ofb];
const PADS: [Option<Padding>; 5] = [
    None,
    Some(Padding::Pkcs7),
    Some(Padding::None),
    Some(Padding::Iso7816),
    Some(Padding::Zero),
];

fn sm3_diff(splits: &[u8], data: &[u8]) {
    let one = sm3::hash(data);
    let mut h = Sm3::new();
    for (i, p) in chunks(data, splits).into_iter().enumerate() {
        h.update(p);
        if i % 3 == 1 {
            // A digest in the middle does not disturb the stream.
            let _ = h.digest();
        }
    }
    assert_eq!(h.digest(), one);
    assert_eq!(h.finalize(), one);
}

fn hmac_diff(splits: &[u8], c: &mut Cursor) {
    let key = c.bytes8();
    let data = c.rest();
    // Keys longer than a block are hashed: exercise those too by repeating the key.
    let long: Vec<u8> = key.iter().cycle().take(key.len() * 3).copied().collect();
    for k in [key, &long[..]] {
        let one = sm3::hmac::hmac(k, data);
        let mut h = HmacSm3::new(k);
        for p in chunks(data, splits) {
            h.update(p);
        }
        assert_eq!(h.tag(), one);
        assert!(h.verify(&one));
        let mut bad = one;
        bad[31] ^= 1;
        assert!(!h.verify(&bad));
        // verify() checks the full 32-byte tag: a truncated tag is refused.
        assert!(!h.verify(&one[..16]), "truncated HMAC tag accepted");
        assert_eq!(h.finalize(), one);
    }
}

fn run_stream(
    mut update: impl FnMut(&[u8], &mut Vec<u8>) -> guomi_core::Result<()>,
    finalize: impl FnOnce() -> guomi_core::Result<Vec<u8>>,
    data: &[u8],
    splits: &[u8],
) -> guomi_core::Result<Vec<u8>> {
    let mut out = Vec::new();
    for p in chunks(data, splits) {
        update(p, &mut out)?;
    }
    out.extend(finalize()?);
    Ok(out)
}

fn modes_diff(splits: &[u8], c: &mut Cursor) {
    let sel = c.u8();
    let mode = MODES[(sel % 5) as usize];
    let pad = PADS[((sel / 5) % 5) as usize];
    let key: [u8; 16] = c.array();
    let iv: [u8; 16] = c.array();
    let data = c.rest();
    let sm4 = Sm4::new(&key);
    let iv = (mode != Mode::Ecb).then_some(&iv[..]);

    let one = modes::encrypt(&sm4, mode, iv, pad, data);
    let streamed = Encryptor::new(&sm4, mode, iv, pad).and_then(|e| {
        let e = std::cell::RefCell::new(e);
        run_stream(
            |p, out| {
                let mut e = e.borrow_mut();
                if p.len().is_multiple_of(2) {
                    e.update_into(p, out)
                } else {
                    let n = e.update_len(p.len());
                    assert!(n <= e.max_update_len(p.len()));
                    let s = out.len();
                    out.resize(s + n, 0);
                    e.update_to(p, &mut out[s..])
                }
            },
            || e.borrow_mut().finalize(),
            data,
            splits,
        )
    });
    assert_eq!(one, streamed, "encrypt {mode:?} {pad:?}");
    if let Ok(ct) = &one {
        let back = modes::decrypt(&sm4, mode, iv, pad, ct).unwrap();
        let zero_loss = pad == Some(Padding::Zero) && data.last() == Some(&0);
        if !zero_loss {
            assert_eq!(back, data, "round trip {mode:?} {pad:?}");
        }
    }
    // The data as a ciphertext (garbage padding included): both paths agree.
    let one = modes::decrypt(&sm4, mode, iv, pad, data);
    let streamed = Decryptor::new(&sm4, mode, iv, pad).and_then(|d| {
        let d = std::cell::RefCell::new(d);
        run_stream(
            |p, out| d.borrow_mut().update_into(p, out),
            || d.borrow_mut().finalize(),
            data,
            splits,
        )
    });
    match (&one, &streamed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "decrypt {mode:?} {pad:?}"),
        (Err(a), Err(b)) => assert_eq!(a, b, "decrypt errors {mode:?} {pad:?}"),
        _ => panic!("decrypt {mode:?} {pad:?}: one-shot {one:?} vs streaming {streamed:?}"),
    }
}

fn gcm_diff(splits: &[u8], c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let nonce = c.bytes8();
    let aad = c.bytes8();
    let data = c.rest();
    let g = Sm4Gcm::new(&key);
    let one = g.encrypt(nonce, aad, data);
    let streamed = g.encryptor(nonce, aad).and_then(|mut e| {
        let mut out = Vec::new();
        for p in chunks(data, splits) {
            e.update_into(p, &mut out)?;
        }
        out.extend(e.finalize()?);
        Ok(out)
    });
    assert_eq!(one, streamed);
    let Ok(ct) = one else { return };
    let (body, tag) = ct.split_at(data.len());
    let mut d = g.decryptor(nonce, aad, tag).unwrap();
    for p in chunks(body, splits) {
        assert!(d.update(p).unwrap().is_empty());
    }
    assert_eq!(d.finalize().unwrap(), data);
    assert_eq!(g.decrypt(nonce, aad, &ct).unwrap(), data);
}

fn ccm_diff(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let tl = 4 + 2 * (c.u8() as usize % 7);
    let nonce = c.bytes8();
    let aad = c.bytes8();
    let data = c.rest();
    let m = Sm4Ccm::new(&key, tl).unwrap();
    let one = m.encrypt(nonce, aad, data);
    let mut out = vec![0u8; data.len() + tl];
    let into = m
        .encrypt_into(nonce, aad, data, &mut out)
        .map(|_| out.clone());
    assert_eq!(one, into);
    if let Ok(ct) = one {
        assert_eq!(ct.len(), data.len() + tl);
        assert_eq!(m.decrypt(nonce, aad, &ct).unwrap(), data);
        let mut buf = ct.clone();
        let n = m.decrypt_in_place(nonce, aad, &mut buf).unwrap();
        assert_eq!(&buf[..n], data);
    }
}

fn xts_diff(c: &mut Cursor) {
    let std = if c.u8() & 1 == 0 {
        Standard::Gb
    } else {
        Standard::Ieee
    };
    let key: [u8; 32] = c.array();
    let tweak: [u8; 16] = c.array();
    let data = c.rest();
    let Ok(x) = Sm4Xts::new(&key, std) else {
        // Equal halves are refused (GB/T 17964 / IEEE 1619 key check).
        assert_eq!(key[..16], key[16..]);
        return;
    };
    let one = x.encrypt(&tweak, data);
    let mut buf = data.to_vec();
    let inplace = x
        .crypt_in_place(&tweak, &mut buf, false)
        .map(|()| buf.clone());
    assert_eq!(one, inplace);
    assert_eq!(guomi_core::sm4::xts::encrypt(&key, &tweak, data, std), one);
    match one {
        Ok(ct) => {
            assert_eq!(ct.len(), data.len());
            assert_eq!(x.decrypt(&tweak, &ct).unwrap(), data);
        }
        Err(_) => assert!(data.len() < 16, "XTS refused {} bytes", data.len()),
    }
}

fn zuc_diff(splits: &[u8], c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let iv: [u8; 16] = c.array();
    let n = c.u16() as usize % 2048;
    let words = n.div_ceil(4);
    let one = zuc::keystream(&key, &iv, words).unwrap();
    assert_eq!(one.len(), 4 * words);
    let mut z = Zuc::new(&key, &iv).unwrap();
    let mut bytes = vec![0u8; n];
    let mut at = 0;
    for p in chunks(&one[..n], splits) {
        z.fill(&mut bytes[at..at + p.len()]);
        at += p.len();
    }
    assert_eq!(bytes, one[..n]);
    // Word-wise after byte-wise continues the same stream.
    let mut z = Zuc::new(&key, &iv).unwrap();
    let mut head = vec![0u8; n % 7];
    z.fill(&mut head);
    let mut w = vec![0u32; 3];
    z.words(&mut w);
    let mut expect = one.clone();
    expect.extend(zuc::keystream(&key, &iv, words + 8).unwrap()[4 * words..].iter());
    let wb: Vec<u8> = w.iter().flat_map(|x| x.to_be_bytes()).collect();
    assert_eq!(&head[..], &expect[..head.len()]);
    assert_eq!(&wb[..], &expect[head.len()..head.len() + 12]);
    // XOR-ing in chunks equals XOR-ing at once.
    let mut z1 = Zuc::new(&key, &iv).unwrap();
    let mut a = one[..n].to_vec();
    z1.apply_keystream(&mut a);
    assert!(a.iter().all(|&b| b == 0));
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let splits = c.bytes8();
    match sel % 7 {
        0 => sm3_diff(splits, c.rest()),
        1 => hmac_diff(splits, &mut c),
        2 => modes_diff(splits, &mut c),
        3 => gcm_diff(splits, &mut c),
        4 => ccm_diff(&mut c),
        5 => xts_diff(&mut c),
        _ => zuc_diff(splits, &mut c),
    }
});
