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
	"sync"
	"sync/atomic"
	"time"

	"github.com/bucma-sched/bucma/internal/batsimfmt"

	"github.com/bucma-sched/bucma/batsim"
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
	busy                      float64 // host-seconds of finished jobs
	byState                   map[string]int
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
//
// The rows are formatted and written by a goroutine of their own (the
// writer), to which the simulation hands them in batches: what it hands
// over is already final, and the writer writes the batches in order.
type outputs struct {
	prefix   string
	jobsPath string
	f        *StagedFile
	rows     int
	lastSync time.Time
	// pending are the rows not yet handed to the writer.
	pending []jobRow
	// batches go to the writer, which sends them back through free once
	// written; inflight counts those not yet written.
	batches  chan []jobRow
	free     chan []jobRow
	inflight sync.WaitGroup
	done     chan struct{}
	// failed is the writer's first error, read once bad is set (or once
	// inflight is zero or done closed).
	failed error
	bad    atomic.Bool
	closed bool
}

// jobRow is one row of _jobs.csv, as the writer formats it.
type jobRow struct {
	name, wl, prof, state, alloc, meta string
	subtime, walltime                  float64
	res                                int
	start                              float64
	runtime, end, wait, turn, slow     ld
	energy                             ld
	rejected, success, energyOn        bool
	batsim5, hasMeta                   bool
}

// rowBatch is how many rows the writer receives at once (at most; fewer
// when half a second has passed).
const rowBatch = 256

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
	if _, err := f.WriteString(JobsColumns + "\n"); err != nil {
		f.Discard()
		return nil, fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
	}
	o.lastSync = time.Now()
	o.batches = make(chan []jobRow, 4)
	o.free = make(chan []jobRow, 5)
	o.done = make(chan struct{})
	go o.writer()
	return o, nil
}

// writer formats and writes the batches of rows, each pushed to the file
// whole; after an error it writes nothing more.
func (o *outputs) writer() {
	defer close(o.done)
	w := bufio.NewWriterSize(o.f, 64<<10)
	var line []byte
	for b := range o.batches {
		if o.failed == nil {
			for i := range b {
				line = appendRow(line[:0], &b[i])
				w.Write(line)
			}
			if err := w.Flush(); err != nil {
				o.failed = fmt.Errorf("export %s: %w", o.jobsPath, unwrapPath(err))
				o.bad.Store(true)
			}
		}
		clear(b)
		select {
		case o.free <- b[:0]:
		default:
		}
		o.inflight.Done()
	}
}

func (o *outputs) row(r *jobRow) error {
	if o.pending == nil {
		o.pending = make([]jobRow, 0, rowBatch)
	}
	o.pending = append(o.pending, *r)
	o.rows++
	// Rows reach the file as they come, in bounded batches.
	if o.rows%rowBatch == 0 || (o.rows%16 == 0 && time.Since(o.lastSync) > 500*time.Millisecond) {
		o.lastSync = time.Now()
		o.hand()
	}
	return o.err()
}

// hand gives the pending rows to the writer.
func (o *outputs) hand() {
	if len(o.pending) == 0 || o.closed {
		return
	}
	o.inflight.Add(1)
	o.batches <- o.pending
	select {
	case b := <-o.free:
		o.pending = b
	default:
		o.pending = make([]jobRow, 0, rowBatch)
	}
}

// err is the writer's error, once it has had one: the simulation stops at
// the next row it writes.
func (o *outputs) err() error {
	if o.bad.Load() {
		return o.failed
	}
	return nil
}

// sync pushes the rows written so far to the file.
func (o *outputs) sync() error {
	o.lastSync = time.Now()
	o.hand()
	o.inflight.Wait()
	return o.failed
}

// close hands the last rows to the writer and waits until it has written
// them all and stopped.
func (o *outputs) close() error {
	if !o.closed {
		o.hand()
		o.closed = true
		close(o.batches)
		<-o.done
	}
	return o.failed
}

// abort keeps the rows written so far as PREFIX_jobs.csv.partial.
func (o *outputs) abort() {
	o.close()
	o.f.Abort()
}

