"""Policies written in Python: a class that decides, or a key over Go's start rules."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from .state import Decisions, Job, State

__all__ = ["Policy", "KeyPolicy", "KeyBatch"]


class Policy:
    """A policy whose decisions are Python's.

    Subclass it and write :meth:`decide`, called at every Batsim message once
    its events are applied (the jobs that arrived are in ``state.waiting``, the
    jobs that ended are gone from it). Decide through ``decide``: start, reject,
    kill, call me later; each decision is checked by bucma's Decider, as a Go
    policy's. The optional hooks :meth:`simulation_begins`, :meth:`job_submitted`
    and :meth:`job_ended` are pybatsim's ``onSimulationBegins``,
    ``onJobSubmission`` and ``onJobCompletion``: at a decision point, the hooks
    of the jobs that arrived, then of those that ended, then ``decide``.

    ``options`` are the policy's options of bucma's framework: ``hosts`` (the
    hosts :meth:`Decisions.start` picks when none are given: ``fastest``,
    ``first-fit`` or ``own-fastest``). ``name`` names the policy in messages
    (default: the class's name).
    """

    name: str | None = None
    options: dict[str, Any] = {}

    def simulation_begins(self, state: State) -> None:
        """Called once, before the first decision, when the hosts are known."""

    def job_submitted(self, state: State, job: Job) -> None:
        """Called for each job that joined the queue, before :meth:`decide`."""

    def job_ended(self, state: State, job: Job) -> None:
        """Called for each job that ended (``job.state`` is final), before :meth:`decide`."""

    def decide(self, state: State, decide: Decisions) -> None:
        """Take the decisions of one decision point."""
        raise NotImplementedError(f"{type(self).__name__}.decide")

    # What the run calls: None for a hook the class does not write.
    @property
    def _hook_submitted(self) -> Callable[[State, Job], None] | None:
        return self.job_submitted if type(self).job_submitted is not Policy.job_submitted else None

    @property
    def _hook_ended(self) -> Callable[[State, Job], None] | None:
        return self.job_ended if type(self).job_ended is not Policy.job_ended else None

    def _config(self) -> dict[str, Any]:
        return {"caller": "decide", "name": self.name or type(self).__name__, "options": dict(self.options)}


class KeyBatch:
    """The jobs whose keys a vectorized key function computes, as numpy arrays.

    ``idx`` (arrival ranks), ``submit``, ``walltime`` (``inf``: none) and ``res``,
    one element per job; ``jobs`` the Job objects, in the same order.
    """

    __slots__ = ("idx", "submit", "walltime", "res", "jobs")

    def __init__(
        self,
        idx: np.ndarray[Any, Any],
        submit: np.ndarray[Any, Any],
        walltime: np.ndarray[Any, Any],
        res: np.ndarray[Any, Any],
        jobs: list[Job],
    ) -> None:
        self.idx = idx
        self.submit = submit
        self.walltime = walltime
        self.res = res
        self.jobs = jobs

    def __len__(self) -> int:
        return len(self.jobs)


class KeyPolicy:
    """A priority function at Go speed: Python gives each job a number, Go decides.

    The waiting jobs are ordered by ``key`` (smallest first, ties by submission
    time, then job id) and one of the framework's start rules runs over that
    order: ``rule`` is ``"fcfs"``, ``"easy"`` (EASY backfilling),
    ``"conservative"`` or ``"greedy"``; ``hosts`` the host selection
    (``"fastest"``, ``"first-fit"``, ``"own-fastest"``).

    ``key(job)`` is asked once per job, when the order first needs it, in
    batches (every waiting job at the first decision, then each job as it
    arrives). A key that reads the time, ``key(job, now)`` (two parameters, or
    ``time_dependent=True``), is asked again for every waiting job at each
    decision, and the framework sorts the queue by it. With ``vectorized=True``
    the function takes a :class:`KeyBatch` of numpy arrays (and ``now``) and
    returns an array of keys.

    Subclass it and write ``key`` as a method, or give the function.
    """

    rule: str = "easy"
    hosts: str = "fastest"
    name: str | None = None

    def __init__(
        self,
        key: Callable[..., Any] | None = None,
        rule: str | None = None,
        hosts: str | None = None,
        *,
        time_dependent: bool | None = None,
        vectorized: bool = False,
        name: str | None = None,
    ) -> None:
        if key is not None:
            self._key: Callable[..., Any] = key
        elif type(self).key is not KeyPolicy.key:
            self._key = self.key
        else:
            raise TypeError("KeyPolicy needs a key function (key=...) or a key method")
        if rule is not None:
            self.rule = rule
        if hosts is not None:
            self.hosts = hosts
        if name is not None:
            self.name = name
        self.vectorized = vectorized
        if time_dependent is None:
            time_dependent = _positional(self._key) >= 2
        self.time_dependent = time_dependent

    def key(self, job: Job) -> float:
        """The job's key (smaller first)."""
        raise NotImplementedError

    def _config(self) -> dict[str, Any]:
        name = self.name or getattr(self._key, "__name__", "key")
        if name == "<lambda>":
            name = "key"
        return {
            "caller": "key",
            "name": name,
            "options": {"rule": self.rule, "hosts": self.hosts},
            "time_dependent": self.time_dependent,
        }

    _hook_submitted = None
    _hook_ended = None


def _positional(fn: Callable[..., Any]) -> int:
    """How many positional parameters fn takes (2 for any *args)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 1
    n = 0
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            return 2
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            n += 1
    return n
