//! guomi-rustls: TLS 1.3 with the ShangMi suites of RFC 8998, as a rustls
//! [`CryptoProvider`] whose every algorithm is guomi-core's.
//!
//! | RFC 8998 object | code point | here |
//! |---|---|---|
//! | TLS_SM4_GCM_SM3 | 0x00C6 | [`suites::TLS_SM4_GCM_SM3`]: SM4-GCM, SM3, HKDF-SM3 |
//! | TLS_SM4_CCM_SM3 | 0x00C7 | [`suites::TLS_SM4_CCM_SM3`]: SM4-CCM, SM3, HKDF-SM3 |
//! | curveSM2 | 41 | [`kx::CURVE_SM2_GROUP`]: ECDHE on the SM2 curve, x-coordinate secret |
//! | sm2sig_sm3 | 0x0708 | [`sign`]: SM2/SM3 with the ID `TLSv1.3+GM+Cipher+Suite` |
//!
//! [`provider()`] holds exactly these, plus the OS CSPRNG ([`rand::OsRandom`]) and an SM2
//! key loader ([`sign::Sm2KeyProvider`]). Certificates are SM2, which webpki cannot
//! verify, so [`verify::Sm2ServerVerifier`] and [`verify::Sm2ClientVerifier`] validate
//! them with guomi-formats. [`ticketer::ticketer`] seals session tickets with SM4-GCM.
//!
//! ```no_run
//! # fn demo(roots: Vec<guomi_formats::x509::Certificate>,
//! #         chain: Vec<rustls::pki_types::CertificateDer<'static>>,
//! #         key: rustls::pki_types::PrivateKeyDer<'static>) -> Result<(), rustls::Error> {
//! use std::sync::Arc;
//! let client = guomi_rustls::client_config(roots)?;
//! let server = guomi_rustls::server_config(chain, key)?;
//! # Ok(()) }
//! ```
//!
//! # rustls version, and what it cannot say
//! Built on rustls 0.23 (the newest stable line), without its own providers, TLS 1.2 or
//! logging. rustls 0.23 names none of RFC 8998's code points, so this crate uses the
//! `Unknown(u16)` variants, which rustls negotiates like any other: `CipherSuite::Unknown(0x00C6)`
//! and `(0x00C7)`, `NamedGroup::Unknown(0x0029)`, `SignatureScheme::Unknown(0x0708)` (rustls
//! 0.24, still a pre-release, names them). Other gaps and the workaround for each:
//! * no `HashAlgorithm` for SM3 and no TLS 1.2 `SignatureAlgorithm` for SM2: values from the
//!   registries' private-use range (only compared for equality by rustls);
//! * `ConnectionTrafficSecrets` has no SM4 variant: key extraction (kTLS) is unsupported;
//! * rustls picks the suite, the group and the signature scheme independently, so it cannot
//!   enforce RFC 8998's profile (an SM suite *with* curveSM2 *and* sm2sig_sm3). This
//!   provider contains nothing else, so every handshake it makes is the profile; a provider
//!   that mixes these suites with others' groups loses that guarantee;
//! * RFC 8998 §3.2.1 uses two SM2 identifiers (handshake vs. certificate signatures):
//!   expressed through `WebPkiSupportedAlgorithms` (`all` vs. `mapping`), see [`sign`];
//! * custom server-certificate verifiers live under rustls's `dangerous()` API; the
//!   verifiers here are not dangerous, they are the full check (see [`verify`]);
//! * rustls always sends TLS 1.3's middlebox-compatibility change_cipher_spec records,
//!   which GmSSL 3.1.1 cannot ignore: [`compat::DropChangeCipherSpec`] strips them on the
//!   way out for such peers.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod aead;
pub mod compat;
pub mod conn;
pub mod hash;
pub mod kx;
pub mod rand;
pub mod sign;
pub mod suites;
pub mod ticketer;
pub mod verify;

use std::sync::Arc;

use guomi_formats::x509::Certificate;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ConfigBuilder, Error, ServerConfig, WantsVerifier};

pub use kx::CURVE_SM2;
/// The rustls this crate is built on (its `Error` and `AlertDescription` appear here).
pub use rustls;
pub use sign::{SM2_SM3, TLS13_SM2_ID};
pub use suites::{TLS_SM4_CCM_SM3_ID, TLS_SM4_GCM_SM3_ID};
pub use verify::{Sm2ClientVerifier, Sm2ServerVerifier};

/// The RFC 8998 provider: both SM suites (GCM first), curveSM2, sm2sig_sm3, the OS CSPRNG
/// and the SM2 key loader. Nothing else: no AES, no NIST curves, no RSA.
pub fn provider() -> CryptoProvider {
    CryptoProvider {
        cipher_suites: suites::ALL_SUITES.to_vec(),
        kx_groups: vec![&kx::CURVE_SM2_GROUP],
        signature_verification_algorithms: sign::SUPPORTED_SIG_ALGS,
        secure_random: &rand::OS_RANDOM,
        key_provider: &sign::SM2_KEY_PROVIDER,
    }
}

/// A client builder on [`provider()`], TLS 1.3 only, waiting for its verifier.
pub fn client_builder() -> Result<ConfigBuilder<ClientConfig, WantsVerifier>, Error> {
    ClientConfig::builder_with_provider(Arc::new(provider()))
        .with_protocol_versions(&[&rustls::version::TLS13])
}

/// A server builder on [`provider()`], TLS 1.3 only, waiting for its client verifier.
pub fn server_builder() -> Result<ConfigBuilder<ServerConfig, WantsVerifier>, Error> {
    ServerConfig::builder_with_provider(Arc::new(provider()))
        .with_protocol_versions(&[&rustls::version::TLS13])
}

/// A client that trusts `roots`, checks the server's name, and has no certificate of its
/// own. Session resumption uses rustls's in-memory client cache.
pub fn client_config(roots: Vec<Certificate>) -> Result<ClientConfig, Error> {
    Ok(client_builder()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Sm2ServerVerifier::new(roots)?))
        .with_no_client_auth())
}

/// A server with the SM2 certificate chain `chain` (leaf first) and its key, no client
/// authentication, and SM4-GCM session tickets ([`ticketer::ticketer`]).
pub fn server_config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<ServerConfig, Error> {
    let mut config = server_builder()?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
            certified_key(chain, &key)?,
        )));
    config.ticketer = ticketer::ticketer()?;
    Ok(config)
}

/// Pairs an SM2 chain (leaf first) with its private key, checking that the key is the
/// leaf's (by the decoded SM2 point, so either SPKI algorithm identifier works).
pub fn certified_key(
    chain: Vec<CertificateDer<'static>>,
    key: &PrivateKeyDer<'_>,
) -> Result<CertifiedKey, Error> {
    let signing = sign::load_signing_key(key)?;
    let leaf = chain.first().ok_or(Error::NoCertificatesPresented)?;
    let leaf_key = Certificate::from_der(leaf.as_ref())
        .and_then(|c| c.public_key())
        .map_err(|_| Error::InvalidCertificate(rustls::CertificateError::BadEncoding))?;
    if &leaf_key != signing.public_key() {
        return Err(rustls::InconsistentKeys::KeyMismatch.into());
    }
    Ok(CertifiedKey::new(chain, Arc::new(signing)))
}
