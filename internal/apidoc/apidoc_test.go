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

// public lists the directories (from the module root) of the packages
// another module imports; the test walks their files (tests excluded).
var public = []string{
	"sched", "sched/xtime", "sched/profile", "policies", "policies/basic", "policies/batsched", "policies/conservative", "policies/bucma", "policies/wtrust",
	"policies/osep", "policies/sge", "policies/gang", "policies/bot", "testkit", "testkit/batsimrun", "cli",
	"batsim", "batsim/v5", "batsim/zmq", "sim", "workloads", "platforms", "expe",
	"studies", "studies/bucma", "studies/osep", "studies/sge", "studies/gang", "studies/bot",
}

func TestExportedNamesDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	var missing []string
	for _, dir := range public {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, dir), func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
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
