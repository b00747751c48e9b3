"""Fixtures of bucma's Python tests: the repository's files, bucma's command line, the real Batsims."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TINY = str(REPO / "workloads" / "tiny.json")
LILLE = str(REPO / "workloads" / "lille-7056.json")
EXAMPLES = REPO / "examples" / "python"

# The examples' policies (FCFS, EASY) are the tests' too.
sys.path.insert(0, str(EXAMPLES))


@pytest.fixture(scope="session")
def bucma_cli(tmp_path_factory: pytest.TempPathFactory) -> str:
    """bucma's command line: $BUCMA, else built from the repository."""
    env = os.environ.get("BUCMA")
    if env:
        return env
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not on PATH: bucma's command line cannot be built")
    out = tmp_path_factory.mktemp("bin") / "bucma"
    subprocess.run([go, "build", "-o", str(out), "./cmd/bucma"], cwd=REPO, check=True)
    return str(out)


def _tool(name: str, env: str) -> str:
    path = os.environ.get(env) or shutil.which(name)
    if not path:
        pytest.skip(f"{name} is not on PATH (nor named in ${env}): the real-Batsim tests are skipped")
    return path


@pytest.fixture(scope="session")
def batsim() -> str:
    """The real Batsim 4.2.1 (batsim on PATH or $BATSIM), else the test is skipped."""
    return _tool("batsim", "BATSIM")


@pytest.fixture(scope="session")
def batsim5() -> str:
    """Batsim 5 (batsim5 on PATH or $BATSIM5), else the test is skipped."""
    return _tool("batsim5", "BATSIM5")


@pytest.fixture
def cwd_tmp(tmp_path: Path) -> Iterator[Path]:
    """A temporary directory as the current one."""
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)
