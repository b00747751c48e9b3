// Package scenario generates seeded SimGrid platforms and Batsim workloads
// of the kinds Batsim users run, for the differential tests that compare
// bucma's engine and policies with the real Batsim and batsched. The same
// seed always gives the same bytes.
package scenario

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// Shape is a family of platforms.
type Shape string

// The platform shapes.
const (
	// FullMultiHop: one Full-routing zone, every route an explicit list of
	// 1 to 7 links of unequal latencies and bandwidths (some shared by
	// several routes), an optional master loopback.
	FullMultiHop Shape = "full-multihop"
	// ClusterBackbone: the compute hosts in a <cluster> with a backbone,
	// the master in its own zone, joined by a zoneRoute.
	ClusterBackbone Shape = "cluster-backbone"
	// Floyd: hosts and routers in a Floyd zone (routes computed as
	// shortest paths over declared hops).
	Floyd Shape = "floyd"
	// Dijkstra: the same with Dijkstra routing.
	Dijkstra Shape = "dijkstra"
	// HeteroTies: a Full zone of hosts whose speeds repeat (ties between
	// equally fast hosts), two cores on some hosts.
	HeteroTies Shape = "hetero-ties"
	// OneHost: a single compute host.
	OneHost Shape = "one-host"
	// Large: a 1024-host cluster with a backbone.
	Large Shape = "large"
)

// Shapes lists every shape.
var Shapes = []Shape{FullMultiHop, ClusterBackbone, Floyd, Dijkstra, HeteroTies, OneHost, Large}

var (
	latencies  = []string{"1us", "5us", "13.7us", "50us", "100us", "250us", "1ms", "3ms"}
	bandwidths = []string{"125MBps", "1Gbps", "1GBps", "1.25GBps", "10GBps"}
	speeds     = []string{"1e9f", "2e9f", "3e9f", "1.5e9f", "4.5e9f"}
)

func pick[T any](r *rand.Rand, l []T) T { return l[r.IntN(len(l))] }

// Platform returns a platform of the shape and its number of compute hosts.
func Platform(shape Shape, seed uint64) ([]byte, int) {
	r := rand.New(rand.NewPCG(seed, 0x706c6174))
	var b bytes.Buffer
	b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n")
	var n int
	switch shape {
	case FullMultiHop:
		n = fullMultiHop(&b, r)
	case ClusterBackbone:
		n = clusterBackbone(&b, r, 2+r.IntN(15))
	case Floyd, Dijkstra:
		n = routed(&b, r, shape)
	case HeteroTies:
		n = heteroTies(&b, r)
	case OneHost:
		n = oneHost(&b, r)
	case Large:
		n = clusterBackbone(&b, r, 1024)
	default:
		panic("unknown shape " + string(shape))
	}
	b.WriteString("</platform>\n")
	return b.Bytes(), n
}

const masterHost = `<host id="master" speed="1e9f"><prop id="role" value="master"/></host>` + "\n"

func fullMultiHop(b *bytes.Buffer, r *rand.Rand) int {
	n := 2 + r.IntN(7)
	nl := 6 + r.IntN(8)
	b.WriteString(`<zone id="z" routing="Full">` + "\n" + masterHost)
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, `<host id="h%d" speed="%s"/>`+"\n", i, pick(r, speeds))
	}
	for i := 0; i < nl; i++ {
		policy := ""
		if r.IntN(6) == 0 {
			policy = ` sharing_policy="FATPIPE"`
		}
		fmt.Fprintf(b, `<link id="l%d" bandwidth="%s" latency="%s"%s/>`+"\n", i, pick(r, bandwidths), pick(r, latencies), policy)
	}
	if r.IntN(2) == 0 {
		fmt.Fprintf(b, `<route src="master" dst="master"><link_ctn id="l%d"/></route>`+"\n", r.IntN(nl))
	}
	names := []string{"master"}
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i := 0; i < len(names); i++ {
		for j := i + 1; j < len(names); j++ {
			k := 1 + r.IntN(7)
			if k > nl {
				k = nl
			}
			fmt.Fprintf(b, `<route src="%s" dst="%s">`, names[i], names[j])
			for _, l := range r.Perm(nl)[:k] {
				fmt.Fprintf(b, `<link_ctn id="l%d"/>`, l)
			}
			b.WriteString("</route>\n")
		}
	}
	b.WriteString("</zone>\n")
	return n
}

