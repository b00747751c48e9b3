package energy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

func x(f float64) xtime.Time { return xtime.Of(f) }

// slicesOf describes a schedule's slices: "[begin,end) avail: jobs".
func slicesOf(s *schedule) string { return strings.TrimSpace(s.String()) }

// TestScheduleFirstFitAndMerge: first fit at the earliest slice where the
// machines stay available for the whole walltime; slices split at the
// allocations' ends and merged back when a removal leaves two neighbours
// with the same jobs, as batsched's Schedule does.
func TestScheduleFirstFitAndMerge(t *testing.T) {
	s := newSchedule(3, x(0))
	a := &bjob{id: "a", res: 2, walltime: x(10), hasWalltime: true}
	b := &bjob{id: "b", res: 2, walltime: x(5), hasWalltime: true}
	if al := s.addJobFirstFit(a, basicSelector{}, true); al.begin != x(0) || al.used.String() != "0-1" || !al.startedInFirstSlice {
		t.Fatalf("a: %+v", al)
	}
	if al := s.addJobFirstFit(b, basicSelector{}, true); al.begin != x(10) || al.used.String() != "0-1" || al.startedInFirstSlice {
		t.Fatalf("b: %+v", al)
	}
	want := "[0, 10) avail \"2\": a@0-1\n[10, 15) avail \"2\": b@0-1\n[15, 1e+19) avail \"0-2\":"
	if got := slicesOf(s); got != want {
		t.Fatalf("slices:\n%s\nwant:\n%s", got, want)
	}
	s.removeJob(a) // [0,10) is empty, [10,15) holds b: no merge
	if got := slicesOf(s); !strings.HasPrefix(got, "[0, 10) avail \"0-2\":\n[10, 15)") {
		t.Fatalf("after a's removal:\n%s", got)
	}
	s.removeJob(b)
	if got := slicesOf(s); got != "[0, 1e+19) avail \"0-2\":" {
		t.Fatalf("after b's removal:\n%s", got)
	}
	// An insertion after a date splits the slice there, even where the
	// job does not begin.
	c := &bjob{id: "c", res: 3, walltime: x(1), hasWalltime: true}
	d := &bjob{id: "d", res: 1, walltime: x(100), hasWalltime: true}
	s.addJobFirstFit(d, basicSelector{}, true)
	if al := s.addJobFirstFitAfterTime(c, x(3), basicSelector{}, true); al.begin != x(100) {
		t.Fatalf("c: %+v", al)
	}
	if got := slicesOf(s); !strings.HasPrefix(got, "[0, 3) avail \"1-2\": d@0\n[3, 100) avail \"1-2\": d@0\n[100, 101)") {
		t.Fatalf("after c:\n%s", got)
	}
	// A job without walltime takes its machines until the horizon: after
	// c, which takes every machine at 100.
	e := &bjob{id: "e", res: 1}
	if al := s.addJobFirstFit(e, basicSelector{}, true); al.begin != x(101) || al.end != horizon || al.used.String() != "0" {
		t.Fatalf("e: %+v", al)
	}
}

