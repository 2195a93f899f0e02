#!/usr/bin/env python3
"""Checks a built documentation site (``scripts/docs.sh`` runs it on target/docs/html).

    python tests/docs/check_site.py SITE_DIR [--screenshot FILE] [--chromium PATH]

1. Every internal link resolves: each ``href``/``src`` of every HTML page that is not an
   external URL must name an existing file, and its ``#fragment`` (if any) an ``id`` or
   ``name`` in that page. Nothing is fetched from the network.
2. The index page renders in a real headless Chromium (the Debian ``chromium`` package;
   no browser is downloaded): ``--dump-dom`` must contain the project name and the
   table of contents with links to the guides, and a screenshot taken now must not be
   blank (enough non-background pixels and colours, i.e. text and styles rendered).

Exit status 0 when everything holds, 1 with the reasons otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: Pages the index's table of contents must link to (a sample of every toctree).
EXPECTED_TOC = ("getting-started.html", "sm2.html", "interop.html", "api/index.html", "api/cli.html")

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1280,1000",
)


@dataclass
class Page:
    ids: set[str] = field(default_factory=set)
    links: list[tuple[str, str]] = field(default_factory=list)  # (attribute, url)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.page.ids.add(value)
            elif name in ("href", "src") and tag != "base":
                self.page.links.append((name, value))


def parse_page(path: Path) -> Page:
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8", errors="replace"))
    collector.close()
    return collector.page


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


def broken_links(site: Path) -> tuple[list[str], int]:
    """(problems, number of internal links checked) for every HTML page under ``site``."""
    pages = {p.resolve(): parse_page(p) for p in sorted(site.rglob("*.html"))}
    problems: list[str] = []
    checked = 0
    for path, page in pages.items():
        rel = path.relative_to(site.resolve())
        for attr, url in page.links:
            if not url or is_external(url) or url.startswith(("mailto:", "javascript:", "data:")):
                continue
            checked += 1
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{rel}: {attr}={url!r}: no file {target.name!r}")
                continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse_page(target).ids
                if frag not in ids:
                    problems.append(f"{rel}: {attr}={url!r}: no anchor #{frag} in {target.name}")
    return problems, checked


def find_chromium(explicit: str | None) -> str:
    for candidate in (explicit, shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("no chromium found (Debian: apt-get install chromium); no browser is downloaded")


def run_chromium(chromium: str, args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="guomi-docs-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def screenshot_problems(png: Path) -> list[str]:
    """A blank or near-blank screenshot means the page did not render."""
    from PIL import Image  # installed with matplotlib (docs/requirements.txt)

    if not png.is_file() or png.stat().st_size == 0:
        return [f"no screenshot was written to {png}"]
    with Image.open(png) as img:
        rgb = img.convert("RGB")
        width, height = rgb.size
        raw = rgb.resize((width // 4, height // 4)).tobytes()
    pixels = [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]
    background = max(set(pixels), key=pixels.count)
    ink = sum(1 for p in pixels if sum(abs(a - b) for a, b in zip(p, background, strict=True)) > 60)
    colours = len(set(pixels))
    problems = []
    if width < 800 or height < 600:
        problems.append(f"screenshot is {width}x{height}, expected the 1280x1000 window")
    if ink < 0.01 * len(pixels):
        problems.append(f"screenshot is blank: {ink} of {len(pixels)} pixels differ from the background")
    if colours < 16:
        problems.append(f"screenshot has only {colours} colours: no text or styles rendered")
    return problems


def dom_problems(dom: str, project: str) -> list[str]:
    problems = []
    if f"<title>{project}" not in dom and f"{project} " not in dom:
        problems.append(f"the rendered DOM does not contain the project name {project!r}")
    if "toctree-wrapper" not in dom:
        problems.append("the rendered DOM has no table of contents (toctree-wrapper)")
    for page in EXPECTED_TOC:
        if f'href="{page}"' not in dom:
            problems.append(f"the table of contents does not link to {page}")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site", type=Path, help="the built HTML folder (target/docs/html)")
    p.add_argument(
        "--screenshot", type=Path, help="where to keep the screenshot (default: SITE/../screenshot.png)"
    )
    p.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    p.add_argument("--project", default="guomi")
    args = p.parse_args(argv)
    site: Path = args.site.resolve()
    index = site / "index.html"
    if not index.is_file():
        print(f"{index}: not built", file=sys.stderr)
        return 1

    problems, checked = broken_links(site)
    pages = len(list(site.rglob("*.html")))
    print(f"links: {checked} internal links and anchors in {pages} pages checked, {len(problems)} broken")

    chromium = find_chromium(args.chromium)
    url = index.as_uri()
    shot = (args.screenshot or site.parent / "screenshot.png").resolve()
    shot.unlink(missing_ok=True)
    res = run_chromium(chromium, [f"--screenshot={shot}"], url)
    if res.returncode != 0:
        problems.append(f"chromium --screenshot exited {res.returncode}: {res.stderr.strip()[-500:]}")
    problems += screenshot_problems(shot)
    res = run_chromium(chromium, ["--dump-dom"], url)
    if res.returncode != 0:
        problems.append(f"chromium --dump-dom exited {res.returncode}: {res.stderr.strip()[-500:]}")
    problems += dom_problems(res.stdout, args.project)
    print(f"browser: {chromium}: screenshot {shot}, DOM {len(res.stdout)} characters")

    for problem in problems:
        print("  " + problem, file=sys.stderr)
    print("site check: " + ("OK" if not problems else f"{len(problems)} problem(s)"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
