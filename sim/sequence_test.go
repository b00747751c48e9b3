package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/workloads"
)

// sequenceDoc is one job on a composed profile: outer repeated outerRep
// times over inner, itself repeated innerRep times over a 1-s delay.
func sequenceDoc(outerRep, innerRep int, walltime string) []byte {
	return []byte(fmt.Sprintf(`{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,%s"profile":"outer"}],
		"profiles":{"outer":{"type":"composed","repeat":%d,"seq":["inner"]},
		"inner":{"type":"composed","repeat":%d,"seq":["d"]},"d":{"type":"delay","delay":1}}}`, walltime, outerRep, innerRep))
}

// runSequence simulates doc with fcfs and returns the job's final state and
// the bytes the run allocated.
func runSequence(t *testing.T, doc []byte) (string, uint64) {
	t.Helper()
	w, err := workloads.Parse(doc, "seq.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := w.Validate(workloads.ValidateOptions{}); len(errs) > 0 {
		t.Fatalf("workload refused: %v", errs)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(context.Background(), Config{Platform: genPlatform(2, []float64{1e9}), Workloads: []*workloads.Workload{w}, WorkloadsChecked: true},
		InProcess(newSession(t, "fcfs", nil, false)))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	for s, n := range res.ByState {
		if n == 1 {
			return s, after.TotalAlloc - before.TotalAlloc
		}
	}
	t.Fatalf("states %v", res.ByState)
	return "", 0
}

// A sequence's parts are made as it reaches them: the memory a job takes
// does not depend on how many times its profile repeats (Batsim builds
// every part when the job starts).
func TestSequenceMemoryIndependentOfRepeat(t *testing.T) {
	small, smallAlloc := runSequence(t, sequenceDoc(10, 10, `"walltime":50,`))
	// 10^8 tasks, the most a profile may expand to, ended by the walltime.
	big, bigAlloc := runSequence(t, sequenceDoc(10_000, 10_000, `"walltime":50,`))
	if small != batsim.StateWalltimeReached || big != batsim.StateWalltimeReached {
		t.Fatalf("states %s, %s; want both %s", small, big, batsim.StateWalltimeReached)
	}
	t.Logf("allocated: %d bytes with 100 tasks, %d with 10^8", smallAlloc, bigAlloc)
	if bigAlloc > 2*smallAlloc+1<<20 {
		t.Errorf("a sequence of 10^8 tasks allocated %d bytes, one of 100 tasks %d: memory grows with the repeat", bigAlloc, smallAlloc)
	}
	// Ended by its last task: the same number of tasks whatever the
	// nesting.
	if s, _ := runSequence(t, sequenceDoc(3, 4, "")); s != batsim.StateSuccess {
		t.Fatalf("state %s", s)
	}
}

// A profile that expands to more than workloads.MaxSequenceTasks tasks is
// refused when the workload is read, with an error naming it, by both
// readers (the fast one leaves it to the checked one).
func TestSequenceBound(t *testing.T) {
	for _, c := range []struct {
		doc     []byte
		profile string
	}{
		// The 180-byte workload that once took all the memory.
		{[]byte(`{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,"walltime":100,"profile":"p"}],"profiles":{"p":{"type":"composed","repeat":1000000000,"seq":["q"]},"q":{"type":"delay","delay":1}}}`), "p"},
		// Nested sequences multiply: 10^5 × 10^5.
		{sequenceDoc(100_000, 100_000, ""), "outer"},
		// A part shared by every level: 2^80 tasks, counted without
		// overflow and without walking 2^80 paths.
		{nestedDoubling(80), "c80"},
	} {
		w, err := workloads.Parse(c.doc, "big.json")
		if err != nil {
			t.Fatal(err)
		}
		errs, _ := w.Validate(workloads.ValidateOptions{})
		if len(errs) != 1 || errs[0].Profile != c.profile || !strings.Contains(errs[0].Msg, fmt.Sprint(workloads.MaxSequenceTasks)) {
			t.Errorf("profile %s: errors %v, want one naming it and the bound", c.profile, errs)
		}
		if preload(c.doc, "/big.json", "w0") != nil {
			t.Errorf("profile %s: preloaded", c.profile)
		}
	}
	// At the bound: accepted.
	w, err := workloads.Parse(sequenceDoc(10_000, 10_000, ""), "edge.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := w.Validate(workloads.ValidateOptions{}); len(errs) > 0 {
		t.Errorf("10^8 tasks refused: %v", errs)
	}
}

// nestedDoubling is a workload whose profile cN runs c(N-1) twice, down to
// a delay: 2^n tasks.
func nestedDoubling(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"nb_res":1,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"c%d"}],"profiles":{"c0":{"type":"delay","delay":1}`, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"c%d":{"type":"composed","seq":["c%d","c%d"]}`, i, i-1, i-1)
	}
	b.WriteString("}}")
	return []byte(b.String())
}

// A job of 10^8 tasks never waits on the scheduler; a cancelled context
// (a signal) stops the simulation anyway.
func TestLongSequenceInterrupted(t *testing.T) {
	w, err := workloads.Parse(sequenceDoc(10_000, 10_000, ""), "long.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Platform: genPlatform(2, []float64{1e9}), Workloads: []*workloads.Workload{w}, WorkloadsChecked: true},
			InProcess(newSession(t, "fcfs", nil, false)))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	// A guard against a hang, not a timing: the whole run takes minutes.
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v, want context.Canceled", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the simulation did not stop when its context was cancelled")
	}
}
