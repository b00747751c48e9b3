package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

func mustLoad(t *testing.T, path string) *Workload {
	t.Helper()
	w, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return w
}

func TestLoadConformanceWorkloads(t *testing.T) {
	for _, tc := range []struct {
		name             string
		nbRes, jobs, prf int
	}{
		{"hetero4_delays", 4, 13, 10},
		{"hetero8_compute", 8, 17, 11},
		{"users_fields", 2, 4, 6},
		{"kill_resubmit", 4, 3, 5},
	} {
		w := mustLoad(t, corpus.Path(tc.name, "workload.json"))
		if w.NbRes != tc.nbRes || len(w.Jobs) != tc.jobs || len(w.Profiles) != tc.prf || len(w.ProfileOrder) != tc.prf {
			t.Errorf("%s: nb_res %d jobs %d profiles %d/%d", tc.name, w.NbRes, len(w.Jobs), len(w.Profiles), len(w.ProfileOrder))
		}
		errs, _ := w.Validate(ValidateOptions{})
		if len(errs) != 0 {
			t.Errorf("%s: unexpected errors %v", tc.name, errs)
		}
		if w.Meta("description") == nil {
			t.Errorf("%s: description not kept in Extra", tc.name)
		}
	}
}

func TestLoadHetero4Details(t *testing.T) {
	w := mustLoad(t, corpus.Path("hetero4_delays", "workload.json"))
	j := w.Jobs[0]
	if j.ID != "2" || !j.IDIsInt || j.Subtime != 0 || j.Res != 1 || j.Walltime != 10 || j.Profile != "d5" {
		t.Errorf("job 0 = %+v", j)
	}
	if w.Jobs[1].Walltime != -1 || w.Jobs[6].Walltime != -1 {
		t.Errorf("absent and -1 walltimes must both be -1: %v %v", w.Jobs[1].Walltime, w.Jobs[6].Walltime)
	}
	if w.Jobs[12].Subtime != 31.123456789 {
		t.Errorf("subtime %v", w.Jobs[12].Subtime)
	}
	if got := string(w.Jobs[12].Raw); got != `{"id": 13, "subtime": 31.123456789, "res": 3, "profile": "d2_25", "walltime": 4.5}` {
		t.Errorf("raw %s", got)
	}
	if w.ProfileOrder[0] != "d1" || w.ProfileOrder[9] != "unused" {
		t.Errorf("profile order %v", w.ProfileOrder)
	}
	var order []string
	for _, i := range w.SubmissionOrder("") {
		order = append(order, w.Jobs[i].ID)
	}
	if got := strings.Join(order, " "); got != "1 10 2 3 4 5 6 7 8 9 11 12 13" {
		t.Errorf("submission order %s", got)
	}
	if p := w.Profiles["d2_25"]; p.Type != TypeDelay || p.Delay != 2.25 || string(p.Raw) != `{"type": "delay", "delay": 2.25}` {
		t.Errorf("profile %+v", p)
	}
	_, warns := w.Validate(ValidateOptions{})
	if !hasFinding(warns, "", "unused", "no job uses") {
		t.Errorf("unused profile not reported: %v", warns)
	}
	_, warns = w.Validate(ValidateOptions{})
	if !hasFinding(warns, "4", "", "above nb_res") {
		t.Errorf("res 5 > nb_res 4 not reported: %v", warns)
	}
	errs, _ := w.Validate(ValidateOptions{PlatformHosts: 4})
	if !hasFinding(errs, "4", "", "can never run") {
		t.Errorf("res above the platform not an error: %v", errs)
	}
}

