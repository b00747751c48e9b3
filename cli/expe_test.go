package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// TestMain lets the test binary act as the bucma command when
// BUCMA_TEST_MAIN=1, so that tests can start real "bucma run" and
// "bucma simulate" processes.
func TestMain(m *testing.M) {
	if os.Getenv("BUCMA_TEST_MAIN") == "1" {
		exitOnInterrupt()
		if os.Getenv("BUCMA_TEST_SIGNALS_READY") == "1" {
			// Tests that signal the process wait for this line.
			fmt.Fprintln(os.Stderr, "signal handlers installed")
		}
		os.Exit(exitCode(runCLI(newApp(policies.Builtin()), os.Args)))
	}
	os.Exit(m.Run())
}

// The Batsim engine end to end: each run starts a real "bucma run"
// scheduler process on a port the system picks, and a stand-in for Batsim
// ("bucma simulate --connect", the embedded engine speaking Batsim's side of
// the ZeroMQ protocol) given the endpoint the scheduler reported. The
// outputs and decision traces equal those of the in-process engine.
func TestExpeBatsimEngineOverZeroMQ(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	batsim := filepath.Join(t.TempDir(), "batsim")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in -p) p="$2"; shift;; -w) w="$2"; shift;; -e) e="$2"; shift;; -s) s="$2"; shift;;
    --enable-dynamic-jobs|--acknowledge-dynamic-jobs) dyn="$dyn $1";; esac
  shift
