package sim

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bucma/workloads"
)

// peakHeap samples the heap while f runs.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

func benchSimulate(b *testing.B, policy string) {
	benchSize(b, policy, 100000, 1000, 256, 0.4)
}

func benchSize(b *testing.B, policy string, njobs, nhosts, maxRes int, gap float64) {
	plat := genPlatform(nhosts, []float64{1e9, 2e9, 3e9, 4e9})
	w := genWorkload(b, 42, genOpts{jobs: njobs, maxRes: maxRes, meanGap: gap, walltime: true, mixed: true})
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		cfg := Config{Platform: plat, Workloads: []*workloads.Workload{w}, ExportPrefix: filepath.Join(b.TempDir(), "out")}
		var err error
		var res *Result
		p := peakHeap(func() {
			res, err = Run(context.Background(), cfg, InProcess(newSession(b, policy, nil, false)))
		})
		if err != nil {
			b.Fatal(err)
		}
		if res.Jobs != njobs {
			b.Fatalf("%d jobs ended", res.Jobs)
		}
		if p > peak {
			peak = p
		}
	}
	b.ReportMetric(float64(njobs*b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(peak)/(1<<20), "peakMiB")
}

// 100 000 jobs on 1000 hosts, in-process.
func BenchmarkSimulate100kFCFS(b *testing.B) { benchSimulate(b, "fcfs") }
func BenchmarkSimulate100kEASY(b *testing.B) { benchSimulate(b, "easy") }

// 20 000 jobs on 128 hosts (real Batsim with batsched easy_bf_fast: about
// 30 s).
func BenchmarkSimulate20kOn128FCFS(b *testing.B) { benchSize(b, "fcfs", 20000, 128, 128, 2) }
func BenchmarkSimulate20kOn128EASY(b *testing.B) { benchSize(b, "easy", 20000, 128, 128, 2) }
