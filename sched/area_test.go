package sched

import "testing"

func TestAreaOrder(t *testing.T) {
	mk := func() []*Job {
		return []*Job{
			{id: "w0!a", submit: 0, res: 2, walltime: 10, seq: 0}, // 20
			{id: "w0!b", submit: 1, res: 1, walltime: 0, seq: 1},  // +Inf
			{id: "w0!c", submit: 2, res: 4, walltime: 5, seq: 2},  // 20
			{id: "w0!d", submit: 3, res: 1, walltime: 7, seq: 3},  // 7
			{id: "w0!e", submit: 0, res: 3, walltime: 0, seq: 4},  // +Inf
		}
	}
	q := mk()
	AreaOrder{}.Sort(nil, q)
	if got := ids(q); got[0] != "w0!d" || got[1] != "w0!a" || got[2] != "w0!c" || got[3] != "w0!e" || got[4] != "w0!b" {
		t.Errorf("ascending: %v", got)
	}
	q = mk()
	AreaOrder{Descending: true}.Sort(nil, q)
	// Equal areas keep submission order in both directions.
	if got := ids(q); got[0] != "w0!e" || got[1] != "w0!b" || got[2] != "w0!a" || got[3] != "w0!c" || got[4] != "w0!d" {
		t.Errorf("descending: %v", got)
	}
}

func ids(q []*Job) []string {
	out := make([]string, len(q))
	for i, j := range q {
		out[i] = j.ID()
	}
	return out
}
