//! The work splitter and every batch API over n in 0..=300 items and every thread count in
//! 0..=64: no panic, and the same answer as the calling thread alone.

use guomi_core::sm2::{verify_many, PrivateKey, VerifyItem};
use guomi_core::sm3::many::hash_many;
use guomi_core::zuc::many::{eea3_many, eia3_many, Item};

const MAX_N: usize = 300;
const MAX_THREADS: usize = 64;

/// Thread arguments to try: None and Some(0..=64).
fn thread_args() -> impl Iterator<Item = Option<usize>> {
    std::iter::once(None).chain((0..=MAX_THREADS).map(Some))
}

#[test]
fn sm2_verify_many_every_thread_count() {
    let key = PrivateKey::generate().unwrap();
    let good = key.sign(b"message", b"1234567812345678").unwrap().to_der();
    let bad_len = vec![0x30u8, 0x03, 0x02, 0x01, 0x01];
    let items: Vec<VerifyItem<'_>> = (0..MAX_N)
        .map(|i| VerifyItem {
            key: key.public_key(),
            // Every seventh item is a real verification (about 60 us); the others are
            // malformed, hence cheap and false.
            signature: if i % 7 == 0 { &good } else { &bad_len },
            message: b"message",
            uid: b"1234567812345678",
        })
        .collect();
    // Every n up to 40, then a stride: SM2 verification is the expensive one.
    let ns = (0..=40).chain((41..=MAX_N).step_by(13)).chain([MAX_N]);
    for n in ns {
        let want: Vec<bool> = (0..n).map(|i| i % 7 == 0).collect();
        assert_eq!(verify_many(&items[..n], None), want);
        for t in thread_args() {
            assert_eq!(verify_many(&items[..n], t), want, "n {n} threads {t:?}");
        }
    }
}

#[test]
fn sm3_hash_many_every_thread_count() {
    // Enough bytes in total (> 64 KiB for every n >= 1) that the threaded path is taken.
    let buf: Vec<u8> = (0..80_000u32).map(|i| (i * 31) as u8).collect();
    for n in 0..=MAX_N {
        let len = 65_536usize.checked_div(n).map_or(0, |q| q + 1);
        let msgs: Vec<&[u8]> = (0..n).map(|i| &buf[i % 5..i % 5 + len]).collect();
        let want = hash_many(&msgs, None);
        assert_eq!(want.len(), n);
        if n > 0 {
            assert_eq!(want[n - 1], guomi_core::sm3::hash(msgs[n - 1]));
        }
        for t in thread_args() {
            assert_eq!(hash_many(&msgs, t), want, "n {n} threads {t:?}");
        }
    }
}

#[test]
fn zuc_eea3_and_eia3_many_every_thread_count() {
    let buf: Vec<u8> = (0..80_000u32).map(|i| (i * 7 + 3) as u8).collect();
    let key = [0x42u8; 16];
    for n in 0..=MAX_N {
        let len = 65_536usize.checked_div(n).map_or(0, |q| q + 1);
        let items: Vec<Item<'_>> = (0..n)
            .map(|i| {
                (
                    &key[..],
                    i as u32,
                    (i % 32) as u8,
                    (i % 2) as u8,
                    &buf[..len],
                )
            })
            .collect();
        let enc = eea3_many(&items, None).unwrap();
        let mac = eia3_many(&items, None).unwrap();
        assert_eq!(enc.len(), n);
        assert_eq!(mac.len(), n);
        if n > 0 {
            let it = items[n - 1];
            assert_eq!(
                enc[n - 1],
                guomi_core::zuc::eea3(it.0, it.1, it.2, it.3, it.4, None).unwrap()
            );
        }
        for t in thread_args() {
            assert_eq!(
                eea3_many(&items, t).unwrap(),
                enc,
                "eea3 n {n} threads {t:?}"
            );
            assert_eq!(
                eia3_many(&items, t).unwrap(),
                mac,
                "eia3 n {n} threads {t:?}"
            );
        }
    }
}

