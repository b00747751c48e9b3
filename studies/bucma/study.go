// Package bucma is the BUCMA paper's study: its plans (bucma-model:
// Table 3 and Figures 1-2; walltime-trust: Figures 3-4; and their
// sensitivity maps), the published numbers and the reports that put ours
// beside them.
package bucma

import (
	"embed"
	"math"
	"sort"
	"strings"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
)

// Plan names, which are also the plans' kinds.
const (
	ModelPlan         = "bucma-model"
	WtrustPlan        = "walltime-trust"
	BucmaSensitivity  = "bucma-sensitivity"
	WtrustSensitivity = "walltime-trust-sensitivity"
)

// BaseNames are the four base policies of the BUCMA paper.
var BaseNames = []string{"fcfs", "minmin", "maxmin", "easy"}

// BUCMAModels are the two named BUCMA variants of the paper.
var BUCMAModels = []string{"bucma5302", "bucma4303"}

// PinnedScores pins the Su of the three users of the inserted requests
// (the pinned-scores option of the BUCMA variants).
const PinnedScores = "imprecise:0,medium:50,precise:100"

// IsSensitivity reports whether a plan kind is a sensitivity plan.
func IsSensitivity(kind string) bool { return kind == BucmaSensitivity || kind == WtrustSensitivity }

//go:embed *.yaml
var planFiles embed.FS

// RegisterPaper adds the paper's two plans, bucma-model and
// walltime-trust, and their reports.
func RegisterPaper(s *report.Studies) {
	for _, name := range []string{ModelPlan, WtrustPlan} {
		register(s, name)
	}
}

// RegisterSensitivity adds the two sensitivity plans and their reports.
func RegisterSensitivity(s *report.Studies) {
	for _, name := range []string{BucmaSensitivity, WtrustSensitivity} {
		register(s, name)
	}
}

// RegisterExplorations adds the two explorations of the paper's choices,
// bucma-weights (the weights α, β, γ, δ of BUCMA5302 and BUCMA4303) and
// walltime-trust-threshold (Algorithm 1's 80 %), and their reports.
func RegisterExplorations(s *report.Studies) {
	register(s, WeightsPlan)
	register(s, ThresholdPlan)
}

func register(s *report.Studies, name string) {
	file, err := planFiles.ReadFile(name + ".yaml")
	if err != nil {
		panic(err)
	}
	st := report.Study{Kind: name, ReadWorkload: readWorkload, ReadRun: readRun, Report: writeReport}
	if name == WeightsPlan {
		// Thousands of runs: keep a few numbers of each, not its gains.
		st.ReadRun = weightReadRun
	}
	s.Register(st)
	s.AddPlan(name, file)
}

func writeReport(r *report.Report) error {
	rp := &reporter{Report: r, a: r.A}
	return rp.write()
}

// runData is what the reports read from one run, besides its metrics.
type runData struct {
	// Classes are the statistics per precision profile (profile_class of
	// the workload's jobs).
	Classes map[string]analysis.GroupStats
	// Gains are the queue-position gains by Su band at submission (empty
	// without a decision trace).
	Gains map[string][]float64
	// BandWait is the mean waiting time by Su band at submission (from the
	// trace).
	BandWait map[string]float64
	HasTrace bool
	// ClassGains are the queue-position gains at submission of the jobs of
	// each precision profile (from the trace); OtherSu is the mean Su at
	// submission of the other jobs' owners (NaN without a trace), and
	// OtherShortWall the share of the other jobs whose walltime is at most
	// InsertedWalltime (the inserted requests' 1 h): the two things that
	// decide where BUCMA puts an inserted request among them.
	ClassGains     map[string][]float64
	OtherSu        float64
	OtherShortWall float64
}

// extra is a run's runData.
func extra(rd *report.RunData) *runData { return rd.Extra.(*runData) }

// readWorkload maps a workload's job ids to their precision profile.
func readWorkload(_ *report.Analysis, _ string, jobs map[string]analysis.JobInfo) (any, error) {
	return analysis.ClassOf(jobs), nil
}

// readRun reads a run's statistics per precision profile and, from its
// decision trace, the queue-position gains and waits by Su band.
func readRun(_ *report.Analysis, in *report.RunInput, rd *report.RunData) error {
	classes := in.WorkloadData.(map[string]string)
	d := &runData{Classes: analysis.ByGroup(in.Rows, classes), Gains: map[string][]float64{}, BandWait: map[string]float64{},
		ClassGains: map[string][]float64{}, OtherSu: math.NaN(), OtherShortWall: math.NaN()}
	rd.Extra = d
	if len(classes) > 0 {
		short, others := 0, 0
		for _, j := range in.Rows {
			if classes[j.ID] != "" {
				continue
			}
			others++
			if j.Walltime > 0 && j.Walltime <= InsertedWalltime {
				short++
			}
		}
		if others > 0 {
			d.OtherShortWall = float64(short) / float64(others)
		}
	}
	tr, ok, err := in.Trace()
	if err != nil || !ok {
		return err
	}
	d.HasTrace = true
	d.Gains = analysis.GainsByBand(tr)
	su, nsu := 0.0, 0
	for _, t := range tr {
		id := t.JobID // "w0!7" in a trace, "7" in _jobs.csv
		if i := strings.IndexByte(id, '!'); i >= 0 {
			id = id[i+1:]
		}
		if c := classes[id]; c != "" {
			if t.HasGain {
				d.ClassGains[c] = append(d.ClassGains[c], t.Gain)
			}
		} else if !math.IsNaN(t.Su) {
			su += t.Su
			nsu++
		}
	}
	if nsu > 0 {
		d.OtherSu = su / float64(nsu)
	}
	for b, w := range analysis.WaitsByBand(tr) {
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		d.BandWait[b] = sum / float64(len(w))
	}
	return nil
}

// pooledGains pools the gains of a variant by band over the seeds.
func pooledGains(a *report.Analysis, variant string, load float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range a.Plan.Seeds {
		if x := a.Get(variant, s, load); x != nil {
			for b, g := range extra(x).Gains {
				out[b] = append(out[b], g...)
			}
		}
	}
	return out
}

// classesOf lists the precision profiles seen in the runs, in the paper's
// order first (imprecise, medium, precise), then the others sorted.
func classesOf(a *report.Analysis) []string {
	seen := map[string]bool{}
	for _, rd := range a.Runs {
		for c := range extra(rd).Classes {
			seen[c] = true
		}
	}
	var out []string
	for _, c := range []string{"imprecise", "medium", "precise"} {
		if seen[c] {
			out = append(out, c)
			delete(seen, c)
		}
	}
	var rest []string
	for c := range seen {
		rest = append(rest, c)
	}
	sort.Strings(rest)
	return append(out, rest...)
}
