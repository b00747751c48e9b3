package workloads

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

// shakeInput is n delay jobs, submitted every 7 s from 0, of delays 100 to
// 100 + n − 1 s, walltimes 1.02 × delay for even jobs and unlimited for odd
// ones, and a "user" field.
func shakeInput(t *testing.T, n int) *Workload {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"nb_res": 8, "meta": {"generator": "test"}, "jobs": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		wt := "-1"
		if i%2 == 0 {
			wt = fmtNum(float64(100+i) * 1.02)
		}
		fmt.Fprintf(&b, `{"id": %d, "subtime": %d, "res": %d, "walltime": %s, "profile": "d%d", "user": "u%d"}`, i, 7*i, 1+i%8, wt, 100+i, i%3)
	}
	b.WriteString(`], "profiles": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"d%d": {"type": "delay", "delay": %d}`, 100+i, 100+i)
	}
	b.WriteString("}}")
	return mustParse(t, b.String())
}

func shakeBytes(t *testing.T, in *Workload, o ShakeOptions) []byte {
	t.Helper()
	w, err := Shake(in, o)
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A shaken copy is a function of the input and the seed: the same seed
// gives the same bytes, another seed other times.
func TestShakeDeterministic(t *testing.T) {
	in := shakeInput(t, 200)
	o := ShakeOptions{Submit: 30, RuntimeFraction: 0.05, Seed: 7}
	a, b := shakeBytes(t, in, o), shakeBytes(t, shakeInput(t, 200), o)
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave two workloads")
	}
	o.Seed = 8
	if c := shakeBytes(t, in, o); bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same workload")
	}
	// The input is left as it was.
	if in.Jobs[5].Subtime != 35 || in.Jobs[5].Profile != "d105" || len(in.Profiles) != 200 {
		t.Errorf("input changed: %+v, %d profiles", in.Jobs[5], len(in.Profiles))
	}
}

