//! SM2 key pairs (GB/T 32918.1 §6): generation, validation, encodings.
//!
//! * Private key d in [1, n-2] (GB/T 32918.1 §6.1: d in [1, n-2]), 32 big-endian bytes.
//! * Public key P = d·G, validated on every import (GB/T 32918.1 §6.2: coordinates in
//!   [0, p-1], on the curve, not the point at infinity; h = 1 so n·P = O holds).
//! * Point encodings (GB/T 32918.1 §4.2.9): uncompressed `04||x||y` (65 bytes), raw
//!   `x||y` (64 bytes, common in Chinese APIs), compressed `02/03||x` (33 bytes) and
//!   hybrid `06/07||x||y` (65 bytes, read only).
//!
//! Key containers (SubjectPublicKeyInfo, SEC1, PKCS#8, PEM) are formats: they live in
//! guomi-formats (`guomi_formats::sm2_keys`).

use super::curve::{Curve, Sm2p256};
use super::field::{limbs_from_be, limbs_to_be, lt_ct, Fe, Limbs, Modulus};
use super::point::Affine;
use super::table::{mul_fixed_ct_blinded, CombTable, ZBlind, COMB_TABLE_BYTES};
use crate::error::{Error, Result};
use crate::sm3::Sm3;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

/// The default user ID of GM/T 0009-2012 §10 / GB/T 35276: ASCII "1234567812345678".
pub const DEFAULT_UID: &[u8] = b"1234567812345678";

/// Longest user ID: ENTL is a 16-bit count of bits, so at most 8191 bytes.
pub const MAX_UID_LEN: usize = 8191;

/// The next scalar in [1, n - 1] of a hedged sequence (see [`super::nonce`]).
pub(crate) fn hedged_scalar<C: Curve>(seq: &mut super::nonce::HedgedNonces) -> Zeroizing<Limbs> {
    let b = seq.next(super::dsa::scalar_in_range::<C>);
    Zeroizing::new(limbs_from_be(&b))
}

/// A uniformly random scalar in [1, n - 1 - `less`] by rejection sampling (OS CSPRNG),
/// and the Z blinding of its multiplication: each candidate is the first half of one
/// 64-byte OS CSPRNG call, λ the second half of the call that gave the accepted one (one
/// system call per key instead of two).
pub(crate) fn random_scalar_blinded<C: Curve>(less: u64) -> Result<(Zeroizing<Limbs>, ZBlind<C>)> {
    let n = <C::N as Modulus>::M;
    let bound = super::field::sub_limbs(&n, &[less, 0, 0, 0]).0; // accept 1 <= k < bound
    loop {
        let mut b = Zeroizing::new([0u8; 64]);
        crate::rand::fill(&mut b[..])?;
        let k = Zeroizing::new(limbs_from_be(b[..32].try_into().expect("32 bytes")));
        let blind = ZBlind::from_os_bytes(b[32..].try_into().expect("32 bytes"));
        b.zeroize();
        let nonzero = !(Choice::from(((k[0] | k[1] | k[2] | k[3]) == 0) as u8));
        // Declassified: rejection sampling. The accept/reject outcome reveals only a
        // discarded value (rejection has probability about 2^-32 for sm2p256v1's n).
        if crate::ct::declassify_choice(lt_ct(&k, &bound) & nonzero) {
            return Ok((k, blind));
        }
    }
}

/// A [`PublicKey`] object builds its own comb table (as [`PublicKey::prepare`] does) at
/// its this-many-th verification or encryption, so that keys used repeatedly get the
/// prepared speed without asking. The first uses run without a table.
pub const AUTO_PREPARE_AFTER: u32 = 4;

/// At most this many bytes of comb tables built automatically, all keys of the process
/// together (64 MiB: several hundred keys); past it keys are not prepared automatically
/// (an explicit [`PublicKey::prepare`] still is). A dropped key gives its share back.
pub const AUTO_PREPARE_BUDGET: usize = 64 << 20;

