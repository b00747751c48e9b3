package sim

import "math"

// The linear max-min system of SimGrid 3.32 (kernel/lmm), with the
// fair-bottleneck solver that its ptask_L07 host model uses. Resources
// (CPUs, links) are constraints with a bound; activities are variables
// whose value is the rate they progress at; an element says how much of a
// constraint one unit of a variable's rate consumes. The arithmetic,
// including every precision threshold and the order in which a
// constraint's elements are summed, follows SimGrid's so that rates and
// therefore dates come out bit for bit as Batsim's.

// Numerical thresholds of SimGrid (maxmin/precision, surf/precision).
const (
	maxminPrecision = 1e-5
	surfPrecision   = 1e-9
	// tcpGamma is network/TCP-gamma, the largest TCP window.
	tcpGamma = 4194304.0
)

// doubleUpdate is SimGrid's double_update: *v -= d, snapped to 0 below
// precision.
func doubleUpdate(v *float64, d, precision float64) {
	*v -= d
	if *v < precision {
		*v = 0
	}
}

type lmmElem struct {
	c      *lmmCnst
	v      *lmmVar
	weight float64
	// position in c.enabled or c.disabled
	prev, next *lmmElem
	enabled    bool
	linked     bool
}

type lmmVar struct {
	penalty   float64
	bound     float64 // <= 0: none
	value     float64
	mu        float64
	elems     []*lmmElem
	store     []lmmElem // backing storage of the elements
	saturated bool
	// dirty and seen are solve stamps
	dirty, seen uint32
}

type lmmCnst struct {
	bound    float64
	fatpipe  bool
	enabled  elemList
	disabled elemList
	// solve scratch
	remaining, usage float64
	listed           bool
	dirty, seen      uint32
}

// elemList is an intrusive doubly-linked list of elements.
type elemList struct {
	head, tail *lmmElem
	n          int
}

func (l *elemList) pushFront(e *lmmElem) {
	e.prev, e.next = nil, l.head
	if l.head != nil {
		l.head.prev = e
	} else {
		l.tail = e
	}
	l.head = e
	e.linked = true
	l.n++
}

func (l *elemList) pushBack(e *lmmElem) {
	e.prev, e.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = e
	} else {
		l.head = e
	}
	l.tail = e
	e.linked = true
	l.n++
}

func (l *elemList) remove(e *lmmElem) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = nil, nil
	e.linked = false
	l.n--
}

// lmmSystem holds the variables and constraints.
//
// SimGrid's fair-bottleneck solver recomputes every variable at each solve,
// but its result for a group of variables linked through shared
// constraints (a component) does not depend on the other groups: each
// variable's increment depends only on its constraints' usages of the same
// round, each constraint's remaining capacity only on its own elements, and
// a finished group is no longer touched. So only the components that
// changed since the last solve are solved again, with the same arithmetic
// and the same element order, which gives the same values. Which variables
// or constraints are visited first does not matter either; only the order of
// a constraint's elements does, and it is kept exactly as SimGrid keeps it.
type lmmSystem struct {
	// dirty lists the constraints and variables changed since the last
	// solve.
	dirtyC []*lmmCnst
	dirtyV []*lmmVar
	stamp  uint32
	// scratch
	varList  []*lmmVar
	cnstList []*lmmCnst
	compV    []*lmmVar
	compC    []*lmmCnst
}

func (s *lmmSystem) newConstraint(bound float64, fatpipe bool) *lmmCnst {
	return &lmmCnst{bound: bound, fatpipe: fatpipe}
}

func (s *lmmSystem) newVariable(penalty, bound float64, ncnst int) *lmmVar {
	v := &lmmVar{}
	s.initVariable(v, penalty, bound, ncnst)
	return v
}

// initVariable sets up v (held by its caller) as a new variable; the
// element storage of a previous variable held there is reused.
func (s *lmmSystem) initVariable(v *lmmVar, penalty, bound float64, ncnst int) {
	elems, store := v.elems[:0], v.store[:0]
	*v = lmmVar{penalty: penalty, bound: bound}
	if ncnst > cap(store) {
		elems = make([]*lmmElem, 0, ncnst)
		store = make([]lmmElem, 0, ncnst)
	}
	v.elems, v.store = elems, store
	s.touchVar(v)
}

