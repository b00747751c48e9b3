package cli

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
)

// batsim4Process is a Batsim 4 decision process served in the test: h
// answers every message but SIMULATION_ENDS; the event types it got are
// kept, in order.
type batsim4Process struct {
	endpoint string
	mu       sync.Mutex
	types    []string
}

func (p *batsim4Process) got() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.types...)
}

func (p *batsim4Process) last() string {
	g := p.got()
	if len(g) == 0 {
		return ""
	}
	return g[len(g)-1]
}

func serveBatsim4Process(t *testing.T, h batsim.Handler) *batsim4Process {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	p := &batsim4Process{endpoint: l.Endpoint()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- l.Serve(ctx, batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
			p.mu.Lock()
			for _, e := range m.Events {
				p.types = append(p.types, e.Type)
			}
			p.mu.Unlock()
			return h.Handle(m)
		}))
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return p
}

// easyProcess is bucma's easy as a Batsim 4 decision process.
func easyProcess(t *testing.T) *batsim4Process {
	t.Helper()
	spec, err := policies.Builtin().Lookup("easy")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return serveBatsim4Process(t, sess)
}

func initMessage(init string) string {
	return string(binary.NativeEndian.AppendUint32(nil, uint32(len(init)))) + init
}

// TestBridgeServesBatsim5: bucma bridge, in front of bucma's easy served as
// a Batsim 4 process, answers the session recorded against the real
// Batsim 5 with bucma's easy as its decision component, reply for reply;
// the endpoint comes from --connect or from the init string, or the bridge
// starts the process itself (bucma run, on the endpoint it chose).
func TestBridgeServesBatsim5(t *testing.T) {
	lines := corpus.ReadBatsim5Session(t, "easy.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"--connect", "init string", "command"} {
		proc := easyProcess(t)
		var args []string
		init := ""
		switch mode {
		case "--connect":
			args = []string{"--connect", proc.endpoint}
		case "init string":
			init = `{"bridge":"` + proc.endpoint + `"}`
		case "command":
			// bucma run started by the bridge (this test binary as bucma).
			args = []string{"--", "env", "BUCMA_TEST_MAIN=1", self, "run", "--scheduler", "easy", "-s", "{endpoint}"}
		}
		ep, done, _ := startServing(t, "bridge", args...)
		b := dialBatsim(t, ep)
		hello := request(t, b, initMessage(init))
		if !strings.Contains(string(hello), `"decision_component_name":"bucma-bridge"`) {
			t.Fatalf("hello %q", hello)
		}
		for i := 2; i+1 < len(lines); i += 2 {
			if got := string(request(t, b, lines[i].Raw+"\x00")); got != lines[i+1].Raw+"\x00" {
				t.Fatalf("%s: line %d: reply\n%q\nrecorded\n%q", mode, i+2, got, lines[i+1].Raw)
			}
		}
		if err := waitRun(t, done); err != nil {
			t.Fatal(err)
		}
		if got := proc.last(); mode != "command" && got != batsim.TypeSimulationEnds {
			t.Errorf("the process's last event: %q", got)
		}
	}
}

