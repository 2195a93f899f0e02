//! Scalar multiplication.
//!
//! * [`CombTable`] / [`mul_fixed_ct`]: fixed-base comb for k·G (and k·P for a prepared
//!   public key). The scalar is recoded into 43 signed 6-bit digits d_i in [-32, 32];
//!   window i holds the affine multiples j·2^(6i)·P for j = 1..32, so k·P is the sum
//!   of 43 table points with no doubling at all. Each digit's point is read by scanning
//!   the whole window with masks (no secret-dependent index), negated by a masked select.
//!   The scan is the backend's ([`Scan`]: AVX-512 on `avx512`, AVX2 on `avx2`, the Rust
//!   loop on `portable`), the negation a `cmov` on x86-64.
//! * [`mul_var_ct`]: variable-base, constant-time fixed-window multiplication (52 signed
//!   5-bit digits, a 16-entry table of affine points scanned with masks, so every
//!   addition is a mixed one) for secret scalars times public points (decryption,
//!   encryption, key exchange, ECDH).
//! * [`mul_double_vartime`]: u·G + v·P for signature verification (public inputs only):
//!   the comb for u·G, width-5 wNAF for v·P (or the comb when P is prepared).
//!
//! The constant-time additions use incomplete formulas, which are wrong only when the two
//! points are equal (a doubling). That can happen only in the last addition of each
//! method, which therefore uses the complete form (the doubling is computed too and
//! selected by mask); no scalar takes a different path. The argument, for a group order
//! n > 2^252 (true for sm2p256v1 and the standard's example curve; checked at compile
//! time), with signed digits |d_i| <= 2^(w-1) and k < 2^256:
//! * comb (w = 6): before window i the accumulator is L·P with
//!   L = sum_{j<i} d_j 2^(6j), |L| <= 32 (2^(6i) - 1) / 63 < 2^(6i-1), and the point added
//!   is d_i 2^(6i)·P with d_i != 0. Equal points need n | (L - d_i 2^(6i)), a non-zero
//!   integer of size below 32.5 · 2^(6i), which is below n for every i <= 41. Only the top
//!   window (i = 42) can meet a doubling.
//! * fixed window (w = 5), from the top: before adding d_i·P the accumulator is A·P with
//!   A = sum_{j>i} d_j 2^(5(j-i)), a multiple of 32 with |A| < 2^(257-5i). Equal points
//!   need n | (A - d_i); for i >= 1, |A - d_i| < 2^252 + 16 < n, so A = d_i, which for a
//!   multiple of 32 and |d_i| <= 16 means both are 0 (the accumulator is at infinity and
//!   the digit is skipped, both handled). Only i = 0 can meet a doubling (it does for
//!   k = n - 6 on sm2p256v1).
//! * A sum at infinity (P + (-P)) needs n | (L + d_i 2^(6i)) in the comb and n | (A + d_i)
//!   in the fixed-window method: the conditions above with -d_i, so again only the last
//!   addition can meet it. The incomplete formulas give Z = 0 there, returned as is; no
//!   addition ever starts from an accumulator with Z = 0.
//!
//! The loops are compiled once per field code ([`PointOps`]): with the SM2-prime assembly
//! switched on, the point formulas are inlined on it; otherwise they call the point
//! methods.
//!
//! Digits equal to 0 still perform an addition, with a real table point whose result is
//! discarded by mask, so that the arithmetic never runs on all-zero operands for
//! scalars with many zero digits (data-dependent power, and with it frequency, is a
//! timing channel on some CPUs).
//!
//! For the same reason the accumulator never holds the point at infinity (Z = 0) or an
//! affine point (Z = 1, whose Montgomery form R mod p has few bits set) while the secret
//! digits are processed: it starts as a placeholder (λ², λ³, λ) for a fresh random λ
//! from the OS CSPRNG ([`ZBlind`]), a flag (not Z = 0) says that it stands for
//! infinity, and the first addition of a nonzero digit returns the table point on Z = λ
//! (the products x·Z² and y·Z³ of the mixed addition). Every later value inherits the
//! random factor, the final Z included (the inversion of `to_affine`), and two runs with
//! the same scalar compute on unrelated values. Before, k = 1 left G with Z = 1 in the
//! comb's accumulator for all 43 windows, and a timing test told k = 1 apart from random
//! k on the portable field code (docs/security.md).

use super::curve::Curve;
use super::field::{Fe, Limbs};
#[cfg(target_arch = "x86_64")]
use super::point::Sm2Asm;
use super::point::{
    batch_to_affine_vartime, multiples_vartime, Affine, Dispatch, Jacobian, PointOps,
};
use crate::error::Result;
use core::marker::PhantomData;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

const COMB_W: usize = 6;
const COMB_WINDOWS: usize = 43; // ceil(257 / 6)
const COMB_POINTS: usize = 1 << (COMB_W - 1); // 32

const VAR_W: usize = 5;
const VAR_WINDOWS: usize = 52; // ceil(257 / 5)
const VAR_POINTS: usize = 1 << (VAR_W - 1); // 16

/// Bits [pos, pos + w) of k (pos public; bits past 256 read as 0).
#[inline(always)]
fn bits(k: &Limbs, pos: usize, w: usize) -> u64 {
    if pos >= 256 {
        return 0;
    }
    let limb = pos / 64;
    let off = pos % 64;
    let mut v = k[limb] >> off;
    if off + w > 64 && limb < 3 {
        v |= k[limb + 1] << (64 - off);
    }
    v & ((1u64 << w) - 1)
}

