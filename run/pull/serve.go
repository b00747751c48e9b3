package pull

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// ServeVersion is the decision component's version in Batsim 5's hello.
var ServeVersion = "0.1.0"

// serve prepares a server of one simulation (Batsim 4 or 5 connects).
func (r *Run) serve(c Config, pol *run.Policy, wait time.Duration, log *slog.Logger) error {
	if c.Platform != "" || len(c.Workloads) > 0 || c.Export != "" {
		return &sched.OptionError{Msg: "serve: the platform, the workloads and the outputs are Batsim's (give them to Batsim)"}
	}
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = "tcp://*:28000"
	}
	if _, err := pol.Check(""); err != nil {
		return err
	}
	srv := &run.Server{Policy: *pol, Batsim5Only: c.Batsim5Only, Endpoint: endpoint,
		Timeout: time.Duration(c.Timeout * float64(time.Second)), EndpointFile: c.EndpointFile,
		Trace: c.Trace, Version: ServeVersion, Log: log}
	r.start(srv.Serve, true, wait)
	return nil
}

// tail keeps the last max bytes written to it (and copies them to w).
type tail struct {
	mu  sync.Mutex
	b   []byte
	max int
	w   io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.b)
	if len(s) > t.max {
		s = "…" + s[len(s)-t.max:]
	}
	return strings.TrimSpace(s)
}

// platformFile is the platform c names as a file a real Batsim reads: the
// file, or a bundled platform written into dir.
func platformFile(name, dir string) (string, error) {
	file, bundled, err := platforms.Locate("", name)
	if err != nil {
		return "", err
	}
	if file != "" {
		return file, nil
	}
	data, err := platforms.BundledXML(bundled)
	if err != nil {
		return "", err
	}
	file = filepath.Join(dir, bundled+".xml")
	return file, os.WriteFile(file, data, 0o644)
}

// batsim prepares a run of the real Batsim 4 (c.Mode "batsim") or 5
// ("batsim5") against the policy, served in this process on a loopback
// port.
func (r *Run) batsim(c Config, pol *run.Policy, eng EngineOptions, wait time.Duration, log *slog.Logger) error {
	v5 := c.Mode == "batsim5"
	if pol == nil {
		return &sched.OptionError{Msg: c.Mode + ": no policy"}
	}
	if len(c.Workloads) != 1 {
		return &sched.OptionError{Msg: fmt.Sprintf("%s: one workload file, not %d", c.Mode, len(c.Workloads))}
	}
	if c.Export == "" {
		return &sched.OptionError{Msg: c.Mode + ": an output prefix (export) is needed: Batsim writes its files there"}
	}
	if c.Trace != "" || eng.SchedCfg != "" || eng.Latency != "" || eng.JobsFormat != "" || eng.Approximate || eng.ForwardProfilesOnSubmission {
		return &sched.OptionError{Msg: c.Mode + ": the trace, sched_cfg, latency, jobs_format, approximate and forward_profiles_on_submission are options of the embedded engine"}
	}
	spec, err := pol.Check("")
	if err != nil {
		return err
	}
	bin := c.Batsim
	if bin == "" {
		bin = "batsim"
		if v5 {
			bin = "batsim5"
		}
	}
	if bin, err = exec.LookPath(bin); err != nil {
		return fmt.Errorf("%s: the Batsim executable: %w", c.Mode, err)
	}
	if _, err := os.Stat(c.Workloads[0]); err != nil {
		return fmt.Errorf("workload: %w", err)
	}
	out := &tail{max: 4000}
	if c.BatsimLog != "" {
		f, err := os.Create(c.BatsimLog)
		if err != nil {
			return err
		}
		out.w = f
	}
	tmp, err := os.MkdirTemp("", "bucma-batsim-*")
	if err != nil {
		return err
	}
	plat, err := platformFile(c.Platform, tmp)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	features := run.Needs(spec, eng.given())
	r.start(func(ctx context.Context) error {
		defer os.RemoveAll(tmp)
		if f, ok := out.w.(*os.File); ok {
			defer f.Close()
		}
		var runErr, serveErr error
		if v5 {
			runErr, serveErr = r.batsim5(ctx, pol, bin, plat, c, features, tmp, out, log)
		} else {
			sess, err := pol.NewSession()
			if err != nil {
				return err
			}
			b := run.Batsim{Binary: bin, Args: c.BatsimArgs}
			runErr, serveErr = b.Against(ctx, sess, plat, c.Workloads[0], c.Export, features, out)
		}
		switch {
		case serveErr != nil && !errors.Is(serveErr, zmq.ErrInterrupted):
			return serveErr
		case ctx.Err() != nil:
			return ctx.Err()
		case runErr != nil:
			name := "Batsim"
			if v5 {
				name = "Batsim 5"
			}
			return fmt.Errorf("%s failed: %w\n%s's output (end):\n%s", name, runErr, name, out.String())
		}
		return nil
	}, true, wait)
	return nil
}

