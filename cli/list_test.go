package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bucma-sched/bucma/policies"
)

// TestList: every registered policy appears with its description and every
// option with its default, accepted values and help (wrapped: the section's
// words are compared, not its lines).
func TestList(t *testing.T) {
	err, code, out := runApp(t, "list")
	if err != nil || code != 0 {
		t.Fatalf("list: %v", err)
	}
	reg := policies.Builtin()
	names := reg.Names()
	for k, name := range names {
		spec, _ := reg.Get(name)
		i := strings.Index(out, "\n"+name+"\n")
		if !strings.HasPrefix(out, name+"\n") && i < 0 {
			t.Fatalf("policy %s has no heading line in:\n%s", name, out)
		}
		section := out[max(i, 0):]
		if k+1 < len(names) {
			section = section[:strings.Index(section, "\n"+names[k+1]+"\n")]
		}
		text := strings.Join(strings.Fields(section), " ")
		if !strings.Contains(text, strings.Join(strings.Fields(spec.Description), " ")) {
			t.Fatalf("policy %s: description missing", name)
		}
		for _, o := range spec.Options {
			about := o.Name + " default " + optionDefault(o)
			if len(o.Values) > 0 {
				about += "; one of " + strings.Join(o.Values, " | ")
			}
			for _, want := range []string{about, strings.Join(strings.Fields(o.Help), " ")} {
				if !strings.Contains(text, want) {
					t.Fatalf("policy %s option %s: %q lacks %q", name, o.Name, section, want)
				}
			}
		}
	}
}

// "bucma list" wraps its text at the terminal's width, at 100 columns when
// the output is not one, at 40 at least.
func TestListWraps(t *testing.T) {
	saved := terminalWidth
	defer func() { terminalWidth = saved }()
	for _, c := range []struct {
		terminal    bool
		width, want int
	}{
		{false, 0, 100},
		{true, 0, 100},
		{true, 72, 72},
		{true, 200, 200},
		{true, 20, 40},
	} {
		terminalWidth = func(io.Writer) (int, bool) { return c.width, c.terminal }
		_, code, out := runApp(t, "list")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		widest := 0
		for _, l := range strings.Split(out, "\n") {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if widest > c.want || widest < c.want-10 {
			t.Errorf("terminal %v of width %d: the widest line has %d characters, want %d at most (and close to it)", c.terminal, c.width, widest, c.want)
		}
	}
}

// wrap breaks between words, keeps the prefixes, and cuts a word longer
// than a line.
func TestWrap(t *testing.T) {
	for _, c := range []struct {
		text, first, indent string
		width               int
		want                string
	}{
		{"aa bb cc", "- ", "  ", 8, "- aa bb\n  cc\n"},
		{"aa  bb\ncc", "", "", 80, "aa bb cc\n"},
		{"abcdefghij", "> ", "  ", 6, "> abcd\n  efgh\n  ij\n"},
		{"", "x ", "", 10, ""},
		{"é é é", "", "", 3, "é é\né\n"},
	} {
		var b strings.Builder
		wrap(&b, c.text, c.first, c.indent, c.width)
		if b.String() != c.want {
			t.Errorf("wrap(%q, %q, %q, %d) = %q, want %q", c.text, c.first, c.indent, c.width, b.String(), c.want)
		}
	}
}

// "bucma list NAME..." prints those policies' pages alone; an unknown name
// is a usage error listing the valid ones.
func TestListNamed(t *testing.T) {
	_, code, out := runApp(t, "list", "easy")
	if code != 0 || !strings.HasPrefix(out, "easy\n") || strings.Contains(out, "\nfcfs\n") {
		t.Fatalf("list easy (exit %d):\n%s", code, out)
	}
	for _, w := range []string{"easy_bf", "-o backfill=batsched -o hosts=first-fit", "no-walltime", "default extra-hosts; one of extra-hosts | reject"} {
		if !strings.Contains(out, w) {
			t.Errorf("list easy lacks %q:\n%s", w, out)
		}
	}
	_, _, out = runApp(t, "list", "osep", "submitter")
	if !strings.HasPrefix(out, "osep\n") || !strings.Contains(out, "\n\nsubmitter\n") || !strings.Contains(out, "--enable-dynamic-jobs") {
		t.Errorf("list osep submitter:\n%s", out)
	}
	_, _, out = runApp(t, "list", "--names", "sleeper", "easy")
	if out != "sleeper\neasy\n" {
		t.Errorf("list --names sleeper easy: %q", out)
	}
	_, _, out = runApp(t, "list", "--markdown", "fcfs")
	if !strings.HasPrefix(out, "#### `fcfs`") || strings.Contains(out, "#### `easy`") {
		t.Errorf("list --markdown fcfs:\n%s", out)
	}
	err, code, _ := runApp(t, "list", "easy", "nope")
	if code != 2 || !strings.Contains(err.Error(), `unknown scheduler "nope"`) || !strings.Contains(err.Error(), "easy, energy") {
		t.Errorf("list nope: exit %d, %v", code, err)
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
