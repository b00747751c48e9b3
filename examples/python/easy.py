"""EASY backfilling written in Python with decide(), on the framework's reservation, against Go's easy."""

import bucma


class EASY(bucma.Policy):
    """Start in order; reserve for the first job that does not fit; backfill the jobs that do not delay it."""

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        waiting = iter(state.waiting)
        for head in waiting:
            if head.res > state.nb_free:
                break
            decide.start(head)
        else:
            return
        shadow, extra = state.reservation(head.res)  # Go's sched.Reservation
        for job in waiting:
            if job.res > state.nb_free:
                continue
            if state.now + job.walltime <= shadow:
                decide.start(job)
            elif job.res <= extra:
                decide.start(job)
                extra -= job.res


if __name__ == "__main__":
    mine = bucma.simulate("lille", "lille-7056", EASY())
    go = bucma.simulate("lille", "lille-7056", "easy")
    print("the same _jobs.csv as Go's easy:", mine.jobs_csv == go.jobs_csv)
