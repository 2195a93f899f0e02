//! Every backend of `cpu::available()` equals `portable` on the same input. Layout:
//! selector, split sizes (u8 length), then per selector:
//!
//! 0 SM3 (one-shot, streaming, hash_many over input-split messages).
//! 1 SM4 ECB/CBC/CTR/CFB/OFB and raw blocks: key[16], iv[16], data.
//! 2 SM4-GCM (GHASH, any nonce length) and SM4-CCM: key[16], nonce (u8 length), aad (u8
//!   length), data; decrypts of the data as a ciphertext too.
//! 3 SM4-XTS (both standards): key[32], tweak[16], data.
//! 4 ZUC 128-EEA3/EIA3 (single and many): key[16], count, bearer, direction, bit-length
//!   flag + u16, data. 5 ZUC-256 keystream and MAC (32/64/128): key[32], iv[25 or 23], data.
//!
//! The invariant is equality of outputs and errors with the portable backend.
#![no_main]

use guomi_core::cpu::{self, Backend};
use guomi_core::sm3::{self, many::hash_many, Sm3};
use guomi_core::sm4::{
    ccm::Sm4Ccm,
    gcm::Sm4Gcm,
    modes::{self, Mode, Padding},
    xts::{Sm4Xts, Standard},
    Sm4,
};
use guomi_core::zuc::{self, eea3, eia3, zuc256, Zuc};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;
use std::fmt::Debug;

/// Runs `f` on every available backend and asserts each result equals portable's.
fn same<T: PartialEq + Debug>(what: &str, f: impl Fn(Backend) -> T) {
    let base = cpu::with_backend(Backend::Portable, || f(Backend::Portable));
    for b in cpu::available() {
        if b == Backend::Portable {
            continue;
        }
        let r = cpu::with_backend(b, || f(b));
        assert_eq!(
            r,
            base,
            "{what}: backend {} differs from portable",
            b.name()
        );
    }
}

fn sm3_case(splits: &[u8], data: &[u8]) {
    same("sm3", |_| sm3::hash(data));
    same("sm3 streaming", |b| {
        let mut h = Sm3::with_backend(b);
        for p in chunks(data, splits) {
            h.update(p);
        }
        h.finalize()
    });
    let msgs = chunks(data, splits);
    same("hash_many", |_| hash_many(&msgs, None));
    let base: Vec<_> = msgs.iter().map(|m| sm3::hash(m)).collect();
    assert_eq!(hash_many(&msgs, None), base);
    assert_eq!(hash_many(&msgs, Some(splits.len() % 5)), base);
}

fn sm4_case(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let iv: [u8; 16] = c.array();
    let data = c.rest();
    for mode in [Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Cfb, Mode::Ofb] {
        let iv = (mode != Mode::Ecb).then_some(&iv[..]);
        let pad = if mode.is_block_mode() {
            Some(Padding::Pkcs7)
        } else {
            None
        };
        same("sm4 encrypt", |b| {
            modes::encrypt(&Sm4::with_backend(&key, b), mode, iv, pad, data)
        });
        let nopad = if mode.is_block_mode() {
            Some(Padding::None)
        } else {
            None
        };
        same("sm4 decrypt", |b| {
            modes::decrypt(&Sm4::with_backend(&key, b), mode, iv, nopad, data)
        });
    }
    let whole = &data[..data.len() / 16 * 16];
    same("sm4 blocks", |b| {
        let s = Sm4::with_backend(&key, b);
        let mut e = whole.to_vec();
        s.encrypt_blocks(&mut e);
        let mut d = whole.to_vec();
        s.decrypt_blocks(&mut d);
        (e, d)
    });
}

fn aead_case(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let nonce = c.bytes8();
    let aad = c.bytes8();
    let data = c.rest();
    same("gcm encrypt", |b| {
        Sm4Gcm::with_backend(&key, b).encrypt(nonce, aad, data)
    });
    same("gcm decrypt", |b| {
        Sm4Gcm::with_backend(&key, b).decrypt(nonce, aad, data)
    });
    // A decrypt that succeeds needs the right tag: take it from the portable encryption.
    if let Ok(ct) = Sm4Gcm::with_backend(&key, Backend::Portable).encrypt(nonce, aad, data) {
        same("gcm round trip", |b| {
            Sm4Gcm::with_backend(&key, b).decrypt(nonce, aad, &ct)
        });
    }
    let tl = 4 + 2 * (nonce.len() % 7);
    same("ccm encrypt", |b| {
        Sm4Ccm::with_backend(&key, tl, b)
            .unwrap()
            .encrypt(nonce, aad, data)
    });
    same("ccm decrypt", |b| {
        Sm4Ccm::with_backend(&key, tl, b)
            .unwrap()
            .decrypt(nonce, aad, data)
    });
}

