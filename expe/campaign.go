package expe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/atomicfile"
	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

// Files and folders of a campaign directory.
const (
	PlanFile     = "plan.json"
	PlatformFile = "platform.xml"
	WorkloadsDir = "workloads"
	RunsDir      = "runs"
	// Inside a run directory:
	OutPrefix   = "out" // out_jobs.csv, out_schedule.csv
	JobsFile    = "out_jobs.csv"
	TraceFile   = "trace.csv"
	LogFile     = "run.log"
	CmdFile     = "cmd.txt"
	RunInfoFile = "run.json"

	tmpPrefix    = atomicfile.TempPrefix
	failedSuffix = ".failed"
)

// RunSpec is what an engine needs to perform one run. Every path is
// absolute, except in the spec given to Engine.CommandLine (see there).
type RunSpec struct {
	Run      Run
	Campaign string // the campaign directory ("" in the spec given to Engine.CommandLine)
	Platform string // platform file
	Workload string // workload file
	Dir      string // the run's output directory (exists, empty)
	Prefix   string // export prefix: Dir/out (Batsim writes Prefix + "_jobs.csv")
	Trace    string // decision trace file to write (Dir/trace.csv)
	Log      string // log file (Dir/run.log)
}

// Engine performs runs.
type Engine interface {
	// Name is "embedded", "batsim", ...
	Name() string
	// CommandLine is the command line (or lines) equivalent to the run, as
	// a user would type it from the campaign directory to replay it: the
	// paths of spec are the run's final ones, relative to the campaign
	// directory (platform.xml, workloads/<key>.json, runs/<id>/out, ...).
	// It is recorded in the run's cmd.txt and run.json; failures are
	// reported with it.
	CommandLine(spec RunSpec) string
	// Run performs one run; it must write spec.Prefix+"_jobs.csv" and stop
	// early when ctx is cancelled.
	Run(ctx context.Context, spec RunSpec) error
}

// WorkloadMaker builds the workload file of one (seed, load) pair; it must
// be deterministic. platform is the platform file path. For a plan with
// workload cases, recipe is the case's (Plan.Recipe) and load is 0.
type WorkloadMaker func(recipe gen.Recipe, seed uint64, load float64, platform string) ([]byte, error)

// Campaign runs a plan into a directory.
type Campaign struct {
	Plan   Plan
	Dir    string
	Engine Engine
	// Workers is the number of runs in parallel (default runtime.NumCPU()).
	Workers int
	// MakeWorkload builds workloads (default: the workloads package's
	// generators, see gen.Generate).
	MakeWorkload WorkloadMaker
	// PlatformXML returns the content of the plan's platform (default:
	// the bundled platform of that name, else the file at that path).
	PlatformXML func(name string) ([]byte, error)
	// RunTimeout bounds each run (0: no limit).
	RunTimeout time.Duration
	// Progress is called once before the first run (done = runs already
	// complete) and after every run.
	Progress func(done, total int)
	Log      *slog.Logger

	// Job names the batch job this execution belongs to (a Slurm array
	// task: "123_4"), recorded in its claims; "" outside a batch system.
	Job string
	// Heartbeat is how often the claims of the runs in progress are
	// renewed (default ClaimHeartbeat); StaleAfter, how long a claim may go
	// unrenewed before another execution takes the run over (default
	// ClaimStale).
	Heartbeat, StaleAfter time.Duration
	// ClaimAlive, when set, tells whether the execution holding a claim
	// made on another host still runs (a batch system knows whether its
	// job does); known false leaves it to the claim's heartbeat.
	ClaimAlive func(Claim) (alive, known bool)
	// Inputs, when set, are the checksums of the platform and workload
	// files the campaign directory was prepared with (Prepare, InputDigests):
	// ExecuteRuns checks the inputs of its runs against them first.
	Inputs []OutputDigest

	mu     sync.Mutex
	active map[string]*Claim // claims held, by run's temporary directory
}

// Failure is a run that failed.
type Failure struct {
	Run         Run
	Err         error
	CommandLine string
	Dir         string // where its files were kept (runs/<id>.failed)
	LogPath     string
}

// String gives the failure on one line.
func (f Failure) String() string {
	return fmt.Sprintf("run %s failed: %v\n  command: %s\n  log: %s", f.Run.ID, f.Err, f.CommandLine, f.LogPath)
}

// Result sums up a campaign execution.
type Result struct {
	Total   int // runs in the plan (ExecuteRuns: runs asked for)
	Skipped int // already done (and verified) before this execution
	// Busy counts the runs another execution was running (a live claim,
	// see Claim): they were left to it.
	Busy int
	// Redone counts the runs found done whose outputs failed verification
	// (see VerifyRun): they were run again, and count in Done or Failed.
	Redone   int
	Done     int // completed by this execution
	Failed   []Failure
	Duration time.Duration
}

