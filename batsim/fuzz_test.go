package batsim

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

// FuzzDecode feeds arbitrary bytes to the decoder in both directions: it
// must never panic, and a scheduler message it accepts that the Reply
// builder can rebuild must encode to a message that decodes again and
// re-encodes to the same bytes. Seeds: every message of the transcripts.
func FuzzDecode(f *testing.F) {
	for _, tr := range corpus.Transcripts(f) {
		for _, l := range tr.Lines(f) {
			f.Add([]byte(l.Raw), direction(l) == FromScheduler)
		}
	}
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"CALL_ME_LATER","data":{"timestamp":2}}]}`), true)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"SET_RESOURCE_STATE","data":{"resources":"0-3","state":"2"}}]}`), true)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0-1","mapping":{"0":"0","1":1}}}]}`), true)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"QUERY","data":{"requests":{"consumed_energy":{}}}}]}`), true)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"NOTIFY","data":{"type":"event_machine_unavailable","resources":"1 3"}}]}`), false)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"SOMETHING_NEW","data":{"x":[1,2]}}]}`), false)
	// Invalid JSON where only a shallow walk passes: in an "events" a later
	// one replaces, in another key's value, inside an event.
	f.Add([]byte(`{"now":1,"events":[{"timestamp":01}],"events":[]}`), false)
	f.Add([]byte(`{"now":1,"x":[01],"events":[]}`), false)
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"type":"JOB_COMPLETED","data":{"job_id":"w0!1","alloc":[01]}}]}`), false)
	f.Add([]byte(`{}`), false)
	f.Add([]byte(`null`), true)

	f.Fuzz(func(t *testing.T, b []byte, fromScheduler bool) {
		fuzzguard.Run(t, func() error { return checkDecode(b, fromScheduler) })
	})
}

// checkDecode is FuzzDecode's check of one input.
func checkDecode(b []byte, fromScheduler bool) error {
	dir := FromBatsim
	if fromScheduler {
		dir = FromScheduler
	}
	dec := quietDecoder()
	m, err := dec.Decode(b, dir)
	// A message is read in place (internal/jsonspan, frequent events' data
	// by hand), a large JOB_SUBMITTED's job and profile left in the
	// message: the message goccy/go-json's decoding reads (the
	// reference), or an error where it errs.
	ref := quietDecoder()
	ref.reference = true
	mr, errr := ref.Decode(b, dir)
	if (err == nil) != (errr == nil) || !reflect.DeepEqual(m, mr) {
		return fmt.Errorf("read in place: %+v, %v; decoded: %+v, %v", m, err, mr, errr)
	}
	inPlace := quietDecoder()
	inPlace.inPlaceFrom = 1
	if mp, errp := inPlace.Decode(b, dir); (err == nil) != (errp == nil) || !reflect.DeepEqual(m, mp) {
		return fmt.Errorf("every job in place: %+v, %v; decoded: %+v, %v", mp, errp, mr, errr)
	}
	if err != nil {
		if m != nil {
			return errors.New("Decode returned a message and an error")
		}
		return nil
	}
	for i, e := range m.Events {
		if e.Timestamp > m.Now {
			return fmt.Errorf("accepted event %d at %v after now=%v", i, e.Timestamp, m.Now)
		}
		if dir == FromBatsim && i > 0 && e.Timestamp < m.Events[i-1].Timestamp {
			return fmt.Errorf("accepted event %d at %v before the previous one", i, e.Timestamp)
		}
	}
	if dir == FromBatsim {
		return nil
	}
	r, err := replyOf(m)
	if err != nil {
		return nil
	}
	enc := r.Encode()
	m2, err := dec.Decode(enc, FromScheduler)
	if err != nil {
		return fmt.Errorf("Reply encoded a message the decoder refuses: %v\n%s", err, enc)
	}
	r2, err := replyOf(m2)
	if err != nil {
		return fmt.Errorf("rebuilt reply refused: %v\n%s", err, enc)
	}
	if enc2 := r2.Encode(); !bytes.Equal(enc, enc2) {
		return fmt.Errorf("encoding not stable:\n%s\n%s", enc, enc2)
	}
	return nil
}

// FuzzParseIntervalSet: no panic on any input; an accepted set is sorted,
// duplicate-free and non-negative, and its canonical string re-parses to the
// same set (and prints the same).
func FuzzParseIntervalSet(f *testing.F) {
	for _, s := range []string{"0-3 5 7-9", "7-9 0-3 5", "5 2-2 7 1-3", "", " 1  2 ", "-1", "3-1", "a", "1-", "1,2", "0-0", "10-12 11"} {
		f.Add(s)
	}
	for _, tr := range corpus.Transcripts(f) {
		for _, l := range tr.Lines(f) {
			m, err := quietDecoder().Decode([]byte(l.Raw), direction(l))
			if err != nil {
				continue
			}
			for _, e := range m.Events {
				switch d := e.Data.(type) {
				case *ExecuteJob:
					f.Add(d.Alloc.String())
				case *JobCompleted:
					f.Add(d.Alloc)
				}
			}
		}
	}
	f.Add("9223372036854775807")
	f.Add("0-9223372036854775807")
	f.Add("0-4194303")
	f.Fuzz(func(t *testing.T, text string) {
		fuzzguard.Run(t, func() error { return checkIntervalSet(text) })
	})
}

// checkIntervalSet is FuzzParseIntervalSet's check of one input. The parser
// bounds the sets it builds (MaxIntervalSetSize ids), so any input is fine.
func checkIntervalSet(text string) error {
	s, err := ParseIntervalSet(text)
	if err != nil {
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", text)) {
			return fmt.Errorf("%q: the error does not name the text: %v", text, err)
		}
		return nil
	}
	for i, v := range s {
		if v < 0 || v > MaxResourceID || (i > 0 && v <= s[i-1]) {
			return fmt.Errorf("%q: set %v is not sorted, unique and within 0..MaxResourceID", text, []int(s))
		}
	}
	canon := s.String()
	again, err := ParseIntervalSet(canon)
	if err != nil {
		return fmt.Errorf("%q: canonical %q does not parse: %v", text, canon, err)
	}
	if len(s) == 0 && len(again) == 0 {
		return nil
	}
	if !reflect.DeepEqual(s, again) {
		return fmt.Errorf("%q: canonical %q re-parses to %v, not %v", text, canon, []int(again), []int(s))
	}
	if again.String() != canon {
		return fmt.Errorf("%q: canonical form not stable: %q then %q", text, canon, again.String())
	}
	return nil
}
