package realbatsim5

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/prio"

	"github.com/bucma-sched/bucma/workloads"
)

// policyCase is one policy on one bundled platform and workload (a Batsim 4
// workload, converted to Batsim 5's format by the test), with what the run
// must show of the feature the policy needs.
type policyCase struct {
	policy   string
	opts     map[string]string
	platform string
	workload string
	args     []string // Batsim 5's options
	// kills: jobs killed and their work resubmitted as dynamic jobs
	// (dynamic registration); shares: two jobs on one host at once (compute
	// sharing); switches: hosts switched off and on (power states).
	kills, shares, switches bool
}

func (c policyCase) name() string {
	var o []string
	for _, k := range slices.Sorted(maps.Keys(c.opts)) {
		o = append(o, k+"="+c.opts[k])
	}
	n := c.policy + "/" + c.platform + "/" + strings.TrimSuffix(filepath.Base(c.workload), ".json")
	if len(o) > 0 {
		n += "/" + strings.Join(o, ",")
	}
	return n
}

var (
	tiny    = filepath.Join("..", "..", "workloads", "tiny.json")
	osepWL1 = filepath.Join("..", "..", "workloads", "osep-small-user1.json")
	osepWL4 = filepath.Join("..", "..", "workloads", "osep-small-user4.json")
	sge9    = filepath.Join("testdata", "sge-pi80-9.json")
	sge5    = filepath.Join("testdata", "sge-pi50-5.json")
	botEx   = filepath.Join("testdata", "bot-example.json")
	botH11  = filepath.Join("testdata", "bot-h1-1.json")
	gang60  = filepath.Join("testdata", "gang-60.json")
	// The late user of the bundled OSEP workloads arrives at 360 s, a
	// multiple of the rounds' 60 s; these arrive at 365 s.
	osep365u1 = filepath.Join("testdata", "osep-small-user1-365.json")
	osep365u4 = filepath.Join("testdata", "osep-small-user4-365.json")
	energyOn  = []string{"--energy-host"}
	// bursts of jobs with walltimes on the bot platform, idle gaps between
	// them (the energy-aware backfilling policies switch hosts off there)
	bursts = filepath.Join("testdata", "energy-bursts.json")
	// botSwitches are the bot platform's switching delays and powers as
	// batsched's energy variants take them (pstate 0 computes, 1 sleeps;
	// switching off lasts 1/0.16393 s, on 1/0.0065998 s).
	botSwitches = map[string]string{"power-compute": "47.6845", "power-idle": "23.75", "power-sleep": "2.4375",
		"pstate-compute": "0", "pstate-sleep": "1", "time-switch-on": "151.52", "time-switch-off": "6.1",
		"energy-switch-on": "4741.6057", "energy-switch-off": "154.02"}
)

