//! The record layer (GB/T 38636-2020 §6.3.3): framing, size limits, and record
//! protection for the SM4-CBC + HMAC-SM3 and SM4-GCM suites.
//!
//! * Framing: `type(1) || version(2) = 0x0101 || length(2) || fragment`. A plaintext
//!   fragment is at most 2^14 bytes; a protected one at most 2^14 + 2048 (§6.3.3.3); a
//!   larger length is `record_overflow` before anything is buffered.
//! * CBC (MAC-then-encrypt, §6.3.3.4.2): MAC = HMAC-SM3(MAC key, seq_num(8) || type ||
//!   version || length || fragment); then fragment || MAC || padding (each padding byte
//!   and the final padding-length byte equal to the padding length; we send the minimum)
//!   is SM4-CBC-encrypted under a fresh random 16-byte IV sent before the ciphertext
//!   (the "explicit IV" of TLS 1.1; the key block's IVs are derived but unused, as in
//!   GmSSL).
//! * Receiving CBC (the Lucky 13 countermeasure): constant time with respect to the
//!   decrypted bytes. The padding is checked over the maximum 256 bytes with masks; the
//!   HMAC runs over the secret-length data with
//!   `guomi_core::sm3::hmac::HmacSm3::tag_secret_len` (the same compressions and memory
//!   accesses for every padding length); the received MAC is copied out of every possible
//!   position with masks; bad padding and a bad MAC are one error, `bad_record_mac`,
//!   decided by one `subtle` choice at the end, the only value declassified (with the
//!   accepted record's length). `scripts/ct-check.sh` runs this under valgrind
//!   (check `tlcp-cbc-record`).
//! * GCM (§6.3.3.4.4, as RFC 5288): nonce = the 4-byte implicit salt from the key block
//!   || an 8-byte explicit nonce sent at the start of the fragment; AAD = seq_num(8) ||
//!   type || version || plaintext length; tag 16 bytes. We send the sequence number as
//!   the explicit nonce, so a nonce never repeats under one key (the sequence number
//!   never wraps); we accept whatever explicit nonce the peer sends.
//! * Sequence numbers are 64-bit per direction, start at 0 for each new protection
//!   state, and never wrap: the record that would use 2^64 - 1 is refused
//!   ([`Error::SequenceExhausted`]).

use crate::error::{AlertDescription, Error, Result};
use guomi_core::sm3::hmac::HmacSm3;
use guomi_core::sm4::gcm::Sm4Gcm;
use guomi_core::sm4::{modes, Mode, Padding, Sm4};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater};
use zeroize::Zeroize;

/// The TLCP protocol version, 1.1.
pub const VERSION: u16 = 0x0101;
/// Record header length.
pub const HEADER_LEN: usize = 5;
/// Largest plaintext fragment (2^14).
pub const MAX_FRAGMENT: usize = 1 << 14;
/// Largest protected fragment (2^14 + 2048).
pub const MAX_CIPHERTEXT: usize = MAX_FRAGMENT + 2048;

const MAC_LEN: usize = 32;
const BLOCK: usize = 16;
const GCM_EXPLICIT: usize = 8;
const GCM_TAG: usize = 16;

/// Record content types (§6.3.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentType {
    /// 20.
    ChangeCipherSpec,
    /// 21.
    Alert,
    /// 22.
    Handshake,
    /// 23.
    ApplicationData,
}

impl ContentType {
    /// The wire value.
    pub fn to_byte(self) -> u8 {
        match self {
            ContentType::ChangeCipherSpec => 20,
            ContentType::Alert => 21,
            ContentType::Handshake => 22,
            ContentType::ApplicationData => 23,
        }
    }

    /// From the wire value; anything else is `unexpected_message`.
    pub fn from_byte(b: u8) -> Result<Self> {
        Ok(match b {
            20 => ContentType::ChangeCipherSpec,
            21 => ContentType::Alert,
            22 => ContentType::Handshake,
            23 => ContentType::ApplicationData,
            _ => {
                return Err(Error::unexpected(format!(
                    "unknown record content type {b}"
                )));
            }
        })
    }
}

