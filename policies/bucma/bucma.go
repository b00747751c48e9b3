package bucma

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"

	"github.com/bucma-sched/bucma/batsim"
)

// BUCMA, the user-trust multi-algorithm queue model (specs/algorithms.md §3).
// Each user has an integer score Su in [0, 100] learnt from the precision of
// their past walltimes; at every decision point the waiting jobs are
// re-ranked by
//
//	Sf = α·Su/100 + β·Ab/MaxAb + γ·E/MaxE + δ·(1 − W/MaxW)
//
// and the base policy's start rule and host selection run on the re-ranked
// queue. BUCMA is the framework's re-ranking Order (Rerank) put in front of
// the base's Order; the base policies themselves are not copied.

// ---------------------------------------------------------------- scores

// DefaultInitialScore is the score of a user never seen before.
const DefaultInitialScore = 50

// ScoreDelta is the score increment of the precision table (bucma.txt Table
// 1): the first row whose condition holds.
//
//	P > 100: +0 (the job may have been stopped by its walltime)
//	P > 80: +10, P > 65: +6, P > 50: +3, P > 35: +1,
//	P > 25: 0, P > 15: −1, P > 10: −2, P >= 0: −3
func ScoreDelta(p float64) int {
	switch {
	case p > 100:
		return 0
	case p > 80:
		return 10
	case p > 65:
		return 6
	case p > 50:
		return 3
	case p > 35:
		return 1
	case p > 25:
		return 0
	case p > 15:
		return -1
	case p > 10:
		return -2
	}
	return -3
}

// Scores holds the per-user scores Su.
type Scores struct {
	initial int
	pinned  map[string]int
	cur     map[string]int
	// changed lists the users whose score changed since Changed;
	// lost is set when the list grew too long and was dropped.
	changed []string
	lost    bool
}

// maxChanged bounds the changed list of a Scores nobody reads.
const maxChanged = 1 << 12

// NewScores starts every user at initial (0..100); pinned users keep their
// pinned score for ever.
func NewScores(initial int, pinned map[string]int) *Scores {
	p := make(map[string]int, len(pinned))
	for u, v := range pinned {
		p[u] = v
	}
	return &Scores{initial: initial, pinned: p, cur: map[string]int{}}
}

// Score is user's current score.
func (s *Scores) Score(user string) int {
	if v, ok := s.pinned[user]; ok {
		return v
	}
	if v, ok := s.cur[user]; ok {
		return v
	}
	return s.initial
}

// Pinned reports whether user's score is pinned.
func (s *Scores) Pinned(user string) bool {
	_, ok := s.pinned[user]
	return ok
}

// Update applies the end of job j to its owner's score and returns the
// increment actually applied (after clamping to [0, 100]). Only a job that
// completed successfully and has a walltime changes the score: a job
// stopped by its walltime (unknown true run time: the table's "P > 100"
// case), a killed, failed or rejected job, and a job without walltime leave
// it unchanged, as does a pinned owner.
func (s *Scores) Update(j *sched.Job) int {
	p, ok := sched.Precision(j)
	return s.learn(j.User(), j.State(), p, ok)
}

// learn is Update for a job of user that ended in state with precision p
// (hasP false: none).
func (s *Scores) learn(user, state string, p float64, hasP bool) int {
	if state != batsim.StateSuccess || s.Pinned(user) || !hasP {
		return 0
	}
	old := s.Score(user)
	v := min(max(old+ScoreDelta(p), 0), 100)
	s.cur[user] = v
	if v != old {
		if len(s.changed) == maxChanged {
			clear(s.changed)
			s.changed, s.lost = s.changed[:0], true
		}
		s.changed = append(s.changed, user)
	}
	return v - old
}

// Changed returns the users whose score changed since the last call and
// empties the list; all is true when the list was lost (any score may have
// changed). It makes Scores a UserScores.
func (s *Scores) Changed() (users []string, all bool) {
	users, all = s.changed, s.lost
	s.changed, s.lost = s.changed[:0], false
	return users, all
}

// ParsePinnedScores reads the pinned-scores option: "user:score,user2:score"
// (the form ParseSchedConfig gives a JSON object {"user":score}). The score
// is a whole number in 0..100; the user is everything before the last ':'
// (so a user name may contain ':' but not ','). "" is no pinned score.
func ParsePinnedScores(v string) (map[string]int, error) {
	out := map[string]int{}
	if strings.TrimSpace(v) == "" {
		return out, nil
	}
	for i, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		k := strings.LastIndexByte(item, ':')
		if k < 0 {
			return nil, fmt.Errorf("pinned-scores item %d %q: want user:score", i+1, item)
		}
		user := strings.TrimSpace(item[:k])
		score, err := parseScore(strings.TrimSpace(item[k+1:]))
		if err != nil {
			return nil, fmt.Errorf("pinned-scores item %d %q: %v", i+1, item, err)
		}
		if _, dup := out[user]; dup {
			return nil, fmt.Errorf("pinned-scores: user %q pinned twice", user)
		}
		out[user] = score
	}
	return out, nil
}

