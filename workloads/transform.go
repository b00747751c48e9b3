package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	json "github.com/goccy/go-json"
)

// InsertClass is one precision profile of the requests BucmaInsert adds.
type InsertClass struct {
	Name  string  `json:"name"`  // also the user name and the profile_class field
	PMin  float64 `json:"p_min"` // band of P = Te/W, in percent
	PMax  float64 `json:"p_max"`
	Score int     `json:"su"` // the owner's pinned Su
}

// BucmaInsertClasses are the paper's three precision profiles
// (experiments.md §1).
var BucmaInsertClasses = []InsertClass{
	{Name: "imprecise", PMin: 5, PMax: 15, Score: 0},
	{Name: "medium", PMin: 35, PMax: 65, Score: 50},
	{Name: "precise", PMin: 85, PMax: 100, Score: 100},
}

// InsertWalltime is the walltime of the paper's inserted requests (s).
const InsertWalltime = 3600.0

// InsertOptions parameterises BucmaInsert. Zero values take the defaults.
type InsertOptions struct {
	Seed     uint64  // default 1
	PerClass int     // requests per class (default 100)
	Walltime float64 // seconds (default 3600)
	RefSpeed float64 // default: meta.ref_speed of the input, else DefaultRefSpeed
	// Bursts > 0 submits the requests in that many bursts instead of
	// spreading them: the burst times are drawn uniformly over the span
	// (integer seconds), each request joins a burst drawn uniformly and is
	// submitted within BurstWidth seconds after its start (default 300).
	Bursts     int
	BurstWidth float64
}

// PinnedScoresOption is the scheduler option that pins the Su of the
// inserted users.
func PinnedScoresOption() string {
	s := "pinned-scores="
	for i, c := range BucmaInsertClasses {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf("%s:%d", c.Name, c.Score)
	}
	return s
}

// metaRefSpeed reads meta.ref_speed from a generated workload (0 if none).
func metaRefSpeed(w *Workload) float64 {
	var m struct {
		RefSpeed float64 `json:"ref_speed"`
	}
	if raw := w.Meta("meta"); raw != nil {
		_ = json.Unmarshal(raw, &m)
	}
	return m.RefSpeed
}

// BucmaInsert returns a copy of w with the paper's inserted requests
// (experiments.md §1): for each class, PerClass one-node jobs of walltime
// Walltime, submitted uniformly at random (integer seconds) over
// [first subtime, last subtime] of w, with a run time Te (integer seconds,
// on the reference speed) drawn uniformly among the values giving
// P = Te/W·100 in the class band. Jobs carry "user" = class name and
// "profile_class"; ids are "ins-<class>-NNN". Jobs are sorted by subtime
// (stable: the original jobs first at equal times).
func BucmaInsert(in *Workload, o InsertOptions) (*Workload, error) {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.PerClass == 0 {
		o.PerClass = 100
	}
	if o.Walltime == 0 {
		o.Walltime = InsertWalltime
	}
	if o.RefSpeed == 0 {
		o.RefSpeed = metaRefSpeed(in)
	}
	if o.RefSpeed == 0 {
		o.RefSpeed = DefaultRefSpeed
	}
	if len(in.Jobs) == 0 {
		return nil, fmt.Errorf("bucma-insert: the input workload has no job")
	}
	if o.Bursts < 0 {
		return nil, fmt.Errorf("bucma-insert: bursts must be ≥ 0 (got %d)", o.Bursts)
	}
	if o.BurstWidth == 0 {
		o.BurstWidth = 300
	}
	if !(o.BurstWidth >= 1) || math.IsInf(o.BurstWidth, 0) {
		return nil, fmt.Errorf("bucma-insert: burst width must be at least 1 s (got %g)", o.BurstWidth)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, j := range in.Jobs {
		lo, hi = math.Min(lo, j.Subtime), math.Max(hi, j.Subtime)
	}
	w := in.clone()
	ids := map[string]bool{}
	for _, j := range in.Jobs {
		ids[j.ID] = true
	}
	r := newRand(o.Seed)
	// Burst starts come from their own stream, so that the run times are
	// the same whether the requests are spread or in bursts.
	var bursts []float64
	var br *rand.Rand
	if o.Bursts > 0 {
		br = newRand(o.Seed ^ 0xB0B5)
		bursts = make([]float64, o.Bursts)
		for i := range bursts {
			bursts[i] = math.Floor(lo + br.Float64()*(hi-lo+1))
		}
	}
	var added []Job
	for _, c := range BucmaInsertClasses {
		teMin := math.Ceil(c.PMin / 100 * o.Walltime)
		teMax := math.Floor(c.PMax / 100 * o.Walltime)
		for k := 1; k <= o.PerClass; k++ {
			id := fmt.Sprintf("ins-%s-%03d", c.Name, k)
			if ids[id] {
				return nil, fmt.Errorf("bucma-insert: job id '%s' already exists in the input", id)
			}
			pname := "p-" + id
			if _, dup := w.Profiles[pname]; dup {
				return nil, fmt.Errorf("bucma-insert: profile '%s' already exists in the input", pname)
			}
			te := teMin + float64(r.IntN(int(teMax-teMin)+1))
			sub := math.Floor(lo + r.Float64()*(hi-lo+1))
			if br != nil {
				sub = bursts[br.IntN(len(bursts))] + math.Floor(br.Float64()*o.BurstWidth)
			}
			if sub > hi {
				sub = hi
			}
			w.AddProfile(computeProfile(pname, te*o.RefSpeed))
			var jb objBuilder
			jb.str("id", id).num("subtime", sub).int("res", 1).num("walltime", o.Walltime).
				str("profile", pname).str("user", c.Name).str("profile_class", c.Name)
			added = append(added, Job{ID: id, Subtime: sub, Res: 1, Walltime: o.Walltime, Profile: pname, Raw: jb.bytes()})
		}
	}
	w.Jobs = append(w.Jobs, added...)
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a].Subtime < w.Jobs[b].Subtime })
	meta := map[string]any{
		"generator":     "bucma-insert",
		"seed":          o.Seed,
		"params":        insertParams(o, lo, hi),
		"ref_speed":     o.RefSpeed,
		"pinned_scores": PinnedScoresOption(),
		"input_meta":    rawOrNull(in.Meta("meta")),
	}
	return w.withMeta(meta)
}

