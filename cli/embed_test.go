package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
)

// Command runs a workload command into the writers it is given, and
// refuses the commands that take the process's signals.
func TestCommand(t *testing.T) {
	reg := policies.Builtin()
	var out, errw bytes.Buffer
	code, err := Command([]string{"bucma", "workload", "delays", "--jobs", "3", "--hosts", "4", "--seed", "2"}, reg, &out, &errw)
	if err != nil || code != 0 || !strings.Contains(out.String(), `"nb_res"`) {
		t.Fatalf("delays: %d, %v, %q", code, err, out.String())
	}
	code, err = Command([]string{"bucma", "workload", "delays", "--jobz", "3"}, reg, &out, &errw)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "jobz") {
		t.Errorf("a bad flag: %d, %v", code, err)
	}
	for _, args := range [][]string{{"bucma", "simulate", "-p", "lille"}, {"bucma", "run"}, {"bucma", "expe", "run", "x.yaml"}, {"bucma"}, {}} {
		code, err = Command(args, reg, &out, &errw)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "list workload") {
			t.Errorf("%q: %d, %v", args, code, err)
		}
	}
}
