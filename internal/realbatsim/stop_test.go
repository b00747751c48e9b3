package realbatsim

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// A scheduler that stops on an error answers the message it failed on with
// batsim.StopReply: the real Batsim then writes its output files (the
// jobs done so far) and ends on its own, with an error status and a log
// line quoting the reply, instead of waiting forever for an answer.
func TestStopReplyEndsBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	root := corpus.ModuleRoot()
	spec, err := policies.Builtin().Lookup("fcfs")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := (&run.Policy{Spec: spec}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	// FCFS until the first job completes, then a failure.
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
		for _, ev := range m.Events {
			if ev.Type == batsim.TypeJobCompleted {
				return nil, errors.New("a failure of the scheduler")
			}
		}
		return sess.Handle(m)
	})
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- l.Serve(context.Background(), h) }()
	dir := t.TempDir()
	// A guard against a hang (the bug this test pins), not a timing.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", filepath.Join(root, "platforms", "lille.xml"), "-w", filepath.Join(root, "workloads", "tiny.json"),
		"-e", filepath.Join(dir, "out"), "-s", l.Endpoint())
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	runErr := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("Batsim did not stop after the scheduler's stop reply:\n%s", tailOf(log.String()))
	}
	var ee *exec.ExitError
	if !errors.As(runErr, &ee) {
		t.Fatalf("Batsim: %v, want an error status\n%s", runErr, tailOf(log.String()))
	}
	if err := <-served; err == nil || !strings.Contains(err.Error(), "a failure of the scheduler") {
		t.Fatalf("Serve: %v", err)
	}
	for _, w := range []string{"Runtime error received", "bucma_stopped_on_an_error", "Output files flushed"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("Batsim's log lacks %q:\n%s", w, tailOf(log.String()))
		}
	}
	jobs, err := os.ReadFile(filepath.Join(dir, "out_jobs.csv"))
	if err != nil || !bytes.HasPrefix(jobs, []byte("job_id,")) {
		t.Errorf("Batsim's jobs file: %v %q", err, jobs)
	}
	t.Logf("Batsim ended after the stop reply: %v", ee)
}

// TestRunStopsBatsim4: bucma run answers a Batsim 4 it cannot serve (no
// --scheduler, which Batsim 4 has no init string to replace, or --batsim5)
// with its stop reply, so that Batsim ends on its own, and exits with the
// error: status 2 for the missing --scheduler (a bad command line), 1 for
// the peer that is not Batsim 5 (a protocol error).
func TestRunStopsBatsim4(t *testing.T) {
	bin := batsimrun.Batsim(t)
	root := corpus.ModuleRoot()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		run  []string
		code int
		want string
	}{
		{nil, 2, "--scheduler is required to serve Batsim 4"},
		{[]string{"--scheduler", "fcfs", "--batsim5"}, 1, "not Batsim 5's initialization"},
	} {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ep := filepath.Join(dir, "endpoint")
		// A guard against a hang (what the test pins), not a timing.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		run := append([]string{"env", asBucmaEnv + "=1", self, "run", "-s", "tcp://127.0.0.1:*", "--endpoint-file", ep}, c.run...)
		r, err := batsimrun.Pair(ctx, run, ep, func(endpoint string) []string {
			return []string{bin, "-p", filepath.Join(root, "platforms", "lille.xml"), "-w", filepath.Join(root, "workloads", "tiny.json"),
				"-e", filepath.Join(dir, "out"), "-s", endpoint}
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Hung {
			t.Fatalf("%v: bucma run or Batsim did not end\nbucma: %s\nBatsim: %s", c.run, tailOf(r.SchedLog), tailOf(r.BatsimLog))
		}
		var ee *exec.ExitError
		if !errors.As(r.BatsimErr, &ee) || !strings.Contains(r.BatsimLog, "bucma_stopped_on_an_error") {
			t.Errorf("%v: Batsim: %v, want its end on bucma's stop reply\n%s", c.run, r.BatsimErr, tailOf(r.BatsimLog))
		}
		if !errors.As(r.SchedErr, &ee) || ee.ExitCode() != c.code || !strings.Contains(r.SchedLog, c.want) {
			t.Errorf("%v: bucma run: %v, want exit status %d and %q\n%s", c.run, r.SchedErr, c.code, c.want, r.SchedLog)
		}
	}
}

func tailOf(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
