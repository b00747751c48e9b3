package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/internal/atomicfile"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// The comparison report: what a campaign of no study gets (a plan file
// without "study"). Per condition (case and load level), each variant's
// means over the seeds with their 95 % intervals, the paired differences
// against the baseline variant, the distributions of the waiting time and
// of the bounded slowdown, breakdowns by job size and by user, and on
// request a Gantt chart of one run per variant; results.csv holds the same
// numbers, one row per run and metric.

// reportMetric is one metric of the comparison report.
type reportMetric struct {
	name, title, unit string
	prec              int
	// floor is the smallest base a relative difference is computed over.
	floor float64
	get   func(*RunData) float64
}

// reportMetricDefs define the metrics a plan names (expe.ReportMetrics,
// in that order).
var reportMetricDefs = []reportMetric{
	{"waiting", "mean waiting time", "s", 0, analysis.FloorWait, func(x *RunData) float64 { return x.Metrics.MeanWait }},
	{"bsld", "mean bounded slowdown", "", 2, analysis.FloorRatio, func(x *RunData) float64 { return x.Metrics.MeanBSLD }},
	{"turnaround", "mean turnaround", "s", 0, analysis.FloorSeconds, func(x *RunData) float64 { return x.Metrics.MeanTurnaround }},
	{"slowdown", "mean slowdown", "", 2, analysis.FloorRatio, func(x *RunData) float64 { return x.Metrics.MeanSlowdown }},
	{"utilization", "utilization", "", 3, analysis.FloorUtilization, func(x *RunData) float64 { return x.Metrics.Utilization }},
	{"makespan", "makespan", "s", 0, analysis.FloorSeconds, func(x *RunData) float64 { return x.Metrics.Makespan }},
	{"rejected", "rejected jobs", "", 1, analysis.FloorCount, func(x *RunData) float64 { return float64(x.Metrics.Rejected) }},
	{"killed", "killed jobs", "", 1, analysis.FloorCount, func(x *RunData) float64 { return float64(x.Metrics.Killed) }},
}

// SizeClasses are the job size classes of the breakdown, by the hosts a job
// asks for.
var SizeClasses = []string{"1", "2-4", "5-16", "17-64", "65-256", "257+"}

// SizeClass is the size class of a job of res hosts.
func SizeClass(res int) string {
	switch {
	case res <= 1:
		return SizeClasses[0]
	case res <= 4:
		return SizeClasses[1]
	case res <= 16:
		return SizeClasses[2]
	case res <= 64:
		return SizeClasses[3]
	case res <= 256:
		return SizeClasses[4]
	}
	return SizeClasses[5]
}

// Bins of the distributions: a count per bin, the bin of a value v being
// the first edge ≥ v (one more bin above the last edge). Waiting times: 0,
// then 20 bins a decade from 1 s to 10⁷ s; bounded slowdowns: 20 a decade
// from 1 to 10⁵.
var (
	waitEdges = logEdges(0, 7, true)
	bsldEdges = logEdges(0, 5, false)
)

func logEdges(lo, hi int, zero bool) []float64 {
	var out []float64
	if zero {
		out = append(out, 0)
	}
	for k := 20 * lo; k <= 20*hi; k++ {
		out = append(out, math.Pow(10, float64(k)/20))
	}
	return out
}

func histogram(vals []float64, edges []float64) []int {
	out := make([]int, len(edges)+1)
	for _, v := range vals {
		out[sort.SearchFloat64s(edges, v)]++
	}
	return out
}

// compareRun is what the comparison report reads from one run.
type compareRun struct {
	WaitHist []int
	BSLDHist []int
	BySize   map[string]analysis.GroupStats
	ByUser   map[string]analysis.GroupStats
	// Rows are kept for the runs a Gantt chart is drawn of.
	Rows []analysis.JobRow
}

// ComparisonStudy is the report of a campaign of no study (kind "").
func ComparisonStudy() Study {
	return Study{Kind: "", ReadRun: compareReadRun, Report: compareReport}
}

// NoUser is the user of jobs whose workload names none.
const NoUser = "(none)"

