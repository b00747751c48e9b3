package expe

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

// fakeWorkload is a deterministic stand-in for the generators: jobs of
// three precision classes plus unclassified ones.
func fakeWorkload(r gen.Recipe, seed uint64, load float64, platform string) ([]byte, error) {
	if _, err := os.Stat(platform); err != nil {
		return nil, fmt.Errorf("platform not written before the workloads: %w", err)
	}
	var b strings.Builder
	b.WriteString(`{"nb_res": 4, "jobs": [`)
	classes := []string{"imprecise", "medium", "precise", ""}
	n := r.Jobs
	if n == 0 {
		n = 8
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		c := classes[i%len(classes)]
		fmt.Fprintf(&b, `{"id": %d, "subtime": %d, "res": 1, "walltime": 100, "profile": "p", "user": "%s", "profile_class": "%s", "seed": %d, "load": %g}`, i, i*10, c, c, seed, load)
	}
	b.WriteString(`], "profiles": {"p": {"type": "delay", "delay": 10}}}`)
	return []byte(b.String()), nil
}

// fakeEngine writes Batsim-format outputs whose numbers depend on the
// variant, the seed and the job, and counts its executions.
type fakeEngine struct {
	mu        sync.Mutex
	calls     map[string]int // executions started, by run id
	completed map[string]int // executions that succeeded
	// hook, when set, runs first; a non-nil error fails the run.
	hook func(ctx context.Context, spec RunSpec) error
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{calls: map[string]int{}, completed: map[string]int{}}
}

func (f *fakeEngine) Name() string                    { return "fake" }
func (f *fakeEngine) CommandLine(spec RunSpec) string { return "fake-sim " + spec.Run.ID }

