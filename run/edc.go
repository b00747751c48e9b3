package run

// bucma's Batsim 5 external decision component: the init string Batsim 5
// hands over, the policy's session (the same pure session that serves
// Batsim 4) wrapped in the protocol adapter of package batsim/v5, with the
// simulation features the policy needs. The ZeroMQ server (bucma run) and
// the shared library (cmd/libbucma) both start their decision component
// here.

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/policies/edctwins"
	"github.com/bucma-sched/bucma/sched"
)

// Name is the decision component's name in its hello.
const Name = "bucma"

// Init is the init string of bucma's decision component, a JSON object:
//
//	{"policy": "easy", "options": {"hosts": "first-fit"}, "validate": false, "verbose": false}
//
// Options take the values of bucma's --option (strings) or of Batsim 4's
// --sched-cfg (numbers, arrays for comma-separated values, objects for
// key:value lists). An empty init string is an empty object.
type Init struct {
	Policy   string          `json:"policy"`
	Options  json.RawMessage `json:"options"`
	Validate bool            `json:"validate"`
	Verbose  bool            `json:"verbose"`
}

// ParseInit reads an init string; an unknown key is an error naming the
// known ones. Its errors are *sched.OptionError (a bad option).
func ParseInit(data []byte) (Init, error) {
	var in Init
	if _, err := v5.DecodeInit(data, &in); errors.Is(err, v5.ErrTextAfterInit) {
		return in, initError("%v", err)
	} else if err != nil {
		return in, initError("not a JSON object with the keys policy, options, validate, verbose: %v", err)
	}
	if o := bytes.TrimSpace(in.Options); len(o) > 0 && string(o) != "null" && o[0] != '{' {
		return in, initError("options must be a JSON object, got %s", o)
	}
	return in, nil
}

// initError is a refused init string: a bad option, as a command line's
// (exit status 2 for bucma run).
func initError(format string, args ...any) error {
	return &sched.OptionError{Msg: "init string: " + fmt.Sprintf(format, args...)}
}

// SchedConfig is the init string's options as Batsim 4's sched-config (a
// JSON object), which the session merges under the command line's options.
func (in Init) SchedConfig() string {
	o := bytes.TrimSpace(in.Options)
	if len(o) == 0 || string(o) == "null" {
		return ""
	}
	return string(o)
}

var (
	twinsOnce sync.Once
	twins     map[string]*sched.Spec
)

// twin is the twin of one of Batsim 5's test components named name.
func twin(name string) (*sched.Spec, bool) {
	twinsOnce.Do(func() {
		twins = map[string]*sched.Spec{}
		for _, s := range edctwins.Specs() {
			twins[s.Name] = &s
		}
	})
	s, ok := twins[name]
	return s, ok
}

// Lookup finds a policy a decision component serves: one of reg's, or a
// twin of Batsim 5's test components (edc-fcfs, ...), which every
// decision component serves whatever its registry.
func Lookup(reg *sched.Registry, name string) (*sched.Spec, error) {
	if s, ok := reg.Get(name); ok {
		return s, nil
	}
	if s, ok := twin(name); ok {
		return s, nil
	}
	return nil, &sched.OptionError{Msg: fmt.Sprintf("unknown scheduler %q (valid: %s)", name, strings.Join(Names(reg), ", "))}
}

