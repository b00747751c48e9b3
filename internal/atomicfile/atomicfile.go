// Package atomicfile writes files whole: readers see a file's old content
// or its new one, never a part. A campaign's files (plan.json, run.json,
// the workloads, the report and its figures) are written through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// TempPrefix begins the name of the temporary file Write writes before
// renaming it into place: a campaign removes what a killed writer left
// under that name.
const TempPrefix = ".tmp-"

// Write writes data to a temporary file next to path (TempPrefix, then
// path's name), syncs it and renames it over path, so readers see the old
// content or the new one, never a part. On failure the temporary file is
// removed and path is untouched.
func Write(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}
