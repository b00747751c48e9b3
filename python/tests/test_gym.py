"""The Gymnasium environment: Gymnasium's API, seeding, masks, rewards, schedules against bucma simulate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bucma
from bucma import _spaces
from bucma.gym import FEATURES, JobPickingEnv, Replay

from conftest import LILLE


def run_episode(
    env: JobPickingEnv, seed: int | None, agent: Any = None, check: bool = False
) -> tuple[list[int], list[float], list[Any], dict[str, Any]]:
    """One episode: the actions, the rewards, the observations, the last info (agent: obs, mask -> action)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    rewards: list[float] = []
    seen = [obs]
    done = False
    while not done:
        mask = env.action_masks()
        if check:
            check_point(env, obs, info)
        a = agent(obs, mask) if agent is not None else int(rng.choice(np.flatnonzero(mask)))
        obs, r, done, truncated, info = env.step(a)
        assert isinstance(r, float) and isinstance(done, bool) and truncated is False
        actions.append(a)
        rewards.append(r)
        seen.append(obs)
    if check:
        check_point(env, obs, info)
    return actions, rewards, seen, info


def check_point(env: JobPickingEnv, obs: Any, info: dict[str, Any]) -> None:
    """What Gymnasium's env checker asks of an observation, and the mask's consistency with it."""
    assert env.observation_space.contains(obs), obs
    jobs = obs if env.observation == "box" else obs["jobs"]
    assert jobs.dtype == np.float32 and jobs.shape == (env.slots, len(env.features))
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (env.slots,)
    assert np.array_equal(mask, info["action_mask"])
    if env.observation == "dict":
        assert np.array_equal(obs["mask"].astype(bool), mask)
    # The valid slots come first, as many as jobs wait (at most K); the others are zero rows.
    n = int(mask.sum())
    assert mask[:n].all() and not mask[n:].any()
    assert not jobs[n:].any()
    if "waiting" in info:
        assert n == min(info["waiting"], env.slots) and n >= 1
    else:
        assert n == 0


@pytest.fixture(scope="module")
def env() -> Any:
    e = JobPickingEnv("lille", LILLE, window=32, slots=8, keep_outputs=True)
    yield e
    e.close()


def test_spaces_and_api(env: JobPickingEnv) -> None:
    assert isinstance(env.action_space, _spaces.Discrete) and env.action_space.n == 8
    assert env.observation_space.shape == (8, len(FEATURES))
    run_episode(env, 3, check=True)
    dict_env = JobPickingEnv("lille", LILLE, window=32, slots=4, observation="dict", backfill=True)
    assert set(dict_env.observation_space.spaces) == {"jobs", "mask"}
    run_episode(dict_env, 4, check=True)
    dict_env.close()


def test_step_after_end_and_before_reset() -> None:
    e = JobPickingEnv("lille", LILLE, window=4)
    with pytest.raises(bucma.UsageError, match="call reset"):
        e.step(0)
    run_episode(e, 1)
    with pytest.raises(bucma.UsageError, match="call reset"):
        e.step(0)
    e.close()


def test_invalid_actions(env: JobPickingEnv) -> None:
    env.reset(seed=5)
    n = int(env.action_masks().sum())
    assert n < env.slots
    for bad in (n, env.slots, -1, 1.5, "0", True, np.array([0]), np.float64(0)):
        with pytest.raises(ValueError, match=r"not a slot holding a job \(valid: \[0"):
            env.step(bad)
    for good in (np.int8(0), np.array(0), np.uint64(0)):
        env.step(good)
    # The run is untouched by a refused action: the episode goes on.
    _, _, _, info = run_episode(env, 5)
    assert info["steps"] == 32 and env.action_masks().dtype == bool
    first = JobPickingEnv("lille", LILLE, window=32, slots=8, invalid_action="first")
    first.reset(seed=5)
    _, _, _, _, info = first.step(7)
    assert info["invalid_action"] is True
    _, _, _, _, info = first.step(0)
    assert "invalid_action" not in info
    first.close()


