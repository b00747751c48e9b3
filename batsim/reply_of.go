package batsim

// ReplyOf is the Reply of a scheduler's message read with Batsim's reader
// rules (Decoder.Decode with FromScheduler): its now and its events, as
// they are. It is for code that passes on the reply of another decision
// process (bucma's bridge translates a Batsim 4 process's replies for
// Batsim 5); the Decoder has refused what Batsim's reader refuses, the
// rules that need the state of the simulation are not checked.
func ReplyOf(m *Message) *Reply {
	if m == nil {
		return nil
	}
	return &Reply{now: m.Now, events: m.Events}
}
