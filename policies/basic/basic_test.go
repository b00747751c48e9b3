package basic_test

import (
	"fmt"
	"testing"

	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// reg holds the base policies.
var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	basic.Register(r)
	return r
}()

// ---------------------------------------------------------------- EASY vs FCFS

// Four equal hosts. j1 (2 hosts, 100 s) runs from 0. j2 (4 hosts) must wait
// for j1: head of the queue, shadow time 100, no extra host.
//   - j3 (2 hosts, 50 s, submitted at 2) fits now on hosts 2-3 and ends at
//     52 <= 100: EASY backfills it; FCFS keeps it behind j2 (starts at 150
//     after j2's 100-150).
//   - j4 (2 hosts, walltime 60, submitted at 60) fits on hosts 2-3 (j3 is
//     gone) but would end at 120 > 100 and there is no extra host: EASY does
//     not backfill it; it starts with j2's end at 150 on the lowest free hosts
//     0-1. Under FCFS, at 150 j3 takes 0-1 and j4 takes 2-3.
var easyJobs = []testkit.Job{
	{Name: "j1", Submit: 0, Res: 2, Walltime: 100, Run: 100},
	{Name: "j2", Submit: 1, Res: 4, Walltime: 50, Run: 50},
	{Name: "j3", Submit: 2, Res: 2, Walltime: 50, Run: 50},
	{Name: "j4", Submit: 60, Res: 2, Walltime: 60, Run: 60},
}

func TestEASYBackfillsWhereFCFSDoesNot(t *testing.T) {
	speeds := []float64{1, 1, 1, 1}
	got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "easy", Speeds: speeds, Jobs: easyJobs})
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"j1": {At: 0, Alloc: "0-1"}, "j2": {At: 100, Alloc: "0-3"}, "j3": {At: 2, Alloc: "2-3"}, "j4": {At: 150, Alloc: "0-1"},
	})
	got = testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "fcfs", Speeds: speeds, Jobs: easyJobs})
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"j1": {At: 0, Alloc: "0-1"}, "j2": {At: 100, Alloc: "0-3"}, "j3": {At: 150, Alloc: "0-1"}, "j4": {At: 150, Alloc: "2-3"},
	})
}

// ---------------------------------------------------------------- MIN-MIN vs MAX-MIN

// Two equal hosts. At 0: s1, s2 (1 host, 10 s) and big (2 hosts, 100 s);
// then one more 10 s job every 5 s from 5 to 40 (s3..s10).
//
// MIN-MIN (shortest first, greedy): at 0 s1 and s2 take both hosts. At every
// multiple of 10 both hosts free up together and the two oldest small jobs
// (always shorter than big) take them: s3,s4 at 10, s5,s6 at 20, s7,s8 at
// 30, s9,s10 at 40 (s10 arrives in that very message). big, starved all
// along, starts at 50 only when no small job is left.
//
// MAX-MIN (longest first, greedy): big goes first at 0 on both hosts; the
// small jobs then run two by two in submission order from 100.
func minmaxJobs() []testkit.Job {
	jobs := []testkit.Job{
		{Name: "s1", Submit: 0, Res: 1, Walltime: 10, Run: 10},
		{Name: "s2", Submit: 0, Res: 1, Walltime: 10, Run: 10},
		{Name: "big", Submit: 0, Res: 2, Walltime: 100, Run: 100},
	}
	for k := 3; k <= 10; k++ {
		jobs = append(jobs, testkit.Job{Name: fmt.Sprintf("s%d", k), Submit: float64(5 * (k - 2)), Res: 1, Walltime: 10, Run: 10})
	}
	return jobs
}

