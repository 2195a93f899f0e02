//! BER to DER for PKCS#12 files (BouncyCastle's `KeyStore` and Java write
//! indefinite lengths and constructed OCTET STRINGs). Only what X.690 §10 changes is
//! normalized: lengths become definite and minimal, constructed OCTET STRINGs become
//! primitive. Bounded: nesting at most [`MAX_NESTING`], single-byte tags only.

use guomi_core::error::{Error, Result};

/// Deepest nesting accepted.
pub const MAX_NESTING: usize = 24;

fn bad() -> Error {
    Error::UnsupportedFormat("malformed PKCS#12 (BER/DER)")
}

/// `input` (one BER value, nothing after it) as DER.
pub fn to_der(input: &[u8]) -> Result<Vec<u8>> {
    let mut pos = 0;
    let (tag, content) = parse(input, &mut pos, 0)?;
    if pos != input.len() {
        return Err(bad());
    }
    Ok(super::der_w::tlv(tag, &content))
}

fn parse(d: &[u8], pos: &mut usize, depth: usize) -> Result<(u8, Vec<u8>)> {
    if depth > MAX_NESTING {
        return Err(Error::UnsupportedFormat("PKCS#12: nesting too deep"));
    }
    let tag = *d.get(*pos).ok_or_else(bad)?;
    if tag & 0x1f == 0x1f || tag == 0 {
        return Err(bad());
    }
    let first = *d.get(*pos + 1).ok_or_else(bad)?;
    *pos += 2;
    let constructed = tag & 0x20 != 0;
    let end = match first {
        0x80 => {
            if !constructed {
                return Err(bad());
            }
            None
        }
        n if n < 0x80 => Some(n as usize),
        0x81..=0x84 => {
            let k = (first & 0x7f) as usize;
            let bytes = d.get(*pos..*pos + k).ok_or_else(bad)?;
            *pos += k;
            Some(bytes.iter().fold(0usize, |a, b| (a << 8) | usize::from(*b)))
        }
        _ => return Err(bad()),
    };
    let end = match end {
        Some(len) => {
            let e = pos.checked_add(len).ok_or_else(bad)?;
            if e > d.len() {
                return Err(bad());
            }
            Some(e)
        }
        None => None,
    };
    if !constructed {
        let e = end.ok_or_else(bad)?;
        let content = d[*pos..e].to_vec();
        *pos = e;
        return Ok((tag, content));
    }
    let mut content = Vec::new();
    loop {
        match end {
            Some(e) if *pos == e => break,
            Some(e) if *pos > e => return Err(bad()),
            None if d.get(*pos..*pos + 2) == Some(&[0, 0]) => {
                *pos += 2;
                break;
            }
            _ => {}
        }
        let (t, c) = parse(d, pos, depth + 1)?;
        if tag == 0x24 {
            // A constructed OCTET STRING: its segments are OCTET STRINGs.
            if t != 0x04 {
                return Err(bad());
            }
            content.extend_from_slice(&c);
        } else {
            content.extend_from_slice(&super::der_w::tlv(t, &c));
        }
    }
    Ok((if tag == 0x24 { 0x04 } else { tag }, content))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_indefinite_lengths_and_segmented_octets() {
        // SEQUENCE(indef) { INTEGER 3, OCTET STRING(constructed, indef) { "ab", "c" } }
        let ber = [
            0x30, 0x80, 2, 1, 3, 0x24, 0x80, 4, 2, b'a', b'b', 4, 1, b'c', 0, 0, 0, 0,
        ];
        assert_eq!(
            to_der(&ber).unwrap(),
            [0x30, 8, 2, 1, 3, 4, 3, b'a', b'b', b'c']
        );
        // DER is unchanged.
        let der = [0x30, 3, 2, 1, 3];
        assert_eq!(to_der(&der).unwrap(), der);
        // Long-form lengths are made minimal.
        assert_eq!(to_der(&[4, 0x81, 1, 7]).unwrap(), [4, 1, 7]);
    }

    #[test]
    fn rejects_malformed() {
        for bad_input in [
            &[][..],
            &[0x30],
            &[0x30, 0x80],                // no end-of-contents
            &[0x04, 0x80, 0, 0],          // indefinite primitive
            &[0x30, 3, 2, 1],             // short
            &[0x24, 0x80, 2, 1, 1, 0, 0], // a segment that is not an OCTET STRING
            &[0x30, 0, 0],                // trailing byte
            &[0x1f, 1, 0],                // high tag number
            &[0x30, 0x85, 0, 0, 0, 0, 0], // length of length 5
        ] {
            assert!(to_der(bad_input).is_err(), "{bad_input:?}");
        }
        let mut deep: Vec<u8> = [0x30, 0x80].repeat(MAX_NESTING + 2);
        deep.extend(vec![0u8; 2 * (MAX_NESTING + 2)]);
        assert!(to_der(&deep).is_err());
    }
}
