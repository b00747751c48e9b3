package batsimfmt

import (
	"math"
	"math/big"
	"math/bits"
)

// This file writes doubles as rapidjson 1.1's Writer does (batsched's
// replies): internal::dtoa, Grisu2 digit generation with 64-bit
// significands and a table of cached powers of ten, then Prettify, which
// picks a plain or exponent notation. Grisu2 always gives digits that read
// back (correctly rounded) as the same double, but not always the shortest
// nor the closest such digits: 0.3 is written 0.3 and 5e-324 5e-324, but
// the double nearest to 98154700014.18797 is written 98154700014.18798 and
// 10000000000.000011 is written 10000000000.000012.

// diyFp is a do-it-yourself floating point number f·2^e.
type diyFp struct {
	f uint64
	e int
}

// Double's layout.
const (
	dpSignificandBits = 52
	dpExponentBias    = 0x3FF + dpSignificandBits
	dpMinExponent     = -dpExponentBias
	dpHiddenBit       = uint64(1) << dpSignificandBits
	dpSignificandMask = dpHiddenBit - 1
)

// diyOf splits a positive finite double into its integer significand and
// binary exponent (subnormals have no hidden bit).
func diyOf(v float64) diyFp {
	b := math.Float64bits(v)
	biased := int(b>>dpSignificandBits) & 0x7FF
	m := b & dpSignificandMask
	if biased != 0 {
		return diyFp{m + dpHiddenBit, biased - dpExponentBias}
	}
	return diyFp{m, dpMinExponent + 1}
}

// mul is the product of two normalized numbers, its 128-bit significand
// rounded (half up) to the upper 64 bits.
func (x diyFp) mul(y diyFp) diyFp {
	h, l := bits.Mul64(x.f, y.f)
	if l&(1<<63) != 0 {
		h++
	}
	return diyFp{h, x.e + y.e + 64}
}

// normalize shifts the significand left until its top bit is set.
func (x diyFp) normalize() diyFp {
	s := bits.LeadingZeros64(x.f)
	return diyFp{x.f << s, x.e - s}
}

// boundaries returns the midpoints to the neighbouring doubles, m- and m+,
// on m+'s normalized exponent. The lower gap is half as wide when v is a
// power of two (its significand is the hidden bit alone).
func (x diyFp) boundaries() (minus, plus diyFp) {
	plus = diyFp{x.f<<1 + 1, x.e - 1}
	for plus.f&(dpHiddenBit<<1) == 0 {
		plus.f <<= 1
		plus.e--
	}
	const extra = 64 - dpSignificandBits - 2
	plus.f <<= extra
	plus.e -= extra
	if x.f == dpHiddenBit {
		minus = diyFp{x.f<<2 - 1, x.e - 2}
	} else {
		minus = diyFp{x.f<<1 - 1, x.e - 1}
	}
	minus.f <<= minus.e - plus.e
	minus.e = plus.e
	return minus, plus
}

// cachedPowers are 10^-348, 10^-340, …, 10^340, each as a 64-bit
// significand (top bit set, rounded to nearest) and a binary exponent.
var cachedPowers = func() (t [87]diyFp) {
	ten := big.NewInt(10)
	for i := range t {
		k := -348 + 8*i
		num, den := big.NewInt(1), big.NewInt(1)
		if k >= 0 {
			num.Exp(ten, big.NewInt(int64(k)), nil)
		} else {
			den.Exp(ten, big.NewInt(int64(-k)), nil)
		}
		// f = round(num/den / 2^e), with e chosen so that f has 64 bits.
		e := num.BitLen() - den.BitLen() - 64
		for {
			n, d := new(big.Int).Set(num), new(big.Int).Set(den)
			if e >= 0 {
				d.Lsh(d, uint(e))
			} else {
				n.Lsh(n, uint(-e))
			}
			q, r := n.QuoRem(n, d, new(big.Int))
			if r.Lsh(r, 1).Cmp(d) >= 0 {
				q.Add(q, big.NewInt(1))
			}
			switch q.BitLen() {
			case 64:
				t[i] = diyFp{q.Uint64(), e}
			case 65:
				e++
				continue
			default:
				e--
				continue
			}
			break
		}
	}
	return t
}()

// cachedPower picks the cached power c that brings a number of binary
// exponent e near 2^-60…2^-32 once multiplied, and returns it with its
// decimal exponent negated (c ≈ 10^-k).
func cachedPower(e int) (c diyFp, k int) {
	dk := float64(float64(-61-e)*0.30102999566398114) + 347
	ki := int(dk)
	if dk-float64(ki) > 0 {
		ki++
	}
	index := ki>>3 + 1
	return cachedPowers[index], -(-348 + index<<3)
}

