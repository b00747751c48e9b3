// Package batsimrun runs the real Batsim simulator (4.2.1) against a
// scheduler: a policy served in-process on a loopback port the system picks
// (Policy, WithHandler), batsched (WithBatsched) or any scheduler command
// (WithScheduler). It is what bucma's real-Batsim test tier is built on,
// and what a policy's own differential test uses: the same platform and
// workload through the embedded engine (testkit.Simulate) and through
// Batsim must give the same _jobs.csv. Batsim and batsched are found
// through the BATSIM and BATSCHED environment variables (paths to the
// executables) or on PATH; Batsim and Batsched skip a test where there is
// none. It serves over package batsim/zmq (bucma's own ZeroMQ for its
// loopback tcp:// endpoints, so it needs no cgo).
package batsimrun

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Version is the Batsim version the tier is written against.
const Version = "4.2.1"

// Find returns the path of the executable named by the environment
// variable env, or of name on PATH.
func Find(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", env, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH and %s is not set", name, env)
	}
	return p, nil
}

// Batsim returns the Batsim executable, or skips t (with one line saying
// how to get it) when there is none.
func Batsim(t testing.TB) string {
	t.Helper()
	p, err := Find("BATSIM", "batsim")
	if err != nil {
		t.Skipf("real-Batsim tier skipped: %v (install Batsim %s, see docs/testing.md)", err, Version)
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		t.Skipf("real-Batsim tier skipped: %s --version: %v", p, err)
	}
	if v := strings.TrimSpace(string(out)); v != Version {
		t.Logf("warning: %s is Batsim %s; the tier's expectations come from Batsim %s", p, v, Version)
	}
	return p
}

// Batsched returns the batsched executable, or skips t.
func Batsched(t testing.TB) string {
	t.Helper()
	p, err := Find("BATSCHED", "batsched")
	if err != nil {
		t.Skipf("batsched comparison skipped: %v", err)
	}
	return p
}

// Result is one finished Batsim run.
type Result struct {
	Dir      string // output directory (prefix Dir/out)
	Jobs     []byte // out_jobs.csv
	Schedule []byte // out_schedule.csv
	Log      string // Batsim's standard output and error
	// With WithScheduler: the processes' final states (resource usage),
	// and Batsim's wall time.
	Batsim, Scheduler *os.ProcessState
	Wall              time.Duration
}

// Options of a run.
type Options struct {
	Batsim string
	// Args are added to Batsim's command line (e.g. --enable-dynamic-jobs).
	Args []string
	// Timeout bounds the whole run (default 10 minutes): a guard against a
	// hang, not a timing (the tier's largest case, 1024 hosts with
	// communications, took Batsim more than 2 minutes on a 2-core machine
	// under a load of 13).
	Timeout time.Duration
	// Prefix, when set, runs Batsim through this command (e.g. taskset -c 0).
	Prefix []string
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 10 * time.Minute
}

// batsimOf is the Batsim of o, its outputs' tracing off (the tier
// compares the jobs).
func batsimOf(o Options) run.Batsim {
	return run.Batsim{Binary: o.Batsim, Prefix: o.Prefix,
		Args: append([]string{"--disable-schedule-tracing", "--disable-machine-state-tracing"}, o.Args...)}
}

func batsimCmd(ctx context.Context, o Options, platform, workload, dir, endpoint string) *exec.Cmd {
	argv := batsimOf(o).Command(platform, workload, filepath.Join(dir, "out"), endpoint, run.Features{})
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func collect(dir string, log []byte, runErr error) (*Result, error) {
	r := &Result{Dir: dir, Log: string(log)}
	var err error
	if r.Jobs, err = os.ReadFile(filepath.Join(dir, "out_jobs.csv")); err != nil && runErr == nil {
		runErr = err
	}
	r.Schedule, _ = os.ReadFile(filepath.Join(dir, "out_schedule.csv"))
	if runErr != nil {
		return r, fmt.Errorf("%w\nBatsim's output (end):\n%s", runErr, tail(r.Log, 2000))
	}
	return r, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// WithHandler runs Batsim against h, served in this process on a loopback
// port the system picks. dir receives Batsim's outputs.
func WithHandler(ctx context.Context, o Options, platform, workload, dir string, h batsim.Handler) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var log bytes.Buffer
	runErr, serveErr := batsimOf(o).Against(ctx, h, platform, workload, filepath.Join(dir, "out"), run.Features{}, &log)
	switch {
	case serveErr != nil:
		return collect(dir, log.Bytes(), fmt.Errorf("scheduler: %w", serveErr))
	case runErr != nil:
		return collect(dir, log.Bytes(), fmt.Errorf("batsim: %w", runErr))
	}
	return collect(dir, log.Bytes(), nil)
}

// Seeds is how many seeds a differential case of a tier runs:
// BUCMA_DIFF_SEEDS overrides def (make test-batsim and make test-batsim5
// set it from SEEDS).
func Seeds(t testing.TB, def int) int {
	t.Helper()
	if s := os.Getenv("BUCMA_DIFF_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("BUCMA_DIFF_SEEDS=%q: want a number of seeds", s)
		}
		return n
	}
	return def
}

