package v5

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
)

// EDC serves a Batsim 4 decision process (any batsim.Handler, such as a
// policy's session) to Batsim 5 in batprotocol's JSON form: each message
// is decoded, translated (Adapter.ToV4), handled, and the reply translated
// back (Adapter.FromV4) and encoded. The transports (ZeroMQ, the shared
// library) move bytes; the EDC decides what they are.
type EDC struct {
	Adapter *Adapter
	Handler batsim.Handler
	// Observe, when set, sees every raw message: Batsim's (FromBatsim) and
	// the replies (FromScheduler), without their final NUL.
	Observe  func(dir batsim.Direction, raw []byte)
	messages int
}

// NewEDC serves h to Batsim 5 with an adapter configured by cfg.
func NewEDC(cfg Config, h batsim.Handler) *EDC {
	return &EDC{Adapter: NewAdapter(cfg), Handler: h}
}

// Hello is the answer to the initialization, in JSON (no final NUL).
func (e *EDC) Hello() []byte {
	b, err := e.Adapter.Hello().Encode()
	if err != nil {
		panic("v5: the hello does not encode: " + err.Error()) // only finite constants
	}
	if e.Observe != nil {
		e.Observe(batsim.FromScheduler, b)
	}
	return b
}

// Take answers one message from Batsim (JSON, a final NUL allowed) with the
// reply (JSON, without the final NUL); done is set once the reply answers
// SimulationEndsEvent. An error means the conversation cannot go on:
// answering would make Batsim abort or run on wrong decisions.
func (e *EDC) Take(raw []byte) (reply []byte, done bool, err error) {
	e.messages++
	raw = TrimNUL(raw)
	if e.Observe != nil {
		e.Observe(batsim.FromBatsim, raw)
	}
	m, err := Decode(raw)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim: %w", e.messages, err)
	}
	v4, err := e.Adapter.ToV4(m)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim (now=%v): %w", e.messages, m.Now, err)
	}
	r, err := e.Handler.Handle(v4)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim (now=%v): %w", e.messages, m.Now, err)
	}
	if r == nil {
		r = batsim.NewReply(m.Now)
	}
	out, err := e.Adapter.FromV4(r)
	if err != nil {
		return nil, false, fmt.Errorf("reply to message %d (now=%v): %w", e.messages, m.Now, err)
	}
	b, err := out.Encode()
	if err != nil {
		return nil, false, fmt.Errorf("reply to message %d (now=%v): %w", e.messages, m.Now, err)
	}
	if e.Observe != nil {
		e.Observe(batsim.FromScheduler, b)
	}
	return b, e.Adapter.Ended(), nil
}

// Messages is the number of messages taken so far.
func (e *EDC) Messages() int { return e.messages }
