//! PKCS#12 files and the SM2EnvelopedKey. Layout: selector byte, then the body.
//!
//! 0 a whole PFX through `pkcs12::load` (with the fuzz password); 1 an AuthenticatedSafe
//! sealed with a valid MAC (so the bag parsers and PBES2 run on arbitrary contents);
//! 2 an SM2EnvelopedKey opened with the fixed fuzz key; 3 a round trip with fuzz-chosen
//! options. Iteration counts above FUZZ_MAX_ITERATIONS anywhere (also inside OCTET
//! STRINGs) are skipped, for speed only: the parser's own bound is 10 000 000.
//!
//! Invariants: no panic; every accepted file re-encodes (both encryptions) and loads back
//! to the same key and certificates, and not with another password; an accepted
//! enveloped key matches its public key and re-envelopes.
#![no_main]

use guomi_formats::pkcs12::{self, Encryption};
use guomi_formats::sm2_enveloped;
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

/// Every INTEGER in `der` is at most `max`, looking into constructed values and into
/// OCTET STRINGs whose content parses as DER.
fn integers_at_most(mut d: &[u8], max: u64, depth: u32) -> bool {
    if depth > 40 {
        return true;
    }
    while d.len() >= 2 {
        let tag = d[0];
        let (len, hl) = match d[1] {
            n if n < 0x80 => (n as usize, 2),
            0x81 if d.len() >= 3 => (d[2] as usize, 3),
            0x82 if d.len() >= 4 => (((d[2] as usize) << 8) | d[3] as usize, 4),
            0x83 if d.len() >= 5 => (
                ((d[2] as usize) << 16) | ((d[3] as usize) << 8) | d[4] as usize,
                5,
            ),
            _ => return true,
        };
        if d.len() < hl + len {
            return true;
        }
        let body = &d[hl..hl + len];
        if tag == 0x02 {
            let v = body.iter().skip_while(|b| **b == 0).count();
            if v > 8 {
                return false;
            }
            let n = body.iter().fold(0u64, |a, b| (a << 8) | u64::from(*b));
            if n > max {
                return false;
            }
        } else if (tag & 0x20 != 0 || tag == 0x04 || tag == 0x80)
            && !integers_at_most(body, max, depth + 1)
        {
            return false;
        }
        d = &d[hl + len..];
    }
    true
}

fn check_loaded(p: &pkcs12::Pkcs12) {
    let chain: Vec<&[u8]> = p.chain.iter().map(|c| c.as_slice()).collect();
    let cert = p.certificate.as_deref();
    // A certificate that does not parse, or a key not matching its certificate, cannot
    // be written back: that is a typed error, not a panic.
    for enc in [Encryption::Sm, Encryption::Aes] {
        match pkcs12::dump(p.key.as_ref(), cert, &chain, PASSWORD, enc, 1, None) {
            Ok(der) => {
                let q = pkcs12::load(&der, PASSWORD).unwrap();
                assert_eq!(q.key, p.key);
                if p.key.is_some() {
                    assert_eq!(q.certificate, p.certificate);
                    assert_eq!(q.chain, p.chain);
                }
                assert!(pkcs12::load(&der, b"another password").is_err());
            }
            Err(_) => return,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    match sel % 4 {
        0 => {
            let body = c.rest();
            if !integers_at_most(body, FUZZ_MAX_ITERATIONS as u64, 0) {
                return;
            }
            if let Ok(p) = pkcs12::load(body, PASSWORD) {
                check_loaded(&p);
            }
        }
        1 => {
            let body = c.rest();
            if !integers_at_most(body, FUZZ_MAX_ITERATIONS as u64, 0) {
                return;
            }
            let enc = if sel & 0x80 != 0 {
                Encryption::Aes
            } else {
                Encryption::Sm
            };
            let pfx = pkcs12::seal(body, PASSWORD, enc, 1).unwrap();
            if let Ok(p) = pkcs12::load(&pfx, PASSWORD) {
                check_loaded(&p);
            }
        }
        2 => {
            let body = c.rest();
            if let Ok(k) = sm2_enveloped::from_enveloped_key(body, sm2_key()) {
                let again = sm2_enveloped::to_enveloped_key(&k, sm2_key().public_key()).unwrap();
                assert_eq!(
                    sm2_enveloped::from_enveloped_key(&again, sm2_key()).unwrap(),
                    k
                );
                assert!(body
                    .windows(65)
                    .any(|w| w == k.public_key().to_uncompressed()));
            }
        }
        _ => {
            let it = u32::from(c.u8() % 4) + 1;
            let name_len = usize::from(c.u8() % 16);
            let name = String::from_utf8_lossy(c.take(name_len)).into_owned();
            let pw = c.rest();
            let enc = if sel & 0x80 != 0 {
                Encryption::Aes
            } else {
                Encryption::Sm
            };
            match pkcs12::dump(Some(sm2_key()), None, &[], pw, enc, it, Some(&name)) {
                Ok(der) => {
                    let p = pkcs12::load(&der, pw).unwrap();
                    assert_eq!(p.key.as_ref(), Some(sm2_key()));
                    assert_eq!(p.friendly_name.as_deref(), Some(name.as_str()));
                }
                Err(e) => assert!(
                    core::str::from_utf8(pw).is_err()
                        || !pw.is_empty()
                            && String::from_utf8_lossy(pw)
                                .chars()
                                .any(|ch| u32::from(ch) > 0xFFFF)
                        || name.chars().any(|ch| u32::from(ch) > 0xFFFF),
                    "{e:?}"
                ),
            }
        }
    }
});
