package platforms

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// The platforms of the Batsim 4.2.1 conformance corpus, read as Batsim
// read them: the hosts must be the compute_resources Batsim sent in
// SIMULATION_BEGINS.

type batsimResource struct {
	ID             int               `json:"id"`
	Name           string            `json:"name"`
	State          string            `json:"state"`
	Properties     map[string]string `json:"properties"`
	ZoneProperties map[string]string `json:"zone_properties"`
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestConformancePlatforms(t *testing.T) {
	cases := []struct {
		name   string
		lm, lh float64
		speeds []float64 // by resource id
	}{
		{"hetero4_delays", 5e-6, 100e-6, []float64{8e9, 4e9, 2e9, 1e9}},
		{"hetero8_compute", 5e-6, 150e-6, []float64{3e9, 4e9, 5e9, 6e9, 7e9, 8e9, 1e9, 2e9}},
		{"users_fields", 0, 20e-6, []float64{2e9, 4e9}},
		{"kill_resubmit", 5e-6, 10e-6, []float64{4e9, 2e9, 2e9, 2e9}},
		{"pv_alloc_too_big", 5e-6, 10e-6, []float64{1e9, 2e9}}, // the platform of every protocol-violation case
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Load(corpus.Path(c.name, "platform.xml"))
			if err != nil {
				t.Fatal(err)
			}
			compute, storage := corpus.Resources(t, c.name)
			var want struct{ Compute, Storage []batsimResource }
			if err := json.Unmarshal(compute, &want.Compute); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(storage, &want.Storage); err != nil {
				t.Fatal(err)
			}
			if len(p.Hosts) != len(want.Compute) || len(p.Storage) != len(want.Storage) {
				t.Fatalf("got %d compute / %d storage hosts, want %d / %d",
					len(p.Hosts), len(p.Storage), len(want.Compute), len(want.Storage))
			}
			if p.Master != "master" {
				t.Errorf("master = %q", p.Master)
			}
			for i, w := range want.Compute {
				h := p.Hosts[i]
				if h.ID != w.ID || h.Name != w.Name {
					t.Errorf("host %d: got id %d name %q, want id %d name %q", i, h.ID, h.Name, w.ID, w.Name)
				}
				if !reflect.DeepEqual(h.Properties, w.Properties) {
					t.Errorf("%s: properties %v, want %v", h.Name, h.Properties, w.Properties)
				}
				if h.ZoneProperties == nil || !reflect.DeepEqual(h.ZoneProperties, w.ZoneProperties) {
					t.Errorf("%s: zone_properties %#v, want %v", h.Name, h.ZoneProperties, w.ZoneProperties)
				}
				if h.Speed != c.speeds[i] || h.Cores != 1 {
					t.Errorf("%s: speed %g cores %d, want %g and 1", h.Name, h.Speed, h.Cores, c.speeds[i])
				}
				if !approx(p.HostToMasterLatency[i], c.lh) {
					t.Errorf("%s: L_h = %g, want %g", h.Name, p.HostToMasterLatency[i], c.lh)
				}
			}
			if !approx(p.MasterLoopbackLatency, c.lm) {
				t.Errorf("L_m = %g, want %g", p.MasterLoopbackLatency, c.lm)
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings: %v", p.Warnings)
			}
		})
	}
}
