package pull

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/studies"
)

// Task is a long job of the caller's (a campaign, a workload command) run
// as a Run without points: body runs in a goroutine of its own, Next
// returns Running every wait until it ends (Done, with body's error), and
// Close cancels body's context and waits for it. body's output is the
// run's ResultJSON.
func Task(body func(ctx context.Context) ([]byte, error), wait time.Duration) *Run {
	r := &Run{track: &tracker{}}
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	r.start(func(ctx context.Context) error {
		out, err := body(ctx)
		r.output = out
		return err
	}, true, wait)
	return r
}

// CampaignConfig is a campaign run from a plan (bucma expe run's
// arguments).
type CampaignConfig struct {
	// Plan is a plan file (docs/campaigns.md) or a built-in plan's name.
	Plan string `json:"plan"`
	// Out is the campaign directory (default results/PLAN).
	Out string `json:"out"`
	// Workers run in parallel (default: the processors).
	Workers int `json:"workers"`
	// Seeds, Jobs, Loads and Quick override the plan's sizes (expe run's
	// --seeds, --jobs, --loads, --quick).
	Seeds int       `json:"seeds"`
	Jobs  int       `json:"jobs"`
	Loads []float64 `json:"loads"`
	Quick bool      `json:"quick"`
	// Timeout bounds each run, in seconds (default 30 minutes; negative:
	// none).
	Timeout float64 `json:"timeout"`
	// Report writes report.md beside results.csv.
	Report bool `json:"report"`
}

// loadPlan reads the plan c names: a file (a path, or a name ending in
// .yaml or .yml), else a built-in plan.
func loadPlan(c CampaignConfig, reg *sched.Registry, st *report.Studies) (expe.Plan, error) {
	isFile := strings.HasSuffix(c.Plan, ".yaml") || strings.HasSuffix(c.Plan, ".yml") || strings.ContainsRune(c.Plan, filepath.Separator)
	if fi, err := os.Stat(c.Plan); err == nil && !fi.IsDir() {
		isFile = true
	}
	if isFile {
		return expe.LoadPlanFile(c.Plan, expe.PlanFileOptions{Studies: st.Kinds(), Policies: reg})
	}
	p, err := st.Plan(c.Plan)
	if err != nil {
		return p, &sched.OptionError{Msg: fmt.Sprintf("%v, or a plan file (FILE.yaml)", err)}
	}
	return p, nil
}

// Campaign runs a campaign of the embedded engine as a Task: the plan is
// read and checked first (its errors name the file, the line and the
// key), then its runs go into the campaign directory (a campaign resumes:
// the runs done are kept), and results.csv (and report.md) are written
// once every run is done. The output is {"dir", "results", "report",
// "total", "done", "skipped"}; failed runs are the error, each named.
func Campaign(c CampaignConfig, reg *sched.Registry, log *slog.Logger, wait time.Duration) (*Run, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := studies.Builtin()
	plan, err := loadPlan(c, reg, st)
	if err != nil {
		return nil, err
	}
	if plan.Engine != nil && plan.Engine.Name != "" && plan.Engine.Name != "embedded" {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("plan %s: engine %s: a campaign from Python runs the embedded engine (bucma expe run runs the others)", plan.Name, plan.Engine.Name)}
	}
	if plan, err = plan.With(expe.Overrides{Seeds: c.Seeds, Jobs: c.Jobs, Loads: c.Loads, Quick: c.Quick}); err != nil {
		return nil, &sched.OptionError{Msg: err.Error()}
	}
	dir := c.Out
	if dir == "" {
		dir = filepath.Join("results", plan.Name)
	}
	timeout := 30 * time.Minute
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout * float64(time.Second))
	} else if c.Timeout < 0 {
		timeout = 0
	}
	camp := &expe.Campaign{Plan: plan, Dir: dir, Engine: expe.NewEmbeddedEngine(reg), Workers: c.Workers, RunTimeout: timeout, Log: log}
	return Task(func(ctx context.Context) ([]byte, error) {
		res, err := camp.Execute(ctx)
		if err != nil {
			return nil, err
		}
		if len(res.Failed) > 0 {
			lines := make([]string, len(res.Failed))
			for i, f := range res.Failed {
				lines[i] = f.String()
			}
			return nil, fmt.Errorf("%d of %d runs failed (the others are kept; run the campaign again once the cause is fixed):\n%s", len(res.Failed), res.Total, strings.Join(lines, "\n"))
		}
		if res.Busy > 0 {
			return nil, fmt.Errorf("%d of %d runs are held by other executions of the campaign: run it again once they ended", res.Busy, res.Total)
		}
		out := map[string]any{"dir": dir, "total": res.Total, "done": res.Done, "skipped": res.Skipped}
		if out["results"], err = report.WriteResultsCSV(dir); err != nil {
			return nil, err
		}
		if c.Report {
			if out["report"], err = report.Write(dir, st); err != nil {
				return nil, err
			}
		}
		return json.Marshal(out)
	}, wait), nil
}
