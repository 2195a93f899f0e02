//! SM2 (GB/T 32918.1-5-2016/2017, GM/T 0003-2012).
mod curve;
mod field;
mod point;
mod table;
pub use curve::{Curve, ExampleCurve, Sm2p256};
