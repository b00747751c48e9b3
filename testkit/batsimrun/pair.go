package batsimrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// PairResult is how a scheduler process and the Batsim that connected to
// it ended (Pair).
type PairResult struct {
	// SchedErr and BatsimErr are the processes' Wait results (an
	// *exec.ExitError for a non-zero status or a signal).
	SchedErr, BatsimErr error
	// SchedLog and BatsimLog are their standard output and error.
	SchedLog, BatsimLog string
	// Hung is set when ctx expired before both ended: they were killed.
	Hung bool
}

// lockedBuffer is a bytes.Buffer that two goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Pair runs a scheduler process and a Batsim process (4 or 5) that connects
// to it, and waits for both to end on their own: schedArgv starts the
// scheduler, which must write the endpoint it binds to the file epFile
// (bucma run --endpoint-file); batsimArgv(endpoint) is Batsim's command
// line. ctx is a guard against a hang, not a timing: when it expires
// before both processes ended, both are killed and Hung is set. Unlike
// WithScheduler, a process that fails does not stop the other: Pair is for
// the tests that check that each ends by itself.
func Pair(ctx context.Context, schedArgv []string, epFile string, batsimArgv func(endpoint string) []string) (*PairResult, error) {
	var slog, blog lockedBuffer
	sched := exec.CommandContext(ctx, schedArgv[0], schedArgv[1:]...)
	sched.Stdout, sched.Stderr = &slog, &slog
	sched.WaitDelay = 5 * time.Second
	if err := sched.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", schedArgv[0], err)
	}
	schedDone := make(chan error, 1)
	go func() { schedDone <- sched.Wait() }()
	r := &PairResult{}
	endpoint := ""
	for endpoint == "" {
		b, err := os.ReadFile(epFile)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			endpoint = strings.TrimSpace(string(b))
			break
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		select {
		case r.SchedErr = <-schedDone:
			r.SchedLog = slog.String()
			return r, fmt.Errorf("%s ended before writing %s: %v\n%s", schedArgv[0], epFile, r.SchedErr, r.SchedLog)
		case <-ctx.Done():
			r.Hung = true
			r.SchedErr, r.SchedLog = <-schedDone, slog.String()
			return r, fmt.Errorf("%s wrote no endpoint to %s", schedArgv[0], epFile)
		case <-time.After(10 * time.Millisecond):
		}
	}
	args := batsimArgv(endpoint)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = &blog, &blog
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	r.BatsimErr = cmd.Wait()
	r.SchedErr = <-schedDone
	r.Hung = ctx.Err() != nil
	r.SchedLog, r.BatsimLog = slog.String(), blog.String()
	return r, nil
}

// boundedOutput keeps what a process writes, up to max bytes, and kills
// the process once it has written more.
type boundedOutput struct {
	mu     sync.Mutex
	b      bytes.Buffer
	max    int
	proc   *os.Process
	killed bool
}

func (o *boundedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.b.Len() < o.max {
		o.b.Write(p)
	}
	if o.b.Len() >= o.max && !o.killed && o.proc != nil {
		o.killed = true
		_ = o.proc.Kill()
	}
	return len(p), nil
}

// RunBounded runs cmd with its standard output and error kept (up to max
// bytes) and returns them with its Wait's result; a process that writes
// more than max bytes (one that loops writing) is killed, and killed is
// set. The bound is on output, so that a test needs no timing.
func RunBounded(cmd *exec.Cmd, max int) (out string, killed bool, err error) {
	o := &boundedOutput{max: max}
	cmd.Stdout, cmd.Stderr = o, o
	if err := cmd.Start(); err != nil {
		return "", false, err
	}
	o.mu.Lock()
	o.proc = cmd.Process
	o.mu.Unlock()
	err = cmd.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String(), o.killed, err
}
