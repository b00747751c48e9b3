package osep

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
)

// NearlyEqualPoints is how close (in satisfaction points) two users'
// satisfactions must be, on average over the seeds, for the report to call
// them nearly equal.
const NearlyEqualPoints = 5.0

// OSEP report (plan kind "osep"): satisfaction per user and case, the share
// of the grid's power over time, preemptions, and the thesis' findings
// checked against our data.

func (r *reporter) osep() error {
	a := r.a
	pl := a.Plan
	g := grid(a)
	r.Intro(fmt.Sprintf("%d variants × %d workload cases × %d seeds", len(pl.Variants), len(pl.Cases), len(pl.Seeds)), "the numbers below use the completed runs only")
	r.p("- Platform `%s` (%d compute hosts, owners read from the host property `%s`); workload: `%s` generator, one demand per case and seed, the late user submitting at %g s; seeds %s.\n",
		pl.Platform, a.Hosts, OwnerProperty(pl), pl.Workload.Generator, pl.Workload.Fields.Float("late_by"), analysis.SeedList(pl.Seeds))
	engines, wall, nInfo := r.RunInfos()
	r.p("- Engines: %s. Wall time of the runs: %s in all", strings.Join(engines, ", "), analysis.FmtDuration(wall))
	if nInfo > 0 {
		r.p(" (%s per run on average; runs in parallel take less elapsed time)", analysis.FmtDuration(wall/float64(nInfo)))
	}
	r.p(".\n")
	r.p("- Values are means over seeds with the half-width of their 95 %% confidence interval (Student t, one value per seed; ")
	r.p("a difference between two variants is computed on each seed's pair of runs, same workload, then averaged). Satisfactions are ")
	r.p("percentages of an ideal and their differences are in points: no value of this report is a change relative to a base.\n")
	r.p("- %s Here every case is a fixed demand of 40 jobs submitted within %g s, hours of work on 12 hosts: its offered load over that span is ", report.SaturationSummary(a, false), pl.Workload.Fields.Float("late_by"))
	r.p("far above 1, so a run is saturated by construction. The satisfactions measure how the contention is shared among the users; they do not ")
	r.p("follow a trace's length.\n\n")

	r.p("The grid's shares:\n\n| user | hosts owned | power owned (Gflop/s) | share of the grid |\n|---|---|---|---|\n")
	for _, u := range g.Users {
		var names []string
		pow := 0.0
		for _, h := range g.Owned(u) {
			names = append(names, h.Name)
			pow += h.Speed
		}
		r.p("| %s | %d (%s) | %.2f | %.2f %% |\n", u, len(names), strings.Join(names, ", "), pow/1e9, 100*g.OwnedShare(u))
	}
	r.p("\n")
	r.p("Definitions. *Satisfaction* of user i (Eq. 4.4 of the thesis): SU_i = mean over i's jobs of (CT_ideal − AT) / (CT_real − AT) × 100, ")
	r.p("where AT is the job's submission time, CT_real the finish time of the row of `out_jobs.csv` that completed it (the job itself, or ")
	r.p("its last resubmitted piece when it was preempted), and CT_ideal its completion time had user i run alone on exactly the hosts they own ")
	r.p("(list scheduling: the smallest waiting job to the fastest free host). 100 %% means as soon as alone on one's own hosts; above 100 %%, sooner ")
	r.p("(the user got more than their own hosts). Jobs that never completed are left out of SU and counted in the *jobs not completed* column. ")
	r.p("*Share of the grid's power*: the sum of the speeds of the hosts running a user's jobs (killed ones included, until they were killed) over ")
	r.p("the grid's total speed (%.2f Gflop/s). A *preemption* is a row that ended `%s`; its execution time is work lost, ", g.Total/1e9, metrics.KilledState)
	r.p("except the whole checkpoint blocks a checkpointing variant keeps.\n\n")
	r.osepAnomalies()

	if err := r.osepSatisfaction(); err != nil {
		return err
	}
	if err := r.osepShares(); err != nil {
		return err
	}
	r.osepPreemptions()
	r.osepThesis()
	return nil
}

