package sim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

type transcriptLine struct {
	Seq int    `json:"seq"`
	Dir string `json:"dir"`
	Raw string `json:"raw"`
}

func readTranscript(t *testing.T, path string) []transcriptLine {
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
	return out
}

// replay answers the engine with the replies recorded in a transcript and
// checks that every engine message equals the recorded Batsim message.
type replay struct {
	t        *testing.T
	lines    []transcriptLine
	i        int
	wlPath   string
	dec      *batsim.Decoder
	mismatch []string
}

func (r *replay) Exchange(m *batsim.Message) (*batsim.Message, error) {
	if r.i >= len(r.lines) {
		return nil, fmt.Errorf("transcript exhausted at message %d", r.i)
	}
	want := r.lines[r.i]
	if want.Dir != "batsim->sched" {
		return nil, fmt.Errorf("transcript line %d is %s", want.Seq, want.Dir)
	}
	got := batsim.EncodeBatsim(m)
	if d := diffJSON(strings.ReplaceAll(want.Raw, "<CASE_DIR>/workload.json", r.wlPath), string(got)); d != "" {
		r.mismatch = append(r.mismatch, fmt.Sprintf("seq %d: %s\n  want %s\n  got  %s", want.Seq, d, want.Raw, got))
	}
	r.i++
	if r.i >= len(r.lines) {
		return nil, fmt.Errorf("no recorded reply to seq %d", want.Seq)
	}
	rep := r.lines[r.i]
	r.i++
	return r.dec.Decode([]byte(rep.Raw), batsim.FromScheduler)
}

func diffJSON(a, b string) string {
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		return "recorded message does not parse: " + err.Error()
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		return "engine message does not parse: " + err.Error()
	}
	if !reflect.DeepEqual(x, y) {
		return "messages differ"
	}
	// Same numbers, spelled the same way (Batsim's %f vs JSON integers).
	na, nb := numberRE.FindAllString(a, -1), numberRE.FindAllString(b, -1)
	sort.Strings(na)
	sort.Strings(nb)
	if !reflect.DeepEqual(na, nb) {
		return fmt.Sprintf("number spelling differs: %v vs %v", na, nb)
	}
	return ""
}

// numberRE finds the numbers of a compact JSON text (outside strings, for
// the messages of the corpus).
var numberRE = regexp.MustCompile(`[:\[,]-?[0-9][0-9.eE+-]*`)

type caseOpts struct {
	forward, dynamic, ack bool
	schedCfg              string
}

var caseOptions = map[string]caseOpts{
	"users_fields":                    {forward: true, schedCfg: `{"policy":"easy","weights":[0.5,0.3,0,0.2]}`},
	"kill_resubmit":                   {dynamic: true, ack: true},
	"pv_dyn_no_subtime":               {dynamic: true},
	"pv_dyn_no_registration_finished": {dynamic: true},
}

func loadCase(t *testing.T, name string, prefix string) Config {
	t.Helper()
	dir := filepath.Join("testdata", name)
	p, err := platforms.Load(filepath.Join(dir, "platform.xml"))
	if err != nil {
		t.Fatal(err)
	}
	wlPath, _ := filepath.Abs(filepath.Join(dir, "workload.json"))
	w, err := workloads.Load(wlPath)
	if err != nil {
		t.Fatal(err)
	}
	o := caseOptions[name]
	return Config{Platform: p, Workloads: []*workloads.Workload{w}, ExportPrefix: prefix,
		ForwardProfiles: o.forward, DynamicJobs: o.dynamic, AcknowledgeDynamicJob: o.ack, SchedConfig: o.schedCfg}
}

func runReplay(t *testing.T, name, transcript, prefix string) (*replay, *Result, error) {
	t.Helper()
	cfg := loadCase(t, name, prefix)
	wlPath, _ := filepath.Abs(filepath.Join("testdata", name, "workload.json"))
	r := &replay{t: t, lines: readTranscript(t, filepath.Join("testdata", name, transcript)), wlPath: wlPath, dec: batsim.NewDecoder(nil)}
	res, err := Run(context.Background(), cfg, r)
	return r, res, err
}

// compareJobs compares two _jobs.csv files and returns the largest
// deviation of a time column and the differing lines.
func compareJobs(want, got []byte) []string {
	wl := strings.Split(strings.TrimSpace(string(want)), "\n")
	gl := strings.Split(strings.TrimSpace(string(got)), "\n")
	var diffs []string
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var a, b string
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			b = gl[i]
		}
		if a != b {
			diffs = append(diffs, fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, a, b))
		}
	}
	return diffs
}

