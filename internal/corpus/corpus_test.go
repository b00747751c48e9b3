package corpus

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Every case has its inputs and Batsim's _jobs.csv, and every transcript is
// a conversation: Batsim speaks first, then the two sides alternate.
func TestCorpus(t *testing.T) {
	cases := Cases(t)
	if len(cases) != 11 {
		t.Errorf("%d cases: %v", len(cases), cases)
	}
	for _, c := range cases {
		for _, f := range []string{"platform.xml", "workload.json", "transcript.jsonl", "out_jobs.csv"} {
			if _, err := os.Stat(Path(c, f)); err != nil {
				t.Error(err)
			}
		}
	}
	trs := Transcripts(t)
	if len(trs) != 15 {
		t.Errorf("%d transcripts", len(trs))
	}
	for _, tr := range trs {
		for i, l := range tr.Lines(t) {
			if l.Seq != i || l.FromBatsim() != (i%2 == 0) || !json.Valid([]byte(l.Raw)) || !json.Valid(l.Msg) {
				t.Fatalf("%s line %d: seq %d, %s", tr.Name(), i, l.Seq, l.Dir)
			}
		}
	}
	if l := ReadLine(t, "pv_cml_now", "transcript.jsonl", 3); l.Dir != FromScheduler {
		t.Errorf("pv_cml_now seq 3: %+v", l)
	}
	first := ReadTranscript(t, "hetero4_delays", "transcript.jsonl")[0].Raw
	if !strings.Contains(first, CaseDir+"/workload.json") || strings.Contains(WithCaseDir(first, "/x"), CaseDir) {
		t.Errorf("case directory placeholder: %s", first)
	}
	compute, storage := Resources(t, "hetero4_delays")
	var hosts []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(compute, &hosts); err != nil || len(hosts) != 4 || hosts[0].Name != "host_a" || string(storage) != "[]" {
		t.Errorf("resources %s %s: %v", compute, storage, err)
	}
}
