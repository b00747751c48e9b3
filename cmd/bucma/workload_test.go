package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bucma/workloads"
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

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
