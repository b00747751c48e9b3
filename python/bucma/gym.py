"""Gymnasium environments on bucma's embedded engine (the same schedules as Batsim 4.2.1).

:class:`JobPickingEnv` is the job-picking environment of RL batch scheduling
(RLScheduler's): at each step the agent picks one of the first ``K`` waiting
jobs, the environment starts it (once it fits, optionally backfilling the
others around it by EASY), and an episode is a window of ``N`` consecutive jobs
of a trace drawn from the seed. It follows Gymnasium's API: ``reset(seed=,
options=)`` gives ``(obs, info)``, ``step(a)`` gives ``(obs, reward,
terminated, truncated, info)``; ``observation_space``, ``action_space`` and
``action_masks()``. It subclasses ``gymnasium.Env`` and uses
``gymnasium.spaces`` when gymnasium is importable, else stand-ins of the same
attributes (:mod:`bucma._spaces`).

The engine is Go's: Python only steps it, through the same calls as a
:class:`bucma.Policy`, and every start goes through bucma's Decider.
"""

from __future__ import annotations

import itertools
import copy
import json
import math
import operator
import os
import shutil
import struct
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np

from . import workloads
from ._run import DECIDE, Result, Run, resolve_workload
from ._spaces import GYMNASIUM, Box, Dict, Discrete, Env, MultiBinary
from .errors import OptionError, UsageError
from .policy import Policy
from .state import REJECTED, SUBMITTED, Decisions, Job, State

__all__ = ["JobPickingEnv", "AgentPolicy", "Replay", "FEATURES", "REWARDS", "GYMNASIUM"]

PathLike = Union[str, "os.PathLike[str]"]

#: The per-slot features an observation may hold, each normalised to [0, 1].
FEATURES = ("wait", "walltime", "res", "fits", "user", "free")
#: The rewards: the negated mean bounded slowdown (10 s threshold), the negated
#: mean waiting time (in units of the ``wait`` scale), the utilization.
REWARDS = ("bsld", "wait", "utilization")
#: Bounded slowdown's threshold, in seconds.
BSLD_THRESHOLD = 10.0
_DEFAULT_SCALES = {"wait": 43200.0, "walltime": 43200.0}
_IDX = operator.attrgetter("idx")
# Where a feature's column of a job's row comes from (JobPickingEnv._submitted's values).
_ROW_SOURCE = {"wait": 0, "fits": 1, "walltime": 2, "res": 3, "user": 4, "free": 5}


class _Driver(Policy):
    """The run's policy as the library sees it: the environment decides outside ``decide``."""

    name = "gym"

    def decide(self, state: State, decide: Decisions) -> None:  # pragma: no cover - never called
        raise UsageError("the environment steps its run itself")


class Replay(Policy):
    """A policy that takes recorded decisions again: ``decisions`` are (time, job id, hosts) in order.

    :attr:`JobPickingEnv.decisions` is an episode's list: ``bucma.simulate`` with
    this policy on :attr:`JobPickingEnv.workload_path` gives the episode's schedule.
    """

    name = "replay"

    def __init__(self, decisions: Sequence[tuple[float, str, Sequence[int]]]) -> None:
        self.decisions = list(decisions)
        self.next = 0

    def decide(self, state: State, decide: Decisions) -> None:
        d = self.decisions
        while self.next < len(d) and d[self.next][0] == state.now:
            _, jid, hosts = d[self.next]
            job = state.job(jid)
            if job is None:
                raise UsageError(f"replay: job {jid} does not wait at time {state.now:g}")
            decide.start(job, list(hosts))
            self.next += 1


