package pull_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/run/pull"
)

var (
	tiny  = filepath.Join("..", "..", "workloads", "tiny.json")
	lille = filepath.Join("..", "..", "workloads", "lille-7056.json")
)

// point is a decoded point (the package's encoding).
type point struct {
	kind          pull.Kind
	now           float64
	free, waiting int
	added         []job
	started       []started
	ended         []ended
	keys          []int64
	keySubmit     []float64
	begin         []byte
}

type job struct {
	idx               int64
	submit, walltime  float64
	res               int
	id, user, profile string
}

type started struct {
	idx   int64
	start float64
	alloc []int32
}

type ended struct {
	idx   int64
	end   float64
	state string
	rc    int32
}

func decode(t testing.TB, b []byte) point {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < pull.HeaderSize || le.Uint32(b) != pull.Version {
		t.Fatalf("point of %d bytes, version %d", len(b), le.Uint32(b))
	}
	i32 := func(o int) int { return int(int32(le.Uint32(b[o:]))) }
	f64 := func(o int) float64 { return math.Float64frombits(le.Uint64(b[o:])) }
	p := point{kind: pull.Kind(i32(4)), now: f64(8), free: i32(16)}
	nNew, nStarted, nEnded, nKeys, nAlloc, nStr, nBegin := i32(20), i32(24), i32(28), i32(32), i32(36), i32(40), i32(44)
	p.waiting = i32(48)
	o := pull.HeaderSize
	lens := make([][3]int, nNew)
	for k := 0; k < nNew; k++ {
		p.added = append(p.added, job{idx: int64(le.Uint64(b[o:])), submit: f64(o + 8), walltime: f64(o + 16), res: i32(o + 24)})
		lens[k] = [3]int{i32(o + 28), i32(o + 32), i32(o + 36)}
		o += pull.NewSize
	}
	var nallocs []int
	for k := 0; k < nStarted; k++ {
		p.started = append(p.started, started{idx: int64(le.Uint64(b[o:])), start: f64(o + 8)})
		nallocs = append(nallocs, i32(o+16))
		o += pull.StartedSize
	}
	for k := 0; k < nEnded; k++ {
		p.ended = append(p.ended, ended{idx: int64(le.Uint64(b[o:])), end: f64(o + 8), state: pull.States[i32(o+16)], rc: int32(i32(o + 20))})
		o += pull.EndedSize
	}
	for k := 0; k < nKeys; k++ {
		p.keys = append(p.keys, int64(le.Uint64(b[o+8*k:])))
		p.keySubmit = append(p.keySubmit, f64(o+8*nKeys+8*k))
	}
	o += 8*nKeys + 8*nKeys + 8*nKeys + 4*nKeys
	o = (o + 7) &^ 7
	a := o
	for k := range p.started {
		for n := 0; n < nallocs[k]; n++ {
			p.started[k].alloc = append(p.started[k].alloc, int32(i32(a)))
			a += 4
		}
	}
	o = (o + 4*nAlloc + 7) &^ 7
	strs := string(b[o : o+nStr])
	for k := range p.added {
		l := lens[k]
		p.added[k].id, strs = strs[:l[0]], strs[l[0]:]
		p.added[k].user, strs = strs[:l[1]], strs[l[1]:]
		p.added[k].profile, strs = strs[:l[2]], strs[l[2]:]
	}
	o += nStr
	p.begin = b[o : o+nBegin]
	if o+nBegin != len(b) {
		t.Fatalf("point of %d bytes, %d decoded", len(b), o+nBegin)
	}
	return p
}

// mirror is what a caller keeps of the waiting queue.
type mirror struct {
	waiting []job
}

func (m *mirror) apply(p point) {
	m.waiting = append(m.waiting, p.added...)
	gone := map[int64]bool{}
	for _, e := range p.ended {
		gone[e.idx] = true
	}
	for _, s := range p.started {
		gone[s.idx] = true
	}
	out := m.waiting[:0]
	for _, j := range m.waiting {
		if !gone[j.idx] {
			out = append(out, j)
		}
	}
	m.waiting = out
}

func (m *mirror) remove(idx int64) {
	for i, j := range m.waiting {
		if j.idx == idx {
			m.waiting = append(m.waiting[:i], m.waiting[i+1:]...)
			return
		}
	}
}

