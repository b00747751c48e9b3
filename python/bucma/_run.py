"""Runs: the embedded engine, a server of the real Batsim, Batsim run against a policy."""

from __future__ import annotations

import csv
import ctypes
import io
import math
import os
import shutil
import tempfile
import traceback
import warnings
from array import array
from collections.abc import Callable, Iterable, Sequence
from ctypes import POINTER, c_double
from pathlib import Path
from typing import Any, Union

from . import _lib
from .errors import Error, OptionError, UsageError, from_failure
from .policy import KeyBatch, KeyPolicy, Policy
from .state import Decisions, State

__all__ = ["Result", "simulate", "serve", "run_batsim", "resolve_workload"]

PathLike = Union[str, "os.PathLike[str]"]
PolicyLike = Union[str, Policy, KeyPolicy]

# Point kinds (package run/pull).
DONE, DECIDE, KEYS, RUNNING = 0, 1, 2, 3

_DATA = Path(__file__).resolve().parent / "data" / "workloads"
_SOURCE = Path(__file__).resolve().parent.parent.parent / "workloads"


def bundled_workloads() -> list[str]:
    """The names of the workloads bundled with bucma (``lille-7056``, ``tiny``, ...)."""
    for d in (_DATA, _SOURCE):
        if d.is_dir():
            return sorted(p.stem for p in d.glob("*.json"))
    return []


def resolve_workload(workload: PathLike) -> str:
    """The file a workload names: a path, or a bundled workload's name (``lille-7056``)."""
    p = Path(workload)
    if p.is_file():
        return str(p.resolve())
    name = p.name[:-5] if p.name.endswith(".json") else p.name
    if p.parent == Path(".") or str(p.parent) == "workloads":
        for d in (_DATA, _SOURCE):
            f = d / f"{name}.json"
            if f.is_file():
                return str(f)
    return str(p)


def _workloads(workload: PathLike | Sequence[PathLike]) -> list[str]:
    if isinstance(workload, (str, os.PathLike)):
        return [resolve_workload(workload)]
    return [resolve_workload(w) for w in workload]


def _platform(platform: PathLike) -> str:
    p = Path(platform)
    return str(p.resolve()) if p.is_file() else str(platform)


def _policy_config(policy: PolicyLike, options: dict[str, Any] | None) -> dict[str, Any]:
    if isinstance(policy, str):
        return {"name": policy, "options": dict(options or {})}
    if isinstance(policy, (Policy, KeyPolicy)):
        cfg = policy._config()
        cfg["options"] = {**cfg["options"], **(options or {})}
        return cfg
    raise TypeError(
        f"policy: want the name of one of bucma's policies, a bucma.Policy or a bucma.KeyPolicy, "
        f"not {type(policy).__name__}"
    )


