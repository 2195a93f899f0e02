//! GT, the order-N subgroup of Fp12^*: constant-time exponentiation (fixed 4-bit windows
//! with cyclotomic squarings and masked table reads) and a fixed-base table for the
//! per-master-key values g = e(P1, Ppub-s) and e(Ppub-e, P2).

use super::fp12::Fp12;
use subtle::{ConditionallySelectable, ConstantTimeEq};

#[inline]
fn select(table: &[Fp12; 16], d: u8) -> Fp12 {
    let mut r = Fp12::ONE;
    for (j, t) in table.iter().enumerate() {
        r.conditional_assign(t, (j as u8).ct_eq(&d));
    }
    r
}

fn window_table(g: &Fp12) -> [Fp12; 16] {
    let mut t = [Fp12::ONE; 16];
    t[1] = *g;
    for i in 2..16 {
        t[i] = if i % 2 == 0 {
            t[i / 2].cyclotomic_square()
        } else {
            t[i - 1].mul(g)
        };
    }
    t
}

/// lambda = p mod N = 6t^2 (128 bits), little-endian limbs. On GT the p-power Frobenius
/// is the exponentiation by p, that is by lambda: g^lambda = frobenius(g).
const LAMBDA: [u64; 2] = [0x0000_b98b_0cb2_7658, 0xd800_0000_0190_62ed];

/// Splits k < 2^256 as k = k0 + k1 lambda with 0 <= k0 < lambda (so k0 < 2^128 and
/// k1 < 2^129), by binary long division with a fixed number of steps and masked
/// updates: constant time in k.
fn split_lambda(k: &[u64; 4]) -> ([u64; 3], [u64; 3]) {
    let mut rem = [k[0], k[1], k[2], k[3], 0u64];
    let mut q = [0u64; 3];
    for i in (0..=128usize).rev() {
        // s = lambda << i (at most 2^256 + ..., five limbs); i is public.
        let (w, b) = (i / 64, i % 64);
        let mut s = [0u64; 5];
        s[w] = LAMBDA[0] << b;
        s[w + 1] = if b == 0 {
            LAMBDA[1]
        } else {
            (LAMBDA[1] << b) | (LAMBDA[0] >> (64 - b))
        };
        if b != 0 {
            s[w + 2] = LAMBDA[1] >> (64 - b);
        }
        // d = rem - s; keep it when there is no borrow.
        let mut d = [0u64; 5];
        let mut borrow = 0u64;
        for j in 0..5 {
            let (v, br) = super::fp::sbb(rem[j], s[j], borrow);
            d[j] = v;
            borrow = br;
        }
        let take = borrow ^ 1; // 1 if rem >= s
        let mask = 0u64.wrapping_sub(take);
        for j in 0..5 {
            rem[j] = (d[j] & mask) | (rem[j] & !mask);
        }
        q[w] |= take << b;
    }
    ([rem[0], rem[1], 0], q)
}

/// g^k for g in GT and a secret k < 2^256 (constant time in k).
///
/// k is split as k0 + k1 lambda (lambda = p mod N, [`split_lambda`]) and
/// g^k = g^k0 frobenius(g)^k1 is computed as a two-base product with fixed 4-bit windows:
/// 33 windows of 4 cyclotomic squarings and two multiplications by masked table reads
/// (132 squarings instead of 256).
pub fn pow_ct(g: &Fp12, k: &[u64; 4]) -> Fp12 {
    super::select_backend();
    let (k0, k1) = split_lambda(k);
    let t0 = window_table(g);
    let mut t1 = [Fp12::ONE; 16];
    for (a, b) in t1.iter_mut().zip(t0.iter()) {
        *a = b.frobenius();
    }
    let mut r = Fp12::ONE;
    for i in (0..33).rev() {
        if i != 32 {
            r = r
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square();
        }
        let d0 = ((k0[i / 16] >> ((i % 16) * 4)) & 15) as u8;
        let d1 = ((k1[i / 16] >> ((i % 16) * 4)) & 15) as u8;
        r = r.mul(&select(&t0, d0)).mul(&select(&t1, d1));
    }
    r
}

