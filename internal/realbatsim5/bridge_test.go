package realbatsim5

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/bridge"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// bridged is one run of a Batsim 4 decision process on Batsim 5 through
// bucma's bridge, and how each of the three processes ended.
type bridged struct {
	*result
	// BatsimErr is batsim5's Wait result, BridgeErr the bridge's (over
	// ZeroMQ: its Serve's, with its End's; as a library: nil).
	BatsimErr, BridgeErr error
	// ProcErr and ProcLog are the Batsim 4 process's Wait result and
	// output.
	ProcErr error
	ProcLog string
	// Hung is set when the guard expired before the three ended: they
	// were killed.
	Hung bool
	// Switches counts Batsim's power switches.
	Switches int
}

// viaBridge runs Batsim 5 against the Batsim 4 decision process argv
// starts (given the endpoint to bind), through the bridge: over ZeroMQ,
// served in this process as bucma bridge serves it (via "zmq"), or as
// bucma's shared library lib with the bridge's init string (via
// "library"). cfg is the bridge's configuration but for the endpoint. It
// waits for the three processes to end on their own; the guard kills them
// otherwise (Hung).
func viaBridge(t testing.TB, via, lib string, argv func(endpoint string) []string, cfg bridge.Config, plat, wl, dir string, extra ...string) (*bridged, error) {
	t.Helper()
	bin := batsim5(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var last error
	// The process binds the port it is given: a port found free may be
	// taken in between, so a run whose process could not bind is retried.
	for range 5 {
		r, err := bridgeOnce(bin, via, lib, argv, cfg, plat, wl, dir, extra)
		if err == nil && r.ProcErr != nil && strings.Contains(strings.ToLower(r.ProcLog), "address already in use") {
			last = errors.New("address already in use")
			continue
		}
		return r, err
	}
	return nil, last
}

func bridgeOnce(bin, via, lib string, argv func(endpoint string) []string, cfg bridge.Config, plat, wl, dir string, extra []string) (*bridged, error) {
	// A guard against a hang (what the failure tests pin), not a timing.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ep, err := check.FreeEndpoint()
	if err != nil {
		return nil, err
	}
	plog := &boundedLog{max: 1 << 16}
	args := argv(ep)
	proc := exec.CommandContext(ctx, args[0], args[1:]...)
	proc.Stdout, proc.Stderr = plog, plog
	proc.WaitDelay = 5 * time.Second
	if err := proc.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	procDone := make(chan error, 1)
	go func() { procDone <- proc.Wait() }()

	cfg.Endpoint = ep
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	blog := &boundedLog{max: 1 << 16}
	served := make(chan error, 1)
	var edcArgs []string
	if via == "library" {
		in := map[string]any{bridge.InitKey: ep, "enable-dynamic-jobs": cfg.DynamicJobs,
			"acknowledge-dynamic-jobs": cfg.AcknowledgeDynamicJobs, "forward-profiles-on-submission": cfg.ForwardProfiles,
			"enable-compute-sharing": cfg.ComputeSharing, "sched-cfg": cfg.SchedConfig}
		if cfg.ConnectTimeout > 0 {
			in["connect-timeout"] = cfg.ConnectTimeout.Seconds()
		}
		init, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		edcArgs = []string{"-l", lib, string(init)}
		served <- nil
	} else {
		l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: cfg.Log})
		if err != nil {
			return nil, err
		}
		edcArgs = []string{"-s", l.Endpoint(), ""}
		go func() {
			var p *bridge.Process
			err := l.ServeV5(ctx, func(init []byte) (*v5.EDC, error) {
				e, pp, err := bridge.New(ctx, cfg)
				p = pp
				return e, err
			})
			if p != nil {
				// However the simulation ended, the process is told.
				err = errors.Join(err, p.End(), p.Close())
			}
			served <- err
		}()
	}
	cmd := batsim5Cmd(ctx, bin, plat, wl, dir, edcArgs, extra)
	cmd.Stdout, cmd.Stderr = blog, blog
	r := &bridged{}
	if err := cmd.Start(); err != nil {
		cancel()
		<-served
		<-procDone
		return nil, err
	}
	r.BatsimErr = cmd.Wait()
	r.BridgeErr = <-served
	r.ProcErr = <-procDone
	r.Hung = ctx.Err() != nil
	r.ProcLog = plog.String()
	r.result, r.Switches, _ = collect(dir, blog, nil)
	return r, nil
}

