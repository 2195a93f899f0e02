//! Every backend of `cpu::available()` equals `portable` on the same input. Layout:
//! selector, split sizes (u8 length), then per selector:
//!
//! 0 SM3 (one-shot, streaming, hash_many over input-split messages, the KDF of the data).
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
    gcm::{GcmRow, Sm4Gcm},
    modes::{self, Mode, Padding},
    xts::{Sm4Xts, Standard},
    Sm4,
};
use guomi_core::zuc::{self, eea3, eia3, zuc256, Zuc};
use guomi_core::Error;
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
    // The GM/T 0003 KDF of the data (SIMD lanes on avx2/avx512, one block at a time on
    // portable), up to ~2.3 KiB of output.
    let len = usize::from(splits.first().copied().unwrap_or(0)) * 9 + data.len() % 64;
    same("sm3 kdf", |_| sm3::kdf::kdf(data, len).unwrap());
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

/// Rows of a GCM batch: at most this many, and at most this many data bytes in all.
const MANY_ROWS: u8 = 40;
const MANY_TOTAL: usize = 48 * 1024;
/// Fill byte of output buffers, so "untouched" and "zero-filled" can be told apart.
const FILL: u8 = 0xa5;

/// A batch's outputs and per-row results.
type Outcome = (Vec<Vec<u8>>, Vec<Result<(), Error>>);
/// A row to decrypt: nonce, aad, ciphertext || tag.
type Sealed = ([u8; 12], Vec<u8>, Vec<u8>);

struct ManyRow {
    nonce: [u8; 12],
    aad: Vec<u8>,
    data: Vec<u8>,
}

/// Bytes `at..at + n` of `pool` taken cyclically (a counter pattern when it is empty).
fn cut(pool: &[u8], at: usize, n: usize) -> Vec<u8> {
    if pool.is_empty() {
        return (0..n).map(|i| (at + i) as u8).collect();
    }
    (0..n).map(|i| pool[(at + i) % pool.len()]).collect()
}

/// A data length of class `k`: short (< 256, < 2 KiB), around the fused threshold
/// (2 KiB - 32 ..), the fused range, and around / over the one-message threshold
/// (16 KiB - 32 .. ~20000).
fn many_len(k: u8, x: u16) -> usize {
    let x = x as usize;
    match k % 5 {
        0 => x % 256,
        1 => x % 2048,
        2 => 2048 - 32 + x % 64,
        3 => 2048 + x % (16 * 1024 - 2048 + 1),
        _ => 16 * 1024 - 32 + x % 3700,
    }
}

/// `encrypt_many_into` over `rows` with output lengths `out_lens`; outputs start as FILL.
fn seal_many(g: &Sm4Gcm, rows: &[ManyRow], out_lens: &[usize]) -> Outcome {
    let mut outs: Vec<Vec<u8>> = out_lens.iter().map(|&n| vec![FILL; n]).collect();
    let mut batch: Vec<GcmRow<'_>> = rows
        .iter()
        .zip(outs.iter_mut())
        .map(|(r, o)| GcmRow {
            nonce: &r.nonce,
            aad: &r.aad,
            input: &r.data,
            output: o,
        })
        .collect();
    let res = g.encrypt_many_into(&mut batch);
    drop(batch);
    (outs, res)
}

/// `decrypt_many_into` of `inputs` (nonce, aad, ct || tag) with output lengths `out_lens`.
fn open_many(g: &Sm4Gcm, inputs: &[Sealed], out_lens: &[usize]) -> Outcome {
    let mut outs: Vec<Vec<u8>> = out_lens.iter().map(|&n| vec![FILL; n]).collect();
    let mut batch: Vec<GcmRow<'_>> = inputs
        .iter()
        .zip(outs.iter_mut())
        .map(|((n, a, d), o)| GcmRow {
            nonce: n,
            aad: a,
            input: d,
            output: o,
        })
        .collect();
    let res = g.decrypt_many_into(&mut batch);
    drop(batch);
    (outs, res)
}

