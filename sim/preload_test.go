package sim

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/workloads"
)

// preloadDocs are workload documents Preload must read.
func preloadDocs(t *testing.T) map[string][]byte {
	docs := map[string][]byte{}
	for _, c := range corpus.Cases(t) {
		if b, err := os.ReadFile(corpus.Path(c, "workload.json")); err == nil {
			docs["corpus/"+c] = b
		}
	}
	files, _ := filepath.Glob("../workloads/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = b
	}
	for i, o := range []genOpts{{jobs: 300, maxRes: 8, meanGap: 3, walltime: true, mixed: true}, {jobs: 200, maxRes: 4, meanGap: 0.5}} {
		b, err := genWorkload(t, uint64(i+1), o).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		docs[fmt.Sprintf("generated-%d", i)] = b
	}
	once, err := workloads.GenerateLille(workloads.LilleOptions{Jobs: 500, Seed: 2, AtOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	if docs["lille-at-once"], err = once.Bytes(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// engineView is what the engine holds of its static workloads.
func engineView(e *engine) string {
	var b []byte
	for _, wl := range e.wlOrder {
		b = fmt.Appendf(b, "workload %s %s\n", wl.name, wl.path)
		for _, j := range wl.static {
			b = fmt.Appendf(b, "job %q %s %v %d %v %s %s %d %q\n", j.id, j.wl.name, j.subtime, j.res, j.walltime, j.prof.name, j.state, j.ret, j.desc)
			if e.jobs[j.id] != j {
				b = fmt.Appendf(b, "not indexed\n")
			}
		}
		for _, p := range wl.begins {
			b = fmt.Appendf(b, "begins %s\n", p.name)
		}
		for _, name := range slices.Sorted(maps.Keys(wl.profiles)) {
			p := wl.profiles[name]
			var seq []string
			for _, s := range p.seq() {
				seq = append(seq, s.name)
			}
			b = fmt.Appendf(b, "profile %s=%s %s %v %v %v %d %d %v %v %v %q\n", name, p.name, p.typ, p.delay, p.cpu, p.com, p.repeat, p.ret, p.cpus(), p.comMat(), seq, p.batsim)
		}
	}
	b = fmt.Appendf(b, "%d jobs indexed, %d static\n", len(e.jobs), e.staticJobs)
	return string(b)
}

// samePreload reads doc both ways: Preload reads it exactly when
// workloads.LoadChecked accepts it and Parse reads it with its fast
// reader, and the engine then holds the same.
func samePreload(t *testing.T, name string, doc []byte) (preloaded bool) {
	t.Helper()
	plat := genPlatform(8, []float64{1e9})
	pre := preload(doc, "/doc.json", "w0")
	w, err := workloads.Parse(doc, "/doc.json")
	var errs []workloads.Finding
	if err == nil {
		errs, _ = w.Validate(workloads.ValidateOptions{WorkloadName: "w0"})
	}
	fast := workloads.Scan(doc, nopVisitor{})
	switch {
	case pre != nil && (err != nil || len(errs) > 0):
		t.Fatalf("%s: preloaded, but the workload checks fail: %v %v", name, err, errs)
	case pre == nil && err == nil && len(errs) == 0 && fast:
		// Then the engine refuses it too (a profile Batsim cannot
		// forward).
		if _, err := newEngine(context.Background(), Config{Platform: plat, Workloads: []*workloads.Workload{w}}, nil); err == nil {
			t.Fatalf("%s: a valid workload the fast reader reads is not preloaded:\n%s", name, doc)
		}
		return false
	case pre == nil:
		return false
	}
	ctx := context.Background()
	// Dynamic jobs keep the profiles by name in the engine: compared too.
	a, err := newEngine(ctx, Config{Platform: plat, Workloads: []*workloads.Workload{w}, DynamicJobs: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newEngine(ctx, Config{Platform: plat, Preloaded: []*Preloaded{pre}, DynamicJobs: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if va, vb := engineView(a), engineView(b); va != vb {
		la, lb := strings.Split(va, "\n"), strings.Split(vb, "\n")
		for i := range min(len(la), len(lb)) {
			if la[i] != lb[i] {
				t.Fatalf("%s: from the workload, the engine holds\n%s\npreloaded\n%s", name, la[i], lb[i])
			}
		}
		t.Fatalf("%s: from the workload, the engine holds %d lines, preloaded %d", name, len(la), len(lb))
	}
	if !reflect.DeepEqual(a.simulationBegins(), b.simulationBegins()) {
		t.Fatalf("%s: SIMULATION_BEGINS differ", name)
	}
	return true
}

type nopVisitor struct{}

func (nopVisitor) NbRes(int)                       {}
func (nopVisitor) Extra(string, []byte)            {}
func (nopVisitor) Job(*workloads.Job) bool         { return true }
func (nopVisitor) Profile(*workloads.Profile) bool { return true }

func TestPreloadMatchesWorkload(t *testing.T) {
	for name, doc := range preloadDocs(t) {
		if !samePreload(t, name, doc) {
			t.Errorf("%s: not preloaded", name)
		}
	}
}

// Invalid and mutated documents: preloaded exactly when the workload
// checks accept them (and the fast reader reads them), the same then.
func TestPreloadMutations(t *testing.T) {
	bad := []string{
		`{"nb_res":0,"jobs":[],"profiles":{}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"x"}],"profiles":{}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":-1,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"d","walltime":0}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":-1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a!b","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"d"},{"id":"a","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":0}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":2,"profile":"p"}],"profiles":{"p":{"type":"parallel","cpu":[1],"com":[0]}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"c"}],"profiles":{"c":{"type":"composed","seq":["c"]}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"c"}],"profiles":{"c":{"type":"composed","seq":["x"]}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"c"}],"profiles":{"c":{"type":"composed","repeat":0,"seq":["d"]},"d":{"type":"delay","delay":1}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"h"}],"profiles":{"h":{"type":"parallel_homogeneous","cpu":-1,"com":0}}}`,
		`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"d","x":1e30}],"profiles":{"d":{"type":"delay","delay":1}}}`,
	}
	for i, doc := range bad {
		if samePreload(t, fmt.Sprintf("bad %d", i), []byte(doc)) {
			t.Errorf("bad %d: preloaded", i)
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte(`{}[]",:0123456789.-e `)
	words := []string{`"id"`, `"res"`, `"subtime"`, `"walltime"`, `"profile"`, `"delay"`, `"seq"`, `"repeat"`, `-1`, `0`, `"w0!`, `!`, `1e30`}
	n, read := 0, 0
	docs := preloadDocs(t)
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		doc := docs[name]
		if len(doc) > 20000 {
			continue
		}
		for k := 0; k < 100; k++ {
			m := append([]byte(nil), doc...)
			p := r.IntN(len(m))
			if r.IntN(2) == 0 {
				m = append(m[:p], append([]byte{alphabet[r.IntN(len(alphabet))]}, m[p+1:]...)...)
			} else {
				m = append(m[:p], append([]byte(words[r.IntN(len(words))]), m[p:]...)...)
			}
			n++
			if samePreload(t, name+" mutated", m) {
				read++
			}
		}
	}
	t.Logf("%d mutated documents, %d preloaded", n, read)
}
