//! PyO3 bindings of `guomi-core`: type conversion, error mapping and GIL release only.
//! No algorithm logic lives here. Each algorithm family is one submodule of
//! `guomi._native`, registered by its own file.

mod arrow;
mod buf;
mod cpu;
mod envelope;
mod error;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
mod x509;
mod zuc;

use guomi_python_macros::guard_panics;
use pyo3::prelude::*;

/// Adds a submodule `name` to `parent`, filled by `fill`.
fn add_submodule(
    parent: &Bound<'_, PyModule>,
    name: &str,
    fill: impl FnOnce(&Bound<'_, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let m = PyModule::new(parent.py(), name)?;
    fill(&m)?;
    parent.add_submodule(&m)
}

/// Panics on purpose inside the panic guard: the test suite calls it to show that a Rust
/// panic reaches Python as `guomi.exceptions.InternalError`, never as `PanicException`.
/// Takes no input and touches no state.
#[guard_panics]
#[pyfunction]
fn _panic_selftest() -> PyResult<()> {
    panic!("deliberate panic from _panic_selftest")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_panic_selftest, m)?)?;
    add_submodule(m, "cpu", cpu::register)?;
    add_submodule(m, "sm3", sm3::register)?;
    add_submodule(m, "envelope", envelope::register)?;
    add_submodule(m, "sm4", sm4::register)?;
    add_submodule(m, "zuc", zuc::register)?;
    add_submodule(m, "sm2", sm2::register)?;
    add_submodule(m, "sm9", sm9::register)?;
    add_submodule(m, "x509", x509::register)?;
    add_submodule(m, "arrow", arrow::register)?;
    Ok(())
}