// TestScheduleSleepAndWake: a machine is switched off at 0 (switch 5 s +
// RJMS delay 5 s), sleeps at least 20 s (ensured), then potentially; woken
// at 40, its potential sleep is cut there and the switch-on follows.
func TestScheduleSleepAndWake(t *testing.T) {
	o := TwinOptions{TimeSwitchOn: 10, TimeSwitchOff: 5, RJMSDelay: 5, PowerIdle: 95, PowerSleep: 9.75,
		EnergySwitchOn: 1200, EnergySwitchOff: 500, EnsuredSleepMin: 20, EnsuredSleepMax: 20}
	b := &energyBF{o: &o, n: 2}
	b.genMachineInfos()
	s := newSchedule(2, x(0))
	b.sedate(s, 1, 0, true)
	want := "[0, 10) avail \"0\": fakejob_soff_1@1\n[10, 30) avail \"0\": fakejob_esleep_1@1\n[30, 1e+19) avail \"0\": fakejob_psleep_1@1"
	if got := slicesOf(s); got != want {
		t.Fatalf("sleep:\n%s\nwant:\n%s", got, want)
	}
	if at := findEarliestMomentToAwaken(s, msetOf(2, 1), 2); at != x(30) {
		t.Fatalf("earliest wake-up at %v, want 30", at.Float())
	}
	b.awaken(s, 1, x(40))
	want = "[0, 10) avail \"0\": fakejob_soff_1@1\n[10, 30) avail \"0\": fakejob_esleep_1@1\n[30, 40) avail \"0\": fakejob_psleep_1@1\n[40, 55) avail \"0\": fakejob_son_1@1\n[55, 1e+19) avail \"0-1\":"
	if got := slicesOf(s); got != want {
		t.Fatalf("wake-up:\n%s\nwant:\n%s", got, want)
	}
}

// TestEnsuredSleep: the ensured sleep is the time that makes a switch-off
// pay, ((off + on + 2·delay)·p_idle − e_off − e_on) / (p_sleep − p_idle),
// within its bounds.
func TestEnsuredSleep(t *testing.T) {
	for _, c := range []struct {
		lo, hi, want float64
	}{
		// ((5 + 10 + 10)·95 − 500 − 200) / (9.75 − 95) = 1675 / −85.25 < 0
		{0, 1e8, 0},
		{30, 1e8, 30},
	} {
		o := TwinOptions{TimeSwitchOn: 10, TimeSwitchOff: 5, RJMSDelay: 5, PowerIdle: 95, PowerSleep: 9.75,
			EnergySwitchOn: 200, EnergySwitchOff: 500, EnsuredSleepMin: c.lo, EnsuredSleepMax: c.hi}
		b := &energyBF{o: &o, n: 1}
		b.genMachineInfos()
		if got := b.minfo[0].esleep.walltime.Float(); got != c.want {
			t.Errorf("bounds [%g, %g]: ensured sleep %g, want %g", c.lo, c.hi, got, c.want)
		}
	}
	// Big switch energies: 3000 + 3000 J against 25 s idle at 95 W.
	o := TwinOptions{TimeSwitchOn: 10, TimeSwitchOff: 5, RJMSDelay: 5, PowerIdle: 95, PowerSleep: 9.75,
		EnergySwitchOn: 3000, EnergySwitchOff: 3000, EnsuredSleepMax: 1e8}
	b := &energyBF{o: &o, n: 1}
	b.genMachineInfos()
	want := (25*95 - 6000) / (9.75 - 95.0)
	if got := b.minfo[0].esleep.walltime.Float(); got != want {
		t.Errorf("ensured sleep %v, want %v", got, want)
	}
}

