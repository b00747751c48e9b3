package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
)

// batsched's command line. "bucma run" takes batsched 1.4.0's flags, with
// their names and values, and runs the built-in policy that decides as the
// variant (policies.BatschedVariants), so that a script swaps "batsched"
// for "bucma run" (or calls bucma through a link named batsched) and gets
// the same results:
//
//	batsched -v easy_bf -s tcp://*:28000    ->    bucma run -v easy_bf -s tcp://*:28000
//
// batsched's -v (variant) and -o (queue order) are run's -v (--verbose) and
// -o (--option key=value) otherwise. run is in batsched's mode when its
// arguments say so unambiguously: -v followed by a word (a variant name:
// --verbose takes none), a flag only batsched has (--variant,
// --variant_options, --variant_options_filepath, -d/--rjms_delay,
// -p/--policy, --queue_order, --verbosity,
// --call_make_decisions_on_single_nop, --version), or -o followed by one of
// batsched's queue orders (an --option is always key=value). No command
// line valid before means something else now.

// batschedVariantNames are batsched 1.4.0's variants (its --help).
var batschedVariantNames = []string{"conservative_bf", "crasher", "easy_bf", "easy_bf_fast",
	"easy_bf_plot_liquid_load_horizon", "energy_bf", "energy_bf_dicho", "energy_bf_idle_sleeper",
	"energy_bf_monitoring", "energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper",
	"energy_watcher", "fcfs", "fcfs_fast", "filler", "killer", "killer2", "random", "rejecter",
	"sequencer", "sleeper", "submitter", "waiting_time_estimator"}

// queueOrders are batsched's queue orders (its -o).
var queueOrders = []string{"fcfs", "lcfs", "desc_bounded_slowdown", "desc_slowdown", "asc_size", "desc_size", "asc_walltime", "desc_walltime"}

// batschedFlag is one of batsched's flags: its long name, its short one
// ("" if none), whether it takes a value, and the values it accepts (nil:
// any, checked elsewhere).
type batschedFlag struct {
	long, short string
	value       bool
	values      []string
	help        string
}

var batschedFlags = []batschedFlag{
	{long: "help", short: "h", help: "this help"},
	{long: "rjms_delay", short: "d", value: true, help: "the RJMS delay added to walltimes (a number >= 0; default 5)"},
	{long: "policy", short: "p", value: true, values: []string{"basic", "contiguous"}, help: "resource selection (default basic)"},
	{long: "socket-endpoint", short: "s", value: true, help: "ZeroMQ endpoint to bind (default tcp://*:28000)"},
	{long: "variant", short: "v", value: true, help: "the scheduling variant (default filler)"},
	{long: "variant_options", value: true, help: "the variant's options, a JSON object (default {})"},
	{long: "variant_options_filepath", value: true, help: "a file holding the variant's options; overrides --variant_options"},
	{long: "queue_order", short: "o", value: true, values: queueOrders, help: "queue order (default fcfs)"},
	{long: "verbosity", value: true, values: []string{"debug", "info", "quiet", "silent"}, help: "log level (default info)"},
	{long: "call_make_decisions_on_single_nop", value: true, help: "0: no decision on a message holding a lone REQUESTED_CALL (default 1)"},
	{long: "version", help: "print bucma's version"},
}

// runPassThrough are the flags of bucma run that batsched's mode takes too
// (long names only), and whether they take a value.
var runPassThrough = map[string]bool{"timeout": true, "trace": true, "endpoint-file": true, "transport": true,
	"validate": false, "verbose": false, "batsim5": false}

// runValueFlags are run's flags that take a value (a -v after one of them
// is that value, not a flag).
var runValueFlags = map[string]bool{"--scheduler": true, "--option": true, "-o": true, "-s": true,
	"--socket-endpoint": true, "--endpoint-file": true, "--transport": true, "--timeout": true, "--trace": true}