/// Constant-time signed recoding: digits (|d|, d < 0) with sum d_i 2^(w i) = k.
#[inline(always)]
fn recode<const N: usize>(k: &Limbs, w: usize) -> [(u8, Choice); N] {
    let mut out = [(0u8, Choice::from(0)); N];
    let mut carry = 0u64;
    for (i, o) in out.iter_mut().enumerate() {
        let v = bits(k, w * i, w) + carry;
        // Digits above 2^(w-1) become negative with a carry into the next window.
        carry = ((1u64 << (w - 1)).wrapping_sub(v)) >> 63;
        let d = v as i64 - (carry << w) as i64;
        let neg = ((d >> 63) & 1) as u64;
        let abs = ((d as u64) ^ 0u64.wrapping_sub(neg)).wrapping_add(neg);
        *o = (abs as u8, Choice::from(neg as u8));
    }
    out
}

/// Bytes of one comb table's points (43 · 32 affine points of 64 bytes: 86 KiB), what
/// the automatic preparation budget counts per key.
pub(crate) const COMB_TABLE_BYTES: usize = COMB_WINDOWS * core::mem::size_of::<CombRow>();

/// One window of a comb table: the Montgomery limbs x ∥ y of 32 affine points
/// ([`Affine::to_words`]), each on its own cache line.
#[repr(C, align(64))]
struct CombRow([[u64; 8]; COMB_POINTS]);

/// The fixed-window table of [`mul_var_table_ct`]: the Montgomery limbs x ∥ y of the 16
/// affine points 1P..16P ([`Affine::to_words`]), each on its own cache line.
#[repr(C, align(64))]
struct VarRow([[u64; 8]; VAR_POINTS]);

/// Entry `max(abs, 1) - 1` of a row, portable code: every entry is read and kept or
/// dropped by a mask from comparing the public entry number with the secret digit.
#[inline(always)]
fn scan_portable<const W: usize, const N: usize>(row: &[[u64; W]; N], abs: u8) -> [u64; W] {
    let mut out = row[0];
    for (j, e) in row.iter().enumerate().skip(1) {
        let mask = 0u64.wrapping_sub(u64::from((j as u8 + 1).ct_eq(&abs).unwrap_u8()));
        for (o, v) in out.iter_mut().zip(e) {
            *o ^= mask & (*o ^ v);
        }
    }
    out
}

/// The table-scan code of the thread's active variant, read once per scalar
/// multiplication: AVX-512 on the `avx512` backend, AVX2 on `avx2`, the Rust loop on
/// `portable` (all constant time; `-noadx` variants scan like their backend).
#[derive(Clone, Copy)]
enum Scan {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(super::x86_avx2::Avx2Scan),
    #[cfg(target_arch = "x86_64")]
    Avx512(super::x86_avx512::Avx512Scan),
}

impl Scan {
    #[inline]
    fn active() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = super::x86_avx512::Avx512Scan::active() {
                return Scan::Avx512(t);
            }
            if let Some(t) = super::x86_avx2::Avx2Scan::active() {
                return Scan::Avx2(t);
            }
        }
        Scan::Portable
    }

    /// `y` negated mod p when `neg`, in constant time.
    #[inline(always)]
    fn neg_if<C: Curve>(self, y: &mut Fe<C::F>, neg: Choice) {
        match self {
            Scan::Portable => *y = Fe::conditional_select(y, &y.neg(), neg),
            #[cfg(target_arch = "x86_64")]
            _ => {
                y.0 = super::x86_avx2::neg_if(
                    &y.0,
                    &<C::F as super::field::Modulus>::M,
                    neg.unwrap_u8(),
                )
            }
        }
    }

    /// (-1)^neg · entry max(abs, 1) of a row of affine points (a comb window or the
    /// fixed-window table), in constant time.
    #[inline(always)]
    fn affine<C: Curve, const N: usize>(
        self,
        row: &[[u64; 8]; N],
        abs: u8,
        neg: Choice,
    ) -> Affine<C> {
        let w = match self {
            Scan::Portable => scan_portable(row, abs),
            #[cfg(target_arch = "x86_64")]
            Scan::Avx2(t) => t.select_8(row, abs),
            #[cfg(target_arch = "x86_64")]
            Scan::Avx512(t) => t.select_8(row, abs),
        };
        let mut q = Affine::from_words(&w);
        self.neg_if::<C>(&mut q.y, neg);
        q
    }
}

/// Fixed-base comb table: `COMB_WINDOWS` windows of `COMB_POINTS` affine points.
pub struct CombTable<C: Curve> {
    rows: Vec<CombRow>,
    _curve: PhantomData<C>,
}

impl<C: Curve> CombTable<C> {
    /// Builds the table of `p` (public; not at infinity).
    pub(crate) fn new(p: &Affine<C>) -> Box<Self> {
        let mut jac = Vec::with_capacity(COMB_WINDOWS * COMB_POINTS);
        let mut base = p.to_jacobian();
        for _ in 0..COMB_WINDOWS {
            let mut acc = base;
            jac.push(acc);
            for _ in 1..COMB_POINTS {
                acc = acc.add_vartime(&base);
                jac.push(acc);
            }
            for _ in 0..COMB_W {
                base = base.double();
            }
        }
        let pts = batch_to_affine_vartime(&jac);
        let rows = pts
            .chunks_exact(COMB_POINTS)
            .map(|w| CombRow(core::array::from_fn(|j| w[j].to_words())))
            .collect();
        Box::new(CombTable {
            rows,
            _curve: PhantomData,
        })
    }

    /// The point |d|·2^(6i)·P for `abs` = |d| in 1..=32 (public).
    #[inline(always)]
    fn get_vartime(&self, window: usize, abs: u8) -> Affine<C> {
        Affine::from_words(&self.rows[window].0[abs as usize - 1])
    }
}

