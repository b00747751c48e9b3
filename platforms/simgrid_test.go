package platforms

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The routes of the loader are compared with the routes of SimGrid 3.32
// itself (the version Batsim 4.2.1 runs on), through a small C++ program,
// internal/sgroutes, built when g++ and SimGrid's headers and library are
// present (Debian: apt-get install libsimgrid-dev).

var updateGoldens = flag.Bool("update-sg-goldens", false, "rewrite testdata/routes/*.golden from SimGrid's output")

// sgRoute is what SimGrid gives for one ordered pair of hosts.
type sgRoute struct {
	kind    byte // 'R' a route, 'E' an exception, 'C' SimGrid crashed
	links   []string
	latency float64
	msg     string
}

type sgLink struct {
	bandwidth, latency float64
	policy             string
}

// sgResult is SimGrid's view of one platform.
type sgResult struct {
	refused string // why SimGrid refuses the platform ("" when it loads it)
	hosts   []string
	links   map[string]sgLink
	routes  map[[2]string]sgRoute
	order   [][2]string // pairs in the order SimGrid answered them
}

type sgOracle struct {
	bin string
}

// TestMain removes the oracle built by the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if oracle != nil {
		os.RemoveAll(filepath.Dir(oracle.bin))
	}
	os.Exit(code)
}

var (
	oracleOnce sync.Once
	oracle     *sgOracle
	oracleWhy  string
)

// simgridOracle builds internal/sgroutes once, or skips the test with one
// line telling why it cannot.
func simgridOracle(t testing.TB) *sgOracle {
	t.Helper()
	oracleOnce.Do(func() {
		gxx, err := exec.LookPath("g++")
		if err != nil {
			oracleWhy = "g++ not found"
			return
		}
		dir, err := os.MkdirTemp("", "sgroutes")
		if err != nil {
			oracleWhy = err.Error()
			return
		}
		bin := filepath.Join(dir, "sgroutes")
		out, err := exec.Command(gxx, "-O1", "-std=c++17", "-o", bin, filepath.Join("internal", "sgroutes", "sgroutes.cpp"), "-lsimgrid").CombinedOutput()
		if err != nil {
			first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
			oracleWhy = "cannot build the SimGrid oracle (SimGrid headers or library missing? apt-get install libsimgrid-dev): " + first
			return
		}
		oracle = &sgOracle{bin: bin}
	})
	if oracle == nil {
		t.Skip("SimGrid comparison skipped: " + oracleWhy)
	}
	return oracle
}

// run asks SimGrid for the routes between the given pairs (nil: every
// ordered pair of hosts). When SimGrid aborts on a pair, that pair is
// recorded as a crash and SimGrid is started again on the following ones.
func (o *sgOracle) run(t testing.TB, file string, pairs [][2]string) sgResult {
	t.Helper()
	res := sgResult{links: map[string]sgLink{}, routes: map[[2]string]sgRoute{}}
	all := pairs == nil
	for first := true; first || len(pairs) > 0; first = false {
		var in bytes.Buffer
		if all && first {
			in.WriteString("*\n")
		}
		for _, p := range pairs {
			fmt.Fprintf(&in, "%s %s\n", p[0], p[1])
		}
		// SimGrid loops forever on some routes: a pair gets a few seconds.
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+len(pairs)/1000)*time.Second)
		cmd := exec.CommandContext(ctx, o.bin, file)
		cmd.Stdin = &in
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr := cmd.Run()
		if ctx.Err() != nil {
			runErr = fmt.Errorf("no answer after %v (SimGrid loops forever)", time.Duration(5+len(pairs)/1000)*time.Second)
		}
		cancel()
		loaded, answered := false, 0
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			line := sc.Text()
			kind, rest, _ := strings.Cut(line, " ")
			switch kind {
			case "F":
				res.refused = rest
				return res
			case "P":
				loaded = true
				if first {
					res.hosts = strings.Fields(rest)
					if all {
						for _, s := range res.hosts {
							for _, d := range res.hosts {
								pairs = append(pairs, [2]string{s, d})
							}
						}
					}
				}
			case "L", "R", "E":
				if res.add(kind, rest) {
					answered++
				}
			}
		}
		if !loaded {
			res.refused = fmt.Sprintf("SimGrid aborted while loading (%v): %s", runErr, firstCritical(stderr.String()))
			return res
		}
		pairs = pairs[answered:]
		if runErr == nil {
			break
		}
		if len(pairs) == 0 {
			t.Fatalf("%s: SimGrid failed after its last route: %v: %s", file, runErr, stderr.String())
		}
		res.routes[pairs[0]] = sgRoute{kind: 'C', msg: fmt.Sprintf("%v: %s", runErr, firstCritical(stderr.String()))}
		res.order = append(res.order, pairs[0])
		pairs = pairs[1:]
		all = false
	}
	return res
}

// firstCritical is the first line of SimGrid's error output.
func firstCritical(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "(no message)"
}

// sgStats counts what a comparison covered.
type sgStats struct {
	platforms, refused, pairs   int
	routes, exceptions, crashes int
	undeclared                  int
}

// sgTotal sums the counts of comparisons run in parallel.
type sgTotal struct {
	mu sync.Mutex
	sgStats
}

func (s *sgTotal) add(o sgStats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.platforms += o.platforms
	s.refused += o.refused
	s.pairs += o.pairs
	s.routes += o.routes
	s.exceptions += o.exceptions
	s.crashes += o.crashes
	s.undeclared += o.undeclared
}

func (s *sgStats) String() string {
	return fmt.Sprintf("%d platforms (%d refused by SimGrid and by the loader), %d ordered host pairs: %d routes (%d with an undeclared part), %d SimGrid exceptions, %d SimGrid crashes",
		s.platforms, s.refused, s.pairs, s.routes, s.undeclared, s.exceptions, s.crashes)
}

