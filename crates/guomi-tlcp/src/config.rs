//! Configuration: identities (the double certificates), trust, suites, client
//! authentication, and the bounded session cache.

use crate::error::{Error, Result};
use crate::suites::CipherSuite;
use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{Certificate, Crl};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// One side's double certificates (GB/T 38636-2020 §6.4.5.3): the signing certificate
/// with its chain and key, and the encryption certificate with its key. Sent as
/// signing certificate, encryption certificate, then the rest of the signing chain.
#[derive(Clone)]
pub struct CertifiedKey {
    pub(crate) sign_chain: Vec<Certificate>,
    pub(crate) sign_key: PrivateKey,
    pub(crate) enc_cert: Certificate,
    pub(crate) enc_key: PrivateKey,
}

impl core::fmt::Debug for CertifiedKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CertifiedKey")
            .field("sign", &self.sign_chain[0].subject())
            .field("enc", &self.enc_cert.subject())
            .finish_non_exhaustive()
    }
}

impl CertifiedKey {
    /// `sign_chain` is the signing certificate first, then any intermediates (at most 8
    /// in all). Each key must match its certificate's public key.
    pub fn new(
        sign_chain: Vec<Certificate>,
        sign_key: PrivateKey,
        enc_cert: Certificate,
        enc_key: PrivateKey,
    ) -> Result<Self> {
        let leaf = sign_chain
            .first()
            .ok_or_else(|| Error::Config("no signing certificate".into()))?;
        if sign_chain.len() > 8 {
            return Err(Error::Config(
                "at most 8 certificates in the signing chain".into(),
            ));
        }
        if leaf.public_key()? != *sign_key.public_key() {
            return Err(Error::Config(
                "the signing key does not match the signing certificate".into(),
            ));
        }
        if enc_cert.public_key()? != *enc_key.public_key() {
            return Err(Error::Config(
                "the encryption key does not match the encryption certificate".into(),
            ));
        }
        Ok(CertifiedKey {
            sign_chain,
            sign_key,
            enc_cert,
            enc_key,
        })
    }

    /// The signing certificate.
    pub fn sign_certificate(&self) -> &Certificate {
        &self.sign_chain[0]
    }

    /// The encryption certificate.
    pub fn enc_certificate(&self) -> &Certificate {
        &self.enc_cert
    }

    /// The certificates in Certificate-message order: signing, encryption, chain.
    pub(crate) fn wire_certs(&self) -> Vec<Vec<u8>> {
        let mut v = vec![
            self.sign_chain[0].to_der().to_vec(),
            self.enc_cert.to_der().to_vec(),
        ];
        v.extend(self.sign_chain[1..].iter().map(|c| c.to_der().to_vec()));
        v
    }
}

/// How a server treats client certificates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// No CertificateRequest (ECC suites); ECDHE suites still require client
    /// certificates (their key exchange uses the client's encryption key).
    None,
    /// CertificateRequest sent; a client may send none; one sent is verified.
    Optional,
    /// CertificateRequest sent; a client without certificates is refused.
    Required,
}

/// The trust a side checks its peer's certificates against.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    /// Trust anchors.
    pub roots: Vec<Certificate>,
    /// CRLs checked for every certificate below the anchor.
    pub crls: Vec<Crl>,
    /// Fail a certificate whose issuer has no CRL among `crls`.
    pub require_crls: bool,
    /// Validation time (Unix seconds); the system clock when `None`.
    pub time: Option<i64>,
}

/// A resumable session (§6.4.5.2: resumption by session ID).
#[derive(Clone)]
pub struct Session {
    pub(crate) id: Vec<u8>,
    pub(crate) master: Zeroizing<[u8; 48]>,
    pub(crate) suite: CipherSuite,
    pub(crate) peer_certs: Vec<Certificate>,
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("suite", &self.suite)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The session ID (1 to 32 bytes).
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// The suite the session was made with.
    pub fn suite(&self) -> CipherSuite {
        self.suite
    }
}

/// The largest session cache [`SessionCache::try_new`] accepts (2^20 sessions).
pub const MAX_SESSION_CACHE: usize = 1 << 20;

/// A bounded server-side session cache: at most `capacity` sessions, the oldest evicted
/// first. Shared by the connections of one [`ServerConfig`].
#[derive(Debug)]
pub struct SessionCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

/// The sessions by ID and their insertion order (oldest first).
type CacheInner = (HashMap<Vec<u8>, Session>, VecDeque<Vec<u8>>);

