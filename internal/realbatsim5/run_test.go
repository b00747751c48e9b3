package realbatsim5

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/internal/checkfixture"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// Version is the Batsim 5 release the tier is written against.
const Version = "5.0.0-rc2"

var tmpRoot string

// asBucmaEnv, set to 1, makes this test binary bucma's command line: the
// tests start it as bucma run.
const asBucmaEnv = "BUCMA_REALBATSIM5_AS_BUCMA"

func TestMain(m *testing.M) {
	checkfixture.ServeIfAsked() // the broken processes bucma check is tested on
	if os.Getenv(asBucmaEnv) == "1" {
		os.Exit(cli.Main(append([]string{"bucma"}, os.Args[1:]...), policies.Builtin()))
	}
	dir, err := os.MkdirTemp("", "realbatsim5-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	code := m.Run()
	if os.Getenv("BUCMA_KEEP") == "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// batsim5 returns the Batsim 5 executable, or skips t with one line.
func batsim5(t testing.TB) string {
	t.Helper()
	p, err := batsimrun.Find("BATSIM5", "batsim5")
	if err != nil {
		t.Skipf("Batsim 5 tier skipped: %v (install Batsim %s as batsim5 on PATH, or name it in BATSIM5)", err, Version)
	}
	return p
}

// edcDir is the directory of Batsim 5's own test decision components.
func edcDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("BATSIM5_EDC")
	if d == "" {
		d = "/opt/batsim5/lib/batsim-edc"
	}
	if _, err := os.Stat(filepath.Join(d, "libfcfs.so")); err != nil {
		t.Skipf("Batsim 5 test EDCs skipped: %s has no libfcfs.so (BATSIM5_EDC names the directory)", d)
	}
	return d
}

var (
	libOnce sync.Once
	libPath string
	libErr  error
)

// library builds cmd/libbucma once per test run.
func library(t testing.TB) string {
	t.Helper()
	libOnce.Do(func() {
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if p, err := exec.LookPath("go"); err == nil {
			gobin = p
		}
		libPath = filepath.Join(tmpRoot, "libbucma.so")
		cmd := exec.Command(gobin, "build", "-buildmode=c-shared", "-o", libPath, "github.com/bucma-sched/bucma/cmd/libbucma")
		if out, err := cmd.CombinedOutput(); err != nil {
			libErr = fmt.Errorf("go build -buildmode=c-shared ./cmd/libbucma: %v\n%s", err, out)
		}
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libPath
}

// result is one finished Batsim 5 run.
type result struct {
	Dir      string
	Jobs     []byte // jobs.csv
	Schedule []byte // schedule.json
	Log      string // Batsim's output (its end)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// boundedLog keeps the last part of what is written to it.
type boundedLog struct {
	mu  sync.Mutex
	b   []byte
	max int
	// Switches counts Batsim's "Switching machine" lines (power switches).
	switches int
}

func (l *boundedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.switches += bytes.Count(p, []byte("Switching machine"))
	l.b = append(l.b, p...)
	if len(l.b) > 2*l.max {
		l.b = append([]byte(nil), l.b[len(l.b)-l.max:]...)
	}
	return len(p), nil
}

func (l *boundedLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return string(l.b) }

func batsim5Cmd(ctx context.Context, bin, plat, wl, dir string, edcArgs, extra []string) *exec.Cmd {
	args := append([]string{"-p", plat, "-w", wl}, edcArgs...)
	args = append(args, "-e", dir+string(filepath.Separator))
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func collect(dir string, log *boundedLog, runErr error) (*result, int, error) {
	r := &result{Dir: dir, Log: log.String()}
	var err error
	if r.Jobs, err = os.ReadFile(filepath.Join(dir, "jobs.csv")); err != nil && runErr == nil {
		runErr = err
	}
	r.Schedule, _ = os.ReadFile(filepath.Join(dir, "schedule.json"))
	if runErr != nil {
		return r, log.switches, fmt.Errorf("%w\nBatsim 5's output (end):\n%s", runErr, tail(r.Log, 3000))
	}
	return r, log.switches, nil
}

// viaLibrary runs Batsim 5 with a decision component library (bucma's or
// one of Batsim's) and its init string.
func viaLibrary(t testing.TB, lib, plat, wl, dir, init string, extra ...string) (*result, int, error) {
	t.Helper()
	bin := batsim5(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	log := &boundedLog{max: 1 << 16}
	cmd := batsim5Cmd(ctx, bin, plat, wl, dir, []string{"-l", lib, init}, extra)
	cmd.Stdout, cmd.Stderr = log, log
	return collect(dir, log, cmd.Run())
}

// viaZMQ runs Batsim 5 against bucma's decision component served over
// ZeroMQ in this process (the path of bucma run), started from the init
// string as the library starts it.
func viaZMQ(t testing.TB, plat, wl, dir, init string, extra ...string) (*result, int, error) {
	t.Helper()
	return serveZMQ(t, nil, plat, wl, dir, init, extra...)
}

// serveZMQ is viaZMQ; observe, when set, sees every raw message.
func serveZMQ(t testing.TB, observe func(batsim.Direction, []byte), plat, wl, dir, init string, extra ...string) (*result, int, error) {
	t.Helper()
	bin := batsim5(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	quiet := slog.New(slog.DiscardHandler)
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: quiet, Observe: observe})
	if err != nil {
		return nil, 0, err
	}
	served := make(chan error, 1)
	go func() {
		served <- l.ServeV5(ctx, func(b []byte) (*v5.EDC, error) {
			e, _, err := run.New(b, policies.Builtin(), "test", quiet)
			return e, err
		})
	}()
	log := &boundedLog{max: 1 << 16}
	cmd := batsim5Cmd(ctx, bin, plat, wl, dir, []string{"-s", l.Endpoint(), init}, extra)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		cancel()
		<-served
		return nil, 0, err
	}
	ran := make(chan error, 1)
	go func() { ran <- cmd.Wait() }()
	runErr, serveErr := batsimrun.Await(ran, served, cancel)
	if serveErr != nil && !errors.Is(serveErr, zmq.ErrInterrupted) {
		return collect(dir, log, fmt.Errorf("decision component: %w", serveErr))
	}
	if runErr != nil {
		return collect(dir, log, fmt.Errorf("batsim5: %w", runErr))
	}
	return collect(dir, log, nil)
}

// transports are the two ways bucma serves Batsim 5, as runVia names them.
var transports = []string{"zmq", "library"}

// runVia runs Batsim 5 with bucma's decision component over transport via
// ("zmq": viaZMQ; "library": viaLibrary with lib).
func runVia(t testing.TB, via, lib, plat, wl, dir, init string, extra ...string) (*result, int, error) {
	t.Helper()
	if via == "zmq" {
		return viaZMQ(t, plat, wl, dir, init, extra...)
	}
	return viaLibrary(t, lib, plat, wl, dir, init, extra...)
}

// initString is bucma's init string for a policy and its options.
func initString(t testing.TB, policy string, opts map[string]string) string {
	t.Helper()
	in := map[string]any{"policy": policy}
	if len(opts) > 0 {
		in["options"] = opts
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeV5 converts a Batsim 4 workload to Batsim 5's format into dir.
func writeV5(t testing.TB, src, dir string) string {
	t.Helper()
	w, err := workloads.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return writeV5Workload(t, w, dir)
}

func writeV5Workload(t testing.TB, w *workloads.Workload, dir string) string {
	t.Helper()
	v, err := w.ToV5()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "workload-v5.json")
	if err := v.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func platformPath(name string) string { return filepath.Join("..", "..", "platforms", name+".xml") }

// row is one line of jobs.csv.
type row struct {
	ID, Workload, State, Start, Finish, Alloc string
}

func (r row) key() string { return r.Workload + "!" + r.ID }

func parseJobs(t testing.TB, b []byte) []row {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("jobs.csv: %v", err)
	}
	if len(recs) == 0 {
		t.Fatal("jobs.csv: empty")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"job_id", "workload_name", "final_state", "starting_time", "finish_time", "allocated_resources"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("jobs.csv: no column %s", h)
		}
	}
	out := make([]row, 0, len(recs)-1)
	for _, r := range recs[1:] {
		out = append(out, row{ID: r[col["job_id"]], Workload: r[col["workload_name"]], State: r[col["final_state"]],
			Start: r[col["starting_time"]], Finish: r[col["finish_time"]], Alloc: r[col["allocated_resources"]]})
	}
	return out
}

var finalStates = map[string]bool{
	v5.StateSuccess: true, v5.StateFailed: true, v5.StateWalltimeReached: true, v5.StateKilled: true, v5.StateRejected: true,
}

// checkComplete checks that every job of the static workload appears once
// in jobs.csv, in a final state.
func checkComplete(rows []row, w *workloads.Workload) error {
	seen := map[string]int{}
	for _, r := range rows {
		if !finalStates[r.State] {
			return fmt.Errorf("job %s: state %q is not final", r.key(), r.State)
		}
		seen[r.key()]++
	}
	for _, j := range w.Jobs {
		if n := seen["w0!"+j.ID]; n != 1 {
			return fmt.Errorf("job w0!%s appears %d times in jobs.csv", j.ID, n)
		}
	}
	return nil
}

// hosts parses an allocation ("0-3 7").
func hosts(alloc string) []int {
	var out []int
	for _, part := range strings.Fields(alloc) {
		a, b, found := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(a)
		hi := lo
		var err2 error
		if found {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil {
			continue
		}
		for h := lo; h <= hi; h++ {
			out = append(out, h)
		}
	}
	return out
}

// shared reports whether two jobs ran on one host at the same time.
func shared(rows []row) bool {
	type span struct{ a, b float64 }
	by := map[int][]span{}
	for _, r := range rows {
		if r.Start == "" {
			continue
		}
		a, _ := strconv.ParseFloat(r.Start, 64)
		b, _ := strconv.ParseFloat(r.Finish, 64)
		for _, h := range hosts(r.Alloc) {
			by[h] = append(by[h], span{a, b})
		}
	}
	for _, ss := range by {
		sort.Slice(ss, func(i, k int) bool { return ss[i].a < ss[k].a })
		for i := 1; i < len(ss); i++ {
			if ss[i].a < ss[i-1].b {
				return true
			}
		}
	}
	return false
}

// firstDiff describes the first differing line of two files.
func firstDiff(want, got []byte) string { return batsimrun.FirstDiff(want, got) }

// seeds is how many seeds the differential cases run (BUCMA_DIFF_SEEDS,
// default def).
func seeds(t testing.TB, def int) int { return batsimrun.Seeds(t, def) }