// finish writes the schedule file, then renames it and the jobs file into
// place.
func (o *outputs) finish(keys, values []string, extra []extraFile) error {
	if err := o.close(); err != nil {
		o.f.Abort()
		return err
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
		s.busy += j.runtimeLD.float64() * float64(len(j.run.alloc))
	}
	if e.cfg.Progress != nil && s.nbJobs == e.staticJobs {
		e.cfg.Progress(s.nbJobs, e.staticJobs)
	}
	if e.out == nil {
		j.run, j.prof = nil, nil
		return nil
	}
	r := jobRow{name: j.name(), wl: j.wl.name, prof: j.prof.name, subtime: j.subtime, res: j.res, walltime: j.walltime,
		state: j.state.String(), rejected: rejected, success: success, batsim5: e.cfg.Batsim5Jobs}
	if !rejected {
		r.start, r.runtime, r.end, r.wait, r.turn, r.slow = j.start, j.runtimeLD, s.end, s.wait, s.turn, s.slow
		r.alloc = j.run.allocStr
		if e.en != nil {
			r.energyOn, r.energy = true, j.run.energy
		}
		// The execution is over; the row was its last use.
		j.run = nil
	}
	if !r.batsim5 && j.hasMetadata {
		r.hasMeta, r.meta = true, e.metadata[j]
	}
	// The row was the last use of the job's profile.
	j.prof = nil
	return e.out.row(&r)
}

// appendRow appends r's line of _jobs.csv to b.
func appendRow(b []byte, r *jobRow) []byte {
	b = append(b, r.name...)
	b = append(b, ',')
	b = append(b, r.wl...)
	b = append(b, ',')
	if r.batsim5 {
		b = append(b, r.wl...)
		b = append(b, '!')
	}
	b = append(b, r.prof...)
	b = append(b, ',')
	b = batsimfmt.AppendFloat(b, r.subtime)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.res), 10)
	b = append(b, ',')
	b = batsimfmt.AppendFloat(b, r.walltime)
	b = append(b, ',')
	if r.success {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, ',')
	b = append(b, r.state...)
	b = append(b, ',')
	if r.rejected {
		b = append(b, ",,,,,,,,"...)
	} else {
		for _, v := range []float64{r.start, r.runtime.float64(), r.end.float64(), r.wait.float64(), r.turn.float64(), r.slow.float64()} {
			b = batsimfmt.AppendFloat(b, v)
			b = append(b, ',')
		}
		b = append(b, r.alloc...)
		if r.energyOn {
			b = append(b, ',')
			b = r.energy.appendFixed6(b)
			b = append(b, ',')
		} else {
			b = append(b, ",-1.000000,"...)
		}
	}
	if r.batsim5 {
		b = append(b, '\n')
	} else {
		b = append(b, '"')
		if r.hasMeta {
			b = append(b, r.meta...)
		}
		b = append(b, '"', '\n')
	}
	return b
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
	Jobs     int            // jobs that ended or were rejected
	ByState  map[string]int // final state -> count
	Makespan float64        // latest finish time
	EndTime  float64        // simulated time of SIMULATION_ENDS' acknowledgment (or of the stop)
	MeanWait float64        // over every job, rejected ones counting 0 (Batsim's mean_waiting_time)
	MeanSlow float64        // Batsim's mean_slowdown
	// Utilization is the host-seconds used by jobs over hosts × makespan.
	Utilization float64
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
	r := &Result{Jobs: s.nbJobs, ByState: map[string]int{}, Makespan: s.makespan.float64(), EndTime: e.k.now,
		Messages: e.messages, Wall: wall, SchedWall: e.schedWall}
	for k, v := range s.byState {
		r.ByState[k] = v
	}
	if s.nbJobs > 0 {
		r.MeanWait = s.sumWait.float64() / float64(s.nbJobs)
		r.MeanSlow = s.sumSlow.float64() / float64(s.nbJobs)
	}
	if m := s.makespan.float64(); m > 0 {
		r.Utilization = s.busy / (float64(e.nhosts) * m)
	}
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
