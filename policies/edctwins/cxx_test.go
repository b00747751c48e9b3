package edctwins

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
)

// The exact orders are checked against Batsim's easy component by the
// Batsim 5 tier (internal/realbatsim5, TestTwins and TestTwinEasyLille);
// these check the containers' contents and the sorts' results.

func TestCxxMapContents(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := newCxxMap()
	want := map[string]bool{}
	for i := 0; i < 5000; i++ {
		k := "w0!" + strconv.Itoa(r.IntN(300))
		if r.IntN(3) == 0 {
			m.erase(k)
			delete(want, k)
		} else {
			m.set(k, &edcJob{maxFinish: float64(i)})
			want[k] = true
		}
		if m.count != len(want) {
			t.Fatalf("step %d: count %d, want %d", i, m.count, len(want))
		}
	}
	got := map[string]bool{}
	for p := m.before.next; p != nil; p = p.next {
		if got[p.key] || !want[p.key] {
			t.Fatalf("key %s listed twice or not in the map", p.key)
		}
		got[p.key] = true
		if _, n := m.find(p.key, p.hash); n != p {
			t.Fatalf("key %s not found through its bucket", p.key)
		}
	}
	if len(got) != len(want) || len(m.values()) != len(want) {
		t.Fatalf("%d keys listed, want %d", len(got), len(want))
	}
	if uint64(len(m.buckets)) < uint64(len(want)) {
		t.Errorf("%d buckets for %d keys (load factor above 1)", len(m.buckets), len(want))
	}
}

func TestCxxSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	less := func(a, b *edcJob) bool { return a.maxFinish < b.maxFinish }
	for _, n := range []int{0, 1, 2, 15, 16, 17, 40, 200, 1000} {
		for trial := 0; trial < 20; trial++ {
			a := make([]*edcJob, n)
			for i := range a {
				a[i] = &edcJob{maxFinish: float64(r.IntN(n/3 + 2))}
			}
			b := append([]*edcJob(nil), a...)
			cxxSort(a, less)
			if !sort.SliceIsSorted(a, func(i, k int) bool { return less(a[i], a[k]) }) {
				t.Fatalf("n=%d: not sorted", n)
			}
			heapSort(b, 0, len(b), less)
			if !sort.SliceIsSorted(b, func(i, k int) bool { return less(b[i], b[k]) }) {
				t.Fatalf("n=%d: heap sort not sorted", n)
			}
		}
	}
}

func TestHashBytes(t *testing.T) {
	// Every length class of the hash (the 8-byte blocks and the tail).
	seen := map[uint64]string{}
	for n := 0; n < 40; n++ {
		s := ""
		for i := 0; i < n; i++ {
			s += string(rune('a' + i%26))
		}
		h := stringHash(s)
		if o, dup := seen[h]; dup {
			t.Fatalf("%q and %q hash alike", s, o)
		}
		seen[h] = s
		if stringHash(s) != h {
			t.Fatal("the hash is not a function")
		}
	}
}
