package cli

import (
	"bytes"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
)

// peakHeapProfile watches the live heap (what survived the last garbage
// collection) and keeps a heap profile taken when it was largest: where a
// run's memory goes at its peak, which a profile written at the end (when
// most of it may be released) does not show.
type peakHeapProfile struct {
	path string
	stop chan struct{}
	done sync.WaitGroup

	peak uint64
	prof bytes.Buffer
	err  error
}

// heapLiveMetric is the runtime's count of the heap bytes marked live by
// the last collection.
const heapLiveMetric = "/gc/heap/live:bytes"

// startPeakHeapProfile samples every interval until Stop.
func startPeakHeapProfile(path string, interval time.Duration) *peakHeapProfile {
	p := &peakHeapProfile{path: path, stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.sample(false)
			}
		}
	}()
	return p
}

// sample takes a profile when the live heap is above the largest seen
// (or, forced, when none was taken: a run shorter than a collection).
func (p *peakHeapProfile) sample(force bool) {
	s := []metrics.Sample{{Name: heapLiveMetric}}
	metrics.Read(s)
	var live uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if live <= p.peak && !(force && p.prof.Len() == 0) {
		return
	}
	p.peak = live
	p.prof.Reset()
	if err := pprof.Lookup("heap").WriteTo(&p.prof, 0); err != nil {
		p.err = err
	}
}

// Stop takes a last sample and writes the profile of the peak to the file.
func (p *peakHeapProfile) Stop() error {
	close(p.stop)
	p.done.Wait()
	p.sample(true)
	if p.err != nil {
		return p.err
	}
	return os.WriteFile(p.path, p.prof.Bytes(), 0o644)
}

// cpuProfileFlag is --cpuprofile, profiling what.
func cpuProfileFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of " + what + " to `FILE` (go tool pprof FILE)"}
}

// startCPUProfile starts the CPU profile --cpuprofile asks for; stop ends
// it and closes its file.
func startCPUProfile(c *cli.Context) (stop func(), err error) {
	path := c.String("cpuprofile")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, cli.Exit(c.Command.Name+": --cpuprofile: "+err.Error(), 2)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, cli.Exit(c.Command.Name+": --cpuprofile: "+err.Error(), 2)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
