//! guomi-formats: the data formats built on guomi-core's SM algorithms.
//!
//! * [`x509`]: SM2 certificates, certificate requests and chain validation (RFC 5280 with
//!   SM3withSM2), PKCS#8 and encrypted private keys, PEM.
//! * [`sm2_keys`]: SM2 SubjectPublicKeyInfo, SEC1 and PKCS#8, DER and PEM.
//! * [`ber`]: a bounded BER-to-DER normaliser for what peers write (CMS, PKCS#12).
//! * [`cms`]: CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010) with SM2/SM3/SM4.
//! * [`pkcs12`]: PKCS#12 files (RFC 7292) with SM or AES protection.
//! * [`sm2_enveloped`]: the GM/T 0009 `SM2EnvelopedKey`.
//! * [`envelope`]: a versioned streaming format (KEM + SM4-GCM chunks) for data of any size.
//!
//! The cryptography itself is guomi-core's; this crate only encodes, decodes and checks
//! structures, and has no `unsafe` code at all. Errors are guomi-core's [`Error`].
//!
//! One ASN.1 layer: every structure here is read and written with RustCrypto's `der`
//! crate, through its typed structures (X.509, CRLs, PBES2 parameters, the PKCS#12
//! reader) or, where the exact octets of an element matter (CMS signed attributes, SET OF
//! and `[n]` wrappers around encoded parts), through the raw-element helpers of the
//! private `asn1` module, which are built on the `der` crate's `Length` and
//! `SliceReader`. BER input enters only through [`ber::to_der`]. guomi-core's own DER
//! module is for the algorithms' encodings (GM/T 0009, GM/T 0044) and is not used here.
#![forbid(unsafe_code)]

mod asn1;
pub mod ber;
pub mod cms;
pub mod envelope;
pub mod pkcs12;
pub mod sm2_enveloped;
pub mod sm2_keys;
pub mod x509;

pub use guomi_core::{Error, Result};
