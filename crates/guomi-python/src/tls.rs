//! `guomi._native.tls`: the two TLS engines behind one sans-I/O connection class. TLCP
//! is crate `guomi-tlcp`, TLS 1.3 with the RFC 8998 suites is rustls with crate
//! `guomi-rustls`'s provider. Configurations are built from the objects `guomi/tls/`
//! has already loaded (certificates, CRLs, SM2 keys); errors become `guomi.exceptions`'
//! TLS classes. The socket, asyncio and HTTP layers are Python (`guomi/tls/`).

use std::sync::Arc;

use guomi_core::sm2::PrivateKey;
use guomi_formats::x509::{Certificate, Crl};
use guomi_python_macros::guard_panics;
use guomi_rustls::conn as tls13;
use guomi_rustls::rustls;
use guomi_tlcp as tlcp;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buf::Bytes;
use crate::error::{to_py, InvalidArgument};
use crate::locked::Locked;
use crate::sm2::PyPrivateKey;
use crate::x509::{PyCertificate, PyCrl};

pyo3::import_exception!(guomi.exceptions, TLSError);
pyo3::import_exception!(guomi.exceptions, TLSAlert);
pyo3::import_exception!(guomi.exceptions, TLSCertificateError);
pyo3::import_exception!(guomi.exceptions, TLSConnectionClosed);

/// At most this many bytes per `read_tls` / `send` call (the facade hands over less).
const MAX_CALL: usize = 1 << 20;

fn certs(list: Vec<Bound<'_, PyCertificate>>) -> Vec<Certificate> {
    list.iter().map(|c| c.get().0.clone()).collect()
}

fn crls(list: Vec<Bound<'_, PyCrl>>) -> Vec<Crl> {
    list.iter().map(|c| c.get().0.clone()).collect()
}

fn key(k: &Bound<'_, PyPrivateKey>) -> PyResult<PrivateKey> {
    k.get().owned_key().map_err(to_py)
}

fn tlcp_err(e: tlcp::Error) -> PyErr {
    let msg = e.to_string();
    match e {
        tlcp::Error::Protocol { alert, .. } => TLSAlert::new_err((msg, alert.to_byte(), false)),
        tlcp::Error::Certificate { alert, .. } => {
            TLSCertificateError::new_err((msg, alert.to_byte(), false))
        }
        tlcp::Error::AlertReceived(alert) => TLSAlert::new_err((msg, alert.to_byte(), true)),
        tlcp::Error::Config(_) => InvalidArgument::new_err(msg),
        tlcp::Error::Closed => TLSConnectionClosed::new_err(msg),
        tlcp::Error::Crypto(e) => to_py(e),
        tlcp::Error::SequenceExhausted | tlcp::Error::Misuse(_) => TLSError::new_err(msg),
    }
}

fn tls13_err(e: rustls::Error) -> PyErr {
    let msg = format!("TLS 1.3: {e}");
    let received = matches!(e, rustls::Error::AlertReceived(_));
    match (tls13::alert_for(&e), &e) {
        (Some(a), rustls::Error::InvalidCertificate(_)) => {
            TLSCertificateError::new_err((msg, u8::from(a), false))
        }
        (Some(a), _) => TLSAlert::new_err((msg, u8::from(a), received)),
        (None, rustls::Error::General(_) | rustls::Error::InconsistentKeys(_)) => {
            InvalidArgument::new_err(msg)
        }
        (None, _) => TLSError::new_err(msg),
    }
}

type TlcpIdentity<'py> = (
    Vec<Bound<'py, PyCertificate>>,
    Bound<'py, PyPrivateKey>,
    Bound<'py, PyCertificate>,
    Bound<'py, PyPrivateKey>,
);

fn tlcp_identity(id: TlcpIdentity<'_>) -> PyResult<tlcp::CertifiedKey> {
    let (chain, sign_key, enc_cert, enc_key) = id;
    tlcp::CertifiedKey::new(
        certs(chain),
        key(&sign_key)?,
        enc_cert.get().0.clone(),
        key(&enc_key)?,
    )
    .map_err(tlcp_err)
}

fn tlcp_suites(ids: &[u16]) -> PyResult<Vec<tlcp::CipherSuite>> {
    ids.iter()
        .map(|&id| {
            tlcp::CipherSuite::from_id(id)
                .ok_or_else(|| InvalidArgument::new_err(format!("not a TLCP suite: {id:#06x}")))
        })
        .collect()
}

fn client_auth_tlcp(mode: u8) -> PyResult<tlcp::ClientAuth> {
    Ok(match mode {
        0 => tlcp::ClientAuth::None,
        1 => tlcp::ClientAuth::Optional,
        2 => tlcp::ClientAuth::Required,
        _ => return Err(InvalidArgument::new_err("client_auth must be 0, 1 or 2")),
    })
}

