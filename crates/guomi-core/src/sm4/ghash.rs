//! GHASH (NIST SP 800-38D §6.4) for SM4-GCM: portable constant-time multiplication, and
//! dispatch to the carry-less-multiply backends (PCLMULQDQ, VPCLMULQDQ).

use crate::cpu::Backend;
use zeroize::Zeroize;

/// §6.3 multiplication in GF(2^128) in the GCM bit order (bit 0 = MSB of byte 0), as a
/// fixed sequence of 128 masked steps: no branch or table depends on the operands.
fn gf128_mul(x: u128, h: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let mut z = 0u128;
    let mut v = h;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1;
        z ^= v & 0u128.wrapping_sub(bit);
        let lsb = v & 1;
        v = (v >> 1) ^ (R & 0u128.wrapping_sub(lsb));
    }
    z
}

/// A GHASH key: the hash subkey H = E_K(0^128) and, for the SIMD backends, its powers.
#[derive(Clone)]
pub(crate) struct GhashKey {
    backend: Backend,
    h: u128,
    /// H^1..H^16 in the backend's carry-less-multiply representation (x86 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    powers: [[u64; 2]; 16],
}

impl Drop for GhashKey {
    fn drop(&mut self) {
        self.h = 0;
        self.powers.zeroize();
    }
}

impl GhashKey {
    pub(crate) fn new(h: [u8; 16], backend: Backend) -> GhashKey {
        #[allow(unused_mut)]
        let mut powers = [[0u64; 2]; 16];
        #[cfg(target_arch = "x86_64")]
        if backend >= Backend::Avx2 {
            super::x86_avx2::ghash_powers(&h, &mut powers);
        }
        GhashKey {
            backend,
            h: u128::from_be_bytes(h),
            powers,
        }
    }

    /// Absorbs `data` (whole blocks) into `y`.
    pub(crate) fn update_blocks(&self, y: &mut [u8; 16], data: &[u8]) {
        debug_assert!(data.len() % 16 == 0);
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => super::x86_avx512::ghash(&self.powers, y, data),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => super::x86_avx2::ghash(&self.powers, y, data),
            _ => {
                let mut acc = u128::from_be_bytes(*y);
                for b in data.chunks_exact(16) {
                    acc ^= u128::from_be_bytes(b.try_into().unwrap());
                    acc = gf128_mul(acc, self.h);
                }
                *y = acc.to_be_bytes();
            }
        }
    }

    /// Absorbs `data`, zero-padding a final partial block.
    pub(crate) fn update_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        let whole = data.len() / 16 * 16;
        self.update_blocks(y, &data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(y, &last);
            last.zeroize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu;

    #[test]
    fn backends_agree_on_ghash() {
        let h = hex::decode("66e94bd4ef8a2c3b884cfa59ca342b2e")
            .unwrap()
            .try_into()
            .unwrap();
        let data: Vec<u8> = (0..16 * 70).map(|i| (i * 31 + 7) as u8).collect();
        let reference = {
            let k = GhashKey::new(h, Backend::Portable);
            let mut out = Vec::new();
            for n in 0..70 {
                let mut y = [0x5au8; 16];
                k.update_blocks(&mut y, &data[..16 * n]);
                out.push(y);
            }
            out
        };
        // GCM spec test case 2 (AES): GHASH(H, {}, C) with one block gives a known value.
        for b in cpu::available() {
            let k = GhashKey::new(h, b);
            for n in 0..70 {
                let mut y = [0x5au8; 16];
                k.update_blocks(&mut y, &data[..16 * n]);
                assert_eq!(y, reference[n], "{b:?} n={n}");
            }
        }
    }

    #[test]
    fn gf128_known_product() {
        // From the GCM specification (McGrew–Viega), AES test case 2:
        // H = 66e94bd4ef8a2c3b884cfa59ca342b2e, C = 0388dace60b6a392f328c2b971b2fe78,
        // GHASH(H, {}, C) = f38cbb1ad69223dcc3457ae5b6b0f885.
        let h = u128::from_str_radix("66e94bd4ef8a2c3b884cfa59ca342b2e", 16).unwrap();
        let c = u128::from_str_radix("0388dace60b6a392f328c2b971b2fe78", 16).unwrap();
        let len = 128u128; // len(A) = 0, len(C) = 128 bits
        let x1 = gf128_mul(c, h);
        let x2 = gf128_mul(x1 ^ len, h);
        assert_eq!(
            x2,
            u128::from_str_radix("f38cbb1ad69223dcc3457ae5b6b0f885", 16).unwrap()
        );
    }
}
