// Package check is bucma check: a conformance checker for any Batsim 4
// decision process. It plays Batsim against the process (the embedded
// engine, or the real Batsim with the checker in between) on a workload or
// a suite of scenarios, and reports every reply the real Batsim would abort
// on, misread, or never end the simulation from: the message, the rule and
// the simulated time.
//
// The rules are those the real Batsim enforces, taken from the code that
// already holds bucma's own policies and engine to them, never restated:
// Batsim 4.2.1's reader rules (batsim.Decoder, what a reply must look
// like), the rules of each decision against the state it is applied to
// (sched.Checker, which runs the checks of bucma's Decider), and the
// engine's model of Batsim (package sim: what the two above do not name,
// and the simulations that cannot end). The rules of the conversation
// itself (a reply to SIMULATION_ENDS, a message left unanswered, calls
// that never stop) are this package's.
package check

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// The rules of a reply as Batsim reads it, and of the conversation.
var (
	RuleMalformed    = sched.Rule{Name: "malformed-reply", Effect: sched.Aborts, What: "a reply Batsim's reader refuses: not a JSON object with a numeric now and an events array, an event without timestamp, type or data, data Batsim cannot read"}
	RuleUnknownEvent = sched.Rule{Name: "unknown-event", Effect: sched.Aborts, What: "an event type Batsim does not know, or one only Batsim sends"}
	RuleIntervalSet  = sched.Rule{Name: "bad-interval-set", Effect: sched.Aborts, What: `an allocation or a resource set that is not an interval set ("0,1", "3-1", "-2")`}
	RuleAfterNow     = sched.Rule{Name: "timestamp-after-now", Effect: sched.Aborts, What: "an event dated later than its reply's now"}
	RuleCallInPast   = sched.Rule{Name: "call-in-past", Effect: sched.Aborts, What: "CALL_ME_LATER whose target is not after its date, or not after Batsim's clock when Batsim applies it"}
	RuleAfterEnd     = sched.Rule{Name: "decision-after-end", Effect: sched.Misreads, What: "decisions in the reply to SIMULATION_ENDS (Batsim ignores them)"}
	RuleNoReply      = sched.Rule{Name: "no-reply", Effect: sched.Hangs, What: "a message the process does not answer: its connection closed, or it stayed silent beyond the timeout (Batsim waits for ever)"}
	RuleNeverRun     = sched.Rule{Name: "job-never-run", Effect: sched.Hangs, What: "a job neither executed nor rejected once nothing else can happen (a job too big for the platform must be rejected)"}
	RuleRegOpen      = sched.Rule{Name: "registration-never-finished", Effect: sched.Hangs, What: "with dynamic jobs, no NOTIFY registration_finished once nothing else can happen"}
	RuleNeverEnds    = sched.Rule{Name: "never-ends", Effect: sched.Hangs, What: "CALL_ME_LATER after CALL_ME_LATER once every job ended (Batsim ends a simulation only when no call is pending)"}
	RuleNoEquivalent = sched.Rule{Name: "no-batsim5-equivalent", Effect: sched.Aborts, What: "on Batsim 5, through the bridge: a decision Batsim 5 cannot express (QUERY, ANSWER, CHANGE_JOB_STATE, TO_JOB_MSG, continue_registration, additional_io_job, a profile with a return code): the bridge stops the simulation"}
	RuleBatsimAborts = sched.Rule{Name: "batsim-aborts", Effect: sched.Aborts, What: "a decision Batsim aborts on that no rule above names (QUERY without --energy, metadata with a double quote, ...): Batsim's own message says why"}
)

// Rules are every rule bucma check reports: the reader's and the
// conversation's, then the decisions' (sched.DecisionRules) but those
// Batsim accepts and those a reply cannot break once Batsim's reader has
// read it (a host given twice in an interval set is read as one, an empty
// set is refused by the reader).
func Rules() []sched.Rule {
	out := []sched.Rule{RuleMalformed, RuleUnknownEvent, RuleIntervalSet, RuleAfterNow, RuleCallInPast}
	for _, r := range sched.DecisionRules() {
		if r.Effect != sched.Accepts && r != sched.RuleDuplicateHost && r != sched.RuleNoHost {
			out = append(out, r)
		}
	}
	return append(out, RuleAfterEnd, RuleNoReply, RuleNeverRun, RuleRegOpen, RuleNeverEnds, RuleNoEquivalent, RuleBatsimAborts)
}

// Finding is one reply, or one decision of a reply, that breaks a rule.
type Finding struct {
	Rule sched.Rule
	// Message is the number of the message the reply answers (1 for
	// SIMULATION_BEGINS) and Time its now; 0 for a finding about the
	// whole run (a simulation that cannot end).
	Message int
	Time    float64
	// Event is the decision's index in the reply and Type its type (-1
	// and "" for the reply as a whole).
	Event int
	Type  string
	Msg   string
	// Batsim is what Batsim (or the engine) said when it stopped on the
	// reply, when it did.
	Batsim string
}

