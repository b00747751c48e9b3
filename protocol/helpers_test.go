package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// transcriptLine is one line of a conformance transcript: a message as it
// was exchanged (raw, the reference) and as Python re-serialised it (msg).
type transcriptLine struct {
	Seq int             `json:"seq"`
	Dir string          `json:"dir"`
	Raw string          `json:"raw"`
	Msg json.RawMessage `json:"msg"`
}

func (l transcriptLine) direction() Direction {
	if l.Dir == "batsim->sched" {
		return FromBatsim
	}
	return FromScheduler
}

// transcriptFiles lists every transcript copied into testdata.
func transcriptFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*transcript*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcript in testdata")
	}
	sort.Strings(files)
	return files
}

func readTranscript(t testing.TB, path string) []transcriptLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []transcriptLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: empty transcript", path)
	}
	return out
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
