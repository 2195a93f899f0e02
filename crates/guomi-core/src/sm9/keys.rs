//! SM9 master keys, master public keys and user keys (GM/T 0044-2016 Part 2 §6 / Part 4 §6:
//! key generation and user private key extraction by the KGC).
//!
//! Public-key objects keep their per-key precomputations (the pairing value
//! g = e(P1, Ppub-s) or e(Ppub-e, P2) with a fixed-base GT table) behind an `Arc`, built on
//! first use; user keys keep their own precomputations (a fixed-base comb for [l]ds_A in
//! signing, the prepared G2 lines of de_B for decryption).

use super::bn256::curve::FixedBase;
use super::bn256::fp::Fn;
use super::bn256::fp12::Fp12;
use super::bn256::gt::GtTable;
use super::bn256::pairing::{pairing, pairing_prepared, G2Prepared};
use super::bn256::{consts, p1_table, p2_table, G1Affine, G1Params, G2Affine, G1, G2};
use super::encoding::{g1_from_bytes, g1_to_bytes, g2_from_bytes, g2_to_bytes, scalar_from_bytes};
use super::hash::h1;
use crate::error::{Error, Result};
use std::sync::{Arc, OnceLock};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// hid of signature keys (GM/T 0044 Part 2 §5.2).
pub const HID_SIGN: u8 = 0x01;
/// hid of key-exchange keys (Part 3 §5.2).
pub const HID_EXCHANGE: u8 = 0x02;
/// hid of encryption keys (Part 4 §5.2).
pub const HID_ENCRYPT: u8 = 0x03;

/// The next scalar in [1, N-1] of a hedged sequence (see `crate::sm2::nonce`).
pub(crate) fn hedged_scalar(seq: &mut crate::sm2::nonce::HedgedNonces) -> Fn {
    let b = seq.next(super::sign::scalar_in_range);
    Fn::from_be_bytes(&b).unwrap_or(Fn::ZERO)
}

/// A uniformly random scalar in [1, N-1] from the OS CSPRNG (rejection sampling).
pub fn random_scalar() -> Result<Fn> {
    loop {
        let mut b = crate::rand::bytes::<32>()?;
        // s >= N maps to 0 (a constant-time select), so one test accepts [1, N-1].
        let s = Fn::from_be_bytes(&b).unwrap_or(Fn::ZERO);
        b.zeroize();
        // Declassified: rejection sampling; a rejected value is discarded, so the outcome
        // reveals nothing about the value kept.
        if !crate::ct::declassify_choice(s.is_zero()) {
            return Ok(s);
        }
    }
}

/// t2 = ks * (H1(ID || hid, N) + ks)^-1 mod N (Part 2 §6.1 / Part 4 §6.1, step 2); an
/// error if t1 = 0 (the KGC must then generate a new master key).
fn extract_scalar(master: &Fn, id: &[u8], hid: u8) -> Result<Fn> {
    let t1 = Fn::from_raw(h1(id, hid)).add(master);
    // Declassified: t1 = 0 is an error the KGC gets (probability about 2^-256).
    if crate::ct::declassify_choice(t1.is_zero()) {
        return Err(Error::InvalidKey("H1(ID || hid) + master key = 0 mod N: this master key cannot serve this ID; generate a new master key"));
    }
    Ok(master.mul(&t1.invert()))
}

/// A G1 base with a per-key fixed-base comb (for [l]ds_A, [r]Q_B). Wiped on drop.
pub(crate) struct SecretBase(FixedBase<G1Params>);

impl Drop for SecretBase {
    fn drop(&mut self) {
        self.0.zeroize_tables();
    }
}

// ===================================================================== signature keys

struct SignPublicInner {
    ppub: G2Affine,
    /// g = e(P1, Ppub-s) as a fixed-base table, built on first use.
    g: OnceLock<(Fp12, GtTable)>,
}

/// The signature master public key Ppub-s = [ks]P2 in G2.
#[derive(Clone)]
pub struct SignMasterPublicKey(Arc<SignPublicInner>);

impl core::fmt::Debug for SignMasterPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SignMasterPublicKey(..)")
    }
}

impl SignMasterPublicKey {
    fn from_point(ppub: G2Affine) -> Self {
        Self(Arc::new(SignPublicInner {
            ppub,
            g: OnceLock::new(),
        }))
    }

