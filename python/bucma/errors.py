"""The exceptions of bucma: each carries the text of the Go error it stands for."""

from __future__ import annotations

__all__ = [
    "Error",
    "OptionError",
    "UnmodelledError",
    "DecisionError",
    "UsageError",
    "SimulationError",
    "InternalError",
]


class Error(Exception):
    """A failure of bucma, with the Go error's text.

    ``partial`` lists the files a failed run kept (``PREFIX_jobs.csv.partial``
    and the like): the rows written before the failure, never under the name
    of a complete output.
    """

    kind = "error"

    def __init__(self, message: str, partial: list[str] | None = None) -> None:
        super().__init__(message)
        self.partial: list[str] = list(partial or [])


class OptionError(Error, ValueError):
    """A bad policy name, option, engine option or configuration."""

    kind = "option"


class UnmodelledError(Error, ValueError):
    """Inputs the engine does not reproduce exactly (``approximate=True`` runs them)."""

    kind = "unmodelled"


class DecisionError(Error):
    """A decision Batsim would refuse, refused by the Decider; it ends the run."""

    kind = "decision"


class UsageError(Error, RuntimeError):
    """A call the run's state does not allow (no effect on the run)."""

    kind = "usage"


class SimulationError(Error):
    """A run that failed: an input file, the engine, Batsim or the scheduler."""


class InternalError(Error):
    """A bug of bucma's Go side, recovered (please report it)."""

    kind = "internal"


_BY_KIND: dict[str, type[Error]] = {
    "option": OptionError,
    "unmodelled": UnmodelledError,
    "decision": DecisionError,
    "usage": UsageError,
    "internal": InternalError,
}


def from_failure(kind: str, message: str, partial: list[str] | None = None) -> BaseException:
    """The exception of a failure the library reported."""
    if kind == "interrupted":
        exc: BaseException = KeyboardInterrupt(message)
        return exc
    cls = _BY_KIND.get(kind, SimulationError)
    return cls(message, partial)