// batsim5 runs Batsim 5 against the policy, served in this process: the
// workload converted to Batsim 5's format when it is in Batsim 4's, the
// outputs in the directory c.Export.
func (r *Run) batsim5(ctx context.Context, pol *run.Policy, bin, plat string, c Config, f run.Features, tmp string, out io.Writer, log *slog.Logger) (runErr, serveErr error) {
	wl := c.Workloads[0]
	w, err := workloads.Load(wl)
	if err != nil {
		return nil, err
	}
	if !w.V5 {
		v, err := w.ToV5()
		if err != nil {
			return nil, err
		}
		wl = filepath.Join(tmp, "workload-v5.json")
		if err := v.WriteFile(wl); err != nil {
			return nil, err
		}
	}
	dir := c.Export
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan error, 1)
	bound := false
	srv := &run.Server{Policy: *pol, Batsim5Only: true, Endpoint: "tcp://127.0.0.1:*", Version: ServeVersion, Log: log,
		Bound: func(ep string) {
			bound = true
			args := []string{"-p", plat, "-w", wl, "-s", ep, "{}", "-e", dir}
			if f.Energy {
				args = append(args, "--energy-host")
			}
			cmd := exec.CommandContext(ctx, bin, append(args, c.BatsimArgs...)...)
			cmd.Stdout, cmd.Stderr = out, out
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				ran <- fmt.Errorf("starting %s: %w", bin, err)
				cancel()
				return
			}
			go func() { ran <- cmd.Wait() }()
		}}
	served := make(chan error, 1)
	go func() {
		err := srv.Serve(ctx)
		if !bound { // Batsim 5 never started
			ran <- nil
		}
		served <- err
	}()
	return run.Await(ran, served, cancel)
}

// num is v for JSON, nil for NaN.
func num(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// ResultJSON is the outcome of an embedded run as JSON: the jobs by final
// state, the metrics of package metrics, the messages and times (a
// Task's: its output; null before the end).
func (r *Run) ResultJSON() ([]byte, error) {
	if r.output != nil {
		return r.output, nil
	}
	res := r.Result()
	if res == nil || res.Result == nil {
		return []byte("null"), nil
	}
	m := res.Metrics
	return json.Marshal(map[string]any{
		"jobs": res.Jobs, "by_state": res.ByState, "end_time": res.EndTime, "messages": res.Messages,
		"wall": res.Wall.Seconds(), "scheduler_wall": res.SchedWall.Seconds(), "energy": res.Energy, "energy_on": res.EnergyOn,
		"metrics": map[string]any{"ran": m.Ran, "hosts": m.Hosts, "makespan": num(m.Makespan), "first_submit": num(m.FirstSubmit),
			"last_finish": num(m.LastFinish), "mean_waiting_time": num(m.MeanWait), "mean_slowdown": num(m.MeanSlowdown),
			"mean_bounded_slowdown": num(m.MeanBSLD), "utilization": num(m.Utilization)},
	})
}
