"""Python policies the tests share: FCFS and EASY written with decide()."""

from __future__ import annotations

import bucma


class FCFS(bucma.Policy):
    """First come, first served: start the jobs in order, stop at the first that does not fit."""

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        for job in state.waiting:
            if job.res > state.nb_free:
                break
            decide.start(job)


class EASY(bucma.Policy):
    """EASY backfilling, with the framework's reservation (sched.Reservation)."""

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        waiting = iter(state.waiting)
        for head in waiting:
            if head.res > state.nb_free:
                break
            decide.start(head)
        else:
            return
        shadow, extra = state.reservation(head.res)
        for job in waiting:
            if job.res > state.nb_free:
                continue
            if state.now + job.walltime <= shadow:
                decide.start(job)
            elif job.res <= extra:
                decide.start(job)
                extra -= job.res
