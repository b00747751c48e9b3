// Command benchbatsim measures bucma against batsched on the real Batsim,
// on the same generated workload (`bucma workload delays`, on
// platforms.Star), and prints the speed targets as measured ratios.
// `make bench-batsim` runs it.
//
// Each comparison (-compare: easy, conservative, or both, the default)
// has three schedulers answer the same Batsim run, in turn, -reps times
// each (5 by default):
//
//   - easy: bucma run --scheduler easy -o hosts=first-fit, and batsched -v
//     easy_bf_fast; conservative: bucma run --scheduler conservative with
//     the options of conservative_bf's twin (hosts=first-fit,
//     backfill=batsched, no-walltime=reject), and batsched -v
//     conservative_bf (both take the same decisions);
//   - a replay of that bucma policy's own replies, recorded once
//     beforehand and sent back as they are, byte for byte, through bucma's
//     transport, with no decoding and no decision: the floor that Batsim,
//     the kernel and the socket put under bucma on this machine.
//
// Each in two placements: "free" (the system places the processes; on a
// virtual machine most of a round trip is then the wake-up of a process on
// another core) and "one core" (Batsim and the scheduler pinned to CPU 0
// with taskset, so a round trip is two context switches and the work).
// Batsim's scheduling_time is the time it waits for answers; what the
// scheduler adds is scheduling_time minus the replay's: the medians'
// difference, and the median of the differences within each round (the
// runs of a round are adjacent in time, so a change of the machine's speed
// between rounds cancels out). Each round's scheduling_time is printed.
//
// Then the embedded engine (bucma simulate) on the same files, against
// Batsim + easy_bf_fast's wall time in the free placement (with the easy
// comparison).
//
// The command re-executes itself to serve the recording and the replay
// (-serve record|replay; -policy names the recorded policy and its
// options).
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bucma-sched/bucma/policies"
	runpkg "github.com/bucma-sched/bucma/run"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

func main() {
	jobs := flag.Int("jobs", 20000, "jobs of the generated delay workload")
	hosts := flag.Int("hosts", 128, "hosts of the generated platform")
	load := flag.Float64("load", 0.95, "offered load of the workload")
	reps := flag.Int("reps", 5, "runs of each scheduler in each placement (alternated); the median is reported")
	seed := flag.Uint64("seed", 1, "seed of the workload")
	bucma := flag.String("bucma", "bin/bucma", "the bucma binary")
	keep := flag.String("keep", "", "keep the inputs and outputs in this directory")
	place := flag.String("placement", "both", "free, one-core or both")
	compare := flag.String("compare", "both", "easy, conservative or both")
	serve := flag.String("serve", "", "internal: record or replay, on -s with -file")
	endpoint := flag.String("s", "", "internal: the endpoint to serve")
	file := flag.String("file", "", "internal: the recorded replies")
	policy := flag.String("policy", "easy hosts=first-fit", "internal: the policy recorded and its options")
	flag.Parse()
	var err error
	if *serve != "" {
		err = serveChild(*serve, *endpoint, *file, strings.Fields(*policy))
	} else {
		err = run(*jobs, *hosts, *load, *reps, *seed, *bucma, *keep, *place, *compare)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-batsim:", err)
		os.Exit(1)
	}
}

