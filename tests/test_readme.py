"""Every ```python block of README.md runs and its assertions hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example(index: int) -> None:
    exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {"__name__": "readme"})
