package analysis

import (
	"math"
	"sort"

	"github.com/bucma-sched/bucma/metrics"
)

// BoxStats are the numbers of a box plot (Tukey's): the quartiles (by
// Quantile's interpolation), the whiskers at the most extreme values within
// 1.5 × IQR of the box, and the values beyond them (outliers).
type BoxStats struct {
	N                     int
	Min, Q1, Median, Q3   float64
	Max                   float64
	LowWhisker, HiWhisker float64
	// Outliers counts the values beyond the whiskers; OutLow and OutHigh
	// split them, and OutMin / OutMax are the extreme high outliers' range
	// (NaN without high outliers).
	Outliers, OutLow, OutHigh int
	OutHighMin, OutHighMax    float64
}

// Box computes the box-plot numbers of xs (NaN values left out; every
// field NaN or 0 for no value).
func Box(xs []float64) BoxStats {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	nan := math.NaN()
	b := BoxStats{N: len(v), Min: nan, Q1: nan, Median: nan, Q3: nan, Max: nan, LowWhisker: nan, HiWhisker: nan, OutHighMin: nan, OutHighMax: nan}
	if len(v) == 0 {
		return b
	}
	sort.Float64s(v)
	b.Min, b.Max = v[0], v[len(v)-1]
	b.Q1, b.Median, b.Q3 = metrics.Quantile(v, 0.25), metrics.Quantile(v, 0.5), metrics.Quantile(v, 0.75)
	lo, hi := b.Q1-1.5*(b.Q3-b.Q1), b.Q3+1.5*(b.Q3-b.Q1)
	b.LowWhisker, b.HiWhisker = b.Q1, b.Q3
	for _, x := range v {
		switch {
		case x < lo:
			b.OutLow++
		case x > hi:
			b.OutHigh++
			if math.IsNaN(b.OutHighMin) {
				b.OutHighMin = x
			}
			b.OutHighMax = x
		default:
			b.LowWhisker, b.HiWhisker = math.Min(b.LowWhisker, x), math.Max(b.HiWhisker, x)
		}
	}
	b.Outliers = b.OutLow + b.OutHigh
	return b
}
