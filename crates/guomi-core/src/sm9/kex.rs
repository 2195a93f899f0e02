//! SM9 key exchange (GM/T 0044-2016 Part 3 §6: A1-A8 for the initiator A, B1-B8 for the
//! responder B), with the optional key confirmation S_B / S_A.
//!
//! Both sides use user keys extracted with hid 0x02 from the same encryption master key
//! (Ppub-e). Flow:
//! 1. A: `KeyExchange::new(key_A, ID_B, true)`, sends `ephemeral()` = R_A.
//! 2. B: `KeyExchange::new(key_B, ID_A, false)`, `respond(R_A, klen)` -> (SK_B, S_B);
//!    sends R_B = `ephemeral()` and S_B.
//! 3. A: `finish(R_B, klen, Some(S_B))` -> (SK_A, S_A); sends S_A.
//! 4. B: `confirm(S_A)`.

use super::bn256::fp::Fn;
use super::bn256::fp12::Fp12;
use super::bn256::gt;
use super::bn256::pairing::pairing_prepared;
use super::encoding::{g1_from_bytes, g1_to_xy};
use super::keys::{hedged_scalar, EncUserKey};
use crate::error::{Error, Result};
use crate::sm3::{kdf::kdf_into, Sm3};
use std::sync::Arc;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// One party of an SM9 key exchange. Single use: the first [`respond`](Self::respond) /
/// [`finish`](Self::finish) in this party's role consumes and wipes r whatever its outcome
/// (a bad peer point, a wrong S_B, a bad key length); any later call is
/// [`Error::AlreadyFinalized`].
pub struct KeyExchange {
    key: Arc<EncUserKey>,
    peer_id: Vec<u8>,
    initiator: bool,
    r: Fn,
    own: [u8; 64],
    /// The responder's expected S_A after `respond`.
    expect_sa: Option<[u8; 32]>,
    done: bool,
}

impl Drop for KeyExchange {
    fn drop(&mut self) {
        self.r.zeroize();
    }
}

impl core::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KeyExchange(..)")
    }
}

struct Shared {
    z: Vec<u8>,
    g1: [u8; 384],
    inner: [u8; 32],
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.z.zeroize();
        self.g1.zeroize();
        self.inner.zeroize();
    }
}

fn shared(
    id_a: &[u8],
    id_b: &[u8],
    ra: &[u8; 64],
    rb: &[u8; 64],
    g1: &Fp12,
    g2: &Fp12,
    g3: &Fp12,
) -> Shared {
    let (b1, mut b2, mut b3) = (g1.to_bytes(), g2.to_bytes(), g3.to_bytes());
    // Z = ID_A || ID_B || R_A || R_B || g1 || g2 || g3 (the KDF input, A7/B5).
    let mut z = Vec::with_capacity(id_a.len() + id_b.len() + 128 + 3 * 384);
    for part in [id_a, id_b, &ra[..], &rb[..], &b1[..], &b2[..], &b3[..]] {
        z.extend_from_slice(part);
    }
    // Hash(g2 || g3 || ID_A || ID_B || R_A || R_B) (the inner hash of S_B, S_1, S_A, S_2).
    let mut h = Sm3::new();
    for part in [&b2[..], &b3[..], id_a, id_b, &ra[..], &rb[..]] {
        h.update(part);
    }
    b2.zeroize();
    b3.zeroize();
    Shared {
        z,
        g1: b1,
        inner: h.finalize(),
    }
}

fn confirm_hash(tag: u8, s: &Shared) -> [u8; 32] {
    let mut h = Sm3::new();
    h.update(&[tag]);
    h.update(&s.g1);
    h.update(&s.inner);
    h.finalize()
}

impl KeyExchange {
    /// Starts a key exchange as the initiator A (`initiator = true`) or the responder B
    /// with the peer's ID: picks r and computes R = [r] Q_peer
    /// (A1-A3: Q_B = [H1(ID_B || hid, N)] P1 + Ppub-e, R_A = [r_A] Q_B; B likewise).
    pub fn new(key: Arc<EncUserKey>, peer_id: &[u8], initiator: bool) -> Result<Self> {
        // r hedged with the own user key, bound to the IDs and the role (crate::sm2::nonce).
        let secret = Zeroizing::new(super::encoding::g2_to_bytes(&key.de));
        let ctx = crate::sm2::nonce::context_digest(&[
            b"SM9 key exchange",
            &[initiator as u8],
            &(key.id.len() as u64).to_be_bytes(),
            &key.id,
            peer_id,
        ]);
        let mut seq = crate::sm2::nonce::hedged(&secret[..], &ctx)?;
        let r = hedged_scalar(&mut seq);
        Self::new_with_r(key, peer_id, initiator, r)
    }

    /// Same with a given r (known-answer tests; `sm9::hazmat` with the `kat-hooks` feature).
    pub(crate) fn new_with_r(
        key: Arc<EncUserKey>,
        peer_id: &[u8],
        initiator: bool,
        r: Fn,
    ) -> Result<Self> {
        // R = [r] Q_peer, Q_peer = [H1(ID_peer || hid, N)] P1 + Ppub-e.
        let own = key
            .public
            .mul_q_affine(peer_id, key.hid, &r, "R is the point at infinity")?;
        Ok(Self {
            key,
            peer_id: peer_id.to_vec(),
            initiator,
            r,
            own: g1_to_xy(&own),
            expect_sa: None,
            done: false,
        })
    }

    /// This party's R (04 || x || y, 65 bytes), to send to the peer.
    pub fn ephemeral(&self) -> [u8; 65] {
        let mut o = [0u8; 65];
        o[0] = 4;
        o[1..].copy_from_slice(&self.own);
        o
    }

