// Package benchutil holds what the speed benchmarks (cmd/benchbatsim,
// cmd/benchengine) share: CPU times as the operating system counts them
// (user + system), medians over rounds, the machine and its load, and the
// verdicts they print.
//
// A target is judged on CPU times measured in the same run, in rounds that
// alternate the runs compared, as the median over at least MinRounds
// rounds: on a machine shared with other work the wall time grows with the
// load, the CPU time much less, and a ratio of CPU times measured minutes
// apart less still.
package benchutil

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"
)

// MinRounds is the fewest rounds a verdict is given on.
const MinRounds = 5

// CPU is a process's CPU time, user and system, in seconds.
func CPU(ps *os.ProcessState) float64 {
	if ps == nil {
		return math.NaN()
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// PeakMiB is the peak resident set of a process that ended, in MiB.
func PeakMiB(ps *os.ProcessState) float64 {
	if ps == nil {
		return math.NaN()
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	return math.NaN()
}

// SelfCPU is this process's CPU time so far, user and system, in seconds
// (every thread: the garbage collector's included).
func SelfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// Median is the median of v (NaN when empty).
func Median(v []float64) float64 {
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

// Range formats the least and greatest of v ("a-b", or "a" when equal).
func Range(v []float64, format string) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format+"-"+format, lo, hi)
}

// Verdict is a target's verdict: "holds", "NOT REACHED", or no verdict at
// all when fewer than MinRounds rounds were run.
func Verdict(ok bool, rounds int) string {
	switch {
	case rounds < MinRounds:
		return fmt.Sprintf("no verdict: %d rounds, a verdict needs %d", rounds, MinRounds)
	case ok:
		return "holds"
	}
	return "NOT REACHED"
}

// LoadAvg is the system's load average over 1, 5 and 15 minutes, as
// /proc/loadavg gives it ("unknown" where there is none).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// Machine describes the machine: processor, cores, memory, kernel, and
// the date.
func Machine() string {
	return fmt.Sprintf("%s, %d cores, %s RAM, %s; %s", cpuModel(), runtime.NumCPU(), memTotal(), kernel(), time.Now().Format("2006-01-02 15:04"))
}

func cpuModel() string {
	return procField("/proc/cpuinfo", "model name", runtime.GOARCH)
}

func memTotal() string {
	v := procField("/proc/meminfo", "MemTotal", "")
	var kb float64
	if _, err := fmt.Sscanf(v, "%f kB", &kb); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GB", kb/(1<<20))
}

// procField is the value of the first "key: value" line of a /proc file.
func procField(path, key, def string) string {
	f, err := os.Open(path)
	if err != nil {
		return def
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return def
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

// FirstLine is the first line of s, spaces trimmed.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// WorkDir is dir, made if missing, or a new temporary directory (named
// after pattern) when dir is "", which cleanup removes.
func WorkDir(dir, pattern string) (path string, cleanup func(), err error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	if dir, err = os.MkdirTemp("", pattern); err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// Header prints the machine, the bucma binary's version (when it runs),
// this program's commit (what it measures in its own process) and the load
// at the start.
func Header(bucma string) {
	fmt.Printf("machine: %s\n", Machine())
	if bucma != "" {
		if version, err := exec.Command(bucma, "--version").Output(); err == nil {
			fmt.Printf("bucma:   %s (%s)\n", FirstLine(string(version)), bucma)
		}
	}
	rev, dirty := "unknown", ""
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = ", with changes not committed"
			}
		}
	}
	if rev == "unknown" {
		// Built without the VCS stamp: the checkout it is run from (the
		// scripts build it from the tree they run in).
		if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
			rev = strings.TrimSpace(string(out)) + " (the checkout it runs in)"
			if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
				dirty = ", with changes not committed"
			}
		}
	}
	fmt.Printf("this program (the in-process measures): commit %s%s, %s\n", rev, dirty, runtime.Version())
	fmt.Printf("load:    %s (1, 5, 15 min) at the start\n", LoadAvg())
}

// Binary is the absolute path of the bucma binary at path, which must
// exist.
func Binary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("bucma binary: %w (make build)", err)
	}
	return abs, nil
}
