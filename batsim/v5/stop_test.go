package v5_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
)

// TestStopKillsRunningJobs: a component that cannot go on (StopOnError)
// kills the jobs still running before it asks Batsim 5 to stop the
// simulation (Batsim 5.0.0-rc2 aborts when ForceSimulationStop finds a
// job running), once; the jobs of the reply that could not be sent were
// never started and are not killed.
func TestStopKillsRunningJobs(t *testing.T) {
	ls := transcript(t, "easy.jsonl")
	var submits []string
	for i := 2; i < len(ls); i += 2 {
		if strings.Contains(ls[i].Raw, `"JobSubmittedEvent"`) {
			submits = append(submits, ls[i].Raw)
		}
	}
	if len(submits) < 3 {
		t.Fatal("easy.jsonl has fewer than 3 submissions")
	}
	ends := `{"now":3.0,"events":[{"timestamp":3.0,"event_type":"SimulationEndsEvent","event":{}}]}`
	for _, c := range []struct {
		name string
		// second answers the second submission (job is its job)
		second    func(r *batsim.Reply, job string) error
		wantKills string // the stop's KillJobsEvent, "" for none
	}{
		{"an error of the process", func(*batsim.Reply, string) error { return errors.New("the process died") }, `"job_ids":["w0!1"]`},
		{"a start in the reply that cannot be translated", func(r *batsim.Reply, job string) error {
			if err := r.ExecuteJob(batsim.ExecuteJob{JobID: job, Alloc: batsim.IntervalSet{7}}); err != nil {
				return err
			}
			r.QueryConsumedEnergy()
			return nil
		}, `"job_ids":["w0!1"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
				r := batsim.NewReply(m.Now)
				for _, e := range m.Events {
					js, ok := e.Data.(*batsim.JobSubmitted)
					if !ok {
						continue
					}
					if n++; n == 1 {
						if err := r.ExecuteJob(batsim.ExecuteJob{JobID: js.JobID, Alloc: batsim.IntervalSet{0}}); err != nil {
							return nil, err
						}
					} else if err := c.second(r, js.JobID); err != nil {
						return nil, err
					}
				}
				return r, nil
			})
			e := v5.NewEDC(v5.Config{Name: "t"}, h)
			e.StopOnError = true
			for _, m := range []string{ls[2].Raw, submits[0]} {
				if _, _, err := e.Take([]byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			out, done, err := e.Take([]byte(submits[1]))
			if err != nil || done {
				t.Fatalf("%v %v", done, err)
			}
			kill := strings.Index(string(out), `"KillJobsEvent"`)
			stop := strings.Index(string(out), `"ForceSimulationStopEvent"`)
			if kill < 0 || stop < kill || !strings.Contains(string(out), c.wantKills) {
				t.Errorf("the stop: %s; want KillJobsEvent %s then ForceSimulationStopEvent", out, c.wantKills)
			}
			out, _, _ = e.Take([]byte(submits[2]))
			if strings.Contains(string(out), `"KillJobsEvent"`) || !strings.Contains(string(out), `"ForceSimulationStopEvent"`) {
				t.Errorf("the stop's second answer: %s; want ForceSimulationStopEvent alone", out)
			}
			if _, done, err := e.Take([]byte(ends)); !done || err == nil {
				t.Errorf("SimulationEnds: %v %v", done, err)
			}
		})
	}
}
