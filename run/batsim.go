package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// Batsim is the real Batsim 4 a run drives: its executable, or a Docker
// image of it, and what its command line adds.
type Batsim struct {
	// Binary is the batsim executable; with Image, docker's.
	Binary string
	// Image, when set, runs Batsim from this Docker image: docker run --rm
	// --net host (Batsim reaches the scheduler on the loopback interface),
	// as User, with Mount mounted at its own path and as the directory.
	Image, User, Mount string
	// Prefix, when set, runs Batsim through this command (e.g. taskset -c 0).
	Prefix []string
	// Args are added to Batsim's command line.
	Args []string
}

// Command is Batsim's command line (argv) for a simulation of platform and
// workload, exporting to prefix, its scheduler on endpoint, with the
// flags of features f.
func (b Batsim) Command(platform, workload, prefix, endpoint string, f Features) []string {
	head, tail := b.CommandAround(platform, workload, prefix, f)
	return append(append(head, endpoint), tail...)
}

// CommandAround is Command without the endpoint: what comes before it and
// what comes after (for a command line whose endpoint is known later).
func (b Batsim) CommandAround(platform, workload, prefix string, f Features) (head, tail []string) {
	head = append(append([]string(nil), b.Prefix...), b.Binary)
	if b.Image != "" {
		head = append(head, "run", "--rm", "-i", "--net", "host", "-u", b.User, "-v", b.Mount+":"+b.Mount, "-w", b.Mount, b.Image)
	}
	head = append(head, "-p", platform, "-w", workload, "-e", prefix, "-s")
	tail = append(f.BatsimArgs(), b.Args...)
	return head, tail
}

// Procs supervises the processes of a run (a scheduler, Batsim): when one
// fails, the others are stopped at once (a scheduler that stopped leaves
// Batsim waiting forever, and a Batsim that stopped leaves the scheduler
// waiting); when one ends normally, the others get Grace to end too.
type Procs struct {
	// Grace is how long a process may keep running once a peer has ended
	// (default 30 s).
	Grace time.Duration
	// Dir is the processes' directory ("": this one's).
	Dir string
	// Output, when set, gives the writer of a process's standard output
	// and error.
	Output func(name string) io.Writer

	ctx    context.Context
	cancel context.CancelFunc
	done   chan *Proc
	procs  []*Proc
}

// Proc is a process of Procs.
type Proc struct {
	Name  string
	Argv  []string
	Cmd   *exec.Cmd
	Err   error
	ended bool
	began time.Time
	// exited is closed once the process has ended (Err and Wall set).
	exited chan struct{}
	// Wall is the process's wall time, once ended.
	Wall time.Duration
}

// Exited is closed once the process has ended (its Err and Wall set).
func (pr *Proc) Exited() <-chan struct{} { return pr.exited }

// NewProcs supervises processes that ctx stops.
func NewProcs(ctx context.Context) *Procs {
	p := &Procs{done: make(chan *Proc, 8)}
	p.ctx, p.cancel = context.WithCancel(ctx)
	return p
}

// Context is the processes' context, cancelled when one fails or Stop.
func (p *Procs) Context() context.Context { return p.ctx }

// Start starts a process.
func (p *Procs) Start(name string, argv []string) (*Proc, error) {
	pr := &Proc{Name: name, Argv: argv, exited: make(chan struct{})}
	pr.Cmd = exec.CommandContext(p.ctx, argv[0], argv[1:]...)
	pr.Cmd.Dir = p.Dir
	if p.Output != nil {
		w := p.Output(name)
		pr.Cmd.Stdout, pr.Cmd.Stderr = w, w
	}
	pr.Cmd.WaitDelay = 5 * time.Second
	pr.began = time.Now()
	if err := pr.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p.procs = append(p.procs, pr)
	go func() {
		pr.Err = pr.Cmd.Wait()
		pr.Wall = time.Since(pr.began)
		close(pr.exited)
		p.done <- pr
	}()
	return pr, nil
}

// next is the next process to end, false when wait fires first (nil
// wait: no limit).
func (p *Procs) next(wait <-chan time.Time) (*Proc, bool) {
	select {
	case pr := <-p.done:
		pr.ended = true
		return pr, true
	case <-wait:
		return nil, false
	}
}

// Stop stops every process and waits for them.
func (p *Procs) Stop() {
	p.cancel()
	for _, pr := range p.procs {
		for !pr.ended {
			p.next(nil)
		}
	}
}

// Wait waits for every process: the first failure stops the others; once
// one has ended, the others have Grace to end. The error joins each
// process's failure, and the context's when it was cancelled.
func (p *Procs) Wait() error {
	grace := p.Grace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	var errs []error
	var timer <-chan time.Time
	running := 0
	for _, pr := range p.procs {
		if pr.ended {
			timer = time.After(grace)
		} else {
			running++
		}
	}
	for ; running > 0; running-- {
		pr, ok := p.next(timer)
		if !ok {
			for _, q := range p.procs {
				if !q.ended {
					errs = append(errs, fmt.Errorf("%s still running %s after its peer ended: stopped", q.Name, grace))
				}
			}
			p.cancel()
			pr, _ = p.next(nil)
		}
		if pr.Err != nil && p.ctx.Err() == nil {
			errs = append(errs, fmt.Errorf("%s failed: %w", pr.Name, pr.Err))
			p.cancel() // stop the peers at once
		}
		if timer == nil {
			timer = time.After(grace)
		}
	}
	if err := p.ctx.Err(); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	p.cancel()
	return errors.Join(errs...)
}

// Await waits for a Batsim process (its Wait's result on ran) and a
// scheduler served in this process (its Serve's result on served): when
// one fails, cancel stops the other.
func Await(ran, served <-chan error, cancel func()) (runErr, serveErr error) {
	select {
	case runErr = <-ran:
		if runErr != nil {
			cancel()
		}
		serveErr = <-served
	case serveErr = <-served:
		if serveErr != nil {
			// A scheduler that stopped answered so that Batsim ends;
			// stop it at once anyway.
			cancel()
		}
		runErr = <-ran
	}
	return runErr, serveErr
}

// Against runs Batsim (a simulation of platform and workload, exporting to
// prefix, with the flags of features f) against h, served in this process
// on a loopback port the system picks; Batsim's standard output and error
// go to out. When one side fails the other is stopped (Await); a
// scheduler stopped by ctx is not a failure of its own (serveErr nil).
func (b Batsim) Against(ctx context.Context, h batsim.Handler, platform, workload, prefix string, f Features, out io.Writer) (runErr, serveErr error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx, h) }()
	argv := b.Command(platform, workload, prefix, l.Endpoint(), f)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		<-served
		return fmt.Errorf("starting batsim: %w", err), nil
	}
	ran := make(chan error, 1)
	go func() { ran <- cmd.Wait() }()
	runErr, serveErr = Await(ran, served, cancel)
	if errors.Is(serveErr, zmq.ErrInterrupted) {
		serveErr = nil
	}
	return runErr, serveErr
}
