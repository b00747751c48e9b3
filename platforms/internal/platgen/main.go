// Command platgen writes the SimGrid platform files bundled with bucma
// (lille.xml, lille-cores.xml, osep.xml, sge.xml, sge-pi50.xml, mcmca.xml, bot.xml, bot-2nodes.xml, cluster-256.xml) from the reference tables of
// specs/platforms.md. Run it from the platforms directory:
//
//	go run ./internal/platgen
package main

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Network of every bundled platform: 10 Gbit/s links of 1 µs, so that the
// latencies of Batsim's internal messages stay negligible (host to master:
// private link + cluster backbone + cluster uplink = 3 µs; master loopback
// 1 µs).
const (
	bandwidth = "10Gbps"
	latency   = "1us"
)

type cluster struct {
	name     string
	nodes    int
	cpu      string
	cores    int     // cores per node
	coreFlop float64 // flop/s of one core (theoretical double-precision peak)
}

// Lille site of Grid'5000 (bucma.txt Table 2), in host-name order.
var lille = []cluster{
	{"chetemi", 15, "2 x Intel Xeon E5-2630 v4 (2.2 GHz, Broadwell)", 20, 2.2e9 * 16},
	{"chiclet", 8, "2 x AMD EPYC 7301 (2.2 GHz, Zen)", 32, 2.2e9 * 8},
	{"chifflet", 8, "2 x Intel Xeon E5-2680 v4 (2.4 GHz, Broadwell)", 28, 2.4e9 * 16},
	{"chifflot", 8, "2 x Intel Xeon Gold 6126 (2.6 GHz, Skylake-SP)", 24, 2.6e9 * 32},
}

type machine struct {
	class, cpu string
	cores      int
	speed      float64
	owner      string
}

// OSEP grid (osep-heterogeneous-2015.txt section 5.2), in host-name order.
var osep = func() []machine {
	i7 := machine{"i7", "Intel Core i7 (Sandy Bridge)", 4, 1.3225e11, ""}
	i5 := machine{"i5", "Intel Core i5 (Sandy Bridge)", 4, 5.476e10, ""}
	i3 := machine{"i3", "Intel Core i3 (Sandy Bridge)", 2, 2.975e10, ""}
	own := func(m machine, o string) machine { m.owner = o; return m }
	return []machine{
		own(i7, "user1"), own(i7, "user1"), own(i7, "user1"),
		own(i7, "user2"), own(i5, "user2"), own(i5, "user2"),
		own(i5, "user3"), own(i5, "user3"), own(i3, "user3"),
		own(i3, "user4"), own(i3, "user4"), own(i3, "user4"),
	}
}()

// num prints a float as a short decimal (1.0752e12, not 1.0752e+12).
func num(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	return strings.Replace(s, "e+", "e", 1)
}

type writer struct{ b strings.Builder }