fn client_auth_tls13(mode: u8) -> PyResult<tls13::ClientAuth> {
    Ok(match mode {
        0 => tls13::ClientAuth::None,
        1 => tls13::ClientAuth::Optional,
        2 => tls13::ClientAuth::Required,
        _ => return Err(InvalidArgument::new_err("client_auth must be 0, 1 or 2")),
    })
}

/// A TLCP client configuration (immutable; shared by the connections made from it).
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct TlcpClientConfig(Arc<tlcp::ClientConfig>);

#[guard_panics]
#[pymethods]
impl TlcpClientConfig {
    #[new]
    #[pyo3(signature = (*, roots, crls, require_crls, verify, check_hostname, suites, identity, ecc_client_double_certificate))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        roots: Vec<Bound<'_, PyCertificate>>,
        crls: Vec<Bound<'_, PyCrl>>,
        require_crls: bool,
        verify: bool,
        check_hostname: bool,
        suites: Vec<u16>,
        identity: Option<TlcpIdentity<'_>>,
        ecc_client_double_certificate: bool,
    ) -> PyResult<Self> {
        let mut c = tlcp::ClientConfig::new(certs(roots));
        c.trust.crls = self::crls(crls);
        c.trust.require_crls = require_crls;
        c.verify_peer = verify;
        c.check_hostname = check_hostname;
        c.suites = tlcp_suites(&suites)?;
        c.identity = identity.map(tlcp_identity).transpose()?;
        c.ecc_client_double_certificate = ecc_client_double_certificate;
        Ok(TlcpClientConfig(Arc::new(c)))
    }
}

/// A TLCP server configuration with its session cache.
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct TlcpServerConfig(Arc<tlcp::ServerConfig>);

#[guard_panics]
#[pymethods]
impl TlcpServerConfig {
    #[new]
    #[pyo3(signature = (*, identity, suites, client_auth, client_roots, crls, require_crls, session_cache_size))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        identity: TlcpIdentity<'_>,
        suites: Vec<u16>,
        client_auth: u8,
        client_roots: Vec<Bound<'_, PyCertificate>>,
        crls: Vec<Bound<'_, PyCrl>>,
        require_crls: bool,
        session_cache_size: usize,
    ) -> PyResult<Self> {
        let mut c = tlcp::ServerConfig::new(tlcp_identity(identity)?);
        c.suites = tlcp_suites(&suites)?;
        c.client_auth = client_auth_tlcp(client_auth)?;
        c.client_trust.roots = certs(client_roots);
        c.client_trust.crls = self::crls(crls);
        c.client_trust.require_crls = require_crls;
        c.session_cache =
            Arc::new(tlcp::SessionCache::try_new(session_cache_size).map_err(tlcp_err)?);
        Ok(TlcpServerConfig(Arc::new(c)))
    }
}

/// A TLS 1.3 client configuration (with its session cache for resumption).
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct Tls13ClientConfig(Arc<rustls::ClientConfig>);

#[guard_panics]
#[pymethods]
impl Tls13ClientConfig {
    #[new]
    #[pyo3(signature = (*, roots, crls, require_crls, verify, check_hostname, suites, identity, session_cache_size))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        roots: Vec<Bound<'_, PyCertificate>>,
        crls: Vec<Bound<'_, PyCrl>>,
        require_crls: bool,
        verify: bool,
        check_hostname: bool,
        suites: Vec<u16>,
        identity: Option<(Vec<Bound<'_, PyCertificate>>, Bound<'_, PyPrivateKey>)>,
        session_cache_size: usize,
    ) -> PyResult<Self> {
        let identity = match identity {
            Some((chain, k)) => Some((certs(chain), key(&k)?)),
            None => None,
        };
        let o = tls13::ClientOptions {
            roots: certs(roots),
            crls: self::crls(crls),
            require_crls,
            verify_peer: verify,
            check_hostname,
            suites,
            identity,
            session_cache_size,
        };
        Ok(Tls13ClientConfig(Arc::new(
            tls13::client_config(o).map_err(tls13_err)?,
        )))
    }
}

/// A TLS 1.3 server configuration (with its ticket keys and session cache).
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct Tls13ServerConfig(Arc<rustls::ServerConfig>);

