"""Copy the docstrings of the compiled module ``guomi._native`` into its type stubs.

The documentation of the native API is written once, as ``///`` comments in
``crates/guomi-python/src`` that PyO3 turns into ``__doc__``. Type checkers and IDEs read
the stubs (``python/guomi/_native/*.pyi``) instead of the compiled module, so this script
copies each runtime docstring into the matching stub definition: the module, its
classes, functions, methods and properties. Dunder methods and constants are left alone.

    python scripts/stubdocs.py            # rewrite the stubs in place (then ruff format)
    python scripts/stubdocs.py --check    # exit 1 if a stub is stale or a doc is missing

Run it with the freshly built extension importable (``maturin develop``). ``--check``
reports three kinds of problem: a stub docstring that differs from the runtime one
(``stale``), a public runtime class, function, method or property without a docstring
(``undocumented``), and a public runtime name that the stub does not define
(``missing``). ``--module sm2`` limits either mode to some submodules.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
STUB_DIR = ROOT / "python" / "guomi" / "_native"
PACKAGE = "guomi._native"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One finding of ``--check``: ``kind`` is stale, undocumented or missing."""

    module: str
    name: str
    kind: str
    detail: str = ""

    def __str__(self) -> str:
        where = f"{self.module}.{self.name}" if self.name else self.module
        return f"{where}: {self.kind}" + (f" ({self.detail})" if self.detail else "")


def normalize(doc: Optional[str]) -> Optional[str]:
    """A docstring as compared: cleaned like ``inspect.cleandoc``, lines right-stripped;
    ``None`` when empty."""
    if doc is None:
        return None
    text = "\n".join(line.rstrip() for line in inspect.cleandoc(doc).split("\n")).strip()
    return text or None


def runtime_doc(obj: object) -> Optional[str]:
    """The object's own docstring (``None`` when it has none)."""
    if isinstance(obj, (int, float, str, bytes, bool, tuple, list, dict)):
        return None
    return normalize(getattr(obj, "__doc__", None))


def is_public(name: str) -> bool:
    return not name.startswith("_")


def documentable(obj: object) -> bool:
    """Classes, functions, methods and properties carry their own docstring."""
    return (
        inspect.isclass(obj)
        or inspect.isroutine(obj)
        or inspect.isdatadescriptor(obj)
        or isinstance(obj, types.ModuleType)
    )


def stub_files(stub_dir: Path = STUB_DIR, only: Optional[list[str]] = None) -> list[tuple[str, Path]]:
    """``(runtime module name, stub path)`` for every stub: ``__init__.pyi`` is the
    package, ``NAME.pyi`` the submodule ``NAME``."""
    out = []
    for path in sorted(stub_dir.glob("*.pyi")):
        short = "" if path.stem == "__init__" else path.stem
        if only is not None and (short or "__init__") not in only:
            continue
        out.append((PACKAGE + ("." + short if short else ""), path))
    return out


def runtime_module(name: str) -> types.ModuleType:
    """The runtime module ``name`` (a submodule is reached as an attribute, so this works
    whether or not it is registered in ``sys.modules``)."""
    pkg = importlib.import_module(PACKAGE)
    if name == PACKAGE:
        return pkg
    mod = getattr(pkg, name[len(PACKAGE) + 1 :])
    assert isinstance(mod, types.ModuleType), name
    return mod


# --- reading a stub -------------------------------------------------------------------


@dataclasses.dataclass
class Def:
    """A stub definition whose docstring this script manages."""

    qualname: str  # "" for the module
    node: ast.AST  # ast.Module, ast.ClassDef or ast.FunctionDef
    runtime: object


def _docstring_node(node: ast.AST) -> Optional[ast.Expr]:
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            return body[0]
    return None


def stub_defs(tree: ast.Module, module: types.ModuleType) -> Iterator[Def]:
    """Every managed definition of a stub with its runtime object (``None`` when the
    runtime has no such name)."""
    yield Def("", tree, module)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and is_public(node.name):
            obj = getattr(module, node.name, None)
            yield Def(node.name, node, obj)
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, ast.FunctionDef) and is_public(member.name):
                        # getattr on the class: a property gives its descriptor.
                        sub = getattr(obj, member.name, None) if obj is not None else None
                        yield Def(f"{node.name}.{member.name}", member, sub)


def runtime_names(module: types.ModuleType) -> Iterator[tuple[str, object]]:
    """Public documentable runtime names of a module: its classes, functions, their
    methods and properties (qualified), and the submodules of the package."""
    for name, obj in sorted(vars(module).items()):
        if not is_public(name) or not documentable(obj):
            continue
        if isinstance(obj, types.ModuleType):
            continue  # submodules have their own stub
        yield name, obj
        if inspect.isclass(obj):
            for member in sorted(vars(obj)):
                if is_public(member):
                    yield f"{name}.{member}", getattr(obj, member)


# --- checking -------------------------------------------------------------------------