    /// Parses Ppub-s: 04 || x || y (129 bytes, Fp2 high coefficient first) or 128 bytes;
    /// checks the point is on the twist and in G2.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_point(g2_from_bytes(
            b,
            "signature master public key",
        )?))
    }

    /// 04 || x || y (129 bytes).
    pub fn to_bytes(&self) -> [u8; 129] {
        g2_to_bytes(&self.0.ppub)
    }

    pub(crate) fn ppub(&self) -> &G2Affine {
        &self.0.ppub
    }

    /// g = e(P1, Ppub-s) and its fixed-base table (Part 2 §6.2 A1 / §7.2 B3).
    pub(crate) fn g(&self) -> &(Fp12, GtTable) {
        self.0.g.get_or_init(|| {
            let g = pairing(&consts().p1, &self.0.ppub);
            let t = GtTable::new(&g);
            (g, t)
        })
    }

    /// Builds the per-key caches now (otherwise built on first use).
    pub fn precompute(&self) {
        let _ = self.g();
    }
}

/// The signature master key ks in [1, N-1] (held by the KGC).
pub struct SignMasterKey {
    ks: Fn,
    public: SignMasterPublicKey,
}

impl Drop for SignMasterKey {
    fn drop(&mut self) {
        self.ks.zeroize();
    }
}

impl core::fmt::Debug for SignMasterKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SignMasterKey(<secret>)")
    }
}

impl SignMasterKey {
    fn from_scalar(ks: Fn) -> Self {
        let ppub = p2_table()
            .mul(&ks.to_raw())
            .to_affine()
            .expect("ks in [1, N-1]");
        Self {
            ks,
            public: SignMasterPublicKey::from_point(ppub),
        }
    }

    /// A new master key from the OS CSPRNG.
    pub fn generate() -> Result<Self> {
        Ok(Self::from_scalar(random_scalar()?))
    }

    /// ks from exactly 32 big-endian bytes (other lengths are
    /// [`Error::InvalidLength`]); must be in [1, N-1].
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(scalar_from_bytes(
            b,
            "signature master key",
        )?))
    }

    /// ks as 32 big-endian bytes (wiped when dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.ks.to_be_bytes())
    }

    pub fn public_key(&self) -> SignMasterPublicKey {
        self.public.clone()
    }

    /// ds_A = [ks / (H1(ID_A || 0x01, N) + ks)] P1 (Part 2 §6.1).
    pub fn extract(&self, user_id: &[u8]) -> Result<SignUserKey> {
        let mut t2 = extract_scalar(&self.ks, user_id, HID_SIGN)?;
        let ds = p1_table()
            .mul(&t2.to_raw())
            .to_affine()
            .expect("t2 is non-zero");
        t2.zeroize();
        Ok(SignUserKey::new(ds, user_id, self.public.clone()))
    }
}

/// A user's signature private key ds_A in G1, with its ID and the master public key.
pub struct SignUserKey {
    pub(crate) ds: G1Affine,
    pub(crate) id: Vec<u8>,
    pub(crate) public: SignMasterPublicKey,
    /// Fixed-base comb of ds_A for S = [l]ds_A, built on first use.
    pub(crate) table: OnceLock<SecretBase>,
}

impl Drop for SignUserKey {
    fn drop(&mut self) {
        self.ds.x.zeroize();
        self.ds.y.zeroize();
    }
}

impl core::fmt::Debug for SignUserKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SignUserKey(<secret>)")
    }
}

impl SignUserKey {
    fn new(ds: G1Affine, id: &[u8], public: SignMasterPublicKey) -> Self {
        Self {
            ds,
            id: id.to_vec(),
            public,
            table: OnceLock::new(),
        }
    }

    /// Loads ds_A (65 bytes 04 || x || y, or 64 bytes x || y) for `user_id` under
    /// `public`. The key is checked: on the curve, and e(ds_A, [H1(ID||01)]P2 + Ppub-s)
    /// = e(P1, Ppub-s), i.e. it belongs to this ID and master key.
    pub fn from_bytes(b: &[u8], user_id: &[u8], public: &SignMasterPublicKey) -> Result<Self> {
        let ds = g1_from_bytes(b, "signature user key")?;
        let h = h1(user_id, HID_SIGN);
        let q = p2_table().mul(&h).add(&G2::from_affine(public.ppub()));
        let qa = q.to_affine().ok_or(Error::InvalidKey(
            "user key does not match this ID and master public key",
        ))?;
        // Constant-time comparison: the left side is derived from the secret key.
        // Declassified: key valid or InvalidKey, returned to the caller.
        if !crate::ct::declassify_choice(pairing(&ds, &qa).ct_eq(&public.g().0)) {
            return Err(Error::InvalidKey(
                "user key does not match this ID and master public key",
            ));
        }
        Ok(Self::new(ds, user_id, public.clone()))
    }

