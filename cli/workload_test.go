package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/workloads"
)

// The bucma workload subcommands, end to end through the CLI.

func TestWorkloadGeneratorsThroughCLI(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if err, code, msg := runApp(t, "workload", "lille", "--jobs", "50", "--seed", "7", "--out", out); code != 0 {
			t.Fatalf("lille: %v (exit %d) %s", err, code, msg)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatal("the same seed must give the same bytes")
	}
	w, err := workloads.Load(a)
	if err != nil || len(w.Jobs) != 50 {
		t.Fatalf("generated workload: %v, %d jobs", err, len(w.Jobs))
	}
	ins := filepath.Join(dir, "ins.json")
	err, code, msg := runApp(t, "workload", "bucma-insert", a, "--out", ins)
	if code != 0 {
		t.Fatalf("bucma-insert: %v (exit %d) %s", err, code, msg)
	}
	wi, err := workloads.Load(ins)
	if err != nil || len(wi.Jobs) != 350 {
		t.Fatalf("inserted workload: %v, %d jobs (want 50 + 300)", err, len(wi.Jobs))
	}
	prec := filepath.Join(dir, "precise.json")
	if err, code, msg := runApp(t, "workload", "precise", a, "--out", prec); code != 0 {
		t.Fatalf("precise: %v (exit %d) %s", err, code, msg)
	}
	if err, code, msg := runApp(t, "workload", "check", prec, "--platform", "lille"); code != 0 {
		t.Fatalf("check of a generated workload: %v (exit %d) %s", err, code, msg)
	}
}

// TestWorkloadSGEThroughCLI: "bucma workload sge" writes the scenario
// (n tasks at 0, one profile) that checks on the prototype; a bad
// application or task count is a usage error.
func TestWorkloadSGEThroughCLI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw.json")
	if err, code, msg := runApp(t, "workload", "sge", "--app", "sw", "--tasks", "17", "--out", out); code != 0 {
		t.Fatalf("sge: %v (exit %d) %s", err, code, msg)
	}
	w, err := workloads.Load(out)
	if err != nil || len(w.Jobs) != 17 || len(w.Profiles) != 1 || w.Jobs[16].Subtime != 0 || w.Profiles["sw"].CPU != 39.6*1.1e9 {
		t.Fatalf("sge workload: %v, %d jobs, %d profiles", err, len(w.Jobs), len(w.Profiles))
	}
	if err, code, msg := runApp(t, "workload", "check", out, "--platform", "sge"); code != 0 {
		t.Fatalf("check: %v (exit %d) %s", err, code, msg)
	}
	for _, args := range [][]string{{"--app", "pi100"}, {"--tasks", "0"}} {
		err, code, msg := runApp(t, append([]string{"workload", "sge", "--out", out}, args...)...)
		if code != 2 || !strings.Contains(msg+fmt.Sprint(err), strings.TrimPrefix(args[1], "-")) {
			t.Errorf("%v: exit %d, %v %s", args, code, err, msg)
		}
	}
}

// TestWorkloadGangThroughCLI: "bucma workload gang" writes the paper's
// job sizes in proportion, seeded, and checks on the multicluster.
func TestWorkloadGangThroughCLI(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if err, code, msg := runApp(t, "workload", "gang", "--jobs", "300", "--seed", "3", "--out", out); code != 0 {
			t.Fatalf("gang: %v (exit %d) %s", err, code, msg)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatal("the same seed must give the same bytes")
	}
	w, err := workloads.Load(a)
	if err != nil || len(w.Jobs) != 300 {
		t.Fatalf("gang workload: %v, %d jobs", err, len(w.Jobs))
	}
	sizes := map[int]int{}
	for _, j := range w.Jobs {
		sizes[j.Res]++
	}
	if sizes[32] != 186 || sizes[128] != 33 || sizes[1] != 3 {
		t.Errorf("sizes %v, want the paper's proportions (32: 186, 128: 33, 1: 3 of 300)", sizes)
	}
	if err, code, msg := runApp(t, "workload", "check", a, "--platform", "mcmca"); code != 0 {
		t.Fatalf("check: %v (exit %d) %s", err, code, msg)
	}
	if _, code, _ := runApp(t, "workload", "gang", "--load", "0", "--out", a); code != 2 {
		t.Errorf("--load 0: exit %d, want 2", code)
	}
}

func TestWorkloadCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	good := write("good.json", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":2,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":5}}}`)
	if err, code, _ := runApp(t, "workload", "check", good); code != 0 {
		t.Fatalf("valid workload: %v (exit %d)", err, code)
	}
	cases := []struct{ name, text, want string }{
		{"missing profile", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":2,"profile":"nope"}],"profiles":{}}`, "nope"},
		{"duplicate id", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"d"},{"id":1,"subtime":1,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":5}}}`, "duplicate"},
		{"not json", `{"nb_res":`, "dup.json"},
		{"empty id", `{"nb_res":4,"jobs":[{"id":"","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":5}}}`, `job '#1': empty job id`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write("dup.json", c.text)
			err, code, out := runApp(t, "workload", "check", p)
			if code != 1 {
				t.Fatalf("exit %d (%v), want 1", code, err)
			}
			all := out
			if err != nil {
				all += err.Error()
			}
			if !strings.Contains(all, c.want) {
				t.Fatalf("findings %q do not mention %q", all, c.want)
			}
		})
	}
	// A job larger than the platform can never run: an error with --platform.
	big := write("big.json", `{"nb_res":64,"jobs":[{"id":1,"subtime":0,"res":40,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":5}}}`)
	if err, code, _ := runApp(t, "workload", "check", big); code != 0 {
		t.Fatalf("without a platform: %v (exit %d)", err, code)
	}
	if _, code, _ := runApp(t, "workload", "check", big, "--platform", "lille"); code != 1 {
		t.Fatalf("40 nodes on the 39-node Lille platform: exit %d, want 1", code)
	}
	if _, code, _ := runApp(t, "workload", "lille", "--jobs", "x"); code != 2 {
		t.Fatalf("bad flag value: exit %d, want 2", code)
	}
}

