package sim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
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

// 20 000 jobs on 128 hosts, a mixed synthetic workload.
func BenchmarkSimulate20kOn128FCFS(b *testing.B) { benchSize(b, "fcfs", 20000, 128, 128, 2) }
func BenchmarkSimulate20kOn128EASY(b *testing.B) { benchSize(b, "easy", 20000, 128, 128, 2) }

// benchFile runs the simulation of a workload file's bytes the way bucma
// simulate does (Preload, then Run), loading included.
func benchFile(b *testing.B, policy string, opts sched.Options, plat *platforms.Platform, data []byte) {
	b.Helper()
	var jobs int
	var peak uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		var res *Result
		p := peakHeap(func() {
			pre := preload(data, "/bench.json", "w0")
			if pre == nil {
				err = errors.New("workload not preloaded")
				return
			}
			cfg := Config{Platform: plat, Preloaded: []*Preloaded{pre}, ExportPrefix: filepath.Join(b.TempDir(), "out")}
			res, err = Run(context.Background(), cfg, InProcess(newSession(b, policy, opts, false)))
		})
		if err != nil {
			b.Fatal(err)
		}
		jobs = res.Jobs
		peak = max(peak, p)
	}
	b.ReportMetric(float64(jobs*b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(peak)/(1<<20), "peakMiB")
}

var delays20k = sync.OnceValue(func() []byte {
	w, err := workloads.GenerateDelays(workloads.DelaysOptions{Jobs: 20000, Hosts: 128, Load: 0.95, Seed: 1})
	if err != nil {
		panic(err)
	}
	data, err := w.Bytes()
	if err != nil {
		panic(err)
	}
	return data
})

func star128(b *testing.B) *platforms.Platform {
	p, err := platforms.Parse(bytes.NewReader(platforms.Star(128)), "star")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// The engine benchmark's 20 000 delay jobs on 128 hosts at load 0.95
// (bucma workload delays; scripts/bench-engine runs it against Batsim).
func BenchmarkEngine20kDelaysFCFS(b *testing.B) {
	benchFile(b, "fcfs", nil, star128(b), delays20k())
}

func BenchmarkEngine20kDelaysEASY(b *testing.B) {
	benchFile(b, "easy", easyFirstFit, star128(b), delays20k())
}

// easyFirstFit is the engine benchmarks' easy, as make bench-batsim runs it.
var easyFirstFit = sched.Options{"hosts": "first-fit"}

// The engine's floor on the 20 000 delay jobs: the same run as
// BenchmarkEngine20kDelaysEASY, easy's replies replayed (recorded once,
// before the timer) instead of decided, so that what is left is the
// engine's own time: reading, simulating, writing.
func BenchmarkEngine20kDelaysReplayEASY(b *testing.B) {
	benchReplay(b, "easy", easyFirstFit)
}

// The same floor under fcfs's replies: fcfs decides next to nothing (the
// queue's head, when it fits), so BenchmarkEngine20kDelaysFCFS minus this
// is what the session's machinery costs a message (taking the events,
// keeping the state, building the reply), whatever the policy.
func BenchmarkEngine20kDelaysReplayFCFS(b *testing.B) { benchReplay(b, "fcfs", nil) }

// benchReplay records the policy's replies once, then times runs answered
// with them; it reports the messages exchanged in a run.
func benchReplay(b *testing.B, policy string, opts sched.Options) {
	plat, data := star128(b), delays20k()
	run := func(s Scheduler, prefix string) {
		pre := preload(data, "/bench.json", "w0")
		if pre == nil {
			b.Fatal("workload not preloaded")
		}
		if _, err := Run(context.Background(), Config{Platform: plat, Preloaded: []*Preloaded{pre}, ExportPrefix: prefix}, s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	rec := &Recorder{S: InProcess(newSession(b, policy, opts, false))}
	run(rec, filepath.Join(dir, "decided"))
	want, err := os.ReadFile(filepath.Join(dir, "decided_jobs.csv"))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(Replay(rec.Replies), filepath.Join(dir, "replay"))
	}
	b.StopTimer()
	if got, err := os.ReadFile(filepath.Join(dir, "replay_jobs.csv")); err != nil || !bytes.Equal(got, want) {
		b.Fatalf("the replay's _jobs.csv differs from %s's (%v)", policy, err)
	}
	b.ReportMetric(float64(20000*b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(len(rec.Replies)), "messages")
}

// A million jobs on Lille (bucma workload lille --jobs 1000000 --seed 1,
// and the same jobs all submitted at time 0): about a minute each to
// generate and run; only run when asked for (-bench Lille1M).
var lille1M = sync.OnceValues(func() ([]byte, []byte) {
	var out [2][]byte
	for i, once := range []bool{false, true} {
		w, err := workloads.GenerateLille(workloads.LilleOptions{Jobs: 1000000, Seed: 1, AtOnce: once})
		if err != nil {
			panic(err)
		}
		if out[i], err = w.Bytes(); err != nil {
			panic(err)
		}
	}
	return out[0], out[1]
})

func benchLille1M(b *testing.B, policy string, once bool) {
	plat, err := platforms.Resolve("lille")
	if err != nil {
		b.Fatal(err)
	}
	spread, atOnce := lille1M()
	data := spread
	if once {
		data = atOnce
	}
	benchFile(b, policy, nil, plat, data)
}

func BenchmarkEngineLille1MSpreadFCFS(b *testing.B) { benchLille1M(b, "fcfs", false) }
func BenchmarkEngineLille1MSpreadEASY(b *testing.B) { benchLille1M(b, "easy", false) }
func BenchmarkEngineLille1MOnceFCFS(b *testing.B)   { benchLille1M(b, "fcfs", true) }
func BenchmarkEngineLille1MOnceEASY(b *testing.B)   { benchLille1M(b, "easy", true) }

// The session alone on the 20 000 delay jobs: the messages of one run
// recorded (the engine's, as the scheduler receives them), then handed to
// a new session in each iteration; what the policy's side costs a message,
// without the engine.
func BenchmarkSession20kDelaysFCFS(b *testing.B) {
	plat, data := star128(b), delays20k()
	var msgs []*batsim.Message
	pre := preload(data, "/bench.json", "w0")
	cfg := Config{Platform: plat, Preloaded: []*Preloaded{pre}, Observe: func(d batsim.Direction, m *batsim.Message) {
		if d == batsim.FromBatsim {
			msgs = append(msgs, m)
		}
	}}
	if _, err := Run(context.Background(), cfg, InProcess(newSession(b, "fcfs", nil, false))); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newSession(b, "fcfs", nil, false)
		for _, m := range msgs {
			if _, err := s.HandleReusing(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/message")
}

// Reading the 20 000 delay jobs' workload into the engine's form
// (Preload's work, the file already in memory).
func BenchmarkPreload20kDelays(b *testing.B) {
	data := delays20k()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if preload(data, "/bench.json", "w0") == nil {
			b.Fatal("not preloaded")
		}
	}
}