// RunInfo is the run.json file of a run directory, written last (and
// atomically) when the run ends.
type RunInfo struct {
	Run  Run    `json:"run"`
	Plan string `json:"plan"`
	// Engine and CommandLine: the command line replays the run from the
	// campaign directory (it is also in cmd.txt).
	Engine      string  `json:"engine"`
	CommandLine string  `json:"command_line"`
	WallSeconds float64 `json:"wall_seconds"`
	Finished    string  `json:"finished"` // RFC 3339
	// Jobs is the number of rows of out_jobs.csv, one per job of the
	// workload plus one per resubmitted piece of a preempted job; Outputs
	// the checksums of the outputs (out_jobs.csv first).
	// Both are set for completed runs only, and checked by VerifyRun.
	Jobs    int            `json:"jobs,omitempty"`
	Outputs []OutputDigest `json:"outputs,omitempty"`
	// Error is why a failed run failed (runs/<id>.failed/run.json).
	Error string `json:"error,omitempty"`
}

// PlanPath and the other helpers give the paths of a campaign directory.
func PlanPath(dir string) string { return filepath.Join(dir, PlanFile) }

// WorkloadPath is the file of workload key in campaign directory dir.
func WorkloadPath(dir, key string) string { return filepath.Join(dir, WorkloadsDir, key+".json") }

// RunDir is the directory of run id in campaign directory dir.
func RunDir(dir, id string) string { return filepath.Join(dir, RunsDir, id) }

// MaxPlanJSONBytes bounds the plan.json a campaign directory holds (a
// plan of MaxRuns cases writes about 20 MB).
const MaxPlanJSONBytes = 64 << 20

// ReadPlan reads the plan stored in a campaign directory.
func ReadPlan(dir string) (Plan, error) {
	data, err := readBounded(PlanPath(dir), PlanFile, MaxPlanJSONBytes)
	if err != nil {
		return Plan{}, fmt.Errorf("%s is not a campaign directory: %w", dir, err)
	}
	p, err := ParsePlan(data)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", PlanPath(dir), err)
	}
	return p, nil
}

// IsDone reports whether a run of the campaign in dir completed (its
// directory exists; VerifyRun checks its outputs).
func IsDone(dir, id string) bool {
	st, err := os.Stat(RunDir(dir, id))
	return err == nil && st.IsDir()
}

// Execute runs every run of the plan that is not done yet. Runs are
// independent: a failed run is reported in the result and does not stop the
// others. When ctx is cancelled, runs in progress are abandoned (their
// partial files removed) and Execute returns ctx's error with the result so
// far; executing again resumes. Runs another execution holds (a live Claim:
// another "bucma expe run" on the same directory, a Slurm task) are left
// to it and counted in Result.Busy.
func (c *Campaign) Execute(ctx context.Context) (Result, error) {
	start := time.Now()
	p, err := c.Prepare(ctx)
	res := p.Result
	if err != nil {
		res.Duration = time.Since(start)
		return res, err
	}
	return c.runAll(ctx, p.Dir, p.Pending, res, start)
}

// Prepared is a campaign directory ready for its runs.
type Prepared struct {
	Dir string // absolute
	// Pending are the runs to do: neither done (and verified) nor held by
	// another execution; their workload files are written.
	Pending []Run
	// Result counts the plan's runs (Total), those done (Skipped), redone
	// (Redone: done, but their outputs failed verification and were
	// removed) and held by another execution (Busy).
	Result Result
}

// Prepare makes the campaign directory ready for the runs not done yet,
// without running them: it writes the plan, the platforms and the workloads
// of the pending runs, removes what interrupted executions left (their
// claims dead, see Claim) and the completed runs whose outputs fail
// verification (VerifyRun). Execute is Prepare followed by the runs;
// ExecuteRuns performs runs of a directory Prepare made, elsewhere (a Slurm
// array task).
func (c *Campaign) Prepare(ctx context.Context) (Prepared, error) {
	var p Prepared
	if c.Engine == nil {
		return p, errors.New("campaign: no engine")
	}
	if err := c.Plan.Check(); err != nil {
		return p, err
	}
	log := c.logger()
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return p, err
	}
	p.Dir = dir
	for _, d := range []string{dir, filepath.Join(dir, WorkloadsDir), filepath.Join(dir, RunsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return p, err
		}
	}
	if err := c.checkAndWritePlan(dir); err != nil {
		return p, err
	}
	for _, pf := range c.Plan.PlatformFiles() {
		if err := c.writePlatform(pf.Platform, filepath.Join(dir, pf.File)); err != nil {
			return p, err
		}
	}
	if err := c.Plan.checkFiles(); err != nil {
		return p, err
	}
	if err := c.removeStale(dir); err != nil {
		return p, err
	}
	scan, err := c.Scan(dir)
	if err != nil {
		return p, err
	}
	p.Result = Result{Total: scan.Total, Skipped: len(scan.Done), Busy: len(scan.Busy)}
	for _, r := range scan.Redo {
		log.Warn("redoing a completed run whose outputs fail verification", "run", r.Run.ID, "reason", r.Err)
		if err := os.RemoveAll(RunDir(dir, r.Run.ID)); err != nil {
			return p, err
		}
		p.Result.Redone++
	}
	p.Pending = scan.Pending
	if len(p.Pending) == 0 {
		return p, nil
	}
	return p, c.makeWorkloads(ctx, dir, p.Pending, c.workers())
}