// goRun runs a policy of the registry through package run.
func goRun(t *testing.T, policy, workload, prefix string) []byte {
	t.Helper()
	_, err := run.Simulate(context.Background(), run.Simulation{
		Inputs: run.Inputs{Platform: "lille", Workloads: []string{workload}},
		Policy: &run.Policy{Name: policy, Registry: policies.Builtin()}, Export: prefix,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(prefix + "_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toEnd steps a run of a policy of the registry (no point but Running)
// to its end.
func toEnd(t *testing.T, r *pull.Run) {
	t.Helper()
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == pull.Done {
			return
		}
		if k != pull.Running {
			t.Fatalf("point %s", k)
		}
	}
}

func newRun(t *testing.T, c pull.Config) *pull.Run {
	t.Helper()
	r, err := pull.New(c, policies.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fcfs is FCFS decided by the caller at each point; each, when not nil,
// sees every decision point first.
func fcfs(t *testing.T, r *pull.Run, each func(point)) (points int) {
	t.Helper()
	var m mirror
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case pull.Done:
			return points
		case pull.Running:
		case pull.Decide:
			points++
			p := decode(t, r.Point())
			if each != nil {
				each(p)
			}
			if p.waiting != len(m.waiting)+len(p.added)-countAddedEnded(p) {
				t.Fatalf("point %d: %d waiting, the mirror has %d", points, p.waiting, len(m.waiting)+len(p.added))
			}
			m.apply(p)
			for len(m.waiting) > 0 && m.waiting[0].res <= r.Free() {
				if _, err := r.Start(m.waiting[0].idx, nil); err != nil {
					t.Fatal(err)
				}
				m.remove(m.waiting[0].idx)
			}
		default:
			t.Fatalf("point %s", k)
		}
	}
}

// countAddedEnded counts the jobs that joined the queue and left it
// (rejected) within one point.
func countAddedEnded(p point) int {
	added := map[int64]bool{}
	for _, j := range p.added {
		added[j.idx] = true
	}
	n := 0
	for _, e := range p.ended {
		if added[e.idx] {
			n++
		}
	}
	return n
}

// The caller's FCFS, one decision point at a time, takes Go's fcfs's
// decisions: the same _jobs.csv.
func TestCallerFCFSIsFCFS(t *testing.T) {
	dir := t.TempDir()
	want := goRun(t, "fcfs", tiny, filepath.Join(dir, "go"))
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny},
		Policy: pull.Policy{Caller: "decide", Name: "caller-fcfs"}, Export: filepath.Join(dir, "caller")})
	points := fcfs(t, r, nil)
	got, err := os.ReadFile(filepath.Join(dir, "caller_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the caller's FCFS differs from fcfs:\n%s\n%s", got, want)
	}
	if points < 20 {
		t.Errorf("%d decision points for 20 jobs", points)
	}
	if r.Result() == nil || r.Result().Jobs != 20 {
		t.Errorf("result %+v", r.Result())
	}
}

// keys answers every Keys point with key(job) and returns the points;
// every job a point asks the key of is one a point gave.
func keys(t *testing.T, r *pull.Run, key func(p point, k int) float64) (points, asked int) {
	t.Helper()
	known := map[int64]bool{}
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case pull.Done:
			return points, asked
		case pull.Keys:
			points++
			p := decode(t, r.Point())
			for _, j := range p.added {
				if known[j.idx] {
					t.Fatalf("job %d given twice", j.idx)
				}
				known[j.idx] = true
			}
			for _, idx := range p.keys {
				if !known[idx] {
					t.Fatalf("the key of job %d is asked, the job was never given", idx)
				}
			}
			ks := make([]float64, len(p.keys))
			for i := range ks {
				ks[i] = key(p, i)
			}
			asked += len(ks)
			if err := r.SetKeys(ks); err != nil {
				t.Fatal(err)
			}
		case pull.Running:
		default:
			t.Fatalf("point %s", k)
		}
	}
}