#[guard_panics]
#[pymethods]
impl Tls13ServerConfig {
    #[new]
    #[pyo3(signature = (*, identity, suites, client_auth, client_roots, crls, require_crls, session_cache_size))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        identity: (Vec<Bound<'_, PyCertificate>>, Bound<'_, PyPrivateKey>),
        suites: Vec<u16>,
        client_auth: u8,
        client_roots: Vec<Bound<'_, PyCertificate>>,
        crls: Vec<Bound<'_, PyCrl>>,
        require_crls: bool,
        session_cache_size: usize,
    ) -> PyResult<Self> {
        let o = tls13::ServerOptions {
            identity: (certs(identity.0), key(&identity.1)?),
            suites,
            client_auth: client_auth_tls13(client_auth)?,
            client_roots: certs(client_roots),
            crls: self::crls(crls),
            require_crls,
            session_cache_size,
        };
        Ok(Tls13ServerConfig(Arc::new(
            tls13::server_config(o).map_err(tls13_err)?,
        )))
    }
}

/// A TLCP session to resume (opaque; from `Connection.session()`).
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct Session(tlcp::Session);

#[guard_panics]
#[pymethods]
impl Session {
    /// The session ID.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.id())
    }

    /// The suite's code point.
    #[getter]
    fn suite(&self) -> u16 {
        self.0.suite().id()
    }

    fn __repr__(&self) -> String {
        format!("<guomi.tls session {}>", self.0.suite().name())
    }
}

/// The same call on either engine (their method names agree).
macro_rules! on_engine {
    ($engine:expr, $c:ident => $body:expr) => {
        match $engine {
            Engine::Tlcp($c) => $body,
            Engine::Tls13($c) => $body,
        }
    };
}

enum Engine {
    Tlcp(Box<tlcp::Connection>),
    Tls13(Box<tls13::Connection>),
}

/// One connection of either protocol, driven by bytes: `read_tls`, `process`,
/// `write_tls`, `send`, `recv`. Thread-safe (calls are serialised).
#[pyclass(module = "guomi._native.tls", frozen)]
pub struct Connection(Locked<Engine>);

fn wrap(e: Engine) -> Connection {
    Connection(Locked::new(e))
}

#[guard_panics]
#[pymethods]
impl Connection {
    /// A TLCP client, resuming `session` when given.
    #[staticmethod]
    #[pyo3(signature = (config, server_name, session=None))]
    fn tlcp_client(
        config: &Bound<'_, TlcpClientConfig>,
        server_name: Option<&str>,
        session: Option<&Bound<'_, Session>>,
    ) -> PyResult<Self> {
        let cfg = config.get().0.clone();
        let c = match session {
            Some(s) => tlcp::ClientConnection::resume(cfg, server_name, s.get().0.clone()),
            None => tlcp::ClientConnection::new(cfg, server_name),
        }
        .map_err(tlcp_err)?;
        Ok(wrap(Engine::Tlcp(Box::new(c.into_inner()))))
    }

    /// A TLCP server.
    #[staticmethod]
    fn tlcp_server(config: &Bound<'_, TlcpServerConfig>) -> PyResult<Self> {
        let c = tlcp::ServerConnection::new(config.get().0.clone()).map_err(tlcp_err)?;
        Ok(wrap(Engine::Tlcp(Box::new(c.into_inner()))))
    }

    /// A TLS 1.3 client; `drop_ccs` leaves out the middlebox-compatibility
    /// change_cipher_spec records (for GmSSL 3.1.1).
    #[staticmethod]
    #[pyo3(signature = (config, server_name, drop_ccs=false))]
    fn tls13_client(
        config: &Bound<'_, Tls13ClientConfig>,
        server_name: Option<&str>,
        drop_ccs: bool,
    ) -> PyResult<Self> {
        let mut c =
            tls13::Connection::client(config.get().0.clone(), server_name).map_err(tls13_err)?;
        c.set_drop_change_cipher_spec(drop_ccs);
        Ok(wrap(Engine::Tls13(Box::new(c))))
    }

    /// A TLS 1.3 server; `drop_ccs` as for `tls13_client`.
    #[staticmethod]
    #[pyo3(signature = (config, drop_ccs=false))]
    fn tls13_server(config: &Bound<'_, Tls13ServerConfig>, drop_ccs: bool) -> PyResult<Self> {
        let mut c = tls13::Connection::server(config.get().0.clone()).map_err(tls13_err)?;
        c.set_drop_change_cipher_spec(drop_ccs);
        Ok(wrap(Engine::Tls13(Box::new(c))))
    }

    /// Buffers bytes from the network; returns how many were taken.
    fn read_tls(&self, py: Python<'_>, data: Bytes) -> PyResult<usize> {
        let data = &data[..data.len().min(MAX_CALL)];
        let mut g = self.0.lock(py)?;
        Ok(match &mut *g {
            Engine::Tlcp(c) => c.read_tls(data),
            Engine::Tls13(c) => c.read_tls(data),
        })
    }

