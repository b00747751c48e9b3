package expe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/corpus"
)

// writeScript writes an executable shell script.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeBatsim records its arguments and writes PREFIX_jobs.csv from a real
// Batsim output.
func fakeBatsim(t *testing.T, dir, extra string) string {
	jobs := corpus.Path("hetero4_delays", "out_jobs.csv")
	return writeScript(t, dir, "batsim", `printf '%s\n' "$@" > "`+dir+`/batsim.args"
while [ $# -gt 0 ]; do
  case "$1" in -e) prefix="$2"; shift;; esac
  shift
done
echo "[batsim] simulation starts"
`+extra+`
cp "`+jobs+`" "${prefix}_jobs.csv"
echo "simulation ended"
`)
}

// afterBatsimStarts makes the fake scheduler wait until the fake Batsim
// (in directory BIN) has started.
const afterBatsimStarts = `until [ -f "BIN/batsim.args" ]; do sleep 0.01; done; `

// fakeEndpoint is the endpoint the fake scheduler says it bound.
const fakeEndpoint = "tcp://127.0.0.1:4242"

// fakeScheduler records its arguments, runs before, writes fakeEndpoint to
// its --endpoint-file (atomically, as bucma run does), then runs after.
func fakeScheduler(t *testing.T, dir, before, after string) string {
	return writeScript(t, dir, "bucma", `printf '%s\n' "$@" > "`+dir+`/sched.args"
for a in "$@"; do [ "$prev" = --endpoint-file ] && epfile="$a"; prev="$a"; done
`+before+`
echo "`+fakeEndpoint+`" > "$epfile.tmp" && mv "$epfile.tmp" "$epfile"
echo "scheduler listening"
`+after+`
`)
}

