//! Keys at rest and SM2 certificates: protected PKCS#8 private keys, X.509 certificates
//! signed with SM2-with-SM3, certification paths and PKCS#10 requests.
//!
//! * [`keys`]: PKCS#8 `EncryptedPrivateKeyInfo` with PBES2 (RFC 8018 §6.2): PBKDF2 with
//!   PRF HMAC-SM3 (1.2.156.10197.1.401.2, as GmSSL 3 writes it) or HMAC-SHA256 (as
//!   `openssl pkcs8 -topk8 -v2 sm4-cbc` writes it) and SM4-CBC (1.2.156.10197.1.104.2),
//!   read and written; legacy OpenSSL PEM (`Proc-Type: 4,ENCRYPTED`,
//!   `DEK-Info: SM4-CBC,<iv>`) read.
//! * [`cert`]: parse, inspect, verify and build X.509 v3 certificates (RFC 5280) whose
//!   signature is SM2-with-SM3 (1.2.156.10197.1.501) with the default signer ID
//!   `1234567812345678` (GM/T 0009-2012 §10, GB/T 35276).
//! * [`chain`]: certification-path validation (RFC 5280 §6, the subset that matters for
//!   SM2 PKIs): signatures, name chaining, validity, CA flag, path length, keyCertSign,
//!   extended key usage.
//! * [`csr`]: PKCS#10 certification requests (RFC 2986): build, parse, verify.
//! * [`crl`]: certificate revocation lists (RFC 5280 §5): parse, verify, build; used by
//!   [`chain::verify_chain_with_crls`].
//!
//! The ASN.1 structures come from RustCrypto's `der`/`spki`/`x509-cert` crates; every
//! cryptographic operation (SM2, SM3, SM4, PBKDF2-HMAC-SM3) is guomi's own.

pub mod cert;
pub mod chain;
pub mod crl;
pub mod csr;
pub mod keys;

pub use cert::{Certificate, CertificateBuilder, GeneralNameValue, KeyUsageFlags};
pub use chain::{verify_chain, verify_chain_with_crls, ChainError};
pub use crl::{Crl, CrlBuilder, Revocation, RevokedEntry};
pub use csr::{CertificateRequest, RequestBuilder};
pub use der::oid::ObjectIdentifier;
pub use keys::{
    decrypt_private_key_der, encrypt_private_key_der, encrypt_private_key_pem,
    load_private_key_der, load_private_key_pem, Prf, DEFAULT_ITERATIONS,
};

/// Object identifiers used by this module.
pub mod oid {
    use der::oid::ObjectIdentifier as Oid;

    /// SM2-with-SM3 signature (GM/T 0006 / GB/T 33560): 1.2.156.10197.1.501.
    pub const SM2_WITH_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.501");
    /// The SM2 curve / algorithm: 1.2.156.10197.1.301.
    pub const SM2: Oid = Oid::new_unwrap("1.2.156.10197.1.301");
    /// id-ecPublicKey (RFC 5480): 1.2.840.10045.2.1.
    pub const EC_PUBLIC_KEY: Oid = Oid::new_unwrap("1.2.840.10045.2.1");
    /// PBES2 (RFC 8018 §A.4): 1.2.840.113549.1.5.13.
    pub const PBES2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.13");
    /// PBKDF2 (RFC 8018 §A.2): 1.2.840.113549.1.5.12.
    pub const PBKDF2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.12");
    /// HMAC-SM3 (GM/T 0091-2020 usage as written by GmSSL 3): 1.2.156.10197.1.401.2.
    pub const HMAC_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401.2");
    /// hmacWithSHA256 (RFC 8018 §B.1.2): 1.2.840.113549.2.9.
    pub const HMAC_SHA256: Oid = Oid::new_unwrap("1.2.840.113549.2.9");
    /// SM4-CBC: 1.2.156.10197.1.104.2.
    pub const SM4_CBC: Oid = Oid::new_unwrap("1.2.156.10197.1.104.2");
    /// anyExtendedKeyUsage (RFC 5280 §4.2.1.12): 2.5.29.37.0.
    pub const ANY_EXTENDED_KEY_USAGE: Oid = Oid::new_unwrap("2.5.29.37.0");
    /// id-kp-serverAuth: 1.3.6.1.5.5.7.3.1.
    pub const SERVER_AUTH: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.1");
    /// id-kp-clientAuth: 1.3.6.1.5.5.7.3.2.
    pub const CLIENT_AUTH: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.2");
    /// id-kp-codeSigning: 1.3.6.1.5.5.7.3.3.
    pub const CODE_SIGNING: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.3");
    /// id-kp-emailProtection: 1.3.6.1.5.5.7.3.4.
    pub const EMAIL_PROTECTION: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.4");
    /// id-kp-timeStamping: 1.3.6.1.5.5.7.3.8.
    pub const TIME_STAMPING: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.8");
    /// id-kp-OCSPSigning: 1.3.6.1.5.5.7.3.9.
    pub const OCSP_SIGNING: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.9");
}

/// The short names of the extended key usages guomi knows, and their OIDs.
pub const EKU_NAMES: &[(&str, ObjectIdentifier)] = &[
    ("serverAuth", oid::SERVER_AUTH),
    ("clientAuth", oid::CLIENT_AUTH),
    ("codeSigning", oid::CODE_SIGNING),
    ("emailProtection", oid::EMAIL_PROTECTION),
    ("timeStamping", oid::TIME_STAMPING),
    ("OCSPSigning", oid::OCSP_SIGNING),
    ("anyExtendedKeyUsage", oid::ANY_EXTENDED_KEY_USAGE),
];

/// Parses an extended key usage given by short name (`serverAuth`) or dotted OID.
pub fn parse_eku(name: &str) -> guomi_core::Result<ObjectIdentifier> {
    if let Some((_, o)) = EKU_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Ok(*o);
    }
    ObjectIdentifier::new(name).map_err(|_| {
        guomi_core::Error::InvalidValue(
            "unknown extended key usage: give serverAuth, clientAuth, codeSigning, \
             emailProtection, timeStamping, OCSPSigning, anyExtendedKeyUsage or a dotted OID",
        )
    })
}

/// The short name of an extended key usage, or its dotted OID.
pub fn eku_name(o: &ObjectIdentifier) -> String {
    EKU_NAMES
        .iter()
        .find(|(_, x)| x == o)
        .map(|(n, _)| (*n).to_string())
        .unwrap_or_else(|| o.to_string())
}

/// `der` errors: malformed encodings.
pub(crate) fn der_err(_: der::Error) -> guomi_core::Error {
    guomi_core::Error::UnsupportedFormat("malformed DER")
}
