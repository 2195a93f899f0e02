//! The guomi envelope: a documented, versioned streaming format for encrypting data of
//! any size to an SM2 public key, an SM9 identity, a password or a raw SM4 key, with
//! SM4-GCM chunks. See docs/envelope.md for the byte layout; in short:
//!
//! ```text
//! header = magic "GUOMIENV" | version 1 | kem | chunk_log2 | flags 0 | salt[16]
//!          | kem_len (u16 BE) | kem_data
//! key    = HKDF-SM3(ikm = kem secret, salt = salt, info = "guomi envelope v1" || header)[..16]
//! chunk i = SM4-GCM(key, nonce = i (u64 BE) || last (u32 BE: 1 for the last chunk, else 0),
//!                   aad = empty, plaintext = next chunk_size bytes (the last: 0..=chunk_size))
//! ```
//! The header is bound to the key, the chunk index and the last-chunk flag to each nonce:
//! truncation, reordering, splicing and tampering are all detected. The opener releases
//! only plaintext whose chunk tag has been verified.
//!
//! Every number in a header is bounded before it is used: the chunk size is 2^10 to 2^24
//! bytes, `kem_len` at most 65535, and a password envelope's PBKDF2 iteration count 1 to
//! [`MAX_ITERATIONS`] (the bound shared with encrypted PKCS#8 keys); anything else is
//! `UnsupportedFormat` before any key derivation runs. Buffered plaintext (the sealer's
//! pending chunk) lives in zeroizing memory that is allocated once and never grows.

use guomi_core::error::{Error, Result};
use guomi_core::sm3::kdf::{self, hkdf, pbkdf2_hmac_sm3};
use guomi_core::sm4::gcm::Sm4Gcm;
use zeroize::Zeroizing;

/// First bytes of every envelope.
pub const MAGIC: &[u8; 8] = b"GUOMIENV";
/// The format version this code writes and reads.
pub const VERSION: u8 = 1;
/// GCM tag length per chunk.
pub const TAG_SIZE: usize = 16;
/// Default chunk size: 2^16 = 64 KiB of plaintext per chunk.
pub const DEFAULT_CHUNK_LOG2: u8 = 16;
/// Smallest chunk size: 2^10 = 1 KiB.
pub const MIN_CHUNK_LOG2: u8 = 10;
/// Largest chunk size: 2^24 = 16 MiB.
pub const MAX_CHUNK_LOG2: u8 = 24;
/// Largest PBKDF2 iteration count of a password envelope, written or read
/// ([`kdf::MAX_PBKDF2_ITERATIONS`], shared with encrypted PKCS#8 keys).
pub const MAX_ITERATIONS: u32 = kdf::MAX_PBKDF2_ITERATIONS;
const FIXED_HEADER: usize = 8 + 4 + 16 + 2;
const INFO: &[u8] = b"guomi envelope v1";

/// How the content key is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kem {
    /// SM2 key encapsulation to a public key; `kem_data` = C1 (65 bytes, 04 || x || y).
    Sm2 = 1,
    /// SM9 key encapsulation to an identity; `kem_data` = C (65 bytes, 04 || x || y).
    Sm9 = 2,
    /// PBKDF2-HMAC-SM3 of a password with the header's salt; `kem_data` = iterations (u32 BE).
    Password = 3,
    /// A raw 16-byte SM4 key shared out of band; `kem_data` empty.
    Key = 4,
}

impl Kem {
    fn from_u8(v: u8) -> Result<Kem> {
        Ok(match v {
            1 => Kem::Sm2,
            2 => Kem::Sm9,
            3 => Kem::Password,
            4 => Kem::Key,
            _ => return Err(Error::UnsupportedFormat("unknown envelope key type")),
        })
    }
}

/// A parsed envelope header.
#[derive(Clone, Debug)]
pub struct Header {
    /// Key type.
    pub kem: Kem,
    /// log2 of the plaintext chunk size.
    pub chunk_log2: u8,
    /// Random per-envelope salt.
    pub salt: [u8; 16],
    /// KEM data (see [`Kem`]).
    pub kem_data: Vec<u8>,
    /// The header's exact bytes.
    pub bytes: Vec<u8>,
}

