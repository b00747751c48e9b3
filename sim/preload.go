package sim

import (
	"cmp"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/workloads"
)

// Preloaded is a workload file read straight into the engine's own form
// (see Preload): what the engine needs of it is all that is ever held, not
// a workloads.Workload besides.
type Preloaded struct {
	wl *workload
	// index finds the jobs by full id.
	index map[string]*job
}

// Preload reads the workload file at path as the engine's workload name
// (w0, w1, ... for the files of Config.Preloaded in order). A large workload
// (a million jobs) is then never held whole in memory: the file is read
// once, job by job and profile by profile, into the engine's own structures,
// which is faster and several times smaller than a workloads.Workload and
// the engine's copy of it.
//
// It reads the files workloads.LoadChecked accepts without error, and the
// engine then runs exactly as with that Workload (the tests check it); it
// returns nil for any other file, unreadable ones included: load those with
// workloads.LoadChecked, which names each problem.
func Preload(path, name string) *Preloaded {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	abs := path
	if a, err := filepath.Abs(path); err == nil && path != "" {
		abs = a
	}
	return preload(data, abs, name)
}

func preload(data []byte, path, name string) *Preloaded {
	p := &preloader{name: name, wl: &workload{name: name, path: path}}
	ok, v := workloads.ScanSplit(data, p, func() workloads.Visitor { return &profileReader{profiles: map[string]*profile{}} })
	if !ok || p.bad || p.nbRes <= 0 {
		return nil
	}
	pp, _ := v.(*profileReader)
	if pp == nil {
		return nil
	}
	p.wl.profiles, p.order = pp.profiles, pp.order
	wl := p.wl
	// Profiles: sequences name known profiles and form no cycle.
	for _, pr := range p.order {
		if pr.typ != workloads.TypeComposed {
			continue
		}
		for _, n := range pr.ext.seqNames {
			if _, ok := wl.profiles[n]; !ok {
				return nil
			}
		}
	}
	if err := wl.resolve(); err != nil || cyclic(p.order) {
		return nil
	}
	// Jobs: known profiles, parallel profiles of the job's size, unique
	// full ids.
	allIDs := string(p.ids)
	p.ids = nil
	index := make(map[string]*job, len(p.jobs))
	jobs := p.jobs
	used := make(map[*profile]bool, len(p.order))
	tasks := newSequenceCounter()
	begin := 0
	for i, j := range jobs {
		j.id = allIDs[begin:p.ends[i]]
		begin = p.ends[i]
		pr, ok := wl.profiles[p.profNames[i]]
		if !ok || (pr.typ == workloads.TypeParallel && len(pr.cpus()) != j.res) {
			return nil
		}
		if pr.typ == workloads.TypeComposed && tasks.Tasks(pr) > workloads.MaxSequenceTasks {
			return nil
		}
		j.prof = pr
		j.wl = wl
		if _, dup := index[j.id]; dup {
			return nil
		}
		index[j.id] = j
		markUsed(pr, used)
	}
	for _, pr := range p.order {
		if used[pr] {
			wl.begins = append(wl.begins, pr)
		}
	}
	slices.SortFunc(jobs, func(a, b *job) int {
		if c := cmp.Compare(a.subtime, b.subtime); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	wl.static = jobs
	return &Preloaded{wl: wl, index: index}
}

// Jobs is the number of jobs of the workload.
func (p *Preloaded) Jobs() int {
	if p.wl == nil {
		return 0
	}
	return len(p.wl.static)
}

// JobDescriptions yields each job's description, as JOB_SUBMITTED
// forwards it (the fields of the job's object included), in submission
// order.
func (p *Preloaded) JobDescriptions() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if p.wl == nil {
			return
		}
		for _, j := range p.wl.static {
			if !yield(j.desc) {
				return
			}
		}
	}
}

// markUsed marks p and, for a sequence, its parts.
func markUsed(p *profile, used map[*profile]bool) {
	if used[p] {
		return
	}
	used[p] = true
	for _, s := range p.seq() {
		markUsed(s, used)
	}
}