class Run:
    """One run of the library, driven from Python: the policy's state and decisions.

    The driver (:meth:`drive`) steps the run to its end; a Python policy is
    asked at each point. A Python exception (KeyboardInterrupt included) stops
    the run: its outputs are kept as ``.partial`` files, and the exception is
    raised again with a note naming them.
    """

    def __init__(self, config: dict[str, Any], policy: PolicyLike, temporary: bool = False) -> None:
        self.policy = policy
        self.temporary = temporary
        self.handle = _lib.Handle(config)
        self.state = State(self)
        self.decisions = Decisions(self, self.state)
        self.began = False
        self.points = 0

    def pull(self, point: Callable[[int, bytes], bool]) -> bool:
        """Step the run: ``point(kind, bytes)`` at each point, until it returns True (then True).

        Returns False when the run ended; raises its failure.
        """
        h = self.handle
        nxt = _lib.next_point
        string_at = ctypes.string_at
        hid, ptr, ptrp, size, sizep, errp = h.cid, h.ptr, h.ptrp, h.size, h.sizep, h.errp
        while True:
            k = nxt(hid, ptrp, sizep, errp)
            if k == RUNNING:
                continue
            if k <= DONE:
                if k < 0:
                    h.fail()
                return False
            if point(k, string_at(ptr, size.value)):
                return True

    def drive(self) -> None:
        """Step the run to its end; raise its failure."""
        policy = self.policy
        state = self.state
        decisions = self.decisions
        apply = state._apply
        submitted = getattr(policy, "_hook_submitted", None)
        ended = getattr(policy, "_hook_ended", None)
        decide = policy.decide if isinstance(policy, Policy) else None

        def point(k: int, buf: bytes) -> bool:
            self.points += 1
            kind, o_keys, n_keys = apply(buf, submitted, ended)
            if not self.began and state.hosts:
                self.began = True
                if isinstance(policy, Policy):
                    policy.simulation_begins(state)
            if k == DECIDE:
                if decide is not None:
                    decide(state, decisions)
            elif k == KEYS and isinstance(policy, KeyPolicy):
                self._keys(buf, o_keys, n_keys)
            return False

        try:
            self.pull(point)
        except BaseException as exc:
            self._stop(exc)
            raise
        finally:
            self._warn()

    def _keys(self, buf: bytes, off: int, n: int) -> None:
        """Answer a Keys point: the keys of its n jobs, in their order."""
        policy: KeyPolicy = self.policy  # type: ignore[assignment]
        idx = array("q")
        idx.frombytes(buf[off : off + 8 * n])
        jobs = self.state._jobs
        batch = [jobs[i] for i in idx]
        now = self.state.now
        fn = policy._key
        if policy.vectorized:
            import numpy as np

            b = np.frombuffer(buf, dtype=np.float64, count=2 * n, offset=off + 8 * n)
            kb = KeyBatch(
                np.frombuffer(buf, dtype=np.int64, count=n, offset=off),
                b[:n],
                b[n:],
                np.frombuffer(buf, dtype=np.int32, count=n, offset=off + 24 * n),
                batch,
            )
            out = np.ascontiguousarray(fn(kb, now) if policy.time_dependent else fn(kb), dtype=np.float64)
            if out.shape != (n,):
                raise ValueError(f"the vectorized key returned {out.shape} values for {n} jobs")
            ks: Any = out.ctypes.data_as(POINTER(c_double))
        elif policy.time_dependent:
            ks = (c_double * n)(*[fn(j, now) for j in batch])
        else:
            ks = (c_double * n)(*[fn(j) for j in batch])
        h = self.handle
        if _lib.lib.bucmapy_set_keys(h.id, ks, n, h.errp) < 0:
            h.fail()

    def _stop(self, exc: BaseException) -> None:
        """Stop the run for exc, and note on exc where its outputs were kept."""
        h = self.handle
        if h.closed:
            return
        cause = "".join(traceback.format_exception_only(type(exc), exc)).strip() or type(exc).__name__
        try:
            f = h.close(f"the Python policy stopped the run: {cause}")
        except UsageError:
            return
        partial = (f or {}).get("partial") or []
        if isinstance(exc, Error) and not exc.partial and not self.temporary:
            exc.partial = list(partial)
        if partial and not self.temporary:
            exc.add_note("the rows written before the run stopped are kept in: " + ", ".join(partial))

    def _warn(self) -> None:
        if self.handle.closed:
            return
        try:
            logs = self.handle.result().get("logs") or []
        except Error:
            return
        for line in logs:
            warnings.warn(f"bucma: {line}", RuntimeWarning, stacklevel=4)

    def finish(self) -> dict[str, Any] | None:
        """The run's result once it ended (its JSON), and the handle closed."""
        res = self.handle.result().get("result")
        f = self.handle.close()
        if f:
            raise from_failure(f["kind"], f["message"], f.get("partial"))
        return res  # type: ignore[no-any-return]

    def close(self) -> None:
        try:
            self.handle.close()
        except UsageError:
            pass

    def complete(self) -> dict[str, Any] | None:
        """Drive the run to its end and close it: its result (an embedded run's)."""
        try:
            self.drive()
            return self.finish()
        finally:
            self.close()

    def __del__(self) -> None:
        h = getattr(self, "handle", None)
        if h is not None and not h.closed:
            try:
                h.close()
            except Exception:
                pass


def _read_csv(data: bytes) -> Any:
    """A table: a pandas DataFrame when pandas is importable, else a list of dicts."""
    try:
        import pandas as pd
    except ImportError:
        rows = list(csv.DictReader(io.StringIO(data.decode())))
        return [{k: _number(v) for k, v in r.items()} for r in rows]
    return pd.read_csv(io.BytesIO(data))


def _number(v: str) -> Any:
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f


