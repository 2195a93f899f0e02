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

/// A fixed-base table for g^k: 64 tables of g^(j 16^i), j = 0..15 (384 KiB).
pub struct GtTable {
    tables: Vec<[Fp12; 16]>,
}

impl GtTable {
    pub fn new(g: &Fp12) -> Self {
        let mut tables = Vec::with_capacity(64);
        let mut b = *g;
        for _ in 0..64 {
            tables.push(window_table(&b));
            b = b
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square();
        }
        Self { tables }
    }

    /// g^k, constant time in k: 64 multiplications.
    pub fn pow(&self, k: &[u64; 4]) -> Fp12 {
        let mut r = Fp12::ONE;
        for (i, t) in self.tables.iter().enumerate() {
            let d = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u8;
            r = r.mul(&select(t, d));
        }
        r
    }
}