/// Bytes of automatically built tables alive now.
static AUTO_PREPARED_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Bytes of automatically built comb tables alive in this process now (see
/// [`AUTO_PREPARE_BUDGET`]).
pub fn auto_prepared_bytes() -> usize {
    AUTO_PREPARED_BYTES.load(Ordering::Relaxed)
}

/// The SM2 public key P = (x, y) of a curve (default: sm2p256v1).
pub struct PublicKey<C: Curve = Sm2p256> {
    pub(crate) point: Affine<C>,
    encoded: [u8; 65],
    table: OnceLock<Box<CombTable<C>>>,
    z_default: OnceLock<[u8; 32]>,
    /// Verifications and encryptions so far, counted up to [`AUTO_PREPARE_AFTER`].
    uses: AtomicU32,
    /// Whether `table` was built automatically (and so counts in the budget).
    auto_prepared: AtomicBool,
}

impl<C: Curve> Drop for PublicKey<C> {
    fn drop(&mut self) {
        if *self.auto_prepared.get_mut() {
            AUTO_PREPARED_BYTES.fetch_sub(COMB_TABLE_BYTES, Ordering::Relaxed);
        }
    }
}

impl<C: Curve> Clone for PublicKey<C> {
    fn clone(&self) -> Self {
        let z = OnceLock::new();
        if let Some(v) = self.z_default.get() {
            let _ = z.set(*v);
        }
        PublicKey {
            point: self.point,
            encoded: self.encoded,
            table: OnceLock::new(),
            z_default: z,
            uses: AtomicU32::new(0),
            auto_prepared: AtomicBool::new(false),
        }
    }
}

impl<C: Curve> PartialEq for PublicKey<C> {
    fn eq(&self, other: &Self) -> bool {
        self.encoded == other.encoded
    }
}
impl<C: Curve> Eq for PublicKey<C> {}

impl<C: Curve> core::hash::Hash for PublicKey<C> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.encoded.hash(state)
    }
}

