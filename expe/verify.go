package expe

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/bucma-sched/bucma/expe/analysis"
	json "github.com/goccy/go-json"
)

// ScheduleFile is the schedule summary Batsim writes next to JobsFile.
const ScheduleFile = OutPrefix + "_schedule.csv"

// outputFiles are the files of a run directory whose checksums run.json
// records when the run completes: the jobs file (always) and the schedule
// file and decision trace when the engine wrote them.
var outputFiles = []string{JobsFile, ScheduleFile, TraceFile}

// OutputDigest is the checksum of one output file of a run.
type OutputDigest struct {
	File   string `json:"file"` // name inside the run directory
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"` // hex
	// WithoutColumns, when set, are the columns of a CSV file whose values
	// Bytes and SHA256 leave out (ScheduleFile's wall-clock times, which
	// differ from one execution of the run to the next): they count the
	// file with those values emptied.
	WithoutColumns []string `json:"without_columns,omitempty"`
}

// WallClockColumns are the columns of ScheduleFile that measure the
// execution rather than the simulation: a run replayed with its cmd.txt
// writes other values there, and verification leaves them out.
var WallClockColumns = []string{"scheduling_time", "simulation_time"}

// WithoutColumns returns the CSV data with the values of the named columns
// emptied (the header kept), re-encoded as encoding/csv writes it.
func WithoutColumns(data []byte, columns []string) ([]byte, error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no header")
	}
	for i, k := range rows[0] {
		if slices.Contains(columns, k) {
			for _, r := range rows[1:] {
				if i < len(r) {
					r[i] = ""
				}
			}
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// columnsDigest is the digest of the CSV file at path without the values
// of columns.
func columnsDigest(path string, columns []string) (OutputDigest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return OutputDigest{}, err
	}
	kept, err := WithoutColumns(data, columns)
	if err != nil {
		return OutputDigest{}, fmt.Errorf("not a CSV file: %w", err)
	}
	sum := sha256.Sum256(kept)
	return OutputDigest{File: filepath.Base(path), Bytes: int64(len(kept)), SHA256: hex.EncodeToString(sum[:]), WithoutColumns: columns}, nil
}

// VerifyError is a completed run whose outputs are not the ones it
// finished with.
type VerifyError struct {
	Run  string // run id
	File string // path of the offending file
	Msg  string
}

// Error implements error.
func (e *VerifyError) Error() string {
	return fmt.Sprintf("run %s: %s: %s", e.Run, e.File, e.Msg)
}

// fileDigest hashes the file at path; with rows set, it also reads it as
// a jobs file and stores its rows there.
func fileDigest(path string, rows *[]analysis.JobRow) (OutputDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return OutputDigest{}, err
	}
	defer f.Close()
	h := sha256.New()
	var n int64
	if rows != nil {
		tee := &countingWriter{w: h}
		jr, err := analysis.ReadJobsCSV(io.TeeReader(f, tee))
		if err != nil {
			return OutputDigest{}, err
		}
		// The CSV reader may stop before the end of the file.
		if _, err := io.Copy(tee, f); err != nil {
			return OutputDigest{}, err
		}
		*rows, n = jr, tee.n
	} else if n, err = io.Copy(h, f); err != nil {
		return OutputDigest{}, err
	}
	return OutputDigest{File: filepath.Base(path), Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// recordOutputs checks that the jobs file of a finished run in runDir has
// one row per job of the workload (jobs), besides the rows of the pieces of
// preempted jobs resubmitted as dynamic jobs (see OriginalJob), and fills
// info with its number of rows and the checksums of the run's outputs.
func recordOutputs(runDir string, jobs int, info *RunInfo) error {
	var rows []analysis.JobRow
	d, err := fileDigest(filepath.Join(runDir, JobsFile), &rows)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the engine finished but wrote no %s", JobsFile)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", JobsFile, err)
	}
	originals := 0
	for i := range rows {
		if _, _, k := analysis.OriginalJob(rows[i].Workload, rows[i].ID); k == 0 {
			originals++
		}
	}
	switch {
	case originals == jobs:
	case originals == len(rows):
		return fmt.Errorf("%s has %d jobs, the workload %d", JobsFile, len(rows), jobs)
	default:
		return fmt.Errorf("%s has %d jobs besides %d resubmitted pieces, the workload %d", JobsFile, originals, len(rows)-originals, jobs)
	}
	info.Jobs, info.Outputs = len(rows), []OutputDigest{d}
	for _, name := range outputFiles[1:] {
		var d OutputDigest
		var err error
		if name == ScheduleFile {
			d, err = columnsDigest(filepath.Join(runDir, name), WallClockColumns)
		} else {
			d, err = fileDigest(filepath.Join(runDir, name), nil)
		}
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		info.Outputs = append(info.Outputs, d)
	}
	return nil
}

