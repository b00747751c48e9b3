package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// buildTools builds the library and testdata/faulter.c (a C program that
// loads it as Batsim does), or skips without a C compiler.
func buildTools(t *testing.T) (lib, faulter string) {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc: the C harness is not built")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	dir := t.TempDir()
	lib = filepath.Join(dir, "libbucma.so")
	if out, err := exec.Command(gobin, "build", "-buildmode=c-shared", "-o", lib, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	faulter = filepath.Join(dir, "faulter")
	if out, err := exec.Command(cc, "-O0", "-o", faulter, filepath.Join("testdata", "faulter.c"), "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("gcc faulter.c: %v\n%s", err, out)
	}
	return lib, faulter
}

// TestForeignFaultKills checks that a fault in the C code of the process
// that loaded the library ends that process, as it does without the
// library: with a handler like SimGrid's (SA_RESETHAND, which writes a line
// and raises the signal again) installed before the library is loaded, the
// handler runs once and the process dies of the signal; without one, the
// process dies too.
func TestForeignFaultKills(t *testing.T) {
	lib, faulter := buildTools(t)
	for _, mode := range []string{"handler", "none"} {
		t.Run(mode, func(t *testing.T) {
			text, killed, err := batsimrun.RunBounded(exec.Command(faulter, lib, mode), 1<<16)
			if killed {
				t.Fatalf("the faulting process wrote %d bytes and was killed: it loops on its fault\n%s", len(text), text[:min(len(text), 2000)])
			}
			if !strings.Contains(text, "faulter: initialized") {
				t.Fatalf("the library did not initialize:\n%s", text)
			}
			if strings.Contains(text, "survived") {
				t.Fatalf("the process went on after its fault:\n%s", text)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the faulting process ended with %v, want a death by signal or a non-zero status\n%s", err, text)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if mode == "handler" {
				if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
					t.Errorf("status %v, want death by SIGSEGV (the handler's own ending)\n%s", ws, text)
				}
				if n := strings.Count(text, "fault handler called"); n != 1 {
					t.Errorf("the process's fault handler ran %d times, want once\n%s", n, text)
				}
			} else if !ws.Signaled() && ws.ExitStatus() <= 0 {
				t.Errorf("status %v, want death by signal or a non-zero status\n%s", ws, text)
			}
		})
	}
}
