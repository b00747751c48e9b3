package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list the scheduling policies and their options",
		ArgsUsage: "[NAME...]",
		Description: `Prints every policy (or the policies NAME...): its description, what it needs
from Batsim, the batsched variants it reproduces, and each option with its
default, accepted values and help. Text is wrapped at the terminal's width, or
at 100 columns when the output is not a terminal.`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "names", Usage: "print the policy names only, one per line"},
			&cli.BoolFlag{Name: "markdown", Usage: "print the list as Markdown (for documentation)"},
		},
		Action: func(c *cli.Context) error {
			pos, err := positional(c)
			if err != nil {
				return err
			}
			reg := registry(c)
			names := pos
			for _, n := range names {
				if _, err := reg.Lookup(n); err != nil {
					return err
				}
			}
			if len(names) == 0 {
				names = reg.Names()
			}
			w := stdout(c)
			switch {
			case c.Bool("names"):
				for _, n := range names {
					fmt.Fprintln(w, n)
				}
				return nil
			case c.Bool("markdown"):
				return writePolicyMarkdown(w, reg, names)
			}
			return writePolicyText(w, reg, names, listWidth(w))
		},
	}
}

// listWidth is the width "bucma list" wraps its text at: the terminal's,
// or defaultListWidth when the output is not a terminal (a file, a pipe)
// or the terminal does not say.
func listWidth(w io.Writer) int {
	if width, ok := terminalWidth(w); ok && width > 0 {
		return max(width, minListWidth)
	}
	return defaultListWidth
}

const (
	defaultListWidth = 100
	// minListWidth keeps a column of text readable on a very narrow
	// terminal (the lines are then wider than it).
	minListWidth = 40
)

// optionValues describes what an option accepts.
func optionValues(o sched.OptionSpec) string {
	if len(o.Values) == 0 {
		return "any"
	}
	return strings.Join(o.Values, " | ")
}

func optionDefault(o sched.OptionSpec) string {
	if o.Default == "" {
		return `""`
	}
	return o.Default
}

// policyNeeds are the notes on what the policy needs from Batsim.
func policyNeeds(spec *sched.Spec) []string {
	var out []string
	if spec.DynamicJobs {
		out = append(out, dynamicJobsNote)
	}
	if spec.ComputeSharing {
		out = append(out, computeSharingNote)
	}
	if spec.Energy {
		out = append(out, energyNote)
	}
	if len(spec.JobFields) > 0 {
		out = append(out, fmt.Sprintf("Its jobs carry fields of their own (%s): a job without them is rejected, and bucma simulate refuses a workload none of whose jobs has any.", strings.Join(spec.JobFields, ", ")))
	}
	return out
}

// policyTwins are the batsched variants whose twin is the policy, each
// with the options that make the policy take its decisions.
func policyTwins(name string) []listRow {
	var out []listRow
	for _, v := range policies.BatschedVariants() {
		if v.Policy == name {
			var words []string
			for _, arg := range strings.Split(v.OptionArgs(), " -o ")[1:] {
				words = append(words, "-o "+arg)
			}
			if len(words) == 0 {
				words = []string{"the", "default", "options"}
			}
			out = append(out, listRow{v.Name, [][]string{words}})
		}
	}
	return out
}

// twinsHeading introduces a policy's batsched variants.
const twinsHeading = "batsched's variants it reproduces ('bucma run -v VARIANT' serves them as batsched would), with these options"

// listRow is a row of a block of "bucma list": a name, and the paragraphs
// beside it, each a list of words (a line breaks between two words only).
type listRow struct {
	name  string
	texts [][]string
}