    pub fn is_initiator(&self) -> bool {
        self.initiator
    }

    fn peer_point(&self, peer: &[u8]) -> Result<[u8; 64]> {
        // A5 / B4: check R_peer is in G1.
        Ok(g1_to_xy(&g1_from_bytes(peer, "peer ephemeral point")?))
    }

    /// Responder B (B4-B6): from R_A, returns (SK_B, S_B), SK_B of `key_length` bytes (1 to
    /// [`crate::sm2::MAX_KEY_LENGTH`]). Keep this object to check S_A with
    /// [`Self::confirm`]. Single use (see the type).
    pub fn respond(
        &mut self,
        peer_ephemeral: &[u8],
        key_length: usize,
    ) -> Result<(Zeroizing<Vec<u8>>, [u8; 32])> {
        if self.initiator {
            return Err(Error::InvalidValue(
                "respond() is for the responder; the initiator calls finish()",
            ));
        }
        let r = self.take_r()?;
        crate::sm2::check_key_length(key_length)?;
        let ra = self.peer_point(peer_ephemeral)?;
        let ra_pt = g1_from_bytes(&ra, "R_A")?;
        // B4: g1 = e(R_A, de_B), g2 = e(Ppub-e, P2)^r_B, g3 = g1^r_B.
        let mut g1 = pairing_prepared(&ra_pt, self.key.lines());
        let mut g2 = self.key.public.g().1.pow(&r.to_raw());
        let mut g3 = gt::pow_ct(&g1, &r.to_raw());
        drop(r);
        let s = shared(&self.peer_id, &self.key.id, &ra, &self.own, &g1, &g2, &g3);
        g1.zeroize();
        g2.zeroize();
        g3.zeroize();
        // B5: SK_B = KDF(ID_A || ID_B || R_A || R_B || g1 || g2 || g3, klen).
        let mut sk = Zeroizing::new(vec![0u8; key_length]);
        kdf_into(&s.z, &mut sk);
        // B6: S_B = Hash(0x82 || g1 || Hash(g2 || g3 || ID_A || ID_B || R_A || R_B)).
        let sb = confirm_hash(0x82, &s);
        // For B8: S_2 = Hash(0x83 || g1 || Hash(...)).
        self.expect_sa = Some(confirm_hash(0x83, &s));
        Ok((sk, sb))
    }

    /// Moves r out (to be wiped when the caller drops it) and marks this party used; a
    /// second call is [`Error::AlreadyFinalized`].
    fn take_r(&mut self) -> Result<Zeroizing<Fn>> {
        if self.done {
            return Err(Error::AlreadyFinalized);
        }
        self.done = true;
        let r = Zeroizing::new(self.r);
        self.r.zeroize();
        Ok(r)
    }

    /// Responder B (B8): checks the initiator's S_A in constant time.
    pub fn confirm(&self, sa: &[u8]) -> Result<()> {
        match &self.expect_sa {
            // Declassified: S_A matched or InvalidTag, public by definition (ct_eq).
            Some(e) if sa.len() == 32 && crate::ct::declassify_choice(e.ct_eq(sa)) => Ok(()),
            Some(_) => Err(Error::InvalidTag),
            None => Err(Error::InvalidValue("confirm() needs a completed respond()")),
        }
    }

    /// Initiator A (A5-A8): from R_B (and optionally S_B, checked in constant time, A6),
    /// returns (SK_A, S_A), SK_A of `key_length` bytes (1 to [`crate::sm2::MAX_KEY_LENGTH`]).
    /// Single use (see the type): a wrong S_B is [`Error::InvalidTag`] and r_A is gone.
    pub fn finish(
        &mut self,
        peer_ephemeral: &[u8],
        key_length: usize,
        sb: Option<&[u8]>,
    ) -> Result<(Zeroizing<Vec<u8>>, [u8; 32])> {
        if !self.initiator {
            return Err(Error::InvalidValue(
                "finish() is for the initiator; the responder calls respond()",
            ));
        }
        let r = self.take_r()?;
        crate::sm2::check_key_length(key_length)?;
        let rb = self.peer_point(peer_ephemeral)?;
        let rb_pt = g1_from_bytes(&rb, "R_B")?;
        // A5: g1' = e(Ppub-e, P2)^r_A, g2' = e(R_B, de_A), g3' = g2'^r_A.
        let mut g1 = self.key.public.g().1.pow(&r.to_raw());
        let mut g2 = pairing_prepared(&rb_pt, self.key.lines());
        let mut g3 = gt::pow_ct(&g2, &r.to_raw());
        drop(r);
        let s = shared(&self.key.id, &self.peer_id, &self.own, &rb, &g1, &g2, &g3);
        g1.zeroize();
        g2.zeroize();
        g3.zeroize();
        // A6: S_1 = Hash(0x82 || g1' || Hash(...)) must equal S_B.
        if let Some(sb) = sb {
            let s1 = confirm_hash(0x82, &s);
            // Declassified: S_B matched or InvalidTag, public by definition (ct_eq).
            if sb.len() != 32 || !crate::ct::declassify_choice(s1.ct_eq(sb)) {
                return Err(Error::InvalidTag);
            }
        }
        // A7: SK_A = KDF(ID_A || ID_B || R_A || R_B || g1' || g2' || g3', klen).
        let mut sk = Zeroizing::new(vec![0u8; key_length]);
        kdf_into(&s.z, &mut sk);
        // A8: S_A = Hash(0x83 || g1' || Hash(...)).
        let sa = confirm_hash(0x83, &s);
        Ok((sk, sa))
    }
}
