package expe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BatsimEngine runs each simulation with a real Batsim binary and a bucma
// scheduler process ("bucma run") talking over ZeroMQ on a free loopback
// port. Both processes are supervised: when one fails the other is stopped,
// and when one ends normally the other gets Grace to end too.
type BatsimEngine struct {
	Batsim string // batsim executable
	Bucma  string // bucma executable (the scheduler side)
	// BatsimArgs are appended to Batsim's command line.
	BatsimArgs []string
	// Grace is how long a process may keep running once its peer has ended
	// (default 30 s).
	Grace time.Duration
	// Port, when set, picks the port of a run (tests); default: a free
	// loopback port chosen by the system.
	Port func() (int, error)
}

// Name implements Engine.
func (e *BatsimEngine) Name() string { return "batsim" }

// Commands returns the scheduler's and Batsim's command lines (argv) for a
// run on the given port.
func (e *BatsimEngine) Commands(spec RunSpec, port int) (sched, batsim []string) {
	endpoint := "tcp://127.0.0.1:" + strconv.Itoa(port)
	sched = []string{e.Bucma, "run", "--scheduler", spec.Run.Variant.Policy}
	for _, o := range spec.Run.Variant.OptionArgs() {
		sched = append(sched, "--option", o)
	}
	sched = append(sched, "--trace", spec.Trace, "-s", endpoint)
	batsim = []string{e.Batsim, "-p", spec.Platform, "-w", spec.Workload, "-e", spec.Prefix, "-s", endpoint}
	batsim = append(batsim, e.BatsimArgs...)
	return sched, batsim
}

// CommandLine implements Engine (the port is shown as PORT).
func (e *BatsimEngine) CommandLine(spec RunSpec) string {
	s, b := e.Commands(spec, 0)
	fix := func(argv []string) string {
		return strings.ReplaceAll(ShellJoin(argv), "tcp://127.0.0.1:0", "tcp://127.0.0.1:PORT")
	}
	return fix(s) + " & " + fix(b)
}

// FreePort asks the system for a free TCP port on the loopback interface.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Run implements Engine.
func (e *BatsimEngine) Run(ctx context.Context, spec RunSpec) error {
	if e.Batsim == "" {
		return errors.New("no batsim executable (--batsim-bin)")
	}
	if e.Bucma == "" {
		return errors.New("no bucma executable")
	}
	pick := e.Port
	if pick == nil {
		pick = FreePort
	}
	port, err := pick()
	if err != nil {
		return fmt.Errorf("choosing a port: %w", err)
	}
	grace := e.Grace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	logf, err := os.Create(spec.Log)
	if err != nil {
		return err
	}
	defer logf.Close()
	var mu sync.Mutex
	schedArgv, batsimArgv := e.Commands(spec, port)
	fmt.Fprintf(logf, "# scheduler: %s\n# batsim: %s\n", ShellJoin(schedArgv), ShellJoin(batsimArgv))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	procs := []*proc{
		{name: "scheduler", argv: schedArgv},
		{name: "batsim", argv: batsimArgv},
	}
	done := make(chan *proc, len(procs))
	started := 0
	for _, p := range procs {
		out := &prefixWriter{mu: &mu, w: logf, prefix: "[" + p.name + "] "}
		p.cmd = exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
		p.cmd.Dir = spec.Dir
		p.cmd.Stdout, p.cmd.Stderr = out, out
		p.cmd.WaitDelay = 5 * time.Second
		if err := p.cmd.Start(); err != nil {
			cancel() // stops the processes already started
			for ; started > 0; started-- {
				<-done
			}
			return fmt.Errorf("starting %s: %w", p.name, err)
		}
		started++
		go func(p *proc) {
			p.err = p.cmd.Wait()
			done <- p
		}(p)
	}
	var errs []error
	var timer <-chan time.Time
	for finished := 0; finished < len(procs); finished++ {
		var p *proc
		select {
		case p = <-done:
		case <-timer:
			for _, q := range procs {
				if !q.ended {
					errs = append(errs, fmt.Errorf("%s still running %s after its peer ended: stopped", q.name, grace))
				}
			}
			cancel()
			p = <-done
		}
		p.ended = true
		if p.err != nil && ctx.Err() == nil {
			errs = append(errs, fmt.Errorf("%s failed: %w", p.name, p.err))
			cancel() // stop the peer at once
		}
		if timer == nil {
			timer = time.After(grace)
		}
	}
	if err := ctx.Err(); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range procs {
		if w, ok := p.cmd.Stdout.(*prefixWriter); ok && len(w.buf) > 0 {
			fmt.Fprintf(logf, "%s%s\n", w.prefix, w.buf)
			w.buf = nil
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w (log: %s)", errors.Join(errs...), spec.Log)
	}
	return nil
}

type proc struct {
	name  string
	argv  []string
	cmd   *exec.Cmd
	err   error
	ended bool
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
