package analysis

import (
	"math"
)

// ParetoFront returns the indices of the points that no other point
// dominates, in the order of the points: pts[i][k] is objective k of point
// i, maximized where maximize[k] (else minimized). A point dominates
// another when it is at least as good in every objective and better in
// one. Points with a NaN objective are left out.
func ParetoFront(pts [][]float64, maximize []bool) []int {
	valid := func(p []float64) bool {
		for _, v := range p {
			if math.IsNaN(v) {
				return false
			}
		}
		return true
	}
	var out []int
	for i, p := range pts {
		if !valid(p) {
			continue
		}
		dominated := false
		for j, q := range pts {
			if i == j || !valid(q) {
				continue
			}
			if Dominates(q, p, maximize) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, i)
		}
	}
	return out
}

// Dominates reports whether point a dominates point b (see ParetoFront).
func Dominates(a, b []float64, maximize []bool) bool {
	strictly := false
	for k := range a {
		x, y := a[k], b[k]
		if !maximize[k] {
			x, y = -x, -y
		}
		if x < y {
			return false
		}
		if x > y {
			strictly = true
		}
	}
	return strictly
}
