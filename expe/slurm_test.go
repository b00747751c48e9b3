package expe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"
)

// preparedCampaign is a campaign directory Prepare made for plan.
func preparedCampaign(t *testing.T, plan Plan) (string, Prepared) {
	t.Helper()
	dir := t.TempDir()
	p, err := newCampaign(plan, dir, newFakeEngine(), 2).Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func testSubmission(t *testing.T, dir string, plan Plan, runs []Run, o SlurmOptions) *Submission {
	t.Helper()
	s, err := NewSubmission(dir, plan, runs, o, "/opt/bucma/bin/bucma", []string{"--timeout=30m0s", "--engine=embedded"}, []string{"md", "csv"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Inputs, err = InputDigests(dir, plan, runs); err != nil {
		t.Fatal(err)
	}
	return s
}

// The runs are dealt to the tasks in turn: every run goes to exactly one
// task, the same one for the same list, and the tasks' loads differ by one
// at most; the default number of tasks follows the CPUs per task.
func TestSubmissionSharding(t *testing.T) {
	plan := testPlan(t, "bucma-model", 3)
	runs := plan.Expand() // 36 runs
	dir := t.TempDir()
	for _, c := range []struct {
		o     SlurmOptions
		tasks int
	}{
		{SlurmOptions{}, len(runs)},
		{SlurmOptions{CPUsPerTask: 4}, 9},
		{SlurmOptions{CPUsPerTask: 5}, 8},
		{SlurmOptions{Tasks: 7}, 7},
		{SlurmOptions{Tasks: 1000}, len(runs)},
	} {
		s, err := NewSubmission(dir, plan, runs, c.o, "/bin/bucma", nil, []string{"md"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Tasks != c.tasks {
			t.Errorf("%+v: %d tasks, want %d", c.o, s.Tasks, c.tasks)
		}
		seen := map[string]int{}
		minN, maxN := len(runs), 0
		for i := 0; i < s.Tasks; i++ {
			ids, err := s.TaskRuns(i)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := s.TaskRuns(i)
			if !slices.Equal(ids, again) {
				t.Fatalf("task %d: %v then %v", i, ids, again)
			}
			for k, id := range ids {
				seen[id]++
				if want := runs[i+k*s.Tasks].ID; id != want {
					t.Fatalf("%+v: task %d's run %d is %s, want %s (line %d)", c.o, i, k, id, want, i+k*s.Tasks+1)
				}
			}
			minN, maxN = min(minN, len(ids)), max(maxN, len(ids))
		}
		if len(seen) != len(runs) || maxN-minN > 1 {
			t.Errorf("%+v: %d runs dealt (want %d), tasks hold %d to %d", c.o, len(seen), len(runs), minN, maxN)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("run %s in %d tasks", id, n)
			}
		}
		if _, err := s.TaskRuns(s.Tasks); err == nil {
			t.Errorf("task %d of %d: no error", s.Tasks, s.Tasks)
		}
		if _, err := s.TaskRuns(-1); err == nil {
			t.Error("task -1: no error")
		}
	}
	many := make([]Run, 2500)
	for i := range many {
		many[i] = Run{ID: fmt.Sprint("r", i)}
	}
	s, err := NewSubmission(dir, plan, many, SlurmOptions{}, "/bin/bucma", nil, []string{"md"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Tasks != MaxArrayTasks {
		t.Errorf("2500 runs: %d tasks, want %d", s.Tasks, MaxArrayTasks)
	}
	if _, err := NewSubmission(dir, plan, nil, SlurmOptions{}, "/bin/bucma", nil, nil); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := NewSubmission("results/x", plan, runs, SlurmOptions{}, "/bin/bucma", nil, nil); err == nil {
		t.Error("a relative campaign directory: no error")
	}
}

// The batch scripts: every option given becomes its #SBATCH line, the
// array covers the tasks with the throttle, the task runs "bucma expe task"
// of this submission with its index and CPUs, the report job checks the
// campaign is complete; sbatch's arguments chain the report job to the
// array with afterany.
func TestSubmissionScripts(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	dir, p := preparedCampaign(t, plan)
	o := SlurmOptions{Partition: "short", Time: "1-02:00:00", Account: "proj42", QOS: "normal", Mem: "4G", CPUsPerTask: 2, Throttle: 3,
		Extra: []string{"--constraint=haswell", "--mail-type=END"}}
	s := testSubmission(t, dir, plan, p.Pending, o)
	if s.Name != "001" || s.Tasks != 5 {
		t.Fatalf("submission %s, %d tasks; want 001, 5", s.Name, s.Tasks)
	}
	folder := filepath.Join(dir, SlurmDir, "001")
	task := s.TaskScript()
	lines := strings.Split(strings.TrimRight(task, "\n"), "\n")
	if lines[0] != "#!/bin/sh" {
		t.Errorf("task script starts %q", lines[0])
	}
	var sbatch []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#SBATCH ") {
			sbatch = append(sbatch, strings.TrimPrefix(l, "#SBATCH "))
		}
	}
	want := []string{"--array=0-4%3", "--output=" + folder + "/task-%a.out", "--job-name=bucma-walltime-trust", "--chdir=" + dir,
		"--partition=short", "--time=1-02:00:00", "--account=proj42", "--qos=normal", "--mem=4G", "--cpus-per-task=2",
		"--constraint=haswell", "--mail-type=END"}
	if !slices.Equal(sbatch, want) {
		t.Errorf("task script's #SBATCH lines:\n%s\nwant:\n%s", strings.Join(sbatch, "\n"), strings.Join(want, "\n"))
	}
	exec := lines[len(lines)-1]
	wantExec := "exec /opt/bucma/bin/bucma expe task --submission 001 --timeout=30m0s --engine=embedded --index \"$SLURM_ARRAY_TASK_ID\" --workers \"${SLURM_CPUS_PER_TASK:-1}\" " + dir
	if exec != wantExec {
		t.Errorf("task script runs:\n%s\nwant:\n%s", exec, wantExec)
	}
	// A Slurm script: the #SBATCH lines come before the first command.
	for i, l := range lines {
		if strings.HasPrefix(l, "#SBATCH") && i > slices.Index(lines, exec) {
			t.Errorf("#SBATCH line %d after the command", i)
		}
	}

	report := s.ReportScript()
	for _, w := range []string{"#SBATCH --output=" + folder + "/report.out\n", "#SBATCH --job-name=bucma-walltime-trust-report\n",
		"#SBATCH --partition=short\n", "#SBATCH --account=proj42\n", "#SBATCH --constraint=haswell\n",
		"\nexec /opt/bucma/bin/bucma expe report --complete --format md,csv " + dir + "\n"} {
		if !strings.Contains(report, w) {
			t.Errorf("report script lacks %q:\n%s", w, report)
		}
	}
	for _, no := range []string{"--array", "--cpus-per-task"} {
		if strings.Contains(report, no) {
			t.Errorf("report script has %s:\n%s", no, report)
		}
	}
	if got := s.SbatchArgs(false, ""); !slices.Equal(got, []string{"--parsable", folder + "/task.sh"}) {
		t.Errorf("array's sbatch arguments %q", got)
	}
	if got := s.SbatchArgs(true, "4242"); !slices.Equal(got, []string{"--parsable", "--dependency=afterany:4242", folder + "/report.sh"}) {
		t.Errorf("report job's sbatch arguments %q", got)
	}
	// A campaign directory whose path needs quoting stays one argument of
	// the commands (NewSubmission refuses it for the #SBATCH lines).
	s.Dir = "/data/my campaign"
	if exec := s.TaskScript(); !strings.Contains(exec, "--workers \"${SLURM_CPUS_PER_TASK:-1}\" '/data/my campaign'\n") {
		t.Errorf("a directory with a space is not quoted:\n%s", exec)
	}
}

func TestSlurmOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    SlurmOptions
		want string // in the error; "" for none
	}{
		{SlurmOptions{Time: "30"}, ""},
		{SlurmOptions{Time: "2-12"}, ""},
		{SlurmOptions{Time: "1:30:00", Partition: "gpu_p2", Account: "abc@def", Mem: "512"}, ""},
		{SlurmOptions{Time: "1h"}, "--time \"1h\""},
		{SlurmOptions{Partition: "a b"}, "--partition"},
		{SlurmOptions{QOS: "x;rm"}, "--qos"},
		{SlurmOptions{Mem: "4GB"}, "--mem"},
		{SlurmOptions{Throttle: -1}, "--throttle -1"},
		{SlurmOptions{Extra: []string{"--array=0-3"}}, "give it as --tasks and --throttle"},
		{SlurmOptions{Extra: []string{"-pdebug"}}, "give it as --partition"},
		{SlurmOptions{Extra: []string{"--output=x"}}, "bucma expe submit sets it"},
		{SlurmOptions{Extra: []string{"--dependency=afterok:1"}}, "sets it"},
		{SlurmOptions{Extra: []string{"--constraint=a b"}}, "without spaces"},
		{SlurmOptions{Extra: []string{"--comment=x\ntouch /tmp/owned"}}, "without spaces, line breaks"},
		{SlurmOptions{Extra: []string{"--comment=x#y"}}, "want one option"},
		{SlurmOptions{Extra: []string{"--comment=x\x00y"}}, "want one option"},
		{SlurmOptions{Extra: []string{"constraint=x"}}, "want one option"},
		{SlurmOptions{Extra: []string{"--gres=gpu:1", "--exclusive"}}, ""},
	} {
		err := c.o.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one with %q", c.o, err, c.want)
		}
	}
}

// A submission written, submitted (with a stand-in sbatch that records
// its arguments) and read back; the next one takes the next name.
func TestSubmissionWriteSubmitRead(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	dir, p := preparedCampaign(t, plan)
	s := testSubmission(t, dir, plan, p.Pending, SlurmOptions{Tasks: 3})
	if err := s.Write(); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	sbatch := filepath.Join(bin, "sbatch")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nn=$(wc -l < " + log + ")\necho \"$((100 + n));cluster\"\n"
	if err := os.WriteFile(sbatch, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(context.Background(), sbatch); err != nil {
		t.Fatal(err)
	}
	if s.ArrayJob != "101" || s.ReportJob != "102" {
		t.Errorf("job ids %q, %q; want 101, 102", s.ArrayJob, s.ReportJob)
	}
	calls, _ := os.ReadFile(log)
	folder := s.Folder()
	if want := "--parsable " + folder + "/task.sh\n--parsable --dependency=afterany:101 " + folder + "/report.sh\n"; string(calls) != want {
		t.Errorf("sbatch called with:\n%swant:\n%s", calls, want)
	}
	for _, f := range []string{TaskScriptFile, ReportScriptFile} {
		if st, err := os.Stat(filepath.Join(folder, f)); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: %v, mode %v", f, err, st.Mode())
		}
	}
	back, err := ReadSubmission(dir, "001")
	if err != nil {
		t.Fatal(err)
	}
	if back.ArrayJob != "101" || back.ReportJob != "102" || back.Tasks != 3 || back.Runs != len(p.Pending) || len(back.Inputs) != len(s.Inputs) {
		t.Errorf("read back: %+v", back)
	}
	for i := 0; i < 3; i++ {
		a, _ := s.TaskRuns(i)
		b, _ := back.TaskRuns(i)
		if !slices.Equal(a, b) {
			t.Errorf("task %d: %v written, %v read", i, a, b)
		}
	}
	next := testSubmission(t, dir, plan, p.Pending[:2], SlurmOptions{})
	if next.Name != "002" {
		t.Errorf("next submission %q, want 002", next.Name)
	}

	// sbatch refusing the report job: the array stays recorded, the error
	// says how to submit the report job.
	if err := os.WriteFile(sbatch, []byte("#!/bin/sh\ncase \"$*\" in *dependency*) echo 'sbatch: error: Invalid account' >&2; exit 1;; esac\necho 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := next.Write(); err != nil {
		t.Fatal(err)
	}
	err = next.Submit(context.Background(), sbatch)
	if err == nil || !strings.Contains(err.Error(), "array job 7 submitted") || !strings.Contains(err.Error(), "Invalid account") ||
		!strings.Contains(err.Error(), "--dependency=afterany:7") {
		t.Errorf("report job refused: %v", err)
	}
	if back, err := ReadSubmission(dir, "002"); err != nil || back.ArrayJob != "7" || back.ReportJob != "" {
		t.Errorf("after the refusal: %+v, %v", back, err)
	}
	// A job id that is not one.
	if err := os.WriteFile(sbatch, []byte("#!/bin/sh\necho 'Submitted batch job'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := next.Submit(context.Background(), sbatch); err == nil || !strings.Contains(err.Error(), "not a job id") {
		t.Errorf("garbled sbatch output: %v", err)
	}
	// A damaged runs list is an error naming the file.
	if err := os.WriteFile(filepath.Join(dir, SlurmDir, "001", SubmissionRuns), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSubmission(dir, "001"); err == nil || !strings.Contains(err.Error(), SubmissionRuns) {
		t.Errorf("damaged runs list: %v", err)
	}
}

// Array tasks sharing a campaign directory: each performs its share, runs
// handed to two executions at once are run once, a run done is not run
// again, and inputs changed since the directory was prepared stop the task
// before any run.
func TestExecuteRunsShared(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 2)
	dir, p := preparedCampaign(t, plan)
	inputs, err := InputDigests(dir, plan, p.Pending)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(p.Pending))
	for i, r := range p.Pending {
		ids[i] = r.ID
	}
	eng := newFakeEngine()
	var wg sync.WaitGroup
	results := make([]Result, 3)
	errs := make([]error, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCampaign(plan, dir, eng, 2)
			c.Inputs, c.Job = inputs, fmt.Sprint("9_", i)
			results[i], errs[i] = c.ExecuteRuns(context.Background(), ids)
		}()
	}
	wg.Wait()
	done := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		done += r.Done
		if r.Done+r.Skipped+r.Busy+len(r.Failed) != len(ids) || len(r.Failed) > 0 {
			t.Errorf("execution %d: %+v", i, r)
		}
	}
	if done != len(ids) {
		t.Errorf("%d runs done by the three executions, want %d", done, len(ids))
	}
	for _, id := range ids {
		if eng.completed[id] != 1 || !IsDone(dir, id) {
			t.Errorf("run %s completed %d times, done: %v", id, eng.completed[id], IsDone(dir, id))
		}
		if err := VerifyRun(dir, id); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	res, err := newCampaign(plan, dir, eng, 1).ExecuteRuns(context.Background(), ids[:2])
	if err != nil || res.Skipped != 2 || res.Done != 0 {
		t.Errorf("runs done already: %+v, %v", res, err)
	}
	if _, err := newCampaign(plan, dir, eng, 1).ExecuteRuns(context.Background(), []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no run "nope"`) {
		t.Errorf("unknown run: %v", err)
	}
	// An input changed after the submission.
	w := WorkloadPath(dir, p.Pending[0].Workload)
	if err := os.WriteFile(w, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCampaign(plan, dir, newFakeEngine(), 1)
	c.Inputs = inputs
	if _, err := c.ExecuteRuns(context.Background(), ids[:1]); err == nil || !strings.Contains(err.Error(), "is not the file the directory was prepared with") {
		t.Errorf("changed input: %v", err)
	}
	if _, err := newCampaign(plan, t.TempDir(), eng, 1).ExecuteRuns(context.Background(), ids[:1]); err == nil || !strings.Contains(err.Error(), "not a prepared campaign directory") {
		t.Errorf("unprepared directory: %v", err)
	}
}

// writeTestClaim leaves the temporary directory of run id with a claim.
func writeTestClaim(t *testing.T, dir, id string, cl Claim) {
	t.Helper()
	tmp := tmpRunDir(dir, id)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeClaim(tmp, &cl); err != nil {
		t.Fatal(err)
	}
}

// Claims left by other executions: a live one (another host, renewed) is
// left alone; those of a dead process of this host, of a job the batch
// system says ended, or not renewed for StaleAfter, are taken over.
func TestClaimsTakenOverWhenDead(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir, p := preparedCampaign(t, plan)
	now := time.Now().UTC()
	ids := []string{p.Pending[0].ID, p.Pending[1].ID, p.Pending[2].ID, p.Pending[3].ID}
	// A process id of this host that is not running.
	dead := 1 << 22
	for pidAlive(dead) {
		dead++
	}
	writeTestClaim(t, dir, ids[0], Claim{Host: "node7", PID: 1, Job: "5_0", Token: "a", Started: now, Heartbeat: now})
	writeTestClaim(t, dir, ids[1], Claim{Host: thisHost(), PID: dead, Token: "b", Started: now, Heartbeat: now})
	writeTestClaim(t, dir, ids[2], Claim{Host: "node8", PID: 1, Job: "5_1", Token: "c", Started: now, Heartbeat: now})
	writeTestClaim(t, dir, ids[3], Claim{Host: "node9", PID: 1, Token: "d", Started: now, Heartbeat: now.Add(-time.Hour)})

	st, err := ReadStatus(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]RunStatus{}
	for _, r := range st.Runs {
		states[r.Run.ID] = r
	}
	// From the directory alone, job 5_1 is live (renewed, another host).
	for i, want := range []RunState{StateRunning, StateMissing, StateRunning, StateMissing} {
		if got := states[ids[i]]; got.State != want || got.Claim == nil {
			t.Errorf("run %s: %s (claim %v), want %s", ids[i], got.State, got.Claim, want)
		}
	}
	if n := st.Counts[string(StateRunning)]; n != 2 {
		t.Errorf("%d running, want 2", n)
	}
	sum := st.Summary(0, now)
	if !strings.Contains(sum, "running  "+ids[0]+" (job 5_0, node7 pid 1, last heard of") || !strings.Contains(sum, "interrupted") {
		t.Errorf("summary:\n%s", sum)
	}

	eng := newFakeEngine()
	c := newCampaign(plan, dir, eng, 2)
	c.ClaimAlive = func(cl Claim) (bool, bool) {
		switch cl.Job {
		case "5_0":
			return true, true
		case "5_1":
			return false, true // scancelled, timed out
		}
		return false, false
	}
	res, err := c.ExecuteRuns(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != 1 || res.Done != 3 {
		t.Errorf("result %+v, want 1 busy (job 5_0), 3 done", res)
	}
	if eng.calls[ids[0]] != 0 || !IsDone(dir, ids[1]) || !IsDone(dir, ids[2]) || !IsDone(dir, ids[3]) {
		t.Errorf("calls %v", eng.calls)
	}
	if cl, err := readClaim(tmpRunDir(dir, ids[0])); err != nil || cl.Token != "a" {
		t.Errorf("the live claim was touched: %+v, %v", cl, err)
	}
}

// A run's claim is renewed while it runs, and the run is "running" for
// another reader meanwhile; once done, it is "done", its claim gone.
func TestClaimHeartbeat(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir, p := preparedCampaign(t, plan)
	id := p.Pending[0].ID
	eng := newFakeEngine()
	release := make(chan struct{})
	renewed := make(chan Claim, 1)
	eng.hook = func(ctx context.Context, spec RunSpec) error {
		first, err := readClaim(spec.Dir)
		if err != nil {
			return err
		}
		for {
			time.Sleep(5 * time.Millisecond)
			cl, err := readClaim(spec.Dir)
			if err == nil && cl.Heartbeat.After(first.Heartbeat) {
				renewed <- cl
				<-release
				return nil
			}
		}
	}
	c := newCampaign(plan, dir, eng, 1)
	c.Heartbeat, c.Job = 20*time.Millisecond, "77_3"
	errc := make(chan error, 1)
	go func() {
		_, err := c.ExecuteRuns(context.Background(), []string{id})
		errc <- err
	}()
	var cl Claim
	select {
	case cl = <-renewed:
	case <-time.After(30 * time.Second):
		t.Fatal("the claim was never renewed")
	}
	if cl.Job != "77_3" || cl.PID != os.Getpid() || cl.Host != thisHost() {
		t.Errorf("claim %+v", cl)
	}
	// Another reader in this process sees it live: its process runs.
	st, err := ReadStatus(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[string(StateRunning)] != 1 {
		t.Errorf("status while running: %v", st.Counts)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(RunDir(dir, id), ClaimFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("claim file left in the completed run: %v", err)
	}
	st, err = ReadStatus(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[string(StateDone)] != 1 || st.Counts[string(StateMissing)] != len(st.Runs)-1 {
		t.Errorf("status after: %v", st.Counts)
	}
}

// Status: done, failed (with its error), missing, and a completed run whose
// outputs were damaged (missing again; the quick check sees a size
// change, --verify any change); CheckComplete says what is not done.
func TestReadStatus(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir := t.TempDir()
	eng := newFakeEngine()
	bad := plan.Expand()[1].ID
	eng.hook = func(ctx context.Context, spec RunSpec) error {
		if spec.Run.ID == bad {
			return errors.New("the scheduler crashed")
		}
		return nil
	}
	res, err := newCampaign(plan, dir, eng, 2).Execute(context.Background())
	if err != nil || len(res.Failed) != 1 {
		t.Fatalf("%+v, %v", res, err)
	}
	st, err := ReadStatus(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(plan.Expand())
	if st.Counts["done"] != n-1 || st.Counts["failed"] != 1 {
		t.Errorf("counts %v", st.Counts)
	}
	for _, r := range st.Runs {
		if r.Run.ID == bad && (r.State != StateFailed || !strings.Contains(r.Note, "the scheduler crashed") || r.Log == "") {
			t.Errorf("failed run: %+v", r)
		}
	}
	err = CheckComplete(dir)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "failed   "+bad+": ") {
		t.Errorf("CheckComplete: %v", err)
	}
	// Damaged outputs: the same size is seen by --verify only.
	good := plan.Expand()[0].ID
	jobs := filepath.Join(RunDir(dir, good), JobsFile)
	data, _ := os.ReadFile(jobs)
	data[len(data)-2] ^= 1
	if err := os.WriteFile(jobs, data, 0o644); err != nil {
		t.Fatal(err)
	}
	quick, _ := ReadStatus(dir, false)
	full, _ := ReadStatus(dir, true)
	if quick.Counts["done"] != n-1 || full.Counts["done"] != n-2 || full.Counts["missing"] != 1 {
		t.Errorf("damaged outputs: quick %v, verify %v", quick.Counts, full.Counts)
	}
	if err := os.WriteFile(jobs, data[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	if quick, _ := ReadStatus(dir, false); quick.Counts["missing"] != 1 {
		t.Errorf("truncated outputs: %v", quick.Counts)
	}
	// Running the campaign again completes it; the status JSON has every run.
	eng.hook = nil
	if _, err := newCampaign(plan, dir, eng, 2).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := CheckComplete(dir); err != nil {
		t.Error(err)
	}
	st, _ = ReadStatus(dir, true)
	data, err = json.Marshal(st)
	if err != nil || strings.Count(string(data), `"state":"done"`) != n {
		t.Errorf("status JSON: %v\n%s", err, data)
	}
	if _, err := ReadStatus(t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "not a campaign directory") {
		t.Errorf("empty directory: %v", err)
	}
}

// SlurmClaimAlive reads squeue's state of the claim's job: running states
// are alive, others and jobs squeue no longer knows are ended, a claim
// without a job or a squeue that fails otherwise is unknown.
func TestSlurmClaimAlive(t *testing.T) {
	squeue := filepath.Join(t.TempDir(), "squeue")
	script := `#!/bin/sh
case "$3" in
1_0) echo RUNNING;;
1_1) echo COMPLETING;;
1_2) echo TIMEOUT;;
1_3) ;;
1_4) echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1;;
*) echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1;;
esac
`
	if err := os.WriteFile(squeue, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	alive := SlurmClaimAlive(squeue)
	for _, c := range []struct {
		job          string
		alive, known bool
	}{
		{"1_0", true, true}, {"1_1", true, true}, {"1_2", false, true}, {"1_3", false, true}, {"1_4", false, true},
		{"1_5", false, false}, {"", false, false},
	} {
		a, k := alive(Claim{Job: c.job})
		if a != c.alive || k != c.known {
			t.Errorf("job %q: alive %v known %v, want %v %v", c.job, a, k, c.alive, c.known)
		}
	}
}

// deadPID is the process id of a child process this test started and
// reaped: no process has it (until the system reuses it).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if pidAlive(cmd.Process.Pid) {
		t.Skipf("pid %d of a reaped child is taken again", cmd.Process.Pid)
	}
	return cmd.Process.Pid
}

// What an execution killed as it claimed or ran a run leaves behind is
// dead at once, not for StaleAfter: the claim of a process gone from this
// host, a run's temporary directory without a claim or with a claim cut
// short, and the directory where a claim was being written. The next
// execution takes the runs over and holds none of them busy.
func TestClaimsOfKilledExecutions(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir, p := preparedCampaign(t, plan)
	now := time.Now().UTC()
	ids := []string{p.Pending[0].ID, p.Pending[1].ID, p.Pending[2].ID}
	writeTestClaim(t, dir, ids[0], Claim{Host: thisHost(), PID: deadPID(t), Token: "a", Started: now, Heartbeat: now})
	// Killed while it wrote its claim: the claim's own temporary file,
	// cut short, and no claim.
	if err := os.MkdirAll(tmpRunDir(dir, ids[1]), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmpRunDir(dir, ids[1]), tmpPrefix+ClaimFile+"-123"), []byte(`{"host":"x","pi`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A claim cut short (written by something else than bucma's atomic
	// writes).
	writeTestClaim(t, dir, ids[2], Claim{Host: thisHost(), PID: os.Getpid(), Token: "c", Started: now, Heartbeat: now})
	if err := os.WriteFile(filepath.Join(tmpRunDir(dir, ids[2]), ClaimFile), []byte(`{"host":"`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Directories where claims were being written: by a dead process of
	// this host, its claim written or not (removed), and just made by a
	// live process, of this host or of another (left alone: it may be
	// being written).
	runs := filepath.Join(dir, RunsDir)
	stage := func(cl Claim, write bool) string {
		path := filepath.Join(runs, stageName(&cl))
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if write {
			if err := writeClaim(path, &cl); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	deadStages := []string{
		stage(Claim{Host: thisHost(), PID: deadPID(t), Token: "d", Started: now, Heartbeat: now}, true),
		stage(Claim{Host: thisHost(), PID: deadPID(t), Token: "e"}, false),
	}
	liveStages := []string{
		stage(Claim{Host: thisHost(), PID: os.Getpid(), Token: "f"}, false),
		stage(Claim{Host: "node7", PID: 1, Token: "g"}, false),
	}

	c := newCampaign(plan, dir, newFakeEngine(), 2)
	scan, err := c.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Busy) != 0 || len(scan.Pending) != len(plan.Expand()) {
		t.Errorf("scan: %d busy, %d pending of %d", len(scan.Busy), len(scan.Pending), len(plan.Expand()))
	}
	st, err := ReadStatus(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[string(StateRunning)] != 0 {
		t.Errorf("status: %v", st.Counts)
	}
	eng := newFakeEngine()
	res, err := newCampaign(plan, dir, eng, 2).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != 0 || res.Done != len(plan.Expand()) {
		t.Errorf("result %+v", res)
	}
	for _, id := range ids {
		if eng.calls[id] != 1 || !IsDone(dir, id) {
			t.Errorf("run %s: %d calls, done %v", id, eng.calls[id], IsDone(dir, id))
		}
	}
	for _, path := range deadStages {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a dead execution's claim directory is left: %v", filepath.Base(path), err)
		}
	}
	for _, path := range liveStages {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: a claim directory maybe being written was removed: %v", filepath.Base(path), err)
		}
	}
}

// A claim appears whole: the run's temporary directory is renamed into
// place with the claim in it, and is never seen without it.
func TestClaimPlacedWhole(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	dir, p := preparedCampaign(t, plan)
	c := newCampaign(plan, dir, newFakeEngine(), 1)
	tmp := tmpRunDir(dir, p.Pending[0].ID)
	token, err := c.claim(tmp)
	if err != nil || token == "" {
		t.Fatalf("claim: %q, %v", token, err)
	}
	defer c.forget(token)
	if cl, err := readClaim(tmp); err != nil || cl.Token != token || cl.PID != os.Getpid() {
		t.Errorf("claim %+v, %v", cl, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), claimPrefix) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// Held: another claim of the run is refused, and leaves nothing.
	if again, err := newCampaign(plan, dir, newFakeEngine(), 1).claim(tmp); err != nil || again != "" {
		t.Errorf("second claim: %q, %v", again, err)
	}
	entries, _ = os.ReadDir(filepath.Join(dir, RunsDir))
	if len(entries) != 1 {
		t.Errorf("runs/ holds %d entries", len(entries))
	}
}

// Paths and names written into the batch scripts cannot inject anything:
// a campaign directory or plan name that an #SBATCH line cannot hold
// (newline, blank, quotes, '\\', '#', '%') is refused with a clear error;
// any other, and any bucma executable path, is quoted in the commands.
// Each script written passes bash -n, and running it (bucma being a stub)
// creates no marker file: nothing in a name ran.
func TestSubmissionHostileNames(t *testing.T) {
	plan := testPlan(t, "walltime-trust", 1)
	base, p := preparedCampaign(t, plan)
	work := t.TempDir()
	marker := filepath.Join(work, "owned")
	inject := []string{"$(touch${IFS}" + marker + ")", "`touch${IFS}" + marker + "`", "x;touch${IFS}" + marker, "x&&touch${IFS}" + marker + "&&", "$HOME|x>y<z"}
	refused := []struct{ name, why string }{
		{"a\ntouch " + marker, "a line break"}, {"a\rb", "a line break"}, {"my campaign", "a blank"}, {"a\tb", "a blank"},
		{"it's", `'\''`}, {`say "hi"`, "a blank"}, {`a"b`, `'"'`}, {`a\b`, `'\\'`}, {"a#b", `'#'`}, {"run%j", `'%'`}, {"a\x00b", "the control character U+0000"},
		{"a\u2028b", "a blank"}, {"a\u200bb", "the control character U+200B"},
	}
	for _, r := range refused {
		dir := filepath.Join(base, r.name)
		_, err := NewSubmission(dir, plan, p.Pending, SlurmOptions{}, "/opt/bucma/bin/bucma", nil, []string{"md"})
		if err == nil || !strings.Contains(err.Error(), "the campaign directory") || !strings.Contains(err.Error(), "holds "+r.why) {
			t.Errorf("directory %q: %v, want it refused for %s", r.name, err, r.why)
		}
		named := plan
		named.Name = r.name
		if _, err := NewSubmission(base, named, p.Pending, SlurmOptions{}, "/opt/bucma/bin/bucma", nil, []string{"md"}); err == nil || !strings.Contains(err.Error(), "the plan's name") {
			t.Errorf("plan name %q: %v, want it refused", r.name, err)
		}
	}
	// The rest is quoted: directories with $, backquotes, ; and &, and a
	// bucma executable whose path holds anything (a stub that only writes
	// its arguments).
	for i, name := range inject {
		dir := filepath.Join(base, "c"+name)
		bucma := filepath.Join(work, fmt.Sprintf("bin%d %s", i, strings.ReplaceAll(name, "/", "_")), "bucma")
		if err := os.MkdirAll(filepath.Dir(bucma), 0o755); err != nil {
			t.Fatal(err)
		}
		args := filepath.Join(work, fmt.Sprintf("args%d", i))
		if err := os.WriteFile(bucma, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > '"+args+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		s, err := NewSubmission(dir, plan, p.Pending, SlurmOptions{}, bucma, []string{"--batsim-bin=" + bucma}, []string{"md"})
		if err != nil {
			t.Fatalf("directory %q: %v", name, err)
		}
		for _, script := range []string{s.TaskScript(), s.ReportScript()} {
			path := filepath.Join(work, "script.sh")
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
				t.Fatalf("bash -n: %v\n%s\n%s", err, out, script)
			}
			cmd := exec.Command("sh", path)
			cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("running the script: %v\n%s\n%s", err, out, script)
			}
			got, err := os.ReadFile(args)
			if err != nil || !strings.HasSuffix(string(got), "\n"+dir+"\n") {
				t.Errorf("the script's bucma got %q (%v), want the directory %q last", got, err, dir)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("directory %q: a command of its name ran", name)
		}
	}
}
