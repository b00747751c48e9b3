package expe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// configSpy is FCFS recording the simulation's configuration.
type configSpy struct {
	sched.Policy
	mu  *sync.Mutex
	got *batsim.Config
}

func (c configSpy) SimulationBegins(s *sched.State) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.got = s.Config()
	return nil
}

// dynRegistry holds fcfs and "fcfs-dyn", FCFS declared as a policy that
// needs dynamic jobs, which records the configuration Batsim (here the
// embedded engine) announces.
func dynRegistry(t *testing.T) (*sched.Registry, func() batsim.Config) {
	t.Helper()
	fcfs, ok := policies.Builtin().Get("fcfs")
	if !ok {
		t.Fatal("no fcfs policy")
	}
	var mu sync.Mutex
	var cfg batsim.Config
	reg := sched.NewRegistry()
	reg.Add(*fcfs)
	reg.Add(sched.Spec{Name: "fcfs-dyn", Description: "FCFS that says it needs dynamic jobs", DynamicJobs: true,
		New: func(opts sched.Options) (sched.Policy, error) {
			p, err := fcfs.Build(sched.Options{})
			return configSpy{Policy: p, mu: &mu, got: &cfg}, err
		}})
	return reg, func() batsim.Config { mu.Lock(); defer mu.Unlock(); return cfg }
}

func dynSpec(t *testing.T, policy string) RunSpec {
	t.Helper()
	dir := t.TempDir()
	r := Run{ID: "x_s001", Variant: Variant{Name: "x", Policy: policy, Options: map[string]string{}}, Seed: 1, Workload: "s001"}
	return RunSpec{Run: r, Platform: filepath.Join(dir, "platform.xml"), Workload: filepath.Join(dir, "w.json"), Dir: dir,
		Prefix: filepath.Join(dir, "out"), Trace: filepath.Join(dir, "trace.csv"), Log: filepath.Join(dir, "run.log")}
}

const dynFlags = "--enable-dynamic-jobs --acknowledge-dynamic-jobs"

// A policy whose spec says DynamicJobs runs with Batsim's dynamic jobs
// enabled and acknowledged, in the embedded engine and in the command line
// it records; other policies without.
func TestEmbeddedEngineDynamicJobs(t *testing.T) {
	reg, seen := dynRegistry(t)
	e := &EmbeddedEngine{Registry: reg}
	for _, c := range []struct {
		policy string
		dyn    bool
	}{{"fcfs-dyn", true}, {"fcfs", false}} {
		spec := dynSpec(t, c.policy)
		cl := e.CommandLine(spec)
		if strings.Contains(cl, dynFlags) != c.dyn || !strings.Contains(cl, "--scheduler "+c.policy) {
			t.Errorf("%s: command line %s", c.policy, cl)
		}
		if c.dyn && !strings.Contains(cl, "-e "+spec.Prefix+" "+dynFlags+" --scheduler fcfs-dyn") {
			t.Errorf("%s: flags not where expected: %s", c.policy, cl)
		}
		xml, err := PlatformXML("osep")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(spec.Platform, xml, 0o644)
		p := builtinPlan(t, "osep")
		w, err := gen.Generate(p.Recipe("user4-late-small"), 1, 0, spec.Platform)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(spec.Workload, w, 0o644)
		if err := e.Run(context.Background(), spec); err != nil {
			t.Fatalf("%s: %v", c.policy, err)
		}
		if c.policy == "fcfs-dyn" {
			if cfg := seen(); !cfg.DynamicJobsEnabled || !cfg.DynamicJobsAcknowledged {
				t.Errorf("the policy saw dynamic jobs enabled %v, acknowledged %v", cfg.DynamicJobsEnabled, cfg.DynamicJobsAcknowledged)
			}
		}
		if rows, err := analysis.ReadJobsFile(spec.Prefix + "_jobs.csv"); err != nil || len(rows) != 40 {
			t.Errorf("%s: %d rows, %v", c.policy, len(rows), err)
		}
	}
}

func TestBatsimEngineDynamicJobs(t *testing.T) {
	reg, _ := dynRegistry(t)
	bin := t.TempDir()
	e := &BatsimEngine{Batsim: fakeBatsim(t, bin, ""), Bucma: fakeScheduler(t, bin, "", ""), Registry: reg, BatsimArgs: []string{"--disable-schedule-tracing"}}
	spec := dynSpec(t, "fcfs-dyn")
	b := strings.Join(e.BatsimCommand(spec, "tcp://127.0.0.1:1"), " ")
	if !strings.HasSuffix(b, "-s tcp://127.0.0.1:1 "+dynFlags+" --disable-schedule-tracing") {
		t.Errorf("batsim argv %s", b)
	}
	if cl := e.CommandLine(spec); !strings.Contains(cl, `-s "$(cat `+filepath.Join(spec.Dir, endpointFile)+`)" `+dynFlags+" --disable-schedule-tracing") {
		t.Errorf("command line %s", cl)
	}
	if err := e.Run(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(readLines(t, filepath.Join(bin, "batsim.args")), " "); !strings.Contains(args, dynFlags) {
		t.Errorf("batsim started with %s", args)
	}
	// Not for a policy without dynamic jobs, nor for an unknown one (its
	// run fails on the scheduler side, which names the policy).
	for _, p := range []string{"fcfs", "nope"} {
		if b := strings.Join(e.BatsimCommand(dynSpec(t, p), "tcp://127.0.0.1:1"), " "); strings.Contains(b, "dynamic") {
			t.Errorf("%s: batsim argv %s", p, b)
		}
	}
}

// TestComputeSharingFlags: a policy that shares hosts gets Batsim's
// --enable-compute-sharing from both engines (the Batsim command and the
// recorded bucma simulate command), and runs with compute sharing in the
// embedded engine (several tasks of a scenario on one host); other
// policies do not get it.
func TestComputeSharingFlags(t *testing.T) {
	b := &BatsimEngine{Batsim: "batsim", Bucma: "bucma"}
	e := &EmbeddedEngine{}
	for _, c := range []struct {
		policy string
		want   bool
	}{{"sge-loadbalanced", true}, {"sge-default-rr", true}, {"fcfs", false}, {"gang", false}} {
		spec := dynSpec(t, c.policy)
		argv := strings.Join(b.BatsimCommand(spec, "tcp://127.0.0.1:1"), " ")
		if strings.Contains(argv, "--enable-compute-sharing") != c.want || strings.Contains(e.CommandLine(spec), "--enable-compute-sharing") != c.want {
			t.Errorf("%s: Batsim command %q, simulate command %q", c.policy, argv, e.CommandLine(spec))
		}
	}
	spec := dynSpec(t, "sge-loadbalanced")
	xml, err := PlatformXML("sge")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(spec.Platform, xml, 0o644)
	p := builtinPlan(t, "sge")
	w, err := gen.Generate(p.Recipe("sw-13"), 1, 0, spec.Platform)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(spec.Workload, w, 0o644)
	if err := e.Run(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	rows, err := analysis.ReadJobsFile(spec.Prefix + "_jobs.csv")
	if err != nil || len(rows) != 13 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	perHost := map[string]int{}
	for _, r := range rows {
		perHost[r.Alloc]++
	}
	if perHost["0"] != 4 || perHost["3"] != 3 {
		t.Errorf("tasks per host %v, want 4 on h1 and 3 on h4", perHost)
	}
}
