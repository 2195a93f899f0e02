//! `guomi._native.cpu`: backend and variant detection and forcing.

use crate::error::IntoPy;
use guomi_core::cpu::{self, Backend, Variant};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;

/// The backend in use.
#[guard_panics]
#[pyfunction]
fn active() -> &'static str {
    cpu::active().name()
}

/// The variant in use (backend plus the optional features turned off, e.g. `avx2-novaes`).
#[guard_panics]
#[pyfunction]
fn active_variant() -> String {
    cpu::active_variant().name()
}

/// The best backend this CPU supports.
#[guard_panics]
#[pyfunction]
fn detected() -> &'static str {
    cpu::detected().name()
}

/// Backends this CPU supports, lowest first.
#[guard_panics]
#[pyfunction]
fn available() -> Vec<&'static str> {
    cpu::available().into_iter().map(Backend::name).collect()
}

/// One variant per code path this CPU can run, lowest backend first.
#[guard_panics]
#[pyfunction]
fn variants() -> Vec<String> {
    cpu::variants().into_iter().map(Variant::name).collect()
}

/// Forces a backend or variant process-wide (`None` restores automatic selection).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (name=None))]
fn force(name: Option<&str>) -> PyResult<()> {
    let variant = name.map(Variant::parse).transpose().py_err()?;
    cpu::force_variant(variant).py_err()
}

/// Raises if `GUOMI_BACKEND` names a backend this CPU cannot run.
#[guard_panics]
#[pyfunction]
fn check_env() -> PyResult<()> {
    cpu::check_env().py_err()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(active, m)?)?;
    m.add_function(wrap_pyfunction!(active_variant, m)?)?;
    m.add_function(wrap_pyfunction!(detected, m)?)?;
    m.add_function(wrap_pyfunction!(available, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(force, m)?)?;
    m.add_function(wrap_pyfunction!(check_env, m)?)?;
    Ok(())
}
