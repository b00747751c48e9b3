package run_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// TestBatsim5Jobs runs the engine on Batsim 5 workloads (converted from
// the bundled Batsim 4 ones, read back in Batsim 5's format) with the
// sessions recorded against the real Batsim 5.0.0-rc2
// (batsim/v5/testdata), and writes Batsim 5's jobs.csv: the engine keeps
// Batsim 4.2.1's timing of internal messages, which Batsim 5 shares on
// these cases, so the files are the same. (Not on every case: Batsim 5
// groups a call and submissions of the same instant in one message, calls
// back at whole milliseconds only, and its internal messages cost a
// microsecond more or less here and there; see docs/batsim5.md.)
func TestBatsim5Jobs(t *testing.T) {
	cases := []struct {
		golden, platform, workload, init string
	}{
		{"easy", "lille", "tiny.json", `{"policy":"easy"}`},
		{"rejecter", "lille", "tiny.json", `{"policy":"edc-rejecter"}`},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(corpus.Batsim5Dir(), c.golden+".jobs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			w4, err := workloads.Load(filepath.Join("..", "workloads", c.workload))
			if err != nil {
				t.Fatal(err)
			}
			v, err := w4.ToV5()
			if err != nil {
				t.Fatal(err)
			}
			b, err := v.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			w, err := workloads.Parse(b, "workload-v5.json")
			if err != nil || !w.V5 {
				t.Fatalf("Batsim 5 workload: %v (v5=%v)", err, w != nil && w.V5)
			}
			p, err := platforms.Bundled(c.platform)
			if err != nil {
				t.Fatal(err)
			}
			in, err := run.ParseInit([]byte(c.init))
			if err != nil {
				t.Fatal(err)
			}
			pol := run.Policy{Name: in.Policy, Registry: policies.Builtin(), Validate: true, Log: slog.New(slog.DiscardHandler)}
			sess, err := pol.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			prefix := filepath.Join(t.TempDir(), "out")
			cfg := sim.Config{Platform: p, Workloads: []*workloads.Workload{w}, ExportPrefix: prefix, Batsim5Jobs: true}
			if _, err := sim.Run(context.Background(), cfg, sim.InProcess(sess)); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(prefix + "_jobs.csv")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range wl {
					if i >= len(gl) || gl[i] != wl[i] {
						t.Fatalf("line %d:\n got  %q\n want %q", i+1, gl[min(i, len(gl)-1)], wl[i])
					}
				}
				t.Fatalf("%d lines, want %d", len(gl), len(wl))
			}
		})
	}
}
