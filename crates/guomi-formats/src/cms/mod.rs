//! Cryptographic Message Syntax (RFC 5652) with the SM algorithms, as GM/T 0010-2012
//! profiles it: SignedData (SM3 digests, SM2 signatures) and EnvelopedData (SM2 key
//! transport of an SM4 content key).
//!
//! * [`ber`]: a bounded BER reader that normalises what peers write (BouncyCastle's
//!   indefinite lengths and chunked OCTET STRINGs) to DER. Every input goes through it.
//! * [`signed`]: [`SignedDataBuilder`] (one or more signers, attached or detached
//!   content, signed attributes or not) and [`verify`].
//! * [`enveloped`]: [`encrypt`] to SM2 recipient certificates, [`decrypt`] with an SM2
//!   private key, content cipher SM4-CBC or SM4-GCM.
//! * [`usage`]: what a signer's or recipient's certificate must allow (keyUsage,
//!   extKeyUsage; [`SignerPurpose`]).
//!
//! Two sets of content-type OIDs exist and both are read: RFC 5652's
//! `1.2.840.113549.1.7.x` ([`OidStyle::Rfc`], what BouncyCastle and OpenSSL write) and
//! GM/T 0010's `1.2.156.10197.6.1.4.2.x` ([`OidStyle::Gm`], what some Chinese PKI
//! software and gmsm's `pkcs7` with the SM2 variants write).
//!
//! Bounds: inputs at most [`ber::MAX_INPUT`] bytes nested at most [`ber::MAX_DEPTH`]
//! deep, at most [`MAX_SIGNERS`] signers, [`MAX_RECIPIENTS`] recipients,
//! [`MAX_CERTIFICATES`] certificates and [`MAX_ATTRIBUTES`] signed attributes per
//! structure; beyond them a typed error ([`Error::UnsupportedFormat`]).

use crate::ber;
pub mod enveloped;
pub mod signed;
pub mod usage;

pub use enveloped::{decrypt, encrypt, ContentCipher, EncryptOptions, KeyFormat};
pub use signed::{
    verify, verify_for, SignatureOid, SignedDataBuilder, SignerId, Verified, VerifyError,
};
pub use usage::SignerPurpose;

use crate::asn1::{self, ctx_cons, Tlv, SEQUENCE};
use guomi_core::{Error, Result};

/// At most this many SignerInfos in a SignedData (read or built).
pub const MAX_SIGNERS: usize = 64;
/// At most this many RecipientInfos in an EnvelopedData (read or built).
pub const MAX_RECIPIENTS: usize = 64;
/// At most this many certificates in a SignedData's `certificates` field.
pub const MAX_CERTIFICATES: usize = 256;
/// At most this many signed (or unsigned) attributes in one SignerInfo.
pub const MAX_ATTRIBUTES: usize = 64;

/// Which content-type OIDs to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OidStyle {
    /// RFC 5652 (PKCS #7): data 1.2.840.113549.1.7.1, signedData .7.2, envelopedData .7.3.
    Rfc,
    /// GM/T 0010-2012: data 1.2.156.10197.6.1.4.2.1, signedData .2, envelopedData .3.
    Gm,
}

impl OidStyle {
    /// Parses "rfc" or "gm".
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "rfc" => Ok(OidStyle::Rfc),
            "gm" => Ok(OidStyle::Gm),
            _ => Err(Error::InvalidValue("oid_style must be \"rfc\" or \"gm\"")),
        }
    }

    /// The data content type of this style.
    pub fn data(self) -> der::oid::ObjectIdentifier {
        match self {
            OidStyle::Rfc => oid::DATA,
            OidStyle::Gm => oid::GM_DATA,
        }
    }

    fn signed_data(self) -> der::oid::ObjectIdentifier {
        match self {
            OidStyle::Rfc => oid::SIGNED_DATA,
            OidStyle::Gm => oid::GM_SIGNED_DATA,
        }
    }

    fn enveloped_data(self) -> der::oid::ObjectIdentifier {
        match self {
            OidStyle::Rfc => oid::ENVELOPED_DATA,
            OidStyle::Gm => oid::GM_ENVELOPED_DATA,
        }
    }
}

/// Object identifiers of CMS and GM/T 0010.
pub mod oid {
    use der::oid::ObjectIdentifier as Oid;

