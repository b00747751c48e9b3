package batsimfmt

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The expected renderings are glibc's printf("%f") of the same doubles.
func TestFloat(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.000000"},
		{math.Copysign(0, -1), "-0.000000"},
		{1.5, "1.500000"},
		{15e-6, "0.000015"},
		{31.1234567891, "31.123457"},
		{1e10 + 0.000046, "10000000000.000046"},
		{1e-7, "0.000000"},
		{-1e-7, "-0.000000"},
		{5e-7, "0.000000"},   // just below a half: 4.9999999999999998e-07
		{1.5e-6, "0.000002"}, // just above a half
		{2.5e-6, "0.000003"},
		{123456789.1234565, "123456789.123456"},
		{-2.0000005, "-2.000001"},
		{1e20, "100000000000000000000.000000"},
		{1e25, "10000000000000000905969664.000000"},
		{4503599627370497.5, "4503599627370498.000000"},
		{5e-324, "0.000000"},
		// Never written by Batsim; spelled as Go does.
		{math.NaN(), "NaN"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
	}
	for _, c := range cases {
		if got := Float(c.in); got != c.want {
			t.Errorf("Float(%v) = %s, want %s", c.in, got, c.want)
		}
		if got := string(AppendFloat([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("AppendFloat(%v) = %s, want x%s", c.in, got, c.want)
		}
	}
	if got := Float(math.MaxFloat64); len(got) != 316 || !strings.HasPrefix(got, "179769313486231570814527423731704356798070") || !strings.HasSuffix(got, ".000000") {
		t.Errorf("Float(MaxFloat64) = %s", got)
	}
}

func TestReread(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{31.1234567891, 31.123457},
		{1e10 + 0.000046, 10000000000.000046},
		{1e-7, 0},
		{15e-6, 15e-6},
		{2, 2},
	}
	for _, c := range cases {
		if got := Reread(c.in); got != c.want {
			t.Errorf("Reread(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if got := Reread(-1e-7); got != 0 || !math.Signbit(got) {
		t.Errorf("Reread(-1e-7) = %v, want -0", got)
	}
	if got := Reread(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Reread(NaN) = %v", got)
	}
	for _, inf := range []float64{math.Inf(1), math.Inf(-1)} {
		if got := Reread(inf); got != inf {
			t.Errorf("Reread(%v) = %v", inf, got)
		}
	}
}

func TestAppendString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"w0!1", `"w0!1"`},
		{`a"b\c/d`, `"a\"b\\c/d"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001F` + "\x7f" + `"`},
		{"é€😀", `"é€😀"`},
		{"bad \xff utf-8", "\"bad \xff utf-8\""},
	}
	for _, c := range cases {
		if got := string(AppendString([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("AppendString(%q) = %s, want x%s", c.in, got, c.want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		lit  string
		want Number
	}{
		{"0", Number{IsInt: true, Float: 0}},
		{"-0", Number{IsInt: true, Float: 0}}, // the integer 0: GetDouble gives +0
		{"-0.0", Number{Float: math.Copysign(0, -1)}},
		{"42", Number{IsInt: true, Magnitude: 42, Float: 42}},
		{"-42", Number{IsInt: true, Neg: true, Magnitude: 42, Float: -42}},
		{"18446744073709551615", Number{IsInt: true, Magnitude: math.MaxUint64, Float: 18446744073709551615}},
		{"18446744073709551616", Number{Float: 18446744073709551616}},
		{"-9223372036854775808", Number{IsInt: true, Neg: true, Magnitude: 1 << 63, Float: -9223372036854775808}},
		{"-9223372036854775809", Number{Float: -9223372036854775809}},
		{"1.0", Number{Float: 1}},
		{"1e3", Number{Float: 1000}},
		{"2E-1", Number{Float: 0.2}},
		// rapidjson's reading, one unit in the last place below the
		// correctly rounded 10000000000.000002.
		{"10000000000.000001", Number{Float: 1e10}},
		{"99999999999999999999", Number{Float: 1e20}},
	}
	for _, c := range cases {
		got, err := ParseNumber(c.lit)
		if err != nil || got != c.want || math.Signbit(got.Float) != math.Signbit(c.want.Float) {
			t.Errorf("ParseNumber(%s) = %+v, %v; want %+v", c.lit, got, err, c.want)
		}
	}
	for _, lit := range []string{"1e400", "9e308", "-2e308"} {
		if _, err := ParseNumber(lit); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseNumber(%s): %v, want out of range", lit, err)
		}
	}
	for _, lit := range []string{"01", "1.", "-", "1e"} {
		if _, err := ParseNumber(lit); err == nil {
			t.Errorf("ParseNumber(%s) accepted a malformed literal", lit)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	cases := []struct{ lit, want string }{
		{"7", "7"},
		{"-0", "0"},
		{"-12", "-12"},
		{"18446744073709551615", "18446744073709551615"},
		{"18446744073709551616", "18446744073709551616.000000"},
		{"1.5", "1.500000"},
		{"-0.0", "-0.000000"},
		{"31.123456789", "31.123457"},
		{"1e20", "100000000000000000000.000000"},
		{"1e-7", "0.000000"},
		{"1e24", "999999999999999983222784.000000"}, // 31 characters: the longest Batsim writes
	}
	for _, c := range cases {
		got, err := AppendNumber([]byte("x"), c.lit)
		if err != nil || string(got) != "x"+c.want {
			t.Errorf("AppendNumber(%s) = %s, %v; want x%s", c.lit, got, err, c.want)
		}
	}
	for _, lit := range []string{"1e25", "-1e24", "1e400"} {
		got, err := AppendNumber([]byte("x"), lit)
		if err == nil || string(got) != "x" {
			t.Errorf("AppendNumber(%s) = %s, %v; want an error and nothing appended", lit, got, err)
		}
	}
}

// The fast path of Reread agrees with printing and parsing back.
func TestRereadFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	check := func(f float64) {
		var buf [40]byte
		want, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], f, 'f', 6, 64)), 64)
		if got := Reread(f); got != want && !(got == 0 && want == 0) {
			t.Fatalf("Reread(%v) = %v, want %v", f, got, want)
		}
	}
	for i := 0; i < 1000000; i++ {
		var f float64
		switch i % 4 {
		case 0:
			f = r.Float64() * math.Pow(10, float64(r.IntN(10)))
		case 1:
			// exact ties at the 7th decimal
			f = float64(r.Int64N(4e15)) / 1e6 * 0.5
		case 2:
			f = (float64(r.Int64N(8e9)) + 0.5) / 1e6
		default:
			f = -r.Float64() * 1e3
		}
		check(f)
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 0.0000005, 0.0000015, 0.0000025, 3.9999999999e9, 1e-7, -1e-7, 0.5e-6} {
		check(f)
	}
}

// The fast path of AppendFloat writes what strconv writes.
func TestAppendFloatFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	check := func(f float64) {
		var got, want [48]byte
		if g, w := AppendFloat(got[:0], f), strconv.AppendFloat(want[:0], f, 'f', 6, 64); string(g) != string(w) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", f, g, w)
		}
	}
	for i := 0; i < 1000000; i++ {
		var f float64
		switch i % 5 {
		case 0:
			f = r.Float64() * math.Pow(10, float64(r.IntN(11)))
		case 1:
			f = float64(r.Int64N(4e15)) / 1e6 * 0.5
		case 2:
			f = (float64(r.Int64N(8e9)) + 0.5) / 1e6
		case 3:
			f = float64(r.Int64N(1<<40)) / 128 // exact ties at the 7th decimal
		default:
			f = -r.Float64() * math.Pow(10, float64(r.IntN(11)))
		}
		check(f)
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 0.0000005, 0.0000015, 1.0 / 128, 3.0 / 128, 3.9999999999e9, 4e9, 1e-7, -1e-7,
		-0.0000004, 999999.9999995, 0.9999995, math.Inf(1), math.NaN(), 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		check(f)
	}
}
