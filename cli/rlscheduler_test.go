package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/papertrace"
)

// "bucma rlscheduler" on a trace of bucma's Lublin generator: a CSV row
// per metric, backfilling and heuristic; the same output twice.
func TestRLSchedulerCommand(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "l.swf")
	if err, code, out := runApp(t, "workload", "lublin", "--jobs", "1200", "--max-size", "256", "--load", "0.8", "--out", trace); err != nil || code != 0 {
		t.Fatalf("lublin: %v %s", err, out)
	}
	args := []string{"rlscheduler", "--trace", trace, "--windows", "2", "--window-jobs", "300", "--heuristics", "fcfs,wfp3", "--batsim", "--csv"}
	err, code, out := runApp(t, args...)
	if err != nil || code != 0 {
		t.Fatalf("rlscheduler: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "metric,backfilling,heuristic,compat,corrected,batsim,batsim_conservative" || len(lines) != 1+2*2*2 {
		t.Fatalf("CSV:\n%s", out)
	}
	if !strings.HasPrefix(lines[1], "bsld,none,FCFS,") || !strings.HasSuffix(lines[1], ",") || strings.HasSuffix(lines[8], ",") {
		t.Errorf("CSV rows:\n%s", out)
	}
	if _, _, again := runApp(t, args...); again != out {
		t.Error("two runs differ")
	}
	_, _, text := runApp(t, args[:len(args)-1]...)
	if !strings.Contains(text, "2 windows of 300 jobs starting at") || !strings.Contains(text, "drawn by bucma's generator, seed 1") {
		t.Errorf("text:\n%s", text)
	}
}

func TestRLSchedulerErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.swf")
	if err := os.WriteFile(bad, []byte("; h\n1 0 -1 10 1 -1 -1 -1 -1\n2 5 -1 x 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.swf")
	if err := os.WriteFile(good, []byte("1 0 -1 10 1 -1 -1 -1 -1\n2 5 -1 10 300 -1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rlscheduler"}, 2, "--trace is required"},
		{[]string{"rlscheduler", "--trace", good, "--starts", "1,x"}, 2, `"x" is not a job index`},
		{[]string{"rlscheduler", "--trace", good, "--windows", "0"}, 2, "--windows and --window-jobs must be ≥ 1"},
		{[]string{"rlscheduler", "--trace", bad, "--window-jobs", "1"}, 1, "bad.swf:3: 5 fields"},
		{[]string{"rlscheduler", "--trace", good, "--starts", "paper"}, 1, "window [1981, 3005) is outside the trace's 2 jobs"},
		{[]string{"rlscheduler", "--trace", good, "--window-jobs", "2"}, 1, "rlscheduler: job 2 asks for 300 processors: want 1 to 256 (the window starting at job index 0)"},
		{[]string{"rlscheduler", "--trace", good, "--window-jobs", "1", "--heuristics", "ljf"}, 1, `unknown heuristic "LJF"`},
		{[]string{"rlscheduler", "--trace", good, "--window-jobs", "1", "--published", "hpc2n"}, 1, `no published cells for "hpc2n"`},
		{[]string{"rlscheduler", "--trace", filepath.Join(dir, "none.swf")}, 1, "none.swf"},
	} {
		err, code, out := runApp(t, c.args...)
		if code != c.code || err == nil || !strings.Contains(err.Error()+out, c.want) {
			t.Errorf("%v: exit %d (%v) %s, want %d and %q", c.args, code, err, out, c.code, c.want)
		}
	}
}

// With RLScheduler's Lublin-1 trace, the command prints the published
// cells beside its own.
func TestRLSchedulerPaperTrace(t *testing.T) {
	trace := papertrace.Lublin1OrSkip(t)
	err, code, out := runApp(t, "rlscheduler", "--trace", trace, "--published", "lublin-1", "--heuristics", "FCFS,WFP3", "--csv")
	if err != nil || code != 0 {
		t.Fatalf("%v %s", err, out)
	}
	for _, want := range []string{"bsld,none,FCFS,7273.77,7273.771", "bsld,none,WFP3,19753.53,19753.527", "utilization,greedy,WFP3,0.864,0.86435"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
