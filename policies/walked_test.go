package policies_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies/bucma"
	"github.com/bucma-sched/bucma/policies/prio"
	"github.com/bucma-sched/bucma/policies/wtrust"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// sortOnly hides an order's jobSeq: a policy over it sorts a copy of the
// queue at every decision, as before the orders were kept.
type sortOnly struct{ sched.Order }

// sortingWtrust is the walltime-trust decision as it was before the orders
// were kept: sort a copy of the queue, then EASY over it.
type sortingWtrust struct{ *wtrust.WalltimeTrust }

func (w sortingWtrust) Decide(s *sched.State, d *sched.Decider) {
	q := s.WaitingCopy()
	if len(q) == 0 || s.NbFree() == 0 {
		return
	}
	sched.AreaOrder{Descending: w.BigFirst(s)}.Sort(s, q)
	sched.EASY{}.Apply(s, q, w.Hosts, d)
}

// sorting returns the spec of policy name whose policies sort the queue.
func sorting(t *testing.T, name string) *sched.Spec {
	spec, ok := reg.Get(name)
	if !ok {
		t.Fatalf("no policy %s", name)
	}
	ref := *spec
	ref.New = func(opts sched.Options) (sched.Policy, error) {
		p, err := spec.New(opts)
		if err != nil {
			return nil, err
		}
		switch p := p.(type) {
		case *sched.Composite:
			p.Order = sortOnly{p.Order}
		case *bucma.BUCMA:
			p.Order.Base = sortOnly{p.Order.Base}
		case *wtrust.WalltimeTrust:
			return sortingWtrust{p}, nil
		default:
			t.Fatalf("policy %s: no sorting reference for %T", name, p)
		}
		return p, nil
	}
	return &ref
}

// TestWalkedOrdersDecideAsSorted runs every policy that walks a kept order
// on crowded workloads, and the same policy sorting a copy of the queue at
// every decision: every reply, and the decision trace, must be the same
// bytes.
func TestWalkedOrdersDecideAsSorted(t *testing.T) {
	pins := "u1:100,u2:0,u3:100,u65:100,u66:0,:25"
	variants := []testkit.Scenario{
		{Registry: reg, Policy: "minmin"}, {Registry: reg, Policy: "maxmin"},
		{Registry: reg, Policy: "wtrust"}, {Registry: reg, Policy: "wtrust", Options: sched.Options{"threshold": "0.3"}},
		{Registry: reg, Policy: "bucma"}, {Registry: reg, Policy: "bucma5302", Options: sched.Options{"pinned-scores": pins}},
		{Registry: reg, Policy: "bucma4303", Options: sched.Options{"base": "easy"}},
	}
	for _, base := range []string{"fcfs", "easy", "minmin", "maxmin"} {
		variants = append(variants,
			testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"base": base, "weights": "0.25,0.25,0.25,0.25", "pinned-scores": pins}},
			testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"base": base, "weights": "0.5,0.5,0,0", "initial-score": "100", "hosts": "first-fit"}})
	}
	// The priority functions under EASY backfilling; those whose order
	// changes with the time (sched.TimeOrder) and two kept by a
	// sched.KeyOrder under the two other rules too.
	for _, f := range prio.Functions {
		backfills := []string{"easy"}
		switch f.Name {
		case "prio-wfp3", "prio-unicep", "prio-xf", "prio-f1", "prio-largest":
			backfills = prio.BackfillOption.Values
		}
		for _, b := range backfills {
			variants = append(variants, testkit.Scenario{Registry: reg, Policy: f.Name, Options: sched.Options{"backfill": b}})
		}
	}
	seeds, n := 1, 600
	if testing.Short() {
		n = 250
	}
	for _, v := range variants {
		t.Run(fmt.Sprintf("%s%v", v.Policy, v.Options), func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				var outs [2]struct{ replies, trace bytes.Buffer }
				for k, spec := range []*sched.Spec{nil, sorting(t, v.Policy)} {
					sc := v
					sc.Spec = spec
					sc.NoAudit = k == 1
					sc.Speeds, sc.Jobs = testkit.Crowded(seed, n)
					tr := sched.NewTrace(&outs[k].trace)
					sc.Observers = []sched.Observer{tr}
					d := testkit.NewDriver(t, sc)
					var replies []byte
					d.Replies = &replies
					maxq := 0
					d.After = func(float64) { maxq = max(maxq, d.Session().State().NbWaiting()) }
					d.Run()
					if k == 0 && seed == 1 {
						t.Logf("%d messages, up to %d waiting jobs", d.Messages(), maxq)
					}
					outs[k].replies.Write(replies)
				}
				if !bytes.Equal(outs[0].replies.Bytes(), outs[1].replies.Bytes()) {
					a, b := strings.Split(outs[0].replies.String(), "\n"), strings.Split(outs[1].replies.String(), "\n")
					for i := range min(len(a), len(b)) {
						if a[i] != b[i] {
							t.Fatalf("seed %d: reply %d differs:\nwalked: %s\nsorted: %s", seed, i, a[i], b[i])
						}
					}
					t.Fatalf("seed %d: %d replies walked, %d sorted", seed, len(a), len(b))
				}
				if !bytes.Equal(outs[0].trace.Bytes(), outs[1].trace.Bytes()) {
					t.Fatalf("seed %d: the decision traces differ", seed)
				}
			}
		})
	}
}
