package sched_test

import (
	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/sched"
)

// bases holds the base policies (fcfs, easy, minmin, maxmin), which the
// framework's external tests run its building blocks through.
var bases = func() *sched.Registry {
	r := sched.NewRegistry()
	basic.Register(r)
	return r
}()

// baseSpec is the spec of base policy name.
func baseSpec(name string) *sched.Spec {
	s, err := bases.Lookup(name)
	if err != nil {
		panic(err)
	}
	return s
}