class Result:
    """A finished run: its jobs table, its schedule summary and its output files' bytes.

    ``jobs`` is Batsim's ``_jobs.csv`` as a table (a pandas DataFrame when pandas
    is importable, else a list of dicts); ``schedule`` the ``_schedule.csv`` row as
    a dict; ``metrics`` the metrics of bucma's reports (makespan, mean waiting
    time, mean bounded slowdown, utilization, ...) of an embedded run.
    :meth:`export` writes the files as ``bucma simulate`` does.
    """

    def __init__(
        self,
        jobs_csv: bytes,
        schedule_csv: bytes | None,
        summary: dict[str, Any] | None = None,
        extra_files: dict[str, bytes] | None = None,
    ) -> None:
        self.jobs_csv = jobs_csv
        self.schedule_csv = schedule_csv
        self.summary: dict[str, Any] = summary or {}
        self.extra_files: dict[str, bytes] = extra_files or {}
        self._jobs: Any = None

    @property
    def jobs(self) -> Any:
        if self._jobs is None:
            self._jobs = _read_csv(self.jobs_csv)
        return self._jobs

    @property
    def schedule(self) -> dict[str, Any]:
        if not self.schedule_csv:
            return {}
        rows = list(csv.DictReader(io.StringIO(self.schedule_csv.decode())))
        return {k: _number(v) for k, v in rows[0].items()} if rows else {}

    @property
    def metrics(self) -> dict[str, Any]:
        m = self.summary.get("metrics") or {}
        return {k: (math.nan if v is None else v) for k, v in m.items()}

    def export(self, prefix: PathLike) -> list[str]:
        """Write ``PREFIX_jobs.csv`` and ``PREFIX_schedule.csv`` (and other outputs); return their paths."""
        prefix = os.fspath(prefix)
        d = os.path.dirname(prefix)
        if d:
            os.makedirs(d, exist_ok=True)
        files = {"_jobs.csv": self.jobs_csv}
        if self.schedule_csv is not None:
            files["_schedule.csv"] = self.schedule_csv
        files.update(self.extra_files)
        out = []
        for suffix, data in files.items():
            path = prefix + suffix
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            out.append(path)
        return out

    def __repr__(self) -> str:
        n = self.summary.get("jobs")
        return f"<bucma.Result: {n if n is not None else '?'} jobs>"


def _prefix(export: PathLike | None) -> tuple[str | None, str]:
    """The output prefix: export's, else one in a temporary directory (returned, to remove)."""
    if export is not None:
        return None, os.path.abspath(os.fspath(export))
    tmp = tempfile.mkdtemp(prefix="bucma-")
    return tmp, os.path.join(tmp, "out")


def _engine(engine_options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in engine_options.items() if v is not None}