func (s *lmmSystem) touchCnst(c *lmmCnst) {
	if c.dirty != s.stamp+1 {
		c.dirty = s.stamp + 1
		s.dirtyC = append(s.dirtyC, c)
	}
}

// touchVar marks v and its constraints changed. A variable marked since the
// last solve has its constraints marked already: they were when it was,
// and an element added since marks its own (expand), so only a newly
// marked variable walks its elements (walking them at every touch made
// building a variable of n elements quadratic in n).
func (s *lmmSystem) touchVar(v *lmmVar) {
	if v.dirty == s.stamp+1 {
		return
	}
	v.dirty = s.stamp + 1
	s.dirtyV = append(s.dirtyV, v)
	for _, e := range v.elems {
		s.touchCnst(e.c)
	}
}

// expand adds (or, without force, merges into) the element of v on c.
//
// An element of weight 0 on a shared constraint never changes the solution
// (it counts for no variable, consumes nothing and subtracting 0 leaves a
// remaining capacity, which is 0 or above the precision, unchanged), so it
// is not kept. On a fatpipe constraint it would (the fatpipe's usage is the
// minimum over its elements), so it is.
func (s *lmmSystem) expand(c *lmmCnst, v *lmmVar, weight float64, force bool) {
	if weight == 0 && !c.fatpipe {
		return
	}
	s.touchCnst(c)
	s.touchVar(v)
	if !force {
		for _, e := range v.elems {
			if e.c == c {
				if c.fatpipe {
					e.weight = math.Max(e.weight, weight)
				} else {
					e.weight += weight
				}
				return
			}
		}
	}
	var e *lmmElem
	if len(v.store) < cap(v.store) {
		v.store = append(v.store, lmmElem{c: c, v: v, weight: weight})
		e = &v.store[len(v.store)-1]
	} else {
		e = &lmmElem{c: c, v: v, weight: weight}
	}
	v.elems = append(v.elems, e)
	if v.penalty != 0 {
		e.enabled = true
		c.enabled.pushFront(e)
	} else {
		c.disabled.pushBack(e)
	}
}

func (s *lmmSystem) enableVar(v *lmmVar, penalty float64) {
	v.penalty = penalty
	for _, e := range v.elems {
		e.c.disabled.remove(e)
		e.enabled = true
		e.c.enabled.pushFront(e)
	}
	s.touchVar(v)
}

func (s *lmmSystem) disableVar(v *lmmVar) {
	s.touchVar(v)
	for _, e := range v.elems {
		e.c.enabled.remove(e)
		e.enabled = false
		e.c.disabled.pushBack(e)
	}
	v.penalty = 0
	v.value = 0
}

// updatePenalty is update_variable_penalty (0 disables the variable).
func (s *lmmSystem) updatePenalty(v *lmmVar, penalty float64) {
	if penalty == v.penalty {
		return
	}
	switch {
	case penalty > 0 && v.penalty <= 0:
		s.enableVar(v, penalty)
	case penalty <= 0 && v.penalty > 0:
		s.disableVar(v)
	default:
		v.penalty = penalty
		s.touchVar(v)
	}
}

func (s *lmmSystem) updateBound(v *lmmVar, bound float64) {
	v.bound = bound
	s.touchVar(v)
}

func (s *lmmSystem) freeVariable(v *lmmVar) {
	s.touchVar(v)
	for _, e := range v.elems {
		if e.linked {
			if e.enabled {
				e.c.enabled.remove(e)
			} else {
				e.c.disabled.remove(e)
			}
		}
	}
	v.elems = v.elems[:0]
	v.penalty = 0
	v.value = 0
}

