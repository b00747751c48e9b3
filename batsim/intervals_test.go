package batsim

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseIntervalSet(t *testing.T) {
	cases := []struct {
		in        string
		ids       []int
		canonical string
	}{
		{"0-3 5 7-9", []int{0, 1, 2, 3, 5, 7, 8, 9}, "0-3 5 7-9"},
		{"7-9 0-3 5", []int{0, 1, 2, 3, 5, 7, 8, 9}, "0-3 5 7-9"},               // unsorted
		{"5 2-2 7 1-3", []int{1, 2, 3, 5, 7}, "1-3 5 7"},                        // Batsim's doc example
		{"1-2 3 5 7", []int{1, 2, 3, 5, 7}, "1-3 5 7"},                          // adjacent intervals merge
		{"0-5 3-8", []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, "0-8"},                    // overlapping
		{"2-6 3-4", []int{2, 3, 4, 5, 6}, "2-6"},                                // nested
		{"4 4 4-4", []int{4}, "4"},                                              // duplicates, a-a
		{"3-3", []int{3}, "3"},                                                  // degenerate interval
		{"  1   3-4  ", []int{1, 3, 4}, "1 3-4"},                                // extra spaces
		{"1\t2", []int{1, 2}, "1-2"},                                            // tab
		{"0", []int{0}, "0"},                                                    // zero
		{"10 9 8", []int{8, 9, 10}, "8-10"},                                     // descending singletons
		{"007", []int{7}, "7"},                                                  // leading zeros
		{"", nil, ""},                                                           // empty
		{"   ", nil, ""},                                                        // blanks only
		{"100-102 1000", []int{100, 101, 102, 1000}, "100-102 1000"},            // multi-digit
		{"0-1 3-4 6-7", []int{0, 1, 3, 4, 6, 7}, "0-1 3-4 6-7"},                 // pairs stay intervals
		{"1 3 5", []int{1, 3, 5}, "1 3 5"},                                      // no runs
		{"9-9 8-8 7-7", []int{7, 8, 9}, "7-9"},                                  // degenerate intervals merge
		{"0-2 2-4", []int{0, 1, 2, 3, 4}, "0-4"},                                // shared bound
		{"1-1 1", []int{1}, "1"},                                                // same id twice
		{"5-6 0", []int{0, 5, 6}, "0 5-6"},                                      // singleton first after sort
		{"12 11 13-14 10", []int{10, 11, 12, 13, 14}, "10-14"},                  // shuffled run
		{"0-0", []int{0}, "0"},                                                  // zero degenerate
		{"2 0-1", []int{0, 1, 2}, "0-2"},                                        // merge across forms
		{"31 30", []int{30, 31}, "30-31"},                                       // two adjacent singletons
		{"1-3 2", []int{1, 2, 3}, "1-3"},                                        // singleton inside interval
		{" 4-5", []int{4, 5}, "4-5"},                                            // leading space
		{"4-5 ", []int{4, 5}, "4-5"},                                            // trailing space
		{"1000000", []int{1000000}, "1000000"},                                  // large id
		{"3 1", []int{1, 3}, "1 3"},                                             // unsorted singletons
		{"6-7 1-2", []int{1, 2, 6, 7}, "1-2 6-7"},                               // unsorted intervals
		{"0-3 5 7-9 ", []int{0, 1, 2, 3, 5, 7, 8, 9}, "0-3 5 7-9"},              // trailing blank
		{"0-3  5  7-9", []int{0, 1, 2, 3, 5, 7, 8, 9}, "0-3 5 7-9"},             // double spaces
		{"8 0-3 4-4 5", []int{0, 1, 2, 3, 4, 5, 8}, "0-5 8"},                    // mixed
		{"2-3 0-1", []int{0, 1, 2, 3}, "0-3"},                                   // reversed adjacent
		{"1 1-2 2-3 3", []int{1, 2, 3}, "1-3"},                                  // chained overlaps
		{"0-9 0-9", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "0-9"},                 // identical intervals
		{"0 2 4 6 8 1 3 5 7", []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, "0-8"},          // interleaved
		{"15-16 14", []int{14, 15, 16}, "14-16"},                                // prepend merge
		{"20 21-22", []int{20, 21, 22}, "20-22"},                                // append merge
		{"3-5 9-11 6-8", []int{3, 4, 5, 6, 7, 8, 9, 10, 11}, "3-11"},            // fill the gap
		{"0-1 100", []int{0, 1, 100}, "0-1 100"},                                // far apart
		{"99 98-99", []int{98, 99}, "98-99"},                                    // overlapping singleton
		{"50-51 52-53 54-55", []int{50, 51, 52, 53, 54, 55}, "50-55"},           // consecutive intervals
		{"1 3 2", []int{1, 2, 3}, "1-3"},                                        // three singletons unsorted
		{"0-2 4-6 3", []int{0, 1, 2, 3, 4, 5, 6}, "0-6"},                        // gap filled by singleton
		{"7 7-8 8", []int{7, 8}, "7-8"},                                         // redundant forms
		{"42", []int{42}, "42"},                                                 // single id
		{"0 1", []int{0, 1}, "0-1"},                                             // two ids become an interval
		{"5-9 1-3 4", []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, "1-9"},                  // three pieces merge
		{"2-4 6-8 10-12", []int{2, 3, 4, 6, 7, 8, 10, 11, 12}, "2-4 6-8 10-12"}, // separated intervals
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseIntervalSet(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.ids) == 0 {
				if len(s) != 0 {
					t.Fatalf("got %v, want the empty set", []int(s))
				}
			} else if !reflect.DeepEqual([]int(s), c.ids) {
				t.Fatalf("got %v, want %v", []int(s), c.ids)
			}
			if got := s.String(); got != c.canonical {
				t.Fatalf("canonical %q, want %q", got, c.canonical)
			}
			if s.Len() != len(c.ids) {
				t.Fatalf("Len %d, want %d", s.Len(), len(c.ids))
			}
			for _, id := range c.ids {
				if !s.Contains(id) {
					t.Fatalf("Contains(%d) false", id)
				}
			}
			again, err := ParseIntervalSet(s.String())
			if err != nil || !reflect.DeepEqual(again, s) {
				t.Fatalf("canonical form does not re-parse to the same set: %v %v", []int(again), err)
			}
		})
	}
}