// policyCases cover every built-in policy on bundled platforms with the
// features it needs.
func policyCases() []policyCase {
	var cs []policyCase
	for _, p := range []string{"fcfs", "easy", "minmin", "maxmin", "wtrust", "bucma", "bucma4303", "bucma5302"} {
		cs = append(cs, policyCase{policy: p, platform: "lille", workload: tiny}, policyCase{policy: p, platform: "osep", workload: osepWL1})
	}
	cs = append(cs,
		policyCase{policy: "gang", platform: "mcmca", workload: gang60},
		policyCase{policy: "gang", platform: "lille", workload: tiny, opts: map[string]string{"migration": "local+external"}},
		policyCase{policy: "osep", platform: "osep", workload: osepWL1, kills: true},
		policyCase{policy: "osep", platform: "osep", workload: osepWL4, kills: true, opts: map[string]string{"checkpoint": "60"}},
		policyCase{policy: "osep-hetero", platform: "osep", workload: osepWL1, kills: true},
		policyCase{policy: "osep-hetero", platform: "osep", workload: osepWL4, kills: true},
		policyCase{policy: "osep", platform: "osep", workload: osep365u1, kills: true},
		policyCase{policy: "osep", platform: "osep", workload: osep365u4, kills: true, opts: map[string]string{"checkpoint": "60"}},
		policyCase{policy: "osep-hetero", platform: "osep", workload: osep365u1, kills: true},
		policyCase{policy: "osep-hetero", platform: "osep", workload: osep365u4, kills: true},
		policyCase{policy: "sge-loadbalanced", platform: "sge", workload: sge9, shares: true},
		policyCase{policy: "sge-loadbalanced", platform: "sge-pi50", workload: sge5, shares: true},
		policyCase{policy: "sge-default-rr", platform: "sge", workload: sge9, shares: true},
		policyCase{policy: "sge-default-rr", platform: "sge-pi50", workload: sge5, shares: true},
		policyCase{policy: "bot-consolidation", platform: "bot", workload: botEx, args: energyOn, shares: true},
		policyCase{policy: "bot-consolidation", platform: "bot-2nodes", workload: botH11, args: energyOn, shares: true},
		policyCase{policy: "bot-packing-online", platform: "bot", workload: botEx, args: energyOn},
		policyCase{policy: "bot-packing-online", platform: "bot-2nodes", workload: botH11, args: energyOn, shares: true},
		policyCase{policy: "threshold-vm-consolidation", platform: "bot", workload: botEx, args: energyOn, shares: true},
		policyCase{policy: "threshold-vm-consolidation", platform: "bot", workload: botEx, args: energyOn, shares: true, switches: true, opts: map[string]string{"power": "on"}},
		policyCase{policy: "threshold-vm-consolidation", platform: "bot-2nodes", workload: botH11, args: energyOn, shares: true, opts: map[string]string{"power": "on"}},
		// batsched's simple variants (policies/simple), as their twins
		policyCase{policy: "filler", platform: "lille", workload: tiny, opts: map[string]string{"queue": "batsched", "hosts": "contiguous"}},
		policyCase{policy: "sequencer", platform: "lille", workload: tiny, opts: map[string]string{"queue": "batsched", "order": "asc_size"}},
		policyCase{policy: "random", platform: "lille", workload: tiny},
		policyCase{policy: "rejecter", platform: "lille", workload: tiny},
		policyCase{policy: "killer", platform: "lille", workload: tiny, opts: map[string]string{"queue": "batsched"}},
		policyCase{policy: "killer2", platform: "lille", workload: tiny, opts: map[string]string{"queue": "batsched"}},
		policyCase{policy: "submitter", platform: "lille", workload: tiny, opts: map[string]string{"queue": "batsched", "jobs": "4"}},
		policyCase{policy: "sleeper", platform: "bot", workload: botEx, args: energyOn, switches: true, opts: map[string]string{"queue": "batsched"}},
		// conservative backfilling, textbook and as batsched's conservative_bf
		policyCase{policy: "conservative", platform: "lille", workload: tiny},
		policyCase{policy: "conservative", platform: "osep", workload: osepWL1, opts: map[string]string{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}},
		// energy-aware backfilling, textbook and as batsched's energy_bf
		policyCase{policy: "energy", platform: "bot", workload: bursts, args: energyOn, switches: true, opts: map[string]string{"switch-on": "151.52", "switch-off": "6.1", "idle-off": "60"}},
		policyCase{policy: "batsched-energy", platform: "bot", workload: bursts, args: energyOn, switches: true, opts: botSwitches},
	)
	// the priority functions, each backfilling option in turn
	for i, f := range prio.Functions {
		b := prio.BackfillOption.Values[i%len(prio.BackfillOption.Values)]
		cs = append(cs, policyCase{policy: f.Name, platform: "lille", workload: tiny, opts: map[string]string{"backfill": b}})
	}
	return cs
}