func clusterBackbone(b *bytes.Buffer, r *rand.Rand, n int) int {
	b.WriteString(`<zone id="world" routing="Full">` + "\n")
	b.WriteString(`<zone id="zmaster" routing="Full">` + "\n" + masterHost)
	fmt.Fprintf(b, `<link id="lo" bandwidth="10GBps" latency="%s" sharing_policy="FATPIPE"/>`+"\n", pick(r, []string{"1us", "5us", "15us"}))
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n</zone>\n")
	sharing := ""
	if r.IntN(2) == 0 {
		sharing = ` sharing_policy="SHARED"`
	}
	fmt.Fprintf(b, `<cluster id="c" prefix="node-" suffix="" radical="0-%d" speed="%s" bw="%s" lat="%s" bb_bw="%s" bb_lat="%s" router_id="c-router"%s/>`+"\n",
		n-1, pick(r, speeds), pick(r, bandwidths), pick(r, latencies), pick(r, bandwidths), pick(r, latencies), sharing)
	fmt.Fprintf(b, `<link id="up" bandwidth="%s" latency="%s"/>`+"\n", pick(r, bandwidths), pick(r, latencies))
	b.WriteString(`<zoneRoute src="zmaster" dst="c" gw_src="master" gw_dst="c-router"><link_ctn id="up"/></zoneRoute>` + "\n")
	b.WriteString("</zone>\n")
	return n
}

func routed(b *bytes.Buffer, r *rand.Rand, shape Shape) int {
	n := 2 + r.IntN(8)
	nr := 1 + r.IntN(4)
	routing := "Floyd"
	if shape == Dijkstra {
		routing = "Dijkstra"
	}
	fmt.Fprintf(b, `<zone id="z" routing="%s">`+"\n"+masterHost, routing)
	nodes := []string{"master"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, `<host id="h%d" speed="%s"/>`+"\n", i, pick(r, speeds))
		nodes = append(nodes, fmt.Sprintf("h%d", i))
	}
	var routers []string
	for i := 0; i < nr; i++ {
		fmt.Fprintf(b, `<router id="r%d"/>`+"\n", i)
		routers = append(routers, fmt.Sprintf("r%d", i))
	}
	nl := 0
	link := func() string {
		fmt.Fprintf(b, `<link id="l%d" bandwidth="%s" latency="%s"/>`+"\n", nl, pick(r, bandwidths), pick(r, latencies))
		nl++
		return fmt.Sprintf("l%d", nl-1)
	}
	// Every node hangs on a router; routers form a chain, plus a few
	// shortcuts (ties between equal-length paths).
	seen := map[[2]string]bool{}
	var routes bytes.Buffer
	add := func(a, c string, links ...string) {
		key := [2]string{a, c}
		if c < a {
			key = [2]string{c, a}
		}
		if a == c || seen[key] {
			return
		}
		seen[key] = true
		fmt.Fprintf(&routes, `<route src="%s" dst="%s">`, a, c)
		for _, l := range links {
			fmt.Fprintf(&routes, `<link_ctn id="%s"/>`, l)
		}
		routes.WriteString("</route>\n")
	}
	for _, x := range nodes {
		add(x, pick(r, routers), link())
	}
	for i := 1; i < nr; i++ {
		add(routers[i-1], routers[i], link())
	}
	for i := 0; i < r.IntN(3); i++ {
		add(pick(r, nodes), pick(r, nodes), link(), link())
	}
	b.Write(routes.Bytes())
	b.WriteString("</zone>\n")
	return n
}

