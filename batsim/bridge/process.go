package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// endTimeout bounds End's exchange: a process told the end by a bridge
// that stops answers at once, or not at all.
const endTimeout = 5 * time.Second

// Process is a Batsim 4 decision process behind a ZeroMQ REP socket, as a
// batsim.Handler: Handle sends it a Batsim 4 message, as Batsim 4 writes
// it (times with every digit they have: Batsim 5's clock is finer than
// Batsim 4's microsecond), and returns its reply, read with Batsim 4's
// reader rules. A Process serves one simulation; it is not safe for
// concurrent use.
type Process struct {
	cfg     Config
	ctx     context.Context
	log     *slog.Logger
	client  *zmq.Client
	dec     *batsim.Decoder
	now     float64 // the now of the last message sent
	sent    int     // messages answered
	ended   bool    // the process was told the end
	broken  error   // what ended the conversation with the process
	dropped map[string]bool
}

// NewProcess prepares the conversation with the process at cfg.Endpoint;
// the connection is made with the first message. ctx, when cancelled,
// interrupts a wait for the process.
func NewProcess(ctx context.Context, cfg Config) (*Process, error) {
	if err := zmq.CheckEndpoint(cfg.Endpoint, false); err != nil {
		return nil, err
	}
	if err := checkTransport(cfg.Transport); err != nil {
		return nil, err
	}
	transport := cfg.Transport
	if transport == "" {
		// bucma's own ZMTP sees the process's connection close: a
		// process that dies ends the run at once.
		transport = zmq.TransportLibzmq
		if strings.HasPrefix(cfg.Endpoint, "tcp://") || !zmq.HasLibzmq {
			transport = zmq.TransportNative
		}
	}
	c, err := zmq.DialTransport(cfg.Endpoint, transport)
	if err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return &Process{cfg: cfg, ctx: ctx, log: log, client: c, dec: batsim.NewDecoder(log), dropped: map[string]bool{}}, nil
}

// Endpoint is the process's endpoint.
func (p *Process) Endpoint() string { return p.cfg.Endpoint }

// Messages is the number of messages the process answered.
func (p *Process) Messages() int { return p.sent }

// errorf is an error of the conversation with the process, naming it.
func (p *Process) errorf(format string, args ...any) error {
	return fmt.Errorf("the Batsim 4 decision process at %s: "+format, append([]any{p.cfg.Endpoint}, args...)...)
}

// Handle implements batsim.Handler: m goes to the process, less the events
// Batsim 4 has no equivalent of (a Batsim 4 process aborts on an event it
// does not know); a message left with no event is answered with no
// decision, without the process. A reply that breaks Batsim 4's reader
// rules is an error, and so is the process's silence beyond the timeouts or
// its connection's end.
func (p *Process) Handle(m *batsim.Message) (*batsim.Reply, error) {
	if p.broken != nil {
		return nil, p.errorf("the conversation ended: %w", p.broken)
	}
	if p.ended {
		return nil, p.errorf("a message at now=%v after SIMULATION_ENDS", m.Now)
	}
	out := &batsim.Message{Now: m.Now, Events: make([]batsim.Event, 0, len(m.Events))}
	ends := false
	for _, e := range m.Events {
		if _, ok := e.Data.(*batsim.Unknown); ok {
			if !p.dropped[e.Type] {
				p.dropped[e.Type] = true
				p.log.Warn("an event with no Batsim 4 equivalent is not passed on to the Batsim 4 decision process", "type", e.Type, "at", e.Timestamp)
			}
			continue
		}
		ends = ends || e.Type == batsim.TypeSimulationEnds
		out.Events = append(out.Events, e)
	}
	if len(out.Events) == 0 {
		return batsim.NewReply(m.Now), nil
	}
	raw, err := p.exchange(batsim.EncodeBatsimExact(out))
	if err != nil {
		return nil, err
	}
	p.now = m.Now
	if ends {
		p.ended = true
	}
	reply, err := p.dec.Decode(raw, batsim.FromScheduler)
	if err != nil {
		return nil, p.errorf("its reply to message %d (now=%v) breaks Batsim 4's protocol (Batsim 4 would abort): %w", p.sent, m.Now, err)
	}
	// The process read the now in decimal and wrote it back: a time it
	// took from the now may be an ulp or two away from it (rapidjson's
	// reader, batsched's, is not always correctly rounded). It stands for
	// the now, which Batsim 5 is told.
	if sameTime(reply.Now, m.Now) {
		reply.Now = m.Now
	}
	for i := range reply.Events {
		if sameTime(reply.Events[i].Timestamp, m.Now) {
			reply.Events[i].Timestamp = m.Now
		}
	}
	return batsim.ReplyOf(reply), nil
}

