package rlscheduler

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Config is one evaluation of a trace: its windows and heuristics.
type Config struct {
	Trace string // the trace's name, for the report
	// Starts are the windows' first jobs (0-based); nil: PaperStarts when
	// the trace and the windows have the paper's shape, else Windows
	// starts drawn with DrawStarts from Seed.
	Starts     []int
	Windows    int // default PaperWindows
	WindowJobs int // default PaperWindowJobs
	Seed       uint64
	Heuristics []string // default Heuristics
	// Published names the paper's published cells to print beside
	// (a key of Published); "" for none.
	Published string
	// Batsim adds the same windows under Batsim's rules (EvaluateBatsim).
	Batsim bool
}

// Report is an evaluation in both modes.
type Report struct {
	Config
	Jobs       int    // jobs in the trace
	StartsFrom string // where the starts come from
	Compat     *Table
	Corrected  *Table
	Batsim     *BatsimTable // nil unless Config.Batsim
}

// Run evaluates jobs in the compatibility and the corrected modes, and
// under Batsim's rules when c.Batsim.
func Run(ctx context.Context, jobs []Job, c Config) (*Report, error) {
	if c.Windows == 0 {
		c.Windows = PaperWindows
	}
	if c.WindowJobs == 0 {
		c.WindowJobs = PaperWindowJobs
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Heuristics) == 0 {
		c.Heuristics = Heuristics
	}
	for _, h := range c.Heuristics {
		if _, ok := scores[h]; !ok {
			return nil, fmt.Errorf("rlscheduler: unknown heuristic %q (want some of %s)", h, strings.Join(Heuristics, ","))
		}
	}
	if _, ok := Published[c.Published]; c.Published != "" && !ok {
		return nil, fmt.Errorf("rlscheduler: no published cells for %q (known: lublin-1)", c.Published)
	}
	r := &Report{Config: c, Jobs: len(jobs)}
	switch {
	case slices.Equal(c.Starts, PaperStarts):
		r.StartsFrom = "the paper's seed-1 draws"
	case c.Starts != nil:
		r.StartsFrom = "given"
	case len(jobs) == PaperJobs && c.Windows == PaperWindows && c.WindowJobs == PaperWindowJobs:
		r.Starts, r.StartsFrom = PaperStarts, "the paper's seed-1 draws"
	default:
		st, err := DrawStarts(len(jobs), c.Windows, c.WindowJobs, c.Seed)
		if err != nil {
			return nil, err
		}
		r.Starts, r.StartsFrom = st, fmt.Sprintf("drawn by bucma's generator, seed %d", c.Seed)
	}
	var err error
	if r.Compat, err = Evaluate(jobs, r.Starts, c.WindowJobs, c.Heuristics, Compat); err != nil {
		return nil, err
	}
	if r.Corrected, err = Evaluate(jobs, r.Starts, c.WindowJobs, c.Heuristics, Corrected); err != nil {
		return nil, err
	}
	if c.Batsim {
		if r.Batsim, err = EvaluateBatsim(ctx, jobs, r.Starts, c.WindowJobs, c.Heuristics); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// metric is one of the two tables: its name, digits, value.
type metric struct {
	name   string
	digits int
	of     func(Result) float64
}

var metrics = []metric{
	{"bsld", 2, func(r Result) float64 { return r.BSLD }},
	{"utilization", 3, func(r Result) float64 { return r.Util }},
}

// column is one value of a row: its header and whether the cell has it.
type column struct {
	name string
	of   func(c Cell) (Result, bool)
}

// columns are the report's value columns.
func (r *Report) columns() []column {
	var cols []column
	if r.Published != "" {
		cols = append(cols, column{"published", func(c Cell) (Result, bool) { p, ok := Published[r.Published][c]; return p, ok }})
	}
	cols = append(cols,
		column{"compat", func(c Cell) (Result, bool) { return r.Compat.Cells[c], true }},
		column{"corrected", func(c Cell) (Result, bool) { return r.Corrected.Cells[c], true }})
	if r.Batsim != nil {
		// Without backfilling, Batsim's rules start jobs in order up to
		// the first that does not fit; with, EASY and conservative.
		cols = append(cols,
			column{"batsim", func(c Cell) (Result, bool) {
				bf := "none"
				if c.Backfill {
					bf = "easy"
				}
				v, ok := r.Batsim.Cells[BatsimCell{c.Heuristic, bf}]
				return v, ok
			}},
			column{"batsim_conservative", func(c Cell) (Result, bool) {
				if !c.Backfill {
					return Result{}, false
				}
				v, ok := r.Batsim.Cells[BatsimCell{c.Heuristic, "conservative"}]
				return v, ok
			}})
	}
	return cols
}

// rows calls row for every cell: metric, backfilling, heuristic and the
// columns' values ("" where a column has none), formatted by format.
func (r *Report) rows(format func(m metric, x float64) string, row func(m metric, backfill, h string, vals []string) error) error {
	cols := r.columns()
	for _, m := range metrics {
		for _, bf := range []bool{false, true} {
			name := "none"
			if bf {
				name = "greedy"
			}
			for _, h := range r.Heuristics {
				c := Cell{h, bf}
				vals := make([]string, len(cols))
				for i, col := range cols {
					if v, ok := col.of(c); ok {
						vals[i] = format(m, m.of(v))
					}
				}
				if err := row(m, name, h, vals); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *Report) startsText() string {
	s := make([]string, len(r.Starts))
	for i, x := range r.Starts {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// WriteText writes the report as aligned tables, bsld with 2 decimals and
// utilization with 3, as the paper prints them.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "trace %s: %d jobs; %d windows of %d jobs starting at %s (%s)\n",
		r.Trace, r.Jobs, len(r.Starts), r.WindowJobs, r.startsText(), r.StartsFrom)
	fmt.Fprintf(w, "compat: the paper's simulator (WFP3 and UNI wait -1 - submit, utilization to the last start)\n")
	fmt.Fprintf(w, "corrected: the same with the real wait (now - submit) and the utilization to the last finish\n")
	if r.Batsim != nil {
		fmt.Fprintf(w, "batsim: bucma's prio-* policies through the embedded engine (Batsim's rules) on %d hosts, backfill=none (row none) or easy (row greedy); batsim_conservative: backfill=conservative\n", DefaultNodes)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	last := ""
	cols := r.columns()
	err := r.rows(func(m metric, x float64) string { return strconv.FormatFloat(x, 'f', m.digits, 64) },
		func(m metric, bf, h string, vals []string) error {
			if m.name != last {
				last = m.name
				fmt.Fprintf(tw, "\n%s\tbackfilling\theuristic\t", m.name)
				for _, c := range cols {
					fmt.Fprintf(tw, "%s\t", c.name)
				}
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t\n", bf, h, strings.Join(vals, "\t"))
			return nil
		})
	if err != nil {
		return err
	}
	return tw.Flush()
}

// WriteCSV writes one row per cell (metric, backfilling, heuristic, then
// the columns: published, compat, corrected, batsim, batsim_conservative,
// those the report has), values at full precision, empty where a column
// has none.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"metric", "backfilling", "heuristic"}
	for _, c := range r.columns() {
		head = append(head, c.name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	err := r.rows(func(_ metric, x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) },
		func(m metric, bf, h string, vals []string) error {
			return cw.Write(append([]string{m.name, bf, h}, vals...))
		})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// ParseStarts reads "1981,2756,...", "paper" (PaperStarts) or "" (nil:
// see Config.Starts).
func ParseStarts(s string) ([]int, error) {
	switch s {
	case "":
		return nil, nil
	case "paper":
		return slices.Clone(PaperStarts), nil
	}
	var st []int
	for f := range strings.SplitSeq(s, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || x < 0 {
			return nil, fmt.Errorf("--starts: %q is not a job index ≥ 0 (want paper, or indices like 1981,2756)", f)
		}
		st = append(st, x)
	}
	return st, nil
}