// LoadLevelNote says what a load level is beside the offered load the runs
// show.
const LoadLevelNote = "a load level is the offered load the workload is generated or scaled to, its computations counted at a reference " +
	"speed, the platform's slowest host's unless the plan sets ref_speed; the offered load the runs show can differ: jobs on faster hosts " +
	"run shorter, jobs killed at their walltime run less than their run time"

// swfUnknown is what the Standard Workload Format writes for an unknown
// field: the user of every job of a trace without users, as "bucma
// workload from-swf" and "bucma workload lublin" copy it.
const swfUnknown = "-1"

func compareReadRun(a *Analysis, in *RunInput, rd *RunData) error {
	cr := &compareRun{}
	size := make(map[string]string, len(in.Rows))
	user := make(map[string]string, len(in.Rows))
	var waits, bslds []float64
	for i := range in.Rows {
		j := &in.Rows[i]
		size[j.ID] = SizeClass(j.Res)
		u := in.Jobs[j.ID].User
		if u == "" || u == swfUnknown {
			u = NoUser
		}
		user[j.ID] = u
		if !j.Rejected() {
			waits = append(waits, j.Wait)
			bslds = append(bslds, analysis.JobBSLD(j))
		}
	}
	cr.WaitHist, cr.BSLDHist = histogram(waits, waitEdges), histogram(bslds, bsldEdges)
	cr.BySize, cr.ByUser = analysis.ByGroup(in.Rows, size), analysis.ByGroup(in.Rows, user)
	if a.Plan.Report != nil && a.Plan.Report.Gantt && ganttRun(a.Plan, rd.Run) {
		cr.Rows = in.Rows
	}
	rd.Extra = cr
	return nil
}

// ganttRun reports whether a run is the one of its variant the Gantt
// charts draw: the first seed of the first condition.
func ganttRun(p expe.Plan, r expe.Run) bool {
	cs := p.Conditions()
	return len(cs) > 0 && len(p.Seeds) > 0 && r.Case == cs[0].Case && r.Load == cs[0].Load && r.Seed == p.Seeds[0] && r.Copy == p.Copies()[0]
}

func cmp(rd *RunData) *compareRun { return rd.Extra.(*compareRun) }

// conditionTitle names a condition in the report.
func conditionTitle(p expe.Plan, c expe.Condition) string {
	var parts []string
	if cs, ok := p.Case(c.Case); ok {
		parts = append(parts, cs.Title)
	}
	if p.HasLoads() {
		parts = append(parts, "load level "+expe.FormatLoad(c.Load))
	}
	if len(parts) == 0 {
		return p.Title
	}
	return strings.Join(parts, ", ")
}

// conditionKey names a condition in file names.
func conditionKey(p expe.Plan, c expe.Condition) string {
	k := c.Case
	if p.HasLoads() {
		if k != "" {
			k += "_"
		}
		k += "l" + expe.FormatLoad(c.Load)
	}
	if k == "" {
		k = "all"
	}
	return k
}

