package sim

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigLD is the reference: math/big with a 64-bit significand, rounded to
// nearest even (the x87's extended precision).
func bigLD(x float64) *big.Float {
	return new(big.Float).SetPrec(ldPrecision).SetMode(big.ToNearestEven).SetFloat64(x)
}

const ldPrecision = 64

func sameLD(v *ld, f *big.Float) bool {
	if v.isZero() || f.Sign() == 0 {
		return v.isZero() && f.Sign() == 0 && v.neg == f.Signbit()
	}
	var g big.Float
	g.SetPrec(ldPrecision).SetMantExp(new(big.Float).SetUint64(v.mant), int(v.exp)-63)
	if v.neg {
		g.Neg(&g)
	}
	return g.Cmp(f) == 0
}

// ldOperand draws doubles that exercise the arithmetic: wide and narrow
// exponent gaps, near-equal values, small integers, dates with
// microseconds, subnormals.
func ldOperand(r *rand.Rand, other float64) float64 {
	switch r.IntN(9) {
	case 0:
		return float64(r.IntN(1000))
	case 1:
		return math.Round(r.Float64()*1e10*1e6) / 1e6
	case 2:
		return math.Nextafter(other, math.Inf(r.IntN(2)*2-1))
	case 3:
		return other * (1 + (r.Float64()-0.5)*1e-12)
	case 4:
		return math.Ldexp(r.Float64(), r.IntN(200)-100)
	case 5:
		return math.Float64frombits(r.Uint64() &^ (0x7ff << 52)) // subnormal or zero
	case 6:
		return -other
	case 7:
		return math.Ldexp(1, r.IntN(130)-65) + other
	default:
		return math.Float64frombits(r.Uint64()>>2 | 1<<61) // any magnitude around 1
	}
}

func TestLDMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 400000; i++ {
		x := ldOperand(r, 1)
		y := ldOperand(r, x)
		z := ldOperand(r, y)
		if math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) || math.IsInf(z, 0) || math.IsNaN(z) {
			continue
		}
		var a, b, c, v ld
		a.setF(x)
		b.setF(y)
		c.setF(z)
		// A long double operand: x + y, rounded.
		v.add(&a, &b)
		ref := new(big.Float).SetPrec(ldPrecision).Add(bigLD(x), bigLD(y))
		if !sameLD(&v, ref) {
			t.Fatalf("%v + %v: got %v×2^%d", x, y, v.mant, v.exp)
		}
		var w ld
		w.sub(&v, &c)
		refSub := new(big.Float).SetPrec(ldPrecision).Sub(ref, bigLD(z))
		if !sameLD(&w, refSub) {
			t.Fatalf("(%v + %v) - %v: got %v", x, y, z, w.float64())
		}
		w.sub(&a, &b)
		if !sameLD(&w, new(big.Float).SetPrec(ldPrecision).Sub(bigLD(x), bigLD(y))) {
			t.Fatalf("%v - %v", x, y)
		}
		if !c.isZero() {
			w.quo(&v, &c)
			refQuo := new(big.Float).SetPrec(ldPrecision).Quo(ref, bigLD(z))
			if !sameLD(&w, refQuo) {
				t.Fatalf("(%v + %v) / %v", x, y, z)
			}
			want, _ := refQuo.Float64()
			if got := w.float64(); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("float64((%v + %v) / %v) = %v, want %v", x, y, z, got, want)
			}
		}
		want, _ := ref.Float64()
		if got := v.float64(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("float64(%v + %v) = %v, want %v", x, y, got, want)
		}
		if got, want := v.cmp(&c), ref.Cmp(bigLD(z)); got != want {
			t.Fatalf("cmp(%v + %v, %v) = %d, want %d", x, y, z, got, want)
		}
		diff, _ := new(big.Float).SetPrec(ldPrecision).Sub(bigLD(x), bigLD(y)).Float64()
		if got := ldSub(x, y); math.Float64bits(got) != math.Float64bits(diff) && !(got == 0 && diff == 0) {
			t.Fatalf("ldSub(%v, %v) = %v, want %v", x, y, got, diff)
		}
	}
}

