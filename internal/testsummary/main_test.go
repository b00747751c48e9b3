package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A stream of go test's events: counts by package and in all, the output
// of failed tests, why tests were skipped, a package that does not build,
// and the total as the last line.
func TestSummary(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"start","Package":"m/a"}`,
		`{"Action":"run","Package":"m/a","Test":"TestOne"}`,
		`{"Action":"output","Package":"m/a","Test":"TestOne","Output":"=== RUN   TestOne\n"}`,
		`{"Action":"pass","Package":"m/a","Test":"TestOne","Elapsed":0.1}`,
		`{"Action":"run","Package":"m/a","Test":"TestTwo"}`,
		`{"Action":"output","Package":"m/a","Test":"TestTwo/sub","Output":"    a_test.go:9: got 3, want 4\n"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestTwo/sub","Elapsed":0}`,
		`{"Action":"fail","Package":"m/a","Test":"TestTwo","Elapsed":0}`,
		`{"Action":"output","Package":"m/a","Test":"TestBatsim","Output":"    b_test.go:12: real-Batsim tier skipped: batsim is not on PATH\n"}`,
		`{"Action":"skip","Package":"m/a","Test":"TestBatsim","Elapsed":0}`,
		`{"Action":"output","Package":"m/a","Test":"TestAlsoBatsim","Output":"    c_test.go:7: real-Batsim tier skipped: batsim is not on PATH\n"}`,
		`{"Action":"skip","Package":"m/a","Test":"TestAlsoBatsim","Elapsed":0}`,
		`{"Action":"fail","Package":"m/a","Elapsed":1.5}`,
		`{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"b.go:3:1: syntax error\n"}`,
		`{"ImportPath":"m/b [m/b.test]","Action":"build-fail"}`,
		`{"Action":"start","Package":"m/b"}`,
		`{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}`,
		`{"Action":"fail","Package":"m/b","Elapsed":0,"FailedBuild":"m/b [m/b.test]"}`,
		`{"Action":"start","Package":"m/c"}`,
		`{"Action":"pass","Package":"m/c","Test":"TestX","Elapsed":0}`,
		`{"Action":"pass","Package":"m/c","Elapsed":0.2}`,
		`{"Action":"start","Package":"m/d"}`,
		`{"Action":"skip","Package":"m/d","Elapsed":0}`,
		`a line that is not an event`,
	}, "\n")
	var out strings.Builder
	s := newSummary(&out, time.Now)
	s.read(0, strings.NewReader(events))
	if !s.finish() {
		t.Error("finish reports no failure")
	}
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if last := lines[len(lines)-1]; last != "2 passed, 3 failed, 2 skipped" {
		t.Errorf("last line %q\n%s", last, text)
	}
	if strings.Contains(text, "m/d") {
		t.Errorf("a package without tests is listed:\n%s", text)
	}
	for _, w := range []string{
		"FAIL  m/a", "2 failed", "--- TestTwo/sub:", "got 3, want 4",
		"skipped TestAlsoBatsim, TestBatsim: real-Batsim tier skipped: batsim is not on PATH",
		"FAIL  m/b", "b.go:3:1: syntax error",
		"ok    m/c", "a line that is not an event",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q:\n%s", w, text)
		}
	}
}

// All passed: status 0, the counts as the last line; a package still
// running is listed by progress.
func TestSummaryPassAndProgress(t *testing.T) {
	var out strings.Builder
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newSummary(&out, func() time.Time { return clock })
	s.read(0, strings.NewReader(`{"Action":"start","Package":"github.com/o/r/slow"}
{"Action":"pass","Package":"github.com/o/r/slow","Test":"TestA","Elapsed":0}`))
	clock = clock.Add(95 * time.Second)
	s.progress()
	if !strings.Contains(out.String(), "… 1m35s: running slow (1m35s, 1 passed)") {
		t.Errorf("progress line missing:\n%s", out.String())
	}
	s.read(0, strings.NewReader(`{"Action":"pass","Package":"github.com/o/r/slow","Elapsed":95}`))
	if s.finish() {
		t.Error("finish reports a failure")
	}
	if !strings.HasSuffix(out.String(), "\n1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

// A command that fails without any event of a failure (a bad flag) is one
// failure, and the exit status says so.
func TestSummaryCommandFails(t *testing.T) {
	var out strings.Builder
	s := newSummary(&out, time.Now)
	if s.runAll([]string{"true", "false"}, 1, time.Hour) {
		t.Fatal("the command's failure is not reported")
	}
	if !s.finish() || !strings.HasSuffix(out.String(), "0 passed, 1 failed, 0 skipped\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

// Commands run side by side (-jobs): the same package in two of them at
// once (with and without the race detector) is two packages, each counted
// and reported; one command's failure is counted once, and another's
// running packages do not hide it.
func TestSummaryJobs(t *testing.T) {
	dir := t.TempDir()
	// Each command starts its package, then waits until the other has
	// started its own, so that both run at once.
	script := func(me, other, test, action string) string {
		path := filepath.Join(dir, me+".sh")
		text := fmt.Sprintf(`echo '{"Action":"start","Package":"m/a"}'
touch %[1]s/%[2]s
while [ ! -e %[1]s/%[3]s ]; do sleep 0.01; done
echo '{"Action":"%[5]s","Package":"m/a","Test":"%[4]s"}'
echo '{"Action":"%[5]s","Package":"m/a"}'
`, dir, me, other, test, action)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return "sh " + path
	}
	var out strings.Builder
	s := newSummary(&out, time.Now)
	cmds := []string{script("one", "two", "TestOne", "pass"), script("two", "one", "TestTwo", "fail")}
	if !s.runAll(cmds, 2, time.Hour) {
		t.Errorf("a command reported an error:\n%s", out.String())
	}
	if !s.finish() {
		t.Error("the failed test is not reported")
	}
	got := out.String()
	for _, want := range []string{"ok    m/a", "FAIL  m/a", "--- TestTwo:", "1 passed, 1 failed, 0 skipped\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

// A package that times out has no failed test: the output of the tests
// still running (where the timeout's panic goes) is printed, its last
// lines only.
func TestSummaryTimeoutShowsRunningTests(t *testing.T) {
	var lines []string
	lines = append(lines, `{"Action":"start","Package":"m/slow"}`,
		`{"Action":"output","Package":"m/slow","Test":"TestDone","Output":"=== RUN   TestDone\n"}`,
		`{"Action":"pass","Package":"m/slow","Test":"TestDone","Elapsed":1}`)
	for i := 0; i < unendedLines+5; i++ {
		lines = append(lines, fmt.Sprintf(`{"Action":"output","Package":"m/slow","Test":"TestHangs","Output":"line %d\n"}`, i))
	}
	lines = append(lines, `{"Action":"output","Package":"m/slow","Test":"TestHangs","Output":"panic: test timed out after 10m0s\n"}`,
		`{"Action":"output","Package":"m/slow","Output":"FAIL\tm/slow\t600.1s\n"}`,
		`{"Action":"fail","Package":"m/slow","Elapsed":600.1}`)
	var out strings.Builder
	s := newSummary(&out, time.Now)
	s.read(0, strings.NewReader(strings.Join(lines, "\n")))
	if !s.finish() {
		t.Fatal("the timeout is not a failure")
	}
	got := out.String()
	for _, want := range []string{"--- TestHangs (did not end):", "[... 6 lines]", "panic: test timed out after 10m0s", "line 44"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "line 5\n") || strings.Contains(got, "TestDone") {
		t.Errorf("more than the running test's last lines:\n%s", got)
	}
}