impl<C: Curve> core::fmt::Debug for PublicKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey({}, 04", C::NAME)?;
        for b in &self.encoded[1..] {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

impl<C: Curve> PublicKey<C> {
    pub(crate) fn from_affine(point: Affine<C>) -> Self {
        let (x, y) = point.to_bytes();
        let mut encoded = [0u8; 65];
        encoded[0] = 4;
        encoded[1..33].copy_from_slice(&x);
        encoded[33..].copy_from_slice(&y);
        PublicKey {
            point,
            encoded,
            table: OnceLock::new(),
            z_default: OnceLock::new(),
            uses: AtomicU32::new(0),
            auto_prepared: AtomicBool::new(false),
        }
    }

    /// A public key from its affine coordinates (32 big-endian bytes each), validated.
    pub fn from_coordinates(x: &[u8; 32], y: &[u8; 32]) -> Result<Self> {
        Ok(Self::from_affine(parse_point::<C>(x, y)?))
    }

    /// Parses 65-byte `04||x||y`, 64-byte `x||y`, 33-byte `02/03||x` or 65-byte hybrid
    /// `06/07||x||y`. Every point is validated.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_affine(decode_point::<C>(b)?))
    }

    /// `04||x||y` (65 bytes).
    pub fn to_uncompressed(&self) -> [u8; 65] {
        self.encoded
    }

    /// `x||y` (64 bytes, no prefix).
    pub fn to_raw(&self) -> [u8; 64] {
        self.encoded[1..].try_into().unwrap()
    }

    /// `02/03||x` (33 bytes; 03 when y is odd).
    pub fn to_compressed(&self) -> [u8; 33] {
        let mut out = [0u8; 33];
        out[0] = 2 | (self.encoded[64] & 1);
        out[1..].copy_from_slice(&self.encoded[1..33]);
        out
    }

    /// x coordinate (32 bytes).
    pub fn x(&self) -> [u8; 32] {
        self.encoded[1..33].try_into().unwrap()
    }

    /// y coordinate (32 bytes).
    pub fn y(&self) -> [u8; 32] {
        self.encoded[33..].try_into().unwrap()
    }

    /// Builds this key's comb table (about 88 KiB) so that later verifications and
    /// encryptions to this key run about twice as fast. Idempotent and thread-safe. A key
    /// object also prepares itself at its [`AUTO_PREPARE_AFTER`]-th verification or
    /// encryption, within [`AUTO_PREPARE_BUDGET`].
    pub fn prepare(&self) {
        self.table.get_or_init(|| CombTable::new(&self.point));
    }

    /// Whether [`prepare`](Self::prepare) has built the table.
    pub fn is_prepared(&self) -> bool {
        self.table.get().is_some()
    }

    /// The comb table for one more verification or encryption with this key: built now
    /// when this is the [`AUTO_PREPARE_AFTER`]-th use and the process-wide
    /// [`AUTO_PREPARE_BUDGET`] allows it. Which path a use takes depends only on how
    /// often this public key was used, never on secrets.
    pub(crate) fn table_for_use(&self) -> Option<&CombTable<C>> {
        if let Some(t) = self.table.get() {
            return Some(t);
        }
        if self.uses.load(Ordering::Relaxed) >= AUTO_PREPARE_AFTER {
            return None; // the budget was spent when this key reached its turn
        }
        if self.uses.fetch_add(1, Ordering::Relaxed) + 1 != AUTO_PREPARE_AFTER {
            return None;
        }
        let size = COMB_TABLE_BYTES; // the points, not the size of the table's handle
        if AUTO_PREPARED_BYTES.fetch_add(size, Ordering::Relaxed) + size > AUTO_PREPARE_BUDGET {
            AUTO_PREPARED_BYTES.fetch_sub(size, Ordering::Relaxed);
            return None;
        }
        let mut built = false;
        let t = self.table.get_or_init(|| {
            built = true;
            CombTable::new(&self.point)
        });
        if built {
            self.auto_prepared.store(true, Ordering::Relaxed);
        } else {
            AUTO_PREPARED_BYTES.fetch_sub(size, Ordering::Relaxed);
        }
        Some(t)
    }

    /// Z_A = SM3(ENTL_A || ID_A || a || b || x_G || y_G || x_A || y_A)
    /// (GB/T 32918.2 §5.5). `uid` may be empty; at most 8191 bytes.
    pub fn compute_z(&self, uid: &[u8]) -> Result<[u8; 32]> {
        if uid == DEFAULT_UID {
            if let Some(z) = self.z_default.get() {
                return Ok(*z);
            }
        }
        if uid.len() > MAX_UID_LEN {
            return Err(Error::InvalidValue(
                "uid must be at most 8191 bytes (ENTL is 16 bits)",
            ));
        }
        let entl = ((uid.len() * 8) as u16).to_be_bytes();
        let mut h = Sm3::new();
        h.update(&entl);
        h.update(uid);
        h.update(&C::z_params());
        h.update(&self.encoded[1..]);
        let z = h.finalize();
        if uid == DEFAULT_UID {
            let _ = self.z_default.set(z);
        }
        Ok(z)
    }
}

/// Validates affine coordinates (GB/T 32918.1 §6.2 a-c).
fn parse_point<C: Curve>(x: &[u8; 32], y: &[u8; 32]) -> Result<Affine<C>> {
    let (fx, okx) = Fe::<C::F>::from_bytes(x);
    let (fy, oky) = Fe::<C::F>::from_bytes(y);
    let p = Affine { x: fx, y: fy };
    if bool::from(okx & oky & p.is_on_curve()) {
        Ok(p)
    } else {
        Err(Error::InvalidKey("point is not on the SM2 curve"))
    }
}

/// Decodes a point: 04||x||y, x||y, 02/03||x, 06/07||x||y.
pub(crate) fn decode_point<C: Curve>(b: &[u8]) -> Result<Affine<C>> {
    match (b.len(), b.first()) {
        (65, Some(4)) => parse_point(b[1..33].try_into().unwrap(), b[33..].try_into().unwrap()),
        (65, Some(6 | 7)) => {
            let p = parse_point::<C>(b[1..33].try_into().unwrap(), b[33..].try_into().unwrap())?;
            if bool::from(p.y.is_odd()) != (b[0] == 7) {
                return Err(Error::InvalidKey(
                    "hybrid point parity bit does not match y",
                ));
            }
            Ok(p)
        }
        (64, _) => parse_point(b[..32].try_into().unwrap(), b[32..].try_into().unwrap()),
        (33, Some(2 | 3)) => {
            // GB/T 32918.1 §A.5.2: y from y^2 = x^3 + ax + b (p = 3 mod 4), parity from the prefix.
            let (x, okx) = Fe::<C::F>::from_bytes(b[1..].try_into().unwrap());
            let rhs = x.square().add(&C::a()).mul(&x).add(&C::b());
            let (y, ok) = rhs.sqrt();
            if !bool::from(okx & ok) {
                return Err(Error::InvalidKey(
                    "compressed point is not on the SM2 curve",
                ));
            }
            let want_odd = Choice::from(b[0] & 1);
            let flip = y.is_odd() ^ want_odd;
            let y = Fe::conditional_select(&y, &y.neg(), flip);
            Ok(Affine { x, y })
        }
        (65 | 33, _) => Err(Error::UnsupportedFormat(
            "unknown point prefix (expected 02, 03, 04, 06 or 07)",
        )),
        (n, _) => Err(Error::InvalidLength {
            what: "SM2 public key",
            expected: "65 bytes (04||x||y), 64 bytes (x||y) or 33 bytes (02/03||x)",
            got: n,
        }),
    }
}

/// An SM2 private key d with its public key; caches (1 + d)^-1 and Z_A per user ID.
pub struct PrivateKey<C: Curve = Sm2p256> {
    /// d as an integer.
    d: Limbs,
    /// d mod n, Montgomery form.
    pub(crate) d_fe: Fe<C::N>,
    /// (1 + d)^-1 mod n, Montgomery form (GB/T 32918.2 §6.1 A6), computed on first use.
    dinv: OnceLock<Fe<C::N>>,
    public: PublicKey<C>,
    z_cache: Mutex<Vec<(Vec<u8>, [u8; 32])>>,
}

impl<C: Curve> Drop for PrivateKey<C> {
    fn drop(&mut self) {
        self.d.zeroize();
        self.d_fe.0.zeroize();
        if let Some(v) = self.dinv.get_mut() {
            v.0.zeroize();
        }
    }
}

impl<C: Curve> Clone for PrivateKey<C> {
    fn clone(&self) -> Self {
        PrivateKey {
            d: self.d,
            d_fe: self.d_fe,
            dinv: self.dinv.clone(),
            public: self.public.clone(),
            z_cache: Mutex::new(self.z_cache.lock().map(|v| v.clone()).unwrap_or_default()),
        }
    }
}

impl<C: Curve> core::fmt::Debug for PrivateKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "PrivateKey({}, public={:?}, d=<hidden>)",
            C::NAME,
            self.public
        )
    }
}

