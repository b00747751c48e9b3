package bot

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies/bot"
	json "github.com/goccy/go-json"
)

// Reading the runs: what a run of bags of tasks shows.

// BotOfJobID is the BoT of a job id of a bot workload ("H1-1-q0-t2-s3" →
// "H1-1"; "bg-h3-s7" → "background"; "" for another id).
func BotOfJobID(id string) string {
	if i := strings.IndexByte(id, '!'); i >= 0 {
		id = id[i+1:]
	}
	if botBgID.MatchString(id) {
		return "background"
	}
	if m := botJobID.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	return ""
}

var (
	botJobID = regexp.MustCompile(`^(.+)-q\d+-t\d+-s\d+$`)
	botBgID  = regexp.MustCompile(`^bg-h\d+-s\d+$`)
	botVMKey = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])vm=(\d+)`)
)

// BotVMOf reads the VM index a job's metadata gives ("vm=3"); -1 when none.
func BotVMOf(metadata string) int {
	m := botVMKey.FindStringSubmatch(metadata)
	if m == nil {
		return -1
	}
	v, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return v
}

// BotMoves are the moves of the VMs of one BoT in a run.
type BotMoves struct {
	Hosts int // consecutive jobs of a VM on different hosts (cores)
	Nodes int // ... on different nodes: the thesis' migrations
	VMs   int // VMs seen (jobs with a vm in their metadata)
}

// BotVMMoves counts, for each BoT of a run's jobs, the moves of its VMs:
// the jobs of a VM (the "vm=<v>" of their metadata, per BoT) in start
// order, two consecutive ones on different hosts make a move, on hosts of
// different nodes (nodeOf; nil: every host its own node) a migration. The
// jobs of one VM row start together on the VM's core, so only a change of
// core between rows counts. Jobs without a vm (background, packing) and
// jobs that did not run are left out.
func BotVMMoves(rows []analysis.JobRow, nodeOf func(host int) string) (map[string]BotMoves, error) {
	type ev struct {
		start float64
		host  int
		id    string
	}
	type key struct {
		bot string
		vm  int
	}
	byVM := map[key][]ev{}
	for i := range rows {
		r := &rows[i]
		if r.Rejected() {
			continue
		}
		vm := BotVMOf(r.Metadata)
		bot := BotOfJobID(r.ID)
		if vm < 0 || bot == "" || bot == "background" {
			continue
		}
		hosts, err := r.Hosts()
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", r.ID, err)
		}
		if len(hosts) == 0 {
			continue
		}
		byVM[key{bot, vm}] = append(byVM[key{bot, vm}], ev{r.Start, hosts[0], r.ID})
	}
	out := map[string]BotMoves{}
	for k, evs := range byVM {
		slices.SortFunc(evs, func(a, b ev) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.host, b.host), strings.Compare(a.id, b.id))
		})
		m := out[k.bot]
		m.VMs++
		for i := 1; i < len(evs); i++ {
			if evs[i].host == evs[i-1].host {
				continue
			}
			m.Hosts++
			if nodeOf == nil || nodeOf(evs[i].host) != nodeOf(evs[i-1].host) {
				m.Nodes++
			}
		}
		out[k.bot] = m
	}
	return out, nil
}

// botInfo is one BoT of a workload: what the report needs of it.
type botInfo struct {
	name        string
	arrival     float64 // seconds
	vms         int
	quads       []bot.BotQuad
	tasks, jobs int
	plan        *bot.BotPlan // the thesis' consolidation (Predict)
	uncontended int          // steps of the uncontended execution
}

// botWorkloadInfo is what the report needs of a bot workload: its BoTs in
// order of first appearance, and whether it has an external load.
type botWorkloadInfo struct {
	bots       []*botInfo
	background bool
}

// readBotWorkload reads the BoTs of a bot workload file from its jobs'
// fields.
func readBotWorkload(path string) (*botWorkloadInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w struct {
		Jobs []struct {
			ID      string  `json:"id"`
			Subtime float64 `json:"subtime"`
			Bot     string  `json:"bot"`
			Quad    int     `json:"quad"`
			Task    int     `json:"task"`
			Step    int     `json:"step"`
			A       int     `json:"a"`
			D       int     `json:"d"`
			B       int     `json:"b"`
			C       int     `json:"c"`
			VMs     int     `json:"vms"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	info := &botWorkloadInfo{}
	byName := map[string]*botInfo{}
	for _, j := range w.Jobs {
		if j.Bot == "background" {
			info.background = true
			continue
		}
		if j.Bot == "" {
			return nil, fmt.Errorf("workload %s: job %s has no bot field: not a bag-of-tasks workload", path, j.ID)
		}
		b := byName[j.Bot]
		if b == nil {
			b = &botInfo{name: j.Bot, arrival: j.Subtime, vms: j.VMs}
			byName[j.Bot] = b
			info.bots = append(info.bots, b)
		}
		for len(b.quads) <= j.Quad {
			b.quads = append(b.quads, bot.BotQuad{})
		}
		b.quads[j.Quad] = bot.BotQuad{A: j.A, D: j.D, B: j.B, C: j.C}
		b.arrival = math.Min(b.arrival, j.Subtime)
		b.jobs++
	}
	for _, b := range info.bots {
		for _, q := range b.quads {
			b.tasks += q.B
		}
		b.uncontended = bot.BotUncontendedSteps(b.quads)
		if b.plan, err = Predict(b.quads, b.vms); err != nil {
			return nil, fmt.Errorf("workload %s, BoT %s: %w", path, b.name, err)
		}
	}
	return info, nil
}

