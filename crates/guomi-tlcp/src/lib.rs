//! TLCP (GB/T 38636-2020, protocol version 0x0101) as a sans-I/O engine.
//!
//! The caller owns the I/O: bytes from the network go into
//! [`Connection::read_tls`], [`Connection::process`] runs the protocol, and
//! [`Connection::write_tls`] returns what to send. [`ClientConnection`] and
//! [`ServerConnection`] deref to [`Connection`]. The cryptography is guomi-core's (SM2,
//! SM3, HMAC-SM3, SM4-CBC/GCM); certificates and paths are guomi-formats'.
//!
//! Suites: ECC_SM4_CBC_SM3 (0xE013), ECC_SM4_GCM_SM3 (0xE053), ECDHE_SM4_CBC_SM3
//! (0xE011), ECDHE_SM4_GCM_SM3 (0xE051). Not implemented: the IBC/IBSDH (SM9) and RSA
//! suites, renegotiation, compression, DTLCP.
//!
//! # Protocol choices (where GB/T 38636 is silent or peers disagree)
//!
//! Peers consulted for facts: GmSSL 3.1.1 (`src/tlcp.c`; it implements ECC_SM4_CBC_SM3
//! only), tjfoc gmsm v1.4.1 `gmtls` (ECC and, on the client side only, a plain-ECDH
//! ECDHE; no GCM), and published descriptions of Tongsuo's NTLS and openHiTLS for ECDHE.
//!
//! * **Versions.** Only 0x0101, in every record header, ClientHello and ServerHello;
//!   anything else is `protocol_version`.
//! * **Hellos.** We send no extensions and only null compression; received extensions
//!   are parsed for structure and ignored; a hello choosing compression is
//!   `illegal_parameter`. The server picks the first suite of *its* list the client
//!   offers. A client without an identity does not offer ECDHE suites.
//! * **Certificates.** The server sends its signing certificate, then its encryption
//!   certificate, then the signing chain's intermediates. A client sends the same with
//!   ECDHE suites, but by default only its signing certificate and chain with ECC
//!   suites (the encryption certificate has no use there, and GmSSL 3.1.1's server reads
//!   the list as one chain); `ClientConfig::ecc_client_double_certificate` sends both
//!   (Tongsuo's NTLS server wants them). The server reads a client's list for an ECC
//!   suite as signing certificate + chain, so either form is accepted.
//!   The signing certificate must allow digitalSignature and the encryption certificate
//!   keyEncipherment or keyAgreement (when they carry keyUsage); these checks run even
//!   when path verification is off. Both must validate (RFC 5280, with the configured
//!   CRLs) to the *same* trust anchor. The server name is matched against the signing
//!   certificate's subjectAltName only (dNSName with a whole-label left-most wildcard,
//!   or iPAddress); the subject CN is never used. Alerts: unknown issuer →
//!   `unknown_ca`, revoked → `certificate_revoked`, expired → `certificate_expired`,
//!   key usage → `unsupported_certificate`, otherwise `bad_certificate`.
//! * **ECC ServerKeyExchange.** SM2 signature (signing key, default ID
//!   `1234567812345678`, DER) over client_random || server_random || the encryption
//!   certificate's length in 3 bytes || its DER, as GmSSL and gmtls; sent as
//!   `signature<0..2^16-1>`.
//! * **ECC ClientKeyExchange.** pre_master = 0x0101 || 46 random bytes, SM2-encrypted
//!   (C1C3C2 inside GM/T 0009 DER) to the server's encryption key, sent as
//!   `opaque<0..2^16-1>` (GmSSL, gmtls). The server decrypts DER only; a ciphertext that
//!   does not decrypt, a plaintext not 48 bytes long or not starting 0x0101 is replaced
//!   by random bytes without a distinguishable error (RFC 5246 §7.4.7.1), so the
//!   handshake fails at Finished.
//! * **ECDHE.** The SM2 key exchange of GB/T 32918.3 with klen = 48 bytes as the
//!   pre-master, no confirmation values (S_A/S_B are not sent). The server is user A
//!   (initiator), the client user B (responder); static keys are both sides'
//!   *encryption* keys; both IDs are the default ID; K = KDF(x || y || Z_A || Z_B)
//!   (Tongsuo, openHiTLS, GmSSL 3.2+). ServerKeyExchange = ServerECDHParams
//!   (curve_type named_curve 3, named curve 0x0029 SM2, `point<1..2^8-1>` 65-byte
//!   uncompressed) || `signature<0..2^16-1>`, the signature over client_random ||
//!   server_random || ServerECDHParams. ClientKeyExchange = the same three-field
//!   ClientECDHParams with the client's ephemeral point, *without* an outer length
//!   (Tongsuo and openHiTLS; GmSSL master adds a 2-byte length). Client certificates are
//!   mandatory with ECDHE: the server always sends CertificateRequest, and a client
//!   whose server does not is refused (`handshake_failure`).
//! * **CertificateRequest.** certificate_types = {ecc_sign (64)}; certificate_authorities
//!   = the subjects of the server's client-trust roots. A client with no identity
//!   answers with an empty Certificate (for ECC suites); the server then refuses it when
//!   client authentication is required.
//! * **CertificateVerify.** SM2 signature (signing key, default ID, DER) whose message is
//!   SM3(all handshake messages before CertificateVerify), i.e. e = SM3(Z || SM3(msgs))
//!   (GmSSL).
//! * **Keys.** PRF = P_SM3 (TLS 1.2 P_hash with HMAC-SM3). master_secret =
//!   PRF(pre_master, "master secret", client_random || server_random)[0..48];
//!   key_block = PRF(master, "key expansion", server_random || client_random): CBC
//!   suites 2 × 32-byte MAC keys, 2 × 16-byte SM4 keys, 2 × 16-byte IVs (the IVs are
//!   unused: every record carries an explicit IV); GCM suites no MAC keys, 2 × 16-byte
//!   keys, 2 × 4-byte implicit nonce salts (RFC 5288 layout). Finished verify_data =
//!   PRF(master, "client finished" / "server finished", SM3(handshake messages))[0..12].
//! * **Records.** See [`record`]: CBC MAC-then-encrypt with a constant-time check, GCM
//!   nonce = salt || 8-byte explicit nonce (we send the sequence number), AAD = seq ||
//!   type || version || plaintext length; limits 2^14 plaintext, 2^14 + 2048 protected;
//!   sequence numbers never wrap.
//! * **Resumption.** By session ID (32 random bytes from the server when its cache is
//!   enabled; empty otherwise) with a bounded FIFO cache ([`SessionCache`]). The server
//!   resumes only when the client offers the session's suite and the server still
//!   allows it; the client refuses a resumed ServerHello with a different suite.
//!   Resumed connections report the certificates of the original handshake.
//! * **Strictness.** Any handshake message out of order is `unexpected_message`;
//!   records interleaved within a fragmented handshake message, ChangeCipherSpec
//!   out of place, application data before the handshake ends, empty handshake records,
//!   records after close_notify are refused. After the handshake, ClientHello
//!   (server) or HelloRequest (client) is a fatal `no_renegotiation`; any other
//!   handshake message `unexpected_message`. Alerts: warning close_notify ends the
//!   stream (answered with close_notify); warning user_canceled is tolerated (at most 4
//!   in a row); every other alert, warning or fatal, ends the connection. At most 32
//!   consecutive empty application records. Handshake messages are at most 64 KiB and
//!   carry at most 10 certificates; unprocessed input is bounded by
//!   [`conn::MAX_INCOMING`].
//! * **Errors.** Never a panic on input: every length is checked before use; errors
//!   are [`Error`] values carrying the alert sent.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod conn;
pub mod error;
pub mod msgs;
pub mod record;
pub mod suites;

mod codec;
mod prf;
mod verify;

pub use config::{
    CertifiedKey, ClientAuth, ClientConfig, ServerConfig, Session, SessionCache, Trust,
    MAX_SESSION_CACHE,
};
pub use conn::{ClientConnection, Connection, ServerConnection};
pub use error::{AlertDescription, AlertLevel, Error, Result};
pub use suites::CipherSuite;