    /// Runs the protocol over the buffered bytes (the GIL released: the handshake's SM2
    /// operations run here).
    fn process(&self, py: Python<'_>) -> PyResult<()> {
        let mut g = self.0.lock(py)?;
        let e = &mut *g;
        match e {
            Engine::Tlcp(c) => py.detach(|| c.process()).map_err(tlcp_err),
            Engine::Tls13(c) => py.detach(|| c.process()).map_err(tls13_err),
        }
    }

    /// The bytes to send to the peer (empty when there are none).
    fn write_tls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let out = on_engine!(&mut *self.0.lock(py)?, c => c.write_tls());
        Ok(PyBytes::new(py, &out))
    }

    /// Queues application data (at most 1 MiB per call).
    fn send(&self, py: Python<'_>, data: Bytes) -> PyResult<()> {
        if data.len() > MAX_CALL {
            return Err(InvalidArgument::new_err("at most 1 MiB per send call"));
        }
        let mut g = self.0.lock(py)?;
        let e = &mut *g;
        match e {
            Engine::Tlcp(c) => py.detach(|| c.send(&data)).map_err(tlcp_err),
            Engine::Tls13(c) => py.detach(|| c.send(&data)).map_err(tls13_err),
        }
    }

    /// The application data received so far (empty when there is none).
    fn recv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        on_engine!(&mut *self.0.lock(py)?, c => c.recv(&mut out));
        Ok(PyBytes::new(py, &out))
    }

    /// Queues close_notify.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        on_engine!(&mut *self.0.lock(py)?, c => c.close());
        Ok(())
    }

    /// Whether the handshake is still running.
    #[getter]
    fn is_handshaking(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(on_engine!(&*self.0.lock(py)?, c => c.is_handshaking()))
    }

    /// Whether `write_tls` has bytes.
    #[getter]
    fn wants_write(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(on_engine!(&*self.0.lock(py)?, c => c.wants_write()))
    }

    /// Whether the peer sent close_notify.
    #[getter]
    fn peer_closed(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(on_engine!(&*self.0.lock(py)?, c => c.peer_closed()))
    }

    /// Whether the connection has failed.
    #[getter]
    fn failed(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(on_engine!(&*self.0.lock(py)?, c => c.error().is_some()))
    }

    /// The negotiated suite's code point.
    #[getter]
    fn suite(&self, py: Python<'_>) -> PyResult<Option<u16>> {
        Ok(match &*self.0.lock(py)? {
            Engine::Tlcp(c) => c.negotiated_suite().map(|s| s.id()),
            Engine::Tls13(c) => c.negotiated_suite(),
        })
    }

    /// The protocol version (0x0101 TLCP, 0x0304 TLS 1.3).
    #[getter]
    fn version(&self, py: Python<'_>) -> PyResult<Option<u16>> {
        Ok(match &*self.0.lock(py)? {
            Engine::Tlcp(c) => Some(c.protocol_version()),
            Engine::Tls13(c) => c.protocol_version(),
        })
    }

    /// Whether the handshake resumed a session.
    #[getter]
    fn resumed(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(on_engine!(&*self.0.lock(py)?, c => c.is_resumed()))
    }

    /// The server name the client sent (TLS 1.3 server side).
    #[getter]
    fn server_name(&self, py: Python<'_>) -> PyResult<Option<String>> {
        Ok(match &*self.0.lock(py)? {
            Engine::Tlcp(_) => None,
            Engine::Tls13(c) => c.server_name().map(str::to_owned),
        })
    }

    /// The peer's certificates as sent (TLCP: signing, encryption, chain; TLS 1.3:
    /// leaf, chain).
    fn peer_certificates(&self, py: Python<'_>) -> PyResult<Vec<PyCertificate>> {
        match &*self.0.lock(py)? {
            Engine::Tlcp(c) => Ok(c
                .peer_certificates()
                .iter()
                .map(|c| PyCertificate(c.clone()))
                .collect()),
            Engine::Tls13(c) => c
                .peer_certificates()
                .iter()
                .map(|d| Certificate::from_der(d).map(PyCertificate).map_err(to_py))
                .collect(),
        }
    }

    /// The TLCP session to resume later (`None` for TLS 1.3, whose client configuration
    /// keeps its own tickets, or before the handshake completes).
    fn session(&self, py: Python<'_>) -> PyResult<Option<Session>> {
        Ok(match &*self.0.lock(py)? {
            Engine::Tlcp(c) => c.session().map(Session),
            Engine::Tls13(_) => None,
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TlcpClientConfig>()?;
    m.add_class::<TlcpServerConfig>()?;
    m.add_class::<Tls13ClientConfig>()?;
    m.add_class::<Tls13ServerConfig>()?;
    m.add_class::<Session>()?;
    m.add_class::<Connection>()?;
    m.add("MAX_SESSION_CACHE", tls13::MAX_SESSION_CACHE)?;
    Ok(())
}
