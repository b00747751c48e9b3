package sched

// Internal references exported to the external tests (package sched_test)
// of this test binary only.
var (
	// RefEASY is EASY without its indexes (the plain scan).
	RefEASY StartRule = refEASY{}
	// CopiedFCFS is the FCFS order without the arrival-order fast path.
	CopiedFCFS Order = copiedFCFS{}
)

// NewConservativeReference is Conservative placing every job again in a
// compression, without passing the jobs it can tell cannot move.
func NewConservativeReference() *Conservative { return &Conservative{noPrune: true} }
