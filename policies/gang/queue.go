package gang

import (
	"cmp"
	"slices"
)

// hostQueue is one host's queue of tasks, kept in the discipline's order
// as jobs arrive, so that a decision reads the heads of the idle hosts'
// queues instead of sorting every waiting job again: buckets by the
// discipline's key (AFCFS, LJFS: the job's size; LXF: one bucket, filled
// again in order at each decision, as expansion factors move with time),
// each in arrival order. A job that leaves (started, rejected) is marked
// gone and dropped as it reaches its bucket's front.
type hostQueue struct {
	n     int       // tasks queued, the gone ones excluded
	keys  []int     // the buckets' keys, ascending
	fifos [][]*gjob // by bucket, in arrival order (Seq)
}

// add queues gj in the bucket of key k, after the jobs of the bucket that
// arrived before it.
func (q *hostQueue) add(gj *gjob, k int) {
	q.n++
	i, found := slices.BinarySearch(q.keys, k)
	if !found {
		q.keys = slices.Insert(q.keys, i, k)
		q.fifos = slices.Insert(q.fifos, i, nil)
	}
	f := q.fifos[i]
	if len(f) == 0 || f[len(f)-1].j.Seq() < gj.j.Seq() {
		q.fifos[i] = append(f, gj)
		return
	}
	p, _ := slices.BinarySearchFunc(f, gj, func(a, b *gjob) int { return cmp.Compare(a.j.Seq(), b.j.Seq()) })
	q.fifos[i] = slices.Insert(f, p, gj)
}

// push queues gj last, in one bucket: the order in which the tasks are
// pushed is the queue's (LXF's, and the tests' reference).
func (q *hostQueue) push(gj *gjob) {
	q.n++
	if len(q.keys) == 0 {
		q.keys, q.fifos = append(q.keys, 0), append(q.fifos, nil)
	}
	q.fifos[0] = append(q.fifos[0], gj)
}

// head is the first task of the queue that has not left, nil when none.
func (q *hostQueue) head() *gjob {
	for len(q.keys) > 0 {
		f := q.fifos[0]
		for len(f) > 0 && f[0].gone {
			f[0] = nil
			f = f[1:]
		}
		if len(f) > 0 {
			q.fifos[0] = f
			return f[0]
		}
		q.keys = slices.Delete(q.keys, 0, 1)
		q.fifos = slices.Delete(q.fifos, 0, 1)
	}
	return nil
}

// reset empties the queue (its buckets' storage kept).
func (q *hostQueue) reset() {
	for i := range q.fifos {
		clear(q.fifos[i])
	}
	q.n, q.keys, q.fifos = 0, q.keys[:0], q.fifos[:0]
}