func TestLoadUsersFieldsVerbatim(t *testing.T) {
	data, err := os.ReadFile(corpus.Path("users_fields", "workload.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse(data, "uf")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		if !bytes.Contains(data, j.Raw) || j.Raw[0] != '{' || j.Raw[len(j.Raw)-1] != '}' {
			t.Errorf("job %s raw is not a verbatim slice of the file: %s", j.ID, j.Raw)
		}
	}
	a := w.Jobs[0]
	if a.ID != "alice-1" || a.IDIsInt || a.Profile != "seq_d1_ph" || a.Walltime != 30 {
		t.Errorf("alice = %+v", a)
	}
	if !strings.Contains(string(a.Raw), `"note": "a \"quoted\" word, a tab\tand an e-acute: \u00e9"`) {
		t.Errorf("escapes not kept verbatim: %s", a.Raw)
	}
	if !strings.Contains(string(w.Jobs[1].Raw), `"tiny": 1e-7, "huge": 1e20, "big_int": 12345678901`) {
		t.Errorf("number spelling not kept: %s", w.Jobs[1].Raw)
	}
	seq := w.Profiles["seq_d1_ph"]
	if seq.Type != TypeComposed || seq.Repeat != 2 || strings.Join(seq.Seq, ",") != "d1,ph_2G" {
		t.Errorf("composed = %+v", seq)
	}
	if w.Profiles["d1_ret3"].Ret != 3 || w.Profiles["ph_8G"].CPU != 8e9 {
		t.Errorf("ret/cpu not parsed")
	}
	if d, _ := w.RefRuntime("seq_d1_ph", 1, 2e9); d != 4 {
		t.Errorf("composed ref runtime = %v, want 4", d)
	}
}

