package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/internal/bagoftasks"
)

// Application-level consolidation of a bag of tasks (the thesis: Santos,
// "Modelo de Escalonamento Aplicativo para Bag of Tasks em Ambientes de
// Nuvem Computacional", UFPel, 2016/2017, Ch. 5). A bag of tasks (BoT) is a
// list of quadruples [a, d, b, c]: b identical tasks that arrive at step a
// of the application's uncontended execution, each lasting d steps and
// using c percent of one processor during each of them. Time is discrete;
// task k of a quadruple is cut into d unit-step jobs that run strictly in
// sequence, the first one not before step a. The plan packs each step's
// jobs onto m' identical processors (the BoT's virtual machines) of
// capacity 100 percent, a job never split between processors, in the
// order of a priority criterion (Algorithm 1 with Algorithms 2-4 and
// Table 6). The result is a t × m' load matrix; t steps is the predicted
// ("consolidated") run time of the BoT.
//
// The thesis' pseudocode is read the way that reproduces its worked
// example (Fig. 13) and its consolidated times (Tables 7 and 8) exactly:
// the lowest cost first, an application-wide shift of one step whenever a
// job is deferred (line 30 of Algorithm 1 applied only then), and the
// cyclic allocation of the prose (a processor pointer over the
// processors, each taking the first job that fits), not of the nested
// loops. Each decision is documented where it is made.

// BotQuad is one group of identical tasks of a bag of tasks: arrival step
// A (of the application's uncontended execution), duration D steps, B
// tasks, CPU cost C percent (1..100) of one processor during each step
// (the same type as workloads.BotQuad).
type BotQuad = bagoftasks.Quad

// BotAlloc is how the jobs of a step are assigned to processors
// (Algorithm 1, parameter P).
type BotAlloc int

const (
	// BotLote is the thesis' "lote" (batch) allocation: the processors are
	// filled one after the other, each taking, in priority order, every
	// job that still fits it (first fit over the sorted list, one
	// processor at a time; a lower-priority job may pass a higher-priority
	// one that does not fit).
	BotLote BotAlloc = iota
	// BotCyclic is the thesis' "cíclico" allocation as its prose describes
	// it: a pointer walks over the processors cyclically, from the first
	// one at every step; the processor under the pointer takes the first
	// job in priority order that fits it, then the pointer moves on; the
	// walk stops after a full cycle without an assignment. The literal
	// nested loops of Algorithm 1 skip a job after each sweep and do not
	// give Fig. 13a; this reading gives it exactly.
	BotCyclic
)

var botAllocNames = []string{"lote", "ciclico"}

// String gives the allocation's name.
func (a BotAlloc) String() string {
	if a >= 0 && int(a) < len(botAllocNames) {
		return botAllocNames[a]
	}
	return fmt.Sprintf("BotAlloc(%d)", int(a))
}

// ParseBotAlloc reads an allocation mode: "lote" or "batch", "ciclico" (or
// "cíclico") or "cyclic", in any case.
func ParseBotAlloc(s string) (BotAlloc, error) {
	switch botFold(s) {
	case "lote", "batch":
		return BotLote, nil
	case "ciclico", "cyclic":
		return BotCyclic, nil
	}
	return 0, fmt.Errorf("bot: unknown allocation %q (want lote or ciclico; batch and cyclic are accepted)", s)
}

// BotPriority is the priority criterion that orders the jobs of a step
// (Algorithm 2's F; Table 6). Only jobs of the same step are ordered: the
// order of the steps is a constraint, not a priority. Ties keep the
// generation order (quadruple, then task), the thesis leaving them open.
type BotPriority int

const (
	// BotPrioNone keeps the order in which the tasks occur in the step
	// (generation order).
	BotPrioNone BotPriority = iota
	// BotPrioArrival (TaskArrivalTime): the oldest task first, by the
	// arrival step of its quadruple. Under the application-wide shift it
	// orders a step's jobs like BotPrioCompleted and Algorithm 4.
	BotPrioArrival
	// BotPrioDuration: the longest task (largest d) first.
	BotPrioDuration
	// BotPrioCost: the lowest cost first. This is Table 6 (its footnote),
	// the worked example and every experiment of the thesis; Algorithm 3
	// (ComparaMaiorCusto, the highest cost first) is its inverted form.
	BotPrioCost
	// BotPrioCompleted: the task that has run the most steps first.
	BotPrioCompleted
	// BotPrioRemaining: the task closest to completion (fewest steps left,
	// the current one included) first.
	BotPrioRemaining
)

var botPriorityNames = []string{"none", "arrival", "duration", "cost", "completed", "remaining"}