impl<C: Curve> PartialEq for PrivateKey<C> {
    /// Constant-time comparison of d.
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.d_fe.ct_eq(&other.d_fe))
    }
}
impl<C: Curve> Eq for PrivateKey<C> {}

const Z_CACHE_SIZE: usize = 8;

impl<C: Curve> PrivateKey<C> {
    /// A new random key: d uniform in [1, n-2] from the OS CSPRNG (rejection sampling).
    pub fn generate() -> Result<Self> {
        let (d, blind) = random_scalar_blinded::<C>(1)?;
        Ok(Self::from_limbs_unchecked(&d, &blind))
    }

    /// The key of d in [1, n-2] (unchecked), d·G blinded with `blind`.
    fn from_limbs_unchecked(d: &Limbs, blind: &ZBlind<C>) -> Self {
        let d_fe = Fe::<C::N>::from_limbs_reduced(d);
        let p = mul_fixed_ct_blinded(C::g_table(), d, blind)
            .to_affine()
            .expect("d in [1, n-2] so d·G is finite");
        PrivateKey {
            d: *d,
            d_fe,
            dinv: OnceLock::new(),
            public: PublicKey::from_affine(p),
            z_cache: Mutex::new(Vec::new()),
        }
    }

    /// d from exactly 32 big-endian bytes (the fixed-width encoding [`to_bytes`]
    /// writes); d must be in [1, n-2]. Any other length is [`Error::InvalidLength`]: a
    /// truncated buffer must not silently become a small (weak) key. Integers written
    /// minimally by other software (Java's `BigInteger.toByteArray`) go through
    /// [`from_be_integer`](Self::from_be_integer). The public key d·G is blinded with OS
    /// randomness; an OS RNG failure is [`Error::Random`].
    ///
    /// [`to_bytes`]: Self::to_bytes
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let buf: &[u8; 32] = b.try_into().map_err(|_| Error::InvalidLength {
            what: "SM2 private key",
            expected: "32 bytes",
            got: b.len(),
        })?;
        Self::from_array(buf)
    }

    /// d from a big-endian unsigned integer written without fixed width, as peers do:
    /// 1 to 32 bytes (left-padded with zeros) or 33 bytes whose first byte is 0x00 (the
    /// sign byte of Java's `BigInteger.toByteArray`). d must be in [1, n-2]. Use this only
    /// for integers that are minimal by design; key bytes of fixed width belong in
    /// [`from_bytes`](Self::from_bytes), which refuses short input.
    pub fn from_be_integer(b: &[u8]) -> Result<Self> {
        let mut buf = Zeroizing::new([0u8; 32]);
        match b.len() {
            1..=32 => buf[32 - b.len()..].copy_from_slice(b),
            33 if b[0] == 0 => buf.copy_from_slice(&b[1..]),
            n => {
                return Err(Error::InvalidLength {
                    what: "SM2 private key integer",
                    expected: "1 to 32 bytes (or 33 with a leading 00)",
                    got: n,
                });
            }
        }
        Self::from_array(&buf)
    }

    fn from_array(buf: &[u8; 32]) -> Result<Self> {
        let d = Zeroizing::new(limbs_from_be(buf));
        let n_minus_1 = super::field::sub_limbs(&<C::N as Modulus>::M, &[1, 0, 0, 0]).0;
        let zero = Choice::from(((d[0] | d[1] | d[2] | d[3]) == 0) as u8);
        // Declassified: d in [1, n-2] or InvalidKey, returned to the caller (lt_ct is
        // constant time).
        if !crate::ct::declassify_choice(lt_ct(&d, &n_minus_1) & !zero) {
            return Err(Error::InvalidKey("SM2 private key must be in [1, n-2]"));
        }
        Ok(Self::from_limbs_unchecked(&d, &ZBlind::draw()?))
    }

    /// d as 32 big-endian bytes (always 32, leading zeros kept).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(limbs_to_be(&self.d))
    }

    /// (1 + d)^-1 mod n (constant-time Fermat inversion, cached).
    pub(crate) fn dinv(&self) -> &Fe<C::N> {
        self.dinv.get_or_init(|| self.d_fe.add(&Fe::ONE).invert())
    }

    pub(crate) fn d_limbs(&self) -> &Limbs {
        &self.d
    }

    /// The public key d·G.
    pub fn public_key(&self) -> &PublicKey<C> {
        &self.public
    }

    /// Z_A of this key's public key for `uid`, cached per user ID.
    pub fn z(&self, uid: &[u8]) -> Result<[u8; 32]> {
        if uid == DEFAULT_UID {
            return self.public.compute_z(uid);
        }
        if let Ok(cache) = self.z_cache.lock() {
            if let Some((_, z)) = cache.iter().find(|(u, _)| u == uid) {
                return Ok(*z);
            }
        }
        let z = self.public.compute_z(uid)?;
        if let Ok(mut cache) = self.z_cache.lock() {
            if cache.len() >= Z_CACHE_SIZE {
                cache.remove(0);
            }
            cache.push((uid.to_vec(), z));
        }
        Ok(z)
    }
}

