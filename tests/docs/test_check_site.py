"""The site checker's link check finds what it should, on a small synthetic site."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("check_site", HERE / "check_site.py")
assert _spec is not None and _spec.loader is not None
check_site = importlib.util.module_from_spec(_spec)
sys.modules["check_site"] = check_site  # dataclasses look their module up there
_spec.loader.exec_module(check_site)


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for name, body in pages.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
    return tmp_path


def test_good_links_pass(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "index.html": '<a href="a.html#sec">a</a> <a href="#top" id="top">t</a> <a href="sub/">s</a>'
            '<img src="_static/x.png"> <a href="https://example.com/#nope">ext</a>'
            '<a href="mailto:a@example.com">m</a> <a href="a.html?highlight=x">q</a>',
            "a.html": '<h1 id="sec">A</h1><a name="old">legacy</a><a href="index.html#top">',
            "sub/index.html": '<a href="../a.html#old">back</a> <a href="../a%20b.html">space</a>',
            "a b.html": "",
        },
    )
    (site / "_static").mkdir()
    (site / "_static" / "x.png").write_bytes(b"png")
    problems, checked = check_site.broken_links(site)
    assert problems == []
    assert checked == 8


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('<a href="missing.html">x</a>', "no file 'missing.html'"),
        ('<a href="index.html#nowhere">x</a>', "no anchor #nowhere in index.html"),
        ('<a href="#nowhere">x</a>', "no anchor #nowhere in index.html"),
        ('<link rel="stylesheet" href="_static/gone.css">', "no file 'gone.css'"),
        ('<script src="_static/gone.js"></script>', "no file 'gone.js'"),
    ],
)
def test_each_kind_of_broken_link_is_reported(tmp_path: Path, body: str, expected: str) -> None:
    site = _site(tmp_path, {"index.html": body})
    problems, checked = check_site.broken_links(site)
    assert checked == 1
    assert len(problems) == 1 and expected in problems[0]


def test_dom_check_needs_name_and_toc() -> None:
    toc = "".join(f'<a href="{p}">' for p in check_site.EXPECTED_TOC)
    good = f'<title>guomi 0.1</title><div class="toctree-wrapper">{toc}</div>'
    assert check_site.dom_problems(good, "guomi") == []
    assert len(check_site.dom_problems("<title>x</title>", "guomi")) == 2 + len(check_site.EXPECTED_TOC)
    missing_one = good.replace('href="interop.html"', "")
    assert check_site.dom_problems(missing_one, "guomi") == [
        "the table of contents does not link to interop.html"
    ]


def test_blank_screenshot_is_rejected(tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    blank = tmp_path / "blank.png"
    image.new("RGB", (1280, 1000), "white").save(blank)
    problems = check_site.screenshot_problems(blank)
    assert any("blank" in p for p in problems) and any("colours" in p for p in problems)
    assert check_site.screenshot_problems(tmp_path / "absent.png") == [
        f"no screenshot was written to {tmp_path / 'absent.png'}"
    ]
