// Command benchbatsim measures bucma against batsched on the real Batsim,
// in one run, on the same generated workload: Batsim's scheduling_time
// (the time it waits for the scheduler's answers), the scheduler's CPU
// time, and Batsim's wall time; then bucma's embedded
// engine on the same inputs. It prints each target of the speed work as a
// measured ratio: bucma's scheduling_time over batsched easy_bf_fast's
// (target at most 0.3) and Batsim + easy_bf_fast's wall time over the
// engine's (target at least 100). `make bench-batsim` runs it.
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"bucma/internal/batsimrun"
)

func main() {
	jobs := flag.Int("jobs", 20000, "jobs of the generated delay workload")
	hosts := flag.Int("hosts", 128, "hosts of the generated platform")
	load := flag.Float64("load", 0.95, "offered load of the workload")
	reps := flag.Int("reps", 3, "runs of each scheduler (alternated); the median is reported")
	seed := flag.Uint64("seed", 1, "seed of the workload")
	bucma := flag.String("bucma", "bin/bucma", "the bucma binary")
	keep := flag.String("keep", "", "keep the inputs and outputs in this directory")
	flag.Parse()
	if err := run(*jobs, *hosts, *load, *reps, *seed, *bucma, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench-batsim:", err)
		os.Exit(1)
	}
}

// sample is one run's measures.
type sample struct {
	sched, wall, user, sys float64 // seconds
}

func run(njobs, nhosts int, load float64, reps int, seed uint64, bucma, keep string) error {
	batsim, err := batsimrun.Find("BATSIM", "batsim")
	if err != nil {
		return err
	}
	batsched, err := batsimrun.Find("BATSCHED", "batsched")
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
	if err := os.WriteFile(plat, platform(nhosts), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(wl, workload(njobs, nhosts, load, seed), 0o644); err != nil {
		return err
	}
	fmt.Printf("machine: %s, %d cores; %s\n", cpuModel(), runtime.NumCPU(), time.Now().Format("2006-01-02"))
	fmt.Printf("case: %d delay jobs, %d hosts, load %g, seed %d; Batsim %s; %d runs each, medians\n\n", njobs, nhosts, load, seed, batsim, reps)

	scheds := []struct {
		name string
		argv func(ep string) []string
	}{
		{"bucma easy (hosts=first-fit)", func(ep string) []string {
			return []string{bucma, "run", "--scheduler", "easy", "-o", "hosts=first-fit", "-s", ep}
		}},
		{"batsched easy_bf_fast", func(ep string) []string { return []string{batsched, "-v", "easy_bf_fast", "-s", ep} }},
	}
	samples := make([][]sample, len(scheds))
	o := batsimrun.Options{Batsim: batsim, Timeout: 30 * time.Minute}
	for r := 0; r < reps; r++ {
		for i, s := range scheds {
			out := filepath.Join(dir, fmt.Sprintf("run%d-%d", i, r))
			res, err := batsimrun.WithScheduler(context.Background(), o, s.argv, plat, wl, out)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			st, err := schedulingTime(filepath.Join(out, "out_schedule.csv"))
			if err != nil {
				return err
			}
			ru := res.Scheduler.SysUsage().(*syscall.Rusage)
			samples[i] = append(samples[i], sample{sched: st, wall: res.Wall.Seconds(),
				user: tv(ru.Utime), sys: tv(ru.Stime)})
		}
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

	fmt.Println("| scheduler | Batsim scheduling_time (s) | Batsim wall (s) | scheduler user CPU (s) | scheduler sys CPU (s) |")
	fmt.Println("|---|---|---|---|---|")
	meds := make([]sample, len(scheds))
	for i, s := range scheds {
		m := sample{
			sched: median(samples[i], func(x sample) float64 { return x.sched }),
			wall:  median(samples[i], func(x sample) float64 { return x.wall }),
			user:  median(samples[i], func(x sample) float64 { return x.user }),
			sys:   median(samples[i], func(x sample) float64 { return x.sys }),
		}
		meds[i] = m
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", s.name, m.sched, m.wall, m.user, m.sys)
	}
	eng := median(engine, func(x float64) float64 { return x })
	fmt.Printf("| bucma simulate (embedded engine, easy) | | %.3f | | |\n\n", eng)
	ratio := meds[0].sched / meds[1].sched
	speed := meds[1].wall / eng
	fmt.Printf("scheduling_time, bucma / batsched easy_bf_fast: %.3f (target <= 0.3: %s)\n", ratio, verdict(ratio <= 0.3))
	fmt.Printf("Batsim + easy_bf_fast wall / embedded engine wall: %.0fx (target >= 100x: %s)\n", speed, verdict(speed >= 100))
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "holds"
	}
	return "NOT REACHED"
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return math.NaN()
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

// platform is n hosts of 1 Gflop/s, each linked to the master (10 µs).
func platform(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<host id=\"h%04d\" speed=\"1e9f\"/>\n", i)
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<link id=\"l%d\" bandwidth=\"10GBps\" latency=\"10us\"/>\n", i)
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<route src=\"master\" dst=\"h%04d\"><link_ctn id=\"l%d\"/></route>\n", i, i)
	}
	b.WriteString("</zone></platform>\n")
	return []byte(b.String())
}

// workload is n delay jobs: sizes from {1,1,2,4,8,16,32,64} (at most the
// hosts), run times 1 + Exp(mean 600 s), walltimes 1 to 3 times the run
// time, Poisson arrivals at the rate that offers the given load.
func workload(n, hosts int, load float64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x62656e6368))
	sizes := []int{1, 1, 2, 4, 8, 16, 32, 64}
	res := make([]int, n)
	rt := make([]float64, n)
	area := 0.0
	for i := range res {
		res[i] = min(sizes[r.IntN(len(sizes))], hosts)
		rt[i] = math.Round((1+r.ExpFloat64()*600)*1000) / 1000
		area += float64(res[i]) * rt[i]
	}
	gap := area / (load * float64(hosts)) / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `{"nb_res":%d,"jobs":[`, hosts)
	t := 0.0
	for i := 0; i < n; i++ {
		t += r.ExpFloat64() * gap
		if i > 0 {
			b.WriteByte(',')
		}
		wt := math.Round(rt[i]*(1+2*r.Float64())*1000) / 1000
		fmt.Fprintf(&b, `{"id":"%d","subtime":%.3f,"res":%d,"profile":"d%d","walltime":%g}`, i, t, res[i], i, wt)
	}
	b.WriteString(`],"profiles":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"type":"delay","delay":%g}`, i, rt[i])
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}