// String gives the priority's name.
func (p BotPriority) String() string {
	if p >= 0 && int(p) < len(botPriorityNames) {
		return botPriorityNames[p]
	}
	return fmt.Sprintf("BotPriority(%d)", int(p))
}

// ParseBotPriority reads a priority criterion: none, arrival (or Table 6's
// taskarrivaltime), duration, cost, completed or remaining, in any case.
func ParseBotPriority(s string) (BotPriority, error) {
	f := botFold(s)
	if f == "taskarrivaltime" {
		return BotPrioArrival, nil
	}
	for i, n := range botPriorityNames {
		if f == n {
			return BotPriority(i), nil
		}
	}
	return 0, fmt.Errorf("bot: unknown priority %q (want %s)", s, strings.Join(botPriorityNames, ", "))
}

// BotShift is what a deferred job delays.
type BotShift int

const (
	// BotShiftGlobal is the thesis' semantics: a quadruple's arrival step
	// counts the work the whole application has done, so any delay delays
	// it. When at least one job of a step is deferred, every job still to
	// run (the deferred ones and all future ones) moves one step later
	// (line 30 of Algorithm 1, applied only on contention; applied at every
	// step it would never let a future job become eligible). The row after
	// a contention row then holds only the deferred jobs, and each
	// contention row lengthens the plan by one step. This reproduces
	// Fig. 13 and Tables 7 and 8 (H2-3 on 24 processors: 9 steps, not 8).
	BotShiftGlobal BotShift = iota
	// BotShiftDAG is a less pessimistic reading of the task-creation
	// dependency (Sec. 5.2.1; not what the thesis computes): a deferred
	// task slips alone, its later jobs following it (a task's jobs run one
	// per step, in order), and a quadruple q_j arrives only once every
	// task τ of every quadruple q_i with a_i < a_j has done the work that
	// created it in the uncontended execution. With δ = a_j − a_i and
	// k = min(δ, d_i), q_j is released at row r only when τ's k-th job ran
	// at a row x and r ≥ x + 1 + (δ − k) (a task shorter than δ keeps the
	// uncontended gap between its end and a_j); in any case r ≥ a_j. A
	// released task has one eligible job at every row until it ends. With
	// no contention both shifts give the uncontended execution. Quadruples
	// with the same arrival step never wait for one another. It is shorter
	// on the thesis' examples (7 steps instead of 9 and 8 on Fig. 13 as
	// printed) but not always: the greedy packing has anomalies, and a
	// task that keeps running can push another one back again, which the
	// global shift's catch-up row avoids ({[1,2,1,40],[1,1,1,80],[2,1,1,30]}
	// on one processor, cyclic, lowest cost: 4 steps global, 5 DAG).
	BotShiftDAG
)

var botShiftNames = []string{"global", "dag"}

// String gives the shift's name.
func (s BotShift) String() string {
	if s >= 0 && int(s) < len(botShiftNames) {
		return botShiftNames[s]
	}
	return fmt.Sprintf("BotShift(%d)", int(s))
}

// ParseBotShift reads a shift semantics: global or dag, in any case.
func ParseBotShift(s string) (BotShift, error) {
	switch botFold(s) {
	case "global":
		return BotShiftGlobal, nil
	case "dag":
		return BotShiftDAG, nil
	}
	return 0, fmt.Errorf("bot: unknown shift %q (want global or dag)", s)
}

// botFold lower-cases s, trims it and drops the accents the thesis'
// names carry (cíclico).
func botFold(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("í", "i", "á", "a", "ã", "a", "é", "e", "ó", "o", "ú", "u", "ç", "c").Replace(s)
}

// BotPlanOptions are the parameters of PlanBoT. The zero value is lote,
// no priority, global shift; the thesis' experiments use BotCyclic with
// BotPrioCost.
type BotPlanOptions struct {
	VMs      int // m', the processors (virtual machines) of the BoT, ≥ 1
	Alloc    BotAlloc
	Priority BotPriority
	// Inverted reverses the criterion (Table 6: every criterion but None
	// has an inverted form); ties still keep the generation order.
	Inverted bool
	Shift    BotShift
}

// BotJob is one unit-step job w of a task: quadruple index, task index
// within the quadruple, step index within the task (0-based), and what
// the criteria look at: the quadruple's arrival A, duration D and cost C,
// the task's steps Completed before this one (the thesis' f) and
// Remaining including this one (r = d − f; the thesis prints r + f = b,
// a slip for d). Seq is the task's generation order (quadruple, then
// task), the tie-break.
type BotJob struct {
	Quad, Task, Step     int
	A, D, C              int
	Completed, Remaining int
	Seq                  int
}

