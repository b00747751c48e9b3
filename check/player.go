package check

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
)

// Player is who plays Batsim in a check: the real Batsim 4 (Batsim), the
// real Batsim 5 through the bridge (Batsim5), or the embedded engine
// (neither).
type Player struct {
	// Batsim and Batsim5 are the executables of the real Batsims.
	Batsim, Batsim5 string
	// Log receives warnings (nil: slog.Default()).
	Log *slog.Logger
}

func (p Player) log() *slog.Logger {
	if p.Log == nil {
		return slog.Default()
	}
	return p.Log
}

// Playable says why p cannot play run (ErrNeedsBatsim, ErrNotBatsim5),
// before any process is started for it.
func (p Player) Playable(run Run) error {
	switch {
	case p.Batsim5 != "":
		return run.PlaysOnBatsim5()
	case p.Batsim == "" && run.Events != "":
		return ErrNeedsBatsim
	}
	return nil
}

// Play checks proc on run; the run's files (Batsim's outputs) go to dir.
func (p Player) Play(ctx context.Context, run Run, proc Process, dir string) (*Result, error) {
	switch {
	case p.Batsim != "":
		return run.Batsim(ctx, p.Batsim, proc, filepath.Join(dir, "batsim"), p.log())
	case p.Batsim5 != "":
		return run.Batsim5(ctx, p.Batsim5, proc, filepath.Join(dir, "batsim5"), p.log())
	}
	return run.Engine(ctx, proc, p.log())
}

// CheckCommand checks the process c starts, on run: the process is started
// for the run and stopped after it (Result.Process says how it ended when
// it did not end well).
//
// The port the process is given was free when it was chosen; another
// program may take it before the process binds it. A process that says so
// ("address already in use") before answering anything is started again on
// another port, twice at most.
func (p Player) CheckCommand(ctx context.Context, c Command, run Run, dir string) (*Result, error) {
	if err := p.Playable(run); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		st, err := c.Start(ctx)
		if err != nil {
			return nil, err
		}
		res, err := p.Play(ctx, run, st, dir)
		note := st.Stop()
		if attempt < 2 && res != nil && res.Messages <= 1 && strings.Contains(strings.ToLower(st.out.String()), "address already in use") {
			continue
		}
		if res != nil {
			res.Process = note
		}
		return res, err
	}
}

// ScenarioNamed returns the scenario named name.
func ScenarioNamed(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// RuleNames are the names of the rules found, in order.
func (r *Result) RuleNames() []string {
	out := []string{}
	for _, f := range r.Findings {
		out = append(out, f.Rule.Name)
	}
	return out
}
