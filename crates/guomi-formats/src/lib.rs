//! guomi-formats: the data formats built on guomi-core's SM algorithms.
//!
//! * [`x509`]: SM2 certificates, certificate requests and chain validation (RFC 5280 with
//!   SM3withSM2), PKCS#8 and encrypted private keys, PEM.
//! * [`envelope`]: a versioned streaming format (KEM + SM4-GCM chunks) for data of any size.
//!
//! The cryptography itself is guomi-core's; this crate only encodes, decodes and checks
//! structures, and has no `unsafe` code at all. Errors are guomi-core's [`Error`].
#![forbid(unsafe_code)]

pub mod envelope;
pub mod pkcs12;
pub mod x509;

pub use guomi_core::{Error, Result};
