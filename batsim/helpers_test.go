package batsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// direction is the Direction of a transcript line.
func direction(l corpus.Line) Direction {
	if l.FromBatsim() {
		return FromBatsim
	}
	return FromScheduler
}

// quietDecoder does not log the unknown keys it meets.
func quietDecoder() *Decoder {
	return NewDecoder(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// generic parses JSON into maps, slices, float64, string, bool and nil.
func generic(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// replyOf rebuilds a decoded scheduler message with the Reply builder, which
// stamps every event with the message's now.
func replyOf(m *Message) (*Reply, error) {
	r := NewReply(m.Now)
	for i, e := range m.Events {
		var err error
		switch d := e.Data.(type) {
		case *ExecuteJob:
			err = r.ExecuteJob(*d)
		case *RejectJob:
			err = r.RejectJob(d.JobID)
		case *KillJob:
			err = r.KillJobs(d.JobIDs...)
		case *CallMeLater:
			err = r.CallMeLater(d.At)
		case *SetResourceState:
			err = r.SetResourceState(d.Resources, d.PState)
		case *SetJobMetadata:
			err = r.SetJobMetadata(d.JobID, d.Metadata)
		case *ChangeJobState:
			err = r.ChangeJobState(d.JobID, d.JobState, d.KillReason)
		case *RegisterProfile:
			err = r.RegisterProfile(d.WorkloadName, d.ProfileName, d.Profile)
		case *RegisterJob:
			err = r.RegisterJob(d.JobID, d.Job)
		case *Notify:
			switch d.Kind {
			case NotifyRegistrationFinished:
				r.RegistrationFinished()
			case NotifyContinueRegistration:
				r.ContinueRegistration()
			default:
				err = fmt.Errorf("NOTIFY %q cannot be sent by a scheduler", d.Kind)
			}
		case *SchedulerQuery:
			r.QueryConsumedEnergy()
		case *SchedulerAnswer:
			err = r.AnswerWaitingTime(d.JobID, d.EstimatedWaitingTime)
		case *ToJobMsg:
			err = r.ToJobMsg(d.JobID, d.Msg)
		default:
			err = fmt.Errorf("event %d: %s has no Reply method", i, e.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}
