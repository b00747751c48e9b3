package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The binary built from this module knows the example policies in every
// command: list shows them, simulate runs sjf on the bundled Lille
// platform and workload.
func TestCommandKnowsTheExamples(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mybucma")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sjf", "fairshare", "preempt", "easy", "bucma"} {
		if !strings.Contains("\n"+string(out), "\n"+name+"\n") {
			t.Errorf("list does not show %s", name)
		}
	}
	prefix := filepath.Join(dir, "lille-sjf")
	sim := exec.Command(bin, "simulate", "-p", "lille", "-w", filepath.Join("..", "..", "..", "workloads", "lille-7056.json"),
		"--scheduler", "sjf", "-e", prefix)
	if out, err := sim.CombinedOutput(); err != nil {
		t.Fatalf("simulate: %v\n%s", err, out)
	}
	jobs, err := os.ReadFile(prefix + "_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(jobs), "\n"); n != 7057 {
		t.Fatalf("%d lines in _jobs.csv, want 7057", n)
	}
	// An unknown option of the new policy is a usage error.
	if err := exec.Command(bin, "simulate", "-p", "lille", "-w", "x.json", "--scheduler", "sjf", "-o", "nope=1").Run(); err == nil {
		t.Fatal("an unknown option was accepted")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("unknown option: %v, want exit status 2", err)
	}
}
