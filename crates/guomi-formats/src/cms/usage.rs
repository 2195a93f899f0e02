//! What a certificate's key may be used for in CMS: keyUsage (RFC 5280 §4.2.1.3) and
//! extKeyUsage (§4.2.1.12) of signers and key-transport recipients.
//!
//! Signers ([`SignerPurpose`], checked by `verify` on every signer certificate):
//!
//! | purpose | keyUsage (when present, unless said) | extKeyUsage |
//! |---|---|---|
//! | `Smime` (default) | digitalSignature or nonRepudiation | when present: emailProtection |
//! | `Any` | digitalSignature or nonRepudiation | not checked |
//! | `CodeSigning` | required: digitalSignature, and neither keyCertSign nor cRLSign | required: codeSigning |
//! | `TimeStamping` | digitalSignature and/or nonRepudiation, nothing else | required, critical, exactly timeStamping (RFC 3161 §2.3) |
//!
//! These follow OpenSSL's purposes (`crypto/x509/v3_purp.c`: `smimesign`,
//! `codesign` of OpenSSL 3.2 without its criticality rule, `timestampsign`) for a leaf
//! certificate; as there, anyExtendedKeyUsage alone does not satisfy a purpose, and a
//! certificate without the extension is not restricted by it. A GM/T 0015 dual
//! certificate pair signs with the signing certificate (digitalSignature /
//! nonRepudiation); its encryption certificate (keyEncipherment, dataEncipherment,
//! keyAgreement: the key the key-management centre also holds) never verifies a
//! signature.
//!
//! Key-transport recipients ([`check_recipient`]): when the certificate has a keyUsage,
//! it must include keyEncipherment (RFC 5652 §6.2.1 key transport; RFC 5280 §4.2.1.3),
//! as OpenSSL's `smimeencrypt` purpose requires.

use crate::x509::{oid as x509_oid, Certificate, ChainError};
use der::oid::ObjectIdentifier;
use guomi_core::{Error, Result};

/// keyUsage bits, in `KeyUsageFlags` order (RFC 5280 §4.2.1.3 KeyUsage bit numbers).
const DIGITAL_SIGNATURE: u16 = 1 << 0;
const NON_REPUDIATION: u16 = 1 << 1;
const KEY_ENCIPHERMENT: u16 = 1 << 2;
const KEY_CERT_SIGN: u16 = 1 << 5;
const CRL_SIGN: u16 = 1 << 6;
/// extKeyUsage (RFC 5280 §4.2.1.12).
const EXT_KEY_USAGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.37");

/// What a signer's certificate must allow (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignerPurpose {
    /// S/MIME signing (OpenSSL `smimesign`): the default.
    #[default]
    Smime,
    /// Only the keyUsage rule (digitalSignature or nonRepudiation, when present).
    Any,
    /// Code signing: keyUsage digitalSignature and extKeyUsage codeSigning, both required.
    CodeSigning,
    /// Time-stamp signing (RFC 3161 §2.3): a critical extKeyUsage of exactly timeStamping.
    TimeStamping,
}

impl SignerPurpose {
    /// Parses "smime", "any", "codesign" or "timestamping" (any case).
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "smime" | "smimesign" => Ok(SignerPurpose::Smime),
            "any" => Ok(SignerPurpose::Any),
            "codesign" | "codesigning" => Ok(SignerPurpose::CodeSigning),
            "timestamping" | "timestampsign" => Ok(SignerPurpose::TimeStamping),
            _ => Err(Error::InvalidValue(
                "purpose must be \"smime\", \"any\", \"codesign\" or \"timestamping\"",
            )),
        }
    }
}

fn refuse(cert: &Certificate, reason: impl Into<String>) -> ChainError {
    ChainError {
        subject: cert.subject(),
        reason: reason.into(),
        depth: 0,
    }
}

/// keyUsage bits, or `None` without the extension; a malformed one is refused.
fn key_usage(cert: &Certificate) -> core::result::Result<Option<u16>, ChainError> {
    cert.key_usage()
        .map(|k| k.map(|k| k.0))
        .map_err(|_| refuse(cert, "malformed keyUsage extension"))
}

/// The keyUsage rule every signer meets: digitalSignature or nonRepudiation, when the
/// extension is present.
pub(crate) fn may_sign(cert: &Certificate) -> core::result::Result<(), ChainError> {
    match key_usage(cert)? {
        Some(ku) if ku & (DIGITAL_SIGNATURE | NON_REPUDIATION) == 0 => Err(refuse(
            cert,
            "keyUsage allows neither digitalSignature nor nonRepudiation: the certificate's \
             key may not sign",
        )),
        _ => Ok(()),
    }
}

/// Checks a signer's certificate for `purpose` (see the module documentation).
pub fn check_signer(
    cert: &Certificate,
    purpose: SignerPurpose,
) -> core::result::Result<(), ChainError> {
    may_sign(cert)?;
    let ku = key_usage(cert)?;
    let eku = cert
        .extended_key_usage()
        .map_err(|_| refuse(cert, "malformed extKeyUsage extension"))?;
    let lists = |o: ObjectIdentifier| eku.as_ref().is_some_and(|e| e.contains(&o));
    match purpose {
        SignerPurpose::Any => Ok(()),
        SignerPurpose::Smime => {
            if eku.is_some() && !lists(x509_oid::EMAIL_PROTECTION) {
                return Err(refuse(
                    cert,
                    "extKeyUsage does not allow emailProtection (purpose \"smime\")",
                ));
            }
            Ok(())
        }
        SignerPurpose::CodeSigning => {
            match ku {
                Some(k) if k & DIGITAL_SIGNATURE != 0 && k & (KEY_CERT_SIGN | CRL_SIGN) == 0 => {}
                _ => {
                    return Err(refuse(
                        cert,
                        "keyUsage must be present with digitalSignature and without \
                         keyCertSign or cRLSign (purpose \"codesign\")",
                    ))
                }
            }
            if !lists(x509_oid::CODE_SIGNING) {
                return Err(refuse(
                    cert,
                    "extKeyUsage must be present and allow codeSigning (purpose \"codesign\")",
                ));
            }
            Ok(())
        }
        SignerPurpose::TimeStamping => {
            if ku.is_some_and(|k| k & !(DIGITAL_SIGNATURE | NON_REPUDIATION) != 0) {
                return Err(refuse(
                    cert,
                    "keyUsage allows more than digitalSignature and nonRepudiation (purpose \
                     \"timestamping\")",
                ));
            }
            let critical = cert
                .raw_extensions()
                .iter()
                .any(|e| e.extn_id == EXT_KEY_USAGE && e.critical);
            if eku.as_deref() != Some(&[x509_oid::TIME_STAMPING][..]) || !critical {
                return Err(refuse(
                    cert,
                    "extKeyUsage must be critical and exactly timeStamping (RFC 3161 §2.3; \
                     purpose \"timestamping\")",
                ));
            }
            Ok(())
        }
    }
}

/// Checks that a key-transport recipient's certificate allows keyEncipherment (when it
/// has a keyUsage); [`Error::InvalidValue`] otherwise.
pub(crate) fn check_recipient(cert: &Certificate) -> Result<()> {
    let ku = cert.key_usage().map_err(|_| {
        Error::InvalidValue("the recipient certificate has a malformed keyUsage extension")
    })?;
    if ku.is_some_and(|k| k.0 & KEY_ENCIPHERMENT == 0) {
        return Err(Error::InvalidValue(
            "the recipient certificate's keyUsage does not allow keyEncipherment (SM2 key \
             transport); use the encryption certificate of the pair",
        ));
    }
    Ok(())
}
