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
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeSection(t, filepath.Join(root, "docs", "batsim5.md"), "Quick start")
	if len(blocks) < 4 {
		t.Fatalf("docs/batsim5.md's Quick start section has %d shell blocks", len(blocks))
	}
	dir := filepath.Join(tmpRoot, "readme")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); n == "bin" || strings.HasPrefix(n, "out") || strings.HasPrefix(n, ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	ran := 0
	for _, b := range blocks {
		switch {
		case b.mark == "run" || b.mark == "batsim5":
		case strings.HasPrefix(b.mark, "skip"):
			continue
		default:
			t.Fatalf("docs/batsim5.md:%d: unknown mark %q", b.line, b.mark)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.text)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("docs/batsim5.md:%d: %v\n%s\n%s", b.line, err, b.text, tail(string(out), 3000))
		}
		ran++
	}
	t.Logf("docs/batsim5.md's Quick start: %d shell blocks ran", ran)
}