// transcriptJobs returns the raw JOB_SUBMITTED job texts of a transcript,
// by full job id, cut out of the exact frame text.
func transcriptJobs(t *testing.T, lines []corpus.Line) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range lines {
		if !line.FromBatsim() {
			continue
		}
		root, err := parseJSON([]byte(line.Raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range root.get("events").elems {
			if ev.get("type").str != "JOB_SUBMITTED" {
				continue
			}
			d := ev.get("data")
			out[d.get("job_id").str] = string(d.get("job").raw())
			if pr := d.get("profile"); pr != nil {
				out["profile:"+d.get("job").get("profile").str] = string(pr.raw())
			}
		}
	}
	return out
}

func TestForwardedJobMatchesTranscripts(t *testing.T) {
	for _, tc := range []struct{ workload, transcript string }{
		{"users_fields", "transcript.jsonl"},
		{"hetero4_delays", "transcript.jsonl"},
		{"hetero8_compute", "transcript.jsonl"},
	} {
		w := mustLoad(t, corpus.Path(tc.workload, "workload.json"))
		want := transcriptJobs(t, corpus.ReadTranscript(t, tc.workload, tc.transcript))
		nprof := 0
		for k, v := range want {
			if name, ok := strings.CutPrefix(k, "profile:"); ok {
				nprof++
				got, err := BatsimJSON(w.Profiles[name].Raw)
				if err != nil || string(got) != v {
					t.Errorf("%s profile %s:\n got %s (%v)\nwant %s", tc.workload, name, got, err, v)
				}
			}
		}
		if len(want)-nprof != len(w.Jobs) {
			t.Fatalf("%s: %d jobs in transcript, %d in workload", tc.workload, len(want)-nprof, len(w.Jobs))
		}
		for _, j := range w.Jobs {
			full, err := FullJobID("w0", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ForwardedJob(j.Raw, full)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want[full] {
				t.Errorf("%s job %s:\n got %s\nwant %s", tc.workload, full, got, want[full])
			}
		}
	}
}

func TestBatsimJSONNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`31.123456789`:         `31.123457`,
		`1e20`:                 `100000000000000000000.000000`,
		`1e-7`:                 `0.000000`,
		`8e9`:                  `8000000000.000000`,
		`4.5`:                  `4.500000`,
		`12345678901`:          `12345678901`,
		`-0`:                   `0`,
		`-12`:                  `-12`,
		`18446744073709551615`: `18446744073709551615`,
		`18446744073709551616`: `18446744073709551616.000000`,
		`-9223372036854775808`: `-9223372036854775808`,
		`-9223372036854775809`: `-9223372036854775808.000000`,
		`0.0000005`:            `0.000000`,
		`0.0000015`:            `0.000002`,
		`-1.5e-7`:              `-0.000000`,
		`{ "a" : [1, 2.0, null, true, "x\/y\u0001\u00e9"] }`: `{"a":[1,2.000000,null,true,"x/y\u0001é"]}`,
	} {
		got, err := BatsimJSON([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if string(got) != want {
			t.Errorf("BatsimJSON(%s) = %s, want %s", in, got, want)
		}
	}
	if _, err := BatsimJSON([]byte(`1e25`)); err == nil {
		t.Error("1e25 must be rejected (Batsim buffer)")
	}
	if _, err := BatsimJSON([]byte(`{"a":1,}`)); err == nil {
		t.Error("trailing comma accepted")
	}
}

func TestJobIDRewrite(t *testing.T) {
	for _, tc := range []struct{ in, id, want string }{
		{`{"id":2,"res":1}`, "w0!2", `{"id":"w0!2","res":1}`},
		{`{"id":"a","origin":{"id":42,"site":"x"}}`, "w0!a", `{"id":"w0!a","origin":{"id":"w0!a","site":"x"}}`},
		{`{"res":1,"id":"last"}`, "w0!last", `{"res":1,"id":"w0!last"}`},
		{`{"valid":1,"id":"x"}`, "w0!x", `{"valid":1,"id":"w0!x"}`},
	} {
		if got := string(JobIDRewrite([]byte(tc.in), tc.id)); got != tc.want {
			t.Errorf("JobIDRewrite(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := ForwardedJob([]byte(`{"id":"a,b","res":1}`), "w0!a,b"); err == nil {
		t.Error("an id with a comma must break the rewrite like in Batsim")
	}
}

// TestForwardedJobCheck: ForwardedJob's quick validity check of the
// rewritten job agrees with the workload reader on ids that break the
// rewrite and on ids that do not.
func TestForwardedJobCheck(t *testing.T) {
	ids := []string{`"a"`, `7`, `"a,b"`, `"a}b"`, `"a(b"`, `"a|b"`, `"a)b"`, `"x\"y"`, `"é"`, `""`, `"a b"`, `-1.5e3`, `true`, `null`, `["a"]`, `{"k":1}`}
	fulls := []string{"w0!a", "w0!a,b", "w0!x\"y", "w0!\\u0001", "w0!\x01", "w0!\t", "w0!a\\b", "w0!é", "w0!\xff"}
	for _, id := range ids {
		for _, full := range fulls {
			raw := []byte(`{"id":` + id + `,"res":1,"origin":{"id":` + id + `}}`)
			c, err := BatsimJSON(raw)
			if err != nil {
				continue
			}
			out := JobIDRewrite(c, full)
			n, perr := parseJSON(out)
			want := perr == nil && n.kind == jObject
			_, err = ForwardedJob(raw, full)
			if (err == nil) != want {
				t.Errorf("id %s, full id %q: ForwardedJob error %v, reader accepts the rewrite: %v (%s)", id, full, err, want, out)
			}
		}
	}
}

func TestFullJobID(t *testing.T) {
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{
		{"1", "w0!1", true},
		{"alice-1", "w0!alice-1", true},
		{"w0!5", "w0!5", true},
		{"w0!!5", "w0!5", true},
		{"w0_7", "", false},
		{"a!b", "", false},
		{"w0!a!b", "", false},
	} {
		got, err := FullJobID("w0", tc.id)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("FullJobID(%q) = %q, %v", tc.id, got, err)
		}
	}
}

func hasFinding(fs []Finding, job, prof, substr string) bool {
	for _, f := range fs {
		if f.Job == job && f.Profile == prof && strings.Contains(f.Msg, substr) {
			return true
		}
	}
	return false
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"syntax", `{"nb_res": 1,`, "invalid JSON at line 1"},
		{"not object", `[1]`, "not a JSON object"},
		{"no nb_res", `{"jobs":[],"profiles":{}}`, "'nb_res' field is missing"},
		{"float nb_res", `{"nb_res":1.5,"jobs":[],"profiles":{}}`, "'nb_res' field is not an integer"},
		{"no jobs", `{"nb_res":1,"profiles":{}}`, "'jobs' array is missing"},
		{"no profiles", `{"nb_res":1,"jobs":[]}`, "'profiles' object is missing"},
		{"job no id", `{"nb_res":1,"jobs":[{"subtime":0,"res":1,"profile":"p"}],"profiles":{}}`, "job number 1 has no 'id'"},
		{"job float id", `{"nb_res":1,"jobs":[{"id":1.5,"subtime":0,"res":1,"profile":"p"}],"profiles":{}}`, "string or an integer"},
		{"job no subtime", `{"nb_res":1,"jobs":[{"id":"a","res":1,"profile":"p"}],"profiles":{}}`, "job 'a': no 'subtime'"},
		{"res float", `{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1.0,"profile":"p"}],"profiles":{}}`, "job 'a': the 'res' field is not an integer"},
		{"walltime string", `{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"walltime":"1h","profile":"p"}],"profiles":{}}`, "'walltime' field is not a number"},
		{"profile not string", `{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":3}],"profiles":{}}`, "'profile' field is not a string"},
		{"unknown type", `{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"p"},{"id":"b","subtime":0,"res":1,"profile":"p"}],"profiles":{"p":{"type":"smpi","trace":"x"}}}`,
			`profile 'p': profile type "smpi" is not supported (first used by job 'a')`},
		{"no delay", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"delay"}}}`, "profile 'p': no 'delay' field"},
		{"bad seq", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"composed","seq":[1]}}}`, "element 0 of 'seq'"},
		{"bad ret", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"delay","delay":1,"ret":"x"}}}`, "'ret' field is not an integer"},
		{"dup profile", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"delay","delay":1},"p":{"type":"delay","delay":2}}}`, "profile 'p': profile name defined twice"},
	} {
		_, err := Parse([]byte(tc.doc), "f.json")
		var le *LoadError
		if !errors.As(err, &le) {
			t.Errorf("%s: error %v is not a *LoadError", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.json: ") {
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.want)
		}
	}
}

