//! Configurations from plain options, and a sans-I/O connection with the shape of
//! `guomi_tlcp::Connection` (bytes in with [`Connection::read_tls`], [`Connection::process`],
//! bytes out with [`Connection::write_tls`]), so that one binding drives both protocols.

use std::io::{Read, Write};
use std::sync::Arc;

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{Certificate, Crl};
use rustls::client::Resumption;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::server::{NoServerSessionStorage, ServerSessionMemoryCache};
use rustls::{AlertDescription, ClientConfig, Error, HandshakeKind, ServerConfig};

use crate::sign::Sm2SigningKey;
use crate::verify::{Sm2ClientVerifier, Sm2ServerVerifier};

/// The most sessions a client or server cache may hold.
pub const MAX_SESSION_CACHE: usize = 1 << 20;

/// How a server treats client certificates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// No CertificateRequest.
    None,
    /// CertificateRequest sent; a client may send no certificate.
    Optional,
    /// A client without a valid certificate is refused.
    Required,
}

/// A client's options.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Trust anchors (needed when `verify_peer`).
    pub roots: Vec<Certificate>,
    /// CRLs checked below the anchor.
    pub crls: Vec<Crl>,
    /// Fail a certificate whose issuer has no CRL among `crls`.
    pub require_crls: bool,
    /// Validate the server's path (`false`: Python's `ssl.CERT_NONE`).
    pub verify_peer: bool,
    /// Match the server name against the leaf's subjectAltName.
    pub check_hostname: bool,
    /// Suites offered, by code point, in preference order (a subset of 0x00C6, 0x00C7).
    pub suites: Vec<u16>,
    /// The client's chain (leaf first) and key, for client authentication.
    pub identity: Option<(Vec<Certificate>, PrivateKey)>,
    /// Sessions remembered for resumption (0: resumption off).
    pub session_cache_size: usize,
}

/// A server's options.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The server's chain (leaf first) and its key.
    pub identity: (Vec<Certificate>, PrivateKey),
    /// Suites allowed, by code point, in the server's preference order.
    pub suites: Vec<u16>,
    /// Client certificate policy.
    pub client_auth: ClientAuth,
    /// Trust anchors for client certificates.
    pub client_roots: Vec<Certificate>,
    /// CRLs checked below the anchor.
    pub crls: Vec<Crl>,
    /// Fail a certificate whose issuer has no CRL among `crls`.
    pub require_crls: bool,
    /// Sessions remembered for resumption (0: no tickets, no resumption).
    pub session_cache_size: usize,
}

fn config_error(m: &str) -> Error {
    Error::General(m.into())
}

/// The provider restricted to `suites` (code points; each must be an RFC 8998 suite).
fn provider_with(suites: &[u16]) -> Result<Arc<rustls::crypto::CryptoProvider>, Error> {
    let mut provider = crate::provider();
    let mut chosen = Vec::new();
    for &id in suites {
        let suite = provider
            .cipher_suites
            .iter()
            .find(|s| u16::from(s.suite()) == id)
            .ok_or_else(|| config_error("not a TLS 1.3 SM suite"))?;
        if !chosen
            .iter()
            .any(|s: &rustls::SupportedCipherSuite| s.suite() == suite.suite())
        {
            chosen.push(*suite);
        }
    }
    if chosen.is_empty() {
        return Err(config_error("no cipher suite allowed"));
    }
    provider.cipher_suites = chosen;
    Ok(Arc::new(provider))
}

fn ders(chain: &[Certificate]) -> Vec<CertificateDer<'static>> {
    chain
        .iter()
        .map(|c| CertificateDer::from(c.to_der().to_vec()))
        .collect()
}

fn certified_key(
    chain: &[Certificate],
    key: &PrivateKey,
) -> Result<rustls::sign::CertifiedKey, Error> {
    let leaf = chain.first().ok_or(Error::NoCertificatesPresented)?;
    if leaf.public_key().ok().as_ref() != Some(key.public_key()) {
        return Err(rustls::InconsistentKeys::KeyMismatch.into());
    }
    Ok(rustls::sign::CertifiedKey::new(
        ders(chain),
        Arc::new(Sm2SigningKey::new(key.clone())),
    ))
}

fn check_cache(n: usize) -> Result<(), Error> {
    if n > MAX_SESSION_CACHE {
        return Err(config_error("session cache larger than 2^20 sessions"));
    }
    Ok(())
}

