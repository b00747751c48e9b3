package realbatsim5

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/internal/checkfixture"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// check5 checks the process argv starts on scenario s with the real
// Batsim 5 (through the bridge's adapter); nil when Batsim 5 cannot play
// the scenario.
func check5(t *testing.T, argv []string, s check.Scenario, dir string) *check.Result {
	t.Helper()
	return checkfixture.Check(t, check.Player{Batsim5: batsim5(t), Log: slog.New(slog.DiscardHandler)}, argv, s, dir)
}

// TestCheckFixturesOnBatsim5: the broken fixtures checked on the real
// Batsim 5 through the bridge's adapter break the rules they break with the
// engine (Batsim 4's), but for the QUERY, which Batsim 5 cannot express
// (the bridge stops the simulation); the three processes end whatever the
// rule. Which of Batsim 4's aborts Batsim 5 aborts on too is logged.
func TestCheckFixturesOnBatsim5(t *testing.T) {
	batsim5(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmpRoot, "check-fixtures")
	for _, name := range checkfixture.Names() {
		f := checkfixture.Fixtures[name]
		t.Run(name, func(t *testing.T) {
			s, _ := check.ScenarioNamed(f.Scenario)
			argv := checkfixture.Argv(self, name, check.Placeholder)
			res := check5(t, argv, s, filepath.Join(root, name))
			if res == nil {
				t.Skipf("Batsim 5 cannot play scenario %s", s.Name)
			}
			want := []string{}
			switch {
			case f.Rule == "batsim-aborts":
				want = []string{"no-batsim5-equivalent"}
			case f.Rule != "":
				want = []string{f.Rule}
			}
			if fmt.Sprint(res.RuleNames()) != fmt.Sprint(want) {
				for _, x := range res.Findings {
					t.Log(x)
				}
				t.Fatalf("with Batsim 5: findings %v, want %v", res.RuleNames(), want)
			}
			for _, x := range res.Findings {
				if x.Batsim != "" {
					t.Logf("Batsim 5 aborts too: %s", x.Batsim)
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

// TestCheckBatsched5: bucma check of batsched 1.4.0's deterministic
// variants on the scenarios Batsim 5 plays, through the bridge: what it
// finds is docs/check.md's Batsim 5 table.
func TestCheckBatsched5(t *testing.T) {
	batsim5(t)
	bs := batsimrun.Batsched(t)
	root := filepath.Join(tmpRoot, "check-batsched")
	var rows strings.Builder
	for _, v := range checkfixture.BatschedVariants {
		var found []string
		for _, s := range check.Scenarios {
			res := check5(t, []string{bs, "-v", v, "-s", check.Placeholder}, s, filepath.Join(root, v, s.Name))
			if res == nil {
				continue
			}
			for _, r := range res.RuleNames() {
				found = append(found, s.Name+": "+r)
			}
		}
		rows.WriteString(fmt.Sprintf("| `%s` | %s |\n", v, checkfixture.Cell(found)))
	}
	got, err := checkfixture.DocTable(filepath.Join("..", "..", "docs", "check.md"), "<!-- bucma check on batsched: Batsim 5 (TestCheckBatsched5) -->")
	if err != nil {
		t.Fatal(err)
	}
	if got != rows.String() {
		t.Errorf("docs/check.md's Batsim 5 table is\n%s\nthe runs give\n%s", got, rows.String())
	}
}
