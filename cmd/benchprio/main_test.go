package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWFP3IsTheGuides: package wfp3 is, byte for byte, the file
// wfp3/wfp3.go that docs/writing-a-policy.md shows (the benchmark times the
// guide's policy).
func TestWFP3IsTheGuides(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "docs", "writing-a-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var block []string
	marked, in, found := false, false, false
	for sc := bufio.NewScanner(f); sc.Scan() && !found; {
		line := sc.Text()
		switch {
		case line == "<!-- file: wfp3/wfp3.go -->":
			marked = true
		case marked && !in && strings.HasPrefix(line, "```"):
			in = true
		case in && line == "```":
			found = true
		case in:
			block = append(block, line)
		}
	}
	if !found {
		t.Fatal("docs/writing-a-policy.md shows no wfp3/wfp3.go")
	}
	got, err := os.ReadFile(filepath.Join("wfp3", "wfp3.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(block, "\n") + "\n"; string(got) != want {
		t.Errorf("wfp3/wfp3.go differs from the guide's:\n%s\nthe guide's:\n%s", got, want)
	}
}