// Scan is what a campaign directory holds of a plan's runs, read without
// changing anything.
type Scan struct {
	Total int
	Done  []Run // completed, outputs verified
	// Redo are completed runs whose outputs fail verification (to run
	// again), with the reason.
	Redo []struct {
		Run Run
		Err error
	}
	Busy    []Run // held by another execution (a live claim)
	Pending []Run // to run: not done, not held, and the runs of Redo
}

// Scan reads what the campaign directory dir (absolute) holds of the plan's
// runs: done (verified, VerifyRun), to redo, held by another execution, to
// run. It writes nothing (bucma expe submit --dry-run reads it so).
func (c *Campaign) Scan(dir string) (Scan, error) {
	runs := c.Plan.Expand()
	s := Scan{Total: len(runs)}
	for _, r := range runs {
		if IsDone(dir, r.ID) {
			if err := VerifyRun(dir, r.ID); err != nil {
				s.Redo = append(s.Redo, struct {
					Run Run
					Err error
				}{r, err})
				s.Pending = append(s.Pending, r)
				continue
			}
			s.Done = append(s.Done, r)
			continue
		}
		if st := c.claimOf(tmpRunDir(dir, r.ID)); st.exists && st.live {
			s.Busy = append(s.Busy, r)
			continue
		}
		s.Pending = append(s.Pending, r)
	}
	return s, nil
}

// ExecuteRuns performs the runs named by ids in the campaign directory
// c.Dir, which Prepare made (here or on another machine sharing the
// directory): it writes neither the plan, nor platforms, nor workloads,
// but checks the inputs of its runs against c.Inputs when set. Each run is
// claimed (Claim) before it starts, so that executions sharing the
// directory (the tasks of a Slurm array, a resubmission) never run one run
// twice at once: a run done already is skipped (after verification; one
// that fails it is redone), one held by a live execution is left to it
// (Result.Busy), one whose holder died is taken over. Cancelling ctx
// abandons the runs in progress as Execute does; completed runs are kept.
func (c *Campaign) ExecuteRuns(ctx context.Context, ids []string) (Result, error) {
	start := time.Now()
	res := Result{Total: len(ids)}
	if c.Engine == nil {
		return res, errors.New("campaign: no engine")
	}
	if err := c.Plan.Check(); err != nil {
		return res, err
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return res, err
	}
	if _, err := os.Stat(PlanPath(dir)); err != nil {
		return res, fmt.Errorf("%s is not a prepared campaign directory (%w): is it on a filesystem this machine shares with the one that prepared it?", dir, withoutPath(err))
	}
	byID := map[string]Run{}
	for _, r := range c.Plan.Expand() {
		byID[r.ID] = r
	}
	var runs []Run
	for _, id := range ids {
		r, ok := byID[id]
		if !ok {
			return res, fmt.Errorf("%s: plan %s has no run %q", dir, c.Plan.Name, id)
		}
		runs = append(runs, r)
	}
	if c.Inputs != nil {
		if err := c.checkInputs(dir, runs); err != nil {
			return res, err
		}
	}
	log := c.logger()
	var pending []Run
	for _, r := range runs {
		if !IsDone(dir, r.ID) {
			pending = append(pending, r)
			continue
		}
		if err := VerifyRun(dir, r.ID); err != nil {
			log.Warn("redoing a completed run whose outputs fail verification", "run", r.ID, "reason", err)
			if err := os.RemoveAll(RunDir(dir, r.ID)); err != nil {
				return res, err
			}
			res.Redone++
			pending = append(pending, r)
			continue
		}
		res.Skipped++
	}
	return c.runAll(ctx, dir, pending, res, start)
}