impl Header {
    /// Builds a header with a fresh random salt.
    pub fn new(kem: Kem, chunk_log2: u8, kem_data: Vec<u8>) -> Result<Header> {
        if !(MIN_CHUNK_LOG2..=MAX_CHUNK_LOG2).contains(&chunk_log2) {
            return Err(Error::InvalidValue("chunk size must be 2^10 to 2^24 bytes"));
        }
        if kem_data.len() > u16::MAX as usize {
            return Err(Error::InvalidValue("KEM data too long"));
        }
        if kem == Kem::Password {
            let iterations = password_iterations(&kem_data).ok_or(Error::InvalidValue(
                "password KEM data is the iteration count (4 bytes)",
            ))?;
            kdf::check_pbkdf2_iterations(u64::from(iterations))?;
        }
        let salt = guomi_core::rand::bytes::<16>()?;
        let mut bytes = Vec::with_capacity(FIXED_HEADER + kem_data.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&[VERSION, kem as u8, chunk_log2, 0]);
        bytes.extend_from_slice(&salt);
        bytes.extend_from_slice(&(kem_data.len() as u16).to_be_bytes());
        bytes.extend_from_slice(&kem_data);
        Ok(Header {
            kem,
            chunk_log2,
            salt,
            kem_data,
            bytes,
        })
    }

    /// Parses a header from the start of `data`. `Ok(None)`: more bytes are needed.
    pub fn parse(data: &[u8]) -> Result<Option<Header>> {
        let prefix = data.len().min(MAGIC.len());
        if data[..prefix] != MAGIC[..prefix] {
            return Err(Error::UnsupportedFormat("not a guomi envelope (bad magic)"));
        }
        if data.len() < FIXED_HEADER {
            return Ok(None);
        }
        if data[8] != VERSION {
            return Err(Error::UnsupportedFormat(
                "unsupported guomi envelope version",
            ));
        }
        let kem = Kem::from_u8(data[9])?;
        let chunk_log2 = data[10];
        if !(MIN_CHUNK_LOG2..=MAX_CHUNK_LOG2).contains(&chunk_log2) || data[11] != 0 {
            return Err(Error::UnsupportedFormat("malformed guomi envelope header"));
        }
        let kem_len = u16::from_be_bytes([data[28], data[29]]) as usize;
        let total = FIXED_HEADER + kem_len;
        if data.len() < total {
            return Ok(None);
        }
        let kem_data = &data[FIXED_HEADER..total];
        if kem == Kem::Password {
            // A hostile header must not make the reader run PBKDF2 for hours.
            match password_iterations(kem_data) {
                Some(n) if (1..=MAX_ITERATIONS).contains(&n) => {}
                Some(_) => {
                    return Err(Error::UnsupportedFormat(
                        "password envelope: PBKDF2 iteration count out of range (1 to 10000000)",
                    ))
                }
                None => return Err(Error::UnsupportedFormat("malformed guomi envelope header")),
            }
        }
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&data[12..28]);
        Ok(Some(Header {
            kem,
            chunk_log2,
            salt,
            kem_data: kem_data.to_vec(),
            bytes: data[..total].to_vec(),
        }))
    }

    /// Plaintext bytes per chunk.
    pub fn chunk_size(&self) -> usize {
        1 << self.chunk_log2
    }

    /// The SM4-GCM content key: HKDF-SM3 of the KEM secret, bound to the whole header.
    fn cipher(&self, secret: &[u8]) -> Result<Sm4Gcm> {
        let mut info = Vec::with_capacity(INFO.len() + self.bytes.len());
        info.extend_from_slice(INFO);
        info.extend_from_slice(&self.bytes);
        let mut key = Zeroizing::new([0u8; 16]);
        hkdf(secret, &self.salt, &info, &mut key[..])?;
        Ok(Sm4Gcm::new(&key))
    }

    /// The password secret: PBKDF2-HMAC-SM3(password, salt, iterations from kem_data),
    /// iterations 1 to [`MAX_ITERATIONS`].
    pub fn password_secret(&self, password: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
        let iterations = match password_iterations(&self.kem_data) {
            Some(n) if self.kem == Kem::Password => n,
            _ => return Err(Error::UnsupportedFormat("not a password envelope")),
        };
        if !(1..=MAX_ITERATIONS).contains(&iterations) {
            return Err(Error::UnsupportedFormat(
                "password envelope: PBKDF2 iteration count out of range (1 to 10000000)",
            ));
        }
        let mut secret = Zeroizing::new([0u8; 32]);
        pbkdf2_hmac_sm3(password, &self.salt, iterations, &mut secret[..])?;
        Ok(secret)
    }
}