def check(stub_dir: Path = STUB_DIR, only: Optional[list[str]] = None) -> list[Problem]:
    """Every problem of the stubs in ``stub_dir`` against the runtime module."""
    problems: list[Problem] = []
    for modname, path in stub_files(stub_dir, only):
        module = runtime_module(modname)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        seen = set()
        for d in stub_defs(tree, module):
            seen.add(d.qualname)
            if d.runtime is None:
                continue  # stubtest reports names the runtime lacks
            want = runtime_doc(d.runtime)
            doc_node = _docstring_node(d.node)
            have = normalize(doc_node.value.value) if doc_node is not None else None  # type: ignore[attr-defined]
            if want is None:
                problems.append(Problem(modname, d.qualname, "undocumented", "no docstring at run time"))
            if want != have:
                detail = "stub has no docstring" if have is None else "stub docstring differs"
                if want is None:
                    detail = "stub has a docstring the runtime lacks"
                problems.append(Problem(modname, d.qualname, "stale", detail))
        for name, obj in runtime_names(module):
            if name in seen:
                continue
            if runtime_doc(obj) is None:
                problems.append(Problem(modname, name, "undocumented", "no docstring at run time"))
            problems.append(Problem(modname, name, "missing", "not defined in the stub"))
    return problems


# --- rewriting ------------------------------------------------------------------------


def render(doc: str, indent: str) -> str:
    """``doc`` as a triple-quoted literal whose continuation lines carry ``indent``."""
    lines = doc.split("\n")
    if len(lines) == 1:
        text = lines[0]
        if text.endswith('"'):
            text += " "
    else:
        text = "\n".join([lines[0]] + [indent + line if line else "" for line in lines[1:]])
        text += "\n" + indent
    if '"""' in text:
        text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        return f'"""{text}"""'
    prefix = "r" if "\\" in text else ""
    return f'{prefix}"""{text}"""'


def _offset(lines: list[str], lineno: int, col: int) -> int:
    """Character offset of (1-based line, UTF-8 byte column) in the joined text."""
    line = lines[lineno - 1]
    col_chars = len(line.encode("utf-8")[:col].decode("utf-8"))
    return sum(len(x) for x in lines[: lineno - 1]) + col_chars


def _edits(source: str, tree: ast.Module, module: types.ModuleType) -> list[tuple[int, int, str]]:
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for d in stub_defs(tree, module):
        if d.runtime is None:
            continue
        want = runtime_doc(d.runtime)
        doc_node = _docstring_node(d.node)
        have = normalize(doc_node.value.value) if doc_node is not None else None  # type: ignore[attr-defined]
        if want == have:
            continue
        body = getattr(d.node, "body", [])
        if isinstance(d.node, ast.Module):
            indent = ""
        else:
            indent = " " * (d.node.col_offset + 4)  # type: ignore[attr-defined]
        if doc_node is not None:
            start = _offset(lines, doc_node.lineno, doc_node.col_offset)
            end = _offset(lines, doc_node.end_lineno or doc_node.lineno, doc_node.end_col_offset or 0)
            if want is not None:
                edits.append((start, end, render(want, indent)))
            elif len(body) == 1:
                edits.append((start, end, "..."))
            else:  # drop the docstring line(s)
                line_start = _offset(lines, doc_node.lineno, 0)
                line_end = _offset(lines, (doc_node.end_lineno or doc_node.lineno) + 1, 0)
                edits.append((line_start, line_end, ""))
            continue
        if want is None:
            continue
        literal = render(want, indent)
        if isinstance(d.node, ast.Module):
            edits.append((0, 0, literal + "\n\n"))
            continue
        first = body[0]
        header_line = d.node.lineno  # type: ignore[attr-defined]
        is_ellipsis = (
            len(body) == 1
            and isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and first.value.value is Ellipsis
        )
        if is_ellipsis:
            start = _offset(lines, first.lineno, first.col_offset)
            end = _offset(lines, first.end_lineno or first.lineno, first.end_col_offset or 0)
            if first.lineno != header_line and lines[first.lineno - 1].strip() == "...":
                edits.append((start, end, literal))
            else:  # `def f() -> int: ...` on one line (or a multi-line header)
                text = "".join(lines)
                while start > 0 and text[start - 1] == " ":
                    start -= 1
                edits.append((start, end, "\n" + indent + literal))
        else:
            decorators = getattr(first, "decorator_list", [])
            lineno = min([first.lineno] + [x.lineno for x in decorators])
            pos = _offset(lines, lineno, 0)
            edits.append((pos, pos, indent + literal + "\n"))
    return edits


def rewrite(source: str, module: types.ModuleType) -> str:
    """``source`` (a stub) with every managed docstring set to the runtime one."""
    tree = ast.parse(source)
    out = source
    for start, end, text in sorted(_edits(source, tree, module), reverse=True):
        out = out[:start] + text + out[end:]
    return out


def write(stub_dir: Path = STUB_DIR, only: Optional[list[str]] = None) -> list[Path]:
    """Refreshes the stubs; returns the files changed."""
    changed = []
    for modname, path in stub_files(stub_dir, only):
        source = path.read_text(encoding="utf-8")
        new = rewrite(source, runtime_module(modname))
        if new != source:
            ast.parse(new)  # never write a broken stub
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="report problems, change nothing")
    parser.add_argument("--stubs", type=Path, default=STUB_DIR, help="stub directory")
    parser.add_argument("--module", action="append", help="only this submodule (repeatable)")
    parser.add_argument("--no-format", action="store_true", help="do not run ruff format afterwards")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.stubs, args.module)
        for p in problems:
            print(p)
        return 1 if problems else 0
    changed = write(args.stubs, args.module)
    for path in changed:
        print(f"updated {path}")
    if changed and not args.no_format:
        r = subprocess.run([sys.executable, "-m", "ruff", "format", *map(str, changed)], check=False)
        if r.returncode != 0:
            print("ruff format failed or is not installed: format the stubs before committing")
    problems = [p for p in check(args.stubs, args.module) if p.kind != "stale"]
    for p in problems:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
