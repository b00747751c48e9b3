package batsched_test

import (
	"slices"
	"testing"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

func x(f float64) xtime.Time { return xtime.Of(f) }

func alloc(t *testing.T, s *batsched.Schedule, id string, res int, wall float64, sel batsched.Selector, at float64, hosts ...int) {
	t.Helper()
	a, ok := s.AddFirstFit(id, res, x(wall), sel)
	if !ok || a.Begin != x(at) || !slices.Equal(a.Hosts, hosts) || a.End != x(at+wall) {
		t.Fatalf("%s: %+v %v, want at %v on %v\n%s", id, a, ok, at, hosts, s)
	}
}

// TestSchedule: first fit on machines by lowest ids, a machine free
// throughout the span, slices merged when an allocation goes, Replan after
// a removal, QueryWait, and the contiguous selection.
func TestSchedule(t *testing.T) {
	s := batsched.NewSchedule(4, x(0))
	basic := batsched.Basic{}
	alloc(t, s, "A", 2, 10, basic, 0, 0, 1)
	alloc(t, s, "B", 3, 5, basic, 10, 0, 1, 2) // 3 machines from A's end
	alloc(t, s, "C", 1, 20, basic, 0, 3)       // machine 2 is B's at 10: 3 is free throughout
	if n := s.NbSlices(); n != 4 {             // [0,10) [10,15) [15,20) [20,1e19)
		t.Fatalf("%d slices\n%s", n, s)
	}
	if at, ok := s.QueryWait(4, x(1), basic); !ok || at != x(20) {
		t.Errorf("QueryWait(4, 1) = %v %v", at.Float(), ok)
	}
	if got := s.AvailableDuring(x(0), x(15)).IDs(nil); len(got) != 0 {
		t.Errorf("available during [0,15): %v", got)
	}
	// A goes: B may begin now, on the lowest machines free for 5 s.
	s.Remove("A")
	a, ok := s.Replan("B", 3, x(5), basic)
	if !ok || a.Begin != x(0) || !slices.Equal(a.Hosts, []int{0, 1, 2}) || !a.StartedInFirstSlice {
		t.Fatalf("B replanned: %+v\n%s", a, s)
	}
	// C cannot begin earlier: Replan leaves it as it is.
	if c, ok := s.Replan("C", 1, x(20), basic); !ok || c.Begin != x(0) || !slices.Equal(c.Hosts, []int{3}) {
		t.Fatalf("C replanned: %+v", c)
	}
	// Contiguous: 2 machines in a run; 0-2 are B's until 5, 3 is C's.
	alloc(t, s, "D", 2, 1, batsched.Contiguous{}, 5, 0, 1)
	s.Remove("D")
	s.Remove("B")
	s.Remove("C")
	if n := s.NbSlices(); n != 1 {
		t.Fatalf("%d slices once empty\n%s", n, s)
	}
	// Later than the present only: AddFirstFitAfter.
	a, ok = s.AddFirstFitAfter("E", 4, x(3), basic, x(7))
	if !ok || a.Begin != x(7) || a.StartedInFirstSlice {
		t.Fatalf("E: %+v", a)
	}
	s.UpdateFirstSlice(x(2))
	if s.FirstSliceBegin() != x(2) {
		t.Fatalf("first slice at %v", s.FirstSliceBegin().Float())
	}
}

func TestQueueOrders(t *testing.T) {
	for _, name := range batsched.OrderNames {
		o, err := batsched.ParseOrder(name)
		if err != nil || o.String() != name {
			t.Errorf("%s: %v %v", name, o, err)
		}
	}
	if _, err := batsched.ParseOrder("sjf"); err == nil {
		t.Errorf("sjf accepted")
	}
	if _, err := batsched.SelectorByName("best"); err == nil {
		t.Errorf("best accepted")
	}
}
