#!/usr/bin/env python3
"""A Batsim 4 scheduler in the style of pybatsim, on raw pyzmq: a REP
socket, one callback per event (onSimulationBegins, onJobSubmission,
onJobCompletion, ...) and one decision pass per message. It schedules
first come, first served: jobs start in submission order on the lowest free
host ids until one does not fit; a job asking for more hosts than the
platform has is rejected where the walk meets it, or after the pass when
the walk stopped before it.

Usage: pyfcfs.py ENDPOINT [--die-after N] [--query-at-first-job]

--die-after N        exit without answering the N-th message (a scheduler
                     that crashes)
--query-at-first-job answer the first submission with a QUERY
                     consumed_energy (a decision Batsim 5 has no
                     equivalent of)
"""

import json
import os
import sys

import zmq


class BatsimConnection:
    """The scheduler's side of Batsim 4's protocol: one message in, one
    reply out."""

    def __init__(self, endpoint):
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REP)
        self.socket.bind(endpoint)
        self.now = 0.0
        self.events = []

    def receive(self):
        msg = json.loads(self.socket.recv().decode("utf-8"))
        self.now = msg["now"]
        self.events = []
        return msg

    def send(self):
        reply = {"now": self.now, "events": self.events}
        self.socket.send(json.dumps(reply).encode("utf-8"))

    def add(self, kind, data):
        self.events.append({"timestamp": self.now, "type": kind, "data": data})

    def execute_job(self, job_id, hosts):
        self.add("EXECUTE_JOB", {"job_id": job_id, "alloc": interval_set(hosts)})

    def reject_job(self, job_id):
        self.add("REJECT_JOB", {"job_id": job_id})

    def close(self):
        self.socket.close(linger=1000)
        self.context.term()


def interval_set(ids):
    """Batsim's interval set of host ids: "0-3 7"."""
    ids = sorted(ids)
    parts = []
    start = prev = ids[0]
    for i in ids[1:]:
        if i != prev + 1:
            parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = i
        prev = i
    parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return " ".join(parts)


class FCFS:
    def __init__(self, bs, query_at_first_job=False):
        self.bs = bs
        self.queue = []
        self.free = []
        self.nb_hosts = 0
        self.running = {}
        self.query = query_at_first_job

    def onSimulationBegins(self, data):
        self.nb_hosts = data["nb_compute_resources"]
        self.free = list(range(self.nb_hosts))

    def onJobSubmission(self, data):
        job = data["job"]
        self.queue.append((data["job_id"], int(job["res"])))
        if self.query:
            self.query = False
            self.bs.add("QUERY", {"requests": {"consumed_energy": {}}})

    def onJobCompletion(self, data):
        self.free.extend(self.running.pop(data["job_id"]))
        self.free.sort()

    def schedule(self):
        left = []
        blocked = False
        for job_id, res in self.queue:
            if res > self.nb_hosts or res <= 0:
                if blocked:
                    left.append((job_id, res))
                else:
                    self.bs.reject_job(job_id)
                continue
            if not blocked and res <= len(self.free):
                hosts, self.free = self.free[:res], self.free[res:]
                self.running[job_id] = hosts
                self.bs.execute_job(job_id, hosts)
                continue
            blocked = True
            left.append((job_id, res))
        self.queue = []
        for job_id, res in left:
            if res > self.nb_hosts or res <= 0:
                self.bs.reject_job(job_id)
            else:
                self.queue.append((job_id, res))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    endpoint = args[0]
    die_after = None
    query = "--query-at-first-job" in args
    if "--die-after" in args:
        die_after = int(args[args.index("--die-after") + 1])
    bs = BatsimConnection(endpoint)
    sched = FCFS(bs, query)
    received = 0
    while True:
        msg = bs.receive()
        received += 1
        if die_after is not None and received >= die_after:
            os._exit(3)
        ended = False
        for ev in msg["events"]:
            kind, data = ev["type"], ev["data"]
            if kind == "SIMULATION_BEGINS":
                sched.onSimulationBegins(data)
            elif kind == "JOB_SUBMITTED":
                sched.onJobSubmission(data)
            elif kind == "JOB_COMPLETED":
                sched.onJobCompletion(data)
            elif kind == "SIMULATION_ENDS":
                ended = True
            elif kind in ("NOTIFY", "REQUESTED_CALL", "JOB_KILLED", "RESOURCE_STATE_CHANGED"):
                pass
            else:
                raise ValueError("unknown event type " + kind)
        if not ended:
            sched.schedule()
        bs.send()
        if ended:
            break
    bs.close()


if __name__ == "__main__":
    main()
