package expe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// BatsimEngine runs each simulation with a real Batsim binary and a bucma
// scheduler process ("bucma run") talking over ZeroMQ on the loopback
// interface. The scheduler starts first and binds a port the system picks
// (tcp://127.0.0.1:*), which it writes to an endpoint file; Batsim then
// starts with that endpoint, so no other process can take the port in
// between. Both processes are supervised: when one fails the other is
// stopped, and when one ends normally the other gets Grace to end too.
type BatsimEngine struct {
	Batsim string // batsim executable, or docker's with Image
	Bucma  string // bucma executable (the scheduler side)
	// Image, when set, runs Batsim from this Docker image with Batsim set
	// to the docker executable: docker run --rm --net host (Batsim reaches
	// the scheduler on the loopback interface), as the calling user, with
	// the campaign directory mounted at its own path.
	Image string
	// BatsimArgs are appended to Batsim's command line.
	BatsimArgs []string
	// Registry knows the policies (default: policies.Builtin()); a policy
	// that registers dynamic jobs, shares hosts or switches them gets the
	// flags of Batsim it needs (run.Needs).
	Registry *sched.Registry
	// Grace is how long a process may keep running once its peer has ended
	// (default 30 s).
	Grace time.Duration
}

// endpointFile is the file of a run's directory where the scheduler writes
// the endpoint it bound; it is removed once read.
const endpointFile = "scheduler.endpoint"

// endpointPoll is how often the engine looks for the endpoint file while
// the scheduler binds.
const endpointPoll = 10 * time.Millisecond

// Name implements Engine.
func (e *BatsimEngine) Name() string { return "batsim" }

// SchedulerCommand returns the scheduler's command line (argv): it binds a
// free loopback port and writes its endpoint to the run's endpointFile.
func (e *BatsimEngine) SchedulerCommand(spec RunSpec) []string {
	sched := []string{e.Bucma, "run", "--scheduler", spec.Run.Variant.Policy}
	for _, o := range spec.Run.Variant.OptionArgs() {
		sched = append(sched, "--option", o)
	}
	return append(sched, "--trace", spec.Trace, "-s", "tcp://127.0.0.1:*", "--endpoint-file", filepath.Join(spec.Dir, endpointFile))
}

// BatsimCommand returns Batsim's command line (argv) for a run whose
// scheduler listens on endpoint.
func (e *BatsimEngine) BatsimCommand(spec RunSpec, endpoint string) []string {
	head, tail := e.batsimArgs(spec)
	return append(append(head, endpoint), tail...)
}

// batsimArgs returns Batsim's command line before and after the endpoint.
func (e *BatsimEngine) batsimArgs(spec RunSpec) (head, tail []string) {
	b := run.Batsim{Binary: e.Batsim, Image: e.Image, Args: e.BatsimArgs}
	if e.Image != "" {
		b.Mount, b.User = spec.Campaign, fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
		if b.Mount == "" {
			b.Mount, b.User = pwdMark, uidMark
		}
	}
	return b.CommandAround(spec.Platform, spec.Workload, spec.Prefix, policyFeatures(e.Registry, spec.Run.Variant.Policy))
}

// In the replayed command line of a run in a Docker image, the campaign
// directory is the shell's current one and the user the caller.
const (
	pwdMark = "@PWD@"
	uidMark = "@UID@"
)

// shellMarks writes the marks of a replayed command line as the shell
// expressions they stand for.
func shellMarks(s string) string {
	s = strings.ReplaceAll(s, pwdMark, `"$PWD"`)
	return strings.ReplaceAll(s, uidMark, `"$(id -u):$(id -g)"`)
}

// CommandLine implements Engine: the two commands as a POSIX shell runs
// them, Batsim once the endpoint file is written.
func (e *BatsimEngine) CommandLine(spec RunSpec) string {
	ep := ShellJoin([]string{filepath.Join(spec.Dir, endpointFile)})
	head, tail := e.batsimArgs(spec)
	batsim := ShellJoin(head) + ` "$(cat ` + ep + `)"`
	if len(tail) > 0 {
		batsim += " " + ShellJoin(tail)
	}
	return ShellJoin(e.SchedulerCommand(spec)) + " & until [ -s " + ep + " ]; do sleep 0.1; done; " + shellMarks(batsim)
}