// ok is the run's error, if any of the three processes failed or hung.
func (r *bridged) ok() error {
	switch {
	case r.Hung:
		return fmt.Errorf("a process did not end (killed by the guard)\nprocess: %s\nbatsim5: %s", tail(r.ProcLog, 1000), tail(r.Log, 2000))
	case r.BatsimErr != nil:
		return fmt.Errorf("batsim5: %v\n%s", r.BatsimErr, tail(r.Log, 2000))
	case r.BridgeErr != nil:
		return fmt.Errorf("bridge: %v", r.BridgeErr)
	case r.ProcErr != nil:
		return fmt.Errorf("the Batsim 4 process: %v\n%s", r.ProcErr, tail(r.ProcLog, 2000))
	}
	return nil
}

// batschedBridgeCases are batsched's variants run through the bridge,
// each with its twin (policies.BatschedVariants) and its Batsim 4 flags.
var batschedBridgeCases = []struct {
	variant string
	// vopts are batsched's --variant_options (a JSON object), "" for none.
	vopts string
	// energy runs the variant on the bot platform's energy bursts with
	// Batsim 5's energy model.
	energy bool
}{
	{variant: "easy_bf"},
	{variant: "conservative_bf"},
	{variant: "fcfs_fast"},
	{variant: "filler"},
	{variant: "energy_bf", energy: true, vopts: `{"power_compute":47.6845,"power_idle":23.75,"power_sleep":2.4375,"pstate_compute":0,"pstate_sleep":1,` +
		`"time_switch_on":151.52,"time_switch_off":6.1,"energy_switch_on":4741.6057,"energy_switch_off":154.02}`},
}

// TestBridgeBatsched: the real batsched 1.4.0, through the bridge on the
// real Batsim 5, writes the same jobs.csv as bucma's twin of the variant
// on Batsim 5, byte for byte: easy_bf, conservative_bf, fcfs_fast and
// filler on the seeded scenario workloads (bursts of simultaneous
// submissions, jobs bigger than the platform, walltimes shorter and
// longer than run times, computation and composed profiles, four platform
// shapes) and the bundled tiny workload on lille, over ZeroMQ; energy_bf
// (power states: SET_RESOURCE_STATE becomes TurnOnOffHosts) on the bot
// platform's energy bursts; one case of each through the shared library
// too. Where batsched stops on one of its own assertions (docs/batsched.md
// lists them), the run has no reference: the test checks that the three
// processes end, and counts the case apart.
func TestBridgeBatsched(t *testing.T) {
	batsim5(t)
	bs := batsimrun.Batsched(t)
	lib := library(t)
	root := filepath.Join(tmpRoot, "bridge-batsched")
	cases := twinWorkloads(t, root)
	tinyDir := filepath.Join(root, "tiny")
	cases = append(cases, struct{ name, plat, wl string }{"lille-tiny", platformPath("lille"), writeV5(t, tiny, tinyDir)})
	energyDir := filepath.Join(root, "energy-bursts")
	energyCase := struct{ name, plat, wl string }{"bot-energy-bursts", platformPath("bot"), writeV5(t, bursts, energyDir)}
	total, same, aborts := 0, 0, 0
	for _, c := range batschedBridgeCases {
		v, ok := policies.BatschedVariantByName(c.variant)
		if !ok {
			t.Fatalf("no twin of %s", c.variant)
		}
		opts := map[string]string{}
		for k, val := range v.Options {
			opts[k] = val
		}
		if c.energy {
			for k, val := range botSwitches {
				opts[k] = val
			}
			// "variant" is a reserved key of a sched-config, which the
			// init string's options are: batsched-energy's default
			// variant is energy_bf.
			delete(opts, "variant")
		}
		init := initString(t, v.Policy, opts)
		wls := cases
		var extra []string
		if c.energy {
			wls, extra = []struct{ name, plat, wl string }{energyCase}, energyOn
		}
		t.Run(c.variant, func(t *testing.T) {
			runs, identical, stops := 0, 0, 0
			defer func() {
				total, same, aborts = total+runs, same+identical, aborts+stops
				t.Logf("%s: %d runs, %d identical to the twin's, %d where batsched stops on its own assertion", c.variant, runs, identical, stops)
			}()
			for i, w := range wls {
				out := filepath.Join(filepath.Dir(w.wl), c.variant)
				twin, _, err := viaZMQ(t, w.plat, w.wl, filepath.Join(out, "twin"), init, extra...)
				if err != nil {
					t.Errorf("%s: the twin %s: %v", w.name, v.Policy, err)
					continue
				}
				argv := func(ep string) []string {
					a := []string{bs, "-v", c.variant, "-s", ep}
					if c.vopts != "" {
						a = append(a, "--variant_options", c.vopts)
					}
					return a
				}
				vias := []string{"zmq"}
				if i == 0 {
					vias = append(vias, "library")
				}
				for _, via := range vias {
					r, err := viaBridge(t, via, lib, argv, bridge.Config{}, w.plat, w.wl, filepath.Join(out, via), extra...)
					if err != nil {
						t.Fatalf("%s over %s: %v", w.name, via, err)
					}
					runs++
					if r.ProcErr != nil && strings.Contains(r.ProcLog, "Assertion") {
						// batsched stopped on its own assertion: no
						// reference, but every process ended.
						if r.Hung {
							t.Errorf("%s over %s: batsched stopped, but a process did not end", w.name, via)
						}
						stops++
						t.Logf("%s over %s: batsched stops on an assertion: %s", w.name, via, lastLine(r.ProcLog, "Assertion"))
						continue
					}
					if err := r.ok(); err != nil {
						t.Errorf("%s over %s: %v", w.name, via, err)
						continue
					}
					if !bytes.Equal(twin.Jobs, r.Jobs) {
						t.Errorf("%s over %s: batsched %s's jobs.csv differs from the twin's, %s", w.name, via, c.variant, firstDiff(twin.Jobs, r.Jobs))
						continue
					}
					if c.energy {
						if r.Switches == 0 {
							t.Errorf("%s over %s: batsched %s switched no host off", w.name, via, c.variant)
						}
						if a, b := joules5(t, twin.Schedule), joules5(t, r.Schedule); a != b {
							t.Errorf("%s over %s: batsched %s consumed %v J, the twin %v J", w.name, via, c.variant, b, a)
						}
					}
					identical++
				}
			}
		})
	}
	t.Logf("batsched through the bridge on Batsim 5: %d runs, %d with jobs.csv identical to the twin's on Batsim 5, %d where batsched stops on its own assertion", total, same, aborts)
}

