package schedulers

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ratOf is the exact value of an xtime, for checking.
func ratOf(a xtime) *big.Rat {
	n := new(big.Int).SetUint64(a.hi)
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(a.mid))
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(a.lo))
	return new(big.Rat).SetFrac(n, new(big.Int).Lsh(big.NewInt(1), 128))
}

// randomDate is a float64 of the kinds simulation dates and walltimes take:
// decimals of a few digits, microseconds, dates near 1e10, tiny values.
func randomDate(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return float64(r.IntN(100000)) / 1e3
	case 1:
		return float64(r.IntN(1e9)) / 1e6
	case 2:
		return 1e10 + r.Float64()*1e4
	}
	return math.Ldexp(r.Float64(), -r.IntN(70))
}

// TestXtimeExact: conversions, sums and comparisons agree with exact
// rational arithmetic on the float64 values.
func TestXtimeExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		a, b, c, d := randomDate(r), randomDate(r), randomDate(r), randomDate(r)
		ra := new(big.Rat).SetFloat64(a)
		if ratOf(xt(a)).Cmp(ra) != 0 {
			t.Fatalf("xt(%v) = %v, not exact", a, ratOf(xt(a)).FloatString(40))
		}
		x, y := xt(a).add(xt(b)), xt(c).add(xt(d))
		rx := new(big.Rat).Add(ra, new(big.Rat).SetFloat64(b))
		ry := new(big.Rat).Add(new(big.Rat).SetFloat64(c), new(big.Rat).SetFloat64(d))
		if ratOf(x).Cmp(rx) != 0 {
			t.Fatalf("%v + %v: sum not exact", a, b)
		}
		if got, want := x.cmp(y), rx.Cmp(ry); got != want {
			t.Fatalf("cmp(%v+%v, %v+%v) = %d, want %d", a, b, c, d, got, want)
		}
		if x.float() != a+b && math.Abs(x.float()-(a+b)) > math.Abs(a+b)*0x1p-52 {
			t.Fatalf("float(%v+%v) = %v", a, b, x.float())
		}
	}
}

// TestXtimeEdges: what xt does with values it cannot hold.
func TestXtimeEdges(t *testing.T) {
	for _, f := range []float64{0, -1, math.Inf(-1), math.NaN()} {
		if xt(f) != (xtime{}) {
			t.Errorf("xt(%v) = %v, want 0", f, xt(f))
		}
	}
	for _, f := range []float64{math.Inf(1), 0x1p64, 1e300} {
		if xt(f) != xinf {
			t.Errorf("xt(%v) is not xinf", f)
		}
	}
	if h := xt(0x1p63); h.add(h) != xinf || xt(1).add(xinf) != xinf {
		t.Error("an overflowing sum is not xinf")
	}
	if !xt(0x1p63).less(xinf) || xt(math.MaxFloat64).float() != math.Inf(1) {
		t.Error("xinf is not above every finite date")
	}
	// Below 2⁻⁷⁶ s values are truncated to multiples of 2⁻¹²⁸ s.
	if tiny := xt(0x1p-128); tiny != (xtime{lo: 1}) || xt(0x1p-129) != (xtime{}) {
		t.Errorf("xt(2⁻¹²⁸) = %v, xt(2⁻¹²⁹) = %v", tiny, xt(0x1p-129))
	}
}
