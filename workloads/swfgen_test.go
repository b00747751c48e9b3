package workloads

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var updateSWF = flag.Bool("update-swf", false, "write ../testdata/cluster.swf again")

// clusterSWF is the file of the synthetic trace the campaign tests and
// docs/campaigns.md use.
var clusterSWF = filepath.Join("..", "testdata", "cluster.swf")

// syntheticSWF writes a small trace in the Standard Workload Format: 2000
// jobs of 24 users over about four weeks on a 39-node machine (one
// processor per node): sizes 1 to 32 nodes (more than half one node), log-
// normal run times (median 15 min), requested times 1 to 4 times the run
// time rounded up to 15 min, Poisson arrivals with a daily cycle, a few
// failed (status 0) and cancelled (status 5) jobs. It is drawn from a fixed
// seed: the same bytes every time.
func syntheticSWF() []byte {
	r := newRand(20251125)
	var b bytes.Buffer
	b.WriteString("; Version: 2.2\n; Computer: synthetic cluster (bucma's test trace)\n; MaxJobs: 2000\n")
	b.WriteString("; MaxNodes: 39\n; MaxProcs: 39\n; UnixStartTime: 1704067200\n; TimeZoneString: UTC\n")
	b.WriteString("; Note: drawn by workloads/swfgen_test.go (go test ./workloads -run TestSyntheticSWF -update-swf)\n;\n")
	sizes := []int{1, 2, 4, 8, 16, 32}
	cum := cumulative([]float64{55, 15, 12, 9, 6, 3})
	t := 0.0
	for id := 1; id <= 2000; id++ {
		// A day: busier from 8 to 20 h.
		hour := math.Mod(t/3600, 24)
		rate := 1.0 / 1500
		if hour >= 8 && hour < 20 {
			rate *= 2.5
		}
		t += math.Round(r.ExpFloat64() / rate)
		procs := sizes[pick(r, cum)]
		run := math.Round(math.Min(86400, math.Max(10, 900*math.Exp(1.4*r.NormFloat64()))))
		req := math.Ceil(run*(1+3*r.Float64())/900) * 900
		user := 1 + int(math.Floor(24*math.Pow(r.Float64(), 1.6)))
		status := 1
		switch x := r.Float64(); {
		case x < 0.03:
			status = 0
		case x < 0.05:
			status = 5
		}
		fmt.Fprintf(&b, "%6d %8.0f %5d %6.0f %3d %3d %3d %3d %6.0f %3d %2d %3d %2d %3d %2d %3d %3d %3d\n",
			id, t, -1, run, procs, -1, -1, procs, req, -1, status, user, 1, -1, 1, -1, -1, -1)
	}
	return b.Bytes()
}

// The committed trace is the one syntheticSWF draws, and it converts.
func TestSyntheticSWF(t *testing.T) {
	want := syntheticSWF()
	if *updateSWF {
		if err := os.WriteFile(clusterSWF, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(clusterSWF)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not the trace syntheticSWF draws (go test ./workloads -run TestSyntheticSWF -update-swf)", clusterSWF)
	}
	w, st, err := FromSWF(bytes.NewReader(got), SWFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept < 1900 || st.Kept+st.Cancelled != 2000 || w.NbRes != 39 {
		t.Errorf("%s: %s; nb_res %d", clusterSWF, st, w.NbRes)
	}
	load, err := w.OfferedLoad(39, 1)
	if err != nil || !(load > 0.2 && load < 0.5) {
		t.Errorf("offered load on 39 hosts %v, %v", load, err)
	}
}
