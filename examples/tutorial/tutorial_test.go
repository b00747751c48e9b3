// Package tutorial runs docs/writing-a-policy.md as a reader would: in a
// fresh directory outside the checkout, it writes each file the guide
// shows (a ```go block after a <!-- file: PATH --> line) and runs each
// shell block, in the guide's order, with BUCMA_SRC set to this checkout.
// The blocks that need Batsim run where batsim is on PATH.
package tutorial

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fileMark = regexp.MustCompile(`^<!-- file: (\S+) -->$`)

func TestWritingAPolicyGuide(t *testing.T) {
	if testing.Short() {
		t.Skip("the guide builds a module: not in -short")
	}
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	guide := filepath.Join(src, "docs", "writing-a-policy.md")
	f, err := os.Open(guide)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, noBatsim := exec.LookPath("batsim")
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	sc := bufio.NewScanner(f)
	file, lang := "", ""
	var block []string
	inBlock := false
	nfiles, nblocks := 0, 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !inBlock && fileMark.MatchString(line):
			file = fileMark.FindStringSubmatch(line)[1]
		case !inBlock && strings.HasPrefix(line, "```"):
			inBlock, lang, block = true, strings.TrimPrefix(line, "```"), nil
		case inBlock && line == "```":
			inBlock = false
			body := strings.Join(block, "\n") + "\n"
			switch {
			case file != "":
				nfiles++
				script.WriteString("mkdir -p \"$(dirname '" + file + "')\"\ncat > '" + file + "' <<'GUIDE_EOF'\n" + body + "GUIDE_EOF\n")
				file = ""
			case lang == "sh":
				if strings.Contains(body, "export BUCMA_SRC=") {
					continue // the test sets it
				}
				if noBatsim != nil && strings.Contains(body, "batsim -p") {
					t.Logf("%s:%d: shell block skipped: batsim is not on PATH", guide, n)
					continue
				}
				nblocks++
				script.WriteString(body)
			}
		case inBlock:
			block = append(block, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if nfiles < 3 || nblocks < 3 {
		t.Fatalf("the guide shows %d files and %d shell blocks: the test does not find them", nfiles, nblocks)
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BUCMA_SRC="+src, "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's commands failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "sjf") {
		t.Fatalf("list did not show sjf:\n%s", out)
	}
	jobs, err := os.ReadFile(filepath.Join(dir, "mypolicy", "out", "engine_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(jobs), "\n"); n != 7057 {
		t.Fatalf("simulate wrote %d lines of _jobs.csv, want 7057", n)
	}
	if len(out) > 3000 {
		out = out[len(out)-3000:]
	}
	t.Logf("%d files written, %d shell blocks run; the end of their output:\n%s", nfiles, nblocks, out)
}
