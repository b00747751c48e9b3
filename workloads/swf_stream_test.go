package workloads

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// swfGoldens are testdata/swfgolden's conversions of trace.swf (a Lublin
// trace with cancelled, zero-run-time, processor-less, malformed and
// repeated lines, CRLF and padded lines, a late header comment and a job
// submitted before the first), made by the converter that held every job
// in memory: the conversion read twice and written as it goes must give
// them byte for byte.
var swfGoldens = []struct {
	file string
	o    SWFOptions
}{
	{"default.json", SWFOptions{}},
	{"ppn4-cancelled.json", SWFOptions{PPN: 4, KeepCancelled: true}},
	{"window.json", SWFOptions{From: 38729, To: 50876}},
}

func TestSWFStreamedGoldens(t *testing.T) {
	trace, err := os.ReadFile(filepath.Join("testdata", "swfgolden", "trace.swf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range swfGoldens {
		t.Run(g.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "swfgolden", g.file))
			if err != nil {
				t.Fatal(err)
			}
			g.o.Source = "trace.swf"
			s, err := ScanSWF(bytes.NewReader(trace), g.o)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := s.Write(bytes.NewReader(trace), &got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("streamed conversion differs from the golden: %s", firstByteDiff(want, got.Bytes()))
			}
			w, _, err := FromSWFBytes(trace, g.o)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := w.Bytes(); err != nil || !bytes.Equal(b, want) {
				t.Fatalf("FromSWF differs from the golden (%v): %s", err, firstByteDiff(want, b))
			}
		})
	}
}

// firstByteDiff shows where got first departs from want.
func firstByteDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf("byte %d: want %q, got %q", i, want[from:min(len(want), i+40)], got[from:min(len(got), i+40)])
}

// swfTrace is an SWF trace of n jobs numbered 1..n generated as it is
// read, with 100 distinct run times.
type swfTrace struct {
	n, next int
	buf     []byte
}

