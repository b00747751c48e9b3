package pull_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/run/pull"
)

// The caller's FCFS served over ZeroMQ, driven by the embedded engine as
// Batsim would drive it, takes fcfs's decisions; the server's Next returns
// Running while no message comes.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	want := goRun(t, "fcfs", tiny, filepath.Join(dir, "go"))
	epFile := filepath.Join(dir, "ep")
	r := newRun(t, pull.Config{Mode: "serve", Endpoint: "tcp://127.0.0.1:*", EndpointFile: epFile, Wait: 0.01,
		Policy: pull.Policy{Caller: "decide", Name: "served-fcfs"}})
	engine := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		var ep []byte
		for len(ep) == 0 && time.Now().Before(deadline) {
			ep, _ = os.ReadFile(epFile)
			time.Sleep(5 * time.Millisecond)
		}
		_, err := run.Simulate(context.Background(), run.Simulation{
			Inputs:  run.Inputs{Platform: "lille", Workloads: []string{tiny}},
			Connect: strings.TrimSpace(string(ep)), Export: filepath.Join(dir, "served"),
		})
		engine <- err
	}()
	points := fcfs(t, r, nil)
	if err := <-engine; err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "served_jobs.csv"))
	if !bytes.Equal(got, want) || points < 20 {
		t.Fatalf("the served FCFS (%d points) differs from fcfs", points)
	}
}

// A server closed while it waits for Batsim stops at once.
func TestServeClose(t *testing.T) {
	r := newRun(t, pull.Config{Mode: "serve", Endpoint: "tcp://127.0.0.1:*", Wait: 0.01, Policy: pull.Policy{Caller: "decide"}})
	if k, err := r.Next(); k != pull.Running || err != nil {
		t.Fatalf("a server without Batsim: %s, %v", k, err)
	}
	if err := r.Close(nil); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("close: %v", err)
	}
}

// The caller's FCFS against the real Batsim 4.2.1, run by the Run, is
// Batsim's fcfs run (where batsim is on PATH).
func TestBatsimMode(t *testing.T) {
	if testing.Short() {
		t.Skip("the real Batsim")
	}
	if _, err := exec.LookPath("batsim"); err != nil {
		t.Skip("batsim is not on PATH")
	}
	dir := t.TempDir()
	want := goRun(t, "fcfs", tiny, filepath.Join(dir, "go"))
	r := newRun(t, pull.Config{Mode: "batsim", Platform: "lille", Workloads: []string{tiny}, Export: filepath.Join(dir, "batsim"),
		Wait: 0.01, Policy: pull.Policy{Caller: "decide"}})
	fcfs(t, r, nil)
	got, err := os.ReadFile(filepath.Join(dir, "batsim_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the caller's FCFS through Batsim differs from the engine's fcfs:\n%s\n%s", got, want)
	}
}