var pow10u32 = [...]uint32{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

// decimalDigits counts the digits of n, at most 9.
func decimalDigits(n uint32) int {
	for k := 1; k < 9; k++ {
		if n < pow10u32[k] {
			return k
		}
	}
	return 9
}

// grisuRound nudges the last digit down while that brings the number closer
// to w and stays inside the safe interval.
func grisuRound(buf []byte, delta, rest, tenKappa, wpw uint64) {
	for rest < wpw && delta-rest >= tenKappa &&
		(rest+tenKappa < wpw || wpw-rest > rest+tenKappa-wpw) {
		buf[len(buf)-1]--
		rest += tenKappa
	}
}

// digitGen generates the digits of a number in [wm, wp] (delta = wp-wm)
// near w into buf, and adds the decimal exponent of the last digit to k.
func digitGen(w, wp diyFp, delta uint64, buf []byte, k int) ([]byte, int) {
	shift := uint(-wp.e)
	one := uint64(1) << shift
	wpw := wp.f - w.f
	p1 := uint32(wp.f >> shift)
	p2 := wp.f & (one - 1)
	kappa := decimalDigits(p1)
	for kappa > 0 {
		div := pow10u32[kappa-1]
		d := p1 / div
		p1 %= div
		if d != 0 || len(buf) != 0 {
			buf = append(buf, byte('0'+d))
		}
		kappa--
		if rest := uint64(p1)<<shift + p2; rest <= delta {
			grisuRound(buf, delta, rest, uint64(pow10u32[kappa])<<shift, wpw)
			return buf, k + kappa
		}
	}
	for {
		p2 *= 10
		delta *= 10
		d := byte(p2 >> shift)
		if d != 0 || len(buf) != 0 {
			buf = append(buf, '0'+d)
		}
		p2 &= one - 1
		kappa--
		if p2 < delta {
			var scale uint64
			if -kappa < 9 {
				scale = uint64(pow10u32[-kappa])
			}
			grisuRound(buf, delta, p2, one, wpw*scale)
			return buf, k + kappa
		}
	}
}

// grisu2 writes the digits of a positive finite double v into buf and
// returns them with the decimal exponent of the last one.
func grisu2(v float64, buf []byte) ([]byte, int) {
	x := diyOf(v)
	wm, wp := x.boundaries()
	c, k := cachedPower(wp.e)
	w := x.normalize().mul(c)
	wp = wp.mul(c)
	wm = wm.mul(c)
	wm.f++
	wp.f--
	return digitGen(w, wp, wp.f-wm.f, buf, k)
}

// appendExponent writes a decimal exponent: a minus sign when negative, no
// plus sign, no leading zero.
func appendExponent(dst []byte, k int) []byte {
	if k < 0 {
		dst = append(dst, '-')
		k = -k
	}
	if k >= 100 {
		dst = append(dst, byte('0'+k/100))
		k %= 100
		return append(dst, byte('0'+k/10), byte('0'+k%10))
	}
	if k >= 10 {
		return append(dst, byte('0'+k/10), byte('0'+k%10))
	}
	return append(dst, byte('0'+k))
}

// prettify appends the digits (value digits·10^k) in rapidjson's notation:
// plain with at least one decimal when the value is below 10^21 and not
// below 10^-6 (1234e7 → 12340000000.0, 1234e-2 → 12.34, 1234e-6 →
// 0.001234), else d.ddde±x (1e30, 1.5e-7, 1.234e-7). With the Writer's
// 324 maximal decimal places, no rendering is ever truncated.
func prettify(dst, digits []byte, k int) []byte {
	length := len(digits)
	kk := length + k // 10^(kk-1) <= v < 10^kk
	switch {
	case 0 <= k && kk <= 21:
		dst = append(dst, digits...)
		for i := length; i < kk; i++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	case 0 < kk && kk <= 21:
		dst = append(dst, digits[:kk]...)
		dst = append(dst, '.')
		return append(dst, digits[kk:]...)
	case -6 < kk && kk <= 0:
		dst = append(dst, '0', '.')
		for i := kk; i < 0; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case length == 1:
		dst = append(dst, digits[0], 'e')
		return appendExponent(dst, kk-1)
	default:
		dst = append(dst, digits[0], '.')
		dst = append(dst, digits[1:]...)
		dst = append(dst, 'e')
		return appendExponent(dst, kk-1)
	}
}

// AppendDouble appends f as rapidjson 1.1's Writer writes a double, which
// is how batsched writes every number of its replies: "0.0" and "-0.0"
// for zeros, Grisu2's digits (round-trip safe, usually the shortest) in
// plain notation from 1e-6 to below 1e21 with at least one decimal
// (1.0, 10000000000.000048, 0.000123), in exponent notation elsewhere
// (1e21, 1.5e-7, 5e-324). rapidjson's Writer refuses NaN and the
// infinities; they are written as its kWriteNanAndInfFlag option spells
// them (NaN, Infinity, -Infinity).
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			dst = append(dst, '-')
		}
		return append(dst, '0', '.', '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [24]byte
	digits, k := grisu2(f, buf[:0])
	return prettify(dst, digits, k)
}

// Double is AppendDouble as a string.
func Double(f float64) string {
	var buf [32]byte
	return string(AppendDouble(buf[:0], f))
}

// RereadDouble returns the double Batsim reads where a scheduler writing like
// batsched wrote f: ParseDouble of AppendDouble. It is f itself for most
// values but not all (rapidjson's reader is not correctly rounded). NaN
// and the infinities are returned as they are.
func RereadDouble(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	var buf [32]byte
	v, err := ParseDouble(AppendDouble(buf[:0], f))
	if err != nil {
		return f // unreachable: AppendDouble writes valid literals
	}
	return v
}
