package workloads

import (
	"fmt"
	"math"
)

// ValidateOptions tunes Validate.
type ValidateOptions struct {
	// WorkloadName is the name Batsim gives the workload ("w0" for the
	// first -w option, the default when empty).
	WorkloadName string
	// PlatformHosts is the number of compute hosts of the platform the
	// workload will run on; 0 when unknown. A job asking for more can never
	// run (a scheduler has to reject it): reported as an error.
	PlatformHosts int
	// Forwarded, when set, receives for each job (by index in Jobs) the
	// description Batsim would forward in JOB_SUBMITTED, which validation
	// computes anyway (the engine keeps it instead of computing it again).
	Forwarded func(i int, job []byte)
}

// Validate checks the workload the way Batsim 4.2.1 does when it loads it.
// errs lists what makes Batsim abort (or, with PlatformHosts, jobs that can
// never run); warnings what Batsim tolerates but deserves attention.
//
// Errors: nb_res ≤ 0; an empty id (schedulers cannot parse the full id
// "w0!"); an id Batsim rejects (containing '!', or containing
// the workload name without being a valid "<workload>!<name>" id);
// duplicate ids; negative subtime; negative res; walltime neither -1 nor
// > 0; unknown profile; a parallel profile whose cpu array length differs
// from the job's res; a job description Batsim cannot forward (its id
// rewrite gives invalid JSON, or a number too large for its %f buffer);
// invalid profile values (delay ≤ 0, negative cpu/com, empty cpu array,
// com not n×n, repeat ≤ 0, empty seq, seq naming an unknown profile,
// composed profiles forming a cycle, a job's composed profile expanding to
// more than MaxSequenceTasks tasks); res above PlatformHosts.
//
// Warnings: res above nb_res (Batsim only uses nb_res for
// --mmax-workload); res = 0; subtimes not sorted (Batsim sorts them); ids
// already prefixed with the workload name; duplicate JSON keys (Batsim
// reads the first); profiles no job uses (Batsim drops them).
func (w *Workload) Validate(opts ValidateOptions) (errs, warnings []Finding) {
	wl := opts.WorkloadName
	if wl == "" {
		wl = "w0"
	}
	add := func(sev Severity, job, prof, format string, args ...any) {
		f := Finding{Severity: sev, File: w.Path, Job: job, Profile: prof, Msg: fmt.Sprintf(format, args...)}
		if sev == Error {
			errs = append(errs, f)
		} else {
			warnings = append(warnings, f)
		}
	}
	warnings = append(warnings, w.parseWarnings...)
	if w.NbRes <= 0 {
		add(Error, "", "", "nb_res must be a strictly positive integer (got %d)", w.NbRes)
	}

	// Profiles.
	for _, name := range w.ProfileOrder {
		p := w.Profiles[name]
		switch p.Type {
		case TypeDelay:
			if !(p.Delay > 0) {
				add(Error, "", name, "delay must be strictly positive (got %g)", p.Delay)
			}
		case TypeParallelHomogeneous, TypeParallelHomogeneousTotal:
			if p.CPU < 0 {
				add(Error, "", name, "cpu must be non-negative (got %g)", p.CPU)
			}
			if p.Com < 0 {
				add(Error, "", name, "com must be non-negative (got %g)", p.Com)
			}
		case TypeParallel:
			n := len(p.CPUs)
			if n == 0 {
				add(Error, "", name, "the cpu array is empty")
			}
			if len(p.ComMat) != n*n {
				add(Error, "", name, "the com array has %d elements, %d×%d = %d expected", len(p.ComMat), n, n, n*n)
			}
			for _, v := range p.CPUs {
				if v < 0 {
					add(Error, "", name, "cpu values must be non-negative (got %g)", v)
					break
				}
			}
			for _, v := range p.ComMat {
				if v < 0 {
					add(Error, "", name, "com values must be non-negative (got %g)", v)
					break
				}
			}
		case TypeComposed:
			if p.Repeat <= 0 {
				add(Error, "", name, "repeat must be strictly positive (got %d)", p.Repeat)
			}
			if len(p.Seq) == 0 {
				add(Error, "", name, "the seq array is empty")
			}
			for _, s := range p.Seq {
				if _, ok := w.Profiles[s]; !ok {
					add(Error, "", name, "seq uses profile '%s', which does not exist", s)
				}
			}
		}
	}
	cycles := w.composedCycles()
	for _, name := range cycles {
		add(Error, "", name, "composed profiles form a cycle through this profile (execution would never end)")
	}

	// Jobs.
	used := make(map[string]bool, len(w.Profiles))
	seen := make(map[string]string, len(w.Jobs))
	unsorted, firstUnsorted := 0, ""
	prev := math.Inf(-1)
	for i, j := range w.Jobs {
		full, err := FullJobID(wl, j.ID)
		if j.ID == "" {
			add(Error, fmt.Sprintf("#%d", i+1), "", "empty job id: Batsim would call the job %q, which schedulers refuse (a full id is two non-empty '!'-separated parts)", wl+"!")
		} else if err != nil {
			add(Error, j.ID, "", "%v (Batsim aborts)", err)
		} else {
			if full != wl+"!"+j.ID {
				add(Warning, j.ID, "", "the id already contains the workload name; Batsim uses it as the full id %q", full)
			}
			if other, dup := seen[full]; dup {
				add(Error, j.ID, "", "duplicate job id (full id %q, also used by the job written as '%s')", full, other)
			} else {
				seen[full] = j.ID
			}
			if fwd, ferr := ForwardedJob(j.Raw, full); ferr != nil {
				add(Error, j.ID, "", "Batsim cannot forward this job: %v", ferr)
			} else if opts.Forwarded != nil {
				opts.Forwarded(i, fwd)
			}
		}
		if j.Subtime < 0 {
			add(Error, j.ID, "", "negative subtime (%g)", j.Subtime)
		}
		if j.Subtime < prev {
			unsorted++
			if firstUnsorted == "" {
				firstUnsorted = j.ID
			}
		}
		prev = math.Max(prev, j.Subtime)
		if j.Walltime != -1 && !(j.Walltime > 0) {
			add(Error, j.ID, "", "walltime must be -1 (unlimited) or strictly positive (got %g)", j.Walltime)
		}
		switch {
		case j.Res < 0:
			add(Error, j.ID, "", "negative res (%d)", j.Res)
		case j.Res == 0:
			add(Warning, j.ID, "", "res is 0: the job asks for no resource and cannot be executed; a scheduler has to reject it")
		}
		if opts.PlatformHosts > 0 && j.Res > opts.PlatformHosts {
			add(Error, j.ID, "", "res %d is above the platform's %d compute hosts: the job can never run (the scheduler has to reject it)", j.Res, opts.PlatformHosts)
		} else if w.NbRes > 0 && j.Res > w.NbRes {
			add(Warning, j.ID, "", "res %d is above nb_res %d (Batsim only uses nb_res with --mmax-workload)", j.Res, w.NbRes)
		}
		p, ok := w.Profiles[j.Profile]
		if !ok {
			add(Error, j.ID, "", "profile '%s' does not exist", j.Profile)
			continue
		}
		used[j.Profile] = true
		if p.Type == TypeParallel && len(p.CPUs) != j.Res {
			add(Error, j.ID, "", "res %d does not match the %d hosts of its parallel profile '%s'", j.Res, len(p.CPUs), j.Profile)
		}
	}
	if unsorted > 0 {
		add(Warning, firstUnsorted, "", "subtimes are not in increasing order (%d job(s) submitted before the job preceding them in the file); Batsim sorts jobs by subtime", unsorted)
	}

	// The composed profiles of jobs (those Batsim executes): bounded.
	if len(cycles) == 0 {
		tasks := w.sequenceCounter()
		for _, name := range w.ProfileOrder {
			p := w.Profiles[name]
			if !used[name] || p.Type != TypeComposed {
				continue
			}
			if n := tasks.Tasks(name); n > MaxSequenceTasks {
				add(Error, "", name, "one execution runs %s tasks (repeat %d × %d part(s), nested sequences multiplied out), more than the %d a job's composed profile may expand to (Batsim builds every task when the job starts)", countText(n), p.Repeat, len(p.Seq), MaxSequenceTasks)
			}
		}
	}

	// Profiles reached through composed profiles count as used.
	var mark func(string, int)
	mark = func(name string, depth int) {
		p, ok := w.Profiles[name]
		if !ok || depth > len(w.Profiles) {
			return
		}
		for _, s := range p.Seq {
			if !used[s] {
				used[s] = true
				mark(s, depth+1)
			}
		}
	}
	for name := range used {
		mark(name, 0)
	}
	for _, name := range w.ProfileOrder {
		if !used[name] {
			add(Warning, "", name, "no job uses this profile (Batsim drops it)")
		}
	}
	return errs, warnings
}

// composedCycles returns the composed profiles that lie on a cycle.
func (w *Workload) composedCycles() []string {
	composed := false
	for _, p := range w.Profiles {
		if len(p.Seq) > 0 {
			composed = true
			break
		}
	}
	if !composed {
		return nil // only sequences form cycles
	}
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(w.Profiles))
	onCycle := map[string]bool{}
	var stack []string
	var visit func(string)
	visit = func(n string) {
		color[n] = grey
		stack = append(stack, n)
		for _, s := range w.Profiles[n].Seq {
			if _, ok := w.Profiles[s]; !ok {
				continue
			}
			switch color[s] {
			case white:
				visit(s)
			case grey:
				for i := len(stack) - 1; i >= 0; i-- {
					onCycle[stack[i]] = true
					if stack[i] == s {
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	var out []string
	for _, n := range w.ProfileOrder {
		if color[n] == white {
			visit(n)
		}
	}
	for _, n := range w.ProfileOrder {
		if onCycle[n] {
			out = append(out, n)
		}
	}
	return out
}
