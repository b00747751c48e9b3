"""The Python blocks of docs/python.md run, in order, as the page shows them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, REPO

DOC = REPO / "docs" / "python.md"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown text, with their first line's number."""
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, re.S | re.M):
        out.append((text[: m.start()].count("\n") + 2, m.group(1)))
    return out


def test_docs_python_blocks(cwd_tmp: Path) -> None:
    blocks = python_blocks(DOC.read_text())
    assert len(blocks) >= 5, "docs/python.md has lost its Python blocks"
    os.makedirs("out")
    namespace: dict[str, Any] = {"__name__": "docs_python"}
    for line, code in blocks:
        try:
            exec(compile(code, f"{DOC}:{line}", "exec"), namespace)
        except Exception as e:
            pytest.fail(f"docs/python.md:{line}: {type(e).__name__}: {e}")


def test_readme_python_block() -> None:
    """The Python block of README.md's section "From Python"."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## From Python") :]
    section = section[: section.index("\n## ", 1)]
    blocks = python_blocks(section)
    assert len(blocks) == 1
    exec(compile(blocks[0][1], "README.md (From Python)", "exec"), {"__name__": "readme"})


def test_examples_run(cwd_tmp: Path) -> None:
    """The examples that need no Batsim run and say what they should."""
    import runpy

    for name, expect in [("fcfs.py", "as Go's fcfs: True"), ("easy.py", "as Go's easy: True")]:
        out = _run(runpy, EXAMPLES / name)
        assert expect in out, out
    assert "wfp3 + easy" in _run(runpy, EXAMPLES / "priority.py")


def _run(runpy: Any, path: Path) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        runpy.run_path(str(path), run_name="__main__")
    return buf.getvalue()
