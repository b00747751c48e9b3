"""The speed of bucma's Gymnasium environment, printed with the machine's load.

A random agent (uniform among the valid slots, numpy) plays episodes of
``--window`` jobs (default 1024) of the bundled Lille workload in
:class:`bucma.gym.JobPickingEnv`, each drawn from its own seed. The
non-agent time of an episode is the thread's CPU time of the whole episode
(``reset`` and every ``step``) less the CPU time of the agent's code (read
around each action, the clock's own cost taken out). Printed: the best and
the median non-agent time per episode (target: 50 ms), and the steps per
second of non-agent time and of wall time. CPU times, not wall times: a
loaded machine inflates the latter, not the former.

Run it with ``make bench-gym`` (or ``python3 python/benchmarks/bench_gym.py``
with the package importable).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench import clock_cost, load, machine
from bucma.gym import JobPickingEnv


def episode(env: JobPickingEnv, seed: int, rng: np.random.Generator, cost: float) -> tuple[float, float, int]:
    """One episode of the random agent: its non-agent CPU time, its wall time, its steps."""
    clock = time.thread_time
    wall = time.perf_counter()
    t0 = clock()
    agent = 0.0
    env.reset(seed=seed)
    steps = 0
    done = False
    while not done:
        a0 = clock()
        valid = np.flatnonzero(env.action_masks())
        action = int(valid[rng.integers(valid.size)])
        agent += clock() - a0 + cost
        done = env.step(action)[2]
        steps += 1
    total = clock() - t0
    return total - agent, time.perf_counter() - wall, steps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=20, help="episodes measured (after one of warm-up)")
    ap.add_argument("--window", type=int, default=1024, help="jobs per episode")
    ap.add_argument("--slots", type=int, default=32, help="the environment's slots (K)")
    ap.add_argument("--backfill", action="store_true", help="EASY backfilling around the agent's choice")
    a = ap.parse_args(argv)
    print(f"machine: {machine()}")
    print(f"load:    {load()}")
    cost = clock_cost()
    env = JobPickingEnv("lille", "lille-7056", window=a.window, slots=a.slots, backfill=a.backfill)
    rng = np.random.default_rng(0)
    episode(env, 0, rng, cost)
    cpus, walls, steps = [], [], 0
    for seed in range(1, a.episodes + 1):
        c, w, n = episode(env, seed, rng, cost)
        cpus.append(c)
        walls.append(w)
        steps += n
    env.close()
    best, med = min(cpus), statistics.median(cpus)
    print(
        f"random agent, {a.episodes} episodes of {a.window} jobs of lille-7056, {a.slots} slots"
        f"{', EASY backfilling' if a.backfill else ''}:"
    )
    print(
        f"   non-agent time per episode: best {best * 1e3:6.1f} ms CPU, median {med * 1e3:6.1f} ms",
        "(target 50 ms)",
    )
    print(
        f"   steps per second: {steps / sum(cpus):8.0f} of non-agent CPU time, "
        f"{steps / sum(walls):8.0f} of wall time  load {load()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
