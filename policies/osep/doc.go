// Package osep is the Owner Share Enforcement Policy of the OSEP theses:
// the grid's hosts belong to its users, and periodic rounds preempt the
// jobs of the users served beyond their share (kill and resubmit of the
// remaining work, sched.Decider.Resubmit) to give hosts to those served
// below it; osep-hetero counts shares in computing power.
package osep
