package cli

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/workloads"
)

// bucma run serves Batsim 5 too: the first message tells it (no flag), and
// the replies are those recorded against the real Batsim 5. The policy is
// --scheduler's or, without it, the init string's, an edc-* twin too.
func TestRunServesBatsim5(t *testing.T) {
	for _, c := range []struct {
		session string
		args    []string
	}{
		{"easy.jsonl", []string{"--scheduler", "easy"}},
		{"easy.jsonl", []string{"--scheduler", "easy", "--batsim5", "--transport", "libzmq"}},
		{"easy.jsonl", nil},
		{"killer.jsonl", []string{"--batsim5"}},
		{"rejecter.jsonl", []string{"--scheduler", "edc-rejecter"}},
		{"threshold-power.jsonl", nil},
	} {
		if len(c.args) > 0 && c.args[len(c.args)-1] == zmq.TransportLibzmq && !zmq.HasLibzmq {
			continue // a build without cgo has no libzmq
		}
		lines := corpus.ReadBatsim5Session(t, c.session)
		ep, done, _ := startRun(t, c.args...)
		b := dialBatsim(t, ep)
		hello := request(t, b, lines[0].Raw)
		want := strings.Replace(lines[1].Raw, `"decision_component_version":"test"`, `"decision_component_version":"`+appVersion()+`"`, 1) + "\x00"
		if len(hello) < 4 || binary.NativeEndian.Uint32(hello) != 2 || string(hello[4:]) != want {
			t.Fatalf("%s %v: hello %q", c.session, c.args, hello)
		}
		for i := 2; i+1 < len(lines); i += 2 {
			if got := string(request(t, b, lines[i].Raw+"\x00")); got != lines[i+1].Raw+"\x00" {
				t.Fatalf("%s %v: line %d: reply\n%q\nrecorded\n%q", c.session, c.args, i+2, got, lines[i+1].Raw)
			}
		}
		if err := waitRun(t, done); err != nil {
			t.Fatalf("%s %v: %v", c.session, c.args, err)
		}
	}
}

// TestRunInitVerbose: the init string's verbose logs every message, as
// --verbose does (and as the library does with it).
func TestRunInitVerbose(t *testing.T) {
	lines := corpus.ReadBatsim5Session(t, "easy.jsonl")
	init := `{"policy":"easy","verbose":true}`
	ep, done, errOut := startRun(t)
	b := dialBatsim(t, ep)
	request(t, b, string(binary.NativeEndian.AppendUint32(nil, uint32(len(init))))+init)
	for i := 2; i+1 < len(lines); i += 2 {
		request(t, b, lines[i].Raw+"\x00")
	}
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	// Every message after the init string, and the replies with the hello.
	n := (len(lines) - 2) / 2
	for dir, want := range map[string]int{batsim.FromBatsim.String(): n, batsim.FromScheduler.String(): n + 1} {
		if got := strings.Count(errOut.String(), "dir="+dir); got != want {
			t.Errorf("%d messages logged as %s, want %d", got, dir, want)
		}
	}
}

