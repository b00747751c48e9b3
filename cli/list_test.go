package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
)

// TestList: every registered policy appears with its description and every
// option with its default, accepted values and help.
func TestList(t *testing.T) {
	err, code, out := runApp(t, "list")
	if err != nil || code != 0 {
		t.Fatalf("list: %v", err)
	}
	reg := policies.Builtin()
	for _, name := range reg.Names() {
		spec, _ := reg.Get(name)
		i := strings.Index(out, "\n"+name+"\n")
		if !strings.HasPrefix(out, name+"\n") && i < 0 {
			t.Fatalf("policy %s has no heading line in:\n%s", name, out)
		}
		section := out[max(i, 0):]
		if !strings.Contains(section, spec.Description) {
			t.Fatalf("policy %s: description missing", name)
		}
		for _, o := range spec.Options {
			row := ""
			for _, l := range strings.Split(section, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), o.Name+" ") {
					row = l
					break
				}
			}
			if row == "" {
				t.Fatalf("policy %s: no row for option %s", name, o.Name)
			}
			for _, want := range []string{optionDefault(o), o.Help} {
				if !strings.Contains(row, want) {
					t.Fatalf("policy %s option %s: row %q lacks %q", name, o.Name, row, want)
				}
			}
			for _, v := range o.Values {
				if !strings.Contains(row, v) {
					t.Fatalf("policy %s option %s: row %q lacks value %q", name, o.Name, row, v)
				}
			}
		}
	}
}

func TestListNames(t *testing.T) {
	_, _, out := runApp(t, "list", "--names")
	got := strings.Fields(out)
	want := policies.Builtin().Names()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("list --names: %v, want %v", got, want)
	}
}

func TestListMarkdown(t *testing.T) {
	_, _, out := runApp(t, "list", "--markdown")
	reg := policies.Builtin()
	for _, name := range reg.Names() {
		spec, _ := reg.Get(name)
		if !strings.Contains(out, "#### `"+name+"`\n\n"+spec.Description) {
			t.Fatalf("no section for %s", name)
		}
		for _, o := range spec.Options {
			if !strings.Contains(out, "| `"+o.Name+"` | `"+mdEscape(optionDefault(o))+"` |") {
				t.Fatalf("%s: no row for option %s", name, o.Name)
			}
		}
	}
}

// The listing is the policies' documentation: it changes only when a policy
// or option does (update the golden files then).
func TestListGolden(t *testing.T) {
	for _, c := range []struct{ golden, flag string }{
		{"list.txt", ""},
		{"list.md", "--markdown"},
	} {
		args := []string{"list"}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		_, _, out := runApp(t, args...)
		want, err := os.ReadFile(filepath.Join("testdata", "list", c.golden))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("bucma %s differs from testdata/list/%s:\n%s", strings.Join(args, " "), c.golden, out)
		}
	}
}
