package platforms

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The testdata files <case>.xml are the platforms of the Batsim 4.2.1
// conformance corpus, and <case>.resources.json the compute_resources that
// Batsim sent for them in SIMULATION_BEGINS.

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
		{"protocol_violations", 5e-6, 10e-6, []float64{1e9, 2e9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Load(filepath.Join("testdata", c.name+".xml"))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join("testdata", c.name+".resources.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Compute []batsimResource `json:"compute_resources"`
				Storage []batsimResource `json:"storage_resources"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
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
