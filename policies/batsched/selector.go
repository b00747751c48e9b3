package batsched

import (
	"fmt"

	"github.com/bucma-sched/bucma/sched/profile"
)

// Selector picks a job's machines among available ones: batsched's
// ResourceSelector (-p). Fit appends the n machines it takes from free to
// dst and reports whether it found them.
type Selector interface {
	Fit(free profile.Hosts, n int, dst []int) ([]int, bool)
}

// Basic is batsched's "basic" selection: the n available machines with the
// lowest ids.
type Basic struct{}

// Fit implements Selector.
func (Basic) Fit(free profile.Hosts, n int, dst []int) ([]int, bool) {
	if free.Len() < n {
		return dst, false
	}
	return free.Lowest(n, dst), true
}

// Contiguous is batsched's "contiguous" selection: the first run of
// consecutive available machines (by id) long enough, its n lowest ids.
type Contiguous struct{}

// Fit implements Selector.
func (Contiguous) Fit(free profile.Hosts, n int, dst []int) ([]int, bool) {
	return free.FirstRun(n, dst)
}

// Ordered takes the first n available machines in a given order (for
// instance the fastest first: State.HostsByFastest).
type Ordered struct{ Order []int }

// Fit implements Selector.
func (o Ordered) Fit(free profile.Hosts, n int, dst []int) ([]int, bool) {
	if free.Len() < n {
		return dst, false
	}
	for _, h := range o.Order {
		if n == 0 {
			break
		}
		if free.Has(h) {
			dst = append(dst, h)
			n--
		}
	}
	return dst, n == 0
}

// SelectorNames are the values of batsched's -p (--policy) option.
var SelectorNames = []string{"basic", "contiguous"}

// SelectorByName is the selector of batsched's -p value.
func SelectorByName(name string) (Selector, error) {
	switch name {
	case "basic":
		return Basic{}, nil
	case "contiguous":
		return Contiguous{}, nil
	}
	return nil, fmt.Errorf("unknown resource selection %q (batsched's are basic and contiguous)", name)
}
