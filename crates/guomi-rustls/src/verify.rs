//! Certificate verification for SM2 PKIs: rustls's `ServerCertVerifier` and
//! `ClientCertVerifier` over guomi-formats's path validation (webpki has no SM2).
//!
//! For a peer's Certificate message the verifiers check, failing closed:
//! * the chain, leaf to one of the configured trust anchors, by
//!   [`guomi_formats::x509::verify_chain_with_crls`] at the handshake's time: SM2-with-SM3
//!   signatures (identifier `1234567812345678`, RFC 8998 §3.2.1), validity, basicConstraints,
//!   keyUsage keyCertSign, pathLenConstraint, unknown critical extensions, and the CRLs
//!   given (if any);
//! * the leaf's extKeyUsage (when present) allows serverAuth / clientAuth;
//! * the leaf has an SM2 key and, when it has a keyUsage extension, digitalSignature
//!   (RFC 8998 §3.3.3);
//! * for a server, the name the client asked for: a DNS name against the leaf's
//!   subjectAltName dNSName entries (case-insensitive; a `*` only as the whole leftmost
//!   label, matching exactly one label), an IP address against its iPAddress entries. The
//!   subject's common name is never used (RFC 6125 §6.4.4 allows skipping it; browsers do).
//!
//! CertificateVerify is checked against the leaf's key with sm2sig_sm3 only and the
//! identifier `TLSv1.3+GM+Cipher+Suite` over the content rustls builds (RFC 8446 §4.4.3:
//! 64 spaces, the context string, 0x00, the transcript hash). TLS 1.2 is refused.

use std::net::IpAddr;
use std::sync::Arc;

use guomi_formats::x509::{
    self, oid, verify_chain_with_crls, Certificate, ChainError, Crl, GeneralNameValue,
    ObjectIdentifier,
};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    CertificateError, DigitallySignedStruct, DistinguishedName, Error, OtherError,
    PeerIncompatible, PeerMisbehaved, SignatureScheme,
};

use crate::sign::{verify_handshake_signature, SM2_SM3};

/// keyUsage digitalSignature (bit 0 of RFC 5280 §4.2.1.3).
const KU_DIGITAL_SIGNATURE: u16 = 1;

/// The trust configuration shared by both verifiers.
#[derive(Clone, Debug)]
struct Trust {
    roots: Vec<Certificate>,
    crls: Vec<Crl>,
    require_crls: bool,
}

impl Trust {
    fn new(roots: Vec<Certificate>) -> Result<Self, Error> {
        if roots.is_empty() {
            return Err(Error::General("no trust anchors given".into()));
        }
        if roots.len() > x509::chain::MAX_CERTIFICATES {
            return Err(Error::General("too many trust anchors".into()));
        }
        Ok(Trust {
            roots,
            crls: Vec::new(),
            require_crls: false,
        })
    }

    /// Validates `end_entity` (with `intermediates`) for `purpose` at `now`; returns the leaf.
    fn verify(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
        purpose: ObjectIdentifier,
    ) -> Result<Certificate, Error> {
        let leaf = parse(end_entity)?;
        // Bounded by guomi-formats too, but refuse absurd chains before parsing them.
        if intermediates.len() > x509::chain::MAX_PATH_LEN {
            return Err(other(ChainError {
                subject: leaf.subject(),
                reason: format!(
                    "too many intermediate certificates ({}; at most {})",
                    intermediates.len(),
                    x509::chain::MAX_PATH_LEN
                ),
                depth: 0,
            }));
        }
        let intermediates = intermediates
            .iter()
            .map(parse)
            .collect::<Result<Vec<_>, _>>()?;
        // RFC 8998 §3.3.3: an SM2 key that may sign.
        if leaf.public_key().is_err() {
            return Err(CertificateError::BadEncoding.into());
        }
        match leaf.key_usage() {
            Ok(Some(ku)) if ku.0 & KU_DIGITAL_SIGNATURE == 0 => {
                return Err(CertificateError::InvalidPurpose.into())
            }
            Ok(_) => {}
            Err(_) => return Err(CertificateError::BadEncoding.into()),
        }
        let at = i64::try_from(now.as_secs()).map_err(|_| Error::FailedToGetCurrentTime)?;
        verify_chain_with_crls(
            &leaf,
            &intermediates,
            &self.roots,
            at,
            Some(purpose),
            &self.crls,
            self.require_crls,
        )
        .map_err(chain_error)?;
        Ok(leaf)
    }

