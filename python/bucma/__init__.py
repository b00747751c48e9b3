"""bucma from Python: Batsim-exact simulations, policies in Python, the real Batsim 4 and 5.

- :func:`simulate` runs bucma's embedded engine (it writes the same files as
  Batsim 4.2.1) with one of bucma's policies or a policy of Python, and gives
  the jobs as a pandas table.
- :class:`Policy` is a policy written in Python (``decide(state, decide)``),
  :class:`KeyPolicy` a priority function whose order Go's start rules run at
  Go speed (FCFS, EASY, conservative backfilling).
- The same policy object serves the real Batsim 4 or 5 over ZeroMQ
  (:func:`serve`), or runs Batsim against itself (:func:`run_batsim`).
- :mod:`bucma.workloads` generates and converts workloads; :func:`campaign`
  runs a campaign file.

The Go core (a C shared library, ``libbucmapy``) is the single implementation:
Python never re-implements the engine, a policy or a check.
"""

from __future__ import annotations

from typing import Any

from . import _lib, workloads
from ._run import Result, bundled_workloads, run_batsim, serve, simulate
from ._task import Campaign, campaign
from .errors import (
    DecisionError,
    Error,
    InternalError,
    OptionError,
    SimulationError,
    UnmodelledError,
    UsageError,
)
from .policy import KeyBatch, KeyPolicy, Policy
from .state import Decisions, Host, Job, Queue, State

__version__ = _lib.version()


def policies() -> list[dict[str, Any]]:
    """bucma's policies: each a dict of its ``name``, ``description`` and ``options``."""
    out: list[dict[str, Any]] = _lib.call("policies", None)
    return out


def platforms() -> list[str]:
    """The names of the platforms bundled with bucma (``lille``, ``osep``, ...)."""
    out: list[str] = _lib.call("platforms", None)
    return out


def platform_xml(name: str) -> str:
    """The SimGrid XML of a bundled platform (to give a real Batsim, or to read)."""
    out: str = _lib.call("platform_xml", name)
    return out


__all__ = [
    "workloads",
    "simulate",
    "campaign",
    "Campaign",
    "policies",
    "platforms",
    "platform_xml",
    "serve",
    "run_batsim",
    "bundled_workloads",
    "Result",
    "Policy",
    "KeyPolicy",
    "KeyBatch",
    "State",
    "Job",
    "Host",
    "Queue",
    "Decisions",
    "Error",
    "OptionError",
    "UnmodelledError",
    "DecisionError",
    "UsageError",
    "SimulationError",
    "InternalError",
]