// checkInputs checks the platform and workload files of runs against
// c.Inputs.
func (c *Campaign) checkInputs(dir string, runs []Run) error {
	want := map[string]OutputDigest{}
	for _, d := range c.Inputs {
		want[d.File] = d
	}
	seen := map[string]bool{}
	for _, r := range runs {
		for _, f := range []string{c.Plan.PlatformFileOf(r.Case), filepath.Join(WorkloadsDir, r.Workload+".json")} {
			if seen[f] {
				continue
			}
			seen[f] = true
			w, ok := want[f]
			if !ok {
				return fmt.Errorf("%s: no checksum of input %s was recorded when the directory was prepared", dir, f)
			}
			got, err := fileDigest(filepath.Join(dir, f), nil)
			if err != nil {
				return fmt.Errorf("%s: input %s: %w (is the campaign directory on a filesystem this machine shares with the one that prepared it?)", dir, f, withoutPath(err))
			}
			if got.Bytes != w.Bytes || got.SHA256 != w.SHA256 {
				return fmt.Errorf("%s: input %s is not the file the directory was prepared with (%d bytes, SHA-256 %s; prepared: %d bytes, %s)",
					dir, f, got.Bytes, got.SHA256, w.Bytes, w.SHA256)
			}
		}
	}
	return nil
}

// InputDigests returns the checksums of the platform and workload files the
// runs read in the campaign directory dir (File: the path relative to dir),
// sorted by file; ExecuteRuns checks them (Campaign.Inputs).
func InputDigests(dir string, p Plan, runs []Run) ([]OutputDigest, error) {
	files := map[string]bool{}
	for _, r := range runs {
		files[p.PlatformFileOf(r.Case)] = true
		files[filepath.Join(WorkloadsDir, r.Workload+".json")] = true
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	out := make([]OutputDigest, 0, len(names))
	for _, f := range names {
		d, err := fileDigest(filepath.Join(dir, f), nil)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", f, err)
		}
		d.File = f
		out = append(out, d)
	}
	return out, nil
}

func (c *Campaign) logger() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.NewTextHandler(discard{}, nil))
	}
	return c.Log
}

func (c *Campaign) workers() int {
	if c.Workers <= 0 {
		return runtime.NumCPU()
	}
	return c.Workers
}

// outcome is what became of a run an execution took up.
type outcome int

const (
	runDone      outcome = iota
	runFailed            // see the Failure
	runBusy              // held by another execution
	runDoneElse          // completed by another execution meanwhile
	runCancelled         // ctx was cancelled: neither done nor failed
)