const validHead = `{"nb_res":2,"profiles":{"d":{"type":"delay","delay":1}},"jobs":[`

func validateDoc(t *testing.T, jobs string, opts ValidateOptions) (errs, warns []Finding) {
	t.Helper()
	w, err := Parse([]byte(validHead+jobs+`]}`), "v.json")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return w.Validate(opts)
}

func TestValidateFindings(t *testing.T) {
	type want struct {
		err            bool
		job, prof, msg string
	}
	for _, tc := range []struct {
		name string
		doc  string // full document, or jobs only when it starts with '{"id"'
		opts ValidateOptions
		want want
	}{
		{"missing profile", `{"id":1,"subtime":0,"res":1,"profile":"nope"}`, ValidateOptions{}, want{true, "1", "", "profile 'nope' does not exist"}},
		{"duplicate id", `{"id":1,"subtime":0,"res":1,"profile":"d"},{"id":"1","subtime":0,"res":1,"profile":"d"}`, ValidateOptions{}, want{true, "1", "", "duplicate job id"}},
		{"negative subtime", `{"id":1,"subtime":-1,"res":1,"profile":"d"}`, ValidateOptions{}, want{true, "1", "", "negative subtime"}},
		{"negative res", `{"id":1,"subtime":0,"res":-1,"profile":"d"}`, ValidateOptions{}, want{true, "1", "", "negative res"}},
		{"zero res", `{"id":1,"subtime":0,"res":0,"profile":"d"}`, ValidateOptions{}, want{false, "1", "", "res is 0"}},
		{"zero walltime", `{"id":1,"subtime":0,"res":1,"walltime":0,"profile":"d"}`, ValidateOptions{}, want{true, "1", "", "walltime must be -1"}},
		{"walltime -2", `{"id":1,"subtime":0,"res":1,"walltime":-2,"profile":"d"}`, ValidateOptions{}, want{true, "1", "", "walltime must be -1"}},
		{"bang id", `{"id":"a!b","subtime":0,"res":1,"profile":"d"}`, ValidateOptions{}, want{true, "a!b", "", "contains a '!'"}},
		{"w0 substring", `{"id":"w0_7","subtime":0,"res":1,"profile":"d"}`, ValidateOptions{}, want{true, "w0_7", "", "contains the workload name"}},
		{"w0 prefix", `{"id":"w0!7","subtime":0,"res":1,"profile":"d"}`, ValidateOptions{}, want{false, "w0!7", "", "already contains the workload name"}},
		{"comma id", `{"id":"a,b","subtime":0,"res":1,"profile":"d"}`, ValidateOptions{}, want{true, "a,b", "", "cannot forward"}},
		{"res above nb_res", `{"id":1,"subtime":0,"res":3,"profile":"d"}`, ValidateOptions{}, want{false, "1", "", "above nb_res"}},
		{"res above platform", `{"id":1,"subtime":0,"res":3,"profile":"d"}`, ValidateOptions{PlatformHosts: 2}, want{true, "1", "", "platform's 2 compute hosts"}},
		{"unsorted", `{"id":1,"subtime":5,"res":1,"profile":"d"},{"id":2,"subtime":1,"res":1,"profile":"d"}`, ValidateOptions{}, want{false, "2", "", "not in increasing order"}},
		{"dup key", `{"id":1,"subtime":0,"res":1,"res":2,"profile":"d"}`, ValidateOptions{}, want{false, "1", "", `key "res" appears twice`}},
		{"delay zero", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"delay","delay":0}}}`, ValidateOptions{}, want{true, "", "p", "delay must be strictly positive"}},
		{"neg cpu", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"parallel_homogeneous","cpu":-1,"com":0}}}`, ValidateOptions{}, want{true, "", "p", "cpu must be non-negative"}},
		{"com size", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"parallel","cpu":[1,2],"com":[0,0,0]}}}`, ValidateOptions{}, want{true, "", "p", "3 elements, 2×2 = 4 expected"}},
		{"parallel res", `{"nb_res":4,"jobs":[{"id":1,"subtime":0,"res":3,"profile":"p"}],"profiles":{"p":{"type":"parallel","cpu":[1,2],"com":[0,0,0,0]}}}`, ValidateOptions{}, want{true, "1", "", "does not match the 2 hosts"}},
		{"repeat zero", `{"nb_res":1,"jobs":[],"profiles":{"d":{"type":"delay","delay":1},"p":{"type":"composed","repeat":0,"seq":["d"]}}}`, ValidateOptions{}, want{true, "", "p", "repeat must be strictly positive"}},
		{"seq unknown", `{"nb_res":1,"jobs":[],"profiles":{"p":{"type":"composed","seq":["x"]}}}`, ValidateOptions{}, want{true, "", "p", "seq uses profile 'x', which does not exist"}},
		{"seq cycle", `{"nb_res":1,"jobs":[],"profiles":{"a":{"type":"composed","seq":["b"]},"b":{"type":"composed","seq":["a"]}}}`, ValidateOptions{}, want{true, "", "a", "cycle"}},
		{"nb_res zero", `{"nb_res":0,"jobs":[],"profiles":{}}`, ValidateOptions{}, want{true, "", "", "nb_res must be a strictly positive"}},
	} {
		var w *Workload
		var err error
		if strings.HasPrefix(tc.doc, `{"id"`) {
			w, err = Parse([]byte(validHead+tc.doc+`]}`), "v.json")
		} else {
			w, err = Parse([]byte(tc.doc), "v.json")
		}
		if err != nil {
			t.Errorf("%s: parse: %v", tc.name, err)
			continue
		}
		errs, warns := w.Validate(tc.opts)
		fs := warns
		if tc.want.err {
			fs = errs
		}
		if !hasFinding(fs, tc.want.job, tc.want.prof, tc.want.msg) {
			t.Errorf("%s: no finding %+v in errs %v warns %v", tc.name, tc.want, errs, warns)
		}
		if !tc.want.err && len(errs) > 0 {
			t.Errorf("%s: unexpected errors %v", tc.name, errs)
		}
	}
}

func TestFindingString(t *testing.T) {
	f := Finding{Severity: Error, File: "x.json", Job: "7", Msg: "negative subtime (-1)"}
	if got := f.String(); got != "error: x.json: job '7': negative subtime (-1)" {
		t.Errorf("got %q", got)
	}
	f = Finding{Severity: Warning, File: "x.json", Profile: "p", Msg: "m"}
	if got := f.String(); got != "warning: x.json: profile 'p': m" {
		t.Errorf("got %q", got)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	for _, f := range []string{"users_fields", "hetero4_delays"} {
		w := mustLoad(t, corpus.Path(f, "workload.json"))
		out, err := w.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		w2, err := Parse(out, "again")
		if err != nil {
			t.Fatalf("%s: rewritten file does not parse: %v\n%s", f, err, out)
		}
		out2, _ := w2.Bytes()
		if !bytes.Equal(out, out2) {
			t.Errorf("%s: Write is not stable", f)
		}
		if len(w2.Jobs) != len(w.Jobs) || strings.Join(w2.ProfileOrder, ",") != strings.Join(w.ProfileOrder, ",") {
			t.Errorf("%s: jobs/profiles changed", f)
		}
		for i := range w.Jobs {
			a, _ := ForwardedJob(w.Jobs[i].Raw, "w0!x")
			b, _ := ForwardedJob(w2.Jobs[i].Raw, "w0!x")
			if !bytes.Equal(a, b) {
				t.Errorf("%s: job %s forwarded differently after rewrite", f, w.Jobs[i].ID)
			}
		}
		if n := bytes.Count(out, []byte("\n")); n != len(w.Jobs)+len(w.Profiles)+len(w.Extra)+7 {
			t.Errorf("%s: not one job/profile per line (%d lines)", f, n)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	w := mustLoad(t, corpus.Path("kill_resubmit", "workload.json"))
	p := dir + "/out.json"
	if err := w.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if err := w.WriteFile(dir + "/missing/out.json"); err == nil {
		t.Error("writing into a missing directory must fail")
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"users_fields", "hetero4_delays", "hetero8_compute", "kill_resubmit"} {
		f.Add(corpus.ReadFile(f, name, "workload.json"))
	}
	f.Add([]byte(`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"c"}],"profiles":{"c":{"type":"composed","seq":["c"]}}}`))
	f.Add([]byte(`"\ud800"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error { return checkParse(data) })
	})
}

