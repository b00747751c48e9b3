package workloads

import (
	"strings"
	"testing"
)

// v5Doc is a Batsim 5 workload: job 1 has a user outside extra_data (Batsim
// 5 does not forward it), job 2 in it, job 3 a walltime of -1 (Batsim 5
// aborts), job 4 an extra_data that is a number (Batsim 5 aborts).
const v5Doc = `{"nb_res":4,"jobs":[
 {"id":1,"subtime":0,"res":2,"profile":"d","walltime":100,"user":"alice"},
 {"id":2,"subtime":1,"res":2,"profile":"d","extra_data":{"user":"bob"}},
 {"id":3,"subtime":2,"res":2,"profile":"d","walltime":-1},
 {"id":4,"subtime":3,"res":2,"profile":"d","extra_data":5}],
 "profiles":{"d":{"type":"DelayProfile","delay":10}}}`

func findings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCheckFor(t *testing.T) {
	w5, err := Parse([]byte(v5Doc), "w5.json")
	if err != nil {
		t.Fatal(err)
	}
	w4, err := Parse([]byte(v4Doc), "w4.json")
	if err != nil {
		t.Fatal(err)
	}
	if w5.Format() != "Batsim 5" || w4.Format() != "Batsim 4" {
		t.Fatalf("formats %q, %q", w5.Format(), w4.Format())
	}
	for _, c := range []struct {
		w          *Workload
		target     string
		errs, warn []string // each finding's text, in order
	}{
		{w5, ForBatsim4, []string{`error: w5.json: profile 'd': type "DelayProfile" is Batsim 5's: the file is in Batsim 5's format, which Batsim 4.2.1 aborts on`}, nil},
		{w5, ForBatsim5,
			[]string{`error: w5.json: job '3': walltime -1: Batsim 5 aborts`, `error: w5.json: job '4': extra_data 5: Batsim 5 aborts`},
			[]string{`warning: w5.json: job '1': field "user" is outside extra_data: Batsim 5 forwards only id, subtime, walltime, res, profile and extra_data`}},
		{w4, ForBatsim4, nil, nil},
		{w4, ForBatsim5,
			[]string{`error: w4.json: profile 'd': type "delay" is Batsim 4's: the file is in Batsim 4's format, whose profile types Batsim 5 refuses; bucma workload to-v5 w4.json -o OUT converts it`},
			nil},
	} {
		errs, warns, err := c.w.CheckFor(c.target, ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			got  []Finding
			want []string
		}{{errs, c.errs}, {warns, c.warn}} {
			if len(k.got) != len(k.want) {
				t.Errorf("%s for %s: %d findings, want %d:\n%s", c.w.Path, c.target, len(k.got), len(k.want), findings(k.got))
				continue
			}
			for i, want := range k.want {
				if !strings.HasPrefix(k.got[i].String(), want) {
					t.Errorf("%s for %s: finding %d is %q, want it to begin with %q", c.w.Path, c.target, i, k.got[i], want)
				}
			}
		}
	}
	// A Batsim 4 file that to-v5 would refuse says so when checked for
	// Batsim 5.
	ret, err := Parse([]byte(`{"nb_res":1,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"r"}],"profiles":{"r":{"type":"delay","delay":1,"ret":3}}}`), "ret.json")
	if err != nil {
		t.Fatal(err)
	}
	errs, _, err := ret.CheckFor(ForBatsim5, ValidateOptions{})
	if err != nil || len(errs) != 2 || !strings.Contains(errs[1].String(), "profile 'r': to-v5 would refuse it: return code 3") {
		t.Errorf("ret for batsim5: %v\n%s", err, findings(errs))
	}
	if _, _, err := w4.CheckFor("batsim3", ValidateOptions{}); err == nil || !strings.Contains(err.Error(), `target "batsim3"`) {
		t.Errorf("unknown target: %v", err)
	}
}
