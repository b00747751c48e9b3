package policies

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Every batsched variant's twin is a registered policy whose options are
// valid.
func TestBatschedVariantsResolve(t *testing.T) {
	reg := Builtin()
	seen := map[string]bool{}
	for _, v := range BatschedVariants() {
		if seen[v.Name] {
			t.Errorf("variant %s listed twice", v.Name)
		}
		seen[v.Name] = true
		spec, err := reg.Lookup(v.Policy)
		if err != nil {
			t.Errorf("variant %s: %v", v.Name, err)
			continue
		}
		if _, err := (&run.Policy{Spec: spec, Options: v.Options}).NewSession(); err != nil {
			t.Errorf("variant %s: policy %s with %v: %v", v.Name, v.Policy, v.Options, err)
		}
		if v.Proven == "" {
			t.Errorf("variant %s: no test named as its proof", v.Name)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("%d variants listed", len(seen))
	}
}

// Resolve maps batsched's flags and variant options to the twin's options,
// and refuses by name what the twin does not reproduce.
func TestBatschedVariantResolve(t *testing.T) {
	v := func(name string) BatschedVariant {
		x, ok := BatschedVariantByName(name)
		if !ok {
			t.Fatalf("no variant %s", name)
		}
		return x
	}
	for _, c := range []struct {
		v      BatschedVariant
		flags  map[string]string
		vopts  string
		want   string // the options, or the error's fragment
		unread string
	}{
		{v("filler"), map[string]string{"queue_order": "lcfs", "policy": "contiguous", "rjms_delay": "0"}, `{"foo": 1, "set_job_metadata": true}`,
			"map[hosts:contiguous metadata:true order:lcfs queue:batsched]", "[foo]"},
		{v("filler"), nil, `{"fraction_of_machines_to_use": 1.0, "custom_mapping": false}`, "map[hosts:first-fit queue:batsched]", "[]"},
		{v("filler"), nil, `{"fraction_of_machines_to_use": 0.5}`, `"fraction_of_machines_to_use": 0.5: the twin reproduces this variant at 1 only`, ""},
		{v("filler"), nil, `{"set_job_metadata": 1}`, "batsched wants a boolean", ""},
		{v("easy_bf"), map[string]string{"queue_order": "lcfs"}, "", "--queue_order lcfs: the twin reproduces this variant at fcfs only", ""},
		{v("easy_bf"), map[string]string{"policy": "contiguous"}, "", "--policy contiguous: the twin reproduces this variant at basic only", ""},
		{v("easy_bf"), map[string]string{"queue_order": "fcfs", "rjms_delay": "30", "call_make_decisions_on_single_nop": "0"}, "",
			"map[backfill:batsched hosts:first-fit no-walltime:reject]", "[]"},
		{v("fcfs_fast"), map[string]string{"queue_order": "desc_size", "policy": "contiguous"}, "", "map[hosts:first-fit]", "[]"},
		{v("killer"), map[string]string{"queue_order": "asc_walltime"}, `{"nb_kills_per_job": 3, "delay_before_kill": 2.5}`,
			"map[hosts:first-fit kill-delay:2.5 kills:3 order:asc_walltime queue:batsched]", "[]"},
		{v("killer"), nil, `{"nb_kills_per_job": 1.5}`, "1.5: batsched wants an integer", ""},
		{v("sleeper"), nil, `{"pstate_sleep": 2}`, `no "pstate_compute", which the variant requires`, ""},
		{v("sleeper"), map[string]string{"policy": "contiguous"}, `{"pstate_sleep": 2, "pstate_compute": 1}`,
			"map[pstate-compute:1 pstate-sleep:2 queue:batsched]", "[]"},
		{v("submitter"), nil, `{"send_profiles_in_separate_event": false}`, "at true only", ""},
		{v("conservative_bf"), map[string]string{"queue_order": "desc_size", "policy": "contiguous", "rjms_delay": "2.5", "call_make_decisions_on_single_nop": "0"}, `{"dump_previsional_schedules": false, "dump_prefix": "/tmp/x"}`,
			"map[backfill:batsched hosts:contiguous no-walltime:reject order:desc_size rjms-delay:2.5]", "[]"},
		{v("conservative_bf"), nil, `{"dump_previsional_schedules": "yes"}`, "batsched wants a boolean", ""},
		{v("easy_bf_fast"), map[string]string{"queue_order": "lcfs", "policy": "contiguous"}, "", "map[backfill:batsched-fast hosts:first-fit]", "[]"},
		{v("easy_bf_fast"), map[string]string{"rjms_delay": "0"}, "", "--rjms_delay 0: the twin reproduces this variant at 5 only", ""},
		{v("fcfs"), map[string]string{"queue_order": "asc_size", "rjms_delay": "60"}, "", "map[hosts:first-fit]", "[]"},
		{v("fcfs"), map[string]string{"policy": "contiguous"}, "", "--policy contiguous: the twin reproduces this variant at basic only", ""},
		{v("easy_bf_plot_liquid_load_horizon"), nil, `{}`, `no "trace_output_filename", which the variant requires`, ""},
		{v("easy_bf_plot_liquid_load_horizon"), map[string]string{"rjms_delay": "0"}, `{"trace_output_filename": "llh.csv"}`,
			"map[backfill:batsched hosts:first-fit no-walltime:stop]", "[]"},
		{v("energy_bf_dicho"), map[string]string{"rjms_delay": "0"}, `{"power_compute": 190.5, "power_idle": 95, "power_sleep": 9.75, "pstate_compute": 0, "pstate_sleep": 2,
			"time_switch_on": 10, "time_switch_off": 2, "energy_switch_on": 1250, "energy_switch_off": 200, "tolerated_slowdown_loss_ratio": 1.5, "comparison_type": "switch_on", "monitoring_period": 60}`,
			"map[comparison-type:switch_on energy-switch-off:200 energy-switch-on:1250 power-compute:190.5 power-idle:95 power-sleep:9.75 pstate-compute:0 pstate-sleep:2 rjms-delay:0 " +
				"time-switch-off:2 time-switch-on:10 tolerated-slowdown-loss-ratio:1.5 variant:energy_bf_dicho]", "[monitoring_period]"},
		{v("energy_bf"), nil, `{"power_compute": 190.5}`, `no "energy_switch_off", which the variant requires`, ""},
		{v("energy_bf"), map[string]string{"queue_order": "lcfs"}, "", "--queue_order lcfs: the twin reproduces this variant at fcfs only", ""},
		{v("energy_bf_monitoring"), nil, `{"power_compute": 190.5, "power_idle": 95, "power_sleep": 9.75, "pstate_compute": 0, "pstate_sleep": 2,
			"time_switch_on": 10, "time_switch_off": 2, "energy_switch_on": 1250, "energy_switch_off": 200, "output_dir": "out"}`, `no "monitoring_period", which the variant requires`, ""},
		{v("energy_bf_idle_sleeper"), nil, `{"power_compute": 190.5, "power_idle": 95, "power_sleep": 9.75, "pstate_compute": 0.5, "pstate_sleep": 2,
			"time_switch_on": 10, "time_switch_off": 2, "energy_switch_on": 1250, "energy_switch_off": 200, "output_dir": "out", "monitoring_period": 60, "trace_output_filename": "t.csv"}`,
			"0.5: batsched wants an integer", ""},
		{v("energy_watcher"), map[string]string{"queue_order": "lcfs", "policy": "contiguous", "rjms_delay": "0", "call_make_decisions_on_single_nop": "0"}, `{"power_compute": 1}`,
			"map[variant:energy_watcher]", "[power_compute]"},
		{BatschedVariant{Name: "x", Policy: "fcfs"}, map[string]string{"call_make_decisions_on_single_nop": "true", "rjms_delay": "5.0"}, "", "map[]", "[]"},
		{BatschedVariant{Name: "x", Policy: "fcfs"}, map[string]string{"call_make_decisions_on_single_nop": "0"}, "", "--call_make_decisions_on_single_nop 0: the twin reproduces this variant at 1 only", ""},
		{BatschedVariant{Name: "x", Policy: "fcfs"}, map[string]string{"rjms_delay": "6"}, "", "--rjms_delay 6: the twin reproduces this variant at 5 only", ""},
	} {
		var vopts map[string]json.RawMessage
		if c.vopts != "" {
			if err := json.Unmarshal([]byte(c.vopts), &vopts); err != nil {
				t.Fatal(err)
			}
		}
		opts, unread, err := c.v.Resolve(c.flags, vopts)
		if err != nil {
			var oe *sched.OptionError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "variant "+c.v.Name) {
				t.Errorf("%s %v %s: error %v, want one naming %q", c.v.Name, c.flags, c.vopts, err, c.want)
			}
			continue
		}
		if got := fmt.Sprint(opts); got != c.want || fmt.Sprint(unread) != c.unread {
			t.Errorf("%s %v %s: %s unread %v, want %s unread %s", c.v.Name, c.flags, c.vopts, got, unread, c.want, c.unread)
		}
	}
}

