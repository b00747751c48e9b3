"""The C shared library (cmd/libbucmapy), through ctypes.

The library is found at ``$BUCMA_LIBRARY`` when set (a development build,
``make python``), else beside this file (``bucma/libbucmapy.so``: put there
by ``make python`` and copied into the package at install).
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import sys
import threading
import weakref
from ctypes import (
    POINTER,
    c_char_p,
    c_double,
    c_int32,
    c_int64,
    c_uint8,
    c_void_p,
)
from pathlib import Path
from typing import Any

from .errors import from_failure

__all__ = ["lib", "library_path", "check", "Handle"]

LIBRARY_ENV = "BUCMA_LIBRARY"
_NAME = "libbucmapy.dylib" if sys.platform == "darwin" else "libbucmapy.so"


def library_path() -> Path:
    """Where the shared library is loaded from."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / _NAME


def _load() -> ctypes.CDLL:
    path = library_path()
    if not path.is_file():
        raise ImportError(
            f"bucma's shared library is not at {path}: build it with 'make python' in bucma's "
            f"repository (or name a build in ${LIBRARY_ENV}), then install the package again"
        )
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise ImportError(f"bucma's shared library {path} cannot be loaded: {exc}") from exc
    err = POINTER(c_char_p)
    u8p = POINTER(POINTER(c_uint8))
    i64p = POINTER(c_int64)
    protos: dict[str, tuple[Any, list[Any]]] = {
        "bucmapy_version": (c_void_p, []),
        "bucmapy_free": (None, [c_void_p]),
        "bucmapy_new": (c_int32, [c_char_p, c_int64, i64p, err]),
        "bucmapy_next": (c_int32, [c_int64, u8p, i64p, err]),
        "bucmapy_set_keys": (c_int32, [c_int64, POINTER(c_double), c_int64, err]),
        "bucmapy_start": (
            c_int32,
            [c_int64, c_int64, POINTER(c_int32), c_int64, POINTER(c_int32), c_int64, err],
        ),
        "bucmapy_reject": (c_int32, [c_int64, c_int64, err]),
        "bucmapy_kill": (c_int32, [c_int64, POINTER(c_int64), c_int64, err]),
        "bucmapy_call_me_later": (c_int32, [c_int64, c_double, err]),
        "bucmapy_reservation": (c_int32, [c_int64, c_int64, POINTER(c_double), i64p, err]),
        "bucmapy_job_json": (c_int32, [c_int64, c_int64, u8p, i64p, err]),
        "bucmapy_result": (c_int32, [c_int64, u8p, i64p, err]),
        "bucmapy_hosts": (c_int32, [c_int64, u8p, i64p, err]),
        "bucmapy_close": (c_int32, [c_int64, c_char_p, c_int64, err]),
        "bucmapy_call": (c_int32, [c_char_p, c_int64, u8p, i64p, err]),
        "bucmapy_task": (c_int32, [c_char_p, c_int64, i64p, err]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


lib = _load()


def _unconverted(name: str) -> Any:
    """The library's function name without ctypes' conversion of its arguments.

    For the calls made at every point or decision: their callers pass objects
    of the exact C types (Handle.cid, c_int64 values, the out-parameters).
    """
    fn = lib._FuncPtr((name, lib))
    fn.restype = c_int32
    return fn


next_point = _unconverted("bucmapy_next")
start_job = _unconverted("bucmapy_start")


def version() -> str:
    """The version of bucma's Go side."""
    p = lib.bucmapy_version()
    try:
        return ctypes.string_at(p).decode()
    finally:
        lib.bucmapy_free(p)


def failure(err: c_char_p) -> dict[str, Any]:
    """The failure the library reported in err, {"kind", "message", "partial"} (freed)."""
    raw = ctypes.cast(err, c_void_p).value
    if raw is None:
        return {"kind": "internal", "message": "the library failed without a message"}
    try:
        f: dict[str, Any] = json.loads(ctypes.string_at(raw).decode())
    finally:
        lib.bucmapy_free(raw)
    return f


def raise_failure(err: c_char_p) -> None:
    """Raise the exception of a failure the library reported in err."""
    f = failure(err)
    raise from_failure(f.get("kind", "error"), f.get("message", ""), f.get("partial"))


def check(status: int, err: c_char_p) -> int:
    """status, or the library's failure raised."""
    if status < 0:
        raise_failure(err)
    return status


def call(fn: str, args: Any) -> Any:
    """A call of the library that takes and gives JSON (bucmapy_call)."""
    data = json.dumps({"fn": fn, "args": args}).encode()
    out = POINTER(c_uint8)()
    size = c_int64()
    err = c_char_p()
    try:
        status = lib.bucmapy_call(data, len(data), ctypes.byref(out), ctypes.byref(size), ctypes.byref(err))
        check(status, err)
        return json.loads(ctypes.string_at(out, size.value).decode()) if size.value else None
    finally:
        if out:
            lib.bucmapy_free(ctypes.cast(out, c_void_p))


_open: weakref.WeakSet[Handle] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Close the runs still open when Python ends: their outputs are kept as .partial."""
    for h in list(_open):
        if not h.closed and h.thread == threading.get_ident():
            try:
                h.close("the Python process ended before the run")
            except Exception:
                pass


class Handle:
    """A run of the library: its handle and the C out-parameters it reuses.

    A run of the embedded engine is stepped and closed from the thread that
    created it.
    """

    __slots__ = (
        "id",
        "cid",
        "thread",
        "closed",
        "err",
        "errp",
        "ptr",
        "ptrp",
        "size",
        "sizep",
        "__weakref__",
    )

    def __init__(self, config: dict[str, Any] | None) -> None:
        self.err = c_char_p()
        self.errp = ctypes.pointer(self.err)
        self.id = 0
        if config is not None:
            data = json.dumps(config).encode()
            hid = c_int64()
            check(lib.bucmapy_new(data, len(data), ctypes.byref(hid), self.errp), self.err)
            self.id = hid.value
        self.cid = c_int64(self.id)
        self.thread = threading.get_ident()
        self.closed = False
        self.ptr = POINTER(c_uint8)()
        self.ptrp = ctypes.pointer(self.ptr)
        self.size = c_int64()
        self.sizep = ctypes.pointer(self.size)
        _open.add(self)

    @classmethod
    def adopt(cls, hid: int) -> Handle:
        """The handle of a run the library opened (a task)."""
        h = cls(None)
        h.id = hid
        h.cid = c_int64(hid)
        return h

    def fail(self) -> None:
        """Raise the failure the last call reported."""
        raise_failure(self.err)

    def buffer(self) -> bytes:
        """The bytes the last call handed out."""
        n = self.size.value
        return ctypes.string_at(self.ptr, n) if n else b""

    def next(self) -> int:
        k = lib.bucmapy_next(self.id, self.ptrp, self.sizep, self.errp)
        if k < 0:
            self.fail()
        return int(k)

    def result(self) -> Any:
        if lib.bucmapy_result(self.id, self.ptrp, self.sizep, self.errp) < 0:
            self.fail()
        return json.loads(self.buffer().decode())

    def job_json(self, idx: int) -> bytes:
        if lib.bucmapy_job_json(self.id, idx, self.ptrp, self.sizep, self.errp) < 0:
            self.fail()
        return self.buffer()

    def close(self, cause: str | None = None) -> dict[str, Any] | None:
        """Stop the run if it has not ended and forget it.

        Returns the run's failure (``{"kind", "message", "partial"}``), None when it
        ended well or was closed without a cause. A call the library refuses (from
        another thread) raises UsageError and leaves the run open.
        """
        if self.closed:
            return None
        data = cause.encode() if cause is not None else None
        status = lib.bucmapy_close(self.id, data, len(data) if data else 0, self.errp)
        if status >= 0:
            self.closed = True
            return None
        f = failure(self.err)
        if f.get("kind") == "usage":
            raise from_failure("usage", f.get("message", ""))
        self.closed = True
        return f