func TestParseIntervalSetErrors(t *testing.T) {
	cases := []struct{ in, frag string }{
		{"0-4194304", "more than 4194304 ids"},
		{"0-3000000 5000000-7000000", "more than 4194304 ids"},
		{"-1", "-1"},
		{"3-1", "3-1"},
		{"a", "a"},
		{"1-", "1-"},
		{"1,2", "1,2"},
		{"1-2-3", "1-2-3"},
		{"0 -5", "-5"},
		{"2 x 4", "x"},
		{"1.5", "1.5"},
		{"--1", "--1"},
		{"1--2", "1--2"},
		{"+3", ""},
		{"99999999999999999999", "99999999999999999999"},
		// Bounds at and near the largest int: refused before any arithmetic
		// (they used to overflow the size check and expand forever).
		{"9223372036854775807", `"9223372036854775807" is above the largest resource id 2147483647`},
		{"0-9223372036854775807", `"9223372036854775807" is above the largest resource id 2147483647`},
		{"9223372036854775806-9223372036854775807", "above the largest resource id"},
		{"9223372036854775808", "above the largest resource id"},
		{"2147483648", "above the largest resource id"},
		{"0-2147483647", "more than 4194304 ids"},
		{"1-3 0-2147483647", "more than 4194304 ids"},
		{"0-2097152 2097153-4194304", "more than 4194304 ids"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseIntervalSet(c.in)
			if c.in == "+3" {
				// strconv accepts a sign; "+3" is read as 3. Either an
				// error or the set {3} is acceptable, never something else.
				if err == nil && s.String() != "3" {
					t.Fatalf("%q parsed as %v", c.in, s)
				}
				return
			}
			if err == nil {
				t.Fatalf("%q parsed as %v, want an error", c.in, []int(s))
			}
			if !strings.Contains(err.Error(), c.frag) {
				t.Fatalf("error %q does not name %q", err, c.frag)
			}
		})
	}
}

// The largest id, alone or closing a small interval, parses and prints back.
func TestParseIntervalSetLargestID(t *testing.T) {
	for _, in := range []string{"2147483647", "2147483645-2147483647", "2147483647 0"} {
		s, err := ParseIntervalSet(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if s[len(s)-1] != MaxResourceID {
			t.Fatalf("%q: %v", in, []int(s))
		}
		if again, err := ParseIntervalSet(s.String()); err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("%q: canonical %q re-parses to %v, %v", in, s.String(), []int(again), err)
		}
	}
	// The size limit counts the merged set: overlapping intervals whose
	// sizes add up past it are fine.
	if s, err := ParseIntervalSet("0-4194303 0-4194303"); err != nil || len(s) != MaxIntervalSetSize {
		t.Fatalf("overlapping intervals at the limit: %d ids, %v", len(s), err)
	}
}

func TestIntervals(t *testing.T) {
	cases := []struct {
		ids  []int
		want [][2]int
	}{
		{nil, nil},
		{[]int{4}, [][2]int{{4, 4}}},
		{[]int{0, 1, 2, 5, 7, 8}, [][2]int{{0, 2}, {5, 5}, {7, 8}}},
		{[]int{3, 1, 2}, [][2]int{{1, 3}}},
	}
	for _, c := range cases {
		if got := NewIntervalSet(c.ids...).Intervals(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Intervals(%v) = %v, want %v", c.ids, got, c.want)
		}
	}
}

func TestNewIntervalSet(t *testing.T) {
	s := NewIntervalSet(5, 1, 3, 2, 5, 1)
	if got := s.String(); got != "1-3 5" {
		t.Fatalf("got %q", got)
	}
	if s.Contains(4) || !s.Contains(5) {
		t.Fatal("Contains is wrong")
	}
	if NewIntervalSet().String() != "" {
		t.Fatal("empty set must print as empty string")
	}
	// Against sorting and merging, on ids in order, in order but for one
	// pair, with repeats, and shuffled; and the result is never the
	// argument itself.
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		n := r.IntN(12)
		ids := make([]int, n)
		for k := range ids {
			ids[k] = 2*k + r.IntN(2)
		}
		switch i % 4 {
		case 1:
			if n > 1 {
				k := r.IntN(n - 1)
				ids[k], ids[k+1] = ids[k+1], ids[k]
			}
		case 2:
			if n > 1 {
				ids[r.IntN(n)] = ids[r.IntN(n)]
			}
		case 3:
			r.Shuffle(n, func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		}
		want := slices.Compact(slices.Sorted(slices.Values(ids)))
		got := NewIntervalSet(ids...)
		if !slices.Equal(got, want) {
			t.Fatalf("NewIntervalSet(%v) = %v, want %v", ids, got, want)
		}
		if n > 0 {
			got[0] = -1
			if ids[0] == -1 {
				t.Fatalf("NewIntervalSet(%v) shares its argument", ids)
			}
		}
	}
}
