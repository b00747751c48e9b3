package batsim

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// IntervalSet is a set of non-negative resource ids, kept sorted and without
// duplicates. Its text form is Batsim's: maximal closed intervals "a-b" (or
// "a" when a == b) separated by single spaces, in increasing order ("0-3 5 7-9").
type IntervalSet []int

// NewIntervalSet returns the set holding ids (any order, duplicates allowed).
func NewIntervalSet(ids ...int) IntervalSet {
	s := append(IntervalSet(nil), ids...)
	// Most sets come already in order (a policy's allocation, a set
	// copied): then there is nothing to sort or merge.
	if increasing(s) {
		return s
	}
	sort.Ints(s)
	out := s[:0]
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			continue
		}
		out = append(out, v)
	}
	return out
}

// increasing reports whether ids are in strictly increasing order.
func increasing(ids []int) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return false
		}
	}
	return true
}

// MaxIntervalSetSize bounds the ids a parsed interval set may hold (far
// above any platform's resource count), so that a malformed message cannot
// exhaust memory.
const MaxIntervalSetSize = 1 << 22

// MaxResourceID is the largest id an interval set may hold: Batsim numbers
// resources with a C int.
const MaxResourceID = math.MaxInt32

// ParseIntervalSet parses every form Batsim accepts: intervals and singletons
// in any order, overlapping or not, degenerate "a-a", separated by one or
// more spaces (tabs and surrounding blanks are tolerated). Ids must be
// integers in 0..MaxResourceID and every interval must have a <= b. The
// empty string is the empty set. Every bound is checked before it is used
// in any arithmetic, and the set is expanded only once its size is known to
// be at most MaxIntervalSetSize.
func ParseIntervalSet(text string) (IntervalSet, error) {
	fields := strings.Fields(text)
	ivs := make([][2]int, 0, len(fields))
	for _, f := range fields {
		lo, hi := f, f
		if i := strings.IndexByte(f, '-'); i >= 0 {
			lo, hi = f[:i], f[i+1:]
			if lo == "" {
				return nil, intervalError(text, f, "negative or missing lower bound")
			}
		}
		a, err := parseResourceID(text, f, lo)
		if err != nil {
			return nil, err
		}
		b, err := parseResourceID(text, f, hi)
		if err != nil {
			return nil, err
		}
		if b < a {
			return nil, intervalError(text, f, "upper bound below lower bound")
		}
		ivs = append(ivs, [2]int{a, b})
	}
	if len(ivs) == 0 {
		return nil, nil
	}
	// Merge overlapping and adjacent intervals, then count: 0 <= a <= b <=
	// MaxResourceID, so neither a-1, b-a nor the running total (checked
	// against MaxIntervalSetSize before each addition) can overflow, even
	// with 32-bit ints.
	sort.Slice(ivs, func(i, j int) bool { return ivs[i][0] < ivs[j][0] })
	merged := ivs[:1]
	for _, iv := range ivs[1:] {
		last := &merged[len(merged)-1]
		if iv[0]-1 <= last[1] {
			last[1] = max(last[1], iv[1])
			continue
		}
		merged = append(merged, iv)
	}
	total := 0
	for _, iv := range merged {
		if iv[1]-iv[0] >= MaxIntervalSetSize-total {
			return nil, fmt.Errorf("%w %q: more than %d ids", ErrIntervalSet, text, MaxIntervalSetSize)
		}
		total += iv[1] - iv[0] + 1
	}
	s := make(IntervalSet, 0, total)
	for _, iv := range merged {
		for v := iv[0]; ; v++ {
			s = append(s, v)
			if v == iv[1] {
				break
			}
		}
	}
	return s, nil
}

// parseResourceID parses one bound of the interval field f of text.
func parseResourceID(text, f, bound string) (int, error) {
	v, err := strconv.Atoi(bound)
	if err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(bound, "-") || err == nil && v > MaxResourceID {
		return 0, intervalError(text, f, fmt.Sprintf("%q is above the largest resource id %d", bound, MaxResourceID))
	}
	if err != nil || v < 0 {
		return 0, intervalError(text, f, fmt.Sprintf("%q is not a non-negative integer", bound))
	}
	return v, nil
}

// intervalError names the text, and the field of it at fault when the text
// has several.
func intervalError(text, f, msg string) error {
	if f == strings.TrimSpace(text) {
		return fmt.Errorf("%w %q: %s", ErrIntervalSet, text, msg)
	}
	return fmt.Errorf("%w %q: %q: %s", ErrIntervalSet, text, f, msg)
}

// ErrIntervalSet is wrapped by the errors of a text that is not an
// interval set Batsim reads.
var ErrIntervalSet = errors.New("interval set")

// Intervals returns the set as its maximal runs of consecutive ids, [a, b]
// pairs in increasing order.
func (s IntervalSet) Intervals() [][2]int {
	var out [][2]int
	s.runs(func(a, b int) { out = append(out, [2]int{a, b}) })
	return out
}

// runs calls f with the first and last id of each maximal run, in order.
func (s IntervalSet) runs(f func(a, b int)) {
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		f(s[i], s[j])
		i = j + 1
	}
}

// String returns the canonical form, e.g. "0-3 5 7-9".
func (s IntervalSet) String() string {
	var buf [64]byte
	return string(s.Append(buf[:0]))
}

// Append appends the canonical form (String) to dst.
func (s IntervalSet) Append(dst []byte) []byte {
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendInt(dst, int64(s[i]), 10)
		if j > i {
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(s[j]), 10)
		}
		i = j + 1
	}
	return dst
}

// Len is the number of ids in the set.
func (s IntervalSet) Len() int { return len(s) }

// Contains reports whether id is in the set.
func (s IntervalSet) Contains(id int) bool {
	i := sort.SearchInts(s, id)
	return i < len(s) && s[i] == id
}