func heteroTies(b *bytes.Buffer, r *rand.Rand) int {
	n := 3 + r.IntN(10)
	b.WriteString(`<zone id="z" routing="Full">` + "\n" + masterHost)
	sp := []string{"1e9f", "2e9f", "2e9f", "4e9f"}
	for i := 0; i < n; i++ {
		core := ""
		if r.IntN(4) == 0 {
			core = ` core="2"`
		}
		s := sp[r.IntN(len(sp))]
		fmt.Fprintf(b, `<host id="n%02d" speed="%s"%s><prop id="speed" value="%s"/></host>`+"\n", i, s, core, strings.TrimSuffix(s, "f"))
	}
	fmt.Fprintf(b, `<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>`+"\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, `<link id="l%d" bandwidth="%s" latency="%s"/>`+"\n", i, pick(r, bandwidths), pick(r, latencies))
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, `<route src="master" dst="n%02d"><link_ctn id="l%d"/></route>`+"\n", i, i)
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(b, `<route src="n%02d" dst="n%02d"><link_ctn id="l%d"/><link_ctn id="l%d"/></route>`+"\n", i, j, i, j)
		}
	}
	b.WriteString("</zone>\n")
	return n
}

func oneHost(b *bytes.Buffer, r *rand.Rand) int {
	b.WriteString(`<zone id="z" routing="Full">` + "\n" + masterHost)
	fmt.Fprintf(b, `<host id="solo" speed="%s"/>`+"\n", pick(r, speeds))
	fmt.Fprintf(b, `<link id="l" bandwidth="%s" latency="%s"/>`+"\n", pick(r, bandwidths), pick(r, latencies))
	b.WriteString(`<route src="master" dst="solo"><link_ctn id="l"/></route>` + "\n</zone>\n")
	return 1
}

// Mix selects the kinds of jobs a workload holds.
type Mix struct {
	Jobs int
	// Compute adds parallel_homogeneous (com = 0), parallel_homogeneous_total
	// and parallel (zero matrix) jobs; Comm adds transfers (com > 0, non-zero
	// matrices); Composed adds sequences mixing delays and computations.
	Compute, Comm, Composed bool
	// AllWalltimes gives every job a walltime (batsched's easy_bf rejects
	// jobs without one).
	AllWalltimes bool
	// Large shifts every submission time by about 1e10 s.
	Large bool
}

