//! The ZUC keystream generator (GM/T 0001.1-2012 §3 / GB/T 33133.1-2016; ETSI/SAGE
//! 128-EEA3 & 128-EIA3 Document 2 §3), written once over an [`Fsm`] so that every
//! backend shares the LFSR, the bit reorganization and the initialization schedule and
//! differs only in how the nonlinear function F (and its S-boxes) is computed.
//!
//! ZUC-256 (ZUC-256 stream cipher, Team ZUC 2018) uses the same generator with another
//! key loading (see `zuc256.rs`).

use zeroize::Zeroize;

/// §3.5 / Document 2 §3.5.1: the 15-bit constants d_i of ZUC-128 key loading.
pub(crate) const D128: [u32; 16] = [
    0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1,
    0x5e26, 0x3c4d, 0x789a, 0x47ac,
];

/// 2^31 - 1, the LFSR modulus.
const P31: u64 = 0x7fff_ffff;

/// The linear transforms L1 and L2 of F (§3.4).
#[inline(always)]
pub(crate) fn l1(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}

#[inline(always)]
pub(crate) fn l2(x: u32) -> u32 {
    x ^ x.rotate_left(8) ^ x.rotate_left(14) ^ x.rotate_left(22) ^ x.rotate_left(30)
}

/// The finite-state machine F (§3.4): registers R1, R2 and how they are updated. A
/// backend chooses the representation (two scalars, or two lanes of a SIMD register).
pub(crate) trait Fsm: Copy {
    fn from_regs(r1: u32, r2: u32) -> Self;
    fn regs(self) -> (u32, u32);
    /// §3.4 F, output: W = (X0 ⊕ R1) ⊞ R2.
    fn w(self, x0: u32) -> u32;
    /// §3.4 F, update: W1 = R1 ⊞ X1, W2 = R2 ⊕ X2,
    /// R1 = S(L1(W1L ∥ W2H)), R2 = S(L2(W2L ∥ W1H)).
    fn next(self, x1: u32, x2: u32) -> Self;
    /// Announces X2 of the next round, for [`Fsm::next_ahead`]: a backend may fold it
    /// into the register it XORs with (off F's critical path).
    #[inline(always)]
    fn ahead(self, _x2: u32) -> Self {
        self
    }
    /// `next(x1, x2)`, also told X2 of the round after this one. Called only on a value
    /// returned by `ahead(x2)` or `next_ahead(_, _, x2)` with this round's `x2`.
    #[inline(always)]
    fn next_ahead(self, x1: u32, x2: u32, _x2_next: u32) -> Self {
        self.next(x1, x2)
    }
    /// Called after each working-mode round; backends may keep the compiler from
    /// regrouping the rounds' scalar and vector work (see `x86_avx512`).
    #[inline(always)]
    fn round_barrier() {}
}

/// The generator state: LFSR cells s0..s15 (31-bit values in [1, 2^31 - 1]) and R1, R2.
#[derive(Clone, Default)]
pub(crate) struct State {
    pub(crate) s: [u32; 16],
    pub(crate) r1: u32,
    pub(crate) r2: u32,
}

