package expe

import (
	"fmt"
	"slices"
	"strings"
)

// What a plan may ask of the comparison report (its report settings,
// ReportSpec): the names it is checked against.

// ReportMetrics are the metrics the comparison report can show, by name
// (package expe/report defines them): a plan's report settings are checked
// against these names.
var ReportMetrics = []string{"waiting", "bsld", "turnaround", "slowdown", "utilization", "makespan", "rejected", "killed"}

// DefaultReportMetrics are the metrics it shows unless the plan says
// otherwise.
var DefaultReportMetrics = []string{"waiting", "bsld", "turnaround", "utilization", "makespan", "rejected", "killed"}

// ReportBreakdowns are the breakdowns of the comparison report: by job size
// class and by user.
var ReportBreakdowns = []string{"size", "user"}

// ReportCDFs are the distributions the comparison report draws.
var ReportCDFs = []string{"waiting", "bsld"}

func (s *ReportSpec) check() error {
	for _, c := range []struct {
		what       string
		got, valid []string
	}{{"metrics", s.Metrics, ReportMetrics}, {"breakdowns", s.Breakdowns, ReportBreakdowns}, {"cdf", s.CDF, ReportCDFs}} {
		for _, g := range c.got {
			if !slices.Contains(c.valid, g) {
				return fmt.Errorf("%s: unknown %q (valid: %s)", c.what, g, strings.Join(c.valid, ", "))
			}
		}
	}
	return nil
}

// ReportSettings are what the comparison report shows of the plan's
// campaign: the plan's report settings, with the defaults filled in.
func (p Plan) ReportSettings() ReportSpec {
	s := ReportSpec{}
	if p.Report != nil {
		s = *p.Report
	}
	if len(s.Metrics) == 0 {
		s.Metrics = DefaultReportMetrics
	}
	if p.Report == nil || p.Report.Breakdowns == nil {
		s.Breakdowns = ReportBreakdowns
	}
	if p.Report == nil || p.Report.CDF == nil {
		s.CDF = ReportCDFs
	}
	return s
}

// BaselineVariant is the variant paired differences are against: the
// plan's baseline, else its first variant.
func (p Plan) BaselineVariant() string {
	if p.Baseline != "" || len(p.Variants) == 0 {
		return p.Baseline
	}
	return p.Variants[0].Name
}