#[test]
fn for_each_guided_writes_every_slot_once_in_lane_multiples() {
    use guomi_core::parallel::for_each_guided;
    for n in 0..=MAX_N {
        for threads in [1usize, 2, 3, 64] {
            let mut out = vec![usize::MAX; n];
            for_each_guided(&mut out, threads, 16, 16, |start, chunk| {
                assert!(
                    start.is_multiple_of(16),
                    "n {n} threads {threads}: start {start}"
                );
                assert!(chunk.len() >= 16 || start + chunk.len() == n);
                for (k, o) in chunk.iter_mut().enumerate() {
                    assert_eq!(*o, usize::MAX);
                    *o = start + k;
                }
            });
            assert_eq!(out, (0..n).collect::<Vec<_>>(), "n {n} threads {threads}");
        }
    }
}

/// An output buffer that counts how often it is asked for its bytes and fills them with
/// a marker first (the caller must overwrite every byte).
struct Counted {
    bytes: Vec<u8>,
    asked: usize,
}

impl guomi_core::zuc::many::OutBuf for Counted {
    fn len(&self) -> usize {
        self.bytes.len()
    }
    fn bytes(&mut self) -> &mut [u8] {
        self.asked += 1;
        self.bytes.fill(0xa5);
        &mut self.bytes
    }
}

/// `eea3_many_into` with an `OutBuf` of its own: each buffer is asked for exactly once
/// and then wholly written (the marker never survives, whatever the length mod 4); with
/// an invalid item, no buffer is asked for at all.
#[test]
fn eea3_many_into_asks_each_buffer_once_and_only_after_the_checks() {
    use guomi_core::zuc::many::eea3_many_into;
    let buf: Vec<u8> = (0..40_000u32).map(|i| (i * 5 + 1) as u8).collect();
    let key = [7u8; 16];
    let items: Vec<Item<'_>> = (0..200usize)
        .map(|i| (&key[..], i as u32, 3, 1, &buf[i..i + (i * 97) % 700]))
        .collect();
    let want = eea3_many(&items, None).unwrap();
    for t in [None, Some(1), Some(2), Some(0)] {
        let mut outs: Vec<Counted> = items
            .iter()
            .map(|i| Counted {
                bytes: vec![0; i.4.len()],
                asked: 0,
            })
            .collect();
        eea3_many_into(&items, &mut outs, t).unwrap();
        for (k, o) in outs.iter().enumerate() {
            assert_eq!(o.asked, 1, "item {k} threads {t:?}");
            assert_eq!(o.bytes, want[k], "item {k} threads {t:?}");
        }
        let mut bad = items.clone();
        bad[150].0 = &key[..15];
        eea3_many_into(&bad, &mut outs, t).unwrap_err();
        assert!(outs.iter().all(|o| o.asked == 1), "threads {t:?}");
    }
}

/// Fresh key objects (some used 4+ times in the batch, so prepared during it, some once),
/// valid, tampered and malformed signatures, two uids: the same answers as one-by-one
/// verification for every thread count, and each key object's table state afterwards
/// depends only on how often it was used.
#[test]
fn sm2_verify_many_mixed_keys_every_thread_count() {
    use guomi_core::sm2::Signature;
    let privs: Vec<PrivateKey> = (0..3).map(|_| PrivateKey::generate().unwrap()).collect();
    let msgs: Vec<Vec<u8>> = (0..24).map(|i| vec![i as u8; i + 1]).collect();
    let uid_of = |i: usize| -> &'static [u8] {
        if i.is_multiple_of(5) {
            b"alice@example"
        } else {
            b"1234567812345678"
        }
    };
    // Key 0: items 0, 3, 6, ... (8 uses); key 1: 8 uses; key 2 only at item 2 (others
    // point to key 2's twin objects, used once each).
    let key_of = |i: usize| if i % 3 == 2 && i != 2 { 3 + i } else { i % 3 };
    let sigs: Vec<Vec<u8>> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| privs[i % 3].sign(m, uid_of(i)).unwrap().to_der())
        .collect();
    for threads in [None, Some(1), Some(2), Some(0), Some(64)] {
        let objects: Vec<guomi_core::sm2::PublicKey> = (0..3 + msgs.len())
            .map(|k| privs[k % 3].public_key().clone())
            .collect();
        let mut items: Vec<VerifyItem<'_>> = msgs
            .iter()
            .enumerate()
            .map(|(i, m)| VerifyItem {
                key: &objects[key_of(i)],
                signature: &sigs[i],
                message: m,
                uid: uid_of(i),
            })
            .collect();
        items[4].message = b"tampered";
        items[10].signature = b"\x30\x00";
        items[11].uid = b"other uid";
        let want: Vec<bool> = items
            .iter()
            .map(|it| {
                Signature::from_bytes(it.signature)
                    .is_ok_and(|s| it.key.clone().verify(it.message, it.uid, &s))
            })
            .collect();
        assert_eq!(want.iter().filter(|&&ok| !ok).count(), 3);
        assert_eq!(verify_many(&items, threads), want, "threads {threads:?}");
        assert!(
            objects[0].is_prepared() && objects[1].is_prepared(),
            "{threads:?}"
        );
        assert!(objects[2..].iter().all(|k| !k.is_prepared()), "{threads:?}");
    }
}