// checkParse is FuzzParse's check of one input: the fast reader, where it
// reads it, reads what the general reader reads; a workload Parse accepts
// validates without panicking and, written back, parses again.
func checkParse(data []byte) error {
	if err := sameAsTree(data); err != nil {
		return err
	}
	w, err := Parse(data, "fuzz")
	if err != nil {
		return nil
	}
	w.Validate(ValidateOptions{PlatformHosts: 3})
	for _, j := range w.Jobs {
		if err := sameSpelling(j.Raw, "w0!"+j.ID); err != nil {
			return err
		}
		ForwardedJob(j.Raw, "w0!"+j.ID)
		w.RefRuntime(j.Profile, j.Res, 1e9)
	}
	out, err := w.Bytes()
	if err != nil {
		return nil
	}
	if _, err := Parse(out, "again"); err != nil {
		return fmt.Errorf("rewritten workload does not parse: %v\n%s", err, out)
	}
	return nil
}

// FuzzFromSWF: the SWF converter never panics nor stalls, and a workload
// it produces is one Batsim reads without error, also once written out.
func FuzzFromSWF(f *testing.F) {
	data, err := os.ReadFile("testdata/small.swf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, 1, false)
	f.Add(data, 4, true)
	f.Add([]byte("; MaxProcs: 9223372036854775807\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"), 2, false)
	f.Add([]byte("1 0 0 10 1e300 -1 -1 1e300 1e300 -1 1 7 1 -1 1 -1 -1 -1\n"), 1, false)
	f.Fuzz(func(t *testing.T, data []byte, ppn int, keepCancelled bool) {
		fuzzguard.Run(t, func() error { return checkFromSWF(data, ppn, keepCancelled) })
	})
}

func checkFromSWF(data []byte, ppn int, keepCancelled bool) error {
	w, st, err := FromSWFBytes(data, SWFOptions{PPN: ppn, KeepCancelled: keepCancelled, Source: "fuzz.swf"})
	if err != nil {
		return nil
	}
	if st.Kept != len(w.Jobs) {
		return fmt.Errorf("kept %d, %d jobs", st.Kept, len(w.Jobs))
	}
	if errs, _ := w.Validate(ValidateOptions{}); len(errs) > 0 {
		return fmt.Errorf("converted workload is invalid: %v", errs)
	}
	out, err := w.Bytes()
	if err != nil {
		return fmt.Errorf("converted workload cannot be written: %v", err)
	}
	again, err := Parse(out, "again")
	if err != nil {
		return fmt.Errorf("converted workload does not parse: %v\n%s", err, out)
	}
	if errs, _ := again.Validate(ValidateOptions{}); len(errs) > 0 {
		return fmt.Errorf("converted workload, written and read back, is invalid: %v\n%s", errs, out)
	}
	return nil
}

// Values out of Batsim's range in an SWF trace (found with FuzzFromSWF): a
// line with 1e300 processors or times, or a header count beyond the int
// range, used to give a negative res, numbers Batsim cannot print, or an
// nb_res that does not parse back. Such lines are malformed and such
// header counts ignored; the converted workload is valid.
func TestFromSWFOutOfRange(t *testing.T) {
	line := func(f ...string) string {
		base := strings.Fields("1 0 0 10 1 -1 -1 1 20 -1 1 7 1 -1 1 -1 -1 -1")
		for i := 0; i+1 < len(f); i += 2 {
			var k int
			fmt.Sscan(f[i], &k)
			base[k] = f[i+1]
		}
		return strings.Join(base, " ") + "\n"
	}
	cases := []struct {
		name, swf      string
		ppn            int
		kept, malformd int
		nbRes          int
	}{
		{"huge procs", line("7", "1e300") + line("0", "2"), 1, 1, 1, 1},
		{"procs above int32 nodes", line("7", "4294967296") + line("0", "2"), 1, 1, 1, 1},
		{"procs fitting once divided", line("7", "4294967296"), 4, 1, 0, 1 << 30},
		{"huge run time", line("3", "1e300") + line("0", "2"), 1, 1, 1, 1},
		{"huge requested time", line("8", "1e20") + line("0", "2"), 1, 1, 1, 1},
		{"huge submit time", line("1", "1e300") + line("0", "2"), 1, 1, 1, 1},
		{"huge header counts", "; MaxProcs: 9223372036854775807\n; MaxNodes: 3000000000\n" + line(), 2, 1, 0, 1},
		{"header counts", "; MaxProcs: 9\n; MaxNodes: 3\n" + line(), 2, 1, 0, 5},
		// Found by FuzzFromSWF: a job number used twice gave duplicate ids.
		{"job number twice", line() + line("3", "99"), 1, 1, 1, 1},
		{"job number of a dropped line", line("10", "5") + line(), 1, 1, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, st, err := FromSWFBytes([]byte(c.swf), SWFOptions{PPN: c.ppn})
			if err != nil {
				t.Fatal(err)
			}
			if st.Kept != c.kept || st.Malformed != c.malformd || w.NbRes != c.nbRes {
				t.Fatalf("kept %d, malformed %d, nb_res %d; want %d, %d, %d", st.Kept, st.Malformed, w.NbRes, c.kept, c.malformd, c.nbRes)
			}
			if err := checkFromSWF([]byte(c.swf), c.ppn, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}
