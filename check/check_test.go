package check_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/internal/checkfixture"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

func TestMain(m *testing.M) {
	checkfixture.ServeIfAsked()
	os.Exit(m.Run())
}

var quiet = slog.New(slog.DiscardHandler)

// fixtureCommand is the command that starts fixture name (this test
// binary).
func fixtureCommand(t *testing.T, name string) check.Command {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return check.Command{Argv: checkfixture.Argv(self, name, check.Placeholder)}
}

// runFixture checks fixture name on its scenario with the engine.
func runFixture(t *testing.T, name string) *check.Result {
	t.Helper()
	f := checkfixture.Fixtures[name]
	run, err := checkfixture.Scenario(t, f.Scenario).Run(filepath.Join(t.TempDir(), f.Scenario))
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Player{Log: quiet}.CheckCommand(context.Background(), fixtureCommand(t, name), run, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestBrokenFixtures: each broken process is caught by the rule it breaks,
// and by that rule alone; the one breaking nothing, and the one whose
// decisions Batsim accepts although bucma's Decider would refuse them (a
// kill asked twice), are clean. Every rule bucma check reports but the
// decisions' rules that need a platform with power states or external
// events (sched's TestCheckerRules and the real-Batsim tier take those) has
// a fixture.
func TestBrokenFixtures(t *testing.T) {
	covered := map[string]bool{}
	for _, name := range checkfixture.Names() {
		f := checkfixture.Fixtures[name]
		covered[f.Rule] = true
		if checkfixture.Scenario(t, f.Scenario).Events != "" {
			continue // the real Batsim only (internal/realbatsim)
		}
		t.Run(name, func(t *testing.T) {
			res := runFixture(t, name)
			var got []string
			for _, x := range res.Findings {
				got = append(got, x.Rule.Name)
				if x.Msg == "" || x.String() == "" {
					t.Errorf("finding %+v says nothing", x)
				}
			}
			want := []string{}
			if f.Rule != "" {
				want = []string{f.Rule}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				for _, x := range res.Findings {
					t.Log(x)
				}
				t.Fatalf("%s (%s): findings %v, want %v", name, f.What, got, want)
			}
			if f.Rule == "" && !res.Ended {
				t.Errorf("a clean run did not reach the end of the simulation")
			}
			if name != "no-reply" && res.Process != "" {
				t.Errorf("the process did not end by itself: %s", res.Process)
			}
		})
	}
	for _, r := range check.Rules() {
		switch {
		case covered[r.Name]:
		case strings.HasPrefix(r.Name, "pstate-"), r.Name == "host-off", r.Name == "no-batsim5-equivalent":
		default:
			t.Errorf("rule %s has no broken fixture", r.Name)
		}
	}
}

// ownPlatform is the bundled platform, and the options, of the policies
// that need a platform of their own: OSEP its hosts' owners, the
// energy-aware ones their hosts' pstates (and batsched's energy variant
// its powers and switching times, those of the bot platform).
var ownPlatform = map[string]struct {
	platform string
	opts     sched.Options
}{
	"osep":            {"osep", nil},
	"osep-hetero":     {"osep", nil},
	"sleeper":         {"bot", sched.Options{"pstate-compute": "0", "pstate-sleep": "1"}},
	"batsched-energy": {"bot", sched.Options{"power-compute": "47.6845", "power-idle": "23.75", "power-sleep": "2.4375", "pstate-compute": "0", "pstate-sleep": "1", "time-switch-on": "151.52", "time-switch-off": "6.1", "energy-switch-on": "4741.6057", "energy-switch-off": "154.02"}},
}

// TestBuiltinPoliciesClean: bucma's own policies, in-process, break no
// rule on the scenarios the engine plays, with what each needs of Batsim
// (dynamic jobs, compute sharing, energy) and, for those that need one,
// their own platform (ownPlatform); a policy that reads fields of its own
// in the jobs (the bag-of-tasks policies) runs where the workload has
// them, so not on the scenarios.
func TestBuiltinPoliciesClean(t *testing.T) {
	reg := policies.Builtin()
	runs, skipped := 0, 0
	for _, name := range reg.Names() {
		spec, _ := reg.Lookup(name)
		for _, s := range check.Scenarios {
			if s.Events != "" {
				continue
			}
			run, err := s.Run(filepath.Join(t.TempDir(), s.Name))
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.CheckJobFields(jobsOf(t, run.Workloads[0])); err != nil {
				skipped++
				continue
			}
			run.DynamicJobs = run.DynamicJobs || spec.DynamicJobs
			run.AcknowledgeDynamicJobs = run.AcknowledgeDynamicJobs || spec.DynamicJobs
			run.ComputeSharing, run.Energy = spec.ComputeSharing, spec.Energy
			own, ok := ownPlatform[name]
			if ok {
				run.Platform = own.platform
			}
			sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: own.opts, Log: quiet})
			if err != nil {
				t.Fatal(err)
			}
			res, err := run.Engine(context.Background(), sim.InProcess(sess), quiet)
			if err != nil {
				t.Errorf("%s on %s: %v", name, s.Name, err)
				continue
			}
			runs++
			for _, f := range res.Findings {
				t.Errorf("%s on %s: %s", name, s.Name, f)
			}
		}
	}
	t.Logf("bucma's %d policies: %d runs clean, %d skipped (job fields the workloads do not have)", len(reg.Names()), runs, skipped)
}

func jobsOf(t *testing.T, path string) func(yield func([]byte) bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Jobs []jsonRaw `json:"jobs"`
	}
	if err := jsonUnmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return func(yield func([]byte) bool) {
		for _, j := range w.Jobs {
			if !yield(j) {
				return
			}
		}
	}
}

type jsonRaw = json.RawMessage

var jsonUnmarshal = json.Unmarshal

// TestRulesInDocs: docs/check.md's table of rules is check.Rules(): the same
// rules, in order, each with what Batsim does.
func TestRulesInDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "check.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "<!-- bucma check rules (TestRulesInDocs) -->")
	if i < 0 {
		t.Fatal("docs/check.md has no table of rules")
	}
	effect := map[sched.Effect]string{sched.Aborts: "aborts", sched.Misreads: "misreads", sched.Hangs: "never ends"}
	var want, got []string
	for _, r := range check.Rules() {
		want = append(want, fmt.Sprintf("%s %s", r.Name, effect[r.Effect]))
	}
	for _, l := range strings.Split(doc[i:], "\n")[3:] {
		if !strings.HasPrefix(l, "| `") {
			break
		}
		cells := strings.Split(l, "|")
		got = append(got, strings.Trim(strings.TrimSpace(cells[1]), "`")+" "+strings.TrimSpace(cells[2]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/check.md's rules:\n%s\nbucma check's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
