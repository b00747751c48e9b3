package realbatsim

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/internal/checkfixture"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// checkWith checks the process argv starts on scenario s, with the real
// Batsim 4 bin ("": the engine).
func checkWith(t *testing.T, bin string, argv []string, s check.Scenario, dir string) *check.Result {
	t.Helper()
	return checkfixture.Check(t, check.Player{Batsim: bin, Log: slog.New(slog.DiscardHandler)}, argv, s, dir)
}

// TestCheckFixturesOnBatsim: the rules bucma check holds a process to are
// the real Batsim's. Each broken fixture, checked with Batsim 4.2.1 in the
// engine's place, breaks the same rule as with the engine; where the rule
// says Batsim aborts, Batsim does abort on that reply (its own message is
// the finding's); where it says Batsim misreads, Batsim goes on to the
// end; the clean fixtures end with no finding. The fixture that ignores
// machine unavailability runs here only (the engine does not model
// external events).
func TestCheckFixturesOnBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, name := range checkfixture.Names() {
		f := checkfixture.Fixtures[name]
		t.Run(name, func(t *testing.T) {
			s := checkfixture.Scenario(t, f.Scenario)
			argv := checkfixture.Argv(self, name, check.Placeholder)
			res := checkWith(t, bin, argv, s, filepath.Join(root, name))
			want := []string{}
			if f.Rule != "" {
				want = []string{f.Rule}
			}
			if fmt.Sprint(res.RuleNames(), "") != fmt.Sprint(want, "") {
				for _, x := range res.Findings {
					t.Log(x)
				}
				t.Fatalf("with Batsim 4.2.1: findings %v, want %v", res.RuleNames(), want)
			}
			if s.Events == "" {
				if eng := checkWith(t, "", argv, s, filepath.Join(root, name, "engine")); fmt.Sprint(eng.RuleNames()) != fmt.Sprint(res.RuleNames()) {
					t.Errorf("the engine finds %v, Batsim 4.2.1 %v", eng.RuleNames(), res.RuleNames())
				}
			}
			for _, x := range res.Findings {
				switch x.Rule.Effect {
				case sched.Aborts:
					if x.Batsim == "" && x.Rule.Name != "batsim-aborts" {
						t.Errorf("Batsim did not abort on %s", x)
					}
				case sched.Misreads:
					if !res.Ended {
						t.Errorf("Batsim did not go on to the end after %s", x)
					}
				}
			}
			if f.Rule == "" && !res.Ended {
				t.Error("a clean run did not reach the end of the simulation")
			}
			if name != "no-reply" && res.Process != "" {
				t.Errorf("the process did not end by itself: %s", res.Process)
			}
		})
	}
}

// TestCheckBatsched: bucma check of batsched 1.4.0's deterministic
// variants on the scenarios, with the engine and with Batsim 4.2.1: the
// two find the same on the scenarios both play, and what they find is
// docs/check.md's table (the Batsim 5 column is internal/realbatsim5's).
func TestCheckBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	root := t.TempDir()
	var rows strings.Builder
	for _, v := range checkfixture.BatschedVariants {
		var engine, batsim4 []string
		for _, s := range check.Scenarios {
			argv := []string{bs, "-v", v, "-s", check.Placeholder}
			res := checkWith(t, bin, argv, s, filepath.Join(root, v, s.Name))
			for _, r := range res.RuleNames() {
				batsim4 = append(batsim4, s.Name+": "+r)
			}
			if s.Events != "" {
				continue
			}
			eng := checkWith(t, "", argv, s, filepath.Join(root, v, s.Name, "engine"))
			if fmt.Sprint(eng.RuleNames()) != fmt.Sprint(res.RuleNames()) {
				t.Errorf("%s on %s: the engine finds %v, Batsim 4.2.1 %v\nthe engine's: %v (%s)\nBatsim 4.2.1's: %v (%s)", v, s.Name, eng.RuleNames(), res.RuleNames(), eng.Findings, eng.Process, res.Findings, res.Process)
			}
			for _, r := range eng.RuleNames() {
				engine = append(engine, s.Name+": "+r)
			}
		}
		rows.WriteString(fmt.Sprintf("| `%s` | %s | %s |\n", v, checkfixture.Cell(engine), checkfixture.Cell(batsim4)))
	}
	got, err := checkfixture.DocTable(filepath.Join("..", "..", "docs", "check.md"), "<!-- bucma check on batsched: engine and Batsim 4 (TestCheckBatsched) -->")
	if err != nil {
		t.Fatal(err)
	}
	if got != rows.String() {
		t.Errorf("docs/check.md's table is\n%s\nthe runs give\n%s", got, rows.String())
	}
}