impl SessionCache {
    /// A cache of at most `capacity` sessions (0 disables resumption: the server then
    /// sends an empty session ID).
    pub fn new(capacity: usize) -> Self {
        SessionCache {
            capacity,
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// As [`new`](Self::new), refusing a capacity above [`MAX_SESSION_CACHE`] (for
    /// capacities that come from outside).
    pub fn try_new(capacity: usize) -> Result<Self> {
        if capacity > MAX_SESSION_CACHE {
            return Err(Error::Config(format!(
                "session cache of {capacity} sessions; at most {MAX_SESSION_CACHE}"
            )));
        }
        Ok(Self::new(capacity))
    }

    /// The capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Sessions now held.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|g| g.0.len()).unwrap_or(0)
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn get(&self, id: &[u8]) -> Option<Session> {
        self.inner.lock().ok()?.0.get(id).cloned()
    }

    pub(crate) fn put(&self, s: Session) {
        if self.capacity == 0 || s.id.is_empty() {
            return;
        }
        let Ok(mut g) = self.inner.lock() else {
            return;
        };
        let (map, order) = &mut *g;
        if map.insert(s.id.clone(), s.clone()).is_none() {
            order.push_back(s.id);
        }
        while map.len() > self.capacity {
            match order.pop_front() {
                Some(old) => {
                    map.remove(&old);
                }
                None => break,
            }
        }
    }

    /// Forgets a session (after a failed resumption, for instance).
    pub fn remove(&self, id: &[u8]) {
        if let Ok(mut g) = self.inner.lock() {
            if g.0.remove(id).is_some() {
                g.1.retain(|x| x != id);
            }
        }
    }
}

fn check_suites(suites: &[CipherSuite]) -> Result<()> {
    if suites.is_empty() {
        return Err(Error::Config("no cipher suite allowed".into()));
    }
    Ok(())
}

/// A server's configuration.
#[derive(Debug)]
pub struct ServerConfig {
    /// The server's double certificates and keys.
    pub identity: CertifiedKey,
    /// Allowed suites in the server's preference order.
    pub suites: Vec<CipherSuite>,
    /// Client certificate policy.
    pub client_auth: ClientAuth,
    /// Trust for client certificates.
    pub client_trust: Trust,
    /// The session cache (shared by all connections of this config).
    pub session_cache: Arc<SessionCache>,
}

impl ServerConfig {
    /// Every suite allowed ([`CipherSuite::ALL`] order), no client authentication, a
    /// 256-session cache.
    pub fn new(identity: CertifiedKey) -> Self {
        ServerConfig {
            identity,
            suites: CipherSuite::ALL.to_vec(),
            client_auth: ClientAuth::None,
            client_trust: Trust::default(),
            session_cache: Arc::new(SessionCache::new(256)),
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        check_suites(&self.suites)?;
        if self.client_auth != ClientAuth::None && self.client_trust.roots.is_empty() {
            return Err(Error::Config(
                "client authentication needs trust roots for client certificates".into(),
            ));
        }
        Ok(())
    }
}

/// A client's configuration.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Trust for the server's certificates.
    pub trust: Trust,
    /// Verify the server's certificates (chain, revocation); on by default. Key usages
    /// are checked either way.
    pub verify_peer: bool,
    /// Check the server name against the signing certificate's subjectAltName; on by
    /// default (a server name must then be given).
    pub check_hostname: bool,
    /// The client's double certificates, for client authentication and ECDHE.
    pub identity: Option<CertifiedKey>,
    /// Suites offered, in preference order.
    pub suites: Vec<CipherSuite>,
    /// With ECC suites, send the encryption certificate after the signing certificate
    /// when the server asks for client certificates (Tongsuo's NTLS server wants both).
    /// Off by default: GmSSL 3.1.1's server reads the client's list as one chain and
    /// rejects it then. ECDHE suites always send both.
    pub ecc_client_double_certificate: bool,
}

impl ClientConfig {
    /// Verifying against `roots`, hostname check on, every suite offered, no client
    /// certificate.
    pub fn new(roots: Vec<Certificate>) -> Self {
        ClientConfig {
            trust: Trust {
                roots,
                ..Trust::default()
            },
            verify_peer: true,
            check_hostname: true,
            identity: None,
            suites: CipherSuite::ALL.to_vec(),
            ecc_client_double_certificate: false,
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        check_suites(&self.suites)?;
        if self.verify_peer && self.trust.roots.is_empty() {
            return Err(Error::Config(
                "no trust roots to verify the server with".into(),
            ));
        }
        Ok(())
    }
}
