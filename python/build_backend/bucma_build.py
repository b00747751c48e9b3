"""The build backend of bucma's Python package (PEP 517 and PEP 660), in the tree.

It needs nothing but the standard library, so that ``pip install
--no-build-isolation ./python`` works offline. The wheel holds the package
(``bucma/``), its C shared library (``bucma/libbucmapy.so``: ``make python``
builds it there; when it is missing, the backend runs the same ``go build``
from the repository, which needs Go and a C compiler) and the workloads
bundled with bucma (``workloads/*.json``, as ``bucma/data/workloads``).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sysconfig
import tomllib
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # python/
REPO = HERE.parent
LIBRARY = "libbucmapy.so"


def _project() -> dict[str, Any]:
    with open(HERE / "pyproject.toml", "rb") as f:
        project: dict[str, Any] = tomllib.load(f)["project"]
    return project


def _dist() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}"


def _metadata() -> str:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        f"Requires-Python: {p['requires-python']}",
        f"License: {p.get('license', {}).get('text', '')}",
    ]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    readme = HERE / p.get("readme", "README.md")
    body: str = readme.read_text() if readme.is_file() else ""
    return "\n".join(lines) + "\nDescription-Content-Type: text/markdown\n\n" + body


def _tag() -> str:
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{plat}"


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: bucma_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n"


def _library() -> Path:
    """The shared library, built with go when make python has not built it."""
    lib = HERE / "bucma" / LIBRARY
    if lib.is_file():
        return lib
    go = shutil.which("go")
    if go is None or not (REPO / "cmd" / "libbucmapy").is_dir():
        raise RuntimeError(
            f"{lib} is missing: run 'make python' in bucma's repository first (it needs Go and a C compiler)"
        )
    subprocess.run(
        [go, "build", "-buildmode=c-shared", "-o", str(lib), "./cmd/libbucmapy"],
        cwd=REPO,
        check=True,
    )
    return lib


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


class _Wheel:
    """A wheel being written: files, then its RECORD."""

    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.records: list[str] = []

    def add(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append(_record_line(name, data))

    def close(self, dist_info: str) -> None:
        record = f"{dist_info}/RECORD"
        self.records.append(f"{record},,")
        self.zip.writestr(
            zipfile.ZipInfo(record, date_time=(2020, 1, 1, 0, 0, 0)), "\n".join(self.records) + "\n"
        )
        self.zip.close()


def _dist_info(w: _Wheel) -> str:
    dist_info = f"{_dist()}.dist-info"
    w.add(f"{dist_info}/METADATA", _metadata().encode())
    w.add(f"{dist_info}/WHEEL", _wheel_file().encode())
    w.add(f"{dist_info}/top_level.txt", b"bucma\n")
    return dist_info


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    d = Path(metadata_directory) / f"{_dist()}.dist-info"
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(_metadata())
    (d / "WHEEL").write_text(_wheel_file())
    return d.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    name = f"{_dist()}-{_tag()}.whl"
    lib = _library()
    w = _Wheel(Path(wheel_directory) / name)
    pkg = HERE / "bucma"
    for f in sorted(pkg.rglob("*")):
        rel = f.relative_to(HERE).as_posix()
        if f.is_file() and "__pycache__" not in rel and f.suffix in (".py", ".typed"):
            w.add(rel, f.read_bytes())
    w.add(f"bucma/{LIBRARY}", lib.read_bytes(), 0o755)
    for f in sorted((REPO / "workloads").glob("*.json")):
        w.add(f"bucma/data/workloads/{f.name}", f.read_bytes())
    w.close(_dist_info(w))
    return name


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """A wheel that points Python at the source tree (``pip install -e ./python``)."""
    _library()
    name = f"{_dist()}-{_tag()}.whl"
    w = _Wheel(Path(wheel_directory) / name)
    w.add("bucma_editable.pth", (str(HERE) + os.linesep).encode())
    w.close(_dist_info(w))
    return name
