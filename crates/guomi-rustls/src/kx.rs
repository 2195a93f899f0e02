//! Key exchange group curveSM2 (NamedGroup 41 = 0x0029), RFC 8998 §2 and §3.3.1, with the
//! share format of RFC 8446 §4.2.8.2 and the ECDHE secret of RFC 8446 §7.4.2.
//!
//! ECDHE on the SM2 curve (GB/T 32918.5): each side draws a fresh ephemeral scalar d in
//! [1, n-1] from the OS CSPRNG and sends its share as an uncompressed point
//! `04 || X || Y` (65 bytes). The shared secret is the 32-byte x-coordinate of `[d]Q_peer`,
//! as for the NIST curves in RFC 8446 §7.4.2; it is *not* the GB/T 32918.3 SM2 key
//! agreement protocol, which RFC 8998 §3.4 forbids here.
//!
//! A peer share is refused unless it is exactly 65 bytes, starts with 0x04 and is a point
//! on the curve (not infinity; the curve's cofactor is 1, so every such point has order n).
//! Compressed, hybrid and raw 64-byte forms are refused: RFC 8446 §4.2.8.2 allows only the
//! uncompressed form. Every failure is rustls's `PeerMisbehaved::InvalidKeyShare`, which
//! aborts the handshake with an illegal_parameter alert.

use guomi_core::sm2::{ecdh, PrivateKey, PublicKey};
use rustls::crypto::{ActiveKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup, PeerMisbehaved};

/// The code point of curveSM2 (RFC 8998 §2). rustls 0.23 does not name it.
pub const CURVE_SM2: NamedGroup = NamedGroup::Unknown(0x0029);

/// Length of a curveSM2 key share: `04 || X || Y`.
pub const SHARE_LEN: usize = 65;

/// The curveSM2 group for rustls.
#[derive(Debug)]
pub struct CurveSm2;

/// The one curveSM2 instance.
pub static CURVE_SM2_GROUP: CurveSm2 = CurveSm2;

impl SupportedKxGroup for CurveSm2 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let secret = PrivateKey::generate().map_err(|_| rustls::crypto::GetRandomFailed)?;
        let share = secret.public_key().to_uncompressed();
        Ok(Box::new(ActiveCurveSm2 { secret, share }))
    }

    fn name(&self) -> NamedGroup {
        CURVE_SM2
    }

    /// curveSM2 is only defined for TLS 1.3 here (this crate builds rustls without TLS 1.2).
    fn usable_for_version(&self, version: rustls::ProtocolVersion) -> bool {
        version == rustls::ProtocolVersion::TLSv1_3
    }
}

/// One ephemeral key pair. `complete` consumes it, so a share is used at most once; the
/// scalar is wiped when the pair is dropped (guomi-core's `PrivateKey` zeroizes itself).
struct ActiveCurveSm2 {
    secret: PrivateKey,
    share: [u8; SHARE_LEN],
}

/// Parses a peer's curveSM2 share: exactly `04 || X || Y` with the point on the curve.
pub fn parse_share(peer: &[u8]) -> Result<PublicKey, Error> {
    if peer.len() != SHARE_LEN || peer[0] != 0x04 {
        return Err(PeerMisbehaved::InvalidKeyShare.into());
    }
    // guomi-core validates the coordinates: both below p, the point on the curve.
    PublicKey::from_bytes(peer).map_err(|_| PeerMisbehaved::InvalidKeyShare.into())
}

impl ActiveKeyExchange for ActiveCurveSm2 {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        let peer = parse_share(peer_pub_key)?;
        let x =
            ecdh(&self.secret, &peer).map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        // SharedSecret copies the bytes and wipes its copy on drop; `x` wipes itself.
        Ok(SharedSecret::from(&x[..]))
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        CURVE_SM2
    }
}