/// Reads a record header from the start of `buf`: `Ok(None)` while fewer than 5 bytes
/// are there, else the content type and fragment length, after checking the version
/// (exactly 0x0101) and the length limit (`max` = [`MAX_FRAGMENT`] before protection is
/// on, [`MAX_CIPHERTEXT`] after).
pub fn parse_header(buf: &[u8], max: usize) -> Result<Option<(ContentType, usize)>> {
    if buf.len() < HEADER_LEN {
        return Ok(None);
    }
    let typ = ContentType::from_byte(buf[0])?;
    let version = u16::from_be_bytes([buf[1], buf[2]]);
    if version != VERSION {
        return Err(Error::protocol(
            AlertDescription::ProtocolVersion,
            format!("record version {version:#06x}, expected 0x0101"),
        ));
    }
    let len = usize::from(u16::from_be_bytes([buf[3], buf[4]]));
    if len > max {
        return Err(Error::protocol(
            AlertDescription::RecordOverflow,
            format!("record of {len} bytes (at most {max})"),
        ));
    }
    Ok(Some((typ, len)))
}

fn header(typ: ContentType, len: usize) -> [u8; HEADER_LEN] {
    let v = VERSION.to_be_bytes();
    let l = (len as u16).to_be_bytes();
    [typ.to_byte(), v[0], v[1], l[0], l[1]]
}

fn bad_mac() -> Error {
    Error::protocol(
        AlertDescription::BadRecordMac,
        "record authentication failed",
    )
}

enum Protection {
    Null,
    Cbc { mac: Box<HmacSm3>, cipher: Box<Sm4> },
    Gcm { aead: Box<Sm4Gcm>, salt: [u8; 4] },
}

/// One direction's protection state: the keys and the sequence number.
pub struct RecordState {
    prot: Protection,
    seq: u64,
}

impl core::fmt::Debug for RecordState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kind = match self.prot {
            Protection::Null => "null",
            Protection::Cbc { .. } => "SM4-CBC/HMAC-SM3",
            Protection::Gcm { .. } => "SM4-GCM",
        };
        f.debug_struct("RecordState")
            .field("protection", &kind)
            .field("seq", &self.seq)
            .finish()
    }
}

impl RecordState {
    /// No protection (before the first ChangeCipherSpec).
    pub fn null() -> Self {
        RecordState {
            prot: Protection::Null,
            seq: 0,
        }
    }

    /// SM4-CBC with HMAC-SM3.
    pub fn cbc(mac_key: &[u8; 32], enc_key: &[u8; 16]) -> Self {
        RecordState {
            prot: Protection::Cbc {
                mac: Box::new(HmacSm3::new(mac_key)),
                cipher: Box::new(Sm4::new(enc_key)),
            },
            seq: 0,
        }
    }

    /// SM4-GCM with the 4-byte implicit nonce part.
    pub fn gcm(key: &[u8; 16], salt: &[u8; 4]) -> Self {
        RecordState {
            prot: Protection::Gcm {
                aead: Box::new(Sm4Gcm::new(key)),
                salt: *salt,
            },
            seq: 0,
        }
    }

    /// Whether records are protected.
    pub fn is_protected(&self) -> bool {
        !matches!(self.prot, Protection::Null)
    }

    /// The largest fragment length this state accepts.
    pub fn max_fragment(&self) -> usize {
        if self.is_protected() {
            MAX_CIPHERTEXT
        } else {
            MAX_FRAGMENT
        }
    }

    /// The next record's sequence number (none past 2^64 - 2: never wraps).
    pub fn sequence(&self) -> u64 {
        self.seq
    }

    /// Test and fuzz hook: sets the next sequence number. Not for production use.
    #[doc(hidden)]
    pub fn set_sequence_for_testing(&mut self, seq: u64) {
        self.seq = seq;
    }

    fn next_seq(&mut self) -> Result<u64> {
        if self.seq == u64::MAX {
            return Err(Error::SequenceExhausted);
        }
        let s = self.seq;
        self.seq += 1;
        Ok(s)
    }

