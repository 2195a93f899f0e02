//! Typed errors and the alert protocol's descriptions (GB/T 38636-2020 §6.3.5).

use std::fmt;

/// Alert level (§6.3.5.2): warning or fatal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertLevel {
    /// 1.
    Warning,
    /// 2.
    Fatal,
}

impl AlertLevel {
    pub(crate) fn to_byte(self) -> u8 {
        match self {
            AlertLevel::Warning => 1,
            AlertLevel::Fatal => 2,
        }
    }
}

macro_rules! alerts {
    ($($name:ident = $v:expr, $text:expr;)*) => {
        /// Alert descriptions (GB/T 38636-2020 §6.3.5.2 table; TLS 1.0 numbers plus the
        /// TLCP-specific 200-205). Unknown numbers are kept as `Unknown`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum AlertDescription {
            $(
                #[doc = $text]
                $name,
            )*
            /// A number this implementation does not know.
            Unknown(u8),
        }

        impl AlertDescription {
            /// The wire value.
            pub fn to_byte(self) -> u8 {
                match self {
                    $(AlertDescription::$name => $v,)*
                    AlertDescription::Unknown(v) => v,
                }
            }

            /// From the wire value.
            pub fn from_byte(b: u8) -> Self {
                match b {
                    $($v => AlertDescription::$name,)*
                    v => AlertDescription::Unknown(v),
                }
            }

            /// The standard's name (snake case, as in the standard's ASN.1-like syntax).
            pub fn name(self) -> &'static str {
                match self {
                    $(AlertDescription::$name => $text,)*
                    AlertDescription::Unknown(_) => "unknown",
                }
            }
        }
    };
}

alerts! {
    CloseNotify = 0, "close_notify";
    UnexpectedMessage = 10, "unexpected_message";
    BadRecordMac = 20, "bad_record_mac";
    DecryptionFailed = 21, "decryption_failed";
    RecordOverflow = 22, "record_overflow";
    DecompressionFailure = 30, "decompression_failure";
    HandshakeFailure = 40, "handshake_failure";
    BadCertificate = 42, "bad_certificate";
    UnsupportedCertificate = 43, "unsupported_certificate";
    CertificateRevoked = 44, "certificate_revoked";
    CertificateExpired = 45, "certificate_expired";
    CertificateUnknown = 46, "certificate_unknown";
    IllegalParameter = 47, "illegal_parameter";
    UnknownCa = 48, "unknown_ca";
    AccessDenied = 49, "access_denied";
    DecodeError = 50, "decode_error";
    DecryptError = 51, "decrypt_error";
    ProtocolVersion = 70, "protocol_version";
    InsufficientSecurity = 71, "insufficient_security";
    InternalError = 80, "internal_error";
    UserCanceled = 90, "user_canceled";
    NoRenegotiation = 100, "no_renegotiation";
    UnsupportedSite2Site = 200, "unsupported_site2site";
    NoArea = 201, "no_area";
    UnsupportedAreaType = 202, "unsupported_areatype";
    BadIbcParam = 203, "bad_ibcparam";
    UnsupportedIbcParam = 204, "unsupported_ibcparam";
    IdentityNeed = 205, "identity_need";
}

impl fmt::Display for AlertDescription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlertDescription::Unknown(v) => write!(f, "unknown alert {v}"),
            a => f.write_str(a.name()),
        }
    }
}

/// Everything that can go wrong in a TLCP connection. Errors caused by the peer carry the
/// fatal alert this side sends ([`Error::alert`]); once a connection has failed, every
/// later call returns the same error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The peer broke the protocol; we send (or sent) this fatal alert.
    Protocol {
        /// The alert sent to the peer.
        alert: AlertDescription,
        /// What was wrong.
        reason: String,
    },
    /// The peer's certificates were rejected (chain, key usage, hostname, revocation).
    Certificate {
        /// The alert sent to the peer.
        alert: AlertDescription,
        /// What was wrong, naming the certificate.
        reason: String,
    },
    /// The peer sent a fatal alert (or a warning this implementation treats as fatal).
    AlertReceived(AlertDescription),
    /// A record's sequence number would wrap (2^64 - 1 records in one direction); the
    /// connection must be closed (TLCP has no renegotiation here to rekey).
    SequenceExhausted,
    /// A configuration problem (no certificate, key does not match, no suite, ...).
    Config(String),
    /// The caller used the connection wrongly (send after close, ...).
    Misuse(&'static str),
    /// The connection is closed (close_notify sent or received).
    Closed,
    /// A primitive failed (the OS random number generator, for instance).
    Crypto(guomi_core::Error),
}

impl Error {
    pub(crate) fn protocol(alert: AlertDescription, reason: impl Into<String>) -> Self {
        Error::Protocol {
            alert,
            reason: reason.into(),
        }
    }

    pub(crate) fn decode(reason: &str) -> Self {
        Error::protocol(
            AlertDescription::DecodeError,
            format!("malformed message: {reason}"),
        )
    }

    pub(crate) fn unexpected(reason: impl Into<String>) -> Self {
        Error::protocol(AlertDescription::UnexpectedMessage, reason)
    }

    pub(crate) fn handshake(reason: impl Into<String>) -> Self {
        Error::protocol(AlertDescription::HandshakeFailure, reason)
    }

    pub(crate) fn cert(alert: AlertDescription, reason: impl Into<String>) -> Self {
        Error::Certificate {
            alert,
            reason: reason.into(),
        }
    }

    /// The fatal alert this side sends for this error, if any.
    pub fn alert(&self) -> Option<AlertDescription> {
        match self {
            Error::Protocol { alert, .. } | Error::Certificate { alert, .. } => Some(*alert),
            Error::Crypto(_) => Some(AlertDescription::InternalError),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Protocol { alert, reason } => write!(f, "TLCP {alert}: {reason}"),
            Error::Certificate { alert, reason } => {
                write!(f, "TLCP certificate rejected ({alert}): {reason}")
            }
            Error::AlertReceived(a) => write!(f, "TLCP peer sent alert {a}"),
            Error::SequenceExhausted => f.write_str("TLCP record sequence number exhausted"),
            Error::Config(m) => write!(f, "TLCP configuration: {m}"),
            Error::Misuse(m) => write!(f, "TLCP: {m}"),
            Error::Closed => f.write_str("TLCP connection closed"),
            Error::Crypto(e) => write!(f, "TLCP: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<guomi_core::Error> for Error {
    fn from(e: guomi_core::Error) -> Self {
        Error::Crypto(e)
    }
}

/// Result alias of this crate.
pub type Result<T> = core::result::Result<T, Error>;
