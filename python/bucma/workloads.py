"""Workloads: bundled ones, bucma's generators, SWF import and Batsim 5 conversion.

Each function runs the ``bucma workload`` command of the same name in this
process (the Go implementation, the same output bytes as the command line);
keyword arguments are its flags, ``walltime_max=3`` for ``--walltime-max 3``
(True for a flag without value). It returns the path written.
"""

from __future__ import annotations

import os
from typing import Any, Union

from ._run import bundled_workloads, resolve_workload
from ._task import Task

__all__ = [
    "bundled",
    "path",
    "command",
    "generate",
    "delays",
    "lille",
    "lublin",
    "from_swf",
    "to_v5",
    "check",
]

PathLike = Union[str, "os.PathLike[str]"]


def bundled() -> list[str]:
    """The names of the workloads bundled with bucma (``lille-7056``, ``tiny``, ...)."""
    return bundled_workloads()


def path(name: PathLike) -> str:
    """The file of a bundled workload (``path("lille-7056")``), or of a path given."""
    return resolve_workload(name)


def _flags(flags: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for k, v in flags.items():
        if v is None or v is False:
            continue
        flag = "--" + k.rstrip("_").replace("_", "-")
        if v is True:
            out.append(flag)
        elif isinstance(v, (list, tuple)):
            for x in v:
                out += [flag, _text(x)]
        else:
            out += [flag, _text(v)]
    return out


def _text(v: Any) -> str:
    return str(os.fspath(v)) if isinstance(v, os.PathLike) else str(v)


def _run(args: list[str]) -> dict[str, str]:
    out: dict[str, str] = Task("command", {"args": ["workload", *args]}).wait()
    return out


def command(*args: str) -> str:
    """Run ``bucma workload ARGS...`` in this process; return what it wrote on its standard output."""
    return _run(list(args)).get("stdout", "")


def generate(generator: str, out: PathLike, *args: PathLike, **flags: Any) -> str:
    """``bucma workload GENERATOR ARGS... --out OUT --flag value...``; return OUT."""
    out = os.fspath(out)
    command(generator, *[_text(a) for a in args], *_flags(flags), "--out", out)
    return out


def delays(out: PathLike, **flags: Any) -> str:
    """The engine benchmark's workload (``jobs``, ``hosts``, ``load``, ``seed``, ``platform_out``, ...)."""
    return generate("delays", out, **flags)


def lille(out: PathLike, **flags: Any) -> str:
    """A synthetic stand-in for the Lille 2020 trace (``jobs``, ``load``, ``seed``, ``platform``)."""
    return generate("lille", out, **flags)


def lublin(out: PathLike, **flags: Any) -> str:
    """A trace of the Lublin-Feitelson model (``jobs``, ``load``, ``platform``, ``format``, ``seed``, ...)."""
    return generate("lublin", out, **flags)


def from_swf(swf: PathLike, out: PathLike, **flags: Any) -> str:
    """Convert a Standard Workload Format trace (``ppn``, ``from_``, ``to``, ``profile_type``, ...)."""
    return generate("from-swf", out, swf, **flags)


def to_v5(workload: PathLike, out: PathLike) -> str:
    """Convert a Batsim 4 workload to Batsim 5's format."""
    return generate("to-v5", out, resolve_workload(workload))


def check(workload: PathLike, **flags: Any) -> str:
    """Check a workload as Batsim reads it (``platform``, ``for_``); return the report, raise on an error."""
    out = _run(["check", resolve_workload(workload), *_flags(flags)])
    return (out.get("stdout", "") + out.get("stderr", "")).strip()
