package bot

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/bot"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// TestBotPlan: the published BoTs of Tables 7 (36 cores) and 8 (8 cores),
// the three profiles under three external loads, the production run;
// four variants; sizes that do not apply are refused.
func TestBotPlan(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, BotPlan)
	if !slices.Contains(s.PlanNames(), BotPlan) || p.Kind != BotPlan || p.Platform != "bot" || p.Workload.Generator != "bot" {
		t.Fatalf("plan %+v", p)
	}
	if len(p.Cases) != 16 || len(p.Variants) != 4 || len(p.Seeds) != 5 || len(p.Expand()) != 16*4*5 {
		t.Fatalf("%d cases, %d variants, %d seeds, %d runs", len(p.Cases), len(p.Variants), len(p.Seeds), len(p.Expand()))
	}
	for c, want := range map[string]string{"h1-2": "bot", "h2-3": "bot-2nodes", "pesado-bg75": "bot", BotProductionCase: "bot"} {
		if got := p.PlatformOf(c); got != want {
			t.Errorf("%s on %s, want %s", c, got, want)
		}
	}
	if r := p.Recipe("mediano-bg50"); r.Fields.String("bots") != "mediano" || r.Fields.Float("background") != 50 || r.Generator != "bot" {
		t.Errorf("mediano-bg50 recipe %+v", r)
	}
	if r := p.Recipe(BotProductionCase); !strings.HasPrefix(r.Fields.String("bots"), "UP-10,UP-8") || !strings.HasPrefix(r.Fields.String("bot_arrivals"), "0,13,22") {
		t.Errorf("production recipe %+v", r)
	}
	for _, v := range p.Variants {
		if v.Options["alloc"] != "ciclico" || v.Options["priority"] != "cost" {
			t.Errorf("variant %s: options %v", v.Name, v.Options)
		}
		spec, err := policies.Builtin().Lookup(v.Policy)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.Resolve(sched.Options(v.Options)); err != nil {
			t.Errorf("variant %s: %v", v.Name, err)
		}
	}
	q, err := p.With(expe.Overrides{Quick: true})
	if err != nil || len(q.Seeds) != 2 || q.Workload.Jobs != 0 || len(q.Cases) != 16 {
		t.Errorf("--quick: %v, %d seeds, %d jobs", err, len(q.Seeds), q.Workload.Jobs)
	}
	if err := p.Applies("jobs"); err == nil {
		t.Error("--jobs applies to the bags of tasks")
	}
	if err := p.Applies("loads"); err == nil {
		t.Error("--loads applies to the cases")
	}
	bad := p
	bad.Cases = append([]expe.WorkloadCase(nil), p.Cases...)
	bad.Cases[0].Fields = gen.Fields{{Key: "bots", Value: "H9-9"}}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "H9-9") {
		t.Errorf("unknown BoT: %v", err)
	}
	bad.Cases[0].Fields = gen.Fields{{Key: "bots", Value: "H1-1,H1-2"}, {Key: "bot_arrivals", Value: "0"}}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "1 arrival steps for 2") {
		t.Errorf("arrivals: %v", err)
	}
}