// Await waits for a Batsim process (its Wait's result on ran) and the
// scheduler served in this process (its Serve's result on served): when one
// fails, cancel stops the other (run.Await).
func Await(ran, served <-chan error, cancel func()) (runErr, serveErr error) {
	return run.Await(ran, served, cancel)
}

// FirstDiff describes the first differing line of two text files, a the
// reference (want) and b the result (got); "identical" when they are.
func FirstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, x, y)
		}
	}
	return "identical"
}

// BatschedFailure is a batsched that stopped on an error (an assertion,
// a crash) before the end of the simulation; Batsim, left waiting for its
// answer, was stopped.
type BatschedFailure struct {
	Err error
	Log string // batsched's standard output and error
}

// Error implements error.
func (e *BatschedFailure) Error() string {
	return fmt.Sprintf("batsched: %v\nbatsched's output (end):\n%s", e.Err, tail(e.Log, 2000))
}

// Unwrap gives the process error.
func (e *BatschedFailure) Unwrap() error { return e.Err }

// WithBatsched runs Batsim against batsched's variant (e.g. "fcfs_fast",
// "easy_bf") on a free loopback port. A batsched that stops on an error
// stops the run at once, with a *BatschedFailure.
func WithBatsched(ctx context.Context, o Options, batsched, variant, platform, workload, dir string) (*Result, error) {
	return WithScheduler(ctx, o, func(endpoint string) []string {
		return []string{batsched, "-v", variant, "-s", endpoint}
	}, platform, workload, dir)
}

// WithScheduler runs Batsim against the scheduler process that argv
// starts, given the loopback endpoint to bind (a free port). A scheduler
// that stops on an error stops the run at once, with a *BatschedFailure.
// The result holds both processes' states (their resource usage).
func WithScheduler(ctx context.Context, o Options, argv func(endpoint string) []string, platform, workload, dir string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var lastErr error
	// batsched binds the port it is given: a port found free may be taken
	// in between, so a run whose scheduler could not bind is retried.
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		endpoint := "tcp://127.0.0.1:" + strconv.Itoa(port)
		runCtx, stop := context.WithCancel(ctx)
		var slog bytes.Buffer
		args := argv(endpoint)
		sched := exec.CommandContext(runCtx, args[0], args[1:]...)
		sched.Stdout, sched.Stderr = &slog, &slog
		sched.WaitDelay = 5 * time.Second
		if err := sched.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting %s: %w", args[0], err)
		}
		schedDone := make(chan error, 1)
		go func() { schedDone <- sched.Wait() }()
		var log bytes.Buffer
		cmd := batsimCmd(runCtx, o, platform, workload, dir, endpoint)
		cmd.Stdout, cmd.Stderr = &log, &log
		began := time.Now()
		if err := cmd.Start(); err != nil {
			stop()
			<-schedDone
			return nil, fmt.Errorf("starting batsim: %w", err)
		}
		ran := make(chan error, 1)
		var wall time.Duration
		go func() { err := cmd.Wait(); wall = time.Since(began); ran <- err }()
		var runErr, schedErr error
		select {
		case runErr = <-ran:
			select {
			case schedErr = <-schedDone:
			case <-time.After(10 * time.Second):
				stop()
				schedErr = <-schedDone
			}
		case schedErr = <-schedDone:
			if schedErr != nil {
				// Batsim would wait for the answer forever.
				stop()
			}
			runErr = <-ran
		}
		stop()
		switch {
		case runErr == nil && schedErr == nil:
			res, err := collect(dir, log.Bytes(), nil)
			if res != nil {
				res.Batsim, res.Scheduler, res.Wall = cmd.ProcessState, sched.ProcessState, wall
			}
			return res, err
		case strings.Contains(slog.String(), "Address already in use") || strings.Contains(slog.String(), "address already in use"):
			lastErr = fmt.Errorf("%s: address already in use", args[0])
			continue
		case schedErr != nil:
			return collect(dir, log.Bytes(), &BatschedFailure{Err: schedErr, Log: slog.String()})
		}
		return collect(dir, log.Bytes(), fmt.Errorf("batsim: %w", runErr))
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Policy runs Batsim against spec with options opts (Batsim's flags for
// the features it needs added, run.Needs; the Session's audit on), on the platform and
// workload files, with its outputs in dir (out_jobs.csv, ...).
func Policy(ctx context.Context, o Options, spec *sched.Spec, opts sched.Options, platform, workload, dir string) (*Result, error) {
	pol := run.Policy{Spec: spec, Options: opts, Validate: true, Log: slog.New(slog.DiscardHandler)}
	sess, err := pol.NewSession()
	if err != nil {
		return nil, err
	}
	o.Args = append(run.Needs(spec, run.Given{}).BatsimArgs(), o.Args...)
	return WithHandler(ctx, o, platform, workload, dir, sess)
}
