"""What a Python policy sees (State, Job, Host) and how it decides (Decisions).

The state is a mirror of the Go framework's, updated at each decision point
from what changed since the previous one (the jobs that joined the queue,
started and ended, the hosts whose state changed); decisions go to the Go
side at once, where the same Decider as Go's policies checks them.
"""

from __future__ import annotations

import ctypes
import json
import math
import struct
from collections.abc import Iterator
from ctypes import c_double, c_int32, c_int64
from typing import TYPE_CHECKING, Any

from . import _lib
from .errors import UsageError

if TYPE_CHECKING:
    from ._run import Run

__all__ = ["Job", "Host", "State", "Queue", "Decisions"]

# Job states, as Batsim names them (the ended records' codes index them).
SUBMITTED = "SUBMITTED"
RUNNING = "RUNNING"
REJECTED = "REJECTED"
STATES = (
    SUBMITTED,
    RUNNING,
    "COMPLETED_SUCCESSFULLY",
    "COMPLETED_FAILED",
    "COMPLETED_WALLTIME_REACHED",
    "COMPLETED_KILLED",
    REJECTED,
)
POWER = ("on", "switching off", "sleeping", "switching on")

# The encoding of a point (package run/pull): header, then the sections.
HEADER = struct.Struct("<Iidiiiiiiiiii")  # the last int is padding
NEW = struct.Struct("<qddiiii")
STARTED = struct.Struct("<qdii")
ENDED = struct.Struct("<qdii")
HOST = struct.Struct("<6i")
VERSION = 1
# bucmapy_start's host count for the hosts option's choice.
_ANY_HOSTS = c_int64(-1)


class Job:
    """A job as Batsim submitted it, and what became of it.

    ``walltime`` is ``math.inf`` for a job without one. ``state`` is Batsim's:
    ``SUBMITTED`` while it waits, ``RUNNING``, then its final state
    (``COMPLETED_SUCCESSFULLY``, ``COMPLETED_KILLED``, ``REJECTED``, ...).
    ``idx`` is its arrival rank (0, 1, ...), the order jobs joined the queue.
    """

    __slots__ = (
        "idx",
        "id",
        "submit",
        "res",
        "walltime",
        "user",
        "profile",
        "state",
        "start",
        "end",
        "alloc",
        "return_code",
        "_run",
        "_extra",
    )

    def __init__(
        self,
        idx: int,
        id: str,
        submit: float,
        res: int,
        walltime: float,
        user: str,
        profile: str,
        run: Run | None = None,
    ) -> None:
        self.idx = idx
        self.id = id
        self.submit = submit
        self.res = res
        self.walltime = walltime
        self.user = user
        self.profile = profile
        self.state = SUBMITTED
        self.start = math.nan
        self.end = math.nan
        self.alloc: tuple[int, ...] = ()
        self.return_code = 0
        self._run = run
        self._extra: dict[str, Any] | None = None

    @property
    def workload(self) -> str:
        """The workload's name (``w0`` for the first workload file)."""
        return self.id.partition("!")[0]

    @property
    def name(self) -> str:
        """The job's id within its workload."""
        return self.id.rpartition("!")[2]

    @property
    def has_walltime(self) -> bool:
        return self.walltime != math.inf

    @property
    def expected_end(self) -> float:
        """start + walltime (``inf`` without walltime or before the start)."""
        return self.start + self.walltime if self.state == RUNNING else math.inf

    @property
    def waiting(self) -> bool:
        return self.state == SUBMITTED

    @property
    def running(self) -> bool:
        return self.state == RUNNING

    @property
    def finished(self) -> bool:
        return self.state not in (SUBMITTED, RUNNING)

    @property
    def extra(self) -> dict[str, Any]:
        """The job's description as Batsim sent it (its own fields included), while the run lives."""
        if self._extra is None:
            if self._run is None:
                raise UsageError(f"job {self.id}: its description is read while its run lives")
            self._extra = json.loads(self._run.handle.job_json(self.idx))
        return self._extra

    def __repr__(self) -> str:
        return (
            f"Job({self.id!r}, submit={self.submit:g}, res={self.res}, "
            f"walltime={self.walltime:g}, state={self.state})"
        )


