package rlscheduler

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/workloads"
)

// BatsimPolicy is bucma's priority-function policy of each heuristic:
// the same function with the real waiting time (UNI is UNICEP).
var BatsimPolicy = map[string]string{
	"FCFS": "prio-fcfs", "WFP3": "prio-wfp3", "UNI": "prio-unicep", "SJF": "prio-sjf",
	"F1": "prio-f1", "F2": "prio-f2", "F3": "prio-f3", "F4": "prio-f4", "SMALLEST": "prio-smallest",
}

// BatsimBackfills are the start rules a heuristic runs with under
// Batsim's rules: none, EASY and conservative backfilling.
var BatsimBackfills = []string{"none", "easy", "conservative"}

// PlatformXML is a platform of n identical hosts (1 Gflop/s) in one
// SimGrid cluster, and a master host.
func PlatformXML(n int) string {
	return fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <zone id="mz" routing="Full">
      <host id="master" speed="1Gf"><prop id="role" value="master"/></host>
    </zone>
    <cluster id="c" prefix="h" suffix="" radical="0-%d" speed="1Gf" bw="10Gbps" lat="1us" bb_bw="100Gbps" bb_lat="1us"/>
    <link id="up" bandwidth="10Gbps" latency="1us"/>
    <zoneRoute src="c" dst="mz" gw_src="hc_router" gw_dst="master"><link_ctn id="up"/></zoneRoute>
  </zone>
</platform>
`, n-1)
}

// WindowWorkload is a window as a Batsim workload on nodes hosts: each
// job with its SWF id, submit time, processors as hosts, requested time as
// walltime and a delay profile of its run time.
func WindowWorkload(jobs []Job, nodes int) (*workloads.Workload, error) {
	type wjob struct {
		ID       string  `json:"id"`
		Subtime  float64 `json:"subtime"`
		Res      int     `json:"res"`
		Walltime float64 `json:"walltime"`
		Profile  string  `json:"profile"`
	}
	type wprof struct {
		Type  string  `json:"type"`
		Delay float64 `json:"delay"`
	}
	doc := struct {
		NbRes    int              `json:"nb_res"`
		Jobs     []wjob           `json:"jobs"`
		Profiles map[string]wprof `json:"profiles"`
	}{NbRes: nodes, Profiles: map[string]wprof{}}
	for _, j := range jobs {
		p := fmt.Sprintf("d%g", j.Run)
		doc.Profiles[p] = wprof{"delay", j.Run}
		doc.Jobs = append(doc.Jobs, wjob{fmt.Sprint(j.ID), j.Submit, j.Procs, j.Req, p})
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return workloads.Parse(data, "window")
}

// BatsimWindow runs one window through the embedded engine (Batsim 4.2.1's
// rules) on nodes hosts with heuristic h's policy and backfill rule, and
// returns the mean bounded slowdown and the utilization of package
// metrics (to the last finish).
func BatsimWindow(ctx context.Context, jobs []Job, h, backfill string, nodes int) (Result, error) {
	name, ok := BatsimPolicy[h]
	if !ok {
		return Result{}, fmt.Errorf("rlscheduler: no Batsim policy for heuristic %q", h)
	}
	plat, err := platforms.Parse(strings.NewReader(PlatformXML(nodes)), fmt.Sprintf("cluster-%d", nodes))
	if err != nil {
		return Result{}, err
	}
	w, err := WindowWorkload(jobs, nodes)
	if err != nil {
		return Result{}, err
	}
	res, err := run.Simulate(ctx, run.Simulation{
		Inputs: run.Inputs{PlatformData: plat, WorkloadData: []*workloads.Workload{w}},
		Policy: &run.Policy{Name: name, Options: map[string]string{"backfill": backfill}, Registry: policies.Builtin()},
		Log:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return Result{}, fmt.Errorf("rlscheduler: %s backfill=%s: %w", name, backfill, err)
	}
	if res.Metrics.Ran != len(jobs) {
		return Result{}, fmt.Errorf("rlscheduler: %s backfill=%s: %d of %d jobs ran (%v)", name, backfill, res.Metrics.Ran, len(jobs), res.ByState)
	}
	return Result{BSLD: res.Metrics.MeanBSLD, Util: res.Metrics.Utilization}, nil
}

// BatsimCell names a cell under Batsim's rules: a heuristic and a
// backfill rule of BatsimBackfills.
type BatsimCell struct {
	Heuristic string
	Backfill  string
}

// BatsimTable is an evaluation under Batsim's rules: the means over the
// windows and each window's result.
type BatsimTable struct {
	Cells   map[BatsimCell]Result
	Windows map[BatsimCell][]Result
}

// EvaluateBatsim runs every heuristic of hs with every rule of
// BatsimBackfills on the windows jobs[s : s+size] of starts through the
// embedded engine on DefaultNodes hosts, and averages each over the
// windows.
func EvaluateBatsim(ctx context.Context, jobs []Job, starts []int, size int, hs []string) (*BatsimTable, error) {
	if err := checkWindows(len(jobs), starts, size); err != nil {
		return nil, err
	}
	t := &BatsimTable{Cells: map[BatsimCell]Result{}, Windows: map[BatsimCell][]Result{}}
	for _, h := range hs {
		for _, bf := range BatsimBackfills {
			c := BatsimCell{h, bf}
			ws, mean, err := overWindows(jobs, starts, size, func(w []Job) (Result, error) { return BatsimWindow(ctx, w, h, bf, DefaultNodes) })
			if err != nil {
				return nil, err
			}
			t.Windows[c], t.Cells[c] = ws, mean
		}
	}
	return t, nil
}
