package batsimfmt

import (
	"errors"
	"fmt"
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
// compiler-rounded literals; Go's compiler rounds them the same way, and
// TestTables checks them against strconv).
var rjPow10 = [309]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
	1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
	1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39,
	1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47,
	1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55,
	1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63,
	1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71,
	1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79,
	1e80, 1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87,
	1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95,
	1e96, 1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103,
	1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111,
	1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119,
	1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127,
	1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135,
	1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143,
	1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151,
	1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159,
	1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167,
	1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
	1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183,
	1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191,
	1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199,
	1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207,
	1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215,
	1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223,
	1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231,
	1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239,
	1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247,
	1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255,
	1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263,
	1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271,
	1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
	1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287,
	1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295,
	1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303,
	1e304, 1e305, 1e306, 1e307, 1e308,
}

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
