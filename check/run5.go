package check

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/bridge"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/workloads"
)

// ErrNotBatsim5 is the error of a run Batsim 5 cannot play: external
// events, or a workload it cannot express.
var ErrNotBatsim5 = errors.New("Batsim 5 cannot play this run")

// PlaysOnBatsim5 reports why Batsim 5 cannot play run (an error wrapping
// ErrNotBatsim5), before any process is started for it.
func (run Run) PlaysOnBatsim5() error {
	_, err := run.v5Workloads()
	return err
}

// v5Workloads are run's workloads in Batsim 5's format.
func (run Run) v5Workloads() ([]*workloads.Workload, error) {
	if run.Events != "" {
		return nil, fmt.Errorf("%w: external events", ErrNotBatsim5)
	}
	var out []*workloads.Workload
	for _, p := range run.Workloads {
		w, err := workloads.Load(p)
		if err != nil {
			return nil, err
		}
		v, err := w.ToV5()
		if err != nil {
			// The conversion's last line says what Batsim 5 cannot
			// express.
			lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
			why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "error: "))
			why = strings.TrimPrefix(why, p+": ")
			return nil, fmt.Errorf("%w: %s", ErrNotBatsim5, why)
		}
		out = append(out, v)
	}
	return out, nil
}

// handler is a conversation as the handler of the bridge's adapter: the
// Batsim 4 messages the adapter makes of Batsim 5's, and the replies it
// translates back.
type handler struct{ c *Conversation }

func (h handler) Handle(m *batsim.Message) (*batsim.Reply, error) { return h.c.Handle(m) }

// Batsim5 checks proc, a Batsim 4 decision process, on run with the real
// Batsim 5 (the executable bin) through bucma's bridge: the adapter of
// package batsim/v5 translates Batsim 5's messages for the process and its
// replies for Batsim 5 (as bucma bridge does), the conversation standing
// between the adapter and the process. The workloads are converted to
// Batsim 5's format into dir (a workload Batsim 5 cannot express is
// ErrNotBatsim5), and Batsim's outputs go there too.
func (run Run) Batsim5(ctx context.Context, bin string, proc Process, dir string, log *slog.Logger) (*Result, error) {
	v5s, err := run.v5Workloads()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"-p", run.Platform}
	for i, v := range v5s {
		out := filepath.Join(dir, fmt.Sprintf("workload%d-v5.json", i))
		if err := v.WriteFile(out); err != nil {
			return nil, err
		}
		args = append(args, "-w", out)
	}
	if run.Energy {
		args = append(args, "--energy-host")
	}
	conv, err := NewConversation(proc, log)
	if err != nil {
		return nil, err
	}
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: log})
	if err != nil {
		return nil, err
	}
	args = append(args, "-s", l.Endpoint(), "", "-e", dir+string(filepath.Separator))
	// The adapter's log says what the findings say: debug only.
	alog := log
	if !log.Enabled(ctx, slog.LevelDebug) {
		alog = slog.New(slog.DiscardHandler)
	}
	cfg := bridge.Config{DynamicJobs: run.DynamicJobs, AcknowledgeDynamicJobs: run.AcknowledgeDynamicJobs, ForwardProfiles: run.ForwardProfiles,
		ComputeSharing: run.ComputeSharing, SchedConfig: run.SchedConfig, Name: bridge.Name, Log: alog}
	out, runErr, serveErr, err := playBatsim(ctx, bin, args, l, func(ctx context.Context) error {
		return l.ServeV5(ctx, func([]byte) (*v5.EDC, error) {
			e := v5.NewEDC(bridge.AdapterConfig(cfg), handler{conv})
			e.StopOnError = true
			return e, nil
		})
	})
	if err != nil {
		return nil, err
	}
	if runErr != nil && conv.Messages() == 0 {
		return nil, fmt.Errorf("%s: %v\n%s", bin, runErr, tailText(out, 2000))
	}
	switch {
	case errors.Is(serveErr, v5.ErrNoEquivalent):
		// The bridge stopped the simulation on a decision it cannot
		// translate.
		conv.Abort(RuleNoEquivalent, -1, "", serveErr.Error())
	case conv.Ended() && !conv.Stopped():
	case !conv.Stopped() && (runErr == nil || strings.Contains(out, "Deadlock detected")):
		// SimGrid found every actor waiting.
		conv.Stuck(fmt.Sprintf("Batsim 5 stopped at t=%.6f on a deadlock (nothing left to happen)", conv.now))
	case runErr != nil:
		conv.Abort(RuleBatsimAborts, -1, "", batsimAbort(out))
	}
	ended := conv.Ended()
	conv.TellEnd()
	return result(run, conv, ended), nil
}
