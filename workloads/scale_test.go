package workloads

import (
	"math"
	"strings"
	"testing"
)

// scaleInput: three delay jobs on 4 hosts (work 1×100 + 2×50 + 4×25 = 300
// host-seconds over a span of 100 s: offered load 0.75) and one of 2 hosts
// whose profile computes 1e9 flop per host.
const scaleInput = `{"nb_res": 4, "jobs": [
 {"id": 1, "subtime": 10, "res": 1, "profile": "d100", "user": "a"},
 {"id": 2, "subtime": 60, "res": 2, "profile": "d50"},
 {"id": 3, "subtime": 110, "res": 4, "profile": "d25", "walltime": 30}],
 "profiles": {"d100": {"type": "delay", "delay": 100}, "d50": {"type": "delay", "delay": 50}, "d25": {"type": "delay", "delay": 25}}}`

func mustParse(t *testing.T, s string) *Workload {
	t.Helper()
	w, err := Parse([]byte(s), "in.json")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestOfferedLoadAndScaleToLoad(t *testing.T) {
	in := mustParse(t, scaleInput)
	if l, err := in.OfferedLoad(4, 1); err != nil || math.Abs(l-0.75) > 1e-12 {
		t.Fatalf("offered load %v, %v; want 0.75", l, err)
	}
	for _, target := range []float64{0.5, 0.75, 1.5} {
		out, err := ScaleToLoad(in, ScaleLoadOptions{Load: target, Hosts: 4})
		if err != nil {
			t.Fatal(err)
		}
		if l, _ := out.OfferedLoad(4, 1); math.Abs(l-target) > 1e-9 {
			t.Errorf("scaled to %g: offered load %g", target, l)
		}
		// The first submission stays; the others keep their order and
		// their ratios of distances to it.
		f := 0.75 / target
		for i, want := range []float64{10, 10 + 50*f, 10 + 100*f} {
			if j := out.Jobs[i]; math.Abs(j.Subtime-want) > 1e-3 || !strings.Contains(string(j.Raw), `"subtime":`) {
				t.Errorf("load %g, job %s: subtime %g, want %g (%s)", target, j.ID, j.Subtime, want, j.Raw)
			}
		}
		if !strings.Contains(string(out.Jobs[0].Raw), `"user":"a"`) || out.Jobs[2].Walltime != 30 {
			t.Errorf("fields lost: %s", out.Jobs[0].Raw)
		}
		// The output reads back with the same subtimes.
		data, _ := out.Bytes()
		back := mustParse(t, string(data))
		if back.Jobs[1].Subtime != out.Jobs[1].Subtime {
			t.Errorf("written subtime %g, kept %g", back.Jobs[1].Subtime, out.Jobs[1].Subtime)
		}
		if !strings.Contains(string(out.Meta("meta")), `"generator":"scale-load"`) {
			t.Errorf("meta %s", out.Meta("meta"))
		}
	}
	// Twice as many hosts halve the offered load: reaching the same load
	// packs the submissions twice as tight.
	a, _ := ScaleToLoad(in, ScaleLoadOptions{Load: 0.5, Hosts: 4})
	b, _ := ScaleToLoad(in, ScaleLoadOptions{Load: 0.5, Hosts: 8})
	if da, db := a.Jobs[2].Subtime-a.Jobs[0].Subtime, b.Jobs[2].Subtime-b.Jobs[0].Subtime; math.Abs(da-2*db) > 1e-3 {
		t.Errorf("spans %g on 4 hosts, %g on 8", da, db)
	}
}

func TestScaleToLoadComputations(t *testing.T) {
	in := mustParse(t, `{"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "c"}, {"id": 2, "subtime": 100, "res": 1, "profile": "c"}],
		"profiles": {"c": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}}}`)
	if _, err := ScaleToLoad(in, ScaleLoadOptions{Load: 0.5, Hosts: 2}); err == nil || !strings.Contains(err.Error(), "reference speed") {
		t.Errorf("computation profiles without a reference speed: %v", err)
	}
	// At 1e7 flop/s a job lasts 100 s: work 3 × 100 over 2 hosts × 100 s
	// is 1.5; scaled to 0.75 the span doubles.
	out, err := ScaleToLoad(in, ScaleLoadOptions{Load: 0.75, Hosts: 2, RefSpeed: 1e7})
	if err != nil || out.Jobs[1].Subtime != 200 {
		t.Errorf("scaled: %v, subtime %v", err, out)
	}
}

func TestScaleToLoadErrors(t *testing.T) {
	in := mustParse(t, scaleInput)
	once := mustParse(t, `{"nb_res": 1, "jobs": [{"id": 1, "subtime": 5, "res": 1, "profile": "d"}, {"id": 2, "subtime": 5, "res": 1, "profile": "d"}], "profiles": {"d": {"type": "delay", "delay": 1}}}`)
	for _, c := range []struct {
		w    *Workload
		o    ScaleLoadOptions
		want string
	}{
		{in, ScaleLoadOptions{Load: 0, Hosts: 4}, "must be > 0"},
		{in, ScaleLoadOptions{Load: math.Inf(1), Hosts: 4}, "must be > 0"},
		{in, ScaleLoadOptions{Load: 1, Hosts: 0}, "at least one host"},
		{in, ScaleLoadOptions{Load: 1, Hosts: 4, RefSpeed: -1}, "reference speed"},
		{once, ScaleLoadOptions{Load: 1, Hosts: 1}, "submission span is empty"},
		{&Workload{}, ScaleLoadOptions{Load: 1, Hosts: 1}, "no job"},
	} {
		if _, err := ScaleToLoad(c.w, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

func TestWindow(t *testing.T) {
	// Jobs in file order 3, 1, 2 by subtime 30, 10, 20; the window keeps
	// consecutive jobs in submission order, the first at 0.
	in := mustParse(t, `{"nb_res": 1, "jobs": [
		{"id": 3, "subtime": 30, "res": 1, "profile": "d"}, {"id": 1, "subtime": 10, "res": 1, "profile": "d"},
		{"id": 2, "subtime": 20, "res": 1, "profile": "d"}, {"id": 4, "subtime": 45, "res": 1, "profile": "d"}],
		"profiles": {"d": {"type": "delay", "delay": 1}}}`)
	firsts := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		out, err := Window(in, WindowOptions{Jobs: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Jobs) != 2 || out.Jobs[0].Subtime != 0 || !(out.Jobs[1].Subtime > 0) {
			t.Fatalf("seed %d: %+v", seed, out.Jobs)
		}
		ids := out.Jobs[0].ID + "," + out.Jobs[1].ID
		if ids != "1,2" && ids != "2,3" && ids != "3,4" {
			t.Errorf("seed %d: jobs %s are not consecutive in submission order", seed, ids)
		}
		firsts[out.Jobs[0].ID] = true
		again, _ := Window(in, WindowOptions{Jobs: 2, Seed: seed})
		if again.Jobs[0].ID != out.Jobs[0].ID {
			t.Errorf("seed %d: two draws differ", seed)
		}
	}
	if len(firsts) != 3 {
		t.Errorf("windows start at %v, want every one of the 3 positions over 40 seeds", firsts)
	}
	all, err := Window(in, WindowOptions{Jobs: 10, Seed: 1})
	if err != nil || len(all.Jobs) != 4 || all.Jobs[3].Subtime != 35 {
		t.Errorf("a window larger than the trace: %v %+v", err, all)
	}
	if _, err := Window(in, WindowOptions{Jobs: 0}); err == nil {
		t.Error("an empty window accepted")
	}
}
