// Command testsummary runs test commands that print go test's JSON events
// (go test -json) and shows them as they go: a line per package when it
// ends (its counts, the output of each failed test, why each skipped test
// was skipped), a line every -every while packages are still running (which
// ones, and how long they have run), and at the end the total as its last
// line:
//
//	N passed, N failed, N skipped
//
// Tests and subtests are counted alike. A package that fails without a
// failed test (it does not build, a test binary panics or times out)
// counts as one failure. The exit status is 1 when anything failed or a
// command exited with an error, 0 otherwise. `make test` runs it:
//
//	testsummary 'go test -race -json PKG...' 'go test -json -count=1 TIER'
//
// Each argument is one command, split at spaces (no quoting). They run in
// turn, or -jobs N at a time, started in the order given: a command that
// keeps one core busy (a tier driving one external simulator after
// another) runs beside one that uses the others.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	every := flag.Duration("every", 30*time.Second, "how often to say which packages are still running")
	jobs := flag.Int("jobs", 1, "how many commands run at once")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testsummary [-every D] [-jobs N] 'go test -json ...' ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *jobs < 1 {
		fmt.Fprintf(os.Stderr, "testsummary: -jobs %d: give at least 1\n", *jobs)
		os.Exit(2)
	}
	s := newSummary(os.Stdout, time.Now)
	status := 0
	if !s.runAll(flag.Args(), *jobs, *every) {
		status = 1
	}
	if s.finish() {
		status = 1
	}
	os.Exit(status)
}

// runAll runs the commands, jobs at a time, saying every so often which
// packages are still running; it reports whether every command exited
// without an error.
func (s *summary) runAll(lines []string, jobs int, every time.Duration) bool {
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.progress()
			}
		}
	}()
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := true
	for i, line := range lines {
		argv := strings.Fields(line)
		if len(argv) == 0 {
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := s.run(i, argv); err != nil {
				s.commandFailed(i, argv, err)
				mu.Lock()
				ok = false
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ok
}

// event is one of go test's JSON events (cmd/test2json).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail events
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

// pkg is what is known of one package while it runs.
type pkg struct {
	name                  string
	cmd                   int // the command whose events these are
	start                 time.Time
	passed, failed, skips int
	output                map[string][]string // by test ("" for the package)
	failedTests           []string
	skipped               map[string]string // top-level test: why
}

// summary gathers the events of every command.
type summary struct {
	w       io.Writer
	now     func() time.Time
	start   time.Time
	mu      sync.Mutex
	running map[runKey]*pkg
	// build holds the output of packages that do not build, by import
	// path.
	build                 map[string][]string
	passed, failed, skips int
	failures              []string // failed packages and tests
	// failedBy counts the failures of each command's packages.
	failedBy map[int]int
}

// runKey names a running package: a package may run in two commands at
// once (with and without the race detector, with and without cgo).
type runKey struct {
	cmd  int
	name string
}

func newSummary(w io.Writer, now func() time.Time) *summary {
	return &summary{w: w, now: now, start: now(), running: map[runKey]*pkg{}, build: map[string][]string{}, failedBy: map[int]int{}}
}

// run runs command number i, reading its events from its standard output;
// its standard error goes through.
func (s *summary) run(i int, argv []string) error {
	s.mu.Lock()
	fmt.Fprintf(s.w, "▶ %s\n", shorten(strings.Join(argv, " "), 160))
	s.mu.Unlock()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.read(i, out)
	return cmd.Wait()
}

// read handles the events of command i from r, one JSON object a line;
// other lines are printed as they are.
func (s *summary) read(i int, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			s.mu.Lock()
			fmt.Fprintln(s.w, string(line))
			s.mu.Unlock()
			continue
		}
		s.handle(i, e)
	}
}

func (s *summary) handle(i int, e event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	k := runKey{i, e.Package}
	p := s.running[k]
	if p == nil {
		p = &pkg{name: e.Package, cmd: i, start: s.now(), output: map[string][]string{}, skipped: map[string]string{}}
		s.running[k] = p
	}
	switch e.Action {
	case "output":
		p.output[e.Test] = append(p.output[e.Test], e.Output)
	case "pass", "fail", "skip":
		if e.Test != "" {
			s.testEnded(p, e)
			return
		}
		s.packageEnded(p, e)
	}
}

// testEnded counts one test (or subtest).
func (s *summary) testEnded(p *pkg, e event) {
	switch e.Action {
	case "pass":
		p.passed++
	case "fail":
		p.failed++
		p.failedTests = append(p.failedTests, e.Test)
	case "skip":
		p.skips++
		if !strings.Contains(e.Test, "/") {
			p.skipped[e.Test] = skipReason(p.output[e.Test])
		}
	}
	if e.Action != "fail" {
		delete(p.output, e.Test)
	}
}

// skipReason is the message of a skipped test's t.Skip, from its output.
func skipReason(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		if i := strings.Index(l, ": "); i > 0 && strings.Contains(l[:i], ".go:") {
			l = l[i+2:]
		}
		return l
	}
	return ""
}

// unendedLines bounds the output printed of each test that had not ended
// when its package failed.
const unendedLines = 40

