package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/corpus"
)

func TestGanttChart(t *testing.T) {
	rows, err := analysis.ReadJobsFile(corpus.Path("hetero4_delays", "out_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"g.png", "g.svg"} {
		p := filepath.Join(dir, name)
		if err := GanttChart(rows, "hetero4", p); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := GanttChart(rows, "x", filepath.Join(dir, "g.txt")); err == nil {
		t.Error("unsupported format accepted")
	}
	if err := GanttChart(rows[:1], "x", filepath.Join(dir, "r.png")); err == nil {
		t.Error("a chart without any job drawn was accepted")
	}
	bad := []analysis.JobRow{{ID: "9", HasTimes: true, Finish: 1, Alloc: "x-y"}}
	if err := GanttChart(bad, "x", filepath.Join(dir, "b.png")); err == nil || !strings.Contains(err.Error(), "job 9") {
		t.Errorf("bad allocation: %v", err)
	}
	huge := []analysis.JobRow{{ID: "10", HasTimes: true, Finish: 1, Alloc: "0-9223372036854775807"}}
	if err := GanttChart(huge, "x", filepath.Join(dir, "h.png")); err == nil || !strings.Contains(err.Error(), "job 10") {
		t.Errorf("allocation beyond the largest resource id: %v", err)
	}
}
