//! `guomi._native.cpu`: backend and variant detection and forcing.

use crate::error::IntoPy;
use guomi_core::cpu::{self, Backend, Variant};
use guomi_python_macros::guard_panics;
use pyo3::prelude::*;

/// The backend new key objects and one-shot calls use now (the binding behind
/// ``guomi.backend.active_backend``).
///
/// The order of precedence: :func:`force`, then the ``GUOMI_BACKEND`` environment
/// variable (read once, at first use), then the best backend detected.
///
/// Returns:
///     str: ``"portable"``, or one of this architecture's backends: ``"avx2"``,
///     ``"avx512"`` (x86-64), ``"neon"``, ``"armsm"`` (aarch64), ``"zk"``, ``"zvk"``
///     (riscv64).
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.active() in cpu.available()
///     True
#[guard_panics]
#[pyfunction]
fn active() -> &'static str {
    cpu::active().name()
}

/// The variant new key objects and one-shot calls use now (the binding behind
/// ``guomi.backend.active_variant``): the backend's name followed by ``-no<feature>``
/// for each optional feature turned off, e.g. ``"avx512"`` or ``"avx2-novaes"``.
///
/// Returns:
///     str: one of the names in :func:`variants`.
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.active_variant() in cpu.variants()
///     True
#[guard_panics]
#[pyfunction]
fn active_variant() -> String {
    cpu::active_variant().name()
}

/// The best backend this CPU supports, whatever is forced (the binding behind
/// ``guomi.backend.detected_backend``). Detection runs once per process.
///
/// Returns:
///     str: ``"portable"``, or one of this architecture's backends: ``"avx2"``,
///     ``"avx512"`` (x86-64), ``"neon"``, ``"armsm"`` (aarch64), ``"zk"``, ``"zvk"``
///     (riscv64).
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.detected() == cpu.available()[-1]
///     True
#[guard_panics]
#[pyfunction]
fn detected() -> &'static str {
    cpu::detected().name()
}

/// Every backend this CPU can run, lowest first (the binding behind
/// ``guomi.backend.available_backends``).
///
/// Returns:
///     list[str]: starts with ``"portable"``, ends with :func:`detected`.
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.available()[0]
///     'portable'
#[guard_panics]
#[pyfunction]
fn available() -> Vec<&'static str> {
    cpu::available().into_iter().map(Backend::name).collect()
}

/// One variant per code path this CPU can run, lowest backend first (the binding
/// behind ``guomi.backend.available_variants``): each backend with all its features,
/// then with each optional feature it uses (and the CPU has) turned off on its own.
///
/// Returns:
///     list[str]: e.g. ``["portable", "avx2", "avx2-novaes", "avx2-noadx"]`` on x86-64,
///     ``["portable", "neon", "neon-nopmull", "armsm", "armsm-nopmull"]`` on aarch64.
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> set(cpu.available()) <= set(cpu.variants())
///     True
#[guard_panics]
#[pyfunction]
fn variants() -> Vec<String> {
    cpu::variants().into_iter().map(Variant::name).collect()
}

/// Forces a backend or variant for the whole process (the binding behind
/// ``guomi.backend.force_backend``). Key objects made earlier keep theirs.
///
/// Args:
///     name: a backend (``"portable"``, ``"avx2"``, ``"avx512"``, ``"neon"``,
///         ``"armsm"``, ``"zk"``, ``"zvk"``) or variant name
///         (e.g. ``"avx2-novaes"``, ``"avx512-novbmi-noadx"``), any case; ``None``
///         returns to automatic selection (``GUOMI_BACKEND``, then detection).
///
/// Returns:
///     None.
///
/// Raises:
///     UnsupportedBackend: the name is unknown, names a feature the backend does not
///         use, or this CPU cannot run it. Nothing changes then.
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.force("portable")
///     >>> cpu.active()
///     'portable'
///     >>> cpu.force(None)
///     >>> cpu.active() in cpu.available()
///     True
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (name=None))]
fn force(name: Option<&str>) -> PyResult<()> {
    let variant = name.map(Variant::parse).transpose().py_err()?;
    cpu::force_variant(variant).py_err()
}

/// Checks the ``GUOMI_BACKEND`` environment variable: an unusable value is otherwise
/// ignored silently (detection is used), so call this to report it.
///
/// Returns:
///     None, when ``GUOMI_BACKEND`` is unset or names a backend or variant this CPU
///     can run.
///
/// Raises:
///     UnsupportedBackend: ``GUOMI_BACKEND`` is not a valid name or names a backend
///         this CPU cannot run.
///
/// Example:
///     >>> from guomi._native import cpu
///     >>> cpu.check_env()  # GUOMI_BACKEND unset or valid
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
