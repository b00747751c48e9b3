// Package osep is the heterogeneous OSEP thesis' study (chapter 5): its
// plan, the OSEP metrics (satisfaction per user, share of the grid's power
// over time, preemptions) and the report that checks the thesis' findings
// on them.
package osep

import (
	_ "embed"
	"fmt"
	"path/filepath"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
)

// Plan is the name and kind of the plan.
const Plan = "osep"

// OSEPPolicies are the two policies the OSEP plan compares: the original
// (homogeneous) OSEP and the heterogeneous one.
var OSEPPolicies = []string{"osep", "osep-hetero"}

// OSEPDemands are the demand levels of the OSEP workload cases.
var OSEPDemands = []string{"small", "medium", "large"}

// OSEPLateUsers are the users who submit late in the OSEP workload cases.
var OSEPLateUsers = []string{"user1", "user4"}

// OSEPAsPrintedVariant is the OSEP plan's variant of the heterogeneous
// OSEP with the preemption guard as the thesis prints it.
const OSEPAsPrintedVariant = "osep-hetero-asprinted"

// OSEPCaseName names the workload case where late submits late under
// demand ("user1-late-large").
func OSEPCaseName(late, demand string) string { return late + "-late-" + demand }

// DefaultOwnerProperty is the host property naming each host's owner.
const DefaultOwnerProperty = "owner"

// OwnerProperty is the host property naming the hosts' owners that a
// plan's variants use (their "owner" option), DefaultOwnerProperty unless
// they say otherwise.
func OwnerProperty(p expe.Plan) string {
	for _, v := range p.Variants {
		if o := v.Options["owner"]; o != "" {
			return o
		}
	}
	return DefaultOwnerProperty
}

//go:embed plan.yaml
var planFile []byte

// Register adds the plan and its report.
func Register(s *report.Studies) {
	s.Register(report.Study{Kind: Plan, Prepare: prepare, ReadWorkload: readWorkload, ReadRun: readRun, Report: writeReport})
	s.AddPlan(Plan, planFile)
}

// prepare reads the grid's owners from the platform.
func prepare(a *report.Analysis) (any, error) {
	if a.Platform == nil {
		return nil, fmt.Errorf("%s: the OSEP metrics need the platform %s", a.Dir, filepath.Join(a.Dir, expe.PlatformFile))
	}
	g, err := NewOSEPGrid(a.Platform, OwnerProperty(a.Plan))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(a.Dir, expe.PlatformFile), err)
	}
	return g, nil
}

func grid(a *report.Analysis) *OSEPGrid { return a.Data.(*OSEPGrid) }

// osepWorkload is what the OSEP metrics need from one workload file.
type osepWorkload struct {
	jobs  []OSEPJob
	ideal map[string]float64 // owner-alone completion times
}

// readWorkload reads an OSEP workload and computes its owner-alone
// completion times on the grid.
func readWorkload(a *report.Analysis, path string, _ map[string]analysis.JobInfo) (any, error) {
	jobs, err := ReadOSEPJobs(path)
	if err != nil {
		return nil, err
	}
	ideal, err := OwnerAloneCompletion(jobs, grid(a))
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return &osepWorkload{jobs: jobs, ideal: ideal}, nil
}

// readRun computes a run's OSEP metrics; the share series is kept for the
// runs of the plan's first seed, the ones the report draws.
func readRun(a *report.Analysis, in *report.RunInput, rd *report.RunData) error {
	w := in.WorkloadData.(*osepWorkload)
	s, err := ComputeOSEP(in.Rows, w.jobs, w.ideal, grid(a))
	if err != nil {
		return err
	}
	if len(a.Plan.Seeds) == 0 || rd.Run.Seed != a.Plan.Seeds[0] {
		s.Shares = nil
	}
	rd.Extra = s
	return nil
}

// extra is a run's OSEP metrics.
func extra(rd *report.RunData) *OSEPRunStats { return rd.Extra.(*OSEPRunStats) }

func writeReport(r *report.Report) error {
	rp := &reporter{Report: r, a: r.A}
	return rp.osep()
}

type reporter struct {
	*report.Report
	a *report.Analysis
}

func (r *reporter) p(format string, args ...any) { r.P(format, args...) }

// osepStudy is the study Register adds.
func osepStudy() report.Study {
	s := report.NewStudies()
	Register(s)
	st, _ := s.Study(Plan)
	return st
}