func compareSchedule(want, got []byte) []string {
	parse := func(b []byte) map[string]string {
		l := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(l) != 2 {
			return nil
		}
		k, v := strings.Split(l[0], ","), strings.Split(l[1], ",")
		m := map[string]string{}
		for i := range k {
			if i < len(v) {
				m[k[i]] = v[i]
			}
		}
		return m
	}
	w, g := parse(want), parse(got)
	var diffs []string
	for k, v := range w {
		switch k {
		case "scheduling_time", "simulation_time", "batsim_version":
			continue
		}
		if g[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", k, v, g[k]))
		}
	}
	if len(w) != len(g) {
		diffs = append(diffs, fmt.Sprintf("%d keys, want %d", len(g), len(w)))
	}
	return diffs
}

func TestConformanceReplay(t *testing.T) {
	cases := []struct{ name, transcript, jobs string }{
		{"hetero4_delays", "transcript.jsonl", "out_jobs.csv"},
		{"hetero4_delays", "transcript.batsched_fcfs_fast.jsonl", "out_jobs.batsched_fcfs_fast.csv"},
		{"hetero4_delays", "transcript.batsched_easy_bf.jsonl", "out_jobs.batsched_easy_bf.csv"},
		{"hetero8_compute", "transcript.jsonl", "out_jobs.csv"},
		{"hetero8_compute", "transcript.batsched_fcfs_fast.jsonl", "out_jobs.batsched_fcfs_fast.csv"},
		{"hetero8_compute", "transcript.batsched_easy_bf.jsonl", "out_jobs.batsched_easy_bf.csv"},
		{"users_fields", "transcript.jsonl", "out_jobs.csv"},
		{"kill_resubmit", "transcript.jsonl", "out_jobs.csv"},
		{"pv_reply_now_later", "transcript.jsonl", "out_jobs.csv"},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.transcript, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "out")
			r, _, err := runReplay(t, c.name, c.transcript, prefix)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if r.i != len(r.lines) {
				t.Errorf("simulation ended after %d transcript lines, transcript has %d", r.i, len(r.lines))
			}
			for _, m := range r.mismatch {
				t.Error(m)
			}
			want, _ := os.ReadFile(filepath.Join("testdata", c.name, c.jobs))
			got, _ := os.ReadFile(prefix + "_jobs.csv")
			for _, d := range compareJobs(want, got) {
				t.Error("_jobs.csv " + d)
			}
			if c.transcript == "transcript.jsonl" {
				if want, err := os.ReadFile(filepath.Join("testdata", c.name, "out_schedule.csv")); err == nil {
					got, _ := os.ReadFile(prefix + "_schedule.csv")
					for _, d := range compareSchedule(want, got) {
						t.Error("_schedule.csv " + d)
					}
				}
			}
		})
	}
}

func TestProtocolViolations(t *testing.T) {
	cases := []struct {
		name string
		want []string // every fragment must appear in the error
	}{
		{"pv_alloc_too_big", []string{"EXECUTE_JOB w0!1", "requires 1 machines but 2"}},
		{"pv_event_after_now", []string{"timestamp", "later than now"}},
		{"pv_cml_past", []string{"CALL_ME_LATER", "not after"}},
		{"pv_cml_now", []string{"CALL_ME_LATER", "not after"}},
		{"pv_dyn_no_subtime", []string{"REGISTER_JOB", "subtime"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "out")
			r, _, err := runReplay(t, c.name, "transcript.jsonl", prefix)
			if err == nil {
				t.Fatal("the engine accepted a reply Batsim aborts on")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			for _, m := range r.mismatch {
				t.Error(m)
			}
			if _, err := os.Stat(prefix + "_schedule.csv"); err == nil {
				t.Error("a schedule file was written for an aborted run")
			}
		})
	}
	t.Run("pv_dyn_no_registration_finished", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "out")
		r, _, err := runReplay(t, "pv_dyn_no_registration_finished", "transcript.jsonl", prefix)
		var d *DeadlockError
		if !errors.As(err, &d) {
			t.Fatalf("want a deadlock, got %v", err)
		}
		if !d.RegistrationOpen || !strings.Contains(err.Error(), "registration_finished") {
			t.Errorf("deadlock error does not name the missing registration_finished: %v", err)
		}
		if d.Time < 8.000049 || d.Time > 8.000051 {
			t.Errorf("deadlock at %.6f, Batsim detected it at 8.000050", d.Time)
		}
		if r.i != len(r.lines) {
			t.Errorf("stopped after %d transcript lines of %d", r.i, len(r.lines))
		}
		for _, m := range r.mismatch {
			t.Error(m)
		}
		// The rows written before the failure are kept aside; no
		// _jobs.csv is published for a failed run.
		got, _ := os.ReadFile(prefix + "_jobs.csv" + PartialSuffix)
		if n := bytes.Count(got, []byte("\n")); n != 3 {
			t.Errorf("partial jobs file has %d lines, want header + 2 rows", n)
		}
		if _, err := os.Stat(prefix + "_jobs.csv"); !os.IsNotExist(err) {
			t.Errorf("a jobs file was published for a failed run: %v", err)
		}
	})
}
