package sim

import (
	"math"
	"math/big"
	"math/bits"
)

// ld is a C long double as Batsim computes with it on x86-64: the 80-bit
// x87 format, a 64-bit significand rounded to nearest even. Batsim keeps
// job dates, run times and the _schedule.csv sums in long doubles and only
// rounds them to double when it prints them, so the printed values (6
// decimals, or the last digits of large dates) depend on it.
//
// The value is (-1)^neg × mant × 2^(exp-63): mant holds the 64-bit
// significand with its leading bit set (mant = 0 is a zero). Operations
// round once, to nearest even, like the x87 (and like math/big with a
// 64-bit precision, the reference of the tests); the exponent is not
// bounded (the values Batsim keeps never come near the x87's limits).
// Operands are finite.
type ld struct {
	mant uint64
	exp  int32
	neg  bool
}

func newLD(x float64) *ld {
	v := &ld{}
	return v.setF(x)
}

func (v *ld) set(x *ld) *ld {
	*v = *x
	return v
}

// setF sets v to x exactly.
func (v *ld) setF(x float64) *ld {
	b := math.Float64bits(x)
	v.neg = b>>63 != 0
	e := int32(b>>52) & 0x7ff
	f := b & (1<<52 - 1)
	switch {
	case e == 0 && f == 0:
		v.mant, v.exp = 0, 0
	case e == 0: // subnormal
		lz := bits.LeadingZeros64(f)
		v.mant = f << lz
		v.exp = -1022 - int32(lz-11)
	default:
		v.mant = (f | 1<<52) << 11
		v.exp = e - 1023
	}
	return v
}

// round sets v from the 128-bit significand hi:lo (any leading zeros),
// whose bit 127 would weigh 2^exp, with sticky set when nonzero bits lie
// below lo: rounded to 64 bits, to nearest even.
func (v *ld) round(neg bool, exp int32, hi, lo uint64, sticky bool) *ld {
	if hi == 0 && lo == 0 {
		// An exact zero (sticky never comes alone: it only follows
		// bits of a larger operand).
		v.mant, v.exp, v.neg = 0, 0, neg
		return v
	}
	if hi == 0 {
		hi, lo = lo, 0
		exp -= 64
	}
	if lz := bits.LeadingZeros64(hi); lz > 0 {
		hi = hi<<lz | lo>>(64-lz)
		lo <<= lz
		exp -= int32(lz)
	}
	half := lo >> 63
	rest := lo<<1 != 0 || sticky
	if half == 1 && (rest || hi&1 == 1) {
		hi++
		if hi == 0 {
			hi = 1 << 63
			exp++
		}
	}
	v.mant, v.exp, v.neg = hi, exp, neg
	return v
}

// add sets v = a + b, rounded like the x87.
func (v *ld) add(a, b *ld) *ld { return v.addSigned(a, b, b.neg) }

// sub sets v = a - b, rounded like the x87.
func (v *ld) sub(a, b *ld) *ld { return v.addSigned(a, b, !b.neg) }