// sameTime reports whether t is now, read back with a reader that is not
// correctly rounded: within 4 units in the last place.
func sameTime(t, now float64) bool {
	if t == now {
		return true
	}
	lo, hi := now, now
	for range 4 {
		lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
	}
	return lo <= t && t <= hi
}

// exchange sends one message and returns the reply. The first exchange
// (the connection, the answer to SIMULATION_BEGINS) is bounded by the
// connection's timeout, the others by the reply's.
func (p *Process) exchange(msg []byte) ([]byte, error) {
	timeout := p.cfg.Timeout
	if p.sent == 0 {
		timeout = p.cfg.ConnectTimeout
		if timeout == 0 {
			timeout = DefaultConnectTimeout
		}
	}
	raw, err := p.exchangeWithin(p.ctx, msg, timeout)
	if err != nil {
		p.broken = err
		if p.sent == 0 {
			return nil, p.errorf("no answer to the first message (is it listening there?): %w", err)
		}
		return nil, p.errorf("%w", err)
	}
	p.sent++
	return raw, nil
}

func (p *Process) exchangeWithin(ctx context.Context, msg []byte, timeout time.Duration) ([]byte, error) {
	p.client.Timeout, p.client.Context = timeout, ctx
	if p.cfg.Observe != nil {
		p.cfg.Observe(batsim.FromBatsim, msg)
	}
	if p.cfg.Verbose {
		p.log.Debug("message", "dir", "bridge->process", "raw", string(msg))
	}
	raw, err := p.client.Exchange(msg)
	if err != nil {
		return nil, err
	}
	if p.cfg.Observe != nil {
		p.cfg.Observe(batsim.FromScheduler, raw)
	}
	if p.cfg.Verbose {
		p.log.Debug("message", "dir", "process->bridge", "raw", string(raw))
	}
	return raw, nil
}

// Ended reports whether the process was told the end (SIMULATION_ENDS).
func (p *Process) Ended() bool { return p.ended }

// End tells the process that the simulation ended, unless it was told
// (SIMULATION_ENDS passed through Handle) or the conversation with it
// broke: a message holding SIMULATION_ENDS alone, at the now of the last
// message (0 when none was sent), as Batsim 4 ends a simulation. Its
// answer is awaited for endTimeout at most, and read for no decision. A
// bridge calls End once the simulation stopped another way: a decision
// with no Batsim 5 equivalent, a broken reply, Batsim 5 gone or the bridge
// interrupted.
func (p *Process) End() error {
	if p.ended || p.broken != nil {
		return nil
	}
	p.ended = true
	end := &batsim.Message{Now: p.now, Events: []batsim.Event{{Timestamp: p.now, Type: batsim.TypeSimulationEnds, Data: &batsim.SimulationEnds{}}}}
	if _, err := p.exchangeWithin(context.Background(), batsim.EncodeBatsimExact(end), endTimeout); err != nil {
		p.broken = err
		return p.errorf("telling it the end of the simulation: %w", err)
	}
	p.sent++
	return nil
}

// Close ends the conversation and closes the socket (End first to tell
// the process the end).
func (p *Process) Close() error {
	if p.client == nil {
		return nil
	}
	err := p.client.Close()
	p.client = nil
	if p.broken == nil {
		p.broken = errors.New("closed")
	}
	return err
}