/// g^k by the plain 4-bit fixed-window ladder over all 256 bits of k (the reference for
/// [`pow_ct`] in the tests).
#[cfg(test)]
pub(crate) fn pow_ct_plain(g: &Fp12, k: &[u64; 4]) -> Fp12 {
    let table = window_table(g);
    let mut r = Fp12::ONE;
    for i in (0..64).rev() {
        r = r
            .cyclotomic_square()
            .cyclotomic_square()
            .cyclotomic_square()
            .cyclotomic_square();
        let d = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u8;
        r = r.mul(&select(&table, d));
    }
    r
}

/// Signed 5-bit recoding of k < 2^256: 52 digits d_i in [-16, 16] with
/// k = sum d_i 32^i, returned as (|d_i|, sign bit), computed without branches.
fn recode_signed5(k: &[u64; 4]) -> [(u8, u8); 52] {
    let mut out = [(0u8, 0u8); 52];
    let mut carry = 0u32;
    for (i, o) in out.iter_mut().enumerate() {
        let bit = 5 * i;
        let limb = bit / 64;
        let off = bit % 64;
        let mut w = (k[limb] >> off) as u32;
        if off > 59 && limb + 1 < 4 {
            w |= (k[limb + 1] << (64 - off)) as u32;
        }
        let w = (w & 31) + carry;
        // w in [0, 32]; if w > 16: digit w - 32 (negative), carry 1.
        let neg = (16u32.wrapping_sub(w) >> 31) & 1;
        let mag = (w ^ (0u32.wrapping_sub(neg) & (w ^ 32u32.wrapping_sub(w)))) as u8;
        *o = (mag, neg as u8);
        carry = neg;
    }
    out
}

/// A fixed-base table for g^k: 52 tables of g^(j 32^i), j = 0..16 (340 KiB); digits are
/// signed (g^-x = conj(g^x) in GT).
pub struct GtTable {
    tables: Vec<[Fp12; 17]>,
}

impl GtTable {
    pub fn new(g: &Fp12) -> Self {
        super::select_backend();
        let mut tables = Vec::with_capacity(52);
        let mut b = *g;
        for _ in 0..52 {
            let mut t = [Fp12::ONE; 17];
            t[1] = b;
            for j in 2..17 {
                t[j] = if j % 2 == 0 {
                    t[j / 2].cyclotomic_square()
                } else {
                    t[j - 1].mul(&b)
                };
            }
            tables.push(t);
            for _ in 0..5 {
                b = b.cyclotomic_square();
            }
        }
        Self { tables }
    }

