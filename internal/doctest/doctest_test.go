package doctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// blockGuard bounds each block, and makeGuard the build: guards against a
// hang, not timings (the longest block takes well under a minute).
const (
	blockGuard = 10 * time.Minute
	makeGuard  = 10 * time.Minute
)

// allBlocks parses every document, failing t on any problem.
func allBlocks(t *testing.T, root string) []Block {
	t.Helper()
	docs, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	var all []Block
	for _, d := range docs {
		blocks, problems, err := Parse(root, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		all = append(all, blocks...)
	}
	return all
}

// Every shell block of the documentation says how it is tested.
func TestDocsBlocksAreMarked(t *testing.T) {
	blocks := allBlocks(t, corpus.ModuleRoot())
	counts := map[string]int{}
	for _, b := range blocks {
		counts[b.Kind]++
	}
	t.Logf("%d shell blocks: %d run, %d batsim, %d containers, %d skip", len(blocks), counts[Run], counts[Batsim], counts[Containers], counts[Skip])
	if counts[Run] == 0 {
		t.Error("no block is run: the documentation is not tested")
	}
}

// The parser's rules, on a document of each case.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	doc := "# t\n\n<!-- test: run -->\n```sh\necho ok\n```\n\n```sh\necho unmarked\n```\n\n<!-- test: skip -->\n```bash\nx\n```\n" +
		"<!-- test: nope -->\n```sh\ny\n```\n<!-- test: run -->\n```go\nfunc f() {}\n```\n<!-- test: containers -->\n````sh\ndocker ps\n```\n````\n" +
		"<!-- test: skip a template -->\n```console\n$ bin/bucma list\noutput\n```\n<!-- test: run -->\n\n```sh\nz\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "d.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, problems, err := Parse(dir, "d.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"d.md:8: sh block without a test marker",
		"d.md:12: <!-- test: skip --> needs a reason",
		"d.md:16: unknown test marker",
		"d.md:20: a test marker before a \"go\" block",
		"d.md:34: a test marker must be on the line just before",
		"d.md:36: sh block without a test marker",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems:\n%s", strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d: %q, want %q…", i, problems[i], w)
		}
	}
	if len(blocks) != 3 || blocks[0].Kind != Run || blocks[0].Text != "echo ok\n" || blocks[1].Kind != Containers ||
		blocks[1].Text != "docker ps\n```\n" || blocks[2].Reason != "a template" || blocks[2].Script() != "bin/bucma list\n" {
		t.Errorf("blocks %+v", blocks)
	}
}

// The run blocks of the documentation pass, as written, from a fresh copy
// of the repository after make build, in document order; the batsim blocks
// too when the real Batsim is on PATH.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("the documentation's commands are not run with -short")
	}
	root := corpus.ModuleRoot()
	blocks := allBlocks(t, root)
	if t.Failed() {
		return
	}
	_, err := exec.LookPath("batsim")
	haveBatsim := err == nil
	work := filepath.Join(t.TempDir(), "repo")
	copyRepo(t, root, work)
	iso := isolation()
	if iso == nil {
		t.Log("no network namespace (unshare -rn): blocks run on the machine's ports")
	}
	if out, err := runIn(work, []string{"make", "build"}, nil, makeGuard); err != nil {
		t.Fatalf("make build in a fresh copy: %v\n%s", err, out)
	}
	tracked := trackFiles(t, work)
	skippedBatsim := 0
	for _, b := range blocks {
		switch {
		case b.Kind == Batsim && !haveBatsim:
			skippedBatsim++
			continue
		case b.Kind != Run && b.Kind != Batsim:
			continue
		}
		script := filepath.Join(t.TempDir(), "block.sh")
		if err := os.WriteFile(script, []byte(b.Script()), 0o644); err != nil {
			t.Fatal(err)
		}
		if iso == nil {
			if err := portsFree(b.Script()); err != nil {
				t.Errorf("%s: %v", b, err)
				continue
			}
		}
		start := time.Now()
		out, err := runIn(work, []string{"bash", "-e", script}, iso, blockGuard)
		if err != nil {
			t.Errorf("%s (%s): %v\n--- block:\n%s--- output (end):\n%s", b, b.Kind, err, b.Text, tail(out, 4000))
			continue
		}
		t.Logf("%s (%s): passed in %s", b, b.Kind, time.Since(start).Round(10*time.Millisecond))
	}
	if skippedBatsim > 0 {
		t.Logf("%d batsim blocks skipped: batsim is not on PATH (see docs/testing.md)", skippedBatsim)
	}
	if left := tracked.untracked(t); len(left) > 0 {
		t.Errorf("the blocks leave files in the repository that git would show: %s (write them under out/ or results/, which git ignores, or remove them in the block)", strings.Join(left, ", "))
	}
}

