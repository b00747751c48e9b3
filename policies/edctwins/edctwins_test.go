package edctwins_test

import (
	"context"
	"encoding/csv"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies/edctwins"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

const doc = `{"nb_res":12,"jobs":[
 {"id":1,"subtime":0,"res":2,"profile":"d10","walltime":100},
 {"id":2,"subtime":0,"res":13,"profile":"d10"},
 {"id":3,"subtime":1,"res":3,"profile":"d3"},
 {"id":4,"subtime":1,"res":1,"profile":"d10","walltime":20}],
 "profiles":{"d10":{"type":"delay","delay":10},"d3":{"type":"delay","delay":3}}}`

type row struct{ state, start, finish, alloc string }

// simulate drives a twin through bucma's engine on the OSEP platform (12 hosts)
// and returns the jobs' rows and the replies.
func simulate(t *testing.T, policy string, opts sched.Options) (map[string]row, []*batsim.Message) {
	t.Helper()
	var spec *sched.Spec
	for _, s := range edctwins.Specs() {
		if s.Name == policy {
			s := s
			spec = &s
		}
	}
	if spec == nil {
		t.Fatalf("no twin %s", policy)
	}
	w, err := workloads.Parse([]byte(doc), "w.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := platforms.Bundled("osep")
	if err != nil {
		t.Fatal(err)
	}
	var replies []*batsim.Message
	prefix := filepath.Join(t.TempDir(), "out")
	_, err = run.Simulate(context.Background(), run.Simulation{
		Inputs: run.Inputs{PlatformData: p, WorkloadData: []*workloads.Workload{w}},
		Policy: &run.Policy{Spec: spec, Options: opts, Validate: true, Log: slog.New(slog.DiscardHandler)},
		Export: prefix,
		Configure: func(cfg *sim.Config) {
			cfg.Observe = func(d batsim.Direction, m *batsim.Message) {
				if d == batsim.FromScheduler {
					replies = append(replies, m)
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(prefix + "_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]row{}
	for _, r := range recs[1:] {
		out[r[0]] = row{state: r[7], start: r[8], finish: r[10], alloc: r[14]}
	}
	return out, replies
}

func secs(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

func TestExec1by1(t *testing.T) {
	rows, _ := simulate(t, "edc-exec1by1", nil)
	if rows["2"].state != batsim.StateRejected {
		t.Errorf("the job bigger than the platform: %+v", rows["2"])
	}
	order := []string{"1", "3", "4"}
	for i, id := range order {
		r := rows[id]
		if r.state != batsim.StateSuccess || r.alloc != map[string]string{"1": "0-1", "3": "0-2", "4": "0"}[id] {
			t.Errorf("job %s: %+v", id, r)
		}
		if i > 0 && secs(r.start) < secs(rows[order[i-1]].finish) {
			t.Errorf("job %s starts before job %s ends", id, order[i-1])
		}
	}
}

func TestKiller(t *testing.T) {
	rows, replies := simulate(t, "edc-killer", sched.Options{"kill-delay": "4"})
	for _, id := range []string{"1", "3", "4"} {
		r := rows[id]
		want := batsim.StateKilled
		if id == "3" { // 3 s of work, done before its kill
			want = batsim.StateSuccess
		}
		if r.state != want {
			t.Errorf("job %s: %+v, want %s", id, r, want)
		}
	}
	if d := secs(rows["1"].finish) - secs(rows["1"].start); d < 3.9999 || d > 4.0001 {
		t.Errorf("job 1 ran %v s, want the kill delay", d)
	}
	// The kill is dated kill-delay after the start, in the reply that
	// starts the job.
	found := false
	for _, m := range replies {
		if len(m.Events) == 2 && m.Events[0].Type == batsim.TypeExecuteJob && m.Events[1].Type == batsim.TypeKillJob {
			d := m.Events[1].Timestamp - m.Events[0].Timestamp
			found = d > 4-1e-9 && d < 4+1e-9 && m.Now == m.Events[1].Timestamp
			break
		}
	}
	if !found {
		t.Error("no reply starts a job and kills it 4 s later")
	}
	if _, err := edctwinsSpec("edc-killer").New(sched.Options{"kill-delay": "soon"}); err == nil {
		t.Error("a bad kill-delay was accepted")
	}
}

func edctwinsSpec(name string) sched.Spec {
	for _, s := range edctwins.Specs() {
		if s.Name == name {
			return s
		}
	}
	return sched.Spec{}
}

func TestRejecter(t *testing.T) {
	rows, _ := simulate(t, "edc-rejecter", nil)
	for id, r := range rows {
		if r.state != batsim.StateRejected {
			t.Errorf("job %s: %+v", id, r)
		}
	}
	if len(rows) != 4 {
		t.Errorf("%d rows", len(rows))
	}
}

// edc-fcfs places the rejection of the job bigger than the platform before
// the starts of the same reply; bucma's fcfs where its walk meets it.
func TestFCFSRejectionPlacement(t *testing.T) {
	_, replies := simulate(t, "edc-fcfs", nil)
	first := replies[1]
	for _, m := range replies {
		for _, e := range m.Events {
			if e.Type == batsim.TypeRejectJob {
				first = m
			}
		}
	}
	if len(first.Events) < 2 || first.Events[0].Type != batsim.TypeRejectJob || first.Events[1].Type != batsim.TypeExecuteJob {
		t.Errorf("reply with the rejection: %+v", first.Events)
	}
}
