"""Policies in Python: decide() and key functions, on the embedded engine."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bucma
from conftest import LILLE, TINY
from easy import EASY
from fcfs import FCFS


@pytest.fixture(scope="module")
def go_lille() -> dict[str, bytes]:
    return {p: bucma.simulate("lille", LILLE, p).jobs_csv for p in ("fcfs", "easy", "conservative")}


def test_python_fcfs_is_fcfs(go_lille: dict[str, bytes]) -> None:
    assert bucma.simulate("lille", LILLE, FCFS()).jobs_csv == go_lille["fcfs"]


def test_python_easy_is_easy(go_lille: dict[str, bytes]) -> None:
    assert bucma.simulate("lille", LILLE, EASY()).jobs_csv == go_lille["easy"]


@pytest.mark.parametrize("rule", ["fcfs", "easy", "conservative"])
def test_key_of_submission_times_is_the_rule(go_lille: dict[str, bytes], rule: str) -> None:
    asked: list[int] = []

    def key(job: bucma.Job) -> float:
        asked.append(job.idx)
        return job.submit

    r = bucma.simulate("lille", LILLE, bucma.KeyPolicy(key, rule=rule))
    assert r.jobs_csv == go_lille[rule]
    assert sorted(asked) == list(range(7056)), "each job's key is asked once"


def test_time_dependent_and_vectorized_keys() -> None:
    want = bucma.simulate("lille", TINY, "easy").jobs_csv
    seen_now: list[float] = []

    def aged(job: bucma.Job, now: float) -> float:
        seen_now.append(now)
        return job.submit - 0.0 * (now - job.submit)

    assert bucma.simulate("lille", TINY, bucma.KeyPolicy(aged)).jobs_csv == want
    assert seen_now and seen_now == sorted(seen_now)

    def vec(batch: bucma.KeyBatch) -> np.ndarray[Any, Any]:
        assert len(batch.idx) == len(batch) == len(batch.jobs)
        return np.asarray(batch.submit)

    assert bucma.simulate("lille", TINY, bucma.KeyPolicy(vec, vectorized=True)).jobs_csv == want

    def vec_now(batch: bucma.KeyBatch, now: float) -> np.ndarray[Any, Any]:
        return np.asarray(batch.submit) + 0 * now

    assert bucma.simulate("lille", TINY, bucma.KeyPolicy(vec_now, vectorized=True)).jobs_csv == want


def test_key_policy_subclass_and_order() -> None:
    """A key method; the shortest walltime first is the order the key gives."""

    class SJF(bucma.KeyPolicy):
        rule = "greedy"

        def key(self, job: bucma.Job) -> float:
            return job.walltime

    r = bucma.simulate("lille", TINY, SJF())
    assert len(r.jobs) == 20
    with pytest.raises(TypeError, match="key function"):
        bucma.KeyPolicy()


def test_hooks_and_state() -> None:
    """The hooks see every job, the state tells the queue, the running jobs and the hosts."""

    class Watch(FCFS):
        def __init__(self) -> None:
            self.began = 0
            self.submitted: list[str] = []
            self.ended: list[tuple[str, str]] = []
            self.checked = 0

        def simulation_begins(self, state: bucma.State) -> None:
            self.began += 1
            assert state.nb_hosts == 39 and len(state.hosts) == 39
            assert all(h.free for h in state.hosts) and state.nb_free == 39
            assert state.hosts[0].name and state.hosts[0].speed > 0

        def job_submitted(self, state: bucma.State, job: bucma.Job) -> None:
            assert job.waiting and state.job(job.id) is job
            self.submitted.append(job.id)

        def job_ended(self, state: bucma.State, job: bucma.Job) -> None:
            assert job.finished and not math.isnan(job.end) and job.end >= job.start
            self.ended.append((job.id, job.state))

        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            assert len(list(state.waiting)) == len(state.waiting) == state.nb_waiting
            busy = sum(j.res for j in state.running)
            assert state.nb_free == 39 - busy
            assert state.free_hosts() == [h.id for h in state.hosts if h.free]
            assert len(state.free_hosts()) == state.nb_free
            for j in state.running:
                assert j.running and j.expected_end == j.start + j.walltime and len(j.alloc) == j.res
            self.checked += 1
            super().decide(state, decide)

    w = Watch()
    bucma.simulate("lille", TINY, w)
    assert w.began == 1 and w.checked > 20
    assert len(w.submitted) == len(w.ended) == 20
    assert {s for _, s in w.ended} == {"COMPLETED_SUCCESSFULLY"}


def test_too_large_job_never_waits(tmp_path: Path) -> None:
    """A job larger than the platform, rejected by the framework before the policy decides, never waits."""
    wl = tmp_path / "w.json"
    jobs = [
        {"id": "a", "subtime": 0, "walltime": 100, "res": 1, "profile": "d"},
        {"id": "big", "subtime": 5, "walltime": 100, "res": 1000, "profile": "d"},
        {"id": "b", "subtime": 5, "walltime": 100, "res": 2, "profile": "d"},
    ]
    profiles = {"d": {"type": "delay", "delay": 50}}
    wl.write_text(json.dumps({"nb_res": 39, "jobs": jobs, "profiles": profiles}))

    class Watch(FCFS):
        def __init__(self) -> None:
            self.ended: dict[str, str] = {}
            self.checked = 0

        def job_ended(self, state: bucma.State, job: bucma.Job) -> None:
            self.ended[job.id] = job.state

        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            assert len(list(state.waiting)) == len(state.waiting) == state.nb_waiting
            assert all(j.res <= 39 for j in state.waiting)
            self.checked += 1
            super().decide(state, decide)

    w = Watch()
    bucma.simulate("lille", str(wl), w)
    assert w.checked >= 2
    assert w.ended == {
        "w0!a": "COMPLETED_SUCCESSFULLY",
        "w0!big": "REJECTED",
        "w0!b": "COMPLETED_SUCCESSFULLY",
    }


def test_job_fields() -> None:
    """A job's fields, its own fields (extra) as Batsim sent them."""
    seen: dict[str, Any] = {}

    class Look(FCFS):
        def job_submitted(self, state: bucma.State, job: bucma.Job) -> None:
            if not seen:
                seen.update(
                    id=job.id,
                    workload=job.workload,
                    name=job.name,
                    res=job.res,
                    walltime=job.walltime,
                    profile=job.profile,
                    extra=job.extra,
                    submit=job.submit,
                    idx=job.idx,
                    user=job.user,
                )

    bucma.simulate("lille", LILLE, Look())
    assert seen["id"] == "w0!1" and seen["workload"] == "w0" and seen["name"] == "1" and seen["idx"] == 0
    assert seen["res"] == 6 and seen["walltime"] == 300 and seen["submit"] == pytest.approx(4367, abs=1e-5)
    assert seen["profile"] == "j1" and seen["user"] == "u01"
    assert seen["extra"]["res"] == 6 and seen["extra"]["id"] == "w0!1" and seen["extra"]["user"] == "u01"


