package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// genPlatform builds an n-host platform: speeds from speeds (cycled), a
// master loopback of 5 µs, host links of 10..40 µs at 10 GB/s.
func genPlatform(n int, speeds []float64) *platforms.Platform {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
`)
	for i := 0; i < n; i++ {
		s := speeds[i%len(speeds)]
		fmt.Fprintf(&b, "<host id=\"h%05d\" speed=\"%gf\"><prop id=\"speed\" value=\"%g\"/></host>\n", i, s, s)
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<link id=\"l%d\" bandwidth=\"10GBps\" latency=\"%dus\"/>\n", i, 10+10*(i%4))
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<route src=\"master\" dst=\"h%05d\"><link_ctn id=\"l%d\"/></route>\n", i, i)
	}
	b.WriteString("</zone></platform>\n")
	p, err := platforms.Parse(strings.NewReader(b.String()), "generated")
	if err != nil {
		panic(err)
	}
	return p
}

type genOpts struct {
	jobs     int
	maxRes   int
	meanGap  float64 // mean inter-arrival time
	walltime bool
	mixed    bool // also parallel_homogeneous(_total) and composed profiles
}

// genWorkload builds a seeded random workload.
func genWorkload(t testing.TB, seed uint64, o genOpts) *workloads.Workload {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	fmt.Fprintf(&b, `{"nb_res":%d,"jobs":[`, o.maxRes)
	used := map[string]bool{}
	sub := 0.0
	for i := 0; i < o.jobs; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if r.IntN(3) > 0 {
			sub += r.ExpFloat64() * o.meanGap
		}
		res := 1 + r.IntN(o.maxRes)
		if r.IntN(4) > 0 {
			res = 1 + r.IntN(1+o.maxRes/8)
		}
		var prof string
		switch k := r.IntN(8); {
		case !o.mixed || k < 4:
			prof = fmt.Sprintf("d%d", 1+r.IntN(50))
		case k < 6:
			prof = fmt.Sprintf("ph%d", 1+r.IntN(20))
		case k < 7:
			prof = fmt.Sprintf("pht%d", 1+r.IntN(20))
		default:
			prof = "seq"
			used["d3"], used["ph2"] = true, true
		}
		used[prof] = true
		fmt.Fprintf(&b, `{"id":%d,"subtime":%.3f,"res":%d,"profile":%q`, i, sub, res, prof)
		if o.walltime && r.IntN(5) > 0 {
			fmt.Fprintf(&b, `,"walltime":%d`, 1+r.IntN(60))
		}
		b.WriteByte('}')
	}
	b.WriteString(`],"profiles":{`)
	first := true
	for name := range used {
		if !first {
			b.WriteByte(',')
		}
		first = false
		var n int
		switch {
		case strings.HasPrefix(name, "pht"):
			fmt.Sscanf(name, "pht%d", &n)
			fmt.Fprintf(&b, `%q:{"type":"parallel_homogeneous_total","cpu":%de9,"com":0}`, name, n)
		case strings.HasPrefix(name, "ph"):
			fmt.Sscanf(name, "ph%d", &n)
			fmt.Fprintf(&b, `%q:{"type":"parallel_homogeneous","cpu":%de9,"com":0}`, name, n)
		case name == "seq":
			fmt.Fprintf(&b, `%q:{"type":"composed","repeat":2,"seq":["d3","ph2"]}`, name)
		default:
			fmt.Sscanf(name, "d%d", &n)
			fmt.Fprintf(&b, `%q:{"type":"delay","delay":%d}`, name, n)
		}
	}
	b.WriteString("}}")
	w, err := workloads.Parse([]byte(b.String()), fmt.Sprintf("generated-%d.json", seed))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
