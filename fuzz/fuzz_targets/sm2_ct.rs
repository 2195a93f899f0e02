//! SM2 ciphertexts. Layout: selector, k (32 bytes), body.
//!
//! selector % 4: the layout given to the parser (auto-detect, C1C3C2, C1C2C3, DER).
//! bit 2: also encrypt the body with k and check every layout decrypts back.
//! bit 3: body = key length byte || C1, through `decapsulate`.
//!
//! Invariants: every decryption failure is the opaque `DecryptionFailed`; a ciphertext
//! that decrypts converts to every layout and still decrypts to the same plaintext;
//! parse -> encode -> parse is the identity whenever the layout is unambiguous.
#![no_main]

use guomi_core::sm2::{
    convert_ciphertext, hazmat, CiphertextFormat, CiphertextParts, PublicKey, Sm2p256,
};
use guomi_core::Error;
use guomi_fuzz::*;
use libfuzzer_sys::fuzz_target;

const LAYOUTS: [CiphertextFormat; 3] = [
    CiphertextFormat::C1C3C2,
    CiphertextFormat::C1C2C3,
    CiphertextFormat::Der,
];

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let sel = c.u8();
    let k: [u8; 32] = c.array();
    let body = c.rest();
    let key = sm2_key();
    let fmt = [
        None,
        Some(CiphertextFormat::C1C3C2),
        Some(CiphertextFormat::C1C2C3),
        Some(CiphertextFormat::Der),
    ][(sel % 4) as usize];

    if sel & 8 != 0 {
        let (len, c1) = body.split_first().unwrap_or((&0, &[]));
        match key.decapsulate(c1, *len as usize) {
            Ok(kk) => assert_eq!(kk.len(), *len as usize),
            Err(e) => assert!(
                e == Error::DecryptionFailed
                    || (*len == 0 && matches!(e, Error::InvalidLength { .. })),
                "decapsulate error {e:?}"
            ),
        }
        return;
    }

    let parsed = CiphertextParts::parse::<Sm2p256>(body, fmt);
    match key.decrypt(body, fmt) {
        Ok(m) => {
            let parts = parsed.clone().expect("decrypted what does not parse");
            assert_eq!(key.decrypt_parts(&parts).unwrap(), m);
            for to in LAYOUTS {
                for prefix in [false, true] {
                    let conv = convert_ciphertext::<Sm2p256>(body, fmt, to, prefix).unwrap();
                    assert_eq!(key.decrypt(&conv, Some(to)).unwrap(), m, "{to:?} {prefix}");
                }
            }
        }
        Err(e) => assert_eq!(e, Error::DecryptionFailed),
    }
    if let Ok(p) = &parsed {
        let on_curve = PublicKey::<Sm2p256>::from_coordinates(&p.c1_x, &p.c1_y).is_ok();
        for to in LAYOUTS {
            for prefix in [false, true] {
                let enc = p.encode(to, prefix);
                // Raw C1 with 04 is read as 65 bytes only when that point is on the curve;
                // without 04 an x1 starting with 04/06/07 could be read either way, and
                // one starting with 02/03 is read as compressed when x1||y1 is off the curve.
                let x0 = p.c1_x[0];
                let ambiguous = to != CiphertextFormat::Der
                    && ((!on_curve && (prefix || matches!(x0, 2 | 3)))
                        || (!prefix && matches!(x0, 4 | 6 | 7)));
                if !ambiguous {
                    assert_eq!(
                        &CiphertextParts::parse::<Sm2p256>(&enc, Some(to)).unwrap(),
                        p,
                        "{to:?} prefix={prefix}"
                    );
                }
            }
        }
    }

    if sel & 4 != 0 {
        let msg = &body[..body.len().min(512)];
        let Ok(parts) = hazmat::encrypt_with_fixed_k_for_testing(key.public_key(), msg, &k) else {
            return;
        };
        assert_eq!(&key.decrypt_parts(&parts).unwrap()[..], msg);
        for to in LAYOUTS {
            for prefix in [false, true] {
                let enc = parts.encode(to, prefix);
                assert_eq!(&key.decrypt(&enc, Some(to)).unwrap()[..], msg);
                if to == CiphertextFormat::C1C3C2 || to == CiphertextFormat::Der {
                    assert_eq!(&key.decrypt(&enc, None).unwrap()[..], msg);
                }
            }
        }
        let mut bad = parts.clone();
        bad.c3[0] ^= 1;
        assert_eq!(key.decrypt_parts(&bad), Err(Error::DecryptionFailed));
        if !msg.is_empty() {
            let mut bad = parts.clone();
            bad.c2[0] ^= 0x80;
            assert_eq!(key.decrypt_parts(&bad), Err(Error::DecryptionFailed));
        }
    }
});