def simulate(
    platform: PathLike,
    workload: PathLike | Sequence[PathLike],
    policy: PolicyLike = "easy",
    options: dict[str, Any] | None = None,
    *,
    export: PathLike | None = None,
    trace: PathLike | None = None,
    validate: bool = False,
    connect: str | None = None,
    timeout: float | None = None,
    verbose: bool = False,
    **engine_options: Any,
) -> Result:
    """Simulate a platform and workload(s) with bucma's embedded engine, as ``bucma simulate``.

    ``platform`` is a SimGrid platform file or a bundled platform's name
    (``"lille"``); ``workload`` a Batsim workload file, a bundled workload's
    name (``"lille-7056"``), or a list of them (named w0, w1, ...). ``policy``
    names one of bucma's policies (``"easy"``, see :func:`bucma.policies`) with
    its ``options``, or is a :class:`Policy` or :class:`KeyPolicy` of Python.
    ``connect`` drives a scheduler served on a ZeroMQ endpoint instead
    (``timeout`` seconds to answer each message).

    ``export`` writes ``PREFIX_jobs.csv`` and ``PREFIX_schedule.csv`` as the run
    goes (a failed run keeps them as ``.partial``); the result holds their
    bytes either way. ``trace`` writes the decision trace. The engine options
    are ``bucma simulate``'s flags: ``latency`` ("batsim" or "none"),
    ``jobs_format`` ("batsim4" or "batsim5"), ``forward_profiles_on_submission``,
    ``enable_dynamic_jobs``, ``acknowledge_dynamic_jobs``,
    ``enable_compute_sharing``, ``energy``, ``sched_cfg``, ``approximate``.
    """
    tmp, prefix = _prefix(export)
    try:
        config: dict[str, Any] = {
            "platform": _platform(platform),
            "workloads": _workloads(workload),
            "export": prefix,
            "engine": _engine(engine_options),
            "verbose": verbose,
        }
        if trace is not None:
            config["trace"] = os.path.abspath(os.fspath(trace))
        if connect is not None:
            config["connect"] = connect
            if timeout is not None:
                config["timeout"] = timeout
        else:
            config["policy"] = {**_policy_config(policy, options), "validate": validate}
        summary = Run(config, policy, temporary=tmp is not None).complete()
        extra = {}
        for suffix in ("_consumed_energy.csv", "_pstate_changes.csv"):
            if os.path.exists(prefix + suffix):
                extra[suffix] = Path(prefix + suffix).read_bytes()
        return Result(
            Path(prefix + "_jobs.csv").read_bytes(),
            Path(prefix + "_schedule.csv").read_bytes(),
            summary,
            extra,
        )
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def serve(
    policy: PolicyLike,
    options: dict[str, Any] | None = None,
    *,
    endpoint: str = "tcp://*:28000",
    endpoint_file: PathLike | None = None,
    timeout: float | None = None,
    trace: PathLike | None = None,
    batsim5_only: bool = False,
    validate: bool = False,
    verbose: bool = False,
) -> None:
    """Serve one simulation of the real Batsim 4 or Batsim 5 over ZeroMQ, as ``bucma run``.

    bucma binds ``endpoint`` (a port ``*`` picks a free one; ``endpoint_file``
    receives the endpoint bound), Batsim connects (Batsim 4: ``-s ENDPOINT``;
    Batsim 5: ``-s ENDPOINT INIT``, the init string's options win over
    ``options``), and ``policy`` answers every message until the simulation
    ends. Batsim writes the outputs. Ctrl-C stops the server.
    """
    config: dict[str, Any] = {
        "mode": "serve",
        "policy": {**_policy_config(policy, options), "validate": validate},
        "endpoint": endpoint,
        "batsim5_only": batsim5_only,
        "verbose": verbose,
    }
    if endpoint_file is not None:
        config["endpoint_file"] = os.path.abspath(os.fspath(endpoint_file))
    if timeout is not None:
        config["timeout"] = timeout
    if trace is not None:
        config["trace"] = os.path.abspath(os.fspath(trace))
    Run(config, policy).complete()


def run_batsim(
    platform: PathLike,
    workload: PathLike,
    policy: PolicyLike = "easy",
    options: dict[str, Any] | None = None,
    *,
    version: int = 4,
    export: PathLike | None = None,
    batsim: str | None = None,
    batsim_args: Iterable[str] = (),
    log: PathLike | None = None,
    validate: bool = False,
    **engine_options: Any,
) -> Result:
    """Run the real Batsim against ``policy``, served in this process on a loopback port.

    ``version=4`` runs Batsim 4.2.1 (``batsim`` on PATH, or the executable
    ``batsim``): it gets the flags the policy needs (and ``batsim_args``) and
    writes ``PREFIX_jobs.csv`` and ``PREFIX_schedule.csv`` under ``export`` (a
    temporary prefix by default). ``version=5`` runs Batsim 5 (``batsim5``)
    over ZeroMQ: a Batsim 4 workload is converted to Batsim 5's format first,
    and Batsim 5 writes its files into the directory ``export``; its
    ``jobs.csv`` is the result's jobs table. Batsim's output goes to ``log``.
    The engine options give Batsim's features (``energy``,
    ``enable_dynamic_jobs``, ...).
    """
    if version not in (4, 5):
        raise OptionError(f"version={version!r}: Batsim 4 or 5")
    tmp, prefix = _prefix(export)
    config: dict[str, Any] = {
        "mode": "batsim" if version == 4 else "batsim5",
        "platform": _platform(platform),
        "workloads": _workloads(workload),
        "policy": {**_policy_config(policy, options), "validate": validate},
        "export": prefix,
        "batsim_args": list(batsim_args),
        "engine": _engine(engine_options),
    }
    if batsim is not None:
        config["batsim"] = batsim
    if log is not None:
        config["batsim_log"] = os.path.abspath(os.fspath(log))
    try:
        Run(config, policy, temporary=tmp is not None).complete()
        if version == 5:
            return Result(Path(prefix, "jobs.csv").read_bytes(), None, None)
        sched = Path(prefix + "_schedule.csv")
        return Result(Path(prefix + "_jobs.csv").read_bytes(), sched.read_bytes() if sched.exists() else None)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