class Host:
    """A compute host: ``free_slots`` is how many more jobs may start on it now.

    Its state (``free_slots``, ``jobs``, ``available``, ``power``, ``pstate``) is
    read from the Go framework when first asked after a change, so that a policy
    that never reads it pays nothing for it.
    """

    __slots__ = ("id", "name", "speed", "properties", "_state", "_rec")

    def __init__(self, state: State, id: int, name: str, speed: float, properties: dict[str, str]) -> None:
        self.id = id
        self.name = name
        self.speed = speed
        self.properties = properties
        self._state = state
        self._rec: tuple[int, ...] = (id, 0, 0, 0, 0, 0)

    def _fresh(self) -> tuple[int, ...]:
        st = self._state
        if st._hseen != st._hver:
            st._read_hosts()
        return self._rec

    @property
    def free_slots(self) -> int:
        return self._fresh()[1]

    @property
    def jobs(self) -> int:
        """How many jobs run on the host."""
        return self._fresh()[2]

    @property
    def available(self) -> bool:
        return not self._fresh()[3]

    @property
    def power(self) -> str:
        """``on``, ``switching off``, ``sleeping`` or ``switching on``."""
        p = self._fresh()[4]
        return POWER[p] if 0 <= p < len(POWER) else str(p)

    @property
    def pstate(self) -> int:
        return self._fresh()[5]

    @property
    def free(self) -> bool:
        """Whether a job may start on the host now."""
        return self.free_slots > 0

    def __repr__(self) -> str:
        return f"Host({self.id}, {self.name!r}, free_slots={self.free_slots}, jobs={self.jobs})"


class Queue:
    """The waiting jobs, in arrival order (iterate it; ``len`` counts them).

    Jobs started or rejected during the current decision are left out as the
    iteration reaches them, so that a policy may decide while it walks.
    """

    __slots__ = ("_state",)

    def __init__(self, state: State) -> None:
        self._state = state

    def __iter__(self) -> Iterator[Job]:
        return (j for j in self._state._waiting.values() if j.state == SUBMITTED)

    def __len__(self) -> int:
        return self._state.nb_waiting

    def __bool__(self) -> bool:
        return self._state.nb_waiting > 0

    def first(self) -> Job | None:
        """The first waiting job, None when none waits."""
        return next(iter(self), None)

    def __repr__(self) -> str:
        return f"<Queue of {len(self)} waiting jobs>"


