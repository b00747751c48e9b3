package analysis

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a mean over seeds with its 95 % confidence interval
// (Student t): the interval is Mean ± Half.
type Estimate struct {
	N    int
	Mean float64
	Half float64 // half-width of the 95 % interval (NaN when N < 2)
}

// Estimate95 computes the mean of xs (NaN values are left out) and the
// half-width of its two-sided 95 % Student-t confidence interval.
func Estimate95(xs []float64) Estimate {
	var vals []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
		}
	}
	e := Estimate{N: len(vals), Mean: math.NaN(), Half: math.NaN()}
	if e.N == 0 {
		return e
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	e.Mean = sum / float64(e.N)
	if e.N < 2 {
		return e
	}
	ss := 0.0
	for _, v := range vals {
		d := v - e.Mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(e.N-1))
	e.Half = StudentT975(e.N-1) * sd / math.Sqrt(float64(e.N))
	return e
}

// StudentT975 is the 0.975 quantile of Student's t distribution with df
// degrees of freedom (12.7062 for df = 1, 2.7764 for 4, 1.9600 as df grows).
// NaN for df < 1.
func StudentT975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}
