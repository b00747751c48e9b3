package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSbatch is a stand-in sbatch that records its arguments in log and
// prints the next job id.
func fakeSbatch(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "sbatch"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nwc -l < " + log + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// "bucma expe submit" through a stand-in sbatch, its tasks performed by
// "bucma expe task" as Slurm would start them, then status, report
// --complete and a second submit: the command line end to end without
// Slurm (scripts/test-slurm runs it with a real one).
func TestExpeSubmitTasksStatus(t *testing.T) {
	sbatch, calls := fakeSbatch(t)
	dir := filepath.Join(t.TempDir(), "camp")
	plan := []string{"walltime-trust", "--seeds", "1", "--jobs", "60"}
	submit := append(append([]string{"expe", "submit"}, plan...), "--out", dir, "--tasks", "2", "--partition", "debug", "--sbatch-bin", sbatch)

	// --dry-run prints the scripts and writes nothing.
	err, code, out := runApp(t, append(submit, "--dry-run", "--sbatch=--constraint=a", "--sbatch=--gres=gpu:1")...)
	if code != 0 {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	for _, w := range []string{"#SBATCH --array=0-1\n", "#SBATCH --partition=debug\n", "#SBATCH --constraint=a\n", "#SBATCH --gres=gpu:1\n",
		"expe task --submission 001", "expe report --complete", "# sbatch --parsable --dependency=afterany:ARRAY_JOB_ID"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote %s: %v", dir, err)
	}

	err, code, out = runApp(t, submit...)
	if code != 0 {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	if !strings.Contains(out, "array job 1 (2 tasks)\nreport job 2\n") || !strings.Contains(out, "5 runs to do of 5") {
		t.Errorf("submit printed:\n%s", out)
	}
	got, _ := os.ReadFile(calls)
	folder := filepath.Join(dir, "slurm", "001")
	if want := "--parsable " + folder + "/task.sh\n--parsable --dependency=afterany:1 " + folder + "/report.sh\n"; string(got) != want {
		t.Errorf("sbatch called with:\n%swant:\n%s", got, want)
	}

	status := func() string {
		t.Helper()
		err, code, out := runApp(t, "expe", "status", dir)
		if code != 0 {
			t.Fatalf("status: %v\n%s", err, out)
		}
		return out
	}
	if out := status(); !strings.Contains(out, "5 runs: 0 done, 0 running, 0 failed, 5 missing") || !strings.Contains(out, "array job 1, report job 2") {
		t.Errorf("status before the tasks:\n%s", out)
	}
	if err, code, out := runApp(t, "expe", "report", "--complete", dir); code != 1 || !strings.Contains(out+err.Error(), "not complete") {
		t.Errorf("report --complete of an incomplete campaign: exit %d, %v\n%s", code, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); !os.IsNotExist(err) {
		t.Errorf("report written for an incomplete campaign: %v", err)
	}
	// Task 0 only: 3 runs (lines 1, 3, 5).
	if err, code, out := runApp(t, "expe", "task", "--submission", "001", "--index", "0", dir); code != 0 || !strings.Contains(out, "3 runs in") {
		t.Fatalf("task 0: exit %d, %v\n%s", code, err, out)
	}
	if out := status(); !strings.Contains(out, "3 done, 0 running, 0 failed, 2 missing") {
		t.Errorf("status after task 0:\n%s", out)
	}
	// The flags after the directory, as a user may type them.
	if err, code, out := runApp(t, "expe", "task", dir, "--submission", "001", "--index", "1", "--workers", "2"); code != 0 || !strings.Contains(out, "2 runs in") {
		t.Fatalf("task 1: exit %d, %v\n%s", code, err, out)
	}
	if out := status(); !strings.Contains(out, "5 done, 0 running, 0 failed, 0 missing") {
		t.Errorf("status after the tasks:\n%s", out)
	}
	if err, code, out := runApp(t, "expe", "report", "--complete", "--format", "csv", dir); code != 0 || !strings.Contains(out, "results.csv") {
		t.Errorf("report --complete: exit %d, %v\n%s", code, err, out)
	}
	// Submitting again: nothing to do, no new submission.
	if err, code, out := runApp(t, submit...); code != 0 || !strings.Contains(out, "all 5 runs are done: nothing to submit") {
		t.Errorf("second submit: exit %d, %v\n%s", code, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "slurm", "002")); !os.IsNotExist(err) {
		t.Errorf("second submission written: %v", err)
	}
	// A failed run is submitted again.
	run := filepath.Join(dir, "runs", "easy_s001_l0.85")
	if err := os.Rename(run, run+".failed"); err != nil {
		t.Fatal(err)
	}
	if err, code, out := runApp(t, submit...); code != 0 || !strings.Contains(out, "1 runs to do of 5 (4 done)") {
		t.Errorf("submit after a failure: exit %d, %v\n%s", code, err, out)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "slurm", "002", "runs.txt")); err != nil || string(data) != "easy_s001_l0.85\n" {
		t.Errorf("second submission's runs: %q, %v", data, err)
	}
}

func TestExpeSubmitUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "camp")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"expe", "submit", "walltime-trust", "--out", dir, "--time", "1h", "--dry-run"}, `--time "1h"`},
		{[]string{"expe", "submit", "walltime-trust", "--out", dir, "--sbatch=--array=0-3", "--dry-run"}, "give it as --tasks and --throttle"},
		{[]string{"expe", "submit", "walltime-trust", "--out", dir, "--sbatch-bin", "/nonexistent/sbatch"}, `sbatch executable "/nonexistent/sbatch" not found`},
		{[]string{"expe", "submit", "nope", "--dry-run"}, `"nope"`},
		// Paths an #SBATCH line cannot hold, refused before anything is
		// made (the newline would run its text in the batch script).
		{[]string{"expe", "submit", "walltime-trust", "--quick", "--out", dir + "\ntouch /tmp/owned", "--write-only"}, "--out: the campaign directory"},
		{[]string{"expe", "submit", "walltime-trust", "--quick", "--out", dir + " x", "--write-only"}, "holds a blank"},
		{[]string{"expe", "submit", "walltime-trust", "--quick", "--out", dir + "%j", "--dry-run"}, "holds '%'"},
		{[]string{"expe", "task", dir, "--index", "0"}, "--submission NAME is required"},
		{[]string{"expe", "task", dir, "--submission", "001", "--index", "0"}, "submission 001 of"},
		{[]string{"expe", "status", dir}, "not a campaign directory"},
	} {
		err, code, out := runApp(t, c.args...)
		if code != 2 || !strings.Contains(out+errString(err), c.want) {
			t.Errorf("%v: exit %d, want 2 with %q: %v\n%s", c.args, code, c.want, err, out)
		}
	}
	for _, d := range []string{dir, dir + "\ntouch /tmp/owned", dir + " x", dir + "%j"} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("a refused command wrote %q", d)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