def test_seeding_is_reproducible(env: JobPickingEnv) -> None:
    a = run_episode(env, 11)
    b = run_episode(env, 11)
    assert a[0] == b[0] and a[1] == b[1]
    assert all(np.array_equal(x, y) for x, y in zip(a[2], b[2]))
    # Unseeded resets continue the seeded generator: two environments seeded alike draw the same windows.
    other = JobPickingEnv("lille", LILLE, window=32, slots=8)
    starts = []
    for e in (env, other):
        e.reset(seed=2)
        starts.append([e.reset()[1]["window_start"] for _ in range(5)])
    assert starts[0] == starts[1] and len(set(starts[0])) > 1
    other.close()
    obs, info = env.reset(options={"start": 100})
    assert info["window_start"] == 100
    for bad in (-1, 7056, "3"):
        with pytest.raises(bucma.OptionError, match=r"options\['start'\]"):
            env.reset(options={"start": bad})


def test_determinism_over_100_episodes() -> None:
    """The same seeds give the same trajectories and rewards, episode after episode, in one process."""
    trajectories = []
    for _ in range(2):
        e = JobPickingEnv("lille", LILLE, window=12, slots=4, reward_at="step", backfill=True)
        trajectories.append([run_episode(e, seed) for seed in range(100)])
        e.close()
    for (a1, r1, o1, _), (a2, r2, o2, _) in zip(*trajectories):
        assert a1 == a2 and r1 == r2
        assert all(np.array_equal(x, y) for x, y in zip(o1, o2))
    assert len({tuple(t[1]) for t in trajectories[0]}) > 50


@pytest.mark.parametrize("reward", ["bsld", "wait", "utilization"])
def test_rewards_per_step_add_up_to_the_end_one_and_bucma_metrics(reward: str) -> None:
    ends = []
    for at in ("end", "step"):
        e = JobPickingEnv("lille", LILLE, window=64, slots=8, reward=reward, reward_at=at)
        _, rewards, _, info = run_episode(e, 21)
        e.close()
        if at == "end":
            assert all(r == 0.0 for r in rewards[:-1])
        ends.append(sum(rewards))
    assert ends[1] == pytest.approx(ends[0], rel=1e-9)
    m = info["metrics"]
    want = {
        "bsld": -m["mean_bounded_slowdown"],
        "wait": -m["mean_waiting_time"] / 43200,
        "utilization": m["utilization"],
    }[reward]
    assert ends[0] == pytest.approx(want, rel=1e-6)


def test_features_and_scales() -> None:
    e = JobPickingEnv("lille", LILLE, window=40, slots=6, features=("fits", "wait"), scales={"wait": 60})
    obs, _ = e.reset(seed=1)
    assert obs.shape == (6, 2)
    run_episode(e, 1, check=True)
    e.close()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"features": ("wait", "size")}, "features"),
        ({"features": ()}, "features"),
        ({"scales": {"wait": 0}}, "scales"),
        ({"scales": {"res": 3}}, "scales"),
        ({"window": 0}, "window=0"),
        ({"window": 7057}, "window=7057"),
        ({"slots": 0}, "slots=0"),
        ({"reward": "makespan"}, "reward='makespan'"),
        ({"reward_at": "never"}, "reward_at"),
        ({"observation": "tuple"}, "observation"),
        ({"invalid_action": "ignore"}, "invalid_action"),
    ]
    for kwargs, match in cases:
        with pytest.raises(bucma.OptionError, match=match):
            JobPickingEnv("lille", LILLE, **kwargs)