// botKey is the job's criterion value, smaller first.
func botKey(j *BotJob, p BotPriority) int {
	switch p {
	case BotPrioArrival:
		return j.A
	case BotPrioDuration:
		return -j.D
	case BotPrioCost:
		return j.C
	case BotPrioCompleted:
		return -j.Completed
	case BotPrioRemaining:
		return j.Remaining
	}
	return 0
}

// SortBotJobs orders the jobs of one step, the highest priority first
// (Algorithm 2). The sort is stable and ties go by Seq, so the order does
// not depend on the input's. inverted reverses the criterion (not the
// tie-break) and is ignored with BotPrioNone.
func SortBotJobs(js []BotJob, p BotPriority, inverted bool) {
	sign := 1
	if inverted && p != BotPrioNone {
		sign = -1
	}
	slices.SortStableFunc(js, func(x, y BotJob) int {
		if kx, ky := botKey(&x, p), botKey(&y, p); kx != ky {
			if kx < ky {
				return -sign
			}
			return sign
		}
		return x.Seq - y.Seq
	})
}

// BotPack places the jobs (already in priority order, given by cost) onto
// processors whose current loads are given (percent, modified in place),
// capacity 100 each, with the given allocation mode; it returns each job's
// processor or -1 when it did not fit. Algorithm 1's inner allocation is
// BotPack with all loads 0 (its line 7 resets only the lote loads; every
// processor starts a step empty); an online packer calls it with the
// running loads. In cyclic mode a processor that once took no job never
// takes one later in the call (its load stays the same and the list only
// shrinks), so the walk skips it from then on; this is the same as
// stopping after a full cycle without an assignment.
func BotPack(costs []int, loads []int, alloc BotAlloc) []int {
	at := make([]int, len(costs))
	for i := range at {
		at[i] = -1
	}
	m := len(loads)
	if m == 0 || len(costs) == 0 {
		return at
	}
	if alloc == BotLote {
		for p := 0; p < m; p++ {
			for i, c := range costs {
				if at[i] < 0 && loads[p]+c <= 100 {
					loads[p] += c
					at[i] = p
				}
			}
		}
		return at
	}
	left := make([]int, len(costs)) // unplaced jobs, in priority order
	for i := range left {
		left[i] = i
	}
	dead := make([]bool, m)
	alive := m
	for p := 0; len(left) > 0 && alive > 0; p = (p + 1) % m {
		if dead[p] {
			continue
		}
		k := slices.IndexFunc(left, func(i int) bool { return loads[p]+costs[i] <= 100 })
		if k < 0 {
			dead[p] = true
			alive--
			continue
		}
		loads[p] += costs[left[k]]
		at[left[k]] = p
		left = slices.Delete(left, k, k+1)
	}
	return at
}

// BotPlan is the consolidated plan of a BoT, the thesis' A^{m'}.
type BotPlan struct {
	T          int              // length in steps (rows)
	Loads      [][]int          // T rows × VMs columns, percent
	Rows       [][]BotPlacement // per row, the jobs placed in it, in priority order
	Contention []int            // the rows (0-based) at which at least one job was deferred
	// Deferred lists, per row, the eligible jobs that did not fit (VM -1),
	// in priority order.
	Deferred [][]BotPlacement
}

// BotPlacement is a job placed in a row of a plan: its quadruple, task
// and step (0-based, as in BotJob), its processor and its cost.
type BotPlacement struct{ Quad, Task, Step, VM, Cost int }

// botTask is a task during planning.
type botTask struct {
	quad, task, seq int
	a, d, c         int
	done            int   // jobs run
	rows            []int // the row of each job run (DAG shift)
}

