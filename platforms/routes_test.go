package platforms

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// platformFiles lists the platform files the routes are checked on: the
// bundled ones, the test platforms and those of the conformance corpus
// (each content once).
func platformFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.xml", "testdata/*.xml", "testdata/routes/*.xml", "../internal/corpus/testdata/*/platform.xml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[string(data)] {
			seen[string(data)] = true
			out = append(out, f)
		}
	}
	return out
}

// samplePairs chooses the pairs checked on a large platform: every pair
// among a few hosts, every host to and from the master, and random pairs.
func samplePairs(p *Platform, n int, seed uint64) [][2]string {
	names := []string{p.Master}
	for _, h := range append(append([]Host(nil), p.Hosts...), p.Storage...) {
		names = append(names, h.Name)
	}
	var pairs [][2]string
	for _, a := range names[:min(8, len(names))] {
		for _, b := range names[:min(8, len(names))] {
			pairs = append(pairs, [2]string{a, b})
		}
	}
	for _, h := range names[1:] {
		pairs = append(pairs, [2]string{h, p.Master}, [2]string{p.Master, h}, [2]string{h, h})
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i++ {
		pairs = append(pairs, [2]string{names[r.IntN(len(names))], names[r.IntN(len(names))]})
	}
	return pairs
}

// largeHosts is the size above which only sampled pairs are compared.
const largeHosts = 60

func TestRoutesAgainstSimGrid(t *testing.T) {
	o := simgridOracle(t)
	var total sgTotal
	check := func(t *testing.T, file string) {
		var pairs [][2]string
		if p, err := Load(file); err == nil && len(p.Hosts)+len(p.Storage)+1 > largeHosts {
			pairs = samplePairs(p, 1000, 7)
		}
		total.add(compareWithSimGrid(t, file, o.run(t, file, pairs)))
	}
	t.Run("files", func(t *testing.T) {
		for _, f := range platformFiles(t) {
			t.Run(strings.ReplaceAll(f, "/", "_"), func(t *testing.T) {
				if slowInSimGrid(f) {
					t.Skip("SimGrid loops forever on some of its routes: checked by TestRouteGoldens")
				}
				t.Parallel()
				check(t, f)
			})
		}
	})
	t.Run("generated", func(t *testing.T) {
		dir := t.TempDir()
		for _, g := range generatedPlatforms() {
			t.Run(g.name, func(t *testing.T) {
				t.Parallel()
				file := filepath.Join(dir, g.name+".xml")
				if err := os.WriteFile(file, []byte(g.xml), 0o644); err != nil {
					t.Fatal(err)
				}
				check(t, file)
				if t.Failed() {
					t.Logf("platform:\n%s", g.xml)
				}
			})
		}
	})
	t.Log(total.String())
}

// slowInSimGrid tells whether the golden of a platform records routes
// SimGrid never answers (each costs the oracle's timeout).
func slowInSimGrid(file string) bool {
	data, err := os.ReadFile(strings.TrimSuffix(file, ".xml") + ".golden")
	return err == nil && strings.Contains(string(data), "loops forever")
}

type generated struct{ name, xml string }

// randomPlatformCount is the number of random platforms compared with
// SimGrid.
const randomPlatformCount = 300

// generatedPlatforms are the seeded random platforms, plus a platform of a
// single host and a cluster of 1000 hosts whose master sits in its own
// zone.
func generatedPlatforms() []generated {
	var out []generated
	for seed := uint64(1); seed <= randomPlatformCount; seed++ {
		out = append(out, generated{fmt.Sprintf("random-%03d", seed), randomPlatform(seed)})
	}
	out = append(out,
		generated{"one-host", `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full"><host id="m" speed="1Gf"><prop id="role" value="master"/></host></zone></platform>
`},
		generated{"cluster-1000", bigCluster(1000)})
	return out
}

// bigCluster is a <cluster> of n hosts with a backbone, joined to the
// master's zone by a zoneRoute.
func bigCluster(n int) string {
	return fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <zone id="mz" routing="Full">
      <host id="master" speed="1Gf"><prop id="role" value="master"/></host>
      <link id="lo" bandwidth="10GBps" latency="1us" sharing_policy="FATPIPE"/>
      <route src="master" dst="master"><link_ctn id="lo"/></route>
    </zone>
    <cluster id="big" prefix="node-" suffix="" radical="0-%d" speed="1Gf" bw="10Gbps" lat="2us"
             bb_bw="100Gbps" bb_lat="500ns" limiter_link="20Gbps"/>
    <link id="up" bandwidth="40Gbps" latency="3us" sharing_policy="SPLITDUPLEX"/>
    <zoneRoute src="big" dst="mz" gw_src="node-big_router" gw_dst="master">
      <link_ctn id="up" direction="UP"/>
    </zoneRoute>
  </zone>
</platform>
`, n-1)
}

// TestRouteGoldens compares the loader with routes SimGrid computed once
// (testdata/routes/*.golden, written by -update-sg-goldens), so that the
// routes are checked where SimGrid is absent.
func TestRouteGoldens(t *testing.T) {
	goldens, err := filepath.Glob("testdata/routes/*.golden")
	if err != nil {
		t.Fatal(err)
	}
	if *updateGoldens {
		o := simgridOracle(t)
		xmls, _ := filepath.Glob("testdata/routes/*.xml")
		for _, x := range xmls {
			g := strings.TrimSuffix(x, ".xml") + ".golden"
			var pairs [][2]string
			if p, err := Load(x); err == nil && len(p.Hosts)+len(p.Storage)+1 > largeHosts {
				pairs = samplePairs(p, 300, 3)
			}
			if err := os.WriteFile(g, []byte(o.run(t, x, pairs).golden()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		goldens, _ = filepath.Glob("testdata/routes/*.golden")
	}
	if len(goldens) == 0 {
		t.Fatal("no golden files in testdata/routes")
	}
	sort.Strings(goldens)
	var total sgTotal
	for _, g := range goldens {
		t.Run(filepath.Base(g), func(t *testing.T) {
			data, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			total.add(compareWithSimGrid(t, strings.TrimSuffix(g, ".golden")+".xml", parseGolden(string(data))))
		})
	}
	t.Log(total.String())
}