// component gathers, from the changed constraints and variables, every
// enabled variable and constraint linked to them.
func (s *lmmSystem) component() ([]*lmmVar, []*lmmCnst) {
	s.stamp++
	mark := s.stamp + 1<<31
	vars, cnsts := s.compV[:0], s.compC[:0]
	visitC := func(c *lmmCnst) {
		if c.seen != mark {
			c.seen = mark
			cnsts = append(cnsts, c)
		}
	}
	for _, c := range s.dirtyC {
		visitC(c)
	}
	for _, v := range s.dirtyV {
		if v.penalty > 0 && v.seen != mark {
			v.seen = mark
			vars = append(vars, v)
			for _, e := range v.elems {
				visitC(e.c)
			}
		}
	}
	for i := 0; i < len(cnsts); i++ {
		for e := cnsts[i].enabled.head; e != nil; e = e.next {
			if v := e.v; v.seen != mark {
				v.seen = mark
				vars = append(vars, v)
				for _, e2 := range v.elems {
					visitC(e2.c)
				}
			}
		}
	}
	s.dirtyC, s.dirtyV = s.dirtyC[:0], s.dirtyV[:0]
	s.compV, s.compC = vars, cnsts
	return vars, cnsts
}

// solve computes the values of the variables of the changed components
// with SimGrid's fair-bottleneck algorithm.
func (s *lmmSystem) solve() {
	if len(s.dirtyC) == 0 && len(s.dirtyV) == 0 {
		return
	}
	all, _ := s.component()
	vars := s.varList[:0]
	for _, v := range all {
		v.value = 0
		has := false
		for _, e := range v.elems {
			if e.weight != 0 {
				has = true
				break
			}
		}
		if has {
			v.saturated = true
			vars = append(vars, v)
		} else {
			v.value = 1.0
		}
	}
	cnsts := s.cnstList[:0]
	for _, v := range vars {
		for _, e := range v.elems {
			if c := e.c; !c.listed {
				c.listed = true
				c.remaining = c.bound
				c.usage = 0
				cnsts = append(cnsts, c)
			}
		}
	}
	for len(vars) > 0 {
		// Usage of each constraint: its remaining capacity shared among
		// the unsaturated variables that consume it.
		n := 0
		for _, c := range cnsts {
			c.usage = 0
			nb := 0
			for e := c.enabled.head; e != nil; e = e.next {
				if e.weight > 0 && e.v.saturated {
					nb++
				}
			}
			if nb > 0 && c.fatpipe {
				nb = 1
			}
			if nb == 0 {
				c.remaining = 0
				c.usage = 0
				c.listed = false
				continue
			}
			c.usage = c.remaining / float64(nb)
			cnsts[n] = c
			n++
		}
		cnsts = cnsts[:n]
		// Increment of each variable.
		n = 0
		for _, v := range vars {
			minInc := math.MaxFloat64
			for _, e := range v.elems {
				if e.weight > 0 {
					minInc = math.Min(minInc, e.c.usage/e.weight)
				}
			}
			if v.bound > 0 {
				minInc = math.Min(minInc, v.bound-v.value)
			}
			v.mu = minInc
			v.value += v.mu
			if v.value == v.bound {
				v.saturated = false
				continue
			}
			vars[n] = v
			n++
		}
		vars = vars[:n]
		// Remaining capacity of each constraint.
		n = 0
		for _, c := range cnsts {
			if !c.fatpipe {
				for e := c.enabled.head; e != nil; e = e.next {
					doubleUpdate(&c.remaining, e.weight*e.v.mu, maxminPrecision)
				}
			} else {
				for e := c.enabled.head; e != nil; e = e.next {
					c.usage = math.Min(c.usage, e.weight*e.v.mu)
				}
				doubleUpdate(&c.remaining, c.usage, maxminPrecision)
			}
			if c.remaining <= 0 {
				c.listed = false
				for e := c.enabled.head; e != nil; e = e.next {
					if e.weight > 0 && e.v.saturated {
						e.v.saturated = false
					}
				}
				continue
			}
			cnsts[n] = c
			n++
		}
		cnsts = cnsts[:n]
		n = 0
		for _, v := range vars {
			if v.saturated {
				vars[n] = v
				n++
			}
		}
		vars = vars[:n]
	}
	for _, c := range cnsts {
		c.listed = false
	}
	s.varList = vars[:0]
	s.cnstList = cnsts[:0]
}
