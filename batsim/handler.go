package batsim

// Handler answers one Batsim message. sched.Session satisfies it.
// A nil reply with a nil error is answered with an empty reply at the
// message's now. An error ends the conversation: the ZeroMQ loop answers
// the message with StopReply, so that Batsim stops.
type Handler interface {
	Handle(*Message) (*Reply, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(*Message) (*Reply, error)

// Handle implements Handler.
func (f HandlerFunc) Handle(m *Message) (*Reply, error) { return f(m) }
