package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// TraceFile is the decision trace of a run (one CSV row per job, written
// and flushed as each job ends; columns in sched.TraceColumns). It is
// written to a staged file: published at its path when the run succeeds,
// kept as PATH.partial when it fails, so that a failed run leaves the trace
// of an earlier run in place.
type TraceFile struct {
	*sched.Trace
	f *sim.StagedFile
}

// OpenTrace creates the decision trace at path (nil without a path), for
// the sessions to come to be observed by.
func OpenTrace(path string) (*TraceFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := sim.CreateStaged(path)
	if err != nil {
		return nil, fmt.Errorf("decision trace %s: %w", path, withoutPath(err))
	}
	tr := &TraceFile{Trace: sched.NewTrace(f), f: f}
	if err := tr.Err(); err != nil {
		f.Discard()
		return nil, fmt.Errorf("decision trace %s: %w", path, withoutPath(err))
	}
	return tr, nil
}

// Commit publishes the trace. A nil trace does nothing.
func (t *TraceFile) Commit() error {
	if t == nil {
		return nil
	}
	if err := t.Err(); err != nil {
		partial, _ := t.f.Abort()
		return fmt.Errorf("decision trace %s: %w (the rows written are in %s)", t.f.Path(), withoutPath(err), partial)
	}
	if err := t.f.Commit(); err != nil {
		return fmt.Errorf("decision trace %w", err)
	}
	return nil
}

// Abort keeps the rows written so far as PATH.partial and returns that
// path ("" for a nil trace or when it could not be kept).
func (t *TraceFile) Abort() string {
	if t == nil {
		return ""
	}
	partial, err := t.f.Abort()
	if err != nil {
		return ""
	}
	return partial
}

// Discard removes the trace unless it was committed or aborted. A nil
// trace does nothing.
func (t *TraceFile) Discard() {
	if t != nil {
		t.f.Discard()
	}
}

// PartialWatch tells whether a run left a partial output file: one that
// did not exist before the run, or was replaced during it.
type PartialWatch struct {
	path   string
	before os.FileInfo
}

// WatchPartial watches path, a partial output file a run may write.
func WatchPartial(path string) PartialWatch {
	st, _ := os.Stat(path)
	return PartialWatch{path: path, before: st}
}

// Written returns the path when the run wrote the file, else "".
func (w PartialWatch) Written() string {
	if w.path == "" {
		return ""
	}
	st, err := os.Stat(w.path)
	if err != nil || w.before != nil && os.SameFile(w.before, st) {
		return ""
	}
	return w.path
}

// PartialNote tells, after a failed run, where the rows written before the
// failure were kept, and that the outputs of earlier runs were left as
// they were ("" when nothing was kept).
func PartialNote(partials ...string) string {
	var kept []string
	for _, p := range partials {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the rows written before the failure are in %s; earlier outputs are untouched)", strings.Join(kept, " and "))
}

// withoutPath drops the file name of a *fs.PathError: the messages built
// here name the file already.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