// VerifyRun checks that the completed run id of the campaign in dir still
// holds the outputs it finished with: its run.json records the job count
// and the checksums of its outputs, and every recorded file is there, with
// that checksum (the jobs file also with that many rows; the schedule file
// but for its wall-clock columns, so that a run replayed with its cmd.txt
// still verifies). The error is a *VerifyError naming the run and the file.
func VerifyRun(dir, id string) error {
	_, _, err := ReadRun(dir, id)
	return err
}

// ReadRun reads the completed run id of the campaign in dir, verified as
// VerifyRun verifies it: the rows of its jobs file and its run.json (read
// once for both).
func ReadRun(dir, id string) ([]analysis.JobRow, RunInfo, error) {
	runDir := RunDir(dir, id)
	bad := func(file, format string, args ...any) error {
		return &VerifyError{Run: id, File: filepath.Join(runDir, file), Msg: fmt.Sprintf(format, args...)}
	}
	var info RunInfo
	data, err := os.ReadFile(filepath.Join(runDir, RunInfoFile))
	if err != nil {
		return nil, info, bad(RunInfoFile, "cannot read it (%v)", withoutPath(err))
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, info, bad(RunInfoFile, "not a run description: %v", err)
	}
	if info.Run.ID != id {
		return nil, info, bad(RunInfoFile, "describes run %q", info.Run.ID)
	}
	if len(info.Outputs) == 0 || info.Outputs[0].File != JobsFile {
		return nil, info, bad(RunInfoFile, "records no checksum of %s (written by an older bucma?)", JobsFile)
	}
	var rows []analysis.JobRow
	for i, want := range info.Outputs {
		if filepath.Base(want.File) != want.File || want.File == "." || want.File == ".." {
			return nil, info, bad(RunInfoFile, "output name %q is not a file name", want.File)
		}
		var rowsp *[]analysis.JobRow
		if i == 0 {
			rowsp = &rows
		}
		var got OutputDigest
		if len(want.WithoutColumns) > 0 {
			got, err = columnsDigest(filepath.Join(runDir, want.File), want.WithoutColumns)
		} else {
			got, err = fileDigest(filepath.Join(runDir, want.File), rowsp)
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, info, bad(want.File, "missing (it was written when the run finished)")
		case err != nil:
			return nil, info, bad(want.File, "%v", withoutPath(err))
		case got.Bytes != want.Bytes:
			return nil, info, bad(want.File, "%d bytes, %d when the run finished", got.Bytes, want.Bytes)
		case got.SHA256 != want.SHA256:
			return nil, info, bad(want.File, "content changed since the run finished (SHA-256 %s, recorded %s)", got.SHA256, want.SHA256)
		case i == 0 && len(rows) != info.Jobs:
			return nil, info, bad(want.File, "%d jobs, %d when the run finished", len(rows), info.Jobs)
		}
	}
	return rows, info, nil
}

// withoutPath drops the path of a *fs.PathError (the messages here name
// the file already).
func withoutPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