    /// id-data (RFC 5652 §4).
    pub const DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
    /// id-signedData (RFC 5652 §5.1).
    pub const SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");
    /// id-envelopedData (RFC 5652 §6.1).
    pub const ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.3");
    /// GM/T 0010-2012 data.
    pub const GM_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.1");
    /// GM/T 0010-2012 signedData.
    pub const GM_SIGNED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.2");
    /// GM/T 0010-2012 envelopedData.
    pub const GM_ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.3");
    /// id-contentType attribute (RFC 5652 §11.1).
    pub const CONTENT_TYPE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.3");
    /// id-messageDigest attribute (RFC 5652 §11.2).
    pub const MESSAGE_DIGEST: Oid = Oid::new_unwrap("1.2.840.113549.1.9.4");
    /// id-signingTime attribute (RFC 5652 §11.3).
    pub const SIGNING_TIME: Oid = Oid::new_unwrap("1.2.840.113549.1.9.5");
    /// SM3 (GM/T 0006): 1.2.156.10197.1.401.
    pub const SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401");
    /// SM2-with-SM3 signature: 1.2.156.10197.1.501 (BouncyCastle, OpenSSL).
    pub const SM2_WITH_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.501");
    /// sm2sign (GM/T 0006): 1.2.156.10197.1.301.1 (gmsm's SignerInfo).
    pub const SM2_SIGN: Oid = Oid::new_unwrap("1.2.156.10197.1.301.1");
    /// sm2encrypt (GM/T 0006): 1.2.156.10197.1.301.3.
    pub const SM2_ENCRYPT: Oid = Oid::new_unwrap("1.2.156.10197.1.301.3");
    /// sm2encrypt-with-sm3 (BouncyCastle's GMObjectIdentifiers): 1.2.156.10197.1.301.3.2.1.
    pub const SM2_ENCRYPT_WITH_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.301.3.2.1");
    /// SM4-CBC: 1.2.156.10197.1.104.2.
    pub const SM4_CBC: Oid = Oid::new_unwrap("1.2.156.10197.1.104.2");
    /// SM4-GCM: 1.2.156.10197.1.104.8.
    pub const SM4_GCM: Oid = Oid::new_unwrap("1.2.156.10197.1.104.8");
}

/// The DER of a CMS input: PEM (label `CMS`, `PKCS7` or `PKCS #7 SIGNED DATA`) or
/// BER/DER bytes, normalised by [`ber::to_der`].
pub fn read_input(data: &[u8]) -> Result<Vec<u8>> {
    if data.len() > ber::MAX_INPUT {
        return Err(Error::UnsupportedFormat("CMS input larger than 256 MiB"));
    }
    let head = data
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    if data[head..].starts_with(b"-----BEGIN ") {
        let text = core::str::from_utf8(data)
            .map_err(|_| Error::UnsupportedFormat("PEM must be ASCII text"))?;
        let blocks = crate::x509::keys::pem_blocks(text)?;
        let block = blocks
            .into_iter()
            .find(|b| matches!(b.label.as_str(), "CMS" | "PKCS7" | "PKCS #7 SIGNED DATA"))
            .ok_or(Error::UnsupportedFormat(
                "no PEM block labelled CMS or PKCS7",
            ))?;
        return ber::to_der(&block.der);
    }
    ber::to_der(data)
}

/// PEM text (label `CMS`, as `openssl cms -outform PEM` writes) of a DER structure.
pub fn to_pem(der: &[u8]) -> Result<String> {
    crate::x509::keys::pem_encode("CMS", der)
}

/// ContentInfo ::= SEQUENCE { contentType, content [0] EXPLICIT ANY }.
pub(crate) fn content_info(
    type_oid: &der::oid::ObjectIdentifier,
    content: &[u8],
) -> Result<Vec<u8>> {
    asn1::seq(&[&asn1::oid(type_oid)?, &asn1::explicit(0, content)?])
}

