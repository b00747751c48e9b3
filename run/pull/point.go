package pull

import (
	"encoding/binary"
	"math"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// Encoding of a point (Run.Point): little-endian, every section's records
// of a size that is a multiple of 8 bytes (arrays stay aligned for a
// caller that maps them, such as numpy), in this order:
//
//	header (HeaderSize bytes):
//	  u32 version (Version), i32 kind, f64 now, i32 free hosts,
//	  i32 new jobs, i32 started jobs, i32 ended jobs, i32 keys,
//	  i32 alloc entries, i32 string bytes, i32 begin bytes,
//	  i32 waiting jobs
//	new jobs (NewSize each), in arrival order:
//	  i64 job, f64 submit, f64 walltime (0: none), i32 res,
//	  i32 id, user and profile lengths (their bytes in the strings)
//	started jobs (StartedSize each), started by a start rule of the
//	framework (not by the caller's own Start):
//	  i64 job, f64 start, i32 hosts (their ids in the alloc), i32 0
//	ended jobs (EndedSize each): i64 job, f64 end, i32 state (the
//	  index of its name in States), i32 return code
//	keys (a Keys point): i64 job[n], then the columns f64 submit[n],
//	  f64 walltime[n] (+Inf: none), i32 res[n] padded to 8 bytes
//	alloc: i32 host[n] padded to 8 bytes
//	strings: the new jobs' ids, users and profiles, in that order
//	begin (the first point only): a JSON object, {"hosts": [{"name",
//	  "speed", "properties"}...]}
//
// A job is named by its arrival rank (sched.Job.Seq): 0, 1, ... in the
// order the jobs joined the queue. The hosts' states are read when the
// caller asks (AppendHosts: HostSize bytes a host, i32 host, free slots,
// jobs, unavailable (0 or 1), power state (sched.PowerState), pstate):
// most policies never read them, and a point does not carry them.
const (
	Version     = 1
	HeaderSize  = 56
	NewSize     = 40
	StartedSize = 24
	EndedSize   = 24
	HostSize    = 24
)

// States are the job states of the ended records, by index.
var States = []string{batsim.StateSubmitted, batsim.StateRunning, batsim.StateSuccess, batsim.StateFailed,
	batsim.StateWalltimeReached, batsim.StateKilled, batsim.StateRejected}

func stateIndex(s string) int32 {
	for i, n := range States {
		if n == s {
			return int32(i)
		}
	}
	return int32(len(States))
}

// tracker follows the jobs for the caller (a sched.Observer of the
// session): what changed since the last point.
type tracker struct {
	state *sched.State
	jobs  []*sched.Job // every job, by arrival rank
	added []*sched.Job // joined the queue since the last point
	begun []*sched.Job // started by the framework's rules since
	ended []*sched.Job // ended since
	// starts records the framework's starts (a key policy); the
	// caller's own starts are the caller's.
	starts bool
	begin  bool  // the begin section was sent
	sent   int64 // the jobs of arrival rank below it were sent
	// early holds the jobs told ended in the point they joined the queue
	// (rejected by the framework before the caller decides), whose Ended
	// comes after the decision: it is not told again.
	early map[int64]bool
}

func (t *tracker) Submitted(s *sched.State, j *sched.Job) {
	t.state = s
	t.add(j)
}

// add records that j joined the queue, unless it was sent already (a key
// point asks its key while it joins the queue, before Submitted).
func (t *tracker) add(j *sched.Job) {
	seq := j.Seq()
	if seq < t.sent || (len(t.added) > 0 && t.added[len(t.added)-1].Seq() >= seq) {
		return
	}
	for int64(len(t.jobs)) <= seq {
		t.jobs = append(t.jobs, nil)
	}
	t.jobs[seq] = j
	t.added = append(t.added, j)
}

func (t *tracker) Started(s *sched.State, j *sched.Job) {
	t.state = s
	if t.starts {
		t.begun = append(t.begun, j)
	}
}

func (t *tracker) Ended(s *sched.State, j *sched.Job) {
	t.state = s
	if t.early[j.Seq()] {
		delete(t.early, j.Seq())
		return
	}
	t.ended = append(t.ended, j)
}

// rejectedEarly moves the jobs of the point that the framework rejected
// before the caller decides (larger than the platform, refused by the
// policy's rules) to the ended records of that same point, so that the
// caller never counts them as waiting.
func (t *tracker) rejectedEarly() {
	for _, j := range t.added {
		if j.State() != batsim.StateRejected || t.early[j.Seq()] {
			continue
		}
		if t.early == nil {
			t.early = map[int64]bool{}
		}
		t.early[j.Seq()] = true
		t.ended = append(t.ended, j)
	}
}

// job is the job of arrival rank idx, nil when there is none.
func (t *tracker) job(idx int64) *sched.Job {
	if idx < 0 || idx >= int64(len(t.jobs)) {
		return nil
	}
	return t.jobs[idx]
}

var le = binary.LittleEndian

func put32(b []byte, v int32) []byte { return le.AppendUint32(b, uint32(v)) }
func put64(b []byte, v int64) []byte { return le.AppendUint64(b, uint64(v)) }
func putF(b []byte, v float64) []byte {
	return le.AppendUint64(b, math.Float64bits(v))
}

// pad8 pads b with zeros to a multiple of 8 bytes.
func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// appendHost appends host h's record.
func appendHost(b []byte, s *sched.State, h int) []byte {
	host := s.Host(h)
	unavailable := int32(0)
	if host.Unavailable() {
		unavailable = 1
	}
	b = put32(b, int32(h))
	b = put32(b, int32(host.FreeSlots()))
	b = put32(b, int32(len(host.Jobs())))
	b = put32(b, unavailable)
	b = put32(b, int32(host.Power()))
	return put32(b, int32(host.PState()))
}

// hostInfo is a host as the begin section describes it.
type hostInfo struct {
	Name       string            `json:"name"`
	Speed      float64           `json:"speed"`
	Properties map[string]string `json:"properties"`
}

// encode appends the point of kind k (r's keys when k is Keys) to b and
// forgets what it sent.
func (t *tracker) encode(b []byte, r *Run, k Kind) []byte {
	s := t.state
	now, free, waiting := 0.0, 0, 0
	if s != nil {
		now, free, waiting = s.Now(), s.NbFree(), s.NbWaiting()
	}
	var begin []byte
	if s != nil && !t.begin {
		t.begin = true
		hosts := make([]hostInfo, s.NbHosts())
		for i := range hosts {
			h := s.Host(i)
			hosts[i] = hostInfo{Name: h.Name(), Speed: h.Speed(), Properties: h.Properties()}
		}
		begin, _ = json.Marshal(map[string]any{"hosts": hosts})
	}
	t.rejectedEarly()
	var keys []*sched.Job
	if k == Keys {
		keys = r.keyJobs
		for _, j := range keys {
			t.add(j)
		}
	}
	nalloc := 0
	for _, j := range t.begun {
		nalloc += len(j.Alloc())
	}
	nstr := 0
	for _, j := range t.added {
		nstr += len(j.ID()) + len(j.User()) + len(j.Profile())
	}
	b = le.AppendUint32(b, Version)
	b = put32(b, int32(k))
	b = putF(b, now)
	for _, n := range [...]int{free, len(t.added), len(t.begun), len(t.ended), len(keys), nalloc, nstr, len(begin), waiting, 0} {
		b = put32(b, int32(n))
	}
	for _, j := range t.added {
		b = put64(b, j.Seq())
		b = putF(b, j.Submit())
		b = putF(b, j.Walltime())
		b = put32(b, int32(min(max(j.Res(), math.MinInt32), math.MaxInt32)))
		b = put32(b, int32(len(j.ID())))
		b = put32(b, int32(len(j.User())))
		b = put32(b, int32(len(j.Profile())))
	}
	for _, j := range t.begun {
		b = put64(b, j.Seq())
		b = putF(b, j.Start())
		b = put32(b, int32(len(j.Alloc())))
		b = put32(b, 0)
	}
	for _, j := range t.ended {
		end := j.End()
		if t.early[j.Seq()] {
			end = now // the session dates the rejection after the decision
		}
		b = put64(b, j.Seq())
		b = putF(b, end)
		b = put32(b, stateIndex(j.State()))
		b = put32(b, int32(j.ReturnCode()))
	}
	for _, j := range keys {
		b = put64(b, j.Seq())
	}
	for _, j := range keys {
		b = putF(b, j.Submit())
	}
	for _, j := range keys {
		b = putF(b, j.WalltimeOrInf())
	}
	for _, j := range keys {
		b = put32(b, int32(min(max(j.Res(), math.MinInt32), math.MaxInt32)))
	}
	b = pad8(b)
	for _, j := range t.begun {
		for _, h := range j.Alloc() {
			b = put32(b, int32(h))
		}
	}
	b = pad8(b)
	for _, j := range t.added {
		b = append(b, j.ID()...)
		b = append(b, j.User()...)
		b = append(b, j.Profile()...)
	}
	b = append(b, begin...)
	if n := len(t.added); n > 0 {
		t.sent = t.added[n-1].Seq() + 1
	}
	t.forget()
	return b
}

// forget clears what was sent.
func (t *tracker) forget() {
	clear(t.added)
	clear(t.begun)
	clear(t.ended)
	t.added, t.begun, t.ended = t.added[:0], t.begun[:0], t.ended[:0]
}
