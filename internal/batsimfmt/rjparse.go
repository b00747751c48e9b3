package batsimfmt

import (
	"errors"
	"fmt"
	"strconv"
)

// This file reads JSON numbers as rapidjson 1.1 does with its default
// parse flags (no kParseFullPrecisionFlag), the reader of Batsim 4.2.1 and
// of batsched. That reader is not correctly rounded: it accumulates the
// digits in an integer while that stays below 2^53 (one more digit may take
// it up to 10·2^53, then rounded to a double), the next ones by
// double-precision multiply-adds up to 17 significant digits, ignores the
// rest, then scales by one or two powers of ten from a table of doubles.
// With 16 significant digits or more, or a power of ten beyond 10^±22 (the
// inexact ones), the result may be a unit in the last place away from the
// correctly rounded double strconv.ParseFloat returns:
// Batsim's time 10000000000.000001 reads as 1e10, not 10000000000.000002.
// Everything here reproduces it bit for bit.

// rjPow10 holds 10^0 … 10^308 as the nearest doubles (rapidjson's table of
// compiler-rounded literals; strconv rounds them the same way).
var rjPow10 = func() (t [309]float64) {
	for i := range t {
		f, err := strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
		if err != nil {
			panic(err)
		}
		t[i] = f
	}
	return t
}()

// The limits of rapidjson's number reader.
const (
	rjMaxSafe       = 1<<53 - 1              // fraction digits go to the integer significand up to here
	rjUint64Cut     = 0x1999999999999999     // a non-negative integer leaves uint64 above 10·this+5
	rjNegCut        = 0x0CCCCCCCCCCCCCCC     // a negative integer leaves int64 above 10·this+8
	rjBigIntCeiling = 1.7976931348623157e307 // DBL_MAX/10: a longer integer part is "too big"
	rjExpSaturation = 214748364              // a negative exponent stops growing here
	rjMaxDigits     = 17                     // significant digits kept in the double significand
	rjMaxExp10      = 308                    // the largest power of ten in the table
)

// The errors rapidjson reports on a number (its kParseError… codes).
var (
	ErrNumberInvalid      = errors.New("invalid value")                              // kParseErrorValueInvalid
	ErrNumberTooBig       = errors.New("number too big to be stored in double")      // kParseErrorNumberTooBig
	ErrNumberMissFraction = errors.New("missing fraction part in number")            // kParseErrorNumberMissFraction
	ErrNumberMissExponent = errors.New("missing exponent in number")                 // kParseErrorNumberMissExponent
	ErrNumberTrailing     = errors.New("the number is followed by other characters") // kParseErrorDocumentRootNotSingular (or a missing comma)
)

// rjNumber is a number as rapidjson's reader hands it to the document: an
// integer (Int, Uint, Int64 or Uint64 of magnitude mag) or a double.
type rjNumber struct {
	isInt bool
	neg   bool // a negative integer (never for "-0", which is the integer 0)
	mag   uint64
	d     float64
}

// double is what Value::GetDouble returns for the number: the double
// itself, or the integer converted to the nearest double.
func (n rjNumber) double() float64 {
	if !n.isInt {
		return n.d
	}
	if n.neg {
		return -float64(n.mag) // rounding is symmetric: -(nearest to mag) is the nearest to -mag
	}
	return float64(n.mag)
}

// ParseDouble reads a JSON number literal (the whole of s, no spaces) and
// returns, bit for bit, the double that rapidjson 1.1's Document::Parse with
// default flags followed by GetDouble gives: what Batsim 4.2.1 and batsched
// hold after reading it. Integers ("5", "-0", "18446744073709551615") come
// out as the nearest double ("-0" is +0: rapidjson reads it as the integer
// 0); a literal that overflows is +Inf or -Inf, as rapidjson lets it be
// (9e308), except where rapidjson refuses it with ErrNumberTooBig (1e309,
// an integer of 310 digits). Malformed literals give the error rapidjson
// reports.
func ParseDouble[T string | []byte](s T) (float64, error) {
	n, err := parseRJ(s)
	if err != nil {
		return 0, err
	}
	return n.double(), nil
}

