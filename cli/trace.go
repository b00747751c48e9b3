package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// traceFile is the decision trace of a run (one CSV row per job, written
// and flushed as each job ends; columns in sched.TraceColumns). It is
// written to a staged file: published at its path when the run succeeds,
// kept as PATH.partial when it fails, so that a failed run leaves the trace
// of an earlier run in place.
type traceFile struct {
	*sched.Trace
	f *sim.StagedFile
}

// newSession builds the session of an in-process policy whose options the
// caller has checked already (sched.NewSession). With a trace path,
// the decision trace is created and observes the session.
func newSession(cfg sched.SessionConfig, tracePath string) (*sched.Session, *traceFile, error) {
	tr, err := openTrace(tracePath)
	if err != nil {
		return nil, nil, err
	}
	if tr != nil {
		cfg.Observers = append(append([]sched.Observer(nil), cfg.Observers...), tr)
	}
	s, err := sched.NewSession(cfg)
	if err != nil {
		tr.discard()
		return nil, nil, err
	}
	return s, tr, nil
}

// openTrace creates the decision trace at path (nil without a path), for
// the sessions to come to be observed by.
func openTrace(path string) (*traceFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := sim.CreateStaged(path)
	if err != nil {
		return nil, fmt.Errorf("decision trace %s: %w", path, withoutPath(err))
	}
	tr := &traceFile{Trace: sched.NewTrace(f), f: f}
	if err := tr.Err(); err != nil {
		f.Discard()
		return nil, fmt.Errorf("decision trace %s: %w", path, withoutPath(err))
	}
	return tr, nil
}

// commit publishes the trace. A nil trace does nothing.
func (t *traceFile) commit() error {
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

// abort keeps the rows written so far as PATH.partial and returns that
// path ("" for a nil trace or when it could not be kept).
func (t *traceFile) abort() string {
	if t == nil {
		return ""
	}
	partial, err := t.f.Abort()
	if err != nil {
		return ""
	}
	return partial
}

// discard removes the trace unless it was committed or aborted. A nil
// trace does nothing.
func (t *traceFile) discard() {
	if t != nil {
		t.f.Discard()
	}
}

// partialWatch tells whether a run left a partial output file: one that
// did not exist before the run, or was replaced during it.
type partialWatch struct {
	path   string
	before os.FileInfo
}

func watchPartial(path string) partialWatch {
	st, _ := os.Stat(path)
	return partialWatch{path: path, before: st}
}

// written returns the path when the run wrote the file, else "".
func (w partialWatch) written() string {
	if w.path == "" {
		return ""
	}
	st, err := os.Stat(w.path)
	if err != nil || w.before != nil && os.SameFile(w.before, st) {
		return ""
	}
	return w.path
}

// partialNote tells, after a failed run, where the rows written before the
// failure were kept, and that the outputs of earlier runs were left as
// they were ("" when nothing was kept).
func partialNote(partials ...string) string {
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