// lastLine is the last line of s that holds sub.
func lastLine(s, sub string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], sub) {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// python returns a Python 3 that imports zmq (pyzmq: python3-zmq), or
// skips t with one line.
func python(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import zmq").Run() == nil {
			return path
		}
	}
	t.Skip("pyzmq fixture skipped: no python3 imports zmq (install python3-zmq)")
	return ""
}

// TestBridgePython: a pybatsim-style scheduler written on raw pyzmq
// (testdata/pyfcfs.py: first come, first served on the lowest free hosts)
// runs on Batsim 5 through the bridge, over ZeroMQ and as a library, and
// writes the jobs.csv of bucma's fcfs with first-fit hosts on Batsim 5.
func TestBridgePython(t *testing.T) {
	batsim5(t)
	py := python(t)
	lib := library(t)
	script, err := filepath.Abs(filepath.Join("testdata", "pyfcfs.py"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmpRoot, "bridge-python")
	cases := twinWorkloads(t, root)
	cases = append(cases, struct{ name, plat, wl string }{"lille-tiny", platformPath("lille"), writeV5(t, tiny, filepath.Join(root, "tiny"))})
	init := initString(t, "fcfs", map[string]string{"hosts": "first-fit"})
	n, same := 0, 0
	for i, w := range cases {
		twin, _, err := viaZMQ(t, w.plat, w.wl, filepath.Join(filepath.Dir(w.wl), "twin"), init)
		if err != nil {
			t.Fatalf("%s: bucma's fcfs: %v", w.name, err)
		}
		vias := []string{"zmq"}
		if i == 0 {
			vias = append(vias, "library")
		}
		for _, via := range vias {
			r, err := viaBridge(t, via, lib, func(ep string) []string { return []string{py, script, ep} }, bridge.Config{}, w.plat, w.wl, filepath.Join(filepath.Dir(w.wl), via))
			if err != nil {
				t.Fatal(err)
			}
			n++
			if err := r.ok(); err != nil {
				t.Errorf("%s over %s: %v", w.name, via, err)
				continue
			}
			if !bytes.Equal(twin.Jobs, r.Jobs) {
				t.Errorf("%s over %s: jobs.csv differs from bucma's fcfs, %s", w.name, via, firstDiff(twin.Jobs, r.Jobs))
				continue
			}
			same++
		}
	}
	t.Logf("the pyzmq scheduler through the bridge on Batsim 5: %d/%d runs with bucma's fcfs's jobs.csv", same, n)
}

// TestBridgeFailuresEnd: whatever fails, the three processes end on their
// own (the guard kills them otherwise, and the test fails), over ZeroMQ
// and as a library: a decision Batsim 5 cannot express (the Python
// scheduler's QUERY: Batsim 5 is asked to stop, the process gets
// SIMULATION_ENDS), the Batsim 4 process dying in the middle (its
// connection closes: Batsim 5 is asked to stop), the process never
// answering (nothing listens: the first exchange's timeout), and Batsim 5
// dying in the middle (killed: the bridge tells the process the end).
func TestBridgeFailuresEnd(t *testing.T) {
	b5 := batsim5(t)
	py := python(t)
	lib := library(t)
	script, err := filepath.Abs(filepath.Join("testdata", "pyfcfs.py"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmpRoot, "bridge-failures")
	wl := writeV5(t, tiny, root)
	plat := platformPath("lille")
	for i, c := range []struct {
		name string
		args []string // the Python scheduler's options
		cfg  bridge.Config
		// what the bridge's error says (over ZeroMQ), what Batsim 5's
		// log says (as a library)
		bridgeWant, batsimWant string
		procOK                 bool // the process ends with status 0
	}{
		{"QUERY", []string{"--query-at-first-job"}, bridge.Config{}, "(QUERY): no Batsim 5 equivalent", "(QUERY): no Batsim 5 equivalent", true},
		{"the process dies", []string{"--die-after", "3"}, bridge.Config{}, "closed the connection", "closed the connection", false},
	} {
		for _, via := range transports {
			t.Run(c.name+"/"+via, func(t *testing.T) {
				dir := filepath.Join(root, fmt.Sprint(i), via)
				r, err := viaBridge(t, via, lib, func(ep string) []string { return append([]string{py, script, ep}, c.args...) }, c.cfg, plat, wl, dir)
				if err != nil {
					t.Fatal(err)
				}
				if r.Hung {
					t.Fatalf("a process did not end\nprocess: %s\nbatsim5: %s", tail(r.ProcLog, 1000), tail(r.Log, 2000))
				}
				if (r.ProcErr == nil) != c.procOK {
					t.Errorf("the process ended with %v", r.ProcErr)
				}
				if via == "zmq" {
					if r.BatsimErr != nil {
						t.Errorf("batsim5: %v, want the end of a simulation (ForceSimulationStop)\n%s", r.BatsimErr, tail(r.Log, 2000))
					}
					if r.BridgeErr == nil || !strings.Contains(r.BridgeErr.Error(), c.bridgeWant) {
						t.Errorf("bridge: %v, want an error saying %q", r.BridgeErr, c.bridgeWant)
					}
				} else if r.BatsimErr == nil || !strings.Contains(r.Log, c.batsimWant) {
					t.Errorf("batsim5: %v, want its end quoting %q\n%s", r.BatsimErr, c.batsimWant, tail(r.Log, 2000))
				}
				if !strings.Contains(r.Log, "ForceSimulationStopEvent") {
					t.Errorf("Batsim 5 was not asked to stop the simulation\n%s", tail(r.Log, 2000))
				}
			})
		}
	}
	t.Run("nothing listens", func(t *testing.T) {
		for _, via := range transports {
			dir := filepath.Join(root, "silent", via)
			// A process that exits at once: nothing listens on its port.
			r, err := viaBridge(t, via, lib, func(string) []string { return []string{"true"} }, bridge.Config{ConnectTimeout: 2 * time.Second}, plat, wl, dir)
			if err != nil {
				t.Fatal(err)
			}
			if r.Hung {
				t.Fatalf("%s: a process did not end\n%s", via, tail(r.Log, 2000))
			}
			if via == "zmq" && (r.BridgeErr == nil || !strings.Contains(r.BridgeErr.Error(), "no answer to the first message")) {
				t.Errorf("%s: bridge: %v", via, r.BridgeErr)
			}
		}
	})
	t.Run("Batsim 5 dies", func(t *testing.T) {
		// batsim5 killed once the process has answered a few messages:
		// the bridge (over ZeroMQ) sees the connection close and tells
		// the process the end.
		dir := filepath.Join(root, "batsim-dies")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		ep, err := check.FreeEndpoint()
		if err != nil {
			t.Fatal(err)
		}
		plog := &boundedLog{max: 1 << 16}
		proc := exec.CommandContext(ctx, py, script, ep)
		proc.Stdout, proc.Stderr = plog, plog
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		procDone := make(chan error, 1)
		go func() { procDone <- proc.Wait() }()
		l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		cmd := batsim5Cmd(ctx, b5, plat, wl, dir, []string{"-s", l.Endpoint(), ""}, nil)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() {
			var p *bridge.Process
			messages := 0
			cfg := bridge.Config{Endpoint: ep, Log: slog.New(slog.DiscardHandler)}
			err := l.ServeV5(ctx, func([]byte) (*v5.EDC, error) {
				e, pp, err := bridge.New(ctx, cfg)
				p = pp
				if e != nil {
					e.Observe = func(d batsim.Direction, _ []byte) {
						if d == batsim.FromScheduler {
							if messages++; messages == 4 {
								_ = cmd.Process.Kill() // Batsim 5 dies
							}
						}
					}
				}
				return e, err
			})
			if p != nil {
				err = errors.Join(err, p.End(), p.Close())
			}
			served <- err
		}()
		_ = cmd.Wait()
		serveErr := <-served
		procErr := <-procDone
		if ctx.Err() != nil {
			t.Fatalf("a process did not end\n%s", tail(plog.String(), 1000))
		}
		// Its connection closed, or reset: the bridge stops waiting.
		if serveErr == nil || !strings.Contains(serveErr.Error(), "receiving from Batsim") {
			t.Errorf("bridge: %v, want Batsim 5's connection ended", serveErr)
		}
		if procErr != nil {
			t.Errorf("the process: %v, want its end on SIMULATION_ENDS\n%s", procErr, plog.String())
		}
	})
}

// TestBridgeInitStringsEnd: an init string the bridge refuses ends Batsim 5
// and the bridge, over ZeroMQ (bucma bridge answers the initialization,
// asks Batsim 5 to stop the simulation, exits with status 2 naming the
// problem) and as a library (bucma's init fails, Batsim 5 aborts quoting
// it); a process named by --connect is told the end.
func TestBridgeInitStringsEnd(t *testing.T) {
	bin := batsim5(t)
	py := python(t)
	lib := library(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "pyfcfs.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmpRoot, "bridge-init")
	wl := writeV5(t, tiny, dir)
	for i, c := range []struct{ name, init, want string }{
		{"a bad endpoint", `{"bridge":"127.0.0.1:28000"}`, "no transport"},
		{"an unknown key", `{"bridge":"tcp://127.0.0.1:9","policy":"easy"}`, `unknown field "policy"`},
		{"a bad duration", `{"bridge":"tcp://127.0.0.1:9","timeout":"soon"}`, `"soon" is not a duration`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strconv.Itoa(i))
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			// A guard against a hang (what the test pins), not a timing.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			procEP, err := check.FreeEndpoint()
			if err != nil {
				t.Fatal(err)
			}
			proc := exec.CommandContext(ctx, py, script, procEP)
			if err := proc.Start(); err != nil {
				t.Fatal(err)
			}
			procDone := make(chan error, 1)
			go func() { procDone <- proc.Wait() }()
			ep := filepath.Join(out, "endpoint")
			run := []string{"env", asBucmaEnv + "=1", self, "bridge", "-s", "tcp://127.0.0.1:*", "--endpoint-file", ep, "--connect", procEP}
			r := pairEnds(ctx, t, "bucma bridge", run, bin, ep, wl, c.init, out)
			var ee *exec.ExitError
			if !errors.As(r.SchedErr, &ee) || ee.ExitCode() != 2 || !strings.Contains(r.SchedLog, c.want) {
				t.Errorf("bucma bridge: %v, want exit status 2 and %q\n%s", r.SchedErr, c.want, r.SchedLog)
			}
			if err := <-procDone; err != nil || ctx.Err() != nil {
				t.Errorf("the process named by --connect: %v, want its end (told by the bridge)", err)
			}
			res, _, err := viaLibrary(t, lib, platformPath("lille"), wl, filepath.Join(out, "library"), c.init)
			if err == nil || !strings.Contains(res.Log, c.want) {
				t.Errorf("batsim5 with the library: %v, want its end quoting %q\n%s", err, c.want, tail(res.Log, 2000))
			}
		})
	}
}
