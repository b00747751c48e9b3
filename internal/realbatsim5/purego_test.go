package realbatsim5

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// pureGoBinary builds cmd/bucma with CGO_ENABLED=0 (no C compiler, no
// libzmq: what `CGO_ENABLED=0 go install .../cmd/bucma@latest` gives).
func pureGoBinary(t *testing.T) string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	bin := filepath.Join(tmpRoot, "bucma-purego")
	cmd := exec.Command(gobin, "build", "-o", bin, "github.com/bucma-sched/bucma/cmd/bucma")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/bucma: %v\n%s", err, out)
	}
	// Its --version says it has the native transport only.
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if !strings.Contains(string(out), "transports: native ZMTP 3.0 (tcp:// only; built without cgo") {
		t.Fatalf("--version of the pure-Go build: %q", out)
	}
	return bin
}

// TestPureGoBinary: bucma built without cgo simulates, and serves the real
// Batsim 4.2.1 and Batsim 5 over its own ZeroMQ: the same jobs as its
// engine (Batsim 4) and as the decision component served in this process
// (Batsim 5).
func TestPureGoBinary(t *testing.T) {
	b4, b5 := batsimrun.Batsim(t), batsim5(t)
	bin := pureGoBinary(t)
	plat, wl := corpus.Path("hetero8_compute", "platform.xml"), corpus.Path("hetero8_compute", "workload.json")
	root := filepath.Join(tmpRoot, "purego")

	t.Run("batsim4", func(t *testing.T) {
		dir := filepath.Join(root, "batsim4")
		res, err := batsimrun.WithScheduler(context.Background(), batsimrun.Options{Batsim: b4}, func(ep string) []string {
			return []string{bin, "run", "--scheduler", "easy", "-s", ep}
		}, plat, wl, dir)
		if err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(dir, "engine")
		if out, err := exec.Command(bin, "simulate", "-p", plat, "-w", wl, "--scheduler", "easy", "-e", prefix, "-q").CombinedOutput(); err != nil {
			t.Fatalf("bucma simulate: %v\n%s", err, out)
		}
		engine, err := os.ReadFile(prefix + "_jobs.csv")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(res.Jobs, []byte("\n")) != 18 {
			t.Fatalf("Batsim's jobs (17 and a header):\n%s", res.Jobs)
		}
		if !bytes.Equal(res.Jobs, engine) {
			t.Fatalf("the pure-Go bucma served Batsim and simulated different jobs: %s", firstDiff(res.Jobs, engine))
		}
	})

	t.Run("batsim5", func(t *testing.T) {
		dir := filepath.Join(root, "batsim5")
		wl5 := writeV5(t, wl, dir)
		init := initString(t, "easy", nil)
		want, _, err := viaZMQ(t, plat, wl5, filepath.Join(dir, "inprocess"), init)
		if err != nil {
			t.Fatal(err)
		}
		got, err := viaBinary(t, b5, bin, plat, wl5, filepath.Join(dir, "binary"), init)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(got.Jobs, []byte("\n")) != 18 {
			t.Fatalf("Batsim 5's jobs (17 and a header):\n%s", got.Jobs)
		}
		if !bytes.Equal(want.Jobs, got.Jobs) {
			t.Fatalf("the pure-Go bucma run and the in-process decision component differ: %s", firstDiff(want.Jobs, got.Jobs))
		}
	})
}

// viaBinary runs Batsim 5 against `bin run` on a port it picks (read from
// its --endpoint-file).
func viaBinary(t *testing.T, b5, bin, plat, wl, dir, init string) (*result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	epFile := filepath.Join(dir, "endpoint")
	var slog bytes.Buffer
	sched := exec.CommandContext(ctx, bin, "run", "--scheduler", "easy", "--batsim5", "-s", "tcp://127.0.0.1:*", "--endpoint-file", epFile)
	sched.Stdout, sched.Stderr = &slog, &slog
	sched.WaitDelay = 5 * time.Second
	if err := sched.Start(); err != nil {
		return nil, err
	}
	schedDone := make(chan error, 1)
	go func() { schedDone <- sched.Wait() }()
	var ep []byte
	for ctx.Err() == nil {
		if b, err := os.ReadFile(epFile); err == nil {
			ep = bytes.TrimSpace(b)
			break
		}
		select {
		case err := <-schedDone:
			return nil, errors.Join(errors.New("bucma run stopped before listening"), err, errors.New(slog.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	log := &boundedLog{max: 1 << 16}
	cmd := batsim5Cmd(ctx, b5, plat, wl, dir, []string{"-s", string(ep), init}, nil)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := cmd.Run()
	if err := <-schedDone; err != nil {
		return nil, errors.Join(errors.New("bucma run"), err, errors.New(slog.String()))
	}
	r, _, err := collect(dir, log, runErr)
	return r, err
}