fn xts_case(c: &mut Cursor) {
    let key: [u8; 32] = c.array();
    let tweak: [u8; 16] = c.array();
    let data = c.rest();
    for std in [Standard::Gb, Standard::Ieee] {
        same("xts encrypt", |b| {
            Sm4Xts::with_backend(&key, std, b).and_then(|x| x.encrypt(&tweak, data))
        });
        same("xts decrypt", |b| {
            Sm4Xts::with_backend(&key, std, b).and_then(|x| x.decrypt(&tweak, data))
        });
    }
}

fn zuc_case(splits: &[u8], c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let count = c.u32();
    let bearer = c.u8() & 0x1f;
    let dir = c.u8() & 1;
    let f = c.u8();
    let l = c.u16() as u64;
    let data = c.rest();
    let lb = (f & 1 == 1).then_some(l.min(8 * data.len() as u64));
    same("eea3", |b| {
        let n = eea3::output_len(data.len(), lb)?;
        let mut out = vec![0u8; n];
        eea3::eea3_into_with(b, &key, count, bearer, dir, data, lb, &mut out)?;
        Ok::<_, guomi_core::Error>(out)
    });
    same("eia3", |b| {
        eia3::eia3_with(b, &key, count, bearer, dir, data, lb)
    });
    same("zuc keystream", |b| {
        let mut z = Zuc::with_backend(&key, &key, b).unwrap();
        let mut out = vec![0u8; data.len()];
        let mut at = 0;
        for p in chunks(data, splits) {
            z.fill(&mut out[at..at + p.len()]);
            at += p.len();
        }
        out
    });
    // Many packets: the input split into messages, all under one key.
    let msgs = chunks(data, splits);
    let items: Vec<zuc::many::Item> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| (&key[..], count.wrapping_add(i as u32), bearer, dir, *m))
        .collect();
    same("eea3_many", |_| zuc::many::eea3_many(&items, None));
    same("eia3_many", |_| zuc::many::eia3_many(&items, None));
    let single: Vec<_> = items
        .iter()
        .map(|&(k, cnt, be, di, m)| zuc::eea3(k, cnt, be, di, m, None).unwrap())
        .collect();
    assert_eq!(zuc::many::eea3_many(&items, None).unwrap(), single);
    // The batch splitter: any thread count gives the serial answer.
    let threads = Some(splits.len() % 5);
    assert_eq!(zuc::many::eea3_many(&items, threads).unwrap(), single);
    assert_eq!(
        zuc::many::eea3_many_concat(&items, threads).unwrap(),
        single.concat()
    );
    assert_eq!(
        zuc::many::eia3_many(&items, threads).unwrap(),
        zuc::many::eia3_many(&items, None).unwrap()
    );
}

fn zuc256_case(c: &mut Cursor) {
    let key: [u8; 32] = c.array();
    let iv = if c.u8() & 1 == 0 {
        c.take(25)
    } else {
        c.take(23)
    };
    let f = c.u8();
    let l = c.u16() as u64;
    let data = c.rest();
    let lb = (f & 1 == 1).then_some(l);
    for bits in [32, 64, 128] {
        same("zuc256 mac", |b| {
            zuc256::mac_with(b, &key, iv, data, bits, lb)
        });
    }
    same("zuc256 keystream", |_| {
        zuc256::keystream(&key, iv, data.len() / 4 + 1)
    });
    same("zuc256 fill", |_| {
        Zuc::new_256(&key, iv).map(|mut z| {
            let mut out = data.to_vec();
            z.apply_keystream(&mut out);
            out
        })
    });
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let splits = c.bytes8();
    match sel % 6 {
        0 => sm3_case(splits, c.rest()),
        1 => sm4_case(&mut c),
        2 => aead_case(&mut c),
        3 => xts_case(&mut c),
        4 => zuc_case(splits, &mut c),
        _ => zuc256_case(&mut c),
    }
});
