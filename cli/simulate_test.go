package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/testkit"
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

// The summary's utilization under compute sharing is the busy fraction of
// the hosts: on 2 hosts, SGE's seqno choice with 2 slots on h0 and 1 on h1
// runs the delay jobs a (10 s) and b (8 s) together on h0 and c (8 s) on
// h1, each starting some tens of µs after 0 (the platform's latencies:
// a at 25 µs, the last finish 10.000025 s). h0 is busy 10 s, h1 8 s: 18
// host-seconds over 2 hosts × 10.000025 s, 0.899998. Counting every job's
// hosts × execution time (26 host-seconds) printed 130.00 %.
func TestSimulateSummaryUnderSharing(t *testing.T) {
	dir := t.TempDir()
	plat, wl := filepath.Join(dir, "p.xml"), filepath.Join(dir, "w.json")
	if err := os.WriteFile(plat, []byte(testkit.PlatformXML(make([]testkit.Host, 2))), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := []testkit.Job{{Name: "a", Res: 1, Run: 10}, {Name: "b", Res: 1, Run: 8}, {Name: "c", Res: 1, Run: 8}}
	if err := os.WriteFile(wl, testkit.WorkloadJSON(jobs), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "out")
	err, code, out := runApp(t, "simulate", "-p", plat, "-w", wl, "-e", prefix, "--scheduler", "sge-default-rr", "-o", "slots=2,1", "-o", "choice=seqno")
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	rows := testkit.ReadJobs(t, prefix+"_jobs.csv")
	hosts := map[string]string{}
	for _, r := range rows {
		hosts[r["job_id"]] = r["allocated_resources"]
	}
	if hosts["a"] != "0" || hosts["b"] != "0" || hosts["c"] != "1" {
		t.Fatalf("allocations %v, want a and b on 0, c on 1", hosts)
	}
	want := fmt.Sprintf("utilization    %.6f ", 18/(2*10.000025))
	for _, w := range []string{"makespan       10.000025 s", want, "utilization    0.899998 "} {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
}

// A run where no job ran (every job rejected) has no makespan, waiting
// time or utilization: the summary says so instead of printing NaN.
func TestSimulateSummaryNoJobRan(t *testing.T) {
	dir := t.TempDir()
	plat, wl := filepath.Join(dir, "p.xml"), filepath.Join(dir, "w.json")
	if err := os.WriteFile(plat, []byte(testkit.PlatformXML(make([]testkit.Host, 2))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, testkit.WorkloadJSON([]testkit.Job{{Name: "wide", Res: 3, Run: 10}}), 0o644); err != nil {
		t.Fatal(err)
	}
	err, code, out := runApp(t, "simulate", "-p", plat, "-w", wl, "-e", filepath.Join(dir, "out"), "--scheduler", "fcfs")
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if !strings.Contains(out, "REJECTED                   1") || !strings.Contains(out, "no job ran: no makespan") || strings.Contains(out, "NaN") {
		t.Errorf("summary of a run where no job ran:\n%s", out)
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

// A scheduler answering with an allocation up to the largest int makes
// "bucma simulate --connect" stop with an error naming the text (it used to
// expand the set until memory ran out).
func TestSimulateConnectHugeAllocation(t *testing.T) {
	for _, alloc := range []string{"0-9223372036854775807", "9223372036854775807"} {
		t.Run(alloc, func(t *testing.T) {
			ep := fakeScheduler(t, func(msg []byte) string {
				if m := jobIDRE.FindSubmatch(msg); m != nil {
					return `{"now":0.000015,"events":[{"timestamp":0.000015,"type":"EXECUTE_JOB","data":{"job_id":"` + string(m[1]) + `","alloc":"` + alloc + `"}}]}`
				}
				return `{"now":0,"events":[]}`
			})
			err, code, out := runApp(t, simulateArgs(filepath.Join(t.TempDir(), "out"), "--connect", ep, "--timeout", "30s", "-q")...)
			if code != 1 || err == nil || !strings.Contains(err.Error(), `"`+alloc+`"`) {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
		})
	}
}

var jobIDRE = regexp.MustCompile(`"job_id":"([^"]+)"`)

// fakeScheduler listens on a loopback port and answers every message with
// answer(message) until the test ends; it returns the endpoint.
func fakeScheduler(t *testing.T, answer func([]byte) string) string {
	t.Helper()
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = l.ServeRaw(ctx, func(raw []byte) ([]byte, bool, error) { return []byte(answer(raw)), false, nil })
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	return l.Endpoint()
}

// Errors about an input file name it once ("bad.json: bad.json: ..." used
// to be printed), and a workload with an empty job id stops the simulation
// before it starts, with the file and the job named.
func TestSimulateInputErrorsNameTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	cases := []struct {
		name, file, want string
	}{
		{"empty file", write("empty.json", ""), "invalid JSON"},
		{"truncated", write("cut.json", `{"nb_res": 2, "jobs": [`), "invalid JSON"},
		{"empty job id", write("noid.json", `{"nb_res":2,"jobs":[{"id":"","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":5}}}`), "job '#1': empty job id"},
		{"missing file", filepath.Join(dir, "nope.json"), "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prefix := filepath.Join(dir, "out")
			err, code, out := runApp(t, "simulate", "-p", "lille", "-w", c.file, "--scheduler", "fcfs", "-e", prefix)
			if code != 1 || err == nil {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
			if n := strings.Count(err.Error(), c.file); n != 1 || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error names %s %d times, want once, with %q: %v", c.file, n, c.want, err)
			}
			if _, err := os.Stat(prefix + "_jobs.csv"); !os.IsNotExist(err) {
				t.Errorf("an output was written for a bad input: %v", err)
			}
		})
	}
}

// A failed simulation leaves the outputs of an earlier one with the same
// names untouched: bad inputs are found before any output is opened, and a
// run failing midway keeps its rows as PREFIX_jobs.csv.partial and says so.
func TestSimulateOutputsKeptOnFailure(t *testing.T) {
	dir := t.TempDir()
	prefix, trace := filepath.Join(dir, "out"), filepath.Join(dir, "trace.csv")
	if err, code, out := runApp(t, simulateArgs(prefix, "--scheduler", "fcfs", "--trace", trace, "-q")...); code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	files := []string{prefix + "_jobs.csv", prefix + "_schedule.csv", trace}
	before := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		before[f] = string(b)
	}
	unchanged := func(t *testing.T, extra ...string) {
		t.Helper()
		for f, want := range before {
			if got, _ := os.ReadFile(f); string(got) != want {
				t.Errorf("%s changed", f)
			}
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if len(names) != len(files)+len(extra) {
			t.Errorf("directory holds %v", names)
		}
		for _, x := range extra {
			if _, err := os.Stat(x); err != nil {
				t.Error(err)
			}
		}
	}

	t.Run("bad inputs", func(t *testing.T) {
		for _, args := range [][]string{
			{"simulate", "-p", "lille", "-w", filepath.Join(dir, "missing.json"), "--scheduler", "fcfs", "-e", prefix, "--trace", trace},
			{"simulate", "-p", filepath.Join(dir, "missing.xml"), "-w", corpus.Path(simulateCase, "workload.json"), "--scheduler", "fcfs", "-e", prefix, "--trace", trace},
			simulateArgs(prefix, "--scheduler", "fcfs", "-o", "hosts=slowest", "--trace", trace),
		} {
			if err, code, _ := runApp(t, args...); code == 0 {
				t.Fatalf("%v: exit 0 (%v)", args, err)
			}
			unchanged(t)
		}
	})
	t.Run("failure midway", func(t *testing.T) {
		// The scheduler rejects the jobs of the first two submissions (5 jobs), then
		// answers garbage.
		n := 0
		ep := fakeScheduler(t, func(msg []byte) string {
			n++
			ids := jobIDRE.FindAllSubmatch(msg, -1)
			if n == 4 {
				return "not JSON"
			}
			var evs []string
			for _, m := range ids {
				evs = append(evs, `{"timestamp":0,"type":"REJECT_JOB","data":{"job_id":"`+string(m[1])+`"}}`)
			}
			return `{"now":0,"events":[` + strings.Join(evs, ",") + `]}`
		})
		err, code, out := runApp(t, simulateArgs(prefix, "--connect", ep, "--timeout", "30s", "-q")...)
		partial := prefix + "_jobs.csv.partial"
		if code != 1 || err == nil || !strings.Contains(err.Error(), "the rows written before the failure are in "+partial) {
			t.Fatalf("exit %d: %v\n%s", code, err, out)
		}
		unchanged(t, partial)
		rows, _ := os.ReadFile(partial)
		if n := strings.Count(string(rows), "REJECTED"); n != 5 || !strings.HasPrefix(string(rows), "job_id,") {
			t.Errorf("partial rows (%d rejected):\n%s", n, rows)
		}
	})
}

// TestSimulateEnergy: a policy that switches hosts turns --energy on; the
// summary gives the energy and the energy files are written. Without
// --energy, a power-state request stops the run with Batsim's reason.
func TestSimulateEnergy(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "bots.json")
	if err, code, msg := runApp(t, "workload", "bot", "--bots", "H1-1", "--out", wl); code != 0 {
		t.Fatalf("workload bot: %v (exit %d) %s", err, code, msg)
	}
	prefix := filepath.Join(dir, "out")
	err, code, out := runApp(t, "simulate", "-p", "bot", "-w", wl, "--scheduler", "threshold-vm-consolidation", "-o", "power=on", "-o", "place=pack", "-e", prefix)
	if code != 0 {
		t.Fatalf("simulate: %v (exit %d) %s", err, code, out)
	}
	if !strings.Contains(out, "energy ") || !strings.Contains(out, "_pstate_changes.csv") {
		t.Errorf("summary without the energy:\n%s", out)
	}
	pc, err := os.ReadFile(prefix + "_pstate_changes.csv")
	if err != nil || !strings.Contains(string(pc), ",1\n") {
		t.Errorf("no host went to sleep (pstate 1): %v\n%s", err, pc)
	}
	err, code, out = runApp(t, "simulate", "-p", "bot", "-w", wl, "--scheduler", "threshold-vm-consolidation", "-o", "power=on", "-o", "place=pack", "--energy=false", "-e", prefix+"2")
	if code == 0 || !strings.Contains(out+fmt.Sprint(err), "energy support") {
		t.Errorf("without --energy: exit %d, %v %s", code, err, out)
	}
}

// A signal stops "bucma simulate" with status 130 whatever it is doing:
// reading a workload that never ends (a pipe), or simulating a job of 10^8
// tasks that never waits on the scheduler.
func TestSimulateProcessInterrupted(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.json")
	if err := os.WriteFile(long, []byte(`{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"p"}],
		"profiles":{"p":{"type":"composed","repeat":100000000,"seq":["q"]},"q":{"type":"delay","delay":1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ready string
		args        []string
		want        string
	}{
		{"reading", "signal handlers installed", []string{"simulate", "-p", "lille", "-w", "/dev/stdin", "--scheduler", "fcfs", "-e", filepath.Join(dir, "r")}, "bucma: interrupted"},
		// -v logs every message: the job has started once EXECUTE_JOB is sent.
		{"simulating", "EXECUTE_JOB", []string{"simulate", "-p", "lille", "-w", long, "--scheduler", "fcfs", "-v", "-e", filepath.Join(dir, "s")}, "simulate: interrupted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw, err := os.Pipe() // never written: reading it never ends
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			defer pr.Close()
			cmd, _, logs := startProcess(t, pr, regexp.MustCompile(c.ready), c.args...)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			err = waitProcess(t, cmd)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit: %v, want status %d\n%s", err, exitInterrupted, logs.String())
			}
			if !strings.Contains(logs.String(), c.want) {
				t.Errorf("standard error lacks %q:\n%s", c.want, logs.String())
			}
		})
	}
}

// TestSimulateMemProfile: --memprofile writes a heap profile (gzip, as
// pprof writes it) taken during the run, and an unwritable path is a usage
// error before anything runs.
func TestSimulateMemProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "heap.prof")
	if err, code, msg := runApp(t, "simulate", "-p", "lille", "-w", "../workloads/tiny.json", "--scheduler", "fcfs", "-q", "-e", filepath.Join(dir, "out"), "--memprofile", prof); code != 0 {
		t.Fatalf("simulate --memprofile: exit %d: %v %s", code, err, msg)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is not a gzipped pprof profile (%d bytes)", len(b))
	}
	err, code, msg := runApp(t, "simulate", "-p", "lille", "-w", "../workloads/tiny.json", "--scheduler", "fcfs", "-q", "-e", filepath.Join(dir, "out2"), "--memprofile", filepath.Join(dir, "no", "such", "dir", "heap.prof"))
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--memprofile") {
		t.Fatalf("unwritable --memprofile: exit %d, %v %q; want 2 naming the flag", code, err, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "out2_jobs.csv")); err == nil {
		t.Fatal("the run went on after the unwritable --memprofile")
	}
}

// A mistake in --sched-cfg is the same usage error as the same mistake in
// --option: exit status 2, a message naming the key (and the valid ones),
// and nothing written, not even a .partial.
func TestSimulateSchedConfigUsageErrors(t *testing.T) {
	for _, c := range []struct {
		name, cfg, option string
		want              []string
	}{
		{"bad value", `{"hosts": "slowest"}`, "hosts=slowest", []string{`hosts="slowest"`, "fastest, first-fit"}},
		{"misspelt key", `{"host": "first-fit"}`, "host=first-fit", []string{`unknown option "host"`, "valid: hosts"}},
		{"not JSON", `{"hosts": "first-fit"`, "", []string{"sched-config is not a JSON object"}},
		{"not an object", `[1]`, "", []string{"sched-config is not a JSON object"}},
		{"value of no kind", `{"hosts": {"a": [1]}}`, "", []string{`sched-config key "hosts"`}},
	} {
		for _, how := range []string{"--sched-cfg", "--sched-cfg-file", "-o"} {
			if how == "-o" && c.option == "" {
				continue
			}
			t.Run(c.name+" "+how, func(t *testing.T) {
				dir := t.TempDir()
				args := simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs")
				switch how {
				case "--sched-cfg":
					args = append(args, how, c.cfg)
				case "--sched-cfg-file":
					f := filepath.Join(t.TempDir(), "cfg.json")
					if err := os.WriteFile(f, []byte(c.cfg), 0o644); err != nil {
						t.Fatal(err)
					}
					args = append(args, how, f)
				default:
					args = append(args, how, c.option)
				}
				err, code, out := runApp(t, args...)
				if code != 2 {
					t.Fatalf("exit %d, want 2: %v\n%s", code, err, out)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				if files, _ := os.ReadDir(dir); len(files) > 0 {
					t.Errorf("files written: %v", files)
				}
			})
		}
	}
}

// --sched-cfg-file reads a bounded file: a device without end is refused,
// not read into memory whole.
func TestSimulateSchedConfigFileBounded(t *testing.T) {
	dir := t.TempDir()
	err, code, _ := runApp(t, simulateArgs(filepath.Join(dir, "o"), "--scheduler", "fcfs", "--sched-cfg-file", "/dev/zero")...)
	if code != 1 || err == nil || !strings.Contains(err.Error(), "/dev/zero: too large") {
		t.Fatalf("exit %d: %v", code, err)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("files written: %v", files)
	}
}

// An explicit --enable-dynamic-jobs means what it means to Batsim:
// registered jobs are not acknowledged unless --acknowledge-dynamic-jobs is
// given too. The reference is Batsim 4.2.1's _jobs.csv with batsched 1.4.0's
// submitter (batsched -v submitter; batsim -p platforms/lille.xml -w
// workloads/tiny.json --enable-dynamic-jobs). Without either flag, the
// policy's needs decide: both on, and the run differs.
func TestSimulateExplicitDynamicJobsFlag(t *testing.T) {
	want, err := os.ReadFile("testdata/submitter_unacknowledged_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	run := func(flags ...string) string {
		prefix := filepath.Join(t.TempDir(), "out")
		args := append([]string{"simulate", "-p", "lille", "-w", "../workloads/tiny.json", "-e", prefix, "-q",
			"--scheduler", "submitter", "-o", "hosts=first-fit", "-o", "queue=batsched"}, flags...)
		if err, code, out := runApp(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %v\n%s", flags, code, err, out)
		}
		got, err := os.ReadFile(prefix + "_jobs.csv")
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	for _, flags := range [][]string{{"--enable-dynamic-jobs"}, {"--enable-dynamic-jobs", "--acknowledge-dynamic-jobs=false"}} {
		if got := run(flags...); got != string(want) {
			t.Errorf("%q: _jobs.csv differs from Batsim's with batsched:\n%s", flags, got)
		}
	}
	acked := run()
	if acked == string(want) {
		t.Fatal("the fixture cannot tell acknowledged registrations from unacknowledged ones")
	}
	if got := run("--enable-dynamic-jobs", "--acknowledge-dynamic-jobs"); got != acked {
		t.Errorf("both flags given differ from the policy's default (both on)")
	}
}

// A workload the policy cannot schedule at all (none of the job fields it
// reads) is refused before anything is written, as a bad input file (exit
// status 1), naming the fields; rather than every job rejected with a
// warning each and a summary of nothing.
func TestSimulateWorkloadWithoutThePolicysFields(t *testing.T) {
	for _, policy := range []string{"bot-consolidation", "bot-packing-online", "threshold-vm-consolidation"} {
		dir := t.TempDir()
		err, code, out := runApp(t, "simulate", "-p", "lille", "-w", "../workloads/tiny.json", "--scheduler", policy, "-e", filepath.Join(dir, "o"))
		if code != 1 || err == nil {
			t.Fatalf("%s: exit %d: %v\n%s", policy, code, err, out)
		}
		for _, w := range []string{"workload ../workloads/tiny.json", "scheduler " + policy + " reads the job fields bot, quad, task, step, a, d, b, c, vms", "it would reject every job"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", policy, err, w)
			}
		}
		if files, _ := os.ReadDir(dir); len(files) > 0 || out != "" {
			t.Errorf("%s: files written %v, output %q", policy, files, out)
		}
	}
}
