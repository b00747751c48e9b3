package schedulers

import (
	"sort"
	"strings"
	"testing"
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
		for i, n := range sizes {
			q = append(q, &gjob{j: &Job{ID: "J" + string(rune('1'+i)), Res: n, Seq: int64(i)}, xf: xfs[i]})
		}
		sort.SliceStable(q, func(x, y int) bool { return g.before(q[x], q[y]) })
		var got []string
		for _, gj := range q {
			got = append(got, gj.j.ID)
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%s: %s, want %s", gangDisciplines[c.d], s, c.want)
		}
	}
	// A sequential job comes first whatever the discipline.
	g := &Gang{Discipline: GangLJFS}
	if !g.before(&gjob{j: &Job{Res: 1, Seq: 9}}, &gjob{j: &Job{Res: 8, Seq: 0}}) {
		t.Error("LJFS puts a sequential job after a wide one")
	}
}
