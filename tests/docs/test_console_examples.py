"""The shell sessions of docs/getting-started.md run as shown.

Every ```console block whose commands are all `guomi ...` or plain shell (no `pip`) runs
in a fresh folder, one `$ ` command at a time with `guomi` meaning this interpreter's
`python -m guomi`; each command must exit 0, and the lines shown after a command must
appear in its output.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
PAGES = ("getting-started.md",)


def sessions() -> list[tuple[str, int, list[tuple[str, list[str]]]]]:
    found = []
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```console\n(.*?)```", text, re.S)):
            steps: list[tuple[str, list[str]]] = []
            for line in block.splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                elif steps and line.strip():
                    steps[-1][1].append(line)
            if steps and not any(cmd.split()[0] == "pip" for cmd, _ in steps):
                found.append((page, i, steps))
    return found


SESSIONS = sessions()


def test_getting_started_has_a_session() -> None:
    assert any(any(cmd.startswith("guomi sm2 verify") for cmd, _ in s) for _, _, s in SESSIONS)


@pytest.mark.parametrize(("page", "index", "steps"), SESSIONS, ids=[f"{p}#{i}" for p, i, _ in SESSIONS])
def test_console_session(page: str, index: int, steps: list[tuple[str, list[str]]], tmp_path: Path) -> None:
    guomi = f"{shlex.quote(sys.executable)} -m guomi"
    for command, expected in steps:
        real = re.sub(r"^guomi\b", guomi, command)
        res = subprocess.run(
            ["bash", "-c", real], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
        )
        assert res.returncode == 0, f"{page} block {index}: `{command}` exited {res.returncode}: {res.stderr}"
        for line in expected:
            assert line in res.stdout + res.stderr, (
                f"{page} block {index}: `{command}` did not print {line!r}"
            )