// cells lists the loads of the plan's non-empty cells (a VM's row) with
// the number of jobs of each.
func (b *botInfo) cells() (loads, jobs []int) {
	for k, row := range b.plan.Rows {
		n := make([]int, len(b.plan.Loads[k]))
		for _, pl := range row {
			n[pl.VM]++
		}
		for v, c := range n {
			if c > 0 {
				loads = append(loads, b.plan.Loads[k][v])
				jobs = append(jobs, c)
			}
		}
	}
	return loads, jobs
}

// botBoTRun is one BoT in one run.
type botBoTRun struct {
	info *botInfo
	// end is when its last step ends (s; NaN when a job did not run): a
	// job is one step of a task, which lasts a whole step (the thesis'
	// load generators hold c % of a core for the 5 minutes), so a job ends
	// at the later of its end and its start + 1 step (alone on a core, c %
	// of a step's work ends after c % of the step).
	end   float64
	moves BotMoves
	// vmRows are the rows its VMs ran (jobs of one VM starting together),
	// sharedRows those that overlapped, on their core, a row of another VM.
	// longRows are those that lasted more than a step.
	vmRows, sharedRows, longRows int
}

// makespan is the BoT's run time (minutes): last end − arrival.
func (b *botBoTRun) makespan() float64 { return (b.end - b.info.arrival) / 60 }

// consolidated is the thesis' prediction (minutes): T × 5.
func (b *botBoTRun) consolidated() float64 { return float64(b.info.plan.T) * BotStep / 60 }

// diff is the thesis' difference (%): (makespan − Consolidado) / Consolidado;
// NaN over a Consolidado below expe.FloorSeconds.
func (b *botBoTRun) diff() float64 {
	if b.consolidated()*60 < analysis.FloorSeconds {
		return math.NaN()
	}
	return 100 * (b.makespan() - b.consolidated()) / b.consolidated()
}

// botRun is one run of the campaign as the report sees it.
type botRun struct {
	seed   uint64
	bots   map[string]*botBoTRun
	joules float64 // consumed energy (NaN: not recorded)
	bgEnd  float64 // last end of the external load (0: none)
	end    float64 // last end of any job
	sat    bool    // the run saturated (expe.Saturation)
}

// botSatMark is expe.SaturatedMark when any of the runs saturated: the
// values over them are marked.
func botSatMark(runs ...[]*botRun) string {
	for _, rs := range runs {
		for _, br := range rs {
			if br.sat {
				return analysis.SaturatedMark
			}
		}
	}
	return ""
}

// botRuns gathers the runs: by case, then variant, then seed order.
func (r *reporter) botRuns() (map[string]map[string][]*botRun, error) {
	a := r.a
	out := map[string]map[string][]*botRun{}
	for _, c := range a.Plan.Cases {
		for _, s := range a.Plan.Seeds {
			for _, v := range a.Plan.Variants {
				rd := a.GetCase(v.Name, c.Name, s)
				if rd == nil {
					continue
				}
				if out[c.Name] == nil {
					out[c.Name] = map[string][]*botRun{}
				}
				br := rd.Extra.(*botRun)
				br.sat, _ = rd.Saturation.Saturated()
				out[c.Name][v.Name] = append(out[c.Name][v.Name], br)
			}
		}
	}
	return out, nil
}

// nodesOf maps each platform file of the campaign to the node of each of
// its hosts (its "node" property, else its name).
func nodesOf(a *report.Analysis) (any, error) {
	nodes := map[string][]string{}
	for _, c := range a.Plan.Cases {
		pf := a.Plan.PlatformFileOf(c.Name)
		if _, ok := nodes[pf]; ok {
			continue
		}
		p, err := platforms.Load(filepath.Join(a.Dir, pf))
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		nodeOf := []string{}
		for _, h := range p.Hosts {
			n := h.Properties["node"]
			if n == "" {
				n = h.Name
			}
			nodeOf = append(nodeOf, n)
		}
		nodes[pf] = nodeOf
	}
	return nodes, nil
}

