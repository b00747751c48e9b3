package realbatsim5

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// TestBatsimFaultEndsBatsim: Batsim 5.0.0-rc2 dereferences a deleted
// profile when it forwards the profiles of a workload that has one no job
// uses (gang asks for them at SimulationBegins), and dies of SIGSEGV after
// SimGrid's handler writes "Segmentation fault.". With bucma's library
// loaded it dies the same way, the line written once (the library's Go
// runtime forwarded the fault to SimGrid's handler without the reset the
// handler counts on, and it wrote the line forever).
func TestBatsimFaultEndsBatsim(t *testing.T) {
	bin := batsim5(t)
	lib := library(t)
	dir := filepath.Join(tmpRoot, "fault")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "unused-profile.json")
	if err := os.WriteFile(wl, []byte(`{"nb_res":4,"jobs":[{"id":"1","subtime":0,"walltime":100,"res":2,"profile":"used"}],`+
		`"profiles":{"used":{"type":"DelayProfile","delay":10},"unused":{"type":"DelayProfile","delay":5}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A guard against a hang, not a timing; the output bound catches the
	// loop.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := batsim5Cmd(ctx, bin, platformPath("lille"), wl, filepath.Join(dir, "out"), []string{"-l", lib, `{"policy":"gang"}`}, nil)
	text, killed, err := batsimrun.RunBounded(cmd, 1<<20)
	if killed || ctx.Err() != nil {
		t.Fatalf("batsim5 did not end on its fault (%d bytes written): %s", len(text), tail(text, 500))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("batsim5: %v, want its death on Batsim 5.0.0-rc2's fault\n%s", err, tail(text, 2000))
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Errorf("batsim5 ended with %v, want SIGSEGV", ws)
	}
	if n := strings.Count(text, "Segmentation fault."); n != 1 {
		t.Errorf("SimGrid's line written %d times, want once\n%s", n, tail(text, 2000))
	}
}