/// A client configuration (TLS 1.3 only) from `o`.
pub fn client_config(o: ClientOptions) -> Result<ClientConfig, Error> {
    check_cache(o.session_cache_size)?;
    let verifier = if o.verify_peer {
        let v = Sm2ServerVerifier::new(o.roots)?.with_crls(o.crls, o.require_crls);
        if o.check_hostname {
            v
        } else {
            v.without_hostname_check()
        }
    } else {
        if o.check_hostname {
            return Err(config_error("check_hostname needs verify_peer"));
        }
        Sm2ServerVerifier::unverified()
    };
    let builder = ClientConfig::builder_with_provider(provider_with(&o.suites)?)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier));
    let mut config = match &o.identity {
        None => builder.with_no_client_auth(),
        Some((chain, key)) => builder.with_client_cert_resolver(Arc::new(
            rustls::sign::SingleCertAndKey::from(certified_key(chain, key)?),
        )),
    };
    config.resumption = if o.session_cache_size == 0 {
        Resumption::disabled()
    } else {
        Resumption::in_memory_sessions(o.session_cache_size)
    };
    Ok(config)
}

/// A server configuration (TLS 1.3 only) from `o`.
pub fn server_config(o: ServerOptions) -> Result<ServerConfig, Error> {
    check_cache(o.session_cache_size)?;
    let builder = ServerConfig::builder_with_provider(provider_with(&o.suites)?)
        .with_protocol_versions(&[&rustls::version::TLS13])?;
    let builder = match o.client_auth {
        ClientAuth::None => builder.with_no_client_auth(),
        ClientAuth::Optional | ClientAuth::Required => {
            let v = Sm2ClientVerifier::new(o.client_roots)?.with_crls(o.crls, o.require_crls);
            let v = if o.client_auth == ClientAuth::Optional {
                v.optional()
            } else {
                v
            };
            builder.with_client_cert_verifier(Arc::new(v))
        }
    };
    let (chain, key) = &o.identity;
    let mut config = builder.with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
        certified_key(chain, key)?,
    )));
    if o.session_cache_size == 0 {
        config.session_storage = Arc::new(NoServerSessionStorage {});
        config.send_tls13_tickets = 0;
    } else {
        config.session_storage = ServerSessionMemoryCache::new(o.session_cache_size);
        config.ticketer = crate::ticketer::ticketer()?;
    }
    Ok(config)
}

/// The alert a local error sends, or the one the peer sent; `None` for errors that are
/// not the peer's doing (configuration, misuse).
pub fn alert_for(e: &Error) -> Option<AlertDescription> {
    Some(match e {
        Error::AlertReceived(a) => *a,
        Error::InvalidCertificate(c) => c.clone().into(),
        Error::InvalidMessage(m) => (*m).into(),
        Error::InappropriateMessage { .. } | Error::InappropriateHandshakeMessage { .. } => {
            AlertDescription::UnexpectedMessage
        }
        Error::DecryptError => AlertDescription::BadRecordMac,
        Error::PeerSentOversizedRecord => AlertDescription::RecordOverflow,
        Error::NoCertificatesPresented => AlertDescription::CertificateRequired,
        Error::PeerIncompatible(_) => AlertDescription::HandshakeFailure,
        Error::PeerMisbehaved(_) => AlertDescription::IllegalParameter,
        Error::NoApplicationProtocol => AlertDescription::NoApplicationProtocol,
        Error::EncryptError | Error::FailedToGetRandomBytes | Error::FailedToGetCurrentTime => {
            AlertDescription::InternalError
        }
        _ => return None,
    })
}

/// A TLS 1.3 connection, client or server, driven by bytes (see the module documentation).
/// Once it has failed, every call that can fail returns the same error.
pub struct Connection {
    inner: rustls::Connection,
    error: Option<Error>,
    peer_closed: bool,
    drop_ccs: bool,
}

