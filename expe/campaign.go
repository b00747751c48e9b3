package expe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

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

	tmpPrefix    = ".tmp-"
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
type WorkloadMaker func(recipe WorkloadRecipe, seed uint64, load float64, platform string) ([]byte, error)

// Campaign runs a plan into a directory.
type Campaign struct {
	Plan   Plan
	Dir    string
	Engine Engine
	// Workers is the number of runs in parallel (default runtime.NumCPU()).
	Workers int
	// MakeWorkload builds workloads (default: the workloads package's
	// generators, see GenerateWorkload).
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
	Total   int // runs in the plan
	Skipped int // already done (and verified) before this execution
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
}

// PlanPath and the other helpers give the paths of a campaign directory.
func PlanPath(dir string) string { return filepath.Join(dir, PlanFile) }

// WorkloadPath is the file of workload key in campaign directory dir.
func WorkloadPath(dir, key string) string { return filepath.Join(dir, WorkloadsDir, key+".json") }

// RunDir is the directory of run id in campaign directory dir.
func RunDir(dir, id string) string { return filepath.Join(dir, RunsDir, id) }

// ReadPlan reads the plan stored in a campaign directory.
func ReadPlan(dir string) (Plan, error) {
	data, err := os.ReadFile(PlanPath(dir))
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
// far; executing again resumes.
func (c *Campaign) Execute(ctx context.Context) (Result, error) {
	start := time.Now()
	res := Result{}
	if c.Engine == nil {
		return res, errors.New("campaign: no engine")
	}
	if err := c.Plan.Check(); err != nil {
		return res, err
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return res, err
	}
	for _, d := range []string{dir, filepath.Join(dir, WorkloadsDir), filepath.Join(dir, RunsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return res, err
		}
	}
	if err := c.checkAndWritePlan(dir); err != nil {
		return res, err
	}
	for _, pf := range c.Plan.PlatformFiles() {
		if err := c.writePlatform(pf.Platform, filepath.Join(dir, pf.File)); err != nil {
			return res, err
		}
	}
	if err := c.Plan.checkFiles(); err != nil {
		return res, err
	}
	if err := removeStale(dir); err != nil {
		return res, err
	}

	runs := c.Plan.Expand()
	res.Total = len(runs)
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
	if c.Progress != nil {
		c.Progress(res.Skipped, res.Total)
	}
	if len(pending) == 0 {
		res.Duration = time.Since(start)
		return res, nil
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if err := c.makeWorkloads(ctx, dir, pending, workers); err != nil {
		return res, err
	}

	jobs := make(chan Run)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				f, err := c.runOne(ctx, dir, r)
				mu.Lock()
				switch {
				case err != nil: // cancelled: neither done nor failed
				case f != nil:
					res.Failed = append(res.Failed, *f)
					log.Warn("run failed", "run", r.ID, "err", f.Err, "log", f.LogPath)
				default:
					res.Done++
				}
				if c.Progress != nil && err == nil {
					c.Progress(res.Skipped+res.Done+len(res.Failed), res.Total)
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

// runOne performs one run in a temporary directory renamed to runs/<id> when
// it succeeded (the rename is the completion marker) or runs/<id>.failed.
// The error is non-nil only when ctx was cancelled.
func (c *Campaign) runOne(ctx context.Context, dir string, r Run) (*Failure, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	final := RunDir(dir, r.ID)
	tmp := filepath.Join(dir, RunsDir, tmpPrefix+r.ID)
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return &Failure{Run: r, Err: err}, nil
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
	err := safeRun(rctx, c.Engine, spec)
	if ctx.Err() != nil {
		_ = os.RemoveAll(tmp)
		return nil, ctx.Err()
	}
	if err == nil {
		// The outputs must hold every job; their checksums go to run.json.
		var jobs map[string]JobInfo
		if jobs, err = ReadJobInfo(spec.Workload); err == nil {
			err = recordOutputs(tmp, len(jobs), &info)
		}
	}
	if err != nil && rctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s: %w", c.RunTimeout, err)
	}
	info.WallSeconds = time.Since(t0).Seconds()
	info.Finished = time.Now().UTC().Format(time.RFC3339)
	if err != nil {
		info.Jobs, info.Outputs = 0, nil
	}
	if data, jerr := json.MarshalIndent(info, "", "  "); jerr != nil {
		err = errors.Join(err, jerr)
	} else if werr := WriteFileAtomic(filepath.Join(tmp, RunInfoFile), append(data, '\n')); werr != nil {
		err = errors.Join(err, werr)
	}
	if err != nil {
		failed := final + failedSuffix
		_ = os.RemoveAll(failed)
		f := &Failure{Run: r, Err: err, CommandLine: cmd, Dir: failed, LogPath: filepath.Join(failed, LogFile)}
		if rerr := os.Rename(tmp, failed); rerr != nil {
			f.Dir, f.LogPath = tmp, spec.Log
		}
		return f, nil
	}
	if err := os.Rename(tmp, final); err != nil {
		return &Failure{Run: r, Err: fmt.Errorf("marking the run done: %w", err), CommandLine: cmd, Dir: tmp, LogPath: spec.Log}, nil
	}
	_ = os.RemoveAll(final + failedSuffix)
	return nil, nil
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
		if old.Platform != c.Plan.Platform || !sameJSON(old.Workload, c.Plan.Workload) || !reflect.DeepEqual(old.Variants, c.Plan.Variants) ||
			!sameJSON(old.Cases, c.Plan.Cases) {
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
	return WriteFileAtomic(PlanPath(dir), append(data, '\n'))
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
	return WriteFileAtomic(path, data)
}

// anyRunDone reports whether the campaign in dir has a completed run.
func anyRunDone(dir string) bool {
	entries, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), tmpPrefix) && !strings.HasSuffix(e.Name(), failedSuffix) {
			return true
		}
	}
	return false
}

// makeWorkloads generates the missing workload files of the pending runs,
// in parallel.
func (c *Campaign) makeWorkloads(ctx context.Context, dir string, pending []Run, workers int) error {
	gen := c.MakeWorkload
	if gen == nil {
		gen = GenerateWorkload
	}
	type item struct {
		key, cas string
		seed     uint64
		load     float64
	}
	seen := map[string]bool{}
	var todo []item
	for _, r := range pending {
		if seen[r.Workload] {
			continue
		}
		seen[r.Workload] = true
		if _, err := os.Stat(WorkloadPath(dir, r.Workload)); err == nil {
			continue
		}
		todo = append(todo, item{r.Workload, r.Case, r.Seed, r.Load})
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
			data, err := gen(c.Plan.Recipe(it.cas), it.seed, it.load, filepath.Join(dir, c.Plan.PlatformFileOf(it.cas)))
			if err == nil {
				err = WriteFileAtomic(WorkloadPath(dir, it.key), data)
			}
			switch {
			case err == nil:
			case it.cas != "":
				errs[i] = fmt.Errorf("workload %s (case %s, seed %d): %w", it.key, it.cas, it.seed, err)
			default:
				errs[i] = fmt.Errorf("workload %s (seed %d, load %s): %w", it.key, it.seed, FormatLoad(it.load), err)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// removeStale deletes the temporary directories and files of an
// interrupted execution.
func removeStale(dir string) error {
	for _, sub := range []string{RunsDir, WorkloadsDir} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), tmpPrefix) {
				if err := os.RemoveAll(filepath.Join(dir, sub, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// WriteFileAtomic writes data to a temporary file next to path and renames
// it over path, so readers see the old content or the new one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
