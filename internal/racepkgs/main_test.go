package main

import (
	"go/parser"
	"go/token"
	"testing"
)

// What makes a file concurrent, and what does not.
func TestConcurrent(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"package p\nfunc f() { go g() }\nfunc g() {}", true},
		{"package p\nfunc f() { c := make(chan int, 1); c <- 1 }", true},
		{"package p\nfunc f(c <-chan int) {}", true},
		{"package p\nfunc f() { select {} }", true},
		{"package p\nimport \"sync\"\nvar mu sync.Mutex", true},
		{"package p\nimport \"sync/atomic\"\nvar n atomic.Int64", true},
		{"package p\nimport \"testing\"\nfunc TestX(t *testing.T) { t.Parallel() }", true},
		{"package p\nimport \"sort\"\nfunc f(x []int) { sort.Ints(x) }", false},
		{"package p\n// go func() in a comment\nfunc f() string { return \"go func\" }", false},
		{"package p\nfunc f(p interface{ Parallel(int) }) { p.Parallel(1) }", false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := concurrent(f); got != c.want {
			t.Errorf("concurrent(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}

// The module's split: a package holding goroutines is raced, a policy
// package is not, and an importer of a package marked
// //bucma:race-importers (the campaign runner) is.
func TestSplitModule(t *testing.T) {
	pkgs, err := list([]string{"github.com/bucma-sched/bucma/..."})
	if err != nil {
		t.Fatal(err)
	}
	raced, err := split(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	const m = "github.com/bucma-sched/bucma/"
	for p, want := range map[string]bool{
		m + "batsim/zmq":        true,
		m + "expe":              true,
		m + "studies/bucma":     true,
		m + "policies/basic":    false,
		m + "sched":             false,
		m + "internal/racepkgs": false,
	} {
		if got := raced[p] != ""; got != want {
			t.Errorf("%s raced = %v (%s), want %v", p, got, raced[p], want)
		}
	}
}
