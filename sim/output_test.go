package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// failAfter drives an FCFS session and fails on the n-th message.
type failAfter struct {
	sched Scheduler
	n     int
}

var errStop = errors.New("scheduler stopped")

func (f *failAfter) Exchange(m *batsim.Message) (*batsim.Message, error) {
	if f.n--; f.n == 0 {
		return nil, errStop
	}
	return f.sched.Exchange(m)
}

// hetero4Run simulates the hetero4_delays case with FCFS (first-fit),
// failing on the failAt-th message when failAt > 0.
func hetero4Run(t *testing.T, prefix string, failAt int) error {
	t.Helper()
	dir := filepath.Join("testdata", "hetero4_delays")
	plat, err := platforms.Load(filepath.Join(dir, "platform.xml"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Load(filepath.Join(dir, "workload.json"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := policies.Builtin().Lookup("fcfs")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: sched.Options{"hosts": "first-fit"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	var sched Scheduler = InProcess(sess)
	if failAt > 0 {
		sched = &failAfter{sched: sched, n: failAt}
	}
	_, err = Run(context.Background(), Config{Platform: plat, Workloads: []*workloads.Workload{w}, ExportPrefix: prefix, Log: log}, sched)
	return err
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// A run that fails mid-simulation leaves the files of the previous run
// with the same prefix as they were, keeps the rows it wrote as
// PREFIX_jobs.csv.partial, and leaves no temporary file; a run that
// succeeds publishes both files and no partial one.
func TestOutputsStagedUntilSuccess(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	if err := hetero4Run(t, prefix, 0); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); len(got) != 2 || got[0] != "out_jobs.csv" || got[1] != "out_schedule.csv" {
		t.Fatalf("after a successful run the directory holds %v", got)
	}
	jobs, _ := os.ReadFile(prefix + "_jobs.csv")
	sched, _ := os.ReadFile(prefix + "_schedule.csv")
	want, _ := os.ReadFile(filepath.Join("testdata", "hetero4_delays", "out_jobs.csv"))
	if !bytes.Equal(jobs, want) {
		t.Fatalf("_jobs.csv differs from Batsim's:\n%s", jobs)
	}

	// Fail on the 12th message: several jobs have ended by then.
	if err := hetero4Run(t, prefix, 12); err == nil || !strings.Contains(err.Error(), errStop.Error()) {
		t.Fatalf("failing run: %v", err)
	}
	if got, _ := os.ReadFile(prefix + "_jobs.csv"); !bytes.Equal(got, jobs) {
		t.Errorf("the failed run changed the previous _jobs.csv:\n%s", got)
	}
	if got, _ := os.ReadFile(prefix + "_schedule.csv"); !bytes.Equal(got, sched) {
		t.Errorf("the failed run changed the previous _schedule.csv:\n%s", got)
	}
	partial, err := os.ReadFile(prefix + "_jobs.csv" + PartialSuffix)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(partial, []byte("\n"))
	if len(lines) < 3 || string(lines[0]) != JobsColumns+"\n" {
		t.Fatalf("partial file:\n%s", partial)
	}
	for _, l := range lines[1:] {
		if len(l) > 0 && !bytes.Contains(jobs, l) {
			t.Errorf("partial row %q is not a row of the complete run", l)
		}
	}
	if got := dirNames(t, dir); len(got) != 3 {
		t.Errorf("after the failed run the directory holds %v", got)
	}

	// A run failing before its first message writes nothing new.
	fresh := filepath.Join(t.TempDir(), "sub", "out")
	if err := hetero4Run(t, fresh, 1); err == nil || !strings.Contains(err.Error(), errStop.Error()) {
		t.Fatalf("failing run: %v", err)
	}
	if got := dirNames(t, filepath.Dir(fresh)); len(got) != 1 || got[0] != "out_jobs.csv"+PartialSuffix {
		t.Errorf("a run failing at once left %v", got)
	}
}

func TestStagedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := CreateStaged(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Fatalf("the final file changed before Commit: %q", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Fatalf("after Commit: %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}

	f, _ = CreateStaged(path)
	f.WriteString("cut")
	partial, err := f.Abort()
	if err != nil || partial != path+PartialSuffix {
		t.Fatalf("Abort: %q, %v", partial, err)
	}
	if got, _ := os.ReadFile(partial); string(got) != "cut" {
		t.Fatalf("partial: %q", got)
	}
	f, _ = CreateStaged(path)
	f.Discard()
	if got := dirNames(t, dir); len(got) != 2 {
		t.Errorf("directory holds %v", got)
	}
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Fatalf("Abort or Discard changed the final file: %q", got)
	}
	if _, err := CreateStaged(filepath.Join(dir, "missing", "f")); err == nil {
		t.Error("a staged file in a missing directory")
	}
}
