package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/check"
)

// TestCheckCommand: bucma check of bucma run (a process it starts for each
// scenario, over ZeroMQ) and of a policy in-process finds nothing and
// exits with status 0, the scenario the engine cannot play said skipped;
// --rules lists every rule.
func TestCheckCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--", "env", "BUCMA_TEST_MAIN=1", self, "run", "--scheduler", "fcfs", "-s", check.Placeholder},
		{"check", "--scheduler", "easy", "-o", "hosts=first-fit"},
		{"check", "--scheduler", "conservative", "-p", "lille", "-w", "../workloads/tiny.json"},
	} {
		err, code, out := runApp(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %v\n%s", args, code, err, out)
		}
		if !strings.Contains(out, "no finding") {
			t.Errorf("%v:\n%s", args, out)
		}
		if len(args) > 3 && args[3] != "-p" && !strings.Contains(out, "unavailable: skipped: external events need the real Batsim 4") {
			t.Errorf("%v: the unavailable scenario is not said skipped:\n%s", args, out)
		}
	}
	_, code, out := runApp(t, "check", "--rules")
	if code != 0 {
		t.Fatalf("--rules: exit %d", code)
	}
	for _, r := range check.Rules() {
		if !strings.Contains(out, r.Name+" ") {
			t.Errorf("--rules does not list %s", r.Name)
		}
	}
}

// TestCheckUsageErrors: a bad command line is exit status 2.
func TestCheckUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give the process to check"},
		{[]string{"--scheduler", "easy", "--connect", "tcp://127.0.0.1:1"}, "one of them"},
		{[]string{"--", "batsched", "-v", "easy_bf"}, "does not say where the process listens"},
		{[]string{"--connect", "tcp://127.0.0.1:1"}, "--connect checks one run"},
		{[]string{"--scheduler", "easy", "--scenario", "nope"}, `--scenario "nope"`},
		{[]string{"--scheduler", "easy", "-w", "x.json"}, "-w needs -p"},
		{[]string{"--scheduler", "easy", "-p", "lille"}, "-p goes with -w"},
		{[]string{"--scheduler", "easy", "--batsim", "b", "--batsim5", "b5"}, "not both"},
		{[]string{"--scheduler", "nope"}, `unknown scheduler "nope"`},
		{[]string{"--scheduler", "easy", "-o", "hosts=slowest"}, "slowest"},
	} {
		err, code, _ := runApp(t, append([]string{"check"}, c.args...)...)
		if code != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", c.args, code, err, c.want)
		}
	}
}