/// The iteration count of a password envelope's KEM data (4 bytes, big-endian).
fn password_iterations(kem_data: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(kem_data.try_into().ok()?))
}

fn nonce(counter: u64, last: bool) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..8].copy_from_slice(&counter.to_be_bytes());
    n[8..].copy_from_slice(&u32::from(last).to_be_bytes());
    n
}

/// Streaming encryption. Output: the header, then the chunks.
pub struct Sealer {
    gcm: Sm4Gcm,
    chunk: usize,
    /// Plaintext of the pending chunk: allocated once at `chunk` bytes, never grown (so
    /// never copied by a reallocation), zeroized on drop.
    buf: Zeroizing<Vec<u8>>,
    counter: u64,
    header_pending: Option<Vec<u8>>,
    done: bool,
}

impl Sealer {
    /// A sealer for `header` whose KEM produced `secret`.
    pub fn new(header: Header, secret: &[u8]) -> Result<Sealer> {
        Ok(Sealer {
            gcm: header.cipher(secret)?,
            chunk: header.chunk_size(),
            buf: Zeroizing::new(Vec::with_capacity(header.chunk_size())),
            counter: 0,
            header_pending: Some(header.bytes),
            done: false,
        })
    }

    /// Encrypts the buffered plaintext as the next chunk.
    fn emit(&mut self, last: bool, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.resize(start + self.buf.len() + TAG_SIZE, 0);
        self.gcm.encrypt_into(
            &nonce(self.counter, last),
            &[],
            &self.buf,
            &mut out[start..],
        )?;
        self.buf.clear();
        self.counter += 1;
        Ok(())
    }

