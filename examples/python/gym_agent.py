"""A tiny numpy agent trained on bucma.gym, then served as a policy to the engine and the real Batsim.

The agent scores each waiting job of the observation linearly (obs @ w) and
picks by a softmax over the valid slots; REINFORCE trains w on episodes of
64 jobs of the Lille workload, the reward being the negated mean bounded
slowdown at the episode's end. The trained agent (greedy: the best score)
is then compared with FCFS (always the first slot) on the same windows, and
served with ``bucma.gym.AgentPolicy``: to the embedded engine, and with
``--batsim`` to the real Batsim 4.2.1 (``--batsim5``: Batsim 5), on one
episode's window, where it takes the decisions it takes in the environment.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import bucma
from bucma.gym import AgentPolicy, JobPickingEnv

Agent = Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any]], int]


def softmax_scores(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any], w: np.ndarray[Any, Any]) -> Any:
    """The probabilities of the slots: a softmax of obs @ w over the valid ones."""
    s = np.where(mask, obs @ w, -np.inf)
    p = np.exp(s - s.max())
    return p / p.sum()


def train(env: JobPickingEnv, episodes: int = 60, lr: float = 0.5, seed: int = 0) -> np.ndarray[Any, Any]:
    """REINFORCE of the linear agent, with the mean return as baseline; returns w."""
    rng = np.random.default_rng(seed)
    w = np.zeros(len(env.features))
    baseline = 0.0
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        grad = np.zeros_like(w)
        done, ret = False, 0.0
        while not done:
            mask = env.action_masks()
            p = softmax_scores(obs, mask, w)
            a = int(rng.choice(len(p), p=p))
            grad += obs[a] - p @ obs  # the gradient of log p(a)
            obs, r, done, _, info = env.step(a)
            ret += r
        baseline = ret if ep == 0 else 0.9 * baseline + 0.1 * ret
        w += lr * (ret - baseline) / (abs(baseline) + 1.0) * grad / max(info["steps"], 1)
    return w


def greedy(w: np.ndarray[Any, Any]) -> Agent:
    """The trained agent as it is served: the valid slot of the best score."""
    return lambda obs, mask: int(np.argmax(np.where(mask, obs @ w, -np.inf)))


def evaluate(env: JobPickingEnv, agent: Agent, seeds: range) -> float:
    """The mean bounded slowdown of the agent over the windows of seeds."""
    out = []
    for s in seeds:
        obs, _ = env.reset(seed=s)
        done = False
        while not done:
            obs, _, done, _, info = env.step(agent(obs, env.action_masks()))
        out.append(info["bounded_slowdown"])
    return float(np.mean(out))


def starts(r: bucma.Result) -> list[tuple[str, float, str]]:
    """Each job's start (to the millisecond: Batsim 5's decision latencies move some by 1 µs) and hosts."""
    rows = csv.DictReader(io.StringIO(r.jobs_csv.decode()))
    return sorted((x["job_id"], round(float(x["starting_time"]), 3), x["allocated_resources"]) for x in rows)


def main(argv: list[str]) -> int:
    env = JobPickingEnv("lille", "lille-7056", window=64, slots=16, keep_outputs=True)
    w = train(env)
    agent = greedy(w)
    tests = range(1000, 1020)
    print("weights:", dict(zip(env.features, np.round(w, 2))))
    print(f"mean bounded slowdown on 20 new windows: agent {evaluate(env, agent, tests):.1f}, ", end="")
    print(f"FCFS {evaluate(env, lambda obs, mask: 0, tests):.1f}")

    # One episode in the environment, then the same agent served as a policy on its window.
    evaluate(env, agent, range(7, 8))
    episode = env.result().jobs_csv
    served = bucma.simulate("lille", env.workload_path, AgentPolicy(agent, env))
    same = [served.jobs_csv == episode]
    print("served to the engine, the episode's _jobs.csv:", same[-1])
    if "--batsim" in argv:
        real = bucma.run_batsim("lille", env.workload_path, AgentPolicy(agent, env))
        same.append(real.jobs_csv == episode)
        print("served to Batsim 4.2.1, the episode's _jobs.csv:", same[-1])
    if "--batsim5" in argv:
        real5 = bucma.run_batsim("lille", env.workload_path, AgentPolicy(agent, env), version=5)
        same.append(starts(real5) == starts(env.result()))
        print("served to Batsim 5, the episode's starts and hosts:", same[-1])
    env.close()
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