    /// ds_A as 04 || x || y (65 bytes; wiped when dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 65]> {
        Zeroizing::new(g1_to_bytes(&self.ds))
    }

    pub fn user_id(&self) -> &[u8] {
        &self.id
    }

    pub fn master_public_key(&self) -> SignMasterPublicKey {
        self.public.clone()
    }

    pub(crate) fn ds_mul(&self, l: &Fn) -> G1 {
        let t = self
            .table
            .get_or_init(|| SecretBase(FixedBase::new(&G1::from_affine(&self.ds))));
        t.0.mul(&l.to_raw())
    }

    /// Builds the per-key caches now.
    pub fn precompute(&self) {
        self.public.precompute();
        let _ = self.ds_mul(&Fn::ONE);
    }
}

// ==================================================================== encryption keys

struct EncPublicInner {
    ppub: G1Affine,
    /// g = e(Ppub-e, P2) as a fixed-base table, built on first use.
    g: OnceLock<(Fp12, GtTable)>,
    /// The fixed-base comb of Ppub-e (for [r]Q_B = [r h1]P1 + [r]Ppub-e), built on first use.
    comb: OnceLock<FixedBase<G1Params>>,
}

/// The encryption master public key Ppub-e = [ke]P1 in G1 (also used by key exchange).
#[derive(Clone)]
pub struct EncMasterPublicKey(Arc<EncPublicInner>);

impl core::fmt::Debug for EncMasterPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EncMasterPublicKey(..)")
    }
}

impl EncMasterPublicKey {
    fn from_point(ppub: G1Affine) -> Self {
        Self(Arc::new(EncPublicInner {
            ppub,
            g: OnceLock::new(),
            comb: OnceLock::new(),
        }))
    }

    /// Parses Ppub-e: 04 || x || y (65 bytes) or x || y (64 bytes).
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_point(g1_from_bytes(
            b,
            "encryption master public key",
        )?))
    }

    /// 04 || x || y (65 bytes).
    pub fn to_bytes(&self) -> [u8; 65] {
        g1_to_bytes(&self.0.ppub)
    }

    #[allow(dead_code)]
    pub(crate) fn ppub(&self) -> &G1Affine {
        &self.0.ppub
    }

    /// g = e(Ppub-e, P2) and its fixed-base table (Part 4 §7.2 A4; Part 3 §6 B4/A5).
    pub(crate) fn g(&self) -> &(Fp12, GtTable) {
        self.0.g.get_or_init(|| {
            let g = pairing(&self.0.ppub, &consts().p2);
            let t = GtTable::new(&g);
            (g, t)
        })
    }

    /// Q = [H1(ID || hid, N)]P1 + Ppub-e (Part 4 §7.2 A1, Part 3 §6 A1).
    pub(crate) fn q_of(&self, id: &[u8], hid: u8) -> Result<G1> {
        let q = p1_table()
            .mul(&h1(id, hid))
            .add(&G1::from_affine(&self.0.ppub));
        if bool::from(q.is_identity()) {
            return Err(Error::InvalidKey(
                "Q_B is the point at infinity for this ID",
            ));
        }
        Ok(q)
    }

    /// The fixed-base comb of Ppub-e.
    fn comb(&self) -> &FixedBase<G1Params> {
        self.0
            .comb
            .get_or_init(|| FixedBase::new(&G1::from_affine(&self.0.ppub)))
    }

    /// [r]Q for Q = [H1(ID || hid, N)]P1 + Ppub-e (Part 4 §7.2 A1-A3, Part 3 §6 A1-A3), as
    /// [r h1 mod N]P1 + [r]Ppub-e from the fixed-base combs of P1 and Ppub-e: 128 complete
    /// additions with masked table reads, constant time in the secret r (instead of a
    /// variable-base ladder of 256 doublings). On the point at infinity, the error of
    /// [`Self::q_of`] when Q itself is the identity, else `InvalidKey(what)`.
    pub(crate) fn mul_q_affine(
        &self,
        id: &[u8],
        hid: u8,
        r: &Fn,
        what: &'static str,
    ) -> Result<G1Affine> {
        let mut rh = Fn::from_raw(h1(id, hid)).mul(r);
        let p = p1_table()
            .mul(&rh.to_raw())
            .add(&self.comb().mul(&r.to_raw()));
        rh.zeroize();
        p.to_affine().ok_or_else(|| match self.q_of(id, hid) {
            Err(e) => e,
            Ok(_) => Error::InvalidKey(what),
        })
    }

    /// Builds the per-key caches now.
    pub fn precompute(&self) {
        let _ = self.g();
        let _ = self.comb();
    }
}

/// The encryption master key ke in [1, N-1] (held by the KGC); also the key-exchange
/// master key.
pub struct EncMasterKey {
    ke: Fn,
    public: EncMasterPublicKey,
}

