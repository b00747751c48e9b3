package sim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

func newSession(t testing.TB, policy string, opts sched.Options, validate bool) *sched.Session {
	t.Helper()
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	// The corpus' sched-config (users_fields) holds BUCMA's options, which
	// the reference scheduler ignored, and which fcfs and easy would refuse:
	// the replays ignore it too.
	s, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: opts, Validate: validate, IgnoreSchedConfig: true})
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
			res, err := Run(context.Background(), cfg, InProcess(newSession(t, "fcfs", sched.Options{"hosts": "first-fit"}, true)))
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

// The same run over ZeroMQ (bucma's own Session served by zmq.Serve)
// gives the same outputs as in-process, on the corpus' cases and on a
// generated case at times around 1e10 s, where the reply's numbers read
// back by Batsim (rapidjson) differ from the scheduler's.
func TestRemoteMatchesInProcess(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields", "large-times"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfgAt := func(prefix string) Config { return loadCase(t, name, prefix) }
			if name == "large-times" {
				cfgAt = func(prefix string) Config { return largeTimesCase(t, dir, prefix) }
			}
			cfg := cfgAt(filepath.Join(dir, "inproc"))
			if _, err := Run(context.Background(), cfg, InProcess(newSession(t, "easy", nil, true))); err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			bound := make(chan string, 1)
			served := make(chan error, 1)
			go func() {
				served <- zmq.Serve(ctx, zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Timeout: 20 * time.Second,
					Bound: func(ep string) { bound <- ep }}, newSession(t, "easy", nil, true))
			}()
			var ep string
			select {
			case ep = <-bound:
			case err := <-served:
				t.Fatalf("serve: %v", err)
			}
			rs, err := zmq.Remote(context.Background(), ep, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var sent int
			rs.Observe = func(dir batsim.Direction, raw []byte) {
				if dir == batsim.FromBatsim {
					sent++
				}
			}
			cfg = cfgAt(filepath.Join(dir, "remote"))
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

// largeTimesCase writes a generated platform and workload, submissions
// around 1e10 s, into dir and returns their configuration.
func largeTimesCase(t *testing.T, dir, prefix string) Config {
	t.Helper()
	pl, n := scenario.Platform(scenario.HeteroTies, 15)
	wl := scenario.Workload(15, n, scenario.Mix{Jobs: 120, Compute: true, Composed: true, Large: true})
	pp, wp := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
	if err := os.WriteFile(pp, pl, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wp, wl, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := platforms.Load(pp)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Load(wp)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Platform: p, Workloads: []*workloads.Workload{w}, ExportPrefix: prefix}
}

// An in-process reply reaches the engine with the numbers Batsim reads
// from its JSON; the scheduler's own events are left untouched.
func TestInProcessReplyAsRead(t *testing.T) {
	// 10000000000.000021 is written so and read back as 10000000000.00002.
	const now, read = 10000000000.000021, 10000000000.00002
	r := batsim.NewReply(now)
	if err := r.CallMeLater(now + 10); err != nil {
		t.Fatal(err)
	}
	if err := r.RejectJob("w0!1"); err != nil {
		t.Fatal(err)
	}
	m, err := InProcess(batsim.HandlerFunc(func(*batsim.Message) (*batsim.Reply, error) { return r, nil })).Exchange(&batsim.Message{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := batsim.NewDecoder(nil).Decode(r.Encode(), batsim.FromScheduler)
	if err != nil {
		t.Fatal(err)
	}
	if m.Now != read || m.Now != dec.Now {
		t.Errorf("now %v, want %v (decoded %v)", m.Now, read, dec.Now)
	}
	for i, ev := range m.Events {
		if ev.Timestamp != dec.Events[i].Timestamp || ev.Timestamp != read {
			t.Errorf("event %d: timestamp %v, decoded %v, want %v", i, ev.Timestamp, dec.Events[i].Timestamp, read)
		}
	}
	if at, want := m.Events[0].Data.(*batsim.CallMeLater).At, dec.Events[0].Data.(*batsim.CallMeLater).At; at != want {
		t.Errorf("CALL_ME_LATER at %v, decoded %v", at, want)
	}
	if r.Events()[0].Timestamp != now || r.Now() != now {
		t.Error("the scheduler's reply was modified")
	}
	empty, err := InProcess(batsim.HandlerFunc(func(*batsim.Message) (*batsim.Reply, error) { return nil, nil })).Exchange(&batsim.Message{Now: now})
	if err != nil || empty.Now != read {
		t.Errorf("empty reply: now %v, %v; want %v", empty.Now, err, read)
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
