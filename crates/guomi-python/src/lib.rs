//! PyO3 bindings of `guomi-core`: type conversion, error mapping and GIL release only.
//! No algorithm logic lives here. Each algorithm family is one submodule of
//! `guomi._native`, registered by its own file.

mod arrow;
mod batch;
mod buf;
mod cms;
mod cpu;
mod envelope;
mod error;
mod locked;
mod pkcs12;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
mod tls;
mod x509;
mod zuc;

use guomi_python_macros::guard_panics;
use pyo3::prelude::*;

/// Adds a submodule `name` to `parent`, filled by `fill`, with docstring `doc`.
///
/// The submodule is also entered in `sys.modules` as `guomi._native.NAME` (and named so),
/// so that `import guomi._native.sm2` and `from guomi._native.sm2 import PublicKey` work
/// like the attribute access `guomi._native.sm2`, and tools that import a module by name
/// (`mypy.stubtest`, `pydoc`) find it.
fn add_submodule(
    parent: &Bound<'_, PyModule>,
    name: &str,
    doc: &str,
    fill: impl FnOnce(&Bound<'_, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let py = parent.py();
    let full = format!("guomi._native.{name}");
    let m = PyModule::new(py, &full)?;
    m.setattr("__doc__", doc)?;
    fill(&m)?;
    parent.add(name, &m)?;
    py.import("sys")?
        .getattr("modules")?
        .set_item(full.as_str(), &m)?;
    Ok(())
}

/// Panics on purpose inside the panic guard: the test suite calls it to show that a Rust
/// panic reaches Python as `guomi.exceptions.InternalError`, never as `PanicException`.
/// Takes no input and touches no state.
#[guard_panics]
#[pyfunction]
fn _panic_selftest() -> PyResult<()> {
    panic!("deliberate panic from _panic_selftest")
}

/// The compiled core of guomi (PyO3 bindings of the Rust crate `guomi-core`): one
/// submodule per algorithm family. Use the documented `guomi.*` modules instead; this
/// module's layout may change between releases.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_panic_selftest, m)?)?;
    add_submodule(
        m,
        "cpu",
        "CPU feature detection and backend selection (see `guomi.backend`).",
        cpu::register,
    )?;
    add_submodule(
        m,
        "sm3",
        "SM3 hash (GB/T 32905), HMAC-SM3 and the SM3-based KDFs (see `guomi.sm3`).",
        sm3::register,
    )?;
    add_submodule(
        m,
        "envelope",
        "The streaming guomi envelope: SM4-GCM chunks under a key, a password, SM2 or SM9\n\
         (see `guomi.envelope`).",
        envelope::register,
    )?;
    add_submodule(
        m,
        "sm4",
        "SM4 block cipher (GB/T 32907): ECB, CBC, CTR, CFB, OFB, GCM, CCM and XTS\n\
         (see `guomi.sm4`).",
        sm4::register,
    )?;
    add_submodule(
        m,
        "zuc",
        "ZUC stream cipher (GB/T 33133), 128-EEA3/128-EIA3 and ZUC-256 (see `guomi.zuc`).",
        zuc::register,
    )?;
    add_submodule(
        m,
        "sm2",
        "SM2 public-key cryptography (GB/T 32918): keys, signatures, encryption, KEM and\n\
         key exchange (see `guomi.sm2`).",
        sm2::register,
    )?;
    add_submodule(
        m,
        "sm9",
        "SM9 identity-based cryptography (GB/T 38635): signatures, encryption, KEM and key\n\
         exchange (see `guomi.sm9`).",
        sm9::register,
    )?;
    add_submodule(
        m,
        "x509",
        "SM2 X.509 certificates, certification paths, PKCS#10 requests and protected\n\
         private keys (see `guomi.x509` and `guomi.keys`).",
        x509::register,
    )?;
    add_submodule(
        m,
        "cms",
        "CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010) (see `guomi.cms`).",
        cms::register,
    )?;
    add_submodule(
        m,
        "pkcs12",
        "PKCS#12 files (RFC 7292) with SM or AES protection (see `guomi.pkcs12`).",
        pkcs12::register,
    )?;
    add_submodule(
        m,
        "tls",
        "TLCP (GB/T 38636) and TLS 1.3 with the RFC 8998 suites as sans-I/O connections\n\
         (see `guomi.tls`).",
        tls::register,
    )?;
    add_submodule(
        m,
        "arrow",
        "Column operations over Apache Arrow arrays through the Arrow C data interface\n\
         (see `guomi.arrow`).",
        arrow::register,
    )?;
    Ok(())
}
