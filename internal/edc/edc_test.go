package edc

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
)

func TestParseInit(t *testing.T) {
	in, err := ParseInit(nil)
	if err != nil || in.Policy != "" || in.SchedConfig() != "" {
		t.Fatalf("empty init: %+v %v", in, err)
	}
	in, err = ParseInit([]byte(` {"policy":"easy","options":{"hosts":"first-fit","weights":[0.4,0.3]},"validate":true}` + "\x00"))
	if err != nil || in.Policy != "easy" || !in.Validate || in.SchedConfig() != `{"hosts":"first-fit","weights":[0.4,0.3]}` {
		t.Fatalf("init: %+v %v", in, err)
	}
	for _, c := range []struct{ init, want string }{
		{`{"policy":"easy","format_json":true}`, "format_json"},
		{`{"policy":"easy","options":["x"]}`, "options must be a JSON object"},
		{`{"policy":"easy"} {}`, "text after"},
		{`easy`, "not a JSON object"},
	} {
		if _, err := ParseInit([]byte(c.init)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.init, err, c.want)
		}
	}
}

func TestNew(t *testing.T) {
	for _, c := range []struct{ init, want string }{
		{``, "no policy"},
		{`{"policy":"nope"}`, `unknown scheduler "nope"`},
		{`{"policy":"fcfs","options":{"hosts":"slowest"}}`, "slowest"},
		{`{"policy":"fcfs","options":{"nope":1}}`, `"nope"`},
		{`{"policy":"fcfs","options":{"policy":"easy"}}`, "policy is not an option"},
		{`{"policy":"edc-killer","options":{"kill-delay":-1}}`, "kill-delay"},
	} {
		if _, _, err := New([]byte(c.init), "test", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.init, err, c.want)
		}
	}
	e, in, err := New([]byte(`{"policy":"edc-killer","options":{"kill-delay":6.5}}`), "test", nil)
	if err != nil || in.Policy != "edc-killer" || e == nil {
		t.Fatalf("edc-killer: %v", err)
	}
	if h := string(e.Hello()); !strings.Contains(h, `"decision_component_name":"bucma","decision_component_version":"test"`) {
		t.Errorf("hello %s", h)
	}
}

func TestRequested(t *testing.T) {
	reg := Registry()
	if n, b := len(reg.Names()), len(policies.Builtin().Names()); n != b+5 {
		t.Errorf("the registry has %d policies, want the %d built-in ones and 5 twins", n, b)
	}
	for _, c := range []struct {
		policy                    string
		dyn, ack, profiles, share bool
	}{
		{"fcfs", false, false, false, false},
		{"osep", true, true, true, false},
		{"osep-hetero", true, true, true, false},
		{"sge-loadbalanced", false, false, false, true},
		{"threshold-vm-consolidation", false, false, false, true},
	} {
		spec, err := reg.Lookup(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		f, k := Requested(spec)
		if f.DynamicRegistration != c.dyn || f.AcknowledgeDynamicJobs != c.ack || f.ForwardProfilesOnSimulationBegins != c.profiles || k.ComputeSharing != c.share || !k.StorageSharing {
			t.Errorf("%s: features %+v constraints %+v", c.policy, f, k)
		}
	}
}
