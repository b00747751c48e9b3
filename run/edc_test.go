package run

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
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
		if _, _, err := New([]byte(c.init), policies.Builtin(), "test", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.init, err, c.want)
		}
	}
	e, in, err := New([]byte(`{"policy":"edc-killer","options":{"kill-delay":6.5}}`), policies.Builtin(), "test", nil)
	if err != nil || in.Policy != "edc-killer" || e == nil {
		t.Fatalf("edc-killer: %v", err)
	}
	if h := string(e.Hello()); !strings.Contains(h, `"decision_component_name":"bucma","decision_component_version":"test"`) {
		t.Errorf("hello %s", h)
	}
}

func TestRequested(t *testing.T) {
	reg := policies.Builtin()
	if n, b := len(Names(reg)), len(reg.Names()); n != b+5 {
		t.Errorf("a decision component serves %d policies, want the %d built-in ones and 5 twins", n, b)
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

// TestResolve: bucma run and the library read an init string with one
// function; a command line adds a default policy and options that win.
func TestResolve(t *testing.T) {
	reg := policies.Builtin() // a command line's registry, without the twins
	fcfs, err := reg.Lookup("fcfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		init     string
		def      Defaults
		policy   string
		opts     map[string]string
		errWants string
	}{
		{`{"policy":"easy","options":{"hosts":"first-fit"}}`, Defaults{}, "easy", map[string]string{"hosts": "first-fit"}, ""},
		{`{"options":{"hosts":"first-fit"}}`, Defaults{Spec: fcfs, Options: map[string]string{"hosts": "fastest"}}, "fcfs", map[string]string{"hosts": "fastest"}, ""},
		{`{"policy":"fcfs"}`, Defaults{Spec: fcfs}, "fcfs", map[string]string{}, ""},
		{``, Defaults{Spec: fcfs}, "fcfs", map[string]string{}, ""},
		{`{"policy":"edc-killer","options":{"kill-delay":2}}`, Defaults{}, "edc-killer", map[string]string{"kill-delay": "2"}, ""},
		{``, Defaults{}, "", nil, "init string: no policy"},
		{`{"policy":"easy"}`, Defaults{Spec: fcfs}, "", nil, `it names policy "easy" but bucma run serves "fcfs"`},
		{`{"options":{"nope":1}}`, Defaults{Spec: fcfs}, "", nil, `init string: options: scheduler fcfs: unknown option "nope"`},
		{`{"options":{"hosts":"slowest"}}`, Defaults{Spec: fcfs}, "", nil, `init string: options: scheduler fcfs: option hosts="slowest"`},
		{`{"policy":"nope"}`, Defaults{}, "", nil, `init string: unknown scheduler "nope" (valid: `},
		{`{"policy":"fcfs"}`, Defaults{Options: map[string]string{"nope": "1"}}, "", nil, `--option, for the init string's policy fcfs: scheduler fcfs: unknown option "nope"`},
		{`{"policy":"fcfs"}`, Defaults{Options: map[string]string{"hosts": "slowest"}}, "", nil, `--option, for the init string's policy fcfs: scheduler fcfs: option hosts="slowest"`},
		{`{"policy":"fcfs","options":{"hosts":"first-fit"}}`, Defaults{Options: map[string]string{"hosts": "fastest"}}, "fcfs", map[string]string{"hosts": "fastest"}, ""},
	} {
		st, err := Resolve([]byte(c.init), reg, c.def)
		if c.errWants != "" {
			var oe *sched.OptionError
			if err == nil || !strings.Contains(err.Error(), c.errWants) || !errors.As(err, &oe) {
				t.Errorf("%s: %v, want an option error with %q", c.init, err, c.errWants)
			}
			continue
		}
		if err != nil || st.Spec.Name != c.policy || fmt.Sprint(st.Options) != fmt.Sprint(sched.Options(c.opts)) {
			t.Errorf("%s: %v %+v, want %s %v", c.init, err, st, c.policy, c.opts)
		}
	}
	if names := strings.Join(Names(reg), ","); !strings.Contains(names, "easy,edc-easy,edc-exec1by1,edc-fcfs,edc-killer,edc-rejecter,energy") {
		t.Errorf("names %s, want the twins among the registry's", names)
	}
}
