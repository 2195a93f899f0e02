"""The type stubs of ``guomi._native`` (``python/guomi/_native/*.pyi``): they sit in a
directory beside the compiled module without shadowing it, each submodule is importable
by name, their docstrings are the runtime ones (``scripts/stubdocs.py``), every native
callable has a signature, ``BytesLike`` is defined once, and mypy/stubtest are clean."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import guomi._native

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "python" / "guomi" / "_native"
SUBMODULES = ["cpu", "sm3", "envelope", "sm4", "zuc", "sm2", "sm9", "x509", "cms", "pkcs12", "tls", "arrow"]


def _load_stubdocs():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("stubdocs", ROOT / "scripts" / "stubdocs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["stubdocs"] = mod
    spec.loader.exec_module(mod)
    return mod


stubdocs = _load_stubdocs()


def test_stub_directory_does_not_shadow_the_extension() -> None:
    """A ``_native/`` directory of .pyi files next to ``_native.*.so`` is a namespace
    package candidate at most; the import system prefers the extension module."""
    origin = guomi._native.__spec__.origin  # type: ignore[union-attr]
    assert origin is not None
    assert origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), origin
    stub_dir = Path(origin).parent / "_native"
    assert (stub_dir / "__init__.pyi").is_file(), f"stubs not installed beside {origin}"
    assert not (stub_dir / "__init__.py").exists()  # that would shadow the extension
    # And in a fresh interpreter (no import state from this test session):
    code = "import guomi._native as n, guomi.sm2; print(n.__file__); print(n.sm2.PublicKey.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    file, cls = out.stdout.split()
    assert file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) and cls == "PublicKey"


def test_stub_directory_beside_extension_in_a_copy(tmp_path: Path) -> None:
    """The same layout built from scratch: a package with the compiled module and a
    ``_native/`` stub directory (no __init__.py) still imports the compiled module."""
    pkg = tmp_path / "guomi"
    src = Path(guomi._native.__file__).parent  # type: ignore[arg-type]
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"), copy_function=os.symlink)
    assert (pkg / "_native" / "__init__.pyi").is_file()
    code = "import guomi._native as n; print(n.__file__); print(n.sm2.__name__)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path
    )
    file, name = out.stdout.split()
    assert file.startswith(str(pkg)) and file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    assert name == "guomi._native.sm2"


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_importable_by_name(name: str) -> None:
    """``import guomi._native.NAME`` works (as the stubs promise) and is the attribute."""
    mod = importlib.import_module(f"guomi._native.{name}")
    assert mod is getattr(guomi._native, name)
    assert mod.__name__ == f"guomi._native.{name}"
    assert sys.modules[f"guomi._native.{name}"] is mod
    assert mod.__doc__, f"guomi._native.{name} has no module docstring"


def test_every_submodule_has_a_stub() -> None:
    stubs = {p.stem for p in STUBS.glob("*.pyi")} - {"__init__"}
    assert stubs == set(SUBMODULES)
    assert not (ROOT / "python" / "guomi" / "_native.pyi").exists()


@pytest.mark.parametrize("name", ["__init__", *SUBMODULES])
def test_runtime_names_documented(name: str) -> None:
    """Every public class, function, method and property of the compiled module has a
    docstring (written in Rust)."""
    problems = [p for p in stubdocs.check(STUBS, [name]) if p.kind == "undocumented"]
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize("name", ["__init__", *SUBMODULES])
def test_stub_docstrings_match_runtime(name: str) -> None:
    """Each stub carries exactly the runtime docstrings and defines every public name
    (refresh with ``python scripts/stubdocs.py``)."""
    problems = [p for p in stubdocs.check(STUBS, [name]) if p.kind in ("stale", "missing")]
    assert not problems, "\n".join(map(str, problems)) + "\nrun: python scripts/stubdocs.py"


def test_stubdocs_detects_and_repairs_stale_docs(tmp_path: Path) -> None:
    """The check fails on a changed or removed stub docstring and a missing name, and the
    write mode repairs the docstrings."""
    for p in STUBS.glob("*.pyi"):
        shutil.copy(p, tmp_path / p.name)
    stub = tmp_path / "sm2.pyi"
    text = stub.read_text()
    doc = inspect.cleandoc(guomi._native.sm2.PublicKey.verify.__doc__ or "")
    first = doc.splitlines()[0]
    assert first in text
    text = text.replace(first, "Something else entirely.", 1)
    text = text.replace("def signature_raw_to_der", "def _hidden_signature_raw_to_der", 1)
    stub.write_text(text)
    found = {(p.name, p.kind) for p in stubdocs.check(tmp_path, ["sm2"])}
    assert ("PublicKey.verify", "stale") in found
    assert ("signature_raw_to_der", "missing") in found
    stubdocs.write(tmp_path, ["sm2"])
    found = {(p.name, p.kind) for p in stubdocs.check(tmp_path, ["sm2"])}
    assert ("PublicKey.verify", "stale") not in found
    assert inspect.cleandoc(doc) in stub.read_text().replace("\n        ", "\n")


def test_stubdocs_inserts_into_bare_stub(tmp_path: Path) -> None:
    """Docstrings are inserted into a stub that has none (one-line ``def f(): ...``
    bodies, classes, properties, the module) and the result parses."""
    source = (STUBS / "envelope.pyi").read_text()
    bare = stubdocs.rewrite(source, _nodoc_module())
    assert '"""' not in bare
    (tmp_path / "envelope.pyi").write_text(bare)
    assert any(p.kind == "stale" for p in stubdocs.check(tmp_path, ["envelope"]))
    stubdocs.write(tmp_path, ["envelope"])
    assert not [p for p in stubdocs.check(tmp_path, ["envelope"]) if p.kind == "stale"]


