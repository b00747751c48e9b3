package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// fieldsSeen records the fields of every job a session took in.
type fieldsSeen struct{ rows []string }

func (f *fieldsSeen) Submitted(_ *sched.State, j *sched.Job) {
	f.rows = append(f.rows, fmt.Sprintf("%s res=%d walltime=%v profile=%q user=%q", j.ID(), j.Res(), j.Walltime(), j.Profile(), j.User()))
}
func (f *fieldsSeen) Started(*sched.State, *sched.Job) {}
func (f *fieldsSeen) Ended(*sched.State, *sched.Job)   {}

// untyped hides that a scheduler takes typed jobs: the engine sends their
// JSON descriptions alone.
type untyped struct{ s Scheduler }

func (u untyped) Exchange(m *batsim.Message) (*batsim.Message, error) { return u.s.Exchange(m) }

// jsonSeen counts the submissions that carried a JSON description and
// those that carried fields.
type jsonSeen struct {
	s            batsim.Handler
	json, fields int
}

func (c *jsonSeen) Handle(m *batsim.Message) (*batsim.Reply, error) {
	for _, ev := range m.Events {
		if d, ok := ev.Data.(*batsim.JobSubmitted); ok {
			if d.Job != nil {
				c.json++
			}
			if d.Fields != nil {
				c.fields++
			}
		}
	}
	return c.s.Handle(m)
}

func (c *jsonSeen) NeedsJobJSON() bool { return c.s.(*sched.Session).NeedsJobJSON() }

// The fields a session is handed as values are the ones it reads from the
// jobs' JSON descriptions, and the simulation is the same: on the corpus'
// cases and on jobs whose walltimes Batsim's 6-decimal text rounds
// (through a workload file, as bucma simulate reads it, and as a
// workloads.Workload), and with jobs the engine leaves to the JSON (a user
// member, a member named like a field but in another case, a walltime
// beyond the typed ones).
func TestTypedJobsReadAsTheirJSON(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	var jobs, profs []string
	walls := []string{"0.0000005", "1.0000005", "12.3456785", "1e-7", "3999999999.9999995", "4000000001.5", "-1", "100", "2.5e3", "7200.000000499999"}
	for i, w := range walls {
		extra := ""
		switch i % 4 {
		case 1:
			extra = `,"user":"u` + fmt.Sprint(i) + `"`
		case 2:
			extra = `,"Walltime":5`
		}
		jobs = append(jobs, fmt.Sprintf(`{"id":%d,"subtime":%d,"res":%d,"profile":"p%d","walltime":%s%s}`, i, i, 1+i%2, i%3, w, extra))
	}
	for i := 0; i < 3; i++ {
		profs = append(profs, fmt.Sprintf(`"p%d":{"type":"delay","delay":%d.25}`, i, 3+i))
	}
	if err := os.WriteFile(odd, []byte(`{"nb_res":2,"jobs":[`+strings.Join(jobs, ",")+`],"profiles":{`+strings.Join(profs, ",")+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := policies.Builtin().Lookup("easy")
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		name     string
		platform *platforms.Platform
		file     string
	}
	var inputs []input
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields"} {
		p, err := platforms.Load(filepath.Join("testdata", name, "platform.xml"))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{name, p, filepath.Join("testdata", name, "workload.json")})
	}
	inputs = append(inputs, input{"odd", genPlatform(2, []float64{1e9}), odd})
	for _, in := range inputs {
		for _, preloaded := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/preloaded=%v", in.name, preloaded), func(t *testing.T) {
				// typed: through a counter of what the jobs carry; reused:
				// the session itself, which reuses its replies.
				const (
					modeJSON = iota
					modeTyped
					modeReused
				)
				run := func(mode int) (*fieldsSeen, *jsonSeen, []byte) {
					seen := &fieldsSeen{}
					sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Validate: true, Observers: []sched.Observer{seen}})
					if err != nil {
						t.Fatal(err)
					}
					count := &jsonSeen{s: sess}
					var s Scheduler = InProcess(count)
					switch mode {
					case modeJSON:
						s = untyped{s}
					case modeReused:
						s = InProcess(sess)
					}
					cfg := Config{Platform: in.platform, ExportPrefix: filepath.Join(t.TempDir(), "out")}
					abs, _ := filepath.Abs(in.file)
					if preloaded {
						p := Preload(abs, "w0")
						if p == nil {
							t.Fatal("not preloaded")
						}
						cfg.Preloaded = []*Preloaded{p}
					} else {
						w, err := workloads.Load(abs)
						if err != nil {
							t.Fatal(err)
						}
						cfg.Workloads = []*workloads.Workload{w}
					}
					if _, err := Run(context.Background(), cfg, s); err != nil {
						t.Fatal(err)
					}
					out, err := os.ReadFile(cfg.ExportPrefix + "_jobs.csv")
					if err != nil {
						t.Fatal(err)
					}
					return seen, count, out
				}
				typed, counts, typedOut := run(modeTyped)
				asJSON, jsonCounts, jsonOut := run(modeJSON)
				reusedSeen, _, reusedOut := run(modeReused)
				if !slices.Equal(reusedSeen.rows, typed.rows) || string(reusedOut) != string(typedOut) {
					t.Errorf("the session reusing its replies simulates another run")
				}
				if !slices.Equal(typed.rows, asJSON.rows) {
					for i := range typed.rows {
						if i < len(asJSON.rows) && typed.rows[i] != asJSON.rows[i] {
							t.Errorf("typed %s\nJSON  %s", typed.rows[i], asJSON.rows[i])
						}
					}
					t.Fatalf("%d jobs typed, %d from JSON", len(typed.rows), len(asJSON.rows))
				}
				if string(typedOut) != string(jsonOut) {
					t.Errorf("_jobs.csv differs")
				}
				if jsonCounts.fields != 0 || jsonCounts.json != len(asJSON.rows) {
					t.Errorf("untyped: %d descriptions, %d with fields, for %d jobs", jsonCounts.json, jsonCounts.fields, len(asJSON.rows))
				}
				// Every job of users_fields has a user: the engine leaves
				// them all to the JSON.
				if counts.fields == 0 && in.name != "users_fields" {
					t.Errorf("typed: no job was handed as values")
				}
				// The JSON goes with the jobs only while the policy is
				// not built (the first message) and for those the engine
				// leaves to it.
				if counts.json+counts.fields-len(typed.rows) > 1 && counts.json == len(typed.rows) {
					t.Errorf("typed: every description sent (%d of %d jobs)", counts.json, len(typed.rows))
				}
				t.Logf("%d jobs: %d as values, %d as JSON", len(typed.rows), counts.fields, counts.json)
			})
		}
	}
}
