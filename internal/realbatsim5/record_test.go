package realbatsim5

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

var recordDir = flag.String("record-v5-transcripts", "", "write the transcripts of batsim/v5's replay tests into `DIR` (batsim/v5/testdata)")

// transcriptCases are the sessions batsim/v5's tests replay without Batsim:
// dynamic registration with kills (OSEP), compute sharing and host switches
// (threshold VM consolidation with power=on), EASY, a reply dated later
// than its message (killer), rejections.
var transcriptCases = []struct {
	name string
	c    policyCase
}{
	{"osep", policyCase{policy: "osep", platform: "osep", workload: osepWL1}},
	{"threshold-power", policyCase{policy: "threshold-vm-consolidation", platform: "bot-2nodes", workload: botEx, args: energyOn, opts: map[string]string{"power": "on"}}},
	{"easy", policyCase{policy: "easy", platform: "lille", workload: tiny}},
	{"killer", policyCase{policy: "edc-killer", platform: "osep", workload: osepWL1}},
	{"rejecter", policyCase{policy: "edc-rejecter", platform: "lille", workload: tiny}},
}

// TestRecordTranscripts records real Batsim 5 sessions as JSON lines
// ({"dir": "batsim->sched" or "sched->batsim", "raw": TEXT}), the first
// line the init string, and Batsim 5's jobs.csv. It runs only with -record-v5-transcripts DIR:
//
//	go test ./internal/realbatsim5 -run TestRecordTranscripts -record-v5-transcripts "$PWD/batsim/v5/testdata"
func TestRecordTranscripts(t *testing.T) {
	if *recordDir == "" {
		t.Skip("recording skipped: -record-v5-transcripts DIR is not set")
	}
	batsim5(t)
	for i, tc := range transcriptCases {
		c := tc.c
		var mu sync.Mutex
		var out bytes.Buffer
		observe := func(d batsim.Direction, raw []byte) {
			mu.Lock()
			defer mu.Unlock()
			line, _ := json.Marshal(map[string]string{"dir": d.String(), "raw": string(raw)})
			out.Write(line)
			out.WriteByte('\n')
		}
		dir := filepath.Join(tmpRoot, "record", strconv.Itoa(i))
		wl := writeV5(t, c.workload, dir)
		r, _, err := serveZMQ(t, observe, platformPath(c.platform), wl, filepath.Join(dir, "out"), initString(t, c.policy, c.opts), c.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// Batsim 5's jobs.csv of the session, which the engine's Batsim 5
		// format is compared with.
		if err := os.WriteFile(filepath.Join(*recordDir, tc.name+".jobs.csv"), r.Jobs, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*recordDir, tc.name+".jsonl"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
