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

/// g^k for g in GT and a secret k < 2^256 (constant time in k).
pub fn pow_ct(g: &Fp12, k: &[u64; 4]) -> Fp12 {
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