// gitFiles is the copy of the repository as git sees it, to tell the files
// the documentation's commands leave in it.
type gitFiles struct{ dir string }

// trackFiles makes dir a git repository holding its files (those
// .gitignore does not ignore); nil where git is absent.
func trackFiles(t *testing.T, dir string) *gitFiles {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git is not on PATH: the files the blocks leave are not checked")
		return nil
	}
	for _, argv := range [][]string{{"git", "init", "-q"}, {"git", "add", "-A"}} {
		if out, err := runIn(dir, argv, nil, makeGuard); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	return &gitFiles{dir: dir}
}

// untracked lists the files git does not ignore that appeared since
// trackFiles.
func (g *gitFiles) untracked(t *testing.T) []string {
	t.Helper()
	if g == nil {
		return nil
	}
	out, err := runIn(g.dir, []string{"git", "status", "--porcelain", "--untracked-files=all"}, nil, makeGuard)
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	var left []string
	for _, l := range strings.Split(string(out), "\n") {
		if f, ok := strings.CutPrefix(l, "?? "); ok {
			left = append(left, f)
		}
	}
	return left
}

// copyRepo copies the files of the repository at root (those git tracks
// and the untracked ones it does not ignore; without git, every file but
// .git, bin, out and results) into dst.
func copyRepo(t *testing.T, root, dst string) {
	t.Helper()
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				switch rel {
				case ".git", "bin", "out", "results":
					return filepath.SkipDir
				}
				return nil
			}
			files = append(files, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		src := filepath.Join(root, f)
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// isolation returns the command prefix that runs a block in a network
// namespace of its own (its loopback up), so that the ports a block binds
// (28000 by default) cannot meet another process's; nil where that is not
// possible (no unshare, no user namespaces, no ip).
func isolation() []string {
	prefix := []string{"unshare", "--user", "--map-root-user", "--net", "sh", "-c", `ip link set lo up && exec "$@"`, "sh"}
	cmd := exec.Command(prefix[0], append(prefix[1:], "true")...)
	if cmd.Run() != nil {
		return nil
	}
	return prefix
}

var portRE = regexp.MustCompile(`(?:tcp://[^:\s'"]+:|--socket-endpoint\s+\S+:)([0-9]{2,5})\b`)

// portsFree checks that the TCP ports a block uses are free: 28000 when it
// serves or runs Batsim with their defaults, and those its endpoints name.
func portsFree(script string) error {
	ports := map[int]bool{}
	if strings.Contains(script, "bin/bucma run") || strings.Contains(script, "batsim ") {
		ports[28000] = true
	}
	for _, m := range portRE.FindAllStringSubmatch(script, -1) {
		if p, err := strconv.Atoi(m[1]); err == nil {
			ports[p] = true
		}
	}
	for p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
		if err != nil {
			return fmt.Errorf("port %d, which the block uses, is taken by another process (%v): free it and run the test again", p, err)
		}
		l.Close()
	}
	return nil
}

// runIn runs argv (after prefix) in dir, in a process group of its own
// that is killed once it ends or after guard, and returns its output.
func runIn(dir string, argv, prefix []string, guard time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	full := append(append([]string(nil), prefix...), argv...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A process left in the background keeps the output open: Wait
	// returns anyway once the block has ended.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("still running after %v: stopped", guard)
	}
	// Whatever the block left running in the background.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return out.Bytes(), err
}

func tail(b []byte, n int) string {
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}
