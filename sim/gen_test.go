package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"bucma/platforms"
	"bucma/workloads"
)

// genPlatform builds an n-host platform by hand: speeds from speeds (cycled),
// master loopback 5 µs, host links 10..40 µs.
func genPlatform(n int, speeds []float64) *platforms.Platform {
	p := &platforms.Platform{Path: "generated", Master: "master", MasterLoopbackLatency: 5e-6}
	for i := 0; i < n; i++ {
		s := speeds[i%len(speeds)]
		p.Hosts = append(p.Hosts, platforms.Host{ID: i, Name: fmt.Sprintf("h%05d", i), Speed: s, Cores: 1,
			Properties: map[string]string{"speed": fmt.Sprint(s)}, ZoneProperties: map[string]string{}})
		p.HostToMasterLatency = append(p.HostToMasterLatency, float64(10+10*(i%4))*1e-6)
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
