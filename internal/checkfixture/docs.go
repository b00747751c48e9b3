package checkfixture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/check"
)

// BatschedVariants are batsched's variants bucma check's findings are
// listed for in docs/check.md: the deterministic ones that need neither
// variant options nor a platform with power states.
var BatschedVariants = []string{"fcfs_fast", "fcfs", "easy_bf", "easy_bf_fast", "conservative_bf", "filler", "sequencer",
	"rejecter", "killer", "killer2", "submitter", "waiting_time_estimator"}

// Cell is a table cell listing findings ("none" when none).
func Cell(findings []string) string {
	if len(findings) == 0 {
		return "none"
	}
	return strings.Join(findings, "; ")
}

// DocTable returns the rows ("| `...") of the table that follows marker in
// the Markdown file path, one per line.
func DocTable(path, marker string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	doc := string(b)
	i := strings.Index(doc, marker)
	if i < 0 {
		return "", fmt.Errorf("%s has no %s", path, marker)
	}
	var rows strings.Builder
	for _, l := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(l, "| `") {
			rows.WriteString(l + "\n")
		} else if rows.Len() > 0 {
			break
		}
	}
	return rows.String(), nil
}

// Check checks the process argv starts on scenario s with player, its files
// in dir; nil when player cannot play the scenario (check.ErrNeedsBatsim,
// check.ErrNotBatsim5). A check that does not end within three minutes (a
// guard, not a timing) fails t.
func Check(t testing.TB, player check.Player, argv []string, s check.Scenario, dir string) *check.Result {
	t.Helper()
	run, err := s.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := player.CheckCommand(ctx, check.Command{Argv: argv}, run, dir)
	if errors.Is(err, check.ErrNotBatsim5) || errors.Is(err, check.ErrNeedsBatsim) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the check did not end")
	}
	return res
}

// Scenario is bucma check's scenario named name (t fails without one).
func Scenario(t testing.TB, name string) check.Scenario {
	t.Helper()
	s, ok := check.ScenarioNamed(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	return s
}
