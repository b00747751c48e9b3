package sim

import "math/big"

// ld is a C long double as Batsim computes with it on x86-64: the 80-bit
// x87 format, a 64-bit significand rounded to nearest even. Batsim keeps
// job dates, run times and the _schedule.csv sums in long doubles and only
// rounds them to double when it prints them, so the printed values (6
// decimals, or the last digits of large dates) depend on it.
type ld struct{ f big.Float }

const ldPrec = 64

func newLD(x float64) *ld {
	v := &ld{}
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).SetFloat64(x)
	return v
}

func (v *ld) set(x *ld) *ld {
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).Set(&x.f)
	return v
}

func (v *ld) setF(x float64) *ld {
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).SetFloat64(x)
	return v
}

// sub sets v = a - b, rounded like the x87.
func (v *ld) sub(a, b *ld) *ld {
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).Sub(&a.f, &b.f)
	return v
}

func (v *ld) add(a, b *ld) *ld {
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).Add(&a.f, &b.f)
	return v
}

func (v *ld) quo(a, b *ld) *ld {
	v.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).Quo(&a.f, &b.f)
	return v
}

func (v *ld) cmp(b *ld) int { return v.f.Cmp(&b.f) }

func (v *ld) isZero() bool { return v.f.Sign() == 0 }

// float64 is static_cast<double>(v).
func (v *ld) float64() float64 {
	x, _ := v.f.Float64()
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
