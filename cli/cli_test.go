package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// runApp runs the CLI in-process and returns its error, exit code and
// output.
func runApp(t *testing.T, args ...string) (error, int, string) {
	t.Helper()
	app := newApp(policies.Builtin())
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	err := runCLI(app, append([]string{"bucma"}, args...))
	return err, exitCode(err), out.String()
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string // fragments of the error
	}{
		{"unknown scheduler", []string{"run", "--scheduler", "nope"}, []string{`"nope"`, strings.Join(run.Names(policies.Builtin()), ", ")}},
		{"unknown option", []string{"run", "--scheduler", "easy", "--option", "bad=1"}, []string{`"bad"`, "hosts"}},
		{"bad option value", []string{"run", "--scheduler", "fcfs", "-o", "hosts=slowest"}, []string{"slowest", "fastest, first-fit"}},
		{"option without value", []string{"run", "--scheduler", "fcfs", "-o", "hosts"}, []string{"key=value"}},
		{"unknown flag", []string{"run", "--scheduler", "easy", "--nope"}, []string{"nope", "bucma run --help"}},
		{"bad duration", []string{"run", "--scheduler", "easy", "--timeout", "soon"}, []string{"soon"}},
		{"stray argument", []string{"run", "--scheduler", "easy", "extra"}, []string{"extra"}},
		{"unknown global flag", []string{"--nope"}, []string{"nope"}},
		{"unknown command", []string{"nope"}, []string{`"nope"`, "run", "list"}},
		{"list stray argument", []string{"list", "extra"}, []string{"extra"}},
		{"negative run timeout", []string{"run", "--scheduler", "easy", "--timeout", "-1s"}, []string{"run: --timeout -1s: a duration must not be negative"}},
		{"negative simulate timeout", []string{"simulate", "-p", "lille", "-w", "w.json", "--connect", "tcp://127.0.0.1:28000", "--timeout", "-5m"}, []string{"simulate: --timeout -5m0s"}},
		{"negative expe timeout", []string{"expe", "run", "walltime-trust", "--timeout", "-1ns"}, []string{"expe run: --timeout -1ns"}},
		{"negative expe timeout first", []string{"expe", "run", "--timeout", "-1h", "walltime-trust"}, []string{"expe run: --timeout -1h0m0s"}},
		{"port out of range", []string{"run", "--scheduler", "easy", "-s", "tcp://127.0.0.1:99999"}, []string{"run: --socket-endpoint", `port "99999" is not a number in 1..65535 or *`}},
		{"port zero", []string{"run", "--scheduler", "easy", "-s", "tcp://*:0"}, []string{`port "0"`}},
		{"unknown transport", []string{"run", "--scheduler", "easy", "--transport", "udp"}, []string{`--transport "udp"`, "native or libzmq"}},
		{"connect port out of range", []string{"simulate", "-p", "lille", "-w", "w.json", "--connect", "tcp://127.0.0.1:99999"}, []string{"simulate: --connect", `port "99999"`}},
		{"endpoint without transport", []string{"run", "--scheduler", "easy", "-s", "127.0.0.1:28000"}, []string{"run: --socket-endpoint", "no transport", "tcp://127.0.0.1:28000?"}},
		{"batsched endpoint without transport", []string{"run", "-v", "easy_bf", "-s", "127.0.0.1:28000"}, []string{"no transport", "tcp://127.0.0.1:28000?"}},
		{"connect without transport", []string{"simulate", "-p", "lille", "-w", "w.json", "--connect", "localhost:28000"}, []string{"simulate: --connect", "tcp://localhost:28000?"}},
		{"batsched variant in simulate", []string{"simulate", "-p", "lille", "-w", "w.json", "-v", "easy_bf"}, []string{`unexpected argument "easy_bf": -v is --verbose here`, "'bucma run -v easy_bf'", "--scheduler easy -o backfill=batsched -o hosts=first-fit -o no-walltime=reject"}},
		{"batsched variant without twin in simulate", []string{"simulate", "-p", "lille", "-w", "w.json", "-v", "crasher"}, []string{`"crasher": -v is --verbose here (batsched's variant crasher has no twin in bucma)`}},
		{"connect wildcard port", []string{"simulate", "-p", "lille", "-w", "w.json", "--connect", "tcp://127.0.0.1:*"}, []string{"simulate: --connect", "must be a number in 1..65535"}},
		{"flag after argument", []string{"expe", "run", "walltime-trust", "--nope"}, []string{"nope", "bucma expe run --help"}},
		{"unknown expe command", []string{"expe", "frobnicate"}, []string{`expe: unknown command "frobnicate"`, "run, report"}},
		{"unknown workload command", []string{"workload", "frobnicate"}, []string{`workload: unknown command "frobnicate"`, "check, lille"}},
		{"unknown help topic", []string{"help", "frobnicate"}, []string{"unknown command 'frobnicate'"}},
		{"unknown nested help topic", []string{"expe", "help", "frobnicate"}, []string{"unknown command 'frobnicate'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err, code, _ := runApp(t, c.args...)
			if code != 2 {
				t.Fatalf("exit code %d (%v), want 2", code, err)
			}
			for _, f := range c.want {
				if !strings.Contains(err.Error(), f) {
					t.Fatalf("error %q does not contain %q", err, f)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	err, code, out := runApp(t, "--version")
	if err != nil || code != 0 {
		t.Fatalf("--version: %v (exit %d)", err, code)
	}
	want := appVersion()
	if want == "" || !strings.Contains(out, want) {
		t.Fatalf("--version printed %q, want the version %q", out, want)
	}
	// Then the transports of this build: libzmq only in a build with cgo.
	if !strings.Contains(out, "\ntransports: native ZMTP 3.0") || strings.Contains(out, "libzmq 4") != zmq.HasLibzmq {
		t.Fatalf("--version printed %q: want the transports of this build (libzmq: %v)", out, zmq.HasLibzmq)
	}
}

func TestExitCodes(t *testing.T) {
	if exitCode(nil) != 0 {
		t.Fatal("nil error must exit 0")
	}
	if exitCode(&sched.OptionError{Msg: "x"}) != 2 {
		t.Fatal("OptionError must exit 2")
	}
}

// A bad option value is a usage error before any simulation starts, for
// both the server and the embedded engine.
func TestBadOptionValueExit2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scheduler", "bucma", "-o", "weights=0.5,0.5,0.5,0"},
		{"run", "--scheduler", "wtrust", "-o", "threshold=2"},
		{"simulate", "-p", "lille", "-w", "../workloads/tiny.json", "--scheduler", "bucma", "-o", "initial-score=101", "-e", t.TempDir() + "/x"},
	} {
		err, code, _ := runApp(t, args...)
		if code != 2 {
			t.Fatalf("%v: exit %d (%v), want 2", args, code, err)
		}
	}
}

// "bucma run --help" shows batsched's command line, and -v and -o's meaning
// in it.
func TestRunHelpShowsBatschedCommandLine(t *testing.T) {
	err, code, out := runApp(t, "run", "--help")
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, w := range []string{"bucma run -v easy_bf -s tcp://*:28000", "batsched -v easy_bf", "'bucma run -v VARIANT --help'",
		"-v VARIANT is batsched's variant", "-o ORDER is batsched's queue order", "TRANSPORT://ADDRESS"} {
		if !strings.Contains(out, w) {
			t.Errorf("run --help lacks %q:\n%s", w, out)
		}
	}
}
