"""bucma.simulate: the embedded engine from Python, its tables and files."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

import bucma
from conftest import LILLE, TINY


def test_lille_easy_exports_the_command_lines_bytes(bucma_cli: str, tmp_path: Path) -> None:
    """The README's example, and export() writes bucma simulate's _jobs.csv byte for byte."""
    r = bucma.simulate("lille", "workloads/lille-7056.json", policy="easy")
    assert len(r.jobs) == 7056
    assert list(r.jobs.columns[:3]) == ["job_id", "workload_name", "profile"]
    subprocess.run(
        [
            bucma_cli,
            "simulate",
            "-p",
            "lille",
            "-w",
            LILLE,
            "--scheduler",
            "easy",
            "-e",
            str(tmp_path / "cli"),
            "-q",
        ],
        check=True,
    )
    paths = r.export(tmp_path / "py")
    assert paths == [str(tmp_path / "py_jobs.csv"), str(tmp_path / "py_schedule.csv")]
    assert (tmp_path / "py_jobs.csv").read_bytes() == (tmp_path / "cli_jobs.csv").read_bytes()
    cli = (tmp_path / "cli_schedule.csv").read_text().splitlines()
    py = (tmp_path / "py_schedule.csv").read_text().splitlines()
    assert cli[0] == py[0]
    # The same row but the wall times (scheduling_time, simulation_time).
    timing = {cli[0].split(",").index(k) for k in ("scheduling_time", "simulation_time")}
    a, b = cli[1].split(","), py[1].split(",")
    assert [x for i, x in enumerate(a) if i not in timing] == [x for i, x in enumerate(b) if i not in timing]


def test_result_tables() -> None:
    r = bucma.simulate("lille", TINY, "fcfs", {"hosts": "first-fit"})
    assert r.schedule["nb_jobs"] == 20 and r.schedule["batsim_version"] == "bucma-sim-batsim-4.2.1"
    assert r.metrics["ran"] == 20 and r.metrics["utilization"] > 0
    assert r.summary["by_state"] == {"COMPLETED_SUCCESSFULLY": 20}
    assert "bucma.Result: 20 jobs" in repr(r)
    jobs = r.jobs
    assert (jobs["final_state"] == "COMPLETED_SUCCESSFULLY").all()
    assert math.isclose(jobs["waiting_time"].mean(), r.metrics["mean_waiting_time"], rel_tol=1e-6)


def test_jobs_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pandas, the jobs are a list of dicts, numbers as numbers."""
    monkeypatch.setitem(sys.modules, "pandas", None)  # type: ignore[misc]
    r = bucma.simulate("lille", TINY, "easy")
    assert isinstance(r.jobs, list) and len(r.jobs) == 20
    row = r.jobs[0]
    assert row["job_id"] == 1 and row["workload_name"] == "w0" and isinstance(row["starting_time"], float)


def test_export_while_running(tmp_path: Path) -> None:
    """export= writes the files as the run goes, as bucma simulate -e."""
    r = bucma.simulate("lille", TINY, "easy", export=tmp_path / "out", trace=tmp_path / "trace.csv")
    assert (tmp_path / "out_jobs.csv").read_bytes() == r.jobs_csv
    assert (tmp_path / "trace.csv").read_text().count("\n") == 21


def test_engine_options(bucma_cli: str, tmp_path: Path) -> None:
    """The engine options are bucma simulate's flags."""
    r = bucma.simulate("lille", TINY, "easy", latency="none", jobs_format="batsim5")
    subprocess.run(
        [bucma_cli, "simulate", "-p", "lille", "-w", TINY, "--scheduler", "easy", "--latency", "none"]
        + ["--jobs-format", "batsim5", "-e", str(tmp_path / "cli"), "-q"],
        check=True,
    )
    assert r.jobs_csv == (tmp_path / "cli_jobs.csv").read_bytes()


def test_two_workloads_and_bundled_names() -> None:
    r = bucma.simulate("lille.xml", ["tiny", TINY], "fcfs")
    assert sorted(set(r.jobs["workload_name"])) == ["w0", "w1"] and len(r.jobs) == 40
    assert "lille-7056" in bucma.bundled_workloads() and "lille" in bucma.platforms()
    assert bucma.workloads.path("tiny").endswith("tiny.json")


def test_policies_listed() -> None:
    names = {p["name"]: p for p in bucma.policies()}
    assert {"easy", "fcfs", "conservative"} <= set(names)
    assert any(o["Name"] == "hosts" for o in names["easy"]["options"])


def test_many_runs_in_one_process() -> None:
    """Runs one after another (and interleaved below) share nothing."""
    first = bucma.simulate("lille", TINY, "easy").jobs_csv
    for _ in range(20):
        assert bucma.simulate("lille", TINY, "easy").jobs_csv == first
