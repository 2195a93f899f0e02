//! The signature scheme sm2sig_sm3 (SignatureScheme 0x0708, RFC 8998 §2, §3.2.1): SM2
//! signatures (GB/T 32918.2) over SM3, DER `SEQUENCE { r, s }` on the wire as for ECDSA.
//!
//! RFC 8998 §3.2.1 fixes the SM2 identifier (the ID hashed into Z_A) at the ASCII string
//! `TLSv1.3+GM+Cipher+Suite` for every signature of the handshake itself (CertificateVerify),
//! and at `1234567812345678` (GM/T 0009) only where a certificate's own signature is
//! checked. [`TLS13_SM2_ID`] is used for signing and verifying CertificateVerify; the
//! certificate chain is checked by guomi-formats with the default identifier.
//!
//! This module holds the signing key (rustls's `SigningKey`/`Signer`), the key loader
//! (`KeyProvider`: SM2 keys in PKCS#8 or SEC1 DER) and the verification algorithms rustls
//! lists in `WebPkiSupportedAlgorithms`.

use std::sync::Arc;

use guomi_core::sm2::{PrivateKey, PublicKey, Signature, DEFAULT_UID};
use guomi_formats::sm2_keys::PublicKeyEncoding;
use rustls::crypto::{KeyProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{
    AlgorithmIdentifier, InvalidSignature, PrivateKeyDer, SignatureVerificationAlgorithm,
    SubjectPublicKeyInfoDer,
};
use rustls::sign::{Signer, SigningKey};
use rustls::{Error, SignatureAlgorithm, SignatureScheme};

/// sm2sig_sm3 (RFC 8998 §2). rustls 0.23 does not name it.
pub const SM2_SM3: SignatureScheme = SignatureScheme::Unknown(0x0708);

/// The SM2 identifier of every TLS 1.3 handshake signature (RFC 8998 §3.2.1).
pub const TLS13_SM2_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";

/// rustls asks a signing key for its TLS 1.2 `SignatureAlgorithm`, which has no SM2 value;
/// TLS 1.3 never uses it. 0xE0 is that registry's first private-use value.
pub const SM2_SIGNATURE_ALGORITHM: SignatureAlgorithm = SignatureAlgorithm::Unknown(0xE0);

/// An SM2 private key that signs TLS 1.3 CertificateVerify messages with sm2sig_sm3.
pub struct Sm2SigningKey {
    key: Arc<PrivateKey>,
    spki: Vec<u8>,
}

impl core::fmt::Debug for Sm2SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The private key never appears in Debug output.
        f.debug_struct("Sm2SigningKey").finish_non_exhaustive()
    }
}

impl Sm2SigningKey {
    /// Wraps a guomi-core SM2 private key.
    pub fn new(key: PrivateKey) -> Self {
        let spki = key.public_key().to_spki_der();
        Sm2SigningKey {
            key: Arc::new(key),
            spki,
        }
    }

    /// The public half.
    pub fn public_key(&self) -> &PublicKey {
        self.key.public_key()
    }
}

impl SigningKey for Sm2SigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        offered.contains(&SM2_SM3).then(|| {
            Box::new(Sm2Signer {
                key: Arc::clone(&self.key),
            }) as Box<dyn Signer>
        })
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(self.spki.as_slice()))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SM2_SIGNATURE_ALGORITHM
    }
}

struct Sm2Signer {
    key: Arc<PrivateKey>,
}

impl core::fmt::Debug for Sm2Signer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm2Signer").finish_non_exhaustive()
    }
}

impl Signer for Sm2Signer {
    /// `message` is the whole signed content of RFC 8446 §4.4.3 (64 spaces, the context
    /// string, a zero byte, the transcript hash), built by rustls. SM2 hashes it with
    /// Z_A(TLS13_SM2_ID); the nonce is guomi-core's hedged one (key, digest, OS randomness).
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.key
            .sign(message, TLS13_SM2_ID)
            .map(|sig| sig.to_der())
            .map_err(|e| Error::General(format!("SM2 signing failed: {e}")))
    }

    fn scheme(&self) -> SignatureScheme {
        SM2_SM3
    }
}

