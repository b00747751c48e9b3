// Package studies assembles bucma's studies: each paper's experiment is a
// package of its own (its plan file, the paper's data, its report) over the
// generic campaign runner of package expe. A new study is a new package
// with a Register function and one line here.
package studies

import (
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/studies/bot"
	"github.com/bucma-sched/bucma/studies/bucma"
	"github.com/bucma-sched/bucma/studies/gang"
	"github.com/bucma-sched/bucma/studies/osep"
	"github.com/bucma-sched/bucma/studies/prio"
	"github.com/bucma-sched/bucma/studies/sge"
)

// Builtin returns the studies and built-in plans of bucma, the plans in
// the order "bucma expe plans" lists them, and the comparison report of
// campaigns of no study.
func Builtin() *report.Studies {
	s := report.NewStudies()
	bucma.RegisterPaper(s)
	osep.Register(s)
	sge.Register(s)
	gang.Register(s)
	bot.Register(s)
	bucma.RegisterSensitivity(s)
	bucma.RegisterExplorations(s)
	prio.Register(s)
	return s
}