    fn root_subjects(&self) -> Vec<DistinguishedName> {
        self.roots
            .iter()
            .filter_map(|r| r.subject_der().ok())
            .map(DistinguishedName::from)
            .collect()
    }
}

fn parse(der: &CertificateDer<'_>) -> Result<Certificate, Error> {
    Certificate::from_der(der.as_ref()).map_err(|_| CertificateError::BadEncoding.into())
}

fn other(e: ChainError) -> Error {
    CertificateError::Other(OtherError(Arc::new(e))).into()
}

/// Maps a path-validation failure to rustls's alert-bearing error: the common cases to
/// their own `CertificateError` (so rustls sends the matching alert), anything else to
/// `CertificateError::Other` carrying the [`ChainError`] (failing certificate and reason).
fn chain_error(e: ChainError) -> Error {
    let r = e.reason.as_str();
    let kind = if r.starts_with("expired") {
        CertificateError::Expired
    } else if r.starts_with("not yet valid") {
        CertificateError::NotValidYet
    } else if r.starts_with("revoked") {
        CertificateError::Revoked
    } else if r.starts_with("no certification path")
        || r.contains("not found among the intermediates and trust roots")
        || r.starts_with("self-signed certificate is not among the trust roots")
    {
        CertificateError::UnknownIssuer
    } else if r.starts_with("signature does not verify") {
        CertificateError::BadSignature
    } else if r.starts_with("extKeyUsage does not allow") {
        CertificateError::InvalidPurpose
    } else {
        return other(e);
    };
    kind.into()
}

/// The CertificateVerify check shared by both sides.
fn verify_tls13(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
) -> Result<HandshakeSignatureValid, Error> {
    if dss.scheme != SM2_SM3 {
        return Err(PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme.into());
    }
    let key = parse(cert)?
        .public_key()
        .map_err(|_| Error::from(CertificateError::BadEncoding))?;
    if verify_handshake_signature(&key, message, dss.signature()) {
        Ok(HandshakeSignatureValid::assertion())
    } else {
        Err(CertificateError::BadSignature.into())
    }
}

fn no_tls12() -> Result<HandshakeSignatureValid, Error> {
    Err(PeerIncompatible::Tls12NotOffered.into())
}

/// Does the leaf's subjectAltName cover `name`?
pub fn matches_server_name(leaf: &Certificate, name: &ServerName<'_>) -> bool {
    let Ok(Some(sans)) = leaf.subject_alt_names() else {
        return false;
    };
    match name {
        ServerName::DnsName(dns) => {
            let host = dns.as_ref();
            sans.iter().any(|san| match san {
                GeneralNameValue::Dns(pattern) => dns_matches(pattern, host),
                _ => false,
            })
        }
        ServerName::IpAddress(ip) => {
            let want = match IpAddr::from(*ip) {
                IpAddr::V4(v4) => v4.octets().to_vec(),
                IpAddr::V6(v6) => v6.octets().to_vec(),
            };
            sans.iter()
                .any(|san| matches!(san, GeneralNameValue::Ip(have) if *have == want))
        }
        _ => false,
    }
}

/// RFC 6125 §6.4 matching of one dNSName `pattern` against `host` (ASCII
/// case-insensitive, one trailing dot ignored on either side). A wildcard is accepted only
/// as the entire leftmost label of a pattern with at least two more labels, and matches
/// exactly one non-empty label.
pub fn dns_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.strip_suffix('.').unwrap_or(pattern);
    let host = host.strip_suffix('.').unwrap_or(host);
    if pattern.is_empty() || host.is_empty() || !pattern.is_ascii() || !host.is_ascii() {
        return false;
    }
    if let Some(rest) = pattern.strip_prefix("*.") {
        if rest.split('.').count() < 2 || rest.contains('*') {
            return false;
        }
        return match host.split_once('.') {
            Some((first, host_rest)) => !first.is_empty() && host_rest.eq_ignore_ascii_case(rest),
            None => false,
        };
    }
    !pattern.contains('*') && pattern.eq_ignore_ascii_case(host)
}

