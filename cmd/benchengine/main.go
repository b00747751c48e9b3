// Command benchengine measures bucma's embedded engine against its speed
// targets and prints each one's verdict; scripts/bench-engine runs it.
//
// Every figure is a CPU time (user + system, as the system counts it), a
// median over rounds (5 by default, the fewest a verdict is given on) in
// which every measured run is made once, in turn, the order reversed from
// one round to the next; the load average is printed after each round.
//
//   - session: the 20 000 delay jobs of make bench-batsim (bucma workload
//     delays --jobs 20000 --hosts 128 --load 0.95 --seed 1, on a 128-host
//     star), run in this process with fcfs deciding, and answered by
//     fcfs's recorded replies (sim.Replay: the engine alone), -pairs
//     times each in a round, alternated. What fcfs costs above its
//     replay, within each pair, over the messages of a run (the median of
//     a round's pairs, then of the rounds), is what the session's machinery
//     costs a message (fcfs decides next to nothing): target at most 1 µs.
//   - 1M: a million jobs on Lille (bucma workload lille --jobs 1000000
//     --seed 1), spread and all submitted at once, through bucma simulate
//     with each policy: fcfs and easy at most 8 s of CPU, every policy at
//     most 15 s, the peak resident set at most 600 MiB. The floors under
//     them, measured in this process with fcfs's recorded replies: the
//     reading of the workload, and the engine answered by the replies
//     (reading, simulating, writing).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/internal/benchutil"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/workloads"
)

// The targets.
const (
	sessionTarget = 1e-6 // s a message
	fastTarget    = 8.0  // s, fcfs and easy on a million jobs
	allTarget     = 15.0 // s, every policy on a million jobs
	peakTarget    = 600  // MiB
)

func main() {
	cases := flag.String("cases", "session 1M", "the cases to measure: session, 1M")
	rounds := flag.Int("rounds", benchutil.MinRounds, "rounds of the session case")
	pairs := flag.Int("pairs", 3, "runs of fcfs and of its replay in each round of the session case (alternated; the round's figure is the median of their differences)")
	rounds1M := flag.Int("rounds-1m", benchutil.MinRounds, "rounds of the million-job case")
	pols := flag.String("policies", "fcfs easy minmin maxmin wtrust bucma5302 bucma4303 bucma", "the policies run on a million jobs")
	once := flag.String("1m-cases", "spread once", "the million-job cases: spread, once")
	floors := flag.Bool("floors", true, "measure the floors under the million-job runs (in this process: about a minute and 1.5 GB a case)")
	cpuLimit := flag.Int("cpu-limit", 120, "stop a million-job run after this many seconds of CPU (prlimit)")
	bucma := flag.String("bucma", "bin/bucma", "the bucma binary")
	work := flag.String("work", "", "directory for the workloads and outputs (default: a temporary one; the million-job workloads are kept there for the next run)")
	flag.Parse()
	if err := run(strings.Fields(*cases), *rounds, *pairs, *rounds1M, strings.Fields(*pols), strings.Fields(*once), *floors, *cpuLimit, *bucma, *work); err != nil {
		fmt.Fprintln(os.Stderr, "bench-engine:", err)
		os.Exit(1)
	}
}