// runAll performs the pending runs with the campaign's workers, adding to
// res, while renewing the claims of the runs in progress.
func (c *Campaign) runAll(ctx context.Context, dir string, pending []Run, res Result, start time.Time) (Result, error) {
	log := c.logger()
	if c.Progress != nil {
		c.Progress(res.Skipped, res.Total)
	}
	if len(pending) == 0 {
		res.Duration = time.Since(start)
		return res, nil
	}
	stopBeat := c.startHeartbeat()
	defer stopBeat()
	workers := c.workers()
	jobs := make(chan Run)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				o, f := c.runOne(ctx, dir, r)
				mu.Lock()
				switch o {
				case runFailed:
					res.Failed = append(res.Failed, *f)
					log.Warn("run failed", "run", r.ID, "err", f.Err, "log", f.LogPath)
				case runDone:
					res.Done++
				case runBusy:
					res.Busy++
				case runDoneElse:
					res.Skipped++
				}
				if c.Progress != nil && o != runCancelled {
					c.Progress(res.Skipped+res.Done+len(res.Failed)+res.Busy, res.Total)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, r := range pending {
		select {
		case jobs <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	res.Duration = time.Since(start)
	return res, ctx.Err()
}

// runOne performs one run in a temporary directory, claimed for it (see
// Claim), renamed to runs/<id> when it succeeded (the rename is the
// completion marker) or runs/<id>.failed.
func (c *Campaign) runOne(ctx context.Context, dir string, r Run) (outcome, *Failure) {
	if ctx.Err() != nil {
		return runCancelled, nil
	}
	final := RunDir(dir, r.ID)
	tmp := tmpRunDir(dir, r.ID)
	token, err := c.claim(tmp)
	if err != nil {
		return runFailed, &Failure{Run: r, Err: fmt.Errorf("claiming the run: %w", err), Dir: tmp}
	}
	if token == "" {
		return runBusy, nil
	}
	// From here the run is this execution's: release drops the claim
	// (the heartbeat stops renewing it) and says whether it was still
	// ours.
	release := func() bool { return c.release(tmp, token) }
	// The claim reads as live to this process's other executions until
	// the run's directory is renamed or removed: dropped on return, not at
	// release (between the two, another execution would judge the claim
	// dead, remove the directory and run the run again).
	defer c.forget(token)
	if IsDone(dir, r.ID) { // completed elsewhere since the scan
		release()
		_ = os.RemoveAll(tmp)
		return runDoneElse, nil
	}
	spec := RunSpec{
		Run: r, Campaign: dir, Platform: filepath.Join(dir, c.Plan.PlatformFileOf(r.Case)), Workload: WorkloadPath(dir, r.Workload), Dir: tmp,
		Prefix: filepath.Join(tmp, OutPrefix), Trace: filepath.Join(tmp, TraceFile), Log: filepath.Join(tmp, LogFile),
	}
	cmd := c.Engine.CommandLine(replaySpec(r, c.Plan.PlatformFileOf(r.Case)))
	info := RunInfo{Run: r, Plan: c.Plan.Name, Engine: c.Engine.Name(), CommandLine: cmd}
	_ = os.WriteFile(filepath.Join(tmp, CmdFile), []byte(cmd+"\n"), 0o644)

	rctx := ctx
	if c.RunTimeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, c.RunTimeout)
		defer cancel()
	}
	t0 := time.Now()
	err = safeRun(rctx, c.Engine, spec)
	if ctx.Err() != nil {
		if release() {
			_ = os.RemoveAll(tmp)
		}
		return runCancelled, nil
	}
	if err == nil {
		// The outputs must hold every job; their checksums go to run.json.
		var jobs map[string]analysis.JobInfo
		if jobs, err = analysis.ReadJobInfo(spec.Workload); err == nil {
			err = recordOutputs(tmp, len(jobs), &info)
		}
	}
	if err != nil && rctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s: %w", c.RunTimeout, err)
	}
	info.WallSeconds = time.Since(t0).Seconds()
	info.Finished = time.Now().UTC().Format(time.RFC3339)
	if err != nil {
		info.Jobs, info.Outputs, info.Error = 0, nil, err.Error()
	}
	if data, jerr := json.MarshalIndent(info, "", "  "); jerr != nil {
		err = errors.Join(err, jerr)
	} else if werr := atomicfile.Write(filepath.Join(tmp, RunInfoFile), append(data, '\n')); werr != nil {
		err = errors.Join(err, werr)
	}
	if !release() {
		// Another execution judged this one dead and took the run over
		// (this one was stopped longer than StaleAfter): its result is the
		// one kept.
		c.logger().Warn("run taken over by another execution while it ran: this result is dropped", "run", r.ID)
		return runBusy, nil
	}
	// The directory is renamed with its claim, removed afterwards: a
	// temporary directory without a claim is dead (see the comment on
	// claims).
	if err != nil {
		failed := final + failedSuffix
		_ = os.RemoveAll(failed)
		f := &Failure{Run: r, Err: err, CommandLine: cmd, Dir: failed, LogPath: filepath.Join(failed, LogFile)}
		if rerr := os.Rename(tmp, failed); rerr != nil {
			f.Dir, f.LogPath = tmp, spec.Log
		}
		_ = os.Remove(filepath.Join(f.Dir, ClaimFile))
		return runFailed, f
	}
	if err := os.Rename(tmp, final); err != nil {
		return runFailed, &Failure{Run: r, Err: fmt.Errorf("marking the run done: %w", err), CommandLine: cmd, Dir: tmp, LogPath: spec.Log}
	}
	_ = os.Remove(filepath.Join(final, ClaimFile))
	_ = os.RemoveAll(final + failedSuffix)
	return runDone, nil
}

// replaySpec is the spec of run r with its final paths, relative to the
// campaign directory (platform: the run's platform file there): what
// Engine.CommandLine records.
func replaySpec(r Run, platform string) RunSpec {
	dir := filepath.Join(RunsDir, r.ID)
	return RunSpec{
		Run: r, Platform: platform, Workload: filepath.Join(WorkloadsDir, r.Workload+".json"), Dir: dir,
		Prefix: filepath.Join(dir, OutPrefix), Trace: filepath.Join(dir, TraceFile), Log: filepath.Join(dir, LogFile),
	}
}

// safeRun turns an engine panic into an error so one bad run cannot bring
// the campaign down.
func safeRun(ctx context.Context, e Engine, spec RunSpec) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("engine panic: %v", p)
		}
	}()
	return e.Run(ctx, spec)
}

