"""Docstrings of the symmetric and backend API: guomi.sm3, guomi.sm4, guomi.sm9, guomi.zuc,
guomi.backend and their native modules guomi._native.{sm3, sm4, sm9, zuc, cpu}.

Every public module, class, function, method and property has a docstring with a
runnable example; every callable has a signature that ``inspect.signature`` can read;
every parameter is described in its docstring; and every example passes as a doctest.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

FACADE = ["guomi.sm3", "guomi.sm4", "guomi.sm9", "guomi.zuc", "guomi.backend"]
NATIVE = [
    "guomi._native.sm3",
    "guomi._native.sm4",
    "guomi._native.sm9",
    "guomi._native.zuc",
    "guomi._native.cpu",
]

#: Classes made only by factory methods (``SM4.encryptor()``, ``SignMasterKey.generate()``,
#: ``from_bytes``, ``extract``...): no constructor, so no constructor signature; calling
#: the class must fail.
NO_CONSTRUCTOR = {
    "Encryptor": "guomi.sm4",
    "Decryptor": "guomi.sm4",
    "GCMEncryptor": "guomi.sm4",
    "GCMDecryptor": "guomi.sm4",
    "SignMasterKey": "guomi.sm9",
    "SignMasterPublicKey": "guomi.sm9",
    "SignUserKey": "guomi.sm9",
    "EncMasterKey": "guomi.sm9",
    "EncMasterPublicKey": "guomi.sm9",
    "EncUserKey": "guomi.sm9",
}


def _module(name: str) -> ModuleType:
    if name.startswith("guomi._native."):
        native = importlib.import_module("guomi._native")
        sub = getattr(native, name.rsplit(".", 1)[1])
        assert isinstance(sub, ModuleType)
        return sub
    return importlib.import_module(name)


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(names)


def _walk() -> Iterator[tuple[str, Any]]:
    """(qualified name, object) for every documented object: the modules, their public
    classes and routines, and the public methods and properties of those classes."""
    for mod_name in FACADE + NATIVE:
        module = _module(mod_name)
        yield mod_name, module
        for name in _public_names(module):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue  # constants (documented with ``#:`` comments in the facade)
            yield f"{mod_name}.{name}", obj
            if inspect.isclass(obj):
                for attr in sorted(vars(obj)):
                    if attr.startswith("_"):
                        continue
                    yield f"{mod_name}.{name}.{attr}", getattr(obj, attr)


ITEMS = list(_walk())


def _unique_docs() -> dict[str, str]:
    """Each distinct docstring with examples once (a facade re-export shares its native
    object's; the native modules' one-line docstrings have none)."""
    seen: dict[int, str] = {}
    out: dict[str, str] = {}
    for qualname, obj in ITEMS:
        if id(obj) in seen:
            continue
        seen[id(obj)] = qualname
        if obj.__doc__ and ">>>" in obj.__doc__:
            out[qualname] = obj.__doc__
    return out


DOCS = _unique_docs()


def _describe_missing() -> list[str]:
    missing = []
    for qualname, obj in ITEMS:
        doc = obj.__doc__ or ""
        if not doc.strip():
            missing.append(f"{qualname}: no docstring")
        elif not inspect.ismodule(obj) and ">>>" not in doc:
            missing.append(f"{qualname}: no example")
        if inspect.isclass(obj) and obj.__name__ in NO_CONSTRUCTOR:
            continue
        if inspect.isclass(obj) or inspect.isroutine(obj):
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError) as e:
                missing.append(f"{qualname}: no signature ({e})")
                continue
            for param in sig.parameters:
                if param in ("self", "cls"):
                    continue
                if not re.search(rf"^\s+{re.escape(param)}:", doc, re.MULTILINE):
                    missing.append(f"{qualname}: parameter {param!r} not described")
    return missing


def test_walk_covers_every_module_and_kind() -> None:
    names = {q for q, _ in ITEMS}
    # A sample of each kind, so that the walk itself cannot silently shrink.
    for expected in [
        "guomi._native.cpu.force",
        "guomi._native.sm3.SM3.digest_size",
        "guomi._native.sm4.SM4GCM.decryptor",
        "guomi._native.sm4.GCMEncryptor.tag",
        "guomi._native.sm9.KeyExchange.finish",
        "guomi._native.zuc.EEA3.used_count",
        "guomi.backend.force_backend",
        "guomi.sm3.pbkdf2_hmac",
        "guomi.sm4.decryptor",
        "guomi.sm9.EncUserKey.decrypt",
        "guomi.zuc.zuc256_mac_verify",
    ]:
        assert expected in names
    assert len(ITEMS) > 200


def test_every_public_name_has_docstring_example_and_signature() -> None:
    missing = _describe_missing()
    assert not missing, "\n".join(missing)


def test_native_signatures_match_the_facade_conventions() -> None:
    from guomi import sm3, sm4, sm9, zuc

    assert str(inspect.signature(sm3.hash)) == "(data)"
    assert str(inspect.signature(sm3.HMAC)) == "(key, data=None)"
    assert str(inspect.signature(sm3.HMAC.verify)) == "(self, /, tag, *, tag_length=None)"
    assert str(inspect.signature(sm4.SM4GCM.decrypt)) == (
        "(self, /, nonce, data, aad=None, *, tag_length=16)"
    )
    assert str(inspect.signature(sm4.SM4XTS)) == "(key, *, standard='gb')"
    assert str(inspect.signature(sm9.KeyExchange)) == "(user_key, peer_id, *, initiator)"
    assert str(inspect.signature(sm9.SignMasterKey.generate)) == "()"
    eea3_signature = "(key, count, bearer, direction, data, *, length_bits=None)"
    assert str(inspect.signature(zuc.eea3)) == eea3_signature


@pytest.mark.parametrize("name", sorted(NO_CONSTRUCTOR))
def test_factory_made_classes_cannot_be_constructed(name: str) -> None:
    cls = getattr(importlib.import_module(NO_CONSTRUCTOR[name]), name)
    with pytest.raises(TypeError):
        cls()


@pytest.mark.parametrize("qualname", sorted(DOCS))
def test_docstring_examples_run(qualname: str) -> None:
    doc = DOCS[qualname]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(doc, {}, qualname, None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
