package workloads

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SWFOptions parameterises FromSWF.
type SWFOptions struct {
	PPN           int     // processors per node: res = ceil(procs / PPN) (default 1)
	From, To      float64 // keep jobs with From ≤ submit time < To (SWF seconds); To ≤ 0 = no upper bound
	KeepCancelled bool    // keep status-5 jobs that have a positive run time
	Source        string  // file name recorded in meta
	// Profiles makes each job's profile from its run time: delay profiles
	// (the zero value) or compute profiles at a reference speed.
	Profiles RuntimeProfiles
}

// SWFStats counts what FromSWF kept and dropped.
type SWFStats struct {
	Lines, Kept                     int
	Cancelled, ZeroRuntime, NoProcs int
	OutOfWindow, Malformed          int
}

// String summarises the import.
func (s SWFStats) String() string {
	return fmt.Sprintf("%d jobs kept; dropped: %d cancelled, %d with zero or unknown run time, %d without processor count, %d outside the time window, %d malformed lines",
		s.Kept, s.Cancelled, s.ZeroRuntime, s.NoProcs, s.OutOfWindow, s.Malformed)
}

// FromSWF converts a Standard Workload Format trace (Parallel Workloads
// Archive: 18 whitespace-separated fields per job, ';' header comments)
// into a Batsim workload:
//
//   - id = field 1 (job number), as an integer;
//   - subtime = field 2 minus the submit time of the first kept job;
//   - res = ceil(procs / PPN), procs = field 8 (requested processors), or
//     field 5 (allocated) when field 8 is -1 or 0;
//   - walltime = field 9 (requested time), -1 when missing (≤ 0);
//   - profile = a delay profile "d<runtime>" per distinct run time
//     (field 4), shared by the jobs with that run time (or a compute
//     profile "c<runtime>": see RuntimeProfiles);
//   - custom field "user" = field 12 as a string.
//
// Dropped: cancelled jobs (field 11 = 5) unless KeepCancelled, jobs whose
// run time is 0 or -1, jobs without processor count, jobs outside
// [From, To), malformed lines (fewer than 18 fields, non-numeric, times of
// 1e15 s or more, more than 2^31-1 nodes, a job number already kept). The
// header comments are kept in meta.swf_header (one string per line, the
// leading ';' and one following space removed). nb_res is the largest of
// the header's MaxNodes, ceil(MaxProcs / PPN) (values in 1..2^31-1) and the
// largest res.
//
// FromSWF holds the whole trace and workload in memory; ScanSWF and
// SWFScan.Write convert a trace of any length in two passes over it,
// holding only what the output's head needs.
func FromSWF(in io.Reader, o SWFOptions) (*Workload, SWFStats, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, SWFStats{}, fmt.Errorf("from-swf: %w", err)
	}
	s, err := ScanSWF(bytes.NewReader(data), o)
	if err != nil {
		return nil, s.Stats(), err
	}
	w, err := s.Workload(bytes.NewReader(data))
	return w, s.Stats(), err
}

// FromSWFBytes is FromSWF on an in-memory trace.
func FromSWFBytes(data []byte, o SWFOptions) (*Workload, SWFStats, error) {
	return FromSWF(bytes.NewReader(data), o)
}

// swfMaxLine bounds a line of an SWF trace.
const swfMaxLine = 16 << 20

// swfMaxSeconds bounds the times of an SWF line (submit, run and requested
// times): about 31 million years, far above any trace, and far below what
// Batsim can no longer print (its %f buffer holds 31 characters).
const swfMaxSeconds = 1e15

// SWFScan is the first pass over an SWF trace: what the converted
// workload's head needs (nb_res, meta, the profiles) and the lines to
// skip. It holds the header comments, one profile per distinct run time,
// the set of job numbers kept (a bit per number, in pages: about one bit a
// job for the usual consecutive numbers) and the line numbers of repeated
// job numbers; never the jobs.
type SWFScan struct {
	o        SWFOptions
	st       SWFStats
	header   []string
	nbRes    int
	t0       float64
	profiles *Workload // its profiles only
	repeated []int     // line numbers of jobs whose number was kept before
}

// swfJob is one job line of an SWF trace, read.
type swfJob struct {
	id              int64
	submit, runtime float64
	res             int
	walltime        float64
	user            string
}