// Ties and carries of the rounding, on purpose.
func TestLDRoundingEdges(t *testing.T) {
	one := math.Ldexp(1, 0)
	for _, c := range [][2]float64{
		{one, math.Ldexp(1, -64)}, {one, math.Ldexp(1, -65)}, {one, math.Ldexp(3, -65)}, {one + math.Ldexp(1, -52), math.Ldexp(1, -64)},
		{math.Ldexp(1, 64) - math.Ldexp(1, 11), math.Ldexp(1, 0)}, {1e10, 1e-9}, {1e10 + 0.000046, -1e10}, {-0.0, 0.0}, {-0.0, -0.0},
		{math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64}, {math.MaxFloat64, math.MaxFloat64},
	} {
		var a, b, v ld
		a.setF(c[0])
		b.setF(c[1])
		for _, op := range []string{"+", "-", "/"} {
			var ref *big.Float
			switch op {
			case "+":
				v.add(&a, &b)
				ref = new(big.Float).SetPrec(ldPrecision).Add(bigLD(c[0]), bigLD(c[1]))
			case "-":
				v.sub(&a, &b)
				ref = new(big.Float).SetPrec(ldPrecision).Sub(bigLD(c[0]), bigLD(c[1]))
			default:
				if c[1] == 0 {
					continue
				}
				v.quo(&a, &b)
				ref = new(big.Float).SetPrec(ldPrecision).Quo(bigLD(c[0]), bigLD(c[1]))
			}
			if !sameLD(&v, ref) {
				t.Errorf("%v %s %v: got %v×2^%d, want %v", c[0], op, c[1], v.mant, v.exp, ref)
			}
			want, _ := ref.Float64()
			if got := v.float64(); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("float64(%v %s %v) = %v, want %v", c[0], op, c[1], got, want)
			}
		}
	}
}

// Operands with full 64-bit significands and exponent gaps around 64,
// where the bits shifted out of the 128-bit sum decide the rounding.
func TestLDWideOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	toBig := func(v *ld) *big.Float {
		f := new(big.Float).SetPrec(ldPrecision).SetMantExp(new(big.Float).SetUint64(v.mant), int(v.exp)-63)
		if v.neg {
			f.Neg(f)
		}
		return f
	}
	for i := 0; i < 300000; i++ {
		a := ld{mant: r.Uint64() | 1<<63, exp: int32(r.IntN(8)), neg: r.IntN(2) == 0}
		b := ld{mant: r.Uint64() | 1<<63, exp: a.exp - int32(r.IntN(140)), neg: r.IntN(2) == 0}
		switch r.IntN(4) {
		case 0:
			a.mant = 1 << 63 // a power of two: a borrow renormalises
		case 1:
			a.mant |= 1 // odd: ties round up
		case 2:
			a.mant &^= 1
		}
		if r.IntN(2) == 0 {
			b.mant = 1<<63 | r.Uint64()&1 // a lone high bit and maybe the last
		}
		var v ld
		v.add(&a, &b)
		if !sameLD(&v, new(big.Float).SetPrec(ldPrecision).Add(toBig(&a), toBig(&b))) {
			t.Fatalf("%+v + %+v = %+v", a, b, v)
		}
		v.sub(&a, &b)
		if !sameLD(&v, new(big.Float).SetPrec(ldPrecision).Sub(toBig(&a), toBig(&b))) {
			t.Fatalf("%+v - %+v = %+v", a, b, v)
		}
		v.quo(&a, &b)
		if !sameLD(&v, new(big.Float).SetPrec(ldPrecision).Quo(toBig(&a), toBig(&b))) {
			t.Fatalf("%+v / %+v = %+v", a, b, v)
		}
	}
}