// isBatschedRun reports whether run's arguments are batsched's.
func isBatschedRun(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--":
			return false
		case a == "-v":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return true
			}
		case strings.HasPrefix(a, "-v") && !strings.HasPrefix(a, "--"):
			return true // -vNAME
		case a == "-o":
			if i+1 < len(args) && slices.Contains(queueOrders, args[i+1]) {
				return true
			}
			i++
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--") && slices.Contains(queueOrders, a[2:]):
			return true // -oORDER
		case name == "-d" || name == "-p" || (strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "-p")) && !strings.HasPrefix(a, "--"):
			return true
		case strings.HasPrefix(a, "--"):
			for _, f := range batschedFlags {
				if name == "--"+f.long && f.long != "help" && f.long != "socket-endpoint" {
					return true
				}
			}
			if runValueFlags[a] {
				i++
			}
		case runValueFlags[a]:
			i++
		}
	}
	return false
}

// batschedArgs is a command line in batsched's terms.
type batschedArgs struct {
	given map[string]string // batsched flags given, by long name
	run   []string          // bucma run flags passed through
}

// parseBatschedArgs reads batsched's flags (-xVALUE, -x VALUE,
// --long=VALUE, --long VALUE) and run's long flags that batsched's mode
// keeps; anything else is a usage error.
func parseBatschedArgs(args []string) (*batschedArgs, error) {
	b := &batschedArgs{given: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var f *batschedFlag
		var val string
		hasVal := false
		switch {
		case strings.HasPrefix(a, "--"):
			name, v, eq := strings.Cut(a[2:], "=")
			for k := range batschedFlags {
				if batschedFlags[k].long == name {
					f = &batschedFlags[k]
				}
			}
			if f == nil {
				takesValue, ok := runPassThrough[name]
				if !ok {
					return nil, batschedUsage("unknown flag %s", a)
				}
				if takesValue && !eq {
					if i+1 == len(args) {
						return nil, batschedUsage("flag --%s needs a value", name)
					}
					i++
					a += "=" + args[i]
				}
				b.run = append(b.run, a)
				continue
			}
			val, hasVal = v, eq
		case strings.HasPrefix(a, "-") && len(a) >= 2:
			for k := range batschedFlags {
				if batschedFlags[k].short == a[1:2] {
					f = &batschedFlags[k]
				}
			}
			if f == nil {
				return nil, batschedUsage("unknown flag %s", a)
			}
			if len(a) > 2 {
				val, hasVal = a[2:], true
			}
		default:
			return nil, batschedUsage("unexpected argument %q", a)
		}
		if !f.value {
			if hasVal {
				return nil, batschedUsage("flag --%s takes no value", f.long)
			}
			b.given[f.long] = "true"
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, batschedUsage("flag --%s needs a value", f.long)
			}
			i++
			val = args[i]
		}
		if f.values != nil && !slices.Contains(f.values, val) {
			return nil, batschedUsage("--%s %q: not in {%s}", f.long, val, strings.Join(f.values, ", "))
		}
		b.given[f.long] = val
	}
	if d, ok := b.given["rjms_delay"]; ok {
		if x, err := strconv.ParseFloat(d, 64); err != nil || !(x >= 0) || math.IsInf(x, 1) {
			return nil, batschedUsage("--rjms_delay %q: want a finite number >= 0", d)
		}
	}
	if n, ok := b.given["call_make_decisions_on_single_nop"]; ok {
		if _, err := strconv.Atoi(n); err != nil && n != "true" && n != "false" {
			return nil, batschedUsage("--call_make_decisions_on_single_nop %q: want 0 or 1", n)
		}
	}
	return b, nil
}

func batschedUsage(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf("run (batsched's command line): "+format+" (see 'bucma run -v filler --help')", args...), 2)
}

// batschedMode is run's batsched mode, resolved: the variant, its twin's
// options (every option of the policy, so that Batsim's sched-config, which
// batsched ignores, cannot change one), the variant options it does not
// read, and the log level.
type batschedMode struct {
	variant policies.BatschedVariant
	options sched.Options
	unread  []string
	level   slog.Level
	debug   bool
}

const batschedModeKey = "batsched"

// silent is a log level above every record's.
const silent = slog.Level(100)