// swfLines reads the lines of an SWF trace: each header comment (without
// ';' and one space) to header, each job line to job with its number
// (1-based, counting every line) and either the job or the counter of
// SWFStats its line is dropped under. Blank lines are skipped.
func swfLines(in io.Reader, o *SWFOptions, header func(string), job func(line int, j *swfJob, dropped *int) error, st *SWFStats) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), swfMaxLine)
	var num [18]float64
	lineNo := 1
	for ; sc.Scan(); lineNo++ {
		trim := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r"))
		if trim == "" {
			continue
		}
		if h, ok := strings.CutPrefix(trim, ";"); ok {
			header(strings.TrimPrefix(h, " "))
			continue
		}
		st.Lines++
		j, dropped := parseSWFJob(trim, o, &num, st)
		if err := job(lineNo, j, dropped); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("from-swf: line %d is longer than %d MiB (not an SWF trace?)", lineNo, swfMaxLine>>20)
	} else if err != nil {
		return fmt.Errorf("from-swf: %w", err)
	}
	return nil
}

// parseSWFJob reads one job line: the job, or nil and the counter of st
// it is dropped under.
func parseSWFJob(trim string, o *SWFOptions, num *[18]float64, st *SWFStats) (*swfJob, *int) {
	f := strings.Fields(trim)
	if len(f) < 18 {
		return nil, &st.Malformed
	}
	for i := 0; i < 18; i++ {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &st.Malformed
		}
		num[i] = v
	}
	if num[0] != math.Trunc(num[0]) || math.Abs(num[0]) > 1<<31-1 {
		return nil, &st.Malformed
	}
	// Times Batsim cannot print (and absurd ones) make a line malformed.
	if math.Abs(num[1]) >= swfMaxSeconds || num[3] >= swfMaxSeconds || num[8] >= swfMaxSeconds {
		return nil, &st.Malformed
	}
	submit, runtime, alloc, reqProcs, reqTime, status := num[1], num[3], num[4], num[7], num[8], num[10]
	if o.To > 0 && submit >= o.To || submit < o.From {
		return nil, &st.OutOfWindow
	}
	if status == 5 && !o.KeepCancelled {
		return nil, &st.Cancelled
	}
	if runtime <= 0 {
		return nil, &st.ZeroRuntime
	}
	procs := reqProcs
	if procs <= 0 {
		procs = alloc
	}
	if procs <= 0 {
		return nil, &st.NoProcs
	}
	nodes := math.Ceil(procs / float64(o.PPN))
	if nodes > math.MaxInt32 {
		return nil, &st.Malformed
	}
	wt := -1.0
	if reqTime > 0 {
		wt = reqTime
	}
	return &swfJob{id: int64(num[0]), submit: submit, runtime: runtime, res: int(nodes), walltime: wt, user: f[11]}, nil
}

// ScanSWF makes the first pass over an SWF trace (see FromSWF for the
// conversion).
func ScanSWF(in io.Reader, o SWFOptions) (*SWFScan, error) {
	s := &SWFScan{o: o, profiles: &Workload{Profiles: map[string]Profile{}}}
	if s.o.PPN == 0 {
		s.o.PPN = 1
	}
	if s.o.PPN < 0 {
		return s, fmt.Errorf("from-swf: --ppn must be ≥ 1 (got %d)", o.PPN)
	}
	if o.To > 0 && o.To <= o.From {
		return s, fmt.Errorf("from-swf: empty time window [%g, %g)", o.From, o.To)
	}
	if err := s.o.Profiles.check(); err != nil {
		return s, fmt.Errorf("from-swf: %w", err)
	}
	var seen idSet
	err := swfLines(in, &s.o, s.headerLine, func(line int, j *swfJob, dropped *int) error {
		if j == nil {
			*dropped++
			return nil
		}
		if !seen.add(j.id) {
			s.st.Malformed++ // a job number used twice: Batsim aborts on duplicate ids
			s.repeated = append(s.repeated, line)
			return nil
		}
		if s.st.Kept == 0 || j.submit < s.t0 {
			s.t0 = j.submit
		}
		s.st.Kept++
		s.nbRes = max(s.nbRes, j.res)
		if _, ok := s.profiles.Profiles[s.o.Profiles.name(j.runtime)]; !ok {
			s.profiles.AddProfile(s.o.Profiles.profile(j.runtime))
		}
		return nil
	}, &s.st)
	return s, err
}