class State:
    """The simulation as the policy sees it at a decision point (read it, do not change it)."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self.now = 0.0
        self.hosts: list[Host] = []
        self.nb_free = 0
        self.nb_waiting = 0
        self._waiting: dict[int, Job] = {}
        self._running: dict[int, Job] = {}
        self._jobs: dict[int, Job] = {}
        self._by_id: dict[str, Job] = {}
        self._left: list[int] = []
        self._hver = 0
        self._hseen = -1
        self.waiting = Queue(self)

    @property
    def nb_hosts(self) -> int:
        return len(self.hosts)

    @property
    def running(self) -> list[Job]:
        """The running jobs, in the order they started."""
        return list(self._running.values())

    def job(self, id: str) -> Job | None:
        """The waiting or running job of Batsim id ``id`` (``w0!12``)."""
        return self._by_id.get(id)

    def free_hosts(self) -> list[int]:
        """The ids of the hosts a job may start on now, increasing."""
        return [h.id for h in self.hosts if h.free_slots > 0]

    def _read_hosts(self) -> None:
        """Read the hosts' state from the Go framework (once per change)."""
        h = self._run.handle
        self._hseen = self._hver
        if h.closed:
            return
        if _lib.lib.bucmapy_hosts(h.id, h.ptrp, h.sizep, h.errp) < 0:
            h.fail()
        hosts = self.hosts
        for rec in HOST.iter_unpack(h.buffer()):
            hosts[rec[0]]._rec = rec

    def reservation(self, need: int) -> tuple[float, int]:
        """EASY's reservation now, computed by the Go framework (sched.Reservation).

        Returns the shadow time (the earliest time ``need`` hosts are free, from
        the running jobs' expected ends; ``inf`` when never) and the extra hosts
        (those free then beyond ``need``).
        """
        run = self._run
        shadow = c_double()
        extra = c_int64()
        h = run.handle
        if _lib.lib.bucmapy_reservation(h.id, need, ctypes.byref(shadow), ctypes.byref(extra), h.errp) < 0:
            h.fail()
        return shadow.value, extra.value

    def __repr__(self) -> str:
        return (
            f"<State now={self.now:g}: {self.nb_waiting} waiting, {len(self._running)} running, "
            f"{self.nb_free}/{len(self.hosts)} hosts free>"
        )

    # The updates, from a point and from the policy's own decisions.

    def _purge(self) -> None:
        """Drop the jobs that left the queue in the last decision."""
        w = self._waiting
        for idx in self._left:
            w.pop(idx, None)
        self._left.clear()

    def _apply(self, buf: bytes, submitted: Any, ended_hook: Any) -> tuple[int, int, int]:
        """Apply a point (and call the hooks); return its kind, the offset of its keys and their number."""
        (
            version,
            kind,
            now,
            free,
            n_new,
            n_started,
            n_ended,
            n_keys,
            n_alloc,
            n_str,
            n_begin,
            n_waiting,
            _,
        ) = HEADER.unpack_from(buf)
        if version != VERSION:
            raise UsageError(f"the library speaks version {version} of the points, this package {VERSION}")
        if self._left:
            self._purge()
        self._hver += 1
        self.now = now
        self.nb_free = free
        self.nb_waiting = n_waiting
        o_started = HEADER.size + NEW.size * n_new
        o_ended = o_started + STARTED.size * n_started
        o_keys = o_ended + ENDED.size * n_ended
        if n_new or n_started or n_begin:
            o_alloc = (o_keys + 28 * n_keys + 7) & ~7
            o_str = (o_alloc + 4 * n_alloc + 7) & ~7
            if n_begin:
                o_begin = o_str + n_str
                self._begin(json.loads(buf[o_begin : o_begin + n_begin].decode()))
            added = self._new(buf, o_started, o_str, n_str) if n_new else ()
            if n_started:
                jobs = self._jobs
                waiting = self._waiting
                running = self._running
                a = o_alloc
                for idx, start, nalloc, _ in STARTED.iter_unpack(buf[o_started:o_ended]):
                    j = jobs[idx]
                    j.state = RUNNING
                    j.start = start
                    j.alloc = struct.unpack_from(f"<{nalloc}i", buf, a)
                    a += 4 * nalloc
                    waiting.pop(idx, None)
                    running[idx] = j
            if submitted is not None:
                for j in added:
                    submitted(self, j)
        if n_ended:
            jobs = self._jobs
            waiting = self._waiting
            running = self._running
            by_id = self._by_id
            for idx, end, code, rc in ENDED.iter_unpack(buf[o_ended:o_keys]):
                j = jobs.pop(idx)
                j.state = STATES[code] if code < len(STATES) else "UNKNOWN"
                j.end = end
                j.return_code = rc
                waiting.pop(idx, None)
                running.pop(idx, None)
                if by_id.get(j.id) is j:
                    del by_id[j.id]
                if ended_hook is not None:
                    ended_hook(self, j)
        return kind, o_keys, n_keys

    def _new(self, buf: bytes, end: int, o_str: int, n_str: int) -> list[Job]:
        """The jobs of a point's new records, added to the queue."""
        run = self._run
        waiting = self._waiting
        jobs = self._jobs
        by_id = self._by_id
        inf = math.inf
        added: list[Job] = []
        raw = buf[o_str : o_str + n_str]
        ascii_ = raw.isascii()
        text = raw.decode("ascii") if ascii_ else ""
        s = 0
        for idx, submit, wall, res, li, lu, lp in NEW.iter_unpack(buf[HEADER.size : end]):
            a, b, c = s + li, s + li + lu, s + li + lu + lp
            if ascii_:
                jid, user, prof = text[s:a], text[a:b], text[b:c]
            else:
                jid, user, prof = raw[s:a].decode(), raw[a:b].decode(), raw[b:c].decode()
            s = c
            j = Job(idx, jid, submit, res, wall if wall > 0 else inf, user, prof, run)
            waiting[idx] = j
            jobs[idx] = j
            by_id[jid] = j
            added.append(j)
        return added

    def _begin(self, begin: dict[str, Any]) -> None:
        self.hosts = [
            Host(self, i, h["name"], h["speed"], h.get("properties") or {})
            for i, h in enumerate(begin["hosts"])
        ]


