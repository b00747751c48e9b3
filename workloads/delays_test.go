package workloads

import (
	"bytes"
	"math"
	"testing"
)

func TestGenerateDelays(t *testing.T) {
	o := DelaysOptions{Jobs: 5000, Hosts: 128, Load: 0.95, Seed: 3}
	w, err := GenerateDelays(o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := GenerateDelays(o)
	a, _ := w.Bytes()
	b, _ := again.Bytes()
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed gives different workloads")
	}
	if errs, _ := w.Validate(ValidateOptions{PlatformHosts: 128}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := Parse(a, "delays"); err != nil {
		t.Fatal(err)
	}
	area, prev := 0.0, 0.0
	for _, j := range w.Jobs {
		p := w.Profiles[j.Profile]
		if j.Subtime < prev || j.Res < 1 || j.Res > 64 || p.Delay < 1 || j.Walltime < p.Delay || j.Walltime > 3*p.Delay+0.001 {
			t.Fatalf("job %+v, delay %v", j, p.Delay)
		}
		prev = j.Subtime
		area += float64(j.Res) * p.Delay
	}
	if load := area / (128 * w.Jobs[len(w.Jobs)-1].Subtime); math.Abs(load-0.95) > 0.05 {
		t.Errorf("offered load %.3f", load)
	}
	if _, err := GenerateDelays(DelaysOptions{Jobs: -1}); err == nil {
		t.Error("no error for -1 jobs")
	}
}