    /// Encrypts `data`, appending whatever output is ready to `out`.
    pub fn update(&mut self, mut data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        if self.done {
            return Err(Error::AlreadyFinalized);
        }
        if let Some(h) = self.header_pending.take() {
            out.extend_from_slice(&h);
        }
        out.reserve(data.len() + (data.len() / self.chunk + 1) * TAG_SIZE);
        while !data.is_empty() {
            // A full chunk is written only once more data follows it, so the last chunk
            // can be flagged at `finalize`. The buffer never holds more than one chunk.
            if self.buf.len() == self.chunk {
                self.emit(false, out)?;
            }
            let take = (self.chunk - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        Ok(())
    }

    /// Writes the last chunk.
    pub fn finalize(&mut self, out: &mut Vec<u8>) -> Result<()> {
        self.update(&[], out)?;
        self.emit(true, out)?;
        self.done = true;
        Ok(())
    }
}

/// How the opener gets the KEM secret once it has read the header.
pub type SecretFn<'a> = Box<dyn FnOnce(&Header) -> Result<Zeroizing<Vec<u8>>> + Send + Sync + 'a>;

/// Streaming decryption; releases only verified plaintext.
pub struct Opener<'a> {
    secret: Option<SecretFn<'a>>,
    gcm: Option<Sm4Gcm>,
    chunk: usize,
    buf: Vec<u8>,
    counter: u64,
    done: bool,
    header: Option<Header>,
}

impl<'a> Opener<'a> {
    /// An opener that calls `secret` with the parsed header to obtain the KEM secret.
    pub fn new(secret: SecretFn<'a>) -> Opener<'a> {
        Opener {
            secret: Some(secret),
            gcm: None,
            chunk: 0,
            buf: Vec::new(),
            counter: 0,
            done: false,
            header: None,
        }
    }

    /// The header, once it has been read.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// Verifies and decrypts the buffered record as the next chunk.
    fn open_chunk(&mut self, last: bool, out: &mut Vec<u8>) -> Result<()> {
        let gcm = self.gcm.as_ref().ok_or(Error::DecryptionFailed)?;
        let start = out.len();
        out.extend_from_slice(&self.buf);
        // The tag is checked before any decryption; a failed chunk leaves `out` as it was.
        match gcm.decrypt_in_place(&nonce(self.counter, last), &[], &mut out[start..], TAG_SIZE) {
            Ok(n) => out.truncate(start + n),
            Err(_) => {
                out.truncate(start);
                return Err(Error::DecryptionFailed);
            }
        }
        self.buf.clear();
        self.counter += 1;
        Ok(())
    }

    /// Consumes envelope bytes, appending verified plaintext to `out`.
    pub fn update(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        if self.done {
            return Err(Error::AlreadyFinalized);
        }
        if self.gcm.is_some() {
            return self.feed(data, out);
        }
        self.buf.extend_from_slice(data);
        let Some(header) = Header::parse(&self.buf)? else {
            return Ok(());
        };
        let secret_fn = self.secret.take().ok_or(Error::DecryptionFailed)?;
        let secret = secret_fn(&header).map_err(|_| Error::DecryptionFailed)?;
        self.gcm = Some(header.cipher(&secret)?);
        self.chunk = header.chunk_size();
        let rest = self.buf.split_off(header.bytes.len());
        self.buf.clear();
        self.header = Some(header);
        self.feed(&rest, out)
    }

    /// Buffers at most one record; a full record is opened once more data follows it.
    fn feed(&mut self, mut data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let record = self.chunk + TAG_SIZE;
        // Room for every byte this call can release (the buffered record and `data`), so
        // `out` is not reallocated, which would leave freed copies of plaintext, once
        // plaintext is in it.
        out.reserve(data.len() + self.buf.len());
        while !data.is_empty() {
            if self.buf.len() == record {
                self.open_chunk(false, out)?;
            }
            let take = (record - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        Ok(())
    }

    /// Checks and decrypts the last chunk. Fails if the envelope was truncated.
    pub fn finalize(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if self.done {
            return Err(Error::AlreadyFinalized);
        }
        self.done = true;
        if self.gcm.is_none() || self.buf.len() < TAG_SIZE {
            return Err(Error::DecryptionFailed);
        }
        self.open_chunk(true, out)
    }
}

/// Length of the SM2 KEM secret K fed to HKDF (GB/T 32918.4 KDF output, 32 bytes).
pub const SM2_SECRET_LEN: usize = 32;

impl Sealer {
    /// A sealer to an SM2 public key: K, C1 = SM2-KEM(recipient) (GB/T 32918.4 A1-A5 with
    /// klen = 256 bits); the header carries C1 (65 bytes, 04 || x || y), K is the secret.
    pub fn to_sm2(recipient: &guomi_core::sm2::PublicKey, chunk_log2: u8) -> Result<Sealer> {
        let (secret, c1) = recipient.encapsulate(SM2_SECRET_LEN)?;
        let header = Header::new(Kem::Sm2, chunk_log2, c1.to_vec())?;
        Sealer::new(header, &secret)
    }
}

impl Opener<'static> {
    /// An opener for envelopes sealed to `key`'s public key: K = SM2-KEM-decapsulate(C1).
    /// Any other key type, a malformed C1 or a wrong key is the one opaque
    /// `DecryptionFailed`.
    pub fn with_sm2(key: guomi_core::sm2::PrivateKey) -> Opener<'static> {
        Opener::new(Box::new(move |h: &Header| {
            if h.kem != Kem::Sm2 || h.kem_data.len() != 65 || h.kem_data[0] != 0x04 {
                return Err(Error::DecryptionFailed);
            }
            key.decapsulate(&h.kem_data, SM2_SECRET_LEN)
        }))
    }
}

/// Length of the SM9 KEM secret K fed to HKDF (GM/T 0044 Part 4 §6 with klen = 256 bits).
pub const SM9_SECRET_LEN: usize = 32;

impl Sealer {
    /// A sealer to the SM9 identity `user_id` under `master`: K, C = SM9-KEM(master,
    /// user_id) (GM/T 0044 Part 4 §6.2); the header carries C (65 bytes, 04 || x || y),
    /// K is the secret. The identity itself is not written.
    pub fn to_sm9(
        master: &guomi_core::sm9::EncMasterPublicKey,
        user_id: &[u8],
        chunk_log2: u8,
    ) -> Result<Sealer> {
        let (secret, c) = master.encapsulate(user_id, SM9_SECRET_LEN)?;
        let header = Header::new(Kem::Sm9, chunk_log2, c.to_vec())?;
        Sealer::new(header, &secret)
    }
}

impl Opener<'static> {
    /// An opener for envelopes sealed to `key`'s identity: K = SM9-KEM-decapsulate(C).
    /// Any other key type, a malformed C or a wrong key is the opaque `DecryptionFailed`.
    pub fn with_sm9(key: std::sync::Arc<guomi_core::sm9::EncUserKey>) -> Opener<'static> {
        Opener::new(Box::new(move |h: &Header| {
            if h.kem != Kem::Sm9 || h.kem_data.len() != 65 || h.kem_data[0] != 0x04 {
                return Err(Error::DecryptionFailed);
            }
            key.decapsulate(&h.kem_data, SM9_SECRET_LEN)
        }))
    }
}

