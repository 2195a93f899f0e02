//! The work splitter and every batch API over n in 0..=300 items and every thread count in
//! 0..=64: no panic, and the same answer as the calling thread alone.

use guomi_core::parallel::map_ranges;
use guomi_core::sm2::{verify_many, PrivateKey, VerifyItem};
use guomi_core::sm3::many::hash_many;
use guomi_core::zuc::many::{eea3_many, eia3_many, Item};

const MAX_N: usize = 300;
const MAX_THREADS: usize = 64;

#[test]
fn map_ranges_covers_0_to_n_in_order_for_every_split() {
    for min_len in [1usize, 2, 3, 16] {
        for n in 0..=MAX_N {
            let want: Vec<usize> = (0..n).collect();
            for threads in 0..=MAX_THREADS {
                let got = map_ranges(n, threads, min_len, |r| {
                    assert!(r.start <= r.end && r.end <= n, "bad range {r:?} for n {n}");
                    r.collect::<Vec<_>>()
                });
                assert_eq!(got, want, "n {n} threads {threads} min_len {min_len}");
            }
        }
    }
}

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
