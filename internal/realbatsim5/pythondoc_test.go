package realbatsim5

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/internal/doctest"
)

// linkRepo links the repository's files at root into dir, but bin/, the
// outputs (out*), the hidden files and own.
func linkRepo(t *testing.T, root, dir string, own ...string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if n == "bin" || strings.HasPrefix(n, "out") || strings.HasPrefix(n, ".") || slices.Contains(own, n) {
			continue
		}
		if err := os.Symlink(filepath.Join(root, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPythonDocBatsim5 runs the shell blocks of docs/python.md marked run
// or batsim5, in order, as a user of a fresh clone would, in a scratch
// directory that links the repository's files (bin/, the outputs, the
// virtual environment and python/, into which the package's library is
// built, are its own). Where no Python 3.11+ with numpy is found (the
// Makefile's PYTHON), it skips, saying so.
func TestPythonDocBatsim5(t *testing.T) {
	batsim5(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("make", "-s", "--no-print-directory", "-C", root, "--eval", "print-python: ; @echo $(PYTHON)", "print-python").Output()
	if err != nil {
		t.Fatal(err)
	}
	python := strings.TrimSpace(string(out))
	if err := exec.Command(python, "-c", "import sys, numpy; sys.exit(sys.version_info < (3, 11))").Run(); err != nil {
		t.Skipf("docs/python.md skipped: %s is not a Python 3.11+ with numpy", python)
	}
	blocks, problems, err := doctest.Parse(root, filepath.Join("docs", "python.md"))
	if err != nil || len(problems) > 0 {
		t.Fatalf("docs/python.md: %v %v", err, problems)
	}
	dir := filepath.Join(tmpRoot, "pythondoc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	linkRepo(t, root, dir, "python", "results")
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "python"), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying python/: %v\n%s", err, out)
	}
	run := func(what, script string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", what, err, script, tail(string(out), 3000))
		}
	}
	run("make build", "make -s build")
	ran := 0
	for _, b := range blocks {
		if b.Kind != doctest.Run && b.Kind != doctest.Batsim5 {
			continue
		}
		run(b.String(), b.Text)
		ran++
	}
	if ran < 4 {
		t.Fatalf("docs/python.md: %d blocks ran", ran)
	}
	t.Logf("docs/python.md: %d shell blocks ran", ran)
}