func (f *fakeEngine) Run(ctx context.Context, spec RunSpec) error {
	f.mu.Lock()
	f.calls[spec.Run.ID]++
	f.mu.Unlock()
	if f.hook != nil {
		if err := f.hook(ctx, spec); err != nil {
			return err
		}
	}
	info, err := analysis.ReadJobInfo(spec.Workload)
	if err != nil {
		return err
	}
	h := fnv.New32a()
	h.Write([]byte(spec.Run.Variant.Name))
	vh := float64(h.Sum32() % 7)
	var jobs, trace strings.Builder
	jobs.WriteString("job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n")
	trace.WriteString("job_id,user,su_at_submission,queue_gain\n")
	for i := 0; i < len(info); i++ {
		id := fmt.Sprint(i)
		sub := float64(i * 10)
		wait := 1 + vh + float64(spec.Run.Seed) + float64(i%3)
		start := sub + wait
		fmt.Fprintf(&jobs, "%s,w0,p,%f,1,100.000000,1,COMPLETED_SUCCESSFULLY,%f,10.000000,%f,%f,%f,1.0,%d,-1.000000,\"\"\n", id, sub, start, start+10, wait, wait+10, i%4)
		fmt.Fprintf(&trace, "w0!%s,%s,%d,%g\n", id, info[id].User, (i*13)%101, float64((i*7+int(vh))%101))
	}
	if err := os.WriteFile(spec.Prefix+"_jobs.csv", []byte(jobs.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(spec.Trace, []byte(trace.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(spec.Log, []byte("ok\n"), 0o644); err != nil {
		return err
	}
	f.mu.Lock()
	f.completed[spec.Run.ID]++
	f.mu.Unlock()
	return nil
}

func testPlan(t *testing.T, name string, seeds int) Plan {
	t.Helper()
	p := builtinPlan(t, name)
	p.Kind = "" // the comparison report: the studies' reports are their packages' tests
	p, err := p.With(Overrides{Seeds: seeds, Jobs: 12})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fakePlatform(string) ([]byte, error) {
	return []byte(`<?xml version='1.0'?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd"><platform version="4.1"></platform>`), nil
}

func newCampaign(p Plan, dir string, e Engine, workers int) *Campaign {
	return &Campaign{Plan: p, Dir: dir, Engine: e, Workers: workers, MakeWorkload: fakeWorkload, PlatformXML: fakePlatform}
}

func TestCampaignResumeAfterInterruption(t *testing.T) {
	plan := testPlan(t, "bucma-model", 2)
	total := len(plan.Expand())
	dir := t.TempDir()
	eng := newFakeEngine()
	var mu sync.Mutex
	res, err := newCampaign(plan, dir, eng, 1).Execute(interruptAt(eng, 5))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted campaign: err = %v", err)
	}
	if res.Done != 4 || len(res.Failed) != 0 {
		t.Fatalf("interrupted campaign: %+v", res)
	}
	// The interrupted run left no directory behind.
	entries, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	if len(entries) != 4 {
		t.Errorf("runs dir holds %d entries after the interruption, want 4", len(entries))
	}

	eng.hook = nil
	var progress []int
	camp := newCampaign(plan, dir, eng, 2)
	camp.Progress = func(done, tot int) {
		mu.Lock()
		progress = append(progress, done)
		mu.Unlock()
	}
	res, err = camp.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 4 || res.Done != total-4 || len(res.Failed) != 0 {
		t.Fatalf("resumed campaign: %+v", res)
	}
	if progress[0] != 4 || progress[len(progress)-1] != total {
		t.Errorf("progress %v, want 4 first and %d last", progress, total)
	}
	for _, r := range plan.Expand() {
		if eng.completed[r.ID] != 1 {
			t.Errorf("run %s completed %d times", r.ID, eng.completed[r.ID])
		}
	}
	// A third execution has nothing to do.
	res, err = newCampaign(plan, dir, eng, 2).Execute(context.Background())
	if err != nil || res.Skipped != total || res.Done != 0 {
		t.Fatalf("third execution: %+v, %v", res, err)
	}

	// Every run has the outputs it has in an uninterrupted campaign (what
	// its report reads).
	ref := t.TempDir()
	if _, err := newCampaign(plan, ref, newFakeEngine(), 3).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a, b := outputsOf(t, dir), outputsOf(t, ref); !reflect.DeepEqual(a, b) {
		t.Errorf("resumed and uninterrupted campaigns give different outputs:\n%v\n----\n%v", a, b)
	}
}

// interruptAt returns the context of an execution that the user
// interrupts (Ctrl-C) during the engine's nth run.
func interruptAt(eng *fakeEngine, nth int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	started := 0
	eng.hook = func(rctx context.Context, spec RunSpec) error {
		mu.Lock()
		started++
		n := started
		mu.Unlock()
		if n == nth {
			cancel()
			<-rctx.Done()
			return rctx.Err()
		}
		return nil
	}
	return ctx
}

// outputsOf reads what every completed run of the campaign in dir
// recorded of its outputs (ReadRun: verified), by run id: the files and
// their checksums.
func outputsOf(t *testing.T, dir string) map[string][]OutputDigest {
	t.Helper()
	plan, err := ReadPlan(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]OutputDigest{}
	for _, r := range plan.Expand() {
		if !IsDone(dir, r.ID) {
			continue
		}
		_, info, err := ReadRun(dir, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[r.ID] = info.Outputs
	}
	return out
}

func TestCampaignFailedRunDoesNotStopOthers(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	dir := t.TempDir()
	eng := newFakeEngine()
	eng.hook = func(_ context.Context, spec RunSpec) error {
		if spec.Run.Variant.Name == "minmin" && spec.Run.Seed == 2 {
			os.WriteFile(spec.Log, []byte("simulated crash\n"), 0o644)
			return errors.New("boom")
		}
		return nil
	}
	res, err := newCampaign(plan, dir, eng, 2).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Done != len(plan.Expand())-1 {
		t.Fatalf("result: %+v", res)
	}
	f := res.Failed[0]
	if f.Run.ID != "minmin_s002_l0.85" || f.CommandLine != "fake-sim minmin_s002_l0.85" || !strings.Contains(f.String(), "boom") {
		t.Errorf("failure: %+v", f)
	}
	if data, err := os.ReadFile(f.LogPath); err != nil || string(data) != "simulated crash\n" {
		t.Errorf("failed run's log %s: %q, %v", f.LogPath, data, err)
	}
	// The campaign's status says which run failed, the others done.
	st, err := ReadStatus(dir, true)
	if err != nil || st.Counts[string(StateFailed)] != 1 || st.Counts[string(StateDone)] != len(plan.Expand())-1 {
		t.Fatalf("status: %+v, %v", st, err)
	}
	// Rerun with the cause fixed: only the failed run executes.
	eng.hook = nil
	res, err = newCampaign(plan, dir, eng, 2).Execute(context.Background())
	if err != nil || res.Done != 1 || len(res.Failed) != 0 {
		t.Fatalf("rerun: %+v, %v", res, err)
	}
	if _, err := os.Stat(f.Dir); !os.IsNotExist(err) {
		t.Errorf("the failed run's directory %s is still there: %v", f.Dir, err)
	}
	if eng.calls["minmin_s002_l0.85"] != 2 || eng.calls["fcfs_s001_l0.85"] != 1 {
		t.Errorf("executions: %v", eng.calls)
	}
}

func TestCampaignEnginePanicAndMissingOutput(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	eng := newFakeEngine()
	eng.hook = func(_ context.Context, spec RunSpec) error {
		switch spec.Run.Variant.Name {
		case "easy":
			panic("engine bug")
		case "wtrust":
			return errSkipOutput
		}
		return nil
	}
	res, err := newCampaign(plan, t.TempDir(), &noOutput{eng}, 1).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	for _, f := range res.Failed {
		msgs[f.Run.Variant.Name] = f.Err.Error()
	}
	if !strings.Contains(msgs["easy"], "engine panic") || !strings.Contains(msgs["wtrust"], "no out_jobs.csv") || len(msgs) != 2 {
		t.Errorf("failures: %v", msgs)
	}
}

var errSkipOutput = errors.New("skip output")

// noOutput turns errSkipOutput into a successful run that wrote nothing.
type noOutput struct{ *fakeEngine }

func (n *noOutput) Run(ctx context.Context, spec RunSpec) error {
	err := n.fakeEngine.Run(ctx, spec)
	if errors.Is(err, errSkipOutput) {
		return nil
	}
	return err
}

func TestCampaignRefusesAnotherPlan(t *testing.T) {
	dir := t.TempDir()
	if _, err := newCampaign(testPlan(t, "walltime-trust", 1), dir, newFakeEngine(), 1).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := newCampaign(testPlan(t, "bucma-model", 1), dir, newFakeEngine(), 1).Execute(context.Background())
	if err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("err = %v", err)
	}
	// More seeds on the same experiment extend it, its platform spelled
	// lille.xml or lille.
	more := testPlan(t, "walltime-trust", 2)
	more.Platform = "lille.xml"
	res, err := newCampaign(more, dir, newFakeEngine(), 1).Execute(context.Background())
	if err != nil || res.Skipped != 5 || res.Done != 5 {
		t.Errorf("extension: %+v, %v", res, err)
	}
}

func TestCampaignWorkloadsGeneratedOnce(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	plan.Loads = []float64{0.7, 1}
	dir := t.TempDir()
	camp := newCampaign(plan, dir, newFakeEngine(), 2)
	made := countMade(camp)
	if _, err := camp.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(made) != 4 {
		t.Errorf("workloads made: %v", made)
	}
	for k, n := range made {
		if n != 1 {
			t.Errorf("workload %s made %d times", k, n)
		}
		data, err := os.ReadFile(WorkloadPath(dir, k))
		if err != nil {
			t.Fatal(err)
		}
		var seed uint64
		var load float64
		fmt.Sscanf(k, "s%03d_l%g", &seed, &load)
		want, _ := fakeWorkload(plan.Workload, seed, load, filepath.Join(dir, PlatformFile))
		if string(data) != string(want) {
			t.Errorf("workload %s is not the one of its seed and load", k)
		}
	}
	// Workload generation errors name the workload.
	camp = newCampaign(plan, t.TempDir(), newFakeEngine(), 2)
	camp.MakeWorkload = func(gen.Recipe, uint64, float64, string) ([]byte, error) {
		return nil, errors.New("no generator")
	}
	if _, err := camp.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "workload s001_l0.7") {
		t.Errorf("err = %v", err)
	}
}

// countMade makes camp's workloads with fakeWorkload, counting how many
// times each (seed, load) workload is made in the map it returns (read
// once the campaign ended).
func countMade(camp *Campaign) map[string]int {
	var mu sync.Mutex
	made := map[string]int{}
	camp.MakeWorkload = func(r gen.Recipe, seed uint64, load float64, platform string) ([]byte, error) {
		mu.Lock()
		made[WorkloadKey(seed, load)]++
		mu.Unlock()
		return fakeWorkload(r, seed, load, platform)
	}
	return made
}

// A completed run whose outputs changed after it finished (the jobs file
// cut at a line boundary, the trace deleted, a byte changed, run.json
// without checksums) is refused by the report, with the run and the file
// named, and run again by the next execution, with a log line saying why.
func TestCampaignVerifiesCompletedRuns(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	total := len(plan.Expand())
	dir := t.TempDir()
	eng := newFakeEngine()
	if _, err := newCampaign(plan, dir, eng, 2).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := outputsOf(t, dir)
	var info RunInfo
	data, _ := os.ReadFile(filepath.Join(RunDir(dir, "fcfs_s001_l0.85"), RunInfoFile))
	if err := json.Unmarshal(data, &info); err != nil || info.Jobs != 12 || len(info.Outputs) != 2 ||
		info.Outputs[0].File != JobsFile || info.Outputs[1].File != TraceFile || len(info.Outputs[0].SHA256) != 64 {
		t.Fatalf("run.json: %+v, %v", info, err)
	}

	tamper := []struct {
		run, file, why string
		do             func(path string)
	}{
		{"fcfs_s001_l0.85", JobsFile, "bytes", func(p string) {
			data, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(data), "\n")
			os.WriteFile(p, []byte(strings.Join(lines[:6], "")), 0o644) // header and 5 of 12 jobs
		}},
		{"easy_s002_l0.85", TraceFile, "missing", func(p string) { os.Remove(p) }},
		{"minmin_s001_l0.85", JobsFile, "content changed", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "COMPLETED_SUCCESSFULLY", "COMPLETED_SUCCESSFULLX", 1)), 0o644)
		}},
		{"wtrust_s002_l0.85", RunInfoFile, "no checksum", func(p string) {
			data, _ := os.ReadFile(p)
			var m map[string]any
			json.Unmarshal(data, &m)
			delete(m, "outputs")
			data, _ = json.Marshal(m)
			os.WriteFile(p, data, 0o644)
		}},
	}
	for _, c := range tamper {
		c.do(filepath.Join(RunDir(dir, c.run), c.file))
		err := VerifyRun(dir, c.run)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Run != c.run || ve.File != filepath.Join(RunDir(dir, c.run), c.file) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s/%s: %v", c.run, c.file, err)
		}
	}
	for _, c := range tamper {
		if _, _, err := ReadRun(dir, c.run); err == nil || !strings.Contains(err.Error(), "run "+c.run+": "+filepath.Join(RunDir(dir, c.run), c.file)) {
			t.Errorf("reading a tampered run: %v", err)
		}
	}

	var logs strings.Builder
	camp := newCampaign(plan, dir, eng, 2)
	camp.Log = slog.New(slog.NewTextHandler(&logs, nil))
	res, err := camp.Execute(context.Background())
	if err != nil || res.Redone != len(tamper) || res.Done != len(tamper) || res.Skipped != total-len(tamper) {
		t.Fatalf("resumed campaign: %+v, %v", res, err)
	}
	for _, c := range tamper {
		if eng.completed[c.run] != 2 {
			t.Errorf("run %s completed %d times", c.run, eng.completed[c.run])
		}
		if !strings.Contains(logs.String(), "run="+c.run) {
			t.Errorf("no log line about %s:\n%s", c.run, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "redoing a completed run whose outputs fail verification") {
		t.Errorf("log:\n%s", logs.String())
	}
	if got := outputsOf(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("outputs after the redone runs differ:\n%v\n----\n%v", got, want)
	}
}

// mustRun executes a campaign that must complete every run of its plan.
func mustRun(t *testing.T, camp *Campaign) Result {
	t.Helper()
	res, err := camp.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failed {
		t.Error(f.String())
	}
	if n := len(camp.Plan.Expand()); res.Done != n {
		t.Fatalf("%d of %d runs done", res.Done, n)
	}
	return res
}

// The schedule file of a run is verified without its wall-clock columns
// (a run replayed with its cmd.txt writes other times there), and with
// every other value; a run.json written before the columns were left out
// (no without_columns) still verifies the whole file.
func TestVerifyScheduleWithoutWallClock(t *testing.T) {
	dir := t.TempDir()
	runDir := RunDir(dir, "r")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	jobs := "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n" +
		`1,w0,p,0.000000,1,10.000000,1,COMPLETED_SUCCESSFULLY,0.000000,5.000000,5.000000,0.000000,5.000000,1.000000,0,-1.000000,""` + "\n"
	schedule := func(makespan, sched, wall string) string {
		return "batsim_version,makespan,scheduling_time,simulation_time\nbucma," + makespan + "," + sched + "," + wall + "\n"
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(runDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(JobsFile, jobs)
	write(ScheduleFile, schedule("5.000000", "0.000119", "0.000452"))
	info := RunInfo{Run: Run{ID: "r"}}
	if err := recordOutputs(runDir, 1, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Outputs) != 2 || !slices.Equal(info.Outputs[1].WithoutColumns, WallClockColumns) {
		t.Fatalf("outputs %+v", info.Outputs)
	}
	saveInfo := func(info RunInfo) {
		data, _ := json.Marshal(info)
		write(RunInfoFile, string(data))
	}
	saveInfo(info)
	// Replayed: other times, longer ones too.
	write(ScheduleFile, schedule("5.000000", "12.345678", "100.000001"))
	if err := VerifyRun(dir, "r"); err != nil {
		t.Fatalf("a schedule file with other wall-clock times: %v", err)
	}
	write(ScheduleFile, schedule("6.000000", "0.000119", "0.000452"))
	if err := VerifyRun(dir, "r"); err == nil || !strings.Contains(err.Error(), ScheduleFile) {
		t.Fatalf("a schedule file with another makespan: %v", err)
	}
	// Recorded whole (an older run.json): any change is one.
	write(ScheduleFile, schedule("5.000000", "0.000119", "0.000452"))
	whole, err := fileDigest(filepath.Join(runDir, ScheduleFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	info.Outputs[1] = whole
	saveInfo(info)
	if err := VerifyRun(dir, "r"); err != nil {
		t.Fatal(err)
	}
	write(ScheduleFile, schedule("5.000000", "0.000120", "0.000452"))
	if err := VerifyRun(dir, "r"); err == nil || !strings.Contains(err.Error(), "content changed") {
		t.Fatalf("a whole-file checksum: %v", err)
	}
}

// A platform file that changed once runs are done is refused on resume;
// before any run, the new one is taken.
func TestCampaignRefusesAChangedPlatform(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir, src := t.TempDir(), filepath.Join(t.TempDir(), "p.xml")
	xml, _ := PlatformXML("lille")
	os.WriteFile(src, xml, 0o644)
	plan.Platform = src
	again := func() error {
		camp := newCampaign(plan, dir, newFakeEngine(), 2)
		camp.PlatformXML = nil
		_, err := camp.Execute(context.Background())
		return err
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
	if err := again(); err != nil {
		t.Fatalf("unchanged platform: %v", err)
	}
	os.WriteFile(src, append(xml, '\n'), 0o644)
	if err := again(); err == nil || !strings.Contains(err.Error(), "changed since the campaign began") {
		t.Errorf("changed platform: %v", err)
	}
}