/// Splits a ContentInfo: the content type and the content element.
pub(crate) fn open_content_info(der: &[u8]) -> Result<(der::oid::ObjectIdentifier, Tlv<'_>)> {
    let ci = Tlv::parse(der)?.expect(SEQUENCE, "CMS ContentInfo must be a SEQUENCE")?;
    let mut r = ci.reader();
    let t = r.any()?.oid()?;
    let wrapped = r.next(ctx_cons(0), "CMS ContentInfo has no [0] content")?;
    r.finish()?;
    let inner = Tlv::parse(wrapped.content)?;
    Ok((t, inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x509::{load_private_key_pem, Certificate, CertificateBuilder};
    use guomi_core::sm2::PrivateKey;

    const NOW: i64 = 1_796_083_200; // 2026-12-01

    fn self_signed(name: &str) -> (PrivateKey, Certificate) {
        let key = PrivateKey::generate().unwrap();
        let b =
            CertificateBuilder::new(name, key.public_key().clone(), NOW - 10, NOW + 1000).unwrap();
        let cert = b.self_sign(&key).unwrap();
        (key, cert)
    }

    #[test]
    fn signed_round_trip_and_tamper() {
        let (key, cert) = self_signed("CN=a");
        for style in [OidStyle::Rfc, OidStyle::Gm] {
            for attrs in [true, false] {
                for id in [SignerId::IssuerAndSerial, SignerId::SubjectKeyId] {
                    let mut b = SignedDataBuilder::new(b"content", false, style, Some(NOW));
                    b.add_signer(key.clone(), cert.clone(), attrs, SignatureOid::Sm2, id)
                        .unwrap();
                    let der = b.build().unwrap();
                    let v = verify(&der, None, core::slice::from_ref(&cert), &[], NOW).unwrap();
                    assert_eq!(v.content, b"content");
                    assert_eq!(v.oid_style, style);
                    let i = der.windows(7).position(|w| w == b"content").unwrap();
                    let mut bad = der.clone();
                    bad[i] ^= 1;
                    assert_eq!(
                        verify(&bad, None, &[], &[], NOW).unwrap_err(),
                        VerifyError::Cms(Error::InvalidSignature)
                    );
                }
            }
        }
    }

    #[test]
    fn enveloped_round_trip_and_wrong_key() {
        let (key, cert) = self_signed("CN=r");
        let (other, _) = self_signed("CN=o");
        for cipher in [ContentCipher::Sm4Cbc, ContentCipher::Sm4Gcm] {
            for key_format in [KeyFormat::Der, KeyFormat::C1C3C2] {
                let opts = EncryptOptions {
                    cipher,
                    key_format,
                    ..EncryptOptions::default()
                };
                let der = encrypt(b"secret", core::slice::from_ref(&cert), &opts).unwrap();
                assert_eq!(decrypt(&der, &key, Some(&cert)).unwrap(), b"secret");
                assert_eq!(decrypt(&der, &other, None), Err(Error::DecryptionFailed));
                let mut bad = der.clone();
                let n = bad.len();
                bad[n - 1] ^= 1;
                if cipher == ContentCipher::Sm4Gcm {
                    assert_eq!(decrypt(&bad, &key, None), Err(Error::DecryptionFailed));
                }
            }
        }
    }

    /// A CA and a leaf it issued with keyUsage `ku` (bit names) and extKeyUsage `eku`.
    fn issued(
        ku: &[&str],
        eku: &[der::oid::ObjectIdentifier],
    ) -> (PrivateKey, Certificate, Certificate) {
        let ca_key = PrivateKey::generate().unwrap();
        let mut b =
            CertificateBuilder::new("CN=ca", ca_key.public_key().clone(), NOW - 10, NOW + 1000)
                .unwrap();
        b.ca(None);
        let ca = b.self_sign(&ca_key).unwrap();
        let key = PrivateKey::generate().unwrap();
        let mut b =
            CertificateBuilder::new("CN=leaf", key.public_key().clone(), NOW - 10, NOW + 1000)
                .unwrap();
        b.key_usage = if ku.is_empty() {
            None
        } else {
            Some(crate::x509::KeyUsageFlags::from_names(ku).unwrap())
        };
        b.extended_key_usage = eku.to_vec();
        let leaf = b.sign(&ca, &ca_key).unwrap();
        (key, leaf, ca)
    }

    fn signed_by(key: &PrivateKey, cert: &Certificate, attrs: bool) -> Vec<u8> {
        let mut b = SignedDataBuilder::new(b"content", false, OidStyle::Rfc, Some(NOW));
        b.add_signer(
            key.clone(),
            cert.clone(),
            attrs,
            SignatureOid::Sm2WithSm3,
            SignerId::IssuerAndSerial,
        )
        .unwrap();
        b.build().unwrap()
    }

    fn usage_rejected(r: core::result::Result<Verified, VerifyError>, what: &str) {
        match r {
            Err(VerifyError::Chain(e)) => {
                assert_eq!(e.subject, "CN=leaf", "{what}");
                assert!(e.reason.contains("Usage"), "{what}: {}", e.reason);
            }
            other => panic!("{what}: {other:?}"),
        }
    }

    /// Hardening review 4: a signer certificate whose keyUsage or extKeyUsage does not
    /// allow signing (the encryption certificate of a GM dual pair, a CA-only key) is
    /// refused, with and without trust roots; OpenSSL's S/MIME signing purpose is the
    /// default, `Any` keeps only the keyUsage rule.
    #[test]
    fn signer_key_usage_and_purpose() {
        use crate::x509::oid as x;
        use SignerPurpose as P;
        // A SignedData by `ku`/`eku`'s certificate (the builder's own keyUsage check is
        // bypassed), verified with and without trust roots.
        let ok = |ku: &[&str], eku: &[der::oid::ObjectIdentifier], p: P| {
            let (key, leaf, ca) = issued(ku, eku);
            let mut b = SignedDataBuilder::new(b"content", false, OidStyle::Rfc, Some(NOW));
            b.add_signer_unchecked(key, leaf);
            let der = b.build().unwrap();
            (
                verify_for(&der, None, &[ca], &[], NOW, p),
                verify_for(&der, None, &[], &[], NOW, p),
            )
        };
        // GM dual-certificate pair: the signing certificate (digitalSignature only)
        // passes; the encryption certificate does not; nor does a CA-only key.
        for ku in [&["digitalSignature"][..], &["nonRepudiation"], &[]] {
            let (a, b) = ok(ku, &[], P::Smime);
            assert!(a.is_ok() && b.is_ok(), "{ku:?}");
        }
        for ku in [
            &["keyEncipherment", "dataEncipherment"][..],
            &["keyCertSign", "cRLSign"],
            &["keyAgreement"],
        ] {
            for p in [P::Smime, P::Any] {
                let (a, b) = ok(ku, &[], p);
                usage_rejected(a, "with roots");
                usage_rejected(b, "without roots");
            }
        }
        // extKeyUsage: emailProtection passes S/MIME; serverAuth alone does not (but
        // passes `Any`); anyExtendedKeyUsage alone does not satisfy S/MIME (as OpenSSL).
        let ds = &["digitalSignature"][..];
        assert!(ok(ds, &[x::EMAIL_PROTECTION, x::SERVER_AUTH], P::Smime)
            .0
            .is_ok());
        usage_rejected(ok(ds, &[x::SERVER_AUTH], P::Smime).0, "serverAuth");
        usage_rejected(ok(ds, &[x::ANY_EXTENDED_KEY_USAGE], P::Smime).0, "anyEKU");
        assert!(ok(ds, &[x::SERVER_AUTH], P::Any).0.is_ok());
        // Code signing: keyUsage digitalSignature and extKeyUsage codeSigning required.
        assert!(ok(ds, &[x::CODE_SIGNING], P::CodeSigning).0.is_ok());
        usage_rejected(ok(&[], &[x::CODE_SIGNING], P::CodeSigning).0, "no keyUsage");
        usage_rejected(ok(ds, &[], P::CodeSigning).0, "no extKeyUsage");
        usage_rejected(ok(ds, &[x::EMAIL_PROTECTION], P::CodeSigning).0, "email");
        // Time stamping (RFC 3161 §2.3): exactly timeStamping, critical.
        usage_rejected(
            ok(ds, &[x::TIME_STAMPING], P::TimeStamping).0,
            "not critical",
        );
        usage_rejected(ok(ds, &[], P::TimeStamping).0, "no extKeyUsage");
        // The default of `verify` is S/MIME.
        let (key, leaf, ca) = issued(&["keyEncipherment"], &[]);
        let mut b = SignedDataBuilder::new(b"content", false, OidStyle::Rfc, Some(NOW));
        b.add_signer_unchecked(key.clone(), leaf.clone());
        let der = b.build().unwrap();
        usage_rejected(verify(&der, None, &[ca], &[], NOW), "default");
        // The builder refuses to sign with such a certificate in the first place.
        let mut b = SignedDataBuilder::new(b"content", false, OidStyle::Rfc, Some(NOW));
        assert!(matches!(
            b.add_signer(
                key,
                leaf,
                true,
                SignatureOid::Sm2,
                SignerId::IssuerAndSerial
            ),
            Err(Error::InvalidValue(_))
        ));
        assert_eq!(SignerPurpose::parse("smime").unwrap(), P::Smime);
        assert!(SignerPurpose::parse("sslserver").is_err());
    }

    /// Hardening review 4: a key-transport recipient's certificate must allow
    /// keyEncipherment when it has a keyUsage (encrypting to it, and decrypting with it).
    #[test]
    fn recipient_key_usage() {
        let opts = EncryptOptions::default();
        let (key, sign_only, _) = issued(&["digitalSignature"], &[]);
        assert!(matches!(
            encrypt(b"m", core::slice::from_ref(&sign_only), &opts),
            Err(Error::InvalidValue(_))
        ));
        let (key2, enc, _) = issued(&["keyEncipherment", "dataEncipherment"], &[]);
        let der = encrypt(b"m", core::slice::from_ref(&enc), &opts).unwrap();
        assert_eq!(decrypt(&der, &key2, Some(&enc)).unwrap(), b"m");
        // A message to `key` (made through a permissive certificate of the same key),
        // decrypted naming its signing-only certificate: refused.
        let mut b =
            CertificateBuilder::new("CN=leaf", key.public_key().clone(), NOW - 10, NOW + 1000)
                .unwrap();
        b.key_usage = None;
        let any = b.self_sign(&key).unwrap();
        let der = encrypt(b"m", core::slice::from_ref(&any), &opts).unwrap();
        assert_eq!(decrypt(&der, &key, None).unwrap(), b"m");
        assert!(matches!(
            decrypt(&der, &key, Some(&sign_only)),
            Err(Error::InvalidValue(_))
        ));
    }

    /// Hardening review 5 (RFC 5652 §5.3): without signed attributes the signature does
    /// not cover the eContentType, so it must be id-data (or GM/T 0010's data).
    #[test]
    fn content_type_other_than_data_needs_signed_attributes() {
        let (key, cert) = self_signed("CN=a");
        let data = asn1::oid(&oid::DATA).unwrap();
        let other = asn1::oid(&der::oid::ObjectIdentifier::new_unwrap(
            "1.2.840.113549.1.7.5",
        ))
        .unwrap();
        assert_eq!(data.len(), other.len());
        for attrs in [false, true] {
            let der = signed_by(&key, &cert, attrs);
            assert!(verify(&der, None, &[], &[], NOW).is_ok());
            let at = der.windows(data.len()).position(|w| w == data).unwrap();
            let mut swapped = der.clone();
            swapped[at..at + data.len()].copy_from_slice(&other);
            assert_eq!(
                verify(&swapped, None, &[], &[], NOW).unwrap_err(),
                VerifyError::Cms(Error::InvalidSignature),
                "signed attributes: {attrs}"
            );
        }
        // GM/T 0010's data type without signed attributes stays accepted.
        let mut b = SignedDataBuilder::new(b"content", false, OidStyle::Gm, Some(NOW));
        b.add_signer(
            key,
            cert,
            false,
            SignatureOid::Sm2,
            SignerId::IssuerAndSerial,
        )
        .unwrap();
        assert!(verify(&b.build().unwrap(), None, &[], &[], NOW).is_ok());
    }

    #[test]
    fn peer_vectors() {
        let root = Certificate::from_pem(include_str!("../../../../vectors/cms/root.pem")).unwrap();
        let key =
            load_private_key_pem(include_str!("../../../../vectors/cms/signer.key"), None).unwrap();
        let content = include_bytes!("../../../../vectors/cms/content.txt");
        let ber = include_bytes!("../../../../vectors/cms/bc-signed-ber.p7s");
        let v = verify(ber, None, core::slice::from_ref(&root), &[], NOW).unwrap();
        assert_eq!(v.content, content);
        let gm = include_bytes!("../../../../vectors/cms/gmsm-signed-gm-detached.p7s");
        let v = verify(gm, Some(content), core::slice::from_ref(&root), &[], NOW).unwrap();
        assert_eq!(v.oid_style, OidStyle::Gm);
        let env = include_bytes!("../../../../vectors/cms/bc-enveloped-ber.p7m");
        assert_eq!(decrypt(env, &key, None).unwrap(), content);
        let env = include_bytes!("../../../../vectors/cms/gmsm-enveloped-gm-gcm.p7m");
        assert_eq!(decrypt(env, &key, None).unwrap(), content);
    }
}
