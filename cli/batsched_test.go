package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
)

// run's arguments are batsched's only when they say so unambiguously.
func TestIsBatschedRun(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-v", "easy_bf"}, true},
		{[]string{"-veasy_bf", "-s", "tcp://*:28000"}, true},
		{[]string{"--variant", "filler"}, true},
		{[]string{"--variant=filler"}, true},
		{[]string{"-s", "tcp://*:28001", "-p", "contiguous"}, true},
		{[]string{"-o", "lcfs"}, true},
		{[]string{"--queue_order=lcfs"}, true},
		{[]string{"-d", "10"}, true},
		{[]string{"--variant_options", "{}"}, true},
		{[]string{"--verbosity", "quiet"}, true},
		{[]string{"--version"}, true},
		{[]string{"--call_make_decisions_on_single_nop", "0"}, true},
		// bucma's own command lines
		{[]string{"--scheduler", "easy", "-v"}, false},
		{[]string{"-v", "--scheduler", "easy"}, false},
		{[]string{"--scheduler", "easy", "-o", "hosts=first-fit", "-v"}, false},
		{[]string{"--scheduler", "easy", "-ohosts=first-fit"}, false},
		{[]string{"--scheduler", "easy", "--option", "hosts=first-fit", "--verbose"}, false},
		{[]string{"--scheduler", "fcfs", "-s", "tcp://*:28001", "--trace", "-v"}, false},
		{[]string{"--scheduler", "easy", "-s", "-v"}, false},
		{[]string{"--scheduler", "easy", "-o", "hosts"}, false},
		{[]string{"--help"}, false},
		{nil, false},
	} {
		if got := isBatschedRun(c.args); got != c.want {
			t.Errorf("%q: batsched's = %v, want %v", c.args, got, c.want)
		}
	}
}

// runBatschedApp runs the command line in-process as Main does and returns
// its exit code, standard output and standard error.
func runBatschedApp(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	app := newApp(policies.Builtin())
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errOut
	err := runCLI(app, args)
	code := exitCode(err)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return code, out.String(), errOut.String()
}

