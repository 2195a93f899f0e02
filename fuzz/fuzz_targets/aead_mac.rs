//! Authenticated decryption and MAC verification.
//!
//! 0 SM4-GCM: key[16], nonce (u8 length), aad (u8 length), tag-length selector, split
//!   sizes (u8 length), ciphertext || tag.
//! 1 SM4-CCM: key[16], tag length, nonce (u8 length), aad (u8 length), ciphertext || tag.
//! 2 ZUC 128-EIA3: key[16], count u32, bearer, direction, bit-length flag, u16 bit
//!   length, MAC (u8 length), message.
//! 3 ZUC-256 MAC: key (u8 length), IV (u8 length), bit-length flag, u16, tag (u8
//!   length), message.
//!
//! Invariants: one-shot, in-place, into-buffer and streaming (buffered, tag at the end,
//! unbuffered) decryption agree; whatever decrypts re-encrypts to the input (so a forged
//! tag is a real forgery); a verifier says yes exactly when the MAC recomputes.
//! Design rule: a verifier's tag length is fixed by the caller, never taken from the tag.
#![no_main]

use guomi_core::sm4::{ccm::Sm4Ccm, gcm::Sm4Gcm};
use guomi_core::zuc::{self, zuc256};
use guomi_core::Error;
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

const GCM_TAG_LENS: [usize; 8] = [16, 15, 14, 13, 12, 8, 4, 16];

fn gcm(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let nonce = c.bytes8();
    let aad = c.bytes8();
    let ts = c.u8();
    let tl = if ts & 0x80 != 0 {
        (ts & 0x1f) as usize
    } else {
        GCM_TAG_LENS[(ts & 7) as usize]
    };
    let splits = c.bytes8();
    let data = c.rest();
    let g = Sm4Gcm::new(&key);
    let r1 = g.decrypt_with_tag_len(nonce, aad, data, tl);
    let mut buf = data.to_vec();
    let r2 = g
        .decrypt_in_place(nonce, aad, &mut buf, tl)
        .map(|n| buf[..n].to_vec());
    let mut out = vec![0u8; data.len().saturating_sub(tl)];
    let r3 = g
        .decrypt_into(nonce, aad, data, tl, &mut out)
        .map(|()| out.clone());
    assert_eq!(r1, r2);
    assert_eq!(r1, r3);
    if tl == 16 {
        assert_eq!(g.decrypt(nonce, aad, data), r1);
    }
    if let Ok(pt) = &r1 {
        let full = g.encrypt(nonce, aad, pt).unwrap();
        assert_eq!(full[..pt.len()], data[..pt.len()]);
        assert_eq!(
            full[pt.len()..pt.len() + tl],
            data[pt.len()..],
            "accepted tag is not the tag"
        );
    }
    if data.len() < tl {
        assert!(r1.is_err());
        return;
    }
    let (ct, tag) = data.split_at(data.len() - tl);
    // Buffered decryptor, tag up front.
    // Every streaming decryptor is told the tag length (the caller's, never the tag's).
    let s1 = g
        .decryptor_with_tag_len(nonce, aad, tag, tl)
        .and_then(|mut d| {
            let mut out = Vec::new();
            for p in chunks(ct, splits) {
                d.update_into(p, &mut out)?;
            }
            assert!(
                out.is_empty(),
                "buffered decryptor released plaintext early"
            );
            d.finalize()
        });
    // Tag at the end.
    let s2 = g
        .decryptor_with_tag_len(nonce, aad, &[], tl)
        .and_then(|mut d| {
            let mut out = Vec::new();
            for p in chunks(ct, splits) {
                out.extend(d.update(p)?);
            }
            out.extend(d.finalize_with_tag(tag)?);
            Ok(out)
        });
    // Unbuffered: the caller discards the output when finalize fails.
    let s3 = guomi_core::sm4::gcm::GcmDecryptor::with_options(&g, nonce, aad, tag, tl, false)
        .and_then(|mut d| {
            let mut out = Vec::new();
            for p in chunks(ct, splits) {
                let n = d.update_len(p.len());
                let start = out.len();
                out.resize(start + n, 0);
                d.update_to(p, &mut out[start..])?;
            }
            out.extend(d.finalize()?);
            Ok(out)
        });
    for (name, s) in [("buffered", &s1), ("tag-at-end", &s2), ("unbuffered", &s3)] {
        match (&r1, s) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{name}: one-shot {a:?} vs streaming {b:?}"),
        }
    }
    // An empty tag never authenticates anything.
    if let Ok(mut d) = g.decryptor(nonce, aad, &[]) {
        let _ = d.update(ct);
        assert!(
            d.finalize().is_err(),
            "decryptor without a tag accepted the message"
        );
    }
}

