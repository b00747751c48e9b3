package batsimfmt

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The emulation of rapidjson's number reader and writer is checked two
// ways: against testdata/rapidjson_vectors.txt, answers of the real
// rapidjson recorded once (no C++ needed), and, when g++ and rapidjson's
// headers are present, against a freshly compiled reference program
// (testdata/rjoracle.cpp) on a large seeded corpus.

var updateVectors = flag.Bool("update-rapidjson-vectors", false, "rewrite testdata/rapidjson_vectors.txt from the compiled rapidjson reference")

const vectorsFile = "testdata/rapidjson_vectors.txt"

// hardLiterals are literals at the edges of rapidjson's reader.
var hardLiterals = append([]string{
	// Batsim's times: 1e10 and more with microseconds (%f, 17-18 digits).
	"10000000000.000048", "10000000000.000047", "10000000000.000046", "10000000000.000001",
	"9999999999.999999", "99999999999.999999", "999999999999.999999", "123456789012.345678",
	"4503599627.370497", "9007199254.740993", "9007199254.740992", "9007199254.740991",
	"1000000000000.000001", "0.000001", "0.000000", "-0.000000", "1.500000",
	// 17 to 25 significant digits.
	"1.2345678901234567", "1.23456789012345678", "12345678901234567.8", "1234567890123456789.0",
	"0.12345678901234567890123", "9.999999999999999999999", "1.0000000000000000000001",
	"3.1415926535897932384626", "2.7182818284590452353602874",
	// Around 2^53.
	"9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
	"9007199254740991.5", "9007199254740992.5", "9007199254740993.5", "900719925474099.35",
	"-9007199254740993", "-9007199254740993.0", "18014398509481985", "18014398509481987.0",
	// uint64, int64 and beyond.
	"4294967295", "4294967296", "-2147483648", "-2147483649",
	"9223372036854775807", "9223372036854775808", "9223372036854775809",
	"-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "18446744073709551615.0",
	"10000000000000000000", "99999999999999999999", "100000000000000000000",
	"12345678901234567890", "12345678901234567890123", "-12345678901234567890",
	"18446744073709551615e0", "1844674407370955161.5", "18446744073709551615.5",
	// Signs and zeros.
	"0", "-0", "0.0", "-0.0", "0e0", "-0e0", "0e-400", "0e308", "0.000000000000000000000000",
	"-1", "-1.5", "-1e-7", "-123.456",
	// Small and decimal fractions.
	"0.1", "0.2", "0.3", "0.7", "1e-7", "1.5e-7", "5e-7", "0.0000001", "1.7976931348623157e-7",
	"0.01", "0.001", "0.0001", "0.00001", "0.000001", "0.0000001",
	// Exponents near the limits.
	"1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.8e308", "9e308", "1e309",
	"10e307", "0.1e309", "0.001e310", "1e-308", "2.2250738585072014e-308", "2.2250738585072011e-308",
	"1e-320", "4.9406564584124654e-324", "5e-324", "2.4703282292062328e-324", "2e-324", "1e-400",
	"1e-615", "1e-616", "1e-617", "123456789e-620", "1E+2", "1e+308", "1e00308", "1e-2147483648",
	"1e-99999999999999999999", "0.5e-323", "1234567890123456789e-330",
	// Longer than what fits in any accumulator.
	"123456789012345678901234567890123456789012345678901234567890",
	"0.00000000000000000000000000000000000000001234567890123456789",
	// Malformed.
	"-", "+1", "01", "1.", "1.e5", ".5", "1e", "1e+", "1e-", "--1", "1x", "1.5.5", "NaN", "Infinity",
	"-Infinity", "1e1.5", "0x10", "00", "-01",
},
	// Integer parts of 309 and 310 digits, around rapidjson's DBL_MAX/10
	// limit.
	"1"+strings.Repeat("0", 308), "17"+strings.Repeat("9", 307), "18"+strings.Repeat("0", 307),
	"1"+strings.Repeat("0", 309), "-9"+strings.Repeat("9", 308)+".5",
)

// hardDoubles are doubles at the edges of Grisu2 and of Prettify's
// notations.
func hardDoubles() []float64 {
	ds := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e-7, 1.5e-7, 1e-6, 1.5e-6,
		9.999999999999999e-7, 1e20, 1e21, 1e22, 123456789012345678901.0, 1e23, 1e30, 1.5e300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 2 * math.SmallestNonzeroFloat64, 0x1p-1022,
		math.Nextafter(0x1p-1022, 0), 0x1p-1074 * 3, 1e10 + 0.000048, 1e10 + 0.000047, 31.123457,
		9007199254740991, 9007199254740992, 9007199254740994, 1 << 62, 1 << 63, 18446744073709551615.0,
		5e-324, 1.7976931348623157e308, 4.35, 0.000123, 1234.5678, 100, 1e15, 1e16, 1e17,
	}
	for e := -1074; e <= 1023; e++ {
		ds = append(ds, math.Ldexp(1, e), math.Nextafter(math.Ldexp(1, e), math.Inf(1)))
	}
	for k := -323; k <= 308; k++ {
		p, _ := strconv.ParseFloat("1e"+strconv.Itoa(k), 64)
		ds = append(ds, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)))
	}
	return ds
}