// parseRJ follows rapidjson's GenericReader::ParseNumber on s.
func parseRJ[T string | []byte](s T) (rjNumber, error) {
	var n rjNumber
	i := 0
	digitAt := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

	minus := i < len(s) && s[i] == '-'
	if minus {
		i++
	}

	// Integer part: "0" or a digit 1-9 followed by digits, accumulated
	// exactly while it fits (uint64, or int64 for a negative number).
	var (
		u           uint64
		d           float64
		useDouble   bool
		significand int // digits kept, the first one excepted
	)
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		u = uint64(s[i] - '0')
		i++
		cut, last := uint64(rjUint64Cut), byte('5')
		if minus {
			cut, last = rjNegCut, '8'
		}
		for digitAt(i) {
			if u >= cut && (u != cut || s[i] > last) {
				d = float64(u)
				useDouble = true
				break
			}
			u = u*10 + uint64(s[i]-'0')
			significand++
			i++
		}
	default:
		return n, fmt.Errorf("%q: %w", string(s), ErrNumberInvalid)
	}

	// The rest of a too long integer part goes to the double, unbounded in
	// digits but not in value.
	if useDouble {
		for digitAt(i) {
			if d >= rjBigIntCeiling {
				return n, fmt.Errorf("%q: %w", string(s), ErrNumberTooBig)
			}
			d = float64(d*10) + float64(s[i]-'0')
			i++
		}
	}

	// Fraction: the integer significand takes digits while it is at most
	// 2^53-1, then the double takes them up to 17 significant digits; the
	// others are skipped.
	expFrac := 0
	if i < len(s) && s[i] == '.' {
		i++
		if !digitAt(i) {
			return n, fmt.Errorf("%q: %w", string(s), ErrNumberMissFraction)
		}
		if !useDouble {
			for digitAt(i) && u <= rjMaxSafe {
				u = u*10 + uint64(s[i]-'0')
				expFrac--
				if u != 0 {
					significand++
				}
				i++
			}
			d = float64(u)
			useDouble = true
		}
		for ; digitAt(i); i++ {
			if significand < rjMaxDigits {
				d = float64(d*10) + float64(s[i]-'0')
				expFrac--
				if d > 0 {
					significand++
				}
			}
		}
	}

	// Exponent.
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if !useDouble {
			d = float64(u)
			useDouble = true
		}
		expMinus := false
		if i < len(s) && s[i] == '+' {
			i++
		} else if i < len(s) && s[i] == '-' {
			expMinus = true
			i++
		}
		if !digitAt(i) {
			return n, fmt.Errorf("%q: %w", string(s), ErrNumberMissExponent)
		}
		exp = int(s[i] - '0')
		i++
		if expMinus {
			for ; digitAt(i); i++ {
				if exp < rjExpSaturation {
					exp = exp*10 + int(s[i]-'0')
				}
			}
			exp = -exp
		} else {
			maxExp := rjMaxExp10 - expFrac
			for ; digitAt(i); i++ {
				exp = exp*10 + int(s[i]-'0')
				if exp > maxExp {
					return n, fmt.Errorf("%q: %w", string(s), ErrNumberTooBig)
				}
			}
		}
	}
	if i != len(s) {
		return n, fmt.Errorf("%q: %w", string(s), ErrNumberTrailing)
	}

	if !useDouble {
		n.isInt, n.neg, n.mag = true, minus && u != 0, u
		return n, nil
	}
	d = rjScale(d, exp+expFrac)
	if minus {
		d = -d
	}
	n.d = d
	return n, nil
}

// rjScale is rapidjson's StrtodNormalPrecision: d·10^p by one
// multiplication or division by a table power, or two divisions below
// 10^-308.
func rjScale(d float64, p int) float64 {
	if p < -rjMaxExp10 {
		d = rjFastPath(d, -rjMaxExp10)
		return rjFastPath(d, p+rjMaxExp10)
	}
	return rjFastPath(d, p)
}

func rjFastPath(d float64, p int) float64 {
	switch {
	case p < -rjMaxExp10:
		return 0
	case p >= 0:
		return d * rjPow10[p]
	default:
		return d / rjPow10[-p]
	}
}