// TestPolicies runs every built-in policy to the end of the simulation on
// batsim5, over ZeroMQ and as a shared library, and checks that the
// transports give the same jobs.csv.
func TestPolicies(t *testing.T) {
	batsim5(t)
	lib := library(t)
	cases := policyCases()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.policy] = true
	}
	for _, n := range policies.Builtin().Names() {
		if !covered[n] {
			t.Errorf("policy %s has no Batsim 5 case", n)
		}
	}
	var zmqOK, libOK, same int
	for i, c := range cases {
		c := c
		t.Run(c.name(), func(t *testing.T) {
			dir := filepath.Join(tmpRoot, "policies", fmt.Sprint(i))
			w, wl := c.load(t, dir)
			plat := platformPath(c.platform)
			init := initString(t, c.policy, c.opts)
			var outs [2][]byte
			for k, via := range transports {
				r, switches, err := runVia(t, via, lib, plat, wl, filepath.Join(dir, via), init, c.args...)
				if err != nil {
					t.Errorf("%s: %v", via, err)
					continue
				}
				rows := parseJobs(t, r.Jobs)
				if err := checkComplete(rows, w); err != nil {
					t.Errorf("%s: %v", via, err)
					continue
				}
				if err := checkFeatures(c, rows, switches); err != nil {
					t.Errorf("%s: %v", via, err)
					continue
				}
				outs[k] = r.Jobs
				if via == "zmq" {
					zmqOK++
				} else {
					libOK++
				}
			}
			if outs[0] != nil && outs[1] != nil {
				if bytes.Equal(outs[0], outs[1]) {
					same++
				} else {
					t.Errorf("jobs.csv differs between ZeroMQ and the library, %s", firstDiff(outs[0], outs[1]))
				}
			}
		})
	}
	t.Logf("Batsim 5 policies (%d policies, %d cases): ran to the end over ZeroMQ %d/%d, as a library %d/%d; same jobs.csv both ways %d/%d",
		len(covered), len(cases), zmqOK, len(cases), libOK, len(cases), same, len(cases))
}

// load reads the case's workload and writes it in Batsim 5's format into
// dir.
func (c policyCase) load(t *testing.T, dir string) (w *workloads.Workload, v5 string) {
	t.Helper()
	w, err := workloads.Load(c.workload)
	if err != nil {
		t.Fatal(err)
	}
	return w, writeV5Workload(t, w, dir)
}

func checkFeatures(c policyCase, rows []row, switches int) error {
	killed, pieces := 0, 0
	for _, r := range rows {
		if r.State == "COMPLETED_KILLED" {
			killed++
		}
		if r.Workload != "w0" {
			pieces++
		}
	}
	if c.kills && (killed == 0 || pieces == 0) {
		return fmt.Errorf("expected preemptions (killed jobs resubmitted): %d killed, %d resubmitted pieces", killed, pieces)
	}
	if c.shares && !shared(rows) {
		return fmt.Errorf("expected two jobs on one host at once (compute sharing): none")
	}
	if c.switches && switches == 0 {
		return fmt.Errorf("expected hosts switched off and on: Batsim logged no switch")
	}
	return nil
}

// TestPolicyCountsInDocs: the counts docs/batsim5.md gives
// of the built-in policies and of TestPolicies' cases are the code's (they
// went stale as policies were added). It needs no Batsim.
func TestPolicyCountsInDocs(t *testing.T) {
	nPolicies, nCases := len(policies.Builtin().Names()), len(policyCases())
	for _, c := range []struct {
		file  string
		wants []string
	}{
		{"docs/batsim5.md", []string{fmt.Sprintf("the %d policies run Batsim 5", nPolicies), fmt.Sprintf("(%d\ncases,", nCases),
			fmt.Sprintf("shows the %d built-in policies only", nPolicies),
			fmt.Sprintf("the %d built-in policies, %d cases", nPolicies, nCases), fmt.Sprintf("%d/%d, %d/%d, %d/%d", nCases, nCases, nCases, nCases, nCases, nCases)}},
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", c.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.wants {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s does not say %q (%d built-in policies, %d cases in TestPolicies)", c.file, w, nPolicies, nCases)
			}
		}
	}
}
