"""scripts/docs.sh on a fresh clone: every module that a doctested example of docs/*.md
imports is the standard library, guomi, or a package pinned in docs/requirements.txt
(the only packages docs.sh installs), so the doctests need nothing that scripts/test.sh
happens to have put into .venv."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"

# ```python / ```pycon fences, and MyST code-block directives with their options.
_FENCE = re.compile(r"^```(?:\{code-block\}\s*)?(python|pycon)\s*\n(.*?)^```", re.M | re.S)
_IMPORT = re.compile(r"^(?:>>> |\.\.\. )?\s*(?:import|from)\s+([A-Za-z_][\w]*)", re.M)


def _doctested_imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for page in sorted(DOCS.glob("*.md")):
        for m in _FENCE.finditer(page.read_text(encoding="utf-8")):
            body = m.group(2)
            if re.search(r"^:class:.*no-doctest", body, re.M):
                continue
            for name in _IMPORT.findall(body):
                found.setdefault(name, set()).add(page.name)
    return found


def _pinned() -> set[str]:
    names = set()
    for line in (DOCS / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(re.split(r"[=<>!~\[ ;]", line, maxsplit=1)[0].lower().replace("-", "_"))
    return names


def test_doctest_imports_are_installed_by_docs_requirements() -> None:
    imports = _doctested_imports()
    assert "guomi" in imports  # the scan sees the pages' examples
    third_party = {
        n: pages for n, pages in imports.items() if n != "guomi" and n not in sys.stdlib_module_names
    }
    missing = {n: sorted(p) for n, p in third_party.items() if n.lower() not in _pinned()}
    assert not missing, f"imported by doctested examples but not in docs/requirements.txt: {missing}"