class Decisions:
    """The decisions of a policy at a decision point: each is checked by the Go Decider.

    A decision Batsim would refuse raises :class:`bucma.DecisionError` with the
    Decider's text, and the run stops with it, as a Go policy's would.
    """

    __slots__ = ("_run", "_state", "_out", "_cap", "_ccap")

    def __init__(self, run: Run, state: State) -> None:
        self._run = run
        self._state = state
        self._cap = 0
        self._ccap = c_int64(0)
        self._out: Any = None

    def _buffer(self) -> Any:
        need = 2 + max(len(self._state.hosts), 1)
        if need > self._cap:
            self._out = (c_int32 * need)()
            self._cap = need
            self._ccap = c_int64(need)
        return self._out

    def start(self, job: Job, hosts: list[int] | None = None) -> tuple[int, ...]:
        """Start waiting ``job`` on ``hosts`` (default: the hosts option's choice among the free ones).

        Returns the hosts the job runs on.
        """
        if job._run is not self._run:
            raise UsageError(f"start {job.id}: not a job of this run")
        h = self._run.handle
        out = self._out if self._cap else self._buffer()
        if hosts is None:
            n = _lib.start_job(h.cid, c_int64(job.idx), None, _ANY_HOSTS, out, self._ccap, h.errp)
        else:
            arr = (c_int32 * len(hosts))(*hosts)
            n = _lib.start_job(h.cid, c_int64(job.idx), arr, c_int64(len(hosts)), out, self._ccap, h.errp)
        if n < 0:
            h.fail()
        st = self._state
        st.nb_free = out[0]
        alloc = tuple(out[2:n])
        st._hver += 1
        job.state = RUNNING
        job.start = st.now
        job.alloc = alloc
        st.nb_waiting -= 1
        st._left.append(job.idx)
        st._running[job.idx] = job
        return alloc

    def reject(self, job: Job) -> None:
        """Reject waiting ``job``."""
        if job._run is not self._run:
            raise UsageError(f"reject {job.id}: not a job of this run")
        h = self._run.handle
        if _lib.lib.bucmapy_reject(h.id, job.idx, h.errp) < 0:
            h.fail()
        job.state = REJECTED
        st = self._state
        st.nb_waiting -= 1
        st._left.append(job.idx)

    def kill(self, *jobs: Job) -> None:
        """Ask Batsim to kill running ``jobs`` (their hosts are freed when they end)."""
        for job in jobs:
            if job._run is not self._run:
                raise UsageError(f"kill {job.id}: not a job of this run")
        h = self._run.handle
        arr = (c_int64 * len(jobs))(*(j.idx for j in jobs))
        if _lib.lib.bucmapy_kill(h.id, arr, len(jobs), h.errp) < 0:
            h.fail()

    def call_me_later(self, at: float) -> None:
        """Ask for a decision point at time ``at`` (later than now)."""
        h = self._run.handle
        if _lib.lib.bucmapy_call_me_later(h.id, at, h.errp) < 0:
            h.fail()