// packageEnded prints the package's line, its failures and skips, and adds
// its counts to the total.
func (s *summary) packageEnded(p *pkg, e event) {
	delete(s.running, runKey{p.cmd, p.name})
	elapsed := time.Duration(e.Elapsed * float64(time.Second)).Round(100 * time.Millisecond)
	counts := fmt.Sprintf("%d passed", p.passed)
	if p.failed > 0 {
		counts += fmt.Sprintf(", %d failed", p.failed)
	}
	if p.skips > 0 {
		counts += fmt.Sprintf(", %d skipped", p.skips)
	}
	s.passed += p.passed
	s.failed += p.failed
	s.failedBy[p.cmd] += p.failed
	s.skips += p.skips
	switch {
	case e.Action == "skip" && p.passed+p.failed+p.skips == 0:
		return // no test files
	case e.Action == "fail":
		fmt.Fprintf(s.w, "FAIL  %-58s %8s  %s\n", p.name, elapsed, counts)
		for _, t := range p.failedTests {
			s.failures = append(s.failures, p.name+" "+t)
			fmt.Fprintf(s.w, "  --- %s:\n", t)
			s.print(p.output[t])
		}
		if p.failed == 0 {
			// No failed test: the package itself (build, panic,
			// timeout).
			s.failed++
			s.failedBy[p.cmd]++
			s.failures = append(s.failures, p.name)
			for _, k := range slices.Sorted(maps.Keys(s.build)) {
				if k == p.name || strings.HasPrefix(k, p.name+" [") {
					s.print(s.build[k])
				}
			}
			s.print(p.output[""])
			// The tests that were running then (a timeout's panic
			// names them and prints their goroutines in their output):
			// the last lines of each.
			for _, t := range slices.Sorted(maps.Keys(p.output)) {
				if t == "" || slices.Contains(p.failedTests, t) {
					continue
				}
				fmt.Fprintf(s.w, "  --- %s (did not end):\n", t)
				out := p.output[t]
				if len(out) > unendedLines {
					fmt.Fprintf(s.w, "      [... %d lines]\n", len(out)-unendedLines)
					out = out[len(out)-unendedLines:]
				}
				s.print(out)
			}
		}
	default:
		fmt.Fprintf(s.w, "ok    %-58s %8s  %s\n", p.name, elapsed, counts)
	}
	// Tests skipped for one reason (Batsim is not installed) share a line.
	byReason := map[string][]string{}
	for t, why := range p.skipped {
		byReason[why] = append(byReason[why], t)
	}
	for _, why := range slices.Sorted(maps.Keys(byReason)) {
		tests := byReason[why]
		slices.Sort(tests)
		fmt.Fprintf(s.w, "      skipped %s: %s\n", strings.Join(tests, ", "), shorten(why, 200))
	}
}

func (s *summary) print(lines []string) {
	for _, l := range lines {
		fmt.Fprint(s.w, "      ", l)
		if !strings.HasSuffix(l, "\n") {
			fmt.Fprintln(s.w)
		}
	}
}

// progress says which packages are still running.
func (s *summary) progress() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.running) == 0 {
		return
	}
	now := s.now()
	ps := make([]*pkg, 0, len(s.running))
	for _, p := range s.running {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].start.Before(ps[j].start) })
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s (%s, %d passed)", strings.TrimPrefix(p.name, modulePrefix(p.name)), now.Sub(p.start).Round(time.Second), p.passed))
	}
	fmt.Fprintf(s.w, "… %s: running %s\n", now.Sub(s.start).Round(time.Second), strings.Join(parts, ", "))
}

// modulePrefix is the part of an import path shared by the project's
// packages ("github.com/owner/name/").
func modulePrefix(path string) string {
	parts := strings.SplitN(path, "/", 4)
	if len(parts) == 4 && strings.Contains(parts[0], ".") {
		return strings.Join(parts[:3], "/") + "/"
	}
	return ""
}

// commandFailed records that command number i exited with an error: one
// failure unless its packages' events already told of one or will (a
// package that did not finish is one).
func (s *summary) commandFailed(i int, argv []string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "testsummary: %s: %v\n", shorten(strings.Join(argv, " "), 80), err)
	unfinished := false
	for k := range s.running {
		unfinished = unfinished || k.cmd == i
	}
	if s.failedBy[i] == 0 && !unfinished {
		s.failed++
		s.failures = append(s.failures, strings.Join(argv[:min(len(argv), 3)], " ")+": "+err.Error())
	}
}

// finish prints the failures again, the time taken and the total, and
// reports whether anything failed.
func (s *summary) finish() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Packages that never ended (a command stopped): failures.
	keys := slices.SortedFunc(maps.Keys(s.running), func(a, b runKey) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return a.cmd - b.cmd
	})
	for _, k := range keys {
		p := s.running[k]
		name := p.name
		s.passed += p.passed
		s.failed += p.failed + 1
		s.skips += p.skips
		s.failures = append(s.failures, name+" (did not finish)")
		fmt.Fprintf(s.w, "FAIL  %s: did not finish\n", name)
		s.print(p.output[""])
	}
	if len(s.failures) > 0 {
		fmt.Fprintf(s.w, "\nfailed:\n")
		for _, f := range s.failures {
			fmt.Fprintf(s.w, "  %s\n", f)
		}
	}
	fmt.Fprintf(s.w, "\ntests took %s\n", s.now().Sub(s.start).Round(time.Second))
	fmt.Fprintf(s.w, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skips)
	return s.failed > 0
}

func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
