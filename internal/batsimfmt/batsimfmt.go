// Package batsimfmt holds Batsim's spelling of JSON values, as Batsim 4.2.1
// writes them on the wire and in its output files: rapidjson's compact
// Writer for strings and integers, and Batsim's override for doubles, C's
// "%f" (fixed notation, exactly 6 decimals). It also holds how the C++ side
// reads and writes numbers with rapidjson 1.1: ParseDouble is the double
// Batsim (reading a workload or a scheduler's reply) and batsched (reading
// Batsim's messages) get from a JSON number, which is not always the
// correctly rounded one; AppendDouble is how batsched writes the numbers
// of its replies.
//
// protocol (the messages Batsim sends), workloads (the job and profile
// descriptions Batsim forwards) and sim (Batsim's messages and CSV outputs)
// all write through it, so that the three agree to the byte, and read
// numbers through it, so that they hold the doubles Batsim and batsched
// hold.
package batsimfmt

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxFloatLen is the longest "%f" rendering Batsim can write: its buffer
// holds 32 bytes, the terminating NUL included. A longer one (|x| ≥ 1e25
// roughly) makes Batsim fail.
const MaxFloatLen = 31

// AppendFloat appends f as Batsim writes a double: C's "%f", fixed notation
// with exactly 6 decimals, rounded half to even on the exact binary value
// as glibc does (31.1234567891 → 31.123457, 1e10+0.000046 →
// 10000000000.000046, 1e-7 → 0.000000, -0.0 → -0.000000). NaN and the
// infinities are written as Go spells them ("NaN", "+Inf", "-Inf"); Batsim
// never writes them, and its readers refuse them.
func AppendFloat(b []byte, f float64) []byte {
	a := math.Abs(f)
	if !(a < 4e9) {
		return strconv.AppendFloat(b, f, 'f', 6, 64)
	}
	// Fast path: the integer number of millionths, then its digits.
	n := uint64(micros(a))
	if math.Signbit(f) {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, n/1e6, 10)
	frac := n % 1e6
	var d [7]byte
	d[0] = '.'
	for i := 6; i > 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, d[:]...)
}

// micros is a·10^6 rounded to an integer, half to even on the exact
// product, for 0 ≤ a < 4e9: the digits of a's "%f" rendering.
func micros(a float64) float64 {
	hi := a * 1e6
	lo := math.FMA(a, 1e6, -hi) // hi + lo = a·10^6 exactly
	n := math.RoundToEven(hi)
	if d := hi - n; d == 0.5 && lo > 0 {
		n++
	} else if d == -0.5 && lo < 0 {
		n--
	}
	return n
}

// Float is AppendFloat as a string.
func Float(f float64) string {
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// Reread returns f as a scheduler reading Batsim's messages with
// rapidjson (batsched) holds it: ParseDouble of its Float rendering. NaN
// and the infinities are returned as they are.
func Reread(f float64) float64 {
	if a := math.Abs(f); a < 4e9 {
		// Fast path: the decimal rounding of the exact product f·10^6 to
		// an integer n (half to even, as glibc rounds), then n/10^6. Below
		// 2^53 rapidjson reads the 6-decimal text exactly so: the integer
		// n from its digits, then one correctly rounded division by 10^6.
		return math.Copysign(micros(a), f) / 1e6
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	var buf [48]byte
	v, err := ParseDouble(AppendFloat(buf[:0], f))
	if err != nil {
		return f // unreachable: "%f" renderings of finite doubles are valid literals
	}
	return v
}

const upperHex = "0123456789ABCDEF"

// shortEscape is the letter rapidjson writes after a backslash for the
// characters it escapes with one (0: no short escape).
var shortEscape = [256]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// AppendString appends s as a JSON string escaped like rapidjson's Writer:
// \" \\ \b \f \n \r \t, the other control characters as \u00XX (upper-case
// hexadecimal), everything else (including '/', DEL and non-ASCII UTF-8,
// valid or not) as is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case shortEscape[c] != 0:
			b = append(b, '\\', shortEscape[c])
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Number is a JSON number literal as rapidjson reads it: an integer when
// the literal has no fraction and no exponent and fits in int64 (negative)
// or uint64 (non-negative), a double otherwise.
type Number struct {
	IsInt bool
	// Neg is true for a negative integer ("-0" is the integer 0, not
	// negative).
	Neg bool
	// Magnitude is the absolute value of an integer.
	Magnitude uint64
	// Float is the value as Batsim's GetDouble returns it (integers
	// included): ParseDouble's result.
	Float float64
}

// ParseNumber classifies a JSON number literal as rapidjson does. It fails
// where rapidjson fails (a malformed literal, or "number too big to be
// stored in double": 1e400, an integer part beyond 1.8e308) and where
// rapidjson's value overflows to an infinity (9e308), which Batsim could
// not use.
func ParseNumber(lit string) (Number, error) {
	var n Number
	rn, err := parseRJ(lit)
	if errors.Is(err, ErrNumberTooBig) {
		return n, fmt.Errorf("number %s is out of range: %w", lit, err)
	} else if err != nil {
		return n, fmt.Errorf("number %s: %w", lit, err)
	}
	n.IsInt, n.Neg, n.Magnitude, n.Float = rn.isInt, rn.neg, rn.mag, rn.double()
	if math.IsInf(n.Float, 0) {
		return Number{}, fmt.Errorf("number %s is out of range: rapidjson reads it as %v", lit, n.Float)
	}
	return n, nil
}

// NumberOf is ParseNumber without the error: ok is false where ParseNumber
// fails. It takes the literal as a string or as bytes, and allocates
// nothing (the readers of large files call it for every number).
func NumberOf[T string | []byte](lit T) (n Number, ok bool) {
	rn, err := parseRJ(lit)
	if err != nil {
		return n, false
	}
	n.IsInt, n.Neg, n.Magnitude, n.Float = rn.isInt, rn.neg, rn.mag, rn.double()
	if math.IsInf(n.Float, 0) {
		return Number{}, false
	}
	return n, true
}

// AppendNumber appends the JSON number literal lit as Batsim re-emits a
// number it has read: an integer as an integer ("-0" becomes "0"), any
// other number with AppendFloat (1.5 → 1.500000, 1e20 →
// 100000000000000000000.000000). It fails when the literal is out of range
// or when its "%f" rendering is longer than MaxFloatLen (Batsim fails then).
func AppendNumber(b []byte, lit string) ([]byte, error) {
	n, err := ParseNumber(lit)
	if err != nil {
		return b, err
	}
	if n.IsInt {
		if n.Neg {
			b = append(b, '-')
		}
		return strconv.AppendUint(b, n.Magnitude, 10), nil
	}
	start := len(b)
	b = AppendFloat(b, n.Float)
	if l := len(b) - start; l > MaxFloatLen {
		return b[:start], fmt.Errorf("number %s is too large for Batsim (its %%f rendering has %d characters, at most %d fit)", lit, l, MaxFloatLen)
	}
	return b, nil
}
