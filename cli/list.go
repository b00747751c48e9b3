package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/sched"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:         "list",
		Usage:        "list the scheduling policies and their options",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "names", Usage: "print the policy names only, one per line"},
			&cli.BoolFlag{Name: "markdown", Usage: "print the list as Markdown (for documentation)"},
		},
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			reg := registry(c)
			w := stdout(c)
			switch {
			case c.Bool("names"):
				for _, n := range reg.Names() {
					fmt.Fprintln(w, n)
				}
				return nil
			case c.Bool("markdown"):
				return writePolicyMarkdown(w, reg)
			}
			return writePolicyTable(w, reg)
		},
	}
}

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

// writePolicyTable prints each policy with its description, then a table of
// its options (name, default, accepted values, help).
func writePolicyTable(w io.Writer, reg *sched.Registry) error {
	for i, name := range reg.Names() {
		spec, _ := reg.Get(name)
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n    %s\n", spec.Name, spec.Description)
		if spec.DynamicJobs {
			fmt.Fprintf(w, "    %s\n", dynamicJobsNote)
		}
		if spec.ComputeSharing {
			fmt.Fprintf(w, "    %s\n", computeSharingNote)
		}
		if spec.Energy {
			fmt.Fprintf(w, "    %s\n", energyNote)
		}
		if len(spec.Options) == 0 {
			fmt.Fprintln(w, "    (no option)")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    OPTION\tDEFAULT\tVALUES\tHELP")
		for _, o := range spec.Options {
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", o.Name, optionDefault(o), optionValues(o), o.Help)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// writePolicyMarkdown prints one section per policy with a table of options.
func writePolicyMarkdown(w io.Writer, reg *sched.Registry) error {
	for i, name := range reg.Names() {
		spec, _ := reg.Get(name)
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "#### `%s`\n\n%s\n", spec.Name, spec.Description)
		if spec.DynamicJobs {
			fmt.Fprintf(w, "\n%s\n", dynamicJobsNote)
		}
		if spec.ComputeSharing {
			fmt.Fprintf(w, "\n%s\n", computeSharingNote)
		}
		if spec.Energy {
			fmt.Fprintf(w, "\n%s\n", energyNote)
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