// addSigned sets v = a + (-1)^bneg |b|.
func (v *ld) addSigned(a, b *ld, bneg bool) *ld {
	if b.mant == 0 {
		if a.mant == 0 {
			// IEEE: +0 unless both are -0.
			return v.round(a.neg && bneg, 0, 0, 0, false)
		}
		*v = *a
		return v
	}
	if a.mant == 0 {
		*v = *b
		v.neg = bneg
		return v
	}
	// x: the operand of larger magnitude.
	xm, xe, xn := a.mant, a.exp, a.neg
	ym, ye, yn := b.mant, b.exp, bneg
	if ye > xe || (ye == xe && ym > xm) {
		xm, xe, xn, ym, ye, yn = ym, ye, yn, xm, xe, xn
	}
	// y aligned on x in 128 bits (x in the high word), the bits shifted
	// out jammed into the lowest one.
	d := uint(xe - ye)
	var yh, yl uint64
	sticky := false
	switch {
	case d == 0:
		yh = ym
	case d < 64:
		yh, yl = ym>>d, ym<<(64-d)
	case d < 128:
		yl = ym >> (d - 64)
		sticky = ym<<(128-d) != 0
	default:
		sticky = true
	}
	if sticky {
		yl |= 1
	}
	if xn == yn {
		lo, c := bits.Add64(0, yl, 0)
		hi, c2 := bits.Add64(xm, yh, c)
		if c2 != 0 {
			// One more bit: shift right, keeping the lost bit sticky.
			sticky := lo&1 != 0
			lo = lo>>1 | hi<<63
			hi = hi>>1 | 1<<63
			return v.round(xn, xe+1, hi, lo|b2u(sticky), false)
		}
		return v.round(xn, xe, hi, lo, false)
	}
	lo, bw := bits.Sub64(0, yl, 0)
	hi, _ := bits.Sub64(xm, yh, bw)
	if hi == 0 && lo == 0 {
		return v.round(false, 0, 0, 0, false) // x - x = +0
	}
	return v.round(xn, xe, hi, lo, false)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// quo sets v = a / b (b nonzero).
func (v *ld) quo(a, b *ld) *ld {
	neg := a.neg != b.neg
	if a.mant == 0 {
		v.mant, v.exp, v.neg = 0, 0, neg
		return v
	}
	var q, r uint64
	exp := a.exp - b.exp
	if a.mant < b.mant {
		q, r = bits.Div64(a.mant, 0, b.mant)
		exp--
	} else {
		q, r = bits.Div64(a.mant>>1, a.mant<<63, b.mant)
	}
	// The remainder against half the divisor: round and sticky.
	var lo uint64
	switch other := b.mant - r; {
	case r > other:
		lo = 1<<63 | 1
	case r == other:
		lo = 1 << 63
	case r != 0:
		lo = 1
	}
	return v.round(neg, exp, q, lo, false)
}

func (v *ld) cmp(b *ld) int {
	switch {
	case v.mant == 0 && b.mant == 0:
		return 0
	case v.mant == 0:
		if b.neg {
			return 1
		}
		return -1
	case b.mant == 0:
		if v.neg {
			return -1
		}
		return 1
	case v.neg != b.neg:
		if v.neg {
			return -1
		}
		return 1
	}
	c := 0
	switch {
	case v.exp != b.exp:
		c = 1
		if v.exp < b.exp {
			c = -1
		}
	case v.mant != b.mant:
		c = 1
		if v.mant < b.mant {
			c = -1
		}
	}
	if v.neg {
		c = -c
	}
	return c
}

func (v *ld) isZero() bool { return v.mant == 0 }

// float64 is static_cast<double>(v): rounded to nearest even.
func (v *ld) float64() float64 {
	if v.mant == 0 {
		if v.neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	if v.exp < -1021 || v.exp > 1023 {
		// Subnormal, overflowing or tiny: math/big rounds it once.
		f := new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetUint64(v.mant), int(v.exp)-63)
		if v.neg {
			f.Neg(f)
		}
		x, _ := f.Float64()
		return x
	}
	m := v.mant >> 11
	rest := v.mant & (1<<11 - 1)
	exp := v.exp
	if rest > 1<<10 || (rest == 1<<10 && m&1 == 1) {
		m++
		if m == 1<<53 {
			m = 1 << 52
			exp++
		}
	}
	if exp > 1023 {
		if v.neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	x := math.Float64frombits(uint64(exp+1023)<<52 | m&(1<<52-1))
	if v.neg {
		x = -x
	}
	return x
}

// ldSub is static_cast<double>((long double)a - (long double)b).
func ldSub(a, b float64) float64 {
	// When the double difference is exact (its rounding error, by
	// Knuth's TwoSum, is 0), the long double one is the same number.
	d := a - b
	bb := d - a
	if (a-(d-bb))+(-b-bb) == 0 {
		return d
	}
	var x, y ld
	x.setF(a)
	y.setF(b)
	return x.sub(&x, &y).float64()
}
