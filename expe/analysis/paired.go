package analysis

import (
	"fmt"
	"math"
)

// Paired comparisons as every report prints them: a variant against a
// reference on each seed's pair of runs (same workload), with how many
// seeds back the sign of the mean, whether its 95 % interval excludes 0,
// a relative change that is refused over a base too close to 0 to divide
// by, and a mark where either side saturated.

// Floors of the relative differences: a change relative to a base whose
// magnitude is below its floor is not computed; the reports print NearZero
// instead, and say which floor they use.
const (
	// FloorSeconds is the floor of times (waiting time, turnaround,
	// makespan): 1 s.
	FloorSeconds = 1.0
	// FloorWait is the floor of mean waiting times: 60 s. Where jobs run
	// for minutes to hours, a mean wait of a few seconds is too close to
	// 0 to divide by (over a base of 4 s a five-minute change reads
	// +8000 %); makespans and turnarounds, which include the jobs' run
	// times, keep FloorSeconds (SGE's scenarios last 20 s and more).
	FloorWait = 60.0
	// FloorUtilization is the floor of utilizations: 0.01.
	FloorUtilization = 0.01
	// FloorCount is the floor of job counts: half a job.
	FloorCount = 0.5
	// FloorRatio is the floor of slowdowns (at least 1 by definition, so
	// that the floor never applies to them).
	FloorRatio = 1e-9
)

// FloorsNote is the sentence a report gives to state the floors.
func FloorsNote() string {
	return fmt.Sprintf("A relative difference is not computed over a base below a floor (%g s for waiting times, %g s for other times, %g for utilizations, %g job for counts): "+
		"it reads %q, and the absolute difference stands instead.", FloorWait, FloorSeconds, FloorUtilization, FloorCount, NearZero)
}

// Comparison is a variant compared with a reference over seeds, on each
// seed's pair of runs.
type Comparison struct {
	// Diff is x − ref per seed: its mean and 95 % interval.
	Diff Estimate
	// Base is the reference's values per seed.
	Base Estimate
	// Change is the mean over the seeds of each seed's relative change
	// (x − ref) / ref × 100 (%), with its interval; its Mean is NaN when a
	// seed's reference is below Floor (NearZero counts them): one near-zero
	// base would make the mean of the changes that seed's ratio alone.
	Change Estimate
	// Floor is the floor the relative changes were computed with.
	Floor float64
	// NearZero counts the seeds whose reference is below Floor.
	NearZero int
	// Up and Down count the seeds whose difference is positive, negative.
	Up, Down int
}