func (w *writer) p(indent int, format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func header(w *writer, comment string) {
	w.p(0, "<?xml version='1.0'?>")
	w.p(0, `<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">`)
	w.b.WriteString(comment)
	w.p(0, `<platform version="4.1">`)
}

// masterZone writes the zone of the master host (not a Batsim resource).
func masterZone(w *writer, zoneID string) {
	w.p(2, `<zone id="%s" routing="Full">`, zoneID)
	w.p(3, `<host id="master" speed="1Gf">`)
	w.p(4, `<prop id="role" value="master"/>`)
	w.p(3, `</host>`)
	w.p(3, `<link id="master-loopback" bandwidth="%s" latency="%s" sharing_policy="FATPIPE"/>`, bandwidth, latency)
	w.p(3, `<route src="master" dst="master"><link_ctn id="master-loopback"/></route>`)
	w.p(2, `</zone>`)
}

type host struct {
	name  string
	speed float64
	// pstates, when set, is the speed attribute (several pstates).
	pstates string
	props   [][2]string
	link    string // the host's link to its cluster's centre
}

// clusterZone writes one SimGrid cluster (a star: each host reaches the
// centre through its link, then the backbone; the router is the gateway).
func clusterZone(w *writer, id string, hosts []host) {
	var links []string
	for _, h := range hosts {
		if !slices.Contains(links, h.link) {
			links = append(links, h.link) // the cores of a node share its link
		}
	}
	w.p(2, `<zone id="%s" routing="Cluster">`, id)
	for _, h := range hosts {
		speed := num(h.speed) + "f"
		if h.pstates != "" {
			speed = h.pstates
		}
		w.p(3, `<host id="%s" speed="%s">`, h.name, speed)
		for _, kv := range h.props {
			w.p(4, `<prop id="%s" value="%s"/>`, kv[0], kv[1])
		}
		w.p(3, `</host>`)
	}
	w.p(3, `<router id="%s-router"/>`, id)
	w.p(3, `<backbone id="%s-backbone" bandwidth="%s" latency="%s"/>`, id, bandwidth, latency)
	for _, l := range links {
		w.p(3, `<link id="%s" bandwidth="%s" latency="%s"/>`, l, bandwidth, latency)
	}
	for _, h := range hosts {
		w.p(3, `<host_link id="%s" up="%s" down="%s"/>`, h.name, h.link, h.link)
	}
	w.p(2, `</zone>`)
}

// zoneRoutes joins the master zone and every cluster zone pairwise through
// one uplink per cluster.
func zoneRoutes(w *writer, masterZoneID string, clusters []string) {
	for _, c := range clusters {
		w.p(2, `<link id="%s-uplink" bandwidth="%s" latency="%s"/>`, c, bandwidth, latency)
	}
	for _, c := range clusters {
		w.p(2, `<zoneRoute src="%s" dst="%s" gw_src="master" gw_dst="%s-router"><link_ctn id="%s-uplink"/></zoneRoute>`,
			masterZoneID, c, c, c)
	}
	for i, a := range clusters {
		for _, b := range clusters[i+1:] {
			w.p(2, `<zoneRoute src="%s" dst="%s" gw_src="%s-router" gw_dst="%s-router"><link_ctn id="%s-uplink"/><link_ctn id="%s-uplink"/></zoneRoute>`,
				a, b, a, b, a, b)
		}
	}
}

// zone is one SimGrid cluster zone of a platform.
type zone struct {
	name  string
	hosts []host
}

// nodeHost is a host with a link of its own (name-link).
func nodeHost(name string, speed float64, props ...[2]string) host {
	return host{name: name, speed: speed, link: name + "-link", props: props}
}

// grid writes a platform: inside the zone zoneID, the master's zone
// masterID and the clusters, joined pairwise.
func grid(comment, zoneID, masterID string, clusters []zone) string {
	w := &writer{}
	header(w, comment)
	w.p(1, `<zone id="%s" routing="Full">`, zoneID)
	masterZone(w, masterID)
	var names []string
	for _, c := range clusters {
		clusterZone(w, c.name, c.hosts)
		names = append(names, c.name)
	}
	zoneRoutes(w, masterID, names)
	w.p(1, `</zone>`)
	w.p(0, `</platform>`)
	return w.b.String()
}

const lilleComment = `<!-- Lille site of Grid'5000 as in bucma.txt Table 2: 39 nodes in 4 clusters
     (chifflet 8 x 28 cores, chifflot 8 x 24, chiclet 8 x 32, chetemi 15 x 20; 972 cores).
     %s
     Speeds are theoretical double-precision peaks = cores x clock x DP flop/cycle/core
     (Broadwell 16, Skylake-SP Gold 61xx 32, Zen 8): per core chifflet 38.4, chifflot 83.2,
     chiclet 17.6, chetemi 35.2 Gflop/s. Every compute host repeats its speed in the "speed"
     property (Batsim forwards properties, not the speed attribute).
     Network: one SimGrid cluster per G5K cluster, 10 Gbit/s links of 1 us, joined to the
     master zone and to each other by 1 us uplinks. Generated by internal/platgen. -->
`

func lilleNodes() string {
	var cs []zone
	for _, c := range lille {
		var hosts []host
		for n := 1; n <= c.nodes; n++ {
			speed := c.coreFlop * float64(c.cores)
			hosts = append(hosts, nodeHost(fmt.Sprintf("%s-%02d", c.name, n), speed,
				[2]string{"speed", num(speed)}, [2]string{"cluster", c.name}, [2]string{"cores", strconv.Itoa(c.cores)}, [2]string{"cpu", c.cpu}))
		}
		cs = append(cs, zone{c.name, hosts})
	}
	return grid(fmt.Sprintf(lilleComment, "One Batsim resource per node; host speed = node speed."), "lille", "lille-master", cs)
}

func lilleCores() string {
	var cs []zone
	for _, c := range lille {
		var hosts []host
		for n := 1; n <= c.nodes; n++ {
			node := fmt.Sprintf("%s-%02d", c.name, n)
			for k := 0; k < c.cores; k++ {
				hosts = append(hosts, host{name: fmt.Sprintf("%s-c%02d", node, k), speed: c.coreFlop, link: node + "-link",
					props: [][2]string{
						{"speed", num(c.coreFlop)}, {"cluster", c.name}, {"node", node}, {"cores", "1"}, {"cpu", c.cpu},
					}})
			}
		}
		cs = append(cs, zone{c.name, hosts})
	}
	return grid(fmt.Sprintf(lilleComment,
		"One Batsim resource per core (host chifflet-01-c00 = core 0 of node chifflet-01); host speed =\n"+
			"     core speed; the cores of a node share the node's link."), "lille-cores", "lille-master", cs)
}

const osepComment = `<!-- OSEP grid as in osep-heterogeneous-2015.txt section 5.2: 12 machines, 1 scheduler, 4 users.
     Speeds (Sandy Bridge class): i7 132250.0, i5 54760.0, i3 29750.0 MFLOPS; 867040 MFLOPS in all.
     Owners (property "owner"): user1 3 x i7 (45.76 %% of the power), user2 1 x i7 + 2 x i5 (27.88 %%),
     user3 2 x i5 + 1 x i3 (16.06 %%), user4 3 x i3 (10.29 %%). "cores" is typical of the class
     (information only). Every compute host repeats its speed in the "speed" property.
     Network: one SimGrid cluster, 10 Gbit/s links of 1 us. Generated by internal/platgen. -->
`

func osepGrid() string {
	var hosts []host
	for i, m := range osep {
		hosts = append(hosts, nodeHost(fmt.Sprintf("osep-%02d", i+1), m.speed,
			[2]string{"speed", num(m.speed)}, [2]string{"cluster", "osep"}, [2]string{"class", m.class}, [2]string{"cores", strconv.Itoa(m.cores)},
			[2]string{"cpu", m.cpu}, [2]string{"owner", m.owner}))
	}
	return grid(fmt.Sprintf(osepComment), "osep-grid", "osep-master", []zone{{"osep", hosts}})
}

const sgeComment = `<!-- The Sun Grid Engine prototype of sge-load-balancing.txt (setup l.256-297): a master
     (Pentium 4, scheduler only) and 4 single-processor execution hosts, each one queue of
     "slots" slots (h1-h3 5, h4 4, the paper's choice from its Table 1). The jobs of a host
     share its processor: run Batsim with its compute-sharing option.
     %s
     Every compute host repeats its speed in the "speed" property. Network: one SimGrid
     cluster, 10 Gbit/s links of 1 us (not described in the paper). Generated by internal/platgen. -->
`

// sgeHosts are the prototype's execution hosts: name, speed, slots, cpu.
type sgeHost struct {
	name  string
	speed float64
	slots int
	cpu   string
}

func sgePrototype(name, speedNote string, hosts []sgeHost) string {
	var hs []host
	for _, m := range hosts {
		hs = append(hs, nodeHost(m.name, m.speed,
			[2]string{"speed", num(m.speed)}, [2]string{"slots", strconv.Itoa(m.slots)}, [2]string{"cores", "1"}, [2]string{"cpu", m.cpu}))
	}
	return grid(fmt.Sprintf(sgeComment, speedNote), name+"-grid", name+"-master", []zone{{name, hs}})
}

const athlonXP, athlon = "AMD Athlon XP 1.1 GHz", "AMD Athlon 900 MHz"

// sgeClock is platform B of the seed's recipe (§5.3): speeds in the ratio
// of the clocks, for pi with 80 decimals and Smith-Waterman.
func sgeClock() string {
	return sgePrototype("sge", "Speeds: the clocks (h1-h3 1.1 GHz, h4 900 MHz) as flop/s, for pi with 80 decimals and Smith-Waterman.", []sgeHost{
		{"h1", 1.1e9, 5, athlonXP}, {"h2", 1.1e9, 5, athlonXP}, {"h3", 1.1e9, 5, athlonXP}, {"h4", 0.9e9, 4, athlon},
	})
}

// sgePi50 is platform A: speeds calibrated on Table 1's one-instance times
// of pi with 50 decimals (10^10 flop in 11.17, 11.16, 10.95, 12.38 s).
func sgePi50() string {
	return sgePrototype("sge-pi50", "Speeds: 1e10 flop over Table 1's one-instance times of pi with 50 decimals (11.17, 11.16, 10.95, 12.38 s).", []sgeHost{
		{"h1", 8.9526e8, 5, athlonXP}, {"h2", 8.9606e8, 5, athlonXP}, {"h3", 9.1324e8, 5, athlonXP}, {"h4", 8.0775e8, 4, athlon},
	})
}

const mcmcaComment = `<!-- The multicluster of the gang-scheduling paper (MCMCA, section 8.1): 2 clusters of 128 and
     256 single-processor hosts (384 in all) in one administrative domain. Each processor's clock is
     drawn uniformly from {1500, 1600, 1700, 1800, 1900, 2000, 2500, 3000, 3500} MHz (the paper's
     heterogeneous resources, section 3), seeded (PCG %d): speed = MHz x 1e6 flop/s. Property
     "cluster" names each host's cluster (c1: 128 hosts, c2: 256). Every compute host repeats its
     speed in the "speed" property. Network: one SimGrid cluster per cluster, 10 Gbit/s links of
     1 us (the paper's communication is contention-free and folded into service times).
     Generated by internal/platgen. -->
`

const mcmcaSeed = 1

// mcmca is the gang-scheduling paper's multicluster.
func mcmca() string {
	clocks := []float64{1500, 1600, 1700, 1800, 1900, 2000, 2500, 3000, 3500}
	r := rand.New(rand.NewPCG(mcmcaSeed, 0x6d636d63))
	var cs []zone
	for _, c := range []struct {
		name string
		n    int
	}{{"c1", 128}, {"c2", 256}} {
		var hs []host
		for i := 1; i <= c.n; i++ {
			mhz := clocks[r.IntN(len(clocks))]
			hs = append(hs, nodeHost(fmt.Sprintf("%s-%03d", c.name, i), mhz*1e6,
				[2]string{"speed", num(mhz * 1e6)}, [2]string{"cluster", c.name}, [2]string{"cores", "1"}, [2]string{"clock_mhz", num(mhz)}))
		}
		cs = append(cs, zone{c.name, hs})
	}
	return grid(fmt.Sprintf(mcmcaComment, mcmcaSeed), "mcmca", "mcmca-master", cs)
}

const botComment = `<!-- The OpenStack cluster of the bag-of-tasks thesis (section 6.1): %d compute nodes of
     4 cores (Intel Core i5-2310, 2.9 GHz). One Batsim resource per core (host n1c0 = core 0 of
     node n1, property "node"); a core computes 1 Gflop/s (the thesis gives no flop rate: a
     task step of c %% is c/100 x 300 s x 1e9 flop). The cores of a node share its link.
     Energy (Batsim with -E; the thesis measures none): the wattages of Batsim's reference
     energy platforms (Grid'5000 Taurus: idle 95 W, all cores 190.738 W, asleep 9.75 W,
     switching off 6.1 s at 100.997 W, switching on 151.5 s at 125.174 W) divided by the 4
     cores. Pstates: 0 computation, 1 sleep, 2 and 3 its switching-off and switching-on
     pstates (sleep_pstates 1:2:3). Network: one SimGrid cluster, 10 Gbit/s links of 1 us.
     Generated by internal/platgen. -->
`

// bot is the bag-of-tasks thesis' cluster with nodes nodes.
func bot(name string, nodes int) string {
	const (
		pstates = "1e9f, 1e-9f, 0.1639344262295082f, 0.006599788806758183f"
		watts   = "23.75:23.75:47.6845, 2.4375:2.4375:2.4375, 25.249180327868857:25.249180327868857:25.249180327868857, 31.2935962249208:31.2935962249208:31.2935962249208"
	)
	var hs []host
	for n := 1; n <= nodes; n++ {
		node := fmt.Sprintf("n%d", n)
		for c := 0; c < 4; c++ {
			hs = append(hs, host{name: fmt.Sprintf("%sc%d", node, c), speed: 1e9, pstates: pstates, link: node + "-link",
				props: [][2]string{{"speed", "1e9"}, {"node", node}, {"cores", "1"}, {"cpu", "Intel Core i5-2310 (2.9 GHz), one core"},
					{"wattage_per_state", watts}, {"wattage_off", "2.5"}, {"sleep_pstates", "1:2:3"}}})
		}
	}
	return grid(fmt.Sprintf(botComment, nodes), name, name+"-master", []zone{{name + "-cluster", hs}})
}

const clusterComment = `<!-- A homogeneous machine of %d identical single-processor hosts of 1 Gflop/s (h000 ...), the
     machine the batch-scheduling literature runs the Lublin-Feitelson model on (256 processors:
     RLScheduler, SC20, and the works built on it). Every compute host repeats its speed in the
     "speed" property. Network: one SimGrid cluster, 10 Gbit/s links of 1 us. Generated by
     internal/platgen. -->
`

// homogeneous is a cluster of n identical hosts of 1 Gflop/s.
func homogeneous(name string, n int) string {
	var hs []host
	for i := 0; i < n; i++ {
		hs = append(hs, nodeHost(fmt.Sprintf("h%03d", i), 1e9,
			[2]string{"speed", num(1e9)}, [2]string{"cluster", name}, [2]string{"cores", "1"}))
	}
	return grid(fmt.Sprintf(clusterComment, n), name+"-grid", name+"-master", []zone{{name, hs}})
}

func main() {
	files := map[string]string{
		"cluster-256.xml": homogeneous("cluster-256", 256),
		"bot.xml":         bot("bot", 9),
		"bot-2nodes.xml":  bot("bot-2nodes", 2),
		"mcmca.xml":       mcmca(),
		"sge.xml":         sgeClock(),
		"sge-pi50.xml":    sgePi50(),
		"lille.xml":       lilleNodes(),
		"lille-cores.xml": lilleCores(),
		"osep.xml":        osepGrid(),
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
