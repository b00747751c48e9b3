package protocol

import (
	"fmt"
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

// MaxIntervalSetSize bounds the ids a parsed interval set may hold (far
// above any platform's resource count), so that a malformed message cannot
// exhaust memory.
const MaxIntervalSetSize = 1 << 22

// ParseIntervalSet parses every form Batsim accepts: intervals and singletons
// in any order, overlapping or not, degenerate "a-a", separated by one or
// more spaces (tabs and surrounding blanks are tolerated). Ids must be
// non-negative integers and every interval must have a <= b. The empty string
// is the empty set.
func ParseIntervalSet(text string) (IntervalSet, error) {
	fields := strings.Fields(text)
	var ids []int
	total := 0
	for _, f := range fields {
		lo, hi := f, f
		if i := strings.IndexByte(f, '-'); i >= 0 {
			lo, hi = f[:i], f[i+1:]
			if lo == "" {
				return nil, fmt.Errorf("interval set %q: %q: negative or missing lower bound", text, f)
			}
		}
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("interval set %q: %q: %q is not a non-negative integer", text, f, lo)
		}
		b, err := strconv.Atoi(hi)
		if err != nil || b < 0 {
			return nil, fmt.Errorf("interval set %q: %q: %q is not a non-negative integer", text, f, hi)
		}
		if b < a {
			return nil, fmt.Errorf("interval set %q: %q: upper bound below lower bound", text, f)
		}
		if total += b - a + 1; total > MaxIntervalSetSize {
			return nil, fmt.Errorf("interval set %q: more than %d ids", text, MaxIntervalSetSize)
		}
		for v := a; v <= b; v++ {
			ids = append(ids, v)
		}
	}
	return NewIntervalSet(ids...), nil
}

// String returns the canonical form, e.g. "0-3 5 7-9".
func (s IntervalSet) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Len is the number of ids in the set.
func (s IntervalSet) Len() int { return len(s) }

// Contains reports whether id is in the set.
func (s IntervalSet) Contains(id int) bool {
	i := sort.SearchInts(s, id)
	return i < len(s) && s[i] == id
}
