package edctwins

import (
	"encoding/binary"
	"math/bits"
	"sort"
)

// This file reproduces two behaviours of GNU libstdc++ (GCC 12, the C++
// library of Batsim 5's test components) that decide the order in which
// Batsim's easy component sees jobs that end at the same instant: the
// iteration order of std::unordered_map<std::string, T> (hash, buckets,
// rehashing, node list) and std::sort (introsort, not stable). See
// edcEasy.

// hashBytes is std::_Hash_bytes (libsupc++/hash_bytes.cc, 64-bit size_t),
// the hash of std::hash<std::string> with seed 0xc70f6907.
func hashBytes(b []byte, seed uint64) uint64 {
	const mul = 0xc6a4a793<<32 + 0x5bd1e995
	shiftMix := func(v uint64) uint64 { return v ^ (v >> 47) }
	n := len(b)
	aligned := n &^ 7
	hash := seed ^ (uint64(n) * mul)
	for p := 0; p < aligned; p += 8 {
		data := shiftMix(binary.LittleEndian.Uint64(b[p:])*mul) * mul
		hash ^= data
		hash *= mul
	}
	if rest := n & 7; rest != 0 {
		var data uint64
		for i := rest - 1; i >= 0; i-- {
			data = data<<8 + uint64(b[aligned+i])
		}
		hash ^= data
		hash *= mul
	}
	hash = shiftMix(hash) * mul
	return shiftMix(hash)
}

func stringHash(s string) uint64 { return hashBytes([]byte(s), 0xc70f6907) }

// primes is the start of libstdc++'s __prime_list, which
// _Prime_rehash_policy picks bucket counts from (enough for maps of
// millions of elements).
var primes = []uint64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137,
	139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709,
	761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469,
	3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173,
	16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557,
	62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409,
	218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753,
	712697, 771049, 834181, 902483, 976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627,
	2144977, 2320627, 2510653, 2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259, 5515729}

var fastBkt = []uint64{2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13}

type cxxNode struct {
	next *cxxNode
	key  string
	hash uint64
	val  *edcJob
}

// cxxMap is std::unordered_map<std::string, *edcJob> as libstdc++ keeps it:
// a singly linked list of nodes, each bucket pointing at the node before
// its first one, max load factor 1, rehashing by _Prime_rehash_policy.
type cxxMap struct {
	before     cxxNode // _M_before_begin
	buckets    []*cxxNode
	count      int
	nextResize uint64
}

func newCxxMap() *cxxMap { return &cxxMap{buckets: make([]*cxxNode, 1)} }

func (m *cxxMap) bucket(h uint64) int { return int(h % uint64(len(m.buckets))) }

// nextBkt is _Prime_rehash_policy::_M_next_bkt.
func (m *cxxMap) nextBkt(n uint64) uint64 {
	if n < uint64(len(fastBkt)) {
		if n == 0 {
			return 1
		}
		m.nextResize = fastBkt[n]
		return fastBkt[n]
	}
	i := 6 + sort.Search(len(primes)-1-6, func(k int) bool { return primes[6+k] >= n })
	m.nextResize = primes[i]
	return primes[i]
}

// needRehash is _Prime_rehash_policy::_M_need_rehash for one insertion.
func (m *cxxMap) needRehash() (bool, uint64) {
	nElt := uint64(m.count) + 1
	if nElt <= m.nextResize {
		return false, 0
	}
	minBkts := nElt
	if m.nextResize == 0 && minBkts < 11 {
		minBkts = 11
	}
	nBkt := uint64(len(m.buckets))
	if minBkts >= nBkt {
		return true, m.nextBkt(max(minBkts+1, nBkt*2))
	}
	m.nextResize = nBkt
	return false, 0
}

// rehash is _M_rehash_aux for unique keys.
func (m *cxxMap) rehash(n uint64) {
	nb := make([]*cxxNode, n)
	p := m.before.next
	m.before.next = nil
	bbegin := 0
	for p != nil {
		next := p.next
		b := int(p.hash % n)
		if nb[b] == nil {
			p.next = m.before.next
			m.before.next = p
			nb[b] = &m.before
			if p.next != nil {
				nb[bbegin] = p
			}
			bbegin = b
		} else {
			p.next = nb[b].next
			nb[b].next = p
		}
		p = next
	}
	m.buckets = nb
}

func (m *cxxMap) find(key string, h uint64) (prev *cxxNode, n *cxxNode) {
	b := m.bucket(h)
	prev = m.buckets[b]
	if prev == nil {
		return nil, nil
	}
	for p := prev.next; p != nil && m.bucket(p.hash) == b; prev, p = p, p.next {
		if p.hash == h && p.key == key {
			return prev, p
		}
	}
	return nil, nil
}

