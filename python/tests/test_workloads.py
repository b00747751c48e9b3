"""Workload generators and conversions, and campaigns, from Python: the command line's outputs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import bucma
from conftest import REPO, TINY


def test_generators_write_the_command_lines_bytes(bucma_cli: str, tmp_path: Path) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("delays", {"jobs": 50, "hosts": 16, "seed": 4}, "--jobs 50 --hosts 16 --seed 4"),
        ("lille", {"jobs": 40, "seed": 2}, "--jobs 40 --seed 2"),
        ("lublin", {"jobs": 30, "seed": 5, "format": "json"}, "--jobs 30 --seed 5 --format json"),
    ]
    for name, flags, cli in cases:
        py = getattr(bucma.workloads, name)(tmp_path / f"{name}.json", **flags)
        out = tmp_path / f"{name}-cli.json"
        subprocess.run([bucma_cli, "workload", name, *cli.split(), "-o", str(out)], check=True)
        assert Path(py).read_bytes() == out.read_bytes(), name
        assert len(json.loads(Path(py).read_text())["jobs"]) == flags["jobs"]


def test_swf_and_v5(tmp_path: Path) -> None:
    w = bucma.workloads.from_swf(REPO / "testdata" / "cluster.swf", tmp_path / "cluster.json", to=200000)
    assert json.loads(Path(w).read_text())["jobs"]
    v5 = bucma.workloads.to_v5("tiny", tmp_path / "tiny-v5.json")
    assert "Batsim 5 format" in bucma.workloads.check(v5, for_="batsim5")
    r = bucma.simulate("lille", v5, "easy", jobs_format="batsim5")
    assert len(r.jobs) == 20


def test_workload_errors(tmp_path: Path) -> None:
    with pytest.raises(bucma.OptionError, match="jobz"):
        bucma.workloads.delays(tmp_path / "x.json", jobz=3)
    bad = tmp_path / "bad.json"
    bad.write_text('{"nb_res": 4, "jobs": [{"id": 1}], "profiles": {}}')
    with pytest.raises(bucma.SimulationError, match="no 'subtime' field"):
        bucma.workloads.check(bad)
    with pytest.raises(bucma.SimulationError, match="already in Batsim 5's format"):
        v5 = bucma.workloads.to_v5(TINY, tmp_path / "v5.json")
        bucma.workloads.to_v5(v5, tmp_path / "v5-again.json")


def test_campaign(tmp_path: Path) -> None:
    """A campaign file runs from Python; results.csv is a table; a second call resumes."""
    plan = tmp_path / "small.yaml"
    plan.write_text(
        "name: small\nplatform: lille\nworkload:\n  generator: swf\n"
        f"  file: {REPO / 'testdata' / 'cluster.swf'}\n  steps: [window, scale-load]\n  window_jobs: 60\n"
        "loads: [0.8]\nseeds: 1-2\nvariants:\n"
        "  - {name: easy, policy: easy}\n  - {name: fcfs, policy: fcfs}\n"
    )
    c = bucma.campaign(plan, tmp_path / "out", workers=2)
    assert c.total == 4 and c.done == 4 and c.skipped == 0
    res = c.results
    assert set(res["variant"]) == {"easy", "fcfs"} and "metric" in res.columns
    again = bucma.campaign(plan, tmp_path / "out")
    assert again.done == 0 and again.skipped == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text(plan.read_text().replace("policy: fcfs", "policy: fcfz"))
    with pytest.raises(bucma.Error, match=r"bad.yaml:\d+: variants\[1\].policy"):
        bucma.campaign(bad, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
