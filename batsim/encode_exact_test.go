package batsim

import (
	"math"
	"strings"
	"testing"
)

// TestEncodeBatsimExact: the exact encoding writes every time with the
// digits that read back as the same double, where EncodeBatsim rounds to
// Batsim 4's 6 decimals; the rest of the message is the same.
func TestEncodeBatsimExact(t *testing.T) {
	p := 0.5000000004
	m := &Message{Now: 1200.000001000803, Events: []Event{
		{Timestamp: 0.000015002008, Type: TypeJobCompleted, Data: &JobCompleted{JobID: "w0!1", JobState: StateSuccess, Alloc: "0-3"}},
		{Timestamp: 1200.000001000803, Type: TypeJobKilled, Data: &JobKilled{JobIDs: []string{"w0!2"}, JobProgress: map[string]*JobProgress{"w0!2": {ProfileName: "p", Progress: &p}}}},
		{Timestamp: 1200.000001000803, Type: TypeAnswer, Data: &BatsimAnswer{ConsumedEnergy: 1.25e-7}},
	}}
	exact, rounded := EncodeBatsimExact(m), EncodeBatsim(m)
	if !strings.Contains(string(rounded), `"now":1200.000001,`) || !strings.Contains(string(rounded), `"progress":0.500000`) {
		t.Errorf("EncodeBatsim: %s", rounded)
	}
	got, err := NewDecoder(nil).Decode(exact, FromBatsim)
	if err != nil {
		t.Fatalf("%v\n%s", err, exact)
	}
	if got.Now != m.Now || got.Events[0].Timestamp != m.Events[0].Timestamp || got.Events[1].Timestamp != m.Events[1].Timestamp {
		t.Errorf("times read back: %v %v %v\n%s", got.Now, got.Events[0].Timestamp, got.Events[1].Timestamp, exact)
	}
	if v := *got.Events[1].Data.(*JobKilled).JobProgress["w0!2"].Progress; v != p {
		t.Errorf("progress read back: %v", v)
	}
	if v := got.Events[2].Data.(*BatsimAnswer).ConsumedEnergy; math.Abs(v-1.25e-7) > 0 {
		t.Errorf("energy read back: %v", v)
	}
	plain := &Message{Now: 3, Events: []Event{{Timestamp: 3, Type: TypeSimulationEnds, Data: &SimulationEnds{}}}}
	if a, b := string(EncodeBatsimExact(plain)), string(EncodeBatsim(plain)); strings.ReplaceAll(b, "3.000000", "3.0") != a {
		t.Errorf("exact %s, rounded %s: they differ beyond the numbers", a, b)
	}
}
