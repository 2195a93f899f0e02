//! Curve parameters: sm2p256v1 (GB/T 32918.5-2017 §5, the recommended curve) and the
//! example Fp-256 curve of the annexes of GB/T 32918.2/.3/.4 (used only to run the
//! standard's worked examples).

use super::field::{hex_limbs, Fe, Limbs, Modulus};
use super::point::Affine;
use super::table::CombTable;
use std::sync::OnceLock;

/// A short Weierstrass curve y^2 = x^3 + ax + b over F_p with a prime group order n.
pub trait Curve: Copy + Clone + Send + Sync + 'static {
    /// The base field F_p.
    #[doc(hidden)]
    type F: Modulus;
    /// The scalar field Z/nZ.
    #[doc(hidden)]
    type N: Modulus;
    /// Whether a = -3 (selects the faster doubling formula).
    const A_IS_MINUS_3: bool;
    /// a, b, x_G, y_G as big-endian integers (limbs).
    #[doc(hidden)]
    const A: Limbs;
    #[doc(hidden)]
    const B: Limbs;
    #[doc(hidden)]
    const GX: Limbs;
    #[doc(hidden)]
    const GY: Limbs;
    /// The curve's name.
    const NAME: &'static str;

    /// The comb table of the base point G (built once, on first use).
    #[doc(hidden)]
    fn g_table() -> &'static CombTable<Self>;

    /// The odd multiples G, 3G, ..., (2^G_WNAF_W - 1)G in affine form, for the wNAF of
    /// u·G interleaved with v·P in signature verification (built once, on first use).
    #[doc(hidden)]
    fn g_odd_table() -> &'static [Affine<Self>];

    /// a in Montgomery form.
    #[doc(hidden)]
    fn a() -> Fe<Self::F> {
        Fe::from_limbs_reduced(&Self::A)
    }
    /// b in Montgomery form.
    #[doc(hidden)]
    fn b() -> Fe<Self::F> {
        Fe::from_limbs_reduced(&Self::B)
    }
    /// The base point G.
    #[doc(hidden)]
    fn g() -> Affine<Self> {
        Affine {
            x: Fe::from_limbs_reduced(&Self::GX),
            y: Fe::from_limbs_reduced(&Self::GY),
        }
    }
    /// a || b || x_G || y_G as used in Z_A (GB/T 32918.2 §5.5), 128 bytes.
    #[doc(hidden)]
    fn z_params() -> [u8; 128] {
        let mut out = [0u8; 128];
        for (i, v) in [Self::A, Self::B, Self::GX, Self::GY].iter().enumerate() {
            out[32 * i..32 * i + 32].copy_from_slice(&super::field::limbs_to_be(v));
        }
        out
    }
}

/// Width of the wNAF of u in u·G + v·P ([`Curve::g_odd_table`]): 2^(w-2) = 1024 affine
/// points (64 KiB per curve, built once on the first verification, about 0.3 ms), about
/// 256 / (w + 1) = 20 mixed additions per verification instead of the comb's 43.
/// Measured per one-shot verification against w = 8 (64 points): -1.4 µs; w = 10: -0.7 µs.
pub(crate) const G_WNAF_W: u32 = 12;

fn odd_multiples_of_g<C: Curve>() -> Vec<Affine<C>> {
    let g = C::g().to_jacobian();
    let g2 = g.double();
    let mut pts = Vec::with_capacity(1 << (G_WNAF_W - 2));
    let mut acc = g;
    pts.push(acc);
    for _ in 1..1 << (G_WNAF_W - 2) {
        acc = acc.add_vartime(&g2);
        pts.push(acc);
    }
    super::point::batch_to_affine_vartime(&pts)
}

/// The prime p of sm2p256v1: 2^256 - 2^224 - 2^96 + 2^64 - 1.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Sm2P;
impl Modulus for Sm2P {
    const M: Limbs = hex_limbs("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF");
}

/// The group order n of sm2p256v1.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Sm2N;
impl Modulus for Sm2N {
    const M: Limbs = hex_limbs("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
}

/// The recommended curve sm2p256v1 (GB/T 32918.5-2017).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sm2p256;

impl Curve for Sm2p256 {
    type F = Sm2P;
    type N = Sm2N;
    const A_IS_MINUS_3: bool = true;
    const A: Limbs = hex_limbs("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC");
    const B: Limbs = hex_limbs("28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93");
    const GX: Limbs = hex_limbs("32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7");
    const GY: Limbs = hex_limbs("BC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0");
    const NAME: &'static str = "sm2p256v1";

    fn g_table() -> &'static CombTable<Self> {
        static T: OnceLock<Box<CombTable<Sm2p256>>> = OnceLock::new();
        T.get_or_init(|| CombTable::new(&Self::g()))
    }

    fn g_odd_table() -> &'static [Affine<Self>] {
        static T: OnceLock<Vec<Affine<Sm2p256>>> = OnceLock::new();
        T.get_or_init(odd_multiples_of_g::<Self>)
    }
}

/// p of the example curve of GB/T 32918.2-4 (annexes A).
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct ExampleP;
impl Modulus for ExampleP {
    const M: Limbs = hex_limbs("8542D69E4C044F18E8B92435BF6FF7DE457283915C45517D722EDB8B08F1DFC3");
}

/// n of the example curve.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct ExampleN;
impl Modulus for ExampleN {
    const M: Limbs = hex_limbs("8542D69E4C044F18E8B92435BF6FF7DD297720630485628D5AE74EE7C32E79B7");
}

/// The example Fp-256 curve of the annexes of GB/T 32918.2/.3/.4 (NOT for real use:
/// it exists so that the standard's worked examples can be run as tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExampleCurve;

impl Curve for ExampleCurve {
    type F = ExampleP;
    type N = ExampleN;
    const A_IS_MINUS_3: bool = false;
    const A: Limbs = hex_limbs("787968B4FA32C3FD2417842E73BBFEFF2F3C848B6831D7E0EC65228B3937E498");
    const B: Limbs = hex_limbs("63E4C6D3B23B0C849CF84241484BFE48F61D59A5B16BA06E6E12D1DA27C5249A");
    const GX: Limbs = hex_limbs("421DEBD61B62EAB6746434EBC3CC315E32220B3BADD50BDC4C4E6C147FEDD43D");
    const GY: Limbs = hex_limbs("0680512BCBB42C07D47349D2153B70C4E5D7FDFCBFA36EA1A85841B9E46E09A2");
    const NAME: &'static str = "GB/T 32918 example Fp-256";

    fn g_table() -> &'static CombTable<Self> {
        static T: OnceLock<Box<CombTable<ExampleCurve>>> = OnceLock::new();
        T.get_or_init(|| CombTable::new(&Self::g()))
    }

    fn g_odd_table() -> &'static [Affine<Self>] {
        static T: OnceLock<Vec<Affine<ExampleCurve>>> = OnceLock::new();
        T.get_or_init(odd_multiples_of_g::<Self>)
    }
}