// checkAndWritePlan refuses a directory holding a different experiment (other
// platform, workload recipe or variants); seeds and loads may change.
func (c *Campaign) checkAndWritePlan(dir string) error {
	if old, err := ReadPlan(dir); err == nil {
		if !samePlatform(old.Platform, c.Plan.Platform) || !sameJSON(old.Workload, c.Plan.Workload) || !reflect.DeepEqual(old.Variants, c.Plan.Variants) ||
			!sameJSON(old.Cases, c.Plan.Cases) || !sameJSON(old.Shake, c.Plan.Shake) {
			return fmt.Errorf("%s holds another experiment (plan %s, platform %s, %d jobs, %d variants): use another --out directory or the same plan and --jobs/--quick",
				dir, old.Name, old.Platform, old.Workload.Jobs, len(old.Variants))
		}
	} else if _, statErr := os.Stat(PlanPath(dir)); statErr == nil {
		return err
	}
	data, err := json.MarshalIndent(c.Plan, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(PlanPath(dir), append(data, '\n'))
}

// sameJSON compares two values by their JSON form.
func sameJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

func (c *Campaign) writePlatform(name, path string) error {
	get := c.PlatformXML
	if get == nil {
		get = PlatformXML
	}
	data, err := get(name)
	if err != nil {
		return fmt.Errorf("platform %s: %w", name, err)
	}
	if old, err := os.ReadFile(path); err == nil {
		if string(old) == string(data) {
			return nil
		}
		if anyRunDone(filepath.Dir(path)) {
			return fmt.Errorf("platform %s changed since the campaign began (%s holds the one its runs ran on): use another --out directory", name, path)
		}
	}
	return atomicfile.Write(path, data)
}

// anyRunDone reports whether the campaign in dir has a completed run.
func anyRunDone(dir string) bool {
	entries, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasSuffix(e.Name(), failedSuffix) {
			return true
		}
	}
	return false
}