// EASY over the caller's keys (the submission times) is Go's easy on the
// Lille workload, each job's key asked once.
func TestKeyEASYIsEASY(t *testing.T) {
	if testing.Short() {
		t.Skip("the 7056-job workload")
	}
	dir := t.TempDir()
	want := goRun(t, "easy", lille, filepath.Join(dir, "go"))
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{lille},
		Policy: pull.Policy{Caller: "key", Name: "submit", Options: json.RawMessage(`{"rule": "easy"}`)}, Export: filepath.Join(dir, "key")})
	_, asked := keys(t, r, func(p point, k int) float64 { return p.keySubmit[k] })
	got, err := os.ReadFile(filepath.Join(dir, "key_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("EASY over the submission times differs from easy")
	}
	if asked != 7056 {
		t.Errorf("%d keys asked for 7056 jobs", asked)
	}
}

// Each start rule over the keys of the submission times is the FCFS-order
// policy of the registry, statically and asked at each decision.
func TestKeyRules(t *testing.T) {
	for _, c := range []struct{ rule, policy string }{{"fcfs", "fcfs"}, {"easy", "easy"}, {"conservative", "conservative"}} {
		for _, timed := range []bool{false, true} {
			dir := t.TempDir()
			want := goRun(t, c.policy, tiny, filepath.Join(dir, "go"))
			r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny},
				Policy: pull.Policy{Caller: "key", Options: json.RawMessage(`{"rule": "` + c.rule + `"}`), TimeDependent: timed},
				Export: filepath.Join(dir, "key")})
			keys(t, r, func(p point, k int) float64 { return p.keySubmit[k] })
			got, _ := os.ReadFile(filepath.Join(dir, "key_jobs.csv"))
			if !bytes.Equal(got, want) {
				t.Errorf("rule %s (time-dependent %v) differs from %s", c.rule, timed, c.policy)
			}
		}
	}
}

// An invalid decision is refused with the Decider's error, which ends the
// run; a decision outside a decision point is a usage error.
func TestInvalidDecision(t *testing.T) {
	dir := t.TempDir()
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny},
		Policy: pull.Policy{Caller: "decide"}, Export: filepath.Join(dir, "out")})
	if _, err := r.Start(0, nil); !isUsage(err) {
		t.Fatalf("start before the run: %v", err)
	}
	var m mirror
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == pull.Running {
			continue
		}
		if k != pull.Decide {
			t.Fatalf("point %s", k)
		}
		m.apply(decode(t, r.Point()))
		if len(m.waiting) > 0 {
			break
		}
	}
	if _, err := r.Start(999, nil); !isUsage(err) || !strings.Contains(err.Error(), "no job has arrival rank 999") {
		t.Fatalf("start of an unknown job: %v", err)
	}
	_, err := r.Start(m.waiting[0].idx, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	var de *pull.DecisionError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "invalid decision at t=") {
		t.Fatalf("start on hosts given wrong: %v", err)
	}
	k, err := r.Next()
	if k != pull.Done || err == nil || !strings.Contains(err.Error(), de.Error()) {
		t.Fatalf("after an invalid decision: %s, %v", k, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out_jobs.csv")); err == nil {
		t.Error("a failed run published its jobs file")
	}
	if k, err2 := r.Next(); k != pull.Done || err2 == nil || err2.Error() != err.Error() {
		t.Errorf("Next after the end: %s, %v", k, err2)
	}
}

func isUsage(err error) bool {
	var ue *pull.UsageError
	return errors.As(err, &ue)
}

// Closing a run at a decision point stops it with the caller's cause,
// keeping the rows written as .partial; closing it again gives the same.
func TestCloseWithCause(t *testing.T) {
	dir := t.TempDir()
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{lille},
		Policy: pull.Policy{Caller: "decide"}, Export: filepath.Join(dir, "out")})
	var m mirror
	for n := 0; n < 3000; n++ {
		k, err := r.Next()
		if k == pull.Running {
			continue
		}
		if err != nil || k != pull.Decide {
			t.Fatalf("point %s, %v", k, err)
		}
		m.apply(decode(t, r.Point()))
		for len(m.waiting) > 0 && m.waiting[0].res <= r.Free() {
			if _, err := r.Start(m.waiting[0].idx, nil); err != nil {
				t.Fatal(err)
			}
			m.remove(m.waiting[0].idx)
		}
	}
	cause := errors.New("Traceback: the policy failed")
	err := r.Close(cause)
	var re *run.Error
	if !errors.Is(err, cause) || !errors.As(err, &re) || len(re.Partial) == 0 || !strings.HasSuffix(re.Partial[0], ".partial") {
		t.Fatalf("close: %v", err)
	}
	if _, err := os.Stat(re.Partial[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out_jobs.csv")); err == nil {
		t.Error("a stopped run published its jobs file")
	}
	if err2 := r.Close(nil); err2.Error() != err.Error() {
		t.Errorf("second close: %v", err2)
	}
	if k, _ := r.Next(); k != pull.Done {
		t.Errorf("Next after Close: %s", k)
	}
}

