"""The same Python policy on bucma's engine and through the real Batsim 4.2.1 (batsim on PATH)."""

import bucma
from fcfs import FCFS

engine = bucma.simulate("lille", "tiny", FCFS())
real = bucma.run_batsim("lille", "tiny", FCFS())
print("Batsim 4.2.1 and the engine wrote the same _jobs.csv:", real.jobs_csv == engine.jobs_csv)
