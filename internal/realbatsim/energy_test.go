package realbatsim

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// energyArgs is Batsim's option of energy support.
var energyArgs = []string{"--energy"}

// sleeper is a test policy that exercises power states: first-fit FCFS on
// the hosts that are on; a host idle for idleOff seconds is switched off
// (the idle ones of a decision in one request), sleeping hosts are woken
// when the head job lacks hosts, and with dvfs an idle host sometimes
// changes computation pstate (drawn from a seeded stream).
type sleeper struct {
	idleOff   float64
	dvfs      bool
	rng       *rand.Rand
	idleSince map[int]float64
	call      float64
}

func (p *sleeper) Decide(s *sched.State, d *sched.Decider) {
	if p.idleSince == nil {
		p.idleSince = map[int]float64{}
	}
	for _, j := range s.WaitingCopy() {
		var hosts []int
		for i := range s.NbHosts() {
			if h := s.Host(i); h.Free() && len(hosts) < j.Res() {
				hosts = append(hosts, i)
			}
		}
		if len(hosts) < j.Res() {
			// Wake as many sleeping hosts as the head job lacks.
			var wake []int
			need := j.Res() - len(hosts)
			for i := range s.NbHosts() {
				if h := s.Host(i); h.Power() == sched.PowerSwitchingOn {
					need--
				}
			}
			for i := range s.NbHosts() {
				if h := s.Host(i); h.Power() == sched.PowerSleeping && len(wake) < need {
					wake = append(wake, i)
				}
			}
			if len(wake) > 0 {
				d.SetPState(wake, 0)
			}
			break
		}
		d.Start(j, hosts)
	}
	var off []int
	next := 0.0
	for i := range s.NbHosts() {
		h := s.Host(i)
		if h.Power() != sched.PowerOn || !h.Idle() {
			delete(p.idleSince, i)
			continue
		}
		since, ok := p.idleSince[i]
		if !ok {
			p.idleSince[i] = s.Now()
			since = s.Now()
		}
		switch {
		case s.NbWaiting() == 0 && s.Now()-since >= p.idleOff:
			off = append(off, i)
			delete(p.idleSince, i)
		case p.dvfs && p.rng.IntN(4) == 0:
			d.SetPState([]int{i}, 1-h.PState())
		default:
			if t := since + p.idleOff; next == 0 || t < next {
				next = t
			}
		}
	}
	if len(off) > 0 {
		d.SetPState(off, 2)
	}
	if p.dvfs && p.rng.IntN(3) == 0 {
		d.Reply().QueryConsumedEnergy()
	}
	if next > s.Now() && next != p.call && (s.NbWaiting() > 0 || len(s.Running()) > 0 || !s.NoMoreStaticJobs()) {
		p.call = next
		d.CallMeLater(next)
	}
}

func sleeperSession(t *testing.T, idleOff float64, dvfs bool, seed uint64) *sched.Session {
	t.Helper()
	spec := &sched.Spec{Name: "test-sleeper", Energy: true, New: func(sched.Options) (sched.Policy, error) {
		return &sleeper{idleOff: idleOff, dvfs: dvfs, rng: rand.New(rand.NewPCG(seed, 0x64766673))}, nil
	}}
	s, err := (&run.Policy{Spec: spec}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// energyPlatform has n single-core hosts with two computation pstates,
// a sleep pstate and its switching pstates (the wattages of Batsim's
// energy platforms, epsilon apart from idle so that the load counts).
func energyPlatform(n int, r *rand.Rand) []byte {
	return energyPlatformXML(n, r, []string{"10us", "50us", "1ms"}, func(i int) string {
		speed := []string{"100Mf", "250Mf", "1Gf"}[r.IntN(3)]
		off := []string{"0.1639344262295082f", "0.5f", "2f"}[r.IntN(3)]
		on := []string{"0.006599788806758183f", "0.01f", "0.25f"}[r.IntN(3)]
		return fmt.Sprintf(`<host id="h%d" speed="%s, 50Mf, 1e-9Mf, %s, %s"><prop id="wattage_per_state" value="95:100.5:190.738, 95:98:132.5, 9.75:9.75:9.75, 100.99672131147543:100.99672131147543:100.99672131147543, 125.1743848996832:125.1743848996832:125.1743848996832"/><prop id="wattage_off" value="10"/><prop id="sleep_pstates" value="2:3:4"/></host>`, i, speed, off, on)
	})
}

// energyPlatformXML is a Full zone with the master, n hosts (host(i) is
// host i's element) and a link of drawn bandwidth and latency between the
// master and each host; hosts talk through their two links.
func energyPlatformXML(n int, r *rand.Rand, latencies []string, host func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n")
	b.WriteString(`<host id="master" speed="1e9f"><prop id="role" value="master"/></host>` + "\n")
	for i := 0; i < n; i++ {
		b.WriteString(host(i) + "\n")
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<link id="l%d" bandwidth="%s" latency="%s"/>`+"\n", i, []string{"1GBps", "125MBps"}[r.IntN(2)], latencies[r.IntN(len(latencies))])
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<route src="master" dst="h%d"><link_ctn id="l%d"/></route>`+"\n", i, i)
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&b, `<route src="h%d" dst="h%d"><link_ctn id="l%d"/><link_ctn id="l%d"/></route>`+"\n", i, j, i, j)
		}
	}
	b.WriteString("</zone>\n</platform>\n")
	return b.Bytes()
}

