// Command racepkgs splits the module's packages into those `make test` runs
// under the race detector and the others. A race can only live where memory
// is shared between goroutines, so a package is raced when:
//
//   - one of its files, tests included, starts a goroutine, uses a channel or
//     a select, imports sync or sync/atomic, or runs tests in parallel
//     (t.Parallel); or
//   - it imports, tests included, a package whose doc comment carries the
//     directive //bucma:race-importers: a package that runs its importers'
//     code in goroutines of its own (the campaign runner runs a plan's code
//     in its workers), so that a race in the importer's code shows only in
//     the importer's tests.
//
// The other packages hold single-threaded code only: the race detector
// costs them 5 to 10 times the CPU and finds nothing there; the concurrent
// code they call is raced in its own package's tests.
//
// Usage:
//
//	racepkgs [-plain] [-why] [-exclude PKG,...] [PATTERN...]
//
// prints the import paths of the raced packages (with -plain, the others)
// matched by the patterns (default ./...), one per line, sorted, those
// named by -exclude left out; -why adds, after a raced package, where its
// first concurrent construct is or the marked package it imports.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// directive marks a package whose importers are raced too.
const directive = "//bucma:race-importers"

// listed is what go list says of one package.
type listed struct {
	ImportPath                         string
	Dir                                string
	GoFiles, CgoFiles                  []string
	TestGoFiles, XTestGoFiles          []string
	Imports, TestImports, XTestImports []string
	Error                              *struct{ Err string }
}

func main() {
	plain := flag.Bool("plain", false, "print the packages run without the race detector")
	exclude := flag.String("exclude", "", "comma-separated import paths to leave out")
	why := flag.Bool("why", false, "say why each raced package is raced")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: racepkgs [-plain] [-exclude PKG,...] [PATTERN...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "racepkgs:", err)
		os.Exit(1)
	}
	raced, err := split(pkgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "racepkgs:", err)
		os.Exit(1)
	}
	skip := map[string]bool{}
	for _, p := range strings.Split(*exclude, ",") {
		skip[strings.TrimSpace(p)] = true
	}
	for _, p := range pkgs {
		reason, ok := raced[p.ImportPath]
		switch {
		case skip[p.ImportPath] || ok == *plain:
		case *why && ok:
			fmt.Printf("%s\t%s\n", p.ImportPath, reason)
		default:
			fmt.Println(p.ImportPath)
		}
	}
}

// list runs go list on the patterns.
func list(patterns []string) ([]listed, error) {
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(patterns, " "), err, stderr.Bytes())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b listed) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return pkgs, nil
}

// split says which packages are raced, and why: the position of the first
// concurrent construct found in their files, or the marked package they
// import.
func split(pkgs []listed) (map[string]string, error) {
	raced := map[string]string{}
	marked := map[string]bool{}
	fset := token.NewFileSet()
	for _, p := range pkgs {
		files := slices.Concat(p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles)
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			if pos, ok := concurrent(f); ok && raced[p.ImportPath] == "" {
				raced[p.ImportPath] = fset.Position(pos).String()
			}
			if f.Doc != nil && slices.ContainsFunc(f.Doc.List, func(c *ast.Comment) bool { return c.Text == directive }) {
				marked[p.ImportPath] = true
			}
		}
	}
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if marked[imp] && raced[p.ImportPath] == "" {
				raced[p.ImportPath] = "imports " + imp
			}
		}
	}
	return raced, nil
}

// concurrent reports whether f shares memory between goroutines, or may,
// and where it says so first.
func concurrent(f *ast.File) (token.Pos, bool) {
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "sync" || path == "sync/atomic" {
			return imp.Pos(), true
		}
	}
	var at ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt, *ast.ChanType, *ast.SelectStmt:
			at = n
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" && len(n.Args) == 0 {
				at = n
			}
		}
		return at == nil
	})
	if at == nil {
		return token.NoPos, false
	}
	return at.Pos(), true
}
