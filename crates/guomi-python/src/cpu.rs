//! `guomi._native.cpu`: backend detection and forcing.

use crate::error::IntoPy;
use guomi_core::cpu::{self, Backend};
use pyo3::prelude::*;

/// The backend in use.
#[pyfunction]
fn active() -> &'static str {
    cpu::active().name()
}

/// The best backend this CPU supports.
#[pyfunction]
fn detected() -> &'static str {
    cpu::detected().name()
}

/// Backends this CPU supports, lowest first.
#[pyfunction]
fn available() -> Vec<&'static str> {
    cpu::available().into_iter().map(Backend::name).collect()
}

/// Forces a backend process-wide (`None` restores automatic selection).
#[pyfunction]
#[pyo3(signature = (name=None))]
fn force(name: Option<&str>) -> PyResult<()> {
    let backend = name.map(Backend::parse).transpose().py_err()?;
    cpu::force(backend).py_err()
}

/// Raises if `GUOMI_BACKEND` names a backend this CPU cannot run.
#[pyfunction]
fn check_env() -> PyResult<()> {
    cpu::check_env().py_err()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(active, m)?)?;
    m.add_function(wrap_pyfunction!(detected, m)?)?;
    m.add_function(wrap_pyfunction!(available, m)?)?;
    m.add_function(wrap_pyfunction!(force, m)?)?;
    m.add_function(wrap_pyfunction!(check_env, m)?)?;
    Ok(())
}
