//! The guomi envelope opener. Layout: selector, split sizes (u8 length), body.
//!
//! 0 raw-key envelope, 1 password envelope (PBKDF2 counts above FUZZ_MAX_ITERATIONS are
//! refused by the harness's secret function), 2 SM2 envelope, 3 SM9 envelope (fixed
//! keys), 4 seal the body and open it in chunks, 5 header parser.
//!
//! Invariants: opening in input-chosen chunks gives exactly what opening in one call
//! gives (both succeed with the same plaintext or both fail); plaintext released before
//! a failure is a prefix of the chunks that verified; sealing round-trips and a
//! truncated or tampered envelope fails.
#![no_main]

use guomi_core::Error;
use guomi_formats::envelope::{self, Header, Kem, Opener};
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;
use zeroize::Zeroizing;

const KEY: [u8; 16] = [0x42; 16];

fn opener(kind: u8) -> Opener<'static> {
    match kind {
        0 => Opener::new(Box::new(|h: &Header| {
            if h.kem != Kem::Key {
                return Err(Error::DecryptionFailed);
            }
            Ok(Zeroizing::from(KEY.to_vec()))
        })),
        1 => Opener::new(Box::new(|h: &Header| {
            if h.kem != Kem::Password || h.kem_data.len() != 4 {
                return Err(Error::DecryptionFailed);
            }
            let it = u32::from_be_bytes(h.kem_data[..4].try_into().unwrap());
            if it > FUZZ_MAX_ITERATIONS {
                return Err(Error::DecryptionFailed);
            }
            let s = h.password_secret(PASSWORD)?;
            Ok(Zeroizing::from(s.to_vec()))
        })),
        2 => Opener::with_sm2(sm2_key().clone()),
        _ => Opener::with_sm9(sm9_keys().enc_user.clone()),
    }
}

/// Opens `env` fed in the given pieces: (plaintext released, result).
fn open(kind: u8, pieces: &[&[u8]]) -> (Vec<u8>, Result<(), Error>) {
    let mut o = opener(kind);
    let mut out = Vec::new();
    for p in pieces {
        if let Err(e) = o.update(p, &mut out) {
            return (out, Err(e));
        }
        if let Some(h) = o.header() {
            assert!(h.bytes.starts_with(envelope::MAGIC));
        }
    }
    let r = o.finalize(&mut out);
    // finalize is final.
    let mut more = Vec::new();
    assert!(o.finalize(&mut more).is_err());
    assert!(more.is_empty());
    (out, r)
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let splits = c.bytes8();
    let body = c.rest();
    match sel % 6 {
        k @ 0..=3 => {
            let (one, r1) = open(k, &[body]);
            let (many, r2) = open(k, &chunks(body, splits));
            assert_eq!(r1.is_ok(), r2.is_ok(), "one-shot {r1:?} vs chunked {r2:?}");
            if r1.is_ok() {
                assert_eq!(one, many);
                if k == 0 {
                    assert_eq!(envelope::open_with_key(&KEY, body).unwrap(), one);
                }
                // Dropping the last byte must fail.
                let (_, r3) = open(k, &[&body[..body.len() - 1]]);
                assert!(r3.is_err(), "truncated envelope opened");
            } else {
                // Released plaintext is whole verified chunks from the start: the
                // chunked opener may release more than the one-shot one, never different
                // bytes.
                let n = one.len().min(many.len());
                assert_eq!(one[..n], many[..n]);
            }
        }
        4 => {
            let log2 = 10 + splits.first().copied().unwrap_or(0) % 3;
            let env = envelope::seal_with_key(&KEY, log2, body).unwrap();
            let (out, r) = open(0, &chunks(&env, splits));
            r.unwrap();
            assert_eq!(out, body);
            let (_, r) = open(0, &[&env[..env.len() - 1]]);
            assert!(r.is_err());
            let mut bad = env.clone();
            let i = splits.len() * 131 % bad.len();
            bad[i] ^= 1;
            assert!(
                envelope::open_with_key(&KEY, &bad).is_err(),
                "tampered byte {i}"
            );
        }
        _ => {
            if let Ok(Some(h)) = Header::parse(body) {
                assert_eq!(h.bytes[..], body[..h.bytes.len()]);
                assert!(h.chunk_size() >= 1024 && h.chunk_size() <= 1 << 24);
                assert_eq!(h.bytes.len(), 30 + h.kem_data.len());
            }
            // A prefix of a parsable header asks for more data, it does not fail.
            if let Ok(Some(h)) = Header::parse(body) {
                for n in 0..h.bytes.len() {
                    assert!(matches!(Header::parse(&body[..n]), Ok(None)), "prefix {n}");
                }
            }
        }
    }
});