// writePolicyText prints each policy: its name, then, indented and wrapped
// at width, its description, what it needs from Batsim, the batsched
// variants it reproduces, and its options (each one's default, accepted
// values and help).
func writePolicyText(w io.Writer, reg *sched.Registry, names []string, width int) error {
	var b strings.Builder
	for i, name := range names {
		spec, _ := reg.Get(name)
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(spec.Name + "\n")
		wrap(&b, spec.Description, "    ", "    ", width)
		for _, n := range policyNeeds(spec) {
			wrap(&b, n, "    ", "    ", width)
		}
		if twins := policyTwins(spec.Name); len(twins) > 0 {
			wrap(&b, twinsHeading+":", "    ", "    ", width)
			writeRows(&b, twins, width)
		}
		if len(spec.Options) == 0 {
			b.WriteString("    (no option)\n")
			continue
		}
		b.WriteString("    options:\n")
		rows := make([]listRow, len(spec.Options))
		for i, o := range spec.Options {
			about := "default " + optionDefault(o)
			if len(o.Values) > 0 {
				about += "; one of " + optionValues(o)
			}
			rows[i] = listRow{o.Name, [][]string{strings.Fields(about), strings.Fields(o.Help)}}
		}
		writeRows(&b, rows, width)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRows writes rows as a block: each name, and its paragraphs wrapped
// in a column beside the names when one of minRowText is left at width,
// under the name otherwise.
func writeRows(b *strings.Builder, rows []listRow, width int) {
	const minRowText = 40
	nameWidth := 0
	for _, r := range rows {
		nameWidth = max(nameWidth, utf8.RuneCountInString(r.name))
	}
	indent := strings.Repeat(" ", 6+nameWidth+2)
	beside := width-len(indent) >= minRowText
	if !beside {
		indent = strings.Repeat(" ", 10)
	}
	for _, r := range rows {
		first := indent
		if beside {
			first = "      " + r.name + strings.Repeat(" ", nameWidth+2-utf8.RuneCountInString(r.name))
		} else {
			b.WriteString("      " + r.name + "\n")
		}
		for _, words := range r.texts {
			if len(words) > 0 {
				wrapWords(b, words, first, indent, width)
				first = indent
			}
		}
	}
}

// wrap writes text's words to b (wrapWords).
func wrap(b *strings.Builder, text, first, indent string, width int) {
	wrapWords(b, strings.Fields(text), first, indent, width)
}

// wrapWords writes words to b, separated by spaces, in lines of at most
// width characters, the first line starting with first and the others with
// indent. A word too long for a line of its own is cut.
func wrapWords(b *strings.Builder, words []string, first, indent string, width int) {
	line, n := first, utf8.RuneCountInString(first)
	fresh := true // nothing but the prefix on the line yet
	flush := func() {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		line, n, fresh = indent, utf8.RuneCountInString(indent), true
	}
	for _, word := range words {
		wl := utf8.RuneCountInString(word)
		if !fresh && n+1+wl > width {
			flush()
		}
		for room := width - n; fresh && wl > room && room > 0; room = width - n {
			r := []rune(word)
			line += string(r[:room])
			word, wl = string(r[room:]), wl-room
			flush()
		}
		if !fresh {
			line += " "
			n++
		}
		line += word
		n += wl
		fresh = false
	}
	if !fresh {
		flush()
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// writePolicyMarkdown prints one section per policy with a table of options.
func writePolicyMarkdown(w io.Writer, reg *sched.Registry, names []string) error {
	for i, name := range names {
		spec, _ := reg.Get(name)
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "#### `%s`\n\n%s\n", spec.Name, spec.Description)
		for _, n := range policyNeeds(spec) {
			fmt.Fprintf(w, "\n%s\n", n)
		}
		if twins := policyTwins(spec.Name); len(twins) > 0 {
			fmt.Fprintf(w, "\n%s:\n\n", twinsHeading)
			for _, t := range twins {
				args := strings.Join(t.texts[0], " ")
				if strings.HasPrefix(args, "-o ") {
					args = "`" + args + "`"
				}
				fmt.Fprintf(w, "- `%s`: %s\n", t.name, args)
			}
		}
		if len(spec.Options) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n| option | default | values | help |\n|---|---|---|---|\n")
		for _, o := range spec.Options {
			fmt.Fprintf(w, "| `%s` | `%s` | %s | %s |\n", o.Name, mdEscape(optionDefault(o)), mdEscape(optionValues(o)), mdEscape(o.Help))
		}
	}
	_, err := fmt.Fprint(w)
	return err
}

// computeSharingNote is listed under the policies that share hosts.
const computeSharingNote = "Batsim must run with --enable-compute-sharing when a host has more than one slot (bucma simulate and bucma expe turn it on)."

// energyNote is listed under the policies that switch power states or
// report energy.
const energyNote = "Batsim must run with --energy (-E) (bucma simulate and bucma expe turn it on)."

// dynamicJobsNote is listed under the policies that kill and resubmit.
const dynamicJobsNote = "Batsim must run with --enable-dynamic-jobs, preferably with --acknowledge-dynamic-jobs: bucma expe turns both on, and so does bucma simulate unless one of them is given (an explicit --enable-dynamic-jobs alone leaves acknowledgement off, Batsim's default)."
