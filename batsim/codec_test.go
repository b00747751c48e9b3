package batsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// refusedReplies are the scheduler replies of the conformance corpus that
// made Batsim 4.2.1 abort on a rule visible in the message itself; the value
// is a fragment of the decoder's error. (protocol_violations/README.md)
var refusedReplies = map[string]string{
	"pv_event_after_now/transcript.jsonl:3": "later than now",
	"pv_cml_now/transcript.jsonl:3":         "CALL_ME_LATER",
	"pv_cml_past/transcript.jsonl:3":        "CALL_ME_LATER",
	"pv_dyn_no_subtime/transcript.jsonl:3":  "subtime",
}

// TestTranscriptsDecode decodes every message of every transcript in its
// direction and checks the typed result against the reference parse (the
// transcript's msg field): the envelope, each event's type and timestamp,
// and the event data re-marshalled from the typed payload.
func TestTranscriptsDecode(t *testing.T) {
	for _, tr := range corpus.Transcripts(t) {
		name := tr.Name()
		t.Run(name, func(t *testing.T) {
			dec := quietDecoder()
			nb, ns := 0, 0
			for _, l := range tr.Lines(t) {
				m, err := dec.Decode([]byte(l.Raw), direction(l))
				key := name + ":" + itoa(l.Seq)
				if frag, bad := refusedReplies[key]; bad {
					if err == nil || !strings.Contains(err.Error(), frag) {
						t.Errorf("seq %d: want an error mentioning %q, got %v", l.Seq, frag, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("seq %d (%s): %v", l.Seq, l.Dir, err)
				}
				checkAgainstReference(t, l, m)
				if direction(l) == FromBatsim {
					nb++
				} else {
					ns++
				}
			}
			if nb == 0 || ns == 0 {
				t.Fatalf("transcript has %d Batsim and %d scheduler messages", nb, ns)
			}
		})
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

type refEvent struct {
	Timestamp float64         `json:"timestamp"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
}

type refMessage struct {
	Now    float64    `json:"now"`
	Events []refEvent `json:"events"`
}

func checkAgainstReference(t *testing.T, l corpus.Line, m *Message) {
	t.Helper()
	var ref refMessage
	if err := json.Unmarshal(l.Msg, &ref); err != nil {
		t.Fatalf("seq %d: reference: %v", l.Seq, err)
	}
	if m.Now != ref.Now {
		t.Fatalf("seq %d: now %v, reference %v", l.Seq, m.Now, ref.Now)
	}
	if len(m.Events) != len(ref.Events) {
		t.Fatalf("seq %d: %d events, reference %d", l.Seq, len(m.Events), len(ref.Events))
	}
	for i, e := range m.Events {
		r := ref.Events[i]
		if e.Type != r.Type || e.Timestamp != r.Timestamp {
			t.Fatalf("seq %d event %d: %s@%v, reference %s@%v", l.Seq, i, e.Type, e.Timestamp, r.Type, r.Timestamp)
		}
		if _, unknown := e.Data.(*Unknown); unknown {
			t.Fatalf("seq %d event %d: type %s decoded as unknown", l.Seq, i, e.Type)
		}
		if direction(l) == FromBatsim {
			got, err := json.Marshal(e.Data)
			if err != nil {
				t.Fatalf("seq %d event %d: %v", l.Seq, i, err)
			}
			if g, w := generic(t, got), generic(t, r.Data); !reflect.DeepEqual(g, w) {
				t.Fatalf("seq %d event %d (%s): typed data\n%s\nreference\n%s", l.Seq, i, e.Type, got, r.Data)
			}
		}
	}
}

// TestSchedulerRepliesRoundTrip rebuilds every legal scheduler reply of the
// corpus with the Reply builder: the encoding must mean the same JSON as the
// recorded reply, decode without error, and re-encode to the same bytes.
func TestSchedulerRepliesRoundTrip(t *testing.T) {
	n := 0
	for _, tr := range corpus.Transcripts(t) {
		name := tr.Name()
		for _, l := range tr.Lines(t) {
			if direction(l) != FromScheduler {
				continue
			}
			if _, bad := refusedReplies[name+":"+itoa(l.Seq)]; bad {
				continue
			}
			dec := quietDecoder()
			m1, err := dec.Decode([]byte(l.Raw), FromScheduler)
			if err != nil {
				t.Fatalf("%s seq %d: %v", name, l.Seq, err)
			}
			r1, err := replyOf(m1)
			if err != nil {
				t.Fatalf("%s seq %d: Reply refuses a reply Batsim accepted: %v", name, l.Seq, err)
			}
			enc1 := r1.Encode()
			if g, w := generic(t, enc1), generic(t, []byte(l.Raw)); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s seq %d: re-encoded\n%s\nrecorded\n%s", name, l.Seq, enc1, l.Raw)
			}
			m2, err := dec.Decode(enc1, FromScheduler)
			if err != nil {
				t.Fatalf("%s seq %d: re-encoded reply does not decode: %v\n%s", name, l.Seq, err, enc1)
			}
			r2, err := replyOf(m2)
			if err != nil {
				t.Fatalf("%s seq %d: %v", name, l.Seq, err)
			}
			if enc2 := r2.Encode(); !bytes.Equal(enc1, enc2) {
				t.Fatalf("%s seq %d: encoding not stable:\n%s\n%s", name, l.Seq, enc1, enc2)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no scheduler reply checked")
	}
}

// TestBatsimMessagesDecodeStable checks that decoding a Batsim message is a
// function of its text: two decodings give equal typed messages.
func TestBatsimMessagesDecodeStable(t *testing.T) {
	for _, tr := range corpus.Transcripts(t) {
		for _, l := range tr.Lines(t) {
			if direction(l) != FromBatsim {
				continue
			}
			a, err := quietDecoder().Decode([]byte(l.Raw), FromBatsim)
			if err != nil {
				t.Fatal(err)
			}
			b, err := quietDecoder().Decode([]byte(l.Raw), FromBatsim)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s seq %d: two decodings differ", tr.Name(), l.Seq)
			}
		}
	}
}

// rawEventOf returns event i of a raw message as generic JSON.
func rawEventOf(t *testing.T, raw string, i int) (now float64, ts float64, typ string, data map[string]any) {
	t.Helper()
	var m struct {
		Now    float64 `json:"now"`
		Events []struct {
			Timestamp float64        `json:"timestamp"`
			Type      string         `json:"type"`
			Data      map[string]any `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	e := m.Events[i]
	return m.Now, e.Timestamp, e.Type, e.Data
}

// TestProtocolViolations covers each faulty reply of the corpus: the
// message-level ones are refused by the decoder (above) and cannot be built
// with Reply; the state-level one (allocation size) and the legal ones are
// accepted at this level.
func TestProtocolViolations(t *testing.T) {
	t.Run("event_after_now", func(t *testing.T) {
		l := corpus.ReadLine(t, "pv_event_after_now", "transcript.jsonl", 3)
		now, ts, typ, data := rawEventOf(t, l.Raw, 0)
		if !(ts > now) || typ != TypeExecuteJob {
			t.Fatalf("unexpected fixture: %s at %v, now %v", typ, ts, now)
		}
		// Reply has no way to stamp an event later than its now: every
		// event carries the reply's now.
		r := NewReply(now)
		set, err := ParseIntervalSet(data["alloc"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.ExecuteJob(ExecuteJob{JobID: data["job_id"].(string), Alloc: set}); err != nil {
			t.Fatal(err)
		}
		m, err := quietDecoder().Decode(r.Encode(), FromScheduler)
		if err != nil {
			t.Fatal(err)
		}
		if m.Events[0].Timestamp != now {
			t.Fatalf("event stamped %v, want now=%v", m.Events[0].Timestamp, now)
		}
	})
	for _, c := range []string{"pv_cml_now", "pv_cml_past"} {
		t.Run(c, func(t *testing.T) {
			l := corpus.ReadLine(t, c, "transcript.jsonl", 3)
			now, _, typ, data := rawEventOf(t, l.Raw, 0)
			if typ != TypeCallMeLater {
				t.Fatalf("unexpected fixture %s", typ)
			}
			at := data["timestamp"].(float64)
			if err := NewReply(now).CallMeLater(at); err == nil {
				t.Fatalf("Reply accepted CALL_ME_LATER at %v with now=%v", at, now)
			}
			// The smallest legal target is accepted.
			if err := NewReply(now).CallMeLater(now + MinCallMeLaterDelay); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("dyn_no_subtime", func(t *testing.T) {
		l := corpus.ReadLine(t, "pv_dyn_no_subtime", "transcript.jsonl", 3)
		now, _, typ, data := rawEventOf(t, l.Raw, 1)
		if typ != TypeRegisterJob {
			t.Fatalf("unexpected fixture %s", typ)
		}
		job, _ := json.Marshal(data["job"])
		err := NewReply(now).RegisterJob(data["job_id"].(string), job)
		if err == nil || !strings.Contains(err.Error(), "subtime") {
			t.Fatalf("Reply.RegisterJob without subtime: %v", err)
		}
		// The same job with a subtime is accepted.
		obj := data["job"].(map[string]any)
		obj["subtime"] = now
		job, _ = json.Marshal(obj)
		if err := NewReply(now).RegisterJob(data["job_id"].(string), job); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("alloc_too_big", func(t *testing.T) {
		// Whether an allocation has the right size depends on the job's
		// res, which only the state knows: the message itself is valid
		// (the scheduler's Decider refuses it, see package schedulers).
		l := corpus.ReadLine(t, "pv_alloc_too_big", "transcript.jsonl", 3)
		m, err := quietDecoder().Decode([]byte(l.Raw), FromScheduler)
		if err != nil {
			t.Fatal(err)
		}
		ex := m.Events[0].Data.(*ExecuteJob)
		if ex.Alloc.String() != "0-1" {
			t.Fatalf("alloc %s", ex.Alloc)
		}
	})
}

// TestDecodeSchedulerRules checks reader rules on hand-written replies.
func TestDecodeSchedulerRules(t *testing.T) {
	cases := []decodeCase{
		{"ok", `{"now":5,"events":[{"timestamp":5,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0-3"}}]}`, ""},
		{"no now", `{"events":[]}`, "now"},
		{"no events", `{"now":1}`, "events"},
		{"not object", `[1,2]`, "JSON"},
		{"no data", `{"now":5,"events":[{"timestamp":5,"type":"REJECT_JOB"}]}`, "data"},
		{"unknown type", `{"now":5,"events":[{"timestamp":5,"type":"NOPE","data":{}}]}`, "unknown event type"},
		{"execute 4 members", `{"now":5,"events":[{"timestamp":5,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0","mapping":{"0":0},"storage_mapping":{"pfs":1}}}]}`, "optional"},
		{"empty alloc", `{"now":5,"events":[{"timestamp":5,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":""}}]}`, "empty"},
		{"comma alloc", `{"now":5,"events":[{"timestamp":5,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"1,2"}}]}`, "interval set"},
		{"bad job id", `{"now":5,"events":[{"timestamp":5,"type":"REJECT_JOB","data":{"job_id":"nobang"}}]}`, "workload!name"},
		{"pstate number", `{"now":5,"events":[{"timestamp":5,"type":"SET_RESOURCE_STATE","data":{"resources":"0","state":3}}]}`, "string"},
		{"notify from sched", `{"now":5,"events":[{"timestamp":5,"type":"NOTIFY","data":{"type":"no_more_static_job_to_submit"}}]}`, "registration_finished"},
		{"cml future", `{"now":5,"events":[{"timestamp":5,"type":"CALL_ME_LATER","data":{"timestamp":6}}]}`, ""},
		{"cml equal", `{"now":5,"events":[{"timestamp":5,"type":"CALL_ME_LATER","data":{"timestamp":5}}]}`, "CALL_ME_LATER"},
		{"earlier timestamps ok", `{"now":5,"events":[{"timestamp":4,"type":"REJECT_JOB","data":{"job_id":"w0!1"}}]}`, ""},
	}
	checkDecodeCases(t, FromScheduler, cases)
}

// decodeCase is a message and a fragment of the error it must give ("":
// none).
type decodeCase struct {
	name, msg, err string
}

func checkDecodeCases(t *testing.T, dir Direction, cases []decodeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := quietDecoder().Decode([]byte(c.msg), dir)
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("want error containing %q, got %v (%+v)", c.err, err, m)
			}
		})
	}
}

// TestDecodeBatsimRules checks the rules every message of Batsim obeys
// (event timestamps non-decreasing and not after now, final job states,
// JOB_SUBMITTED's job_id equal to its job's id): a message breaking one is
// refused with an error naming the rule and the event. The legal cases are
// shapes the corpus shows (events older than now, several events at one
// timestamp, a JOB_SUBMITTED without a job object).
func TestDecodeBatsimRules(t *testing.T) {
	const sub = `{"timestamp":%s,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":%s,"subtime":0,"res":1,"profile":"p"}}}`
	completed := func(ts, state string) string {
		return `{"timestamp":` + ts + `,"type":"JOB_COMPLETED","data":{"job_id":"w0!1","job_state":"` + state + `","return_code":0,"alloc":"0"}}`
	}
	msg := func(now string, events ...string) string {
		return `{"now":` + now + `,"events":[` + strings.Join(events, ",") + `]}`
	}
	cases := []decodeCase{
		{"events older than now", msg("31.123477", `{"timestamp":31.123472,"type":"NOTIFY","data":{"type":"no_more_static_job_to_submit"}}`), ""},
		{"equal timestamps", msg("8.00006", completed("8.00004", "COMPLETED_SUCCESSFULLY"), completed("8.00004", "COMPLETED_KILLED")), ""},
		{"increasing timestamps", msg("8.00006", completed("8.00004", "COMPLETED_FAILED"), completed("8.00006", "COMPLETED_WALLTIME_REACHED")), ""},
		{"submitted without job", msg("1", `{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1"}}`), ""},
		{"submitted", msg("1", fmt.Sprintf(sub, "1", `"w0!1"`)), ""},
		{"timestamp after now", msg("5", completed("5.000001", "COMPLETED_SUCCESSFULLY")), "event 0 (JOB_COMPLETED): timestamp 5.000001 is later than now=5"},
		{"decreasing timestamps", msg("9", completed("8", "COMPLETED_SUCCESSFULLY"), `{"timestamp":7,"type":"REQUESTED_CALL","data":{}}`), "event 1 (REQUESTED_CALL): timestamp 7 is earlier than the previous event's 8 (events out of order)"},
		{"unknown job_state", msg("5", completed("5", "COMPLETED_MAYBE")), `event 0 (JOB_COMPLETED): job w0!1: job_state "COMPLETED_MAYBE" is not a final state`},
		{"running is not final", msg("5", completed("5", "RUNNING")), `job_state "RUNNING" is not a final state`},
		{"empty job_state", msg("5", `{"timestamp":5,"type":"JOB_COMPLETED","data":{"job_id":"w0!1","return_code":0,"alloc":"0"}}`), `job_state "" is not a final state`},
		{"job_id differs from job.id", msg("1", fmt.Sprintf(sub, "1", `"w0!2"`)), `event 0 (JOB_SUBMITTED): job_id "w0!1" differs from the job's id "w0!2"`},
		{"job.id not a string", msg("1", fmt.Sprintf(sub, "1", `1`)), `job_id "w0!1" differs from the job's id 1`},
		{"job not an object", msg("1", `{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":[1]}}`), `"job" is not an object`},
		{"negative now", msg("-0.5"), "now=-0.5 is negative"},
		{"no walltime", msg("1", `{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","walltime":-1}}}`), ""},
		{"negative walltime", msg("1", `{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","walltime":-2}}}`), "job w0!1: walltime -2 is neither -1 (none) nor positive"},
		{"walltime not a number", msg("1", `{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","walltime":"1h"}}}`), `job w0!1: walltime "1h" is not a number`},
	}
	checkDecodeCases(t, FromBatsim, cases)
}

// A large message is read in place: a JOB_SUBMITTED of 3 MB decodes to the
// same event as through the small messages' way, its job a slice of the
// message, and the decoding allocates a small part of the message's size.
func TestDecodeLargeMessageInPlace(t *testing.T) {
	note := strings.Repeat("0123456789", 300_000)
	b := []byte(`{"now":2,"events":[{"timestamp":2,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","res":1,"walltime":10,"note":"` + note + `"}}}]}`)
	if len(b) < largeMessage {
		t.Fatalf("message of %d bytes, not large", len(b))
	}
	dec := quietDecoder()
	var m *Message
	var err error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err = dec.Decode(b, FromBatsim)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(b))/10 {
		t.Errorf("decoding a message of %d bytes allocated %d", len(b), alloc)
	}
	js, ok := m.Events[0].Data.(*JobSubmitted)
	if !ok || js.JobID != "w0!1" || !strings.Contains(string(js.Job), note) {
		t.Fatalf("event %+v", m.Events[0])
	}
	if start := bytes.Index(b, []byte(`{"id"`)); &b[start] != &js.Job[0] {
		t.Error("the job is a copy, not a slice of the message")
	}
	small := quietDecoder()
	small.reference = true
	want, err := small.Decode(b, FromBatsim)
	if err != nil || !reflect.DeepEqual(m, want) {
		t.Errorf("in place: %+v; decoded: %+v, %v", m, want, err)
	}
}

// replyNumbers finds the times of a scheduler's reply.
var replyNumbers = regexp.MustCompile(`"(?:now|timestamp)":(-?[0-9][0-9.eE+-]*)`)

// batsched writes its replies' times as the Reply encoder does: for every
// time of every batsched reply of the corpus, decoding then encoding gives
// batsched's spelling back.
func TestReplyNumbersSpelledAsBatsched(t *testing.T) {
	n := 0
	for _, tr := range corpus.Transcripts(t) {
		if !strings.Contains(tr.File, "batsched") {
			continue
		}
		for _, l := range tr.Lines(t) {
			if direction(l) != FromScheduler {
				continue
			}
			for _, m := range replyNumbers.FindAllStringSubmatch(l.Raw, -1) {
				var d Double
				if err := d.UnmarshalJSON([]byte(m[1])); err != nil {
					t.Fatalf("%s seq %d: %v", tr.Name(), l.Seq, err)
				}
				if got := string(appendFloat(nil, float64(d))); got != m[1] {
					t.Errorf("%s seq %d: batsched wrote %s, the encoder writes %s", tr.Name(), l.Seq, m[1], got)
				}
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d batsched times in the corpus", n)
	}
	t.Logf("%d batsched times", n)
}

// Double reads numbers as rapidjson does, and refuses what Batsim's
// IsNumber refuses.
func TestDoubleUnmarshal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"5", 5}, {"0.000015", 0.000015}, {"10000000000.000001", 1e10}, {"-0.0", math.Copysign(0, -1)}, {" 2.5 ", 2.5},
	} {
		var d Double
		if err := d.UnmarshalJSON([]byte(c.in)); err != nil || math.Float64bits(float64(d)) != math.Float64bits(c.want) {
			t.Errorf("Double(%s) = %v, %v; want %v", c.in, float64(d), err, c.want)
		}
	}
	for _, in := range []string{`"5"`, "true", "{}", "1.", "01", "", "-"} {
		var d Double
		if err := d.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("Double(%s) accepted", in)
		}
	}
	d := Double(7)
	if err := d.UnmarshalJSON([]byte("null")); err != nil || d != 7 {
		t.Errorf("Double(null) = %v, %v; want unchanged", d, err)
	}
	// In a message: now, timestamps and CALL_ME_LATER targets.
	msg := `{"now":10000000000.000021,"events":[{"timestamp":10000000000.000001,"type":"CALL_ME_LATER","data":{"timestamp":10000000000.000021}}]}`
	m, err := quietDecoder().Decode([]byte(msg), FromScheduler)
	if err != nil {
		t.Fatal(err)
	}
	if m.Now != 10000000000.00002 || m.Events[0].Timestamp != 1e10 || m.Events[0].Data.(*CallMeLater).At != 10000000000.00002 {
		t.Errorf("decoded now=%v timestamp=%v at=%v; want 10000000000.00002, 1e10, 10000000000.00002", m.Now, m.Events[0].Timestamp, m.Events[0].Data.(*CallMeLater).At)
	}
}

// TestExecuteJobAt: a start may be dated before now, never after it nor
// before the reply's previous event.
func TestExecuteJobAt(t *testing.T) {
	r := NewReply(10)
	e := func(id string) ExecuteJob { return ExecuteJob{JobID: "w0!" + id, Alloc: IntervalSet{0}} }
	if err := r.ExecuteJobAt(e("a"), 11); err == nil || !strings.Contains(err.Error(), "later than now") {
		t.Errorf("a date after now: %v", err)
	}
	if err := r.ExecuteJobAt(e("a"), 8); err != nil {
		t.Fatal(err)
	}
	if err := r.ExecuteJobAt(e("b"), 7); err == nil || !strings.Contains(err.Error(), "earlier than the previous") {
		t.Errorf("a date before the previous event: %v", err)
	}
	if err := r.ExecuteJob(e("c")); err != nil {
		t.Fatal(err)
	}
	if got := string(r.Encode()); !strings.Contains(got, `{"timestamp":8.0,"type":"EXECUTE_JOB"`) || !strings.Contains(got, `{"timestamp":10.0,"type":"EXECUTE_JOB","data":{"job_id":"w0!c"`) || r.LastDate() != 10 {
		t.Errorf("reply %s, last date %v", got, r.LastDate())
	}
}

// ExecuteJobSetAt keeps a set in increasing order as it is handed over,
// and makes a set of any other list (sorted, duplicates merged), with
// ExecuteJobAt's checks.
func TestExecuteJobSetAt(t *testing.T) {
	r := NewReply(10)
	kept := IntervalSet{1, 2, 5}
	if err := r.ExecuteJobSetAt("w0!1", kept, 10); err != nil {
		t.Fatal(err)
	}
	if got := r.Events()[0].Data.(*ExecuteJob).Alloc; &got[0] != &kept[0] {
		t.Errorf("an increasing set was copied")
	}
	unsorted := IntervalSet{4, 3, 3}
	if err := r.ExecuteJobSetAt("w0!2", unsorted, 10); err != nil {
		t.Fatal(err)
	}
	if got := r.Events()[1].Data.(*ExecuteJob).Alloc; got.String() != "3-4" || &got[0] == &unsorted[0] {
		t.Errorf("an unsorted list gave %v (copied: %v)", got, &got[0] != &unsorted[0])
	}
	for _, bad := range []struct {
		id    string
		alloc IntervalSet
		at    float64
	}{{"w0!3", nil, 10}, {"w0!3", IntervalSet{-1}, 10}, {"nobang", IntervalSet{1}, 10}, {"w0!3", IntervalSet{1}, 11}} {
		if err := r.ExecuteJobSetAt(bad.id, bad.alloc, bad.at); err == nil {
			t.Errorf("ExecuteJobSetAt(%q, %v, %v) accepted", bad.id, bad.alloc, bad.at)
		}
	}
	if r.Len() != 2 {
		t.Errorf("%d events", r.Len())
	}
}

// Reset starts the next reply in the same storage: no event of the former
// one is left, its EXECUTE_JOB data are reused, and the new reply checks
// its events against its own now.
func TestReplyReset(t *testing.T) {
	r := NewReply(5)
	r.Reset(5)
	for i := 0; i < 3; i++ {
		if err := r.ExecuteJobSetAt(fmt.Sprintf("w0!%d", i), IntervalSet{i}, 5); err != nil {
			t.Fatal(err)
		}
	}
	first := r.Events()[0].Data.(*ExecuteJob)
	r.Reset(7)
	if r.Len() != 0 || r.Now() != 7 {
		t.Fatalf("after Reset: %d events, now %v", r.Len(), r.Now())
	}
	if err := r.ExecuteJobSetAt("w0!9", IntervalSet{4}, 6); err != nil {
		t.Fatal(err)
	}
	if err := r.CallMeLater(7); err == nil {
		t.Error("a CALL_ME_LATER at the new now accepted")
	}
	got := r.Events()[0]
	if d := got.Data.(*ExecuteJob); d != first || d.JobID != "w0!9" || d.Alloc.String() != "4" || got.Timestamp != 6 {
		t.Errorf("after Reset: %+v at %v (storage reused: %v)", d, got.Timestamp, d == first)
	}
	a, b := IntervalSet{1}, IntervalSet{2}
	if n := testing.AllocsPerRun(100, func() {
		r.Reset(8)
		_ = r.ExecuteJobSetAt("w0!1", a, 8)
		_ = r.ExecuteJobSetAt("w0!2", b, 8)
	}); n != 0 {
		t.Errorf("%v allocations a reply once its storage is there", n)
	}
}
