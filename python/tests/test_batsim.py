"""The real Batsims: one Python policy on the engine, on Batsim 4.2.1 and on Batsim 5, the same decisions.

Skipped, saying so, where batsim (Batsim 4.2.1) or batsim5 (Batsim 5) is not
on PATH. On the bundled Lille workload (7056 jobs) a run of Batsim takes
about 8 s on a 2-core machine.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

import bucma
from conftest import LILLE, REPO, TINY
from fcfs import FCFS

# The pair: FCFS written with decide(), EASY as a key function of
# the submission times; each against Go's policy of the same name.
CASES = [("fcfs", FCFS), ("easy", lambda: bucma.KeyPolicy(lambda job: job.submit, rule="easy"))]


@pytest.fixture(scope="module")
def engine() -> dict[str, bytes]:
    return {name: bucma.simulate("lille", LILLE, name).jobs_csv for name, _ in CASES}


@pytest.mark.parametrize("name,policy", CASES, ids=[c[0] for c in CASES])
def test_batsim4(batsim: str, engine: dict[str, bytes], name: str, policy: type) -> None:
    """Through the real Batsim 4.2.1, the Python policy's _jobs.csv is the engine's with Go's policy."""
    r = bucma.run_batsim("lille", LILLE, policy(), batsim=batsim)
    assert r.jobs_csv == engine[name]
    assert len(r.jobs) == 7056 and r.schedule["nb_jobs"] == 7056


@pytest.fixture(scope="module")
def go_on_batsim5(batsim5: str) -> dict[str, bytes]:
    return {
        name: bucma.run_batsim("lille", LILLE, name, version=5, batsim=batsim5).jobs_csv for name, _ in CASES
    }


@pytest.mark.parametrize("name,policy", CASES, ids=[c[0] for c in CASES])
def test_batsim5(batsim5: str, go_on_batsim5: dict[str, bytes], name: str, policy: type) -> None:
    """Through Batsim 5 over ZeroMQ, the Python policy's jobs.csv is Go's policy's."""
    r = bucma.run_batsim("lille", LILLE, policy(), version=5, batsim=batsim5)
    assert r.jobs_csv == go_on_batsim5[name]
    assert len(r.jobs) == 7056


def _serve_in_thread(policy: bucma.Policy, ep: Path, errors: list[BaseException]) -> threading.Thread:
    def serve() -> None:
        try:
            bucma.serve(policy, endpoint="tcp://127.0.0.1:*", endpoint_file=ep, timeout=120)
        except BaseException as e:  # reported by the test
            errors.append(e)

    t = threading.Thread(target=serve)
    t.start()
    return t


def _endpoint(ep: Path, t: threading.Thread) -> str:
    while not ep.exists() or not ep.read_text().strip():
        if not t.is_alive():
            pytest.fail("the server ended before it bound its endpoint")
        time.sleep(0.05)
    return ep.read_text().strip()


def test_serve_batsim4(batsim: str, tmp_path: Path) -> None:
    """bucma.serve answers a Batsim 4 started by hand, as bucma run does."""
    errors: list[BaseException] = []
    t = _serve_in_thread(FCFS(), tmp_path / "ep", errors)
    ep = _endpoint(tmp_path / "ep", t)
    subprocess.run(
        [batsim, "-p", str(REPO / "platforms" / "lille.xml"), "-w", TINY, "-s", ep]
        + ["-e", str(tmp_path / "out")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    t.join(timeout=300)
    assert not errors, errors
    assert (tmp_path / "out_jobs.csv").read_bytes() == bucma.simulate("lille", TINY, "fcfs").jobs_csv


def test_serve_batsim5(batsim5: str, tmp_path: Path) -> None:
    """bucma.serve answers Batsim 5 too; the init string's options win."""
    v5 = bucma.workloads.to_v5(TINY, tmp_path / "tiny-v5.json")
    errors: list[BaseException] = []
    t = _serve_in_thread(FCFS(), tmp_path / "ep", errors)
    ep = _endpoint(tmp_path / "ep", t)
    out = str(tmp_path / "out") + "/"
    init = '{"options": {"hosts": "first-fit"}}'
    subprocess.run(
        [batsim5, "-p", str(REPO / "platforms" / "lille.xml"), "-w", v5, "-s", ep, init, "-e", out],
        check=True,
        capture_output=True,
        timeout=300,
    )
    t.join(timeout=300)
    assert not errors, errors
    want = bucma.run_batsim("lille", TINY, "fcfs", {"hosts": "first-fit"}, version=5, batsim=batsim5).jobs_csv
    assert (tmp_path / "out" / "jobs.csv").read_bytes() == want


def test_batsim_errors(tmp_path: Path) -> None:
    """A Batsim that is not there, or fails, is an error that says so."""
    with pytest.raises(bucma.Error, match="nonexistent-batsim"):
        bucma.run_batsim("lille", TINY, FCFS(), batsim="nonexistent-batsim")
    with pytest.raises(bucma.OptionError, match="options of the embedded engine"):
        bucma.run_batsim("lille", TINY, FCFS(), latency="none")
    fake = tmp_path / "fake-batsim"
    fake.write_text("#!/bin/sh\necho 'fake batsim: cannot read the platform' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(
        bucma.SimulationError, match=r"Batsim failed: exit status 3[\s\S]*cannot read the platform"
    ):
        bucma.run_batsim("lille", TINY, FCFS(), batsim=str(fake))