func compareReport(r *Report) error {
	a := r.A
	pl := a.Plan
	spec := pl.ReportSettings()
	base := pl.BaselineVariant()
	conds := pl.Conditions()
	sizes := fmt.Sprintf("%d variants", len(pl.Variants))
	if len(pl.Cases) > 0 {
		sizes += fmt.Sprintf(" × %d workload cases", len(pl.Cases))
	}
	if pl.HasLoads() {
		sizes += fmt.Sprintf(" × %d load level%s", len(pl.Loads), map[bool]string{true: "s"}[len(pl.Loads) > 1])
	}
	sizes += fmt.Sprintf(" × %d seeds", len(pl.Seeds))
	if pl.Shake != nil {
		sizes += fmt.Sprintf(" × %d shaken copies", pl.Shake.Copies)
	}
	r.Intro(sizes, "the numbers below use the completed runs only")
	var plats []string
	for _, f := range pl.PlatformFiles() {
		plats = append(plats, "`"+expe.PlatformName(f.Platform)+"`")
	}
	r.P("- Platforms: %s; workloads: %s; seeds %s", strings.Join(plats, ", "), workloadsText(pl), analysis.SeedList(pl.Seeds))
	if pl.HasLoads() {
		r.P("; load levels %s (%s)", expe.LoadList(pl.Loads), LoadLevelNote)
	}
	r.P(".\n")
	engines, wall, n := r.RunInfos()
	r.P("- Engines: %s. Wall time of the runs: %s in all", strings.Join(engines, ", "), analysis.FmtDuration(wall))
	if n > 0 {
		r.P(" (%s per run on average)", analysis.FmtDuration(wall/float64(n)))
	}
	r.P(".\n")
	r.P("- Baseline of the paired differences: `%s`.\n", base)
	if pl.Shake != nil {
		r.P("- %s\n", ShakeNote(*pl.Shake))
	}
	r.P("- Values are means over seeds with the half-width of their 95 %% confidence interval (Student t, one value per seed). ")
	r.P("A *paired difference* is computed on each seed's pair of runs (same workload), then averaged; its relative form divides it by the ")
	r.P("baseline's mean, and is not given (%s) when that mean is below a floor: %g s for waiting times, %g s for other times, %g for utilization, %g job for counts. ", analysis.NearZero, analysis.FloorWait, analysis.FloorSeconds, analysis.FloorUtilization, analysis.FloorCount)
	r.P("%s %s\n\n", analysis.SeedsNote(), analysis.SaturatedMarkNote())
	r.P("Definitions: %s %s\n\n", analysis.DefinitionsNote(), analysis.SaturationNote())

	var metrics []reportMetric
	for _, name := range spec.Metrics {
		for _, m := range reportMetricDefs {
			if m.name == name {
				metrics = append(metrics, m)
			}
		}
	}
	for _, c := range conds {
		h := "##"
		if len(conds) > 1 {
			r.P("## %s\n\n", conditionTitle(pl, c))
			h = "###"
		}
		r.compareMeans(h, c, metrics)
		r.compareDifferences(h, c, metrics, base)
		if err := r.compareCDFs(h, c, spec.CDF); err != nil {
			return err
		}
		for _, b := range spec.Breakdowns {
			r.compareBreakdown(h, c, b, pl.Report != nil && pl.Report.Breakdowns != nil)
		}
	}
	if spec.Gantt {
		return r.compareGantts()
	}
	return nil
}