func twinSpec(t *testing.T) *sched.Spec {
	t.Helper()
	r := sched.NewRegistry()
	Register(r)
	spec, err := r.Lookup("batsched-energy")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestTwinOptions: bad values are refused at once; the options a variant
// needs are required when the simulation begins (as batsched stops then).
func TestTwinOptions(t *testing.T) {
	spec := twinSpec(t)
	for _, bad := range []sched.Options{
		{"power-idle": "-1"},
		{"pstate-sleep": "1.5"},
		{"inertial-alteration": "y2"},
		{"power-idle": "5", "power-sleep": "9", "power-compute": "1", "pstate-compute": "0", "pstate-sleep": "1",
			"time-switch-on": "1", "time-switch-off": "1", "energy-switch-on": "1", "energy-switch-off": "1"},
	} {
		var oe *sched.OptionError
		if _, err := spec.Build(bad); !errors.As(err, &oe) {
			t.Errorf("%v: %v, want an option error", bad, err)
		}
	}
	if _, err := spec.Build(sched.Options{"variant": "energy_bf_dicho"}); err != nil {
		t.Fatalf("the variant alone builds (its values come later): %v", err)
	}
	sess, err := (&run.Policy{Spec: spec, Options: sched.Options{"variant": "energy_bf_dicho", "power-idle": "95"}}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Handle(testkit.BeginMessage([]float64{1e9}, nil, ""))
	if err == nil || !strings.Contains(err.Error(), "power-compute (batsched's power_compute)") || !strings.Contains(err.Error(), "tolerated-slowdown-loss-ratio") || strings.Contains(err.Error(), "power-idle") {
		t.Fatalf("begin without the required options: %v", err)
	}
	// energy_watcher reads no option.
	sess, err = (&run.Policy{Spec: spec, Options: sched.Options{"variant": "energy_watcher"}}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Handle(testkit.BeginMessage([]float64{1e9}, nil, "")); err != nil {
		t.Fatal(err)
	}
}

// TestVariantKeys: every key a variant reads maps to an option of
// batsched-energy (or to none, for batsched's file names), and the keys a
// variant requires are the options the twin requires.
func TestVariantKeys(t *testing.T) {
	spec := twinSpec(t)
	for _, v := range Variants {
		required := map[string]bool{}
		for _, k := range VariantKeys(v) {
			if k.Option == "" {
				if k.Key != "output_dir" && k.Key != "trace_output_filename" {
					t.Errorf("%s: key %s has no option", v, k.Key)
				}
				continue
			}
			if spec.Option(k.Option) == nil {
				t.Errorf("%s: key %s: batsched-energy has no option %s", v, k.Key, k.Option)
			}
			if k.Required {
				required[k.Option] = true
			}
		}
		o, err := ParseTwinOptions(sched.Options{"variant": v, "comparison-type": "remove_sleep_jobs", "inertial-alteration": "x2"})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if len(o.missing) != len(required) {
			t.Errorf("%s: the twin requires %v, batsched %v", v, o.missing, required)
		}
		for _, m := range o.missing {
			if !required[m] {
				t.Errorf("%s: the twin requires %s, batsched does not", v, m)
			}
		}
	}
}

// Jobs without walltime take their machines up to the schedule's horizon
// (1e19), and Batsim wakes the scheduler up at t=1e19 once nothing else is
// left: energy_bf's update of its first slice then goes on past the last
// slice, where batsched crashes (a segmentation fault, through the real
// Batsim 4.2.1 on this platform and workload). The twin stops there too, with
// an error naming the step, never with a panic (which was an index out of
// range, exit status 2).
func TestTwinStopsWhereBatschedCrashes(t *testing.T) {
	p, w := loadInputs(t, "testdata/sleep2.xml", "testdata/nowalltime.json")
	r := sched.NewRegistry()
	Register(r)
	spec, err := r.Lookup("batsched-energy")
	if err != nil {
		t.Fatal(err)
	}
	machine := sched.Options{"power-compute": "190", "power-idle": "95", "power-sleep": "9.75", "pstate-compute": "0", "pstate-sleep": "1",
		"time-switch-on": "10", "time-switch-off": "5", "energy-switch-on": "1200", "energy-switch-off": "500"}
	for _, variant := range []sched.Options{{"variant": "energy_bf"}, {"variant": "energy_bf_dicho", "tolerated-slowdown-loss-ratio": "1.5"}} {
		opts := sched.MergeOptions(machine, variant)
		_, err := testkit.RunEngine(context.Background(), testkit.EngineRun{Platform: p, Workloads: []*workloads.Workload{w}, Spec: spec, Options: opts}, "")
		want := "batsched stops here: it crashes (a segmentation fault) where update_first_slice_taking_sleep_jobs_into_account at t=1e+19 reaches the end of the schedule"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", variant["variant"], err, want)
		}
	}
}

// loadInputs loads a platform and a workload of testdata.
func loadInputs(t *testing.T, platform, workload string) (*platforms.Platform, *workloads.Workload) {
	t.Helper()
	p, err := platforms.Load(platform)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Load(workload)
	if err != nil {
		t.Fatal(err)
	}
	return p, w
}
