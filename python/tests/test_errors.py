"""Errors: Go's text in Python's exceptions, a failing policy, Ctrl-C, and calls that abuse the library."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bucma
from bucma import _lib
from bucma._run import Run
from conftest import EXAMPLES, LILLE, TINY
from fcfs import FCFS


def test_bad_inputs_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(
        bucma.SimulationError, match=r'platform "nowhere.xml": no such file and no such bundled platform'
    ):
        bucma.simulate("nowhere.xml", TINY)
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "p"}],\n'
        ' "profiles": {"p": {"type": "delay"}}}'
    )
    with pytest.raises(bucma.Error, match=r"bad.json.*delay"):
        bucma.simulate("lille", bad)
    broken = tmp_path / "broken.json"
    broken.write_text('{"nb_res": 4,\n "jobs": [\n')
    with pytest.raises(bucma.Error, match=r"broken.json"):
        bucma.simulate("lille", broken)
    with pytest.raises(bucma.Error, match=r"nothere.json"):
        bucma.simulate("lille", tmp_path / "nothere.json")


def test_bad_policy_and_options() -> None:
    with pytest.raises(bucma.OptionError, match=r'unknown scheduler "eazy" \(valid: .*easy'):
        bucma.simulate("lille", TINY, "eazy")
    with pytest.raises(bucma.OptionError, match=r'scheduler easy: unknown option "host" \(valid: hosts'):
        bucma.simulate("lille", TINY, "easy", {"host": "fastest"})
    with pytest.raises(bucma.OptionError, match=r'option hosts="slowest": valid values are fastest'):
        bucma.simulate("lille", TINY, "easy", {"hosts": "slowest"})
    with pytest.raises(bucma.OptionError, match=r'option rule="lifo": valid values are fcfs, easy'):
        bucma.simulate("lille", TINY, bucma.KeyPolicy(lambda j: 0.0, rule="lifo"))
    with pytest.raises(bucma.OptionError, match=r'unknown engine option "latencies" \(valid: '):
        bucma.simulate("lille", TINY, latencies="none")
    with pytest.raises(bucma.OptionError, match=r'latency="fast": valid values are batsim, none'):
        bucma.simulate("lille", TINY, latency="fast")
    with pytest.raises(bucma.OptionError, match=r"engine option energy"):
        bucma.simulate("lille", TINY, energy="on")
    with pytest.raises(TypeError, match="policy: want"):
        bucma.simulate("lille", TINY, 42)  # type: ignore[arg-type]
    # An error is an exception of Python's kind too.
    with pytest.raises(ValueError):
        bucma.simulate("lille", TINY, "eazy")


class Twice(bucma.Policy):
    """Starts the first job twice: the Decider refuses the second start."""

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        job = state.waiting.first()
        if job is not None and job.res <= state.nb_free:
            decide.start(job)
            decide.start(job)


def test_invalid_decision_stops_the_run(tmp_path: Path) -> None:
    with pytest.raises(
        bucma.DecisionError, match=r"invalid decision at t=.*: start w0!\d+: job is RUNNING, not waiting"
    ) as e:
        bucma.simulate("lille", TINY, Twice(), export=tmp_path / "out")
    assert e.value.partial == [str(tmp_path / "out_jobs.csv.partial")]
    assert (tmp_path / "out_jobs.csv.partial").exists() and not (tmp_path / "out_jobs.csv").exists()
    assert any("kept in" in n for n in getattr(e.value, "__notes__", []))

    class Hosts(bucma.Policy):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            for job in state.waiting:
                decide.start(job, [999] * job.res)

    with pytest.raises(bucma.DecisionError, match=r"host 999 does not exist"):
        bucma.simulate("lille", TINY, Hosts())

    class TooBig(bucma.Policy):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            for job in state.waiting:
                decide.start(job)

    with pytest.raises(bucma.DecisionError, match=r"hosts requested, \d+ free"):
        bucma.simulate("lille", LILLE, TooBig())

    class Early(bucma.Policy):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            decide.call_me_later(state.now)

    with pytest.raises(bucma.DecisionError):
        bucma.simulate("lille", TINY, Early())


def test_python_exception_in_a_policy(tmp_path: Path) -> None:
    """The policy's own exception comes out, with its traceback; the outputs are partial."""

    class Broken(FCFS):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            if state.now > 1000:
                raise ZeroDivisionError("the policy's own bug")
            super().decide(state, decide)

    with pytest.raises(ZeroDivisionError, match="the policy's own bug") as e:
        bucma.simulate("lille", TINY, Broken(), export=tmp_path / "out")
    assert e.traceback[-1].name == "decide"
    assert not (tmp_path / "out_jobs.csv").exists() and (tmp_path / "out_jobs.csv.partial").exists()
    assert any("out_jobs.csv.partial" in n for n in e.value.__notes__)

    def bad_key(job: bucma.Job) -> float:
        if job.idx == 5:
            raise KeyError("no such user")
        return job.submit

    with pytest.raises(KeyError, match="no such user"):
        bucma.simulate("lille", TINY, bucma.KeyPolicy(bad_key))
    with pytest.raises(TypeError):
        bucma.simulate("lille", TINY, bucma.KeyPolicy(lambda j: "first"))

    def wrong_shape(batch: bucma.KeyBatch) -> np.ndarray[Any, Any]:
        return np.zeros(len(batch) + 1)

    with pytest.raises(ValueError, match="returned"):
        bucma.simulate("lille", TINY, bucma.KeyPolicy(wrong_shape, vectorized=True))