done
exec "` + self + `" simulate -p "$p" -w "$w" -e "$e" --connect "$s" --timeout 60s -q $dyn
`
	if err := os.WriteFile(batsim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sameAsEmbedded(t, "bucma-model", batsim)
	// The OSEP plan, once its policies are registered: Batsim gets the
	// dynamic-job flags, the preempted jobs come back as pieces.
	if _, ok := policies.Builtin().Get("osep"); ok {
		sameAsEmbedded(t, "osep", batsim)
	}
}

// The Batsim engine with the real Batsim, when there is one: Batsim 4.2.1
// and the embedded engine write the same files.
func TestExpeRealBatsim(t *testing.T) {
	batsim, err := exec.LookPath("batsim")
	if err != nil {
		t.Skip("no batsim executable on PATH: the Batsim engine is tested with a stand-in only")
	}
	sameAsEmbedded(t, "walltime-trust", batsim)
	// The gang plan (40 jobs per run on 384 hosts). The SGE plan's 110
	// runs are left to the real-Batsim tier (its scenarios, compute
	// sharing) and to expe's TestComputeSharingFlags (the flag).
	sameAsEmbedded(t, "gang", batsim)
}

// sameAsEmbedded runs a small campaign of plan with the Batsim engine (the
// test binary acting as the bucma scheduler) and with the embedded engine,
// and compares every run's _jobs.csv and decision trace.
func sameAsEmbedded(t *testing.T, plan, batsim string) {
	t.Helper()
	t.Setenv("BUCMA_TEST_MAIN", "1")
	viaBatsim, inProc := filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "e")
	p, err := studies.Plan(plan)
	if err != nil {
		t.Fatal(err)
	}
	ov := expe.Overrides{Seeds: 1, Jobs: 40}
	common := []string{"--seeds", "1", "--workers", "2", "--no-progress"}
	if p.FixedJobs() {
		ov.Jobs = 0
	} else {
		common = append(common, "--jobs", "40")
	}
	if err, code, out := runApp(t, append([]string{"expe", "run", plan, "--engine", "batsim", "--batsim-bin", batsim, "--out", viaBatsim, "--timeout", "2m"}, common...)...); err != nil || code != 0 {
		t.Fatalf("--engine batsim: %v (exit %d)\n%s", err, code, out)
	}
	if err, code, out := runApp(t, append([]string{"expe", "run", plan, "--out", inProc}, common...)...); err != nil || code != 0 {
		t.Fatalf("--engine embedded: %v (exit %d)\n%s", err, code, out)
	}
	if p, err = p.With(ov); err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(inProc, "runs", "*"))
	if len(runs) != len(p.Expand()) {
		t.Fatalf("%d runs, want %d", len(runs), len(p.Expand()))
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
	// Each recorded command pair replays its run (the shell waits for the
	// scheduler started in the background).
	checkReplay(t, viaBatsim, len(p.Expand()), func(cmd string) string { return cmd + "; wait" })
}

func TestExpePlans(t *testing.T) {
	err, code, out := runApp(t, "expe", "plans")
	if err != nil || code != 0 || !strings.Contains(out, "bucma-model") || !strings.Contains(out, "walltime-trust") ||
		!strings.Contains(out, "5 variants × 6 workload cases × 1000 seeds = 30000 runs; workload: osep (fixed size); --quick: 5 seeds") ||
		!strings.Contains(out, "11 variants × 10 workload cases × 1 seeds = 110 runs; workload: sge (fixed size); --quick: 1 seeds") {
		t.Fatalf("expe plans: %v (exit %d)\n%s", err, code, out)
	}
}

// The OSEP campaign's workload of a case and seed is the one "bucma
// workload osep" writes.
func TestOSEPCampaignWorkloadIsTheWorkloadCommand(t *testing.T) {
	tmp := t.TempDir()
	xml, err := expe.PlatformXML("osep")
	if err != nil {
		t.Fatal(err)
	}
	plat := filepath.Join(tmp, "platform.xml")
	if err := os.WriteFile(plat, xml, 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := studies.Plan("osep")
	got, err := gen.Generate(p.Recipe("user4-late-large"), 3, 0, plat)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "w.json")
	if err, _, msg := runApp(t, "workload", "osep", "--demand", "large", "--late", "user4", "--seed", "3", "-o", out); err != nil {
		t.Fatalf("workload osep: %v\n%s", err, msg)
	}
	want, _ := os.ReadFile(out)
	if len(want) == 0 || string(got) != string(want) {
		t.Error("the campaign's workload differs from bucma workload osep's")
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
		{"compare one dir", []string{"expe", "compare", "."}, "want two campaign directories"},
		{"compare a missing dir", []string{"expe", "compare", ".", "/nonexistent/campaign"}, "/nonexistent/campaign"},
		{"loads for osep", []string{"expe", "run", "osep", "--loads", "0.5"}, "--loads does not apply to plan osep"},
		{"jobs for osep", []string{"expe", "run", "osep", "--jobs", "40"}, "--jobs does not apply to plan osep"},
		{"jobs 0 for osep", []string{"expe", "run", "osep", "--quick", "--jobs", "0"}, "--jobs does not apply to plan osep"},
		{"loads for sensitivity", []string{"expe", "run", "bucma-sensitivity", "--loads", "0.5"}, "--loads does not apply to plan bucma-sensitivity"},
		{"platform for sensitivity", []string{"expe", "run", "walltime-trust-sensitivity", "--platform", "lille"}, "conditions name their platforms"},
		{"missing workload file", []string{"expe", "run", "bucma-model", "--workload", "/nonexistent/trace.json"}, "--workload: open /nonexistent/trace.json"},
		{"workload file for osep", []string{"expe", "run", "osep", "--workload", "../workloads/tiny.json"}, "cannot be replaced by a file"},
		{"loads with a workload file", []string{"expe", "run", "bucma-model", "--workload", "../workloads/tiny.json", "--loads", "0.5"}, "keeps its own load"},
		{"window of no job", []string{"expe", "run", "walltime-trust", "--workload", "../workloads/tiny.json", "--jobs", "0"}, "--jobs must be at least 1"},
		{"window of the whole file", []string{"expe", "run", "walltime-trust", "--workload", "../workloads/tiny.json", "--jobs", "1000"}, "a window of 1000 would give every seed the same workload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err, code, _ := runApp(t, c.args...)
			if code != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("exit %d, error %v; want exit 2 and %q", code, err, c.want)
			}
		})
	}
	// As expe status (TestReportStatusBadDirectory): a usage error.
	if err, code, _ := runApp(t, "expe", "report", t.TempDir()); code != 2 || !strings.Contains(err.Error(), "not a campaign directory") {
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
	// expe compare: the campaign against itself, then against a copy
	// whose report changed.
	if err, code, out = runApp(t, "expe", "compare", dir, dir); err != nil || code != 0 || !regexp.MustCompile(`: [0-9]+ files compared, 0 differ\n`).MatchString(out) {
		t.Errorf("expe compare: %v (exit %d)\n%s", err, code, out)
	}
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(other, "report.md"), append(report, '\n'), 0o644)
	if _, code, out = runApp(t, "expe", "compare", dir, other); code != 1 || !strings.Contains(out, ", 1 differ\n  differs: report.md\n") {
		t.Errorf("expe compare with a changed report: exit %d\n%s", code, out)
	}
	// Another experiment in the same directory is refused.
	if err, code, _ = runApp(t, "expe", "run", "bucma-model", "--out", dir, "--seeds", "1", "--jobs", "50", "--no-progress"); code == 0 || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("other plan in the same directory: exit %d, %v", code, err)
	}
}

// The prio plan on an SWF trace given by path: each seed a window of
// --jobs consecutive jobs of it, reported with the variants ranked.
func TestExpeRunPrioOnSWF(t *testing.T) {
	tmp := t.TempDir()
	trace := filepath.Join(tmp, "trace.swf")
	if err, _, out := runApp(t, "workload", "lublin", "--jobs", "100", "--seed", "5", "--max-size", "64", "-o", trace); err != nil {
		t.Fatalf("workload lublin: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "prio")
	err, code, out := runApp(t, "expe", "run", "prio", "--workload", trace, "--jobs", "30", "--seeds", "2", "--out", dir, "--no-progress", "--report", "--format", "md")
	if err != nil || code != 0 || !strings.Contains(out, "prio: 66 runs") {
		t.Fatalf("expe run: %v (exit %d)\n%s", err, code, out)
	}
	for _, key := range []string{"s001_l0", "s002_l0"} {
		w, err := workloads.Load(filepath.Join(dir, "workloads", key+".json"))
		if err != nil || len(w.Jobs) != 30 {
			t.Fatalf("workload %s: %v", key, err)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(report), "a window of 30 consecutive jobs of the SWF trace, drawn with the seed, "+trace) || !strings.Contains(string(report), "# Ranking") {
		t.Errorf("report:\n%.2000s", report)
	}
}

// TestExpeReplayAndVerify: the command recorded in each run's cmd.txt,
// run from the campaign directory, reproduces the run's outputs byte for
// byte (the wall-clock columns of _schedule.csv aside), here in a copy of
// the campaign whose outputs were deleted. Then a run whose jobs file was
// cut short is refused by "expe report" and redone by "expe run".
func TestExpeReplayAndVerify(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// "bucma" on PATH is this test binary acting as bucma (see TestMain).
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nBUCMA_TEST_MAIN=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "bucma"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	dir := filepath.Join(t.TempDir(), "wt")
	args := []string{"expe", "run", "walltime-trust", "--out", dir, "--seeds", "1", "--jobs", "40", "--workers", "2", "--no-progress"}
	if err, code, out := runApp(t, args...); err != nil || code != 0 {
		t.Fatalf("expe run: %v (exit %d)\n%s", err, code, out)
	}
	checkReplay(t, dir, 5, nil)

	// Cut a jobs file at a line boundary: the report refuses the run.
	jobs := filepath.Join(dir, "runs", "easy_s001_l0.85", "out_jobs.csv")
	data, _ := os.ReadFile(jobs)
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(jobs, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	err, code, _ := runApp(t, "expe", "report", dir)
	if code != 1 || err == nil || !strings.Contains(err.Error(), "run easy_s001_l0.85: "+jobs) {
		t.Fatalf("report on a cut run: exit %d, %v", code, err)
	}
	err, code, out := runApp(t, args...)
	if err != nil || code != 0 || !strings.Contains(out, "1 done now, 1 of them redone") || !strings.Contains(out, "run=easy_s001_l0.85") {
		t.Fatalf("expe run after the cut: %v (exit %d)\n%s", err, code, out)
	}
	if got, _ := os.ReadFile(jobs); !bytes.Equal(got, data) {
		t.Error("the redone run's jobs file differs from the first one")
	}
	if err, code, out := runApp(t, "expe", "report", dir); err != nil || code != 0 {
		t.Fatalf("report after the redo: %v\n%s", err, out)
	}
}

// checkReplay replays each of the n runs of the campaign in dir with the
// command of its cmd.txt (edited by edit, when set), run from the campaign
// directory of a copy whose outputs were deleted, and checks that the
// outputs are the same (the wall-clock columns of _schedule.csv aside).
func checkReplay(t *testing.T, dir string, n int, edit func(string) string) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if len(runs) != n {
		t.Fatalf("runs: %v", runs)
	}
	replay := filepath.Join(t.TempDir(), "copy")
	if err := exec.Command("cp", "-R", dir, replay).Run(); err != nil {
		t.Fatal(err)
	}
	outputs := []string{"out_jobs.csv", "out_schedule.csv", "trace.csv"}
	for _, r := range runs {
		id := filepath.Base(r)
		cmd, err := os.ReadFile(filepath.Join(r, "cmd.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(cmd), ".tmp-") || strings.Contains(string(cmd), dir) {
			t.Errorf("%s: cmd.txt names a temporary or absolute path: %s", id, cmd)
		}
		var info struct {
			CommandLine string `json:"command_line"`
		}
		data, _ := os.ReadFile(filepath.Join(r, "run.json"))
		if err := json.Unmarshal(data, &info); err != nil || info.CommandLine+"\n" != string(cmd) {
			t.Errorf("%s: run.json's command line %q differs from cmd.txt %q (%v)", id, info.CommandLine, cmd, err)
		}
		for _, f := range outputs {
			if err := os.Remove(filepath.Join(replay, "runs", id, f)); err != nil {
				t.Fatal(err)
			}
		}
		line := strings.TrimSpace(string(cmd))
		if edit != nil {
			line = edit(line)
		}
		sh := exec.Command("sh", "-c", line)
		sh.Dir = replay
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: replaying %s: %v\n%s", id, line, err, out)
		}
		for _, f := range outputs {
			want, _ := os.ReadFile(filepath.Join(r, f))
			got, err := os.ReadFile(filepath.Join(replay, "runs", id, f))
			if f == "out_schedule.csv" {
				want, got = withoutWallClock(t, want), withoutWallClock(t, got)
			}
			if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("%s: the replayed %s differs (%v)", id, f, err)
			}
		}
		// The replayed run verifies: "expe report" and a resumed
		// campaign keep it.
		if err := expe.VerifyRun(replay, id); err != nil {
			t.Errorf("%s: the replayed run does not verify: %v", id, err)
		}
	}
}

// withoutWallClock blanks the wall-clock columns of a _schedule.csv
// (scheduling_time, simulation_time).
func withoutWallClock(t *testing.T, data []byte) []byte {
	t.Helper()
	out, err := expe.WithoutColumns(data, expe.WallClockColumns)
	if err != nil || bytes.Count(out, []byte("\n")) != 2 {
		t.Fatalf("schedule file: %v\n%s", err, data)
	}
	return out
}

// The bag-of-tasks plan through the command line: listed by "expe plans",
// run with --quick and reported beside the thesis' tables; the workload of
// a case is the one "bucma workload bot" writes.
func TestExpeRunBot(t *testing.T) {
	err, code, out := runApp(t, "expe", "plans")
	if err != nil || code != 0 || !strings.Contains(out, "bot\n") ||
		!strings.Contains(out, "4 variants × 16 workload cases × 5 seeds = 320 runs; workload: bot (fixed size); --quick: 2 seeds") {
		t.Fatalf("expe plans: %v (exit %d)\n%s", err, code, out)
	}
	dir := filepath.Join(t.TempDir(), "bot")
	err, code, out = runApp(t, "expe", "run", "bot", "--quick", "--out", dir, "--workers", "2", "--no-progress", "--report")
	if err != nil || code != 0 {
		t.Fatalf("expe run bot --quick: %v (exit %d)\n%s", err, code, out)
	}
	if !strings.Contains(out, "128 done now, 0 already done, 0 failed") || !strings.Contains(out, filepath.Join(dir, "report.md")) {
		t.Errorf("output:\n%s", out)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{
		"## Table 7: trivial case 1", "| H1-1 | 10 (10) | 10 | 9 | 45 (45) | 52 (+15.50 %) | 45.0 (+0.0 %) |",
		"## Table 8: trivial case 2", "## Tables 10 and 11", "## Table 14: production", "## Energy (new: the thesis measures none)",
		"## Where and why we differ", "fig/bot-profiles.png",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, c := range []struct {
		key  string
		args []string
	}{
		{"h2-3_s001", []string{"--bots", "H2-3", "--hosts", "8", "--seed", "1"}},
		{"pesado-bg75_s002", []string{"--bots", "pesado", "--seed", "2", "--background", "75"}},
	} {
		got, err := os.ReadFile(filepath.Join(dir, "workloads", c.key+".json"))
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"workload", "bot", "--out", filepath.Join(t.TempDir(), "w.json")}, c.args...)
		if slices.Contains(c.args, "--background") {
			var w struct {
				Meta struct {
					Params struct {
						BackgroundSteps int `json:"background_steps"`
					} `json:"params"`
				} `json:"meta"`
			}
			if err := json.Unmarshal(got, &w); err != nil || w.Meta.Params.BackgroundSteps < 1 {
				t.Fatalf("%s: background steps: %v", c.key, err)
			}
			args = append(args, "--background-steps", strconv.Itoa(w.Meta.Params.BackgroundSteps))
		}
		if err, _, msg := runApp(t, args...); err != nil {
			t.Fatalf("workload bot: %v\n%s", err, msg)
		}
		want, _ := os.ReadFile(args[3])
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("the campaign's workload %s differs from bucma workload bot %s", c.key, strings.Join(c.args, " "))
		}
	}
}

// expe run ends with a non-zero status, saying so, when runs of the
// campaign are left undone: here one that another execution (a live claim
// of another host) holds.
func TestExpeRunUndoneRunsExitNonZero(t *testing.T) {
	dir, plan := smallPlan(t, "{name: a, policy: fcfs}, {name: b, policy: easy}")
	out := filepath.Join(dir, "out")
	tmp := filepath.Join(out, "runs", ".tmp-b_s001_l0.5")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	cl, _ := json.Marshal(expe.Claim{Host: "node7", PID: 1, Token: "t", Started: now, Heartbeat: now})
	if err := os.WriteFile(filepath.Join(tmp, expe.ClaimFile), cl, 0o644); err != nil {
		t.Fatal(err)
	}
	err, code, stderr := runApp(t, "expe", "run", plan, "--out", out, "--no-progress", "--report")
	if code != 1 || !strings.Contains(err.Error(), "1 of 2 runs are not done: other executions (another expe run, Slurm tasks) hold them; bucma expe status") ||
		!strings.Contains(stderr, "(1 done now, 0 already done, 1 being run by another execution, 0 failed)") {
		t.Errorf("exit %d: %v\n%s", code, err, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
		t.Error("a report of an incomplete campaign was written")
	}
}

// The commands a campaign prints and records name the program the user
// ran: a binary of one's own ("bin/mybucma") in the next command to type,
// its name in each run's cmd.txt and run.json. expe report writes the
// report and the tidy results.csv unless --format asks for one.
func TestExpeNamesTheProgramRun(t *testing.T) {
	dir, plan := smallPlan(t, "{name: a, policy: fcfs}")
	out := filepath.Join(dir, "out")
	run := func(args ...string) (string, error) {
		app := namedApp(policies.Builtin(), []string{"bin/mybucma"})
		var b bytes.Buffer
		app.Writer, app.ErrWriter = &b, &b
		err := runCLI(app, append([]string{"bin/mybucma"}, args...))
		return b.String(), err
	}
	stderr, err := run("expe", "run", plan, "--out", out, "--no-progress")
	if err != nil || !strings.Contains(stderr, "next: bin/mybucma expe report "+out+"\n") {
		t.Errorf("%v\n%s", err, stderr)
	}
	cmd, _ := os.ReadFile(filepath.Join(out, "runs", "a_s001_l0.5", "cmd.txt"))
	var info expe.RunInfo
	data, _ := os.ReadFile(filepath.Join(out, "runs", "a_s001_l0.5", "run.json"))
	_ = json.Unmarshal(data, &info)
	if !strings.HasPrefix(string(cmd), "mybucma simulate -p platform.xml ") || !strings.HasPrefix(info.CommandLine, "mybucma simulate ") {
		t.Errorf("cmd.txt %q, run.json %q", cmd, info.CommandLine)
	}
	stdout, err := run("expe", "report", out)
	if err != nil || stdout != filepath.Join(out, "report.md")+"\n"+filepath.Join(out, "results.csv")+"\n" {
		t.Errorf("%v\n%s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); err != nil {
		t.Error(err)
	}
	// Usage errors name it too.
	if _, err := run("expe", "run", plan, "--nope"); err == nil || !strings.Contains(err.Error(), "see 'mybucma expe run --help'") {
		t.Errorf("usage error: %v", err)
	}
}

// smallPlan writes a plan file of one 20-job workload and the given
// variants in a new folder, and returns both.
func smallPlan(t *testing.T, variants string) (dir, plan string) {
	t.Helper()
	dir = t.TempDir()
	plan = filepath.Join(dir, "p.yaml")
	text := "name: p\nplatform: lille\nworkload: {generator: lille, jobs: 20}\nloads: 0.5\nseeds: 1\nvariants: [" + variants + "]\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, plan
}

// A bundled platform is found the same way by every command (a file at the
// path, else the bundled platform the name spells, lille or lille.xml),
// and named the same way in their messages.
func TestPlatformSpellings(t *testing.T) {
	tiny := filepath.Join("..", "workloads", "tiny.json")
	prefix := filepath.Join(t.TempDir(), "out")
	for _, p := range []string{"lille", "lille.xml", "platforms/lille.xml"} {
		if err, code, out := runApp(t, "simulate", "-p", p, "-w", tiny, "--scheduler", "fcfs", "-q", "-e", prefix); code != 0 {
			t.Errorf("simulate -p %s: exit %d: %v\n%s", p, code, err, out)
		}
	}
	list := "bot-2nodes, bot, cluster-256, lille-cores, lille, mcmca, osep, sge-pi50, sge"
	if err, _, _ := runApp(t, "simulate", "-w", tiny, "--scheduler", "fcfs"); err == nil || !strings.Contains(err.Error(), "one of: "+list+")") {
		t.Errorf("simulate without -p: %v", err)
	}
	if err, _, _ := runApp(t, "simulate", "-p", "lile", "-w", tiny, "--scheduler", "fcfs"); err == nil || !strings.Contains(err.Error(), "(bundled: "+list+")") {
		t.Errorf("simulate -p lile: %v", err)
	}
	dir, plan := smallPlan(t, "{name: a, policy: fcfs}")
	out := filepath.Join(dir, "out")
	for _, p := range []string{"lille.xml", "platforms/lille.xml", "lille"} {
		if err, code, stderr := runApp(t, "expe", "run", plan, "--platform", p, "--out", out, "--no-progress"); code != 0 {
			t.Fatalf("expe run --platform %s: exit %d: %v\n%s", p, code, err, stderr)
		}
		got, err := expe.ReadPlan(out)
		if err != nil || got.Platform != "lille" {
			t.Errorf("--platform %s: plan.json's platform %q, %v", p, got.Platform, err)
		}
	}
	if err, code, _ := runApp(t, "expe", "run", plan, "--platform", "lile", "--out", out, "--no-progress"); code != 2 || !strings.Contains(err.Error(), `--platform: platform "lile": no such file and no such bundled platform (bundled: `+list+")") {
		t.Errorf("expe run --platform lile: exit %d: %v", code, err)
	}
}

// expe report and expe status end alike on a folder that is not a
// campaign directory: exit status 2 (a usage error), naming it.
func TestReportStatusBadDirectory(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	corrupt := filepath.Join(base, "corrupt")
	invalid := filepath.Join(base, "invalid")
	for dir, plan := range map[string]string{corrupt: "{", invalid: `{"name":"x","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1,1],"loads":[0.5]}`} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(base, "nope"), base, file, corrupt, invalid} {
		for _, cmd := range [][]string{{"expe", "report", dir}, {"expe", "report", "--format", "csv", dir}, {"expe", "report", "--complete", dir}, {"expe", "status", dir}} {
			err, code, _ := runApp(t, cmd...)
			if code != 2 || err == nil || !strings.Contains(err.Error(), dir) {
				t.Errorf("%v: exit %d: %v", cmd, code, err)
			}
		}
	}
}