// Compare compares paired values: x[i] and ref[i] are one seed's runs.
// Pairs with a NaN or infinite side are left out.
func Compare(x, ref []float64, floor float64) Comparison {
	c := Comparison{Floor: floor}
	var diffs, bases, changes []float64
	for i := range x {
		if i >= len(ref) || !finite(x[i]) || !finite(ref[i]) {
			continue
		}
		d := x[i] - ref[i]
		if math.Abs(d) <= 1e-9*math.Max(1, math.Max(math.Abs(x[i]), math.Abs(ref[i]))) {
			d = 0 // rounding noise, not a sign
		}
		diffs, bases = append(diffs, d), append(bases, ref[i])
		switch {
		case d > 0:
			c.Up++
		case d < 0:
			c.Down++
		}
		if math.Abs(ref[i]) < floor {
			c.NearZero++
		} else {
			changes = append(changes, 100*d/ref[i])
		}
	}
	c.Diff, c.Base = Estimate95(diffs), Estimate95(bases)
	c.Change = Estimate95(changes)
	if c.NearZero > 0 {
		c.Change = Estimate{N: c.Change.N, Mean: math.NaN(), Half: math.NaN()}
	}
	return c
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// N is the number of seeds compared.
func (c Comparison) N() int { return c.Diff.N }

// Primary is the estimate a report reads the sign and its significance
// from: the mean of the per-seed relative changes, or the mean difference
// where a base is near zero (a relative change of one seed has the sign of
// its difference, but the mean of the changes can differ in sign from the
// mean difference).
func (c Comparison) Primary() Estimate {
	if c.NearZero > 0 || c.Change.N == 0 {
		return c.Diff
	}
	return c.Change
}

// Significant reports whether the primary estimate's 95 % interval
// excludes 0 (two seeds at least).
func (c Comparison) Significant() bool {
	e := c.Primary()
	return e.N >= 2 && !math.IsNaN(e.Half) && math.Abs(e.Mean) > e.Half
}

// Sign is the sign of the primary estimate (-1, 0 or 1).
func (c Comparison) Sign() int {
	e := c.Primary()
	switch {
	case e.Mean > 0:
		return 1
	case e.Mean < 0:
		return -1
	}
	return 0
}

// Backing is the number of seeds whose difference has the sign of the
// primary estimate, and the number of seeds.
func (c Comparison) Backing() (k, n int) {
	switch c.Sign() {
	case 1:
		return c.Up, c.Diff.N
	case -1:
		return c.Down, c.Diff.N
	}
	return c.Diff.N - c.Up - c.Down, c.Diff.N
}

// Same reports whether the variant and the reference gave the same value
// (to rounding) on every seed compared: a count that is 0 on both sides, a
// metric the variant does not change.
func (c Comparison) Same() bool { return c.Diff.N > 0 && c.Up == 0 && c.Down == 0 }

// SameText is what a report prints for a comparison that is Same, instead
// of a difference of 0 ± 0, its relative form and its seeds.
func (c Comparison) SameText() string {
	if c.Diff.N == 1 {
		return "0 (one seed)"
	}
	return fmt.Sprintf("0 on each of the %d seeds", c.Diff.N)
}

// SeedsText says how many seeds back the sign and whether the difference
// is significant: "[9/10]*" (see SeedsNote).
func (c Comparison) SeedsText() string {
	if c.Diff.N == 0 {
		return ""
	}
	k, n := c.Backing()
	s := fmt.Sprintf("[%d/%d]", k, n)
	if c.Sign() == 0 {
		s = fmt.Sprintf("[%d/%d at 0]", k, n)
	}
	if c.Significant() {
		s += "*"
	}
	return s
}

// SeedsNote is the sentence a report gives to explain SeedsText.
func SeedsNote() string {
	return "After a difference, `[k/n]` says on how many of the n seeds the paired difference has the sign of the mean, and `*` that the " +
		"mean's 95 % interval (Student t over the seeds) excludes 0: the sign is significant at 95 %; `[k/n at 0]`: a mean difference " +
		"of 0, k seeds giving exactly 0; \"0 on each of the n seeds\": the same value on both sides of every pair."
}

// ChangeText prints the mean of the per-seed relative changes with its
// interval ("+12.3 ± 4.0 %"), or NearZero when a seed's base is below the
// floor.
func (c Comparison) ChangeText(prec int) string {
	if c.NearZero > 0 {
		return NearZero
	}
	if c.Change.N == 0 {
		return "n/a"
	}
	return FmtEst(c.Change, prec, true) + " %"
}

// Cell prints a change for a table: the per-seed relative change and the
// seeds that back its sign; over a near-zero base, NearZero with the
// absolute difference (in unit) and its seeds.
func (c Comparison) Cell(prec int, unit string, absPrec int) string {
	if c.Diff.N == 0 {
		return "n/a"
	}
	if c.Same() {
		return c.SameText()
	}
	if c.NearZero > 0 {
		return fmt.Sprintf("%s: %s %s %s", NearZero, FmtEst(c.Diff, absPrec, true), unit, c.SeedsText())
	}
	return c.ChangeText(prec) + " " + c.SeedsText()
}

// ---------------------------------------------------------------- saturation marks

// SaturatedMark marks a value computed over a saturated run.
const SaturatedMark = "†"

// SaturatedMarkNote is the sentence a report gives to explain
// SaturatedMark.
func SaturatedMarkNote() string {
	return SaturatedMark + " after a value: it involves a saturated run (of the variant or of its reference); it depends on the trace's length " +
		"as much as on the policies."
}

// SeedsOf says how many of per-seed values back the sign of their mean and
// whether it is significant ("[9/10]*", SeedsText), for a quantity that is
// itself a difference (a gap, a value minus a reference).
func SeedsOf(values []float64) string {
	return Compare(values, make([]float64, len(values)), 0).SeedsText()
}
