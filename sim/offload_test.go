package sim

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The tally's sums, added on its worker over several batches, are exactly
// those of the same additions done at once, in order.
func TestTallyMatchesDirectSums(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		const hosts = 13
		y := newTally(hosts)
		got := [3][]ld{make([]ld, hosts), make([]ld, hosts), make([]ld, hosts)}
		want := [3][]ld{make([]ld, hosts), make([]ld, hosts), make([]ld, hosts)}
		since := make([]float64, hosts)
		now := make([]float64, hosts)
		n := 3*tallyBatch + r.IntN(tallyBatch)
		for i := 0; i < n; i++ {
			h, k := r.IntN(hosts), r.IntN(3)
			// Times repeat now and then (no time spent), and have
			// fractions that do not add up exactly.
			if r.IntN(5) > 0 {
				now[h] += r.Float64() * 1e3 * float64(1+r.IntN(1e4))
			}
			y.spend(&got[k][h], h, now[h])
			if now[h] != since[h] {
				var a, b, d ld
				d.sub(a.setF(now[h]), b.setF(since[h]))
				want[k][h].add(&want[k][h], &d)
			}
			since[h] = now[h]
		}
		if y.work == nil {
			t.Fatal("the worker never started")
		}
		y.finish()
		for k := range got {
			for h := range got[k] {
				if got[k][h] != want[k][h] {
					t.Fatalf("seed %d: state %d of host %d: %v, want %v", seed, k, h, got[k][h].float64(), want[k][h].float64())
				}
			}
		}
	}
}

// A failed write of the jobs rows stops the simulation at a later row (the
// writer works on its own goroutine), and sync reports it.
func TestOutputsWriteErrorReported(t *testing.T) {
	o, err := openOutputs(t.TempDir() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	o.f.File.Close() // every write fails from here on
	r := jobRow{name: "1", wl: "w0", prof: "p", state: "COMPLETED_SUCCESSFULLY", success: true}
	failedAt := -1
	for i := 0; i < 3*rowBatch && failedAt < 0; i++ {
		if o.row(&r) != nil {
			failedAt = i
		}
		if i == rowBatch {
			// The first batch has been handed over: sync waits for it.
			if err := o.sync(); err == nil || !strings.Contains(err.Error(), "export ") {
				t.Fatalf("sync after a failed write: %v", err)
			}
		}
	}
	if failedAt < 0 {
		t.Fatal("no row reported the failed write")
	}
	o.abort()
}
