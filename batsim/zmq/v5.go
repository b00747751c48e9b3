package zmq

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
)

// EDCStarter builds the Batsim 5 decision component once Batsim's
// initialization data (the init string of its -s or -S option) is known.
// When it refuses the init string, it may return a decision component with
// its error, one that stops the simulation (v5.EDC.Fail): its hello
// answers the initialization, and Batsim ends instead of waiting for an
// answer.
type EDCStarter func(init []byte) (*v5.EDC, error)

// IsV5Init reports whether a first message is Batsim 5's initialization: a
// native-order u32 size followed by exactly that many bytes of init data.
// A Batsim 4 message is a JSON object ({"now":...), whose first four bytes
// never give its length.
func IsV5Init(frame []byte) bool {
	return len(frame) >= 4 && uint64(binary.NativeEndian.Uint32(frame)) == uint64(len(frame)-4)
}

// helloFrame is the answer to the initialization: the u32 flags (JSON)
// then the hello message, NUL-terminated.
func helloFrame(hello []byte) []byte {
	out := make([]byte, 4, 4+len(hello)+1)
	binary.NativeEndian.PutUint32(out, v5.FormatJSON)
	out = append(out, hello...)
	return append(out, 0)
}

// v5Step answers Batsim 5's messages: the initialization (starting the
// decision component) and then every message, in batprotocol's JSON form.
func (l *Listener) v5Step(start EDCStarter) func(raw []byte) ([]byte, bool, error) {
	var edc *v5.EDC
	return func(raw []byte) ([]byte, bool, error) {
		if edc == nil {
			if !IsV5Init(raw) {
				// Batsim 4 (served by ServeAuto): its stop.
				return batsim.StopReply(nowOf(raw)), true, fmt.Errorf("the first message from Batsim is not Batsim 5's initialization (a u32 size and the init string): %q", excerpt(raw, 80))
			}
			e, err := start(raw[4:])
			if err != nil {
				err = fmt.Errorf("initialization (init string %q): %w", excerpt(raw[4:], 200), err)
				if e == nil {
					return nil, false, err
				}
				l.log.Error("Batsim 5's init string is refused: the decision component asks Batsim to stop the simulation", "error", err)
				e.Fail(err)
			}
			if e == nil {
				return nil, false, errors.New("initialization: no decision component")
			}
			edc = e
			edc.StopOnError = true
			if l.cfg.Observe != nil {
				l.cfg.Observe(batsim.FromBatsim, raw)
				if edc.Observe == nil {
					edc.Observe = l.cfg.Observe
				}
			}
			return helloFrame(edc.Hello()), false, nil
		}
		out, done, err := edc.Take(raw)
		if err != nil && out == nil {
			l.log.Error("Batsim 5 conversation stopped", "error", err)
			return nil, false, err
		}
		if done && err == nil {
			l.log.Info("simulation ended", "messages", edc.Messages())
		}
		return append(out, 0), done, err
	}
}

// nowOf is the now of a Batsim 4 message (0 when it has none).
func nowOf(raw []byte) float64 {
	var m struct {
		Now float64 `json:"now"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return 0
	}
	return m.Now
}

// ServeV5 serves one Batsim 5 simulation (see ServeAuto), refusing a Batsim
// 4 peer.
func (l *Listener) ServeV5(ctx context.Context, start EDCStarter) error {
	return l.ServeRaw(ctx, l.v5Step(start))
}

// ServeAuto serves one simulation of either Batsim: when the first message
// is Batsim 5's initialization, start builds the decision component, its
// hello answers the initialization (flags: JSON) and every later message is
// answered by it; otherwise the conversation is Batsim 4's, served by h
// exactly as Serve does. Errors, cancellation and timeouts are Serve's.
func (l *Listener) ServeAuto(ctx context.Context, h batsim.Handler, start EDCStarter) error {
	var step func(raw []byte) ([]byte, bool, error)
	return l.ServeRaw(ctx, func(raw []byte) ([]byte, bool, error) {
		if step == nil {
			if IsV5Init(raw) {
				l.log.Info("Batsim 5 connected")
				step = l.v5Step(start)
			} else {
				step = l.v4Step(h)
			}
		}
		return step(raw)
	})
}
