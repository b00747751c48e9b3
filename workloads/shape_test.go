package workloads

import (
	"bytes"
	"math"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// The shape options change what they say and nothing else; at their
// defaults the bytes are those of the plain trace.
func TestLilleShapeOptions(t *testing.T) {
	gen := genBytes(t)
	plain := gen(GenerateLille(LilleOptions{Jobs: 3000, Seed: 5}))
	same := gen(GenerateLille(LilleOptions{Jobs: 3000, Seed: 5, RuntimeScale: 0, OneNodeShare: 0, UserMix: [3]int{}}))
	if !bytes.Equal(plain, same) {
		t.Fatal("zero shape options changed the bytes")
	}
	base := reparse(t, plain, 39)
	runtimes := func(w *Workload) []float64 {
		var out []float64
		for _, j := range w.Jobs {
			te, err := w.RefRuntime(j.Profile, j.Res, DefaultRefSpeed)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, te)
		}
		return out
	}

	// Run times ×4: the run-time distribution is 4 times the plain one
	// (the walltime draws consume the random stream differently, so jobs
	// are not paired one by one).
	x4 := reparse(t, gen(GenerateLille(LilleOptions{Jobs: 3000, Seed: 5, RuntimeScale: 4})), 39)
	r0, r4 := runtimes(base), runtimes(x4)
	for _, q := range []float64{0.1, 0.5, 0.9} {
		if a, b := quantile(r0, q), quantile(r4, q); math.Abs(b/a/4-1) > 0.2 {
			t.Errorf("run-time quantile %v: %v with ×4, %v plain", q, b, a)
		}
	}
	if lo := quantile(r4, 0); lo < 4*lilleRuntimeMin {
		t.Errorf("shortest run time %v below the scaled bound", lo)
	}

	// One-node share: the measured share follows it.
	for _, share := range []float64{0.3, 0.85, 1} {
		w := reparse(t, gen(GenerateLille(LilleOptions{Jobs: 3000, Seed: 5, OneNodeShare: share})), 39)
		one := 0
		for _, j := range w.Jobs {
			if j.Res == 1 {
				one++
			}
		}
		if got := float64(one) / 3000; math.Abs(got-share) > 0.03 {
			t.Errorf("one-node share %v: measured %.3f", share, got)
		}
	}

	// User mix: meta.user_classes counts it.
	w := reparse(t, gen(GenerateLille(LilleOptions{Jobs: 500, Seed: 5, UserMix: [3]int{24, 10, 6}})), 39)
	var meta struct {
		Classes map[string]string `json:"user_classes"`
		Shape   struct {
			Mix string `json:"user_mix"`
		} `json:"shape"`
	}
	if err := json.Unmarshal(w.Meta("meta"), &meta); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range meta.Classes {
		n[c]++
	}
	if n["precise"] != 24 || n["medium"] != 10 || n["imprecise"] != 6 || meta.Shape.Mix != "24/10/6" {
		t.Errorf("classes %v, shape %q", n, meta.Shape.Mix)
	}

	for _, bad := range []LilleOptions{
		{RuntimeScale: -1}, {RuntimeScale: math.Inf(1)}, {OneNodeShare: 1.5}, {OneNodeShare: -0.1}, {UserMix: [3]int{1, 2, 3}}, {UserMix: [3]int{41, -1, 0}},
	} {
		if _, err := GenerateLille(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestParseUserMix(t *testing.T) {
	if m, err := ParseUserMix("24/10/6"); err != nil || m != [3]int{24, 10, 6} || FormatUserMix(m) != "24/10/6" {
		t.Errorf("%v %v", m, err)
	}
	for _, bad := range []string{"", "1/2", "a/b/c", "10/10/10", "-1/1/40", "1/2/3/34"} {
		if _, err := ParseUserMix(bad); err == nil || !strings.Contains(err.Error(), "user mix") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestSlowestSpeed(t *testing.T) {
	if SlowestSpeed(LilleHostSpeeds()) != DefaultRefSpeed || SlowestSpeed(nil) != DefaultRefSpeed || SlowestSpeed([]float64{3, 1, 2}) != 1 {
		t.Error("slowest speed")
	}
}

// Requests inserted in bursts keep their run times and fall inside the
// bursts' windows; spread insertions are unchanged by the option's
// existence.
func TestBucmaInsertBursts(t *testing.T) {
	base, err := GenerateLille(LilleOptions{Jobs: 500, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	spread, err := BucmaInsert(base, InsertOptions{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	burst, err := BucmaInsert(base, InsertOptions{Seed: 4, Bursts: 3, BurstWidth: 120})
	if err != nil {
		t.Fatal(err)
	}
	reparse(t, genBytes(t)(burst, nil), 39)
	te := func(w *Workload) map[string]float64 {
		out := map[string]float64{}
		for _, j := range w.Jobs {
			if strings.HasPrefix(j.ID, "ins-") {
				out[j.ID], _ = w.RefRuntime(j.Profile, 1, DefaultRefSpeed)
			}
		}
		return out
	}
	ts, tb := te(spread), te(burst)
	if len(tb) != 300 {
		t.Fatalf("%d inserted requests", len(tb))
	}
	var subs []float64
	for _, j := range burst.Jobs {
		if strings.HasPrefix(j.ID, "ins-") {
			if tb[j.ID] != ts[j.ID] {
				t.Fatalf("%s: run time %v in bursts, %v spread", j.ID, tb[j.ID], ts[j.ID])
			}
			subs = append(subs, j.Subtime)
		}
	}
	// Sorted submission times fall in at most 3 windows of 120 s.
	windows := 0
	start := math.Inf(-1)
	for i, s := range subs {
		if i == 0 || s-start >= 120 {
			windows++
			start = s
		}
	}
	if windows > 3 {
		t.Errorf("%d windows of 120 s hold the bursts' submissions, want at most 3", windows)
	}
	if _, err := BucmaInsert(base, InsertOptions{Bursts: -1}); err == nil {
		t.Error("negative bursts accepted")
	}
	if _, err := BucmaInsert(base, InsertOptions{Bursts: 2, BurstWidth: 0.5}); err == nil {
		t.Error("burst width below 1 s accepted")
	}
}
