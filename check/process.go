package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// Placeholder stands, in the command line of a process bucma check starts,
// for the endpoint the process binds: bucma replaces it with a free
// loopback endpoint for each run.
const Placeholder = "{endpoint}"

// exitWait is how long a process may take to exit once its run ended,
// before it is killed.
const exitWait = 10 * time.Second

// Command is a decision process that bucma check starts for each run
// (a process serves one simulation).
type Command struct {
	// Argv is its command line; an argument holding Placeholder gets the
	// endpoint.
	Argv []string
	// Timeout bounds the wait for each reply (0: none; a process that
	// dies is seen at once).
	Timeout time.Duration
}

// CheckArgv checks that argv names a command and the endpoint.
func CheckArgv(argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command")
	}
	for _, a := range argv {
		if strings.Contains(a, Placeholder) {
			return nil
		}
	}
	return fmt.Errorf("the command %q does not say where the process listens: write %s where the endpoint goes (batsched -v easy_bf -s %s)", strings.Join(argv, " "), Placeholder, Placeholder)
}

// Remote is a decision process over ZeroMQ (bucma's own ZMTP on tcp://:
// a process that dies is seen at once). Its first exchange (the connection
// and the answer to SIMULATION_BEGINS) is bounded by a minute, or the
// timeout when shorter; the later ones by the timeout (0: none).
type Remote struct {
	*zmq.RemoteScheduler
	timeout time.Duration
	first   bool   // the first exchange is done
	last    []byte // the last reply, as the process wrote it
}

// Connect reaches the process listening on endpoint.
func Connect(ctx context.Context, endpoint string, timeout time.Duration) (*Remote, error) {
	first := firstWait(timeout)
	transport := zmq.TransportNative
	if !strings.HasPrefix(endpoint, "tcp://") {
		transport = "" // libzmq's
	}
	rs, err := zmq.RemoteTransport(ctx, endpoint, transport, first)
	if err != nil {
		return nil, err
	}
	r := &Remote{RemoteScheduler: rs, timeout: timeout}
	rs.Observe = func(d batsim.Direction, raw []byte) {
		if d == batsim.FromScheduler {
			r.last = raw
		}
	}
	return r, nil
}

// firstWait bounds the first exchange: a minute, or timeout when shorter.
func firstWait(timeout time.Duration) time.Duration {
	if timeout > 0 && timeout < time.Minute {
		return timeout
	}
	return time.Minute
}

// LastReply is the process's last reply as it wrote it.
func (r *Remote) LastReply() []byte { return r.last }

// Exchange implements Process.
func (r *Remote) Exchange(m *batsim.Message) (*batsim.Message, error) {
	reply, err := r.RemoteScheduler.Exchange(m)
	if !r.first {
		r.first = true
		r.RemoteScheduler.SetTimeout(r.timeout)
	}
	return reply, err
}

// Spawned is a decision process started on a free loopback endpoint
// (Spawn): bucma check's for each run, bucma bridge's.
type Spawned struct {
	// Endpoint is where the process listens.
	Endpoint string
	cmd      *exec.Cmd
	out      *strings.Builder
	exited   chan struct{} // closed once the process exited
	status   error         // its Wait's result, once exited
}