// parseScore reads a score: a whole number in 0..100 ("100" and "100.0"
// are both accepted, as a JSON number may be written either way).
func parseScore(v string) (int, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("score %q is not a number", v)
	}
	if f != math.Trunc(f) || f < 0 || f > 100 {
		return 0, fmt.Errorf("score %s must be a whole number in 0..100", v)
	}
	return int(f), nil
}

// ---------------------------------------------------------------- weights

// Weights are Eq. 2's α (Su), β (Ab), γ (E) and δ (W).
type Weights struct{ Su, Ab, E, W float64 }

// Named weightings of the paper.
var (
	Weights5302 = Weights{0.5, 0.3, 0, 0.2}
	Weights4303 = Weights{0.4, 0.3, 0, 0.3}
)

// String gives the weights in the weights option's form.
func (w Weights) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return f(w.Su) + "," + f(w.Ab) + "," + f(w.E) + "," + f(w.W)
}

// ParseWeights reads the weights option: four numbers α,β,γ,δ separated by
// commas (the form ParseSchedConfig gives a JSON array), each in [0, 1],
// summing to 1 within 1e-9.
func ParseWeights(v string) (Weights, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 4 {
		return Weights{}, fmt.Errorf("weights %q: want 4 numbers α,β,γ,δ (Su, base rank, waiting time, walltime), got %d", v, len(parts))
	}
	var x [4]float64
	names := [4]string{"α (Su)", "β (base rank)", "γ (waiting time)", "δ (walltime)"}
	sum := 0.0
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) {
			return Weights{}, fmt.Errorf("weights %q: %s = %q is not a number", v, names[i], strings.TrimSpace(p))
		}
		if f < 0 || f > 1 {
			return Weights{}, fmt.Errorf("weights %q: %s = %v is outside [0, 1]", v, names[i], f)
		}
		x[i] = f
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		return Weights{}, fmt.Errorf("weights %q: the four weights sum to %v, not 1", v, sum)
	}
	return Weights{x[0], x[1], x[2], x[3]}, nil
}

// ---------------------------------------------------------------- policy

// rerankWeights are w as the Rerank's weights.
func (w Weights) rerankWeights() sched.RerankWeights {
	return sched.RerankWeights{Score: w.Su, Rank: w.Ab, Wait: w.E, Walltime: w.W}
}

// BUCMA is the policy: a Rerank in front of a base policy's start rule
// and host selection, plus score learning and submission records.
type BUCMA struct {
	Order  *sched.Rerank
	Scores *Scores
	Rule   sched.StartRule
	Hosts  sched.HostSelector

	// record is set by RecordSubmissions: only then are the submissions
	// ranked and kept (a decision trace reads them).
	record  bool
	pending []*sched.Job                // submitted since the last decision
	info    map[string]sched.SubmitInfo // by job id, until the job has ended
	retired []string                    // ended jobs whose info goes at the next decision
}

// NewBUCMA builds BUCMA over a base policy.
func NewBUCMA(base sched.Base, w Weights, scores *Scores, hosts sched.HostSelector) *BUCMA {
	return &BUCMA{
		Order:  &sched.Rerank{Base: base.Order, Weights: w.rerankWeights(), Scores: scores},
		Scores: scores,
		Rule:   base.NewRule(),
		Hosts:  hosts,
		info:   map[string]sched.SubmitInfo{},
	}
}

// RecordSubmissions implements SubmitRecorder: from now on each submitted
// job's Su, Sf and queue position are recorded (SubmitInfo). Ranking a new
// job in the whole queue costs more than the decision itself in a long
// queue, so it is only done for a decision trace.
func (b *BUCMA) RecordSubmissions() { b.record = true }

// JobSubmitted implements SubmitObserver.
func (b *BUCMA) JobSubmitted(_ *sched.State, j *sched.Job) {
	if b.record {
		b.pending = append(b.pending, j)
	}
}

// JobEnded implements EndObserver: the owner's score learns from the job.
func (b *BUCMA) JobEnded(_ *sched.State, j *sched.Job) {
	b.Scores.Update(j)
	if b.record {
		b.retired = append(b.retired, j.ID())
	}
}

// Decide implements Policy.
func (b *BUCMA) Decide(s *sched.State, d *sched.Decider) {
	for _, id := range b.retired {
		delete(b.info, id)
	}
	b.retired = b.retired[:0]
	if len(b.pending) == 0 && (s.NbWaiting() == 0 || s.NbFree() == 0) && !sched.RunsAtEveryDecision(b.Rule) {
		return
	}
	for _, j := range b.pending {
		b.info[j.ID()] = sched.SubmitInfo{Su: b.Scores.Score(j.User())}
	}
	for _, r := range b.Order.Apply(s, b.Rule, b.Hosts, d, b.pending) {
		si := b.info[r.Job.ID()]
		si.Queued, si.Sf, si.QueueLen, si.Position = true, r.Sf, r.QueueLen, r.Position
		if r.QueueLen > 1 {
			si.Gain, si.HasGain = float64(r.QueueLen-r.Position)/float64(r.QueueLen-1)*100, true
		}
		b.info[r.Job.ID()] = si
	}
	clear(b.pending)
	b.pending = b.pending[:0]
}