// Run implements Engine.
func (e *BatsimEngine) Run(ctx context.Context, spec RunSpec) error {
	if e.Batsim == "" {
		return errors.New("no batsim executable (--batsim-bin)")
	}
	if e.Bucma == "" {
		return errors.New("no bucma executable")
	}
	// Both executables are checked before anything starts.
	for _, x := range []struct{ name, path string }{{"scheduler", e.Bucma}, {"batsim", e.Batsim}} {
		if _, err := exec.LookPath(x.path); err != nil {
			return fmt.Errorf("starting %s: %w", x.name, err)
		}
	}
	logf, err := os.Create(spec.Log)
	if err != nil {
		return err
	}
	defer logf.Close()
	var mu sync.Mutex
	var outputs []*prefixWriter
	procs := run.NewProcs(ctx)
	procs.Grace, procs.Dir = e.Grace, spec.Dir
	procs.Output = func(name string) io.Writer {
		w := &prefixWriter{mu: &mu, w: logf, prefix: "[" + name + "] "}
		outputs = append(outputs, w)
		return w
	}
	// Once every process has ended: the last lines without a newline.
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range outputs {
			if len(w.buf) > 0 {
				fmt.Fprintf(logf, "%s%s\n", w.prefix, w.buf)
				w.buf = nil
			}
		}
	}()
	start := func(name string, argv []string) (*run.Proc, error) {
		mu.Lock()
		fmt.Fprintf(logf, "# %s: %s\n", name, ShellJoin(argv))
		mu.Unlock()
		return procs.Start(name, argv)
	}

	sched, err := start("scheduler", e.SchedulerCommand(spec))
	if err != nil {
		procs.Stop()
		return err
	}
	endpoint, err := waitEndpoint(procs.Context(), filepath.Join(spec.Dir, endpointFile), sched)
	if err != nil {
		procs.Stop()
		return fmt.Errorf("%w (log: %s)", err, spec.Log)
	}
	if _, err := start("batsim", e.BatsimCommand(spec, endpoint)); err != nil {
		procs.Stop()
		return err
	}
	if err := procs.Wait(); err != nil {
		return fmt.Errorf("%w (log: %s)", err, spec.Log)
	}
	return nil
}

// waitEndpoint waits until the scheduler has written its endpoint file (it
// writes it atomically once its socket is bound), then removes the file
// and returns the endpoint. It fails when the scheduler ends first or ctx
// is cancelled.
func waitEndpoint(ctx context.Context, path string, sched *run.Proc) (string, error) {
	read := func() (string, bool, error) {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("reading the scheduler's endpoint: %w", err)
		}
		_ = os.Remove(path)
		ep := strings.TrimSpace(string(b))
		if ep == "" {
			return "", false, fmt.Errorf("%s wrote an empty endpoint to %s", sched.Name, path)
		}
		return ep, true, nil
	}
	tick := time.NewTicker(endpointPoll)
	defer tick.Stop()
	for {
		if ep, ok, err := read(); ok || err != nil {
			return ep, err
		}
		select {
		case <-sched.Exited():
			if sched.Err != nil {
				return "", fmt.Errorf("%s failed: %w", sched.Name, sched.Err)
			}
			// It may have written the file just before ending.
			if ep, ok, err := read(); ok || err != nil {
				return ep, err
			}
			return "", fmt.Errorf("%s ended without binding its endpoint", sched.Name)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// prefixWriter prefixes every line written through it; several writers
// share one file through mu.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(p.w, p.prefix); err != nil {
			return 0, err
		}
		if _, err := p.w.Write(p.buf[:i+1]); err != nil {
			return 0, err
		}
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// ShellJoin quotes argv for a POSIX shell.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
