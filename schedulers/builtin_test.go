package schedulers

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

func baseNames(bases []*Spec) []string {
	var out []string
	for _, b := range bases {
		out = append(out, b.Name)
	}
	return out
}

// Every base policy is declared once (its Spec.Base) and BUCMA wraps
// exactly those, in Rank order, with the base's own order and rule.
func TestBasesDeclaredOnce(t *testing.T) {
	reg := Builtin()
	var bases []*Spec
	for _, name := range reg.Names() {
		if s, _ := reg.Get(name); s.Base != nil {
			bases = append(bases, s)
		}
	}
	bucma, _ := reg.Get("bucma")
	values := bucma.option("base").Values
	if want := []string{"fcfs", "easy", "minmin", "maxmin"}; !reflect.DeepEqual(values, want) {
		t.Fatalf("bucma base values %v, want %v", values, want)
	}
	if len(values) != len(bases) {
		t.Fatalf("bucma wraps %v, the bases are %v", values, baseNames(bases))
	}
	for _, b := range bases {
		p, err := b.Build(nil)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := p.(*Composite)
		if !ok || c.Order != b.Base.Order || c.Rule != b.Base.Rule {
			t.Errorf("%s builds %#v, want the Composite of its base %+v", b.Name, p, *b.Base)
		}
		p, err = bucma.Build(Options{"base": b.Name})
		if err != nil {
			t.Fatal(err)
		}
		if w := p.(*BUCMA); w.Order.Base != b.Base.Order || w.Rule != b.Base.Rule {
			t.Errorf("bucma base=%s: order %#v rule %#v, want %+v", b.Name, w.Order.Base, w.Rule, *b.Base)
		}
	}
}

// A base registered after the wrappers (as a file sorting after bucma.go
// would be) is wrapped too, at the place its Rank gives.
func TestWrappersSeeEveryBase(t *testing.T) {
	saved := registered
	t.Cleanup(func() { registered = saved })
	registered = append(append([]Spec(nil), saved...),
		baseSpec("test-base", "test", Base{Order: WalltimeOrder{}, Rule: Blocking{}, Rank: 15}))
	reg := Builtin()
	bucma, _ := reg.Get("bucma4303")
	if got := strings.Join(bucma.option("base").Values, " "); got != "fcfs test-base easy minmin maxmin" {
		t.Fatalf("bucma4303 base values: %s", got)
	}
	if _, err := bucma.Build(Options{"base": "test-base"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Get("test-base"); !ok {
		t.Fatal("test-base not registered")
	}
	reg.Add(Spec{Name: "test-added"})
	if _, ok := Builtin().Get("test-added"); ok {
		t.Fatal("Builtin shares its registry between calls")
	}
}

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
		s := NewState(make([]Host, 2))
		j := &Job{ID: "w0!1", Res: 1, State: batsim.StateSubmitted}
		s.jobs[j.ID] = j
		s.enqueue(j)
		var calls []string
		(&Composite{Order: c.order, Rule: recordingRule{&calls}, Hosts: FirstFit{}}).Decide(s, &Decider{s: s, reply: batsim.NewReply(0)})
		if len(calls) != 1 || calls[0] != c.want {
			t.Errorf("%T: calls %v, want %s", c.order, calls, c.want)
		}
	}
}