// PlanBoT consolidates a BoT on o.VMs processors (the thesis' S'<F>(A, m'),
// Algorithm 1 applied row after row until every job is placed). Each row,
// the eligible jobs (one per task at most) are sorted by o.Priority and
// packed with BotPack on empty processors; the jobs that do not fit are
// deferred by o.Shift. The result satisfies the thesis' correctness
// criteria: every job placed once, no processor over 100 percent, a
// task's jobs in increasing rows, none before its quadruple's arrival,
// and no deferred job that would have fitted some processor of its row.
// It fails, without panicking, when o.VMs < 1, the BoT is empty, or a
// quadruple has A < 0, D < 1, B < 1 or C outside 1..100 (the error names
// the quadruple by its 0-based index and its value).
func PlanBoT(quads []BotQuad, o BotPlanOptions) (*BotPlan, error) {
	if o.VMs < 1 {
		return nil, fmt.Errorf("bot: %d VMs: want at least 1", o.VMs)
	}
	if err := checkBotQuads(quads); err != nil {
		return nil, err
	}
	if o.Alloc != BotLote && o.Alloc != BotCyclic {
		return nil, fmt.Errorf("bot: unknown allocation %d", int(o.Alloc))
	}
	if o.Priority < BotPrioNone || o.Priority > BotPrioRemaining {
		return nil, fmt.Errorf("bot: unknown priority %d", int(o.Priority))
	}
	if o.Shift != BotShiftGlobal && o.Shift != BotShiftDAG {
		return nil, fmt.Errorf("bot: unknown shift %d", int(o.Shift))
	}
	var tasks []*botTask
	left := 0
	for qi, q := range quads {
		for k := 0; k < q.B; k++ {
			t := &botTask{quad: qi, task: k, seq: len(tasks), a: q.A, d: q.D, c: q.C}
			if o.Shift == BotShiftDAG {
				t.rows = make([]int, 0, q.D)
			}
			tasks = append(tasks, t)
			left += q.D
		}
	}
	released := make([]bool, len(quads)) // DAG shift
	plan := &BotPlan{}
	var elig []*botTask
	var js []BotJob
	var costs []int
	u := 0 // global shift: the uncontended step the row serves
	for row := 0; left > 0; row++ {
		elig = elig[:0]
		if o.Shift == BotShiftGlobal {
			for _, t := range tasks {
				if t.done < t.d && t.a+t.done == u {
					elig = append(elig, t)
				}
			}
		} else {
			for qi := range quads {
				if !released[qi] {
					released[qi] = botReleased(quads, tasks, qi, row)
				}
			}
			for _, t := range tasks {
				if t.done < t.d && released[t.quad] {
					elig = append(elig, t)
				}
			}
		}
		js = js[:0]
		for _, t := range elig {
			js = append(js, BotJob{Quad: t.quad, Task: t.task, Step: t.done, A: t.a, D: t.d, C: t.c,
				Completed: t.done, Remaining: t.d - t.done, Seq: t.seq})
		}
		SortBotJobs(js, o.Priority, o.Inverted)
		costs = costs[:0]
		for _, j := range js {
			costs = append(costs, j.C)
		}
		loads := make([]int, o.VMs)
		at := BotPack(costs, loads, o.Alloc)
		var placed, deferred []BotPlacement
		for i, j := range js {
			if at[i] < 0 {
				deferred = append(deferred, BotPlacement{Quad: j.Quad, Task: j.Task, Step: j.Step, VM: -1, Cost: j.C})
				continue
			}
			t := tasks[j.Seq]
			if t.rows != nil {
				t.rows = append(t.rows, row)
			}
			t.done++
			left--
			placed = append(placed, BotPlacement{Quad: j.Quad, Task: j.Task, Step: j.Step, VM: at[i], Cost: j.C})
		}
		if len(deferred) > 0 {
			plan.Contention = append(plan.Contention, row)
		} else {
			u++
		}
		plan.Loads = append(plan.Loads, loads)
		plan.Rows = append(plan.Rows, placed)
		plan.Deferred = append(plan.Deferred, deferred)
	}
	plan.T = len(plan.Loads)
	return plan, nil
}

// botReleased tells whether quadruple qi may start at row under the DAG
// shift (see BotShiftDAG).
func botReleased(quads []BotQuad, tasks []*botTask, qi, row int) bool {
	aj := quads[qi].A
	if row < aj {
		return false
	}
	for _, t := range tasks {
		if t.a >= aj {
			continue
		}
		delta := aj - t.a
		k := min(delta, t.d)
		if t.done < k || row < t.rows[k-1]+1+delta-k {
			return false
		}
	}
	return true
}

// checkBotQuads checks a BoT's quadruples (PlanBoT's conditions).
func checkBotQuads(quads []BotQuad) error {
	if len(quads) == 0 {
		return fmt.Errorf("bot: empty bag of tasks (no quadruple)")
	}
	for i, q := range quads {
		if why := q.Problem(); why != "" {
			return fmt.Errorf("bot: quadruple %d [%d,%d,%d,%d]: %s", i, q.A, q.D, q.B, q.C, why)
		}
	}
	return nil
}

// BotUncontendedSteps is the length of a BoT's uncontended execution (as
// many processors as tasks), max(a + d) over its quadruples (the thesis'
// |g|, whose upper index k is a slip for n); 0 for an empty BoT.
func BotUncontendedSteps(quads []BotQuad) int {
	n := 0
	for _, q := range quads {
		n = max(n, q.A+q.D)
	}
	return n
}
