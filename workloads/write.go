package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	json "github.com/goccy/go-json"
)

// compactJSON removes the whitespace outside strings; everything else
// (number spelling, escapes, key order) is kept byte for byte.
func compactJSON(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	inStr, esc := false, false
	for _, c := range raw {
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inStr = true
		}
		out = append(out, c)
	}
	return out
}

// Write writes the workload as Batsim JSON: nb_res, the extra top-level
// keys (e.g. "meta") in their order, the jobs in order (one per line), then
// the profiles in ProfileOrder (one per line). Job and profile objects are
// their Raw text with insignificant whitespace removed, so custom fields and
// number spellings are kept. The output is deterministic.
func (w *Workload) Write(out io.Writer) error {
	return w.WriteJobs(out, func(yield func(Job) error) error {
		for _, j := range w.Jobs {
			if err := yield(j); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteJobs is Write with the jobs that jobs gives to yield, in order,
// instead of w.Jobs: a workload too large to hold is written as its jobs
// are made.
func (w *Workload) WriteJobs(out io.Writer, jobs func(yield func(Job) error) error) error {
	bw := bufio.NewWriterSize(out, 1<<16)
	fmt.Fprintf(bw, "{\n  \"nb_res\": %d,\n", w.NbRes)
	for _, kv := range w.Extra {
		k, _ := json.Marshal(kv.Key)
		fmt.Fprintf(bw, "  %s: %s,\n", k, compactJSON(kv.Value))
	}
	bw.WriteString("  \"jobs\": [")
	n := 0
	err := jobs(func(j Job) error {
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		if len(j.Raw) == 0 {
			return fmt.Errorf("workload: job '%s' has no JSON description", j.ID)
		}
		bw.Write(compactJSON(j.Raw))
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"profiles\": {")
	for i, name := range w.ProfileOrder {
		p, ok := w.Profiles[name]
		if !ok {
			return fmt.Errorf("workload: profile '%s' is listed in ProfileOrder but not defined", name)
		}
		if len(p.Raw) == 0 {
			return fmt.Errorf("workload: profile '%s' has no JSON description", name)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		fmt.Fprintf(bw, "\n    %s: %s", k, compactJSON(p.Raw))
	}
	if len(w.ProfileOrder) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("}\n}\n")
	return bw.Flush()
}

// Bytes returns the output of Write.
func (w *Workload) Bytes() ([]byte, error) {
	var b bytes.Buffer
	if err := w.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteFile writes the workload to path atomically (temporary file in the
// same directory, then rename).
func (w *Workload) WriteFile(path string) error {
	data, err := w.Bytes()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to path through a temporary file renamed
// into place, so readers never see a partial file.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteAtomic writes to path what write writes, through a temporary file
// in the same directory renamed into place once write succeeded, so
// readers never see a partial file (on failure the temporary file is
// removed and path is untouched).
func WriteAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Meta returns the raw value of the top-level key (e.g. "meta"), or nil.
func (w *Workload) Meta(key string) json.RawMessage {
	for _, kv := range w.Extra {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// SetExtra sets (or replaces) a top-level key kept in Extra.
func (w *Workload) SetExtra(key string, value json.RawMessage) {
	for i, kv := range w.Extra {
		if kv.Key == key {
			w.Extra[i].Value = value
			return
		}
	}
	w.Extra = append(w.Extra, KeyValue{Key: key, Value: value})
}

// AddProfile adds (or replaces) a profile, keeping ProfileOrder.
func (w *Workload) AddProfile(p Profile) {
	if w.Profiles == nil {
		w.Profiles = map[string]Profile{}
	}
	if _, ok := w.Profiles[p.Name]; !ok {
		w.ProfileOrder = append(w.ProfileOrder, p.Name)
	}
	w.Profiles[p.Name] = p
}

// RefRuntime returns the run time of a profile on hosts of speed refSpeed
// (flop/s) when it is given n hosts: delay → delay;
// parallel_homogeneous → cpu/refSpeed (com ignored);
// parallel_homogeneous_total → cpu/n/refSpeed; parallel → max(cpu)/refSpeed;
// composed → repeat × the sum of its parts.
func (w *Workload) RefRuntime(profile string, n int, refSpeed float64) (float64, error) {
	return w.refRuntime(profile, n, refSpeed, 0)
}

func (w *Workload) refRuntime(profile string, n int, refSpeed float64, depth int) (float64, error) {
	if depth > len(w.Profiles) {
		return 0, fmt.Errorf("profile '%s': composed profiles form a cycle", profile)
	}
	p, ok := w.Profiles[profile]
	if !ok {
		return 0, fmt.Errorf("profile '%s' does not exist", profile)
	}
	switch p.Type {
	case TypeDelay:
		return p.Delay, nil
	case TypeParallelHomogeneous:
		return p.CPU / refSpeed, nil
	case TypeParallelHomogeneousTotal:
		if n <= 0 {
			n = 1
		}
		return p.CPU / float64(n) / refSpeed, nil
	case TypeParallel:
		m := 0.0
		for _, c := range p.CPUs {
			m = math.Max(m, c)
		}
		return m / refSpeed, nil
	case TypeComposed:
		sum := 0.0
		for _, s := range p.Seq {
			d, err := w.refRuntime(s, n, refSpeed, depth+1)
			if err != nil {
				return 0, err
			}
			sum += d
		}
		return sum * float64(p.Repeat), nil
	}
	return 0, fmt.Errorf("profile '%s': %w", profile, errNoRuntime)
}

// SubmissionOrder returns the indices of w.Jobs in the order Batsim
// submits them: by subtime, then by full job id string ("w0!10" < "w0!2"),
// workloadName being the workload's name in Batsim ("w0" when empty). Ids
// Batsim rejects are ordered as "<workloadName>!<id>".
func (w *Workload) SubmissionOrder(workloadName string) []int {
	if workloadName == "" {
		workloadName = "w0"
	}
	idx := make([]int, len(w.Jobs))
	full := make([]string, len(w.Jobs))
	for i, j := range w.Jobs {
		idx[i] = i
		f, err := FullJobID(workloadName, j.ID)
		if err != nil {
			f = workloadName + "!" + j.ID
		}
		full[i] = f
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ja, jb := &w.Jobs[idx[a]], &w.Jobs[idx[b]]
		if ja.Subtime != jb.Subtime {
			return ja.Subtime < jb.Subtime
		}
		return full[idx[a]] < full[idx[b]]
	})
	return idx
}

// objBuilder writes a compact JSON object with members in call order.
type objBuilder struct{ b bytes.Buffer }

func (o *objBuilder) key(k string) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	o.b.Write(kb)
	o.b.WriteByte(':')
}

func (o *objBuilder) str(k, v string) *objBuilder {
	o.key(k)
	vb, _ := json.Marshal(v)
	o.b.Write(vb)
	return o
}

func (o *objBuilder) int(k string, v int64) *objBuilder {
	o.key(k)
	o.b.WriteString(strconv.FormatInt(v, 10))
	return o
}

// num writes a float in its shortest round-trip spelling, without exponent
// (integral values are written as integers).
func (o *objBuilder) num(k string, v float64) *objBuilder {
	o.key(k)
	o.b.WriteString(fmtNum(v))
	return o
}

func (o *objBuilder) raw(k string, v []byte) *objBuilder {
	o.key(k)
	o.b.Write(v)
	return o
}

func (o *objBuilder) bytes() json.RawMessage {
	if o.b.Len() == 0 {
		return json.RawMessage("{}")
	}
	out := append([]byte(nil), o.b.Bytes()...)
	return append(out, '}')
}

func fmtNum(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