impl Zeroize for State {
    fn zeroize(&mut self) {
        self.s.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// §3.6.1 key loading of ZUC-128: s_i = k_i ∥ d_i ∥ iv_i.
pub(crate) fn load_128(key: &[u8; 16], iv: &[u8; 16]) -> State {
    let mut st = State::default();
    for i in 0..16 {
        st.s[i] = (u32::from(key[i]) << 23) | (D128[i] << 8) | u32::from(iv[i]);
    }
    st
}

/// §3.2 feedback value of the LFSR:
/// 2^15·s15 + 2^17·s13 + 2^21·s10 + 2^20·s4 + (1 + 2^8)·s0 mod (2^31 - 1), plus `u`
/// (the initialization-mode input; 0 in working mode). A result of 0 cannot occur
/// (the cells are never 0), and 2^31 - 1 stands for 0 as the standard requires.
#[inline(always)]
pub(crate) fn feedback(s0: u32, s4: u32, s10: u32, s13: u32, s15: u32, u: u32) -> u32 {
    let v = (u64::from(s15) << 15)
        + (u64::from(s13) << 17)
        + (u64::from(s10) << 21)
        + (u64::from(s4) << 20)
        + (u64::from(s0) << 8)
        + u64::from(s0)
        + u64::from(u);
    let v = (v & P31) + (v >> 31);
    let v = (v & P31) + (v >> 31);
    v as u32
}

/// §3.3 bit reorganization of cells (s15, s14, s11, s9, s7, s5, s2, s0) -> X0..X3.
#[inline(always)]
fn reorganize(s: &[u32; 16], t: usize) -> (u32, u32, u32, u32) {
    let c = |k: usize| s[(t + k) & 15];
    let x0 = ((c(15) & 0x7fff_8000) << 1) | (c(14) & 0xffff);
    let x1 = (c(11) << 16) | (c(9) >> 15);
    let x2 = x2_at(s, t);
    let x3 = (c(2) << 16) | (c(0) >> 15);
    (x0, x1, x2, x3)
}

/// X2 of the bit reorganization at round `t` (cells s7, s5), as in [`reorganize`].
#[inline(always)]
fn x2_at(s: &[u32; 16], t: usize) -> u32 {
    (s[(t + 7) & 15] << 16) | (s[(t + 5) & 15] >> 15)
}

/// §3.6.1 initialization: 32 rounds of BitReorganization, F and LFSRWithInitialisationMode(W >> 1),
/// then §3.6.2 the first working-mode round whose output is discarded. The 32 rounds
/// run as two turns of 16 with the LFSR addressed circularly (no shifting).
#[inline(always)]
pub(crate) fn init<F: Fsm>(st: &mut State) {
    let mut f = F::from_regs(0, 0);
    let s = &mut st.s;
    for _ in 0..2 {
        macro_rules! round {
            ($t:expr) => {{
                let (x0, x1, x2, _) = reorganize(s, $t);
                let w = f.w(x0);
                f = f.next(x1, x2);
                let c = |k: usize| s[($t + k) & 15];
                s[$t] = feedback(c(0), c(4), c(10), c(13), c(15), w >> 1);
                F::round_barrier();
            }};
        }
        round!(0);
        round!(1);
        round!(2);
        round!(3);
        round!(4);
        round!(5);
        round!(6);
        round!(7);
        round!(8);
        round!(9);
        round!(10);
        round!(11);
        round!(12);
        round!(13);
        round!(14);
        round!(15);
    }
    let (_, x1, x2, _) = reorganize(s, 0);
    f = f.next(x1, x2);
    let v = feedback(s[0], s[4], s[10], s[13], s[15], 0);
    s.copy_within(1..16, 0);
    s[15] = v;
    (st.r1, st.r2) = f.regs();
}

/// §3.6.2 working mode: one keystream word Z = X3 ⊕ W per round. Whole groups of 16
/// rounds run with the LFSR addressed circularly (no shifting), the rest one by one.
#[inline(always)]
pub(crate) fn generate<F: Fsm>(st: &mut State, out: &mut [u32]) {
    let mut f = F::from_regs(st.r1, st.r2);
    let s = &mut st.s;
    let mut blocks = out.chunks_exact_mut(16);
    if blocks.len() > 0 {
        f = f.ahead(x2_at(s, 0));
    }
    for block in &mut blocks {
        // A fixed-size view: no bounds checks in the rounds.
        let block: &mut [u32; 16] = block.try_into().expect("chunks of 16");
        macro_rules! round {
            ($t:expr) => {{
                let (x0, x1, x2, x3) = reorganize(s, $t);
                block[$t] = f.w(x0) ^ x3;
                // X2 of round t + 1 reads cells t + 8 and t + 6, which this round's
                // feedback (cell t) does not change.
                f = f.next_ahead(x1, x2, x2_at(s, $t + 1));
                let c = |k: usize| s[($t + k) & 15];
                s[$t] = feedback(c(0), c(4), c(10), c(13), c(15), 0);
                F::round_barrier();
            }};
        }
        round!(0);
        round!(1);
        round!(2);
        round!(3);
        round!(4);
        round!(5);
        round!(6);
        round!(7);
        round!(8);
        round!(9);
        round!(10);
        round!(11);
        round!(12);
        round!(13);
        round!(14);
        round!(15);
    }
    for z in blocks.into_remainder() {
        let (x0, x1, x2, x3) = reorganize(s, 0);
        *z = f.w(x0) ^ x3;
        f = f.next(x1, x2);
        let v = feedback(s[0], s[4], s[10], s[13], s[15], 0);
        s.copy_within(1..16, 0);
        s[15] = v;
    }
    (st.r1, st.r2) = f.regs();
}

/// The reference S-boxes S0 and S1 as printed in GM/T 0001.1-2012 §3.4 (also ETSI/SAGE
/// Document 2 §3.4.2). No backend indexes these with secret data: tests check the
/// constant-time S-box computations against them, and the aarch64 NEON lanes load S1
/// whole into registers for `TBL` lookups (no memory access depends on the data).
#[cfg(any(test, target_arch = "aarch64"))]
pub(crate) mod tables {
    #[cfg(test)]
    pub(crate) const S0: [u8; 256] = [
        0x3e, 0x72, 0x5b, 0x47, 0xca, 0xe0, 0x00, 0x33, 0x04, 0xd1, 0x54, 0x98, 0x09, 0xb9, 0x6d,
        0xcb, 0x7b, 0x1b, 0xf9, 0x32, 0xaf, 0x9d, 0x6a, 0xa5, 0xb8, 0x2d, 0xfc, 0x1d, 0x08, 0x53,
        0x03, 0x90, 0x4d, 0x4e, 0x84, 0x99, 0xe4, 0xce, 0xd9, 0x91, 0xdd, 0xb6, 0x85, 0x48, 0x8b,
        0x29, 0x6e, 0xac, 0xcd, 0xc1, 0xf8, 0x1e, 0x73, 0x43, 0x69, 0xc6, 0xb5, 0xbd, 0xfd, 0x39,
        0x63, 0x20, 0xd4, 0x38, 0x76, 0x7d, 0xb2, 0xa7, 0xcf, 0xed, 0x57, 0xc5, 0xf3, 0x2c, 0xbb,
        0x14, 0x21, 0x06, 0x55, 0x9b, 0xe3, 0xef, 0x5e, 0x31, 0x4f, 0x7f, 0x5a, 0xa4, 0x0d, 0x82,
        0x51, 0x49, 0x5f, 0xba, 0x58, 0x1c, 0x4a, 0x16, 0xd5, 0x17, 0xa8, 0x92, 0x24, 0x1f, 0x8c,
        0xff, 0xd8, 0xae, 0x2e, 0x01, 0xd3, 0xad, 0x3b, 0x4b, 0xda, 0x46, 0xeb, 0xc9, 0xde, 0x9a,
        0x8f, 0x87, 0xd7, 0x3a, 0x80, 0x6f, 0x2f, 0xc8, 0xb1, 0xb4, 0x37, 0xf7, 0x0a, 0x22, 0x13,
        0x28, 0x7c, 0xcc, 0x3c, 0x89, 0xc7, 0xc3, 0x96, 0x56, 0x07, 0xbf, 0x7e, 0xf0, 0x0b, 0x2b,
        0x97, 0x52, 0x35, 0x41, 0x79, 0x61, 0xa6, 0x4c, 0x10, 0xfe, 0xbc, 0x26, 0x95, 0x88, 0x8a,
        0xb0, 0xa3, 0xfb, 0xc0, 0x18, 0x94, 0xf2, 0xe1, 0xe5, 0xe9, 0x5d, 0xd0, 0xdc, 0x11, 0x66,
        0x64, 0x5c, 0xec, 0x59, 0x42, 0x75, 0x12, 0xf5, 0x74, 0x9c, 0xaa, 0x23, 0x0e, 0x86, 0xab,
        0xbe, 0x2a, 0x02, 0xe7, 0x67, 0xe6, 0x44, 0xa2, 0x6c, 0xc2, 0x93, 0x9f, 0xf1, 0xf6, 0xfa,
        0x36, 0xd2, 0x50, 0x68, 0x9e, 0x62, 0x71, 0x15, 0x3d, 0xd6, 0x40, 0xc4, 0xe2, 0x0f, 0x8e,
        0x83, 0x77, 0x6b, 0x25, 0x05, 0x3f, 0x0c, 0x30, 0xea, 0x70, 0xb7, 0xa1, 0xe8, 0xa9, 0x65,
        0x8d, 0x27, 0x1a, 0xdb, 0x81, 0xb3, 0xa0, 0xf4, 0x45, 0x7a, 0x19, 0xdf, 0xee, 0x78, 0x34,
        0x60,
    ];
    pub(crate) const S1: [u8; 256] = [
        0x55, 0xc2, 0x63, 0x71, 0x3b, 0xc8, 0x47, 0x86, 0x9f, 0x3c, 0xda, 0x5b, 0x29, 0xaa, 0xfd,
        0x77, 0x8c, 0xc5, 0x94, 0x0c, 0xa6, 0x1a, 0x13, 0x00, 0xe3, 0xa8, 0x16, 0x72, 0x40, 0xf9,
        0xf8, 0x42, 0x44, 0x26, 0x68, 0x96, 0x81, 0xd9, 0x45, 0x3e, 0x10, 0x76, 0xc6, 0xa7, 0x8b,
        0x39, 0x43, 0xe1, 0x3a, 0xb5, 0x56, 0x2a, 0xc0, 0x6d, 0xb3, 0x05, 0x22, 0x66, 0xbf, 0xdc,
        0x0b, 0xfa, 0x62, 0x48, 0xdd, 0x20, 0x11, 0x06, 0x36, 0xc9, 0xc1, 0xcf, 0xf6, 0x27, 0x52,
        0xbb, 0x69, 0xf5, 0xd4, 0x87, 0x7f, 0x84, 0x4c, 0xd2, 0x9c, 0x57, 0xa4, 0xbc, 0x4f, 0x9a,
        0xdf, 0xfe, 0xd6, 0x8d, 0x7a, 0xeb, 0x2b, 0x53, 0xd8, 0x5c, 0xa1, 0x14, 0x17, 0xfb, 0x23,
        0xd5, 0x7d, 0x30, 0x67, 0x73, 0x08, 0x09, 0xee, 0xb7, 0x70, 0x3f, 0x61, 0xb2, 0x19, 0x8e,
        0x4e, 0xe5, 0x4b, 0x93, 0x8f, 0x5d, 0xdb, 0xa9, 0xad, 0xf1, 0xae, 0x2e, 0xcb, 0x0d, 0xfc,
        0xf4, 0x2d, 0x46, 0x6e, 0x1d, 0x97, 0xe8, 0xd1, 0xe9, 0x4d, 0x37, 0xa5, 0x75, 0x5e, 0x83,
        0x9e, 0xab, 0x82, 0x9d, 0xb9, 0x1c, 0xe0, 0xcd, 0x49, 0x89, 0x01, 0xb6, 0xbd, 0x58, 0x24,
        0xa2, 0x5f, 0x38, 0x78, 0x99, 0x15, 0x90, 0x50, 0xb8, 0x95, 0xe4, 0xd0, 0x91, 0xc7, 0xce,
        0xed, 0x0f, 0xb4, 0x6f, 0xa0, 0xcc, 0xf0, 0x02, 0x4a, 0x79, 0xc3, 0xde, 0xa3, 0xef, 0xea,
        0x51, 0xe6, 0x6b, 0x18, 0xec, 0x1b, 0x2c, 0x80, 0xf7, 0x74, 0xe7, 0xff, 0x21, 0x5a, 0x6a,
        0x54, 0x1e, 0x41, 0x31, 0x92, 0x35, 0xc4, 0x33, 0x07, 0x0a, 0xba, 0x7e, 0x0e, 0x34, 0x88,
        0xb1, 0x98, 0x7c, 0xf3, 0x3d, 0x60, 0x6c, 0x7b, 0xca, 0xd3, 0x1f, 0x32, 0x65, 0x04, 0x28,
        0x64, 0xbe, 0x85, 0x9b, 0x2f, 0x59, 0x8a, 0xd7, 0xb0, 0x25, 0xac, 0xaf, 0x12, 0x03, 0xe2,
        0xf2,
    ];

    /// The reference table-based F update, used to check every backend's `Fsm`.
    #[cfg(test)]
    pub(crate) fn sbox_word(x: u32) -> u32 {
        let b = x.to_be_bytes();
        u32::from_be_bytes([
            S0[b[0] as usize],
            S1[b[1] as usize],
            S0[b[2] as usize],
            S1[b[3] as usize],
        ])
    }
}