def test_nan_keys_come_last() -> None:
    r = bucma.simulate("lille", TINY, bucma.KeyPolicy(lambda j: float("nan") if j.idx % 2 else j.submit))
    assert len(r.jobs) == 20


def test_keyboard_interrupt_in_a_policy(tmp_path: Path) -> None:
    """Ctrl-C while Python decides: KeyboardInterrupt comes out, the outputs are partial."""

    class Interrupted(FCFS):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            if state.now > 1000:
                os.kill(os.getpid(), signal.SIGINT)
            super().decide(state, decide)

    with pytest.raises(KeyboardInterrupt):
        bucma.simulate("lille", TINY, Interrupted(), export=tmp_path / "out")
    assert (tmp_path / "out_jobs.csv.partial").exists() and not (tmp_path / "out_jobs.csv").exists()


@pytest.fixture(scope="module")
def big_workload(tmp_path_factory: pytest.TempPathFactory) -> str:
    return bucma.workloads.lille(tmp_path_factory.mktemp("big") / "big.json", jobs=50000, seed=3)


def test_long_go_runs_come_back_to_python(big_workload: str, tmp_path: Path) -> None:
    """A run of Go's policy hands Python a chance to stop it now and then (RUNNING points)."""
    run = Run(
        {
            "platform": "lille",
            "workloads": [big_workload],
            "export": str(tmp_path / "o"),
            "policy": {"name": "easy"},
        },
        "easy",
    )
    running = 0
    try:
        while (k := run.handle.next()) != 0:
            assert k == 3
            running += 1
    finally:
        run.close()
    assert running > 0


def test_ctrl_c_stops_a_long_simulation(big_workload: str, tmp_path: Path) -> None:
    """Ctrl-C while Go runs EASY on 50 000 jobs: KeyboardInterrupt, partial outputs.

    The kernel's timer delivers the signal 0.1 s into the run (the run takes
    longer: more than 0.1 s of CPU), to Python's handler of Ctrl-C, while Go
    runs the engine; Python raises KeyboardInterrupt when the engine hands it
    the next RUNNING point.
    """
    config = {
        "platform": "lille",
        "workloads": [big_workload],
        "export": str(tmp_path / "out"),
        "policy": {"name": "easy"},
    }
    old = signal.signal(signal.SIGALRM, signal.default_int_handler)
    try:
        run = Run(config, "easy")
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(KeyboardInterrupt) as e:
            run.drive()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert (tmp_path / "out_jobs.csv.partial").exists() and not (tmp_path / "out_jobs.csv").exists()
    assert any("out_jobs.csv.partial" in n for n in e.value.__notes__)
    assert run.handle.closed


def test_a_process_that_ends_mid_run(tmp_path: Path) -> None:
    """A Python process that ends with a run under way: the run is closed, its outputs partial."""
    config = {
        "platform": "lille",
        "workloads": [LILLE],
        "export": str(tmp_path / "out"),
        "policy": FCFS()._config(),
    }
    child = (
        "import sys\n"
        f"sys.path.insert(0, {str(EXAMPLES)!r})\n"
        "from bucma._run import Run\n"
        "from fcfs import FCFS\n"
        f"run = Run({config!r}, FCFS())\n"
        "assert run.handle.next() == 1\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(bucma.__file__).parent.parent))
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out_jobs.csv.partial").exists() and not (tmp_path / "out_jobs.csv").exists()
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]


