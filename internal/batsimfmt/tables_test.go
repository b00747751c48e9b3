package batsimfmt

import (
	"math/big"
	"strconv"
	"testing"
)

// The tables written as literals (so that the program does not compute
// them when it starts) are the ones their definitions give: the powers of
// ten as strconv reads them, the cached powers computed exactly.
func TestTables(t *testing.T) {
	pow := func() (t [309]float64) {
		for i := range t {
			f, err := strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
			if err != nil {
				panic(err)
			}
			t[i] = f
		}
		return t
	}()
	if pow != rjPow10 {
		t.Error("rjPow10 differs from strconv's powers of ten")
	}
	cached := func() (t [87]diyFp) {
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
	if cached != cachedPowers {
		t.Error("cachedPowers differs from the exact powers of ten")
	}
}