// cyclic reports whether sequences form a cycle.
func cyclic(order []*profile) bool {
	const (
		white = iota
		grey
		black
	)
	color := map[*profile]int{}
	var visit func(p *profile) bool
	visit = func(p *profile) bool {
		color[p] = grey
		for _, s := range p.seq() {
			switch color[s] {
			case grey:
				return true
			case white:
				if visit(s) {
					return true
				}
			}
		}
		color[p] = black
		return false
	}
	for _, p := range order {
		if p.typ == workloads.TypeComposed && color[p] == white && visit(p) {
			return true
		}
	}
	return false
}

// preloader is Preload's workloads.Visitor of the jobs: it checks each
// job as workloads' Validate does (bad at the first error) and builds the
// engine's job; profileReader does the same for the profiles, on its own
// goroutine (workloads.ScanSplit).
type preloader struct {
	name  string
	wl    *workload
	nbRes int
	bad   bool
	// the descriptions of jobs
	arena byteArena
	// full ids, written one after the other (job i's ends at ends[i])
	ids  []byte
	ends []int
	// the jobs in file order (in blocks), with their profile names
	jobs      []*job
	block     []job
	profNames []string
	// the profiles in file order
	order []*profile
}

func (p *preloader) NbRes(n int)                  { p.nbRes = n }
func (p *preloader) Extra(key string, raw []byte) {}

func (p *preloader) Job(src *workloads.Job) bool {
	if src.ID == "" || src.Subtime < 0 || (src.Walltime != -1 && !(src.Walltime > 0)) || src.Res < 0 {
		p.bad = true
		return false
	}
	full, err := workloads.FullJobID(p.name, src.ID)
	if err != nil {
		p.bad = true
		return false
	}
	fwd, err := p.arena.add(func(dst []byte) ([]byte, error) { return workloads.AppendForwardedJob(dst, src.Raw, full) })
	if err != nil {
		p.bad = true
		return false
	}
	p.ids = append(p.ids, full...)
	p.ends = append(p.ends, len(p.ids))
	wt := src.Walltime
	if wt <= 0 {
		wt = -1
	}
	if len(p.block) == cap(p.block) {
		p.block = make([]job, 0, 4096)
	}
	p.block = append(p.block, job{desc: fwd, subtime: src.Subtime, res: src.Res, walltime: wt, ret: -1, typed: typedJob(src)})
	p.jobs = append(p.jobs, &p.block[len(p.block)-1])
	p.profNames = append(p.profNames, src.Profile)
	return true
}

// Profile is never called: ScanSplit hands the profiles to a profileReader.
func (p *preloader) Profile(*workloads.Profile) bool { return false }

// profileReader is Preload's workloads.Visitor of the profiles.
type profileReader struct {
	profiles map[string]*profile
	// the profiles in file order
	order []*profile
	// the descriptions of the profiles
	arena byteArena
}

func (p *profileReader) NbRes(int)               {}
func (p *profileReader) Extra(string, []byte)    {}
func (p *profileReader) Job(*workloads.Job) bool { return false }

// Profile returns false at the first profile workloads' Validate refuses:
// the scan then fails.
func (p *profileReader) Profile(src *workloads.Profile) bool {
	if _, dup := p.profiles[src.Name]; dup || !validProfile(src) {
		return false
	}
	pr, err := newProfile(src.Name, *src, &p.arena)
	if err != nil {
		return false
	}
	p.profiles[src.Name] = pr
	p.order = append(p.order, pr)
	return true
}

// validProfile is workloads' Validate on one profile (the names of a
// sequence's parts are checked once every profile is known).
func validProfile(p *workloads.Profile) bool {
	switch p.Type {
	case workloads.TypeDelay:
		return p.Delay > 0
	case workloads.TypeParallelHomogeneous, workloads.TypeParallelHomogeneousTotal:
		return p.CPU >= 0 && p.Com >= 0
	case workloads.TypeParallel:
		n := len(p.CPUs)
		if n == 0 || len(p.ComMat) != n*n {
			return false
		}
		for _, v := range p.CPUs {
			if v < 0 {
				return false
			}
		}
		for _, v := range p.ComMat {
			if v < 0 {
				return false
			}
		}
		return true
	case workloads.TypeComposed:
		return p.Repeat > 0 && len(p.Seq) > 0
	}
	return false
}
