package policies_test

import (
	"testing"

	"github.com/bucma-sched/bucma/internal/fuzzguard"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
)

// FuzzParseSchedConfig: Batsim's --sched-cfg string, whatever it holds,
// gives options or an error, never a panic nor a stall; every built-in
// policy then accepts or refuses its options (the ones it knows, as a
// session keeps them) with an error.
func FuzzParseSchedConfig(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"hosts":"first-fit"}`, `{"hosts": "fastest", "scheduler": "easy"}`,
		`{"weights": [0.4, 0.3, 0, 0.3], "base": "minmin"}`, `{"pinned-scores": {"alice": 100, "bob": 0}}`,
		`{"threshold": 0.5, "policy": "wtrust"}`, `{"weights": [1e308, -1e308, 0, 0]}`, `{"base": {"a": [1]}}`, `[1]`, `{"a":`,
	} {
		f.Add(s)
	}
	reg := policies.Builtin()
	f.Fuzz(func(t *testing.T, cfg string) {
		fuzzguard.Run(t, func() error {
			opts, _, err := sched.ParseSchedConfig(cfg)
			if err != nil {
				return nil
			}
			for _, name := range reg.Names() {
				spec, err := reg.Lookup(name)
				if err != nil {
					return err
				}
				known := sched.Options{}
				for k, v := range opts {
					if spec.Option(k) != nil {
						known[k] = v
					}
				}
				_, _ = spec.Build(known)
			}
			return nil
		})
	})
}
