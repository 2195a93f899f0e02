//! The record protection of RFC 8998 §3.5: AEAD_SM4_GCM and AEAD_SM4_CCM, each with a
//! 16-byte key, a 12-byte nonce and a 16-byte tag (CCM with q = 3), defined in the style
//! of RFC 5116's AES AEADs. TLS 1.3 (RFC 8446 §5.2,
//! §5.3) seals TLSInnerPlaintext = content || type with
//! nonce = client/server_write_iv XOR the 64-bit record sequence number (left-padded), and
//! additional data = the 5-byte record header of the TLSCiphertext.
//!
//! The ciphers are guomi-core's (`sm4::gcm::Sm4Gcm`, `sm4::ccm::Sm4Ccm`): tags are
//! compared in constant time and no plaintext is released before its tag checks.

use guomi_core::sm4::{ccm::Sm4Ccm, gcm::Sm4Gcm, KEY_SIZE};
use rustls::crypto::cipher::{
    make_tls13_aad, AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter,
    MessageEncrypter, Nonce, OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload,
    Tls13AeadAlgorithm, UnsupportedOperationError, NONCE_LEN,
};
use rustls::{ConnectionTrafficSecrets, ContentType, Error, ProtocolVersion};
use zeroize::Zeroizing;

/// The tag length of both SM4 AEADs in TLS 1.3 (RFC 8998 §3.5.1, §3.5.2).
pub const TAG_LEN: usize = 16;
/// The key length of both SM4 AEADs.
pub const KEY_LEN: usize = KEY_SIZE;

/// Which SM4 mode a suite uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sm4Mode {
    /// SM4-GCM (NIST SP 800-38D with SM4), suite TLS_SM4_GCM_SM3.
    Gcm,
    /// SM4-CCM (NIST SP 800-38C with SM4, q = 3), suite TLS_SM4_CCM_SM3.
    Ccm,
}

/// One SM4 AEAD key (GCM or CCM, 16-byte tag, 12-byte nonce): the primitive that protects
/// the records. Public so that its known-answer tests (RFC 8998 Appendix A) run against
/// exactly the code the record layer uses.
#[derive(Clone, Debug)]
pub struct Sm4AeadKey(Inner);

#[derive(Clone, Debug)]
enum Inner {
    Gcm(Box<Sm4Gcm>),
    Ccm(Box<Sm4Ccm>),
}

impl Sm4AeadKey {
    /// A key for `mode` from 16 key bytes; any other length is an error.
    pub fn new(mode: Sm4Mode, key: &[u8]) -> Result<Self, Error> {
        let key: &[u8; KEY_LEN] = key
            .try_into()
            .map_err(|_| Error::General("SM4 AEAD key must be 16 bytes".into()))?;
        Ok(Sm4AeadKey(match mode {
            Sm4Mode::Gcm => Inner::Gcm(Box::new(Sm4Gcm::new(key))),
            Sm4Mode::Ccm => {
                Inner::Ccm(Box::new(Sm4Ccm::new(key, TAG_LEN).map_err(|_| {
                    Error::General("SM4-CCM rejected a 16-byte tag".into())
                })?))
            }
        }))
    }

    /// Seals `plaintext` into `out` (`plaintext.len() + 16` bytes: ciphertext then tag).
    pub fn seal_into(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        let r = match &self.0 {
            Inner::Gcm(k) => k.encrypt_into(nonce, aad, plaintext, out),
            Inner::Ccm(k) => k.encrypt_into(nonce, aad, plaintext, out),
        };
        r.map_err(|_| Error::EncryptError)
    }

    /// Opens ciphertext || tag in place; returns the plaintext length. Any failure (short
    /// input, wrong tag) is the one opaque [`Error::DecryptError`], and the buffer is wiped.
    pub fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<usize, Error> {
        if data.len() < TAG_LEN {
            return Err(Error::DecryptError);
        }
        let r = match &self.0 {
            Inner::Gcm(k) => k.decrypt_in_place(nonce, aad, data, TAG_LEN),
            Inner::Ccm(k) => k.decrypt_in_place(nonce, aad, data),
        };
        r.map_err(|_| Error::DecryptError)
    }
}

/// [`Tls13AeadAlgorithm`] for one SM4 mode.
#[derive(Debug)]
pub struct Sm4Aead(pub Sm4Mode);

/// AEAD_SM4_GCM (RFC 8998 §3.5.1).
pub static SM4_GCM: Sm4Aead = Sm4Aead(Sm4Mode::Gcm);
/// AEAD_SM4_CCM (RFC 8998 §3.5.2).
pub static SM4_CCM: Sm4Aead = Sm4Aead(Sm4Mode::Ccm);

impl Tls13AeadAlgorithm for Sm4Aead {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        // rustls hands over `key_len()` bytes; a wrong length cannot happen, but if it did
        // the encrypter fails every record rather than panicking.
        Box::new(Tls13Encrypter {
            key: Sm4AeadKey::new(self.0, key.as_ref()).ok(),
            iv,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(Tls13Decrypter {
            key: Sm4AeadKey::new(self.0, key.as_ref()).ok(),
            iv,
        })
    }

    fn key_len(&self) -> usize {
        KEY_LEN
    }

    /// rustls 0.23's `ConnectionTrafficSecrets` has no SM4 variant (kTLS export), so the
    /// keys cannot be extracted.
    fn extract_keys(
        &self,
        _key: AeadKey,
        _iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        Err(UnsupportedOperationError)
    }
}

struct Tls13Encrypter {
    key: Option<Sm4AeadKey>,
    iv: Iv,
}

impl MessageEncrypter for Tls13Encrypter {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let key = self.key.as_ref().ok_or(Error::EncryptError)?;
        let total_len = self.encrypted_payload_len(msg.payload.len());
        // TLSInnerPlaintext: content || ContentType (no padding).
        let mut inner = Zeroizing::new(Vec::with_capacity(msg.payload.len() + 1));
        msg.payload.copy_to_vec(&mut inner);
        inner.push(u8::from(msg.typ));
        let mut payload = PrefixedPayload::with_capacity(total_len);
        payload.extend_from_slice(&vec![0u8; total_len]);
        let nonce = Nonce::new(&self.iv, seq).0;
        key.seal_into(&nonce, &make_tls13_aad(total_len), &inner, payload.as_mut())?;
        Ok(OutboundOpaqueMessage::new(
            ContentType::ApplicationData,
            // RFC 8446 §5.1: legacy_record_version is 0x0303 on every protected record.
            ProtocolVersion::TLSv1_2,
            payload,
        ))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

struct Tls13Decrypter {
    key: Option<Sm4AeadKey>,
    iv: Iv,
}

impl MessageDecrypter for Tls13Decrypter {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let key = self.key.as_ref().ok_or(Error::DecryptError)?;
        let payload = &mut msg.payload;
        let aad = make_tls13_aad(payload.len());
        let nonce = Nonce::new(&self.iv, seq).0;
        let n = key.open_in_place(&nonce, &aad, payload)?;
        payload.truncate(n);
        msg.into_tls13_unpadded_message()
    }
}
