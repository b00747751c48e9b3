package analysis

import (
	"math"
	"sort"
)

// SignedRank is the result of a Wilcoxon signed-rank test on paired
// differences.
type SignedRank struct {
	// N is the number of non-zero differences the test ranks (zero
	// differences are dropped, as in Wilcoxon's original test).
	N int
	// Zeros counts the differences that were exactly 0.
	Zeros int
	// WPlus is the sum of the ranks of the positive differences (ties
	// share their mean rank).
	WPlus float64
	// P is the two-sided p-value: exact (the permutation distribution of
	// the signs, ties included) for N ≤ SignedRankExactMax, else the normal
	// approximation with the tie correction. 1 when N is 0.
	P float64
	// Exact says whether P is exact.
	Exact bool
}

// SignedRankExactMax is the largest number of differences whose p-value
// is computed exactly.
const SignedRankExactMax = 60

// WilcoxonSignedRank tests whether paired differences are centred on 0
// (two-sided). NaN differences are left out.
//
// No maintained Go library offers this test (gonum/stat and
// aclements/go-moremath have the t tests and Mann–Whitney's, not the
// signed-rank test), hence this implementation: ranks of |d| with ties at
// their mean rank, then the exact distribution of W+ over the 2^N sign
// patterns by dynamic programming on doubled ranks (integers even with
// ties).
func WilcoxonSignedRank(d []float64) SignedRank {
	var nz []float64
	res := SignedRank{P: 1}
	for _, x := range d {
		switch {
		case math.IsNaN(x):
		case x == 0:
			res.Zeros++
		default:
			nz = append(nz, x)
		}
	}
	res.N = len(nz)
	if res.N == 0 {
		res.Exact = true
		return res
	}
	idx := make([]int, len(nz))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(nz[idx[a]]) < math.Abs(nz[idx[b]]) })
	rank2 := make([]int, len(nz)) // doubled ranks
	ties := 0.0                   // Σ (t³ − t) over tie groups
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			rank2[idx[k]] = i + j + 2 // 2 × mean rank (i+1 … j+1)
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	w2 := 0 // 2 W+
	total2 := 0
	for i, x := range nz {
		total2 += rank2[i]
		if x > 0 {
			w2 += rank2[i]
		}
	}
	res.WPlus = float64(w2) / 2
	n := float64(res.N)
	if res.N <= SignedRankExactMax {
		// count[s]: sign patterns whose doubled W+ is s.
		count := make([]float64, total2+1)
		count[0] = 1
		for _, r := range rank2 {
			for s := total2; s >= r; s-- {
				count[s] += count[s-r]
			}
		}
		// Two-sided: the patterns at least as far from the centre as w2.
		dev := math.Abs(float64(2*w2 - total2))
		tail := 0.0
		for s, c := range count {
			if math.Abs(float64(2*s-total2)) >= dev-1e-9 {
				tail += c
			}
		}
		res.P = math.Min(1, tail/math.Pow(2, n))
		res.Exact = true
		return res
	}
	mean := n * (n + 1) / 4
	sd := math.Sqrt(n*(n+1)*(2*n+1)/24 - ties/48)
	if sd == 0 {
		return res
	}
	z := (math.Abs(res.WPlus-mean) - 0.5) / sd // continuity correction
	res.P = math.Min(1, math.Erfc(math.Max(z, 0)/math.Sqrt2))
	return res
}

// HolmRejects applies Holm's step-down procedure at level alpha to a
// family of p-values: which hypotheses are rejected with the family-wise
// error rate held at alpha.
func HolmRejects(p []float64, alpha float64) []bool {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]bool, len(p))
	m := len(p)
	for k, i := range idx {
		if math.IsNaN(p[i]) || p[i] > alpha/float64(m-k) {
			break
		}
		out[i] = true
	}
	return out
}
