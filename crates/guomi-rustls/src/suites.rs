//! The two cipher suites of RFC 8998 §2: TLS_SM4_GCM_SM3 (0x00C6) and TLS_SM4_CCM_SM3
//! (0x00C7), TLS 1.3 only (§3.1). Both hash with SM3 and derive keys with HKDF-SM3 through
//! TLS 1.3's own key schedule (§3.4); they differ in the record AEAD (§3.5).

use rustls::crypto::CipherSuiteCommon;
use rustls::{CipherSuite, SupportedCipherSuite, Tls13CipherSuite};

use crate::aead::{SM4_CCM, SM4_GCM};
use crate::hash::{HKDF_SM3, SM3};

/// TLS_SM4_GCM_SM3's code point. rustls 0.23 does not name it.
pub const TLS_SM4_GCM_SM3_ID: CipherSuite = CipherSuite::Unknown(0x00C6);
/// TLS_SM4_CCM_SM3's code point. rustls 0.23 does not name it.
pub const TLS_SM4_CCM_SM3_ID: CipherSuite = CipherSuite::Unknown(0x00C7);

/// TLS_SM4_GCM_SM3.
pub static TLS13_SM4_GCM_SM3: Tls13CipherSuite = Tls13CipherSuite {
    common: CipherSuiteCommon {
        suite: TLS_SM4_GCM_SM3_ID,
        hash_provider: &SM3,
        // SM4 has AES's 128-bit block, so AES-GCM's bound applies: 2^24 full records
        // keep the distinguishing advantage below 2^-60 (draft-irtf-cfrg-aead-limits §5.1).
        confidentiality_limit: 1 << 24,
    },
    hkdf_provider: &HKDF_SM3,
    aead_alg: &SM4_GCM,
    // No QUIC: RFC 8998 defines no header protection for SM4.
    quic: None,
};

/// TLS_SM4_CCM_SM3.
pub static TLS13_SM4_CCM_SM3: Tls13CipherSuite = Tls13CipherSuite {
    common: CipherSuiteCommon {
        suite: TLS_SM4_CCM_SM3_ID,
        hash_provider: &SM3,
        // CCM runs the block cipher twice per block: q <= 2^-30 * 2^64 / (2 * 2^10)
        // = 2^23 full records for the same 2^-60 advantage (aead-limits §5.1 for CCM).
        confidentiality_limit: 1 << 23,
    },
    hkdf_provider: &HKDF_SM3,
    aead_alg: &SM4_CCM,
    quic: None,
};

/// TLS_SM4_GCM_SM3 for a provider's `cipher_suites`.
pub static TLS_SM4_GCM_SM3: SupportedCipherSuite = SupportedCipherSuite::Tls13(&TLS13_SM4_GCM_SM3);
/// TLS_SM4_CCM_SM3 for a provider's `cipher_suites`.
pub static TLS_SM4_CCM_SM3: SupportedCipherSuite = SupportedCipherSuite::Tls13(&TLS13_SM4_CCM_SM3);

/// Both suites, GCM preferred.
pub static ALL_SUITES: &[SupportedCipherSuite] = &[TLS_SM4_GCM_SM3, TLS_SM4_CCM_SM3];