// Every job keeps its id, size, walltime and fields; its submission time
// moves by at most the bound and never before 0; its delay by at most the
// bound, never above its walltime; the jobs are in submission order.
func TestShakeBounds(t *testing.T) {
	in := shakeInput(t, 300)
	orig := map[string]Job{}
	for _, j := range in.Jobs {
		orig[j.ID] = j
	}
	for _, o := range []ShakeOptions{
		{Submit: 30, RuntimeFraction: 0.05, Seed: 1},
		{Submit: 500, RuntimeSeconds: 20, Seed: 2},
		{Submit: 0, RuntimeFraction: 0.5, Seed: 3},
		{Submit: 10, Seed: 4},
	} {
		w, err := Shake(in, o)
		if err != nil {
			t.Fatal(err)
		}
		back := mustParse(t, string(shakeBytes(t, in, o)))
		if len(back.Jobs) != len(in.Jobs) {
			t.Fatalf("%+v: %d jobs, want %d", o, len(back.Jobs), len(in.Jobs))
		}
		if !sort.SliceIsSorted(back.Jobs, func(a, b int) bool { return back.Jobs[a].Subtime < back.Jobs[b].Subtime }) {
			t.Errorf("%+v: jobs not in submission order", o)
		}
		moved, changed := 0, 0
		for _, j := range back.Jobs {
			x, ok := orig[j.ID]
			if !ok {
				t.Fatalf("%+v: job %s not in the input", o, j.ID)
			}
			if j.Res != x.Res || j.Walltime != x.Walltime || !strings.Contains(string(j.Raw), fmt.Sprintf(`"user":"u%s"`, fmt.Sprint(mustAtoi(t, j.ID)%3))) {
				t.Errorf("%+v: job %s: %s, was %s", o, j.ID, j.Raw, x.Raw)
			}
			if d := math.Abs(j.Subtime - x.Subtime); j.Subtime < 0 || (d > o.Submit+5e-4 && j.Subtime != 0) {
				t.Errorf("%+v: job %s submitted at %g, was %g", o, j.ID, j.Subtime, x.Subtime)
			}
			if j.Subtime != x.Subtime {
				moved++
			}
			d0, d := in.Profiles[x.Profile].Delay, back.Profiles[j.Profile].Delay
			if back.Profiles[j.Profile].Type != TypeDelay || d <= 0 {
				t.Fatalf("%+v: job %s: profile %+v", o, j.ID, back.Profiles[j.Profile])
			}
			lo, hi := d0*(1-o.RuntimeFraction)-o.RuntimeSeconds, d0*(1+o.RuntimeFraction)+o.RuntimeSeconds
			if d < lo-5e-4 || d > hi+5e-4 || (x.Walltime > 0 && d > x.Walltime) {
				t.Errorf("%+v: job %s: delay %g, was %g (walltime %g)", o, j.ID, d, d0, x.Walltime)
			}
			if d != d0 {
				changed++
			}
		}
		if (o.Submit > 0) != (moved > len(in.Jobs)/2) {
			t.Errorf("%+v: %d of %d jobs moved", o, moved, len(in.Jobs))
		}
		if runtime := o.RuntimeFraction > 0 || o.RuntimeSeconds > 0; runtime != (changed > len(in.Jobs)/2) {
			t.Errorf("%+v: %d of %d delays changed", o, changed, len(in.Jobs))
		}
		if !strings.Contains(string(w.Meta("meta")), `"generator":"shake"`) || !strings.Contains(string(w.Meta("meta")), `"input_meta":{"generator":"test"}`) {
			t.Errorf("meta %s", w.Meta("meta"))
		}
		if errs, warns := back.Validate(ValidateOptions{}); len(errs)+len(warns) > 0 {
			t.Errorf("%+v: the shaken workload is not valid: %d errors, %d warnings, first %v", o, len(errs), len(warns), append(errs, warns...)[0])
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A job submitted at 0 stays at 0 or after; a delay never drops below 1 ms.
func TestShakeFloors(t *testing.T) {
	in := mustParse(t, `{"nb_res": 1, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "p"}, {"id": 2, "subtime": 1, "res": 1, "profile": "p"}],
		"profiles": {"p": {"type": "delay", "delay": 0.002}}}`)
	for seed := uint64(1); seed <= 50; seed++ {
		w, err := Shake(in, ShakeOptions{Submit: 100, RuntimeSeconds: 10, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range w.Jobs {
			if j.Subtime < 0 || w.Profiles[j.Profile].Delay < 1e-3 {
				t.Fatalf("seed %d: job %s at %g, delay %g", seed, j.ID, j.Subtime, w.Profiles[j.Profile].Delay)
			}
		}
	}
}

// Run times are shaken on delay profiles only; submission times of any.
func TestShakeComputeProfiles(t *testing.T) {
	in := mustParse(t, `{"nb_res": 2, "jobs": [{"id": 1, "subtime": 5, "res": 2, "profile": "c"}],
		"profiles": {"c": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}}}`)
	_, err := Shake(in, ShakeOptions{Submit: 1, RuntimeFraction: 0.1})
	if err == nil || !strings.Contains(err.Error(), "shake: job '1': profile 'c' is of type parallel_homogeneous: run times are shaken on delay profiles only") {
		t.Errorf("got %v", err)
	}
	if _, err := Shake(in, ShakeOptions{Submit: 1}); err != nil {
		t.Errorf("submission times alone: %v", err)
	}
}

// Bad bounds are refused, whatever else is given.
func TestShakeOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o   ShakeOptions
		msg string
	}{
		{ShakeOptions{Submit: -1}, "submission time bound must be in [0, 1e+07] s (got -1)"},
		{ShakeOptions{Submit: math.NaN()}, "(got NaN)"},
		{ShakeOptions{Submit: math.Inf(1)}, "(got +Inf)"},
		{ShakeOptions{Submit: 2e7}, "(got 2e+07)"},
		{ShakeOptions{RuntimeFraction: 1}, "run time bound must be in [0, 100) % (got 100 %)"},
		{ShakeOptions{RuntimeFraction: math.NaN()}, "(got NaN %)"},
		{ShakeOptions{RuntimeSeconds: -3}, "run time bound must be in [0, 1e+07] s (got -3)"},
		{ShakeOptions{RuntimeSeconds: 3, RuntimeFraction: 0.1}, "not both"},
	} {
		_, err := Shake(shakeInput(t, 3), c.o)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want %q", c.o, err, c.msg)
		}
	}
}

// A shaken profile's name is free in the workload: one the input has
// already is followed by #2, #3...
func TestShakenProfileNames(t *testing.T) {
	w := mustParse(t, `{"nb_res": 1, "jobs": [], "profiles": {"p": {"type": "delay", "delay": 5}, "p@6": {"type": "delay", "delay": 1}, "p@6#2": {"type": "delay", "delay": 2}}}`)
	name, err := w.addShakenProfile(w.Profiles["p"], 6)
	if err != nil || name != "p@6#3" || w.Profiles[name].Delay != 6 || string(w.Profiles[name].Raw) != `{"type":"delay","delay":6}` {
		t.Errorf("got %q, %v: %+v", name, err, w.Profiles[name])
	}
}

// FuzzShake: on any workload Parse accepts and any bounds, Shake either
// refuses with an error or gives a workload that parses again, whose jobs
// are the input's (ids, sizes, walltimes; when its ids are distinct), in submission order, never
// submitted before 0 nor moved past the bound, with delays of at least 1 ms.
func FuzzShake(f *testing.F) {
	f.Add([]byte(scaleInput), 30.0, 0.05, 0.0, uint64(1))
	f.Add([]byte(scaleInput), 1e7, 0.0, 1e7, uint64(2))
	f.Add([]byte(scaleInput), -1.0, math.NaN(), math.Inf(1), uint64(0))
	f.Add([]byte(`{"nb_res":1,"jobs":[{"id":"a","subtime":1e300,"res":1,"walltime":1e-9,"profile":"c"}],"profiles":{"c":{"type":"composed","seq":["d"]},"d":{"type":"delay","delay":1e300}}}`), 5.0, 0.5, 0.0, uint64(3))
	f.Add([]byte(`{"nb_res":1,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"d"},{"id":2,"subtime":0,"res":1,"profile":"d@1"}],"profiles":{"d":{"type":"delay","delay":1},"d@1":{"type":"delay","delay":2}}}`), 0.0, 0.0, 5.0, uint64(4))
	f.Fuzz(func(t *testing.T, data []byte, submit, fraction, seconds float64, seed uint64) {
		fuzzguard.Run(t, func() error {
			return checkShake(data, ShakeOptions{Submit: submit, RuntimeFraction: fraction, RuntimeSeconds: seconds, Seed: seed})
		})
	})
}

func checkShake(data []byte, o ShakeOptions) error {
	in, err := Parse(data, "fuzz")
	if err != nil {
		return nil
	}
	w, err := Shake(in, o)
	if err != nil {
		return nil
	}
	out, err := w.Bytes()
	if err != nil {
		return err
	}
	back, err := Parse(out, "shaken")
	if err != nil {
		return fmt.Errorf("the shaken workload does not parse: %v", err)
	}
	if len(back.Jobs) != len(in.Jobs) {
		return fmt.Errorf("%d jobs, want %d", len(back.Jobs), len(in.Jobs))
	}
	orig := map[string]Job{}
	for _, j := range in.Jobs {
		orig[j.ID] = j
	}
	if len(orig) != len(in.Jobs) {
		return nil // ids given twice (Batsim refuses the file): the jobs cannot be told apart
	}
	for i, j := range back.Jobs {
		x := orig[j.ID]
		if j.Res != x.Res || j.Walltime != x.Walltime {
			return fmt.Errorf("job %s: res %d walltime %g, was %d and %g", j.ID, j.Res, j.Walltime, x.Res, x.Walltime)
		}
		if i > 0 && j.Subtime < back.Jobs[i-1].Subtime {
			return fmt.Errorf("job %s submitted before the one it follows", j.ID)
		}
		if j.Subtime < 0 || (math.Abs(j.Subtime-x.Subtime) > o.Submit+1e-3*math.Max(1, math.Abs(x.Subtime)*1e-9) && j.Subtime != 0 && x.Subtime >= 0) {
			return fmt.Errorf("job %s submitted at %g, was %g (bound %g)", j.ID, j.Subtime, x.Subtime, o.Submit)
		}
		if p := back.Profiles[j.Profile]; p.Type == TypeDelay && p.Name != x.Profile && !(p.Delay >= shakeTick) {
			return fmt.Errorf("job %s: delay %g", j.ID, p.Delay)
		}
	}
	return nil
}
