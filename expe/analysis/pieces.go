package analysis

import (
	"strings"

	"github.com/bucma-sched/bucma/sched"
)

// OriginalJob maps a row of a _jobs.csv (workload_name, job_id) to the
// original job of the workload it belongs to: piece k of the original job
// "W!N" is written with workload_name "W.r" and job_id "N.k" (the id scheme
// of sched.PieceID). Any other row is an original job: OriginalJob
// returns it as it is, with piece 0.
func OriginalJob(workload, jobID string) (origWorkload, origName string, piece int) {
	orig, k := sched.OriginalOf(workload + "!" + jobID)
	if k == 0 {
		return workload, jobID, 0
	}
	w, n, _ := strings.Cut(orig, "!")
	return w, n, k
}
