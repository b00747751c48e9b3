package workloads

import (
	"fmt"
	"math"
	"sort"

	json "github.com/goccy/go-json"
)

// Input shaking (Tsafrir, Ouaknine and Feitelson, "Reducing performance
// evaluation sensitivity and variability by input shaking", MASCOTS 2007):
// a copy of a workload whose jobs are submitted a little earlier or later
// and run a little shorter or longer, each by a bounded random amount. A
// conclusion drawn from one trace that does not hold on most of its shaken
// copies was an accident of the trace's exact times.

// MaxShakeSeconds bounds the amounts of ShakeOptions given in seconds (10⁷
// s, about 116 days): far beyond a perturbation that leaves a trace the
// same trace, and small enough that no time overflows.
const MaxShakeSeconds = 1e7

// ShakeOptions parameterise Shake. Runtime bounds are a fraction of the
// run time (RuntimeFraction) or a duration (RuntimeSeconds), not both; zero
// values leave that time alone.
type ShakeOptions struct {
	// Submit: each submission time moves by U(−Submit, +Submit) seconds,
	// never before 0.
	Submit float64
	// RuntimeFraction: each delay profile's delay is multiplied by
	// 1 + U(−f, +f), f in [0, 1).
	RuntimeFraction float64
	// RuntimeSeconds: each delay moves by U(−s, +s) seconds, never below
	// 1 ms.
	RuntimeSeconds float64
	// Seed draws the amounts (0 is 1).
	Seed uint64
}

// Check refuses amounts that are negative, not finite, too large, or a run
// time bound given both ways.
func (o ShakeOptions) Check() error {
	switch {
	case !(o.Submit >= 0) || o.Submit > MaxShakeSeconds:
		return fmt.Errorf("the submission time bound must be in [0, %g] s (got %g)", float64(MaxShakeSeconds), o.Submit)
	case !(o.RuntimeFraction >= 0) || o.RuntimeFraction >= 1:
		return fmt.Errorf("the run time bound must be in [0, 100) %% (got %g %%)", 100*o.RuntimeFraction)
	case !(o.RuntimeSeconds >= 0) || o.RuntimeSeconds > MaxShakeSeconds:
		return fmt.Errorf("the run time bound must be in [0, %g] s (got %g)", float64(MaxShakeSeconds), o.RuntimeSeconds)
	case o.RuntimeFraction > 0 && o.RuntimeSeconds > 0:
		return fmt.Errorf("give the run time bound as a fraction or as a duration, not both")
	}
	return nil
}

// shakeTick is the resolution of shaken times: they are rounded to the
// millisecond, as ScaleToLoad's are.
const shakeTick = 1e-3

func roundTick(v float64) float64 { return math.Round(v/shakeTick) * shakeTick }