def test_bad_workloads(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"nb_res": 4, "jobs": [], "profiles": {}}')
    with pytest.raises(bucma.OptionError, match="empty.json: no jobs"):
        JobPickingEnv("lille", empty)
    bad = tmp_path / "bad.json"
    bad.write_text('{"nb_res": 4, "jobs": [{"id": 1, "subtime": "x"}], "profiles": {}}')
    with pytest.raises(bucma.OptionError, match="bad.json: job 0 has no finite numeric subtime"):
        JobPickingEnv("lille", bad)
    bad.write_text(
        '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 1}, {"id": 2, "subtime": 1e999}], "profiles": {}}'
    )
    with pytest.raises(bucma.OptionError, match="bad.json: job 1 has no finite numeric subtime"):
        JobPickingEnv("lille", bad)
    bad.write_text('{"nb_res": 4, "jobs": [')
    with pytest.raises(bucma.OptionError, match="bad.json: Expecting value"):
        JobPickingEnv("lille", bad)
    bad.write_text("[1, 2]")
    with pytest.raises(bucma.OptionError, match="bad.json: no jobs"):
        JobPickingEnv("lille", bad)
    with pytest.raises(bucma.OptionError, match="nowhere.json: .*No such file"):
        JobPickingEnv("lille", tmp_path / "nowhere.json")
    with pytest.raises(bucma.OptionError, match="give a workload"):
        JobPickingEnv("lille", None)


def test_too_large_jobs_are_rejected(tmp_path: Path) -> None:
    w = {
        "nb_res": 39,
        "jobs": [
            {"id": i, "subtime": 10 * i, "res": 100 if i == 2 else 2, "walltime": 100, "profile": "p"}
            for i in range(6)
        ],
        "profiles": {"p": {"type": "delay", "delay": 50}},
    }
    f = tmp_path / "big.json"
    f.write_text(json.dumps(w))
    e = JobPickingEnv("lille", f, window=6, keep_outputs=True)
    actions, _, _, info = run_episode(e, 0, check=True)
    assert info["rejected"] == 1 and len(actions) == 5
    e.close()


def test_generated_and_swf_traces(tmp_path: Path) -> None:
    e = JobPickingEnv("lille", None, lublin={"jobs": 300, "seed": 4, "platform": "lille"}, window=50)
    run_episode(e, 1, check=True)
    e.close()
    swf = bucma.workloads.lublin(tmp_path / "t.swf", jobs=300, seed=4, platform="lille")
    s = JobPickingEnv("lille", None, swf=swf, window=50)
    run_episode(s, 1, check=True)
    s.close()


def test_export_is_the_replayed_schedule(env: JobPickingEnv, tmp_path: Path) -> None:
    """An episode's CSVs are bucma.simulate's for the same decisions (replayed on the episode's window)."""
    run_episode(env, 8)
    files = env.export(tmp_path / "ep")
    assert [Path(f).name for f in files] == ["ep_jobs.csv", "ep_schedule.csv"]
    replayed = bucma.simulate("lille", env.workload_path, Replay(env.decisions))
    assert Path(files[0]).read_bytes() == replayed.jobs_csv
    assert env.result().jobs_csv == replayed.jobs_csv
    with pytest.raises(bucma.UsageError, match="keeps no outputs"):
        plain = JobPickingEnv("lille", LILLE, window=4)
        run_episode(plain, 1)
        plain.result()


@pytest.mark.parametrize("backfill,scheduler", [(False, "fcfs"), (True, "easy")])
def test_first_slot_agent_is_bucma_simulate(
    bucma_cli: str, tmp_path: Path, backfill: bool, scheduler: str
) -> None:
    """Always picking the first job is FCFS (with backfilling, EASY): bucma simulate's _jobs.csv."""
    e = JobPickingEnv("lille", LILLE, window=300, slots=4, backfill=backfill, keep_outputs=True)
    run_episode(e, 9, agent=lambda obs, mask: 0)
    e.export(tmp_path / "env")
    window = tmp_path / "window.json"
    window.write_bytes(Path(e.workload_path).read_bytes())
    e.close()
    subprocess.run(
        [bucma_cli, "simulate", "-p", "lille", "-w", str(window), "--scheduler", scheduler]
        + ["-e", str(tmp_path / "cli"), "-q"],
        check=True,
    )
    assert (tmp_path / "env_jobs.csv").read_bytes() == (tmp_path / "cli_jobs.csv").read_bytes()


