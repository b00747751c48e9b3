"""Gymnasium's spaces, or minimal stand-ins of the same attributes where gymnasium is not installed.

The stand-ins offer what an agent and Gymnasium's checks use of a space:
``shape``, ``dtype``, ``contains`` (and ``in``), ``sample`` (``Discrete``'s
with a mask), ``seed`` and ``np_random``; ``Box`` its ``low`` and ``high``,
``Discrete`` its ``n`` and ``start``, ``MultiBinary`` its ``n``, ``Dict``
its ``spaces``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

__all__ = ["GYMNASIUM", "Env", "Space", "Box", "Discrete", "MultiBinary", "Dict"]

try:  # pragma: no cover - gymnasium is not installed where bucma's tests run
    import gymnasium
    from gymnasium import spaces as _gs

    GYMNASIUM = True
except ImportError:
    GYMNASIUM = False


class Space:
    """A set of values an agent sees or gives, with its own random generator."""

    def __init__(self, shape: tuple[int, ...] | None, dtype: Any, seed: int | None = None) -> None:
        self._shape = shape
        self.dtype = None if dtype is None else np.dtype(dtype)
        self._np_random: np.random.Generator | None = None
        if seed is not None:
            self.seed(seed)

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self._shape

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self.seed(None)
        assert self._np_random is not None
        return self._np_random

    def seed(self, seed: int | None = None) -> list[int]:
        """Seed the space's generator (``sample``); return the seeds used."""
        ss = np.random.SeedSequence(seed)
        self._np_random = np.random.Generator(np.random.PCG64(ss))
        return [int(ss.entropy)]  # type: ignore[arg-type]

    def contains(self, x: Any) -> bool:
        raise NotImplementedError

    def sample(self, mask: Any = None) -> Any:
        raise NotImplementedError

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)


class Box(Space):
    """Real arrays of a shape, each element in [low, high]."""

    def __init__(
        self,
        low: float,
        high: float,
        shape: tuple[int, ...],
        dtype: Any = np.float32,
        seed: int | None = None,
    ) -> None:
        super().__init__(tuple(shape), dtype, seed)
        self.low = np.full(shape, low, dtype=self.dtype)
        self.high = np.full(shape, high, dtype=self.dtype)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError):
                return False
        return bool(
            x.shape == self.shape
            and np.can_cast(x.dtype, self.dtype)
            and np.all(x >= self.low)
            and np.all(x <= self.high)
        )

    def sample(self, mask: Any = None) -> np.ndarray[Any, Any]:
        if mask is not None:
            raise ValueError("Box.sample: a mask is not supported")
        assert self.dtype is not None
        return self.np_random.uniform(self.low, self.high).astype(self.dtype)

    def __repr__(self) -> str:
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


class Discrete(Space):
    """The integers start, ..., start + n - 1."""

    def __init__(self, n: int, seed: int | None = None, start: int = 0) -> None:
        if n <= 0:
            raise ValueError(f"Discrete: n={n}, want a positive number of values")
        super().__init__((), np.int64, seed)
        self.n = np.int64(n)
        self.start = np.int64(start)

    def contains(self, x: Any) -> bool:
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            v = int(x)
        elif isinstance(x, np.ndarray) and x.shape == () and np.issubdtype(x.dtype, np.integer):
            v = int(x)
        else:
            return False
        return bool(self.start <= v < self.start + self.n)

    def sample(self, mask: Any = None) -> np.int64:
        """A value drawn uniformly; with ``mask`` (n int8, 1: allowed), among the allowed (start if none)."""
        if mask is None:
            return np.int64(self.start + self.np_random.integers(self.n))
        m = np.asarray(mask)
        if m.shape != (int(self.n),) or m.dtype != np.int8:
            raise ValueError(
                f"Discrete.sample: the mask must be int8 of shape ({self.n},), not {m.dtype} {m.shape}"
            )
        valid = np.flatnonzero(m)
        if valid.size == 0:
            return np.int64(self.start)
        return np.int64(self.start + self.np_random.choice(valid))

    def __repr__(self) -> str:
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"


class MultiBinary(Space):
    """Arrays of n zeros and ones (int8)."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__((n,), np.int8, seed)
        self.n = n

    def contains(self, x: Any) -> bool:
        x = np.asarray(x)
        return bool(x.shape == self.shape and np.all((x == 0) | (x == 1)))

    def sample(self, mask: Any = None) -> np.ndarray[Any, Any]:
        return self.np_random.integers(0, 2, size=self.n, dtype=np.int8)

    def __repr__(self) -> str:
        return f"MultiBinary({self.n})"


class Dict(Space, Mapping[str, Space]):
    """A dict of spaces: its values are dicts of the same keys."""

    def __init__(self, spaces: dict[str, Space], seed: int | None = None) -> None:
        self.spaces = dict(spaces)
        super().__init__(None, None, seed)

    def seed(self, seed: int | None = None) -> list[int]:
        out = super().seed(seed)
        for i, s in enumerate(self.spaces.values()):
            out += s.seed(None if seed is None else seed + 1 + i)
        return out

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, dict)
            and x.keys() == self.spaces.keys()
            and all(s.contains(x[k]) for k, s in self.spaces.items())
        )

    def sample(self, mask: Any = None) -> dict[str, Any]:
        return {k: s.sample() for k, s in self.spaces.items()}

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{k!r}: {s!r}" for k, s in self.spaces.items()) + ")"


class Env:
    """Gymnasium's ``Env`` where gymnasium is not installed: ``np_random``, seeding at reset, ``close``."""

    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None
    spec: Any = None
    _np_random: np.random.Generator | None = None

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(None)))
        return self._np_random

    @property
    def unwrapped(self) -> Env:
        return self

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Seed ``np_random`` when ``seed`` is given (Gymnasium's rule)."""
        if seed is not None:
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        return None

    def close(self) -> None:
        pass

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()


if GYMNASIUM:  # pragma: no cover
    Env = gymnasium.Env  # type: ignore[misc] # noqa: F811
    Space = _gs.Space  # type: ignore[misc] # noqa: F811
    Box = _gs.Box  # type: ignore[misc] # noqa: F811
    Discrete = _gs.Discrete  # type: ignore[misc] # noqa: F811
    MultiBinary = _gs.MultiBinary  # type: ignore[misc] # noqa: F811
    Dict = _gs.Dict  # type: ignore[misc] # noqa: F811
