package gang

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// TestGangDisciplinesPaperExample: the paper's running example, jobs
// J1..J5 of 4, 3, 3, 4, 2 tasks in arrival order: AFCFS orders them J5,
// J2, J3, J1, J4; LJFS J1, J4, J2, J3, J5; LXF with expansion factors
// 1.6, 2.5, 1.8, 1.7, 1.3 J2, J3, J4, J1, J5.
func TestGangDisciplinesPaperExample(t *testing.T) {
	sizes := []int{4, 3, 3, 4, 2}
	xfs := []float64{1.6, 2.5, 1.8, 1.7, 1.3}
	for _, c := range []struct {
		d    GangDiscipline
		want string
	}{
		{GangAFCFS, "J5 J2 J3 J1 J4"},
		{GangLJFS, "J1 J4 J2 J3 J5"},
		{GangLXF, "J2 J3 J4 J1 J5"},
	} {
		g := &Gang{Discipline: c.d}
		var q []*gjob
		for i, j := range waiting(t, 4, sizes...) {
			q = append(q, &gjob{j: j, xf: xfs[i]})
		}
		sort.SliceStable(q, func(x, y int) bool { return g.before(q[x], q[y]) })
		var got []string
		for _, gj := range q {
			got = append(got, "J"+strings.TrimPrefix(gj.j.ID(), "w0!j"))
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%s: %s, want %s", gangDisciplines[c.d], s, c.want)
		}
	}
	// A sequential job comes first whatever the discipline.
	g := &Gang{Discipline: GangLJFS}
	q := waiting(t, 8, 8, 1) // the wide one arrived first
	if !g.before(&gjob{j: q[1]}, &gjob{j: q[0]}) {
		t.Error("LJFS puts a sequential job after a wide one")
	}
}

// waiting returns jobs j1, j2, ... of the given sizes, waiting in that
// order on a hand-built state of n hosts.
func waiting(t *testing.T, n int, sizes ...int) []*sched.Job {
	t.Helper()
	sp := testkit.StateSpec{Hosts: testkit.Hosts(make([]float64, n)...)}
	for i, r := range sizes {
		sp.Waiting = append(sp.Waiting, testkit.Job{Name: "j" + strconv.Itoa(i+1), Res: r})
	}
	h, err := testkit.NewState(sp)
	if err != nil {
		t.Fatal(err)
	}
	return h.State().WaitingCopy()
}
