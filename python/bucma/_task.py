"""Long jobs of the library run as tasks: a workload command, a campaign."""

from __future__ import annotations

import ctypes
import json
import os
from ctypes import c_char_p, c_int64
from typing import Any

from . import _lib
from .errors import from_failure


class Task:
    """A task of the library: stepped until it ends, so that Ctrl-C stops it."""

    def __init__(self, fn: str, args: Any) -> None:
        data = json.dumps({"fn": fn, "args": args}).encode()
        hid = c_int64()
        err = c_char_p()
        _lib.check(_lib.lib.bucmapy_task(data, len(data), ctypes.byref(hid), ctypes.byref(err)), err)
        self.handle = _lib.Handle.adopt(hid.value)

    def wait(self) -> Any:
        """Wait for the task's end and return its output (JSON); Ctrl-C stops it."""
        h = self.handle
        try:
            while h.next() != 0:
                pass
            out = h.result().get("result")
        except BaseException:
            h.close("the task was interrupted")
            raise
        f = h.close()
        if f:
            raise from_failure(f["kind"], f["message"], f.get("partial"))
        return out


class Campaign:
    """A finished campaign: its directory, ``results.csv`` as a table, the runs' counts."""

    def __init__(self, out: dict[str, Any]) -> None:
        self.dir: str = out["dir"]
        self.results_path: str = out["results"]
        self.report_path: str | None = out.get("report")
        self.total: int = out["total"]
        self.done: int = out["done"]
        self.skipped: int = out["skipped"]
        self._results: Any = None

    @property
    def results(self) -> Any:
        """``results.csv``, one row per run and metric (a pandas DataFrame when pandas is importable)."""
        if self._results is None:
            from ._run import _read_csv

            with open(self.results_path, "rb") as f:
                self._results = _read_csv(f.read())
        return self._results

    def __repr__(self) -> str:
        return f"<bucma.Campaign {self.dir}: {self.total} runs ({self.done} done now, {self.skipped} before)>"


def campaign(
    plan: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    seeds: int | None = None,
    jobs: int | None = None,
    loads: list[float] | None = None,
    quick: bool = False,
    timeout: float | None = None,
    report: bool = False,
) -> Campaign:
    """Run a campaign, as ``bucma expe run``, with bucma's embedded engine.

    ``plan`` is a plan file (docs/campaigns.md) or a built-in plan's name;
    ``out`` the campaign directory (default ``results/PLAN``). A campaign
    resumes: the runs done are kept. ``seeds``, ``jobs``, ``loads`` and
    ``quick`` override the plan's sizes, ``timeout`` bounds each run (seconds),
    ``report`` writes ``report.md`` too. Ctrl-C stops the campaign (the runs
    done are kept). The plan is checked before anything runs: a mistake raises
    :class:`bucma.OptionError` naming the file, the line and the key.
    """
    args: dict[str, Any] = {"plan": os.fspath(plan), "quick": quick, "report": report}
    if out is not None:
        args["out"] = os.fspath(out)
    for k, v in (
        ("workers", workers),
        ("seeds", seeds),
        ("jobs", jobs),
        ("loads", loads),
        ("timeout", timeout),
    ):
        if v is not None:
            args[k] = v
    return Campaign(Task("campaign", args).wait())
