package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bucma-sched/bucma/expe"
)

// Diff is what DiffCampaigns found: how many files of the first campaign
// directory it compared, and those that differ in the second (missing
// there, or with other content), by path inside the directories.
type Diff struct {
	Compared int
	Differ   []string
}

// DiffCampaigns compares every file of campaign directory a with the same
// file of b: the runs' outputs (Batsim's _jobs.csv and _schedule.csv, the
// decision traces, the energy files), their run.json and cmd.txt, the
// workloads, plan.json, the reports with their figures and results.csv.
// It leaves out what differs from one execution of the same runs to the
// next whatever the code: the logs (*.log), the schedule's wall-clock
// columns (expe.WallClockColumns) and run.json's wall time, finishing date
// and checksum of that file, the reports' wall-time sentence, the colours
// Batsim draws at random for the jobs of its Pajé trace (_schedule.trace),
// and the name of the program that ran a run in its recorded command line
// (two binaries compared may be named apart). b may hold more files than
// a (a Slurm submission's folder, the runs that failed there and were
// redone): they are not compared. A refactoring that must not change
// results is checked by running the same campaigns with the program
// before and after it, and comparing each pair.
func DiffCampaigns(a, b string) (*Diff, error) {
	for _, d := range []string{a, b} {
		if st, err := os.Stat(d); err != nil {
			return nil, err
		} else if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory", d)
		}
	}
	diff := &Diff{}
	err := filepath.WalkDir(a, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.Type().IsRegular() || leftOut(e.Name()) {
			return nil
		}
		rel, err := filepath.Rel(a, path)
		if err != nil {
			return err
		}
		diff.Compared++
		same, err := sameFile(path, filepath.Join(b, rel))
		if err != nil {
			return err
		}
		if !same {
			diff.Differ = append(diff.Differ, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return diff, nil
}

// leftOut reports whether a file is not compared: a log, or a record of
// an execution's progress and timing.
func leftOut(name string) bool {
	return strings.HasSuffix(name, ".log") || name == "campaign.json" || strings.HasPrefix(name, "timing") || strings.HasPrefix(name, "progress")
}

// sameFile compares a file of the first campaign with its counterpart (a
// missing counterpart differs).
func sameFile(pa, pb string) (bool, error) {
	x, err := os.ReadFile(pa)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(pb)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bytes.Equal(comparable(pa, x), comparable(pb, y)), nil
}

var (
	// program is the program a recorded command line starts with.
	program = regexp.MustCompile(`(?m)^[^ \n]+ simulate `)
	// wallTime is the report's sentence on the runs' wall time.
	wallTime = regexp.MustCompile(`Wall time of the runs: [^\n]* in all( \([^)]*\))?\.`)
)

// comparable is a file's content without what differs from one execution
// to the next (see DiffCampaigns).
func comparable(path string, data []byte) []byte {
	name := filepath.Base(path)
	switch {
	case name == expe.CmdFile:
		return program.ReplaceAll(data, []byte("bucma simulate "))
	case strings.HasSuffix(name, "_schedule.trace"):
		return withoutColours(data)
	case strings.HasSuffix(name, "_schedule.csv"):
		if kept, err := expe.WithoutColumns(data, expe.WallClockColumns); err == nil {
			return kept
		}
	case name == expe.RunInfoFile:
		return runInfoWithoutWallClock(data)
	case strings.HasSuffix(name, ".md"):
		return wallTime.ReplaceAll(data, nil)
	}
	return data
}

// withoutColours drops the colour of each job's entity value in a Pajé
// trace (the last three fields of its "5" lines, PajeDefineEntityValue),
// which Batsim draws at random.
func withoutColours(data []byte) []byte {
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		f := bytes.Fields(l)
		if len(f) > 0 && string(f[0]) == "5" {
			lines[i] = bytes.Join(f[:max(0, len(f)-3)], []byte(" "))
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// runInfoWithoutWallClock is a run.json without its wall time, its
// finishing date and the size and checksum of its schedule file, its
// command line without the program's name (a file that is not a JSON
// object compares as it is).
func runInfoWithoutWallClock(data []byte) []byte {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // seeds past 2^53 kept as written
	if dec.Decode(&m) != nil {
		return data
	}
	delete(m, "wall_seconds")
	delete(m, "finished")
	if outs, ok := m["outputs"].([]any); ok {
		for _, o := range outs {
			if d, ok := o.(map[string]any); ok {
				if f, _ := d["file"].(string); strings.HasSuffix(f, "_schedule.csv") {
					delete(d, "bytes")
					delete(d, "sha256")
				}
			}
		}
	}
	if cl, ok := m["command_line"].(string); ok {
		m["command_line"] = program.ReplaceAllString(cl, "bucma simulate ")
	}
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}
