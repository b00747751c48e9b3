package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/internal/batsimfmt"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/metrics"
)

// JobsColumns is the header of PREFIX_jobs.csv, as Batsim 4.2.1 writes it.
const JobsColumns = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata"

// stats accumulates the _schedule.csv metrics as Batsim does (per written
// job row).
type stats struct {
	nbJobs, nbFinished, nbSuccess, nbKilled, nbRejected int
	// sums, maxima and the makespan are long doubles in Batsim
	sumWait, sumTurn, sumSlow ld
	maxWait, maxTurn, maxSlow ld
	makespan                  ld
	byState                   map[string]int
	// metrics accumulates the jobs for Result.Metrics.
	metrics metrics.Acc
	// scratch
	start, sub, wait, end, turn, slow ld
}

// PartialSuffix ends the name under which a failed run keeps the rows of an
// output file it was writing (PREFIX_jobs.csv.partial).
const PartialSuffix = ".partial"

// StagedFile is an output file written under a temporary name in the
// directory of its final path: Commit renames it to that path, Abort keeps
// what was written as path + PartialSuffix. A run that fails therefore
// never replaces, nor empties, the file of an earlier run.
type StagedFile struct {
	*os.File
	path string
	done bool
}

// CreateStaged creates the temporary file of path (path.tmp-*, in path's
// directory, which must exist).
func CreateStaged(path string) (*StagedFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &StagedFile{File: f, path: path}, nil
}

// Path is the final path.
func (f *StagedFile) Path() string { return f.path }

// Commit closes the file and renames it to its final path.
func (f *StagedFile) Commit() error {
	return f.finish(f.path)
}

// Abort closes the file and keeps it as path + PartialSuffix, which it
// returns.
func (f *StagedFile) Abort() (string, error) {
	partial := f.path + PartialSuffix
	return partial, f.finish(partial)
}

// Discard closes and removes the file.
func (f *StagedFile) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.Name())
}

