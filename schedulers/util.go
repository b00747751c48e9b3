package schedulers

import "sort"

func sortIntsBy(a []int, less func(x, y int) bool) {
	sort.SliceStable(a, func(i, k int) bool { return less(a[i], a[k]) })
}