/// Mixed keys, lengths (0 to 3 KiB, not multiples of 4) and framing; an invalid item
/// anywhere gives the first invalid item's error for every thread count, and the
/// in-place form agrees with the others.
#[test]
fn zuc_many_mixed_items_and_errors_every_thread_count() {
    use guomi_core::zuc::many::{eea3_many_concat, eea3_many_into};
    use guomi_core::Error;
    let buf: Vec<u8> = (0..200_000u32).map(|i| (i * 13 + 1) as u8).collect();
    let keys: Vec<[u8; 16]> = (0..5u8).map(|k| [k.wrapping_mul(37); 16]).collect();
    let items: Vec<Item<'_>> = (0..150usize)
        .map(|i| {
            let len = (i * 211) % 3073;
            (
                &keys[i % 5][..],
                (i * 7919) as u32,
                (i % 32) as u8,
                (i % 2) as u8,
                &buf[i..i + len],
            )
        })
        .collect();
    let want_enc: Vec<Vec<u8>> = items
        .iter()
        .map(|it| guomi_core::zuc::eea3(it.0, it.1, it.2, it.3, it.4, None).unwrap())
        .collect();
    let want_mac: Vec<[u8; 4]> = items
        .iter()
        .map(|it| guomi_core::zuc::eia3(it.0, it.1, it.2, it.3, it.4, None).unwrap())
        .collect();
    let mut bad = items.clone();
    bad[97].2 = 32; // bearer out of range
    bad[120].0 = &keys[0][..15]; // short key, later: not the reported one
    for t in [None, Some(1), Some(2), Some(0), Some(64)] {
        assert_eq!(eea3_many(&items, t).unwrap(), want_enc, "threads {t:?}");
        assert_eq!(eia3_many(&items, t).unwrap(), want_mac, "threads {t:?}");
        assert_eq!(eea3_many_concat(&items, t).unwrap(), want_enc.concat());
        let mut outs: Vec<Vec<u8>> = items.iter().map(|i| vec![0xa5; i.4.len()]).collect();
        let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
        eea3_many_into(&items, &mut refs, t).unwrap();
        assert_eq!(outs, want_enc);
        let bearer = Error::InvalidValue("bearer must be in 0..=31 (5 bits)");
        assert_eq!(eea3_many(&bad, t), Err(bearer.clone()));
        assert_eq!(eia3_many(&bad, t), Err(bearer.clone()));
        assert_eq!(eea3_many_concat(&bad, t), Err(bearer));
        // Output buffers of the wrong number or length.
        let mut short: Vec<Vec<u8>> = items.iter().map(|i| vec![0; i.4.len()]).collect();
        short[5].push(0);
        let mut refs: Vec<&mut [u8]> = short.iter_mut().map(Vec::as_mut_slice).collect();
        assert!(matches!(
            eea3_many_into(&items, &mut refs, t),
            Err(Error::InvalidLength { got, .. }) if got == items[5].4.len() + 1
        ));
        assert!(matches!(
            eea3_many_into(&items, &mut refs[..10], t),
            Err(Error::InvalidLength { got: 10, .. })
        ));
    }
}