func (f *StagedFile) finish(to string) error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if err == nil {
		err = os.Rename(f.Name(), to)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", to, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the path of a *fs.PathError or *os.LinkError, so that
// an error names its file once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// outputs writes PREFIX_jobs.csv and PREFIX_schedule.csv. The jobs rows go
// to a staged file as the run goes; finish writes the schedule file and
// renames both into place, abort keeps the rows as
// PREFIX_jobs.csv.partial. Either way the files of an earlier run with the
// same prefix stay untouched until the run has succeeded.
type outputs struct {
	prefix   string
	jobsPath string
	f        *StagedFile
	w        *bufio.Writer
	rows     int
	lastSync time.Time
	// scratch is where a row is written before it is buffered.
	scratch []byte
}

func openOutputs(prefix string) (*outputs, error) {
	if dir := filepath.Dir(prefix + "_jobs.csv"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("export prefix %s: %w", prefix, err)
		}
	}
	o := &outputs{prefix: prefix, jobsPath: prefix + "_jobs.csv"}
	f, err := CreateStaged(o.jobsPath)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	o.f = f
	o.w = bufio.NewWriterSize(f, 64<<10)
	o.w.WriteString(JobsColumns + "\n")
	if err := o.w.Flush(); err != nil {
		f.Discard()
		return nil, fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	o.lastSync = time.Now()
	return o, nil
}

func (o *outputs) row(line []byte) error {
	if _, err := o.w.Write(line); err != nil {
		return fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	o.rows++
	// Rows reach the file as they come, in bounded batches.
	if o.rows%256 == 0 || (o.rows%16 == 0 && time.Since(o.lastSync) > 500*time.Millisecond) {
		o.lastSync = time.Now()
		if err := o.w.Flush(); err != nil {
			return fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
		}
	}
	return nil
}

// sync pushes the rows written so far to the file.
func (o *outputs) sync() error {
	o.lastSync = time.Now()
	if err := o.w.Flush(); err != nil {
		return fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	return nil
}

// abort keeps the rows written so far as PREFIX_jobs.csv.partial.
func (o *outputs) abort() {
	o.w.Flush()
	o.f.Abort()
}

// finish writes the schedule file, then renames it and the jobs file into
// place.
func (o *outputs) finish(keys, values []string, extra []extraFile) error {
	if err := o.w.Flush(); err != nil {
		o.f.Abort()
		return fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	files := append([]extraFile{{"_schedule.csv", []byte(strings.Join(keys, ",") + "\n" + strings.Join(values, ",") + "\n")}}, extra...)
	staged := make([]*StagedFile, 0, len(files))
	discard := func() {
		for _, f := range staged {
			f.Discard()
		}
	}
	for _, x := range files {
		path := o.prefix + x.suffix
		sf, err := CreateStaged(path)
		if err == nil {
			if _, err = sf.Write(x.data); err != nil {
				sf.Discard()
			}
		}
		if err != nil {
			discard()
			o.f.Abort()
			return fmt.Errorf("export %s: %w", path, unwrapPath(err))
		}
		staged = append(staged, sf)
	}
	if err := o.f.Commit(); err != nil {
		discard()
		return fmt.Errorf("export %w", err)
	}
	for _, sf := range staged {
		if err := sf.Commit(); err != nil {
			return fmt.Errorf("export %w", err)
		}
	}
	return nil
}

// extraFile is an output file written whole at the end of a run (its
// name is the export prefix followed by suffix).
type extraFile struct {
	suffix string
	data   []byte
}

// writeJob records a job that ended or was rejected: the _jobs.csv row and
// the schedule metrics.
// sumLD sums long doubles in order, as Batsim sums its machines' times.
func sumLD(v []ld) float64 {
	var s ld
	for i := range v {
		s.add(&s, &v[i])
	}
	return s.float64()
}

func (e *engine) writeJob(j *job) error {
	s := &e.stats
	if s.byState == nil {
		s.byState = map[string]int{}
	}
	s.nbJobs++
	s.byState[j.state.String()]++
	rejected := j.state == stRejected
	success := j.state == stSuccess
	if !rejected {
		// Batsim's arithmetic, in long doubles: waiting = start - submission,
		// completion = start + runtime, turnaround = completion - submission,
		// slowdown = turnaround / runtime.
		s.start.setF(j.start)
		s.sub.setF(j.subtime)
		s.wait.sub(&s.start, &s.sub)
		s.end.add(&s.start, &j.runtimeLD)
		s.turn.sub(&s.end, &s.sub)
		s.slow.quo(&s.turn, &j.runtimeLD)
	}
	if rejected {
		s.nbRejected++
	} else {
		s.nbFinished++
		if success {
			s.nbSuccess++
		} else {
			s.nbKilled++
		}
		s.sumWait.add(&s.sumWait, &s.wait)
		s.sumTurn.add(&s.sumTurn, &s.turn)
		s.sumSlow.add(&s.sumSlow, &s.slow)
		if s.end.cmp(&s.makespan) > 0 {
			s.makespan.set(&s.end)
		}
		if s.wait.cmp(&s.maxWait) > 0 {
			s.maxWait.set(&s.wait)
		}
		if s.turn.cmp(&s.maxTurn) > 0 {
			s.maxTurn.set(&s.turn)
		}
		if s.slow.cmp(&s.maxSlow) > 0 {
			s.maxSlow.set(&s.slow)
		}
	}
	mj := metrics.Job{Submit: j.subtime, State: j.state.String(), Ran: !rejected, Success: success}
	if !rejected {
		mj.Start, mj.Exec, mj.Finish = j.start, j.runtimeLD.float64(), s.end.float64()
		mj.Wait, mj.Turnaround = s.wait.float64(), s.turn.float64()
	}
	s.metrics.Add(&mj)
	if e.cfg.Progress != nil && s.nbJobs == e.staticJobs {
		e.cfg.Progress(s.nbJobs, e.staticJobs)
	}
	if e.out == nil {
		j.run, j.prof = nil, nil
		return nil
	}
	b := e.out.scratch[:0]
	b = append(b, j.name()...)
	b = append(b, ',')
	b = append(b, j.wl.name...)
	b = append(b, ',')
	if e.cfg.Batsim5Jobs {
		b = append(b, j.wl.name...)
		b = append(b, '!')
	}
	b = append(b, j.prof.name...)
	b = append(b, ',')
	b = batsimfmt.AppendFloat(b, j.subtime)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.res), 10)
	b = append(b, ',')
	b = batsimfmt.AppendFloat(b, j.walltime)
	b = append(b, ',')
	if success {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, ',')
	b = append(b, j.state.String()...)
	b = append(b, ',')
	if rejected {
		b = append(b, ",,,,,,,,"...)
	} else {
		for _, v := range []float64{j.start, j.runtimeLD.float64(), s.end.float64(), s.wait.float64(), s.turn.float64(), s.slow.float64()} {
			b = batsimfmt.AppendFloat(b, v)
			b = append(b, ',')
		}
		b = append(b, j.run.allocStr...)
		if e.en != nil {
			b = append(b, ',')
			b = j.run.energy.appendFixed6(b)
			b = append(b, ',')
		} else {
			b = append(b, ",-1.000000,"...)
		}
		// The execution is over; the row was its last use.
		j.run = nil
	}
	if e.cfg.Batsim5Jobs {
		b = append(b, '\n')
	} else {
		b = append(b, '"')
		if j.hasMetadata {
			b = append(b, e.metadata[j]...)
		}
		b = append(b, '"', '\n')
	}
	e.out.scratch = b
	// The row was the last use of the job's profile.
	j.prof = nil
	return e.out.row(b)
}

// scheduleValues are the keys (sorted) and values of _schedule.csv.
func (e *engine) scheduleValues(wall time.Duration) (keys, values []string) {
	s := &e.stats
	n := float64(s.nbJobs)
	div := func(v float64) string {
		if s.nbJobs == 0 {
			return batsimfmt.Float(0)
		}
		return batsimfmt.Float(v / n)
	}
	m := map[string]string{
		"batsim_version":        BatsimVersion,
		"consumed_joules":       batsimfmt.Float(0),
		"makespan":              batsimfmt.Float(s.makespan.float64()),
		"max_slowdown":          batsimfmt.Float(s.maxSlow.float64()),
		"max_turnaround_time":   batsimfmt.Float(s.maxTurn.float64()),
		"max_waiting_time":      batsimfmt.Float(s.maxWait.float64()),
		"mean_slowdown":         div(s.sumSlow.float64()),
		"mean_turnaround_time":  div(s.sumTurn.float64()),
		"mean_waiting_time":     div(s.sumWait.float64()),
		"nb_computing_machines": strconv.Itoa(e.nhosts + e.nstore),
		"nb_grouped_switches":   "0",
		"nb_jobs":               strconv.Itoa(s.nbJobs),
		"nb_jobs_finished":      strconv.Itoa(s.nbFinished),
		"nb_jobs_killed":        strconv.Itoa(s.nbKilled),
		"nb_jobs_rejected":      strconv.Itoa(s.nbRejected),
		"nb_jobs_success":       strconv.Itoa(s.nbSuccess),
		"nb_machine_switches":   "0",
		"scheduling_time":       batsimfmt.Float(e.schedWall.Seconds()),
		"simulation_time":       batsimfmt.Float(wall.Seconds()),
		"success_rate":          div(float64(s.nbSuccess)),
		"time_computing":        batsimfmt.Float(sumLD(e.hostComp)),
		"time_idle":             batsimfmt.Float(sumLD(e.hostIdle)),
		"time_sleeping":         batsimfmt.Float(0),
		"time_switching_off":    batsimfmt.Float(0),
		"time_switching_on":     batsimfmt.Float(0),
		"time_unavailable":      batsimfmt.Float(0),
	}
	if en := e.en; en != nil {
		var joules ld
		joules.sub(&en.lastCompletion, &en.firstSubmit)
		m["consumed_joules"] = batsimfmt.Float(joules.float64())
		m["nb_machine_switches"] = strconv.Itoa(en.machineSwitches)
		m["nb_grouped_switches"] = strconv.Itoa(en.groupedSwitches)
		m["time_sleeping"] = batsimfmt.Float(sumLD(en.sleepT))
		m["time_switching_off"] = batsimfmt.Float(sumLD(en.offT))
		m["time_switching_on"] = batsimfmt.Float(sumLD(en.onT))
	}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		values = append(values, m[k])
	}
	return keys, values
}

// Result summarises a simulation.
type Result struct {
	Jobs    int            // jobs that ended or were rejected
	ByState map[string]int // final state -> count
	// Metrics are the run's metrics with the definitions of package
	// metrics, those of the campaign reports (makespan = last finish −
	// first submission, means over the jobs that ran, utilization = busy
	// host-time / (hosts × makespan)); the busy host-time is the compute
	// hosts' time computing (_schedule.csv's time_computing). Batsim's own
	// summary is _schedule.csv.
	Metrics metrics.Summary
	EndTime float64 // simulated time of SIMULATION_ENDS' acknowledgment (or of the stop)
	// Energy is, with -E, consumed_joules (the energy from the first
	// submission to the last job end); 0 without.
	Energy    float64
	EnergyOn  bool
	Messages  int // messages sent to the scheduler
	Wall      time.Duration
	SchedWall time.Duration // wall time spent in the scheduler
}

func (e *engine) result(wall time.Duration) *Result {
	s := &e.stats
	r := &Result{Jobs: s.nbJobs, ByState: map[string]int{}, EndTime: e.k.now,
		Messages: e.messages, Wall: wall, SchedWall: e.schedWall}
	for k, v := range s.byState {
		r.ByState[k] = v
	}
	r.Metrics = s.metrics.Summary(sumLD(e.hostComp), e.nhosts)
	if en := e.en; en != nil {
		var j ld
		j.sub(&en.lastCompletion, &en.firstSubmit)
		r.Energy, r.EnergyOn = j.float64(), true
	}
	return r
}

func roundProgress(p *batsim.JobProgress) {
	for ; p != nil; p = p.CurrentTask {
		if p.Progress != nil {
			v := batsimfmt.Reread(*p.Progress)
			p.Progress = &v
		}
	}
}
