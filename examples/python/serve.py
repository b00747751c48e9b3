"""Serve one simulation of the real Batsim 4 or 5 with a Python policy, as bucma run does.

    python serve.py ENDPOINT [ENDPOINT_FILE]

bucma binds ENDPOINT (a port * picks a free one, written to ENDPOINT_FILE);
start Batsim with -s ENDPOINT (Batsim 5: -s ENDPOINT INIT).
"""

import sys

import bucma
from fcfs import FCFS

endpoint = sys.argv[1] if len(sys.argv) > 1 else "tcp://*:28000"
endpoint_file = sys.argv[2] if len(sys.argv) > 2 else None
bucma.serve(FCFS(), endpoint=endpoint, endpoint_file=endpoint_file, timeout=600)
print("served one simulation")