// TestRunBatsim5Errors: an init string bucma run refuses (the shared
// library refuses the same ones) is answered so that Batsim 5 ends: the
// hello, then ForceSimulationStopEvent, then the answer to
// SimulationEndsEvent; bucma run then exits with status 2 naming the
// problem. A Batsim 4 peer bucma run cannot serve (--batsim5, or no
// --scheduler) gets Batsim 4's stop.
func TestRunBatsim5Errors(t *testing.T) {
	ends := `{"now":3.0,"events":[{"timestamp":3.0,"event_type":"SimulationEndsEvent","event":{}}]}` + "\x00"
	begins := corpus.ReadBatsim5Session(t, "easy.jsonl")[2].Raw + "\x00"
	for _, c := range []struct {
		args       []string
		init, want string
	}{
		{[]string{"--scheduler", "fcfs"}, `{"policy":"easy"}`, `names policy "easy" but bucma run serves "fcfs"`},
		{nil, `{"policy":"nope"}`, `unknown scheduler "nope"`},
		{[]string{"--scheduler", "fcfs"}, `{"options":{"nope":1}}`, `init string: options: scheduler fcfs: unknown option "nope"`},
		{nil, `{"policy":"fcfs","options":{"hosts":"slowest"}}`, "slowest"},
		{nil, `{"options":{"hosts":"first-fit"}}`, "init string: no policy"},
		{nil, ``, "or bucma run --scheduler NAME"},
		{[]string{"--scheduler", "fcfs"}, `{"policy":"fcfs","options":{"policy":"easy"}}`, "policy is not an option"},
		{[]string{"--scheduler", "fcfs"}, `{"policy":"fcfs"} x`, "text after the JSON object"},
	} {
		ep, done, _ := startRun(t, c.args...)
		b := dialBatsim(t, ep)
		hello := request(t, b, string(binary.NativeEndian.AppendUint32(nil, uint32(len(c.init))))+c.init)
		if len(hello) < 4 || binary.NativeEndian.Uint32(hello) != 2 || !strings.Contains(string(hello), `"EDCHelloEvent"`) {
			t.Fatalf("%v %s: hello %q", c.args, c.init, hello)
		}
		if got := string(request(t, b, begins)); !strings.Contains(got, `"event_type":"ForceSimulationStopEvent"`) {
			t.Errorf("%v %s: SimulationBegins answered %q, want ForceSimulationStopEvent", c.args, c.init, got)
		}
		if got := string(request(t, b, ends)); got != `{"now":2.9999999999994995,"events":[]}`+"\x00" {
			t.Errorf("%v %s: SimulationEnds answered %q", c.args, c.init, got)
		}
		err := waitRun(t, done)
		if code := exitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%v %s: exit %d, %v; want 2 and %q", c.args, c.init, code, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--scheduler", "fcfs", "--batsim5"}, 1, "not Batsim 5's initialization"},
		{nil, 2, "--scheduler is required to serve Batsim 4"},
		{[]string{"--batsim5"}, 1, "not Batsim 5's initialization"},
	} {
		ep, done, _ := startRun(t, c.args...)
		b := dialBatsim(t, ep)
		checkStopReply(t, request(t, b, `{"now":0.000000,"events":[{"timestamp":0.000000,"type":"SIMULATION_BEGINS","data":{"nb_resources":1,"nb_compute_resources":1,"nb_storage_resources":0,"allow_compute_sharing":false,"allow_storage_sharing":true,"config":{},"compute_resources":[{"id":0,"name":"h","state":"idle","properties":{}}],"storage_resources":[],"workloads":{"w0":"w.json"}}}]}`))
		err := waitRun(t, done)
		if code := exitCode(err); code != c.code || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("Batsim 4 peer, %v: exit %d, %v; want %d and %q", c.args, code, err, c.code, c.want)
		}
	}
}

func TestWorkloadToV5ThroughCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny-v5.json")
	if err, code, msg := runApp(t, "workload", "to-v5", filepath.Join("..", "workloads", "tiny.json"), "-o", out); code != 0 {
		t.Fatalf("to-v5: %v (exit %d) %s", err, code, msg)
	}
	w, err := workloads.Load(out)
	if err != nil || !w.V5 || len(w.Jobs) != 20 {
		t.Fatalf("converted workload: %v", err)
	}
	if err, code, _ := runApp(t, "workload", "to-v5", out); code != 1 || !strings.Contains(err.Error(), "already in Batsim 5's format") {
		t.Fatalf("a Batsim 5 input: exit %d, %v", code, err)
	}
	bad := filepath.Join(dir, "ret.json")
	if err := os.WriteFile(bad, []byte(`{"nb_res":1,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"p"}],"profiles":{"p":{"type":"delay","delay":1,"ret":1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err, code, _ := runApp(t, "workload", "to-v5", bad); code != 1 || !strings.Contains(err.Error(), "profile 'p'") {
		t.Fatalf("a profile with a return code: exit %d, %v", code, err)
	}
	// The engine reads the converted file and writes Batsim 5's jobs.csv.
	prefix := filepath.Join(dir, "sim")
	if err, code, msg := runApp(t, "simulate", "-p", "lille", "-w", out, "--scheduler", "easy", "--export", prefix, "--jobs-format", "batsim5", "-q"); code != 0 {
		t.Fatalf("simulate: %v (exit %d) %s", err, code, msg)
	}
	jobs, err := os.ReadFile(prefix + "_jobs.csv")
	if err != nil || !strings.Contains(string(jobs), ",w0,w0!") || strings.Contains(string(jobs), `""`) {
		t.Fatalf("Batsim 5 jobs.csv: %v\n%s", err, jobs)
	}
	if err, code, _ := runApp(t, "simulate", "-p", "lille", "-w", out, "--scheduler", "easy", "--jobs-format", "batsim6"); code != 2 || !strings.Contains(err.Error(), "batsim4 or batsim5") {
		t.Fatalf("bad --jobs-format: exit %d, %v", code, err)
	}
}
