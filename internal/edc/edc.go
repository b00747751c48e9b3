// Package edc builds bucma's Batsim 5 external decision component: it reads
// the init string Batsim 5 hands over, builds the policy's session (the same
// pure session that serves Batsim 4) and wraps it in the protocol adapter of
// package batsim/v5, with the simulation features the policy needs. The
// ZeroMQ server (bucma run) and the shared library (cmd/libbucma) both start
// their decision component here.
package edc

import (
	"bytes"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/bucma-sched/bucma/policies"

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
// known ones.
func ParseInit(data []byte) (Init, error) {
	var in Init
	data = bytes.TrimSpace(v5.TrimNUL(data))
	if len(data) == 0 {
		return in, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Errorf("init string is not a JSON object with the keys policy, options, validate, verbose: %v", err)
	}
	if dec.More() {
		return in, fmt.Errorf("init string: text after the JSON object")
	}
	if o := bytes.TrimSpace(in.Options); len(o) > 0 && string(o) != "null" && o[0] != '{' {
		return in, fmt.Errorf("init string: options must be a JSON object, got %s", o)
	}
	return in, nil
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

// Registry is the policies a decision component serves: bucma's built-in
// policies and the twins of Batsim 5's own test decision components
// (package policies/edctwins).
func Registry() *sched.Registry {
	r := policies.Builtin()
	for _, s := range edctwins.Specs() {
		r.Add(s)
	}
	return r
}

// Requested are the simulation features and constraints a policy needs
// from Batsim 5: dynamic registration with acknowledgment and the profiles
// of the static workloads for a policy that resubmits killed work (as
// bucma's runners give Batsim 4 --enable-dynamic-jobs
// --acknowledge-dynamic-jobs), compute sharing for a policy that runs
// several jobs on a host, the profiles for a policy that reads them.
// Batsim 5's energy model (--energy-host) is Batsim's command line, not a
// request.
func Requested(spec *sched.Spec) (v5.RequestedFeatures, v5.SchedulingConstraints) {
	f := v5.RequestedFeatures{}
	if spec.DynamicJobs {
		f.DynamicRegistration = true
		f.AcknowledgeDynamicJobs = true
	}
	if spec.DynamicJobs || spec.Profiles {
		f.ForwardProfilesOnSimulationBegins = true
		f.ForwardProfilesOnJobSubmission = true
	}
	c := v5.DefaultConstraints()
	c.ComputeSharing = spec.ComputeSharing
	return f, c
}

// AdapterConfig configures the protocol adapter of a policy's decision
// component.
func AdapterConfig(spec *sched.Spec, version, schedConfig string, log *slog.Logger) v5.Config {
	f, c := Requested(spec)
	return v5.Config{Name: Name, Version: version, Features: f, Constraints: c, SchedConfig: schedConfig, Log: log}
}

// NewSession builds the session that takes a policy's decisions: every
// entry point of the decision component builds it here.
func NewSession(spec *sched.Spec, opts sched.Options, validate bool, log *slog.Logger, observers ...sched.Observer) (*sched.Session, error) {
	return sched.NewSession(sched.SessionConfig{Spec: spec, Options: opts, Validate: validate, Log: log, Observers: observers})
}

// New starts a decision component from its init string alone (the shared
// library's case): the init string must name the policy. log receives the
// session's warnings (nil: slog.Default()).
func New(init []byte, version string, log *slog.Logger) (*v5.EDC, Init, error) {
	in, err := ParseInit(init)
	if err != nil {
		return nil, in, err
	}
	reg := Registry()
	if in.Policy == "" {
		return nil, in, fmt.Errorf("init string: no policy (want {\"policy\": NAME, \"options\": {...}}; valid names: %s)", strings.Join(reg.Names(), ", "))
	}
	spec, err := reg.Lookup(in.Policy)
	if err != nil {
		return nil, in, fmt.Errorf("init string: %w", err)
	}
	// The options are checked now, as the command line's are, so that a bad
	// one fails at the initialization rather than at SimulationBegins.
	opts, reserved, err := sched.ParseSchedConfig(in.SchedConfig())
	if err != nil {
		return nil, in, fmt.Errorf("init string: options: %w", err)
	}
	if len(reserved) > 0 {
		keys := make([]string, 0, len(reserved))
		for k := range reserved {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, in, fmt.Errorf("init string: options: %s is not an option (the policy is the init string's \"policy\")", strings.Join(keys, ", "))
	}
	if _, err := spec.Resolve(opts); err != nil {
		return nil, in, fmt.Errorf("init string: options: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	sess, err := NewSession(spec, opts, in.Validate, log)
	if err != nil {
		return nil, in, err
	}
	return v5.NewEDC(AdapterConfig(spec, version, "", log), sess), in, nil
}