// A policy of the registry runs with Running points now and then; a
// closed run stops.
func TestRegistryPolicyRuns(t *testing.T) {
	dir := t.TempDir()
	want := goRun(t, "easy", tiny, filepath.Join(dir, "go"))
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny}, Policy: pull.Policy{Name: "easy"},
		Export: filepath.Join(dir, "reg")})
	toEnd(t, r)
	got, _ := os.ReadFile(filepath.Join(dir, "reg_jobs.csv"))
	if !bytes.Equal(got, want) {
		t.Fatal("easy through a pulled run differs")
	}
	if _, err := pull.New(pull.Config{Platform: "lille", Workloads: []string{tiny}, Policy: pull.Policy{Name: "easy"}}, policies.Builtin(), nil); err != nil {
		t.Fatal(err)
	}
}

// Bad configurations are refused before anything runs, with errors that
// name the problem.
func TestBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  string
		want string
	}{
		{`{"platform": "lille", "workloads": ["x"], "policy": {"name": "nope"}}`, `unknown scheduler "nope"`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy", "options": {"hostz": 1}}}`, `unknown option "hostz"`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy", "options": {"hosts": "any"}}}`, `option hosts="any": valid values are`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"caller": "key", "options": {"rule": "sjf"}}}`, `option rule="sjf": valid values are fcfs, easy, conservative, greedy`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"caller": "who"}}`, `policy caller "who"`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy"}, "engine": {"latencyy": "none"}}`, `unknown engine option "latencyy" (valid: `},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy"}, "engine": {"latency": "slow"}}`, `latency="slow": valid values are batsim, none`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy"}, "engine": {"energy": "yes"}}`, `engine option energy="yes"`},
		{`{"platform": "nowhere.xml", "workloads": ["` + tiny + `"], "policy": {"name": "easy"}}`, `platform "nowhere.xml": no such file`},
		{`{"platform": "lille", "workloads": ["/nonexistent.json"], "policy": {"name": "easy"}}`, `/nonexistent.json`},
		{`{"platform": "lille", "workloads": ["` + tiny + `"], "policy": {"name": "easy"}, "mode": "fly"}`, `mode "fly"`},
		{`{"platform": "lille", "policy": {"name": "easy"}, "colour": 1}`, `unknown field "colour"`},
	} {
		cfg, err := pull.Parse([]byte(c.cfg))
		if err == nil {
			_, err = pull.New(cfg, policies.Builtin(), nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// A job larger than the platform, which the framework rejects before the
// caller decides, joins and leaves the queue in the same point: the
// count of waiting jobs agrees with what the caller was told (fcfs checks it).
func TestTooLargeJobEndsInItsPoint(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.json")
	if err := os.WriteFile(wl, []byte(`{"nb_res": 39, "jobs": [
		{"id": "a", "subtime": 0, "walltime": 100, "res": 1, "profile": "d"},
		{"id": "big", "subtime": 5, "walltime": 100, "res": 1000, "profile": "d"},
		{"id": "b", "subtime": 5, "walltime": 100, "res": 2, "profile": "d"}],
		"profiles": {"d": {"type": "delay", "delay": 50}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{wl},
		Policy: pull.Policy{Caller: "decide", Name: "caller-fcfs"}})
	rejected := 0
	fcfs(t, r, func(p point) {
		for _, e := range p.ended {
			if e.state != "REJECTED" {
				continue
			}
			rejected++
			if e.end != p.now {
				t.Errorf("rejected at %g in the point of %g", e.end, p.now)
			}
			if countAddedEnded(p) != 1 {
				t.Errorf("at %g: the rejected job did not join the queue in this point", p.now)
			}
		}
	})
	if rejected != 1 {
		t.Errorf("%d rejections told, want 1", rejected)
	}
}

