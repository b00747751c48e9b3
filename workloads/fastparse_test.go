package workloads

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// sameAsTree checks the fast reader against the general one on data: when
// the fast reader reads it, the general reader must read the same
// workload, without any warning.
func sameAsTree(data []byte) error {
	fast := parseFast(data, "doc")
	if fast == nil {
		return nil
	}
	tree, err := parseTree(data, "doc")
	if err != nil {
		return fmt.Errorf("the fast reader accepts a document the general reader refuses (%v)", err)
	}
	if len(tree.parseWarnings) > 0 {
		return fmt.Errorf("the fast reader accepts a document with warnings: %v", tree.parseWarnings)
	}
	if !reflect.DeepEqual(fast, tree) {
		return fmt.Errorf("readers differ:\nfast %+v\ntree %+v", fast, tree)
	}
	return nil
}

// fastSeeds are documents the fast reader must read itself.
func fastSeeds(t *testing.T) map[string][]byte {
	docs := map[string][]byte{}
	for _, c := range corpus.Cases(t) {
		if b, err := os.ReadFile(corpus.Path(c, "workload.json")); err == nil {
			docs["corpus/"+c] = b
		}
	}
	files, _ := filepath.Glob("*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = b
	}
	lille, err := GenerateLille(LilleOptions{Jobs: 300, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if docs["lille-300"], err = lille.Bytes(); err != nil {
		t.Fatal(err)
	}
	docs["every-type"] = []byte(`{"nb_res": 4, "meta": {"a": [1, 2.5e3, "x\u00e9"]},
	  "jobs": [
	    {"id": "a", "subtime": 0, "res": 2, "profile": "par", "walltime": 12.5, "user": {"name": "b\n"}},
	    {"id": 7, "subtime": 1.000000000000000001, "res": 1, "profile": "seq\\1"},
	    {"profile": "h", "res": 3, "subtime": 2e1, "id": "\u0063"},
	    {"id": -3, "subtime": 2, "res": 0, "profile": "ht", "walltime": -1, "x": [[], {}, null, true, false]}
	  ],
	  "profiles": {
	    "par": {"cpu": [1e9, 2], "com": [0, 1, 1, 0], "type": "parallel", "type": "delay"},
	    "seq\\1": {"type": "composed", "repeat": 2, "seq": ["d", "h"], "ret": -1},
	    "d": {"type": "delay", "delay": 3, "delay": "x"},
	    "h": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0},
	    "ht": {"type": "parallel_homogeneous_total", "cpu": 0, "com": 1e6, "ret": 2},
	    "e": {"type": "composed", "seq": []},
	    "p0": {"type": "parallel", "cpu": [], "com": []}
	  }}`)
	return docs
}

func TestFastReaderMatchesGeneralReader(t *testing.T) {
	for name, doc := range fastSeeds(t) {
		if parseFast(doc, "doc") == nil {
			t.Errorf("%s: the fast reader gives up on it", name)
		}
		if err := sameAsTree(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Mutated documents: wherever the fast reader reads one, it reads what the
// general reader reads.
func TestFastReaderMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`{}[]",:0123456789.eE-+ \nabtrufls\/"idx`)
	keys := []string{`"id"`, `"res"`, `"subtime"`, `"walltime"`, `"profile"`, `"type"`, `"cpu"`, `"com"`, `"seq"`, `"repeat"`, `"ret"`, `"delay"`, `"nb_res"`, `"jobs"`, `"profiles"`, `"\u0069d"`, `1e400`, `-0`, `2147483648`, `"composed"`, `"delay"`}
	n, read := 0, 0
	for name, doc := range fastSeeds(t) {
		if len(doc) > 20000 {
			continue
		}
		for i := 0; i < 400; i++ {
			m := append([]byte(nil), doc...)
			for k := 0; k < 1+r.IntN(3); k++ {
				p := r.IntN(len(m) + 1)
				switch r.IntN(4) {
				case 0:
					m = append(m[:p], append([]byte{alphabet[r.IntN(len(alphabet))]}, m[p:]...)...)
				case 1:
					if p < len(m) {
						m = append(m[:p], m[p+1:]...)
					}
				case 2:
					if p < len(m) {
						m[p] = alphabet[r.IntN(len(alphabet))]
					}
				default:
					m = append(m[:p], append([]byte(keys[r.IntN(len(keys))]), m[p:]...)...)
				}
			}
			n++
			if parseFast(m, "doc") != nil {
				read++
			}
			if err := sameAsTree(m); err != nil {
				t.Fatalf("%s mutated: %v\n%s", name, err, m)
			}
		}
	}
	t.Logf("%d mutated documents, %d read by the fast reader", n, read)
}

func BenchmarkParseLille(b *testing.B) {
	w, err := GenerateLille(LilleOptions{Jobs: 20000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	doc, err := w.Bytes()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(doc, "lille"); err != nil {
			b.Fatal(err)
		}
	}
}

// sameSpelling checks the fast writers against the general ones on one
// value: BatsimJSON against the tree's, JobIDRewrite against Batsim's
// expression.
func sameSpelling(raw []byte, fullID string) error {
	want, werr := batsimJSONTree(raw)
	got, ok := appendBatsimFast(nil, raw)
	if ok && (werr != nil || string(got) != string(want)) {
		return fmt.Errorf("BatsimJSON of %q: fast %q, tree %q (%v)", raw, got, want, werr)
	}
	if werr != nil {
		if _, err := BatsimJSON(raw); err == nil || err.Error() != werr.Error() {
			return fmt.Errorf("BatsimJSON of %q: error %v, want %v", raw, err, werr)
		}
		return nil
	}
	for _, c := range [][]byte{want, raw} {
		if got, exp := JobIDRewrite(c, fullID), jobIDRewriteRE(c, fullID); string(got) != string(exp) {
			return fmt.Errorf("JobIDRewrite of %q: %q, expression %q", c, got, exp)
		}
	}
	return nil
}

func TestFastSpelling(t *testing.T) {
	vals := []string{`{"id": "a(b", "x": {"id" : 1}, "y": "\"id\": 2"}`, `{"a":"x\"id":3}`, `{"id":"a}b"}`, `[1, -0, 2.50, 1e3, 12345678901234567890, -9223372036854775809, "\u001f\/é"]`,
		`{"id":1,"ids":"id\":9","id" :"x" ,"k":[]}`, `{"id"	:	12	}`, `{"id":}`, `"id"`, `{"id":1|2}`}
	r := rand.New(rand.NewPCG(3, 4))
	n := 0
	for _, doc := range fastSeeds(t) {
		w, err := parseTree(doc, "doc")
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range w.Jobs {
			if i < 500 {
				vals = append(vals, string(j.Raw))
			}
		}
		for i, name := range w.ProfileOrder {
			if i < 500 {
				vals = append(vals, string(w.Profiles[name].Raw))
			}
		}
	}
	alphabet := []byte(`{}[]",:0123456789.eE-+ \nid()|\/u"`)
	for _, v := range vals {
		for k := 0; k < 20; k++ {
			m := []byte(v)
			if k > 0 {
				p := r.IntN(len(m) + 1)
				m = append(m[:p], append([]byte{alphabet[r.IntN(len(alphabet))]}, m[p:]...)...)
			}
			n++
			if err := sameSpelling(m, "w0!x"); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d values", n)
}

// recorder is a Visitor that writes down every call it receives; its
// Job returns false at the stopJob-th job, its Profile at the stopProf-th
// profile (0: never).
type recorder struct {
	calls             []string
	jobs, profs       int
	stopJob, stopProf int
}

func (r *recorder) NbRes(n int) { r.calls = append(r.calls, fmt.Sprint("nb_res ", n)) }
func (r *recorder) Extra(k string, v []byte) {
	r.calls = append(r.calls, fmt.Sprintf("extra %s %s", k, v))
}
func (r *recorder) Job(j *Job) bool {
	r.calls = append(r.calls, fmt.Sprintf("job %q %v %v %d %v %q %s", j.ID, j.IDIsInt, j.Subtime, j.Res, j.Walltime, j.Profile, j.Raw))
	r.jobs++
	return r.jobs != r.stopJob
}
func (r *recorder) Profile(p *Profile) bool {
	r.calls = append(r.calls, fmt.Sprintf("profile %+v", *p))
	r.profs++
	return r.profs != r.stopProf
}

// sameSplit checks that ScanSplit hands out exactly Scan's calls (the
// profiles to their own visitor) and returns Scan's result, with visitors
// stopping at the stopJob-th job and the stopProf-th profile.
func sameSplit(doc []byte, stopJob, stopProf int) error {
	one := &recorder{stopJob: stopJob, stopProf: stopProf}
	want := Scan(doc, one)
	var jobs, profs []string
	for _, c := range one.calls {
		if strings.HasPrefix(c, "profile ") {
			profs = append(profs, c)
		} else {
			jobs = append(jobs, c)
		}
	}
	main := &recorder{stopJob: stopJob, stopProf: stopProf}
	got, pv := ScanSplit(doc, main, func() Visitor { return &recorder{stopJob: stopJob, stopProf: stopProf} })
	if got != want {
		return fmt.Errorf("ScanSplit %v, Scan %v", got, want)
	}
	if !want {
		return nil
	}
	if fmt.Sprint(main.calls) != fmt.Sprint(jobs) {
		return fmt.Errorf("calls other than profiles differ:\nsplit %q\nscan  %q", main.calls, jobs)
	}
	r, _ := pv.(*recorder)
	if r == nil || fmt.Sprint(r.calls) != fmt.Sprint(profs) {
		return fmt.Errorf("profiles differ: split %v, scan %q", pv, profs)
	}
	return nil
}

// ScanSplit against Scan: on every seed, with the visitors stopping at
// each call in turn, with a "profiles" key planted elsewhere (where the
// early reading starts at the wrong place), and on mutated documents.
func TestScanSplitMatchesScan(t *testing.T) {
	docs := fastSeeds(t)
	docs["profiles-first"] = []byte(`{"profiles": {"d": {"type": "delay", "delay": 3}}, "nb_res": 2,
	  "jobs": [{"id": "a", "subtime": 0, "res": 1, "profile": "d", "x": {"profiles": {"e": {"type": "delay", "delay": 1}}}}]}`)
	docs["planted-after"] = []byte(`{"nb_res": 2, "jobs": [{"id": "a", "subtime": 0, "res": 1, "profile": "d"}],
	  "profiles": {"d": {"type": "delay", "delay": 3}}, "meta": {"profiles": {"e": {"type": "delay", "delay": 1}}}}`)
	docs["planted-bad"] = []byte(`{"nb_res": 2, "jobs": [{"id": "a", "subtime": 0, "res": 1, "profile": "d"}],
	  "profiles": {"d": {"type": "delay", "delay": 3}}, "meta": ["profiles": 3]}`)
	docs["no-profiles"] = []byte(`{"nb_res": 2, "jobs": []}`)
	docs["twice"] = []byte(`{"nb_res": 2, "jobs": [], "profiles": {}, "profiles": {"d": {"type": "delay", "delay": 3}}}`)
	r := rand.New(rand.NewPCG(5, 6))
	for name, doc := range docs {
		if len(doc) > 100000 {
			if err := sameSplit(doc, 0, 0); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		for stop := 0; stop < 8; stop++ {
			if err := sameSplit(doc, stop, 0); err != nil {
				t.Fatalf("%s, stopping at job %d: %v", name, stop, err)
			}
			if err := sameSplit(doc, 0, stop); err != nil {
				t.Fatalf("%s, stopping at profile %d: %v", name, stop, err)
			}
		}
		if len(doc) > 20000 {
			continue
		}
		for i := 0; i < 100; i++ {
			m := append([]byte(nil), doc...)
			p := r.IntN(len(m) + 1)
			switch r.IntN(3) {
			case 0:
				m = append(m[:p], append([]byte(`"profiles": {}, `), m[p:]...)...)
			case 1:
				if p < len(m) {
					m = append(m[:p], m[p+1:]...)
				}
			default:
				m = append(m[:p], append([]byte(`"profiles"`), m[p:]...)...)
			}
			if err := sameSplit(m, 0, 0); err != nil {
				t.Fatalf("%s mutated: %v\n%s", name, err, m)
			}
		}
	}
}
