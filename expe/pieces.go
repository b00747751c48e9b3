package expe

import (
	"strconv"
	"strings"
)

// PieceWorkloadSuffix ends the workload name of the resubmitted pieces of
// preempted jobs.
const PieceWorkloadSuffix = ".r"

// OriginalJob maps a row of a _jobs.csv (workload_name, job_id) to the
// original job of the workload it belongs to.
//
// A policy that preempts (OSEP) kills a running job and resubmits its
// remaining work as a dynamic job: piece k (k = 1, 2, ...) of the original
// job "W!N" is the job "W.r!N.k", written in _jobs.csv with workload_name
// "W.r" and job_id "N.k". A piece of a piece points at the original with the
// next k. The piece number is the last ".<digits>" of the job id (a positive
// decimal number without leading zeros), so names may themselves hold '-'
// and '.'. Any other row is an original job: OriginalJob returns it as it
// is, with piece 0.
func OriginalJob(workload, jobID string) (origWorkload, origName string, piece int) {
	base, ok := strings.CutSuffix(workload, PieceWorkloadSuffix)
	if !ok || base == "" {
		return workload, jobID, 0
	}
	dot := strings.LastIndexByte(jobID, '.')
	if dot <= 0 {
		return workload, jobID, 0
	}
	digits := jobID[dot+1:]
	k, err := strconv.Atoi(digits)
	if err != nil || k <= 0 || strconv.Itoa(k) != digits {
		return workload, jobID, 0
	}
	return base, jobID[:dot], k
}