// makeWorkloads generates the missing workload files of the pending runs,
// in parallel: each workload once, then, for a plan that shakes its
// workloads, its missing shaken copies (the workload itself is not kept).
func (c *Campaign) makeWorkloads(ctx context.Context, dir string, pending []Run, workers int) error {
	maker := c.MakeWorkload
	if maker == nil {
		maker = gen.Generate
	}
	// One item per workload to make, with the files made from it.
	type item struct {
		base, cas string
		seed      uint64
		load      float64
		keys      []string
		copies    []int // of each key (0: the workload itself)
	}
	seen := map[string]bool{}
	at := map[string]int{}
	var todo []item
	for _, r := range pending {
		if seen[r.Workload] {
			continue
		}
		seen[r.Workload] = true
		if _, err := os.Stat(WorkloadPath(dir, r.Workload)); err == nil {
			continue
		}
		base := c.Plan.KeyOf(r.Case, r.Seed, r.Load)
		i, ok := at[base]
		if !ok {
			i = len(todo)
			at[base] = i
			todo = append(todo, item{base: base, cas: r.Case, seed: r.Seed, load: r.Load})
		}
		todo[i].keys = append(todo[i].keys, r.Workload)
		todo[i].copies = append(todo[i].copies, r.Copy)
	}
	errs := make([]error, len(todo))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, it := range todo {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			key := it.base
			data, err := maker(c.Plan.Recipe(it.cas), it.seed, it.load, filepath.Join(dir, c.Plan.PlatformFileOf(it.cas)))
			for k := 0; err == nil && k < len(it.keys); k++ {
				key = it.keys[k]
				out := data
				if it.copies[k] > 0 {
					out, err = ShakeWorkload(data, *c.Plan.Shake, it.seed, it.copies[k])
				}
				if err == nil {
					err = atomicfile.Write(WorkloadPath(dir, key), out)
				}
			}
			switch {
			case err == nil:
			case it.cas != "":
				errs[i] = fmt.Errorf("workload %s (case %s, seed %d): %w", key, it.cas, it.seed, err)
			default:
				errs[i] = fmt.Errorf("workload %s (seed %d, load %s): %w", key, it.seed, FormatLoad(it.load), err)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// Claims. A run in progress is the directory runs/.tmp-<id>, holding the
// Claim of the execution that runs it, which renews it every Heartbeat.
// The directory appears with its claim in it: the execution makes a
// directory of its own (runs/.claim-<token>.<pid>.<host>), writes its
// claim there and renames it to runs/.tmp-<id>, which fails when another
// execution holds the run. Another execution sharing the campaign directory (a
// second "bucma expe run", the tasks of a Slurm array, a resubmission,
// "bucma expe status") reads the claim to tell a run in progress from the
// remains of a dead execution: the claim is dead when it was not renewed
// for StaleAfter, when its process is gone from this host, when
// Campaign.ClaimAlive says its job ended, or when it cannot be read (a
// directory left by an execution killed as it claimed the run, by an older
// bucma); a dead claim's directory is removed and the run taken over.

// ClaimFile is the claim's file in a run's temporary directory; it is
// removed once the directory is renamed into place.
const ClaimFile = ".claim"

// claimPrefix begins the name of the directory in which an execution
// writes its claim before renaming it to the run's temporary directory.
const claimPrefix = ".claim-"

// Default timings of claims: a claim is renewed every ClaimHeartbeat and
// dead once not renewed for ClaimStale (which leaves room for the
// attribute caches of network filesystems and for clocks a little apart).
const (
	ClaimHeartbeat = 20 * time.Second
	ClaimStale     = 3 * time.Minute
)

// Claim names the execution running a run.
type Claim struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Job is the batch job of the execution (Campaign.Job), if any.
	Job       string    `json:"job,omitempty"`
	Token     string    `json:"token"` // tells this claim from a later one on the same run
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"` // last renewed
}

// claimState is what a run's temporary directory says.
type claimState struct {
	exists bool   // the directory exists
	claim  *Claim // nil: no readable claim file (being set up, or left by an older bucma)
	live   bool
	since  time.Time // the claim's heartbeat, else the directory's modification time
}

var (
	hostOnce sync.Once
	hostName string

	// held are the tokens of the claims this process holds, whichever
	// Campaign value made them.
	heldMu sync.Mutex
	held   = map[string]bool{}
)

// thisHost is the machine's host name ("" when unknown).
func thisHost() string {
	hostOnce.Do(func() { hostName, _ = os.Hostname() })
	return hostName
}

func tmpRunDir(dir, id string) string { return filepath.Join(dir, RunsDir, tmpPrefix+id) }

func (c *Campaign) staleAfter() time.Duration {
	if c.StaleAfter > 0 {
		return c.StaleAfter
	}
	return ClaimStale
}

// claimOf reads the claim of the temporary directory tmp and judges it.
func (c *Campaign) claimOf(tmp string) claimState {
	st, err := os.Stat(tmp)
	if err != nil {
		return claimState{}
	}
	s := claimState{exists: true, since: st.ModTime()}
	if cl, err := readClaim(tmp); err == nil {
		s.claim, s.since = &cl, cl.Heartbeat
	}
	s.live = c.claimLive(s, time.Now())
	return s
}

// claimLive is the rule of the package comment on claims.
func (c *Campaign) claimLive(s claimState, now time.Time) bool {
	if now.Sub(s.since) > c.staleAfter() {
		return false
	}
	cl := s.claim
	if cl == nil {
		return false // no execution made it: see the comment on claims
	}
	if cl.Host != "" && cl.Host == thisHost() {
		if cl.PID == os.Getpid() {
			// This process: live while one of its executions holds it.
			heldMu.Lock()
			defer heldMu.Unlock()
			return held[cl.Token]
		}
		return pidAlive(cl.PID)
	}
	if c.ClaimAlive != nil {
		if alive, known := c.ClaimAlive(*cl); known {
			return alive
		}
	}
	return true
}

// pidAlive reports whether a process of this host has that id.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

func readClaim(tmp string) (Claim, error) {
	var cl Claim
	data, err := os.ReadFile(filepath.Join(tmp, ClaimFile))
	if err != nil {
		return cl, err
	}
	return cl, json.Unmarshal(data, &cl)
}

func writeClaim(tmp string, cl *Claim) error {
	data, err := json.Marshal(cl)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(tmp, ClaimFile), append(data, '\n'))
}

func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// claim makes the temporary directory tmp of a run and claims it: it
// returns the claim's token, or "" when a live execution holds the run. A
// dead claim's directory is removed first.
func (c *Campaign) claim(tmp string) (string, error) {
	for attempt := 0; attempt < 3; attempt++ {
		now := time.Now().UTC()
		cl := &Claim{Host: thisHost(), PID: os.Getpid(), Job: c.Job, Token: newToken(), Started: now, Heartbeat: now}
		// Held before the directory is renamed into place: once there,
		// another execution of this process judges the claim by held (a
		// claim of this process not held is dead, and its directory
		// removed).
		heldMu.Lock()
		held[cl.Token] = true
		heldMu.Unlock()
		err := placeClaim(tmp, cl)
		if err == nil {
			c.mu.Lock()
			if c.active == nil {
				c.active = map[string]*Claim{}
			}
			c.active[tmp] = cl
			c.mu.Unlock()
			return cl.Token, nil
		}
		c.forget(cl.Token)
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		st := c.claimOf(tmp)
		if st.exists && st.live {
			return "", nil
		}
		if st.exists {
			if err := removeDead(tmp, st); err != nil {
				return "", err
			}
		}
	}
	return "", nil
}

// placeClaim makes tmp, the temporary directory of a run, with the claim
// cl in it: written in a directory of its own, renamed to tmp. The error
// is fs.ErrExist when tmp exists (another execution's claim, live or not).
func placeClaim(tmp string, cl *Claim) error {
	stage := filepath.Join(filepath.Dir(tmp), stageName(cl))
	if err := os.Mkdir(stage, 0o755); err != nil {
		return err
	}
	err := writeClaim(stage, cl)
	if err == nil {
		if err = os.Rename(stage, tmp); errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			err = fs.ErrExist
		}
	}
	if err != nil {
		_ = os.RemoveAll(stage)
	}
	return err
}