func (r *swfTrace) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.next == r.n {
			return 0, io.EOF
		}
		r.next++
		r.buf = fmt.Appendf(r.buf[:0], "%d %d -1 %d 4 -1 -1 4 7200 -1 1 %d -1 -1 -1 -1 -1 -1\n", r.next, r.next*10, 60+r.next%100, r.next%7)
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// The first pass holds what the head of the output needs, not the jobs: a
// trace of 300 000 jobs leaves less than a megabyte behind it (the whole
// workload in memory took about 890 bytes a job), and the second pass
// writes every job.
func TestSWFScanHoldsNoJobs(t *testing.T) {
	const n = 300000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := ScanSWF(&swfTrace{n: n}, SWFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the scan of %d jobs holds %d bytes", n, held)
	if held > 1<<20 {
		t.Errorf("the scan of %d jobs holds %d bytes", n, held)
	}
	var out bytes.Buffer
	if err := s.Write(&swfTrace{n: n}, &out); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Kept != n || bytes.Count(out.Bytes(), []byte(`"profile":"d`)) != n {
		t.Fatalf("%s; %d jobs written", st, bytes.Count(out.Bytes(), []byte(`"profile":"d`)))
	}
	runtime.KeepAlive(s)
}

// A trace that changes between the two readings (a file rewritten while
// converted) is an error, not a workload whose head and jobs disagree.
func TestSWFStreamTraceChanged(t *testing.T) {
	first := "1 0 -1 10 1 -1 -1 1 20 -1 1 3 -1 -1 -1 -1 -1 -1\n2 5 -1 10 1 -1 -1 1 20 -1 1 3 -1 -1 -1 -1 -1 -1\n"
	s, err := ScanSWF(strings.NewReader(first), SWFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, second := range []string{
		first + "3 9 -1 10 1 -1 -1 1 20 -1 1 3 -1 -1 -1 -1 -1 -1\n", // a job more
		strings.Replace(first, "1 3 -1", "5 3 -1", 1),               // a job cancelled since
	} {
		err := s.Write(strings.NewReader(second), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "the trace changed between its two readings") {
			t.Errorf("got %v", err)
		}
	}
}

// The set of job numbers: each number once, negative ones and the ends of
// the range too.
func TestIDSet(t *testing.T) {
	var s idSet
	ids := []int64{0, 1, 63, 64, -1, -64, -65, 1<<31 - 1, -(1<<31 - 1), 12345}
	for _, id := range ids {
		if !s.add(id) {
			t.Fatalf("%d: not new", id)
		}
	}
	for _, id := range ids {
		if s.add(id) {
			t.Fatalf("%d: new twice", id)
		}
	}
	if s.add(2) != true || s.add(-2) != true {
		t.Fatal("neighbours taken")
	}
}

// Compute profiles: run time × the reference speed flops on each host, named
// c<run time>, recorded in meta; bad speeds and types are refused.
func TestSWFComputeProfiles(t *testing.T) {
	trace := "; MaxNodes: 4\n1 0 -1 10 1 -1 -1 2 20 -1 1 3 -1 -1 -1 -1 -1 -1\n2 5 -1 2.5 1 -1 -1 1 20 -1 1 3 -1 -1 -1 -1 -1 -1\n3 6 -1 10 1 -1 -1 1 20 -1 1 3 -1 -1 -1 -1 -1 -1\n"
	w, _, err := FromSWFBytes([]byte(trace), SWFOptions{Profiles: RuntimeProfiles{Type: ProfileTypeCompute, Speed: 2e9}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"c10": {"type":"parallel_homogeneous","cpu":20000000000,"com":0}`,
		`"c2.5": {"type":"parallel_homogeneous","cpu":5000000000,"com":0}`,
		`"profile_type":"compute","reference_speed":2000000000`,
		`{"id":3,"subtime":6,"res":1,"walltime":20,"profile":"c10","user":"3"}`,
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("no %s in\n%s", want, b)
		}
	}
	if _, err := Parse(b, "compute.json"); err != nil {
		t.Fatalf("the workload does not load: %v", err)
	}
	for _, c := range []struct {
		r    RuntimeProfiles
		want string
	}{
		{RuntimeProfiles{Type: ProfileTypeCompute}, "reference host's speed"},
		{RuntimeProfiles{Type: ProfileTypeCompute, Speed: -1}, "got -1"},
		{RuntimeProfiles{Type: ProfileTypeCompute, Speed: 1e300}, "got 1e+300"},
		{RuntimeProfiles{Type: "smp"}, `profile type "smp"`},
	} {
		if _, _, err := FromSWFBytes([]byte(trace), SWFOptions{Profiles: c.r}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.r, err, c.want)
		}
		if _, err := GenerateLublin(LublinOptions{Jobs: 5, Profiles: c.r}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("lublin %+v: got %v, want %q", c.r, err, c.want)
		}
	}
}

// Lublin's compute workload: the jobs of the delay one, with c<run time>
// profiles of run time × speed flops; the delay one is unchanged by the
// option's existence (its meta records no profile type).
func TestLublinComputeProfiles(t *testing.T) {
	gen := func(r RuntimeProfiles) *Workload {
		tr, err := GenerateLublin(LublinOptions{Jobs: 50, Seed: 3, Hosts: 8, Profiles: r})
		if err != nil {
			t.Fatal(err)
		}
		w, err := tr.Workload()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	d, c := gen(RuntimeProfiles{}), gen(RuntimeProfiles{Type: ProfileTypeCompute, Speed: 1e9})
	if bytes.Contains(d.Meta("meta"), []byte("profile_type")) || !bytes.Contains(c.Meta("meta"), []byte(`"profile_type":"compute","reference_speed":1000000000`)) {
		t.Fatalf("meta:\n%s\n%s", d.Meta("meta"), c.Meta("meta"))
	}
	for i, j := range d.Jobs {
		cj := c.Jobs[i]
		dp, cp := d.Profiles[j.Profile], c.Profiles[cj.Profile]
		if cj.Profile != "c"+strings.TrimPrefix(j.Profile, "d") || cp.Type != TypeParallelHomogeneous || cp.CPU != dp.Delay*1e9 || cj.Subtime != j.Subtime || cj.Res != j.Res {
			t.Fatalf("job %d: delay %+v %+v, compute %+v %+v", i, j, dp, cj, cp)
		}
	}
}
