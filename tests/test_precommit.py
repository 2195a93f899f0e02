"""The hooks of .pre-commit-config.yaml: each ``files`` pattern matches files that exist,
so no hook silently never runs (pre-commit skips a hook whose pattern matches nothing)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _hooks() -> list[tuple[str, str]]:
    """(id, files pattern) of every hook, read line by line (no YAML parser needed: the
    file keeps one `key: value` per line)."""
    hooks: list[tuple[str, str]] = []
    hook_id = None
    for line in (ROOT / ".pre-commit-config.yaml").read_text().splitlines():
        m = re.match(r"\s*- id: (\S+)", line)
        if m:
            hook_id = m.group(1)
        m = re.match(r"\s*files: (.+)$", line)
        if m and hook_id:
            hooks.append((hook_id, m.group(1).strip()))
    return hooks


def _tracked() -> list[str]:
    try:
        r = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("git is not installed")
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    return r.stdout.splitlines()


def test_every_hook_pattern_matches_a_tracked_file() -> None:
    files = _tracked()
    hooks = _hooks()
    assert len(hooks) >= 8
    dead = [(hook_id, pattern) for hook_id, pattern in hooks if not any(re.search(pattern, f) for f in files)]
    assert not dead, f"hooks that never run: {dead}"


def test_stubtest_runs_when_a_stub_changes() -> None:
    pattern = dict(_hooks())["stubtest"]
    assert re.search(pattern, "python/guomi/_native/sm4.pyi")
    assert re.search(pattern, "crates/guomi-python/src/sm4.rs")