// headerLine records a header comment, and the machine's size it gives.
func (s *SWFScan) headerLine(h string) {
	s.header = append(s.header, h)
	k, v, ok := strings.Cut(h, ":")
	if !ok {
		return
	}
	// Counts beyond Batsim's int range are ignored.
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil || n <= 0 {
		return
	}
	switch strings.TrimSpace(k) {
	case "MaxNodes":
		s.nbRes = max(s.nbRes, int(n))
	case "MaxProcs":
		s.nbRes = max(s.nbRes, int((n+int64(s.o.PPN)-1)/int64(s.o.PPN)))
	}
}

// Stats tells what the trace's conversion keeps and drops.
func (s *SWFScan) Stats() SWFStats { return s.st }

// head is the converted workload without its jobs: nb_res, meta and the
// profiles.
func (s *SWFScan) head() (*Workload, error) {
	w := &Workload{NbRes: max(s.nbRes, 1), Profiles: s.profiles.Profiles, ProfileOrder: s.profiles.ProfileOrder}
	header := s.header
	if header == nil {
		header = []string{}
	}
	to := any(nil)
	if s.o.To > 0 {
		to = s.o.To
	}
	st := s.st
	params := map[string]any{"source": s.o.Source, "ppn": s.o.PPN, "from": s.o.From, "to": to, "keep_cancelled": s.o.KeepCancelled}
	s.o.Profiles.describe(params)
	meta := map[string]any{
		"generator":  "from-swf",
		"params":     params,
		"swf_header": header,
		"dropped": map[string]int{"cancelled": st.Cancelled, "zero_runtime": st.ZeroRuntime, "no_procs": st.NoProcs,
			"out_of_window": st.OutOfWindow, "malformed": st.Malformed},
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}

// jobs makes the second pass over the trace (the same bytes as the first),
// giving each job kept to yield, in order.
func (s *SWFScan) jobs(in io.Reader, yield func(Job) error) error {
	var st SWFStats
	next := 0 // index in s.repeated
	err := swfLines(in, &s.o, func(string) {}, func(line int, j *swfJob, dropped *int) error {
		if j == nil {
			*dropped++
			return nil
		}
		if next < len(s.repeated) && s.repeated[next] == line {
			next++
			st.Malformed++
			return nil
		}
		st.Kept++
		sub := j.submit - s.t0
		pname := s.o.Profiles.name(j.runtime)
		var jb objBuilder
		jb.int("id", j.id).num("subtime", sub).int("res", int64(j.res)).num("walltime", j.walltime).
			str("profile", pname).str("user", j.user)
		return yield(Job{ID: strconv.FormatInt(j.id, 10), IDIsInt: true, Subtime: sub, Res: j.res,
			Walltime: j.walltime, Profile: pname, Raw: jb.bytes()})
	}, &st)
	if err == nil && st != s.st {
		err = fmt.Errorf("from-swf: the trace changed between its two readings (%s, then %s)", s.st, st)
	}
	return err
}

// Write makes the second pass over the trace, in (the same bytes as
// ScanSWF read), and writes the converted workload to out as
// Workload.Write does, one job at a time.
func (s *SWFScan) Write(in io.Reader, out io.Writer) error {
	w, err := s.head()
	if err != nil {
		return err
	}
	return w.WriteJobs(out, func(yield func(Job) error) error { return s.jobs(in, yield) })
}

// Workload makes the second pass over the trace, in (the same bytes as
// ScanSWF read), and returns the converted workload.
func (s *SWFScan) Workload(in io.Reader) (*Workload, error) {
	w, err := s.head()
	if err != nil {
		return nil, err
	}
	w.Jobs = make([]Job, 0, s.st.Kept)
	err = s.jobs(in, func(j Job) error {
		w.Jobs = append(w.Jobs, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// idSet is a set of job numbers: a 64-bit word per run of 64 numbers, so
// consecutive numbers take about a bit each.
type idSet map[int64]uint64

// add adds id and tells whether it was new.
func (s *idSet) add(id int64) bool {
	if *s == nil {
		*s = idSet{}
	}
	k, bit := id>>6, uint64(1)<<(id&63)
	w := (*s)[k]
	if w&bit != 0 {
		return false
	}
	(*s)[k] = w | bit
	return true
}