def test_stand_in_spaces() -> None:
    box = _spaces.Box(0.0, 1.0, (2, 3), np.float32, seed=1)
    x = box.sample()
    assert box.contains(x) and x in box and x.dtype == np.float32
    assert np.array_equal(x, _spaces.Box(0.0, 1.0, (2, 3), np.float32, seed=1).sample())
    assert not box.contains(np.full((2, 3), 2.0, np.float32)) and not box.contains(np.zeros((3, 2)))
    d = _spaces.Discrete(5, seed=2)
    assert all(d.contains(d.sample()) for _ in range(20))
    assert not d.contains(5) and not d.contains(True) and not d.contains(1.0)
    mask = np.array([0, 0, 1, 0, 1], dtype=np.int8)
    assert {int(d.sample(mask)) for _ in range(50)} == {2, 4}
    with pytest.raises(ValueError, match="int8 of shape"):
        d.sample(np.ones(5))
    mb = _spaces.MultiBinary(4, seed=3)
    assert mb.contains(mb.sample()) and not mb.contains(np.array([0, 2, 0, 0]))
    dd = _spaces.Dict({"a": d, "b": mb}, seed=4)
    assert dd.contains(dd.sample()) and not dd.contains({"a": 1})
    assert dd.sample() != {} and len(dd) == 2 and dd["a"] is d
    with pytest.raises(ValueError, match="n=0"):
        _spaces.Discrete(0)


def greedy(weights: np.ndarray[Any, Any]) -> Any:
    """A linear agent: the valid slot of the largest score obs @ weights."""

    def agent(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
        return int(np.argmax(np.where(mask, obs @ weights, -np.inf)))

    return agent


WEIGHTS = np.array([1.0, -2.0, -0.5, 1.5, 0.1, 0.0])


@pytest.mark.parametrize("backfill", [False, True])
def test_agent_policy_takes_the_environment_decisions(backfill: bool) -> None:
    """An agent served as a policy on the episode's window gives the episode's schedule, byte for byte."""
    e = JobPickingEnv("lille", LILLE, window=200, slots=16, backfill=backfill, keep_outputs=True)
    agent = greedy(WEIGHTS)
    actions, _, _, _ = run_episode(e, 13, agent=agent)
    assert len(set(actions)) > 1
    policy = bucma.gym.AgentPolicy(agent, e)
    r = bucma.simulate("lille", e.workload_path, policy)
    assert r.jobs_csv == e.result().jobs_csv
    # The policy runs again (a new run, a new episode's bookkeeping), and env was left as it was.
    assert bucma.simulate("lille", e.workload_path, policy).jobs_csv == r.jobs_csv
    assert e.result().jobs_csv == r.jobs_csv
    e.close()


def test_agent_served_to_batsim4(batsim: str) -> None:
    """Served to the real Batsim 4.2.1, the agent takes its environment decisions: the same _jobs.csv."""
    e = JobPickingEnv("lille", LILLE, window=200, slots=16, backfill=True, keep_outputs=True)
    agent = greedy(WEIGHTS)
    run_episode(e, 13, agent=agent)
    r = bucma.run_batsim("lille", e.workload_path, bucma.gym.AgentPolicy(agent, e), batsim=batsim)
    assert r.jobs_csv == e.result().jobs_csv
    e.close()


def test_agent_served_to_batsim5(batsim5: str) -> None:
    """Served to Batsim 5, the first-slot agent with backfilling is Go's easy there: the same jobs.csv."""
    e = JobPickingEnv("lille", LILLE, window=200, slots=16, backfill=True)
    e.reset(seed=13)
    policy = bucma.gym.AgentPolicy(lambda obs, mask: 0, e)
    mine = bucma.run_batsim("lille", e.workload_path, policy, version=5, batsim=batsim5)
    go = bucma.run_batsim("lille", e.workload_path, "easy", version=5, batsim=batsim5)
    assert mine.jobs_csv == go.jobs_csv and len(mine.jobs) == 200
    e.close()