// TestBotVMMoves counts migrations on a hand-made jobs file: VM 0 of A
// runs its rows on core 0, then core 1 (same node n1: a move, no
// migration), then core 4 (node n2: a migration); VM 1 of A stays on core
// 2; B's VM 0 moves from core 4 to core 0 (a migration); the background
// job, the job without a vm and the rejected job are left out.
func TestBotVMMoves(t *testing.T) {
	csv := `job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
A-q0-t0-s0,w0,c50,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,150,150,0,150,1,0,-1,"vm=0"
A-q0-t1-s0,w0,c30,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,90,90,0,90,1,0,-1,"vm=0"
A-q0-t0-s1,w0,c50,0,1,-1,1,COMPLETED_SUCCESSFULLY,300,150,450,300,450,3,1,-1,"vm=0"
A-q0-t0-s2,w0,c50,0,1,-1,1,COMPLETED_SUCCESSFULLY,600,400,1000,600,1000,2.5,4,-1,"vm=0"
A-q1-t0-s0,w0,c60,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,200,200,0,200,1,2,-1,"vm=1"
A-q1-t0-s1,w0,c60,0,1,-1,1,COMPLETED_SUCCESSFULLY,300,200,500,300,500,1,2,-1,"vm=1"
A-q1-t0-s2,w0,c60,0,1,-1,0,REJECTED,,,,,,,,,"vm=1"
B-x-q0-t0-s0,w0,c90,0,1,-1,1,COMPLETED_SUCCESSFULLY,650,300,950,0,300,1,4,-1,"vm=0"
B-x-q0-t0-s1,w0,c90,0,1,-1,1,COMPLETED_SUCCESSFULLY,950,300,1250,0,300,1,0,-1,"vm=0"
B-x-q0-t1-s0,w0,c90,0,1,-1,1,COMPLETED_SUCCESSFULLY,950,300,1250,0,300,1,3,-1,""
bg-h4-s0,w0,c50,0,1,-1,1,COMPLETED_SUCCESSFULLY,0,300,300,0,300,1,4,-1,""
`
	rows, err := analysis.ReadJobsCSV(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	node := func(h int) string { return []string{"n1", "n1", "n1", "n1", "n2", "n2", "n2", "n2"}[h] }
	moves, err := BotVMMoves(rows, node)
	if err != nil {
		t.Fatal(err)
	}
	if got := moves["A"]; got != (BotMoves{Hosts: 2, Nodes: 1, VMs: 2}) {
		t.Errorf("A: %+v", got)
	}
	if got := moves["B-x"]; got != (BotMoves{Hosts: 1, Nodes: 1, VMs: 1}) {
		t.Errorf("B-x: %+v", got)
	}
	if _, ok := moves["background"]; ok || len(moves) != 2 {
		t.Errorf("moves %+v", moves)
	}
	if all, _ := BotVMMoves(rows, nil); all["A"].Nodes != 2 {
		t.Errorf("every host its own node: %+v", all["A"])
	}
	// A's VM 0 row 2 (600-1000 on core 4) overlaps B's VM 0 row 1 (650-950
	// on core 4): both share their core; A's VM 0 row 2 lasts 400 s.
	shared, long := 0, 0
	vr := botVMRows(rows)
	for _, r := range vr {
		if r.shared {
			shared++
		}
		if r.end-r.start > BotStep {
			long++
		}
	}
	if len(vr) != 7 || shared != 2 || long != 1 {
		t.Errorf("%d VM rows, %d shared, %d long: %+v", len(vr), shared, long, vr)
	}
	for id, want := range map[string]string{"H1-1-q0-t2-s3": "H1-1", "w0!UP-10-q12-t0-s0": "UP-10", "bg-h3-s17": "background", "7": ""} {
		if got := BotOfJobID(id); got != want {
			t.Errorf("BotOfJobID(%q) = %q, want %q", id, got, want)
		}
	}
	for md, want := range map[string]int{"vm=12": 12, "x=1;vm=3": 3, "avm=2": -1, "": -1} {
		if got := BotVMOf(md); got != want {
			t.Errorf("BotVMOf(%q) = %d, want %d", md, got, want)
		}
	}
}

// TestBotCampaignReport runs a small campaign on the embedded engine (a
// published BoT of each table, one profile under external load, two
// seeds), twice, and reads the report: Table 7 replayed exactly, H2-3's
// contention step, the tables beside the thesis', the figures.
func TestBotCampaignReport(t *testing.T) {
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, BotPlan).With(expe.Overrides{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	p.Cases = slices.DeleteFunc(p.Cases, func(c expe.WorkloadCase) bool {
		return !slices.Contains([]string{"h1-1", "h2-3", "mediano-bg0", "mediano-bg75"}, c.Name)
	})
	dir, again := t.TempDir(), t.TempDir()
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: studytest.Embedded(), Workers: 2})
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: again, Engine: studytest.Embedded(), Workers: 1})
	studytest.SameOutputsTwice(t, p.Expand(), dir, again)
	text := studytest.Report(t, s, dir)
	for _, want := range []string{
		"## Table 7: trivial case 1", "| H1-1 | 10 (10) | 10 | 9 | 45 (45) | 52 (+15.50 %) | 45.0 (+0.0 %) |",
		"## Table 8: trivial case 2", "| H2-3 | 24 (24) | 29 | 9 | 45 (45) | 83 (+84.44 %) |",
		"Our makespan equals the Consolidado for 1 of 1 BoTs",
		"- **H2-3: 1 contention step(s).** At plan row(s) [4], 2 job(s) do not fit the 24 VMs",
		"## Tables 10 and 11", "| mediano | 75 % |", "(Table 12)", "## Energy (new: the thesis measures none)",
		"- **The system level on the user profiles**", "mediano at 75 %: harmful at intermediate load",
		"## Where and why we differ", "fig/bot-table7.png",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(text, "NaN") || strings.Contains(text, "## Table 14") {
		t.Errorf("report:\n%s", text)
	}
	for _, f := range []string{"bot-table7.png", "bot-table8.svg", "bot-profiles.png"} {
		if _, err := os.Stat(filepath.Join(dir, report.FigDir, f)); err != nil {
			t.Error(err)
		}
	}
	// Every run recorded its energy.
	st, _ := s.Study(BotPlan)
	a, err := report.Analyze(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	r := &reporter{a: a}
	runs, err := r.botRuns()
	if err != nil {
		t.Fatal(err)
	}
	for c, byV := range runs {
		for v, rs := range byV {
			for _, br := range rs {
				if !(br.joules > 0) {
					t.Errorf("case %s, variant %s, seed %d: energy %g", c, v, br.seed, br.joules)
				}
			}
		}
	}
	if !strings.Contains(text, "- **Saturation.** ") {
		t.Error("report: no saturation paragraph")
	}
	// The system level's effect on a profile: paired by seed, with the
	// seeds that back its sign.
	if !regexp.MustCompile(`mediano at 75 %: harmful at intermediate load: .* min \[[0-2]/2\]`).MatchString(text) {
		t.Error("report: the system level's effect without its seeds")
	}
	// Over an energy of 0.2 J the saving by switching off is refused; a
	// saving over a saturated run is marked.
	for _, br := range runs["h1-1"][BotThresholdVariant] {
		br.joules = 0.2
	}
	runs["h2-3"][BotThresholdPowerVariant][1].sat = true
	er := &reporter{Report: report.New(a), a: a}
	er.botEnergy(runs)
	var h11, h23, mediano string
	for _, l := range strings.Split(er.Text(), "\n") {
		switch {
		case strings.HasPrefix(l, "| h1-1 |"):
			h11 = l
		case strings.HasPrefix(l, "| h2-3 |"):
			h23 = l
		case strings.HasPrefix(l, "| mediano-bg0 |"):
			mediano = l
		}
	}
	if !strings.HasSuffix(h11, "| "+analysis.NearZero+" |") {
		t.Errorf("energy saved over 0.2 J: %q", h11)
	}
	if !strings.HasSuffix(h23, "]"+analysis.SaturatedMark+" |") || strings.Contains(mediano, analysis.SaturatedMark) {
		t.Errorf("energy saved over a saturated run: %q; over none: %q", h23, mediano)
	}
	// A difference over a Consolidado of 0 steps is refused too.
	b := &botBoTRun{info: &botInfo{plan: &bot.BotPlan{T: 0}}, end: 600}
	if !math.IsNaN(b.diff()) || fmtBotDiff(analysis.Estimate95([]float64{b.diff()}), 1) != analysis.NearZero {
		t.Errorf("difference over a zero Consolidado: %v", b.diff())
	}
}

// TestBotSpecs: the published BoTs do not depend on the seed; a profile is
// the same BoT under every external load; arrivals are given or drawn.
func TestBotSpecs(t *testing.T) {
	specs := func(v gen.Values, seed uint64) ([]workloads.BotSpec, error) {
		bots, _, err := botSpecs(v, seed)
		return bots, err
	}
	a, err := specs(gen.Values{"bots": "h2-3"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := specs(gen.Values{"bots": "H2-3"}, 7)
	if len(a) != 1 || a[0].Name != "H2-3" || a[0].VMs != 24 || !slices.Equal(a[0].Quads, b[0].Quads) {
		t.Errorf("H2-3: %+v / %+v", a, b)
	}
	plan, err := Predict(a[0].Quads, a[0].VMs)
	if err != nil || plan.T != 9 || len(plan.Contention) != 1 {
		t.Errorf("H2-3 on 24 VMs: %v, T %d, contention %v (want 9 steps, one contention row)", err, plan.T, plan.Contention)
	}
	x, _ := specs(gen.Values{"bots": "pesado"}, 3)
	y, _ := specs(gen.Values{"bots": "pesado", "background": 75}, 3)
	z, _ := specs(gen.Values{"bots": "pesado"}, 4)
	if !slices.Equal(x[0].Quads, y[0].Quads) || slices.Equal(x[0].Quads, z[0].Quads) || x[0].VMs != 24 || len(x[0].Quads) != 10 {
		t.Errorf("pesado: the seed must draw it, the external load must not change it")
	}
	r := studytest.Plan(t, studytest.Studies(Register), BotPlan).Recipe(BotProductionCase)
	up, err := specs(gen.Values{"bots": r.Fields.String("bots"), "bot_arrivals": r.Fields.String("bot_arrivals")}, 1)
	if err != nil || len(up) != 10 || up[0].Name != "UP-10" || up[0].Arrival != 0 || up[9].Name != "UP-2" || up[9].Arrival != 106 || up[9].VMs != 4 {
		t.Fatalf("production: %v %+v", err, up)
	}
	drawn, err := specs(gen.Values{"bots": "UP-1,UP-2,UP-3", "bot_arrivals": "I4^8"}, 1)
	if err != nil || drawn[0].Arrival != 0 || drawn[1].Arrival < 0 || drawn[2].Arrival < drawn[1].Arrival {
		t.Errorf("drawn arrivals: %v %+v", err, drawn)
	}
	for _, v := range []gen.Values{{}, {"bots": "H1-1", "background": 120}, {"bots": "H1-1", "bot_arrivals": "x"}, {"bots": "H1-1", "bot_arrivals": "I0^8"}} {
		if _, err := specs(v, 1); err == nil {
			t.Errorf("%+v accepted", v)
		}
	}
}

// TestBotWorkload: the generator's workload of a case with an external
// load: every BoT job, one background job per core and step, the external
// load lasting twice the predicted end plus 4 steps.
func TestBotWorkload(t *testing.T) {
	xml, err := expe.PlatformXML("bot")
	if err != nil {
		t.Fatal(err)
	}
	plat := filepath.Join(t.TempDir(), "bot.xml")
	if err := os.WriteFile(plat, xml, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := gen.Generate(gen.Recipe{Generator: "bot", Fields: gen.Fields{{Key: "bots", Value: "H1-1"}, {Key: "background", Value: 50.0}}}, 1, 0, plat)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := readBotWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.bots) != 1 || !info.background || info.bots[0].plan.T != 9 || info.bots[0].jobs != 3*5+7*6 || info.bots[0].vms != 10 {
		t.Fatalf("workload info %+v", info.bots[0])
	}
	ji, err := analysis.ReadJobInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	bg := 0
	for id := range ji {
		if BotOfJobID(id) == "background" {
			bg++
		}
	}
	if want := 36 * (2*9 + 4); bg != want || len(ji) != want+57 {
		t.Errorf("%d background jobs (want %d), %d jobs", bg, want, len(ji))
	}
}
