package check

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// Run is one simulation to check the process on: the platform, the
// workloads and Batsim's flags, as bucma simulate and Batsim 4 take them.
type Run struct {
	// Name names the run in the report (a scenario's name).
	Name      string
	Platform  string   // a SimGrid file or a bundled platform's name
	Workloads []string // Batsim 4 workload files (w0, w1, ...)
	// Events is an external events file (Batsim's --events): the real
	// Batsim only (the engine does not model external events).
	Events string
	// Batsim's flags.
	DynamicJobs, AcknowledgeDynamicJobs, ForwardProfiles, ComputeSharing, Energy bool
	SchedConfig                                                                  string
}

// Result is what a check found.
type Result struct {
	Run      Run
	Findings []Finding
	// Messages is the number of messages the process was sent.
	Messages int
	// Ended is set when the simulation reached its end (SIMULATION_ENDS
	// answered).
	Ended bool
	// Process says how a process bucma check started ended, when it did
	// not exit with status 0 by itself.
	Process string
}

// Clean reports whether nothing was found.
func (r *Result) Clean() bool { return len(r.Findings) == 0 }

// result is the result of a conversation; ended says whether the
// simulation reached its end.
func result(run Run, c *Conversation, ended bool) *Result {
	return &Result{Run: run, Findings: c.Findings(), Messages: c.Messages(), Ended: ended}
}

// ErrNeedsBatsim is the error of a run the engine cannot play (external
// events).
var ErrNeedsBatsim = errors.New("external events need the real Batsim 4 (the engine does not model them)")

// Engine checks proc on run with bucma's embedded engine in Batsim's
// place; log receives warnings. An error is a run that could not be
// played (a bad input file, an interruption), not a finding.
func (run Run) Engine(ctx context.Context, proc Process, log *slog.Logger) (*Result, error) {
	if run.Events != "" {
		return nil, ErrNeedsBatsim
	}
	plat, err := platforms.Resolve(run.Platform)
	if err != nil {
		return nil, err
	}
	var wls []*workloads.Workload
	for i, p := range run.Workloads {
		w, _, err := workloads.LoadChecked(p, workloads.ValidateOptions{WorkloadName: fmt.Sprintf("w%d", i)})
		if err != nil {
			return nil, err
		}
		wls = append(wls, w)
	}
	conv, err := NewConversation(proc, log)
	if err != nil {
		return nil, err
	}
	cfg := sim.Config{Platform: plat, Workloads: wls, WorkloadsChecked: true, Latency: sim.LatencyBatsim,
		ForwardProfiles: run.ForwardProfiles, DynamicJobs: run.DynamicJobs, AcknowledgeDynamicJob: run.AcknowledgeDynamicJobs,
		ComputeSharing: run.ComputeSharing, Energy: run.Energy, SchedConfig: run.SchedConfig, Approximate: true, Log: log}
	_, err = sim.Run(ctx, cfg, conv)
	if err := engineEnd(conv, err); err != nil {
		return nil, err
	}
	ended := conv.Ended()
	conv.TellEnd()
	return result(run, conv, ended), nil
}

// engineEnd records how the engine ended a conversation: a decision it
// aborts on, a simulation that cannot end. Other errors are returned.
func engineEnd(conv *Conversation, err error) error {
	var se *sim.Error
	var de *sim.DeadlockError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &de):
		conv.Stuck(fmt.Sprintf("nothing left to happen at t=%.6f", de.Time))
		return nil
	case errors.As(err, &se):
		if strings.HasPrefix(se.Rule, "scheduler: ") && conv.Stopped() {
			return nil // the conversation's own stop, already reported
		}
		rule := RuleBatsimAborts
		if strings.HasPrefix(se.Event, "CALL_ME_LATER") {
			rule = RuleCallInPast
		}
		why := se.Rule
		if se.Event != "" {
			why = se.Event + ": " + se.Rule
		}
		conv.Abort(rule, -1, "", why)
		return nil
	}
	return err
}

// list names at most 10 ids.
func list(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// Batsim checks proc on run with the real Batsim 4 (the executable bin) in
// the engine's place: the conversation stands between them, served on a
// loopback port Batsim connects to. Batsim's outputs go to dir. What
// Batsim says when it aborts is reported with the finding of the reply it
// aborts on (or as a finding of its own).
func (run Run) Batsim(ctx context.Context, bin string, proc Process, dir string, log *slog.Logger) (*Result, error) {
	conv, err := NewConversation(proc, log)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: log})
	if err != nil {
		return nil, err
	}
	args := []string{"-p", run.Platform}
	for _, w := range run.Workloads {
		args = append(args, "-w", w)
	}
	args = append(args, "-e", filepath.Join(dir, "out"), "-s", l.Endpoint())
	if run.Events != "" {
		args = append(args, "--events", run.Events)
	}
	for _, f := range []struct {
		on   bool
		flag string
	}{{run.DynamicJobs, "--enable-dynamic-jobs"}, {run.AcknowledgeDynamicJobs, "--acknowledge-dynamic-jobs"},
		{run.ForwardProfiles, "--forward-profiles-on-submission"}, {run.ComputeSharing, "--enable-compute-sharing"}, {run.Energy, "--energy"}} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	if run.SchedConfig != "" {
		args = append(args, "--sched-cfg", run.SchedConfig)
	}
	out, runErr, _, err := playBatsim(ctx, bin, args, l, func(ctx context.Context) error { return l.ServeRaw(ctx, conv.Step()) })
	if err != nil {
		return nil, err
	}
	if runErr != nil && conv.Messages() == 0 {
		// Batsim refused its inputs: nothing was checked.
		return nil, fmt.Errorf("%s: %v\n%s", bin, runErr, tailText(out, 2000))
	}
	switch {
	case conv.Ended():
	case runErr != nil && !strings.Contains(out, "does NOT seem finished"):
		conv.Abort(RuleBatsimAborts, -1, "", batsimAbort(out))
	case !conv.Stopped():
		// SimGrid found every actor waiting: Batsim left its
		// simulation loop without SIMULATION_ENDS.
		conv.Stuck(fmt.Sprintf("Batsim ended at t=%.6f without SIMULATION_ENDS (nothing left to happen)", conv.now))
	}
	ended := conv.Ended()
	conv.TellEnd()
	return result(run, conv, ended), nil
}

// playBatsim runs Batsim (bin with args), served on l by serve, until
// Batsim ends: it returns Batsim's output, its Wait's result and serve's
// (err is a Batsim that could not start).
func playBatsim(ctx context.Context, bin string, args []string, l *zmq.Listener, serve func(ctx context.Context) error) (out string, runErr, serveErr, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var b strings.Builder
	w := &limited{w: &b, n: 1 << 20} // one writer: one goroutine writes
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		_ = l.Close()
		return "", nil, nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	served := make(chan error, 1)
	go func() { served <- serve(ctx) }()
	runErr = cmd.Wait()
	cancel() // Batsim is gone: the conversation cannot go on
	return b.String(), runErr, <-served, nil
}

// batsimAbort is the line of Batsim's output that says why it aborted.
func batsimAbort(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "CRITICAL") || strings.Contains(line, "Assertion") || strings.Contains(line, "Runtime error") {
			return strings.TrimSpace(line)
		}
	}
	return "Batsim ended with an error:\n" + tailText(out, 1000)
}

func tailText(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// limited writes at most n bytes to w, then drops the rest.
type limited struct {
	w interface{ WriteString(string) (int, error) }
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.WriteString(string(p[:k]))
		l.n -= k
	}
	return len(p), nil
}
