// Package apidoc checks that bucma's public packages document every
// exported name: a policy author reads `go doc`, so a name without a
// comment is a gap in the API's documentation.
package apidoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// publicDirs lists the directories (from the module root) of the packages
// another module can import: every package of the module outside internal/
// folders, testdata and the commands (package main), so that a package added
// later is checked too. The examples module is a module of its own.
func publicDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		switch d.Name() {
		case "internal", "testdata", "examples", "cmd", "node_modules":
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				dirs = append(dirs, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d public packages under %s: %v", len(dirs), root, dirs)
	}
	return dirs
}

func TestExportedNamesDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	var missing []string
	for _, dir := range publicDirs(t, root) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, dir), func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			if pkg.Name == "main" {
				continue
			}
			hasPkgDoc := false
			for name, f := range pkg.Files {
				if f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package "+pkg.Name+" ") {
					hasPkgDoc = true
				}
				missing = append(missing, undocumented(fset, name, f)...)
			}
			if !hasPkgDoc {
				missing = append(missing, dir+": package comment (\"Package "+pkg.Name+" ...\")")
			}
		}
	}
	for _, m := range missing {
		t.Error("undocumented: " + m)
	}
}

// undocumented lists the exported declarations of f without a comment:
// functions, methods of exported types, types, and constants and
// variables (a group's comment covers its members).
func undocumented(fset *token.FileSet, name string, f *ast.File) []string {
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil {
				if recv := recvName(d.Recv.List[0].Type); recv == "" || !ast.IsExported(recv) {
					continue
				}
			}
			at(d, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
						at(s, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
							at(n, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	}
	return ""
}