/// The random λ of the Z blinding (module documentation), nonzero, in Montgomery form;
/// wiped on drop. One per constant-time multiplication: [`ZBlind::draw`] makes its own
/// getrandom call, [`ZBlind::from_os_bytes`] takes 32 bytes that the operation drew from
/// the OS CSPRNG in the call that also drew its nonce (one system call per signature,
/// encryption or key generation instead of two or three), and [`ZBlind::next`] gives a
/// second operation-local λ for the second multiplication of an encryption.
pub(crate) struct ZBlind<C: Curve>(Fe<C::F>);

impl<C: Curve> Drop for ZBlind<C> {
    fn drop(&mut self) {
        self.0 .0.zeroize();
    }
}

impl<C: Curve> ZBlind<C> {
    /// λ from 32 bytes of its own from the OS CSPRNG ([`Error::Random`] if that fails).
    ///
    /// [`Error::Random`]: crate::error::Error::Random
    pub(crate) fn draw() -> Result<Self> {
        let b = zeroize::Zeroizing::new(crate::rand::bytes::<32>()?);
        Ok(Self::from_os_bytes(&b))
    }

    /// λ from 32 bytes the caller drew from the OS CSPRNG (and uses for nothing else).
    /// The bytes reduced mod p are taken as λ's Montgomery form directly (a uniform value
    /// is as uniform in either form, and the conversion would cost a product); 0,
    /// probability about 2^-256, becomes the Montgomery 1 (the mixed addition needs
    /// Z != 0).
    pub(crate) fn from_os_bytes(b: &[u8; 32]) -> Self {
        let l = Fe::<C::F>::from_montgomery_bytes_reducing(b);
        ZBlind(Fe::conditional_select(&l, &Fe::ONE, l.is_zero()))
    }

    /// Another λ for a second multiplication of the same operation: λ², uniform among the
    /// nonzero squares and never 0, so that the two accumulators start on different Z.
    pub(crate) fn next(&self) -> Self {
        ZBlind(self.0.square())
    }

    /// The starting accumulator of the constant-time loops, standing for the point at
    /// infinity until the first nonzero digit (module documentation): (λ², λ³, λ), the
    /// affine pair (1, 1) on Z = λ. The fixed-window method doubles it up to 255 times
    /// before the first nonzero digit; Z stays nonzero, since the doublings of (1, 1) (a
    /// point of y² = x³ + ax + (-a), which the doubling formulas serve as they serve the
    /// curve) never meet y = 0 or infinity in that many steps
    /// (`placeholder_doublings_keep_z`) and scaling by λ commutes with them.
    fn start(&self) -> Jacobian<C> {
        let l = self.0;
        let l2 = l.square();
        Jacobian {
            x: l2,
            y: l2.mul(&l),
            z: l,
        }
    }
}

/// k·P with P's comb table, constant time in k (k < 2^256), blinded with λ from its own
/// draw ([`ZBlind::draw`]; fails only when the OS CSPRNG does). (The operations draw λ
/// with their other randomness and call [`mul_fixed_ct_blinded`].)
#[cfg(test)]
pub(crate) fn mul_fixed_ct<C: Curve>(table: &CombTable<C>, k: &Limbs) -> Result<Jacobian<C>> {
    Ok(mul_fixed_ct_blinded(table, k, &ZBlind::draw()?))
}

/// k·P with P's comb table, constant time in k (k < 2^256), the accumulator starting on
/// Z = λ of `blind`.
pub(crate) fn mul_fixed_ct_blinded<C: Curve>(
    table: &CombTable<C>,
    k: &Limbs,
    blind: &ZBlind<C>,
) -> Jacobian<C> {
    super::field::select_backend();
    let start = blind.start();
    #[cfg(target_arch = "x86_64")]
    if let Some(ops) = Sm2Asm::for_field::<C::F>() {
        return mul_fixed_ct_with(table, k, start, ops.split_double());
    }
    mul_fixed_ct_with(table, k, start, Dispatch)
}

#[inline(always)]
fn mul_fixed_ct_with<C: Curve, O: PointOps<C>>(
    table: &CombTable<C>,
    k: &Limbs,
    start: Jacobian<C>,
    ops: O,
) -> Jacobian<C> {
    const { assert!(order_above_2_252::<C>()) };
    let scan = Scan::active();
    let digits = recode::<COMB_WINDOWS>(k, COMB_W);
    // `acc` stands for infinity while `inf` is set (module documentation).
    let (mut acc, mut inf) = (start, Choice::from(1));
    for (i, &(abs, neg)) in digits.iter().enumerate() {
        // abs = 0 reads 1·2^(6i)·P, a real point for the masked-out addition.
        let q = scan.affine::<C, COMB_POINTS>(&table.rows[i].0, abs, neg);
        let (mut sum, same) = ops.add_mixed_blinded(&acc, inf, &q);
        if i == COMB_WINDOWS - 1 {
            // The one window where acc == q is possible (module documentation).
            sum = Jacobian::conditional_select(&sum, &ops.double(&acc), same);
        }
        let nonzero = !abs.ct_eq(&0);
        acc = Jacobian::conditional_select(&acc, &sum, nonzero);
        inf &= !nonzero;
    }
    Jacobian::conditional_select(&acc, &Jacobian::INFINITY, inf)
}

/// n > 2^252: the bound the doubling-free argument of the module documentation needs.
const fn order_above_2_252<C: Curve>() -> bool {
    <C::N as super::field::Modulus>::M[3] >> 60 != 0
}

