package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bucma/internal/corpus"
)

// simulateCase is the corpus case the simulate tests run.
const simulateCase = "hetero4_delays"

func simulateArgs(prefix string, extra ...string) []string {
	return append([]string{"simulate", "-p", corpus.Path(simulateCase, "platform.xml"), "-w", corpus.Path(simulateCase, "workload.json"), "-e", prefix}, extra...)
}

// bucma simulate with the corpus' strict FCFS gives Batsim's _jobs.csv.
func TestSimulateInProcess(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "out")
	trace := prefix + "_trace.csv"
	err, code, out := runApp(t, simulateArgs(prefix, "--scheduler", "fcfs", "-o", "hosts=first-fit", "--validate", "--trace", trace)...)
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	want := corpus.ReadFile(t, simulateCase, "out_jobs.csv")
	got, _ := os.ReadFile(prefix + "_jobs.csv")
	if string(want) != string(got) {
		t.Errorf("_jobs.csv differs from Batsim's:\n%s\nwant\n%s", got, want)
	}
	for _, w := range []string{"jobs           13", "REJECTED                   1", "makespan       40.250225"} {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(prefix + "_schedule.csv"); err != nil {
		t.Error(err)
	}
	tr, err := os.ReadFile(trace)
	if err != nil || strings.Count(string(tr), "\n") != 14 {
		t.Errorf("decision trace: %v, want a header and 13 rows:\n%s", err, tr)
	}
}

// bucma simulate --connect drives bucma run over ZeroMQ like Batsim.
func TestSimulateConnectToRun(t *testing.T) {
	bound := make(chan string, 1)
	serveBound = func(ep string) { bound <- ep }
	t.Cleanup(func() { serveBound = nil })
	done := make(chan int, 1)
	go func() {
		_, code, _ := runApp(t, "run", "--scheduler", "fcfs", "-o", "hosts=first-fit", "-s", "tcp://127.0.0.1:*", "--timeout", "30s")
		done <- code
	}()
	var ep string
	select {
	case ep = <-bound:
	case <-time.After(runGuard):
		t.Fatal("bucma run did not bind")
	}
	prefix := filepath.Join(t.TempDir(), "out")
	err, code, out := runApp(t, simulateArgs(prefix, "--connect", ep, "--timeout", "30s", "-q")...)
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	select {
	case c := <-done:
		if c != 0 {
			t.Errorf("bucma run exited %d", c)
		}
	case <-time.After(runGuard):
		t.Fatal("bucma run did not end")
	}
	want := corpus.ReadFile(t, simulateCase, "out_jobs.csv")
	got, _ := os.ReadFile(prefix + "_jobs.csv")
	if string(want) != string(got) {
		t.Errorf("_jobs.csv over ZeroMQ differs from Batsim's:\n%s", got)
	}
}

func TestSimulateExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nb_res": 2, "jobs": [`), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing platform file", []string{"simulate", "-p", filepath.Join(dir, "nope.xml"), "-w", bad, "--scheduler", "fcfs"}, 1, "nope.xml"},
		{"malformed workload", []string{"simulate", "-p", "lille", "-w", bad, "--scheduler", "fcfs", "-e", filepath.Join(dir, "o")}, 1, "bad.json"},
		{"unknown scheduler", simulateArgs(filepath.Join(dir, "o"), "--scheduler", "nope"), 2, `"nope"`},
		{"unknown option", simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs", "-o", "x=1"), 2, `"x"`},
		{"bad latency", simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs", "--latency", "slow"), 2, "slow"},
		{"no scheduler", simulateArgs(filepath.Join(dir, "o")), 2, "--scheduler"},
		{"both schedulers", simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs", "--connect", "tcp://127.0.0.1:1"), 2, "not both"},
		{"no platform", []string{"simulate", "-w", bad, "--scheduler", "fcfs"}, 2, "--platform"},
		{"dynamic jobs, registration closed by the framework", simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs", "--sched-cfg", `{"hosts":"first-fit"}`, "--enable-dynamic-jobs"), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err, code, out := runApp(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %v\n%s", code, c.code, err, out)
			}
			if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("error %v does not mention %q", err, c.want)
			}
		})
	}
}

// A --workload path is taken whole: commas (and spaces) are part of it, and
// each occurrence of the flag is one workload.
func TestSimulateWorkloadPathWithComma(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs,2024")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "hetero4, delays.json")
	if err := os.WriteFile(wl, corpus.ReadFile(t, simulateCase, "workload.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	plat := corpus.Path(simulateCase, "platform.xml")
	prefix := filepath.Join(t.TempDir(), "out")
	err, code, out := runApp(t, "simulate", "-p", plat, "-w", wl, "-e", prefix, "--scheduler", "fcfs", "-o", "hosts=first-fit")
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	got, _ := os.ReadFile(prefix + "_jobs.csv")
	if want := corpus.ReadFile(t, simulateCase, "out_jobs.csv"); string(got) != string(want) {
		t.Errorf("_jobs.csv differs from Batsim's:\n%s", got)
	}
	err, code, out = runApp(t, "simulate", "-p", plat, "-w", wl, "-w", wl, "-e", prefix, "--scheduler", "fcfs")
	if err != nil || code != 0 || !strings.Contains(out, "jobs           26") {
		t.Fatalf("two workloads: exit %d: %v\n%s", code, err, out)
	}
}

// A platform feature the engine does not model (a speed trace) is refused
// before anything is simulated or written (exit 2, naming the feature and
// its line); --approximate runs anyway and says so first.
func TestSimulateRefusesUnmodelled(t *testing.T) {
	dir := t.TempDir()
	plat := corpus.ReadFile(t, simulateCase, "platform.xml")
	traced := strings.Replace(string(plat), `speed="1e9f"`, `speed="1e9f" speed_file="speed.trace"`, 1)
	if traced == string(plat) {
		t.Fatal("the corpus platform changed: no host to trace")
	}
	pf := filepath.Join(dir, "platform.xml")
	if err := os.WriteFile(pf, []byte(traced), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "out")
	args := []string{"simulate", "-p", pf, "-w", corpus.Path(simulateCase, "workload.json"), "-e", prefix, "--scheduler", "fcfs"}
	err, code, out := runApp(t, args...)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "speed_file") || !strings.Contains(err.Error(), "platform.xml:") || !strings.Contains(err.Error(), "--approximate") {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if _, err := os.Stat(prefix + "_jobs.csv"); err == nil {
		t.Error("a refused run wrote outputs")
	}
	err, code, out = runApp(t, append(args, "--approximate")...)
	if err != nil || code != 0 {
		t.Fatalf("--approximate: exit %d, %v\n%s", code, err, out)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "APPROXIMATE results") || !strings.Contains(first, "speed_file") {
		t.Errorf("first summary line %q", first)
	}
}
