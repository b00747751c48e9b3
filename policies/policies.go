// Package policies assembles every policy bucma ships into one registry.
// Each family is a package of its own that registers itself into a
// sched.Registry: a program that wants some of them, or its own beside
// them, builds its registry the same way.
package policies

import (
	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/policies/bot"
	"github.com/bucma-sched/bucma/policies/bucma"
	"github.com/bucma-sched/bucma/policies/conservative"
	"github.com/bucma-sched/bucma/policies/energy"
	"github.com/bucma-sched/bucma/policies/gang"
	"github.com/bucma-sched/bucma/policies/osep"
	"github.com/bucma-sched/bucma/policies/prio"
	"github.com/bucma-sched/bucma/policies/sge"
	"github.com/bucma-sched/bucma/policies/simple"
	"github.com/bucma-sched/bucma/policies/wtrust"
	"github.com/bucma-sched/bucma/sched"
)

// Register adds every built-in policy to r.
func Register(r *sched.Registry) {
	basic.Register(r)
	conservative.Register(r)
	prio.Register(r)
	bucma.Register(r)
	wtrust.Register(r)
	osep.Register(r)
	sge.Register(r)
	gang.Register(r)
	bot.Register(r)
	energy.Register(r)
	simple.Register(r)
}

// Builtin returns a new registry holding every built-in policy.
func Builtin() *sched.Registry {
	r := sched.NewRegistry()
	Register(r)
	return r
}