/// k·P with P's comb table, variable time (public k only).
pub(crate) fn mul_fixed_vartime<C: Curve>(table: &CombTable<C>, k: &Limbs) -> Jacobian<C> {
    super::field::select_backend();
    let digits = recode::<COMB_WINDOWS>(k, COMB_W);
    let mut acc = Jacobian::<C>::INFINITY;
    for (i, &(abs, neg)) in digits.iter().enumerate() {
        if abs == 0 {
            continue;
        }
        let q = table.get_vartime(i, abs);
        let q = if bool::from(neg) { q.neg() } else { q };
        acc = acc.add_mixed_vartime(&q);
    }
    acc
}

/// k·P for a public point P (not at infinity) and a secret k, constant time in k,
/// blinded with λ from its own draw ([`ZBlind::draw`]; fails only when the OS CSPRNG does).
pub(crate) fn mul_var_ct<C: Curve>(p: &Affine<C>, k: &Limbs) -> Result<Jacobian<C>> {
    Ok(mul_var_ct_blinded(p, k, &ZBlind::draw()?))
}

/// k·P for a public point P (not at infinity) and a secret k, constant time in k, the
/// accumulator starting on Z = λ of `blind`.
///
/// The table 1P..16P is affine (everything in it depends on the public P only, so it is
/// built in variable time: co-Z additions and one inversion, [`multiples_vartime`]), so
/// that each of the 52 additions is a mixed one.
pub(crate) fn mul_var_ct_blinded<C: Curve>(
    p: &Affine<C>,
    k: &Limbs,
    blind: &ZBlind<C>,
) -> Jacobian<C> {
    let pts = multiples_vartime::<C, VAR_POINTS>(p);
    mul_var_table_ct(&VarRow(pts.map(|q| q.to_words())), k, blind)
}

/// k·P for P in Jacobian coordinates (public, not at infinity), constant time in k: the
/// same table as [`mul_var_ct`], from P made affine first (one variable-time inversion).
/// (The key exchange does this itself, with its own λ.)
#[cfg(test)]
pub(crate) fn mul_var_jacobian_ct<C: Curve>(pj: &Jacobian<C>, k: &Limbs) -> Result<Jacobian<C>> {
    mul_var_ct(&pj.to_affine_vartime(), k)
}

fn mul_var_table_ct<C: Curve>(table: &VarRow, k: &Limbs, blind: &ZBlind<C>) -> Jacobian<C> {
    super::field::select_backend();
    let start = blind.start();
    #[cfg(target_arch = "x86_64")]
    if let Some(ops) = Sm2Asm::for_field::<C::F>() {
        return mul_var_table_with(table, k, start, ops.split_double());
    }
    mul_var_table_with(table, k, start, Dispatch)
}

#[inline(always)]
fn mul_var_table_with<C: Curve, O: PointOps<C>>(
    row: &VarRow,
    k: &Limbs,
    start: Jacobian<C>,
    ops: O,
) -> Jacobian<C> {
    const { assert!(order_above_2_252::<C>()) };
    let scan = Scan::active();
    let digits = recode::<VAR_WINDOWS>(k, VAR_W);
    // `acc` stands for infinity while `inf` is set (module documentation); until then
    // the doublings run on the placeholder.
    let (mut acc, mut inf) = (start, Choice::from(1));
    for i in (0..VAR_WINDOWS).rev() {
        if i != VAR_WINDOWS - 1 {
            for _ in 0..VAR_W {
                acc = ops.double(&acc);
            }
        }
        let (abs, neg) = digits[i];
        // abs = 0 reads table[0] (1·P); that addition is discarded by mask below.
        let q = scan.affine::<C, VAR_POINTS>(&row.0, abs, neg);
        let (mut sum, same) = ops.add_mixed_blinded(&acc, inf, &q);
        if i == 0 {
            // The one step where acc == q is possible (module documentation).
            sum = Jacobian::conditional_select(&sum, &ops.double(&acc), same);
        }
        let nonzero = !abs.ct_eq(&0);
        acc = Jacobian::conditional_select(&acc, &sum, nonzero);
        inf &= !nonzero;
    }
    Jacobian::conditional_select(&acc, &Jacobian::INFINITY, inf)
}

/// Width-w NAF of k (public), least significant digit first.
fn wnaf(k: &Limbs, w: u32) -> [i16; 258] {
    let mut d = [0i16; 258];
    let mut x = [k[0], k[1], k[2], k[3], 0u64];
    let mut i = 0;
    while x.iter().any(|&l| l != 0) {
        if x[0] & 1 == 1 {
            let m = (x[0] & ((1 << w) - 1)) as i64;
            let z = if m >= 1 << (w - 1) { m - (1 << w) } else { m };
            d[i] = z as i16;
            // x -= z
            if z > 0 {
                let mut borrow = z as u64;
                for l in x.iter_mut() {
                    let (v, b) = l.overflowing_sub(borrow);
                    *l = v;
                    borrow = b as u64;
                    if borrow == 0 {
                        break;
                    }
                }
            } else {
                let mut carry = (-z) as u64;
                for l in x.iter_mut() {
                    let (v, c) = l.overflowing_add(carry);
                    *l = v;
                    carry = c as u64;
                    if carry == 0 {
                        break;
                    }
                }
            }
        }
        // x >>= 1
        for j in 0..5 {
            x[j] = (x[j] >> 1) | if j < 4 { x[j + 1] << 63 } else { 0 };
        }
        i += 1;
    }
    d
}

/// The odd multiples P, 3P, ..., 15P (Jacobian) for a width-5 wNAF.
fn odd_multiples<C: Curve>(p: &Affine<C>) -> [Jacobian<C>; 8] {
    let pj = p.to_jacobian();
    let p2 = pj.double();
    let mut odd = [pj; 8];
    for j in 1..8 {
        odd[j] = odd[j - 1].add_vartime(&p2);
    }
    odd
}

