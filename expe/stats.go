package expe

import "math"

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

// t975 holds the 0.975 quantiles of Student's t for 1..30 degrees of freedom.
var t975 = [...]float64{
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
	2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
}

// StudentT975 is the 0.975 quantile of Student's t distribution with df
// degrees of freedom (table up to 30, then interpolation in 1/df towards
// the normal quantile 1.95996; exact to 3 decimals). NaN for df < 1.
func StudentT975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	// Known points beyond the table, interpolated linearly in 1/df.
	pts := []struct{ df, t float64 }{{30, 2.0423}, {40, 2.0211}, {60, 2.0003}, {120, 1.9799}, {math.Inf(1), 1.95996}}
	x := 1 / float64(df)
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		xa, xb := 1/a.df, 1/b.df
		if x <= xa && x >= xb {
			return a.t + (b.t-a.t)*(xa-x)/(xa-xb)
		}
	}
	return 1.95996
}
