"""Priority functions in Python over Go's start rules, at Go speed; compared with pandas."""

import pandas as pd

import bucma


def shortest_first(job: bucma.Job) -> float:
    """SJF: the shortest walltime first (asked once per job)."""
    return job.walltime


def wfp3(job: bucma.Job, now: float) -> float:
    """WFP3: (wait / walltime)^3 × hosts, largest first (asked again at each decision: it reads the time)."""
    return -(((now - job.submit) / job.walltime) ** 3) * job.res


policies: dict[str, str | bucma.KeyPolicy] = {
    "fcfs (Go)": "fcfs",
    "easy (Go)": "easy",
    "sjf + easy": bucma.KeyPolicy(shortest_first, rule="easy"),
    "wfp3 + easy": bucma.KeyPolicy(wfp3, rule="easy"),
    "submit + conservative": bucma.KeyPolicy(lambda job: job.submit, rule="conservative"),
}

rows = []
for name, policy in policies.items():
    m = bucma.simulate("lille", "lille-7056", policy).metrics
    rows.append(
        {"policy": name, "mean wait (s)": m["mean_waiting_time"], "mean bsld": m["mean_bounded_slowdown"]}
    )
print(pd.DataFrame(rows).set_index("policy").round(1))
