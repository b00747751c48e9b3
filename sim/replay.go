package sim

import (
	"errors"

	"github.com/bucma-sched/bucma/batsim"
)

// Recorder passes the engine's messages to a scheduler and keeps its
// replies, in order, for Replay.
type Recorder struct {
	S       Scheduler
	Replies []*batsim.Message
}

// Exchange implements Scheduler.
func (r *Recorder) Exchange(m *batsim.Message) (*batsim.Message, error) {
	reply, err := r.S.Exchange(m)
	r.Replies = append(r.Replies, reply)
	return reply, err
}

// Replay returns a scheduler that answers with replies, in order, whatever
// it is sent: a scheduler that takes no time to decide. Run with the
// replies a Recorder kept, the engine simulates the recorded run again, and
// what that costs is the engine's own time (reading, simulating, writing).
func Replay(replies []*batsim.Message) Scheduler { return &replayer{replies: replies} }

type replayer struct {
	replies []*batsim.Message
	next    int
}

func (r *replayer) Exchange(*batsim.Message) (*batsim.Message, error) {
	if r.next == len(r.replies) {
		return nil, errors.New("no reply left to replay")
	}
	r.next++
	return r.replies[r.next-1], nil
}