    /// Protects one fragment (at most [`MAX_FRAGMENT`] bytes) and returns the whole
    /// record, header included.
    pub fn seal(&mut self, typ: ContentType, fragment: &[u8]) -> Result<Vec<u8>> {
        if fragment.len() > MAX_FRAGMENT {
            return Err(Error::Misuse("record fragment over 2^14 bytes"));
        }
        let seq = self.next_seq()?;
        match &self.prot {
            Protection::Null => {
                let mut out = header(typ, fragment.len()).to_vec();
                out.extend_from_slice(fragment);
                Ok(out)
            }
            Protection::Cbc { mac, cipher } => {
                let mut h = (**mac).clone();
                h.update(&seq.to_be_bytes());
                h.update(&header(typ, fragment.len()));
                h.update(fragment);
                let tag = h.finalize();
                // Minimum padding: pad_len + 1 bytes of value pad_len fill the last block.
                let pad_len = BLOCK - 1 - (fragment.len() + MAC_LEN) % BLOCK;
                let body_len = fragment.len() + MAC_LEN + pad_len + 1;
                let mut body = Vec::with_capacity(body_len);
                body.extend_from_slice(fragment);
                body.extend_from_slice(&tag);
                body.resize(body_len, pad_len as u8);
                let iv: [u8; BLOCK] = guomi_core::rand::bytes()?;
                let total = BLOCK + body_len;
                let mut out = Vec::with_capacity(HEADER_LEN + total);
                out.extend_from_slice(&header(typ, total));
                out.extend_from_slice(&iv);
                let start = out.len();
                out.resize(start + body_len, 0);
                modes::encrypt_into(
                    cipher,
                    Mode::Cbc,
                    Some(&iv),
                    Some(Padding::None),
                    &body,
                    &mut out[start..],
                )?;
                body.zeroize();
                Ok(out)
            }
            Protection::Gcm { aead, salt } => {
                let explicit = seq.to_be_bytes();
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(salt);
                nonce[4..].copy_from_slice(&explicit);
                let aad = aad(seq, typ.to_byte(), fragment.len());
                let total = GCM_EXPLICIT + fragment.len() + GCM_TAG;
                let mut out = Vec::with_capacity(HEADER_LEN + total);
                out.extend_from_slice(&header(typ, total));
                out.extend_from_slice(&explicit);
                let start = out.len();
                out.resize(start + fragment.len() + GCM_TAG, 0);
                aead.encrypt_into(&nonce, &aad, fragment, &mut out[start..])?;
                Ok(out)
            }
        }
    }

    /// Removes the protection of one record's fragment (its header already parsed);
    /// returns the plaintext (at most [`MAX_FRAGMENT`] bytes, else `record_overflow`).
    pub fn open(&mut self, typ: ContentType, fragment: &[u8]) -> Result<Vec<u8>> {
        if fragment.len() > self.max_fragment() {
            return Err(Error::protocol(
                AlertDescription::RecordOverflow,
                "record over the length limit",
            ));
        }
        let seq = self.next_seq()?;
        let plain = match &self.prot {
            Protection::Null => fragment.to_vec(),
            Protection::Cbc { mac, cipher } => cbc_open(mac, cipher, seq, typ, fragment)?,
            Protection::Gcm { aead, salt } => {
                if fragment.len() < GCM_EXPLICIT + GCM_TAG {
                    return Err(bad_mac());
                }
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(salt);
                nonce[4..].copy_from_slice(&fragment[..GCM_EXPLICIT]);
                let body = &fragment[GCM_EXPLICIT..];
                let plen = body.len() - GCM_TAG;
                let aad = aad(seq, typ.to_byte(), plen);
                let mut out = vec![0u8; plen];
                aead.decrypt_into(&nonce, &aad, body, GCM_TAG, &mut out)
                    .map_err(|_| bad_mac())?;
                out
            }
        };
        if plain.len() > MAX_FRAGMENT {
            return Err(Error::protocol(
                AlertDescription::RecordOverflow,
                "decrypted record over 2^14 bytes",
            ));
        }
        Ok(plain)
    }
}

fn aad(seq: u64, typ: u8, len: usize) -> [u8; 13] {
    let mut a = [0u8; 13];
    a[..8].copy_from_slice(&seq.to_be_bytes());
    a[8] = typ;
    a[9..11].copy_from_slice(&VERSION.to_be_bytes());
    a[11..13].copy_from_slice(&(len as u16).to_be_bytes());
    a
}

/// a <= b, constant time.
fn ct_le(a: usize, b: usize) -> Choice {
    !(a as u64).ct_gt(&(b as u64))
}

