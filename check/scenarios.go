package check

import (
	"embed"
	"os"
	"path/filepath"
)

// The scenarios' files: one platform of 4 hosts, the workloads, the
// external events.
//
//go:embed scenarios
var scenarioFiles embed.FS

// Scenario is a situation the protocol leaves to the decision process to
// handle, on the scenarios' 4-host platform.
type Scenario struct {
	Name string
	// What says what the process must do.
	What     string
	Workload string // file name in scenarios/
	Events   string // external events file ("": none)
	// Batsim's flags.
	DynamicJobs, AcknowledgeDynamicJobs bool
}

// Scenarios are bucma check --suite's scenarios, in order.
var Scenarios = []Scenario{
	{Name: "simultaneous", Workload: "simultaneous.json",
		What: "12 jobs submitted at the same instant (one message of 12 JOB_SUBMITTED), then 8 more: every event of a message counts, every job ends"},
	{Name: "too-big", Workload: "too-big.json",
		What: "jobs asking for 5 and 8 hosts on 4: they must be rejected (Batsim never does it), or the simulation never ends"},
	{Name: "walltime", Workload: "walltime.json",
		What: "a job reaching its walltime (COMPLETED_WALLTIME_REACHED) and one failing (COMPLETED_FAILED): their hosts are free for the jobs behind them"},
	{Name: "kills", Workload: "kills.json",
		What: "a long job on every host and short ones behind it: a process that kills gets JOB_COMPLETED (COMPLETED_KILLED), then JOB_KILLED, and frees the hosts once"},
	{Name: "dynamic", Workload: "dynamic.json", DynamicJobs: true, AcknowledgeDynamicJobs: true,
		What: "Batsim run with --enable-dynamic-jobs --acknowledge-dynamic-jobs: the process must send NOTIFY registration_finished, or the simulation never ends"},
	{Name: "unavailable", Workload: "unavailable.json", Events: "unavailable.events",
		What: "hosts 0-1 unavailable from 10 s to 500 s (external events, NOTIFY event_machine_unavailable): no job may start on them meanwhile (the real Batsim 4 only)"},
}

// Run writes the scenario's files into dir and returns the run.
func (s Scenario) Run(dir string) (Run, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Run{}, err
	}
	write := func(name string) (string, error) {
		b, err := scenarioFiles.ReadFile("scenarios/" + name)
		if err != nil {
			return "", err
		}
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, b, 0o644)
	}
	plat, err := write("cluster4.xml")
	if err != nil {
		return Run{}, err
	}
	wl, err := write(s.Workload)
	if err != nil {
		return Run{}, err
	}
	run := Run{Name: s.Name, Platform: plat, Workloads: []string{wl}, DynamicJobs: s.DynamicJobs, AcknowledgeDynamicJobs: s.AcknowledgeDynamicJobs}
	if s.Events != "" {
		if run.Events, err = write(s.Events); err != nil {
			return Run{}, err
		}
	}
	return run, nil
}
