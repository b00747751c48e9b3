package workloads

import (
	"bufio"
	"bytes"
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
//     (field 4), shared by the jobs with that run time;
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
func FromSWF(in io.Reader, o SWFOptions) (*Workload, SWFStats, error) {
	var st SWFStats
	if o.PPN == 0 {
		o.PPN = 1
	}
	if o.PPN < 0 {
		return nil, st, fmt.Errorf("from-swf: --ppn must be ≥ 1 (got %d)", o.PPN)
	}
	if o.To > 0 && o.To <= o.From {
		return nil, st, fmt.Errorf("from-swf: empty time window [%g, %g)", o.From, o.To)
	}
	type rec struct {
		id              int64
		submit, runtime float64
		res             int
		walltime        float64
		user            string
	}
	var header []string
	var recs []rec
	seen := map[int64]bool{}
	nbRes := 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		trim := strings.TrimSpace(line)
		if trim == "" {
			continue
		}
		if strings.HasPrefix(trim, ";") {
			h := strings.TrimPrefix(trim, ";")
			h = strings.TrimPrefix(h, " ")
			header = append(header, h)
			if k, v, ok := strings.Cut(h, ":"); ok {
				// Counts beyond Batsim's int range are ignored.
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
				if err == nil && n > 0 {
					switch strings.TrimSpace(k) {
					case "MaxNodes":
						nbRes = max(nbRes, int(n))
					case "MaxProcs":
						nbRes = max(nbRes, int((n+int64(o.PPN)-1)/int64(o.PPN)))
					}
				}
			}
			continue
		}
		st.Lines++
		f := strings.Fields(trim)
		if len(f) < 18 {
			st.Malformed++
			continue
		}
		num := make([]float64, 18)
		bad := false
		for i := 0; i < 18; i++ {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				bad = true
				break
			}
			num[i] = v
		}
		if bad || num[0] != math.Trunc(num[0]) || math.Abs(num[0]) > 1<<31-1 {
			st.Malformed++
			continue
		}
		// Times Batsim cannot print (and absurd ones) make a line malformed.
		if math.Abs(num[1]) >= swfMaxSeconds || num[3] >= swfMaxSeconds || num[8] >= swfMaxSeconds {
			st.Malformed++
			continue
		}
		submit, runtime, alloc, reqProcs, reqTime, status := num[1], num[3], num[4], num[7], num[8], num[10]
		if o.To > 0 && submit >= o.To || submit < o.From {
			st.OutOfWindow++
			continue
		}
		if status == 5 && !o.KeepCancelled {
			st.Cancelled++
			continue
		}
		if runtime <= 0 {
			st.ZeroRuntime++
			continue
		}
		procs := reqProcs
		if procs <= 0 {
			procs = alloc
		}
		if procs <= 0 {
			st.NoProcs++
			continue
		}
		nodes := math.Ceil(procs / float64(o.PPN))
		if nodes > math.MaxInt32 {
			st.Malformed++
			continue
		}
		res := int(nodes)
		wt := -1.0
		if reqTime > 0 {
			wt = reqTime
		}
		if seen[int64(num[0])] {
			st.Malformed++ // a job number used twice: Batsim aborts on duplicate ids
			continue
		}
		seen[int64(num[0])] = true
		recs = append(recs, rec{id: int64(num[0]), submit: submit, runtime: runtime, res: res, walltime: wt, user: f[11]})
	}
	if err := sc.Err(); err != nil {
		return nil, st, fmt.Errorf("from-swf: %w", err)
	}
	w := &Workload{Profiles: map[string]Profile{}}
	if len(recs) > 0 {
		t0 := recs[0].submit
		for _, r := range recs {
			t0 = math.Min(t0, r.submit)
		}
		for _, r := range recs {
			pname := "d" + fmtNum(r.runtime)
			if _, ok := w.Profiles[pname]; !ok {
				var pb objBuilder
				pb.str("type", TypeDelay).num("delay", r.runtime)
				w.AddProfile(Profile{Name: pname, Type: TypeDelay, Delay: r.runtime, Repeat: 1, Raw: pb.bytes()})
			}
			sub := r.submit - t0
			var jb objBuilder
			jb.int("id", r.id).num("subtime", sub).int("res", int64(r.res)).num("walltime", r.walltime).
				str("profile", pname).str("user", r.user)
			w.Jobs = append(w.Jobs, Job{ID: strconv.FormatInt(r.id, 10), IDIsInt: true, Subtime: sub, Res: r.res,
				Walltime: r.walltime, Profile: pname, Raw: jb.bytes()})
			nbRes = max(nbRes, r.res)
		}
	}
	st.Kept = len(w.Jobs)
	if nbRes < 1 {
		nbRes = 1
	}
	w.NbRes = nbRes
	if header == nil {
		header = []string{}
	}
	to := any(nil)
	if o.To > 0 {
		to = o.To
	}
	meta := map[string]any{
		"generator":  "from-swf",
		"params":     map[string]any{"source": o.Source, "ppn": o.PPN, "from": o.From, "to": to, "keep_cancelled": o.KeepCancelled},
		"swf_header": header,
		"dropped": map[string]int{"cancelled": st.Cancelled, "zero_runtime": st.ZeroRuntime, "no_procs": st.NoProcs,
			"out_of_window": st.OutOfWindow, "malformed": st.Malformed},
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, st, err
	}
	w.SetExtra("meta", mb)
	return w, st, nil
}

// swfMaxSeconds bounds the times of an SWF line (submit, run and requested
// times): about 31 million years, far above any trace, and far below what
// Batsim can no longer print (its %f buffer holds 31 characters).
const swfMaxSeconds = 1e15

// FromSWFBytes is FromSWF on an in-memory trace.
func FromSWFBytes(data []byte, o SWFOptions) (*Workload, SWFStats, error) {
	return FromSWF(bytes.NewReader(data), o)
}
