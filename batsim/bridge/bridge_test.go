package bridge_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/bridge"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
)

var quiet = slog.New(slog.DiscardHandler)

// process is a Batsim 4 decision process served over ZeroMQ in the test;
// the messages it got are kept.
type process struct {
	endpoint string
	mu       sync.Mutex
	got      []*batsim.Message
}

// startProcess serves a Batsim 4 decision process on a free port: answer
// gives the reply to each message but SIMULATION_ENDS (nil: the process
// goes away, closing its connection without a word).
func startProcess(t *testing.T, answer func(m *batsim.Message) []byte) *process {
	t.Helper()
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &process{endpoint: l.Endpoint()}
	dec := batsim.NewDecoder(quiet)
	done := make(chan error, 1)
	go func() {
		done <- l.ServeRaw(ctx, func(raw []byte) ([]byte, bool, error) {
			m, err := dec.Decode(raw, batsim.FromBatsim)
			if err != nil {
				return nil, false, err
			}
			p.mu.Lock()
			p.got = append(p.got, m)
			p.mu.Unlock()
			for _, e := range m.Events {
				if e.Type == batsim.TypeSimulationEnds {
					return batsim.NewReply(m.Now).Encode(), true, nil
				}
			}
			if out := answer(m); out != nil {
				return out, false, nil
			}
			return nil, false, errors.New("the process goes away")
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return p
}

// serveProcess serves h as a Batsim 4 decision process.
func serveProcess(t *testing.T, h batsim.Handler) *process {
	return startProcess(t, func(m *batsim.Message) []byte {
		r, err := h.Handle(m)
		if err != nil {
			t.Error(err)
			return nil
		}
		return r.Encode()
	})
}

// messages are the messages the process got.
func (p *process) messages() []*batsim.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*batsim.Message(nil), p.got...)
}

// last is the type of the last event the process got ("" when none).
func (p *process) last() string {
	ms := p.messages()
	if len(ms) == 0 || len(ms[len(ms)-1].Events) == 0 {
		return ""
	}
	evs := ms[len(ms)-1].Events
	return evs[len(evs)-1].Type
}

// TestBridgeReplaysTranscripts: bucma's own policy served as a Batsim 4
// process behind the bridge answers Batsim 5 exactly as bucma's decision
// component does: every reply of the sessions recorded against the real
// Batsim 5 (internal/corpus.Batsim5Dir), the hello included, byte for
// byte. The bridge adds nothing and loses nothing between the two
// protocols, times included (12 decimals on Batsim 5's side).
func TestBridgeReplaysTranscripts(t *testing.T) {
	for _, name := range corpus.Batsim5Sessions(t) {
		t.Run(name, func(t *testing.T) {
			ls := corpus.ReadBatsim5Session(t, name)
			init := []byte(ls[0].Raw)[4:]
			st, err := run.Resolve(init, policies.Builtin(), run.Defaults{})
			if err != nil {
				t.Fatal(err)
			}
			pol := run.Policy{Spec: st.Spec, Options: st.Options, Log: quiet}
			sess, err := pol.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			proc := serveProcess(t, sess)
			f, c := run.Requested(st.Spec)
			e, p, err := bridge.New(context.Background(), bridge.Config{
				Endpoint: proc.endpoint, Name: run.Name, Version: "test", Log: quiet,
				DynamicJobs: f.DynamicRegistration, AcknowledgeDynamicJobs: f.AcknowledgeDynamicJobs,
				ForwardProfiles: f.ForwardProfilesOnJobSubmission, ComputeSharing: c.ComputeSharing,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ended := corpus.ReplayBatsim5(t, ls, e.Hello(), e.Take)
			if !ended || !p.Ended() || proc.last() != batsim.TypeSimulationEnds {
				t.Errorf("the session did not end on both sides (Batsim 5's: %v, the process told: %v, its last event: %q)", ended, p.Ended(), proc.last())
			}
			if err := p.End(); err != nil {
				t.Errorf("End after the end: %v", err)
			}
		})
	}
}

// begins is Batsim 5's SimulationBegins of the recorded EASY session, and
// then a message submitting one job (its first job).
func beginsAndSubmit(t *testing.T) (begins, submit string) {
	ls := corpus.ReadBatsim5Session(t, "easy.jsonl")
	for i := 2; i < len(ls); i += 2 {
		if strings.Contains(ls[i].Raw, `"JobSubmittedEvent"`) {
			return ls[2].Raw, ls[i].Raw
		}
	}
	t.Fatal("easy.jsonl submits no job")
	return "", ""
}

const ends = `{"now":3.0,"events":[{"timestamp":3.0,"event_type":"SimulationEndsEvent","event":{}}]}`

// TestNoEquivalentStopsBothSides: a decision of the Batsim 4 process that
// Batsim 5 cannot express stops the run with an error naming it, the
// component asks Batsim 5 to stop the simulation (ForceSimulationStop,
// then the answer to SimulationEnds) and the process is told the end
// (SIMULATION_ENDS). So does a reply that breaks Batsim 4's protocol.
func TestNoEquivalentStopsBothSides(t *testing.T) {
	begins, submit := beginsAndSubmit(t)
	for _, c := range []struct {
		name string
		add  func(r *batsim.Reply, job string) error
		want []string
	}{
		{"QUERY", func(r *batsim.Reply, _ string) error { r.QueryConsumedEnergy(); return nil }, []string{"QUERY", "no Batsim 5 equivalent"}},
		{"CHANGE_JOB_STATE", func(r *batsim.Reply, job string) error { return r.ChangeJobState(job, batsim.StateRejected, "") }, []string{"CHANGE_JOB_STATE", "no Batsim 5 equivalent"}},
		{"TO_JOB_MSG", func(r *batsim.Reply, job string) error { return r.ToJobMsg(job, "hi") }, []string{"TO_JOB_MSG", "no Batsim 5 equivalent"}},
		{"ANSWER", func(r *batsim.Reply, job string) error { return r.AnswerWaitingTime(job, 3) }, []string{"ANSWER", "no Batsim 5 equivalent"}},
		{"continue_registration", func(r *batsim.Reply, _ string) error { r.ContinueRegistration(); return nil }, []string{"NOTIFY continue_registration", "no Batsim 5 equivalent"}},
		{"additional_io_job", func(r *batsim.Reply, job string) error {
			return r.ExecuteJob(batsim.ExecuteJob{JobID: job, Alloc: batsim.IntervalSet{0}, AdditionalIOJob: []byte(`{"profile_name":"io","alloc":"0"}`)})
		}, []string{"additional_io_job", "no Batsim 5 equivalent"}},
		{"a profile with a return code", func(r *batsim.Reply, _ string) error {
			return r.RegisterProfile("dyn", "p", []byte(`{"type":"delay","delay":1,"ret":2}`))
		}, []string{"REGISTER_PROFILE", "return code 2", "no Batsim 5 equivalent"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var addErr error
			proc := serveProcess(t, batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
				r := batsim.NewReply(m.Now)
				for _, e := range m.Events {
					if js, ok := e.Data.(*batsim.JobSubmitted); ok {
						addErr = c.add(r, js.JobID)
					}
				}
				return r, nil
			}))
			e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: proc.endpoint, Log: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			take := func(raw string) (string, bool, error) {
				out, done, err := e.Take([]byte(raw))
				return string(out), done, err
			}
			if _, _, err := take(begins); err != nil {
				t.Fatal(err)
			}
			out, done, err := take(submit)
			if addErr != nil {
				t.Fatal(addErr)
			}
			if err != nil || done || !strings.Contains(out, `"ForceSimulationStopEvent"`) {
				t.Fatalf("the untranslatable reply answered %s, %v, %v; want ForceSimulationStopEvent", out, done, err)
			}
			out, done, err = take(ends)
			if !done || err == nil {
				t.Fatalf("SimulationEnds answered %s, %v, %v; want the end and the error", out, done, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !errors.Is(err, v5.ErrNoEquivalent) {
				t.Errorf("error %v is not v5.ErrNoEquivalent", err)
			}
			if err := p.End(); err != nil {
				t.Fatal(err)
			}
			if got := proc.last(); got != batsim.TypeSimulationEnds {
				t.Errorf("the process's last event is %q, want SIMULATION_ENDS", got)
			}
		})
	}
}

// rawProcess is a Batsim 4 decision process that answers SIMULATION_BEGINS
// with no decision and the other messages with reply's bytes (nil: it goes
// away).
func rawProcess(t *testing.T, reply func() []byte) *process {
	first := true
	return startProcess(t, func(m *batsim.Message) []byte {
		if first {
			first = false
			return batsim.NewReply(m.Now).Encode()
		}
		return reply()
	})
}

// TestBrokenReplyStopsBothSides: a reply Batsim 4 would abort on (hostile
// input of every kind) stops the run with an error saying so, and both
// sides end.
func TestBrokenReplyStopsBothSides(t *testing.T) {
	begins, submit := beginsAndSubmit(t)
	for _, c := range []struct{ reply, want string }{
		{`not json`, "breaks Batsim 4's protocol"},
		{`{"now":1,"events":[{"timestamp":2,"type":"CALL_ME_LATER","data":{"timestamp":5}}]}`, "later than now"},
		{`{"now":0,"events":[{"timestamp":0,"type":"FROBNICATE","data":{}}]}`, "unknown event type"},
		{`{"now":0,"events":[{"timestamp":0,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0,1"}}]}`, "breaks Batsim 4's protocol"},
		{`{"now":0}`, `missing array "events"`},
	} {
		proc := rawProcess(t, func() []byte { return []byte(c.reply) })
		e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: proc.endpoint, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.Take([]byte(begins)); err != nil {
			t.Fatal(err)
		}
		out, done, err := e.Take([]byte(submit))
		if err != nil || done || !strings.Contains(string(out), `"ForceSimulationStopEvent"`) {
			t.Errorf("%s: answered %s, %v, %v; want ForceSimulationStopEvent", c.reply, out, done, err)
		}
		_, done, err = e.Take([]byte(ends))
		if !done || err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), proc.endpoint) {
			t.Errorf("%s: the end: %v, %v; want an error naming the process and %q", c.reply, done, err, c.want)
		}
		if err := p.End(); err != nil {
			t.Errorf("%s: End: %v", c.reply, err)
		}
		if got := proc.last(); got != batsim.TypeSimulationEnds {
			t.Errorf("%s: the process's last event is %q, want SIMULATION_ENDS", c.reply, got)
		}
		p.Close()
	}
}

// TestProcessGoneStopsBatsim5: a process that goes away (its connection
// closes) or never answers ends the run: Batsim 5 is asked to stop, with
// an error naming the process, and nothing waits for ever.
func TestProcessGoneStopsBatsim5(t *testing.T) {
	begins, submit := beginsAndSubmit(t)
	t.Run("dies after SIMULATION_BEGINS", func(t *testing.T) {
		proc := rawProcess(t, func() []byte { return nil }) // nil: the process goes away
		e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: proc.endpoint, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		checkStops(t, e, p, begins, submit, "closed the connection")
	})
	t.Run("nothing listens", func(t *testing.T) {
		l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ep := l.Endpoint()
		l.Close() // a port nothing listens on any more
		e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: ep, Log: quiet, ConnectTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		checkStops(t, e, p, begins, "", "no answer to the first message")
	})
	t.Run("stops answering", func(t *testing.T) {
		var proc *process
		block := make(chan struct{})
		defer close(block)
		proc = serveProcess(t, batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
			if len(proc.messages()) > 1 {
				<-block
			}
			return batsim.NewReply(m.Now), nil
		}))
		e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: proc.endpoint, Log: quiet, Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		checkStops(t, e, p, begins, submit, "no reply")
	})
}