    /// g^k, constant time in k: 52 multiplications with masked table reads.
    pub fn pow(&self, k: &[u64; 4]) -> Fp12 {
        super::select_backend();
        let digits = recode_signed5(k);
        let mut r = Fp12::ONE;
        for (t, &(mag, neg)) in self.tables.iter().zip(digits.iter()) {
            let mut e = Fp12::ONE;
            for (j, x) in t.iter().enumerate() {
                e.conditional_assign(x, (j as u8).ct_eq(&mag));
            }
            let ec = e.conj();
            e.conditional_assign(&ec, subtle::Choice::from(neg));
            r = r.mul(&e);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::super::fp::Fn;
    use super::super::{consts, pairing, N};
    use super::*;

    /// k = k0 + k1 lambda with k0 < lambda, for edge and arbitrary k, recomputed with u128s.
    #[test]
    fn split_lambda_is_exact() {
        let lam = (LAMBDA[1] as u128) << 64 | LAMBDA[0] as u128;
        let lam_minus_1 = lam - 1;
        for k in [
            [0u64; 4],
            [1, 0, 0, 0],
            [LAMBDA[0], LAMBDA[1], 0, 0],
            [lam_minus_1 as u64, (lam_minus_1 >> 64) as u64, 0, 0],
            N,
            [u64::MAX; 4],
            [
                0x1234_5678_9abc_def0,
                0x0fed_cba9_8765_4321,
                0xf0f0_f0f0_0f0f_0f0f,
                0x8000_0000_0000_0001,
            ],
        ] {
            let (k0, k1) = split_lambda(&k);
            assert_eq!(k0[2], 0);
            let k0 = (k0[1] as u128) << 64 | k0[0] as u128;
            assert!(k0 < lam);
            // k1 * lambda + k0 as 5 limbs.
            let mut acc = [0u64; 6];
            for (i, &a) in k1.iter().enumerate() {
                let mut c = 0u128;
                for (j, &b) in LAMBDA.iter().enumerate() {
                    let v = (a as u128) * (b as u128) + acc[i + j] as u128 + c;
                    acc[i + j] = v as u64;
                    c = v >> 64;
                }
                let mut m = i + 2;
                while c != 0 {
                    let v = acc[m] as u128 + c;
                    acc[m] = v as u64;
                    c = v >> 64;
                    m += 1;
                }
            }
            let mut c = k0;
            for limb in acc.iter_mut() {
                let v = *limb as u128 + (c as u64) as u128;
                *limb = v as u64;
                c = (c >> 64) + (v >> 64);
            }
            assert_eq!(&acc[..4], &k[..], "{k:x?}");
            assert_eq!(&acc[4..], &[0, 0]);
        }
    }

    /// The split two-base exponentiation agrees with the plain ladder on GT elements,
    /// for exponents below and above N.
    #[test]
    fn pow_ct_matches_plain_ladder() {
        let g = pairing::pairing(&consts().p1, &consts().p2);
        let h = pairing::pairing(
            &super::super::p1().double().to_affine().unwrap(),
            &consts().p2,
        );
        for k in [
            [0u64; 4],
            [1, 0, 0, 0],
            [LAMBDA[0], LAMBDA[1], 0, 0],
            N,
            [N[0] - 1, N[1], N[2], N[3]],
            [u64::MAX; 4],
            Fn::from_u64(0x5eed).invert().to_raw(),
        ] {
            assert_eq!(pow_ct(&g, &k), pow_ct_plain(&g, &k), "{k:x?}");
            assert_eq!(pow_ct(&h, &k), pow_ct_plain(&h, &k), "{k:x?}");
            assert_eq!(pow_ct(&g, &k), g.cyclotomic_pow_vartime(&k), "{k:x?}");
        }
    }

    #[test]
    fn recode_signed5_is_exact() {
        for k in [
            [0u64, 0, 0, 0],
            [u64::MAX; 4],
            [
                0x1234_5678_9abc_def0,
                0x0fed_cba9_8765_4321,
                0xf0f0_f0f0_0f0f_0f0f,
                0xb640_0000_02a3_a6f1,
            ],
            [31, 16, 17, 0x8000_0000_0000_0000],
        ] {
            let d = super::recode_signed5(&k);
            // Recompute sum d_i 32^i as a 4-limb value mod 2^256 (plus the top carry, which must vanish).
            let mut acc = [0u128; 5];
            for (i, &(mag, neg)) in d.iter().enumerate().rev() {
                // acc = acc * 32 + d
                let mut c: i128 = if neg == 1 {
                    -(mag as i128)
                } else {
                    mag as i128
                };
                for limb in acc.iter_mut() {
                    let v = (*limb as i128) * 32 + c;
                    *limb = (v.rem_euclid(1i128 << 64)) as u128;
                    c = v.div_euclid(1i128 << 64);
                }
                let _ = i;
            }
            assert_eq!(
                [acc[0] as u64, acc[1] as u64, acc[2] as u64, acc[3] as u64],
                k
            );
            assert_eq!(acc[4], 0);
        }
    }
}
