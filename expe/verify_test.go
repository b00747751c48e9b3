package expe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pieceRows: 5 original jobs, one of them killed and its remaining work
// resubmitted as piece 1 (workload w0.r, job 1.1), one rejected.
const pieceRows = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n" +
	`1,w0,p,0,1,-1,0,COMPLETED_KILLED,0,1,1,0,1,1,0,-1,""
2,w0,p,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,2,2,0,2,1,1,-1,""
3,w0,p,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,3,3,0,3,1,2,-1,""
1.1,w0.r,p,1,1,-1,1,COMPLETED_SUCCESSFULLY,2,4,6,1,5,1.25,1,-1,""
4,w0,p,5,1,-1,1,COMPLETED_SUCCESSFULLY,5,1,6,0,1,1,2,-1,""
5,w0,p,0,1,-1,0,REJECTED,,,,,,,,,""
`

// A jobs file must hold every job of the workload: resubmitted pieces do
// not make up for a missing original.
func TestRecordOutputsCountsOriginals(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, JobsFile), []byte(pieceRows), 0o644)
	var info RunInfo
	if err := recordOutputs(dir, 5, &info); err != nil || info.Jobs != 6 {
		t.Errorf("5 originals + 1 piece: %v, %d rows recorded", err, info.Jobs)
	}
	if err := recordOutputs(dir, 6, &info); err == nil || !strings.Contains(err.Error(), "has 5 jobs besides 1 resubmitted pieces, the workload 6") {
		t.Errorf("a missing original: %v", err)
	}
	os.WriteFile(filepath.Join(dir, JobsFile), []byte(strings.Replace(pieceRows, "1.1,w0.r", "1.1,w0", 1)), 0o644)
	if err := recordOutputs(dir, 5, &info); err == nil || !strings.Contains(err.Error(), "has 6 jobs, the workload 5") {
		t.Errorf("no piece: %v", err)
	}
}
