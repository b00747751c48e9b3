package realbatsim5

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// readmeBlock is one shell block of a document with its runnable-docs mark
// (the HTML comment line before it: <!-- test: run -->, <!-- test: batsim5
// -->, <!-- test: skip REASON -->).
type readmeBlock struct {
	line int
	mark string
	text string
}

// readmeSection returns the shell blocks of a README section.
func readmeSection(t *testing.T, path, section string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeBlock
	in, mark := false, ""
	var cur *readmeBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur != nil:
			if l == "```" {
				out = append(out, *cur)
				cur = nil
			} else {
				cur.text += l + "\n"
			}
		case strings.HasPrefix(l, "## "):
			in = l == "## "+section
		case !in:
		case strings.HasPrefix(l, "<!-- test:"):
			mark = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "<!-- test:"), "-->"))
		case l == "```sh":
			if mark == "" {
				t.Errorf("%s:%d: a shell block without a runnable-docs mark", path, n)
			}
			cur = &readmeBlock{line: n, mark: mark}
			mark = ""
		}
	}
	return out
}

// TestReadmeBatsim5 runs the shell blocks of docs/batsim5.md's "Quick
// start" section, in order, as a user of a fresh clone would, in a scratch
// directory that links the repository's files (bin/ and the outputs are its
// own).
func TestReadmeBatsim5(t *testing.T) {
	batsim5(t)
	root, dir := scratchClone(t, "readme")
	blocks := readmeSection(t, filepath.Join(root, "docs", "batsim5.md"), "Quick start")
	if len(blocks) < 4 {
		t.Fatalf("docs/batsim5.md's Quick start section has %d shell blocks", len(blocks))
	}
	t.Logf("docs/batsim5.md's Quick start: %d shell blocks ran", runBlocks(t, "docs/batsim5.md", blocks, dir))
}

// TestDocsBatsim5 runs the Batsim 5 blocks of the docs' sections that have
// some (the bridge's, in docs/batsim5.md; docs/check.md's), in order, in a
// scratch clone where bin/ is built first (make build lib).
func TestDocsBatsim5(t *testing.T) {
	batsim5(t)
	batsimrun.Batsched(t)
	root, dir := scratchClone(t, "docs")
	cmd := exec.Command("make", "build", "lib")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build lib: %v\n%s", err, tail(string(out), 3000))
	}
	for _, s := range []struct{ file, section string }{
		{"docs/batsim5.md", "Running your Batsim 4 scheduler on Batsim 5"},
		{"docs/check.md", "Who plays Batsim"},
	} {
		blocks := readmeSection(t, filepath.Join(root, s.file), s.section)
		if len(blocks) == 0 {
			t.Fatalf("%s's section %q has no shell block", s.file, s.section)
		}
		t.Logf("%s, %s: %d shell blocks ran", s.file, s.section, runBlocks(t, s.file, blocks, dir))
	}
}

// scratchClone makes a scratch directory named name that links the
// repository's files but bin/ and the outputs; it returns the repository's
// root and the directory.
func scratchClone(t *testing.T, name string) (root, dir string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(tmpRoot, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	linkRepo(t, root, dir)
	return root, dir
}

// runBlocks runs the run and batsim5 blocks of file in dir, in order, and
// returns how many ran.
func runBlocks(t *testing.T, file string, blocks []readmeBlock, dir string) int {
	t.Helper()
	ran := 0
	for _, b := range blocks {
		switch {
		case b.mark == "run" || b.mark == "batsim5":
		case strings.HasPrefix(b.mark, "skip"), b.mark == "batsim":
			continue
		default:
			t.Fatalf("%s:%d: unknown mark %q", file, b.line, b.mark)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.text)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s:%d: %v\n%s\n%s", file, b.line, err, b.text, tail(string(out), 3000))
		}
		ran++
	}
	return ran
}