// docs/batsched.md's table of variants is the table of BatschedVariants:
// one row per variant, in order, with its twin's policy and options and
// what it takes (the counts are the measured ones, written by hand).
func TestBatschedDocTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "batsched.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "<!-- batsched variants: checked by TestBatschedDocTable (policies) -->\n")
	if !ok {
		t.Fatal("docs/batsched.md: no table of variants")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var rows []string
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(line, " | ")
		if len(cells) < 6 {
			t.Fatalf("docs/batsched.md: row %q", line)
		}
		rows = append(rows, strings.Join(cells[:3], " | "))
		// cases, identical, batsched aborts: measured counts, each case
		// either identical or without a reference
		var n [3]int
		for i := range n {
			c := strings.TrimSuffix(strings.TrimSpace(cells[3+i]), " |")
			if _, err := fmt.Sscanf(c, "%d", &n[i]); err != nil || fmt.Sprint(n[i]) != c {
				t.Errorf("docs/batsched.md: row %q: %q is not a count", line, c)
			}
		}
		if n[0] == 0 || n[1]+n[2] != n[0] {
			t.Errorf("docs/batsched.md: row %q: %d cases, %d identical and %d without a reference", line, n[0], n[1], n[2])
		}
	}
	var want []string
	for _, v := range BatschedVariants() {
		want = append(want, fmt.Sprintf("| `%s` | `%s%s` | %s", v.Name, v.Policy, v.OptionArgs(), strings.Join(v.Takes(), ", ")))
	}
	if got := strings.Join(rows, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("docs/batsched.md's variants:\n%s\nwant (then the counts of a run of the tier):\n%s", got, strings.Join(want, "\n"))
	}
}