// checkStops takes begins then (if any) next, and checks that the last one
// taken is answered with ForceSimulationStop, SimulationEnds with the end
// and an error saying want.
func checkStops(t *testing.T, e *v5.EDC, p *bridge.Process, begins, next, want string) {
	t.Helper()
	msgs := []string{begins}
	if next != "" {
		msgs = append(msgs, next)
	}
	var out []byte
	for _, m := range msgs {
		var err error
		if out, _, err = e.Take([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(out), `"ForceSimulationStopEvent"`) {
		t.Fatalf("answered %s, want ForceSimulationStopEvent", out)
	}
	_, done, err := e.Take([]byte(ends))
	if !done || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("the end: %v, %v; want an error saying %q", done, err, want)
	}
	if err := p.End(); err != nil {
		t.Fatalf("End after a broken conversation: %v", err)
	}
}

// TestComponentTellsTheEnd: the shared library's form of the bridge
// (Component, from the init string) tells the process the end however the
// simulation ends: after SimulationEnds (passed through), and at Close
// when Batsim 5 went away in the middle.
func TestComponentTellsTheEnd(t *testing.T) {
	begins, submit := beginsAndSubmit(t)
	echo := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return batsim.NewReply(m.Now), nil })
	proc := serveProcess(t, echo)
	c, err := bridge.Start(context.Background(), []byte(`{"bridge":"`+proc.endpoint+`"}`), bridge.Config{Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Hello()), `"decision_component_name":"bucma-bridge"`) {
		t.Errorf("hello %s", c.Hello())
	}
	for _, m := range []string{begins, submit} {
		if _, _, err := c.Take([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := proc.last(); got != batsim.TypeSimulationEnds {
		t.Errorf("Batsim 5 gone: the process's last event is %q, want SIMULATION_ENDS", got)
	}
	ms := proc.messages()
	if now := ms[len(ms)-1].Now; now != ms[len(ms)-2].Now {
		t.Errorf("the end is told at now=%v, want the last message's %v", now, ms[len(ms)-2].Now)
	}
}

// TestEventsWithoutBatsim4Equivalent: an event Batsim 4 has no equivalent
// of is not passed on (a Batsim 4 process aborts on an event type it does
// not know); a message left empty is answered without the process.
func TestEventsWithoutBatsim4Equivalent(t *testing.T) {
	begins, _ := beginsAndSubmit(t)
	echo := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return batsim.NewReply(m.Now), nil })
	proc := serveProcess(t, echo)
	e, p, err := bridge.New(context.Background(), bridge.Config{Endpoint: proc.endpoint, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, _, err := e.Take([]byte(begins)); err != nil {
		t.Fatal(err)
	}
	probe := `{"now":2.0,"events":[{"timestamp":2.0,"event_type":"FutureEvent","event":{"x":1}}]}`
	out, _, err := e.Take([]byte(probe))
	if err != nil || !strings.HasSuffix(string(out), `"events":[]}`) {
		t.Fatalf("a message of unknown events answered %s, %v", out, err)
	}
	if n := len(proc.messages()); n != 1 {
		t.Errorf("the process got %d messages, want 1 (SIMULATION_BEGINS)", n)
	}
}

// TestParseInit: the init string's keys, and what it refuses.
func TestParseInit(t *testing.T) {
	in, err := bridge.ParseInit([]byte(`{"bridge":"tcp://127.0.0.1:28000","enable-dynamic-jobs":true,"acknowledge-dynamic-jobs":true,` +
		`"forward-profiles-on-submission":true,"enable-profile-reuse":true,"enable-compute-sharing":true,"forward-unknown-events":true,` +
		`"sched-cfg":"{\"a\":1}","timeout":"90s","connect-timeout":5,"transport":"native","verbose":true}` + "\x00"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := in.Config(bridge.Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := bridge.Config{Endpoint: "tcp://127.0.0.1:28000", Transport: "native", DynamicJobs: true, AcknowledgeDynamicJobs: true,
		ForwardProfiles: true, ProfileReuse: true, ComputeSharing: true, ForwardUnknownEvents: true, SchedConfig: `{"a":1}`,
		Timeout: time.Minute, ConnectTimeout: 5 * time.Second, Verbose: true}
	if fmt.Sprint(cfg) != fmt.Sprint(want) {
		t.Errorf("config\n got  %+v\n want %+v", cfg, want)
	}
	if !bridge.IsInit([]byte(`{"bridge": ""}`)) || bridge.IsInit([]byte(`{"policy":"easy"}`)) || bridge.IsInit([]byte(`bridge`)) {
		t.Error("IsInit")
	}
	for _, c := range []struct{ init, def, want string }{
		{`{"bridge":"tcp://h:1","policy":"easy"}`, "", `unknown field "policy"`},
		{`{"bridge":"127.0.0.1:28000"}`, "", "no transport"},
		{`{"bridge":"tcp://127.0.0.1:*"}`, "", "must be a number"},
		{`{"bridge":"tcp://h:1","timeout":"soon"}`, "", `"soon" is not a duration`},
		{`{"bridge":"tcp://h:1","timeout":-3}`, "", "out of range"},
		{`{"bridge":"tcp://h:1","transport":"carrier-pigeon"}`, "", `transport "carrier-pigeon"`},
		{`{"bridge":"tcp://h:1"} {}`, "", "text after the JSON object"},
		{`{"bridge":1}`, "", "not a bridge's JSON object"},
		{``, "", "no Batsim 4 decision process to connect to"},
		{`{"bridge":"tcp://h:1"}`, "tcp://h:2", "but the bridge connects to tcp://h:2"},
	} {
		in, err := bridge.ParseInit([]byte(c.init))
		if err == nil {
			_, err = in.Config(bridge.Config{Endpoint: c.def})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.init, err, c.want)
		}
	}
}

// FuzzParseInit: any init string is read or refused with an error, never
// a panic.
func FuzzParseInit(f *testing.F) {
	f.Add([]byte(`{"bridge":"tcp://127.0.0.1:28000","timeout":"1m"}`))
	f.Add([]byte(`{"bridge":"ipc:///tmp/x","connect-timeout":1e308}`))
	f.Add(binary.NativeEndian.AppendUint32(nil, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		if in, err := bridge.ParseInit(b); err == nil {
			_, _ = in.Config(bridge.Config{})
		}
	})
}