// String is the finding as bucma check prints it.
func (f Finding) String() string {
	var b strings.Builder
	if f.Message > 0 {
		fmt.Fprintf(&b, "message %d (t=%.6f)", f.Message, f.Time)
		if f.Event >= 0 {
			fmt.Fprintf(&b, ", decision %d (%s)", f.Event, f.Type)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s [%s]: %s", f.Rule.Name, f.Rule.Effect, f.Msg)
	if f.Batsim != "" {
		fmt.Fprintf(&b, "\n    Batsim: %s", f.Batsim)
	}
	return b.String()
}

// Process is the decision process checked: one of Batsim's messages in,
// its reply out, read with Batsim's reader rules (zmq.RemoteScheduler for
// a process over ZeroMQ, sim.InProcess for a policy of bucma's). A reply
// Batsim's reader refuses is an error wrapping a *batsim.DecodeError.
type Process interface {
	Exchange(m *batsim.Message) (*batsim.Message, error)
}

// idleCalls is how many replies in a row may ask for a call once nothing
// is left to happen before the run is found never to end.
const idleCalls = 100

// Conversation stands between Batsim (the engine, or the real Batsim as a
// batsim.Handler) and the process: it passes each message on, checks the
// reply and passes it back. After a reply Batsim aborts on (or a message
// the process does not answer), the next message is refused (ErrStopped):
// the run goes no further than Batsim's would.
type Conversation struct {
	proc     Process
	checker  *sched.Checker
	findings []Finding
	messages int
	now      float64
	ended    bool
	stopped  error
	idle     int
	// silent is set when the process did not answer the last message: it
	// cannot be told the end.
	silent bool
	// read is set when the last reply is one Batsim's reader refuses.
	read bool
	// hung is set when the conversation stopped on a run that could not
	// end: Batsim then stops on the conversation's own stop.
	hung bool
}

// ErrStopped is the error of a conversation stopped by a finding Batsim
// aborts on (or hangs from).
var ErrStopped = errors.New("stopped after a reply Batsim aborts on, or a message left unanswered")

// NewConversation checks proc; log receives warnings (nil:
// slog.Default()).
func NewConversation(proc Process, log *slog.Logger) (*Conversation, error) {
	ck, err := sched.NewChecker(log)
	if err != nil {
		return nil, err
	}
	return &Conversation{proc: proc, checker: ck}, nil
}

// Findings are the findings so far, in order.
func (c *Conversation) Findings() []Finding { return c.findings }

// Messages is the number of messages passed on.
func (c *Conversation) Messages() int { return c.messages }

// Ended reports whether the process answered SIMULATION_ENDS.
func (c *Conversation) Ended() bool { return c.ended }

// Stopped reports whether a finding stopped the conversation.
func (c *Conversation) Stopped() bool { return c.stopped != nil }

func (c *Conversation) add(r sched.Rule, event int, typ, msg string) {
	c.findings = append(c.findings, Finding{Rule: r, Message: c.messages, Time: c.now, Event: event, Type: typ, Msg: msg})
	if r.Effect == sched.Aborts || r.Effect == sched.Hangs {
		c.stopped = ErrStopped
		c.hung = r.Effect == sched.Hangs
	}
}

// AddRun records a finding about the whole run (a simulation that cannot
// end, as Batsim or the engine found it).
func (c *Conversation) AddRun(r sched.Rule, msg string) {
	c.findings = append(c.findings, Finding{Rule: r, Event: -1, Msg: msg})
}

// Abort records that Batsim (or the engine) stopped on the last reply,
// saying why: with the finding of that reply when there is one, as a
// finding of its own (ruled by rule) otherwise.
func (c *Conversation) Abort(rule sched.Rule, event int, typ, why string) {
	if c.hung {
		return // Batsim stopped on batsim.StopReply
	}
	for i := len(c.findings) - 1; i >= 0 && c.findings[i].Message == c.messages; i-- {
		if c.findings[i].Rule.Effect == sched.Aborts {
			c.findings[i].Batsim = why
			return
		}
	}
	c.add(rule, event, typ, why)
}

// Exchange passes m on to the process and returns its reply, checked
// (sim.Scheduler: the engine drives the conversation).
func (c *Conversation) Exchange(m *batsim.Message) (*batsim.Message, error) {
	if c.stopped != nil {
		return nil, c.stopped
	}
	c.messages++
	c.now = m.Now
	if err := c.checker.Message(m); err != nil {
		c.stopped = fmt.Errorf("message %d from Batsim does not follow from the previous ones: %w", c.messages, err)
		return nil, c.stopped
	}
	ends := false
	for _, e := range m.Events {
		ends = ends || e.Type == batsim.TypeSimulationEnds
	}
	r, err := c.proc.Exchange(m)
	if err != nil {
		var de *batsim.DecodeError
		if errors.As(err, &de) {
			c.read = true
			c.add(readerRule(de), de.Event, de.Type, de.Error())
		} else {
			c.silent = true
			c.add(RuleNoReply, -1, "", err.Error())
		}
		return nil, c.stopped
	}
	if ends {
		c.ended = true
		if len(r.Events) > 0 {
			c.add(RuleAfterEnd, 0, r.Events[0].Type, fmt.Sprintf("the reply to SIMULATION_ENDS holds %d event(s) (%s first), which Batsim ignores", len(r.Events), r.Events[0].Type))
		}
		return r, nil
	}
	for _, f := range c.checker.Reply(r) {
		c.add(f.Rule, f.Event, f.Type, f.Msg)
	}
	c.watchCalls(r)
	return r, nil
}

// Handle implements batsim.Handler: the conversation between the bridge's
// adapter and the process (Batsim 5). The next message after a reply
// Batsim aborts on is refused.
func (c *Conversation) Handle(m *batsim.Message) (*batsim.Reply, error) {
	r, err := c.Exchange(m)
	if err != nil {
		return nil, err
	}
	return batsim.ReplyOf(r), nil
}

// Step is the conversation between the real Batsim 4 and the process, at
// the level of raw messages (zmq.Listener.ServeRaw): a reply Batsim aborts
// on is passed on, as the process wrote it when Batsim's reader refuses it,
// so that Batsim says why; the next message is refused (Batsim gets
// batsim.StopReply, and stops).
func (c *Conversation) Step() func(raw []byte) ([]byte, bool, error) {
	dec := batsim.NewDecoder(slog.New(slog.DiscardHandler))
	return func(raw []byte) ([]byte, bool, error) {
		m, err := dec.Decode(raw, batsim.FromBatsim)
		if err != nil {
			return batsim.StopReply(0), true, fmt.Errorf("message %d from Batsim: %w", c.messages+1, err)
		}
		r, err := c.Exchange(m)
		if err != nil {
			if p, ok := c.proc.(interface{ LastReply() []byte }); ok && c.read && p.LastReply() != nil {
				return p.LastReply(), false, nil
			}
			return batsim.StopReply(m.Now), true, err
		}
		return batsim.ReplyOf(r).Encode(), c.ended, nil
	}
}

// Stuck records why the simulation could not end once it stopped without
// SIMULATION_ENDS (Batsim or the engine found nothing left to happen), from
// the state the process's decisions left; how says how it stopped.
func (c *Conversation) Stuck(how string) {
	waiting, open := c.checker.Stuck()
	if len(waiting) > 0 {
		c.AddRun(RuleNeverRun, fmt.Sprintf("%s: %d job(s) were submitted but never executed nor rejected (%s)", how, len(waiting), list(waiting)))
	}
	if open {
		c.AddRun(RuleRegOpen, how+": dynamic jobs are enabled but the process never sent NOTIFY registration_finished")
	}
	if len(waiting) == 0 && !open {
		c.AddRun(RuleNeverRun, how)
	}
}

// endTimeout bounds TellEnd's exchange.
const endTimeout = 5 * time.Second

// TellEnd tells the process the simulation ended when it stopped without
// SIMULATION_ENDS (Batsim aborted, or found nothing left to happen): a
// process waits for its next message for ever otherwise. Its answer is not
// checked.
func (c *Conversation) TellEnd() {
	if c.ended || c.silent || c.messages == 0 {
		return
	}
	c.ended = true
	if t, ok := c.proc.(interface{ SetTimeout(time.Duration) }); ok {
		t.SetTimeout(endTimeout)
	}
	_, _ = c.proc.Exchange(&batsim.Message{Now: c.now, Events: []batsim.Event{{Timestamp: c.now, Type: batsim.TypeSimulationEnds, Data: &batsim.SimulationEnds{}}}})
}

// watchCalls counts the replies that only ask for a call once nothing is
// left to happen (sched.Checker.Idle): after idleCalls of them, the run is
// found never to end.
func (c *Conversation) watchCalls(r *batsim.Message) {
	calls := false
	for _, e := range r.Events {
		_, ok := e.Data.(*batsim.CallMeLater)
		calls = calls || ok
	}
	if !calls || !c.checker.Idle() {
		c.idle = 0
		return
	}
	if c.idle++; c.idle >= idleCalls {
		c.add(RuleNeverEnds, -1, "", fmt.Sprintf("%d replies in a row ask for a call once every job has ended (the last for t=%v): the simulation would never end", idleCalls, lastCall(r)))
	}
}

func lastCall(r *batsim.Message) float64 {
	t := 0.0
	for _, e := range r.Events {
		if cl, ok := e.Data.(*batsim.CallMeLater); ok {
			t = cl.At
		}
	}
	return t
}

// readerRule is the rule of a reply Batsim's reader refuses.
func readerRule(de *batsim.DecodeError) sched.Rule {
	switch {
	case errors.Is(de, batsim.ErrUnknownEvent):
		return RuleUnknownEvent
	case errors.Is(de, batsim.ErrAfterNow):
		return RuleAfterNow
	case errors.Is(de, batsim.ErrCallInPast):
		return RuleCallInPast
	case errors.Is(de, batsim.ErrIntervalSet):
		return RuleIntervalSet
	}
	return RuleMalformed
}