#[cfg(test)]
mod auto_prepare_tests {
    use super::*;

    #[test]
    fn a_key_prepares_itself_at_its_nth_use_and_gives_the_budget_back() {
        let key = PrivateKey::<Sm2p256>::generate().unwrap();
        let sig = key.sign(b"m", DEFAULT_UID).unwrap();
        let pk = key.public_key().clone();
        // The budget counts the table's points (86 KiB), not the size of its handle.
        let size = super::super::table::COMB_TABLE_BYTES;
        for i in 1..=AUTO_PREPARE_AFTER + 2 {
            assert!(pk.verify(b"m", DEFAULT_UID, &sig));
            assert!(!pk.verify(b"n", DEFAULT_UID, &sig));
            // Two verifications per round: prepared from the round holding the n-th use.
            assert_eq!(pk.is_prepared(), 2 * i >= AUTO_PREPARE_AFTER, "round {i}");
        }
        assert!(pk.auto_prepared.load(Ordering::Relaxed));
        assert!(auto_prepared_bytes() >= size);
        // Encryption counts too, and a clone starts from zero.
        let other = pk.clone();
        assert!(!other.is_prepared());
        for _ in 0..AUTO_PREPARE_AFTER {
            let parts = other.encrypt_parts(b"hello").unwrap();
            assert_eq!(&*key.decrypt_parts(&parts).unwrap(), b"hello");
        }
        assert!(other.is_prepared());
        // An explicitly prepared key is not counted in the budget.
        let explicit = key.public_key().clone();
        explicit.prepare();
        assert!(!explicit.auto_prepared.load(Ordering::Relaxed));
    }
}