// runBatsched runs "bucma run" with batsched's arguments.
func runBatsched(app *cli.App, args []string) error {
	b, err := parseBatschedArgs(args)
	if err != nil {
		return err
	}
	reg := app.Metadata[registryKey].(*sched.Registry)
	out := app.Writer
	if out == nil {
		out = os.Stdout
	}
	if b.given["help"] != "" {
		return batschedHelp(out, reg)
	}
	if b.given["version"] != "" {
		_, err := fmt.Fprintln(out, appVersion())
		return err
	}
	name := "filler" // batsched's default variant
	if v, ok := b.given["variant"]; ok {
		name = v
	}
	v, ok := policies.BatschedVariantByName(name)
	if ok {
		_, ok = reg.Get(v.Policy)
	}
	if !ok {
		known := twinNames(reg)
		if slices.Contains(batschedVariantNames, name) {
			return cli.Exit(fmt.Sprintf("run: batsched's variant %q has no twin in bucma (variants with one: %s)", name, strings.Join(known, ", ")), 2)
		}
		return cli.Exit(fmt.Sprintf("run: unknown variant %q (variants with a twin in bucma: %s)", name, strings.Join(known, ", ")), 2)
	}
	vopts, err := variantOptions(b.given)
	if err != nil {
		return err
	}
	flags := map[string]string{}
	for f := range policies.BatschedFlagDefaults {
		if val, ok := b.given[f]; ok {
			flags[f] = val
		}
	}
	opts, unread, err := v.Resolve(flags, vopts)
	if err != nil {
		return err
	}
	spec, _ := reg.Get(v.Policy)
	if opts, err = spec.Resolve(opts); err != nil {
		return fmt.Errorf("variant %s: %w", name, err)
	}
	mode := &batschedMode{variant: v, options: opts, unread: unread, level: slog.LevelInfo}
	switch b.given["verbosity"] {
	case "debug":
		mode.level, mode.debug = slog.LevelDebug, true
	case "quiet":
		mode.level = slog.LevelWarn
	case "silent":
		mode.level = silent
	}
	runArgs := []string{"bucma", "run", "--scheduler", v.Policy}
	if ep, ok := b.given["socket-endpoint"]; ok {
		runArgs = append(runArgs, "--socket-endpoint", ep)
	}
	app.Metadata[batschedModeKey] = mode
	defer delete(app.Metadata, batschedModeKey)
	return app.Run(append(runArgs, b.run...))
}

// variantOptions reads --variant_options, or the file of
// --variant_options_filepath (which wins, as in batsched): a JSON object.
func variantOptions(given map[string]string) (map[string]json.RawMessage, error) {
	text, where := "{}", "--variant_options"
	if t, ok := given["variant_options"]; ok {
		text = t
	}
	if path, ok := given["variant_options_filepath"]; ok && path != "" {
		b, err := readBounded(path, maxVariantOptions)
		if err != nil {
			hint := ""
			if errors.Is(err, errTooLarge) {
				hint = " (a variant's options are a small JSON object)"
			}
			return nil, cli.Exit(fmt.Sprintf("run: --variant_options_filepath: %v%s", err, hint), 1)
		}
		text, where = string(b), "--variant_options_filepath "+path
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		msg := "not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		code := 2
		if strings.HasPrefix(where, "--variant_options_filepath") {
			code = 1
		}
		return nil, cli.Exit(fmt.Sprintf("run: %s: %s", where, msg), code)
	}
	return m, nil
}

// maxVariantOptions bounds the file of --variant_options_filepath: a
// variant's options are a few keys (batsched's largest set, the energy
// variants', is under 1 KB), so a larger file is a mistake (a device, a
// workload given in its place) to stop before it fills the memory.
const maxVariantOptions = 1 << 20

// errTooLarge is readBounded's error for a file over its limit.
var errTooLarge = errors.New("too large")

// readBounded reads the file at path, refusing one of more than limit
// bytes (a device such as /dev/zero has no end).
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, errTooLarge, limit)
	}
	return b, nil
}