// set is operator[] followed by an assignment.
func (m *cxxMap) set(key string, v *edcJob) {
	h := stringHash(key)
	if _, n := m.find(key, h); n != nil {
		n.val = v
		return
	}
	if ok, nb := m.needRehash(); ok {
		m.rehash(nb)
	}
	node := &cxxNode{key: key, hash: h, val: v}
	b := m.bucket(h)
	if m.buckets[b] != nil {
		node.next = m.buckets[b].next
		m.buckets[b].next = node
	} else {
		node.next = m.before.next
		m.before.next = node
		if node.next != nil {
			m.buckets[m.bucket(node.next.hash)] = node
		}
		m.buckets[b] = &m.before
	}
	m.count++
}

// erase is erase(find(key)).
func (m *cxxMap) erase(key string) {
	h := stringHash(key)
	prev, n := m.find(key, h)
	if n == nil {
		return
	}
	b := m.bucket(h)
	if prev == m.buckets[b] {
		// _M_remove_bucket_begin
		if n.next == nil || m.bucket(n.next.hash) != b {
			if n.next != nil {
				m.buckets[m.bucket(n.next.hash)] = m.buckets[b]
			}
			if m.buckets[b] == &m.before {
				m.before.next = n.next
			}
			m.buckets[b] = nil
		}
	} else if n.next != nil {
		if nb := m.bucket(n.next.hash); nb != b {
			m.buckets[nb] = prev
		}
	}
	prev.next = n.next
	m.count--
}

// values are the map's values in iteration order.
func (m *cxxMap) values() []*edcJob {
	out := make([]*edcJob, 0, m.count)
	for p := m.before.next; p != nil; p = p.next {
		out = append(out, p.val)
	}
	return out
}

// cxxSort is std::sort (introsort, then insertion sort) with less.
func cxxSort(a []*edcJob, less func(x, y *edcJob) bool) {
	if len(a) < 2 {
		return
	}
	introsortLoop(a, 0, len(a), 2*(bits.Len(uint(len(a)))-1), less)
	finalInsertionSort(a, 0, len(a), less)
}

const sortThreshold = 16

func introsortLoop(a []*edcJob, first, last, depth int, less func(x, y *edcJob) bool) {
	for last-first > sortThreshold {
		if depth == 0 {
			heapSort(a, first, last, less)
			return
		}
		depth--
		cut := partitionPivot(a, first, last, less)
		introsortLoop(a, cut, last, depth, less)
		last = cut
	}
}

func partitionPivot(a []*edcJob, first, last int, less func(x, y *edcJob) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(a, first, first+1, mid, last-1, less)
	return unguardedPartition(a, first+1, last, first, less)
}

func moveMedianToFirst(a []*edcJob, result, x, y, z int, less func(x, y *edcJob) bool) {
	swap := func(i int) { a[result], a[i] = a[i], a[result] }
	switch {
	case less(a[x], a[y]):
		switch {
		case less(a[y], a[z]):
			swap(y)
		case less(a[x], a[z]):
			swap(z)
		default:
			swap(x)
		}
	case less(a[x], a[z]):
		swap(x)
	case less(a[y], a[z]):
		swap(z)
	default:
		swap(y)
	}
}

func unguardedPartition(a []*edcJob, first, last, pivot int, less func(x, y *edcJob) bool) int {
	for {
		for less(a[first], a[pivot]) {
			first++
		}
		last--
		for less(a[pivot], a[last]) {
			last--
		}
		if !(first < last) {
			return first
		}
		a[first], a[last] = a[last], a[first]
		first++
	}
}

func finalInsertionSort(a []*edcJob, first, last int, less func(x, y *edcJob) bool) {
	if last-first > sortThreshold {
		insertionSort(a, first, first+sortThreshold, less)
		for i := first + sortThreshold; i < last; i++ {
			unguardedLinearInsert(a, i, less)
		}
		return
	}
	insertionSort(a, first, last, less)
}

func insertionSort(a []*edcJob, first, last int, less func(x, y *edcJob) bool) {
	for i := first + 1; i < last; i++ {
		if less(a[i], a[first]) {
			v := a[i]
			copy(a[first+1:i+1], a[first:i])
			a[first] = v
		} else {
			unguardedLinearInsert(a, i, less)
		}
	}
}

func unguardedLinearInsert(a []*edcJob, last int, less func(x, y *edcJob) bool) {
	v := a[last]
	next := last - 1
	for less(v, a[next]) {
		a[last] = a[next]
		last = next
		next--
	}
	a[last] = v
}

// heapSort is std::__partial_sort(first, last, last): make_heap then
// sort_heap.
func heapSort(a []*edcJob, first, last int, less func(x, y *edcJob) bool) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		adjustHeap(a, first, parent, n, a[first+parent], less)
		if parent == 0 {
			break
		}
	}
	for n > 1 {
		n--
		v := a[first+n]
		a[first+n] = a[first]
		adjustHeap(a, first, 0, n, v, less)
	}
}

// adjustHeap is std::__adjust_heap (then __push_heap) on a[base:base+n].
func adjustHeap(a []*edcJob, base, hole, n int, v *edcJob, less func(x, y *edcJob) bool) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(a[base+child], a[base+child-1]) {
			child--
		}
		a[base+hole] = a[base+child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		a[base+hole] = a[base+child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(a[base+parent], v) {
		a[base+hole] = a[base+parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	a[base+hole] = v
}
