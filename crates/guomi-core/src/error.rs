//! The one error type of the core. `guomi-python` maps each variant to one Python
//! exception class defined in `guomi/exceptions.py`.

use core::fmt;

/// Every failure the core reports. Failures of authenticated operations carry no detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A key, IV, nonce, tag or other input has the wrong length.
    InvalidLength {
        /// What had the wrong length ("key", "iv", ...).
        what: &'static str,
        /// The accepted lengths in words, e.g. "16 bytes" or "12 to 16 bytes".
        expected: &'static str,
        /// The length that was given.
        got: usize,
    },
    /// An argument has a value outside its domain (mode name, bearer > 31, ...).
    InvalidValue(&'static str),
    /// Removing block-cipher padding failed.
    InvalidPadding,
    /// An AEAD tag or MAC did not verify.
    InvalidTag,
    /// Public-key decryption failed (any reason; deliberately opaque).
    DecryptionFailed,
    /// A key or point is not valid (off the curve, out of range, wrong password...).
    InvalidKey(&'static str),
    /// A signature does not verify or is malformed.
    InvalidSignature,
    /// An encoding (DER, PEM, point or ciphertext format) is malformed or not supported.
    UnsupportedFormat(&'static str),
    /// A ZUC keystream (key, IV) would be used a second time.
    KeystreamReuse,
    /// A streaming object was used after `finalize`.
    AlreadyFinalized,
    /// The operating system's random number generator failed.
    Random,
    /// A backend was requested that this CPU (or this algorithm) does not support.
    UnsupportedBackend(&'static str),
}

/// Result alias of the core.
pub type Result<T> = core::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidLength {
                what,
                expected,
                got,
            } => {
                write!(f, "{what} must be {expected}, got {got} bytes")
            }
            Error::InvalidValue(msg) => f.write_str(msg),
            Error::InvalidPadding => f.write_str("invalid padding"),
            Error::InvalidTag => f.write_str("authentication tag does not match"),
            Error::DecryptionFailed => f.write_str("decryption failed"),
            Error::InvalidKey(msg) => f.write_str(msg),
            Error::InvalidSignature => f.write_str("invalid signature"),
            Error::UnsupportedFormat(msg) => f.write_str(msg),
            Error::KeystreamReuse => {
                f.write_str("keystream reuse: this key and IV were already used")
            }
            Error::AlreadyFinalized => f.write_str("object already finalized"),
            Error::Random => f.write_str("the operating system's random number generator failed"),
            Error::UnsupportedBackend(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {}

/// Checks `data.len()` against an exact length.
pub fn expect_len(
    what: &'static str,
    expected: &'static str,
    want: usize,
    data: &[u8],
) -> Result<()> {
    if data.len() == want {
        Ok(())
    } else {
        Err(Error::InvalidLength {
            what,
            expected,
            got: data.len(),
        })
    }
}