impl Drop for EncMasterKey {
    fn drop(&mut self) {
        self.ke.zeroize();
    }
}

impl core::fmt::Debug for EncMasterKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EncMasterKey(<secret>)")
    }
}

impl EncMasterKey {
    fn from_scalar(ke: Fn) -> Self {
        let ppub = p1_table()
            .mul(&ke.to_raw())
            .to_affine()
            .expect("ke in [1, N-1]");
        Self {
            ke,
            public: EncMasterPublicKey::from_point(ppub),
        }
    }

    pub fn generate() -> Result<Self> {
        Ok(Self::from_scalar(random_scalar()?))
    }

    /// ke from exactly 32 big-endian bytes (other lengths are
    /// [`Error::InvalidLength`]); must be in [1, N-1].
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(scalar_from_bytes(
            b,
            "encryption master key",
        )?))
    }

    /// ke as 32 big-endian bytes (wiped when dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.ke.to_be_bytes())
    }

    pub fn public_key(&self) -> EncMasterPublicKey {
        self.public.clone()
    }

    /// de_B = [ke / (H1(ID_B || hid, N) + ke)] P2 (Part 4 §6.1; Part 3 §6.1 with hid 0x02).
    /// `hid` is [`HID_ENCRYPT`] for encryption/KEM keys, [`HID_EXCHANGE`] for key exchange.
    pub fn extract(&self, user_id: &[u8], hid: u8) -> Result<EncUserKey> {
        let mut t2 = extract_scalar(&self.ke, user_id, hid)?;
        let de = p2_table()
            .mul(&t2.to_raw())
            .to_affine()
            .expect("t2 is non-zero");
        t2.zeroize();
        Ok(EncUserKey::new(de, user_id, hid, self.public.clone()))
    }
}

/// A user's encryption (or key-exchange) private key de_B in G2, with its ID, hid and
/// the master public key. Its G2 line functions are prepared once, at construction.
pub struct EncUserKey {
    pub(crate) de: G2Affine,
    pub(crate) id: Vec<u8>,
    pub(crate) hid: u8,
    pub(crate) public: EncMasterPublicKey,
    /// The prepared G2 lines of de_B, built on first use.
    lines: OnceLock<G2Prepared>,
}

impl Drop for EncUserKey {
    fn drop(&mut self) {
        self.de.x.zeroize();
        self.de.y.zeroize();
    }
}

impl core::fmt::Debug for EncUserKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EncUserKey(<secret>)")
    }
}

impl EncUserKey {
    fn new(de: G2Affine, id: &[u8], hid: u8, public: EncMasterPublicKey) -> Self {
        Self {
            de,
            id: id.to_vec(),
            hid,
            public,
            lines: OnceLock::new(),
        }
    }

    /// The prepared lines of de_B for e(., de_B).
    pub(crate) fn lines(&self) -> &G2Prepared {
        self.lines.get_or_init(|| G2Prepared::new(&self.de))
    }

    /// Builds the per-key caches now (the lines of de_B and the master public key's).
    pub fn precompute(&self) {
        let _ = self.lines();
        self.public.precompute();
    }

    /// Loads de_B (129 bytes 04 || x || y or 128 bytes) for `user_id`/`hid` under
    /// `public`, checking it: on the twist, in G2, and e(Q_B, de_B) = e(Ppub-e, P2).
    pub fn from_bytes(
        b: &[u8],
        user_id: &[u8],
        hid: u8,
        public: &EncMasterPublicKey,
    ) -> Result<Self> {
        if hid != HID_ENCRYPT && hid != HID_EXCHANGE {
            return Err(Error::InvalidValue(
                "hid must be 0x03 (encryption) or 0x02 (key exchange)",
            ));
        }
        let de = g2_from_bytes(b, "encryption user key")?;
        let key = Self::new(de, user_id, hid, public.clone());
        let q = public
            .q_of(user_id, hid)?
            .to_affine()
            .expect("checked non-identity");
        // Constant-time comparison: the left side is derived from the secret key.
        // Declassified: key valid or InvalidKey, returned to the caller.
        if !crate::ct::declassify_choice(pairing_prepared(&q, key.lines()).ct_eq(&public.g().0)) {
            return Err(Error::InvalidKey(
                "user key does not match this ID and master public key",
            ));
        }
        Ok(key)
    }

    /// de_B as 04 || x || y (129 bytes; wiped when dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 129]> {
        Zeroizing::new(g2_to_bytes(&self.de))
    }

    pub fn user_id(&self) -> &[u8] {
        &self.id
    }

    pub fn hid(&self) -> u8 {
        self.hid
    }

    pub fn master_public_key(&self) -> EncMasterPublicKey {
        self.public.clone()
    }
}