// randomLiteral draws a literal of one of the kinds Batsim and batsched
// exchange: "%f" times, integers, and digit strings with exponents.
func randomLiteral(r *rand.Rand) string {
	var b []byte
	digits := func(n int, lead bool) {
		for i := 0; i < n; i++ {
			d := byte('0' + r.IntN(10))
			if i == 0 && lead && d == '0' {
				d = byte('1' + r.IntN(9))
			}
			b = append(b, d)
		}
	}
	if r.IntN(8) == 0 {
		b = append(b, '-')
	}
	switch r.IntN(6) {
	case 0, 1: // a "%f" time below 1e12
		v := r.Float64() * math.Pow(10, float64(r.IntN(13)))
		b = strconv.AppendFloat(b, v, 'f', 6, 64)
	case 2: // a "%f" time built digit by digit, integer part of 1 to 13 digits
		n := 1 + r.IntN(13)
		if n == 1 {
			b = append(b, byte('0'+r.IntN(10)))
		} else {
			digits(n, true)
		}
		b = append(b, '.')
		digits(6, false)
	case 3: // an integer of 1 to 25 digits
		n := 1 + r.IntN(25)
		if n == 1 {
			b = append(b, byte('0'+r.IntN(10)))
		} else {
			digits(n, true)
		}
	case 4: // a number close to 2^53, 2^63 or 2^64, or an exact double
		switch r.IntN(3) {
		case 0:
			bases := []uint64{1 << 53, 1 << 63, math.MaxUint64 - 100}
			v := bases[r.IntN(len(bases))] + uint64(r.IntN(200)) - 100
			b = strconv.AppendUint(b, v, 10)
		case 1:
			v := math.Float64frombits(r.Uint64() &^ (1 << 63))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 1
			}
			b = strconv.AppendFloat(b, v, 'e', r.IntN(25), 64)
		default:
			b = strconv.AppendFloat(b, float64(r.Int64N(1<<60))/math.Pow(10, float64(r.IntN(20))), 'f', -1, 64)
		}
	default: // digits, a fraction, an exponent
		n := 1 + r.IntN(30)
		if r.IntN(3) == 0 {
			b = append(b, '0')
		} else {
			digits(n, true)
		}
		if r.IntN(2) == 0 {
			b = append(b, '.')
			digits(1+r.IntN(30), false)
		}
		if r.IntN(4) != 0 {
			b = append(b, "eE"[r.IntN(2)])
			switch r.IntN(3) {
			case 0:
				b = append(b, '+')
			case 1:
				b = append(b, '-')
			}
			b = strconv.AppendInt(b, int64(r.IntN(340)), 10)
		}
	}
	return string(b)
}

// randomDouble draws a double: any finite bit pattern, a "%f" time, or a
// time with a binary fraction.
func randomDouble(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		for {
			v := math.Float64frombits(r.Uint64())
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				return v
			}
		}
	case 1:
		v, _ := strconv.ParseFloat(strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(13))), 'f', 6, 64), 64)
		return v
	default:
		return math.Ldexp(float64(r.Int64N(1<<53)), -r.IntN(60))
	}
}

// errorName names err as the reference program does.
func errorName(err error) string {
	switch {
	case errors.Is(err, ErrNumberInvalid):
		return "invalid"
	case errors.Is(err, ErrNumberTooBig):
		return "too-big"
	case errors.Is(err, ErrNumberMissFraction):
		return "miss-fraction"
	case errors.Is(err, ErrNumberMissExponent):
		return "miss-exponent"
	case errors.Is(err, ErrNumberTrailing):
		return "trailing"
	}
	return "other"
}

// parseAnswer is the emulation's answer to a "p" request.
func parseAnswer(lit string) string {
	n, err := parseRJ(lit)
	if err != nil {
		return "e " + errorName(err)
	}
	kind := 'd'
	if n.isInt {
		kind = 'i'
	}
	return fmt.Sprintf("%c %016x", kind, math.Float64bits(n.double()))
}

// request is one question to rapidjson and the emulation's answer.
type request struct{ q, want string }

func parseRequest(lit string) request { return request{"p " + lit, parseAnswer(lit)} }

func writeRequest(f float64) request {
	return request{fmt.Sprintf("w %016x", math.Float64bits(f)), Double(f)}
}

