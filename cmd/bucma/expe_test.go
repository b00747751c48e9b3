package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the bucma command when
// BUCMA_TEST_MAIN=1, so that tests can start real "bucma run" and
// "bucma simulate" processes.
func TestMain(m *testing.M) {
	if os.Getenv("BUCMA_TEST_MAIN") == "1" {
		exitOnQuit()
		os.Exit(exitCode(newApp().Run(os.Args)))
	}
	os.Exit(m.Run())
}

// The Batsim engine end to end: each run starts a real "bucma run"
// scheduler process, and a stand-in for Batsim ("bucma simulate --connect",
// the embedded engine speaking Batsim's side of the ZeroMQ protocol). The
// outputs and decision traces equal those of the in-process engine.
func TestExpeBatsimEngineOverZeroMQ(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BUCMA_TEST_MAIN", "1")
	bin := t.TempDir()
	batsim := filepath.Join(bin, "batsim")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in -p) p="$2"; shift;; -w) w="$2"; shift;; -e) e="$2"; shift;; -s) s="$2"; shift;; esac
  shift
done
exec "` + self + `" simulate -p "$p" -w "$w" -e "$e" --connect "$s" --timeout 60s -q
`
	if err := os.WriteFile(batsim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	viaBatsim, inProc := filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "e")
	common := []string{"--seeds", "1", "--jobs", "40", "--workers", "2", "--no-progress"}
	if err, code, out := runApp(t, append([]string{"expe", "run", "bucma-model", "--engine", "batsim", "--batsim-bin", batsim, "--out", viaBatsim, "--timeout", "2m"}, common...)...); err != nil || code != 0 {
		t.Fatalf("--engine batsim: %v (exit %d)\n%s", err, code, out)
	}
	if err, code, out := runApp(t, append([]string{"expe", "run", "bucma-model", "--out", inProc}, common...)...); err != nil || code != 0 {
		t.Fatalf("--engine embedded: %v (exit %d)\n%s", err, code, out)
	}
	runs, _ := filepath.Glob(filepath.Join(inProc, "runs", "*"))
	if len(runs) != 12 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		for _, f := range []string{"out_jobs.csv", "trace.csv"} {
			want, _ := os.ReadFile(filepath.Join(r, f))
			got, err := os.ReadFile(filepath.Join(viaBatsim, "runs", filepath.Base(r), f))
			if err != nil || len(want) == 0 || string(got) != string(want) {
				t.Errorf("run %s: %s differs between the two engines (%v)", filepath.Base(r), f, err)
			}
		}
	}
}

func TestExpePlans(t *testing.T) {
	err, code, out := runApp(t, "expe", "plans")
	if err != nil || code != 0 || !strings.Contains(out, "bucma-model") || !strings.Contains(out, "walltime-trust") {
		t.Fatalf("expe plans: %v (exit %d)\n%s", err, code, out)
	}
}

func TestExpeUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no plan", []string{"expe", "run"}, "bucma-model"},
		{"unknown plan", []string{"expe", "run", "nope"}, `"nope"`},
		{"bad loads", []string{"expe", "run", "walltime-trust", "--loads", "0.5,x"}, `"x"`},
		{"bad seeds", []string{"expe", "run", "walltime-trust", "--seeds", "0"}, "--seeds"},
		{"bad engine", []string{"expe", "run", "walltime-trust", "--engine", "simgrid"}, "embedded, batsim"},
		{"no batsim", []string{"expe", "run", "walltime-trust", "--engine", "batsim", "--batsim-bin", "/nonexistent/batsim"}, "/nonexistent/batsim"},
		{"report without dir", []string{"expe", "report"}, "campaign directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err, code, _ := runApp(t, c.args...)
			if code != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("exit %d, error %v; want exit 2 and %q", code, err, c.want)
			}
		})
	}
	if err, code, _ := runApp(t, "expe", "report", t.TempDir()); code != 1 || !strings.Contains(err.Error(), "not a campaign directory") {
		t.Errorf("report on an empty directory: exit %d, %v", code, err)
	}
}

// A tiny campaign through the command line (flags after the plan name, as
// the documentation writes them), resumed, reported, and a Gantt chart.
func TestExpeRunReportGantt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wt")
	args := []string{"expe", "run", "walltime-trust", "--out", dir, "--seeds", "2", "--jobs", "50", "--workers", "2", "--no-progress"}
	err, code, out := runApp(t, append(args, "--report")...)
	if err != nil || code != 0 {
		t.Fatalf("expe run: %v (exit %d)\n%s", err, code, out)
	}
	if !strings.Contains(out, "10 done now, 0 already done, 0 failed") || !strings.Contains(out, filepath.Join(dir, "report.md")) {
		t.Errorf("output:\n%s", out)
	}
	err, code, out = runApp(t, args...)
	if err != nil || code != 0 || !strings.Contains(out, "0 done now, 10 already done") {
		t.Errorf("second run: %v (exit %d)\n%s", err, code, out)
	}
	if err, code, out = runApp(t, "expe", "report", dir); err != nil || code != 0 {
		t.Fatalf("expe report: %v\n%s", err, out)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(report), "Figures 3–4") {
		t.Errorf("report:\n%s", report)
	}
	// The campaign's workloads are the ones the workload commands write.
	tmp := t.TempDir()
	lille, precise := filepath.Join(tmp, "lille.json"), filepath.Join(tmp, "precise.json")
	if err, _, out := runApp(t, "workload", "lille", "--seed", "2", "--jobs", "50", "--load", "0.85", "-o", lille); err != nil {
		t.Fatalf("workload lille: %v\n%s", err, out)
	}
	if err, _, out := runApp(t, "workload", "precise", "--seed", "2", "-o", precise, lille); err != nil {
		t.Fatalf("workload precise: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(precise)
	got, _ := os.ReadFile(filepath.Join(dir, "workloads", "s002_l0.85.json"))
	if len(want) == 0 || string(got) != string(want) {
		t.Error("the campaign's workload of seed 2 differs from bucma workload lille | bucma workload precise")
	}
	svg := filepath.Join(t.TempDir(), "g.svg")
	if err, code, out = runApp(t, "expe", "gantt", filepath.Join(dir, "runs", "wtrust_s001_l0.85"), "--out", svg); err != nil || code != 0 {
		t.Fatalf("expe gantt: %v\n%s", err, out)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("gantt svg: %v", err)
	}
	jobs := filepath.Join(dir, "runs", "fcfs_s002_l0.85", "out_jobs.csv")
	if err, code, out = runApp(t, "expe", "gantt", jobs); err != nil || code != 0 {
		t.Fatalf("expe gantt on a jobs file: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(jobs), "gantt.png")); err != nil {
		t.Error(err)
	}
	// Another experiment in the same directory is refused.
	if err, code, _ = runApp(t, "expe", "run", "bucma-model", "--out", dir, "--seeds", "1", "--jobs", "50", "--no-progress"); code == 0 || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("other plan in the same directory: exit %d, %v", code, err)
	}
}
