package sched

import (
	"testing"
)

// jobSeeds are job objects as Batsim and workloads write them, and the
// shapes quickJob leaves to the decoder.
var jobSeeds = []string{
	`{"id":"w0!1","subtime":0,"walltime":100,"res":4,"profile":"p1","user":"ana"}`,
	`{"id":"w0!1","res":1,"walltime":-1,"profile":"delay 10","user_id":7}`,
	`{"res":2.7,"walltime":1e3,"user_id":"u7","profile":{"type":"delay"}}`,
	`{"res":null,"walltime":null,"user":null,"user_id":12.5}`,
	`{"RES":3,"Walltime":10}`, `{"res":"4"}`, `{"res":1,"res":2}`, `{"res":1,"res":null}`,
	`{"user":"b\u00e9","profile":"a\"b"}`, `{"us\u0065r":"x"}`, `{"user":"","user_id":-3}`,
	`{"walltime":0,"res":-2,"extra":{"res":9,"a":[1,{"user":"z"}]}}`, `{}`, `{"res":1`, `[1]`, `{"res":01}`,
	`{"user":true}`, `{"user_id":[1]}`, `{"profile":5}`, "{\"res\":1,\"\u212aey\":2}",
}

// jobFieldsOf is what parseJob reads of a job.
func jobFieldsOf(j *Job) [4]any { return [4]any{j.res, j.walltime, j.profile, j.user} }

// checkQuickJob compares quickJob with decodeJob on raw: where quickJob
// reads a job, decodeJob reads the same one without error.
func checkQuickJob(t *testing.T, raw []byte) bool {
	t.Helper()
	q := &Job{}
	if !quickJob(q, raw) {
		// parseJob decodes into the same Job: quickJob left it untouched.
		if jobFieldsOf(q) != jobFieldsOf(&Job{}) {
			t.Fatalf("%s: quickJob refused the job but wrote %v", raw, jobFieldsOf(q))
		}
		return false
	}
	d := &Job{}
	if err := decodeJob(d, raw); err != nil {
		t.Fatalf("%s: quickJob read %v, the decoder refuses it: %v", raw, jobFieldsOf(q), err)
	}
	if jobFieldsOf(q) != jobFieldsOf(d) {
		t.Fatalf("%s: quickJob read %v, the decoder %v", raw, jobFieldsOf(q), jobFieldsOf(d))
	}
	return true
}

func TestQuickJobReadsAsTheDecoder(t *testing.T) {
	quick := 0
	for _, s := range jobSeeds {
		if checkQuickJob(t, []byte(s)) {
			quick++
		}
	}
	// The usual jobs take the quick way.
	if quick < 8 {
		t.Fatalf("quickJob read only %d of %d jobs", quick, len(jobSeeds))
	}
	for _, s := range []string{`{"RES":3}`, `{"res":"4"}`, `{"res":01}`, "{\"\u212aey\":1,\"res\":1}"} {
		if quickJob(&Job{}, []byte(s)) {
			t.Errorf("quickJob read %s, which it must leave to the decoder", s)
		}
	}
}

func FuzzQuickJob(f *testing.F) {
	for _, s := range jobSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkQuickJob(t, raw) })
}