/// Verifies an sm2sig_sm3 handshake signature (DER, strict) by `key` over `message` with
/// the RFC 8998 identifier. Any malformed signature is simply invalid.
pub fn verify_handshake_signature(key: &PublicKey, message: &[u8], signature: &[u8]) -> bool {
    match Signature::from_der(signature) {
        Ok(sig) => key.verify(message, TLS13_SM2_ID, &sig),
        Err(_) => false,
    }
}

/// Loads SM2 private keys for rustls: PKCS#8 (`PrivateKeyInfo`, id-ecPublicKey with
/// sm2p256v1 or the bare SM2 OID) or SEC1 `ECPrivateKey`, unencrypted DER, through
/// guomi-formats. Any other key (RSA, NIST curves, encrypted) is refused.
#[derive(Debug)]
pub struct Sm2KeyProvider;

/// The one key provider instance.
pub static SM2_KEY_PROVIDER: Sm2KeyProvider = Sm2KeyProvider;

impl KeyProvider for Sm2KeyProvider {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, Error> {
        Ok(Arc::new(load_signing_key(&key_der)?))
    }
}

/// [`Sm2KeyProvider`]'s work, returning the concrete key type.
pub fn load_signing_key(key_der: &PrivateKeyDer<'_>) -> Result<Sm2SigningKey, Error> {
    let der = match key_der {
        PrivateKeyDer::Pkcs8(k) => k.secret_pkcs8_der(),
        PrivateKeyDer::Sec1(k) => k.secret_sec1_der(),
        _ => {
            return Err(Error::General(
                "only SM2 private keys (PKCS#8 or SEC1 DER) are supported".into(),
            ))
        }
    };
    let key = guomi_formats::x509::load_private_key_der(der, None)
        .map_err(|e| Error::General(format!("not an SM2 private key: {e}")))?;
    Ok(Sm2SigningKey::new(key))
}

/// DER of the AlgorithmIdentifier contents { id-ecPublicKey, sm2p256v1 } (the SEQUENCE's
/// body, as pki-types wants it): OID 1.2.840.10045.2.1, OID 1.2.156.10197.1.301.
const SM2_PUBLIC_KEY_ALG_ID: &[u8] = &[
    0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, // id-ecPublicKey
    0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, // sm2p256v1
];

/// DER of the AlgorithmIdentifier contents { SM2-with-SM3 } (1.2.156.10197.1.501, no
/// parameters).
const SM2_WITH_SM3_ALG_ID: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75];

/// SM2-with-SM3 as a pki-types verification algorithm, with a fixed SM2 identifier.
#[derive(Debug)]
pub struct Sm2Verification {
    uid: &'static [u8],
}

/// For certificate and CRL signatures: identifier `1234567812345678` (RFC 8998 §3.2.1,
/// GM/T 0009).
pub static SM2_SM3_CERTIFICATE: Sm2Verification = Sm2Verification { uid: DEFAULT_UID };
/// For TLS 1.3 handshake signatures: identifier `TLSv1.3+GM+Cipher+Suite`.
pub static SM2_SM3_HANDSHAKE: Sm2Verification = Sm2Verification { uid: TLS13_SM2_ID };

impl SignatureVerificationAlgorithm for Sm2Verification {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let key: PublicKey = PublicKey::from_bytes(public_key).map_err(|_| InvalidSignature)?;
        let sig = Signature::from_der(signature).map_err(|_| InvalidSignature)?;
        if key.verify(message, self.uid, &sig) {
            Ok(())
        } else {
            Err(InvalidSignature)
        }
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(SM2_PUBLIC_KEY_ALG_ID)
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(SM2_WITH_SM3_ALG_ID)
    }
}

/// What the provider tells rustls it can verify: SM2-with-SM3 certificate signatures, and
/// sm2sig_sm3 handshake signatures (the only scheme offered).
pub static SUPPORTED_SIG_ALGS: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[&SM2_SM3_CERTIFICATE],
    mapping: &[(SM2_SM3, &[&SM2_SM3_HANDSHAKE])],
};
