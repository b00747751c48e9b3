package benchutil

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// Engine runs one workload file on one platform with the embedded engine
// in this process, as bucma simulate does (sim.Preload, then sim.Run with
// the policy in-process), and measures the parts of its CPU time: the
// reading alone, the run with the policy deciding, and the run answered by
// the policy's recorded replies (the engine's floor: no decision, no
// session). Each measure is this process's CPU time (every thread) around
// the part, after a collection, so that the garbage of one part is not
// collected in the next.
type Engine struct {
	Platform *platforms.Platform
	Workload string // the workload file
	Registry *sched.Registry
	Policy   string
	Options  sched.Options
	Dir      string // where the outputs go

	replies []*batsim.Message
	jobs    []byte // the recorded run's _jobs.csv
}

// Record runs the policy once and keeps its replies for Replay.
func (e *Engine) Record() error {
	rec := &sim.Recorder{}
	s, _, err := e.policy().InProcess()
	if err != nil {
		return err
	}
	rec.S = s
	prefix := filepath.Join(e.Dir, "recorded")
	if err := e.run(rec, prefix); err != nil {
		return err
	}
	e.replies = rec.Replies
	e.jobs, err = os.ReadFile(prefix + "_jobs.csv")
	return err
}

// Messages is the number of messages the recorded run exchanged.
func (e *Engine) Messages() int { return len(e.replies) }

// Read is the CPU time of reading the workload file (sim.Preload).
func (e *Engine) Read() (float64, error) {
	runtime.GC()
	begin := SelfCPU()
	p := sim.Preload(e.Workload, "w0")
	cpu := SelfCPU() - begin
	if p == nil {
		return 0, fmt.Errorf("%s: the engine's reader refuses it (bucma simulate names the problem)", e.Workload)
	}
	return cpu, nil
}

// Decide is the CPU time of a run with the policy deciding.
func (e *Engine) Decide() (float64, error) {
	s, _, err := e.policy().InProcess()
	if err != nil {
		return 0, err
	}
	return e.timed(s, "decided")
}

// Replay is the CPU time of a run answered by the recorded replies; it
// checks that the run wrote the recorded _jobs.csv.
func (e *Engine) Replay() (float64, error) {
	if e.replies == nil {
		return 0, fmt.Errorf("replay of %s: nothing recorded", e.Policy)
	}
	return e.timed(sim.Replay(e.replies), "replayed")
}

func (e *Engine) timed(s sim.Scheduler, name string) (float64, error) {
	runtime.GC()
	begin := SelfCPU()
	prefix := filepath.Join(e.Dir, name)
	err := e.run(s, prefix)
	cpu := SelfCPU() - begin
	if err != nil {
		return 0, err
	}
	if e.jobs != nil {
		got, err := os.ReadFile(prefix + "_jobs.csv")
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(got, e.jobs) {
			return 0, fmt.Errorf("%s: %s_jobs.csv differs from the recorded run's", e.Policy, prefix)
		}
	}
	return cpu, nil
}

// run runs the engine as bucma simulate does (run.Simulate: the workload
// preloaded, the features the policy needs), the scheduler s answering.
func (e *Engine) run(s sim.Scheduler, prefix string) error {
	p := e.policy()
	spec, err := p.Resolve()
	if err != nil {
		return err
	}
	_, err = run.Simulate(context.Background(), run.Simulation{
		Inputs:    run.Inputs{PlatformData: e.Platform, Workloads: []string{e.Workload}},
		Scheduler: s, Given: run.Needs(spec, run.Given{}).Given(), Export: prefix,
		Log: slog.New(slog.DiscardHandler),
	})
	return err
}

func (e *Engine) policy() *run.Policy {
	return &run.Policy{Name: e.Policy, Registry: e.Registry, Options: e.Options,
		Log: slog.New(slog.DiscardHandler)}
}