// compareWithSimGrid loads the platform with the loader and checks every
// route SimGrid gave: the same links (names, bandwidths, latencies, sharing
// policies) in the same order and the same latency, bit for bit; an error
// where SimGrid throws or crashes; a refusal where SimGrid refuses.
func compareWithSimGrid(t *testing.T, file string, sg sgResult) sgStats {
	t.Helper()
	st := sgStats{platforms: 1}
	p, err := Load(file)
	if err != nil && strings.Contains(err.Error(), "Cannot find the master host") && len(sg.hosts) > 0 {
		p, err = LoadOptions(file, Options{MasterHost: sg.hosts[0]}) // a platform without a master role
	}
	if sg.refused != "" {
		if err == nil {
			t.Errorf("SimGrid refuses the platform (%s) but Load accepts it", sg.refused)
			return st
		}
		st.refused++
		return st
	}
	if err != nil {
		t.Errorf("Load: %v (SimGrid loads the platform)", err)
		return st
	}
	links := map[string]Link{}
	for _, l := range p.Links() {
		links[l.Name] = l
	}
	for name, w := range sg.links {
		l, ok := links[name]
		switch {
		case !ok:
			t.Errorf("link %s: missing from Links()", name)
		case math.Float64bits(l.Bandwidth) != math.Float64bits(w.bandwidth) || math.Float64bits(l.Latency) != math.Float64bits(w.latency) ||
			l.Fatpipe != (w.policy == "FATPIPE"):
			t.Errorf("link %s: got bandwidth %.17g latency %.17g fatpipe %v, SimGrid %.17g %.17g %s",
				name, l.Bandwidth, l.Latency, l.Fatpipe, w.bandwidth, w.latency, w.policy)
		}
	}
	all := p.Links()
	failures := 0
	for _, key := range sg.order {
		w := sg.routes[key]
		st.pairs++
		ids, lat, err := p.Route(key[0], key[1])
		var problem string
		switch w.kind {
		case 'R':
			st.routes++
			if err != nil && !errors.Is(err, ErrUndeclaredRoute) {
				problem = fmt.Sprintf("Route fails (%v); SimGrid: %v latency %.17g", err, w.links, w.latency)
				break
			}
			if err != nil {
				st.undeclared++
			}
			names := make([]string, len(ids))
			for i, id := range ids {
				names[i] = all[id].Name
			}
			if strings.Join(names, " ") != strings.Join(w.links, " ") || math.Float64bits(lat) != math.Float64bits(w.latency) {
				problem = fmt.Sprintf("got %v latency %.17g; SimGrid %v latency %.17g", names, lat, w.links, w.latency)
			}
		default:
			if w.kind == 'E' {
				st.exceptions++
			} else {
				st.crashes++
			}
			if err == nil || errors.Is(err, ErrUndeclaredRoute) {
				problem = fmt.Sprintf("got a route (%v, err %v); SimGrid fails: %s", ids, err, w.msg)
			}
		}
		if problem != "" {
			if failures++; failures <= 10 {
				t.Errorf("route %s -> %s: %s", key[0], key[1], problem)
			}
		}
	}
	if failures > 10 {
		t.Errorf("... %d routes differ in all", failures)
	}
	return st
}

// golden writes SimGrid's answer in the oracle's own output format (plus
// "C src dst message" for a crash), so that it can be compared again
// without SimGrid.
func (r sgResult) golden() string {
	var b strings.Builder
	if r.refused != "" {
		fmt.Fprintf(&b, "F %s\n", r.refused)
		return b.String()
	}
	fmt.Fprintf(&b, "P %s\n", strings.Join(r.hosts, " "))
	seen := map[string]bool{}
	for _, key := range r.order {
		w := r.routes[key]
		switch w.kind {
		case 'R':
			for _, l := range w.links {
				if !seen[l] {
					seen[l] = true
					sl := r.links[l]
					fmt.Fprintf(&b, "L %s %s %s %s\n", l, fmtFloat(sl.bandwidth), fmtFloat(sl.latency), sl.policy)
				}
			}
			fmt.Fprintf(&b, "R %s %s %s %d", key[0], key[1], fmtFloat(w.latency), len(w.links))
			for _, l := range w.links {
				b.WriteString(" " + l)
			}
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "%c %s %s %s\n", w.kind, key[0], key[1], w.msg)
		}
	}
	return b.String()
}

// fmtFloat prints like C's %.17g.
func fmtFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// add reads one "L", "R", "E" or "C" line of the oracle or of a golden
// file; it tells whether the line answered a pair.
func (r *sgResult) add(kind, rest string) bool {
	f := strings.Fields(rest)
	if kind == "L" {
		bw, _ := strconv.ParseFloat(f[1], 64)
		lat, _ := strconv.ParseFloat(f[2], 64)
		r.links[f[0]] = sgLink{bandwidth: bw, latency: lat, policy: f[3]}
		return false
	}
	key := [2]string{f[0], f[1]}
	route := sgRoute{kind: kind[0]}
	if kind == "R" {
		route.latency, _ = strconv.ParseFloat(f[2], 64)
		route.links = f[4:]
	} else {
		route.msg = strings.Join(f[2:], " ")
	}
	r.routes[key] = route
	r.order = append(r.order, key)
	return true
}

// parseGolden reads what golden wrote.
func parseGolden(data string) sgResult {
	res := sgResult{links: map[string]sgLink{}, routes: map[[2]string]sgRoute{}}
	for _, line := range strings.Split(strings.TrimRight(data, "\n"), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "F":
			res.refused = rest
		case "P":
			res.hosts = strings.Fields(rest)
		case "L", "R", "E", "C":
			res.add(kind, rest)
		}
	}
	return res
}
