"""A policy in Python: FCFS in 15 lines, on bucma's embedded engine, against Go's fcfs."""

import bucma


class FCFS(bucma.Policy):
    """First come, first served: start the jobs in order, stop at the first that does not fit."""

    def decide(self, state: bucma.State, decide: bucma.Decisions) -> None:
        for job in state.waiting:
            if job.res > state.nb_free:
                break
            decide.start(job)


if __name__ == "__main__":
    mine = bucma.simulate("lille", "lille-7056", FCFS())
    go = bucma.simulate("lille", "lille-7056", "fcfs")
    print(mine.jobs[["job_id", "submission_time", "starting_time", "finish_time"]].head(3))
    print("mean waiting time:", round(mine.metrics["mean_waiting_time"], 1), "s")
    print("the same _jobs.csv as Go's fcfs:", mine.jobs_csv == go.jobs_csv)
