package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

func FuzzReadJobsCSV(f *testing.F) {
	addFiles(f, "*_jobs.csv")
	for _, c := range []string{"hetero4_delays", "users_fields"} {
		f.Add(corpus.ReadFile(f, c, "out_jobs.csv"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error {
			rows, err := ReadJobsCSV(bytes.NewReader(data))
			if err != nil {
				return nil
			}
			m := Compute(rows, 4)
			if m.Ran+m.Rejected != m.Jobs {
				return fmt.Errorf("counts %+v", m)
			}
			for i := range rows {
				rows[i].Hosts()
			}
			return nil
		})
	})
}

func FuzzReadTrace(f *testing.F) {
	addFiles(f, "*_trace.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error {
			rows, err := ReadTrace(bytes.NewReader(data))
			if err == nil {
				GainsByBand(rows)
				WaitsByBand(rows)
			}
			return nil
		})
	})
}

func FuzzParseJobInfo(f *testing.F) {
	addFiles(f, "*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error {
			_, _ = ParseJobInfo(data)
			return nil
		})
	})
}

// addFiles adds the testdata files matching pattern to the seed corpus.
func addFiles(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	if len(files) == 0 {
		f.Fatalf("no seed file testdata/%s", pattern)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// benchJobs is a jobs CSV of n rows in Batsim's format.
func benchJobs(n int) string {
	var b strings.Builder
	b.WriteString("job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n")
	for i := 0; i < n; i++ {
		sub := float64(i) * 3.5
		start := sub + float64(i%17)
		fmt.Fprintf(&b, "%d,w0,p%d,%f,%d,3600.000000,1,COMPLETED_SUCCESSFULLY,%f,%f,%f,%f,%f,1.5,%d-%d,-1.000000,\"\"\n",
			i, i%50, sub, 1+i%4, start, 100.0+float64(i%300), start+100+float64(i%300), start-sub, start-sub+100+float64(i%300), i%30, i%30+i%4)
	}
	return b.String()
}

// BenchmarkReadAndCompute is the per-run cost of the analysis: parse a
// 7356-row jobs file (a bucma-model run) and compute its metrics.
func BenchmarkReadAndCompute(b *testing.B) {
	data := benchJobs(7356)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := ReadJobsCSV(strings.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		Compute(rows, 39)
	}
}
