package schedulers

import (
	"math"
	"math/bits"
)

// xtime is an exact non-negative date or duration: a 192-bit fixed-point
// number of seconds, hi + mid·2⁻⁶⁴ + lo·2⁻¹²⁸. Every float64 from 2⁻⁷⁶ s up to
// 2⁶⁴ s converts exactly, and sums are exact, so sums of dates and
// walltimes compare as exactly as batsched's rationals do (floating-point
// sums would round: 10.000001 + 5 and 13.000001 + 2 can become equal).
// Values of 2⁶⁴ s and more, and +Inf, are xinf.
type xtime struct{ hi, mid, lo uint64 }

var xinf = xtime{math.MaxUint64, math.MaxUint64, math.MaxUint64}

// xt converts f exactly (truncated to a multiple of 2⁻¹²⁸ s below 2⁻⁷⁶ s); f <= 0 and
// NaN give 0, f >= 2⁶⁴ and +Inf give xinf.
func xt(f float64) xtime {
	if !(f > 0) {
		return xtime{}
	}
	if f >= 1<<64 {
		return xinf
	}
	frac, exp := math.Frexp(f) // f = frac·2^exp, frac in [0.5, 1)
	m := uint64(frac * (1 << 53))
	// f = m·2^(exp−53): in units of 2⁻¹²⁸ s, m shifted left by exp+75.
	shift := exp + 75
	if shift < 0 {
		return xtime{lo: m >> uint(-shift)}
	}
	// Place m (53 bits) at bit position shift of the 192-bit number.
	var w [3]uint64 // w[0] = lo, w[1] = mid, w[2] = hi
	k, r := shift/64, uint(shift%64)
	w[k] = m << r
	if r > 0 && k+1 < 3 {
		w[k+1] = m >> (64 - r)
	}
	return xtime{hi: w[2], mid: w[1], lo: w[0]}
}

// add returns a + b (xinf when either is, or on overflow).
func (a xtime) add(b xtime) xtime {
	if a == xinf || b == xinf {
		return xinf
	}
	lo, c := bits.Add64(a.lo, b.lo, 0)
	mid, c := bits.Add64(a.mid, b.mid, c)
	hi, c := bits.Add64(a.hi, b.hi, c)
	if c != 0 {
		return xinf
	}
	return xtime{hi, mid, lo}
}

// cmp is −1, 0 or +1 as a is less than, equal to or greater than b.
func (a xtime) cmp(b xtime) int {
	switch {
	case a.hi != b.hi:
		return cmpU(a.hi, b.hi)
	case a.mid != b.mid:
		return cmpU(a.mid, b.mid)
	}
	return cmpU(a.lo, b.lo)
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func (a xtime) less(b xtime) bool { return a.cmp(b) < 0 }

// float is a float64 near a (for tests and logs).
func (a xtime) float() float64 {
	if a == xinf {
		return math.Inf(1)
	}
	return float64(a.hi) + math.Ldexp(float64(a.mid), -64) + math.Ldexp(float64(a.lo), -128)
}
