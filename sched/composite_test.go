package sched

import (
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// recordingRule records which entry point Composite called.
type recordingRule struct{ calls *[]string }

func (r recordingRule) Apply(*State, []*Job, HostSelector, *Decider) {
	*r.calls = append(*r.calls, "Apply")
}

func (r recordingRule) ApplyArrival(*State, HostSelector, *Decider) {
	*r.calls = append(*r.calls, "ApplyArrival")
}

// Composite hands the framework's queue to a rule's arrival path exactly
// when its order is the arrival order.
func TestCompositeArrivalPath(t *testing.T) {
	for _, c := range []struct {
		order Order
		want  string
	}{
		{FCFSOrder{}, "ApplyArrival"},
		{copiedFCFS{}, "Apply"},
		{WalltimeOrder{}, "Apply"},
	} {
		s := newState(make([]Host, 2))
		j := &Job{id: "w0!1", res: 1, state: batsim.StateSubmitted}
		s.jobs[j.id] = j
		s.enqueue(j)
		var calls []string
		(&Composite{Order: c.order, Rule: recordingRule{&calls}, Hosts: FirstFit{}}).Decide(s, &Decider{s: s, reply: batsim.NewReply(0)})
		if len(calls) != 1 || calls[0] != c.want {
			t.Errorf("%T: calls %v, want %s", c.order, calls, c.want)
		}
	}
}
