package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"bucma/schedulers"
)

// openTrace creates the decision trace file at path (one CSV row per job,
// written and flushed as each job ends; columns in schedulers.TraceColumns).
// The close function reports the first write error, if any, and closes the
// file; calling it again does nothing.
func openTrace(path string) (schedulers.Observer, func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, fmt.Errorf("decision trace %s: %w", path, err)
	}
	t := schedulers.NewTrace(f)
	if err := t.Err(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	closed := false
	closeFn := func() error {
		if closed {
			return nil
		}
		closed = true
		werr := t.Err()
		cerr := f.Close()
		if werr != nil {
			return fmt.Errorf("%s: %w", path, werr)
		}
		if cerr != nil {
			return fmt.Errorf("decision trace %s: %w", path, cerr)
		}
		return nil
	}
	return t, closeFn, nil
}