// Bad batsched command lines are usage errors (exit status 2) naming the
// problem; unknown variants list the known ones.
func TestBatschedUsageErrors(t *testing.T) {
	opts := filepath.Join(t.TempDir(), "opts.json")
	if err := os.WriteFile(opts, []byte(`[1, 2]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"-v", "nope"}, 2, []string{`unknown variant "nope"`, "easy_bf, easy_bf_fast"}},
		{[]string{"-v", "random"}, 2, []string{`batsched's variant "random" has no twin`, "filler"}},
		{[]string{"-v", "filler", "-o", "random"}, 2, []string{`--queue_order "random": not in {fcfs, lcfs`}},
		{[]string{"-v", "filler", "-p", "best"}, 2, []string{`--policy "best"`}},
		{[]string{"-v", "filler", "-d", "-1"}, 2, []string{`--rjms_delay "-1"`}},
		{[]string{"-v", "easy_bf", "--rjms_delay=inf"}, 2, []string{`--rjms_delay "inf": want a finite number >= 0`}},
		{[]string{"-v", "easy_bf", "-d", "+Inf"}, 2, []string{`--rjms_delay "+Inf"`}},
		{[]string{"-v", "easy_bf", "-d", "NaN"}, 2, []string{`--rjms_delay "NaN"`}},
		{[]string{"-v", "filler", "--verbosity", "loud"}, 2, []string{`--verbosity "loud"`}},
		{[]string{"-v", "filler", "--call_make_decisions_on_single_nop", "maybe"}, 2, []string{"want 0 or 1"}},
		{[]string{"-v", "filler", "--frobnicate"}, 2, []string{"unknown flag --frobnicate"}},
		{[]string{"-v", "filler", "--scheduler", "easy"}, 2, []string{"unknown flag --scheduler"}},
		{[]string{"-v", "filler", "extra"}, 2, []string{`unexpected argument "extra"`}},
		{[]string{"--variant"}, 2, []string{"--variant needs a value"}},
		// -v alone is --verbose: bucma's run, with its own flags
		{[]string{"-v", "--scheduler", "nope"}, 2, []string{`unknown scheduler "nope"`}},
		{[]string{"-v", "easy_bf", "-o", "lcfs"}, 2, []string{"variant easy_bf: --queue_order lcfs: the twin reproduces this variant at fcfs only"}},
		{[]string{"-v", "sleeper"}, 2, []string{`no "pstate_compute"`}},
		{[]string{"-v", "energy_bf", "-d", "0"}, 2, []string{`variant energy_bf: --variant_options has no "energy_switch_off", which the variant requires`}},
		{[]string{"-v", "energy_bf_dicho", "-o", "lcfs"}, 2, []string{"variant energy_bf_dicho: --queue_order lcfs: the twin reproduces this variant at fcfs only"}},
		{[]string{"-v", "easy_bf_plot_liquid_load_horizon"}, 2, []string{`no "trace_output_filename"`}},
		{[]string{"-v", "conservative_bf", "--variant_options", `{"dump_previsional_schedules": 1}`}, 2, []string{"batsched wants a boolean"}},
		{[]string{"-v", "fcfs", "-p", "contiguous"}, 2, []string{"variant fcfs: --policy contiguous: the twin reproduces this variant at basic only"}},
		{[]string{"-v", "easy_bf_fast", "-d", "10"}, 2, []string{"variant easy_bf_fast: --rjms_delay 10: the twin reproduces this variant at 5 only"}},
		{[]string{"-v", "filler", "--variant_options", "{"}, 2, []string{"--variant_options: not a JSON object"}},
		{[]string{"-v", "filler", "--variant_options", `{"fraction_of_machines_to_use": 0.5}`}, 2, []string{"at 1 only"}},
		{[]string{"-v", "filler", "--variant_options_filepath", opts}, 1, []string{opts, "not a JSON object"}},
		{[]string{"-v", "filler", "--variant_options_filepath", opts + ".missing"}, 1, []string{"no such file"}},
		// a device without end is read up to the bound, never whole
		{[]string{"-v", "easy_bf", "--variant_options_filepath", "/dev/zero"}, 1, []string{"/dev/zero: too large: more than 1048576 bytes", "small JSON object"}},
		{[]string{"-v", "filler", "--timeout", "-3s"}, 2, []string{"must not be negative"}},
	} {
		code, _, stderr := runBatschedApp(t, append([]string{"bucma", "run"}, c.args...)...)
		if code != c.code {
			t.Errorf("%q: exit status %d, want %d (%s)", c.args, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: %q does not say %q", c.args, stderr, w)
			}
		}
	}
}

// --help lists batsched's flags and the variants with their twins;
// --version prints bucma's version, under either name.
func TestBatschedHelpAndVersion(t *testing.T) {
	code, out, _ := runBatschedApp(t, "bucma", "run", "-v", "filler", "--help")
	for _, w := range []string{"--variant_options_filepath", "-o, --queue_order", "easy_bf                  easy -o backfill=batsched -o hosts=first-fit -o no-walltime=reject",
		"batsched's variants without a twin:", "random"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("help (status %d) lacks %q:\n%s", code, w, out)
		}
	}
	for _, args := range [][]string{{"bucma", "run", "--version"}, {"/usr/local/bin/batsched", "--version"}} {
		code, out, _ := runBatschedApp(t, args...)
		if code != 0 || strings.TrimSpace(out) != appVersion() {
			t.Errorf("%q: status %d, %q", args, code, out)
		}
	}
}

// "bucma run -v fcfs_fast" takes the recorded decisions of strict FCFS on
// the lowest free ids (fcfs_fast's), whatever Batsim's sched-config says
// (batsched ignores it, keys of no option included), and warns of the
// variant options fcfs_fast does not read.
func TestRunBatschedTranscript(t *testing.T) {
	lines := withSchedConfig(t, runTranscript(t, "hetero4_delays"), `{"hosts": "fastest", "frobnicate": 1}`)
	ep, done, errOut := startRun(t, "-v", "fcfs_fast", "-o", "desc_size", "--verbosity", "quiet", "--variant_options", `{"frobnicate": 3}`, "--validate")
	got := playBatsim(t, ep, lines)
	if err := waitRun(t, done); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	sameReplies(t, canonicalAll(t, got), recorded(t, lines))
	if log := errOut.String(); !strings.Contains(log, "key=frobnicate") || strings.Count(log, "level=WARN") != 1 {
		t.Fatalf("warnings:\n%s", log)
	}
}