class AgentPolicy(Policy):
    """An agent of :class:`JobPickingEnv` served as a policy: the environment's decisions, on any run.

    ``agent(obs, mask)`` returns a slot, given the observation and the action
    mask the environment ``env`` would give (its slots, features, scales,
    observation kind, backfilling and trace's users). At each decision the
    policy does what the environment does around the agent: start the job
    reserved once it fits (backfilling meanwhile), then ask the agent until
    the job it picks does not fit. So the agent served to the real Batsim 4
    or 5 (:func:`bucma.run_batsim`, :func:`bucma.serve`) or to the embedded
    engine takes the decisions it takes in the environment on the same
    window, and Batsim writes the same schedule. ``env`` itself is left as it
    is.
    """

    name = "gym-agent"

    def __init__(self, agent: Callable[[Any, np.ndarray[Any, Any]], Any], env: JobPickingEnv) -> None:
        self.agent = agent
        core = copy.copy(env)
        core._tmp = ""  # the copy owns no files
        core._run = None
        self._core = core

    def _at(self, state: State) -> JobPickingEnv:
        core = self._core
        if core._run is not state._run:
            core._run = state._run
            core._begin()
        return core

    def job_submitted(self, state: State, job: Job) -> None:
        self._at(state)._submitted(state, job)

    def job_ended(self, state: State, job: Job) -> None:
        self._at(state)._ended(state, job)

    def decide(self, state: State, decide: Decisions) -> None:
        core = self._at(state)
        if core._choice():
            agent = self.agent
            while core._act(core._pick(agent(core._observe(), core._mask))):
                pass


