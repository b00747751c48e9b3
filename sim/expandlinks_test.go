package sim

import (
	"math/rand/v2"
	"testing"
)

// expandLinks gives a variable the elements that expanding each (link,
// bytes) of the routes in turn without force gives (SimGrid's expand_add):
// the same constraints in the same order, the same weights to the bit, in
// the same places of each constraint's lists, and the same constraints
// marked changed; on random routes with repeated links, fatpipes and
// elements of other variables already on the links.
func TestExpandLinksAsExpandEach(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 300 {
		nl, n := 1+r.IntN(12), 1+r.IntN(6)
		fat := make([]bool, nl)
		for l := range fat {
			fat[l] = r.IntN(4) == 0
		}
		bytes := make([]float64, n*n)
		routes := make([][]int, n*n)
		for i := range bytes {
			if r.IntN(4) > 0 {
				bytes[i] = float64(r.IntN(5)) * r.Float64() * 1e6 // 0 at times
			}
			for range r.IntN(5) {
				routes[i] = append(routes[i], r.IntN(nl))
			}
		}
		build := func(merged bool) (*kernel, *lmmVar) {
			k := &kernel{links: make([]link, nl)}
			for l := range k.links {
				k.links[l].cnst = k.sys.newConstraint(1e9, fat[l])
			}
			other := k.sys.newVariable(1, -1, nl)
			for l := range k.links {
				k.sys.expand(k.links[l].cnst, other, 3, true)
			}
			k.sys.solve()
			v := k.sys.newVariable(1, -1, nl)
			if merged {
				k.expandLinks(v, bytes, routes)
			} else {
				for i, b := range bytes {
					if b <= 0 {
						continue
					}
					for _, l := range routes[i] {
						k.sys.expand(k.links[l].cnst, v, b, false)
					}
				}
			}
			return k, v
		}
		ke, ve := build(false)
		km, vm := build(true)
		if len(ve.elems) != len(vm.elems) {
			t.Fatalf("round %d: %d elements expanded one by one, %d merged", round, len(ve.elems), len(vm.elems))
		}
		index := func(k *kernel, c *lmmCnst) int {
			for l := range k.links {
				if k.links[l].cnst == c {
					return l
				}
			}
			return -1
		}
		for i := range ve.elems {
			e, m := ve.elems[i], vm.elems[i]
			if index(ke, e.c) != index(km, m.c) || e.weight != m.weight || e.enabled != m.enabled {
				t.Fatalf("round %d: element %d: link %d weight %v enabled %v one by one, link %d weight %v enabled %v merged",
					round, i, index(ke, e.c), e.weight, e.enabled, index(km, m.c), m.weight, m.enabled)
			}
		}
		for l := range ke.links {
			ce, cm := ke.links[l].cnst, km.links[l].cnst
			if ce.enabled.n != cm.enabled.n || ce.disabled.n != cm.disabled.n || (ce.dirty == ke.sys.stamp+1) != (cm.dirty == km.sys.stamp+1) {
				t.Fatalf("round %d: link %d: lists %d/%d, marked %v one by one; %d/%d, %v merged", round, l,
					ce.enabled.n, ce.disabled.n, ce.dirty == ke.sys.stamp+1, cm.enabled.n, cm.disabled.n, cm.dirty == km.sys.stamp+1)
			}
			pos := func(c *lmmCnst, v *lmmVar) (at int) {
				for e := c.enabled.head; e != nil; e, at = e.next, at+1 {
					if e.v == v {
						return at
					}
				}
				return -1
			}
			if pos(ce, ve) != pos(cm, vm) {
				t.Fatalf("round %d: link %d: the variable at %d one by one, %d merged", round, l, pos(ce, ve), pos(cm, vm))
			}
		}
	}
}