// workloadsText describes a plan's workloads.
func workloadsText(p expe.Plan) string {
	recipes := []gen.Recipe{p.Workload}
	if len(p.Cases) > 0 {
		recipes = nil
		for _, c := range p.Cases {
			recipes = append(recipes, p.Recipe(c.Name))
		}
	}
	var parts []string
	for _, r := range recipes {
		s := "`" + r.Generator + "`"
		if f := r.Fields.String("file"); f != "" {
			s += " " + filepath.Base(f)
		}
		if r.Jobs > 0 {
			s += fmt.Sprintf(" (%d jobs)", r.Jobs)
		}
		if len(r.Steps) > 0 {
			s += " then " + strings.Join(r.Steps, ", ")
		}
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

func unitText(m reportMetric) string {
	if m.unit == "" {
		return m.title
	}
	return m.title + " (" + m.unit + ")"
}

func (r *Report) compareMeans(h string, c expe.Condition, metrics []reportMetric) {
	a := r.A
	r.P("%s Means over the seeds\n\n| variant | policy | runs |", h)
	for _, m := range metrics {
		r.P(" %s |", unitText(m))
	}
	r.P(" offered load | saturated |\n|---|---|---|%s---|---|\n", strings.Repeat("---|", len(metrics)))
	for _, v := range a.Plan.Variants {
		runs := a.ConditionValues(v.Name, c, func(*RunData) float64 { return 0 })
		r.P("| %s | %s | %d |", v.Name, policyText(v), len(runs))
		for _, m := range metrics {
			r.P(" %s |", analysis.FmtEst(analysis.Estimate95(a.ConditionValues(v.Name, c, m.get)), m.prec, false))
		}
		offered := analysis.Estimate95(a.ConditionValues(v.Name, c, func(x *RunData) float64 { return x.Saturation.Offered }))
		r.P(" %s | %s |\n", analysis.FmtEst(offered, 2, false), SaturationText(a.ConditionRuns(v.Name, c)))
	}
	r.P("\n")
}

// ShakeNote says what a plan's shaking does and how the report reads its
// copies.
func ShakeNote(sh expe.ShakeSpec) string {
	return fmt.Sprintf("Shaken workloads: each seed's workload is shaken into %d copies (%s; Tsafrir, Ouaknine and Feitelson, "+
		"\"Reducing performance evaluation sensitivity and variability by input shaking\", 2007), and every variant runs on each copy; "+
		"each (seed, copy) pair counts as a seed in the means, intervals and `[k/n]` below. `{k/N copies}` after a paired difference: "+
		"on k of the N copies, the difference (over the seeds, on that copy alone) has the sign of the mean; a difference whose sign "+
		"does not hold on most copies comes from the trace's exact times rather than from the policies.", sh.Copies, sh.Bounds())
}

// policyText is a variant's policy with its options.
func policyText(v expe.Variant) string {
	s := "`" + v.Policy + "`"
	if o := v.OptionArgs(); len(o) > 0 {
		s += " " + strings.Join(o, " ")
	}
	return s
}

func (r *Report) compareDifferences(h string, c expe.Condition, metrics []reportMetric, base string) {
	a := r.A
	r.P("%s Paired differences against `%s`\n\n", h, base)
	r.P("Variant − baseline on the same workload, mean over the seeds ± 95 %% interval; in parentheses, the change relative to the ")
	r.P("baseline on each seed, averaged over the seeds ± 95 %% interval; then the seeds that back the sign of that change (`[k/n]`, `*`: ")
	r.P("its interval excludes 0, significant at 95 %%; over a near-zero baseline, of the difference)")
	if a.Plan.Shake != nil {
		r.P("; `{k/N copies}`: on how many of the N shaken copies the difference, over the seeds on that copy alone, has that sign")
	}
	r.P("; %s: the variant or the baseline saturated.\n\n| variant |", analysis.SaturatedMark)
	for _, m := range metrics {
		r.P(" %s |", unitText(m))
	}
	r.P("\n|---|%s\n", strings.Repeat("---|", len(metrics)))
	for _, v := range a.Plan.Variants {
		if v.Name == base {
			continue
		}
		r.P("| %s |", v.Name)
		mark := MarkSaturated(a.ConditionRuns(v.Name, c), a.ConditionRuns(base, c))
		for _, m := range metrics {
			cp := a.CompareVariants(v.Name, base, c, m.get, m.floor)
			if cp.Same() {
				r.P(" %s%s |", cp.SameText(), mark)
				continue
			}
			holds, n := a.CopySigns(v.Name, base, c, m.get, m.floor, cp.Sign())
			copies := CopiesText(holds, n, cp.Sign())
			if copies != "" {
				copies = " " + copies
			}
			r.P(" %s (%s) %s%s%s |", analysis.FmtEst(cp.Diff, m.prec, true), cp.ChangeText(1), cp.SeedsText(), copies, mark)
		}
		r.P("\n")
	}
	r.P("\n")
}

func (r *Report) compareCDFs(h string, c expe.Condition, which []string) error {
	a := r.A
	if len(which) == 0 {
		return nil
	}
	r.P("%s Distributions\n\nEvery job that ran, pooled over the seeds; logarithmic axis (waiting times under 1 s are counted at 1 s).\n\n", h)
	for _, what := range which {
		edges, title, xlabel, xmin := waitEdges, "waiting time", "waiting time (s)", 1.0
		hist := func(x *RunData) []int { return cmp(x).WaitHist }
		if what == "bsld" {
			edges, title, xlabel = bsldEdges, "bounded slowdown", "bounded slowdown"
			hist = func(x *RunData) []int { return cmp(x).BSLDHist }
		}
		var series []string
		var counts [][]int
		for _, v := range a.Plan.Variants {
			sum := make([]int, len(edges)+1)
			for _, s := range a.Slots() {
				if x := a.LookupSlot(v.Name, c, s); x != nil {
					for i, n := range hist(x) {
						sum[i] += n
					}
				}
			}
			series = append(series, v.Name)
			counts = append(counts, sum)
		}
		name := "cdf_" + what + "_" + conditionKey(a.Plan, c)
		t := fmt.Sprintf("Distribution of the %s (%s)", title, conditionTitle(a.Plan, c))
		if err := figures.CDFPlot(r.Fig(name), t, xlabel, series, edges, counts, xmin); err != nil {
			return err
		}
		r.P("![%s](%s/%s.png)\n\n", t, FigDir, name)
	}
	return nil
}

// maxUsers bounds the users the breakdown by user lists.
const maxUsers = 10

// compareBreakdown writes the breakdown by job size or by user. Without
// users (no job names one) the breakdown by user is left out, or, asked
// for by the plan (asked), replaced by a sentence saying so.
func (r *Report) compareBreakdown(h string, c expe.Condition, by string, asked bool) {
	a := r.A
	group := func(x *RunData) map[string]analysis.GroupStats { return cmp(x).BySize }
	if by == "user" {
		group = func(x *RunData) map[string]analysis.GroupStats { return cmp(x).ByUser }
	}
	var keys []string
	jobs := map[string]int{}
	for _, v := range a.Plan.Variants {
		for _, s := range a.Slots() {
			x := a.LookupSlot(v.Name, c, s)
			if x == nil {
				continue
			}
			for k, st := range group(x) {
				if _, ok := jobs[k]; !ok {
					keys = append(keys, k)
				}
				jobs[k] += st.Jobs
			}
		}
	}
	if by == "user" {
		if len(keys) == 0 || (len(keys) == 1 && keys[0] == NoUser) {
			if asked {
				r.P("%s By user\n\nNo job of the workload names a user (no `user` field, or the Standard Workload Format's %s).\n\n", h, swfUnknown)
			}
			return
		}
		sort.Slice(keys, func(i, j int) bool {
			if jobs[keys[i]] != jobs[keys[j]] {
				return jobs[keys[i]] > jobs[keys[j]]
			}
			return keys[i] < keys[j]
		})
		r.P("%s By user\n\nMean waiting time (s) of each user's jobs, mean over the seeds ± 95 %% interval", h)
		if len(keys) > maxUsers {
			r.P("; the %d users with the most jobs of %d", maxUsers, len(keys))
			keys = keys[:maxUsers]
		}
		r.P(".\n\n| user | jobs per run |")
	} else {
		keys = slices.DeleteFunc(slices.Clone(SizeClasses), func(k string) bool { _, ok := jobs[k]; return !ok })
		r.P("%s By job size\n\nMean waiting time (s) of the jobs of each size class (hosts asked for), mean over the seeds ± 95 %% interval.\n\n| hosts | jobs per run |", h)
	}
	runs := 0
	for _, v := range a.Plan.Variants {
		runs += len(a.ConditionValues(v.Name, c, func(*RunData) float64 { return 0 }))
	}
	for _, v := range a.Plan.Variants {
		r.P(" %s |", v.Name)
	}
	r.P("\n|---|---|%s\n", strings.Repeat("---|", len(a.Plan.Variants)))
	for _, k := range keys {
		r.P("| %s | %.0f |", k, float64(jobs[k])/math.Max(1, float64(runs)))
		for _, v := range a.Plan.Variants {
			e := analysis.Estimate95(a.ConditionValues(v.Name, c, func(x *RunData) float64 {
				if st, ok := group(x)[k]; ok {
					return st.MeanWait
				}
				return math.NaN()
			}))
			r.P(" %s |", analysis.FmtEst(e, 0, false))
		}
		r.P("\n")
	}
	r.P("\n")
}

func (r *Report) compareGantts() error {
	a := r.A
	r.P("## Gantt charts\n\nOne run per variant: ")
	cs := a.Plan.Conditions()
	if len(cs) == 0 || len(a.Plan.Seeds) == 0 {
		r.P("none.\n\n")
		return nil
	}
	c, slot := cs[0], a.Slots()[0]
	seed := fmt.Sprintf("seed %d", slot.Seed)
	if slot.Copy > 0 {
		seed += fmt.Sprintf(", copy %d", slot.Copy)
	}
	r.P("%s, %s. Hosts on the vertical axis, time on the horizontal one, one colour per job.\n\n", conditionTitle(a.Plan, c), seed)
	for _, v := range a.Plan.Variants {
		x := a.LookupSlot(v.Name, c, slot)
		if x == nil || cmp(x).Rows == nil {
			r.P("- %s: the run is not done.\n\n", v.Name)
			continue
		}
		name := "gantt_" + v.Name
		if err := figures.GanttChart(cmp(x).Rows, fmt.Sprintf("%s, %s", v.Name, seed), r.Fig(name)+".png"); err != nil {
			return fmt.Errorf("run %s: %w", x.Run.ID, err)
		}
		r.P("![Gantt chart of %s](%s/%s.png)\n\n", v.Name, FigDir, name)
	}
	return nil
}

// ResultsFile is the tidy table of a campaign's results, inside the
// campaign directory.
const ResultsFile = "results.csv"

// resultsMetrics are the metrics of results.csv, in order.
var resultsMetrics = []struct {
	name string
	get  func(*RunData) float64
}{
	{"jobs", func(x *RunData) float64 { return float64(x.Metrics.Jobs) }},
	{"ran", func(x *RunData) float64 { return float64(x.Metrics.Ran) }},
	{"rejected", func(x *RunData) float64 { return float64(x.Metrics.Rejected) }},
	{"killed", func(x *RunData) float64 { return float64(x.Metrics.Killed) }},
	{"succeeded", func(x *RunData) float64 { return float64(x.Metrics.Success) }},
	{"makespan", func(x *RunData) float64 { return x.Metrics.Makespan }},
	{"mean_wait", func(x *RunData) float64 { return x.Metrics.MeanWait }},
	{"median_wait", func(x *RunData) float64 { return x.Metrics.MedianWait }},
	{"p95_wait", func(x *RunData) float64 { return x.Metrics.P95Wait }},
	{"max_wait", func(x *RunData) float64 { return x.Metrics.MaxWait }},
	{"mean_turnaround", func(x *RunData) float64 { return x.Metrics.MeanTurnaround }},
	{"mean_slowdown", func(x *RunData) float64 { return x.Metrics.MeanSlowdown }},
	{"mean_bsld", func(x *RunData) float64 { return x.Metrics.MeanBSLD }},
	{"utilization", func(x *RunData) float64 { return x.Metrics.Utilization }},
	{"offered_load", func(x *RunData) float64 { return x.Saturation.Offered }},
}

// ResultsColumns are the columns of results.csv.
var ResultsColumns = []string{"campaign", "study", "run", "variant", "policy", "options", "platform", "workload", "case", "load", "seed", "metric", "value"}

// ComparisonName is results.csv's study of a campaign of no study, which
// gets the comparison report (no study has this name): the column always
// holds a name, which readers such as pandas keep as text.
const ComparisonName = "comparison"

// SignsFile is the table of the signs of the paired differences over the
// shaken copies, inside the directory of a campaign that shakes its
// workloads.
const SignsFile = "signs.csv"

// SignsColumns are the columns of signs.csv.
var SignsColumns = []string{"campaign", "variant", "baseline", "case", "load", "metric", "difference", "change", "sign", "copies_holding", "copies"}

// WriteResultsCSV analyses the campaign in dir and writes dir/results.csv,
// a tidy table: one row per completed run and metric, every factor a
// column (ResultsColumns, and a column copy after seed when the campaign
// shakes its workloads; a value without meaning is empty, as is a metric
// without value; the study is ComparisonName without one). A campaign
// that shakes its workloads also gets dir/signs.csv (WriteCSVs). It
// returns results.csv's path.
func WriteResultsCSV(dir string) (string, error) {
	paths, err := WriteCSVs(dir)
	if err != nil {
		return "", err
	}
	return paths[0], nil
}

// WriteCSVs writes results.csv (WriteResultsCSV) and, for a campaign that
// shakes its workloads, signs.csv: one row per paired difference of the
// comparison report (variant against the baseline, condition, metric),
// with its mean difference, its mean relative change (%; empty over a
// base near zero), the sign the report reads (-1, 0, 1: of the change, or
// of the difference over a base near zero) and on how many of the copies
// it holds. It returns the paths written.
func WriteCSVs(dir string) ([]string, error) {
	a, err := Analyze(dir, ComparisonStudy())
	if err != nil {
		return nil, err
	}
	if len(a.Runs) == 0 {
		return nil, fmt.Errorf("%s: no completed run to report on (run the campaign first: expe run %s --out %s)", dir, a.Plan.Name, dir)
	}
	path := filepath.Join(dir, ResultsFile)
	if err := writeCSV(path, func(w *csv.Writer) { writeResults(w, a) }); err != nil {
		return nil, err
	}
	paths := []string{path}
	if a.Plan.Shake != nil {
		path = filepath.Join(dir, SignsFile)
		if err := writeCSV(path, func(w *csv.Writer) { writeSigns(w, a) }); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeCSV writes to path the rows rows writes, whole or not at all.
func writeCSV(path string, rows func(*csv.Writer)) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	rows(w)
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// writeSigns writes the rows of signs.csv, its header first.
func writeSigns(w *csv.Writer, a *Analysis) {
	pl := a.Plan
	base := pl.BaselineVariant()
	_ = w.Write(SignsColumns)
	for _, c := range pl.Conditions() {
		load := ""
		if pl.HasLoads() {
			load = expe.FormatLoad(c.Load)
		}
		for _, v := range pl.Variants {
			if v.Name == base {
				continue
			}
			for _, m := range reportMetricDefs {
				if !slices.Contains(pl.ReportSettings().Metrics, m.name) {
					continue
				}
				cp := a.CompareVariants(v.Name, base, c, m.get, m.floor)
				holds, n := a.CopySigns(v.Name, base, c, m.get, m.floor, cp.Sign())
				_ = w.Write([]string{pl.Name, v.Name, base, c.Case, load, m.name, csvNumber(cp.Diff.Mean), csvNumber(cp.Change.Mean), strconv.Itoa(cp.Sign()),
					strconv.Itoa(holds), strconv.Itoa(n)})
			}
		}
	}
}

// writeResults writes the rows of results.csv, its header first.
func writeResults(w *csv.Writer, a *Analysis) {
	pl := a.Plan
	cols := ResultsColumns
	if pl.Shake != nil {
		i := slices.Index(cols, "seed") + 1
		cols = slices.Concat(cols[:i], []string{"copy"}, cols[i:])
	}
	_ = w.Write(cols)
	for _, run := range pl.Expand() {
		x := a.Runs[run.ID]
		if x == nil {
			continue
		}
		load := ""
		if pl.HasLoads() {
			load = expe.FormatLoad(run.Load)
		}
		study := pl.Kind
		if study == "" {
			study = ComparisonName
		}
		head := []string{pl.Name, study, run.ID, run.Variant.Name, run.Variant.Policy, strings.Join(run.Variant.OptionArgs(), " "),
			expe.PlatformName(pl.PlatformOf(run.Case)), workloadName(pl, run.Case), run.Case, load, strconv.FormatUint(run.Seed, 10)}
		if pl.Shake != nil {
			head = append(head, strconv.Itoa(run.Copy))
		}
		for _, m := range resultsMetrics {
			_ = w.Write(append(slices.Clone(head), m.name, csvNumber(m.get(x))))
		}
	}
}

// csvNumber is a value in a csv file: empty when it is not a number.
func csvNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// workloadName is a run's workload in results.csv: the plan file's name
// for it, else its generator (and file).
func workloadName(p expe.Plan, caseName string) string {
	if c, ok := p.Case(caseName); ok {
		if w := c.Fields.String(expe.CaseWorkload); w != "" {
			return w
		}
	}
	r := p.Recipe(caseName)
	if f := r.Fields.String("file"); f != "" {
		return r.Generator + ":" + filepath.Base(f)
	}
	return r.Generator
}
