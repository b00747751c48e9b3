package pull_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run/pull"
)

// plan writes a small campaign file: two policies on windows of the test
// trace, two seeds.
func plan(t *testing.T, dir, variants string) string {
	t.Helper()
	swf, err := filepath.Abs(filepath.Join("..", "..", "testdata", "cluster.swf"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "small.yaml")
	text := "name: small\nplatform: lille\nworkload:\n  generator: swf\n  file: " + swf +
		"\n  steps: [window, scale-load]\n  window_jobs: 60\nloads: [0.8]\nseeds: 1-2\nvariants:\n" + variants
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A campaign runs as a task: Running until its end, then its output
// names results.csv; a bad plan is refused before anything runs, naming
// the file, the line and the key.
func TestCampaign(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, dir, "  - {name: easy, policy: easy}\n  - {name: fcfs, policy: fcfs}\n")
	r, err := pull.Campaign(pull.CampaignConfig{Plan: p, Out: filepath.Join(dir, "out"), Workers: 2}, policies.Builtin(), nil, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == pull.Done {
			break
		}
		if k != pull.Running {
			t.Fatalf("a task's point: %s", k)
		}
	}
	out, _ := r.ResultJSON()
	var res struct {
		Results string
		Total   int
		Done    int
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Total != 4 || res.Done != 4 {
		t.Fatalf("output %s: %v", out, err)
	}
	if b, err := os.ReadFile(res.Results); err != nil || !strings.Contains(string(b), "easy") {
		t.Fatalf("results.csv: %v", err)
	}
	bad := plan(t, t.TempDir(), "  - {name: easy, policy: eazy}\n")
	if _, err := pull.Campaign(pull.CampaignConfig{Plan: bad}, policies.Builtin(), nil, 0); err == nil ||
		!strings.Contains(err.Error(), "small.yaml:") || !strings.Contains(err.Error(), "eazy") {
		t.Errorf("a bad plan: %v", err)
	}
	if _, err := pull.Campaign(pull.CampaignConfig{Plan: "no-such-plan"}, policies.Builtin(), nil, 0); err == nil || !strings.Contains(err.Error(), "no-such-plan") {
		t.Errorf("an unknown plan: %v", err)
	}
}

// Closing a task cancels its context and waits for it to return.
func TestTaskClose(t *testing.T) {
	returned := false
	r := pull.Task(func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		returned = true
		return nil, ctx.Err()
	}, time.Millisecond)
	if k, err := r.Next(); k != pull.Running || err != nil {
		t.Fatalf("a busy task: %s, %v", k, err)
	}
	if err := r.Close(nil); !errors.Is(err, pull.ErrClosed) || !returned {
		t.Fatalf("close: %v (returned %v)", err, returned)
	}
	if k, err := r.Next(); k != pull.Done || !errors.Is(err, pull.ErrClosed) {
		t.Errorf("after close: %s, %v", k, err)
	}
}