// serveChild serves one Batsim run: record answers with the bucma policy
// policy[0] (options policy[1:], key=value) and writes every reply to
// file; replay sends file's replies back in order without looking at the
// messages.
func serveChild(mode, endpoint, file string, policy []string) error {
	ctx := context.Background()
	switch mode {
	case "record":
		if len(policy) == 0 {
			return errors.New("-policy: no policy")
		}
		pol, err := runpkg.ParsedPolicy(policies.Builtin(), policy[0], policy[1:])
		if err != nil {
			return err
		}
		pol.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		var werr error
		srv := &runpkg.Server{Policy: *pol, Endpoint: endpoint, Transport: zmq.TransportNative, Log: pol.Log,
			Observe: func(d batsim.Direction, raw []byte) {
				if d == batsim.FromScheduler && werr == nil {
					werr = writeRecord(w, raw)
				}
			}}
		if err := srv.Serve(ctx); err != nil {
			f.Close()
			return err
		}
		if werr != nil {
			f.Close()
			return werr
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case "replay":
		replies, err := readRecords(file)
		if err != nil {
			return err
		}
		l, err := zmq.Listen(zmq.ServeConfig{Endpoint: endpoint, Transport: zmq.TransportNative})
		if err != nil {
			return err
		}
		i := 0
		return l.ServeRaw(ctx, func([]byte) ([]byte, bool, error) {
			if i == len(replies) {
				return nil, false, fmt.Errorf("%s: %d replies recorded, Batsim sent more messages", file, len(replies))
			}
			i++
			return replies[i-1], i == len(replies), nil
		})
	}
	return fmt.Errorf("-serve %q: want record or replay", mode)
}

func writeRecord(w io.Writer, b []byte) error {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func readRecords(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for len(data) > 0 {
		if len(data) < 4 {
			return nil, fmt.Errorf("%s: truncated record", path)
		}
		n := int(binary.LittleEndian.Uint32(data))
		if len(data)-4 < n {
			return nil, fmt.Errorf("%s: truncated record", path)
		}
		out = append(out, data[4:4+n])
		data = data[4+n:]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no reply recorded", path)
	}
	return out, nil
}

// sample is one run's measures.
type sample struct {
	sched, wall, user, sys float64 // seconds
}

type scheduler struct {
	name string
	argv func(ep string) []string
}

// comparison is bucma's policy against a batsched variant.
type comparison struct {
	name    string
	policy  []string // bucma's policy, then its options (key=value)
	variant string   // batsched's
	// twin: the policy takes the variant's decisions (batsched's
	// _jobs.csv must be the recorded one too).
	twin bool
	// target is the highest ratio of what bucma adds to the floor over
	// what batsched adds (0: none), and the scheduling_time ratio's.
	addedTarget, timeTarget float64
}

var comparisons = []comparison{
	{name: "easy", policy: []string{"easy", "hosts=first-fit"}, variant: "easy_bf_fast", timeTarget: 0.3, addedTarget: 0.2},
	{name: "conservative", policy: []string{"conservative", "hosts=first-fit", "backfill=batsched", "no-walltime=reject"}, variant: "conservative_bf", twin: true, addedTarget: 0.5},
}

func run(njobs, nhosts int, load float64, reps int, seed uint64, bucma, keep, place, compare string) error {
	var cmps []comparison
	for _, c := range comparisons {
		if compare == "both" || compare == c.name {
			cmps = append(cmps, c)
		}
	}
	if len(cmps) == 0 {
		return fmt.Errorf("-compare %q: want easy, conservative or both", compare)
	}
	var placements []string
	switch place {
	case "both":
		placements = []string{"free", "one core"}
	case "free":
		placements = []string{"free"}
	case "one-core":
		placements = []string{"one core"}
	default:
		return fmt.Errorf("-placement %q: want free, one-core or both", place)
	}
	batsim, err := batsimrun.Find("BATSIM", "batsim")
	if err != nil {
		return err
	}
	batsched, err := batsimrun.Find("BATSCHED", "batsched")
	if err != nil {
		return err
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil && slices.Contains(placements, "one core") {
		return errors.New("taskset (util-linux) is needed for the one-core placement; -placement free skips it")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if bucma, err = filepath.Abs(bucma); err != nil {
		return err
	}
	if _, err := os.Stat(bucma); err != nil {
		return fmt.Errorf("bucma binary: %w (make build)", err)
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bench-batsim"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
	if err := os.WriteFile(plat, platforms.Star(nhosts), 0o644); err != nil {
		return err
	}
	w, err := workloads.GenerateDelays(workloads.DelaysOptions{Jobs: njobs, Hosts: nhosts, Load: load, Seed: seed})
	if err != nil {
		return err
	}
	if err := w.WriteFile(wl); err != nil {
		return err
	}
	fmt.Printf("machine: %s, %d cores, %s; %s\n", cpuModel(), runtime.NumCPU(), kernel(), time.Now().Format("2006-01-02"))
	fmt.Printf("load: %s (1, 5, 15 min) at the start; again after each table\n", loadAvg())
	fmt.Printf("case: bucma workload delays --jobs %d --hosts %d --load %g --seed %d on a %d-host star; %s; %d runs of each, medians\n\n",
		njobs, nhosts, load, seed, nhosts, batsim, reps)

	o := batsimrun.Options{Batsim: batsim, Timeout: 30 * time.Minute}
	var batschedWall float64
	for _, c := range cmps {
		wall, err := compareOne(c, dir, o, self, bucma, batsched, taskset, placements, reps)
		if err != nil {
			return err
		}
		if c.name == "easy" {
			batschedWall = wall
		}
	}
	if batschedWall == 0 {
		return nil
	}
	// The embedded engine on the same inputs.
	var engine []float64
	for r := 0; r < reps; r++ {
		begin := time.Now()
		cmd := exec.Command(bucma, "simulate", "-q", "-p", plat, "-w", wl, "-e", filepath.Join(dir, "engine"),
			"--scheduler", "easy", "-o", "hosts=first-fit")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("bucma simulate: %v\n%s", err, out)
		}
		engine = append(engine, time.Since(begin).Seconds())
	}
	eng := median(engine)
	speed := batschedWall / eng
	fmt.Printf("embedded engine (bucma simulate, easy, hosts=first-fit): %.3f s wall\n", eng)
	fmt.Printf("Batsim + easy_bf_fast wall (free placement) / embedded engine wall: %.0fx (target >= 100x: %s)\n", speed, verdict(speed >= 100))
	return nil
}

// compareOne runs one comparison in every placement and prints its
// table and ratios; it returns batsched's wall time in the free placement
// (0 when not run).
func compareOne(c comparison, dir string, o batsimrun.Options, self, bucma, batsched, taskset string, placements []string, reps int) (float64, error) {
	dir = filepath.Join(dir, c.name)
	replies := filepath.Join(dir, "replies.bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	plat, wl := filepath.Join(dir, "..", "platform.xml"), filepath.Join(dir, "..", "workload.json")
	if _, err := batsimrun.WithScheduler(context.Background(), o, func(ep string) []string {
		return []string{self, "-serve", "record", "-s", ep, "-file", replies, "-policy", strings.Join(c.policy, " ")}
	}, plat, wl, filepath.Join(dir, "record")); err != nil {
		return 0, fmt.Errorf("recording bucma's replies (%s): %w", c.name, err)
	}
	run := []string{bucma, "run", "--scheduler", c.policy[0]}
	for _, opt := range c.policy[1:] {
		run = append(run, "-o", opt)
	}
	scheds := []scheduler{
		{fmt.Sprintf("bucma %s (%s)", c.policy[0], strings.Join(c.policy[1:], ", ")), func(ep string) []string {
			return append(slices.Clone(run), "-s", ep)
		}},
		{"batsched " + c.variant, func(ep string) []string { return []string{batsched, "-v", c.variant, "-s", ep} }},
		{"replay of bucma's replies (the floor)", func(ep string) []string {
			return []string{self, "-serve", "replay", "-s", ep, "-file", replies}
		}},
	}
	recorded, err := os.ReadFile(filepath.Join(dir, "record", "out_jobs.csv"))
	if err != nil {
		return 0, err
	}
	var batschedWall float64
	for _, p := range placements {
		var prefix []string
		if p == "one core" {
			prefix = []string{taskset, "-c", "0"}
		}
		meds, runs, err := measure(dir, plat, wl, o, prefix, scheds, reps, recorded, c.twin)
		if err != nil {
			return 0, err
		}
		fmt.Printf("%s, placement: %s\n\n", c.name, p)
		fmt.Println("| scheduler | Batsim scheduling_time (s) | Batsim wall (s) | scheduler user CPU (s) | scheduler sys CPU (s) |")
		fmt.Println("|---|---|---|---|---|")
		for i, s := range scheds {
			m := meds[i]
			fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", s.name, m.sched, m.wall, m.user, m.sys)
		}
		bu, bs, floor := meds[0].sched, meds[1].sched, meds[2].sched
		fmt.Println()
		if c.twin {
			fmt.Printf("the three runs wrote the same _jobs.csv (bucma's %s takes batsched %s's decisions)\n", c.policy[0], c.variant)
		}
		fmt.Printf("scheduling_time, bucma / batsched %s: %.2f", c.variant, bu/bs)
		if c.timeTarget > 0 {
			fmt.Printf(" (target <= %g: %s)", c.timeTarget, verdict(bu/bs <= c.timeTarget))
		}
		fmt.Println()
		fmt.Printf("  the floor alone (the replay) is %.2f of batsched's scheduling_time\n", floor/bs)
		if bs > floor {
			fmt.Printf("  added to the floor, bucma / batsched: %.2f s / %.2f s = %.2f", bu-floor, bs-floor, (bu-floor)/(bs-floor))
			if c.addedTarget > 0 {
				fmt.Printf(" (target <= %g: %s)", c.addedTarget, verdict((bu-floor)/(bs-floor) <= c.addedTarget))
			}
			fmt.Println()
		}
		// The same difference taken within each round (the three
		// schedulers' runs of a round are adjacent in time, so a change
		// of the machine's speed between rounds cancels out), then the
		// median over the rounds.
		for i, s := range scheds {
			fmt.Printf("  scheduling_time of each round, %s:", s.name)
			for _, x := range runs[i] {
				fmt.Printf(" %.2f", x.sched)
			}
			fmt.Println()
		}
		addBu, addBs := make([]float64, reps), make([]float64, reps)
		for r := 0; r < reps; r++ {
			addBu[r] = runs[0][r].sched - runs[2][r].sched
			addBs[r] = runs[1][r].sched - runs[2][r].sched
		}
		mu, ms := median(addBu), median(addBs)
		if ms > 0 {
			fmt.Printf("  added to the floor within each round, medians, bucma / batsched: %.2f s / %.2f s = %.2f\n", mu, ms, mu/ms)
		}
		fmt.Printf("load: %s\n\n", loadAvg())
		if p == "free" {
			batschedWall = meds[1].wall
		}
	}
	return batschedWall, nil
}

// measure runs each scheduler reps times, alternating, and returns the
// medians and every run's measures (by scheduler, then round). Every run
// but batsched's (every run, with twin) must give the recorded run's
// _jobs.csv.
func measure(dir, plat, wl string, o batsimrun.Options, prefix []string, scheds []scheduler, reps int, want []byte, twin bool) ([]sample, [][]sample, error) {
	o.Prefix = prefix
	samples := make([][]sample, len(scheds))
	for r := 0; r < reps; r++ {
		for i, s := range scheds {
			out := filepath.Join(dir, fmt.Sprintf("run%d-%d", i, r))
			argv := func(ep string) []string { return append(append([]string(nil), prefix...), s.argv(ep)...) }
			res, err := batsimrun.WithScheduler(context.Background(), o, argv, plat, wl, out)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.name, err)
			}
			if (i != 1 || twin) && string(res.Jobs) != string(want) {
				return nil, nil, fmt.Errorf("%s: _jobs.csv differs from the recorded run's (%s)", s.name, out)
			}
			st, err := schedulingTime(filepath.Join(out, "out_schedule.csv"))
			if err != nil {
				return nil, nil, err
			}
			ru := res.Scheduler.SysUsage().(*syscall.Rusage)
			samples[i] = append(samples[i], sample{sched: st, wall: res.Wall.Seconds(), user: tv(ru.Utime), sys: tv(ru.Stime)})
		}
	}
	meds := make([]sample, len(scheds))
	for i := range scheds {
		col := func(f func(sample) float64) float64 {
			v := make([]float64, len(samples[i]))
			for k, x := range samples[i] {
				v[k] = f(x)
			}
			return median(v)
		}
		meds[i] = sample{
			sched: col(func(x sample) float64 { return x.sched }),
			wall:  col(func(x sample) float64 { return x.wall }),
			user:  col(func(x sample) float64 { return x.user }),
			sys:   col(func(x sample) float64 { return x.sys }),
		}
	}
	return meds, samples, nil
}

func verdict(ok bool) string {
	if ok {
		return "holds"
	}
	return "NOT REACHED"
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// schedulingTime reads Batsim's scheduling_time from a _schedule.csv.
func schedulingTime(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 2 {
		return 0, fmt.Errorf("%s: not a Batsim schedule file", path)
	}
	for i, k := range recs[0] {
		if k == "scheduling_time" {
			return strconv.ParseFloat(recs[1][i], 64)
		}
	}
	return 0, fmt.Errorf("%s: no scheduling_time", path)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// loadAvg is the system's load average over 1, 5 and 15 minutes, as
// /proc/loadavg gives it ("unknown" where there is none).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func kernel() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return runtime.GOOS
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return "Linux " + string(b)
}
