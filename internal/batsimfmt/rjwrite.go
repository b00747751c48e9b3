package batsimfmt

import (
	"math"
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
// significand (top bit set, rounded to nearest) and a binary exponent
// (TestTables computes them again).
var cachedPowers = [87]diyFp{
	{0xfa8fd5a0081c0288, -1220}, {0xbaaee17fa23ebf76, -1193}, {0x8b16fb203055ac76, -1166},
	{0xcf42894a5dce35ea, -1140}, {0x9a6bb0aa55653b2d, -1113}, {0xe61acf033d1a45df, -1087},
	{0xab70fe17c79ac6ca, -1060}, {0xff77b1fcbebcdc4f, -1034}, {0xbe5691ef416bd60c, -1007},
	{0x8dd01fad907ffc3c, -980}, {0xd3515c2831559a83, -954}, {0x9d71ac8fada6c9b5, -927},
	{0xea9c227723ee8bcb, -901}, {0xaecc49914078536d, -874}, {0x823c12795db6ce57, -847},
	{0xc21094364dfb5637, -821}, {0x9096ea6f3848984f, -794}, {0xd77485cb25823ac7, -768},
	{0xa086cfcd97bf97f4, -741}, {0xef340a98172aace5, -715}, {0xb23867fb2a35b28e, -688},
	{0x84c8d4dfd2c63f3b, -661}, {0xc5dd44271ad3cdba, -635}, {0x936b9fcebb25c996, -608},
	{0xdbac6c247d62a584, -582}, {0xa3ab66580d5fdaf6, -555}, {0xf3e2f893dec3f126, -529},
	{0xb5b5ada8aaff80b8, -502}, {0x87625f056c7c4a8b, -475}, {0xc9bcff6034c13053, -449},
	{0x964e858c91ba2655, -422}, {0xdff9772470297ebd, -396}, {0xa6dfbd9fb8e5b88f, -369},
	{0xf8a95fcf88747d94, -343}, {0xb94470938fa89bcf, -316}, {0x8a08f0f8bf0f156b, -289},
	{0xcdb02555653131b6, -263}, {0x993fe2c6d07b7fac, -236}, {0xe45c10c42a2b3b06, -210},
	{0xaa242499697392d3, -183}, {0xfd87b5f28300ca0e, -157}, {0xbce5086492111aeb, -130},
	{0x8cbccc096f5088cc, -103}, {0xd1b71758e219652c, -77}, {0x9c40000000000000, -50},
	{0xe8d4a51000000000, -24}, {0xad78ebc5ac620000, 3}, {0x813f3978f8940984, 30},
	{0xc097ce7bc90715b3, 56}, {0x8f7e32ce7bea5c70, 83}, {0xd5d238a4abe98068, 109},
	{0x9f4f2726179a2245, 136}, {0xed63a231d4c4fb27, 162}, {0xb0de65388cc8ada8, 189},
	{0x83c7088e1aab65db, 216}, {0xc45d1df942711d9a, 242}, {0x924d692ca61be758, 269},
	{0xda01ee641a708dea, 295}, {0xa26da3999aef774a, 322}, {0xf209787bb47d6b85, 348},
	{0xb454e4a179dd1877, 375}, {0x865b86925b9bc5c2, 402}, {0xc83553c5c8965d3d, 428},
	{0x952ab45cfa97a0b3, 455}, {0xde469fbd99a05fe3, 481}, {0xa59bc234db398c25, 508},
	{0xf6c69a72a3989f5c, 534}, {0xb7dcbf5354e9bece, 561}, {0x88fcf317f22241e2, 588},
	{0xcc20ce9bd35c78a5, 614}, {0x98165af37b2153df, 641}, {0xe2a0b5dc971f303a, 667},
	{0xa8d9d1535ce3b396, 694}, {0xfb9b7cd9a4a7443c, 720}, {0xbb764c4ca7a44410, 747},
	{0x8bab8eefb6409c1a, 774}, {0xd01fef10a657842c, 800}, {0x9b10a4e5e9913129, 827},
	{0xe7109bfba19c0c9d, 853}, {0xac2820d9623bf429, 880}, {0x80444b5e7aa7cf85, 907},
	{0xbf21e44003acdd2d, 933}, {0x8e679c2f5e44ff8f, 960}, {0xd433179d9c8cb841, 986},
	{0x9e19db92b4e31ba9, 1013}, {0xeb96bf6ebadf77d9, 1039}, {0xaf87023b9bf0ee6b, 1066},
}

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
