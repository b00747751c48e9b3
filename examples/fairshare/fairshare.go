// Package fairshare shares the platform between users: at each decision
// the user with the fewest hosts in use goes first, with their oldest
// waiting job, until no user's next job fits. By default a job goes to the
// hosts its user owns (the hosts' "owner" property) first.
package fairshare

import "github.com/bucma-sched/bucma/sched"

// FairShare is the policy.
type FairShare struct{ Hosts sched.HostSelector }

// Spec is the policy's declaration.
func Spec() sched.Spec {
	hosts := sched.HostsOption
	hosts.Default = "own-fastest"
	return sched.Spec{
		Name:        "fairshare",
		Description: "fair share between users: the user with the fewest hosts in use starts their oldest job first",
		Options:     []sched.OptionSpec{hosts},
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &FairShare{Hosts: sel}, nil
		},
	}
}

// Decide implements sched.Policy.
func (f *FairShare) Decide(s *sched.State, d *sched.Decider) {
	if s.NbWaiting() == 0 || s.NbFree() == 0 {
		return
	}
	inUse := map[string]int{}
	for _, j := range s.Running() {
		inUse[j.User()] += j.Res()
	}
	// Each user's waiting jobs in arrival order; users in the order of
	// their oldest waiting job (the tie-breaker).
	var users []string
	queue := map[string][]*sched.Job{}
	for _, j := range s.Waiting() {
		if !j.Waiting() || j.Refused() {
			continue // left the queue in this decision, or rejected by the framework
		}
		if _, seen := queue[j.User()]; !seen {
			users = append(users, j.User())
		}
		queue[j.User()] = append(queue[j.User()], j)
	}
	for s.NbFree() > 0 {
		best := ""
		found := false
		for _, u := range users {
			q := queue[u]
			if len(q) == 0 || q[0].Res() > s.NbFree() {
				continue
			}
			if !found || inUse[u] < inUse[best] {
				best, found = u, true
			}
		}
		if !found {
			return
		}
		j := queue[best][0]
		queue[best] = queue[best][1:]
		if !d.Start(j, f.Hosts.Select(s, j, j.Res())) {
			return
		}
		inUse[best] += j.Res()
	}
}