// TestWorkloadCheckFor: check says which format it read and checks the
// file for the Batsim it names (--for, Batsim 4.2.1 by default): a Batsim 5
// file is an error for Batsim 4.2.1, which aborts on it, and for Batsim 5 a
// job's field outside extra_data is a warning (Batsim 5 does not forward
// it).
func TestWorkloadCheckFor(t *testing.T) {
	dir := t.TempDir()
	v5 := writeFile(t, dir, "v5.json", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":2,"profile":"d","user":"alice"}],"profiles":{"d":{"type":"DelayProfile","delay":5}}}`)
	v4 := writeFile(t, dir, "v4.json", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":2,"profile":"d","user":"alice"}],"profiles":{"d":{"type":"delay","delay":5}}}`)
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{v5}, 1, []string{"v5.json: Batsim 5 format, checked for Batsim 4.2.1: 1 jobs", `error: ` + v5 + `: profile 'd': type "DelayProfile" is Batsim 5's`, "--for batsim5"}},
		{[]string{v5, "--for", "batsim4"}, 1, []string{"checked for Batsim 4.2.1"}},
		{[]string{v5, "--for", "batsim5"}, 0, []string{"v5.json: Batsim 5 format, checked for Batsim 5.0.0-rc2: 1 jobs, 1 profiles, nb_res 4: 0 error(s), 1 warning(s)", `warning: ` + v5 + `: job '1': field "user" is outside extra_data`}},
		{[]string{v4}, 0, []string{"v4.json: Batsim 4 format, checked for Batsim 4.2.1: 1 jobs, 1 profiles, nb_res 4: 0 error(s), 0 warning(s)"}},
		{[]string{v4, "--for", "batsim5"}, 1, []string{"Batsim 4 format, checked for Batsim 5.0.0-rc2", `type "delay" is Batsim 4's`, "bucma workload to-v5 " + v4 + " -o OUT"}},
		{[]string{v4, "--for", "batsim3"}, 2, []string{`--for "batsim3": want batsim4 or batsim5`}},
	} {
		err, code, out := runApp(t, append([]string{"workload", "check"}, c.args...)...)
		if err != nil {
			out += err.Error()
		}
		if code != c.code {
			t.Errorf("check %v: exit %d, want %d\n%s", c.args, code, c.code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("check %v: %q does not say %q", c.args, out, w)
			}
		}
	}
}

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWorkloadBotThroughCLI: "bucma workload bot" writes one job per task
// step of the published BoTs, draws the thesis' classes from the seed
// (same seed, same bytes), and rejects bad flags with exit 2 naming them.
func TestWorkloadBotThroughCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h2.json")
	if err, code, msg := runApp(t, "workload", "bot", "--bots", "H2-1,h2-2", "--hosts", "8", "--out", out); code != 0 {
		t.Fatalf("bot: %v (exit %d) %s", err, code, msg)
	}
	w, err := workloads.Load(out)
	if err != nil || len(w.Jobs) != 57+95 || w.NbRes != 8 || w.Jobs[0].ID != "H2-1-q0-t0-s0" || w.Profiles["c84"].CPU != 0.84*300*1e9 {
		t.Fatalf("bot workload: %v, %d jobs", err, len(w.Jobs))
	}
	if err, code, msg := runApp(t, "workload", "check", out); code != 0 {
		t.Fatalf("check: %v (exit %d) %s", err, code, msg)
	}
	// Drawn BoTs with arrival intervals, a custom class and a background.
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	for i, o := range []string{a, b, c} {
		seed := []string{"3", "3", "4"}[i]
		if err, code, msg := runApp(t, "workload", "bot", "--bots", "up-1,UP-9,leve", "--class", "Q5 N2^4 S1^3 L2^10 I1^2", "--vms", "6",
			"--interval", "I4^8", "--background", "50", "--background-steps", "2", "--hosts", "4", "--seed", seed, "--out", o); code != 0 {
			t.Fatalf("bot: %v (exit %d) %s", err, code, msg)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	dc, _ := os.ReadFile(c)
	if len(da) == 0 || !bytes.Equal(da, db) || bytes.Equal(da, dc) {
		t.Fatal("the same seed must give the same bytes, another seed other bytes")
	}
	w, err = workloads.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	bots := map[string]float64{} // first subtime of each BoT
	vms := map[string]bool{}
	for _, j := range w.Jobs {
		var f struct {
			Bot string
			VMs int
		}
		if err := json.Unmarshal(j.Raw, &f); err != nil {
			t.Fatal(err)
		}
		if _, ok := bots[f.Bot]; !ok {
			bots[f.Bot] = j.Subtime
		}
		if f.Bot != "background" {
			vms[fmt.Sprint(f.VMs)] = true
		}
	}
	if len(bots) != 5 || bots["background"] != 0 || bots["UP-1"] != 0 || !(bots["UP-9"] > 0) || !(bots["custom"] > bots["leve"]) {
		t.Errorf("BoTs and first subtimes %v", bots)
	}
	if len(vms) != 1 || !vms["6"] {
		t.Errorf("--vms 6 gives VMs %v", vms)
	}
	var meta struct {
		Seed     int
		Interval string
		Classes  map[string]string
	}
	if err := json.Unmarshal(w.Meta("meta"), &meta); err != nil || meta.Seed != 3 || meta.Interval != "I4^8" || meta.Classes["UP-9"] != "Q20 N2^4 S1^3 L2^10 I1^2" {
		t.Errorf("meta %+v (%v)", meta, err)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{nil, "--bots"},
		{[]string{"--bots", "H9-9"}, "--bots"},
		{[]string{"--bots", "H2-1,H2-1"}, "--bots"},
		{[]string{"--class", "Q5 N2^4 S1^3 L2^10 I1^2"}, "--vms"},
		{[]string{"--class", "Q5 N2 S1^3 L2^10 I1^2", "--vms", "2"}, "--class"},
		{[]string{"--bots", "H2-1", "--vms", "0"}, "--vms"},
		{[]string{"--bots", "H2-1", "--interval", "N4^8"}, "--interval"},
		{[]string{"--bots", "H2-1", "--step", "0"}, "--step"},
		{[]string{"--bots", "H2-1", "--core-speed", "-1"}, "--core-speed"},
		{[]string{"--bots", "H2-1", "--hosts", "0"}, "--hosts"},
		{[]string{"--bots", "H2-1", "--background", "101", "--background-steps", "1"}, "--background"},
		{[]string{"--bots", "H2-1", "--background", "50"}, "--background-steps"},
		{[]string{"--bots", "H2-1", "--seed", "0"}, "--seed"},
	} {
		err, code, msg := runApp(t, append([]string{"workload", "bot", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(msg+fmt.Sprint(err), c.flag) {
			t.Errorf("%v: exit %d, %v %s; want 2 naming %s", c.args, code, err, msg, c.flag)
		}
	}
}

// The steps of the campaign files as commands: a window of a converted
// SWF trace, scaled to an offered load on the Lille platform.
func TestWorkloadWindowAndScaleLoad(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	for _, args := range [][]string{
		{"workload", "from-swf", filepath.Join("..", "testdata", "cluster.swf"), "--out", a},
		{"workload", "window", a, "--window-jobs", "100", "--seed", "3", "--out", b},
		{"workload", "scale-load", b, "--load", "0.8", "--platform", "lille", "--out", c},
	} {
		if err, code, msg := runApp(t, args...); code != 0 {
			t.Fatalf("%v: exit %d, %v %s", args, code, err, msg)
		}
	}
	w, err := workloads.Load(c)
	if err != nil {
		t.Fatal(err)
	}
	speeds, _ := platformSpeeds("lille")
	if l, err := w.OfferedLoad(len(speeds), workloads.SlowestSpeed(speeds)); err != nil || len(w.Jobs) != 100 || math.Abs(l-0.8) > 1e-3 || w.Jobs[0].Subtime != 0 {
		t.Errorf("%d jobs, offered load %v (%v), first at %v", len(w.Jobs), l, err, w.Jobs[0].Subtime)
	}
	for _, args := range [][]string{
		{"workload", "scale-load", b, "--load", "0", "--out", c},
		{"workload", "window", a, "--window-jobs", "0", "--out", c},
		{"workload", "window", a, "--out", c},
	} {
		if _, code, _ := runApp(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestWorkloadLublinThroughCLI: "bucma workload lublin" writes an SWF trace
// (the format from the file name) that "bucma workload from-swf" converts
// to exactly the jobs and profiles of the Batsim workload it writes for the
// same platform; the same seed gives the same bytes; bad parameters are
// usage errors naming the flag.
func TestWorkloadLublinThroughCLI(t *testing.T) {
	dir := t.TempDir()
	swf, swf2 := filepath.Join(dir, "t.swf"), filepath.Join(dir, "t2.swf")
	direct, conv := filepath.Join(dir, "direct.json"), filepath.Join(dir, "conv.json")
	args := []string{"workload", "lublin", "--jobs", "800", "--seed", "5", "--platform", "lille", "--load", "0.9", "--users", "20"}
	for _, out := range []string{swf, swf2} {
		if err, code, msg := runApp(t, append(args, "-o", out)...); code != 0 {
			t.Fatalf("lublin: %v (exit %d) %s", err, code, msg)
		}
	}
	if err, code, msg := runApp(t, append(args, "-o", direct)...); code != 0 {
		t.Fatalf("lublin json: %v (exit %d) %s", err, code, msg)
	}
	da, _ := os.ReadFile(swf)
	db, _ := os.ReadFile(swf2)
	if !bytes.HasPrefix(da, []byte("; Version: 2.2\n")) || !bytes.Contains(da, []byte("Lublin-Feitelson")) || !bytes.Equal(da, db) {
		t.Fatalf("SWF output: %.200s", da)
	}
	if err, code, msg := runApp(t, "workload", "from-swf", swf, "-o", conv); code != 0 || !strings.Contains(msg, "800 jobs kept") {
		t.Fatalf("from-swf: %v (exit %d) %s", err, code, msg)
	}
	a, err := workloads.Load(direct)
	if err != nil {
		t.Fatal(err)
	}
	b, err := workloads.Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	if a.NbRes != 39 || b.NbRes != 39 || len(a.Jobs) != 800 || len(b.Jobs) != 800 {
		t.Fatalf("nb_res %d / %d, %d / %d jobs", a.NbRes, b.NbRes, len(a.Jobs), len(b.Jobs))
	}
	for i := range a.Jobs {
		if string(a.Jobs[i].Raw) != string(b.Jobs[i].Raw) {
			t.Fatalf("job %d: lublin %s, from-swf %s", i, a.Jobs[i].Raw, b.Jobs[i].Raw)
		}
	}
	if len(a.Profiles) != len(b.Profiles) {
		t.Fatalf("%d / %d profiles", len(a.Profiles), len(b.Profiles))
	}
	if l, err := b.OfferedLoad(39, 1); err != nil || math.Abs(l-0.9) > 1e-3 {
		t.Errorf("offered load on lille %g (%v), want 0.9", l, err)
	}
	if err, code, msg := runApp(t, "workload", "check", conv, "--platform", "lille"); code != 0 {
		t.Fatalf("check: %v (exit %d) %s", err, code, msg)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--jobs", "0"}, "--jobs"},
		{[]string{"--seed", "0"}, "--seed"},
		{[]string{"--load", "-0.5"}, "--load"},
		{[]string{"--format", "csv"}, "--format"},
		{[]string{"--platform", "lille", "--max-size", "40"}, "max size 40"},
		{[]string{"--model", "mixed"}, "--model"},
		{[]string{"--walltime", "guess"}, "--walltime"},
		{[]string{"--walltime-factor", "0.9"}, "--walltime-factor"},
		{[]string{"--users", "-2"}, "--users"},
		{[]string{"--set", "a1=-1"}, "a1 = -1"},
		{[]string{"--platform", "nowhere.xml"}, "nowhere.xml"},
		{[]string{"extra"}, "extra"},
		{[]string{"--profile-type", "smp"}, `--profile-type "smp": want delay or compute`},
		{[]string{"--profile-type", "compute"}, "--profile-type compute needs the reference speed: --speed FLOPS, or --platform"},
		{[]string{"--speed", "1e9"}, "--speed is the reference speed of --profile-type compute"},
		{[]string{"--profile-type", "compute", "--speed", "-3"}, "--speed -3: want a speed in (0, 1e20]"},
		{[]string{"--profile-type", "compute", "--speed", "1e9", "--format", "swf"}, "an SWF trace has run times only"},
	} {
		err, code, msg := runApp(t, append([]string{"workload", "lublin", "-o", filepath.Join(dir, "bad.json")}, c.args...)...)
		if code != 2 || !strings.Contains(msg+fmt.Sprint(err), c.want) {
			t.Errorf("%v: exit %d, %v %s (want exit 2 naming %q)", c.args, code, err, msg, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); err == nil {
		t.Error("a refused command wrote its output")
	}
}

// "bucma workload from-swf" reads the trace twice and writes the workload
// as it reads it: from a file or a pipe (copied first), to a file or to
// standard output, byte for byte what the converter holding every job in
// memory wrote (testdata/swfgolden, made by it).
func TestFromSWFStreamedThroughCLI(t *testing.T) {
	golden := filepath.Join("..", "workloads", "testdata", "swfgolden")
	trace := filepath.Join(golden, "trace.swf")
	want, err := os.ReadFile(filepath.Join(golden, "ppn4-cancelled.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"--ppn", "4", "--keep-cancelled"}
	check := func(what, source string, got []byte) {
		t.Helper()
		got = bytes.Replace(got, []byte(`"source":`+strconv.Quote(source)), []byte(`"source":"trace.swf"`), 1)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the output differs from %s/ppn4-cancelled.json", what, golden)
		}
	}
	out := filepath.Join(dir, "out.json")
	if err, code, msg := runApp(t, append([]string{"workload", "from-swf", trace, "-o", out}, args...)...); code != 0 || !strings.Contains(msg, "293 jobs kept") {
		t.Fatalf("from-swf: %v (exit %d) %s", err, code, msg)
	}
	b, _ := os.ReadFile(out)
	check("--out", trace, b)
	err, code, msg := runApp(t, append([]string{"workload", "from-swf", trace}, args...)...)
	if code != 0 {
		t.Fatalf("from-swf to stdout: %v (exit %d)", err, code)
	}
	check("stdout", trace, []byte(msg[strings.Index(msg, "{\n"):]))
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.Write(data)
		_ = f.Close()
	}()
	if err, code, msg := runApp(t, append([]string{"workload", "from-swf", fifo, "-o", out}, args...)...); code != 0 {
		t.Fatalf("from-swf from a pipe: %v (exit %d) %s", err, code, msg)
	}
	b, _ = os.ReadFile(out)
	check("a pipe", fifo, b)
	// A stream without a line (/dev/zero) ends in an error, neither read
	// nor copied without end.
	bad := filepath.Join(dir, "bad.json")
	if err, code, msg := runApp(t, "workload", "from-swf", "/dev/zero", "-o", bad); code != 1 || !strings.Contains(fmt.Sprint(err), "from-swf: /dev/zero: line 1 is longer than 16 MiB (not an SWF trace?)") {
		t.Errorf("/dev/zero: %v (exit %d) %s", err, code, msg)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed conversion wrote its output")
	}
}

// Compute profiles make host speed matter: a Lublin workload of compute
// profiles (reference: the platform's slowest host) runs faster on the
// faster hosts of a heterogeneous platform, so that EASY choosing the
// fastest hosts and EASY taking the first free ones finish its jobs at
// different times, where the delay workload's jobs last their run times
// wherever they run.
func TestComputeProfilesHostSpeedMatters(t *testing.T) {
	dir := t.TempDir()
	plat := corpus.Path("hetero8_compute", "platform.xml")
	jobs := func(profile string, hosts string) map[string][2]float64 {
		t.Helper()
		wl := filepath.Join(dir, profile+".json")
		if err, code, msg := runApp(t, "workload", "lublin", "--jobs", "60", "--seed", "4", "--platform", plat, "--profile-type", profile, "-o", wl); code != 0 {
			t.Fatalf("lublin: %v (exit %d) %s", err, code, msg)
		}
		prefix := filepath.Join(dir, profile+"-"+hosts)
		if err, code, msg := runApp(t, "simulate", "-p", plat, "-w", wl, "--scheduler", "easy", "-o", "hosts="+hosts, "-e", prefix, "-q"); code != 0 {
			t.Fatalf("simulate: %v (exit %d) %s", err, code, msg)
		}
		rows := readCSV(t, prefix+"_jobs.csv")
		out := map[string][2]float64{}
		for _, r := range rows[1:] {
			// job_id, ..., profile (d<run time> or c<run time at the
			// slowest host's speed>), ..., execution_time
			rt, err := strconv.ParseFloat(r[2][1:], 64)
			if err != nil {
				t.Fatalf("profile %q", r[2])
			}
			exec, _ := strconv.ParseFloat(r[9], 64)
			out[r[0]] = [2]float64{rt, exec}
		}
		if len(out) != 60 {
			t.Fatalf("%d jobs", len(out))
		}
		return out
	}
	faster := 0
	for _, hosts := range []string{"fastest", "first-fit"} {
		for id, j := range jobs("delay", hosts) {
			if math.Abs(j[1]-j[0]) > 1e-3 {
				t.Errorf("delay, hosts=%s: job %s ran %g s, its run time is %g s", hosts, id, j[1], j[0])
			}
		}
		for id, j := range jobs("compute", hosts) {
			if j[1] > j[0]+1e-3 {
				t.Errorf("compute, hosts=%s: job %s ran %g s, longer than on the slowest host (%g s)", hosts, id, j[1], j[0])
			}
			if j[1] < j[0]*0.99 {
				faster++
			}
		}
	}
	if faster == 0 {
		t.Fatal("no compute job ran faster than on the slowest host")
	}
	a, _ := os.ReadFile(filepath.Join(dir, "compute-fastest_jobs.csv"))
	b, _ := os.ReadFile(filepath.Join(dir, "compute-first-fit_jobs.csv"))
	if bytes.Equal(a, b) {
		t.Fatal("hosts=fastest and hosts=first-fit gave the same jobs on a heterogeneous platform")
	}
}

// readCSV reads a whole CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestGeneratorJobsBounded: a generator's --jobs beyond what it can hold
// in memory (10 000 000) is refused at once (exit 2, naming the limit),
// not left to exhaust the machine's memory; 0 too.
func TestGeneratorJobsBounded(t *testing.T) {
	for _, gen := range []string{"lille", "gang", "lublin", "delays"} {
		for _, n := range []string{"100000000", "0"} {
			err, code, _ := runApp(t, "workload", gen, "--jobs", n, "-o", filepath.Join(t.TempDir(), "w.json"))
			if code != 2 || err == nil || !strings.Contains(err.Error(), "--jobs") {
				t.Errorf("%s --jobs %s: exit %d, %v; want exit 2 naming --jobs", gen, n, code, err)
			}
		}
	}
}