func run(cases []string, rounds, pairs, rounds1M int, pols, once []string, floors bool, cpuLimit int, bucma, work string) error {
	if rounds < 1 || pairs < 1 || rounds1M < 1 {
		return fmt.Errorf("-rounds %d, -pairs %d, -rounds-1m %d: want at least 1", rounds, pairs, rounds1M)
	}
	for _, c := range cases {
		if c != "session" && c != "1M" {
			return fmt.Errorf("-cases: unknown case %q (session, 1M)", c)
		}
	}
	if slices.Contains(cases, "1M") {
		var err error
		if bucma, err = benchutil.Binary(bucma); err != nil {
			return err
		}
	}
	work, cleanup, err := benchutil.WorkDir(work, "bench-engine")
	if err != nil {
		return err
	}
	defer cleanup()
	if !slices.Contains(cases, "1M") {
		bucma = "" // not run
	}
	benchutil.Header(bucma)
	fmt.Println()
	for _, c := range cases {
		switch c {
		case "session":
			err = session(work, rounds, pairs)
		case "1M":
			err = million(work, bucma, rounds1M, pols, once, floors, cpuLimit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// session measures the session's machinery: fcfs against its replay.
func session(work string, rounds, pairs int) error {
	dir := filepath.Join(work, "session")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	plat, err := platforms.Parse(strings.NewReader(string(platforms.Star(128))), "star128")
	if err != nil {
		return err
	}
	w, err := workloads.GenerateDelays(workloads.DelaysOptions{Jobs: 20000, Hosts: 128, Load: 0.95, Seed: 1})
	if err != nil {
		return err
	}
	wl := filepath.Join(dir, "20k.json")
	if err := w.WriteFile(wl); err != nil {
		return err
	}
	e := &benchutil.Engine{Platform: plat, Workload: wl, Registry: policies.Builtin(), Policy: "fcfs", Dir: dir}
	if err := e.Record(); err != nil {
		return err
	}
	fmt.Printf("## session: the 20 000 delay jobs of make bench-batsim, in this process, fcfs against its replay (%d messages a run), %d rounds of %d pairs\n\n", e.Messages(), rounds, pairs)
	var decided, replayed, perMsg []float64
	for r := 0; r < rounds; r++ {
		// A round is pairs runs of each, alternated; its figure, the
		// median of the differences within its pairs.
		var diffs []float64
		for k := 0; k < pairs; k++ {
			var d, p float64
			var err error
			if (r+k)%2 == 0 {
				if d, err = e.Decide(); err == nil {
					p, err = e.Replay()
				}
			} else {
				if p, err = e.Replay(); err == nil {
					d, err = e.Decide()
				}
			}
			if err != nil {
				return err
			}
			decided, replayed = append(decided, d), append(replayed, p)
			diffs = append(diffs, (d-p)/float64(e.Messages()))
		}
		perMsg = append(perMsg, benchutil.Median(diffs))
		fmt.Printf("round %d: %.2f µs a message (pairs: fcfs %s s, its replay %s s); load %s\n", r+1, 1e6*perMsg[r],
			benchutil.Range(decided[len(decided)-pairs:], "%.3f"), benchutil.Range(replayed[len(replayed)-pairs:], "%.3f"), benchutil.LoadAvg())
	}
	m := benchutil.Median(perMsg)
	fmt.Printf("\nfcfs %.3f s (%s), its replay %.3f s (%s), medians (ranges) of CPU time\n",
		benchutil.Median(decided), benchutil.Range(decided, "%.3f"), benchutil.Median(replayed), benchutil.Range(replayed, "%.3f"))
	fmt.Printf("the session's machinery (fcfs less its replay, within each round): %.2f µs a message (target <= %g µs: %s)\n\n",
		1e6*m, 1e6*sessionTarget, benchutil.Verdict(m <= sessionTarget, rounds))
	return nil
}

// million runs bucma simulate on a million jobs with each policy.
func million(work, bucma string, rounds int, pols, cases []string, floors bool, cpuLimit int) error {
	plat, err := platforms.Resolve("lille")
	if err != nil {
		return err
	}
	files := map[string]string{}
	for _, c := range cases {
		if c != "spread" && c != "once" {
			return fmt.Errorf("-1m-cases: unknown case %q (spread, once)", c)
		}
		f := filepath.Join(work, "1M-"+c+".json")
		files[c] = f
		if st, err := os.Stat(f); err == nil && st.Size() > 0 {
			continue // kept from an earlier run in the same directory
		}
		args := []string{"workload", "lille", "--jobs", "1000000", "--seed", "1", "-o", f}
		if c == "once" {
			args = append(args, "--at-once")
		}
		if out, err := exec.Command(bucma, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("bucma %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	prlimit, _ := exec.LookPath("prlimit")
	fmt.Printf("## 1M: bucma workload lille --jobs 1000000 --seed 1 (and --at-once) on -p lille, bucma simulate, %d rounds\n\n", rounds)
	type key struct{ c, p string }
	cpu, peak := map[key][]float64{}, map[key][]float64{}
	stopped := map[key]string{}
	var runs []key
	for _, c := range cases {
		for _, p := range pols {
			runs = append(runs, key{c, p})
		}
	}
	for r := 0; r < rounds; r++ {
		for _, k := range runs {
			argv := []string{bucma, "simulate", "-q", "-p", "lille", "-w", files[k.c], "--scheduler", k.p, "-e", filepath.Join(work, "1M-"+k.c+"-"+k.p)}
			if prlimit != "" {
				argv = append([]string{prlimit, fmt.Sprintf("--cpu=%d", cpuLimit), "--"}, argv...)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				stopped[k] = fmt.Sprintf("stopped or failed (%v; CPU limit %d s): %s", err, cpuLimit, benchutil.FirstLine(string(out)))
				continue
			}
			cpu[k] = append(cpu[k], benchutil.CPU(cmd.ProcessState))
			peak[k] = append(peak[k], benchutil.PeakMiB(cmd.ProcessState))
		}
		slices.Reverse(runs)
		fmt.Printf("round %d done, load %s\n", r+1, benchutil.LoadAvg())
	}
	fmt.Println()
	fmt.Println("| case | policy | CPU s (median) | CPU s (range) | peak MiB (median) | target | verdict |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, c := range cases {
		for _, p := range pols {
			k := key{c, p}
			limit := allTarget
			if p == "fcfs" || p == "easy" {
				limit = fastTarget
			}
			if msg, ok := stopped[k]; ok {
				fmt.Printf("| %s | %s | %s | | | <= %g s, <= %d MiB | NOT REACHED |\n", c, p, msg, limit, peakTarget)
				continue
			}
			mc, mp := benchutil.Median(cpu[k]), benchutil.Median(peak[k])
			fmt.Printf("| %s | %s | %.2f | %s | %.0f | <= %g s, <= %d MiB | %s |\n", c, p, mc, benchutil.Range(cpu[k], "%.2f"), mp,
				limit, peakTarget, benchutil.Verdict(mc <= limit && mp <= peakTarget, len(cpu[k])))
		}
	}
	fmt.Println()
	if !floors {
		return nil
	}
	for _, c := range cases {
		e := &benchutil.Engine{Platform: plat, Workload: files[c], Registry: policies.Builtin(), Policy: "fcfs", Dir: filepath.Join(work, "floor-"+c)}
		if err := os.MkdirAll(e.Dir, 0o755); err != nil {
			return err
		}
		begin := time.Now()
		if err := e.Record(); err != nil {
			return err
		}
		read, err := e.Read()
		if err != nil {
			return err
		}
		floor, err := e.Replay()
		if err != nil {
			return err
		}
		fmt.Printf("floors, %s (in this process, fcfs's replies, one run each, %.0f s in all): reading %.2f s, the engine answered by the replies %.2f s (reading included; %d messages), load %s\n",
			c, time.Since(begin).Seconds(), read, floor, e.Messages(), benchutil.LoadAvg())
	}
	fmt.Println()
	return nil
}
