package batsim

import (
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// batsimNumbers finds the numbers of a compact JSON text outside strings
// (enough for the corpus' messages).
var batsimNumbers = regexp.MustCompile(`[:\[,]-?[0-9][0-9.eE+-]*`)

// Every Batsim message of the corpus, decoded then re-encoded with
// EncodeBatsim, gives Batsim's bytes: exactly, except SIMULATION_BEGINS
// whose map-like objects Batsim writes in hash order (there: the same
// object, and the same number spellings).
func TestEncodeBatsimRoundTrip(t *testing.T) {
	dec := quietDecoder()
	n := 0
	for _, tr := range corpus.Transcripts(t) {
		for _, l := range tr.Lines(t) {
			if direction(l) != FromBatsim {
				continue
			}
			m, err := dec.Decode([]byte(l.Raw), FromBatsim)
			if err != nil {
				t.Fatalf("%s seq %d: %v", tr.Name(), l.Seq, err)
			}
			got := string(EncodeBatsim(m))
			n++
			if !strings.Contains(l.Raw, `"SIMULATION_BEGINS"`) {
				if got != l.Raw {
					t.Errorf("%s seq %d:\nwant %s\ngot  %s", tr.Name(), l.Seq, l.Raw, got)
				}
				continue
			}
			if !reflect.DeepEqual(generic(t, []byte(l.Raw)), generic(t, []byte(got))) {
				t.Errorf("%s seq %d: SIMULATION_BEGINS differs:\nwant %s\ngot  %s", tr.Name(), l.Seq, l.Raw, got)
			}
			a, b := batsimNumbers.FindAllString(l.Raw, -1), batsimNumbers.FindAllString(got, -1)
			sort.Strings(a)
			sort.Strings(b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s seq %d: number spellings differ: %v vs %v", tr.Name(), l.Seq, a, b)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d Batsim messages checked", n)
	}
}

func TestEncodeBatsimFormatting(t *testing.T) {
	p := 0.4999994
	idx := 2
	m := &Message{Now: 1.5e-5, Events: []Event{
		{Timestamp: 31.1234567891, Type: TypeNotify, Data: &Notify{Kind: NotifyNoMoreStaticJobToSubmit}},
		{Timestamp: 2, Type: TypeJobKilled, Data: &JobKilled{JobIDs: []string{"w0!b", "w0!a"}, JobProgress: map[string]*JobProgress{
			"w0!b": {ProfileName: "seq", CurrentTaskIndex: &idx, CurrentTask: &JobProgress{ProfileName: "d\"4\té", Progress: &p}},
			"w0!a": {ProfileName: "d", Progress: &p},
		}}},
		{Timestamp: 3, Type: TypeRequestedCall, Data: &RequestedCall{}},
		{Timestamp: 4, Type: TypeNotify, Data: &Notify{Kind: NotifyMachineUnavailable, Resources: "0-3 5"}},
	}}
	want := `{"now":0.000015,"events":[{"timestamp":31.123457,"type":"NOTIFY","data":{"type":"no_more_static_job_to_submit"}},` +
		`{"timestamp":2.000000,"type":"JOB_KILLED","data":{"job_ids":["w0!b","w0!a"],"job_progress":{"w0!a":{"profile_name":"d","progress":0.499999},` +
		`"w0!b":{"profile_name":"seq","current_task_index":2,"current_task":{"profile_name":"d\"4\té","progress":0.499999}}}}},` +
		`{"timestamp":3.000000,"type":"REQUESTED_CALL","data":{}},` +
		`{"timestamp":4.000000,"type":"NOTIFY","data":{"type":"event_machine_unavailable","resources":"0-3 5"}}]}`
	if got := string(EncodeBatsim(m)); got != want {
		t.Errorf("\nwant %s\ngot  %s", want, got)
	}
}