fn gcm_many_case(c: &mut Cursor) {
    let key: [u8; 16] = c.array();
    let n = usize::from(c.u8() % (MANY_ROWS + 1));
    let t_row = usize::from(c.u8());
    let t_what = c.u8();
    let t_bit = usize::from(c.u16());
    let l_row = usize::from(c.u8());
    let l_kind = c.u8();
    let mut heads = Vec::with_capacity(n);
    for _ in 0..n {
        let nonce: [u8; 12] = c.array();
        let aad_len = usize::from(c.u8()) % 65;
        let k = c.u8();
        let x = c.u16();
        heads.push((nonce, aad_len, many_len(k, x)));
    }
    let pool = c.rest();
    let mut total = 0usize;
    let mut at = 0usize;
    let rows: Vec<ManyRow> = heads
        .into_iter()
        .map(|(nonce, aad_len, len)| {
            let len = len.min(MANY_TOTAL - total);
            total += len;
            let aad = cut(pool, at, aad_len);
            at += aad_len;
            let data = cut(pool, at, len);
            at += len;
            ManyRow { nonce, aad, data }
        })
        .collect();
    let good_enc: Vec<usize> = rows.iter().map(|r| r.data.len() + 16).collect();
    let good_dec: Vec<usize> = rows.iter().map(|r| r.data.len()).collect();

    // The length fault: one row's output buffer one byte short / long / empty (encrypt
    // and decrypt), or its decrypt input cut below 16 bytes.
    let fault = (n > 0 && l_kind & 0x80 != 0).then_some(l_row % n.max(1));
    let mut bad_enc = good_enc.clone();
    let mut bad_dec = good_dec.clone();
    let mut short_input = None;
    if let Some(r) = fault {
        match l_kind % 4 {
            0 => {
                bad_enc[r] -= 1;
                bad_dec[r] = if good_dec[r] == 0 { 1 } else { good_dec[r] - 1 };
            }
            1 => {
                bad_enc[r] += 1;
                bad_dec[r] += 1;
            }
            2 => {
                bad_enc[r] = 0;
                bad_dec[r] = if good_dec[r] == 0 { 1 } else { 0 };
            }
            _ => short_input = Some(usize::from(l_kind >> 2) % 16),
        }
    }

    // The tampering: one bit of one row's tag, ciphertext, aad or nonce.
    let tamper = (n > 0 && t_what & 0x80 == 0).then_some(t_row % n.max(1));

    let mut base: Option<Outcome> = None;
    for v in cpu::variants() {
        let g = Sm4Gcm::with_variant(&key, v);
        // Encryption: the batch is the one-message API row by row.
        let (cts, res) = seal_many(&g, &rows, &good_enc);
        for (i, r) in rows.iter().enumerate() {
            let mut one = vec![FILL; good_enc[i]];
            let r1 = g.encrypt_into(&r.nonce, &r.aad, &r.data, &mut one);
            assert_eq!(res[i], r1, "{v}: encrypt_many row {i} result");
            assert_eq!(res[i], Ok(()), "{v}: encrypt_many row {i}");
            assert!(
                cts[i] == one,
                "{v}: encrypt_many row {i} differs from encrypt_into"
            );
        }
        match &base {
            None => base = Some((cts.clone(), res.clone())),
            Some(b) => assert!(
                b.0 == cts && b.1 == res,
                "{v}: encrypt_many differs from the first variant"
            ),
        }
        // Wrong output lengths on encryption: that row's error (the single path's), its
        // output untouched, the others unchanged.
        if fault.is_some() && bad_enc != good_enc {
            let (outs, res2) = seal_many(&g, &rows, &bad_enc);
            for (i, r) in rows.iter().enumerate() {
                let mut one = vec![FILL; bad_enc[i]];
                let r1 = g.encrypt_into(&r.nonce, &r.aad, &r.data, &mut one);
                assert_eq!(res2[i], r1, "{v}: encrypt_many row {i} (length fault)");
                if bad_enc[i] == good_enc[i] {
                    assert_eq!(res2[i], Ok(()));
                    assert!(
                        outs[i] == cts[i],
                        "{v}: row {i} changed by another row's fault"
                    );
                } else {
                    assert!(matches!(res2[i], Err(Error::InvalidLength { .. })));
                    assert!(
                        outs[i].iter().all(|&b| b == FILL),
                        "{v}: row {i} output touched"
                    );
                }
            }
        }
        // Decryption of the batch gives the rows back.
        let mut inputs: Vec<Sealed> = rows
            .iter()
            .zip(&cts)
            .map(|(r, ct)| (r.nonce, r.aad.clone(), ct.clone()))
            .collect();
        let (pts, res) = open_many(&g, &inputs, &good_dec);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(res[i], Ok(()), "{v}: decrypt_many row {i}");
            assert!(pts[i] == r.data, "{v}: decrypt_many row {i} round trip");
        }
        // Tampering and length faults together: each row's result is the single
        // path's; a failed tag leaves zeros, a wrong length an untouched buffer, and
        // every other row decrypts right.
        let mut expect_tag_fail = None;
        if let Some(r) = tamper {
            let (nonce, aad, ct) = &mut inputs[r];
            let what = t_what % 4;
            let what = match what {
                1 if ct.len() == 16 => 0,
                2 if aad.is_empty() => 0,
                w => w,
            };
            match what {
                0 => {
                    let b = ct.len() - 16 + (t_bit / 8) % 16;
                    ct[b] ^= 1 << (t_bit % 8);
                }
                1 => {
                    let b = (t_bit / 8) % (ct.len() - 16);
                    ct[b] ^= 1 << (t_bit % 8);
                }
                2 => {
                    let b = (t_bit / 8) % aad.len();
                    aad[b] ^= 1 << (t_bit % 8);
                }
                _ => nonce[(t_bit / 8) % 12] ^= 1 << (t_bit % 8),
            }
            expect_tag_fail = Some(r);
        }
        let mut dec_lens = bad_dec.clone();
        if let (Some(r), Some(k)) = (fault, short_input) {
            inputs[r].2.truncate(k);
            dec_lens[r] = good_dec[r].min(usize::from(l_kind) % 17);
        }
        if tamper.is_none() && fault.is_none() {
            continue;
        }
        let (outs, res) = open_many(&g, &inputs, &dec_lens);
        for (i, (nonce, aad, input)) in inputs.iter().enumerate() {
            let mut one = vec![FILL; dec_lens[i]];
            let r1 = g.decrypt_into(nonce, aad, input, 16, &mut one);
            assert_eq!(res[i], r1, "{v}: decrypt_many row {i} vs decrypt_into");
            match &res[i] {
                Ok(()) => {
                    assert!(
                        outs[i] == one && outs[i] == rows[i].data,
                        "{v}: row {i} plaintext"
                    );
                    assert_ne!(expect_tag_fail, Some(i), "{v}: tampered row {i} accepted");
                }
                Err(Error::InvalidTag) => {
                    assert!(
                        outs[i].iter().all(|&b| b == 0),
                        "{v}: row {i} not zero-filled"
                    );
                    assert!(
                        expect_tag_fail == Some(i) || (fault == Some(i) && short_input.is_some()),
                        "{v}: row {i} failed its tag though untouched"
                    );
                }
                Err(Error::InvalidLength { .. }) => {
                    assert_eq!(fault, Some(i), "{v}: row {i} length error without a fault");
                    assert!(
                        outs[i].iter().all(|&b| b == FILL),
                        "{v}: row {i} output touched"
                    );
                }
                Err(e) => panic!("{v}: decrypt_many row {i}: unexpected {e:?}"),
            }
            if Some(i) != fault && Some(i) != expect_tag_fail {
                assert_eq!(res[i], Ok(()), "{v}: untouched row {i} failed");
            }
            if Some(i) == expect_tag_fail && Some(i) != fault {
                assert_eq!(res[i], Err(Error::InvalidTag), "{v}: tampered row {i}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let splits = c.bytes8();
    match sel % 7 {
        0 => sm3_case(splits, c.rest()),
        1 => sm4_case(&mut c),
        2 => aead_case(&mut c),
        3 => xts_case(&mut c),
        4 => zuc_case(splits, &mut c),
        5 => zuc256_case(&mut c),
        _ => gcm_many_case(&mut c),
    }
});