/// CBC record check in constant time with respect to the padding length (module docs).
fn cbc_open(
    mac: &HmacSm3,
    cipher: &Sm4,
    seq: u64,
    typ: ContentType,
    fragment: &[u8],
) -> Result<Vec<u8>> {
    // Public lengths only: IV + at least one block holding MAC (32) + padding (>= 1).
    if fragment.len() < BLOCK + 48 || !fragment.len().is_multiple_of(BLOCK) {
        return Err(bad_mac());
    }
    let (iv, ct) = fragment.split_at(BLOCK);
    let mut p = vec![0u8; ct.len()];
    modes::decrypt_into_unpadded(cipher, Mode::Cbc, Some(iv), ct, &mut p)?;
    let l = p.len();
    let pad = usize::from(p[l - 1]);
    // The padding fits: pad + 1 + MAC_LEN <= l.
    let mut good = ct_le(pad + 1 + MAC_LEN, l);
    // Every padding byte equals pad: scan the last 256 bytes (all a padding can cover)
    // or the whole plaintext when shorter, masking the bytes outside the padding.
    let scan = l.min(256);
    for i in 0..scan {
        let in_pad = ct_le(i, pad);
        good &= !in_pad | p[l - 1 - i].ct_eq(&(pad as u8));
    }
    // With bad padding, MAC as though there were none (pad = 0), as TLS 1.2 advises.
    let pad_eff = usize::conditional_select_usize(0, pad, good);
    let max_data = l - 1 - MAC_LEN;
    let data_len = max_data - pad_eff;
    // The MAC over seq ∥ header ∥ data[..data_len] with the same compressions and memory
    // accesses whatever data_len is (the header's length bytes are secret too).
    let mut prefix = [0u8; 8 + HEADER_LEN];
    prefix[..8].copy_from_slice(&seq.to_be_bytes());
    prefix[8..].copy_from_slice(&header(typ, data_len));
    let expected = mac.tag_secret_len(
        &prefix,
        &p[..max_data],
        data_len,
        max_data.saturating_sub(255),
    )?;
    // The received MAC starts at data_len, somewhere in the last 32 + 256 bytes: copy it
    // out of every candidate position with masks.
    let mut received = [0u8; MAC_LEN];
    let first = (l - 1 - MAC_LEN).saturating_sub(255);
    for off in first..=(l - 1 - MAC_LEN) {
        let here = (off as u64).ct_eq(&(data_len as u64));
        for (j, r) in received.iter_mut().enumerate() {
            r.conditional_assign(&p[off + j], here);
        }
    }
    good &= expected.ct_eq(&received);
    // Public by design: the record is refused or accepted, and an accepted record's
    // length is the peer's to know.
    if !guomi_core::ct::declassify_choice(good) {
        p.zeroize();
        return Err(bad_mac());
    }
    p.truncate(guomi_core::ct::declassify(data_len));
    Ok(p)
}

trait SelectUsize {
    fn conditional_select_usize(a: usize, b: usize, choice: Choice) -> usize;
}

