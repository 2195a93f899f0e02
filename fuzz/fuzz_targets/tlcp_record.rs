//! The TLCP record layer (guomi-tlcp `record`). Layout: selector, body.
//!
//! 0 CBC open, 1 GCM open: u64 sequence (8 bytes), content type byte, then the fragment,
//! opened under fixed keys; 2 header parse of the body under both limits; 3 CBC, 4 GCM
//! round trip: u64 sequence, type, plaintext (at most 2^14 bytes).
//!
//! Invariants: nothing panics; an opened record is at most 2^14 bytes; a sealed record
//! parses as one header + fragment of the announced length and opens to the plaintext
//! under the same keys and sequence number, and fails with any other sequence number.
#![no_main]

use guomi_fuzz::*;
use guomi_tlcp::record::{self, ContentType, RecordState, MAX_CIPHERTEXT, MAX_FRAGMENT};
use libfuzzer_sys::fuzz_target;

const MAC_KEY: [u8; 32] = [0x11; 32];
const KEY: [u8; 16] = [0x22; 16];
const SALT: [u8; 4] = [0x33; 4];

fn state(gcm: bool) -> RecordState {
    if gcm {
        RecordState::gcm(&KEY, &SALT)
    } else {
        RecordState::cbc(&MAC_KEY, &KEY)
    }
}

fn at_seq(gcm: bool, seq: u64) -> RecordState {
    let mut s = state(gcm);
    s.set_sequence_for_testing(seq);
    s
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    match c.u8() % 5 {
        sel @ (0 | 1) => {
            let seq = u64::from_be_bytes(c.array::<8>());
            let typ = match ContentType::from_byte(20 + c.u8() % 4) {
                Ok(t) => t,
                Err(_) => return,
            };
            let mut s = at_seq(sel == 1, seq);
            if let Ok(p) = s.open(typ, c.rest()) {
                assert!(p.len() <= MAX_FRAGMENT);
            }
        }
        2 => {
            let body = c.rest();
            for max in [MAX_FRAGMENT, MAX_CIPHERTEXT] {
                if let Ok(Some((_, len))) = record::parse_header(body, max) {
                    assert!(len <= max);
                }
            }
        }
        sel => {
            let gcm = sel == 4;
            let seq = u64::from_be_bytes(c.array::<8>()) % (u64::MAX - 1);
            let typ = match ContentType::from_byte(20 + c.u8() % 4) {
                Ok(t) => t,
                Err(_) => return,
            };
            let msg = c.rest();
            let msg = &msg[..msg.len().min(MAX_FRAGMENT)];
            let rec = at_seq(gcm, seq).seal(typ, msg).unwrap();
            let (t, len) = record::parse_header(&rec, MAX_CIPHERTEXT).unwrap().unwrap();
            assert_eq!(t, typ);
            assert_eq!(len + record::HEADER_LEN, rec.len());
            let frag = &rec[record::HEADER_LEN..];
            assert_eq!(at_seq(gcm, seq).open(typ, frag).unwrap(), msg);
            assert!(at_seq(gcm, seq + 1).open(typ, frag).is_err());
        }
    }
});
