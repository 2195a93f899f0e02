//! SM2 digital signatures (GB/T 32918.2-2016 §6 and §7).
//!
//! e = SM3(Z_A || M) with Z_A from [`PublicKey::compute_z`]. Signatures are (r, s) with
//! r, s in [1, n-1]; encodings: DER `SEQUENCE { r INTEGER, s INTEGER }` (GM/T 0009 /
//! GB/T 35276) and raw `r || s` (64 bytes). No low-S normalisation is applied.

use super::curve::{Curve, Sm2p256};
use super::field::{limbs_from_be, lt_ct, Fe, Limbs, Modulus};
use super::keys::{PrivateKey, PublicKey};
use super::table::{mul_double_vartime, mul_fixed_ct_blinded, ZBlind};
use crate::der::{self as asn1, Reader};
use crate::error::{Error, Result};
use crate::sm3::Sm3;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// An SM2 signature (r, s), each 32 big-endian bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// r, 32 big-endian bytes.
    pub r: [u8; 32],
    /// s, 32 big-endian bytes.
    pub s: [u8; 32],
}

impl Signature {
    /// `r || s` (64 bytes).
    pub fn to_raw(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r);
        out[32..].copy_from_slice(&self.s);
        out
    }

    /// Parses `r || s` (exactly 64 bytes). Ranges are checked by verification.
    pub fn from_raw(b: &[u8]) -> Result<Self> {
        if b.len() != 64 {
            return Err(Error::InvalidLength {
                what: "raw SM2 signature",
                expected: "64 bytes",
                got: b.len(),
            });
        }
        Ok(Signature {
            r: b[..32].try_into().unwrap(),
            s: b[32..].try_into().unwrap(),
        })
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }` (minimal integers, 0x00 sign bytes).
    pub fn to_der(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(70);
        asn1::write_uint(&mut body, &self.r);
        asn1::write_uint(&mut body, &self.s);
        asn1::tlv(asn1::TAG_SEQUENCE, &body)
    }

    /// Parses strict DER.
    pub fn from_der(der: &[u8]) -> Result<Self> {
        let mut outer = Reader::new(der);
        let mut r = Reader::new(outer.read(asn1::TAG_SEQUENCE)?);
        outer.finish()?;
        let rr = r.read_uint32()?;
        let ss = r.read_uint32()?;
        r.finish()?;
        Ok(Signature { r: rr, s: ss })
    }

    /// Parses either encoding: 64 bytes that are not valid DER are raw `r || s`.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        if b.first() == Some(&0x30) {
            if let Ok(sig) = Self::from_der(b) {
                return Ok(sig);
            }
        }
        if b.len() == 64 {
            return Self::from_raw(b);
        }
        Err(Error::UnsupportedFormat(
            "signature is neither DER nor 64-byte r||s",
        ))
    }
}

/// e = SM3(Z || M) (GB/T 32918.2 §6.1 A1-A2).
pub fn message_digest(z: &[u8; 32], msg: &[u8]) -> [u8; 32] {
    let mut h = Sm3::new();
    h.update(z);
    h.update(msg);
    h.finalize()
}

/// A4-A7 with a given nonce k (an integer in [1, n-1]), k·G blinded with `blind`;
/// `None` when the standard says to draw another k (r = 0, r + k = n, s = 0).
pub(crate) fn sign_with_k<C: Curve>(
    key: &PrivateKey<C>,
    e: &[u8; 32],
    k: &Limbs,
    blind: &ZBlind<C>,
) -> Option<Signature> {
    // A4: (x1, y1) = [k]G.
    let p1 = mul_fixed_ct_blinded(C::g_table(), k, blind).to_affine()?;
    let x1 = p1.x.to_bytes();
    // A5: r = (e + x1) mod n; e, x1 < 2^256 < 2n so one reduction each suffices.
    let e_n = Fe::<C::N>::from_bytes_reducing(e);
    let x1_n = Fe::<C::N>::from_bytes_reducing(&x1);
    let r = e_n.add(&x1_n);
    let mut k_n = Fe::<C::N>::from_limbs_reduced(k);
    let mut k_r = k_n.add(&r);
    k_n.0.zeroize();
    // r = 0 or r + k = n: back to A3. Declassified: the outcome only discards this k
    // (probability about 2^-255).
    if crate::ct::declassify_choice(r.is_zero() | k_r.is_zero()) {
        k_r.0.zeroize();
        return None;
    }
    // A6: s = ((1 + d)^-1 · (k - r·d)) mod n = (1 + d)^-1 · (k + r) - r.
    let s = key.dinv().mul(&k_r).sub(&r);
    k_r.0.zeroize();
    // s = 0: back to A3. Declassified, as above: only discards this k.
    if crate::ct::declassify_choice(s.is_zero()) {
        return None;
    }
    // A7: (r, s).
    Some(Signature {
        r: r.to_bytes(),
        s: s.to_bytes(),
    })
}

/// Whether 32 big-endian bytes are a scalar in [1, n-1] (constant time).
pub(crate) fn scalar_in_range<C: Curve>(b: &[u8; 32]) -> bool {
    let mut l = limbs_from_be(b);
    let zero = subtle::Choice::from(((l[0] | l[1] | l[2] | l[3]) == 0) as u8);
    let ok = lt_ct(&l, &<C::N as Modulus>::M) & !zero;
    l.zeroize();
    bool::from(ok)
}

/// A3-A7 with nonces drawn from `drbg` until one gives a signature, k·G blinded with
/// `blind` (a retry, probability about 2^-255, with the next λ of it).
pub(crate) fn sign_with_drbg<C: Curve>(
    key: &PrivateKey<C>,
    e: &[u8; 32],
    mut drbg: super::nonce::HedgedNonces,
    mut blind: ZBlind<C>,
) -> Signature {
    loop {
        // A3: k in [1, n-1].
        let kb = drbg.next(scalar_in_range::<C>);
        let mut k = limbs_from_be(&kb);
        let sig = sign_with_k(key, e, &k, &blind);
        k.zeroize();
        if let Some(sig) = sig {
            return sig;
        }
        blind = blind.next();
    }
}

/// Range check 1 <= x <= n - 1 (B1, B2).
fn in_range<C: Curve>(x: &[u8; 32]) -> Option<Limbs> {
    let l = limbs_from_be(x);
    if l == [0; 4] || !bool::from(lt_ct(&l, &<C::N as Modulus>::M)) {
        None
    } else {
        Some(l)
    }
}

/// B1-B7 on a digest e. Variable time (public inputs only).
pub(crate) fn verify_e<C: Curve>(key: &PublicKey<C>, e: &[u8; 32], sig: &Signature) -> bool {
    // B1, B2: r, s in [1, n-1].
    let (Some(r_l), Some(s_l)) = (in_range::<C>(&sig.r), in_range::<C>(&sig.s)) else {
        return false;
    };
    let r = Fe::<C::N>::from_limbs_reduced(&r_l);
    let s = Fe::<C::N>::from_limbs_reduced(&s_l);
    // B5: t = (r + s) mod n, t != 0.
    let t = r.add(&s);
    if bool::from(t.is_zero()) {
        return false;
    }
    // B6: (x1', y1') = [s]G + [t]P_A.
    let pt = mul_double_vartime(&s_l, &t.to_limbs(), &key.point, key.table_for_use());
    // B7: R = (e' + x1') mod n == r. Compare without inverting Z: x1' mod n = r - e'
    // means x1' = c or x1' = c + n (when below p), with c = (r - e') mod n.
    let e_n = Fe::<C::N>::from_bytes_reducing(e);
    let c = r.sub(&e_n).to_limbs();
    let c_f = Fe::<C::F>::from_limbs_reduced(&c);
    if pt.x_equals_vartime(&c_f) {
        return true;
    }
    let (c2, carry) = super::field::add_limbs(&c, &<C::N as Modulus>::M);
    carry == 0
        && super::field::lt_vartime(&c2, &<C::F as Modulus>::M)
        && pt.x_equals_vartime(&Fe::from_limbs_reduced(&c2))
}

impl<C: Curve> PrivateKey<C> {
    /// Signs the digest e = SM3(Z_A || M) (GB/T 32918.2 §6.1 A3-A7) with a hedged nonce:
    /// k from HMAC-SM3 keyed with d over e and 32 fresh bytes from the OS CSPRNG
    /// (RFC 6979 §3.6 style, see [`super::nonce`]); the same OS call draws the Z
    /// blinding of k·G. An OS RNG failure is an error ([`Error::Random`]).
    pub fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature> {
        let d = self.to_bytes();
        let (drbg, blind) = super::nonce::hedged_blinded(&d[..], e)?;
        Ok(sign_with_drbg(self, e, drbg, ZBlind::from_os_bytes(&blind)))
    }

    /// Signs `msg` for the user ID `uid` (GB/T 32918.2 §6.1 A1-A7).
    pub fn sign(&self, msg: &[u8], uid: &[u8]) -> Result<Signature> {
        let z = self.z(uid)?;
        self.sign_digest(&message_digest(&z, msg))
    }

    /// An SM3 hasher already fed Z_A, for streaming: feed the message, then pass
    /// `finalize()` to [`sign_digest`](Self::sign_digest).
    pub fn signer(&self, uid: &[u8]) -> Result<Sm3> {
        let mut h = Sm3::new();
        h.update(&self.z(uid)?);
        Ok(h)
    }
}

impl<C: Curve> PublicKey<C> {
    /// Verifies a signature on the digest e (GB/T 32918.2 §7.1 B1-B7).
    pub fn verify_digest(&self, e: &[u8; 32], sig: &Signature) -> bool {
        verify_e(self, e, sig)
    }

    /// Verifies a signature on `msg` for `uid`. Invalid uid lengths give `false`.
    pub fn verify(&self, msg: &[u8], uid: &[u8], sig: &Signature) -> bool {
        match self.compute_z(uid) {
            Ok(z) => verify_e(self, &message_digest(&z, msg), sig),
            Err(_) => false,
        }
    }

    /// An SM3 hasher already fed Z_A (streaming verification, see
    /// [`PrivateKey::signer`]).
    pub fn verifier(&self, uid: &[u8]) -> Result<Sm3> {
        let mut h = Sm3::new();
        h.update(&self.compute_z(uid)?);
        Ok(h)
    }
}

/// One item of [`verify_many`].
pub struct VerifyItem<'a, C: Curve = Sm2p256> {
    /// The signer's public key.
    pub key: &'a PublicKey<C>,
    /// The signature, DER or raw (malformed means "invalid").
    pub signature: &'a [u8],
    /// The message.
    pub message: &'a [u8],
    /// The user ID.
    pub uid: &'a [u8],
}

/// Verifies many signatures, in order; `threads`: see [`crate::parallel`] (`None`: the
/// calling thread, `Some(0)`: every core).
///
/// A key object that appears at least [`AUTO_PREPARE_AFTER`](super::keys::AUTO_PREPARE_AFTER)
/// times in the batch takes its automatic preparation (within the budget) before the
/// batch is split, so the threads only read its table. Which keys get a table depends
/// only on how often each public key object is used, never on secrets.
pub fn verify_many<C: Curve>(items: &[VerifyItem<'_, C>], threads: Option<usize>) -> Vec<bool> {
    let one = |it: &VerifyItem<'_, C>| match Signature::from_bytes(it.signature) {
        Ok(sig) => it.key.verify(it.message, it.uid, &sig),
        Err(_) => false,
    };
    let threads = crate::parallel::threads(threads);
    let after = super::keys::AUTO_PREPARE_AFTER as usize;
    if items.len() >= after {
        // Key objects by address (identity, not value: the table belongs to the object).
        let mut keys: Vec<(*const PublicKey<C>, usize)> = items
            .iter()
            .enumerate()
            .map(|(k, i)| (i.key as *const PublicKey<C>, k))
            .collect();
        keys.sort_unstable();
        for run in keys
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|r| r.len() >= after)
        {
            let key = items[run[0].1].key;
            // Counts uses up to the automatic preparation (each counts as one of this
            // batch's uses of the key); stops at once when the key has a table.
            for _ in 0..after {
                if key.table_for_use().is_some() {
                    break;
                }
            }
        }
    }
    let mut out = vec![false; items.len()];
    // Pieces handed out while the work runs (a thread that starts late takes less).
    crate::parallel::for_each_guided(&mut out, threads, 2, 1, |start, chunk| {
        for (o, it) in chunk.iter_mut().zip(&items[start..]) {
            *o = one(it);
        }
    });
    out
}

/// Whether two 32-byte values are equal, constant time.
#[allow(dead_code)]
pub(crate) fn ct_eq32(a: &[u8; 32], b: &[u8; 32]) -> bool {
    bool::from(a.ct_eq(b))
}