def test_decisions_outside_a_decision() -> None:
    """A Decisions kept after its run: the library refuses, nothing crashes."""
    kept: list[Any] = []

    class Keep(FCFS):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            kept.append((state, decide, list(state.waiting)))
            super().decide(state, decide)

    bucma.simulate("lille", TINY, Keep())
    state, decide, _ = kept[-1]
    job = next(w[0] for _, _, w in kept if w)
    with pytest.raises(bucma.UsageError, match="no run has handle"):
        decide.start(job)
    with pytest.raises(bucma.UsageError):
        state.reservation(1)


def test_jobs_of_another_run_are_refused() -> None:
    other: list[bucma.Job] = []

    class Grab(FCFS):
        def job_submitted(self, state: bucma.State, job: bucma.Job) -> None:
            other.append(job)

    bucma.simulate("lille", TINY, Grab())

    class Foreign(bucma.Policy):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            decide.start(other[0])

    with pytest.raises(bucma.UsageError, match="not a job of this run"):
        bucma.simulate("lille", TINY, Foreign())


def test_a_run_belongs_to_its_thread(tmp_path: Path) -> None:
    """Stepping a run from another thread is refused (a run of the engine is its thread's coroutine)."""
    run = Run(
        {"platform": "lille", "workloads": [TINY], "export": str(tmp_path / "o"), "policy": FCFS()._config()},
        FCFS(),
    )
    assert run.handle.next() == 1
    caught: list[BaseException] = []

    def other() -> None:
        try:
            run.handle.next()
        except BaseException as e:
            caught.append(e)
        try:
            run.handle.close()
        except BaseException as e:
            caught.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(caught) == 2 and all(isinstance(e, bucma.UsageError) for e in caught)
    assert "thread that created it" in str(caught[0])
    assert run.handle.next() == 1  # the run goes on in its own thread
    run.close()


def test_runs_in_threads_and_nested() -> None:
    """Runs in several threads at once, and a run inside a policy's decision."""
    want = bucma.simulate("lille", TINY, "easy").jobs_csv
    got: list[bytes] = []

    def one() -> None:
        got.append(
            bucma.simulate(
                "lille", TINY, FCFS() if len(got) % 2 else bucma.KeyPolicy(lambda j: j.submit)
            ).jobs_csv
        )

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4

    class LookAhead(FCFS):
        def __init__(self) -> None:
            self.inner = 0

        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            if self.inner < 3:
                self.inner += 1
                assert bucma.simulate("lille", TINY, "easy").jobs_csv == want
            super().decide(state, decide)

    la = LookAhead()
    assert bucma.simulate("lille", TINY, la).jobs_csv == bucma.simulate("lille", TINY, "fcfs").jobs_csv
    assert la.inner == 3


def test_raw_calls_with_garbage() -> None:
    """The C interface refuses garbage: bad JSON, unknown handles, closed handles."""
    for cfg in (b"{", b"[]", b'{"mode": 3}', b'{"policy": {"name": "easy", "options": [1]}}', b"\xff\xfe"):
        hid = ctypes.c_int64()
        err = ctypes.c_char_p()
        assert _lib.lib.bucmapy_new(cfg, len(cfg), ctypes.byref(hid), ctypes.byref(err)) == -1
        f = _lib.failure(err)
        assert f["kind"] in ("option", "error") and f["message"]
    h = _lib.Handle.adopt(987654321)
    with pytest.raises(bucma.UsageError, match="no run has handle 987654321"):
        h.next()
    with pytest.raises(bucma.UsageError):
        h.result()
    with pytest.raises(bucma.UsageError, match='no call "nope"'):
        _lib.call("nope", None)
    req = json.dumps({"fn": "command", "args": {"args": ["simulate"]}}).encode()
    hid = ctypes.c_int64()
    err = ctypes.c_char_p()
    assert _lib.lib.bucmapy_task(req, len(req), ctypes.byref(hid), ctypes.byref(err)) == 0
    t = _lib.Handle.adopt(hid.value)
    with pytest.raises(bucma.OptionError, match="embeds bucma"):
        while t.next() != 0:
            pass
    t.close()
