// Command benchbatsim measures bucma against the real Batsim 4.2.1 and
// batsched on the same generated workload (`bucma workload delays`, on
// platforms.Star), and prints each speed target's verdict. `make
// bench-batsim` runs it.
//
// Every target is a ratio of CPU times (user + system, as the system counts
// them for each process) measured in this run: in each of -reps rounds
// (5 by default, the fewest a verdict is given on) every measured run is
// made once, in turn, the order reversed from one round to the next; a
// target's figure is the median over the rounds of the ratio within each
// round, so that a change of the machine's speed between rounds cancels
// out. The load average is printed at the start and after each round.
//
// In each round, for the easy comparison:
//
//   - Batsim answered by bucma run --scheduler easy -o hosts=first-fit;
//   - Batsim answered by batsched -v easy_bf_fast;
//   - Batsim answered by a replay of bucma's own replies (recorded once
//     beforehand, sent back byte for byte through bucma's transport with
//     no decoding and no decision): bucma's floor under Batsim, the socket;
//   - bucma simulate on the same files, same policy (the embedded engine);
//   - bucma --version (the process start, bucma simulate's first floor);
//   - in this process, the engine reading the workload (sim.Preload) and
//     the engine answered by the recorded replies of its own run with easy
//     (sim.Replay: reading, simulating and writing, no decision): the
//     engine's floor.
//
// The targets: bucma run's CPU time at most 0.3 of batsched's; bucma
// simulate's at most 1/200 of Batsim's and batsched's together (the ratio
// of their wall times printed beside it). Where one is not reached, the
// floors under it are printed against what it allows.
//
// -compare conservative (or both) adds bucma's twin of batsched's
// conservative_bf against it (the same decisions: every run must write the
// same _jobs.csv), its CPU ratio printed without a target.
//
// The command re-executes itself to serve the recording and the replay
// (-serve record|replay; -policy names the recorded policy and its
// options).
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/benchutil"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	runpkg "github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