// Workload returns a Batsim workload for nHosts hosts: bursts of identical
// submission times, jobs too big for the platform, walltimes shorter and
// longer than the run times, and the profile kinds of mix.
func Workload(seed uint64, nHosts int, mix Mix) []byte {
	r := rand.New(rand.NewPCG(seed, 0x776c6f64))
	type prof struct{ name, json string }
	var profs []prof
	add := func(name, js string) { profs = append(profs, prof{name, js}) }
	delays := []string{"0.5", "1", "3", "7", "15.25", "1.000001", "42.5"}
	for _, d := range delays {
		add("d"+d, fmt.Sprintf(`{"type":"delay","delay":%s}`, d))
	}
	compute := func(i int) {
		cpu := pick(r, []string{"1e9", "3e9", "7.5e9", "2e10"})
		add(fmt.Sprintf("ph%d", i), fmt.Sprintf(`{"type":"parallel_homogeneous","cpu":%s,"com":0}`, cpu))
		add(fmt.Sprintf("pht%d", i), fmt.Sprintf(`{"type":"parallel_homogeneous_total","cpu":%s,"com":0}`, cpu))
	}
	if mix.Compute {
		for i := 0; i < 3; i++ {
			compute(i)
		}
	}
	comm := func(i int) {
		cpu := pick(r, []string{"0", "1e9", "5e9"})
		com := pick(r, []string{"1e6", "1e8", "2.5e9"})
		add(fmt.Sprintf("phc%d", i), fmt.Sprintf(`{"type":"parallel_homogeneous","cpu":%s,"com":%s}`, cpu, com))
		add(fmt.Sprintf("phtc%d", i), fmt.Sprintf(`{"type":"parallel_homogeneous_total","cpu":%s,"com":%s}`, cpu, com))
	}
	if mix.Comm {
		for i := 0; i < 2; i++ {
			comm(i)
		}
	}
	// parallel profiles, for a given size
	parallel := map[int]string{}
	parProfile := func(k int) string {
		if name, ok := parallel[k]; ok {
			return name
		}
		name := fmt.Sprintf("par%d", k)
		var cpu, com []string
		for i := 0; i < k; i++ {
			cpu = append(cpu, pick(r, []string{"0", "1e9", "2e9", "6e9"}))
			for j := 0; j < k; j++ {
				v := "0"
				if mix.Comm && r.IntN(2) == 0 {
					v = pick(r, []string{"1e6", "5e7", "1e9"})
				}
				com = append(com, v)
			}
		}
		add(name, fmt.Sprintf(`{"type":"parallel","cpu":[%s],"com":[%s]}`, strings.Join(cpu, ","), strings.Join(com, ",")))
		parallel[k] = name
		return name
	}
	if mix.Composed {
		var parts []string
		for _, p := range profs {
			parts = append(parts, p.name)
		}
		for i := 0; i < 2; i++ {
			a, c := pick(r, parts), pick(r, parts)
			add(fmt.Sprintf("seq%d", i), fmt.Sprintf(`{"type":"composed","repeat":%d,"seq":["%s","%s"]}`, 1+r.IntN(3), a, c))
		}
	}
	// Jobs pick among the profiles above; parallel profiles, whose size
	// must be the job's, are added per size below.
	generic := len(profs)
	base := 0.0
	if mix.Large {
		base = 1e10 + float64(r.IntN(1000))
	}
	var jobs []string
	t := base
	for i := 0; i < mix.Jobs; i++ {
		switch r.IntN(5) {
		case 0, 1:
			// same submission time
		case 2:
			t += pick(r, []float64{0.5, 1, 2, 5, 0.000003, 12.75})
		default:
			t += r.ExpFloat64() * 4
		}
		res := 1 + r.IntN(nHosts)
		if r.IntN(3) > 0 {
			res = 1 + r.IntN(1+nHosts/4)
		}
		if r.IntN(40) == 0 {
			res = nHosts + 1 // too big: rejected
		}
		var pname string
		switch k := r.IntN(10); {
		case k < 5 || generic == len(delays):
			pname = "d" + pick(r, delays)
		case k == 5 && (mix.Compute || mix.Comm) && res <= 6:
			pname = parProfile(res)
		default:
			pname = profs[len(delays)+r.IntN(generic-len(delays))].name
		}
		wt := ""
		switch {
		case mix.AllWalltimes || r.IntN(3) > 0:
			wt = fmt.Sprintf(`,"walltime":%s`, pick(r, []string{"2", "5", "7", "20", "100", "1000"}))
		}
		sub := fmt.Sprintf("%.6f", t)
		if !mix.Large && r.IntN(6) == 0 {
			sub = fmt.Sprintf("%.9f", t)
		}
		jobs = append(jobs, fmt.Sprintf(`{"id":"%d","subtime":%s,"res":%d,"profile":"%s"%s}`, i, sub, res, pname, wt))
	}
	sort.SliceStable(profs, func(i, j int) bool { return profs[i].name < profs[j].name })
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"nb_res\":%d,\n\"jobs\":[\n%s\n],\n\"profiles\":{\n", nHosts, strings.Join(jobs, ",\n"))
	for i, p := range profs {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "%q:%s", p.name, p.json)
	}
	b.WriteString("\n}}\n")
	return b.Bytes()
}
