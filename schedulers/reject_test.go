package schedulers

import (
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// replyBench is a Session over n identical hosts with the given policy
// options, fed hand-written messages; each step returns the reply's
// decisions in order: "X name alloc" for EXECUTE_JOB, "R name" for
// REJECT_JOB.
type replyBench struct {
	t    *testing.T
	sess *Session
}

func newReplyBench(t *testing.T, policy string, nHosts int, opts Options) *replyBench {
	t.Helper()
	spec, err := Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := NewSession(SessionConfig{Spec: spec, Options: opts, Validate: true,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	res := make([]batsim.Resource, nHosts)
	for i := range res {
		res[i] = batsim.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle", Properties: map[string]string{"role": ""}}
	}
	b := &replyBench{t: t, sess: sess}
	b.step(0, batsim.Event{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
		NbResources: nHosts, NbComputeResources: nHosts, ComputeResources: res, Workloads: map[string]string{"w0": "w.json"}}})
	return b
}

// step sends one message at now, every event stamped now, and returns the
// decisions of the reply.
func (b *replyBench) step(now float64, evs ...batsim.Event) []string {
	b.t.Helper()
	for i := range evs {
		evs[i].Timestamp = now
		if c, ok := evs[i].Data.(*batsim.JobCompleted); ok && c.Alloc == "" {
			if j := b.sess.state.running[c.JobID]; j != nil {
				c.Alloc = batsim.NewIntervalSet(j.Alloc...).String()
			}
		}
	}
	reply, err := b.sess.Handle(&batsim.Message{Now: now, Events: evs})
	if err != nil {
		b.t.Fatalf("t=%v: %v", now, err)
	}
	var out []string
	for _, e := range reply.Events() {
		switch d := e.Data.(type) {
		case *batsim.ExecuteJob:
			out = append(out, "X "+strings.TrimPrefix(d.JobID, "w0!")+" "+d.Alloc.String())
		case *batsim.RejectJob:
			out = append(out, "R "+strings.TrimPrefix(d.JobID, "w0!"))
		default:
			b.t.Fatalf("t=%v: unexpected %s", now, e.Type)
		}
	}
	return out
}

func (b *replyBench) expect(now float64, want []string, evs ...batsim.Event) {
	b.t.Helper()
	got := b.step(now, evs...)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		b.t.Fatalf("t=%v: decided %q, want %q", now, got, want)
	}
}

// TestFCFSRejectsInQueueOrder: fcfs places the rejection of a job that can
// never run where its walk of the queue meets it, between the starts (as
// batsched's fcfs_fast answers); the refused jobs behind the first job that
// does not fit are rejected after the starts.
func TestFCFSRejectsInQueueOrder(t *testing.T) {
	b := newReplyBench(t, "fcfs", 2, Options{"hosts": "first-fit"})
	b.expect(0, []string{"X a 0", "R b", "X c 1", "R e"},
		sub("a", 1, 10), sub("b", 3, 10), sub("c", 1, 10), sub("d", 2, 10), sub("e", 5, 10))
	// Nothing free: the refused job is rejected all the same.
	b.expect(1, []string{"R f"}, sub("f", 3, 10))
	b.expect(10, []string{"X d 0-1"}, done("a"), done("c"))
}
