"""Every public name of guomi is documented: a docstring on each class, function, method
and property, an ``inspect.signature`` for each callable, and examples that run.

Walks ``__all__`` of each public module; for a class, also the members it defines
itself. The examples in every docstring found are run as doctests.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import types
from collections.abc import Iterator

import pytest

MODULES = [
    "guomi",
    "guomi.sm2",
    "guomi.x509",
    "guomi.cms",
    "guomi.envelope",
    "guomi.keys",
    "guomi.exceptions",
    "guomi.backend",
    # The compiled classes the facade wraps rather than re-exports (their examples too).
    "guomi._native.sm2",
    "guomi._native.x509",
    "guomi._native.cms",
    "guomi._native.envelope",
    "guomi.sm3",
    "guomi.sm4",
    "guomi.sm9",
    "guomi.zuc",
]


def _documentable(obj: object) -> bool:
    return inspect.isclass(obj) or inspect.isroutine(obj) or inspect.isdatadescriptor(obj)


def public_objects(module: types.ModuleType) -> Iterator[tuple[str, object]]:
    """``(qualified name, object)`` for every public class, function, method and
    property reachable from ``module.__all__``."""
    for name in module.__all__:
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType) or not _documentable(obj):
            continue  # submodules are walked on their own; constants carry no __doc__
        yield name, obj
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    value = getattr(obj, member)
                if _documentable(value):
                    yield f"{name}.{member}", value


def own_doc(obj: object) -> str:
    """The object's own docstring, not one inherited from a base class."""
    doc = getattr(obj, "__doc__", None)
    if inspect.isclass(obj) and doc is not None and "__doc__" not in vars(obj):
        return ""
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def has_no_constructor(cls: type) -> bool:
    """Native classes made only by static methods (PyO3 without ``#[new]``)."""
    try:
        cls()
    except TypeError as e:
        return "No constructor defined" in str(e) or "cannot create" in str(e)
    return False


def problems_of(module: types.ModuleType) -> list[str]:
    """Every missing docstring or signature among the public names of ``module``."""
    modname = module.__name__
    problems = []
    if not own_doc(module):
        problems.append(f"{modname}: module has no docstring")
    for name, obj in public_objects(module):
        where = f"{modname}.{name}"
        if not own_doc(obj):
            problems.append(f"{where}: no docstring")
        if callable(obj) and not inspect.isdatadescriptor(obj):
            if inspect.isclass(obj) and has_no_constructor(obj):
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue  # exceptions take Python's usual (*args); no signature to show
            try:
                inspect.signature(obj)
            except (TypeError, ValueError) as e:
                problems.append(f"{where}: no signature ({e})")
    return problems


@pytest.mark.parametrize("modname", MODULES)
def test_public_names_documented(modname: str) -> None:
    problems = problems_of(importlib.import_module(modname))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("modname", MODULES)
def test_examples_run(modname: str) -> None:
    module = importlib.import_module(modname)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    docs = [(modname, own_doc(module))]
    docs += [(f"{modname}.{name}", own_doc(obj)) for name, obj in public_objects(module)]
    report: list[str] = []
    for name, doc in docs:
        test = parser.get_doctest(doc, {}, name, None, 0)
        if test.examples:
            runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


@pytest.mark.parametrize(
    "modname",
    [
        "guomi.sm2",
        "guomi.x509",
        "guomi.envelope",
        "guomi.keys",
        "guomi.exceptions",
        "guomi._native.sm2",
        "guomi._native.x509",
        "guomi._native.envelope",
    ],
)
def test_every_docstring_has_an_example(modname: str) -> None:
    """In the modules documented in full, every class, function, method and property
    shows a short example."""
    module = importlib.import_module(modname)
    missing = [name for name, obj in public_objects(module) if ">>>" not in own_doc(obj)]
    assert not missing, missing


def test_walk_sees_native_members() -> None:
    """The walk reaches methods, static methods and properties of native classes (so the
    tests above cannot pass by seeing nothing)."""
    from guomi import sm2

    names = dict(public_objects(sm2))
    assert "PrivateKey.from_pem" in names  # static method
    assert "PublicKey.is_prepared" in names  # property (getset descriptor)
    assert "KeyExchangeInitiator.finish" in names  # method
    assert has_no_constructor(sm2.PublicKey)
    assert not has_no_constructor(sm2.Signer)


def test_detects_missing_docstring() -> None:
    """The check reports an undocumented function and a class without a signature."""

    def undocumented(x: int) -> int:
        return x

    def documented(x: int) -> int:
        """Documented."""
        return x

    mod = types.ModuleType("fake", "A module.")
    mod.__all__ = ["undocumented", "documented", "NoSignature"]  # type: ignore[attr-defined]
    mod.undocumented = undocumented  # type: ignore[attr-defined]
    mod.documented = documented  # type: ignore[attr-defined]
    mod.NoSignature = int  # type: ignore[attr-defined]  # a builtin class without a signature
    problems = problems_of(mod)
    assert any(p.startswith("fake.undocumented: no docstring") for p in problems), problems
    assert not any(p.startswith("fake.documented") for p in problems), problems
    assert any(p.startswith("fake.NoSignature: no signature") for p in problems), problems


def test_doc_failure_is_reported() -> None:
    """A wrong example is counted as a failure by the runner used above."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner()
    runner.run(parser.get_doctest(">>> 1 + 1\n3\n", {}, "x", None, 0), out=lambda s: None)
    assert runner.summarize(verbose=False).failed == 1