// corpus returns the hard cases (the hard doubles one in every
// `every`) followed by n random literals and n random doubles (and the
// doubles the literals read as).
func corpus(seed uint64, n, every int) []request {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var reqs []request
	for _, lit := range hardLiterals {
		reqs = append(reqs, parseRequest(lit))
		if v, err := ParseDouble(lit); err == nil && !math.IsInf(v, 0) {
			reqs = append(reqs, writeRequest(v))
		}
	}
	for i, f := range hardDoubles() {
		if i%every == 0 {
			reqs = append(reqs, writeRequest(f), parseRequest(Double(f)))
		}
	}
	for i := 0; i < n; i++ {
		lit := randomLiteral(r)
		reqs = append(reqs, parseRequest(lit))
		if v, err := ParseDouble(lit); err == nil && !math.IsInf(v, 0) && i%4 == 0 {
			reqs = append(reqs, writeRequest(v))
		}
		f := randomDouble(r)
		reqs = append(reqs, writeRequest(f), parseRequest(Double(f)))
	}
	return reqs
}

// oracle compiles the reference program, or skips the test when g++ or
// rapidjson's headers are missing.
func oracle(t *testing.T) string {
	t.Helper()
	inc := os.Getenv("RAPIDJSON_INCLUDE")
	if inc == "" {
		inc = "/usr/include"
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("rapidjson reference not built: no g++ on PATH")
	}
	if _, err := os.Stat(filepath.Join(inc, "rapidjson", "reader.h")); err != nil {
		t.Skipf("rapidjson reference not built: no %s/rapidjson/reader.h (set RAPIDJSON_INCLUDE to the directory holding rapidjson/)", inc)
	}
	bin := filepath.Join(t.TempDir(), "rjoracle")
	cmd := exec.Command(gxx, "-O2", "-ffp-contract=off", "-w", "-I", inc, "-o", bin, filepath.Join("testdata", "rjoracle.cpp"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the rapidjson reference: %v\n%s", err, out)
	}
	return bin
}

// ask runs the reference program on the requests and returns its answers.
func ask(t *testing.T, bin string, reqs []request) []string {
	t.Helper()
	var in bytes.Buffer
	for _, q := range reqs {
		in.WriteString(q.q)
		in.WriteByte('\n')
	}
	cmd := exec.Command(bin)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rapidjson reference: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(reqs) {
		t.Fatalf("rapidjson reference answered %d lines to %d requests", len(lines), len(reqs))
	}
	return lines
}

// check compares the emulation's answers with rapidjson's.
func check(t *testing.T, reqs []request, answers []string) {
	t.Helper()
	bad := 0
	for i, q := range reqs {
		if q.want != answers[i] {
			if bad++; bad <= 20 {
				t.Errorf("%s: rapidjson %q, emulation %q", q.q, answers[i], q.want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d answers differ", bad, len(reqs))
	}
}

// TestRapidjsonReference compares the emulation with the real rapidjson on
// the hard cases and 200000 random literals and doubles.
func TestRapidjsonReference(t *testing.T) {
	bin := oracle(t)
	reqs := corpus(1, 200000, 1)
	check(t, reqs, ask(t, bin, reqs))
	if *updateVectors && !t.Failed() {
		writeVectors(t, bin)
	}
}

// writeVectors records rapidjson's answers to the hard cases and a few
// thousand random requests.
func writeVectors(t *testing.T, bin string) {
	reqs := corpus(2, 800, 8)
	answers := ask(t, bin, reqs)
	var b bytes.Buffer
	b.WriteString("# rapidjson 1.1 answers, recorded with testdata/rjoracle.cpp (go test -run TestRapidjsonReference -update-rapidjson-vectors).\n")
	b.WriteString("# p LITERAL => kind and GetDouble() bits, or parse error; w BITS => Writer::Double text.\n")
	for i, q := range reqs {
		fmt.Fprintf(&b, "%s => %s\n", q.q, answers[i])
	}
	if err := os.WriteFile(vectorsFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d vectors to %s", len(reqs), vectorsFile)
}

// TestRapidjsonVectors checks the emulation against rapidjson's recorded
// answers.
func TestRapidjsonVectors(t *testing.T) {
	f, err := os.Open(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reqs []request
	var answers []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		q, a, ok := strings.Cut(line, " => ")
		if !ok || len(q) < 2 {
			t.Fatalf("bad vector line %q", line)
		}
		arg := q[2:]
		switch q[0] {
		case 'p':
			reqs = append(reqs, parseRequest(arg))
		case 'w':
			u, err := strconv.ParseUint(arg, 16, 64)
			if err != nil {
				t.Fatalf("bad vector line %q", line)
			}
			reqs = append(reqs, writeRequest(math.Float64frombits(u)))
		default:
			t.Fatalf("bad vector line %q", line)
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(reqs) < 2000 {
		t.Fatalf("only %d vectors in %s", len(reqs), vectorsFile)
	}
	check(t, reqs, answers)
}

// The cached powers are those of rapidjson's table, when its headers are
// at hand.
func TestCachedPowersTable(t *testing.T) {
	inc := os.Getenv("RAPIDJSON_INCLUDE")
	if inc == "" {
		inc = "/usr/include"
	}
	src, err := os.ReadFile(filepath.Join(inc, "rapidjson", "internal", "diyfp.h"))
	if err != nil {
		t.Skipf("rapidjson's table not checked: %v (set RAPIDJSON_INCLUDE)", err)
	}
	s := string(src)
	i := strings.Index(s, "kCachedPowers_F[]")
	j := strings.Index(s, "kCachedPowers_E[]")
	k := strings.Index(s[j:], "};")
	if i < 0 || j < i || k < 0 {
		t.Fatal("no cached powers table in diyfp.h")
	}
	var fs []uint64
	for _, m := range strings.Split(s[i:j], "RAPIDJSON_UINT64_C2(")[1:] {
		hi, lo, _ := strings.Cut(m[:strings.Index(m, ")")], ",")
		h, err1 := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(hi), "0x"), 16, 32)
		l, err2 := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(lo), "0x"), 16, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot read %q", m)
		}
		fs = append(fs, h<<32|l)
	}
	var es []int
	body := s[j+strings.Index(s[j:], "{")+1 : j+k]
	for _, f := range strings.FieldsFunc(body, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		e, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("cannot read exponent %q", f)
		}
		es = append(es, e)
	}
	if len(fs) != len(cachedPowers) || len(es) != len(cachedPowers) {
		t.Fatalf("rapidjson has %d/%d cached powers, we have %d", len(fs), len(es), len(cachedPowers))
	}
	for i, c := range cachedPowers {
		if c.f != fs[i] || c.e != es[i] {
			t.Errorf("cached power %d (10^%d): %#x·2^%d, rapidjson %#x·2^%d", i, -348+8*i, c.f, c.e, fs[i], es[i])
		}
	}
}

// A few renderings and readings, as rapidjson gives them.
func TestRapidjsonExamples(t *testing.T) {
	writes := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {0.3, "0.3"},
		{123456, "123456.0"}, {1e20, "100000000000000000000.0"}, {1e21, "1e21"}, {1e30, "1e30"},
		{1.5e-7, "1.5e-7"}, {1e-6, "0.000001"}, {0.000123, "0.000123"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e308"}, {98154700014.18797, "98154700014.18798"},
		{10000000000.000011, "10000000000.000012"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
	}
	for _, c := range writes {
		if got := string(AppendDouble([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("AppendDouble(%v) = %s, want x%s", c.in, got, c.want)
		}
	}
	reads := []struct {
		in   string
		want float64
	}{
		{"10000000000.000001", 1e10}, {"10000000000.000005", 10000000000.000004}, {"10000000000.000021", 10000000000.00002},
		{"-0", 0}, {"-0.0", math.Copysign(0, -1)}, {"5", 5}, {"0.1", 0.1}, {"9e308", math.Inf(1)},
		{"1e-400", 0}, {"123456789012345678901", 123456789012345670000},
	}
	for _, c := range reads {
		got, err := ParseDouble(c.in)
		if err != nil || math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("ParseDouble(%s) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if got2, err2 := ParseDouble([]byte(c.in)); math.Float64bits(got2) != math.Float64bits(got) || (err2 == nil) != (err == nil) {
			t.Errorf("ParseDouble([]byte(%s)) = %v, %v; the string form gives %v, %v", c.in, got2, err2, got, err)
		}
	}
	// Written 10000000000.000021, read back one unit in the last place
	// lower.
	if v := RereadDouble(10000000000.000021); v != 10000000000.00002 {
		t.Errorf("RereadDouble(10000000000.000021) = %v, want 10000000000.00002", v)
	}
	for _, f := range []float64{0, 1, 0.1, 1e10 + 0.5, math.Inf(1)} {
		if v := RereadDouble(f); v != f {
			t.Errorf("RereadDouble(%v) = %v", f, v)
		}
	}
}

func BenchmarkParseDouble(b *testing.B) {
	lits := [][]byte{[]byte("10000000123.456789"), []byte("42.5"), []byte("7"), []byte("1e9")}
	for i := 0; i < b.N; i++ {
		_, _ = ParseDouble(lits[i&3])
	}
}

func BenchmarkAppendDouble(b *testing.B) {
	fs := []float64{10000000123.456789, 42.5, 7, 1.5e-7}
	var buf [32]byte
	for i := 0; i < b.N; i++ {
		_ = AppendDouble(buf[:0], fs[i&3])
	}
}
