//! TLCP (GB/T 38636-2020, protocol version 0x0101) as a sans-I/O engine.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod record;
pub mod suites;

mod codec;
mod prf;

pub use error::{AlertDescription, AlertLevel, Error, Result};
pub use suites::CipherSuite;