impl SelectUsize for usize {
    /// `b` when `choice` is set, else `a`, without a branch.
    fn conditional_select_usize(a: usize, b: usize, choice: Choice) -> usize {
        u64::conditional_select(&(a as u64), &(b as u64), choice) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(gcm: bool) -> (RecordState, RecordState) {
        if gcm {
            (
                RecordState::gcm(&[7; 16], &[1, 2, 3, 4]),
                RecordState::gcm(&[7; 16], &[1, 2, 3, 4]),
            )
        } else {
            (
                RecordState::cbc(&[9; 32], &[7; 16]),
                RecordState::cbc(&[9; 32], &[7; 16]),
            )
        }
    }

    fn split(rec: &[u8]) -> (ContentType, &[u8]) {
        let (t, n) = parse_header(rec, MAX_CIPHERTEXT).unwrap().unwrap();
        assert_eq!(n, rec.len() - HEADER_LEN);
        (t, &rec[HEADER_LEN..])
    }

    #[test]
    fn round_trip_all_lengths() {
        for gcm in [false, true] {
            let (mut w, mut r) = pair(gcm);
            for len in (0..70).chain([MAX_FRAGMENT - 1, MAX_FRAGMENT]) {
                let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let rec = w.seal(ContentType::ApplicationData, &msg).unwrap();
                let (t, frag) = split(&rec);
                assert_eq!(t, ContentType::ApplicationData);
                assert_eq!(r.open(t, frag).unwrap(), msg);
            }
        }
    }

    #[test]
    fn cbc_layout_and_minimum_padding() {
        let (mut w, _) = pair(false);
        // 0 + 32 MAC + 16 padding = 48; 15 + 32 + 1 = 48; 16 + 32 + 16 = 64.
        for (len, body) in [(0, 48), (15, 48), (16, 64)] {
            let rec = w.seal(ContentType::Handshake, &vec![0; len]).unwrap();
            assert_eq!(rec.len(), HEADER_LEN + 16 + body);
        }
    }

    #[test]
    fn gcm_layout_uses_sequence_as_explicit_nonce() {
        let (mut w, _) = pair(true);
        w.seal(ContentType::Handshake, b"x").unwrap();
        let rec = w.seal(ContentType::Handshake, b"abc").unwrap();
        assert_eq!(rec.len(), HEADER_LEN + 8 + 3 + 16);
        assert_eq!(&rec[5..13], &1u64.to_be_bytes());
    }

    #[test]
    fn tampering_any_byte_fails() {
        for gcm in [false, true] {
            let (mut w, _) = pair(gcm);
            let rec = w
                .seal(ContentType::ApplicationData, b"hello world")
                .unwrap();
            for i in HEADER_LEN..rec.len() {
                let mut bad = rec.clone();
                bad[i] ^= 0x01;
                let (_, mut r) = pair(gcm);
                let e = r
                    .open(ContentType::ApplicationData, &bad[HEADER_LEN..])
                    .unwrap_err();
                assert_eq!(e.alert(), Some(AlertDescription::BadRecordMac), "byte {i}");
            }
            // Type is authenticated too.
            let (_, mut r) = pair(gcm);
            assert!(r.open(ContentType::Handshake, &rec[HEADER_LEN..]).is_err());
        }
    }

    #[test]
    fn replay_and_reorder_fail() {
        for gcm in [false, true] {
            let (mut w, mut r) = pair(gcm);
            let a = w.seal(ContentType::ApplicationData, b"a").unwrap();
            let b = w.seal(ContentType::ApplicationData, b"b").unwrap();
            assert!(r.open(ContentType::ApplicationData, &b[5..]).is_err());
            let (_, mut r) = pair(gcm);
            r.open(ContentType::ApplicationData, &a[5..]).unwrap();
            assert!(r.open(ContentType::ApplicationData, &a[5..]).is_err());
        }
    }

    /// Builds a CBC record by hand with a chosen (possibly wrong) padding and MAC.
    fn forge_cbc(data: &[u8], pad_len: usize, pad_byte: u8, good_mac: bool) -> Vec<u8> {
        let mut h = HmacSm3::new(&[9; 32]);
        h.update(&0u64.to_be_bytes());
        h.update(&header(ContentType::ApplicationData, data.len()));
        h.update(data);
        let mut tag = h.finalize();
        if !good_mac {
            tag[0] ^= 1;
        }
        let mut body = data.to_vec();
        body.extend_from_slice(&tag);
        body.extend(std::iter::repeat_n(pad_byte, pad_len));
        body.push(pad_len as u8);
        assert_eq!(body.len() % 16, 0);
        let iv = [3u8; 16];
        let mut out = iv.to_vec();
        out.extend(
            modes::encrypt(
                &Sm4::new(&[7; 16]),
                Mode::Cbc,
                Some(&iv),
                Some(Padding::None),
                &body,
            )
            .unwrap(),
        );
        out
    }

    #[test]
    fn cbc_padding_checks() {
        // Longer-than-minimum padding is valid (255 bytes: 1 + 32 + 255 + 1 = 289? pick
        // data so the total is a block multiple).
        let data = vec![5u8; 15];
        let frag = forge_cbc(&data, 0, 0, true);
        let (_, mut r) = pair(false);
        assert_eq!(r.open(ContentType::ApplicationData, &frag).unwrap(), data);
        let data = vec![5u8; 14];
        let frag = forge_cbc(&data, 241, 241, true); // 14 + 32 + 241 + 1 = 288
        let (_, mut r) = pair(false);
        assert_eq!(r.open(ContentType::ApplicationData, &frag).unwrap(), data);
        // A wrong padding byte, a padding longer than the record, a bad MAC: all
        // bad_record_mac.
        for (frag, what) in [
            (forge_cbc(&data, 241, 240, true), "bad padding byte"),
            (forge_cbc(&[5u8; 15], 0, 0, false), "bad MAC"),
        ] {
            let (_, mut r) = pair(false);
            let e = r.open(ContentType::ApplicationData, &frag).unwrap_err();
            assert_eq!(e.alert(), Some(AlertDescription::BadRecordMac), "{what}");
        }
        // Padding length byte larger than the plaintext.
        let mut body = vec![200u8; 48];
        body[47] = 200;
        let iv = [3u8; 16];
        let mut frag = iv.to_vec();
        frag.extend(
            modes::encrypt(
                &Sm4::new(&[7; 16]),
                Mode::Cbc,
                Some(&iv),
                Some(Padding::None),
                &body,
            )
            .unwrap(),
        );
        let (_, mut r) = pair(false);
        assert!(r.open(ContentType::ApplicationData, &frag).is_err());
    }

    #[test]
    fn short_and_misaligned_fragments() {
        for gcm in [false, true] {
            for n in [0, 1, 15, 16, 23, 47, 63, 65] {
                let (_, mut r) = pair(gcm);
                let e = r
                    .open(ContentType::ApplicationData, &vec![0u8; n])
                    .unwrap_err();
                assert_eq!(e.alert(), Some(AlertDescription::BadRecordMac), "{n}");
            }
        }
    }

    #[test]
    fn oversize() {
        let mut hdr = vec![23, 1, 1];
        hdr.extend_from_slice(&((MAX_FRAGMENT + 1) as u16).to_be_bytes());
        let e = parse_header(&hdr, MAX_FRAGMENT).unwrap_err();
        assert_eq!(e.alert(), Some(AlertDescription::RecordOverflow));
        assert!(parse_header(&hdr, MAX_CIPHERTEXT).unwrap().is_some());
        hdr[3..5].copy_from_slice(&((MAX_CIPHERTEXT + 1) as u16).to_be_bytes());
        assert!(parse_header(&hdr, MAX_CIPHERTEXT).is_err());
        // A sender never produces more than 2^14 of plaintext.
        let (mut w, _) = pair(true);
        assert!(w
            .seal(ContentType::ApplicationData, &vec![0; MAX_FRAGMENT + 1])
            .is_err());
        // A protected record whose plaintext exceeds 2^14 is record_overflow.
        let (_, mut r) = pair(true);
        let big = vec![0u8; MAX_FRAGMENT + 1];
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(&[1, 2, 3, 4]);
        let ct = Sm4Gcm::new(&[7; 16])
            .encrypt(&nonce, &aad(0, 23, big.len()), &big)
            .unwrap();
        let mut frag = vec![0u8; 8];
        frag.extend(ct);
        let e = r.open(ContentType::ApplicationData, &frag).unwrap_err();
        assert_eq!(e.alert(), Some(AlertDescription::RecordOverflow));
    }

    #[test]
    fn header_checks() {
        assert!(parse_header(&[23, 1, 1, 0], MAX_FRAGMENT)
            .unwrap()
            .is_none());
        let e = parse_header(&[23, 3, 3, 0, 1], MAX_FRAGMENT).unwrap_err();
        assert_eq!(e.alert(), Some(AlertDescription::ProtocolVersion));
        let e = parse_header(&[24, 1, 1, 0, 1], MAX_FRAGMENT).unwrap_err();
        assert_eq!(e.alert(), Some(AlertDescription::UnexpectedMessage));
    }

    #[test]
    fn sequence_exhaustion() {
        for gcm in [false, true] {
            let (mut w, mut r) = pair(gcm);
            w.seq = u64::MAX - 1;
            r.seq = u64::MAX - 1;
            let rec = w.seal(ContentType::ApplicationData, b"last").unwrap();
            assert_eq!(
                r.open(ContentType::ApplicationData, &rec[5..]).unwrap(),
                b"last"
            );
            assert_eq!(
                w.seal(ContentType::ApplicationData, b"wrap").unwrap_err(),
                Error::SequenceExhausted
            );
            assert_eq!(
                r.open(ContentType::ApplicationData, &rec[5..]).unwrap_err(),
                Error::SequenceExhausted
            );
        }
    }

    #[test]
    fn null_state_passes_through() {
        let mut w = RecordState::null();
        let rec = w.seal(ContentType::Handshake, b"abc").unwrap();
        assert_eq!(rec, [22, 1, 1, 0, 3, b'a', b'b', b'c']);
    }
}
