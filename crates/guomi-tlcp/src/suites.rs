//! The four SM2 cipher suites of GB/T 38636-2020 §6.4.5.2.1 (table 2) this crate speaks.

/// A TLCP cipher suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CipherSuite {
    /// ECDHE_SM4_CBC_SM3 {0xE0, 0x11}: SM2 key exchange (GB/T 32918.3), SM4-CBC, HMAC-SM3.
    EcdheSm4CbcSm3,
    /// ECC_SM4_CBC_SM3 {0xE0, 0x13}: SM2-encrypted pre-master, SM4-CBC, HMAC-SM3.
    EccSm4CbcSm3,
    /// ECDHE_SM4_GCM_SM3 {0xE0, 0x51}: SM2 key exchange, SM4-GCM, SM3 PRF.
    EcdheSm4GcmSm3,
    /// ECC_SM4_GCM_SM3 {0xE0, 0x53}: SM2-encrypted pre-master, SM4-GCM, SM3 PRF.
    EccSm4GcmSm3,
}

impl CipherSuite {
    /// Every suite, in this crate's default preference order (ECDHE first, GCM first).
    pub const ALL: [CipherSuite; 4] = [
        CipherSuite::EcdheSm4GcmSm3,
        CipherSuite::EccSm4GcmSm3,
        CipherSuite::EcdheSm4CbcSm3,
        CipherSuite::EccSm4CbcSm3,
    ];

    /// The two-byte code point.
    pub fn id(self) -> u16 {
        match self {
            CipherSuite::EcdheSm4CbcSm3 => 0xE011,
            CipherSuite::EccSm4CbcSm3 => 0xE013,
            CipherSuite::EcdheSm4GcmSm3 => 0xE051,
            CipherSuite::EccSm4GcmSm3 => 0xE053,
        }
    }

    /// From the code point (`None` for a suite this crate does not implement).
    pub fn from_id(id: u16) -> Option<Self> {
        CipherSuite::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The standard's name, e.g. `ECC_SM4_CBC_SM3`.
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::EcdheSm4CbcSm3 => "ECDHE_SM4_CBC_SM3",
            CipherSuite::EccSm4CbcSm3 => "ECC_SM4_CBC_SM3",
            CipherSuite::EcdheSm4GcmSm3 => "ECDHE_SM4_GCM_SM3",
            CipherSuite::EccSm4GcmSm3 => "ECC_SM4_GCM_SM3",
        }
    }

    /// From the standard's name (case-insensitive; `-` and `_` alike).
    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.replace('-', "_");
        CipherSuite::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(&n))
    }

    /// Whether the pre-master comes from the SM2 key exchange (ECDHE) rather than SM2
    /// encryption (ECC).
    pub fn is_ecdhe(self) -> bool {
        matches!(
            self,
            CipherSuite::EcdheSm4CbcSm3 | CipherSuite::EcdheSm4GcmSm3
        )
    }

    /// Whether the record protection is SM4-GCM (else SM4-CBC with HMAC-SM3).
    pub fn is_gcm(self) -> bool {
        matches!(
            self,
            CipherSuite::EcdheSm4GcmSm3 | CipherSuite::EccSm4GcmSm3
        )
    }

    /// (MAC key, encryption key, IV) lengths in the key block.
    pub(crate) fn key_block_lengths(self) -> (usize, usize, usize) {
        if self.is_gcm() {
            (0, 16, 4)
        } else {
            (32, 16, 16)
        }
    }
}

impl std::fmt::Display for CipherSuite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