// twinNames are the variants whose twin is in reg.
func twinNames(reg *sched.Registry) []string {
	var names []string
	for _, v := range policies.BatschedVariants() {
		if _, ok := reg.Get(v.Policy); ok {
			names = append(names, v.Name)
		}
	}
	return names
}

// modeOf is run's batsched mode, nil outside it.
func modeOf(c *cli.Context) *batschedMode {
	for _, ctx := range c.Lineage() {
		if ctx.App != nil {
			if m, ok := ctx.App.Metadata[batschedModeKey].(*batschedMode); ok {
				return m
			}
		}
	}
	return nil
}

// batschedHelp prints batsched's flags as run takes them.
func batschedHelp(w io.Writer, reg *sched.Registry) error {
	var b strings.Builder
	b.WriteString("bucma run with batsched's command line: runs the policy that decides as the batsched variant.\n\n")
	b.WriteString("   bucma run -v VARIANT [-s ENDPOINT] [-o ORDER] [-p POLICY] [--variant_options JSON] ...\n\n")
	b.WriteString("OPTIONS (batsched 1.4.0's):\n")
	for _, f := range batschedFlags {
		name := "--" + f.long
		if f.short != "" {
			name = "-" + f.short + ", " + name
		}
		help := f.help
		if f.values != nil {
			help += "; one of " + strings.Join(f.values, ", ")
		}
		fmt.Fprintf(&b, "   %-42s %s\n", name, help)
	}
	b.WriteString("\nbucma run's flags kept: --timeout D, --trace FILE, --endpoint-file FILE, --transport T, --validate, --verbose, --batsim5\n")
	b.WriteString("\nVARIANTS (batsched variant -> bucma policy and options; 'bucma list' describes them):\n")
	for _, v := range policies.BatschedVariants() {
		if _, ok := reg.Get(v.Policy); !ok {
			continue
		}
		fmt.Fprintf(&b, "   %-24s %s%s\n", v.Name, v.Policy, v.OptionArgs())
	}
	var none []string
	for _, n := range batschedVariantNames {
		if _, ok := policies.BatschedVariantByName(n); !ok {
			none = append(none, n)
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "\nbatsched's variants without a twin: %s\n", strings.Join(none, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// variantHint explains an argument that follows -v and names a batsched
// variant, in a command where -v is --verbose: batsched's command line is
// run's, and the embedded engine runs the variant's twin as a policy.
func variantHint(c *cli.Context, arg string) string {
	if !c.Bool("verbose") || !slices.Contains(batschedVariantNames, arg) {
		return ""
	}
	v, ok := policies.BatschedVariantByName(arg)
	if ok {
		_, ok = registry(c).Get(v.Policy)
	}
	if !ok {
		return fmt.Sprintf(": -v is --verbose here (batsched's variant %s has no twin in bucma)", arg)
	}
	hint := fmt.Sprintf(": -v is --verbose here; batsched's -v VARIANT is 'bucma run -v %s', which serves Batsim", arg)
	if c.Command.Name == "simulate" {
		hint += fmt.Sprintf(", and the embedded engine runs the variant's twin as --scheduler %s%s", v.Policy, v.OptionArgs())
	}
	return hint
}

// invokedAsBatsched reports whether the program runs under the name
// batsched (a link to bucma named so): it is then batsched's command line.
func invokedAsBatsched(args []string) bool {
	return len(args) > 0 && strings.TrimSuffix(filepath.Base(args[0]), ".exe") == "batsched"
}

// errNoBatschedMode is returned by runBatschedIfAny when the arguments are
// not batsched's.
var errNoBatschedMode = errors.New("not batsched's command line")

// runBatschedIfAny runs batsched's command line when args are one (the
// program called batsched, or "run" with batsched's flags);
// errNoBatschedMode otherwise.
func runBatschedIfAny(app *cli.App, args []string) error {
	switch {
	case invokedAsBatsched(args):
		return runBatsched(app, args[1:])
	case len(args) > 1 && args[1] == "run" && isBatschedRun(args[2:]):
		return runBatsched(app, args[2:])
	}
	return errNoBatschedMode
}
