"""A campaign file run from Python; its results.csv as a pandas table."""

import sys
from pathlib import Path

import bucma

out = sys.argv[1] if len(sys.argv) > 1 else "results/py-campaign"
c = bucma.campaign(Path(__file__).with_name("campaign.yaml"), out)
print(c)
res = c.results
table = res[res["metric"].isin(["mean_wait", "mean_bsld"])].pivot_table(
    index="variant", columns="metric", values="value", aggfunc="mean"
)
print(table.round(1))
