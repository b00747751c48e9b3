package workloads

import (
	"bytes"
	"encoding/json"
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

// TestGenerateDelaysShape: the options of the 100 000-job case (sizes up
// to 8, 40 users, walltimes 1.05 to 4 times the delay, every job within the
// span), and their errors.
func TestGenerateDelaysShape(t *testing.T) {
	w, err := GenerateDelays(DelaysOptions{Jobs: 3000, Hosts: 39, MaxRes: 8, Users: 40, WalltimeMin: 1.05, WalltimeMax: 4, Span: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := w.Bytes()
	if _, err := Parse(b, "delays"); err != nil {
		t.Fatal(err)
	}
	users := map[string]bool{}
	prev := 0.0
	for _, j := range w.Jobs {
		p := w.Profiles[j.Profile]
		if j.Subtime < prev || j.Subtime >= 10 || j.Res < 1 || j.Res > 8 ||
			j.Walltime < 1.05*p.Delay-0.001 || j.Walltime > 4*p.Delay+0.001 {
			t.Fatalf("job %+v, delay %v", j, p.Delay)
		}
		prev = j.Subtime
		var f struct{ User string }
		if err := json.Unmarshal(j.Raw, &f); err != nil || f.User == "" {
			t.Fatalf("job %s: no user in %s", j.ID, j.Raw)
		}
		users[f.User] = true
	}
	if len(users) != 40 {
		t.Errorf("%d users, want 40", len(users))
	}
	for _, o := range []DelaysOptions{{MaxRes: -1}, {Users: 100}, {WalltimeMin: 0.5}, {WalltimeMin: 3, WalltimeMax: 2}, {Span: -1}} {
		if _, err := GenerateDelays(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