// osepAnomalies reports runs whose rows do not match their workload.
func (r *reporter) osepAnomalies() {
	var orphans, dups []string
	for _, id := range slices.Sorted(maps.Keys(r.a.Runs)) {
		s := extra(r.a.Runs[id])
		if s.Orphans > 0 {
			orphans = append(orphans, fmt.Sprintf("%s (%d)", id, s.Orphans))
		}
		if s.Duplicates > 0 {
			dups = append(dups, fmt.Sprintf("%s (%d)", id, s.Duplicates))
		}
	}
	if len(orphans) > 0 {
		r.p("**Rows that belong to no job of the workload** (left out of every metric): %s.\n\n", strings.Join(orphans, ", "))
	}
	if len(dups) > 0 {
		r.p("**Jobs completed by more than one row** (the last finish counts): %s.\n\n", strings.Join(dups, ", "))
	}
}

// ---------------------------------------------------------------- helpers

// policyTitle names an OSEP policy in the report.
func policyTitle(policy string) string {
	switch policy {
	case "osep":
		return "original OSEP"
	case "osep-hetero":
		return "heterogeneous OSEP"
	}
	return policy
}

// asPrinted reports whether a variant applies the heterogeneous OSEP's
// guard as printed (not the default).
func asPrinted(v expe.Variant) bool { return v.Options["guard"] == "as-printed" }

// variantTitle names a variant's policy in the report.
func variantTitle(v expe.Variant) string {
	if asPrinted(v) {
		return policyTitle(v.Policy) + ", guard as printed"
	}
	return policyTitle(v.Policy)
}

