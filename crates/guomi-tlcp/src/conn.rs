//! The sans-I/O connection: record framing in, handshake state machines, record
//! framing out. See the crate documentation for the protocol choices.

use crate::config::{ClientAuth, ClientConfig, ServerConfig, Session};
use crate::error::{AlertDescription, AlertLevel, Error, Result};
use crate::msgs::{self, hs, ClientHello, ServerHello};
use crate::prf::prf;
use crate::record::{self, ContentType, RecordState, HEADER_LEN, MAX_CIPHERTEXT, MAX_FRAGMENT};
use crate::suites::CipherSuite;
use crate::verify::{check_hostname, check_peer, Peer};
use guomi_core::sm2::{
    CiphertextFormat, PublicKey, Responder, Signature, UnboundInitiator, DEFAULT_UID,
};
use guomi_core::sm3::Sm3;
use guomi_formats::x509::Certificate;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

/// At most this many bytes of unprocessed TLS input are buffered by
/// [`Connection::read_tls`] (four maximum-size records).
pub const MAX_INCOMING: usize = 4 * (HEADER_LEN + MAX_CIPHERTEXT);
/// At most this many consecutive empty application-data records are accepted.
const MAX_EMPTY_RECORDS: u32 = 32;
/// At most this many warning alerts (user_canceled) in a row.
const MAX_WARNINGS: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    // Client.
    ExpectServerHello,
    ExpectServerCertificate,
    ExpectServerKeyExchange,
    ExpectCertificateRequestOrDone,
    ExpectServerHelloDone,
    // Server.
    ExpectClientHello,
    ExpectClientCertificate,
    ExpectClientKeyExchange,
    ExpectCertificateVerify,
    // Both.
    ExpectChangeCipherSpec,
    ExpectFinished,
    Connected,
}

enum Role {
    Client {
        config: Arc<ClientConfig>,
        server_name: Option<String>,
        offered: Option<Session>,
    },
    Server {
        config: Arc<ServerConfig>,
    },
}

/// One TLCP connection, client or server, driven by its owner: bytes from the network go
/// into [`read_tls`](Self::read_tls), [`process`](Self::process) runs the protocol, and
/// [`write_tls`](Self::write_tls) hands back the bytes to send. Application data goes in
/// with [`send`](Self::send) and comes out with [`recv`](Self::recv).
///
/// After any error the connection is dead: the fatal alert (if any) is queued for
/// `write_tls`, and every later `process` returns the same error.
pub struct Connection {
    role: Role,
    state: State,
    read: RecordState,
    write: RecordState,
    pending_read: Option<RecordState>,
    pending_write: Option<RecordState>,
    incoming: Vec<u8>,
    outgoing: Vec<u8>,
    hs_buf: Vec<u8>,
    app_in: Vec<u8>,
    app_out_pending: Vec<u8>,
    transcript: Sm3,
    client_random: [u8; 32],
    server_random: [u8; 32],
    suite: Option<CipherSuite>,
    session_id: Vec<u8>,
    resumed: bool,
    master: Option<Zeroizing<[u8; 48]>>,
    peer: Option<Peer>,
    peer_certs: Vec<Certificate>,
    server_ephemeral: Option<Vec<u8>>,
    initiator: Option<UnboundInitiator>,
    cert_requested: bool,
    client_cert_sent: bool,
    error: Option<Error>,
    close_sent: bool,
    peer_closed: bool,
    empty_records: u32,
    warnings: u32,
}

impl core::fmt::Debug for Connection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection")
            .field("client", &self.is_client())
            .field("state", &self.state)
            .field("suite", &self.suite)
            .field("resumed", &self.resumed)
            .finish_non_exhaustive()
    }
}

fn random32() -> Result<[u8; 32]> {
    Ok(guomi_core::rand::bytes()?)
}

impl Connection {
    fn new(role: Role, state: State) -> Self {
        Connection {
            role,
            state,
            read: RecordState::null(),
            write: RecordState::null(),
            pending_read: None,
            pending_write: None,
            incoming: Vec::new(),
            outgoing: Vec::new(),
            hs_buf: Vec::new(),
            app_in: Vec::new(),
            app_out_pending: Vec::new(),
            transcript: Sm3::new(),
            client_random: [0; 32],
            server_random: [0; 32],
            suite: None,
            session_id: Vec::new(),
            resumed: false,
            master: None,
            peer: None,
            peer_certs: Vec::new(),
            server_ephemeral: None,
            initiator: None,
            cert_requested: false,
            client_cert_sent: false,
            error: None,
            close_sent: false,
            peer_closed: false,
            empty_records: 0,
            warnings: 0,
        }
    }

    fn is_client(&self) -> bool {
        matches!(self.role, Role::Client { .. })
    }

    // ---- public API ------------------------------------------------------------------

