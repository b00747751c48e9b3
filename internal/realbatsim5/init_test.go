package realbatsim5

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// TestInitStringsEndBatsim5: an init string that bucma refuses ends
// Batsim 5, whatever the transport, and the two transports refuse the same
// init strings. Over ZeroMQ, bucma run answers the initialization, asks
// Batsim to stop the simulation (Batsim 5 then ends as at the end of a
// simulation, writing its output files) and exits with status 2 naming the
// problem; as a library, bucma's init fails and Batsim 5 aborts, quoting
// it. Without --scheduler, bucma run serves the policy the init string
// names, an edc-* twin too.
func TestInitStringsEndBatsim5(t *testing.T) {
	bin := batsim5(t)
	lib := library(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmpRoot, "init")
	wl := writeV5(t, tiny, dir)
	for i, c := range []struct {
		name string
		run  []string // bucma run's flags
		init string
		want string // the refusal ("": accepted)
		lib  bool   // the library refuses it too
	}{
		{"unknown policy", nil, `{"policy":"nope"}`, `unknown scheduler "nope"`, true},
		{"unknown option", []string{"--batsim5"}, `{"policy":"fcfs","options":{"nope":1}}`, `unknown option "nope"`, true},
		{"bad option value", nil, `{"policy":"fcfs","options":{"hosts":"slowest"}}`, `option hosts="slowest"`, true},
		{"no policy, no --scheduler", nil, ``, "no policy", true},
		{"not JSON", nil, `easy`, "not a JSON object", true},
		{"another policy than --scheduler's", []string{"--scheduler", "fcfs"}, `{"policy":"easy"}`, `names policy "easy" but bucma run serves "fcfs"`, false},
		{"a bad option for --scheduler's policy", []string{"--scheduler", "fcfs"}, `{"options":{"hosts":"slowest"}}`, `option hosts="slowest"`, false},
		{"the init string's policy, a twin", nil, `{"policy":"edc-rejecter"}`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strconv.Itoa(i))
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			ep := filepath.Join(out, "endpoint")
			// A guard against a hang (what the test pins), not a timing.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			run := append([]string{"env", asBucmaEnv + "=1", self, "run", "-s", "tcp://127.0.0.1:*", "--endpoint-file", ep}, c.run...)
			r := pairEnds(ctx, t, "bucma run", run, bin, ep, wl, c.init, out)
			jobs, err := os.ReadFile(filepath.Join(out, "zmq", "jobs.csv"))
			if err != nil {
				t.Errorf("batsim5 wrote no jobs.csv: %v", err)
			}
			if c.want == "" {
				if r.SchedErr != nil {
					t.Fatalf("bucma run: %v\n%s", r.SchedErr, r.SchedLog)
				}
				if n := bytes.Count(jobs, []byte("REJECTED")); n != 20 {
					t.Errorf("jobs.csv has %d rejections, want the 20 jobs rejected\n%s", n, jobs)
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(r.SchedErr, &ee) || ee.ExitCode() != 2 || !strings.Contains(r.SchedLog, c.want) {
				t.Errorf("bucma run: %v, want exit status 2 and %q\n%s", r.SchedErr, c.want, r.SchedLog)
			}
			if n := bytes.Count(jobs, []byte("\n")); n != 1 {
				t.Errorf("jobs.csv has %d lines, want its header alone (no job ran)", n)
			}
			if !strings.Contains(r.BatsimLog, "ForceSimulationStopEvent") {
				t.Errorf("batsim5's log does not show the stop\n%s", tail(r.BatsimLog, 2000))
			}
			if !c.lib {
				return
			}
			res, _, err := viaLibrary(t, lib, platformPath("lille"), wl, filepath.Join(out, "library"), c.init)
			if err == nil {
				t.Fatalf("the library accepted the init string %q", c.init)
			}
			if !strings.Contains(res.Log, "libbucma: init string: ") || !strings.Contains(res.Log, c.want) {
				t.Errorf("batsim5 with the library: %v, its log does not quote %q\n%s", err, c.want, tail(res.Log, 2000))
			}
		})
	}
}

// pairEnds runs bucma's command cmd (named what; it writes its endpoint to
// ep) and batsim5 (bin) on the lille platform, workload wl and init string
// init, Batsim 5's outputs in out/zmq/: both must end, Batsim 5 as at the
// end of a simulation.
func pairEnds(ctx context.Context, t *testing.T, what string, cmd []string, bin, ep, wl, init, out string) *batsimrun.PairResult {
	t.Helper()
	r, err := batsimrun.Pair(ctx, cmd, ep, func(endpoint string) []string {
		return []string{bin, "-p", platformPath("lille"), "-w", wl, "-s", endpoint, init, "-e", filepath.Join(out, "zmq") + string(filepath.Separator)}
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Hung {
		t.Fatalf("%s or batsim5 did not end\n%s: %s\nbatsim5: %s", what, what, tail(r.SchedLog, 2000), tail(r.BatsimLog, 2000))
	}
	if r.BatsimErr != nil {
		t.Errorf("batsim5: %v, want the end of a simulation\n%s", r.BatsimErr, tail(r.BatsimLog, 2000))
	}
	return r
}