def test_hosts_option_and_explicit_hosts() -> None:
    """start(job) takes the hosts option's hosts; start(job, hosts) the ones given."""
    want = bucma.simulate("lille", TINY, "fcfs", {"hosts": "first-fit"}).jobs_csv
    assert bucma.simulate("lille", TINY, FCFS(), {"hosts": "first-fit"}).jobs_csv == want

    class FirstFit(bucma.Policy):
        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            for job in state.waiting:
                free = state.free_hosts()
                if job.res > len(free):
                    break
                assert decide.start(job, free[: job.res]) == tuple(free[: job.res])

    assert bucma.simulate("lille", TINY, FirstFit()).jobs_csv == want


def test_reject_kill_and_call_me_later() -> None:
    """Reject the wide jobs, kill a job at once, ask for a call later."""

    class Picky(bucma.Policy):
        def __init__(self) -> None:
            self.calls: list[float] = []
            self.killed = False

        def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
            self.calls.append(state.now)
            if state.now == 0:
                decide.call_me_later(12345)
            for job in state.waiting:
                if job.res > 2:
                    decide.reject(job)
                elif job.res <= state.nb_free:
                    decide.start(job)
            if state.running and not self.killed:
                decide.kill(state.running[0])
                self.killed = True

    p = Picky()
    r = bucma.simulate("lille", TINY, p)
    states = set(r.jobs["final_state"])
    assert "REJECTED" in states and "COMPLETED_KILLED" in states
    assert any(12345 <= t < 12345.001 for t in p.calls)