    /// Buffers TLS bytes from the network; returns how many were taken (fewer than
    /// offered once [`MAX_INCOMING`] bytes wait for [`process`](Self::process)).
    pub fn read_tls(&mut self, data: &[u8]) -> usize {
        let room = MAX_INCOMING.saturating_sub(self.incoming.len());
        let n = room.min(data.len());
        self.incoming.extend_from_slice(&data[..n]);
        n
    }

    /// Runs the protocol over the buffered input: handshake messages, alerts,
    /// application data. Incomplete records stay buffered.
    pub fn process(&mut self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.process_records() {
            Ok(()) => Ok(()),
            Err(e) => {
                self.fail(e.clone());
                Err(e)
            }
        }
    }

    /// Takes the bytes to send to the peer (empty when there are none).
    pub fn write_tls(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.outgoing)
    }

    /// Whether [`write_tls`](Self::write_tls) has bytes.
    pub fn wants_write(&self) -> bool {
        !self.outgoing.is_empty()
    }

    /// Queues application data (records of at most 2^14 bytes); before the handshake
    /// completes it is held and sent as soon as it does.
    pub fn send(&mut self, data: &[u8]) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.close_sent {
            return Err(Error::Closed);
        }
        if self.state != State::Connected {
            self.app_out_pending.extend_from_slice(data);
            return Ok(());
        }
        let r = self.send_app(data);
        if let Err(e) = &r {
            self.fail(e.clone());
        }
        r
    }

    fn send_app(&mut self, data: &[u8]) -> Result<()> {
        for chunk in data.chunks(MAX_FRAGMENT) {
            let rec = self.write.seal(ContentType::ApplicationData, chunk)?;
            self.outgoing.extend_from_slice(&rec);
        }
        Ok(())
    }

    /// Moves received application data into `out`; returns how many bytes.
    pub fn recv(&mut self, out: &mut Vec<u8>) -> usize {
        let n = self.app_in.len();
        out.append(&mut self.app_in);
        n
    }

    /// Whether the handshake is still running.
    pub fn is_handshaking(&self) -> bool {
        self.state != State::Connected && self.error.is_none()
    }

    /// The negotiated suite (known from the hellos on).
    pub fn negotiated_suite(&self) -> Option<CipherSuite> {
        self.suite
    }

    /// The protocol version, always TLCP 1.1 (0x0101).
    pub fn protocol_version(&self) -> u16 {
        record::VERSION
    }

    /// The peer's certificates as received: signing certificate, encryption
    /// certificate (when sent), chain. Empty when the peer sent none.
    pub fn peer_certificates(&self) -> &[Certificate] {
        &self.peer_certs
    }

    /// The session ID (empty when the server does not cache sessions).
    pub fn session_id(&self) -> &[u8] {
        &self.session_id
    }

    /// Whether the handshake resumed a session.
    pub fn is_resumed(&self) -> bool {
        self.resumed
    }

    /// The session to resume in a later connection (after a completed handshake with a
    /// non-empty session ID).
    pub fn session(&self) -> Option<Session> {
        if self.state != State::Connected || self.session_id.is_empty() {
            return None;
        }
        Some(Session {
            id: self.session_id.clone(),
            master: self.master.clone()?,
            suite: self.suite?,
            peer_certs: self.peer_certs.clone(),
        })
    }

    /// Queues close_notify; nothing more can be sent.
    pub fn close(&mut self) {
        if !self.close_sent && self.error.is_none() {
            self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
            self.close_sent = true;
        }
    }

    /// Whether the peer sent close_notify (no more data will come).
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    /// The error that ended the connection, if one did.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// Test hook: sends a handshake message under the current keys, outside the state
    /// machine (to show that the peer refuses renegotiation). Not for production use.
    #[doc(hidden)]
    pub fn send_handshake_message_for_testing(&mut self, typ: u8, body: &[u8]) -> Result<()> {
        let m = msgs::wrap(typ, body)?;
        for chunk in m.chunks(MAX_FRAGMENT) {
            let rec = self.write.seal(ContentType::Handshake, chunk)?;
            self.outgoing.extend_from_slice(&rec);
        }
        Ok(())
    }

    // ---- records ---------------------------------------------------------------------

    fn fail(&mut self, e: Error) {
        if self.error.is_some() {
            return;
        }
        if let Some(a) = e.alert() {
            if !self.close_sent {
                self.send_alert(AlertLevel::Fatal, a);
            }
        }
        self.close_sent = true;
        self.error = Some(e);
    }

    fn send_alert(&mut self, level: AlertLevel, desc: AlertDescription) {
        if let Ok(rec) = self
            .write
            .seal(ContentType::Alert, &[level.to_byte(), desc.to_byte()])
        {
            self.outgoing.extend_from_slice(&rec);
        }
    }

    fn process_records(&mut self) -> Result<()> {
        let mut pos = 0;
        let result = loop {
            let buf = &self.incoming[pos..];
            let (typ, len) = match record::parse_header(buf, self.read.max_fragment()) {
                Ok(Some(h)) => h,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            };
            if buf.len() < HEADER_LEN + len {
                break Ok(());
            }
            let frag = buf[HEADER_LEN..HEADER_LEN + len].to_vec();
            pos += HEADER_LEN + len;
            if self.peer_closed {
                break Err(Error::unexpected("record after close_notify"));
            }
            let plain = match self.read.open(typ, &frag) {
                Ok(p) => p,
                Err(e) => break Err(e),
            };
            if let Err(e) = self.handle_record(typ, plain) {
                break Err(e);
            }
            if self.error.is_some() {
                break Ok(());
            }
        };
        self.incoming.drain(..pos);
        result
    }

    fn handle_record(&mut self, typ: ContentType, plain: Vec<u8>) -> Result<()> {
        if typ != ContentType::Handshake && !self.hs_buf.is_empty() {
            return Err(Error::unexpected(
                "record interleaved with a fragmented handshake message",
            ));
        }
        if typ != ContentType::Alert {
            self.warnings = 0;
        }
        match typ {
            ContentType::Handshake => {
                if plain.is_empty() {
                    return Err(Error::unexpected("empty handshake record"));
                }
                self.hs_buf.extend_from_slice(&plain);
                while let Some((t, body, n)) = msgs::next_message(&self.hs_buf)? {
                    let body = body.to_vec();
                    let raw: Vec<u8> = self.hs_buf.drain(..n).collect();
                    self.handle_handshake(t, &body, &raw)?;
                }
                Ok(())
            }
            ContentType::ChangeCipherSpec => {
                if plain != [1] {
                    return Err(Error::decode("ChangeCipherSpec must be the single byte 1"));
                }
                if self.state != State::ExpectChangeCipherSpec {
                    return Err(Error::unexpected("unexpected ChangeCipherSpec"));
                }
                self.read = self
                    .pending_read
                    .take()
                    .ok_or_else(|| Error::unexpected("ChangeCipherSpec before keys"))?;
                self.state = State::ExpectFinished;
                Ok(())
            }
            ContentType::Alert => {
                if plain.len() != 2 {
                    return Err(Error::decode("alert must be 2 bytes"));
                }
                let desc = AlertDescription::from_byte(plain[1]);
                match (plain[0], desc) {
                    (1, AlertDescription::CloseNotify) if self.state == State::Connected => {
                        self.peer_closed = true;
                        self.close();
                        Ok(())
                    }
                    (1, AlertDescription::UserCanceled) => {
                        self.warnings += 1;
                        if self.warnings > MAX_WARNINGS {
                            return Err(Error::unexpected("too many warning alerts"));
                        }
                        Ok(())
                    }
                    (1 | 2, d) => {
                        self.close_sent = true;
                        Err(Error::AlertReceived(d))
                    }
                    _ => Err(Error::protocol(
                        AlertDescription::IllegalParameter,
                        "unknown alert level",
                    )),
                }
            }
            ContentType::ApplicationData => {
                if self.state != State::Connected {
                    return Err(Error::unexpected(
                        "application data before the handshake ended",
                    ));
                }
                if plain.is_empty() {
                    self.empty_records += 1;
                    if self.empty_records > MAX_EMPTY_RECORDS {
                        return Err(Error::unexpected("too many empty records"));
                    }
                } else {
                    self.empty_records = 0;
                }
                self.app_in.extend_from_slice(&plain);
                Ok(())
            }
        }
    }

    fn send_handshake(&mut self, msg: &[u8]) -> Result<()> {
        self.transcript.update(msg);
        for chunk in msg.chunks(MAX_FRAGMENT) {
            let rec = self.write.seal(ContentType::Handshake, chunk)?;
            self.outgoing.extend_from_slice(&rec);
        }
        Ok(())
    }

    fn send_change_cipher_spec(&mut self) -> Result<()> {
        let rec = self.write.seal(ContentType::ChangeCipherSpec, &[1])?;
        self.outgoing.extend_from_slice(&rec);
        self.write = self
            .pending_write
            .take()
            .ok_or(Error::Misuse("no keys to change to"))?;
        Ok(())
    }

    fn send_finished(&mut self) -> Result<()> {
        let label: &[u8] = if self.is_client() {
            b"client finished"
        } else {
            b"server finished"
        };
        let vd = self.verify_data(label, &self.transcript.digest())?;
        self.send_handshake(&msgs::encode_finished(&vd)?)
    }

    fn verify_data(&self, label: &[u8], hash: &[u8; 32]) -> Result<[u8; 12]> {
        let master = self
            .master
            .as_ref()
            .ok_or(Error::Misuse("no master secret"))?;
        let mut vd = [0u8; 12];
        prf(&master[..], label, &[hash], &mut vd);
        Ok(vd)
    }

    /// master_secret = PRF(pre_master, "master secret", client_random || server_random)
    /// (48 bytes), then the key block.
    fn set_master_from_pre_master(&mut self, pms: &[u8]) -> Result<()> {
        let mut m = Zeroizing::new([0u8; 48]);
        prf(
            pms,
            b"master secret",
            &[&self.client_random, &self.server_random],
            &mut m[..],
        );
        self.master = Some(m);
        self.derive_keys()
    }

    /// key_block = PRF(master, "key expansion", server_random || client_random):
    /// client MAC key, server MAC key, client key, server key, client IV, server IV.
    fn derive_keys(&mut self) -> Result<()> {
        let suite = self.suite.ok_or(Error::Misuse("no suite"))?;
        let master = self
            .master
            .as_ref()
            .ok_or(Error::Misuse("no master secret"))?;
        let (m, k, iv) = suite.key_block_lengths();
        let mut kb = Zeroizing::new(vec![0u8; 2 * (m + k + iv)]);
        prf(
            &master[..],
            b"key expansion",
            &[&self.server_random, &self.client_random],
            &mut kb,
        );
        let (cmac, rest) = kb.split_at(m);
        let (smac, rest) = rest.split_at(m);
        let (ckey, rest) = rest.split_at(k);
        let (skey, rest) = rest.split_at(k);
        let (civ, siv) = rest.split_at(iv);
        let make = |mac: &[u8], key: &[u8], iv: &[u8]| -> RecordState {
            let key: &[u8; 16] = key.try_into().expect("16-byte key");
            if suite.is_gcm() {
                RecordState::gcm(key, iv[..4].try_into().expect("4-byte salt"))
            } else {
                RecordState::cbc(mac.try_into().expect("32-byte MAC key"), key)
            }
        };
        let client = make(cmac, ckey, civ);
        let server = make(smac, skey, siv);
        if self.is_client() {
            self.pending_write = Some(client);
            self.pending_read = Some(server);
        } else {
            self.pending_write = Some(server);
            self.pending_read = Some(client);
        }
        Ok(())
    }

    fn handshake_done(&mut self) -> Result<()> {
        self.state = State::Connected;
        self.transcript = Sm3::new();
        if !self.is_client() && !self.resumed {
            if let (Role::Server { config }, Some(s)) = (&self.role, self.session()) {
                config.session_cache.put(s);
            }
        }
        let pending = std::mem::take(&mut self.app_out_pending);
        if !pending.is_empty() {
            self.send_app(&pending)?;
        }
        Ok(())
    }

    // ---- handshake -------------------------------------------------------------------

    fn handle_handshake(&mut self, typ: u8, body: &[u8], raw: &[u8]) -> Result<()> {
        if self.state == State::Connected {
            return Err(match typ {
                hs::HELLO_REQUEST | hs::CLIENT_HELLO => Error::protocol(
                    AlertDescription::NoRenegotiation,
                    "renegotiation is not supported",
                ),
                _ => Error::unexpected(format!("handshake message {typ} after the handshake")),
            });
        }
        // CertificateVerify and Finished cover the messages before them.
        let before = self.transcript.digest();
        self.transcript.update(raw);
        if self.is_client() {
            self.client_handshake(typ, body, &before)
        } else {
            self.server_handshake(typ, body, &before)
        }
    }

    fn expect(&self, typ: u8, want: u8, name: &str) -> Result<()> {
        if typ != want {
            return Err(Error::unexpected(format!(
                "handshake message {typ} where {name} was expected"
            )));
        }
        Ok(())
    }

    fn check_finished(&mut self, body: &[u8], before: &[u8; 32]) -> Result<()> {
        let got = msgs::parse_finished(body)?;
        let label: &[u8] = if self.is_client() {
            b"server finished"
        } else {
            b"client finished"
        };
        let want = self.verify_data(label, before)?;
        if !bool::from(want.ct_eq(&got)) {
            return Err(Error::protocol(
                AlertDescription::DecryptError,
                "Finished verify_data does not match",
            ));
        }
        Ok(())
    }

    fn suite(&self) -> Result<CipherSuite> {
        self.suite.ok_or(Error::Misuse("no suite"))
    }

    fn peer(&self) -> Result<&Peer> {
        self.peer
            .as_ref()
            .ok_or_else(|| Error::unexpected("no peer certificate"))
    }

    fn verify_sig(key: &PublicKey, msg: &[u8], sig: &[u8], what: &str) -> Result<()> {
        let bad = || {
            Error::protocol(
                AlertDescription::DecryptError,
                format!("{what} signature does not verify"),
            )
        };
        let s = Signature::from_der(sig).map_err(|_| bad())?;
        if key.verify(msg, DEFAULT_UID, &s) {
            Ok(())
        } else {
            Err(bad())
        }
    }

    /// The ECC ServerKeyExchange signed data: client_random || server_random ||
    /// enc_cert length (3 bytes) || enc_cert DER (GmSSL, gmtls).
    fn ecc_signed_data(&self, enc_der: &[u8]) -> Vec<u8> {
        let mut d = Vec::with_capacity(67 + enc_der.len());
        d.extend_from_slice(&self.client_random);
        d.extend_from_slice(&self.server_random);
        crate::codec::put_u24(&mut d, enc_der.len());
        d.extend_from_slice(enc_der);
        d
    }

    fn ecdhe_signed_data(&self, params: &[u8]) -> Vec<u8> {
        let mut d = Vec::with_capacity(64 + params.len());
        d.extend_from_slice(&self.client_random);
        d.extend_from_slice(&self.server_random);
        d.extend_from_slice(params);
        d
    }

    // ---- client ----------------------------------------------------------------------

    fn client_config(&self) -> Arc<ClientConfig> {
        match &self.role {
            Role::Client { config, .. } => config.clone(),
            Role::Server { .. } => unreachable!("client-only path"),
        }
    }

    fn client_handshake(&mut self, typ: u8, body: &[u8], before: &[u8; 32]) -> Result<()> {
        match self.state {
            State::ExpectServerHello => {
                self.expect(typ, hs::SERVER_HELLO, "ServerHello")?;
                let sh = ServerHello::parse(body)?;
                let config = self.client_config();
                let suite = CipherSuite::from_id(sh.suite)
                    .filter(|s| config.suites.contains(s))
                    .filter(|s| config.identity.is_some() || !s.is_ecdhe())
                    .ok_or_else(|| {
                        Error::protocol(
                            AlertDescription::IllegalParameter,
                            format!(
                                "server chose suite {:#06x}, which was not offered",
                                sh.suite
                            ),
                        )
                    })?;
                self.suite = Some(suite);
                self.server_random = sh.random;
                let offered = match &self.role {
                    Role::Client { offered, .. } => offered.clone(),
                    Role::Server { .. } => None,
                };
                if let Some(s) =
                    offered.filter(|s| !sh.session_id.is_empty() && s.id == sh.session_id)
                {
                    if s.suite != suite {
                        return Err(Error::protocol(
                            AlertDescription::IllegalParameter,
                            "resumed session with a different suite",
                        ));
                    }
                    self.resumed = true;
                    self.session_id = s.id.clone();
                    self.peer_certs = s.peer_certs.clone();
                    self.master = Some(s.master.clone());
                    self.derive_keys()?;
                    self.state = State::ExpectChangeCipherSpec;
                } else {
                    self.session_id = sh.session_id;
                    self.state = State::ExpectServerCertificate;
                }
                Ok(())
            }
            State::ExpectServerCertificate => {
                self.expect(typ, hs::CERTIFICATE, "Certificate")?;
                let ders = msgs::parse_certificate(body)?;
                let config = self.client_config();
                let peer = check_peer(&ders, true, config.verify_peer, &config.trust, "server")?;
                if config.check_hostname {
                    if let Role::Client {
                        server_name: Some(name),
                        ..
                    } = &self.role
                    {
                        check_hostname(&peer.certs[0], name)?;
                    }
                }
                self.peer_certs = peer.certs.clone();
                self.peer = Some(peer);
                self.state = State::ExpectServerKeyExchange;
                Ok(())
            }
            State::ExpectServerKeyExchange => {
                self.expect(typ, hs::SERVER_KEY_EXCHANGE, "ServerKeyExchange")?;
                let ecdhe = self.suite()?.is_ecdhe();
                let (params, sig) = msgs::parse_server_key_exchange(body, ecdhe)?;
                let peer = self.peer()?;
                let data = match &params {
                    Some((raw, _)) => self.ecdhe_signed_data(raw),
                    None => self.ecc_signed_data(peer.certs[1].to_der()),
                };
                Self::verify_sig(&peer.sign_key, &data, &sig, "ServerKeyExchange")?;
                self.server_ephemeral = params.map(|(_, p)| p);
                self.state = State::ExpectCertificateRequestOrDone;
                Ok(())
            }
            State::ExpectCertificateRequestOrDone if typ == hs::CERTIFICATE_REQUEST => {
                let (types, _names) = msgs::parse_certificate_request(body)?;
                if !types.contains(&msgs::CERT_TYPE_ECC_SIGN) {
                    return Err(Error::handshake(
                        "CertificateRequest does not accept SM2 (ecc_sign) certificates",
                    ));
                }
                self.cert_requested = true;
                self.state = State::ExpectServerHelloDone;
                Ok(())
            }
            State::ExpectCertificateRequestOrDone | State::ExpectServerHelloDone => {
                self.expect(typ, hs::SERVER_HELLO_DONE, "ServerHelloDone")?;
                if !body.is_empty() {
                    return Err(Error::decode("ServerHelloDone must be empty"));
                }
                self.client_flight()
            }
            State::ExpectFinished => {
                self.expect(typ, hs::FINISHED, "Finished")?;
                self.check_finished(body, before)?;
                if self.resumed {
                    self.send_change_cipher_spec()?;
                    self.send_finished()?;
                }
                self.handshake_done()
            }
            _ => Err(Error::unexpected(format!(
                "handshake message {typ} in state {:?}",
                self.state
            ))),
        }
    }

    fn client_flight(&mut self) -> Result<()> {
        let config = self.client_config();
        let suite = self.suite()?;
        if suite.is_ecdhe() && !self.cert_requested {
            return Err(Error::handshake(
                "ECDHE suite without CertificateRequest (its key exchange needs the client's encryption certificate)",
            ));
        }
        let identity = config.identity.clone();
        if self.cert_requested {
            match &identity {
                Some(id) => {
                    // ECC suites: the signing chain only (the encryption certificate has
                    // no use there, and GmSSL reads the list as one chain); ECDHE: both.
                    let certs = if suite.is_ecdhe() || config.ecc_client_double_certificate {
                        id.wire_certs()
                    } else {
                        id.sign_chain.iter().map(|c| c.to_der().to_vec()).collect()
                    };
                    self.send_handshake(&msgs::encode_certificate(&certs)?)?;
                    self.client_cert_sent = true;
                }
                None if suite.is_ecdhe() => {
                    return Err(Error::handshake(
                        "ECDHE suite needs a client identity (signing and encryption certificates)",
                    ));
                }
                None => self.send_handshake(&msgs::encode_certificate(&[])?)?,
            }
        }
        let peer_enc = self
            .peer()?
            .enc_key
            .clone()
            .ok_or_else(|| Error::unexpected("no server encryption key"))?;
        let pms: Zeroizing<Vec<u8>> = if suite.is_ecdhe() {
            let id = identity.as_ref().ok_or(Error::Misuse("no identity"))?;
            let eph = self
                .server_ephemeral
                .take()
                .ok_or_else(|| Error::unexpected("no server ECDHE parameters"))?;
            // The client is user B, the responder (GB/T 32918.3 §6.1 B1-B9), with its
            // encryption key; the server's encryption key is A's static key.
            let (resp, ex) =
                Responder::respond(&id.enc_key, DEFAULT_UID, &peer_enc, DEFAULT_UID, &eph, 48)
                    .map_err(|_| {
                        Error::protocol(
                            AlertDescription::IllegalParameter,
                            "bad server ECDHE point",
                        )
                    })?;
            self.send_handshake(&msgs::encode_cke_ecdhe(&resp.ephemeral_public())?)?;
            ex.key
        } else {
            // pre_master = client_version (0x0101) || 46 random bytes, SM2-encrypted to
            // the server's encryption certificate, GM/T 0009 DER.
            let mut pms = Zeroizing::new(vec![0u8; 48]);
            pms[..2].copy_from_slice(&record::VERSION.to_be_bytes());
            guomi_core::rand::fill(&mut pms[2..])?;
            let ct = peer_enc.encrypt(&pms, CiphertextFormat::Der, true)?;
            self.send_handshake(&msgs::encode_cke_ecc(&ct)?)?;
            pms
        };
        if self.client_cert_sent {
            let id = identity.as_ref().ok_or(Error::Misuse("no identity"))?;
            // CertificateVerify: SM2 signature (default ID) of SM3(handshake messages so
            // far), as GmSSL.
            let h = self.transcript.digest();
            let sig = id.sign_key.sign(&h, DEFAULT_UID)?;
            self.send_handshake(&msgs::encode_certificate_verify(&sig.to_der())?)?;
        }
        self.set_master_from_pre_master(&pms)?;
        self.send_change_cipher_spec()?;
        self.send_finished()?;
        self.state = State::ExpectChangeCipherSpec;
        Ok(())
    }

    // ---- server ----------------------------------------------------------------------

    fn server_config(&self) -> Arc<ServerConfig> {
        match &self.role {
            Role::Server { config } => config.clone(),
            Role::Client { .. } => unreachable!("server-only path"),
        }
    }

    fn server_handshake(&mut self, typ: u8, body: &[u8], before: &[u8; 32]) -> Result<()> {
        let config = self.server_config();
        match self.state {
            State::ExpectClientHello => {
                self.expect(typ, hs::CLIENT_HELLO, "ClientHello")?;
                let ch = ClientHello::parse(body)?;
                self.client_random = ch.random;
                self.server_random = random32()?;
                if !ch.session_id.is_empty() {
                    if let Some(s) = config.session_cache.get(&ch.session_id) {
                        if ch.suites.contains(&s.suite.id()) && config.suites.contains(&s.suite) {
                            return self.server_resume(s);
                        }
                    }
                }
                let suite = config
                    .suites
                    .iter()
                    .copied()
                    .find(|s| ch.suites.contains(&s.id()))
                    .ok_or_else(|| Error::handshake("no cipher suite in common"))?;
                self.suite = Some(suite);
                self.session_id = if config.session_cache.capacity() > 0 {
                    random32()?.to_vec()
                } else {
                    Vec::new()
                };
                self.server_full_flight(&config, suite)
            }
            State::ExpectClientCertificate => {
                self.expect(typ, hs::CERTIFICATE, "Certificate")?;
                let ders = msgs::parse_certificate(body)?;
                let ecdhe = self.suite()?.is_ecdhe();
                if ders.is_empty() {
                    if ecdhe || config.client_auth == ClientAuth::Required {
                        return Err(Error::handshake("client sent no certificate"));
                    }
                } else {
                    let peer = check_peer(&ders, ecdhe, true, &config.client_trust, "client")?;
                    self.peer_certs = peer.certs.clone();
                    self.peer = Some(peer);
                    self.client_cert_sent = true;
                }
                self.state = State::ExpectClientKeyExchange;
                Ok(())
            }
            State::ExpectClientKeyExchange => {
                self.expect(typ, hs::CLIENT_KEY_EXCHANGE, "ClientKeyExchange")?;
                let suite = self.suite()?;
                let pms = if suite.is_ecdhe() {
                    let point = msgs::parse_cke_ecdhe(body)?;
                    let client_enc = self
                        .peer()?
                        .enc_key
                        .clone()
                        .ok_or_else(|| Error::handshake("no client encryption key"))?;
                    let init = self
                        .initiator
                        .take()
                        .ok_or_else(|| Error::unexpected("no ECDHE state"))?;
                    // The server is user A, the initiator (A4-A8), with its encryption key.
                    let mut init = init.bind(&client_enc, DEFAULT_UID)?;
                    init.finish(&point, None, 48)
                        .map_err(|_| {
                            Error::protocol(
                                AlertDescription::IllegalParameter,
                                "bad client ECDHE point",
                            )
                        })?
                        .key
                } else {
                    let ct = msgs::parse_cke_ecc(body)?;
                    Self::decrypt_pre_master(&config.identity.enc_key, &ct)?
                };
                self.set_master_from_pre_master(&pms)?;
                self.state = if self.client_cert_sent {
                    State::ExpectCertificateVerify
                } else {
                    State::ExpectChangeCipherSpec
                };
                Ok(())
            }
            State::ExpectCertificateVerify => {
                self.expect(typ, hs::CERTIFICATE_VERIFY, "CertificateVerify")?;
                let sig = msgs::parse_certificate_verify(body)?;
                let key = self.peer()?.sign_key.clone();
                Self::verify_sig(&key, before, &sig, "CertificateVerify")?;
                self.state = State::ExpectChangeCipherSpec;
                Ok(())
            }
            State::ExpectFinished => {
                self.expect(typ, hs::FINISHED, "Finished")?;
                self.check_finished(body, before)?;
                if !self.resumed {
                    self.send_change_cipher_spec()?;
                    self.send_finished()?;
                }
                self.handshake_done()
            }
            _ => Err(Error::unexpected(format!(
                "handshake message {typ} in state {:?}",
                self.state
            ))),
        }
    }

    /// The ECC pre-master: SM2-decrypt (GM/T 0009 DER) with the encryption key. Any
    /// failure — a bad ciphertext, a length other than 48, a version other than 0x0101 —
    /// continues with a random pre-master (RFC 5246 §7.4.7.1 style), so the handshake
    /// fails at Finished and nothing tells the cases apart.
    fn decrypt_pre_master(
        key: &guomi_core::sm2::PrivateKey,
        ct: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let mut out = Zeroizing::new(vec![0u8; 48]);
        guomi_core::rand::fill(&mut out)?;
        if let Ok(pms) = key.decrypt(ct, Some(CiphertextFormat::Der)) {
            if pms.len() == 48 {
                let ok = pms[..2].ct_eq(&record::VERSION.to_be_bytes());
                for (o, p) in out.iter_mut().zip(pms.iter()) {
                    o.conditional_assign(p, ok);
                }
            }
        }
        Ok(out)
    }

    /// The ECC pre-master decryption alone, for the constant-time check
    /// (`crates/guomi-ct`, check `tlcp-pre-master`). Not for other use.
    #[doc(hidden)]
    pub fn decrypt_pre_master_for_ct_check(
        key: &guomi_core::sm2::PrivateKey,
        ct: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        Self::decrypt_pre_master(key, ct)
    }

    fn server_resume(&mut self, s: Session) -> Result<()> {
        self.resumed = true;
        self.suite = Some(s.suite);
        self.session_id = s.id.clone();
        self.peer_certs = s.peer_certs.clone();
        self.master = Some(s.master.clone());
        let sh = ServerHello {
            random: self.server_random,
            session_id: s.id,
            suite: s.suite.id(),
        };
        self.send_handshake(&sh.encode()?)?;
        self.derive_keys()?;
        self.send_change_cipher_spec()?;
        self.send_finished()?;
        self.state = State::ExpectChangeCipherSpec;
        Ok(())
    }

    fn server_full_flight(&mut self, config: &ServerConfig, suite: CipherSuite) -> Result<()> {
        let sh = ServerHello {
            random: self.server_random,
            session_id: self.session_id.clone(),
            suite: suite.id(),
        };
        self.send_handshake(&sh.encode()?)?;
        let id = &config.identity;
        self.send_handshake(&msgs::encode_certificate(&id.wire_certs())?)?;
        let ske = if suite.is_ecdhe() {
            let init = UnboundInitiator::new(&id.enc_key, DEFAULT_UID)?;
            let params = msgs::encode_ecdh_params(&init.ephemeral_public());
            self.initiator = Some(init);
            let sig = id
                .sign_key
                .sign(&self.ecdhe_signed_data(&params), DEFAULT_UID)?;
            msgs::encode_server_key_exchange(Some(&params), &sig.to_der())?
        } else {
            let data = self.ecc_signed_data(id.enc_cert.to_der());
            let sig = id.sign_key.sign(&data, DEFAULT_UID)?;
            msgs::encode_server_key_exchange(None, &sig.to_der())?
        };
        self.send_handshake(&ske)?;
        self.cert_requested = suite.is_ecdhe() || config.client_auth != ClientAuth::None;
        if self.cert_requested {
            let names = config
                .client_trust
                .roots
                .iter()
                .filter_map(|c| c.subject_der().ok())
                .collect::<Vec<_>>();
            self.send_handshake(&msgs::encode_certificate_request(&names)?)?;
        }
        self.send_handshake(&msgs::wrap(hs::SERVER_HELLO_DONE, &[])?)?;
        self.state = if self.cert_requested {
            State::ExpectClientCertificate
        } else {
            State::ExpectClientKeyExchange
        };
        Ok(())
    }
}