// A bundled platform is parsed once per process and shared by the runs
// that name it; a file, or an unknown name, is left to the run to read
// (and report). Runs on the shared platform write what runs on a copy of
// its file write.
func TestBundledPlatformParsedOnce(t *testing.T) {
	a, err := pull.BundledPlatform("lille", slog.New(slog.DiscardHandler))
	if err != nil || a == nil {
		t.Fatalf("lille: %v, %v", a, err)
	}
	b, err := pull.BundledPlatform("lille.xml", slog.New(slog.DiscardHandler))
	if err != nil || b != a {
		t.Fatalf("lille.xml: %p, %v; lille: %p", b, err, a)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "lille.xml")
	xml, err := platforms.BundledXML("lille")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, xml, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{file, "no-such-platform"} {
		if p, err := pull.BundledPlatform(name, slog.New(slog.DiscardHandler)); p != nil || err != nil {
			t.Errorf("%s: %p, %v, want nothing (the run reads it)", name, p, err)
		}
	}
	var jobs [3][]byte
	for i, plat := range []string{"lille", "lille", file} {
		prefix := filepath.Join(dir, fmt.Sprint(i))
		toEnd(t, newRun(t, pull.Config{Platform: plat, Workloads: []string{tiny}, Export: prefix,
			Policy: pull.Policy{Name: "easy"}}))
		if jobs[i], err = os.ReadFile(prefix + "_jobs.csv"); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(jobs[0], jobs[1]) || !bytes.Equal(jobs[0], jobs[2]) {
		t.Errorf("_jobs.csv differ between the runs on the bundled lille (twice) and on a copy of its file:\n%s\n%s\n%s", jobs[0], jobs[1], jobs[2])
	}
	_, err = pull.New(pull.Config{Platform: "no-such-platform", Workloads: []string{tiny},
		Policy: pull.Policy{Name: "easy"}}, policies.Builtin(), nil)
	if err == nil || !strings.Contains(err.Error(), "no-such-platform") {
		t.Errorf("unknown platform: %v, want an error naming it", err)
	}
}

// A Running carries no records: what changed since the last point comes
// with the next decide or keys point, however often the run hands a
// Running (here before every message, as on a machine so loaded that the
// engine runs 50 ms between two points). The caller's queue stays the
// run's, and a key policy's points tell the jobs that joined the queue,
// started and ended as they do when no Running comes between them.
func TestRunningLosesNoRecord(t *testing.T) {
	defer pull.SetProgressEvery(0)()
	fcfs(t, newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny}, Policy: pull.Policy{Caller: "decide"}}), nil)
	for _, timed := range []bool{false, true} {
		restore := pull.SetProgressEvery(time.Hour)
		want, wantRunning := told(t, timed)
		restore()
		got, running := told(t, timed)
		if running == 0 || wantRunning != 0 {
			t.Fatalf("%d Running with a Running before every message, %d without", running, wantRunning)
		}
		if got != want {
			t.Errorf("time-dependent %v: the points told, with a Running before every message:\n%s\nwithout:\n%s", timed, got, want)
		}
	}
}

// told runs EASY over the keys of the submission times on the tiny
// workload and returns what its points told (the jobs that joined the
// queue, started and ended, in order) and how many Running came.
func told(t *testing.T, timed bool) (string, int) {
	r := newRun(t, pull.Config{Platform: "lille", Workloads: []string{tiny},
		Policy: pull.Policy{Caller: "key", Options: json.RawMessage(`{"rule": "easy"}`), TimeDependent: timed}})
	var b strings.Builder
	running := 0
	for {
		k, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case pull.Done:
			return b.String(), running
		case pull.Running:
			running++
			continue
		}
		p := decode(t, r.Point())
		for _, j := range p.added {
			fmt.Fprintf(&b, "added %d ", j.idx)
		}
		for _, s := range p.started {
			fmt.Fprintf(&b, "started %d at %g ", s.idx, s.start)
		}
		for _, e := range p.ended {
			fmt.Fprintf(&b, "ended %d at %g ", e.idx, e.end)
		}
		ks := make([]float64, len(p.keys))
		for i := range ks {
			ks[i] = p.keySubmit[i]
		}
		if err := r.SetKeys(ks); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
}