func TestMinMinStarvesBigJobMaxMinDoesNot(t *testing.T) {
	speeds := []float64{1, 1}
	got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "minmin", Speeds: speeds, Jobs: minmaxJobs()})
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"s1": {At: 0, Alloc: "0"}, "s2": {At: 0, Alloc: "1"},
		"s3": {At: 10, Alloc: "0"}, "s4": {At: 10, Alloc: "1"}, "s5": {At: 20, Alloc: "0"}, "s6": {At: 20, Alloc: "1"},
		"s7": {At: 30, Alloc: "0"}, "s8": {At: 30, Alloc: "1"}, "s9": {At: 40, Alloc: "0"}, "s10": {At: 40, Alloc: "1"},
		"big": {At: 50, Alloc: "0-1"},
	})
	got = testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "maxmin", Speeds: speeds, Jobs: minmaxJobs()})
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"big": {At: 0, Alloc: "0-1"},
		"s1":  {At: 100, Alloc: "0"}, "s2": {At: 100, Alloc: "1"}, "s3": {At: 110, Alloc: "0"}, "s4": {At: 110, Alloc: "1"},
		"s5": {At: 120, Alloc: "0"}, "s6": {At: 120, Alloc: "1"}, "s7": {At: 130, Alloc: "0"}, "s8": {At: 130, Alloc: "1"},
		"s9": {At: 140, Alloc: "0"}, "s10": {At: 140, Alloc: "1"},
	})
}

// MIN-MIN gives the fastest free hosts; first-fit gives the lowest ids.
// Hosts 0..2 have speeds 1, 3, 2. At 0, a (1 host, W 10) and b (1 host, W
// 20): MIN-MIN takes a first.
//   - fastest: a gets host 1 (speed 3), b host 2 (speed 2).
//   - first-fit: a gets host 0, b host 1.
//
// MAX-MIN takes b first: fastest gives b host 1 and a host 2. A job without
// walltime (c, W unlimited) sorts last under MIN-MIN and first under
// MAX-MIN.
func TestMinMaxHostSelectionAndUnlimitedWalltime(t *testing.T) {
	speeds := []float64{1, 3, 2}
	jobs := []testkit.Job{
		{Name: "a", Submit: 0, Res: 1, Walltime: 10, Run: 10},
		{Name: "b", Submit: 0, Res: 1, Walltime: 20, Run: 20},
	}
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "minmin", Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"a": {At: 0, Alloc: "1"}, "b": {At: 0, Alloc: "2"}})
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "minmin", Options: sched.Options{"hosts": "first-fit"}, Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"a": {At: 0, Alloc: "0"}, "b": {At: 0, Alloc: "1"}})
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "maxmin", Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"b": {At: 0, Alloc: "1"}, "a": {At: 0, Alloc: "2"}})

	// One host: the order is the start order. c has no walltime (runs 5 s),
	// d has walltime -1 (unlimited too, runs 5 s).
	one := []float64{1}
	jobs = []testkit.Job{
		{Name: "c", Submit: 0, Res: 1, Run: 5},
		{Name: "a", Submit: 0, Res: 1, Walltime: 10, Run: 10},
		{Name: "d", Submit: 0, Res: 1, Walltime: -1, Run: 5},
		{Name: "b", Submit: 0, Res: 1, Walltime: 20, Run: 20},
	}
	// MIN-MIN: a (10) 0-10, b (20) 10-30, then the unlimited ones by id:
	// c 30-35, d 35-40.
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "minmin", Speeds: one, Jobs: jobs}),
		map[string]testkit.Start{"a": {At: 0, Alloc: "0"}, "b": {At: 10, Alloc: "0"}, "c": {At: 30, Alloc: "0"}, "d": {At: 35, Alloc: "0"}})
	// MAX-MIN: c 0-5, d 5-10, b 10-30, a 30-40.
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "maxmin", Speeds: one, Jobs: jobs}),
		map[string]testkit.Start{"c": {At: 0, Alloc: "0"}, "d": {At: 5, Alloc: "0"}, "b": {At: 10, Alloc: "0"}, "a": {At: 30, Alloc: "0"}})
}