def _load_jobs(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        with open(path, "rb") as f:
            w = json.load(f)
    except (OSError, ValueError) as exc:
        raise OptionError(f"workload {path}: {exc}") from exc
    jobs = w.get("jobs") if isinstance(w, dict) else None
    if not isinstance(jobs, list) or not jobs:
        raise OptionError(f"workload {path}: no jobs")
    for i, j in enumerate(jobs):
        t = j.get("subtime") if isinstance(j, dict) else None
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
            raise OptionError(f"workload {path}: job {i} has no finite numeric subtime")
    jobs = sorted(jobs, key=lambda j: float(j["subtime"]))
    return w, jobs


class JobPickingEnv(Env):
    """The job-picking environment: the agent picks which of the first ``K`` waiting jobs starts next.

    The trace is ``workload`` (a Batsim workload file or a bundled workload's
    name), ``swf`` (a Standard Workload Format trace, converted by
    :func:`bucma.workloads.from_swf` with ``swf_options``) or ``lublin`` (the
    flags of :func:`bucma.workloads.lublin`, e.g. ``{"jobs": 10000, "seed":
    1}``), on ``platform`` (a file or a bundled platform's name).

    An episode is ``window`` consecutive jobs of the trace (in submission
    order), the first drawn from the environment's ``np_random`` (seeded by
    ``reset(seed=...)``), their submission times shifted so that the first is
    0. At each step, the observation is a ``(K, F)`` float32 array: one row
    per slot (the first ``K`` waiting jobs in arrival order), one column per
    feature of ``features`` (:data:`FEATURES`: ``wait`` and ``walltime``
    divided by ``scales``' values and clipped to 1, ``res`` the requested
    hosts over the platform's, ``fits`` 1 when the job fits on the free hosts
    now, ``user`` the user's rank in the trace (by first appearance) over the
    number of users, ``free`` the free hosts' share); rows of empty slots are
    zeros. ``observation="dict"`` gives ``{"jobs": that array, "mask": the
    mask}`` instead. ``action_masks()`` (and ``info["action_mask"]``) is 1 for
    the slots that hold a job.

    The action is a slot. The job starts at once when it fits; else it is
    reserved and starts as soon as it fits, the agent being asked again then
    (with ``backfill=True``, jobs that fit now and do not delay it start
    meanwhile, by EASY's rule on bucma's reservation). A job asking more hosts
    than the platform has is rejected by the engine, as Batsim does, without
    asking the agent (``info["rejected"]``). A masked or out-of-range action raises
    ``ValueError`` (``invalid_action="raise"``), or picks the first job
    (``invalid_action="first"``, ``info["invalid_action"]`` True).

    ``reward`` is ``"bsld"`` (the negated mean bounded slowdown, threshold 10
    s, over the window's jobs, a rejected job counting 0), ``"wait"`` (the negated mean waiting time, in
    units of the ``wait`` scale) or ``"utilization"`` (busy host-time over the
    hosts × the makespan). ``reward_at="end"`` gives it at the last step (0
    before); ``reward_at="step"`` gives at each step the change of its value
    so far (the jobs ended or started, the time elapsed), so that an
    episode's rewards add up to the same total. The episode terminates when
    the window's last job has ended; it is never truncated.

    ``keep_outputs=True`` keeps each episode's ``_jobs.csv`` and
    ``_schedule.csv`` (:meth:`export`, :meth:`result`).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        platform: PathLike = "lille",
        workload: PathLike | None = "lille-7056",
        *,
        swf: PathLike | None = None,
        swf_options: dict[str, Any] | None = None,
        lublin: dict[str, Any] | None = None,
        window: int = 256,
        slots: int = 32,
        features: Sequence[str] = FEATURES,
        scales: dict[str, float] | None = None,
        backfill: bool = False,
        reward: str = "bsld",
        reward_at: str = "end",
        observation: str = "box",
        invalid_action: str = "raise",
        keep_outputs: bool = False,
    ) -> None:
        self._tmp = tempfile.mkdtemp(prefix="bucma-gym-")
        try:
            self._setup(platform, workload, swf, swf_options, lublin, window, slots, features, scales)
            for name, value, valid in (
                ("reward", reward, REWARDS),
                ("reward_at", reward_at, ("step", "end")),
                ("observation", observation, ("box", "dict")),
                ("invalid_action", invalid_action, ("raise", "first")),
            ):
                if value not in valid:
                    raise OptionError(f"{name}={value!r}: want one of {', '.join(valid)}")
        except BaseException:
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise
        self.backfill = backfill
        self.reward_kind = reward
        self.reward_at = reward_at
        self.observation = observation
        self.invalid_action = invalid_action
        self.keep_outputs = keep_outputs
        k, nf = self.slots, len(self.features)
        jobs_space = Box(0.0, 1.0, (k, nf), np.float32)
        self.action_space = Discrete(k)
        self.observation_space: Any = (
            jobs_space if observation == "box" else Dict({"jobs": jobs_space, "mask": MultiBinary(k)})
        )
        self._mask: np.ndarray[Any, Any] = np.zeros(k, dtype=bool)
        # The mask of n jobs waiting, for n = 0 to k (copied at each step).
        self._masks = [np.arange(k) < n for n in range(k + 1)]
        self._slots: list[Job] = []
        self._run: Run | None = None
        self._episode = -1
        self._done = True
        self._result: Result | None = None

    def _setup(
        self,
        platform: PathLike,
        workload: PathLike | None,
        swf: PathLike | None,
        swf_options: dict[str, Any] | None,
        lublin: dict[str, Any] | None,
        window: int,
        slots: int,
        features: Sequence[str],
        scales: dict[str, float] | None,
    ) -> None:
        p = Path(platform)
        self.platform = str(p.resolve()) if p.is_file() else str(platform)
        if swf is not None:
            path = workloads.from_swf(swf, os.path.join(self._tmp, "trace.json"), **(swf_options or {}))
        elif lublin is not None:
            path = workloads.lublin(os.path.join(self._tmp, "trace.json"), **lublin)
        elif workload is not None:
            path = resolve_workload(workload)
        else:
            raise OptionError("JobPickingEnv: give a workload, an swf trace or lublin's flags")
        self.trace = path
        self._head, self._pool = _load_jobs(path)
        if not 1 <= window <= len(self._pool):
            raise OptionError(f"window={window}: want 1 to the trace's {len(self._pool)} jobs ({path})")
        if slots < 1:
            raise OptionError(f"slots={slots}: want at least 1")
        bad = [f for f in features if f not in FEATURES]
        if bad or not features:
            raise OptionError(f"features {bad or '(none)'}: want some of {', '.join(FEATURES)}")
        self.window = window
        self.slots = slots
        self.features = tuple(features)
        self.scales = {**_DEFAULT_SCALES, **(scales or {})}
        for name, v in self.scales.items():
            if name not in _DEFAULT_SCALES or not v > 0:
                raise OptionError(f"scales[{name!r}]={v!r}: want a positive scale of wait or walltime")
        self._inv_wait = 1.0 / self.scales["wait"]
        self._inv_walltime = 1.0 / self.scales["walltime"]
        # A job's row of _rows holds, per feature: its value (walltime, res, user), what the
        # value is computed from at each step (wait: the submission time, fits: res), or 0 (free).
        self._row_source = [_ROW_SOURCE[f] for f in self.features]
        self._row = struct.Struct(f"={len(self.features)}d")
        self._dynamic = [(i, f) for i, f in enumerate(self.features) if f in ("wait", "fits", "free")]
        users: dict[str, int] = {}
        for j in self._pool:
            users.setdefault(str(j.get("user", "")), len(users))
        self._users = users
        # Each profile as its JSON member ("name":{...}), for the windows.
        self._profiles = {
            str(k): json.dumps({str(k): v}, separators=(",", ":"))[1:-1]
            for k, v in (self._head.get("profiles") or {}).items()
        }
        # Each job's JSON but its submission time (the window shifts it), from its second field on.
        self._encoded = [
            json.dumps({k: v for k, v in j.items() if k != "subtime"}, separators=(",", ":"))[1:]
            for j in self._pool
        ]

    # Gymnasium's API.

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode: a window drawn from ``np_random`` (seeded by ``seed``).

        ``options={"start": i}`` takes the window from the trace's job ``i``
        (in submission order) instead.
        """
        super().reset(seed=seed)
        self._close()
        start = (options or {}).get("start")
        last = len(self._pool) - self.window
        if start is None:
            start = int(self.np_random.integers(0, last + 1))
        elif not isinstance(start, int) or not 0 <= start <= last:
            raise OptionError(f"options['start']={start!r}: want an int in [0, {last}]")
        self._episode += 1
        self._start_index = start
        self._write_window(start)
        prefix = os.path.join(self._tmp, "out") if self.keep_outputs else ""
        config = {
            "platform": self.platform,
            "workloads": [self.workload_path],
            "export": prefix,
            "engine": {},
            "verbose": False,
            "policy": {**_Driver()._config(), "validate": False},
        }
        self._prefix = prefix
        self._result = None
        self._run = Run(config, _Driver(), temporary=True)
        self._begin()
        self._advance()
        return self._observe(), self._info()

    def _begin(self) -> None:
        """Start an episode's bookkeeping."""
        self.decisions: list[tuple[float, str, tuple[int, ...]]] = []
        self._pending: Job | None = None
        self._rejected = 0
        # Per job (by arrival rank): its row (_setup), from which _observe computes its slot's.
        self._rows = np.zeros((self.window + 1, len(self.features)))
        # The observation's float64 rows (those of no job 0), and how many hold a job.
        self._scratch = np.zeros((self.slots, len(self.features)))
        self._filled = 0
        self._invalid = False
        self._used = 0
        self._t = 0.0
        self._area = 0.0
        self._bsld = 0.0
        self._wait = 0.0
        self._phi = 0.0
        self._steps = 0
        self._done = False

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Start (or reserve) the job of slot ``action``, run to the next choice; see the class."""
        if self._done or self._run is None:
            raise UsageError("step: the episode has ended (or not begun): call reset()")
        if not self._act(self._pick(action)):
            self._advance()
        phi = self._potential()
        if self.reward_at == "step":
            reward = phi - self._phi
        else:
            reward = phi if self._done else 0.0
        self._phi = phi
        return self._observe(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray[Any, Any]:
        """The valid actions: a bool per slot, True where a job waits (the first ones)."""
        return self._mask

    def close(self) -> None:
        """Stop the episode's run and remove the environment's files."""
        self._close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def __del__(self) -> None:
        try:
            if self._tmp:
                shutil.rmtree(self._tmp, ignore_errors=True)
        except Exception:
            pass

    # What an episode leaves.

    @property
    def workload_path(self) -> str:
        """The episode's workload file (the window, shifted to start at 0)."""
        return os.path.join(self._tmp, "window.json")

    def result(self) -> Result:
        """The ended episode's outputs (``keep_outputs=True``): its jobs table, its ``_schedule.csv``."""
        if not self._done or self._run is not None and not self._run.handle.closed:
            raise UsageError("result: the episode has not ended")
        if self._result is None:
            raise UsageError(
                "result: the environment keeps no outputs (JobPickingEnv(..., keep_outputs=True))"
            )
        return self._result

    def export(self, prefix: PathLike) -> list[str]:
        """Write the ended episode's ``PREFIX_jobs.csv`` and ``PREFIX_schedule.csv`` (those of the engine)."""
        return self.result().export(prefix)

    # The stepping.

    def _pick(self, action: Any) -> Job:
        self._invalid = False
        slots = self._slots
        # The valid slots are the first len(slots): a Python or numpy integer (0-d array too) among them.
        a = action
        if isinstance(a, np.ndarray) and a.shape == ():
            a = a[()]
        if type(a) is int or isinstance(a, np.integer):
            if 0 <= a < len(slots):
                return slots[a]
        if self.invalid_action == "raise":
            raise ValueError(
                f"action {action!r}: not a slot holding a job (valid: {list(range(len(slots)))}, "
                f"slots 0 to {self.slots - 1})"
            )
        self._invalid = True
        return slots[0]

    def _act(self, job: Job) -> bool:
        """Start job, or reserve it (and backfill); return whether the agent chooses again now."""
        run = self._run
        assert run is not None
        self._steps += 1
        if job.res <= run.state.nb_free:
            self._start(job)
            return self._choice()
        self._pending = job
        if self.backfill:
            self._backfill()
        return False

    def _start(self, job: Job) -> None:
        run = self._run
        assert run is not None
        st = run.state
        self._integrate(st.now)
        alloc = run.decisions.start(job)
        self._used += job.res
        self._wait += st.now - job.submit
        self.decisions.append((st.now, job.id, alloc))

    def _ended(self, state: State, job: Job) -> None:
        if not job.alloc:
            return
        self._integrate(state.now)
        self._used -= job.res
        run = job.end - job.start
        self._bsld += max((job.end - job.submit) / max(run, BSLD_THRESHOLD), 1.0)

    def _submitted(self, state: State, job: Job) -> None:
        nh = len(state.hosts)
        if job.res > nh:
            # The framework rejects it (as Batsim does) and never counts it as waiting.
            job.state = REJECTED
            self._rejected += 1
        idx = job.idx
        rows = self._rows
        if idx >= len(rows):
            self._rows = rows = np.concatenate([rows, np.zeros_like(rows)])
        u = self._users
        nu = len(u)
        values = (
            job.submit,
            job.res,
            min(job.walltime * self._inv_walltime, 1.0),
            min(job.res / nh, 1.0) if nh else 0.0,
            (u.get(job.user, nu - 1) + 1) / nu,
            0.0,
        )
        self._row.pack_into(rows.data, idx * self._row.size, *[values[c] for c in self._row_source])

    def _integrate(self, now: float) -> None:
        self._area += self._used * (now - self._t)
        self._t = now

    def _potential(self) -> float:
        if self.reward_kind == "bsld":
            return -self._bsld / self.window
        if self.reward_kind == "wait":
            return -self._wait / self.window / self.scales["wait"]
        run = self._run
        nh = len(run.state.hosts) if run is not None else 0
        return self._area / (nh * self._t) if self._t > 0 and nh else 0.0

    def _backfill(self) -> None:
        """Start the jobs that fit now and do not delay the reserved job (EASY)."""
        run = self._run
        assert run is not None and self._pending is not None
        st = run.state
        shadow, extra = st.reservation(self._pending.res)
        for job in list(st.waiting):
            if job is self._pending or job.res > st.nb_free:
                continue
            if st.now + job.walltime <= shadow:
                self._start(job)
            elif job.res <= extra:
                self._start(job)
                extra -= job.res

    def _choice(self) -> bool:
        """Whether the agent chooses now: no job reserved (it starts once it fits), some job waiting."""
        run = self._run
        assert run is not None
        st = run.state
        if self._pending is not None:
            job = self._pending
            if job.res > st.nb_free:
                if self.backfill:
                    self._backfill()
                return False
            self._pending = None
            self._start(job)
        return st.nb_waiting > 0

    def _advance(self) -> None:
        """Run to the next point where the agent chooses, or to the episode's end."""
        run = self._run
        assert run is not None
        apply = run.state._apply
        ended = self._ended
        submitted = self._submitted
        choice = self._choice

        def point(k: int, buf: bytes) -> bool:
            apply(buf, submitted, ended)
            return k == DECIDE and choice()

        try:
            if not run.pull(point):
                self._finish()
        except BaseException as exc:
            run._stop(exc)
            self._done = True
            raise

    def _finish(self) -> None:
        run = self._run
        assert run is not None
        self._done = True
        self.summary = run.finish() or {}
        run.close()
        if self.keep_outputs:
            self._result = Result(
                Path(self._prefix + "_jobs.csv").read_bytes(),
                Path(self._prefix + "_schedule.csv").read_bytes(),
                self.summary,
            )

    def _close(self) -> None:
        if self._run is not None:
            self._run.close()
            self._run = None

    def _observe(self) -> Any:
        """The observation now (and the slots' jobs, the mask): fresh arrays, which the caller may keep."""
        k = self.slots
        run = self._run
        jobs: list[Job] = []
        if not self._done and run is not None:
            st = run.state
            # The first k waiting jobs (st.waiting's): the queue's jobs that are not waiting any
            # more left it in this decision (st._left), so they are among its first k + len(_left).
            m = k + len(st._left)
            jobs = [j for j in itertools.islice(st._waiting.values(), m) if j.state == SUBMITTED]
            if len(jobs) > k:
                del jobs[k:]
            elif len(jobs) < k and len(st._waiting) > m:
                jobs = list(itertools.islice(st.waiting, k))
        self._slots = jobs
        n = len(jobs)
        scratch = self._scratch
        if n < self._filled:
            scratch[n : self._filled] = 0.0
        self._filled = n
        if n:
            idx = np.fromiter(map(_IDX, jobs), np.intp, n)
            rows = scratch[:n]
            # Every rank has its row (_submitted): "clip" only spares numpy's checked, buffered copy.
            self._rows.take(idx, 0, rows, "clip")
            for i, f in self._dynamic:
                c = rows[:, i]
                if f == "wait":
                    np.subtract(st.now, c, c)
                    np.multiply(c, self._inv_wait, c)
                    np.minimum(c, 1.0, c)
                elif f == "fits":
                    np.less_equal(c, st.nb_free, c)
                else:
                    nh = len(st.hosts)
                    c[:] = st.nb_free / nh if nh else 0.0
        obs = scratch.astype(np.float32)
        self._mask = mask = self._masks[n].copy()
        if self.observation == "dict":
            return {"jobs": obs, "mask": mask.astype(np.int8)}
        return obs

    def _info(self) -> dict[str, Any]:
        run = self._run
        info: dict[str, Any] = {
            "action_mask": self._mask,
            "episode": self._episode,
            "window_start": self._start_index,
            "steps": self._steps,
            "rejected": self._rejected,
        }
        if run is not None and not self._done:
            st = run.state
            info["time"] = st.now
            info["waiting"] = st.nb_waiting
        if self._invalid:
            info["invalid_action"] = True
        if self._done:
            info["metrics"] = (getattr(self, "summary", None) or {}).get("metrics") or {}
            info["bounded_slowdown"] = self._bsld / max(self.window - self._rejected, 1)
            info["waiting_time"] = self._wait / max(self.window - self._rejected, 1)
            info["utilization"] = self._area / (self._nh() * self._t) if self._t > 0 and self._nh() else 0.0
        return info

    def _nh(self) -> int:
        run = self._run
        return len(run.state.hosts) if run is not None else 0

    def _write_window(self, start: int) -> None:
        end = start + self.window
        jobs = self._pool[start:end]
        t0 = jobs[0]["subtime"]
        profiles = self._profiles
        used = dict.fromkeys(j.get("profile") for j in jobs)
        # repr of a finite int or float is its JSON.
        parts = [f'{{"subtime":{j["subtime"] - t0!r},{e}' for j, e in zip(jobs, self._encoded[start:end])]
        text = "".join(
            (
                f'{{"nb_res":{json.dumps(self._head.get("nb_res"))},"jobs":[',
                ",".join(parts),
                '],"profiles":{',
                ",".join(profiles[p] for p in used if p in profiles),
                "}}",
            )
        )
        tmp = self.workload_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, self.workload_path)

    def __repr__(self) -> str:
        return (
            f"<JobPickingEnv {self.platform}, {self.window} jobs of {self.trace}, {self.slots} slots, "
            f"reward {self.reward_kind} at {self.reward_at}{', EASY backfilling' if self.backfill else ''}>"
        )
