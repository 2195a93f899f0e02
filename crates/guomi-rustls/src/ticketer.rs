//! Session tickets sealed with SM4-GCM, for stateless TLS 1.3 resumption (RFC 8446 §4.6.1).
//!
//! A ticket is `key_name (16) || nonce (12) || SM4-GCM(ticket state) || tag (16)` with the
//! key name as additional data. The 16-byte SM4 key and the key name are drawn from the OS
//! CSPRNG when the ticketer is made and never leave it; nonces are 96 random bits per
//! ticket, and one key seals at most [`MAX_TICKETS_PER_KEY`] tickets (NIST SP 800-38D
//! §8.3 allows 2^32 random-nonce invocations; past the cap no ticket is issued, and the
//! connection simply falls back to a full handshake). [`ticketer`] rotates keys through
//! rustls's `TicketRotator`: a new key every `lifetime`, the previous one still accepted,
//! so a ticket is honoured for at most twice the lifetime.
//!
//! Decryption is all-or-nothing: a wrong key name, a short ticket or a bad tag is `None`
//! (the server then does a full handshake); the tag check is guomi-core's constant-time one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use guomi_core::sm4::gcm::{Sm4Gcm, NONCE_SIZE, TAG_SIZE};
use rustls::crypto::GetRandomFailed;
use rustls::server::ProducesTickets;
use rustls::{Error, TicketRotator};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// At most this many tickets are sealed under one key (2^31, half the SP 800-38D bound).
pub const MAX_TICKETS_PER_KEY: u64 = 1 << 31;
/// How long one ticket key is used for new tickets, in seconds (6 hours; tickets stay
/// valid for up to twice this).
pub const DEFAULT_LIFETIME: u32 = 6 * 60 * 60;

const KEY_NAME_LEN: usize = 16;
const OVERHEAD: usize = KEY_NAME_LEN + NONCE_SIZE + TAG_SIZE;

/// One SM4-GCM ticket key.
pub struct Sm4GcmTicketer {
    key: Sm4Gcm,
    key_name: [u8; KEY_NAME_LEN],
    lifetime: u32,
    sealed: AtomicU64,
}

impl core::fmt::Debug for Sm4GcmTicketer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4GcmTicketer")
            .field("lifetime", &self.lifetime)
            .finish_non_exhaustive()
    }
}

impl Sm4GcmTicketer {
    /// A fresh random key and key name; tickets advertise `lifetime` seconds.
    pub fn new(lifetime: u32) -> Result<Self, GetRandomFailed> {
        let key = Zeroizing::new(guomi_core::rand::bytes::<16>().map_err(|_| GetRandomFailed)?);
        let key_name = guomi_core::rand::bytes::<KEY_NAME_LEN>().map_err(|_| GetRandomFailed)?;
        Ok(Sm4GcmTicketer {
            key: Sm4Gcm::new(&key),
            key_name,
            lifetime,
            sealed: AtomicU64::new(0),
        })
    }
}

impl ProducesTickets for Sm4GcmTicketer {
    fn enabled(&self) -> bool {
        true
    }

    fn lifetime(&self) -> u32 {
        self.lifetime
    }

    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        if self.sealed.fetch_add(1, Ordering::Relaxed) >= MAX_TICKETS_PER_KEY {
            return None;
        }
        let nonce = guomi_core::rand::bytes::<NONCE_SIZE>().ok()?;
        let mut out = vec![0u8; OVERHEAD + plain.len()];
        out[..KEY_NAME_LEN].copy_from_slice(&self.key_name);
        out[KEY_NAME_LEN..KEY_NAME_LEN + NONCE_SIZE].copy_from_slice(&nonce);
        self.key
            .encrypt_into(
                &nonce,
                &self.key_name,
                plain,
                &mut out[KEY_NAME_LEN + NONCE_SIZE..],
            )
            .ok()?;
        Some(out)
    }

    fn decrypt(&self, ticket: &[u8]) -> Option<Vec<u8>> {
        if ticket.len() < OVERHEAD {
            return None;
        }
        let (name, rest) = ticket.split_at(KEY_NAME_LEN);
        if !bool::from(name.ct_eq(&self.key_name)) {
            return None;
        }
        let (nonce, sealed) = rest.split_at(NONCE_SIZE);
        let mut buf = sealed.to_vec();
        let n = self
            .key
            .decrypt_in_place(nonce, &self.key_name, &mut buf, TAG_SIZE)
            .ok()?;
        buf.truncate(n);
        Some(buf)
    }
}

fn make() -> Result<Box<dyn ProducesTickets>, GetRandomFailed> {
    Ok(Box::new(Sm4GcmTicketer::new(DEFAULT_LIFETIME)?))
}

/// A rotating SM4-GCM ticketer for `ServerConfig::ticketer` (keys rotated every
/// [`DEFAULT_LIFETIME`]).
pub fn ticketer() -> Result<Arc<dyn ProducesTickets>, Error> {
    Ok(Arc::new(TicketRotator::new(DEFAULT_LIFETIME, make)?))
}