// Names lists the policies Lookup finds, sorted.
func Names(reg *sched.Registry) []string {
	names := reg.Names()
	for _, s := range edctwins.Specs() {
		if _, ok := reg.Get(s.Name); !ok {
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	return names
}

// AdapterConfig configures the protocol adapter of a policy's decision
// component.
func AdapterConfig(spec *sched.Spec, version, schedConfig string, log *slog.Logger) v5.Config {
	f, c := Requested(spec)
	return v5.Config{Name: Name, Version: version, Features: f, Constraints: c, SchedConfig: schedConfig, Log: log}
}

// Defaults are what a command line gives a decision component besides
// its init string (bucma run's --scheduler and --option); the shared
// library has none.
type Defaults struct {
	// Spec is the policy, nil when the init string names it.
	Spec *sched.Spec
	// Options win over the init string's.
	Options sched.Options
}

// Setup is a decision component's configuration: its init string, the
// policy it serves and the policy's options.
type Setup struct {
	Init    Init
	Spec    *sched.Spec
	Options sched.Options
}

// Resolve reads an init string as every decision component does, the
// shared library and bucma run alike: the policy is the one the init string
// names (looked up in reg, or a twin), or def's when the init string names
// none (both: they must be the same); the options are the init string's
// under def's, each a policy option with a valid value, checked now so that
// a bad one is refused at the initialization rather than at
// SimulationBegins. Every refusal is a *sched.OptionError naming the
// problem.
func Resolve(init []byte, reg *sched.Registry, def Defaults) (Setup, error) {
	in, err := ParseInit(init)
	if err != nil {
		return Setup{}, err
	}
	st := Setup{Init: in, Spec: def.Spec}
	switch {
	case in.Policy == "" && def.Spec == nil:
		return st, initError("no policy (want {\"policy\": NAME, \"options\": {...}}, or bucma run --scheduler NAME; valid names: %s)", strings.Join(Names(reg), ", "))
	case in.Policy != "" && def.Spec != nil && in.Policy != def.Spec.Name:
		return st, initError("it names policy %q but bucma run serves %q (--scheduler)", in.Policy, def.Spec.Name)
	case in.Policy != "" && def.Spec == nil:
		if st.Spec, err = Lookup(reg, in.Policy); err != nil {
			return st, initError("%v", err)
		}
	}
	if def.Spec == nil && len(def.Options) > 0 {
		// --option, checked now that the policy is known.
		if _, err := st.Spec.Resolve(def.Options); err != nil {
			return st, &sched.OptionError{Msg: fmt.Sprintf("--option, for the init string's policy %s: %v", st.Spec.Name, err)}
		}
	}
	opts, reserved, err := sched.ParseSchedConfig(in.SchedConfig())
	if err != nil {
		return st, initError("options: %v", err)
	}
	if len(reserved) > 0 {
		keys := make([]string, 0, len(reserved))
		for k := range reserved {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return st, initError("options: %s is not an option (the policy is the init string's \"policy\")", strings.Join(keys, ", "))
	}
	if _, err := st.Spec.Resolve(opts); err != nil {
		return st, initError("options: %v", err)
	}
	st.Options = sched.MergeOptions(opts, def.Options)
	if _, err := st.Spec.Build(st.Options); err != nil {
		if len(def.Options) > 0 {
			return st, &sched.OptionError{Msg: fmt.Sprintf("options (the init string's under --option's): %v", err)}
		}
		return st, initError("options: %v", err)
	}
	return st, nil
}

// Start builds the decision component of a setup: the policy's session
// (validating when the command line or the init string asks; observers see
// it) behind the protocol adapter. log receives the session's warnings
// (nil: slog.Default()).
func Start(st Setup, version string, validate bool, log *slog.Logger, observers ...sched.Observer) (*v5.EDC, error) {
	if log == nil {
		log = slog.Default()
	}
	p := Policy{Spec: st.Spec, Options: st.Options, Validate: validate || st.Init.Validate, Log: log, Observers: observers}
	sess, err := p.NewSession()
	if err != nil {
		return nil, err
	}
	return v5.NewEDC(AdapterConfig(st.Spec, version, "", log), sess), nil
}

// New starts a decision component from its init string alone (the shared
// library's case): the init string must name the policy, one of reg's or a
// twin of Batsim 5's test components. log receives the session's warnings
// (nil: slog.Default()).
func New(init []byte, reg *sched.Registry, version string, log *slog.Logger) (*v5.EDC, Init, error) {
	st, err := Resolve(init, reg, Defaults{})
	if err != nil {
		return nil, st.Init, err
	}
	e, err := Start(st, version, false, log)
	return e, st.Init, err
}

// Refused is the decision component of an init string that Resolve
// refused, for a transport whose Batsim waits for an answer whatever
// happens (ZeroMQ): its hello answers the initialization, then it asks
// Batsim to stop the simulation and ends with err (v5.EDC.Fail), so that
// Batsim ends too.
func Refused(version string, err error) *v5.EDC {
	e := v5.NewEDC(v5.Config{Name: Name, Version: version}, nil)
	e.Fail(err)
	return e
}