// Shake returns a shaken copy of w. Every job, in file order, draws a
// submission shift s ~ U(−Submit, +Submit) and a run time factor or shift
// r; its submission time becomes max(0, subtime + s), and the delay d of
// its profile d × (1 + r) or d + r, never below 1 ms nor above the job's
// walltime (nor its own d when d already exceeds the walltime): the
// walltime is the user's request and stays as it is. A job whose delay
// changes gets a profile of its own, named after its profile and the new
// delay ("d3600@3712.5"), shared with the jobs of the same profile and
// delay; a profile of the input no job uses any more is left out. Times are rounded to the
// millisecond. The jobs are then sorted by their new submission time (the
// file order between equal times), the order in which Batsim submits them;
// ids, sizes, walltimes and other fields are kept. Run time shaking needs
// every job's profile to be a delay (the run time of a computation depends
// on the host it runs on). meta records the shaking.
func Shake(in *Workload, o ShakeOptions) (*Workload, error) {
	if err := o.Check(); err != nil {
		return nil, fmt.Errorf("shake: %w", err)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	shakeRuntime := o.RuntimeFraction > 0 || o.RuntimeSeconds > 0
	w := in.clone()
	r := newRand(o.Seed)
	made := map[string]string{} // profile and new delay → the new profile's name
	for i := range w.Jobs {
		j := &w.Jobs[i]
		// Two draws a job, whatever is shaken: a job's amounts depend on
		// the seed and its place in the file only.
		us, ur := 2*r.Float64()-1, 2*r.Float64()-1
		if o.Submit > 0 {
			s := math.Max(0, roundTick(j.Subtime+us*o.Submit))
			raw, err := setMember(j.Raw, "subtime", []byte(fmtNum(s)))
			if err != nil {
				return nil, fmt.Errorf("shake: job '%s': %w", j.ID, err)
			}
			j.Raw, j.Subtime = raw, s
		}
		if !shakeRuntime {
			continue
		}
		p, ok := in.Profiles[j.Profile]
		if !ok {
			return nil, fmt.Errorf("shake: job '%s': profile '%s' does not exist", j.ID, j.Profile)
		}
		if p.Type != TypeDelay {
			return nil, fmt.Errorf("shake: job '%s': profile '%s' is of type %s: run times are shaken on delay profiles only (a computation's run time depends on its hosts); shake the submission times alone", j.ID, j.Profile, p.Type)
		}
		d := roundTick(p.Delay*(1+ur*o.RuntimeFraction) + ur*o.RuntimeSeconds)
		if j.Walltime > 0 {
			d = math.Min(d, math.Max(j.Walltime, p.Delay))
		}
		d = math.Max(shakeTick, d)
		if d == p.Delay {
			continue
		}
		key := j.Profile + "\x00" + fmtNum(d)
		name, ok := made[key]
		if !ok {
			var err error
			if name, err = w.addShakenProfile(p, d); err != nil {
				return nil, fmt.Errorf("shake: job '%s': %w", j.ID, err)
			}
			made[key] = name
		}
		nb, _ := json.Marshal(name)
		raw, err := setMember(j.Raw, "profile", nb)
		if err != nil {
			return nil, fmt.Errorf("shake: job '%s': %w", j.ID, err)
		}
		j.Raw, j.Profile = raw, name
	}
	if len(made) > 0 {
		w.dropUnused(in)
	}
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a].Subtime < w.Jobs[b].Subtime })
	params := map[string]any{"submit": o.Submit}
	if o.RuntimeFraction > 0 {
		params["runtime_fraction"] = o.RuntimeFraction
	}
	if o.RuntimeSeconds > 0 {
		params["runtime_seconds"] = o.RuntimeSeconds
	}
	meta := map[string]any{
		"generator":  "shake",
		"seed":       o.Seed,
		"params":     params,
		"input_meta": rawOrNull(in.Meta("meta")),
	}
	return w.withMeta(meta)
}

// dropUnused removes the profiles jobs of in used and no job of w uses nor
// any composed profile names (Batsim would warn of them); those no job of
// in used are kept.
func (w *Workload) dropUnused(in *Workload) {
	used := map[string]bool{}
	for _, j := range w.Jobs {
		used[j.Profile] = true
	}
	for _, p := range w.Profiles {
		for _, s := range p.Seq {
			used[s] = true
		}
	}
	usedBefore := map[string]bool{}
	for _, j := range in.Jobs {
		usedBefore[j.Profile] = true
	}
	kept := w.ProfileOrder[:0]
	for _, name := range w.ProfileOrder {
		if usedBefore[name] && !used[name] {
			delete(w.Profiles, name)
			continue
		}
		kept = append(kept, name)
	}
	w.ProfileOrder = kept
}

// addShakenProfile adds a copy of delay profile p lasting d, named after p
// and d (a suffix #2, #3... when the workload has that name already), and
// returns its name.
func (w *Workload) addShakenProfile(p Profile, d float64) (string, error) {
	base := p.Name + "@" + fmtNum(d)
	name := base
	for k := 2; ; k++ {
		if _, taken := w.Profiles[name]; !taken {
			break
		}
		name = fmt.Sprintf("%s#%d", base, k)
	}
	raw, err := setMember(p.Raw, "delay", []byte(fmtNum(d)))
	if err != nil {
		return "", fmt.Errorf("profile '%s': %w", p.Name, err)
	}
	q := p
	q.Name, q.Delay, q.Raw = name, d, raw
	w.AddProfile(q)
	return name, nil
}
