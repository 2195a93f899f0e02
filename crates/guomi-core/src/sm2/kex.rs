//! SM2 key exchange (GB/T 32918.3-2016 §6) and plain ECDH over the curve.
//!
//! A is the initiator, B the responder. With w = ceil(ceil(log2 n) / 2) - 1 = 127,
//! x̄ = 2^w + (x & (2^w - 1)). Each side computes t = (d + x̄·r) mod n and the shared
//! point U = V = [h·t](P_peer + [x̄_peer]R_peer), then K = KDF(xU || yU || Z_A || Z_B, klen).
//! Optional confirmation: S_B = S_1 = SM3(0x02 || yU || SM3(xU || Z_A || Z_B || x1 || y1
//! || x2 || y2)) sent by B, S_A = S_2 = the same with 0x03 sent by A.

use super::curve::Curve;
use super::field::{Fe, Limbs};
use super::keys::{hedged_scalar, PrivateKey, PublicKey};
use super::point::Affine;
use super::table::{
    mul_fixed_ct_blinded, mul_var_ct, mul_var_ct_blinded, mul_wnaf_vartime, ZBlind,
};
use crate::error::{Error, Result};
use crate::sm3::{kdf::kdf_into, Sm3};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// x̄ = 2^127 + (x mod 2^127) (GB/T 32918.3 §6.1 A4/B3), as limbs.
fn x_bar(x: &[u8; 32]) -> Limbs {
    let l = super::field::limbs_from_be(x);
    [
        l[0],
        (l[1] & 0x7FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000,
        0,
        0,
    ]
}

/// One party's ephemeral key r and R = [r]G, and the Z blinding of the shared point's
/// multiplication (the next λ after R's, from the same OS call).
struct Ephemeral<C: Curve> {
    r: Fe<C::N>,
    point: PublicKey<C>,
    blind: ZBlind<C>,
}

impl<C: Curve> Drop for Ephemeral<C> {
    fn drop(&mut self) {
        self.r.0.zeroize();
    }
}

impl<C: Curve> Ephemeral<C> {
    /// From r in [1, n-1] (checked: the test hooks pass caller values), R blinded with
    /// `blind`.
    fn new(r: &Limbs, blind: ZBlind<C>) -> Result<Self> {
        let n = <C::N as super::field::Modulus>::M;
        let zero = (r[0] | r[1] | r[2] | r[3]).ct_eq(&0);
        // Declassified: r in [1, n-1] or an error. The hedged sequence already drew r in
        // range, so the outcome is always "in range" (only the combined bit is released).
        if crate::ct::declassify_choice(zero | !super::field::lt_ct(r, &n)) {
            return Err(Error::InvalidValue("ephemeral key must be in [1, n-1]"));
        }
        let p = mul_fixed_ct_blinded(C::g_table(), r, &blind)
            .to_affine()
            .ok_or(Error::InvalidValue("ephemeral key must be in [1, n-1]"))?;
        Ok(Ephemeral {
            r: Fe::from_limbs_reduced(r),
            point: PublicKey::from_affine(p),
            blind: blind.next(),
        })
    }

    /// A hedged r (super::nonce): keyed with the own private key, bound to `context`.
    fn random(own: &PrivateKey<C>, context: &[&[u8]]) -> Result<Self> {
        let d = own.to_bytes();
        let context = super::nonce::context_digest(context);
        let (mut seq, blind) = super::nonce::hedged_blinded(&d[..], &context)?;
        let r = hedged_scalar::<C>(&mut seq);
        Self::new(&r, ZBlind::from_os_bytes(&blind))
    }
}

/// The shared point [h·t](P + [x̄]R) with t = d + x̄_own·r (A5-A7 / B4-B6).
fn shared_point<C: Curve>(
    own: &PrivateKey<C>,
    eph: &Ephemeral<C>,
    peer: &PublicKey<C>,
    peer_r: &PublicKey<C>,
) -> Result<Affine<C>> {
    // A4/B3: x̄ of our R; A5/B4: t = (d + x̄·r) mod n.
    let xb_own = Fe::<C::N>::from_limbs_reduced(&x_bar(&eph.point.x()));
    let mut t = own.d_fe.add(&xb_own.mul(&eph.r)).to_limbs();
    // A6/B5: the peer's R was validated on import; x̄ of it.
    let xb_peer = x_bar(&peer_r.x());
    // A7/B6: U = [h·t](P_peer + [x̄_peer]R_peer), h = 1. Everything inside is public.
    let q = mul_wnaf_vartime(&peer_r.point, &xb_peer).add_mixed_vartime(&peer.point);
    let u = if bool::from(q.is_infinity()) {
        None
    } else {
        mul_var_ct_blinded(&q.to_affine_vartime(), &t, &eph.blind).to_affine()
    };
    t.zeroize();
    u.ok_or(Error::InvalidKey(
        "key exchange produced the point at infinity",
    ))
}

/// K and the two confirmation values (S_B with 0x02, S_A with 0x03).
struct Derived {
    key: Zeroizing<Vec<u8>>,
    s_b: [u8; 32],
    s_a: [u8; 32],
}

fn derive<C: Curve>(
    u: &Affine<C>,
    za: &[u8; 32],
    zb: &[u8; 32],
    ra: &PublicKey<C>,
    rb: &PublicKey<C>,
    klen: usize,
) -> Derived {
    let (xu, yu) = u.to_bytes();
    let mut xu = Zeroizing::new(xu);
    let mut yu = Zeroizing::new(yu);
    // A8/B7: K = KDF(xU || yU || Z_A || Z_B, klen).
    let mut z = Zeroizing::new(Vec::with_capacity(128));
    z.extend_from_slice(&xu[..]);
    z.extend_from_slice(&yu[..]);
    z.extend_from_slice(za);
    z.extend_from_slice(zb);
    let mut key = Zeroizing::new(vec![0u8; klen]);
    kdf_into(&z, &mut key);
    // A9/B8: inner = SM3(xU || Z_A || Z_B || x1 || y1 || x2 || y2).
    let mut h = Sm3::new();
    h.update(&xu[..]);
    h.update(za);
    h.update(zb);
    h.update(&ra.to_raw());
    h.update(&rb.to_raw());
    let inner = h.finalize();
    let tag = |prefix: u8| {
        let mut h = Sm3::new();
        h.update(&[prefix]);
        h.update(&yu[..]);
        h.update(&inner);
        h.finalize()
    };
    let d = Derived {
        key,
        s_b: tag(2),
        s_a: tag(3),
    };
    xu.zeroize();
    yu.zeroize();
    d
}

/// Result of one side of the exchange.
pub struct Exchanged {
    /// The shared key K (klen bytes).
    pub key: Zeroizing<Vec<u8>>,
    /// The confirmation value this side sends (S_B for the responder, S_A for the
    /// initiator).
    pub confirmation: [u8; 32],
}

/// The initiator A (GB/T 32918.3 §6.1 A1-A10). Single use: the first
/// [`finish`](Self::finish) consumes and wipes r_A whatever its outcome; any later call is
/// [`Error::AlreadyFinalized`].
pub struct Initiator<C: Curve = super::Sm2p256> {
    own: PrivateKey<C>,
    peer: PublicKey<C>,
    za: [u8; 32],
    zb: [u8; 32],
    /// R_A (public; still readable after `finish`).
    eph_point: PublicKey<C>,
    /// r_A and R_A until `finish` takes them.
    eph: Option<Ephemeral<C>>,
}

impl<C: Curve> Initiator<C> {
    /// A1-A3: draws r_A and computes R_A = [r_A]G (send `ephemeral_public()` to B).
    pub fn new(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
    ) -> Result<Self> {
        let peer_key = peer.to_uncompressed();
        let eph = Ephemeral::random(own, &[b"SM2 key exchange A", own_id, &peer_key, peer_id])?;
        Self::with_ephemeral(own, own_id, peer, peer_id, eph)
    }

    fn with_ephemeral(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
        eph: Ephemeral<C>,
    ) -> Result<Self> {
        Ok(Initiator {
            own: own.clone(),
            peer: peer.clone(),
            za: own.z(own_id)?,
            zb: peer.compute_z(peer_id)?,
            eph_point: eph.point.clone(),
            eph: Some(eph),
        })
    }

    /// Test hook with a caller-chosen r_A (known-answer tests only; never in production).
    #[cfg(feature = "kat-hooks")]
    #[doc(hidden)]
    pub fn with_fixed_ephemeral_for_testing(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
        r: &[u8; 32],
    ) -> Result<Self> {
        Self::with_ephemeral(
            own,
            own_id,
            peer,
            peer_id,
            Ephemeral::new(&super::field::limbs_from_be(r), ZBlind::draw()?)?,
        )
    }

    /// R_A as 04||x||y.
    pub fn ephemeral_public(&self) -> [u8; 65] {
        self.eph_point.to_uncompressed()
    }

    /// A4-A10: from B's R_B (any point encoding) and, when B sent it, S_B. Returns K
    /// (`klen` bytes, 1 to [`super::MAX_KEY_LENGTH`]) and S_A (to send to B). A wrong S_B
    /// is [`Error::InvalidTag`]. Single use: r_A is consumed and wiped by the first call,
    /// whatever its outcome (a bad R_B, a wrong S_B, a bad `klen`); a second call is
    /// [`Error::AlreadyFinalized`].
    pub fn finish(
        &mut self,
        peer_ephemeral: &[u8],
        peer_confirmation: Option<&[u8]>,
        klen: usize,
    ) -> Result<Exchanged> {
        // Dropped (and wiped) when this call returns, on every path.
        let eph = self.eph.take().ok_or(Error::AlreadyFinalized)?;
        super::check_key_length(klen)?;
        let rb = PublicKey::<C>::from_bytes(peer_ephemeral)?;
        let mut u = shared_point(&self.own, &eph, &self.peer, &rb)?;
        let d = derive(&u, &self.za, &self.zb, &eph.point, &rb, klen);
        u.x.0.zeroize();
        u.y.0.zeroize();
        if let Some(sb) = peer_confirmation {
            // A9: S_1 == S_B. Declassified: matched or InvalidTag, public by definition
            // (the comparison is ct_eq).
            if sb.len() != 32 || !crate::ct::declassify_choice(d.s_b.ct_eq(sb)) {
                return Err(Error::InvalidTag);
            }
        }
        Ok(Exchanged {
            key: d.key,
            confirmation: d.s_a,
        })
    }
}

/// The initiator A when R_A must be sent before B's public key is known: in TLCP's
/// ECDHE suites (GB/T 38636) the server, user A, sends R_A in its ServerKeyExchange and
/// learns the client's encryption key from the client's Certificate afterwards.
/// [`bind`](Self::bind) completes A1-A3 into an [`Initiator`], consuming this object;
/// dropping it unbound wipes r_A.
pub struct UnboundInitiator<C: Curve = super::Sm2p256> {
    own: PrivateKey<C>,
    own_id: Vec<u8>,
    eph: Ephemeral<C>,
}

impl<C: Curve> UnboundInitiator<C> {
    /// A1-A3: draws r_A (hedged with the own key and ID) and computes R_A = [r_A]G.
    pub fn new(own: &PrivateKey<C>, own_id: &[u8]) -> Result<Self> {
        // The ID is checked now, not only when bound.
        own.z(own_id)?;
        let eph = Ephemeral::random(own, &[b"SM2 key exchange A, peer bound later", own_id])?;
        Ok(UnboundInitiator {
            own: own.clone(),
            own_id: own_id.to_vec(),
            eph,
        })
    }

    /// R_A as 04||x||y.
    pub fn ephemeral_public(&self) -> [u8; 65] {
        self.eph.point.to_uncompressed()
    }

    /// Binds B's public key and ID; the result is an ordinary single-use [`Initiator`].
    pub fn bind(self, peer: &PublicKey<C>, peer_id: &[u8]) -> Result<Initiator<C>> {
        let UnboundInitiator { own, own_id, eph } = self;
        Initiator::with_ephemeral(&own, &own_id, peer, peer_id, eph)
    }
}

/// The responder B (GB/T 32918.3 §6.1 B1-B10).
pub struct Responder<C: Curve = super::Sm2p256> {
    s_a: [u8; 32],
    eph_public: [u8; 65],
    _curve: core::marker::PhantomData<C>,
}

impl<C: Curve> Responder<C> {
    /// B1-B8: from A's R_A, draws r_B and returns the responder state (holding R_B,
    /// to send to A, and the expected S_A) with K (`klen` bytes, 1 to
    /// [`super::MAX_KEY_LENGTH`]) and S_B (to send to A). r_B lives only inside this call
    /// and is wiped before it returns, whatever the outcome.
    pub fn respond(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
        peer_ephemeral: &[u8],
        klen: usize,
    ) -> Result<(Self, Exchanged)> {
        super::check_key_length(klen)?;
        let peer_key = peer.to_uncompressed();
        let eph = Ephemeral::random(
            own,
            &[
                b"SM2 key exchange B",
                own_id,
                &peer_key,
                peer_id,
                peer_ephemeral,
            ],
        )?;
        Self::respond_with(own, own_id, peer, peer_id, peer_ephemeral, klen, eph)
    }

    /// Test hook with a caller-chosen r_B (known-answer tests only; never in production).
    #[cfg(feature = "kat-hooks")]
    #[doc(hidden)]
    pub fn respond_with_fixed_ephemeral_for_testing(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
        peer_ephemeral: &[u8],
        klen: usize,
        r: &[u8; 32],
    ) -> Result<(Self, Exchanged)> {
        let eph = Ephemeral::new(&super::field::limbs_from_be(r), ZBlind::draw()?)?;
        Self::respond_with(own, own_id, peer, peer_id, peer_ephemeral, klen, eph)
    }

    fn respond_with(
        own: &PrivateKey<C>,
        own_id: &[u8],
        peer: &PublicKey<C>,
        peer_id: &[u8],
        peer_ephemeral: &[u8],
        klen: usize,
        eph: Ephemeral<C>,
    ) -> Result<(Self, Exchanged)> {
        super::check_key_length(klen)?;
        let ra = PublicKey::<C>::from_bytes(peer_ephemeral)?;
        // Z_A is the initiator's (the peer's), Z_B ours.
        let za = peer.compute_z(peer_id)?;
        let zb = own.z(own_id)?;
        let mut v = shared_point(own, &eph, peer, &ra)?;
        let d = derive(&v, &za, &zb, &ra, &eph.point, klen);
        v.x.0.zeroize();
        v.y.0.zeroize();
        let me = Responder {
            s_a: d.s_a,
            eph_public: eph.point.to_uncompressed(),
            _curve: core::marker::PhantomData,
        };
        Ok((
            me,
            Exchanged {
                key: d.key,
                confirmation: d.s_b,
            },
        ))
    }

    /// R_B as 04||x||y.
    pub fn ephemeral_public(&self) -> [u8; 65] {
        self.eph_public
    }

    /// B10: checks A's S_A (constant time); a mismatch is [`Error::InvalidTag`].
    pub fn confirm(&self, s_a: &[u8]) -> Result<()> {
        // Declassified: S_A matched or InvalidTag, public by definition (ct_eq).
        if s_a.len() == 32 && crate::ct::declassify_choice(self.s_a.ct_eq(s_a)) {
            Ok(())
        } else {
            Err(Error::InvalidTag)
        }
    }
}

/// Plain ECDH over the curve: the x coordinate of [d]P (32 bytes). Not the GB/T 32918.3
/// protocol (this is what RFC 8998 TLS 1.3 uses with curveSM2).
pub fn ecdh<C: Curve>(own: &PrivateKey<C>, peer: &PublicKey<C>) -> Result<Zeroizing<[u8; 32]>> {
    let mut p = mul_var_ct(&peer.point, own.d_limbs())?
        .to_affine()
        .ok_or(Error::InvalidKey("ECDH result is infinity"))?;
    let x = Zeroizing::new(p.x.to_bytes());
    p.x.0.zeroize();
    p.y.0.zeroize();
    Ok(x)
}