// checkpointOf is a variant's checkpoint block in seconds (0: none).
func checkpointOf(v expe.Variant) int {
	n, err := strconv.Atoi(v.Options["checkpoint"])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func checkpointTitle(v expe.Variant) string {
	if c := checkpointOf(v); c > 0 {
		return fmt.Sprintf("%d-s blocks", c)
	}
	return "none"
}

// variantLegend is a variant's short name in figures (the thesis' legend:
// Original/Modificado × SC/CC).
func variantLegend(v expe.Variant) string {
	s := variantTitle(v)
	if c := checkpointOf(v); c > 0 {
		return fmt.Sprintf("%s, ckpt %d s", s, c)
	}
	return s + ", no ckpt"
}

// osepVariant finds the variant of policy with checkpoint blocks of ckpt
// seconds.
func (r *reporter) osepVariant(policy string, ckpt int) (expe.Variant, bool) {
	for _, v := range r.a.Plan.Variants {
		if v.Policy == policy && checkpointOf(v) == ckpt && !asPrinted(v) {
			return v, true
		}
	}
	return expe.Variant{}, false
}

// checkpoints lists the checkpoint settings of the plan's variants, in
// order.
func (r *reporter) checkpoints() []int {
	var out []int
	seen := map[int]bool{}
	for _, v := range r.a.Plan.Variants {
		if c := checkpointOf(v); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Ints(out)
	return out
}

// lateGroups groups the plan's cases by late user, in plan order.
func (r *reporter) lateGroups() (lates []string, cases map[string][]expe.WorkloadCase) {
	cases = map[string][]expe.WorkloadCase{}
	for _, c := range r.a.Plan.Cases {
		if _, ok := cases[c.Param("late")]; !ok {
			lates = append(lates, c.Param("late"))
		}
		cases[c.Param("late")] = append(cases[c.Param("late")], c)
	}
	return lates, cases
}

func suOf(x *report.RunData, u string) float64 {
	if s, ok := extra(x).Satisfaction[u]; ok {
		return s.SU
	}
	return math.NaN()
}

// shareDistance is Σ over users of |time-averaged share − owned share| in
// the contention window, in points of the grid's power.
func (r *reporter) shareDistance(x *report.RunData) float64 {
	d := 0.0
	for _, u := range grid(r.a).Users {
		d += math.Abs(extra(x).ContentionShare[u] - grid(r.a).OwnedShare(u))
	}
	return 100 * d
}

func significant(e analysis.Estimate) bool {
	return e.N >= 2 && !math.IsNaN(e.Half) && math.Abs(e.Mean) > e.Half
}

// ---------------------------------------------------------------- satisfaction

func (r *reporter) osepSatisfaction() error {
	a := r.a
	users := grid(a).Users
	r.p("## Satisfaction per user (%%)\n\n")
	r.p("The thesis' Figures 7–14: each user's satisfaction, per late user, demand, checkpointing and policy.\n\n")
	lates, byLate := r.lateGroups()
	for _, late := range lates {
		if late != "" {
			r.p("### %s late\n\n", late)
		}
		r.p("| demand | checkpointing | policy | %s | jobs not completed |\n|---|---|---|%s---|\n", strings.Join(users, " | "), strings.Repeat("---|", len(users)))
		for _, c := range byLate[late] {
			for _, v := range a.Plan.Variants {
				r.p("| %s | %s | %s |", c.Param("demand"), checkpointTitle(v), variantTitle(v))
				for _, u := range users {
					est := analysis.Estimate95(a.CaseValues(v.Name, c.Name, func(x *report.RunData) float64 { return suOf(x, u) }))
					r.p(" %s |", analysis.FmtEst(est, 1, false))
				}
				unfinished, runs := 0, 0
				for _, s := range a.Plan.Seeds {
					if x := a.GetCase(v.Name, c.Name, s); x != nil {
						runs++
						unfinished += extra(x).Unfinished()
					}
				}
				cell := "0"
				if unfinished > 0 {
					cell = fmt.Sprintf("**%d** over %d runs", unfinished, runs)
				}
				r.p(" %s |\n", cell)
			}
		}
		r.p("\n")
		for _, c := range byLate[late] {
			ests := make([][]analysis.Estimate, len(a.Plan.Variants))
			var series []string
			for vi, v := range a.Plan.Variants {
				series = append(series, variantLegend(v))
				for _, u := range users {
					ests[vi] = append(ests[vi], analysis.Estimate95(a.CaseValues(v.Name, c.Name, func(x *report.RunData) float64 { return suOf(x, u) })))
				}
			}
			name := "osep_su_" + c.Name
			title := c.Title + ": satisfaction per user"
			if err := figures.EstimateBarPlot(filepath.Join(a.Dir, report.FigDir, name), title, "satisfaction (%)", users, series, ests, 100); err != nil {
				return err
			}
			r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
		}
	}
	return nil
}

// ---------------------------------------------------------------- shares

// representativeCases are the cases drawn over time: the large demand of
// each late user (the thesis' Figures 15–18), else each group's last case.
func (r *reporter) representativeCases() []expe.WorkloadCase {
	lates, byLate := r.lateGroups()
	var out []expe.WorkloadCase
	for _, late := range lates {
		cs := byLate[late]
		pick := cs[len(cs)-1]
		for _, c := range cs {
			if c.Param("demand") == "large" {
				pick = c
			}
		}
		out = append(out, pick)
	}
	return out
}

func (r *reporter) osepShares() error {
	a := r.a
	g := grid(a)
	r.p("## Share of the grid's power over time\n\n")
	owned := map[string]float64{}
	for _, u := range g.Users {
		owned[u] = g.OwnedShare(u)
	}
	if len(a.Plan.Seeds) > 0 {
		seed := a.Plan.Seeds[0]
		r.p("One run per figure (seed %d, no checkpointing), the two policies side by side, as the thesis' Figures 15–18 show one run each. ", seed)
		r.p("Solid: each user's share of the grid's power; dashed, same colour: the share the user owns.\n\n")
		for _, c := range r.representativeCases() {
			var panels []figures.SharePanel
			for _, pol := range OSEPPolicies {
				v, ok := r.osepVariant(pol, 0)
				if !ok {
					continue
				}
				rd := a.GetCase(v.Name, c.Name, seed)
				if rd == nil {
					continue
				}
				s := extra(rd).Shares
				if s == nil {
					return fmt.Errorf("run %s: no share series kept", rd.Run.ID)
				}
				panels = append(panels, figures.SharePanel{Title: policyTitle(pol), Series: s, Owned: owned})
			}
			if len(panels) == 0 {
				r.p("No completed run of %s, seed %d, without checkpointing, to draw.\n\n", c.Title, seed)
				continue
			}
			name := fmt.Sprintf("osep_share_%s_s%03d", c.Name, seed)
			title := fmt.Sprintf("%s, seed %d", c.Title, seed)
			if err := figures.SharePlot(filepath.Join(a.Dir, report.FigDir, name), title, panels); err != nil {
				return err
			}
			r.p("![share of the grid's power over time, %s](%s/%s.png)\n\n", title, report.FigDir, name)
		}
	}
	users := g.Users
	r.p("Each user's share of the grid's power (%%) averaged over the *contention window* — from the time every user has submitted to the time ")
	r.p("the first user has all their jobs completed, while everybody has work — and the distance to the owned shares (Σ over users of ")
	r.p("|average share − owned share|, points). A policy that serves every user exactly their share scores 0, unless a user has too little ")
	r.p("work left to use their hosts.\n\n")
	r.p("| case | checkpointing | policy | %s | distance to the owned shares |\n|---|---|---|%s---|\n", strings.Join(users, " | "), strings.Repeat("---|", len(users)))
	r.p("| owned | | |")
	for _, u := range users {
		r.p(" %.2f |", 100*owned[u])
	}
	r.p(" 0 |\n")
	for _, c := range a.Plan.Cases {
		for _, v := range a.Plan.Variants {
			r.p("| %s | %s | %s |", c.Title, checkpointTitle(v), variantTitle(v))
			for _, u := range users {
				est := analysis.Estimate95(a.CaseValues(v.Name, c.Name, func(x *report.RunData) float64 { return 100 * extra(x).ContentionShare[u] }))
				r.p(" %s |", analysis.FmtEst(est, 1, false))
			}
			r.p(" %s |\n", analysis.FmtEst(analysis.Estimate95(a.CaseValues(v.Name, c.Name, r.shareDistance)), 1, false))
		}
	}
	r.p("\n")

	r.p("Where each user's jobs ran (no checkpointing): the part of their execution time (killed rows included) spent on hosts they own, ")
	r.p("and the mean speed of the hosts they ran on (Gflop/s, weighted by execution time).\n\n")
	r.p("| case | policy |")
	for _, u := range users {
		var sp float64
		for _, h := range g.Owned(u) {
			sp += h.Speed
		}
		r.p(" %s (owns %.1f Gflop/s per host) |", u, sp/float64(max(1, len(g.Owned(u))))/1e9)
	}
	r.p("\n|---|---|%s\n", strings.Repeat("---|", len(users)))
	for _, c := range a.Plan.Cases {
		for _, pol := range OSEPPolicies {
			v, ok := r.osepVariant(pol, 0)
			if !ok {
				continue
			}
			r.p("| %s | %s |", c.Title, policyTitle(pol))
			for _, u := range users {
				r.p(" %s |", r.whereRan(v, c.Name, u))
			}
			r.p("\n")
		}
	}
	r.p("\n")
	return nil
}

// ranOn is the part (%) of user u's execution time on their own hosts and
// the mean speed (Gflop/s) of the hosts their jobs ran on, under variant v
// on case c, means over the seeds (NaN when no run has data).
func (r *reporter) ranOn(v expe.Variant, c, u string) (own, speed float64) {
	o := analysis.Estimate95(r.a.CaseValues(v.Name, c, func(x *report.RunData) float64 { return 100 * extra(x).OwnHostTime[u] }))
	sp := analysis.Estimate95(r.a.CaseValues(v.Name, c, func(x *report.RunData) float64 { return extra(x).HostSpeed[u] / 1e9 }))
	return o.Mean, sp.Mean
}

// whereRan is ranOn as a table cell: "84 % own, 132.2".
func (r *reporter) whereRan(v expe.Variant, c, u string) string {
	own, sp := r.ranOn(v, c, u)
	if math.IsNaN(own) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f %% own, %.1f", own, sp)
}

// ---------------------------------------------------------------- preemptions

func (r *reporter) osepPreemptions() {
	a := r.a
	users := grid(a).Users
	r.p("## Preemptions\n\n")
	r.p("Killed rows per run (all users, then each user's jobs) and their execution time per run (hours of a host's time).\n\n")
	r.p("| case | checkpointing | policy | preemptions per run | %s | killed execution time (h) |\n|---|---|---|---|%s---|\n", strings.Join(users, " | "), strings.Repeat("---|", len(users)))
	for _, c := range a.Plan.Cases {
		for _, v := range a.Plan.Variants {
			vals := func(f func(*report.RunData) float64) string {
				return analysis.FmtEst(analysis.Estimate95(a.CaseValues(v.Name, c.Name, f)), 2, false)
			}
			r.p("| %s | %s | %s | %s |", c.Title, checkpointTitle(v), variantTitle(v), vals(func(x *report.RunData) float64 { return float64(extra(x).TotalPreemptions()) }))
			for _, u := range users {
				r.p(" %s |", vals(func(x *report.RunData) float64 { return float64(extra(x).Preemptions[u]) }))
			}
			r.p(" %s |\n", vals(func(x *report.RunData) float64 { return extra(x).TotalKilledExec() / 3600 }))
		}
	}
	r.p("\n")
}

// ---------------------------------------------------------------- the thesis

// verdict sums up cells of a finding: agree cells show the thesis'
// direction significantly, contra the opposite direction significantly,
// the others no significant difference.
func verdict(agree, contra, unsure int) string {
	total := agree + contra + unsure
	switch {
	case total == 0:
		return "not enough data (no case with at least two seeds of both policies)"
	case agree > 0 && contra == 0 && agree >= unsure:
		return "holds"
	case agree > 0:
		return "partly holds"
	case contra > 0:
		return "does not hold: the opposite shows"
	}
	return "does not hold: no significant difference"
}

// tally classes an estimate of a difference whose expected sign is sign
// (+1 or −1).
// estSeeds prints per-seed differences: their mean ± 95 % interval, then
// the seeds that back its sign.
func estSeeds(xs []float64) string {
	return analysis.FmtEst(analysis.Estimate95(xs), 1, true) + " " + analysis.SeedsOf(xs)
}

func tally(e analysis.Estimate, sign float64, agree, contra, unsure *int) {
	switch {
	case e.N == 0 || math.IsNaN(e.Mean):
	case !significant(e):
		*unsure++
	case e.Mean*sign > 0:
		*agree++
	default:
		*contra++
	}
}

func (r *reporter) osepThesis() {
	a := r.a
	r.p("## Side by side with the thesis\n\n")
	r.p("The thesis gives its results as figures only (1000 runs per case, iSPD simulator). Its findings (experiments.md §3):\n\n")
	r.p("1. the original OSEP under-serves user1 by almost 20 %% on large demand (user1 late);\n")
	r.p("2. it over-serves user4 by about 10 %% (user1 late);\n")
	r.p("3. it gives nearly equal satisfaction to users with very different shares: (user1, user2) and (user3, user4);\n")
	r.p("4. the heterogeneous version respects the size of each share (its usage plots, Figures 15–18).\n\n")
	r.p("Below, each finding is checked on our data: a difference is *significant* when its 95 %% interval excludes 0 (two seeds at least).\n\n")
	var notHeld []string
	judge := func(n int, v string) {
		r.p("Verdict: **%s**.\n\n", v)
		if v != "holds" {
			notHeld = append(notHeld, fmt.Sprintf("finding %d %s", n, v))
		}
	}
	ck := r.checkpoints()
	pair := func(ckpt int) (expe.Variant, expe.Variant, bool) {
		o, ok1 := r.osepVariant("osep", ckpt)
		h, ok2 := r.osepVariant("osep-hetero", ckpt)
		return o, h, ok1 && ok2
	}
	suDiff := func(o, h expe.Variant, c, u string) []float64 {
		return a.CasePaired(o.Name, h.Name, c, func(x, y *report.RunData) float64 { return suOf(x, u) - suOf(y, u) })
	}
	// below100 is SU(u) − 100 per seed.
	below100 := func(v expe.Variant, c, u string) []float64 {
		return a.CaseValues(v.Name, c, func(x *report.RunData) float64 { return suOf(x, u) - 100 })
	}

	// 1. and 2.: "than it should" is read as against 100 %, the satisfaction
	// of a user served exactly as by their own hosts.
	suEst := func(v expe.Variant, c, u string) analysis.Estimate {
		return analysis.Estimate95(a.CaseValues(v.Name, c, func(x *report.RunData) float64 { return suOf(x, u) }))
	}
	r.p("Findings 1 and 2 say how much more or less satisfied a user is *than they should be*; we read that as against 100 %%, the ")
	r.p("satisfaction of a user served exactly as well as by their own hosts alone, and give the heterogeneous OSEP's value next to it. ")
	r.p("%s\n\n", analysis.SeedsNote())

	// 1. user1 under-served, large demand, user1 late.
	c1 := OSEPCaseName("user1", "large")
	r.p("**1. user1 under-served on large demand (user1 late).** SU(user1) − 100 under the original OSEP, %s (thesis: almost −20 points):\n\n", c1)
	ag, co, un := 0, 0, 0
	if _, ok := a.Plan.Case(c1); ok {
		for _, c := range ck {
			o, h, ok := pair(c)
			if !ok {
				continue
			}
			xs := below100(o, c1, "user1")
			e := analysis.Estimate95(xs)
			r.p("- checkpointing %s: %s points (SU %s %%; heterogeneous OSEP: %s %%, difference %s points)\n", checkpointTitle(o), estSeeds(xs),
				analysis.FmtEst(suEst(o, c1, "user1"), 1, false), analysis.FmtEst(suEst(h, c1, "user1"), 1, false), estSeeds(suDiff(o, h, c1, "user1")))
			tally(e, -1, &ag, &co, &un)
		}
	}
	r.p("\n")
	judge(1, verdict(ag, co, un))

	// 2. user4 over-served, user1 late.
	r.p("**2. user4 over-served (user1 late).** SU(user4) − 100 under the original OSEP (thesis: up to about +10 points):\n\n")
	ag, co, un = 0, 0, 0
	best := math.Inf(-1)
	bestAt := ""
	for _, c := range a.Plan.Cases {
		if c.Param("late") != "user1" {
			continue
		}
		for _, k := range ck {
			o, h, ok := pair(k)
			if !ok {
				continue
			}
			xs := below100(o, c.Name, "user4")
			e := analysis.Estimate95(xs)
			r.p("- %s, checkpointing %s: %s points (heterogeneous OSEP: %s)\n", c.Title, checkpointTitle(o), estSeeds(xs), estSeeds(below100(h, c.Name, "user4")))
			tally(e, +1, &ag, &co, &un)
			if e.N > 0 && e.Mean > best {
				best, bestAt = e.Mean, c.Title+", checkpointing "+checkpointTitle(o)
			}
		}
	}
	if bestAt != "" {
		r.p("\nLargest: %+.1f points (%s).\n", best, bestAt)
	}
	r.p("\n")
	judge(2, verdict(ag, co, un))

	// 3. nearly equal satisfaction in the pairs under the original OSEP.
	r.p("**3. Nearly equal satisfaction for (user1, user2) and (user3, user4) under the original OSEP.** Mean gap SU(user1) − SU(user2) and ")
	r.p("SU(user3) − SU(user4) per case without checkpointing, under each policy; *nearly equal* = a mean gap within ±%g points.\n\n", NearlyEqualPoints)
	r.p("| case | pair | gap, original OSEP | gap, heterogeneous OSEP |\n|---|---|---|---|\n")
	near, cells, nearH, smaller := 0, 0, 0, 0
	o, h, ok := pair(0)
	if ok {
		for _, c := range a.Plan.Cases {
			for _, pr := range [][2]string{{"user1", "user2"}, {"user3", "user4"}} {
				gap := func(v expe.Variant) []float64 {
					return a.CaseValues(v.Name, c.Name, func(x *report.RunData) float64 { return suOf(x, pr[0]) - suOf(x, pr[1]) })
				}
				eo, eh := analysis.Estimate95(gap(o)), analysis.Estimate95(gap(h))
				r.p("| %s | (%s, %s) | %s | %s |\n", c.Title, pr[0], pr[1], estSeeds(gap(o)), estSeeds(gap(h)))
				if eo.N == 0 || math.IsNaN(eo.Mean) {
					continue
				}
				cells++
				if math.Abs(eo.Mean) <= NearlyEqualPoints {
					near++
				}
				if eh.N > 0 && math.Abs(eh.Mean) <= NearlyEqualPoints {
					nearH++
				}
				if eh.N > 0 && math.Abs(eo.Mean) < math.Abs(eh.Mean) {
					smaller++
				}
			}
		}
	}
	r.p("\nUnder the original OSEP, %d of %d gaps are within ±%g points (under the heterogeneous OSEP: %d); ", near, cells, NearlyEqualPoints, nearH)
	r.p("the original OSEP's gap is the smaller of the two in %d of them.\n\n", smaller)
	v3 := "not enough data"
	switch {
	case cells == 0:
	case 2*near > cells:
		v3 = "holds"
	case near > 0:
		v3 = "partly holds"
	default:
		v3 = "does not hold: the satisfactions of each pair differ"
	}
	judge(3, v3)

	// 4. the heterogeneous OSEP respects the shares.
	r.p("**4. The heterogeneous OSEP respects the size of each share.** Distance of the users' average shares of the grid's power to their ")
	r.p("owned shares in the contention window (see above), heterogeneous minus original OSEP, no checkpointing (negative: the heterogeneous ")
	r.p("OSEP is closer to the owned shares):\n\n")
	ag, co, un = 0, 0, 0
	if ok {
		for _, c := range a.Plan.Cases {
			xs := a.CasePaired(h.Name, o.Name, c.Name, func(x, y *report.RunData) float64 { return r.shareDistance(x) - r.shareDistance(y) })
			e := analysis.Estimate95(xs)
			r.p("- %s: %s points\n", c.Title, estSeeds(xs))
			tally(e, -1, &ag, &co, &un)
		}
	}
	r.p("\n")
	judge(4, verdict(ag, co, un))

	r.p("### Where ours differ, and why\n\n")
	if len(notHeld) == 0 {
		r.p("Every finding holds in direction here; the sizes of the differences are ours, not the thesis' (compare the numbers above with its 20 and 10 points).\n\n")
	} else {
		r.p("Not as in the thesis: %s. ", strings.Join(notHeld, "; "))
		r.p("Plausible causes, in the order we would look at them:\n\n")
	}
	r.p("- *The satisfaction reference.* The thesis defines CT_ideal only as the time the user expects the job to end; ours is the owner-alone ")
	r.p("list schedule on the user's own hosts (algorithms.md §5.2). Any other reference shifts every satisfaction, and can change the gaps ")
	r.p("between users (finding 3) even where the schedules are the same.\n")
	r.p("- *The simulator.* The thesis ran iSPD, which models the grid's master, the transfer of each task and queueing at the scheduler; here ")
	r.p("Batsim's model (or bucma's embedded engine, which reproduces it) runs jobs without communication, starts them within microseconds of ")
	r.p("the decision, and a preempted job costs only its lost work.\n")
	if _, ok := a.Plan.Case(c1); ok {
		var parts []string
		for _, pol := range OSEPPolicies {
			if v, ok := r.osepVariant(pol, 0); ok {
				if own, sp := r.ranOn(v, c1, "user1"); !math.IsNaN(own) {
					parts = append(parts, fmt.Sprintf("under the %s, %.0f %% of their execution time on user1's own hosts and on hosts of %.1f Gflop/s on average", policyTitle(pol), own, sp))
				}
			}
		}
		if len(parts) > 0 {
			r.p("- *Which hosts the late user gets.* With user1 late on large demand (no checkpointing), user1's jobs ran %s ", strings.Join(parts, "; "))
			r.p("(user1's own hosts do %.2f Gflop/s each). The hosts that free up or are preempted for a late user decide its satisfaction; ", g1Speed(grid(a)))
			r.p("see the table \"Where each user's jobs ran\".\n")
		}
	}
	r.guardCause(c1, suEst)
	r.p("- *Our decisions where the thesis is silent.* Host choice (the policies' `hosts` option: the user's own free hosts first, fastest first), ")
	r.p("which running job is preempted, how many per round (`maxt`), the round interval (`interval`, 60 s), and what a checkpoint keeps ")
	r.p("(whole blocks of execution time): each changes who gets the fast hosts, and the fast hosts decide most of the satisfaction on this grid.\n")
	r.p("- *Seeds.* With few seeds (`--quick`) the intervals are wide and a finding can fail for lack of significance alone.\n")
}

// guardCause compares, in case c, the heterogeneous OSEP with the default
// guard and with the guard as printed: preemptions per run and user1's
// satisfaction.
func (r *reporter) guardCause(c string, suEst func(v expe.Variant, c, u string) analysis.Estimate) {
	h, ok := r.osepVariant("osep-hetero", 0)
	var ap expe.Variant
	for _, v := range r.a.Plan.Variants {
		if asPrinted(v) && checkpointOf(v) == 0 {
			ap = v
			break
		}
	}
	if _, has := r.a.Plan.Case(c); !ok || ap.Name == "" || !has {
		return
	}
	pre := func(v expe.Variant) analysis.Estimate {
		return analysis.Estimate95(r.a.CaseValues(v.Name, c, func(x *report.RunData) float64 { return float64(extra(x).TotalPreemptions()) }))
	}
	r.p("- *The heterogeneous OSEP's preemption guard.* The thesis prints it as PR_Aloc(u_i,y) > PR_Preemp(u_j,y); bucma's default reads it ")
	r.p("the other way round, PR_Preemp(u_j,y) >= PR_Aloc(u_i,y) (docs/policies.md). In %s (no checkpointing): %s preemptions per run and ", c, analysis.FmtEst(pre(h), 1, false))
	r.p("SU(user1) %s %% with the default; %s preemptions per run and SU(user1) %s %% with the guard as printed, ", analysis.FmtEst(suEst(h, c, "user1"), 1, false), analysis.FmtEst(pre(ap), 1, false), analysis.FmtEst(suEst(ap, c, "user1"), 1, false))
	r.p("which lets two users take a host from each other round after round (the table \"Preemptions\"). ")
	r.p("Either way the victim is the least powerful host that passes the guard, so a late owner of fast hosts is given slow ones first.\n")
}

// g1Speed is the mean speed of user1's hosts, Gflop/s.
func g1Speed(g *OSEPGrid) float64 {
	hs := g.Owned("user1")
	if len(hs) == 0 {
		return math.NaN()
	}
	sp := 0.0
	for _, h := range hs {
		sp += h.Speed
	}
	return sp / float64(len(hs)) / 1e9
}