/// P + Q by `ops`, variable time (public points only).
#[inline(always)]
fn add_vt<C: Curve, O: PointOps<C>>(ops: O, p: &Jacobian<C>, q: &Jacobian<C>) -> Jacobian<C> {
    let (sum, same) = ops.add(p, q);
    if bool::from(same) {
        ops.double(p)
    } else {
        sum
    }
}

/// P + Q for affine Q by `ops`, variable time (public points only).
#[inline(always)]
fn add_mixed_vt<C: Curve, O: PointOps<C>>(ops: O, p: &Jacobian<C>, q: &Affine<C>) -> Jacobian<C> {
    let (sum, same) = ops.add_mixed(p, q);
    if bool::from(same) {
        ops.double(p)
    } else {
        sum
    }
}

/// v·P by width-5 wNAF, variable time (public v and P).
pub(crate) fn mul_wnaf_vartime<C: Curve>(p: &Affine<C>, v: &Limbs) -> Jacobian<C> {
    super::field::select_backend();
    #[cfg(target_arch = "x86_64")]
    if let Some(ops) = Sm2Asm::for_field::<C::F>() {
        return mul_wnaf_with(p, v, ops);
    }
    mul_wnaf_with(p, v, Dispatch)
}

#[inline(always)]
fn mul_wnaf_with<C: Curve, O: PointOps<C>>(p: &Affine<C>, v: &Limbs, ops: O) -> Jacobian<C> {
    // Jacobian odd multiples: the one caller (key exchange) has a 128-bit v, whose ~22
    // additions do not repay the inversion that an affine table costs (measured).
    let odd = odd_multiples(p);
    let digits = wnaf(v, 5);
    let pick = |d: i16| {
        let q = odd[usize::from(d.unsigned_abs()) / 2];
        if d < 0 {
            q.neg()
        } else {
            q
        }
    };
    let Some(top) = digits.iter().rposition(|&d| d != 0) else {
        return Jacobian::INFINITY;
    };
    // The top digit's point starts the chain (no doubling or addition at infinity).
    let mut acc = pick(digits[top]);
    for i in (0..top).rev() {
        acc = ops.double(&acc);
        if digits[i] != 0 {
            acc = add_vt(ops, &acc, &pick(digits[i]));
        }
    }
    acc
}

/// u·G + v·P, variable time (signature verification). `p_table` is P's comb table when
/// the public key was prepared: then both halves are combs (no doubling at all).
/// Otherwise one doubling chain serves both scalars (Straus / Shamir): v by width-5 wNAF
/// over P's odd multiples (made affine by one batched inversion), u by width-12 wNAF over
/// G's affine odd multiples ([`Curve::g_odd_table`]); every addition is a mixed one.
pub(crate) fn mul_double_vartime<C: Curve>(
    u: &Limbs,
    v: &Limbs,
    p: &Affine<C>,
    p_table: Option<&CombTable<C>>,
) -> Jacobian<C> {
    if let Some(t) = p_table {
        let ug = mul_fixed_vartime(C::g_table(), u);
        return ug.add_vartime(&mul_fixed_vartime(t, v));
    }
    super::field::select_backend();
    #[cfg(target_arch = "x86_64")]
    if let Some(ops) = Sm2Asm::for_field::<C::F>() {
        return mul_double_with(u, v, p, ops);
    }
    mul_double_with(u, v, p, Dispatch)
}

