"""Sphinx configuration of the guomi documentation site.

Build with ``scripts/docs.sh`` (HTML with warnings as errors, the examples as doctests,
then a headless-browser check of the result). The Markdown pages in this folder are the
pages (MyST-Parser); the API reference is rendered by autodoc from the installed package's
docstrings and ``__text_signature__``; the CLI reference comes from the argparse parser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

import guomi

project = "guomi"
author = "the guomi authors"
copyright = "the guomi authors"  # noqa: A001 - the name Sphinx reads
release = guomi.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# -- MyST: the existing Markdown pages, unchanged ----------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
# Headings become link targets ("sm2.md#signatures-gb-t-32918-2") down to level 4.
myst_heading_anchors = 4

# -- autodoc ------------------------------------------------------------------------------
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
# The docstrings use Google-style sections ("Args:", "Returns:", "Raises:", "Example:");
# napoleon turns them into Sphinx fields.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# The facade's annotations name types (BytesLike aliases, typing constructs) that need not
# resolve to a documented object; no cross-reference warnings for them.
nitpicky = False

# -- doctest ------------------------------------------------------------------------------
# `sphinx-build -b doctest` runs: every ```python / ```pycon block of the Markdown pages
# (marked below; the blocks of one page share a namespace, in page order) and every
# ``>>>`` example in the docstrings that autodoc renders.
doctest_test_doctest_blocks = "default"
doctest_global_setup = "import guomi"

# -- HTML ---------------------------------------------------------------------------------
html_theme = "furo"
# Keep "--option" and quotes as typed (a CLI reference must not turn "--" into a dash).
smartquotes = False
html_title = f"guomi {release}"
html_static_path = ["_static"]
html_show_sourcelink = False
html_last_updated_fmt: str | None = None

# A block that is not meant to run (an API outline with "-> type" annotations, say) is
# written as ```{code-block} python with ":class: no-doctest"; names a page's examples
# need but do not show come from a hidden ```{testsetup} block on that page.
NO_RUN_CLASS = "no-doctest"


def _mark_examples(app: Sphinx, doctree: nodes.document) -> None:
    """Turns the Python examples of the Markdown pages into doctest-builder tests."""
    docname = app.env.docname
    if not app.env.doc2path(docname).suffix == ".md":
        return
    for node in doctree.findall(nodes.literal_block):
        lang = node.get("language", "")
        if lang not in ("python", "pycon") or "testnodetype" in node:
            continue
        if NO_RUN_CLASS in node.get("classes", []):
            continue
        text = node.astext()
        interactive = lang == "pycon" or text.lstrip().startswith(">>>")
        node["testnodetype"] = "doctest" if interactive else "testcode"
        node["groups"] = ["default"]
        if interactive:
            node["options"] = {}


def _list_new_pages(app: Sphinx, docname: str, source: list[str]) -> None:
    """Appends to the index a "More" table of contents with every top-level page that no
    toctree of the index names yet, so a new guide is on the site (and the build does not
    fail on an unlisted page) until someone gives it its place."""
    if docname != root_doc:
        return
    text = source[0]
    listed = set(re.findall(r"^([\w./-]+)\s*$", text, flags=re.M))
    srcdir = Path(app.srcdir)
    extra = sorted(
        p.stem for p in srcdir.glob("*.md") if p.stem != root_doc and p.stem not in listed and p.is_file()
    )
    if extra:
        source[0] = text + "\n```{toctree}\n:caption: More\n:maxdepth: 1\n\n" + "\n".join(extra) + "\n```\n"


#: A Google-style section header on a line of its own ("Args:", "Example:", ...).
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns?|Yields?|Raises|Examples?|Notes?|Warnings?|See Also|"
    r"Attributes|Methods|References|Todo):\s*$"
)


def _napoleon(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """napoleon, with two adjustments for docstrings that read well in ``help()``:

    * a section header right after text (no blank line between) still starts a section;
    * a property's or constant's docstring is read like a method's: napoleon would
      otherwise take the text before the first colon of its first line as its *type*.
    """
    from sphinx.ext.napoleon import _process_docstring

    fixed: list[str] = []
    for line in lines:
        if _SECTION.match(line) and fixed and fixed[-1].strip():
            fixed.append("")
        fixed.append(line)
    lines[:] = fixed
    kind = "method" if what in ("property", "attribute", "data") else what
    _process_docstring(app, kind, name, obj, options, lines)


def _use_adjusted_napoleon(app: Sphinx) -> None:
    from sphinx.ext.napoleon import _process_docstring

    listeners = app.events.listeners.get("autodoc-process-docstring", [])
    for listener in list(listeners):
        if listener.handler is _process_docstring:
            app.disconnect(listener.id)
    app.connect("autodoc-process-docstring", _napoleon)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _mark_examples)
    app.connect("source-read", _list_new_pages)
    _use_adjusted_napoleon(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
