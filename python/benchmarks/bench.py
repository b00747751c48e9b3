"""The speed of bucma's Python policies, printed with the machine's load.

1. The overhead of a decision of a Python policy: a 15-line FCFS in Python
   against bucma's Go ``fcfs`` on the bundled Lille workload (7056 jobs, one
   decision per Batsim message). The overhead per decision is the Python run's
   CPU time, less the Go run's, less the CPU time spent in the policy's own
   code (its ``decide`` less the decisions it sends to Go, which count as
   overhead; read with the thread's CPU clock, whose own cost is measured and
   taken out), over the decisions. Target: 20 µs. CPU times, not wall times:
   a loaded machine inflates the latter, not the former.
2. A priority function in Python over Go's EASY (a ``KeyPolicy`` of the
   submission times, asked once per job) against Go's ``easy``, on the
   engine benchmark's 20 000 jobs (``bucma workload delays``): the ratio of
   their CPU times. Target: 3.

Each measurement is the best of ``--runs`` runs (default 3). Run it with
``make bench-python`` (or ``python3 python/benchmarks/bench.py`` with the
package importable).
"""

from __future__ import annotations

import argparse
import math
import os
import platform as _platform
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import bucma
import bucma.workloads


class FCFS(bucma.Policy):
    """First come, first served, timing its own code (the decide calls less the starts)."""

    def __init__(self) -> None:
        self.code = 0.0
        self.decisions = 0
        self.starts = 0

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        clock = time.thread_time
        t0 = clock()
        sent = 0.0
        for job in state.waiting:
            if job.res > state.nb_free:
                break
            t1 = clock()
            decide.start(job)
            sent += clock() - t1
            self.starts += 1
        self.code += clock() - t0 - sent
        self.decisions += 1


def clock_cost() -> float:
    """The CPU time of one read of the thread's CPU clock (the best of 5 rounds)."""
    best_ = math.inf
    for _ in range(5):
        t = time.thread_time()
        for _ in range(20000):
            time.thread_time()
        best_ = min(best_, (time.thread_time() - t) / 20000)
    return best_


def best(runs: int, fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """The smallest wall and CPU times of runs calls of fn, and fn's last result."""
    walls, cpus = [], []
    out = None
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus), out


def machine() -> str:
    model = _platform.processor() or _platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {_platform.python_version()}, bucma {bucma.__version__}"


def load() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def overhead(runs: int) -> float:
    wl = bucma.workloads.path("lille-7056")
    go_wall, go_cpu, _ = best(runs, lambda: bucma.simulate("lille", wl, "fcfs"))
    c = clock_cost()
    per: list[float] = []
    rows = []
    for _ in range(runs):
        pol = FCFS()
        w, t = time.perf_counter(), time.process_time()
        r = bucma.simulate("lille", wl, pol)
        wall, cpu = time.perf_counter() - w, time.process_time() - t
        # The clock reads outside the code's spans: one per decision, one per start.
        clocks = c * (pol.decisions + pol.starts)
        per.append((cpu - go_cpu - pol.code - clocks) / pol.decisions)
        rows.append((wall, cpu, pol.code, pol.decisions, len(r.jobs)))
    k = min(range(runs), key=lambda i: per[i])
    wall, cpu, code, decisions, jobs = rows[k]
    print(f"1. Python FCFS vs Go fcfs, Lille workload ({jobs} jobs), best of {runs}:")
    print(f"   Go fcfs:      {go_wall:8.3f} s wall  {go_cpu:8.3f} s CPU")
    print(
        f"   Python FCFS:  {wall:8.3f} s wall  {cpu:8.3f} s CPU  ({decisions} decisions, "
        f"{code:.3f} s CPU in the policy's code, clock reads {c * 1e6:.2f} µs each)"
    )
    print(f"   overhead:     {per[k] * 1e6:8.1f} µs CPU per decision (target 20 µs)  load {load()}")
    return per[k]


def key_easy(runs: int, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as d:
        wl = os.path.join(d, "delays.json")
        plat = os.path.join(d, "delays.xml")
        bucma.workloads.delays(wl, jobs=jobs, hosts=128, load=0.95, seed=1, platform_out=plat)
        go_wall, go_cpu, g = best(runs, lambda: bucma.simulate(plat, wl, "easy"))
        key = bucma.KeyPolicy(lambda job: job.submit, rule="easy")
        py_wall, py_cpu, p = best(runs, lambda: bucma.simulate(plat, wl, key))
    same = "the same _jobs.csv" if g.jobs_csv == p.jobs_csv else "DIFFERENT _jobs.csv"
    print(f"2. Python key EASY (key = submission time) vs Go easy, {jobs} delay jobs on 128 hosts,", end="")
    print(f" best of {runs}:")
    print(f"   Go easy:         {go_wall:8.3f} s wall  {go_cpu:8.3f} s CPU")
    print(f"   Python key EASY: {py_wall:8.3f} s wall  {py_cpu:8.3f} s CPU  ({same})")
    print(f"   ratio:           {py_cpu / go_cpu:8.2f} x Go's CPU (target 3)  load {load()}")
    return py_cpu / go_cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each measurement (the best is kept)")
    ap.add_argument("--jobs", type=int, default=20000, help="jobs of the key-EASY case")
    a = ap.parse_args(argv)
    print(f"machine: {machine()}")
    print(f"load:    {load()}")
    overhead(a.runs)
    key_easy(a.runs, a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
