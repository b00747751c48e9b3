package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/workloads"
)

// bucma run serves Batsim 5 too: the first message tells it (no flag), and
// the replies are those recorded against the real Batsim 5.
func TestRunServesBatsim5(t *testing.T) {
	for _, args := range [][]string{{"--scheduler", "easy"}, {"--scheduler", "easy", "--batsim5", "--transport", "libzmq"}} {
		if args[len(args)-1] == zmq.TransportLibzmq && !zmq.HasLibzmq {
			continue // a build without cgo has no libzmq
		}
		lines := corpus.ReadBatsim5Session(t, "easy.jsonl")
		ep, done, _ := startRun(t, args...)
		c := dialBatsim(t, ep)
		hello := request(t, c, lines[0].Raw)
		want := strings.Replace(lines[1].Raw, `"decision_component_version":"test"`, `"decision_component_version":"`+version+`"`, 1) + "\x00"
		if len(hello) < 4 || binary.NativeEndian.Uint32(hello) != 2 || string(hello[4:]) != want {
			t.Fatalf("%v: hello %q", args, hello)
		}
		for i := 2; i+1 < len(lines); i += 2 {
			if got := string(request(t, c, lines[i].Raw+"\x00")); got != lines[i+1].Raw+"\x00" {
				t.Fatalf("%v: line %d: reply\n%q\nrecorded\n%q", args, i+2, got, lines[i+1].Raw)
			}
		}
		if err := waitRun(t, done); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

func TestRunBatsim5Errors(t *testing.T) {
	// The init string names another policy.
	ep, done, _ := startRun(t, "--scheduler", "fcfs")
	c := dialBatsim(t, ep)
	init := `{"policy":"easy"}`
	if err := c.Send(append(binary.NativeEndian.AppendUint32(nil, uint32(len(init))), init...)); err != nil {
		t.Fatal(err)
	}
	err := waitRun(t, done)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), `names policy "easy" but bucma run serves "fcfs"`) {
		t.Fatalf("exit %d: %v", code, err)
	}
	// --batsim5 refuses Batsim 4.
	ep, done, _ = startRun(t, "--scheduler", "fcfs", "--batsim5")
	c = dialBatsim(t, ep)
	if err := c.Send([]byte(`{"now":0.000000,"events":[]}`)); err != nil {
		t.Fatal(err)
	}
	err = waitRun(t, done)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "not Batsim 5's initialization") {
		t.Fatalf("exit %d: %v", code, err)
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