fn ccm(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let tl = c.u8() as usize % 20;
    let nonce = c.bytes8();
    let aad = c.bytes8();
    let data = c.rest();
    let Ok(m) = Sm4Ccm::new(&key, tl) else {
        assert!(
            !(4..=16).contains(&tl) || tl % 2 == 1,
            "tag length {tl} refused"
        );
        return;
    };
    assert_eq!(m.tag_len(), tl);
    let r1 = m.decrypt(nonce, aad, data);
    let mut buf = data.to_vec();
    let r2 = m
        .decrypt_in_place(nonce, aad, &mut buf)
        .map(|n| buf[..n].to_vec());
    let mut out = vec![0u8; data.len().saturating_sub(tl)];
    let r3 = m
        .decrypt_into(nonce, aad, data, &mut out)
        .map(|()| out.clone());
    assert_eq!(r1, r2);
    assert_eq!(r1, r3);
    if let Ok(pt) = &r1 {
        assert_eq!(
            m.encrypt(nonce, aad, pt).unwrap(),
            data,
            "accepted CCM input is not an encryption"
        );
    }
    // Round trip and tamper on the same parameters.
    if let Ok(ct) = m.encrypt(nonce, aad, data) {
        assert_eq!(m.decrypt(nonce, aad, &ct).unwrap(), data);
        let mut bad = ct.clone();
        let i = data.len() % bad.len();
        bad[i] ^= 0x10;
        assert_eq!(m.decrypt(nonce, aad, &bad), Err(Error::InvalidTag));
        assert!(m.decrypt(nonce, aad, &ct[..ct.len() - 1]).is_err());
    }
}

fn length(c: &mut Cursor) -> Option<u64> {
    let f = c.u8();
    let l = c.u16() as u64;
    (f & 1 == 1).then_some(l)
}

fn eia3(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let count = c.u32();
    let bearer = c.u8();
    let dir = c.u8();
    let lb = length(c);
    let mac = c.bytes8();
    let data = c.rest();
    let expect = zuc::eia3(&key, count, bearer, dir, data, lb);
    let got = zuc::eia3::verify(&key, count, bearer, dir, data, mac, lb);
    match (&expect, &got) {
        (Ok(e), Ok(v)) => assert_eq!(*v, mac == e, "verify disagrees with the MAC"),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("eia3 {expect:?} vs verify {got:?}"),
    }
}

fn zuc256_mac(c: &mut Cursor) {
    let key = c.bytes8();
    let iv = c.bytes8();
    let lb = length(c);
    // The MAC size is the caller's (32, 64 or 128 bits, or an invalid size), never the
    // tag's: a tag of another length never verifies.
    let tag_bits = [32u32, 64, 128, 0, 40][usize::from(c.u8()) % 5];
    let tag = c.bytes8();
    let data = c.rest();
    let got = zuc256::mac_verify(key, iv, data, tag, tag_bits, lb);
    match zuc256::mac(key, iv, data, tag_bits, lb) {
        Ok(expect) => assert_eq!(got, Ok(expect == tag), "verify disagrees with the MAC"),
        Err(e) => assert_eq!(got, Err(e)),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    match c.u8() % 4 {
        0 => gcm(&mut c),
        1 => ccm(&mut c),
        2 => eia3(&mut c),
        _ => zuc256_mac(&mut c),
    }
});