/// Verifies a TLS 1.3 server's SM2 certificate chain, name and CertificateVerify (see the
/// module documentation). Install with
/// `ClientConfig::builder_with_provider(..).dangerous().with_custom_certificate_verifier(..)`
/// (rustls files every custom verifier under `dangerous`).
#[derive(Clone, Debug)]
pub struct Sm2ServerVerifier {
    /// `None`: no path validation (see [`Sm2ServerVerifier::unverified`]).
    trust: Option<Trust>,
    check_name: bool,
}

impl Sm2ServerVerifier {
    /// Trusts `roots` (at least one).
    pub fn new(roots: Vec<Certificate>) -> Result<Self, Error> {
        Ok(Sm2ServerVerifier {
            trust: Some(Trust::new(roots)?),
            check_name: true,
        })
    }

    /// Accepts any server certificate without validating its path or name (Python's
    /// `ssl.CERT_NONE`): the connection is encrypted but the server is not authenticated.
    /// The leaf must still hold an SM2 key, and CertificateVerify is still checked
    /// against it.
    pub fn unverified() -> Self {
        Sm2ServerVerifier {
            trust: None,
            check_name: false,
        }
    }

    /// Validates the path but does not match the server name against the leaf.
    pub fn without_hostname_check(mut self) -> Self {
        self.check_name = false;
        self
    }

    /// Trusts the DER certificates `roots`.
    pub fn from_der(roots: &[CertificateDer<'_>]) -> Result<Self, Error> {
        Self::new(roots.iter().map(parse).collect::<Result<_, _>>()?)
    }

    /// Also checks every certificate below the anchor against `crls`; with `require`, a
    /// certificate whose issuer has no CRL among them fails.
    /// (No effect on an [`unverified`](Self::unverified) verifier.)
    pub fn with_crls(mut self, crls: Vec<Crl>, require: bool) -> Self {
        if let Some(trust) = self.trust.as_mut() {
            trust.crls = crls;
            trust.require_crls = require;
        }
        self
    }
}

impl ServerCertVerifier for Sm2ServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let Some(trust) = &self.trust else {
            parse(end_entity)?
                .public_key()
                .map_err(|_| Error::from(CertificateError::BadEncoding))?;
            return Ok(ServerCertVerified::assertion());
        };
        let leaf = trust.verify(end_entity, intermediates, now, oid::SERVER_AUTH)?;
        if self.check_name && !matches_server_name(&leaf, server_name) {
            return Err(CertificateError::NotValidForName.into());
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        no_tls12()
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SM2_SM3]
    }
}

/// Verifies TLS 1.3 client certificates (SM2 chain for clientAuth, CertificateVerify).
/// The CertificateRequest it causes lists sm2sig_sm3 as the only signature algorithm
/// (RFC 8998 §3.3.2) and the trust anchors' subjects as certificate_authorities.
#[derive(Clone, Debug)]
pub struct Sm2ClientVerifier {
    trust: Trust,
    mandatory: bool,
    hints: Vec<DistinguishedName>,
}

impl Sm2ClientVerifier {
    /// Requires a client certificate chaining to one of `roots`.
    pub fn new(roots: Vec<Certificate>) -> Result<Self, Error> {
        let trust = Trust::new(roots)?;
        let hints = trust.root_subjects();
        Ok(Sm2ClientVerifier {
            trust,
            mandatory: true,
            hints,
        })
    }

    /// Trusts the DER certificates `roots`.
    pub fn from_der(roots: &[CertificateDer<'_>]) -> Result<Self, Error> {
        Self::new(roots.iter().map(parse).collect::<Result<_, _>>()?)
    }

    /// Lets a client without a certificate in (anonymous clients allowed); one that sends
    /// a certificate is still fully verified.
    pub fn optional(mut self) -> Self {
        self.mandatory = false;
        self
    }

    /// As [`Sm2ServerVerifier::with_crls`].
    pub fn with_crls(mut self, crls: Vec<Crl>, require: bool) -> Self {
        self.trust.crls = crls;
        self.trust.require_crls = require;
        self
    }
}

impl ClientCertVerifier for Sm2ClientVerifier {
    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &self.hints
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        self.trust
            .verify(end_entity, intermediates, now, oid::CLIENT_AUTH)?;
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        no_tls12()
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SM2_SM3]
    }
}