// TestBridgeEndsBothSides: whatever stops the run, Batsim 5 is answered so
// that it ends, the process is told the end, and bucma bridge exits with
// the error: a decision Batsim 5 cannot express (exit 1), Batsim 5 gone in
// the middle (exit 1), a refused init string (exit 2; a process named by
// --connect is told the end all the same).
func TestBridgeEndsBothSides(t *testing.T) {
	lines := corpus.ReadBatsim5Session(t, "easy.jsonl")
	begins := lines[2].Raw + "\x00"
	submit := ""
	for i := 2; i < len(lines); i += 2 {
		if strings.Contains(lines[i].Raw, `"JobSubmittedEvent"`) {
			submit = lines[i].Raw + "\x00"
			break
		}
	}
	ends := `{"now":3.0,"events":[{"timestamp":3.0,"event_type":"SimulationEndsEvent","event":{}}]}` + "\x00"
	force := `"event_type":"ForceSimulationStopEvent"`

	t.Run("a decision with no Batsim 5 equivalent", func(t *testing.T) {
		proc := serveBatsim4Process(t, batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
			r := batsim.NewReply(m.Now)
			if len(m.Events) > 0 && m.Events[0].Type == batsim.TypeJobSubmitted {
				r.QueryConsumedEnergy()
			}
			return r, nil
		}))
		ep, done, _ := startServing(t, "bridge", "--connect", proc.endpoint)
		b := dialBatsim(t, ep)
		request(t, b, initMessage(""))
		request(t, b, begins)
		if got := string(request(t, b, submit)); !strings.Contains(got, force) {
			t.Fatalf("QUERY answered %q, want ForceSimulationStop", got)
		}
		request(t, b, ends)
		err := waitRun(t, done)
		if code := exitCode(err); code != 1 || !strings.Contains(fmt.Sprint(err), "decision Batsim 5 cannot express") || !strings.Contains(fmt.Sprint(err), "(QUERY): no Batsim 5 equivalent") {
			t.Errorf("exit %d, %v", code, err)
		}
		if got := proc.last(); got != batsim.TypeSimulationEnds {
			t.Errorf("the process's last event: %q", got)
		}
	})

	t.Run("Batsim 5 gone", func(t *testing.T) {
		proc := easyProcess(t)
		ep, done, _ := startServing(t, "bridge", "--connect", proc.endpoint)
		b := dialBatsim(t, ep)
		request(t, b, initMessage(""))
		request(t, b, begins)
		request(t, b, submit)
		_ = b.Close() // Batsim 5 dies
		err := waitRun(t, done)
		if code := exitCode(err); code != 1 || !strings.Contains(fmt.Sprint(err), "connection closed") {
			t.Errorf("exit %d, %v", code, err)
		}
		if got := proc.got(); len(got) == 0 || got[len(got)-1] != batsim.TypeSimulationEnds || got[0] != batsim.TypeSimulationBegins {
			t.Errorf("the process got %v, want SIMULATION_BEGINS ... SIMULATION_ENDS", got)
		}
	})

	for _, c := range []struct{ name, init, want string }{
		{"an unknown key", `{"policy":"easy"}`, `unknown field "policy"`},
		{"another endpoint", `{"bridge":"tcp://127.0.0.1:9"}`, "but the bridge connects to"},
		{"not JSON", `bridge`, "not a bridge's JSON object"},
	} {
		t.Run("init string: "+c.name, func(t *testing.T) {
			proc := easyProcess(t)
			ep, done, _ := startServing(t, "bridge", "--connect", proc.endpoint)
			b := dialBatsim(t, ep)
			if hello := request(t, b, initMessage(c.init)); !strings.Contains(string(hello), `"EDCHelloEvent"`) {
				t.Fatalf("hello %q", hello)
			}
			if got := string(request(t, b, begins)); !strings.Contains(got, force) {
				t.Fatalf("SimulationBegins answered %q, want ForceSimulationStop", got)
			}
			request(t, b, ends)
			err := waitRun(t, done)
			if code := exitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
				t.Errorf("exit %d, %v; want 2 and %q", code, err, c.want)
			}
			if got := proc.got(); len(got) != 1 || got[0] != batsim.TypeSimulationEnds {
				t.Errorf("the process got %v, want SIMULATION_ENDS alone", got)
			}
		})
	}

	t.Run("no endpoint", func(t *testing.T) {
		ep, done, _ := startServing(t, "bridge", "--connect-timeout", "1s")
		b := dialBatsim(t, ep)
		request(t, b, initMessage(`{"bridge":"tcp://127.0.0.1:9"}`))
		if got := string(request(t, b, begins)); !strings.Contains(got, force) {
			t.Fatalf("SimulationBegins answered %q, want ForceSimulationStop", got)
		}
		request(t, b, ends)
		err := waitRun(t, done)
		if code := exitCode(err); code != 1 || !strings.Contains(fmt.Sprint(err), "no answer to the first message") {
			t.Errorf("exit %d, %v", code, err)
		}
	})
}

// TestBridgeUsageErrors: a bad command line is exit status 2, before
// anything is bound.
func TestBridgeUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--connect", "127.0.0.1:28000"}, "--connect"},
		{[]string{"--connect", "tcp://127.0.0.1:*"}, "must be a number"},
		{[]string{"-s", "tcp://127.0.0.1:0"}, `port "0"`},
		{[]string{"--reply-timeout", "-1s"}, "--reply-timeout -1s"},
		{[]string{"--connect-transport", "pigeon"}, `--connect-transport "pigeon"`},
		{[]string{"--transport", ""}, `--transport ""`},
		{[]string{"--sched-cfg", "{}", "--sched-cfg-file", "x"}, "not both"},
		{[]string{"extra"}, "extra"},
	} {
		err, code, _ := runApp(t, append([]string{"bridge"}, c.args...)...)
		if code != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", c.args, code, err, c.want)
		}
	}
}
