package sched

import "sort"

func sortIntsBy(a []int, less func(x, y int) bool) {
	sort.SliceStable(a, func(i, k int) bool { return less(a[i], a[k]) })
}

// groupHosts groups the hosts by the value of their property prop, groups
// in order of first appearance, hosts in id order; of gives each host's
// group. Hosts without the property form one group, or with alone one
// group each.
func GroupHosts(s *State, prop string, alone bool) (groups [][]int, of []int) {
	index := map[string]int{}
	of = make([]int, len(s.hosts))
	for i := range s.hosts {
		name, ok := s.hosts[i].props[prop]
		if !ok && alone {
			name = "\x00" + s.hosts[i].name
		}
		g, ok := index[name]
		if !ok {
			g = len(groups)
			index[name] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
		of[i] = g
	}
	return groups, of
}