/// A client connection; derefs to [`Connection`].
#[derive(Debug)]
pub struct ClientConnection(Connection);

impl ClientConnection {
    /// Starts a handshake (the ClientHello is queued for `write_tls` at once).
    /// `server_name` is checked against the server's signing certificate when
    /// `config.check_hostname` is on (it must then be given).
    pub fn new(config: Arc<ClientConfig>, server_name: Option<&str>) -> Result<Self> {
        Self::start(config, server_name, None)
    }

    /// Starts a handshake that offers to resume `session`.
    pub fn resume(
        config: Arc<ClientConfig>,
        server_name: Option<&str>,
        session: Session,
    ) -> Result<Self> {
        Self::start(config, server_name, Some(session))
    }

    fn start(
        config: Arc<ClientConfig>,
        server_name: Option<&str>,
        offered: Option<Session>,
    ) -> Result<Self> {
        config.check()?;
        if config.check_hostname && server_name.is_none() {
            return Err(Error::Config("check_hostname needs a server name".into()));
        }
        // ECDHE needs the client's encryption certificate: without an identity those
        // suites are not offered.
        let suites: Vec<u16> = config
            .suites
            .iter()
            .filter(|s| config.identity.is_some() || !s.is_ecdhe())
            .map(|s| s.id())
            .collect();
        if suites.is_empty() {
            return Err(Error::Config(
                "no suite to offer (ECDHE suites need a client identity)".into(),
            ));
        }
        let ch = ClientHello {
            random: random32()?,
            session_id: offered.as_ref().map(|s| s.id.clone()).unwrap_or_default(),
            suites,
        };
        let mut c = Connection::new(
            Role::Client {
                config,
                server_name: server_name.map(str::to_owned),
                offered,
            },
            State::ExpectServerHello,
        );
        c.client_random = ch.random;
        c.send_handshake(&ch.encode()?)?;
        Ok(ClientConnection(c))
    }
}

impl ClientConnection {
    /// The underlying [`Connection`].
    pub fn into_inner(self) -> Connection {
        self.0
    }
}

impl ServerConnection {
    /// The underlying [`Connection`].
    pub fn into_inner(self) -> Connection {
        self.0
    }
}

/// A server connection; derefs to [`Connection`].
#[derive(Debug)]
pub struct ServerConnection(Connection);

impl ServerConnection {
    /// Waits for a ClientHello.
    pub fn new(config: Arc<ServerConfig>) -> Result<Self> {
        config.check()?;
        Ok(ServerConnection(Connection::new(
            Role::Server { config },
            State::ExpectClientHello,
        )))
    }
}

impl Deref for ClientConnection {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}

impl DerefMut for ClientConnection {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.0
    }
}

impl Deref for ServerConnection {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}

impl DerefMut for ServerConnection {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.0
    }
}