// Spawn starts argv, Placeholder replaced by a free loopback endpoint; its
// output is kept (the last 64 KiB).
func Spawn(argv []string) (*Spawned, error) {
	if err := CheckArgv(argv); err != nil {
		return nil, err
	}
	ep, err := FreeEndpoint()
	if err != nil {
		return nil, err
	}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, Placeholder, ep)
	}
	cmd := exec.Command(args[0], args[1:]...)
	out := &strings.Builder{}
	w := &limited{w: out, n: 1 << 16}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	s := &Spawned{Endpoint: ep, cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		s.status = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// Exited is closed once the process exited.
func (s *Spawned) Exited() <-chan struct{} { return s.exited }

// exitNote says how the process exited, once it did ("" for status 0).
func (s *Spawned) exitNote() string {
	if s.status == nil {
		return ""
	}
	if out := lastLines(s.out.String(), 3); out != "" {
		return fmt.Sprintf("%v: %s", s.status, out)
	}
	return s.status.Error()
}

// Wait waits for the process to exit, exitWait at most, after which it is
// killed. It says how the process ended when it did not exit with status 0
// by itself ("" otherwise).
func (s *Spawned) Wait() string {
	select {
	case <-s.exited:
		if n := s.exitNote(); n != "" {
			return "the process ended with " + n
		}
		return ""
	case <-time.After(exitWait):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Sprintf("the process had not exited %v after the end of its run: killed", exitWait)
	}
}

// Started is a process bucma check started, and the conversation with it.
type Started struct {
	*Remote
	*Spawned
	cancel context.CancelFunc // ends the connection's context
}

// Start starts the process on a free loopback endpoint.
// A port taken by another program before the process binds it is
// retried on another port, up to twice.
func (c Command) Start(ctx context.Context) (*Started, error) {
	for attempt := 0; ; attempt++ {
		sp, err := Spawn(c.Argv)
		if err != nil {
			return nil, err
		}
		// A process that exits before the connection ends the wait for
		// it; once connected, its exit closes the connection (tcp://),
		// after the replies it sent: a process that answers
		// SIMULATION_ENDS and exits at once has answered.
		pctx, cancel := context.WithCancel(ctx)
		connected := make(chan struct{})
		go func() {
			select {
			case <-sp.exited:
				cancel()
			case <-connected:
			}
		}()
		if err := sp.awaitListening(ctx, firstWait(c.Timeout)); err != nil {
			cancel()
			sp.Wait()
			if attempt < 2 && sp.addressInUse() {
				continue
			}
			return nil, err
		}
		// The REQ socket connects when it can (where awaitListening
		// cannot tell, the process may bind later).
		r, err := Connect(pctx, sp.Endpoint, c.Timeout)
		close(connected)
		if err != nil {
			cancel()
			sp.Wait()
			return nil, err
		}
		return &Started{Remote: r, Spawned: sp, cancel: cancel}, nil
	}
}

// Exchange implements Process: a process that exited without answering
// says how it exited.
func (s *Started) Exchange(m *batsim.Message) (*batsim.Message, error) {
	r, err := s.Remote.Exchange(m)
	if err != nil {
		select {
		case <-s.exited:
			if n := s.exitNote(); n != "" {
				return nil, fmt.Errorf("the process exited (%s) without answering", n)
			}
			if out := lastLines(s.out.String(), 3); out != "" {
				return nil, fmt.Errorf("the process exited (status 0) without answering: %s", out)
			}
			return nil, errors.New("the process exited (status 0) without answering")
		default:
		}
	}
	return r, err
}

// Stop ends the process: it closes the connection and waits for the
// process to exit (Spawned.Wait).
func (s *Started) Stop() string {
	_ = s.Remote.Close()
	s.cancel()
	return s.Spawned.Wait()
}

// lastLines is the last n lines of s, on one line.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// FreeEndpoint is a loopback endpoint on a port free now (a process that
// binds it later may find it taken). The port is drawn below the system's
// range of ports for binds to port 0 (Linux's ip_local_port_range), so
// that programs that pick a free port the usual way, and every wildcard
// bind, do not race with the process for it; where that range is not known
// or leaves no room, the system picks. A port is drawn once per program
// run: a connection to an earlier process on it may still be trying to
// reconnect.
func FreeEndpoint() (string, error) {
	if low := ephemeralLow(); low-freeLow >= 1000 {
		drawn.Lock()
		defer drawn.Unlock()
		for range 100 {
			port := freeLow + rand.IntN(low-freeLow)
			if port == 28000 || port == 28001 || drawn.ports[port] {
				continue // Batsim's and bucma bridge's defaults, or drawn before
			}
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				continue
			}
			_ = l.Close()
			drawn.ports[port] = true
			return "tcp://127.0.0.1:" + strconv.Itoa(port), nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "tcp://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// freeLow is the lowest port FreeEndpoint draws.
const freeLow = 10000

// drawn are the ports FreeEndpoint drew.
var drawn = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// ephemeralLow is the lowest port the system gives a bind to port 0 (0
// when unknown).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	fs := strings.Fields(string(b))
	if len(fs) != 2 {
		return 0
	}
	low, err := strconv.Atoi(fs[0])
	if err != nil {
		return 0
	}
	return low
}
