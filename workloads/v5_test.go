package workloads

import (
	"errors"
	"strings"
	"testing"
)

const v4Doc = `{"nb_res":4,"meta":{"seed":1},"jobs":[
 {"id":1,"subtime":0,"res":2,"profile":"d","walltime":100,"user":"u1","score":0.5},
 {"id":"b","subtime":1.5,"res":1,"profile":"seq","walltime":-1},
 {"id":"c","subtime":2,"res":2,"profile":"par","extra_data":{"tag":"x"},"user":"u2"},
 {"id":"d","subtime":3,"res":4,"profile":"pht"}],
 "profiles":{"d":{"type":"delay","delay":10},"ph":{"type":"parallel_homogeneous","cpu":1e9,"com":0,"note":"n"},
  "pht":{"type":"parallel_homogeneous_total","cpu":4e9,"com":1e6},"par":{"type":"parallel","cpu":[1,2],"com":[0,1,1,0]},
  "seq":{"type":"composed","repeat":2,"seq":["d","ph"]}}}`

func TestToV5AndBack(t *testing.T) {
	w, err := Parse([]byte(v4Doc), "w.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := w.ToV5()
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "nb_res": 4,
  "meta": {"seed":1},
  "jobs": [
    {"id":1,"subtime":0,"res":2,"profile":"d","walltime":100,"extra_data":{"user":"u1","score":0.5}},
    {"id":"b","subtime":1.5,"res":1,"profile":"seq"},
    {"id":"c","subtime":2,"res":2,"profile":"par","extra_data":{"user":"u2","tag":"x"}},
    {"id":"d","subtime":3,"res":4,"profile":"pht"}
  ],
  "profiles": {
    "d": {"type":"DelayProfile","delay":10},
    "ph": {"type":"ParallelTaskHomogeneousProfile","cpu":1e9,"com":0,"generation_strategy":"DefinedAmountsUsedForEachValue","extra_data":{"note":"n"}},
    "pht": {"type":"ParallelTaskHomogeneousProfile","cpu":4e9,"com":1e6,"generation_strategy":"DefinedAmountsSpreadUniformly"},
    "par": {"type":"ParallelTaskProfile","cpu":[1,2],"com":[0,1,1,0]},
    "seq": {"type":"SequentialCompositionProfile","repeat":2,"seq":["d","ph"]}
  }
}
`
	if string(b) != want {
		t.Fatalf("to v5:\n%s\nwant\n%s", b, want)
	}
	if !IsV5(b) || IsV5([]byte(v4Doc)) {
		t.Fatal("IsV5 does not tell the formats apart")
	}
	back, err := Parse(b, "w5.json")
	if err != nil {
		t.Fatal(err)
	}
	if !back.V5 || len(back.Jobs) != 4 {
		t.Fatalf("read back: v5=%v, %d jobs", back.V5, len(back.Jobs))
	}
	for i, j := range back.Jobs {
		o := w.Jobs[i]
		if j.ID != o.ID || j.Res != o.Res || j.Subtime != o.Subtime || j.Profile != o.Profile || (j.Walltime > 0) != (o.Walltime > 0) {
			t.Errorf("job %d: %+v, want %+v", i, j, o)
		}
	}
	if got := string(back.Jobs[0].Raw); got != `{"id":1,"subtime":0,"res":2,"profile":"d","walltime":100,"user":"u1","score":0.5}` {
		t.Errorf("job fields back: %s", got)
	}
	for name, p := range w.Profiles {
		q := back.Profiles[name]
		if q.Type != p.Type || q.CPU != p.CPU || q.Com != p.Com || q.Delay != p.Delay || q.Repeat != p.Repeat || len(q.CPUs) != len(p.CPUs) {
			t.Errorf("profile %s: %+v, want %+v", name, q, p)
		}
	}
	if _, err := back.ToV5(); err != nil {
		t.Errorf("converting the read-back workload again: %v", err)
	}
}

func TestToV5Refusals(t *testing.T) {
	doc := `{"nb_res":2,"jobs":[
	  {"id":1,"subtime":0,"res":1,"profile":"r"},
	  {"id":2,"subtime":0,"res":1,"profile":"z","user":"u","extra_data":"text"},
	  {"id":3,"subtime":0,"res":1,"profile":"z","user":"u","extra_data":{"user":"v"}}],
	 "profiles":{"r":{"type":"delay","delay":1,"ret":3},"z":{"type":"delay","delay":0}}}`
	w, err := Parse([]byte(doc), "bad.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.ToV5()
	var ce *ConversionError
	if !errors.As(err, &ce) || len(ce.Problems) != 4 {
		t.Fatalf("want 4 problems, got %v", err)
	}
	for _, want := range []string{"profile 'r'", "'ret'", "profile 'z'", "strictly positive delay", "job '2'", "not an object", "job '3'", `"user"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestFromV5Refusals(t *testing.T) {
	doc := `{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"fj"}],
	 "profiles":{"fj":{"type":"ForkJoinCompositionProfile","seq":["a"]},"h":{"type":"ParallelTaskHomogeneousProfile","cpu":1,"com":0,"generation_strategy":"Other"}}}`
	_, err := Parse([]byte(doc), "v5.json")
	if err == nil || !strings.Contains(err.Error(), "profile 'fj'") || !strings.Contains(err.Error(), "profile 'h'") {
		t.Fatalf("want both profiles named, got %v", err)
	}
}

// Every bundled workload converts, and reads back as the same jobs.
func TestBundledToV5(t *testing.T) {
	for _, f := range []string{"tiny.json", "osep-small-user1.json", "osep-large-user4.json", "lille-7056-bucma.json"} {
		w, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.ToV5()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		b, err := v.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b, f)
		if err != nil {
			t.Fatalf("%s: read back: %v", f, err)
		}
		if errs, _ := back.Validate(ValidateOptions{}); len(errs) > 0 || len(back.Jobs) != len(w.Jobs) {
			t.Fatalf("%s: read back: %d jobs, %v", f, len(back.Jobs), errs)
		}
	}
}
