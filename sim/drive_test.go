package sim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bucma/protocol"
	"bucma/schedulers"
)

func newSession(t testing.TB, policy string, opts schedulers.Options, validate bool) *schedulers.Session {
	t.Helper()
	spec, err := schedulers.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schedulers.NewSession(schedulers.SessionConfig{Spec: spec, Options: opts, Validate: validate})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The corpus' reference scheduler is strict FCFS on the lowest free ids:
// bucma's fcfs with first-fit hosts makes the same decisions, so the engine
// must reproduce Batsim's _jobs.csv byte for byte.
func TestInProcessFCFSMatchesBatsim(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields"} {
		t.Run(name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "out")
			cfg := loadCase(t, name, prefix)
			res, err := Run(context.Background(), cfg, InProcess(newSession(t, "fcfs", schedulers.Options{"hosts": "first-fit"}, true)))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join("testdata", name, "out_jobs.csv"))
			got, _ := os.ReadFile(prefix + "_jobs.csv")
			for _, d := range compareJobs(want, got) {
				t.Error("_jobs.csv " + d)
			}
			wantS, _ := os.ReadFile(filepath.Join("testdata", name, "out_schedule.csv"))
			gotS, _ := os.ReadFile(prefix + "_schedule.csv")
			for _, d := range compareSchedule(wantS, gotS) {
				t.Error("_schedule.csv " + d)
			}
			if res.Jobs != strings.Count(string(want), "\n")-1 {
				t.Errorf("result counts %d jobs", res.Jobs)
			}
		})
	}
}

// The same run over ZeroMQ (bucma's own Session served by protocol.Serve)
// gives the same outputs as in-process.
func TestRemoteMatchesInProcess(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := loadCase(t, name, filepath.Join(dir, "inproc"))
			if _, err := Run(context.Background(), cfg, InProcess(newSession(t, "easy", nil, true))); err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			bound := make(chan string, 1)
			served := make(chan error, 1)
			go func() {
				served <- protocol.Serve(ctx, protocol.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Timeout: 20 * time.Second,
					Bound: func(ep string) { bound <- ep }}, newSession(t, "easy", nil, true))
			}()
			var ep string
			select {
			case ep = <-bound:
			case err := <-served:
				t.Fatalf("serve: %v", err)
			}
			rs, err := Remote(context.Background(), ep, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var sent int
			rs.Observe = func(dir protocol.Direction, raw []byte) {
				if dir == protocol.FromBatsim {
					sent++
				}
			}
			cfg.ExportPrefix = filepath.Join(dir, "remote")
			res, err := Run(ctx, cfg, rs)
			rs.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := <-served; err != nil {
				t.Fatalf("serve: %v", err)
			}
			if sent != res.Messages {
				t.Errorf("%d messages on the wire, engine counted %d", sent, res.Messages)
			}
			a, _ := os.ReadFile(filepath.Join(dir, "inproc_jobs.csv"))
			b, _ := os.ReadFile(filepath.Join(dir, "remote_jobs.csv"))
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("jobs files differ:\n%s\n---\n%s", a, b)
			}
			sa, _ := os.ReadFile(filepath.Join(dir, "inproc_schedule.csv"))
			sb, _ := os.ReadFile(filepath.Join(dir, "remote_schedule.csv"))
			for _, d := range compareSchedule(sa, sb) {
				t.Error(d)
			}
		})
	}
}

// The remote encoding of every engine message is what Batsim sends.
func TestEncodeBatsimMatchesTranscripts(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields", "kill_resubmit"} {
		r, _, err := runReplay(t, name, "transcript.jsonl", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.mismatch {
			t.Errorf("%s: %s", name, m)
		}
	}
}