/// Seals `data` in one call with a raw 16-byte key (convenience for tests and small data).
pub fn seal_with_key(key: &[u8; 16], chunk_log2: u8, data: &[u8]) -> Result<Vec<u8>> {
    let mut s = Sealer::new(Header::new(Kem::Key, chunk_log2, Vec::new())?, key)?;
    let mut out = Vec::with_capacity(data.len() + 64);
    s.update(data, &mut out)?;
    s.finalize(&mut out)?;
    Ok(out)
}

/// Opens an envelope sealed with a raw 16-byte key, in one call.
pub fn open_with_key(key: &[u8; 16], envelope: &[u8]) -> Result<Vec<u8>> {
    let key = *key;
    let mut o = Opener::new(Box::new(move |h: &Header| {
        if h.kem != Kem::Key {
            return Err(Error::DecryptionFailed);
        }
        Ok(Zeroizing::new(key.to_vec()))
    }));
    let mut out = Vec::with_capacity(envelope.len());
    o.update(envelope, &mut out)?;
    o.finalize(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm9_recipient() {
        let master = guomi_core::sm9::EncMasterKey::generate().unwrap();
        let bob = std::sync::Arc::new(
            master
                .extract(b"bob", guomi_core::sm9::HID_ENCRYPT)
                .unwrap(),
        );
        let mut s = Sealer::to_sm9(&master.public_key(), b"bob", 10).unwrap();
        let mut env = Vec::new();
        s.update(&[7u8; 3000], &mut env).unwrap();
        s.finalize(&mut env).unwrap();
        assert_eq!(env[9], Kem::Sm9 as u8);
        let open = |key: std::sync::Arc<guomi_core::sm9::EncUserKey>| {
            let mut o = Opener::with_sm9(key);
            let mut out = Vec::new();
            o.update(&env, &mut out)?;
            o.finalize(&mut out)?;
            Ok::<_, Error>(out)
        };
        assert_eq!(open(bob).unwrap(), vec![7u8; 3000]);
        let eve = std::sync::Arc::new(
            master
                .extract(b"eve", guomi_core::sm9::HID_ENCRYPT)
                .unwrap(),
        );
        assert_eq!(open(eve), Err(Error::DecryptionFailed));
    }

    const KEY: [u8; 16] = *b"0123456789abcdef";

    #[test]
    fn round_trip_every_length_around_chunks() {
        for len in [0usize, 1, 1023, 1024, 1025, 2048, 3000, 4096] {
            let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let env = seal_with_key(&KEY, 10, &data).unwrap();
            let chunks = len / 1024 + usize::from(len % 1024 != 0 || len == 0);
            assert_eq!(
                env.len(),
                FIXED_HEADER + len + TAG_SIZE * chunks.max(1),
                "len {len}"
            );
            assert_eq!(open_with_key(&KEY, &env).unwrap(), data);
        }
    }

    #[test]
    fn streaming_any_split_equals_one_shot() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
        let env = seal_with_key(&KEY, 10, &data).unwrap();
        for step in [1usize, 7, 16, 1040, 4999] {
            let mut o = Opener::new(Box::new(|_: &Header| Ok(Zeroizing::new(KEY.to_vec()))));
            let mut out = Vec::new();
            for piece in env.chunks(step) {
                o.update(piece, &mut out).unwrap();
            }
            o.finalize(&mut out).unwrap();
            assert_eq!(out, data);
        }
    }

    #[test]
    fn tampering_truncation_reordering_and_wrong_key_fail() {
        let data = vec![0x55u8; 3000];
        let env = seal_with_key(&KEY, 10, &data).unwrap();
        let h = FIXED_HEADER;
        let rec = 1024 + TAG_SIZE;
        // Any flipped bit, in the header or a chunk.
        for pos in [12, 20, h, h + 500, h + rec + 3, env.len() - 1] {
            let mut bad = env.clone();
            bad[pos] ^= 1;
            assert!(open_with_key(&KEY, &bad).is_err(), "flip at {pos}");
        }
        // Truncation at a chunk boundary and inside a chunk.
        assert_eq!(
            open_with_key(&KEY, &env[..h + rec]),
            Err(Error::DecryptionFailed)
        );
        assert_eq!(
            open_with_key(&KEY, &env[..h + 2 * rec]),
            Err(Error::DecryptionFailed)
        );
        assert!(open_with_key(&KEY, &env[..env.len() - 1]).is_err());
        assert!(open_with_key(&KEY, &env[..h]).is_err());
        // Swapped chunks.
        let mut swapped = env[..h].to_vec();
        swapped.extend_from_slice(&env[h + rec..h + 2 * rec]);
        swapped.extend_from_slice(&env[h..h + rec]);
        swapped.extend_from_slice(&env[h + 2 * rec..]);
        assert!(open_with_key(&KEY, &swapped).is_err());
        // Extra data appended.
        let mut longer = env.clone();
        longer.extend_from_slice(&[0u8; 17]);
        assert!(open_with_key(&KEY, &longer).is_err());
        // Wrong key.
        assert!(open_with_key(b"fedcba9876543210", &env).is_err());
        // Not an envelope at all.
        assert!(matches!(
            open_with_key(&KEY, b"PK\x03\x04 not ours"),
            Err(Error::UnsupportedFormat(_))
        ));
    }

    #[test]
    fn password_kem() {
        let header = Header::new(Kem::Password, 12, 1000u32.to_be_bytes().to_vec()).unwrap();
        let secret = header.password_secret(b"correct horse").unwrap();
        let mut s = Sealer::new(header, &secret[..]).unwrap();
        let mut env = Vec::new();
        s.update(b"attack at dawn", &mut env).unwrap();
        s.finalize(&mut env).unwrap();
        assert_eq!(s.update(b"x", &mut env), Err(Error::AlreadyFinalized));
        let open = |pw: &'static [u8]| {
            let mut o = Opener::new(Box::new(move |h: &Header| {
                Ok(Zeroizing::new(h.password_secret(pw)?.to_vec()))
            }));
            let mut out = Vec::new();
            o.update(&env, &mut out)?;
            o.finalize(&mut out)?;
            Ok::<_, Error>(out)
        };
        assert_eq!(open(b"correct horse").unwrap(), b"attack at dawn");
        assert_eq!(open(b"wrong"), Err(Error::DecryptionFailed));
    }

    /// A password envelope whose header asks for `iterations`.
    fn with_iterations(iterations: u32) -> Vec<u8> {
        let header = Header::new(Kem::Password, 10, 1u32.to_be_bytes().to_vec()).unwrap();
        let secret = header.password_secret(b"pw").unwrap();
        let mut env = Vec::new();
        let mut s = Sealer::new(header, &secret[..]).unwrap();
        s.update(b"data", &mut env).unwrap();
        s.finalize(&mut env).unwrap();
        env[FIXED_HEADER..FIXED_HEADER + 4].copy_from_slice(&iterations.to_be_bytes());
        env
    }

    #[test]
    fn hostile_iteration_counts_are_refused_before_pbkdf2() {
        for n in [0, MAX_ITERATIONS + 1, 1 << 31, u32::MAX] {
            let env = with_iterations(n);
            assert!(
                matches!(Header::parse(&env), Err(Error::UnsupportedFormat(_))),
                "{n}"
            );
            let mut o = Opener::new(Box::new(|h: &Header| {
                Ok(Zeroizing::new(h.password_secret(b"pw")?.to_vec()))
            }));
            let t = std::time::Instant::now();
            let r = o.update(&env[..FIXED_HEADER + 4], &mut Vec::new());
            assert!(matches!(r, Err(Error::UnsupportedFormat(_))), "{n}: {r:?}");
            assert!(t.elapsed().as_millis() < 1000);
        }
        // The bound itself parses (running it would take seconds, so it is not run).
        let at_bound = Header::parse(&with_iterations(MAX_ITERATIONS))
            .unwrap()
            .unwrap();
        assert_eq!(at_bound.kem_data, MAX_ITERATIONS.to_be_bytes());
        // Writing is bounded the same way.
        for n in [0, MAX_ITERATIONS + 1, u32::MAX] {
            assert!(matches!(
                Header::new(Kem::Password, 10, n.to_be_bytes().to_vec()),
                Err(Error::InvalidValue(_))
            ));
        }
        assert!(Header::new(Kem::Password, 10, vec![0, 0, 1]).is_err());
        // KEM data of another length is malformed.
        let mut env = with_iterations(1);
        env[29] = 5;
        env.insert(FIXED_HEADER + 4, 0);
        assert!(matches!(
            Header::parse(&env),
            Err(Error::UnsupportedFormat(_))
        ));
    }

    #[test]
    fn sm2_recipient_round_trip_and_failures() {
        let key = guomi_core::sm2::PrivateKey::generate().unwrap();
        let data: Vec<u8> = (0..3000u32).map(|i| i as u8).collect();
        let mut s = Sealer::to_sm2(key.public_key(), 10).unwrap();
        let mut env = Vec::new();
        s.update(&data, &mut env).unwrap();
        s.finalize(&mut env).unwrap();
        assert_eq!(env[9], Kem::Sm2 as u8);
        assert_eq!(u16::from_be_bytes([env[28], env[29]]), 65);
        let open = |k: guomi_core::sm2::PrivateKey, env: &[u8]| {
            let mut o = Opener::with_sm2(k);
            let mut out = Vec::new();
            o.update(env, &mut out)?;
            o.finalize(&mut out)?;
            Ok::<_, Error>(out)
        };
        assert_eq!(open(key.clone(), &env).unwrap(), data);
        let other = guomi_core::sm2::PrivateKey::generate().unwrap();
        assert_eq!(open(other, &env), Err(Error::DecryptionFailed));
        // A C1 moved off the curve, or a flipped chunk bit.
        for pos in [FIXED_HEADER + 10, env.len() - 5] {
            let mut bad = env.clone();
            bad[pos] ^= 1;
            assert_eq!(open(key.clone(), &bad), Err(Error::DecryptionFailed));
        }
        // A key envelope offered to an SM2 opener.
        let k_env = seal_with_key(&KEY, 10, b"x").unwrap();
        assert_eq!(open(key, &k_env), Err(Error::DecryptionFailed));
    }

    #[test]
    fn salts_differ_so_keys_differ() {
        let a = seal_with_key(&KEY, 10, b"same").unwrap();
        let b = seal_with_key(&KEY, 10, b"same").unwrap();
        assert_ne!(a, b);
    }
}