func main() {
	jobs := flag.Int("jobs", 20000, "jobs of the generated delay workload")
	hosts := flag.Int("hosts", 128, "hosts of the generated platform")
	load := flag.Float64("load", 0.95, "offered load of the workload")
	reps := flag.Int("reps", benchutil.MinRounds, "rounds (each runs everything measured once); medians over the rounds")
	seed := flag.Uint64("seed", 1, "seed of the workload")
	bucma := flag.String("bucma", "bin/bucma", "the bucma binary")
	keep := flag.String("keep", "", "keep the inputs and outputs in this directory")
	compare := flag.String("compare", "easy", "easy, conservative or both")
	serve := flag.String("serve", "", "internal: record or replay, on -s with -file")
	endpoint := flag.String("s", "", "internal: the endpoint to serve")
	file := flag.String("file", "", "internal: the recorded replies")
	policy := flag.String("policy", "easy hosts=first-fit", "internal: the policy recorded and its options")
	flag.Parse()
	var err error
	if *serve != "" {
		err = serveChild(*serve, *endpoint, *file, strings.Fields(*policy))
	} else {
		err = run(*jobs, *hosts, *load, *reps, *seed, *bucma, *keep, *compare)
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

// comparison is bucma's policy against a batsched variant.
type comparison struct {
	name    string
	policy  []string // bucma's policy, then its options (key=value)
	variant string   // batsched's
	// twin: the policy takes the variant's decisions (batsched's
	// _jobs.csv must be the recorded one too).
	twin bool
	// target is the highest ratio of bucma run's CPU time to batsched's
	// (0: none).
	target float64
	// engine: bucma simulate and the engine's floors are measured too.
	engine bool
}

var comparisons = []comparison{
	{name: "easy", policy: []string{"easy", "hosts=first-fit"}, variant: "easy_bf_fast", target: 0.3, engine: true},
	{name: "conservative", policy: []string{"conservative", "hosts=first-fit", "backfill=batsched", "no-walltime=reject"}, variant: "conservative_bf", twin: true},
}

// The engine's target: bucma simulate's CPU time at most this fraction of
// Batsim's and batsched's together.
const engineTarget = 1.0 / 200

func run(njobs, nhosts int, load float64, reps int, seed uint64, bucma, keep, compare string) error {
	var cmps []comparison
	for _, c := range comparisons {
		if compare == "both" || compare == c.name {
			cmps = append(cmps, c)
		}
	}
	if len(cmps) == 0 {
		return fmt.Errorf("-compare %q: want easy, conservative or both", compare)
	}
	if reps < 1 {
		return fmt.Errorf("-reps %d: want at least 1", reps)
	}
	batsim, err := batsimrun.Find("BATSIM", "batsim")
	if err != nil {
		return err
	}
	batsched, err := batsimrun.Find("BATSCHED", "batsched")
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if bucma, err = benchutil.Binary(bucma); err != nil {
		return err
	}
	dir, cleanup, err := benchutil.WorkDir(keep, "bench-batsim")
	if err != nil {
		return err
	}
	defer cleanup()
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
	benchutil.Header(bucma)
	fmt.Printf("case:    bucma workload delays --jobs %d --hosts %d --load %g --seed %d on a %d-host star; %s; %d rounds, medians\n\n",
		njobs, nhosts, load, seed, nhosts, batsim, reps)
	o := batsimrun.Options{Batsim: batsim, Timeout: 30 * time.Minute}
	for _, c := range cmps {
		if err := compareOne(c, dir, plat, wl, o, self, bucma, batsched, reps); err != nil {
			return err
		}
	}
	return nil
}

// measured is one kind of run, measured in every round.
type measured struct {
	name string
	run  func(round int) (sample, error)
}

// sample is one run's measures: the CPU times of the decision process
// (or of the command) and of Batsim, and the wall time.
type sample struct {
	cpu, batsim, wall float64 // seconds
}

// compareOne measures one comparison in reps rounds and prints its
// figures and verdicts.
func compareOne(c comparison, top, plat, wl string, o batsimrun.Options, self, bucma, batsched string, reps int) error {
	dir := filepath.Join(top, c.name)
	replies := filepath.Join(dir, "replies.bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := batsimrun.WithScheduler(context.Background(), o, func(ep string) []string {
		return []string{self, "-serve", "record", "-s", ep, "-file", replies, "-policy", strings.Join(c.policy, " ")}
	}, plat, wl, filepath.Join(dir, "record")); err != nil {
		return fmt.Errorf("recording bucma's replies (%s): %w", c.name, err)
	}
	recorded, err := os.ReadFile(filepath.Join(dir, "record", "out_jobs.csv"))
	if err != nil {
		return err
	}
	withBatsim := func(i int, name string, argv func(ep string) []string, check bool) measured {
		return measured{name, func(r int) (sample, error) {
			out := filepath.Join(dir, fmt.Sprintf("run%d-%d", i, r))
			res, err := batsimrun.WithScheduler(context.Background(), o, argv, plat, wl, out)
			if err != nil {
				return sample{}, fmt.Errorf("%s: %w", name, err)
			}
			if check && string(res.Jobs) != string(recorded) {
				return sample{}, fmt.Errorf("%s: _jobs.csv differs from the recorded run's (%s)", name, out)
			}
			return sample{cpu: benchutil.CPU(res.Scheduler), batsim: benchutil.CPU(res.Batsim), wall: res.Wall.Seconds()}, nil
		}}
	}
	run := []string{bucma, "run", "--scheduler", c.policy[0]}
	simulate := []string{bucma, "simulate", "-q", "-p", plat, "-w", wl, "--scheduler", c.policy[0]}
	for _, opt := range c.policy[1:] {
		run = append(run, "-o", opt)
		simulate = append(simulate, "-o", opt)
	}
	runs := []measured{
		withBatsim(0, fmt.Sprintf("bucma run %s", strings.Join(c.policy, " ")), func(ep string) []string {
			return append(slices.Clone(run), "-s", ep)
		}, true),
		withBatsim(1, "batsched -v "+c.variant, func(ep string) []string { return []string{batsched, "-v", c.variant, "-s", ep} }, c.twin),
		withBatsim(2, "replay of bucma's replies (the socket's floor)", func(ep string) []string {
			return []string{self, "-serve", "replay", "-s", ep, "-file", replies}
		}, true),
	}
	var eng *benchutil.Engine
	if c.engine {
		platform, err := loadPlatform(plat)
		if err != nil {
			return err
		}
		opts, err := sched.ParseOptionArgs(c.policy[1:])
		if err != nil {
			return err
		}
		eng = &benchutil.Engine{Platform: platform, Workload: wl, Registry: policies.Builtin(), Policy: c.policy[0], Options: opts, Dir: filepath.Join(dir, "engine")}
		if err := os.MkdirAll(eng.Dir, 0o755); err != nil {
			return err
		}
		if err := eng.Record(); err != nil {
			return err
		}
		runs = append(runs,
			measured{"bucma simulate " + strings.Join(c.policy, " "), func(r int) (sample, error) {
				return command(append(slices.Clone(simulate), "-e", filepath.Join(dir, fmt.Sprintf("simulate-%d", r))))
			}},
			measured{"bucma --version (the process start)", func(int) (sample, error) { return command([]string{bucma, "--version"}) }},
			measured{"in-process: reading the workload (sim.Preload)", func(int) (sample, error) {
				cpu, err := eng.Read()
				return sample{cpu: cpu}, err
			}},
			measured{"in-process: the engine answered by its recorded replies (the engine's floor, reading included)", func(int) (sample, error) {
				cpu, err := eng.Replay()
				return sample{cpu: cpu}, err
			}},
		)
	}
	samples := make([][]sample, len(runs))
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	fmt.Printf("## %s: bucma %s against batsched %s\n\n", c.name, strings.Join(c.policy, " "), c.variant)
	for r := 0; r < reps; r++ {
		for _, i := range order {
			s, err := runs[i].run(r)
			if err != nil {
				return err
			}
			samples[i] = append(samples[i], s)
		}
		slices.Reverse(order)
		fmt.Printf("round %d done, load %s\n", r+1, benchutil.LoadAvg())
	}
	fmt.Println()
	fmt.Println("| run | CPU s (median) | CPU s (range) | Batsim's CPU s | wall s (median) |")
	fmt.Println("|---|---|---|---|---|")
	col := func(i int, f func(sample) float64) []float64 {
		v := make([]float64, len(samples[i]))
		for k, x := range samples[i] {
			v[k] = f(x)
		}
		return v
	}
	cpu := func(x sample) float64 { return x.cpu }
	for i, m := range runs {
		bs, wall := "", ""
		if i < 3 {
			bs = fmt.Sprintf("%.2f", benchutil.Median(col(i, func(x sample) float64 { return x.batsim })))
		}
		if i < 5 {
			wall = fmt.Sprintf("%.2f", benchutil.Median(col(i, func(x sample) float64 { return x.wall })))
		}
		fmt.Printf("| %s | %.3f | %s | %s | %s |\n", m.name, benchutil.Median(col(i, cpu)), benchutil.Range(col(i, cpu), "%.3f"), bs, wall)
	}
	fmt.Println()
	// Ratios within each round, then their median.
	ratio := func(f func(r int) float64) float64 {
		v := make([]float64, reps)
		for r := range v {
			v[r] = f(r)
		}
		return benchutil.Median(v)
	}
	runRatio := ratio(func(r int) float64 { return samples[0][r].cpu / samples[1][r].cpu })
	floorRatio := ratio(func(r int) float64 { return samples[2][r].cpu / samples[1][r].cpu })
	fmt.Printf("bucma run's CPU time / batsched %s's: %.2f", c.variant, runRatio)
	if c.target > 0 {
		fmt.Printf(" (target <= %g: %s)", c.target, benchutil.Verdict(runRatio <= c.target, reps))
	}
	fmt.Println()
	fmt.Printf("  the floor, bucma's socket alone (the replay) / batsched's: %.2f; what bucma does with the messages (decoding, the session, encoding: bucma run minus the replay, within each round): %.2f\n",
		floorRatio, ratio(func(r int) float64 { return (samples[0][r].cpu - samples[2][r].cpu) / samples[1][r].cpu }))
	if c.target > 0 && runRatio > c.target {
		fmt.Printf("  reaching %g needs bucma run at %.2f s of CPU or less, where its socket alone takes %.2f s (median)\n",
			c.target, c.target*benchutil.Median(col(1, cpu)), benchutil.Median(col(2, cpu)))
	}
	if eng == nil {
		fmt.Printf("load: %s\n\n", benchutil.LoadAvg())
		return nil
	}
	both := func(r int) float64 { return samples[1][r].cpu + samples[1][r].batsim }
	simRatio := ratio(func(r int) float64 { return samples[3][r].cpu / both(r) })
	wallRatio := ratio(func(r int) float64 { return samples[1][r].wall / samples[3][r].wall })
	fmt.Printf("bucma simulate's CPU time / Batsim's and batsched's together: 1/%.0f (target <= 1/%.0f: %s); wall times: %.0fx (Batsim + batsched %.1f s, bucma simulate %.3f s, medians)\n",
		1/simRatio, 1/engineTarget, benchutil.Verdict(simRatio <= engineTarget, reps), wallRatio,
		benchutil.Median(col(1, func(x sample) float64 { return x.wall })), benchutil.Median(col(3, func(x sample) float64 { return x.wall })))
	start, read, floor := benchutil.Median(col(4, cpu)), benchutil.Median(col(5, cpu)), benchutil.Median(col(6, cpu))
	budget := engineTarget * benchutil.Median(col(1, func(x sample) float64 { return x.cpu + x.batsim }))
	fmt.Printf("  its parts (medians): the process start %.3f s, reading %.3f s, simulating and writing %.3f s (the engine's floor %.3f s less reading), the session and the policy %.3f s (bucma simulate less the start and the floor), over %d messages: %.2f µs a message\n",
		start, read, floor-read, floor, benchutil.Median(col(3, cpu))-start-floor, eng.Messages(),
		1e6*(benchutil.Median(col(3, cpu))-start-floor)/float64(eng.Messages()))
	if simRatio > engineTarget {
		fmt.Printf("  reaching 1/%.0f allows %.3f s of CPU, where the process start and the engine's floor already take %.3f s\n", 1/engineTarget, budget, start+floor)
	}
	fmt.Printf("load: %s\n\n", benchutil.LoadAvg())
	return nil
}

// command runs argv and returns its CPU and wall times.
func command(argv []string) (sample, error) {
	begin := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return sample{cpu: benchutil.CPU(cmd.ProcessState), wall: time.Since(begin).Seconds()}, nil
}

func loadPlatform(path string) (*platforms.Platform, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return platforms.Parse(f, path)
}