// removeDead removes the directory tmp of a dead claim st: it is first
// renamed aside, so that of several executions taking over the run one
// only removes it, and put back if what was renamed is a newer, live claim.
func removeDead(tmp string, st claimState) error {
	aside := tmp + ".dead-" + newToken()
	if err := os.Rename(tmp, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // another execution removed it
		}
		return err
	}
	want := ""
	if st.claim != nil {
		want = st.claim.Token
	}
	got := ""
	if cl, err := readClaim(aside); err == nil {
		got = cl.Token
	}
	if got != want {
		// A claim made after ours was read: its execution gets it back.
		if err := os.Rename(aside, tmp); err == nil {
			return nil
		}
	}
	return os.RemoveAll(aside)
}

// release stops renewing the claim of tmp (the heartbeat no longer
// writes it) and reports whether the claim file still holds it: false when
// another execution took the run over. The claim stays this process's
// (held) until forget.
func (c *Campaign) release(tmp, token string) bool {
	c.mu.Lock()
	delete(c.active, tmp)
	c.mu.Unlock()
	cl, err := readClaim(tmp)
	return err == nil && cl.Token == token
}

// forget drops a claim of this process from those it holds: once its run's
// directory has been renamed or removed.
func (c *Campaign) forget(token string) {
	heldMu.Lock()
	delete(held, token)
	heldMu.Unlock()
}

// startHeartbeat renews the claims held every Heartbeat until the returned
// function is called.
func (c *Campaign) startHeartbeat() (stop func()) {
	every := c.Heartbeat
	if every <= 0 {
		every = ClaimHeartbeat
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			c.mu.Lock()
			now := time.Now().UTC()
			for tmp, cl := range c.active {
				cl.Heartbeat = now
				_ = writeClaim(tmp, cl)
			}
			c.mu.Unlock()
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// removeStale deletes what dead executions left: the temporary directories
// of runs whose claims are dead, and temporary workload files older than
// StaleAfter.
func (c *Campaign) removeStale(dir string) error {
	entries, err := os.ReadDir(filepath.Join(dir, RunsDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, RunsDir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), claimPrefix):
			if err := c.removeDeadStage(path); err != nil {
				return err
			}
			continue
		case !strings.HasPrefix(e.Name(), "."):
			// A run's directory: the claim a run renamed into place
			// keeps until it is removed, when the execution was
			// stopped between the two.
			if err := os.Remove(filepath.Join(path, ClaimFile)); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return err
			}
			continue
		case !strings.HasPrefix(e.Name(), tmpPrefix):
			continue
		}
		if !e.IsDir() {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if st := c.claimOf(path); st.exists && !st.live {
			if err := removeDead(path, st); err != nil {
				return err
			}
		}
	}
	entries, err = os.ReadDir(filepath.Join(dir, WorkloadsDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > c.staleAfter() {
			if err := os.RemoveAll(filepath.Join(dir, WorkloadsDir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// stageName is the name of the directory in which the claim cl is written
// before it is renamed to a run's temporary directory: it names the
// process, which may be killed before the claim is written.
func stageName(cl *Claim) string {
	return claimPrefix + cl.Token + "." + strconv.Itoa(cl.PID) + "." + strings.ReplaceAll(cl.Host, "/", "-")
}

// removeDeadStage removes path, the directory in which an execution wrote
// its claim before renaming it to a run's temporary directory, when that
// execution is dead: its claim dead, or, the claim not written, its
// process (named by the directory) gone from this host, or the directory
// older than StaleAfter.
func (c *Campaign) removeDeadStage(path string) error {
	st := c.claimOf(path)
	if !st.exists {
		return nil
	}
	if st.claim == nil {
		st.live = time.Since(st.since) <= c.staleAfter()
		_, rest, _ := strings.Cut(strings.TrimPrefix(filepath.Base(path), claimPrefix), ".")
		pid, host, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(pid); err == nil && host != "" && host == strings.ReplaceAll(thisHost(), "/", "-") && n != os.Getpid() {
			st.live = st.live && pidAlive(n)
		}
	}
	if st.live {
		return nil
	}
	if err := os.RemoveAll(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
