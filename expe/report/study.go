package report

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/atomicfile"
)

// Study is a kind of campaign with a report of its own: a paper's
// experiment (package studies), or the comparison report every other
// campaign gets. A plan names its study with its kind. Its hooks run in
// the one pass Analyze makes over the runs, so that a report never reads a
// run's files again.
type Study struct {
	// Kind is the plans' kind the study reports on.
	Kind string
	// Prepare runs once before the runs are read (optional); its result is
	// Analysis.Data.
	Prepare func(a *Analysis) (any, error)
	// ReadWorkload runs once per workload of the completed runs
	// (optional); its result is RunInput.WorkloadData.
	ReadWorkload func(a *Analysis, path string, jobs map[string]analysis.JobInfo) (any, error)
	// ReadRun reads what the report needs from one run (optional) and
	// keeps it in rd.Extra. Runs are read in parallel: it may only write
	// rd.
	ReadRun func(a *Analysis, in *RunInput, rd *RunData) error
	// Report writes the report.
	Report func(r *Report) error
}

// Studies holds the studies a program knows and the built-in plan files
// (each a plan file, see ParsePlanFile, that "bucma expe plans --show"
// prints).
type Studies struct {
	kinds map[string]Study
	names []string
	files map[string][]byte
}

// NewStudies returns a registry with the comparison report alone.
func NewStudies() *Studies {
	s := &Studies{kinds: map[string]Study{}, files: map[string][]byte{}}
	s.Register(ComparisonStudy())
	return s
}

// Register adds a study; it panics on a kind registered twice (a
// programming error).
func (s *Studies) Register(st Study) {
	if _, dup := s.kinds[st.Kind]; dup {
		panic("expe: study " + st.Kind + " registered twice")
	}
	if st.Report == nil {
		panic("expe: study " + st.Kind + " has no report")
	}
	s.kinds[st.Kind] = st
}

// AddPlan adds a built-in plan file under its name; the file is parsed
// when the plan is asked for.
func (s *Studies) AddPlan(name string, file []byte) {
	if _, dup := s.files[name]; dup {
		panic("expe: plan " + name + " added twice")
	}
	s.names = append(s.names, name)
	s.files[name] = file
}

// Study returns the study of a plan kind ("" is the comparison report).
func (s *Studies) Study(kind string) (Study, bool) {
	st, ok := s.kinds[kind]
	return st, ok
}

// Kinds lists the registered kinds, sorted (the comparison report's "" first).
func (s *Studies) Kinds() []string { return slices.Sorted(maps.Keys(s.kinds)) }

// PlanNames lists the built-in plans in the order they were added.
func (s *Studies) PlanNames() []string { return append([]string(nil), s.names...) }

// PlanFile returns the file of a built-in plan.
func (s *Studies) PlanFile(name string) ([]byte, bool) {
	f, ok := s.files[name]
	return f, ok
}

// Plan returns a built-in plan with its default sizes.
func (s *Studies) Plan(name string) (expe.Plan, error) {
	f, ok := s.files[name]
	if !ok {
		return expe.Plan{}, fmt.Errorf("unknown plan %q (valid: %s)", name, strings.Join(s.names, ", "))
	}
	p, err := expe.ParsePlanFile(f, expe.PlanFileOptions{Name: name + ".yaml", Studies: s.Kinds()})
	if err != nil {
		return expe.Plan{}, fmt.Errorf("built-in plan %s: %w", name, err)
	}
	return p, nil
}

// FigDir is the folder of a report's figures, inside the campaign directory.
const FigDir = "fig"

// File is the report's file name, inside the campaign directory.
const File = "report.md"

// Write analyses the campaign in dir and writes dir/report.md and its
// figures (dir/fig/*.png and *.svg): the report of the plan's study, the
// comparison report for a plan of no study. It returns the report's path.
func Write(dir string, studies *Studies) (string, error) {
	if studies == nil {
		studies = NewStudies()
	}
	plan, err := expe.ReadPlan(dir)
	if err != nil {
		return "", err
	}
	st, ok := studies.Study(plan.Kind)
	if !ok {
		return "", fmt.Errorf("%s: plan %s is of study %q, which this bucma does not know (known: %s)", dir, plan.Name, plan.Kind,
			strings.Join(slices.DeleteFunc(studies.Kinds(), func(k string) bool { return k == "" }), ", "))
	}
	a, err := Analyze(dir, st)
	if err != nil {
		return "", err
	}
	if len(a.Runs) == 0 {
		return "", fmt.Errorf("%s: no completed run to report on (run the campaign first: expe run %s --out %s)", dir, a.Plan.Name, dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, FigDir), 0o755); err != nil {
		return "", err
	}
	r := New(a)
	if err := st.Report(r); err != nil {
		return "", err
	}
	path := filepath.Join(dir, File)
	return path, atomicfile.Write(path, r.buf.Bytes())
}

// Report is a report being written: the analysis it reports on and the
// Markdown text so far.
type Report struct {
	A   *Analysis
	buf *bytes.Buffer
}

// New starts a report on an analysis (its figures go to a.Dir/fig,
// which must exist): what Write does before the study writes, for a
// study's tests to report on an analysis they built.
func New(a *Analysis) *Report { return &Report{A: a, buf: &bytes.Buffer{}} }

// Text is the report's Markdown text so far.
func (r *Report) Text() string { return r.buf.String() }

// P appends formatted text to the report.
func (r *Report) P(format string, args ...any) { fmt.Fprintf(r.buf, format, args...) }

// Fig is the path, without extension, of a figure of the report
// (dir/fig/name): write it there and link it as fig/name.png.
func (r *Report) Fig(name string) string { return filepath.Join(r.A.Dir, FigDir, name) }

// Intro writes the report's title, the plan's description and its size
// (sizes: "n variants × ..."); missingNote says what missing runs mean.
func (r *Report) Intro(sizes, missingNote string) {
	pl := r.A.Plan
	r.P("# %s\n\n", pl.Title)
	if pl.Description != "" {
		r.P("%s\n\n", pl.Description)
	}
	r.P("- Plan `%s`: %s = %d runs; %d completed", pl.Name, sizes, len(pl.Expand()), len(r.A.Runs))
	if len(r.A.Missing) > 0 {
		r.P(" (**%d missing**: %s)", len(r.A.Missing), missingNote)
	}
	r.P(".\n")
}

// RunInfos sums up the run.json of every completed run: the engines used
// and the sum of the runs' wall times (s) over n runs.
func (r *Report) RunInfos() (engines []string, wall float64, n int) {
	seen := map[string]bool{}
	for _, rd := range r.A.Runs {
		if rd.Info.Engine != "" {
			seen[rd.Info.Engine] = true
		}
		wall += rd.Info.WallSeconds
		n++
	}
	engines = slices.Sorted(maps.Keys(seen))
	if len(engines) == 0 {
		engines = []string{"unknown"}
	}
	return engines, wall, n
}
