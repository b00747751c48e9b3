// Package corpus gives the tests of every package the Batsim 4.2.1
// conformance corpus, kept once in this package's testdata directory. Each
// case is a directory testdata/<case>/ holding:
//
//	platform.xml, workload.json   what Batsim ran
//	transcript.jsonl              the messages exchanged with the corpus's
//	                              reference scheduler (strict FCFS on the
//	                              lowest free ids)
//	transcript.<sched>.jsonl      the same run with another scheduler
//	                              (batsched_fcfs_fast, batsched_easy_bf)
//	out_jobs[.<sched>].csv        Batsim's _jobs.csv of each transcript
//	out_schedule.csv              Batsim's _schedule.csv (reference scheduler)
//	rc.txt                        exit statuses, when Batsim aborted
//
// A transcript has one JSON object per line and per message: its sequence
// number, its direction, the exact frame text (raw) and Python's parse of
// it (msg). The functions fail the test they are given on any error.
package corpus

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Directions of a transcript line.
const (
	FromBatsim    = "batsim->sched"
	FromScheduler = "sched->batsim"
)

// CaseDir stands for the case's directory in the recorded messages (the
// workload path of SIMULATION_BEGINS is "<CASE_DIR>/workload.json").
const CaseDir = "<CASE_DIR>"

// Line is one message of a transcript.
type Line struct {
	Seq int             `json:"seq"`
	Dir string          `json:"dir"` // FromBatsim or FromScheduler
	Raw string          `json:"raw"` // the frame as exchanged
	Msg json.RawMessage `json:"msg"` // the reference parse of Raw
}

// FromBatsim reports whether the message went from Batsim to the scheduler.
func (l Line) FromBatsim() bool { return l.Dir == FromBatsim }

var (
	rootOnce sync.Once
	root     string
)

// ModuleRoot is the absolute path of the module's root directory (the one
// holding go.mod), found above the working directory, which is a package
// directory when tests run.
func ModuleRoot() string {
	rootOnce.Do(func() {
		d, err := os.Getwd()
		if err != nil {
			panic("corpus: " + err.Error())
		}
		for {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				root = d
				return
			}
			up := filepath.Dir(d)
			if up == d {
				panic("corpus: no go.mod above the working directory")
			}
			d = up
		}
	})
	return root
}

// Dir is the absolute path of the corpus (this package's testdata
// directory).
func Dir() string { return filepath.Join(ModuleRoot(), "internal", "corpus", "testdata") }

// Path is the path of a file of a case: Path("hetero4_delays",
// "platform.xml").
func Path(name, file string) string { return filepath.Join(Dir(), name, file) }

// Cases lists the cases, sorted.
func Cases(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir(Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatalf("no case in %s", Dir())
	}
	return out
}

// ReadFile returns the content of a file of a case.
func ReadFile(t testing.TB, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(name, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Transcript names one transcript of the corpus.
type Transcript struct {
	Case string // "hetero4_delays"
	File string // "transcript.jsonl", "transcript.batsched_easy_bf.jsonl"
}

// Name is "case/file", unique in the corpus.
func (tr Transcript) Name() string { return tr.Case + "/" + tr.File }

// Path is the transcript's file.
func (tr Transcript) Path() string { return Path(tr.Case, tr.File) }

// Lines reads the transcript (at least one line).
func (tr Transcript) Lines(t testing.TB) []Line {
	t.Helper()
	return ReadTranscript(t, tr.Case, tr.File)
}

// Transcripts lists every transcript of every case, sorted by name.
func Transcripts(t testing.TB) []Transcript {
	t.Helper()
	var out []Transcript
	for _, c := range Cases(t) {
		files, err := filepath.Glob(Path(c, "transcript*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			out = append(out, Transcript{Case: c, File: filepath.Base(f)})
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name() < out[k].Name() })
	return out
}

// ReadTranscript reads a transcript of a case (at least one line).
func ReadTranscript(t testing.TB, name, file string) []Line {
	t.Helper()
	return readLines(t, Path(name, file))
}

// readLines reads a file of JSON lines (at least one).
func readLines(t testing.TB, path string) []Line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: empty transcript", path)
	}
	return out
}

// ReadLine returns the line of a transcript with the given sequence number.
func ReadLine(t testing.TB, name, file string, seq int) Line {
	t.Helper()
	for _, l := range ReadTranscript(t, name, file) {
		if l.Seq == seq {
			return l
		}
	}
	t.Fatalf("%s/%s: no line %d", name, file, seq)
	return Line{}
}

// WithCaseDir returns raw with the case directory placeholder replaced by
// dir (the directory the workload is read from in the test).
func WithCaseDir(raw, dir string) string { return strings.ReplaceAll(raw, CaseDir, dir) }

// Resources returns the compute and storage resources Batsim announced in
// the SIMULATION_BEGINS of the case (the first message of its transcript),
// as JSON arrays.
func Resources(t testing.TB, name string) (compute, storage json.RawMessage) {
	t.Helper()
	first := ReadTranscript(t, name, "transcript.jsonl")[0]
	var m struct {
		Events []struct {
			Type string `json:"type"`
			Data struct {
				Compute json.RawMessage `json:"compute_resources"`
				Storage json.RawMessage `json:"storage_resources"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(first.Raw), &m); err != nil || len(m.Events) == 0 || m.Events[0].Type != "SIMULATION_BEGINS" {
		t.Fatalf("%s: the first message is not SIMULATION_BEGINS (%v)", name, err)
	}
	return m.Events[0].Data.Compute, m.Events[0].Data.Storage
}
