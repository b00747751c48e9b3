package testkit

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// EngineRun is a simulation through the embedded engine, which plays
// Batsim 4.2.1's role exactly (same events, same rules, same output
// files).
type EngineRun struct {
	Platform  *platforms.Platform
	Workloads []*workloads.Workload
	// Spec is the policy, with its Options and Batsim's SchedConfig
	// string. The engine gets the features the spec asks for (dynamic
	// jobs, compute sharing, energy) as every run does (run.Needs).
	Spec        *sched.Spec
	Options     sched.Options
	SchedConfig string
	Observers   []sched.Observer
	// NoAudit leaves the Session's whole-state audit after every message
	// off (it is on by default).
	NoAudit bool
	// Configure, when set, adjusts the engine's configuration last
	// (latencies, forwarded profiles, ...).
	Configure func(*sim.Config)
}

// Result is what a run wrote and decided.
type Result struct {
	// Prefix is the output prefix: Prefix+"_jobs.csv",
	// Prefix+"_schedule.csv" (and the energy files with energy).
	Prefix string
	// Jobs are the _jobs.csv rows, column name to value; ByID the same by
	// "workload!job_id".
	Jobs    []map[string]string
	ByID    map[string]map[string]string
	Session *sched.Session
	Sim     *sim.Result
}

// RunEngine runs r with its outputs under dir and returns them; with dir
// "" nothing is written (Result.Jobs is then empty: Result.Sim counts the
// jobs by final state).
func RunEngine(ctx context.Context, r EngineRun, dir string) (*Result, error) {
	if r.Spec == nil || r.Platform == nil {
		return nil, fmt.Errorf("engine run: a Spec and a Platform are needed")
	}
	prefix := ""
	if dir != "" {
		prefix = filepath.Join(dir, "out")
	}
	res, err := run.Simulate(ctx, run.Simulation{
		Inputs: run.Inputs{PlatformData: r.Platform, WorkloadData: r.Workloads},
		Policy: &run.Policy{Spec: r.Spec, Options: r.Options, Validate: !r.NoAudit, Observers: r.Observers},
		Export: prefix, SchedConfig: r.SchedConfig, Configure: r.Configure,
	})
	if err != nil {
		return nil, err
	}
	out := &Result{Prefix: prefix, Session: res.Session, Sim: res.Result, ByID: map[string]map[string]string{}}
	if prefix == "" {
		return out, nil
	}
	out.Jobs, err = ReadCSV(prefix + "_jobs.csv")
	if err != nil {
		return nil, err
	}
	for _, row := range out.Jobs {
		out.ByID[row["workload_name"]+"!"+row["job_id"]] = row
	}
	return out, nil
}

// Simulate is RunEngine in a test's temporary directory; the test fails
// on an error.
func Simulate(t testing.TB, r EngineRun) *Result {
	t.Helper()
	res, err := RunEngine(context.Background(), r, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// ReadCSV reads a CSV file with a header (Batsim's _jobs.csv, ...), each
// row as column name to value.
func ReadCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no header", path)
	}
	out := make([]map[string]string, 0, len(recs)-1)
	for _, r := range recs[1:] {
		m := make(map[string]string, len(r))
		for i, k := range recs[0] {
			m[k] = r[i]
		}
		out = append(out, m)
	}
	return out, nil
}

// ReadJobs is ReadCSV of a _jobs.csv in a test; the test fails on an
// error.
func ReadJobs(t testing.TB, path string) []map[string]string {
	t.Helper()
	rows, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Num is a row's number in column k (0 when empty or not a number).
func Num(row map[string]string, k string) float64 {
	v, _ := strconv.ParseFloat(row[k], 64)
	return v
}

// JobRow is the main columns of a _jobs.csv row.
type JobRow struct {
	Workload, ID, State string
	Start, Finish       float64
	Alloc               string
}

// Row reads a _jobs.csv row's main columns.
func Row(m map[string]string) JobRow {
	return JobRow{Workload: m["workload_name"], ID: m["job_id"], State: m["final_state"],
		Start: Num(m, "starting_time"), Finish: Num(m, "finish_time"), Alloc: m["allocated_resources"]}
}
