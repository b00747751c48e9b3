package xtime

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ratOf is the exact value of an xtime, for checking.
func ratOf(a Time) *big.Rat {
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
		if ratOf(Of(a)).Cmp(ra) != 0 {
			t.Fatalf("Of(%v) = %v, not exact", a, ratOf(Of(a)).FloatString(40))
		}
		x, y := Of(a).Add(Of(b)), Of(c).Add(Of(d))
		rx := new(big.Rat).Add(ra, new(big.Rat).SetFloat64(b))
		ry := new(big.Rat).Add(new(big.Rat).SetFloat64(c), new(big.Rat).SetFloat64(d))
		if ratOf(x).Cmp(rx) != 0 {
			t.Fatalf("%v + %v: sum not exact", a, b)
		}
		if got, want := x.Cmp(y), rx.Cmp(ry); got != want {
			t.Fatalf("cmp(%v+%v, %v+%v) = %d, want %d", a, b, c, d, got, want)
		}
		if x.Float() != a+b && math.Abs(x.Float()-(a+b)) > math.Abs(a+b)*0x1p-52 {
			t.Fatalf("float(%v+%v) = %v", a, b, x.Float())
		}
	}
}

// TestXtimeEdges: what xt does with values it cannot hold.
func TestXtimeEdges(t *testing.T) {
	for _, f := range []float64{0, -1, math.Inf(-1), math.NaN()} {
		if Of(f) != (Time{}) {
			t.Errorf("Of(%v) = %v, want 0", f, Of(f))
		}
	}
	for _, f := range []float64{math.Inf(1), 0x1p64, 1e300} {
		if Of(f) != Inf {
			t.Errorf("Of(%v) is not Inf", f)
		}
	}
	if h := Of(0x1p63); h.Add(h) != Inf || Of(1).Add(Inf) != Inf {
		t.Error("an overflowing sum is not Inf")
	}
	if !Of(0x1p63).Less(Inf) || Of(math.MaxFloat64).Float() != math.Inf(1) {
		t.Error("Inf is not above every finite date")
	}
	// Below 2⁻⁷⁶ s values are truncated to multiples of 2⁻¹²⁸ s.
	if tiny := Of(0x1p-128); tiny != (Time{lo: 1}) || Of(0x1p-129) != (Time{}) {
		t.Errorf("Of(2⁻¹²⁸) = %v, Of(2⁻¹²⁹) = %v", tiny, Of(0x1p-129))
	}
}

// TestXtimeSub: differences are exact, and clamp at 0.
func TestXtimeSub(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		a, b, c := Of(randomDate(r)), Of(randomDate(r)), Of(randomDate(r))
		x := a.Add(b)
		if x.Sub(b) != a || x.Sub(a) != b {
			t.Fatalf("(%v + %v) − one of them is not the other", a.Float(), b.Float())
		}
		if got, want := x.Sub(c).Rat(), new(big.Rat).Sub(ratOf(x), ratOf(c)); want.Sign() >= 0 && got.Cmp(want) != 0 {
			t.Fatalf("%v − %v not exact", x.Float(), c.Float())
		}
		if x.Less(c) && x.Sub(c) != (Time{}) {
			t.Fatalf("%v − %v is not 0", x.Float(), c.Float())
		}
	}
	if Inf.Sub(Of(1)) != Inf || Inf.Sub(Inf) != (Time{}) {
		t.Error("Inf − b")
	}
}