#[inline(always)]
fn mul_double_with<C: Curve, O: PointOps<C>>(
    u: &Limbs,
    v: &Limbs,
    p: &Affine<C>,
    ops: O,
) -> Jacobian<C> {
    let gt = C::g_odd_table();
    // P's odd multiples made affine with one (batched) inversion, so that each of the
    // ~43 additions of a v digit is a mixed addition: cheaper than those it replaces.
    let odd = batch_to_affine_vartime(&odd_multiples(p));
    let du = wnaf(u, super::curve::G_WNAF_W);
    let dv = wnaf(v, 5);
    let top = du
        .iter()
        .zip(dv.iter())
        .rposition(|(&a, &b)| a != 0 || b != 0);
    let Some(top) = top else {
        return Jacobian::INFINITY;
    };
    // The top digit's point starts the chain (no doubling or addition at infinity).
    let pick = |d: i16, table: &[Affine<C>]| {
        let q = table[usize::from(d.unsigned_abs()) / 2];
        if d < 0 {
            q.neg()
        } else {
            q
        }
    };
    let mut acc = if dv[top] != 0 {
        let a = pick(dv[top], &odd).to_jacobian();
        if du[top] != 0 {
            add_mixed_vt(ops, &a, &pick(du[top], gt))
        } else {
            a
        }
    } else {
        pick(du[top], gt).to_jacobian()
    };
    for i in (0..top).rev() {
        acc = ops.double(&acc);
        if dv[i] != 0 {
            acc = add_mixed_vt(ops, &acc, &pick(dv[i], &odd));
        }
        if du[i] != 0 {
            acc = add_mixed_vt(ops, &acc, &pick(du[i], gt));
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::super::curve::{ExampleCurve, Sm2p256};
    use super::super::field::Modulus;
    use super::*;

    /// Reference k·P: double-and-add-always with the complete addition (slow).
    fn mul_complete_ct<C: Curve>(p: &Jacobian<C>, k: &Limbs) -> Jacobian<C> {
        let mut acc = Jacobian::<C>::INFINITY;
        for i in (0..256).rev() {
            acc = acc.double();
            let s = acc.add_complete(p);
            let bit = Choice::from(((k[i / 64] >> (i % 64)) & 1) as u8);
            acc = Jacobian::conditional_select(&acc, &s, bit);
        }
        acc
    }

    fn n_minus<C: Curve>(m: u64) -> Limbs {
        let n = <C::N as Modulus>::M;
        let mut out = n;
        let mut borrow = m;
        for l in out.iter_mut() {
            let (v, b) = l.overflowing_sub(borrow);
            *l = v;
            borrow = b as u64;
        }
        out
    }

    /// The scalars next to 0 and n, where the last addition of the constant-time methods
    /// meets a doubling (k = n - 6 on sm2p256v1 in the fixed-window method): every method
    /// agrees with the reference.
    fn check_edges<C: Curve>() {
        let g = C::g();
        let t = C::g_table();
        let pj = g.to_jacobian().double().add_vartime(&g.to_jacobian().neg());
        for m in 1u64..=70 {
            for k in [[m, 0, 0, 0], n_minus::<C>(m)] {
                let want = mul_complete_ct(&g.to_jacobian(), &k).to_affine().unwrap();
                for (name, r) in [
                    ("fixed_ct", mul_fixed_ct(t, &k).unwrap()),
                    ("fixed_vartime", mul_fixed_vartime(t, &k)),
                    ("var_ct", mul_var_ct(&g, &k).unwrap()),
                    ("var_jacobian_ct", mul_var_jacobian_ct(&pj, &k).unwrap()),
                    ("wnaf_vartime", mul_wnaf_vartime(&g, &k)),
                ] {
                    let r = r.to_affine().unwrap();
                    assert!(
                        bool::from(r.x.ct_eq(&want.x) & r.y.ct_eq(&want.y)),
                        "{name}, {}, k = {k:x?}",
                        C::NAME
                    );
                }
            }
        }
    }

    #[test]
    fn scalar_mul_edges() {
        check_edges::<Sm2p256>();
        check_edges::<ExampleCurve>();
    }

    fn check<C: Curve>() {
        let g = C::g();
        assert!(bool::from(g.is_on_curve()));
        let t = C::g_table();
        // Naive reference: repeated addition for small k, and consistency for big k.
        let mut acc = Jacobian::<C>::INFINITY;
        for k in 1u64..40 {
            acc = acc.add_vartime(&g.to_jacobian());
            let a = acc.to_affine().unwrap();
            for r in [
                mul_fixed_ct(t, &[k, 0, 0, 0]).unwrap(),
                mul_fixed_vartime(t, &[k, 0, 0, 0]),
                mul_var_ct(&g, &[k, 0, 0, 0]).unwrap(),
                mul_var_jacobian_ct(
                    &g.to_jacobian().double().add_vartime(&g.to_jacobian().neg()),
                    &[k, 0, 0, 0],
                )
                .unwrap(),
                mul_wnaf_vartime(&g, &[k, 0, 0, 0]),
                mul_complete_ct(&g.to_jacobian(), &[k, 0, 0, 0]),
            ] {
                let r = r.to_affine().unwrap();
                assert!(bool::from(r.x.ct_eq(&a.x) & r.y.ct_eq(&a.y)), "k = {k}");
            }
        }
        let k: Limbs = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            0x1111222233334444,
            0x5555666677778888,
        ];
        let a = mul_complete_ct(&g.to_jacobian(), &k).to_affine().unwrap();
        for r in [
            mul_fixed_ct(t, &k).unwrap(),
            mul_fixed_vartime(t, &k),
            mul_var_ct(&g, &k).unwrap(),
            mul_wnaf_vartime(&g, &k),
        ] {
            let r = r.to_affine().unwrap();
            assert!(bool::from(r.x.ct_eq(&a.x) & r.y.ct_eq(&a.y)));
            assert!(bool::from(r.is_on_curve()));
        }
        // n·G = infinity.
        let n = <C::N as super::super::field::Modulus>::M;
        assert!(mul_fixed_ct(t, &n).unwrap().to_affine().is_none());
        assert!(mul_var_ct(&g, &n).unwrap().to_affine().is_none());
        assert!(mul_wnaf_vartime(&g, &n).to_affine().is_none());
    }

    /// u·G + v·P: the interleaved wNAF (one-shot keys) and the two combs (prepared keys)
    /// against the reference, for scalars at the edges (0, 1, n - m) and mixed widths,
    /// with P = G (the sums meet doublings and infinity) and another point.
    fn check_double<C: Curve>() {
        let g = C::g();
        let other = mul_complete_ct(&g.to_jacobian(), &[7, 0, 0, 0])
            .to_affine()
            .unwrap();
        let big: Limbs = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            0x1111222233334444,
            0x5555666677778888,
        ];
        let scalars = [
            [0u64; 4],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [255, 0, 0, 0],
            // The largest and smallest digits of the width-12 wNAF of u (±2047).
            [2047, 0, 0, 0],
            [2049, 0, 0, 0],
            n_minus::<C>(1),
            n_minus::<C>(2),
            n_minus::<C>(7),
            big,
            [0, 0, 0, 1 << 63],
        ];
        for p in [g, other] {
            let table = CombTable::new(&p);
            for u in &scalars {
                for v in &scalars {
                    let want = mul_complete_ct(&g.to_jacobian(), u)
                        .add_complete(&mul_complete_ct(&p.to_jacobian(), v));
                    for (name, r) in [
                        ("interleaved", mul_double_vartime(u, v, &p, None)),
                        ("combs", mul_double_vartime(u, v, &p, Some(&table))),
                    ] {
                        match (r.to_affine(), want.to_affine()) {
                            (None, None) => {}
                            (Some(a), Some(b)) => assert!(
                                bool::from(a.x.ct_eq(&b.x) & a.y.ct_eq(&b.y)),
                                "{name}, {}, u = {u:x?}, v = {v:x?}",
                                C::NAME
                            ),
                            _ => panic!("{name}: infinity mismatch, u = {u:x?}, v = {v:x?}"),
                        }
                    }
                }
            }
        }
    }

    /// The co-Z table builder against additions made affine one by one, for several
    /// points and table sizes, on every variant (the field code switches with it).
    fn check_multiples<C: Curve>() {
        let g = C::g();
        let other = mul_complete_ct(&g.to_jacobian(), &[0x1234_5678_9abc_def1, 5, 0, 0])
            .to_affine()
            .unwrap();
        for v in crate::cpu::variants() {
            crate::cpu::with_variant(v, || {
                for p in [g, other, other.neg()] {
                    let got = multiples_vartime::<C, 33>(&p);
                    let mut acc = p.to_jacobian();
                    for (j, q) in got.iter().enumerate() {
                        let want = acc.to_affine().unwrap();
                        assert_eq!(q.to_words(), want.to_words(), "{v} {} {j}", C::NAME);
                        acc = acc.add_vartime(&p.to_jacobian());
                    }
                    assert_eq!(multiples_vartime::<C, 1>(&p)[0].to_words(), p.to_words());
                    assert_eq!(
                        multiples_vartime::<C, 2>(&p)[1].to_words(),
                        got[1].to_words()
                    );
                }
            });
        }
        crate::sm2::field::select_backend();
    }

    #[test]
    fn multiples_agree_every_variant() {
        check_multiples::<Sm2p256>();
        check_multiples::<ExampleCurve>();
    }

    #[test]
    fn double_scalar_mul_agrees() {
        check_double::<Sm2p256>();
        check_double::<ExampleCurve>();
    }

    /// The scan of every variant against the portable scan and negation, for every entry
    /// number of both tables (0 included) and both signs, on real points (so the
    /// negation runs on values below p), for both curves.
    fn check_scans<C: Curve>() {
        use crate::cpu::{self, Backend};
        let g = C::g();
        let comb = CombTable::new(&g);
        let pj = g.to_jacobian().double().add_vartime(&g.to_jacobian().neg());
        // 1P..16P, each made affine on its own (the reference for `var_table`).
        let mut table = [pj.to_affine().unwrap(); VAR_POINTS];
        let mut acc = pj;
        for t in table.iter_mut().skip(1) {
            acc = acc.add_vartime(&pj);
            *t = acc.to_affine().unwrap();
        }
        let var = VarRow(
            multiples_vartime::<C, VAR_POINTS>(&pj.to_affine().unwrap()).map(|q| q.to_words()),
        );
        for (j, t) in table.iter().enumerate() {
            assert_eq!(var.0[j], t.to_words(), "{j}");
        }
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                let scan = Scan::active();
                // The variant really runs its own scan code.
                let kind = match scan {
                    Scan::Portable => Backend::Portable,
                    #[cfg(target_arch = "x86_64")]
                    Scan::Avx2(_) => Backend::Avx2,
                    #[cfg(target_arch = "x86_64")]
                    Scan::Avx512(_) => Backend::Avx512,
                };
                // Only x86-64 has SIMD scans; every other backend scans with the portable
                // code (SM2 is portable Rust on aarch64 and riscv64).
                let want = if cfg!(target_arch = "x86_64") {
                    v.backend()
                } else {
                    Backend::Portable
                };
                assert_eq!(kind, want, "{v}");
                for neg in [Choice::from(0), Choice::from(1)] {
                    for (w, row) in comb.rows.iter().enumerate().step_by(7) {
                        for abs in 0..=COMB_POINTS as u8 {
                            let want = row.0[usize::from(abs.max(1)) - 1];
                            let mut want = Affine::<C>::from_words(&want);
                            if bool::from(neg) {
                                want = want.neg();
                            }
                            let got = scan.affine::<C, COMB_POINTS>(&row.0, abs, neg);
                            assert_eq!(got.to_words(), want.to_words(), "{v} {w} {abs}");
                        }
                    }
                    for abs in 0..=VAR_POINTS as u8 {
                        let mut want = table[usize::from(abs.max(1)) - 1];
                        if bool::from(neg) {
                            want = want.neg();
                        }
                        let got = scan.affine::<C, VAR_POINTS>(&var.0, abs, neg);
                        assert_eq!(got.to_words(), want.to_words(), "{v} {abs}");
                    }
                }
                // The negation of 0 is 0 (as `Fe::neg`), of anything else p - y.
                let mut zero = Affine::<C>::ZERO;
                scan.neg_if::<C>(&mut zero.y, Choice::from(1));
                assert_eq!(zero.to_words(), [0; 8], "{v}");
            });
        }
    }

    #[test]
    fn scans_agree_on_every_variant() {
        check_scans::<Sm2p256>();
        check_scans::<ExampleCurve>();
    }

    /// Every method on every variant (the scans differ per backend) at the edge scalars.
    #[test]
    fn scalar_mul_edges_every_variant() {
        for v in crate::cpu::variants() {
            crate::cpu::with_variant(v, || {
                let g = Sm2p256::g();
                for k in [[1u64, 0, 0, 0], [33, 0, 0, 0], n_minus::<Sm2p256>(6)] {
                    let want = mul_complete_ct(&g.to_jacobian(), &k).to_affine().unwrap();
                    for r in [
                        mul_fixed_ct(Sm2p256::g_table(), &k).unwrap(),
                        mul_var_ct(&g, &k).unwrap(),
                    ] {
                        let r = r.to_affine().unwrap();
                        assert_eq!(r.to_words(), want.to_words(), "{v} {k:x?}");
                    }
                }
            });
        }
    }

    /// The constant-time methods start from a random placeholder (module documentation):
    /// two calls with the same scalar give different Jacobian coordinates, never Z = 1
    /// (what k = 1 left in the comb before), and the same affine point; k = 0 gives the
    /// point at infinity. On every variant (the loops are compiled per field code).
    #[test]
    fn scalar_mul_randomizes_z() {
        for v in crate::cpu::variants() {
            crate::cpu::with_variant(v, || {
                let g = Sm2p256::g();
                let t = Sm2p256::g_table();
                for k in [[1u64, 0, 0, 0], [0, 0, 0, 1 << 62], n_minus::<Sm2p256>(1)] {
                    let want = mul_complete_ct(&g.to_jacobian(), &k).to_affine().unwrap();
                    let runs: [fn(&Limbs) -> Jacobian<Sm2p256>; 2] = [
                        |k| mul_fixed_ct(Sm2p256::g_table(), k).unwrap(),
                        |k| mul_var_ct(&Sm2p256::g(), k).unwrap(),
                    ];
                    for (m, run) in runs.iter().enumerate() {
                        let (a, b) = (run(&k), run(&k));
                        assert_ne!(a.z.0, b.z.0, "{v} method {m} k = {k:x?}");
                        assert_ne!(a.z.0, Fe::<<Sm2p256 as Curve>::F>::ONE.0, "{v} {m}");
                        for r in [a, b] {
                            let r = r.to_affine().unwrap();
                            assert_eq!(r.to_words(), want.to_words(), "{v} {m} {k:x?}");
                        }
                    }
                }
                assert!(mul_fixed_ct(t, &[0; 4]).unwrap().to_affine().is_none());
                assert!(mul_var_ct(&g, &[0; 4]).unwrap().to_affine().is_none());
            });
        }
        crate::sm2::field::select_backend();
    }

    /// The placeholder (1, 1) of [`ZBlind::start`] (on Z = 1; λ scales every doubling
    /// alike) keeps Z != 0 through more doublings than the fixed-window method runs before
    /// its first digit (5 · 51), on both curves: the mixed addition needs Z != 0.
    fn check_placeholder<C: Curve>() {
        let mut p = Jacobian::<C> {
            x: Fe::ONE,
            y: Fe::ONE,
            z: Fe::ONE,
        };
        for i in 0..VAR_W * VAR_WINDOWS {
            p = p.double();
            assert!(!bool::from(p.z.is_zero()), "{} {i}", C::NAME);
        }
    }

    /// λ from caller bytes: never 0 (0 and p both become the Montgomery 1), taken as the
    /// Montgomery form as is, and the second λ of an operation is λ², different from λ.
    #[test]
    fn zblind_from_os_bytes_and_next() {
        let p_bytes = crate::sm2::field::limbs_to_be(&<<Sm2p256 as Curve>::F as Modulus>::M);
        for b in [[0u8; 32], p_bytes] {
            assert_eq!(
                ZBlind::<Sm2p256>::from_os_bytes(&b).0 .0,
                Fe::<<Sm2p256 as Curve>::F>::ONE.0
            );
        }
        let mut b = [0u8; 32];
        b[31] = 7;
        let l = ZBlind::<Sm2p256>::from_os_bytes(&b);
        assert_eq!(l.0 .0, [7, 0, 0, 0]);
        let l2 = l.next();
        assert_eq!(l2.0 .0, l.0.square().0);
        assert_ne!(l2.0 .0, l.0 .0);
        // The same k on two λ: the same point, different Z.
        let k = [5, 0, 0, 0];
        let a = mul_fixed_ct_blinded(Sm2p256::g_table(), &k, &l);
        let c = mul_fixed_ct_blinded(Sm2p256::g_table(), &k, &l2);
        assert_ne!(a.z.0, c.z.0);
        assert_eq!(
            a.to_affine().unwrap().to_words(),
            c.to_affine().unwrap().to_words()
        );
        let g = Sm2p256::g();
        let a = mul_var_ct_blinded(&g, &k, &l);
        let c = mul_var_ct_blinded(&g, &k, &l2);
        assert_ne!(a.z.0, c.z.0);
        assert_eq!(
            a.to_affine().unwrap().to_words(),
            c.to_affine().unwrap().to_words()
        );
    }

    #[test]
    fn placeholder_doublings_keep_z() {
        check_placeholder::<Sm2p256>();
        check_placeholder::<ExampleCurve>();
    }

    /// Random points and scalars: the constant-time fixed-window method against the
    /// double-and-add reference, on every variant. (`cargo test --release -- --ignored
    /// stress` runs many more rounds.)
    fn stress_var<C: Curve>(rounds: usize, seed: u64) {
        let mut s = seed;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for v in crate::cpu::variants() {
            crate::cpu::with_variant(v, || {
                for _ in 0..rounds {
                    let r = [next(), next(), next(), next() >> 1];
                    // Any 256-bit k: the top window digit takes 0, 1 and 2.
                    let k = [next(), next(), next(), next()];
                    let p = mul_fixed_vartime(C::g_table(), &r).to_affine().unwrap();
                    let want = mul_complete_ct(&p.to_jacobian(), &k).to_affine().unwrap();
                    let got = mul_var_ct(&p, &k).unwrap().to_affine().unwrap();
                    assert_eq!(got.to_words(), want.to_words(), "{v} r = {r:x?} k = {k:x?}");
                }
            });
        }
        crate::sm2::field::select_backend();
    }

    #[test]
    fn scalar_mul_random() {
        stress_var::<Sm2p256>(50, 1);
    }

    #[test]
    #[ignore]
    fn scalar_mul_random_stress() {
        stress_var::<Sm2p256>(20_000, 2);
    }

    #[test]
    fn scalar_mul_agrees() {
        check::<Sm2p256>();
        check::<ExampleCurve>();
    }
}