// energyWorkload has bursts of jobs separated by idle gaps: computations
// (some communicating), delays, some walltimes reached.
func energyWorkload(n, hosts int, r *rand.Rand) *workloads.Workload {
	return burstWorkload(n, hosts, r, func() float64 { return 50 + r.Float64()*400 }, func() float64 { return r.Float64() * 20 },
		func() float64 {
			if r.IntN(5) == 0 {
				return 5 + r.Float64()*60
			}
			return -1
		}, func(i int) int { return i % 5 },
		`{"p0": {"type": "parallel_homogeneous", "cpu": 5e9, "com": 0}, "p1": {"type": "parallel_homogeneous", "cpu": 2e9, "com": 1e7}, "p2": {"type": "delay", "delay": 20}, "p3": {"type": "parallel_homogeneous", "cpu": 1.5e10, "com": 0}, "p4": {"type": "parallel_homogeneous_total", "cpu": 8e9, "com": 1e6}}`)
}

// burstWorkload has n jobs in bursts: one job in four comes after an idle
// gap (gap()), the others within(); each has walltime wall() (-1: none),
// a drawn number of hosts and the profile "p"+profile(i) of profiles (a
// JSON object).
func burstWorkload(n, hosts int, r *rand.Rand, gap, within, wall func() float64, profile func(i int) int, profiles string) *workloads.Workload {
	var b strings.Builder
	fmt.Fprintf(&b, `{"nb_res": %d, "jobs": [`, hosts)
	t := 0.0
	for i := 0; i < n; i++ {
		if r.IntN(4) == 0 {
			t += gap()
		} else {
			t += within()
		}
		w := wall()
		res := 1 + r.IntN(hosts)
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "%d", "subtime": %.3f, "res": %d, "walltime": %.3f, "profile": "p%d"}`, i, t, res, w, profile(i))
	}
	b.WriteString(`], "profiles": ` + profiles + `}`)
	w, err := workloads.Parse([]byte(b.String()), "workload.json")
	if err != nil {
		panic(err)
	}
	return w
}

// sameFiles reports each file of suffixes that differs between
// wantPrefix+suffix and gotPrefix+suffix (the first difference keeps the
// case's directory, unless ok is already false); rename, when set,
// relabels want and got in the report. It returns ok and whether all were
// the same.
func sameFiles(t *testing.T, dir string, ok bool, wantPrefix, gotPrefix string, suffixes []string, rename *strings.Replacer) bool {
	t.Helper()
	for _, f := range suffixes {
		a, errA := os.ReadFile(wantPrefix + f)
		b, errB := os.ReadFile(gotPrefix + f)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", f, errA, errB)
		}
		if bytes.Equal(a, b) {
			continue
		}
		if ok {
			keep(t, dir)
		}
		ok = false
		d := firstDiff(a, b)
		if rename != nil {
			d = rename.Replace(d)
		}
		t.Errorf("%s differs (case in %s), first difference at %s", f, dir, d)
	}
	return ok
}

// energyOutputs are the files an energy run writes besides _jobs.csv and
// _schedule.csv; they must be identical too.
var energyOutputs = []string{"_consumed_energy.csv", "_pstate_changes.csv"}

// TestEnergyMatchesBatsim: the real Batsim run with --energy, driven by a
// policy that switches idle hosts off, wakes them for waiting jobs and
// changes idle hosts' computation pstates, writes the same _jobs.csv
// (with each job's energy), _schedule.csv (consumed_joules, switches, time
// asleep and switching), _consumed_energy.csv and _pstate_changes.csv as
// bucma's engine, on random platforms and workloads, with and without
// compute sharing.
func TestEnergyMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	n := seeds(t, 2)
	var c tally
	for _, sharing := range []bool{false, true} {
		for _, dvfs := range []bool{false, true} {
			for seed := 1; seed <= 3*n; seed++ {
				sharing, dvfs, seed := sharing, dvfs, uint64(seed)
				t.Run(fmt.Sprintf("sharing=%v/dvfs=%v/%d", sharing, dvfs, seed), func(t *testing.T) {
					t.Parallel()
					r := rand.New(rand.NewPCG(seed, 0x656e6572))
					hosts := 2 + r.IntN(5)
					dir := t.TempDir()
					plat, wl := writeInputs(t, dir, energyPlatform(hosts, r), energyWorkload(10+r.IntN(30), hosts, r))
					idle := []float64{1, 30, 120}[r.IntN(3)]
					args := energyArgs
					if sharing {
						args = append(append([]string(nil), args...), sharingArgs...)
					}
					real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: args}, plat, wl, filepath.Join(dir, "batsim"), sleeperSession(t, idle, dvfs, seed))
					if err != nil {
						t.Fatal(err)
					}
					prefix := filepath.Join(dir, "engine")
					cfg := loadCase(t, plat, wl)
					cfg.ExportPrefix, cfg.Energy, cfg.ComputeSharing = prefix, true, sharing
					if _, err := sim.Run(context.Background(), cfg, sim.InProcess(sleeperSession(t, idle, dvfs, seed))); err != nil {
						t.Fatalf("engine: %v", err)
					}
					ours, err := os.ReadFile(prefix + "_jobs.csv")
					if err != nil {
						t.Fatal(err)
					}
					var sc tally
					ok := sameOutputs(t, &sc, dir, "", real, ours)
					ok = sameFiles(t, dir, ok, filepath.Join(dir, "batsim", "out"), prefix, energyOutputs, nil)
					c.add(ok)
				})
			}
		}
	}
	t.Cleanup(func() {
		t.Logf("energy, engine vs Batsim: %d of %d cases identical (_jobs.csv, _schedule.csv, _consumed_energy.csv, _pstate_changes.csv)", c.matching, c.cases)
	})
}

// energyGoldens are energy runs recorded from the real Batsim (go test
// -run TestEnergyGoldens -update-goldens): the engine is checked against
// them where Batsim is absent.
var energyGoldens = []struct {
	name          string
	sharing, dvfs bool
	seed          uint64
}{
	{"energy-sleep", false, false, 4},
	{"energy-dvfs-sharing", true, true, 7},
}

func TestEnergyGoldens(t *testing.T) {
	var bin string
	if *updateGoldens {
		bin = batsimrun.Batsim(t)
	}
	for _, g := range energyGoldens {
		t.Run(g.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden", g.name)
			plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
			r := rand.New(rand.NewPCG(g.seed, 0x656e6572))
			hosts := 2 + r.IntN(5)
			platXML, w := energyPlatform(hosts, r), energyWorkload(10+r.IntN(30), hosts, r)
			idle := []float64{1, 30, 120}[r.IntN(3)]
			outs := append([]string{"_jobs.csv", "_schedule.csv"}, energyOutputs...)
			if *updateGoldens {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeInputs(t, dir, platXML, w)
				args := energyArgs
				if g.sharing {
					args = append(append([]string(nil), args...), sharingArgs...)
				}
				tmp := t.TempDir()
				if _, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: args}, plat, wl, tmp, sleeperSession(t, idle, g.dvfs, g.seed)); err != nil {
					t.Fatal(err)
				}
				recordOutputs(t, tmp, dir, outs)
			}
			prefix := filepath.Join(t.TempDir(), "engine")
			cfg := loadCase(t, plat, wl)
			cfg.ExportPrefix, cfg.Energy, cfg.ComputeSharing = prefix, true, g.sharing
			if _, err := sim.Run(context.Background(), cfg, sim.InProcess(sleeperSession(t, idle, g.dvfs, g.seed))); err != nil {
				t.Fatalf("engine: %v", err)
			}
			checkGoldenOutputs(t, dir, prefix, outs, "Batsim's")
		})
	}
}

// recordOutputs copies a run's output files (from/out+suffix) to the
// golden directory dir.
func recordOutputs(t *testing.T, from, dir string, outs []string) {
	t.Helper()
	for _, f := range outs {
		b, err := os.ReadFile(filepath.Join(from, "out"+f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "out"+f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkGoldenOutputs compares the engine's files (prefix+suffix) with the
// recorded ones (dir/out+suffix; whose names the reference in reports):
// byte for byte, but _schedule.csv as scheduleDiff does.
func checkGoldenOutputs(t *testing.T, dir, prefix string, outs []string, whose string) {
	t.Helper()
	for _, f := range outs {
		want, err := os.ReadFile(filepath.Join(dir, "out"+f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "_schedule.csv" {
			if d := scheduleDiff(t, want, prefix+f); d != "" {
				t.Errorf("%s: %s", f, d)
			}
			continue
		}
		got, err := os.ReadFile(prefix + f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs from %s, first difference at %s", f, whose, firstDiff(want, got))
		}
	}
}

// TestBotPoliciesMatchBatsim: the bag-of-tasks policies drive the real
// Batsim (compute sharing and energy on) to the end, and the engine writes
// the same four files: the thesis' BoTs on its cluster and on two nodes,
// with an external load, and with nodes switched off and on.
func TestBotPoliciesMatchBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	var c tally
	cases := []struct {
		name, platform, policy string
		opts                   sched.Options
		bots                   []string
		background             int
	}{
		{"consolidation-H2-1", "bot-2nodes", "bot-consolidation", nil, []string{"H2-1"}, 0},
		{"threshold-H2-2", "bot-2nodes", "threshold-vm-consolidation", nil, []string{"H2-2"}, 0},
		{"online-H2-3", "bot-2nodes", "bot-packing-online", sched.Options{"alloc": "lote"}, []string{"H2-3"}, 0},
		{"consolidation-example-bg50", "bot", "bot-consolidation", sched.Options{"alloc": "lote"}, []string{"example"}, 50},
		{"threshold-power", "bot", "threshold-vm-consolidation", sched.Options{"power": "on", "place": "pack"}, []string{"H1-1", "H1-3"}, 0},
		{"online-bg75", "bot", "bot-packing-online", nil, []string{"H1-2"}, 75},
	}
	// Drawn cases: BoTs drawn from the thesis' classes, policies and
	// options drawn, one per seed.
	policies := []string{"bot-consolidation", "threshold-vm-consolidation", "bot-packing-online"}
	classes := []string{"leve", "mediano", "pesado", "up-1", "up-4", "up-8"}
	for seed := 1; seed <= 3*seeds(t, 1); seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 0x626f74))
		policy := policies[r.IntN(3)]
		opts := sched.Options{"alloc": []string{"ciclico", "lote"}[r.IntN(2)], "priority": []string{"none", "arrival", "duration", "cost", "completed", "remaining"}[r.IntN(6)]}
		if policy != "bot-packing-online" {
			opts["place"] = []string{"spread", "pack"}[r.IntN(2)]
		}
		if policy == "threshold-vm-consolidation" {
			opts["power"] = []string{"off", "on"}[r.IntN(2)]
		}
		bots := []string{classes[r.IntN(len(classes))], classes[r.IntN(len(classes))]}
		if bots[0] == bots[1] {
			bots = bots[:1]
		}
		cases = append(cases, struct {
			name, platform, policy string
			opts                   sched.Options
			bots                   []string
			background             int
		}{fmt.Sprintf("drawn-%d", seed), []string{"bot", "bot-2nodes"}[r.IntN(2)], policy, opts, bots, []int{0, 0, 50, 75}[r.IntN(4)]})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plat, err := platforms.Resolve(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			var bots []workloads.BotSpec
			for i, n := range tc.bots {
				b, ok := workloads.NamedBoT(n)
				if !ok {
					cl, vms, found := workloads.BotProfileClass(n)
					if !found {
						t.Fatalf("no BoT %s", n)
					}
					if b, err = workloads.GenerateBoT(fmt.Sprintf("%s-%d", n, i), cl, vms, workloads.NewBotRand(uint64(len(tc.name)+i))); err != nil {
						t.Fatal(err)
					}
				}
				b.Arrival = 3 * i
				bots = append(bots, b)
			}
			o := workloads.BotWorkloadOptions{Hosts: len(plat.Hosts), Background: tc.background}
			if tc.background > 0 {
				o.BackgroundSteps = 12
			}
			w, err := workloads.BotWorkload(bots, o)
			if err != nil {
				t.Fatal(err)
			}
			xml, err := platforms.BundledXML(tc.platform + ".xml")
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			pf, wf := writeInputs(t, dir, xml, w)
			args := append(append([]string(nil), energyArgs...), sharingArgs...)
			real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: args}, pf, wf, filepath.Join(dir, "batsim"), session(t, tc.policy, tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := simulate(t, dir, pf, wf, tc.policy, tc.opts, func(cfg *sim.Config) { cfg.ComputeSharing, cfg.Energy = true, true })
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			var sc tally
			ok := sameOutputs(t, &sc, dir, fmt.Sprintf(" (%s %v on %s, BoTs %v, external load %d %%)", tc.policy, tc.opts, tc.platform, tc.bots, tc.background), real, ours)
			ok = sameFiles(t, dir, ok, filepath.Join(dir, "batsim", "out"), filepath.Join(dir, "engine"), energyOutputs, nil)
			c.add(ok)
		})
	}
	t.Cleanup(func() {
		t.Logf("bag-of-tasks policies, engine vs Batsim: %d of %d cases identical (four files)", c.matching, c.cases)
	})
}
