package policies

import (
	"testing"

	"github.com/bucma-sched/bucma/sched"
)

// Every batsched variant's twin is a registered policy whose options are
// valid.
func TestBatschedVariantsResolve(t *testing.T) {
	reg := Builtin()
	seen := map[string]bool{}
	for _, v := range BatschedVariants() {
		if seen[v.Name] {
			t.Errorf("variant %s listed twice", v.Name)
		}
		seen[v.Name] = true
		spec, err := reg.Lookup(v.Policy)
		if err != nil {
			t.Errorf("variant %s: %v", v.Name, err)
			continue
		}
		if _, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: v.Options}); err != nil {
			t.Errorf("variant %s: policy %s with %v: %v", v.Name, v.Policy, v.Options, err)
		}
		if v.Proven == "" {
			t.Errorf("variant %s: no test named as its proof", v.Name)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("%d variants listed", len(seen))
	}
}
