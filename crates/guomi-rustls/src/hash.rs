//! SM3 (GB/T 32905-2016) as rustls's transcript hash, HMAC-SM3 as its HMAC, and HKDF
//! (RFC 5869) over HMAC-SM3: RFC 8998 §3.5 names SM3 the hash of both SM suites, and
//! §3.4 keeps TLS 1.3's own key schedule (RFC 8446 §7.1), so HKDF is HKDF-SM3.

use guomi_core::sm3::{hmac::HmacSm3, Sm3, DIGEST_SIZE};
use rustls::crypto::hash::{self, HashAlgorithm};
use rustls::crypto::hmac;
use rustls::crypto::tls13::HkdfUsingHmac;

/// rustls has no `HashAlgorithm` for SM3 (the TLS 1.2 HashAlgorithm registry never had
/// one). The value only has to differ from the other hashes: rustls compares it to decide
/// whether a session may resume under another suite (both SM suites share SM3, so a
/// ticket from one resumes under the other, as RFC 8446 §4.6.1 allows). 0xE0 is the first
/// value of that registry's private-use range (224-255, RFC 5246 §12), so it never means
/// anything else.
pub const SM3_HASH_ALGORITHM: HashAlgorithm = HashAlgorithm::Unknown(0xE0);

/// SM3 for rustls's [`hash::Hash`].
#[derive(Debug)]
pub struct Sm3Hash;

/// The one SM3 instance every suite points at.
pub static SM3: Sm3Hash = Sm3Hash;

impl hash::Hash for Sm3Hash {
    fn start(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(Sm3::new()))
    }

    fn hash(&self, data: &[u8]) -> hash::Output {
        hash::Output::new(&guomi_core::sm3::hash(data))
    }

    fn output_len(&self) -> usize {
        DIGEST_SIZE
    }

    fn algorithm(&self) -> HashAlgorithm {
        SM3_HASH_ALGORITHM
    }
}

struct Sm3Context(Sm3);

impl hash::Context for Sm3Context {
    fn fork_finish(&self) -> hash::Output {
        hash::Output::new(&self.0.digest())
    }

    fn fork(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(self.0.clone()))
    }

    fn finish(self: Box<Self>) -> hash::Output {
        hash::Output::new(&self.0.finalize())
    }

    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
}

/// HMAC-SM3 (RFC 2104 with SM3: B = 64, L = 32) for rustls's [`hmac::Hmac`].
#[derive(Debug)]
pub struct HmacSm3Alg;

/// The one HMAC-SM3 instance.
pub static HMAC_SM3: HmacSm3Alg = HmacSm3Alg;

/// HKDF-SM3: RFC 5869 over [`HMAC_SM3`], the KDF of TLS 1.3's key schedule (RFC 8446 §7.1)
/// for both RFC 8998 suites.
pub static HKDF_SM3: HkdfUsingHmac<'static> = HkdfUsingHmac(&HMAC_SM3);

impl hmac::Hmac for HmacSm3Alg {
    fn with_key(&self, key: &[u8]) -> Box<dyn hmac::Key> {
        Box::new(HmacSm3Key(HmacSm3::new(key)))
    }

    fn hash_output_len(&self) -> usize {
        DIGEST_SIZE
    }
}

/// A keyed HMAC-SM3: the inner and outer states after the padded key, cloned per tag.
/// guomi-core's `Sm3` wipes its state on drop, so no key-dependent state outlives this.
struct HmacSm3Key(HmacSm3);

impl hmac::Key for HmacSm3Key {
    fn sign_concat(&self, first: &[u8], middle: &[&[u8]], last: &[u8]) -> hmac::Tag {
        let mut m = self.0.clone();
        m.update(first);
        for part in middle {
            m.update(part);
        }
        m.update(last);
        hmac::Tag::new(&m.finalize())
    }

    fn tag_len(&self) -> usize {
        DIGEST_SIZE
    }
}
