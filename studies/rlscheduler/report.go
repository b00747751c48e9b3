package rlscheduler

import (
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
}

// Report is an evaluation in both modes.
type Report struct {
	Config
	Jobs       int    // jobs in the trace
	StartsFrom string // where the starts come from
	Compat     *Table
	Corrected  *Table
}

// Run evaluates jobs in the compatibility and the corrected modes.
func Run(jobs []Job, c Config) (*Report, error) {
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

// rows calls row for every cell: metric, backfilling, heuristic, the
// published value (ok false: none), compat and corrected values.
func (r *Report) rows(row func(m metric, backfill string, h string, pub float64, hasPub bool, compat, corrected float64) error) error {
	for _, m := range metrics {
		for _, bf := range []bool{false, true} {
			name := "none"
			if bf {
				name = "greedy"
			}
			for _, h := range r.Heuristics {
				c := Cell{h, bf}
				p, ok := Published[r.Published][c]
				if err := row(m, name, h, m.of(p), ok, m.of(r.Compat.Cells[c]), m.of(r.Corrected.Cells[c])); err != nil {
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	last := ""
	err := r.rows(func(m metric, bf, h string, pub float64, hasPub bool, compat, corrected float64) error {
		if m.name != last {
			last = m.name
			fmt.Fprintf(tw, "\n%s\tbackfilling\theuristic\t", m.name)
			if r.Published != "" {
				fmt.Fprintf(tw, "published\t")
			}
			fmt.Fprintf(tw, "compat\tcorrected\t\n")
		}
		fmt.Fprintf(tw, "\t%s\t%s\t", bf, h)
		if r.Published != "" {
			p := ""
			if hasPub {
				p = strconv.FormatFloat(pub, 'f', m.digits, 64)
			}
			fmt.Fprintf(tw, "%s\t", p)
		}
		fmt.Fprintf(tw, "%.*f\t%.*f\t\n", m.digits, compat, m.digits, corrected)
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Flush()
}

// WriteCSV writes one row per cell (metric, backfilling, heuristic,
// published, compat, corrected), values at full precision; published is
// empty where the paper has none.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"metric", "backfilling", "heuristic", "published", "compat", "corrected"}); err != nil {
		return err
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	err := r.rows(func(m metric, bf, h string, pub float64, hasPub bool, compat, corrected float64) error {
		p := ""
		if hasPub {
			p = g(pub)
		}
		return cw.Write([]string{m.name, bf, h, p, g(compat), g(corrected)})
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