impl core::fmt::Debug for Connection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection")
            .field("handshaking", &self.inner.is_handshaking())
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// A client for `server_name` (a DNS name or an IP address; `None` only when the
    /// configuration does not check names: no SNI is sent then).
    pub fn client(config: Arc<ClientConfig>, server_name: Option<&str>) -> Result<Self, Error> {
        let name = match server_name {
            Some(n) => ServerName::try_from(n.to_owned())
                .map_err(|_| config_error("invalid server name"))?,
            // An IP address sends no SNI; the verifier was built without a name check.
            None => ServerName::IpAddress(std::net::Ipv4Addr::UNSPECIFIED.into()),
        };
        let conn = rustls::ClientConnection::new(config, name)?;
        Ok(Self::wrap(conn.into()))
    }

    /// A server.
    pub fn server(config: Arc<ServerConfig>) -> Result<Self, Error> {
        Ok(Self::wrap(rustls::ServerConnection::new(config)?.into()))
    }

    fn wrap(mut inner: rustls::Connection) -> Self {
        // Python hands over at most 64 KiB per send and drains write_tls after each.
        inner.set_buffer_limit(None);
        Connection {
            inner,
            error: None,
            peer_closed: false,
            drop_ccs: false,
        }
    }

    /// Leaves out of [`write_tls`](Self::write_tls) the middlebox-compatibility
    /// change_cipher_spec records rustls always sends, for peers that cannot ignore them
    /// (GmSSL 3.1.1; see [`crate::compat`]). Off by default.
    pub fn set_drop_change_cipher_spec(&mut self, on: bool) {
        self.drop_ccs = on;
    }

    /// Buffers TLS bytes from the network; returns how many were taken (fewer once
    /// rustls's input buffer is full: call [`process`](Self::process) and offer the rest).
    pub fn read_tls(&mut self, data: &[u8]) -> usize {
        let mut taken = 0;
        while taken < data.len() {
            let mut rest = &data[taken..];
            match self.inner.read_tls(&mut rest) {
                Ok(0) | Err(_) => break,
                Ok(n) => taken += n,
            }
        }
        taken
    }

    /// Runs the protocol over the buffered input.
    pub fn process(&mut self) -> Result<(), Error> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.inner.process_new_packets() {
            Ok(state) => {
                if state.peer_has_closed() {
                    self.peer_closed = true;
                }
                Ok(())
            }
            Err(e) => {
                self.error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Takes the bytes to send to the peer (empty when there are none).
    pub fn write_tls(&mut self) -> Vec<u8> {
        // rustls hands out whole records, so each call's output is filtered on its own.
        let mut out = crate::compat::DropChangeCipherSpec::new(Vec::new());
        while self.inner.wants_write() {
            // Writing into a Vec cannot fail.
            let written = if self.drop_ccs {
                self.inner.write_tls(&mut out)
            } else {
                self.inner.write_tls(out.get_mut())
            };
            if written.is_err() {
                break;
            }
        }
        std::mem::take(out.get_mut())
    }

    /// Whether [`write_tls`](Self::write_tls) has bytes.
    pub fn wants_write(&self) -> bool {
        self.inner.wants_write()
    }

    /// Queues application data (held until the handshake completes).
    pub fn send(&mut self, data: &[u8]) -> Result<(), Error> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.inner
            .writer()
            .write_all(data)
            .map_err(|e| Error::General(format!("cannot send: {e}")))
    }

    /// Moves received application data into `out`; returns how many bytes.
    pub fn recv(&mut self, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let mut buf = [0u8; 16384];
        loop {
            match self.inner.reader().read(&mut buf) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(_) => break,
            }
        }
        out.len() - start
    }

    /// Whether the handshake is still running.
    pub fn is_handshaking(&self) -> bool {
        self.inner.is_handshaking() && self.error.is_none()
    }

    /// The negotiated suite's code point.
    pub fn negotiated_suite(&self) -> Option<u16> {
        self.inner
            .negotiated_cipher_suite()
            .map(|s| u16::from(s.suite()))
    }

    /// The protocol version (0x0304 once negotiated).
    pub fn protocol_version(&self) -> Option<u16> {
        self.inner.protocol_version().map(u16::from)
    }

    /// The peer's certificates (leaf first), as DER.
    pub fn peer_certificates(&self) -> Vec<Vec<u8>> {
        self.inner
            .peer_certificates()
            .map(|c| c.iter().map(|d| d.as_ref().to_vec()).collect())
            .unwrap_or_default()
    }

    /// Whether the handshake resumed a session (a PSK).
    pub fn is_resumed(&self) -> bool {
        self.inner.handshake_kind() == Some(HandshakeKind::Resumed)
    }

    /// The server name the client sent (server side).
    pub fn server_name(&self) -> Option<&str> {
        match &self.inner {
            rustls::Connection::Server(s) => s.server_name(),
            rustls::Connection::Client(_) => None,
        }
    }

    /// Queues close_notify; nothing more can be sent.
    pub fn close(&mut self) {
        self.inner.send_close_notify();
    }

    /// Whether the peer sent close_notify.
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    /// The error that ended the connection, if one did.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }
}
