package policies_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/bucma"
	"github.com/bucma-sched/bucma/sched"
)

func baseNames(bases []*sched.Spec) []string {
	var out []string
	for _, b := range bases {
		out = append(out, b.Name)
	}
	return out
}

// Every base policy is declared once (its Spec.Base) and BUCMA wraps
// exactly those, in Rank order, with the base's own order and rule.
func TestBasesDeclaredOnce(t *testing.T) {
	reg := policies.Builtin()
	var bases []*sched.Spec
	for _, name := range reg.Names() {
		if s, _ := reg.Get(name); s.Base != nil {
			bases = append(bases, s)
		}
	}
	bucmaSpec, _ := reg.Get("bucma")
	values := bucmaSpec.Option("base").Values
	if want := []string{"fcfs", "easy", "conservative", "minmin", "maxmin"}; !reflect.DeepEqual(values, want) {
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
		c, ok := p.(*sched.Composite)
		if !ok || c.Order != b.Base.Order || !sameRule(c.Rule, b.Base.Rule) {
			t.Errorf("%s builds %#v, want the Composite of its base %+v", b.Name, p, *b.Base)
		}
		p, err = bucmaSpec.Build(sched.Options{"base": b.Name})
		if err != nil {
			t.Fatal(err)
		}
		if w := p.(*bucma.BUCMA); w.Order.Base != b.Base.Order || !sameRule(w.Rule, b.Base.Rule) {
			t.Errorf("bucma base=%s: order %#v rule %#v, want %+v", b.Name, w.Order.Base, w.Rule, *b.Base)
		}
	}
}

// sameRule reports whether a policy's rule is its base's: the very rule,
// or for a rule that keeps state (Conservative) a fresh one of its kind,
// never the base's own (which every policy would share).
func sameRule(got, base sched.StartRule) bool {
	if sched.RunsAtEveryDecision(base) {
		return got != base && reflect.TypeOf(got) == reflect.TypeOf(base) && reflect.DeepEqual(got, base)
	}
	return got == base
}

// A base registered after the wrappers (a user's own, added to the
// built-in registry) is wrapped too, at the place its Rank gives.
func TestWrappersSeeEveryBase(t *testing.T) {
	reg := policies.Builtin()
	if got := strings.Join(mustGet(t, reg, "bucma4303").Option("base").Values, " "); got != "fcfs easy conservative minmin maxmin" {
		t.Fatalf("bucma4303 base values before: %s", got)
	}
	reg.Add(sched.BaseSpec("test-base", "test", sched.Base{Order: sched.WalltimeOrder{}, Rule: sched.Blocking{}, Rank: 15}))
	bucmaSpec, _ := reg.Get("bucma4303")
	if got := strings.Join(bucmaSpec.Option("base").Values, " "); got != "fcfs test-base easy conservative minmin maxmin" {
		t.Fatalf("bucma4303 base values: %s", got)
	}
	if _, err := bucmaSpec.Build(sched.Options{"base": "test-base"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Get("test-base"); !ok {
		t.Fatal("test-base not registered")
	}
	reg.Add(sched.Spec{Name: "test-added"})
	if _, ok := policies.Builtin().Get("test-added"); ok {
		t.Fatal("Builtin shares its registry between calls")
	}
}

func mustGet(t *testing.T, reg *sched.Registry, name string) *sched.Spec {
	t.Helper()
	s, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