// insertParams are BucmaInsert's parameters as meta records them (bursts
// only when used, so that spread insertions keep their bytes).
func insertParams(o InsertOptions, lo, hi float64) map[string]any {
	m := map[string]any{
		"per_class": o.PerClass, "walltime": o.Walltime, "ref_speed": o.RefSpeed,
		"classes": BucmaInsertClasses, "span": []float64{lo, hi},
	}
	if o.Bursts > 0 {
		m["bursts"], m["burst_width"] = o.Bursts, o.BurstWidth
	}
	return m
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if r == nil {
		return json.RawMessage("null")
	}
	return compactJSON(r)
}

// clone copies the workload (jobs and profiles slices/maps are new; Raw
// texts are shared, they are never modified in place).
func (w *Workload) clone() *Workload {
	c := *w
	c.Jobs = append([]Job(nil), w.Jobs...)
	c.Profiles = make(map[string]Profile, len(w.Profiles))
	for k, v := range w.Profiles {
		c.Profiles[k] = v
	}
	c.ProfileOrder = append([]string(nil), w.ProfileOrder...)
	c.Extra = append([]KeyValue(nil), w.Extra...)
	c.parseWarnings = nil
	return &c
}

// PreciseOptions parameterises MakePrecise.
type PreciseOptions struct {
	Seed     uint64  // default 1
	PMin     float64 // lower bound of U(PMin, 1): default 0.85
	RefSpeed float64 // default: meta.ref_speed of the input, else DefaultRefSpeed
}

// MakePrecise returns a copy of w whose walltimes are precise
// (experiments.md §2): W = Te / U(PMin, 1.0), Te being the job's run time
// on the reference speed (RefRuntime with the job's res). W is rounded up
// to the millisecond and then kept inside the band, so that P = Te/W is in
// [PMin, 1] for every job. The "walltime" member of each job is replaced in
// place (added at the end if absent); other fields are kept.
func MakePrecise(in *Workload, o PreciseOptions) (*Workload, error) {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.PMin == 0 {
		o.PMin = 0.85
	}
	if !(o.PMin > 0 && o.PMin <= 1) {
		return nil, fmt.Errorf("precise: the lower precision bound must be in (0, 1] (got %g)", o.PMin)
	}
	if o.RefSpeed == 0 {
		o.RefSpeed = metaRefSpeed(in)
	}
	if o.RefSpeed == 0 {
		o.RefSpeed = DefaultRefSpeed
	}
	w := in.clone()
	r := newRand(o.Seed)
	for i := range w.Jobs {
		j := &w.Jobs[i]
		te, err := in.RefRuntime(j.Profile, j.Res, o.RefSpeed)
		if err != nil {
			return nil, fmt.Errorf("precise: job '%s': %w", j.ID, err)
		}
		if !(te > 0) {
			return nil, fmt.Errorf("precise: job '%s': run time on the reference speed is %g s, a walltime cannot be derived", j.ID, te)
		}
		u := o.PMin + (1-o.PMin)*r.Float64()
		wt := math.Ceil(te/u*1000) / 1000
		if te/wt < o.PMin {
			wt = math.Floor(te/o.PMin*1000) / 1000
		}
		if wt < te {
			wt = te
		}
		raw, err := setMember(j.Raw, "walltime", []byte(fmtNum(wt)))
		if err != nil {
			return nil, fmt.Errorf("precise: job '%s': %w", j.ID, err)
		}
		j.Raw, j.Walltime = raw, wt
	}
	meta := map[string]any{
		"generator":  "precise",
		"seed":       o.Seed,
		"params":     map[string]any{"p_min": o.PMin, "ref_speed": o.RefSpeed},
		"ref_speed":  o.RefSpeed,
		"input_meta": rawOrNull(in.Meta("meta")),
	}
	return w.withMeta(meta)
}

// setMember returns the object raw with the value of its (first) member
// key replaced by val, or val appended as a new last member. The result is
// compact.
func setMember(raw []byte, key string, val []byte) ([]byte, error) {
	n, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	if n.kind != jObject {
		return nil, fmt.Errorf("not a JSON object")
	}
	for _, m := range n.members {
		if m.key == key {
			out := append([]byte(nil), raw[:m.val.start]...)
			out = append(out, val...)
			out = append(out, raw[m.val.end:]...)
			return compactJSON(out), nil
		}
	}
	c := compactJSON(raw)
	kb, _ := json.Marshal(key)
	out := append([]byte(nil), c[:len(c)-1]...)
	if len(n.members) > 0 {
		out = append(out, ',')
	}
	out = append(out, kb...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}'), nil
}