// readWorkload reads the BoTs of a workload.
func readWorkload(_ *report.Analysis, path string, _ map[string]analysis.JobInfo) (any, error) {
	return readBotWorkload(path)
}

// readRun reads what the report needs of a run.
func readRun(a *report.Analysis, in *report.RunInput, rd *report.RunData) error {
	nodeOf := a.Data.(map[string][]string)[a.Plan.PlatformFileOf(rd.Run.Case)]
	br, err := readBotRun(in.Dir, in.Rows, in.WorkloadData.(*botWorkloadInfo), nodeOf)
	if err != nil {
		return err
	}
	br.seed = rd.Run.Seed
	rd.Extra = br
	return nil
}

// readBotRun reads one run directory.
func readBotRun(dir string, rows []analysis.JobRow, info *botWorkloadInfo, nodeOf []string) (*botRun, error) {
	br := &botRun{bots: map[string]*botBoTRun{}, joules: math.NaN()}
	for _, b := range info.bots {
		br.bots[b.name] = &botBoTRun{info: b}
	}
	for i := range rows {
		j := &rows[i]
		bot := BotOfJobID(j.ID)
		if j.HasTimes {
			br.end = math.Max(br.end, j.Finish)
		}
		if bot == "background" {
			if j.HasTimes {
				br.bgEnd = math.Max(br.bgEnd, j.Finish)
			}
			continue
		}
		b := br.bots[bot]
		if b == nil {
			continue
		}
		if j.Rejected() {
			b.end = math.NaN()
			continue
		}
		if !math.IsNaN(b.end) {
			b.end = math.Max(b.end, math.Max(j.Finish, j.Start+BotStep))
		}
	}
	moves, err := BotVMMoves(rows, func(h int) string {
		if h >= 0 && h < len(nodeOf) {
			return nodeOf[h]
		}
		return strconv.Itoa(h)
	})
	if err != nil {
		return nil, err
	}
	for name, m := range moves {
		if b := br.bots[name]; b != nil {
			b.moves = m
		}
	}
	for _, vr := range botVMRows(rows) {
		if b := br.bots[vr.bot]; b != nil {
			b.vmRows++
			if vr.shared {
				b.sharedRows++
			}
			if vr.end-vr.start > BotStep+1e-6 {
				b.longRows++
			}
		}
	}
	if j, err := analysis.ScheduleValue(filepath.Join(dir, expe.ScheduleFile), "consumed_joules"); err == nil {
		br.joules = j
	}
	return br, nil
}

// botVMRow is the row of a VM in a run: the jobs of the VM that start
// together, on one core, from their start to the end of the last one.
type botVMRow struct {
	bot        string
	vm, host   int
	start, end float64
	shared     bool // overlaps a row of another VM on its core
}

// botVMRows lists the VM rows of a run's jobs (jobs with a vm in their
// metadata) and marks those that shared their core with another VM's row.
func botVMRows(rows []analysis.JobRow) []botVMRow {
	type key struct {
		bot       string
		vm, host  int
		startNano int64
	}
	idx := map[key]int{}
	var out []botVMRow
	for i := range rows {
		j := &rows[i]
		vm := BotVMOf(j.Metadata)
		bot := BotOfJobID(j.ID)
		if vm < 0 || bot == "" || bot == "background" || j.Rejected() {
			continue
		}
		hosts, err := j.Hosts()
		if err != nil || len(hosts) == 0 {
			continue
		}
		k := key{bot, vm, hosts[0], int64(math.Round(j.Start * 1e6))}
		if n, ok := idx[k]; ok {
			out[n].end = math.Max(out[n].end, j.Finish)
			continue
		}
		idx[k] = len(out)
		out = append(out, botVMRow{bot: bot, vm: vm, host: hosts[0], start: j.Start, end: j.Finish})
	}
	byHost := map[int][]int{}
	for i, vr := range out {
		byHost[vr.host] = append(byHost[vr.host], i)
	}
	for _, list := range byHost {
		slices.SortFunc(list, func(a, b int) int { return cmp.Compare(out[a].start, out[b].start) })
		for x, a := range list {
			for _, b := range list[x+1:] {
				if out[b].start >= out[a].end-1e-6 {
					break
				}
				if out[a].bot != out[b].bot || out[a].vm != out[b].vm {
					out[a].shared, out[b].shared = true, true
				}
			}
		}
	}
	return out
}