// SubmitInfo implements TraceInfo. The record is kept until the decision
// point after the job's end.
func (b *BUCMA) SubmitInfo(jobID string) (sched.SubmitInfo, bool) {
	si, ok := b.info[jobID]
	return si, ok
}

// UserScore implements TraceInfo: the user's current score.
func (b *BUCMA) UserScore(user string) int { return b.Scores.Score(user) }

// ---------------------------------------------------------------- registration

// bucmaBaseOption chooses the base among bases.
func bucmaBaseOption(bases []*sched.Spec) sched.OptionSpec {
	names := make([]string, len(bases))
	for i, b := range bases {
		names[i] = b.Name
	}
	return sched.OptionSpec{
		Name:    "base",
		Default: "fcfs",
		Help:    "base policy whose order gives Ab and whose start rule and host selection run on the re-ranked queue",
		Values:  names,
	}
}

var bucmaInitialOption = sched.OptionSpec{
	Name:    "initial-score",
	Default: strconv.Itoa(DefaultInitialScore),
	Help:    "score Su of a user never seen before (whole number 0..100)",
}

var bucmaPinnedOption = sched.OptionSpec{
	Name:    "pinned-scores",
	Default: "",
	Help:    `users whose score never changes, "user:score,user2:score" (sched-config: {"user":score})`,
}

func bucmaWeightsOption(def Weights) sched.OptionSpec {
	return sched.OptionSpec{
		Name:    "weights",
		Default: def.String(),
		Help:    `Eq. 2 weights α,β,γ,δ of Su, base rank, waiting time, walltime; each in [0,1], sum 1 (sched-config: [a,b,c,d])`,
	}
}

// newBUCMAFromOptions builds BUCMA over one of bases from resolved
// options; fixed, when not nil, replaces the weights option (named
// variants).
func newBUCMAFromOptions(bases []*sched.Spec, fixed *Weights) func(sched.Options) (sched.Policy, error) {
	return func(opts sched.Options) (sched.Policy, error) {
		var w Weights
		if fixed != nil {
			w = *fixed
		} else {
			var err error
			if w, err = ParseWeights(opts["weights"]); err != nil {
				return nil, err
			}
		}
		initial, err := parseScore(strings.TrimSpace(opts["initial-score"]))
		if err != nil {
			return nil, fmt.Errorf("initial-score: %v", err)
		}
		pinned, err := ParsePinnedScores(opts["pinned-scores"])
		if err != nil {
			return nil, err
		}
		sel, err := sched.HostsFrom(opts)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(bases, func(b *sched.Spec) bool { return b.Name == opts["base"] })
		if i < 0 {
			return nil, fmt.Errorf("unknown base policy %q (valid: %s)", opts["base"], strings.Join(bucmaBaseOption(bases).Values, ", "))
		}
		return NewBUCMA(*bases[i].Base, w, NewScores(initial, pinned), sel), nil
	}
}

// Register adds bucma, bucma5302 and bucma4303 to r, over every base policy
// r holds (now or later).
func Register(r *sched.Registry) { r.Wrap(bucmaSpecs) }

// bucmaSpecs are BUCMA and its named weightings, over any of bases.
func bucmaSpecs(bases []*sched.Spec) []sched.Spec {
	common := []sched.OptionSpec{bucmaBaseOption(bases), bucmaInitialOption, bucmaPinnedOption, sched.HostsOption}
	w5302, w4303 := Weights5302, Weights4303
	return []sched.Spec{
		{
			Name:        "bucma",
			Description: "BUCMA: re-rank a base policy's queue by user trust in walltimes (Sf of Eq. 2) before its start rule runs; the base is fcfs (blocking) unless -o base= names another (easy, conservative, minmin, maxmin)",
			Options:     append([]sched.OptionSpec{bucmaWeightsOption(Weights5302)}, common...),
			New:         newBUCMAFromOptions(bases, nil),
		},
		{
			Name:        "bucma5302",
			Description: "BUCMA with weights α=0.5 (Su), β=0.3 (base rank), γ=0 (waiting time), δ=0.2 (walltime), over fcfs (blocking) unless -o base= names another base",
			Options:     common,
			New:         newBUCMAFromOptions(bases, &w5302),
		},
		{
			Name:        "bucma4303",
			Description: "BUCMA with weights α=0.4 (Su), β=0.3 (base rank), γ=0 (waiting time), δ=0.3 (walltime), over fcfs (blocking) unless -o base= names another base",
			Options:     common,
			New:         newBUCMAFromOptions(bases, &w4303),
		},
	}
}