def _nodoc_module():  # type: ignore[no-untyped-def]
    """A stand-in for guomi._native.envelope whose objects have no docstrings."""
    import types

    real = guomi._native.envelope
    fake = types.ModuleType(real.__name__)
    for name in dir(real):
        obj = getattr(real, name)
        if inspect.isclass(obj):
            members = {
                m: property(lambda self: None) if inspect.isdatadescriptor(v) else staticmethod(lambda: None)
                for m, v in vars(obj).items()
                if not m.startswith("_")
            }
            setattr(fake, name, type(name, (), {"__doc__": None, **members}))
        elif callable(obj):
            setattr(fake, name, lambda: None)
    return fake


def _native_callables() -> list[tuple[str, object]]:
    out = []
    for name in SUBMODULES:
        mod = getattr(guomi._native, name)
        for qual, obj in stubdocs.runtime_names(mod):
            if inspect.isroutine(obj):
                out.append((f"{name}.{qual}", obj))
            elif inspect.isclass(obj):
                try:
                    obj()
                except TypeError as e:
                    if "No constructor defined" in str(e) or "cannot create" in str(e):
                        continue
                out.append((f"{name}.{qual}", obj))
    return out


def test_native_callables_have_signatures() -> None:
    """``__text_signature__`` exists for every native function, method and constructor,
    so ``help()`` and ``inspect.signature`` show the parameters."""
    callables = _native_callables()
    assert len(callables) > 100
    missing = []
    for qual, obj in callables:
        if not getattr(obj, "__text_signature__", None):
            missing.append(f"{qual}: no __text_signature__")
            continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError) as e:
            missing.append(f"{qual}: {e}")
            continue
        for p in sig.parameters.values():
            if p.default is Ellipsis:  # PyO3 writes `...` for a default it cannot print
                missing.append(f"{qual}: parameter {p.name} shows no default value")
    assert not missing, "\n".join(missing)


def test_bytes_like_defined_once() -> None:
    """``BytesLike`` is defined in guomi/_typing.py and imported everywhere else."""
    alias = "Union[bytes, bytearray, memoryview]"
    where = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "python" / "guomi").rglob("*.py*"))
        if p.suffix in (".py", ".pyi") and alias in p.read_text(encoding="utf-8")
    ]
    assert where == ["python/guomi/_typing.py"], where


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.skipif(not _have("mypy"), reason="mypy is not installed")
def test_mypy_strict() -> None:
    """``mypy --strict`` (configured in pyproject.toml) is clean on python/guomi."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not _have("mypy"), reason="mypy is not installed")
def test_stubtest() -> None:
    """The stubs match the compiled module (``python -m mypy.stubtest guomi._native``)."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "guomi._native"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(ROOT / "python")},
    )
    assert r.returncode == 0, r.stdout + r.stderr