func batsimSpec(t *testing.T) RunSpec {
	t.Helper()
	dir := t.TempDir()
	p := builtinPlan(t, "bucma-model")
	r := p.Expand()[1] // bucma5302-fcfs
	return RunSpec{Run: r, Platform: "/data/platform.xml", Workload: "/data/w.json", Dir: dir,
		Prefix: filepath.Join(dir, "out"), Trace: filepath.Join(dir, "trace.csv"), Log: filepath.Join(dir, "run.log")}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func TestBatsimEngineCommands(t *testing.T) {
	e := &BatsimEngine{Batsim: "/opt/batsim", Bucma: "/usr/bin/bucma", BatsimArgs: []string{"--disable-schedule-tracing"}}
	spec := batsimSpec(t)
	s, b := e.SchedulerCommand(spec), e.BatsimCommand(spec, "tcp://127.0.0.1:28123")
	epFile := filepath.Join(spec.Dir, endpointFile)
	wantS := []string{"/usr/bin/bucma", "run", "--scheduler", "bucma5302", "--option", "base=fcfs", "--option", "pinned-scores=" + "imprecise:0,medium:50,precise:100",
		"--trace", spec.Trace, "-s", "tcp://127.0.0.1:*", "--endpoint-file", epFile}
	wantB := []string{"/opt/batsim", "-p", "/data/platform.xml", "-w", "/data/w.json", "-e", spec.Prefix, "-s", "tcp://127.0.0.1:28123", "--disable-schedule-tracing"}
	if strings.Join(s, " ") != strings.Join(wantS, " ") {
		t.Errorf("scheduler argv\n got %q\nwant %q", s, wantS)
	}
	if strings.Join(b, " ") != strings.Join(wantB, " ") {
		t.Errorf("batsim argv\n got %q\nwant %q", b, wantB)
	}
	cl := e.CommandLine(spec)
	wantCL := ShellJoin(wantS) + " & until [ -s " + epFile + " ]; do sleep 0.1; done; /opt/batsim -p /data/platform.xml -w /data/w.json -e " +
		spec.Prefix + ` -s "$(cat ` + epFile + `)" --disable-schedule-tracing`
	if cl != wantCL {
		t.Errorf("command line\n got %s\nwant %s", cl, wantCL)
	}
	if got := ShellJoin([]string{"a b", "it's", "plain-1.0", ""}); got != `'a b' 'it'\''s' plain-1.0 ''` {
		t.Errorf("ShellJoin = %s", got)
	}
}

// With a Docker image, Batsim runs in a container on the host's network,
// as the caller, with the campaign directory mounted at its own path; the
// replayed command line does the same from the campaign directory.
func TestBatsimEngineImage(t *testing.T) {
	e := &BatsimEngine{Batsim: "/usr/bin/docker", Bucma: "/usr/bin/bucma", Image: "oarteam/batsim:4.2.1"}
	spec := batsimSpec(t)
	spec.Campaign = "/data"
	b := strings.Join(e.BatsimCommand(spec, "tcp://127.0.0.1:28123"), " ")
	want := fmt.Sprintf("/usr/bin/docker run --rm -i --net host -u %d:%d -v /data:/data -w /data oarteam/batsim:4.2.1 -p /data/platform.xml -w /data/w.json -e ",
		os.Getuid(), os.Getgid())
	if !strings.HasPrefix(b, want) || !strings.HasSuffix(b, " -s tcp://127.0.0.1:28123") {
		t.Errorf("batsim argv\n got %s\nwant %s...", b, want)
	}
	spec.Campaign = ""
	cl := e.CommandLine(spec)
	if !strings.Contains(cl, `; /usr/bin/docker run --rm -i --net host -u "$(id -u):$(id -g)" -v "$PWD":"$PWD" -w "$PWD" oarteam/batsim:4.2.1 -p /data/platform.xml`) {
		t.Errorf("command line %s", cl)
	}
}

func TestBatsimEngineRunsBothProcesses(t *testing.T) {
	bin := t.TempDir()
	e := &BatsimEngine{Batsim: fakeBatsim(t, bin, ""), Bucma: fakeScheduler(t, bin, "", "")}
	spec := batsimSpec(t)
	if err := e.Run(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	// Batsim is given the endpoint the scheduler wrote once bound.
	sched, bats := readLines(t, filepath.Join(bin, "sched.args")), readLines(t, filepath.Join(bin, "batsim.args"))
	if got := sched[len(sched)-3:]; got[0] != "tcp://127.0.0.1:*" || got[2] != filepath.Join(spec.Dir, endpointFile) {
		t.Errorf("scheduler endpoint arguments %q", got)
	}
	if bats[6] != "-s" || bats[7] != fakeEndpoint {
		t.Errorf("batsim endpoint %q %q, want -s %s", bats[6], bats[7], fakeEndpoint)
	}
	if _, err := os.Stat(filepath.Join(spec.Dir, endpointFile)); !os.IsNotExist(err) {
		t.Errorf("endpoint file left in the run directory: %v", err)
	}
	if rows, err := analysis.ReadJobsFile(spec.Prefix + "_jobs.csv"); err != nil || len(rows) != 13 {
		t.Errorf("outputs: %d rows, %v", len(rows), err)
	}
	log := strings.Join(readLines(t, spec.Log), "\n")
	for _, want := range []string{"# scheduler: ", "[scheduler] scheduler listening", "# batsim: ", "[batsim] [batsim] simulation starts", "[batsim] simulation ended"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestBatsimEngineFailures(t *testing.T) {
	cases := []struct {
		name, batsim, schedBefore, schedAfter string
		want                                  []string
		batsimStarts                          bool
	}{
		{"batsim fails", "echo 'cannot read platform' >&2; exit 3", "", "", []string{"batsim failed: exit status 3"}, true},
		// The scheduler fails once Batsim runs: Batsim (which would wait
		// for it forever) is stopped.
		{"scheduler fails", "exec sleep 1000", "", afterBatsimStarts + "echo 'bad option' >&2; exit 2", []string{"scheduler failed: exit status 2"}, true},
		// The scheduler cannot bind: Batsim is never started.
		{"scheduler fails before binding", "", "echo 'address in use' >&2; exit 1", "", []string{"scheduler failed: exit status 1"}, false},
		{"scheduler ends before binding", "", "exit 0", "", []string{"scheduler ended without binding its endpoint"}, false},
		// Batsim ended but the scheduler never does: stopped after the grace period.
		{"scheduler hangs", "", "", "exec sleep 1000", []string{"scheduler still running"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := t.TempDir()
			c.schedAfter = strings.ReplaceAll(c.schedAfter, "BIN", bin)
			e := &BatsimEngine{Batsim: fakeBatsim(t, bin, c.batsim), Bucma: fakeScheduler(t, bin, c.schedBefore, c.schedAfter), Grace: 200 * time.Millisecond}
			spec := batsimSpec(t)
			err := e.Run(context.Background(), spec)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(c.want, spec.Log) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(filepath.Join(bin, "batsim.args")); (err == nil) != c.batsimStarts {
				t.Errorf("batsim started: %v, want %v", err == nil, c.batsimStarts)
			}
		})
	}
	t.Run("missing binary", func(t *testing.T) {
		e := &BatsimEngine{Batsim: filepath.Join(t.TempDir(), "nope"), Bucma: "/bin/true"}
		if err := e.Run(context.Background(), batsimSpec(t)); err == nil || !strings.Contains(err.Error(), "starting batsim") {
			t.Errorf("err = %v", err)
		}
	})
}

// A whole campaign through the Batsim engine with the fake processes.
func TestBatsimEngineCampaign(t *testing.T) {
	bin := t.TempDir()
	e := &BatsimEngine{Batsim: fakeBatsim(t, bin, ""), Bucma: fakeScheduler(t, bin, "", "")}
	plan := testPlan(t, "walltime-trust", 1)
	plan.Workload.Jobs = 13 // the jobs of the fake Batsim's output
	dir := t.TempDir()
	camp := newCampaign(plan, dir, e, 2)
	res, err := camp.Execute(context.Background())
	if err != nil || res.Done != 5 || len(res.Failed) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	// The recorded command replays the run from the campaign directory.
	cmd, err := os.ReadFile(filepath.Join(RunDir(dir, "wtrust_s001_l0.85"), CmdFile))
	if err != nil || !strings.Contains(string(cmd), "--scheduler wtrust --trace runs/wtrust_s001_l0.85/trace.csv") ||
		!strings.Contains(string(cmd), " -p platform.xml -w workloads/s001_l0.85.json -e runs/wtrust_s001_l0.85/out ") {
		t.Errorf("cmd.txt: %s, %v", cmd, err)
	}
	// A fake Batsim writing fewer jobs than the workload's fails the runs.
	plan.Workload.Jobs = 14
	res, err = newCampaign(plan, t.TempDir(), e, 2).Execute(context.Background())
	if err != nil || len(res.Failed) != 5 || !strings.Contains(res.Failed[0].Err.Error(), "out_jobs.csv has 13 jobs, the workload 14") {
		t.Fatalf("%+v, %v", res, err)
	}
}
