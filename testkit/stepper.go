package testkit

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Stepper feeds a policy's Session hand-written messages, one at a time,
// and returns each reply's decisions in a compact form: "X name alloc" for
// EXECUTE_JOB (alloc as an interval set, "0-1 3"), "R name" for REJECT_JOB,
// "K name name..." for KILL_JOB, "C t" for CALL_ME_LATER, "P alloc pstate"
// for SET_RESOURCE_STATE, "Q" for a consumed-energy QUERY. Job names are
// those of workload "w0" (Submit, Done).
type Stepper struct {
	t    testing.TB
	sess *sched.Session
}

// NewStepper starts a Session of spec with options opts over n identical
// hosts (no speed property: every host counts as equal) and sends it
// SIMULATION_BEGINS at time 0. The Session audits its whole state after
// every message.
func NewStepper(t testing.TB, spec *sched.Spec, n int, opts sched.Options) *Stepper {
	t.Helper()
	return NewStepperHosts(t, spec, make([]map[string]string, n), opts)
}

// NewStepperHosts is NewStepper over one host per entry of props, each
// with these platform properties (wattage_per_state and sleep_pstates for
// power states) besides role.
func NewStepperHosts(t testing.TB, spec *sched.Spec, props []map[string]string, opts sched.Options) *Stepper {
	t.Helper()
	n := len(props)
	pol := run.Policy{Spec: spec, Options: opts, Validate: true, Log: slog.New(slog.DiscardHandler)}
	sess, err := pol.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res := make([]batsim.Resource, n)
	for i := range res {
		p := map[string]string{"role": ""}
		for k, v := range props[i] {
			p[k] = v
		}
		res[i] = batsim.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle", Properties: p}
	}
	b := &Stepper{t: t, sess: sess}
	b.Step(0, batsim.Event{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
		NbResources: n, NbComputeResources: n, ComputeResources: res, Workloads: map[string]string{"w0": "w.json"}}})
	return b
}

// Session is the Session the stepper feeds.
func (b *Stepper) Session() *sched.Session { return b.sess }

// Submit is the JOB_SUBMITTED event of job w0!name (a delay profile "p");
// walltime <= 0 leaves the walltime out.
func Submit(name string, res int, walltime float64) batsim.Event {
	job := map[string]any{"id": "w0!" + name, "subtime": 0, "res": res, "profile": "p"}
	if walltime > 0 {
		job["walltime"] = walltime
	}
	raw, err := json.Marshal(job)
	if err != nil {
		panic(err)
	}
	return batsim.Event{Type: batsim.TypeJobSubmitted, Data: &batsim.JobSubmitted{JobID: "w0!" + name, Job: raw}}
}

// Done is the JOB_COMPLETED event (COMPLETED_SUCCESSFULLY) of job w0!name;
// Step fills in the allocation the job runs on.
func Done(name string) batsim.Event {
	return batsim.Event{Type: batsim.TypeJobCompleted, Data: &batsim.JobCompleted{JobID: "w0!" + name, JobState: batsim.StateSuccess}}
}

// StateChanged is the RESOURCE_STATE_CHANGED event of hosts (an interval
// set, "0-1 3") reaching pstate ps.
func StateChanged(hosts string, ps int) batsim.Event {
	return batsim.Event{Type: batsim.TypeResourceStateChanged, Data: &batsim.ResourceStateChanged{Resources: hosts, State: strconv.Itoa(ps)}}
}

// Called is the REQUESTED_CALL event.
func Called() batsim.Event {
	return batsim.Event{Type: batsim.TypeRequestedCall, Data: &batsim.RequestedCall{}}
}

// Step sends one message at now, every event stamped now, and returns the
// decisions of the reply. The test fails when the Session refuses the
// message or a decision.
func (b *Stepper) Step(now float64, evs ...batsim.Event) []string {
	b.t.Helper()
	for i := range evs {
		evs[i].Timestamp = now
		if c, ok := evs[i].Data.(*batsim.JobCompleted); ok && c.Alloc == "" {
			if st := b.sess.State(); st != nil {
				if j, ok := st.Job(c.JobID); ok && j.Running() {
					c.Alloc = batsim.NewIntervalSet(j.Alloc()...).String()
				}
			}
		}
	}
	reply, err := b.sess.Handle(&batsim.Message{Now: now, Events: evs})
	if err != nil {
		b.t.Fatalf("t=%v: %v", now, err)
	}
	out, err := compact(reply)
	if err != nil {
		b.t.Fatalf("t=%v: %v", now, err)
	}
	return out
}

// compact gives a reply's decisions in Stepper's form.
func compact(reply *batsim.Reply) ([]string, error) {
	var out []string
	name := func(id string) string { return strings.TrimPrefix(id, "w0!") }
	for _, e := range reply.Events() {
		switch d := e.Data.(type) {
		case *batsim.ExecuteJob:
			out = append(out, "X "+name(d.JobID)+" "+d.Alloc.String())
		case *batsim.RejectJob:
			out = append(out, "R "+name(d.JobID))
		case *batsim.KillJob:
			ids := slices.Clone(d.JobIDs)
			for i := range ids {
				ids[i] = name(ids[i])
			}
			out = append(out, "K "+strings.Join(ids, " "))
		case *batsim.CallMeLater:
			out = append(out, "C "+strconv.FormatFloat(d.At, 'g', -1, 64))
		case *batsim.SetResourceState:
			out = append(out, "P "+d.Resources.String()+" "+strconv.Itoa(d.PState))
		case *batsim.SchedulerQuery:
			out = append(out, "Q")
		default:
			return out, fmt.Errorf("a decision the compact form does not show: %s", e.Type)
		}
	}
	return out, nil
}

// Expect is Step, failing the test unless the decisions are want (nil and
// empty are the same).
func (b *Stepper) Expect(now float64, want []string, evs ...batsim.Event) {
	b.t.Helper()
	got := b.Step(now, evs...)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		b.t.Fatalf("t=%v: decided %q, want %q", now, got, want)
	}
}
