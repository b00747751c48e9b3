// Package xtime holds exact dates and durations for policies that must
// compare sums of dates and walltimes as exactly as batsched's rational
// numbers do (the batsched twins).
package xtime

import (
	"math"
	"math/big"
	"math/bits"
)

// Time is an exact non-negative date or duration: a 192-bit fixed-point
// number of seconds, hi + mid·2⁻⁶⁴ + lo·2⁻¹²⁸. Every float64 from 2⁻⁷⁶ s up to
// 2⁶⁴ s converts exactly, and sums are exact, so sums of dates and
// walltimes compare as exactly as batsched's rationals do (floating-point
// sums would round: 10.000001 + 5 and 13.000001 + 2 can become equal).
// Values of 2⁶⁴ s and more, and +Inf, are Inf.
type Time struct{ hi, mid, lo uint64 }

// Inf stands for every value of 2⁶⁴ s and more, and +Inf.
var Inf = Time{math.MaxUint64, math.MaxUint64, math.MaxUint64}

// Of converts f exactly (truncated to a multiple of 2⁻¹²⁸ s below 2⁻⁷⁶ s); f <= 0 and
// NaN give 0, f >= 2⁶⁴ and +Inf give Inf.
func Of(f float64) Time {
	if !(f > 0) {
		return Time{}
	}
	if f >= 1<<64 {
		return Inf
	}
	frac, exp := math.Frexp(f) // f = frac·2^exp, frac in [0.5, 1)
	m := uint64(frac * (1 << 53))
	// f = m·2^(exp−53): in units of 2⁻¹²⁸ s, m shifted left by exp+75.
	shift := exp + 75
	if shift < 0 {
		return Time{lo: m >> uint(-shift)}
	}
	// Place m (53 bits) at bit position shift of the 192-bit number.
	var w [3]uint64 // w[0] = lo, w[1] = mid, w[2] = hi
	k, r := shift/64, uint(shift%64)
	w[k] = m << r
	if r > 0 && k+1 < 3 {
		w[k+1] = m >> (64 - r)
	}
	return Time{hi: w[2], mid: w[1], lo: w[0]}
}

// Add returns a + b (Inf when either is, or on overflow).
func (a Time) Add(b Time) Time {
	if a == Inf || b == Inf {
		return Inf
	}
	lo, c := bits.Add64(a.lo, b.lo, 0)
	mid, c := bits.Add64(a.mid, b.mid, c)
	hi, c := bits.Add64(a.hi, b.hi, c)
	if c != 0 {
		return Inf
	}
	return Time{hi, mid, lo}
}

// Cmp is −1, 0 or +1 as a is less than, equal to or greater than b.
func (a Time) Cmp(b Time) int {
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

// Less reports whether a < b.
func (a Time) Less(b Time) bool { return a.Cmp(b) < 0 }

// Succ is the smallest Time after a (a plus 2⁻¹²⁸ s; Inf stays Inf): a
// date right after a, before every other Time after a.
func (a Time) Succ() Time { return a.Add(Time{lo: 1}) }

// Max is the later of a and b.
func Max(a, b Time) Time {
	if a.Less(b) {
		return b
	}
	return a
}

// Float is a float64 near a (for tests and logs).
func (a Time) Float() float64 {
	if a == Inf {
		return math.Inf(1)
	}
	return float64(a.hi) + math.Ldexp(float64(a.mid), -64) + math.Ldexp(float64(a.lo), -128)
}

// Sub returns a − b for b <= a (0 when b > a); Inf − b is Inf for any
// finite b.
func (a Time) Sub(b Time) Time {
	if a == Inf {
		if b == Inf {
			return Time{}
		}
		return Inf
	}
	if a.Less(b) {
		return Time{}
	}
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	mid, c := bits.Sub64(a.mid, b.mid, c)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return Time{hi, mid, lo}
}

// Rat is a's exact value (+Inf has none: nil).
func (a Time) Rat() *big.Rat {
	if a == Inf {
		return nil
	}
	n := new(big.Int).SetUint64(a.hi)
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(a.mid))
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(a.lo))
	return new(big.Rat).SetFrac(n, new(big.Int).Lsh(big.NewInt(1), 128))
}
