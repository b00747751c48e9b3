package platforms

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

func TestLinksAndRoute(t *testing.T) {
	us := 1e-6 // a variable: SimGrid computes "20us" as 20*1e-6 at run time
	p, err := Load("testdata/routes/cluster.xml")
	if err != nil {
		t.Fatal(err)
	}
	links := p.Links()
	if links[0] != (Link{Name: "__loopback__", Bandwidth: 10e9, Latency: 0, Fatpipe: true}) {
		t.Errorf("link 0 = %+v, want the model's loopback", links[0])
	}
	byName := map[string]Link{}
	for _, l := range links {
		byName[l.Name] = l
	}
	for name, want := range map[string]Link{
		"up_UP":            {Name: "up_UP", Bandwidth: 1.25e9, Latency: 20 * us},
		"up_DOWN":          {Name: "up_DOWN", Bandwidth: 1.25e9, Latency: 20 * us},
		"c_link_0_UP":      {Name: "c_link_0_UP", Bandwidth: 1.25e9, Latency: 10 * us},
		"c_link_0_limiter": {Name: "c_link_0_limiter", Bandwidth: 5e9},
		"c_link_0_loopback": {Name: "c_link_0_loopback", Bandwidth: 100e9, Latency: 1e-6,
			Fatpipe: true},
		"c_backbone": {Name: "c_backbone", Bandwidth: 12.5e9, Latency: 3 * us},
		"d_link_1":   {Name: "d_link_1", Bandwidth: 1.25e8, Latency: 50 * us}, // FATPIPE cluster: shared links
		"d_backbone": {Name: "d_backbone", Bandwidth: 2e9, Fatpipe: true},
	} {
		if got := byName[name]; got != want {
			t.Errorf("link %s = %+v, want %+v", name, got, want)
		}
	}
	for _, c := range []struct{ src, dst, links string }{
		{"n-0.grid", "n-0.grid", "c_link_0_loopback"},
		{"n-0.grid", "n-20.grid", "c_link_0_limiter c_link_0_UP c_backbone c_link_20_DOWN c_link_20_limiter"},
		{"n-1.grid", "boss", "c_link_1_limiter c_link_1_UP c_backbone up_UP"},
		{"boss", "n-1.grid", "up_DOWN c_backbone c_link_1_DOWN c_link_1_limiter"},
		{"d0", "d0", "d_link_0 d_backbone"}, // up and down share their links: each once
		{"boss", "boss", "__loopback__"},
	} {
		ids, _, err := p.Route(c.src, c.dst)
		if err != nil {
			t.Errorf("%s -> %s: %v", c.src, c.dst, err)
			continue
		}
		if got := linkNames(p, ids); got != c.links {
			t.Errorf("%s -> %s: %s, want %s", c.src, c.dst, got, c.links)
		}
	}
	// boss -> d0: the zone route d -> mz is one-way.
	if _, _, err := p.Route("boss", "d0"); err == nil || !strings.Contains(err.Error(), `"boss"`) ||
		!strings.Contains(err.Error(), `"d0"`) || !strings.Contains(err.Error(), "bad gateways") {
		t.Errorf("boss -> d0: err %v", err)
	}
	if _, _, err := p.Route("boss", "nobody"); err == nil || !strings.Contains(err.Error(), `no host "nobody"`) {
		t.Errorf("unknown host: err %v", err)
	}
	if _, _, err := p.Route("boss", "n-c_router.grid"); err == nil {
		t.Error("a router is not a host: Route must fail")
	}
}

func TestRouteUndeclared(t *testing.T) {
	p, err := Load("testdata/routes/quirks.xml")
	if err != nil {
		t.Fatal(err)
	}
	// No route between f1 and f2 in their Full zone: SimGrid uses none.
	ids, lat, err := p.Route("f2", "f1")
	if !errors.Is(err, ErrUndeclaredRoute) || len(ids) != 0 || lat != 0 {
		t.Errorf("f2 -> f1: %v %g %v", ids, lat, err)
	}
	// s3 has no host_link: its part of the route has no link.
	ids, lat, err = p.Route("s3", "master")
	if !errors.Is(err, ErrUndeclaredRoute) || linkNames(p, ids) != "u" || lat != 13*1e-6 {
		t.Errorf("s3 -> master: %s %g %v", linkNames(p, ids), lat, err)
	}
	// s4 has a loopback route but no host_link: SimGrid aborts.
	if _, _, err := p.Route("master", "s4"); err == nil || errors.Is(err, ErrUndeclaredRoute) ||
		!strings.Contains(err.Error(), "no link down to s4") {
		t.Errorf("master -> s4: %v", err)
	}
	// The master's latencies keep what SimGrid computes, with a warning.
	i := -1
	for j, h := range p.Hosts {
		if h.Name == "s3" {
			i = j
		}
	}
	if p.HostToMasterLatency[i] != 13*1e-6 || !strings.Contains(strings.Join(p.Warnings, "\n"), "s3 -> master") {
		t.Errorf("L_h(s3) = %g, warnings %v", p.HostToMasterLatency[i], p.Warnings)
	}
	// Dijkstra zones reverse the links of each route they go through.
	ids, _, err = p.Route("d1", "d2")
	if err != nil || linkNames(p, ids) != "dc_UP db da" {
		t.Errorf("d1 -> d2: %s %v", linkNames(p, ids), err)
	}
}

func TestRouteWithoutNetwork(t *testing.T) {
	p := &Platform{Path: "hand-made"}
	if _, _, err := p.Route("a", "b"); err == nil || !strings.Contains(err.Error(), "hand-made") {
		t.Errorf("err %v", err)
	}
	if p.Links() != nil {
		t.Error("Links of a hand-made platform")
	}
}

func TestRouteConcurrent(t *testing.T) {
	p, err := Load("lille.xml")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	res := make([][]float64, 4)
	for w := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, a := range p.Hosts {
				for _, b := range p.Hosts {
					_, lat, err := p.Route(a.Name, b.Name)
					if err != nil {
						t.Error(err)
						return
					}
					res[w] = append(res[w], lat)
				}
			}
		}()
	}
	wg.Wait()
	for w := 1; w < len(res); w++ {
		for i := range res[0] {
			if math.Float64bits(res[w][i]) != math.Float64bits(res[0][i]) {
				t.Fatalf("worker %d, route %d: %g vs %g", w, i, res[w][i], res[0][i])
			}
		}
	}
	// Every latency of the timing model is the latency of its route.
	for i, h := range p.Hosts {
		if _, lat, _ := p.Route(h.Name, p.Master); lat != p.HostToMasterLatency[i] {
			t.Errorf("%s: L_h %g, route %g", h.Name, p.HostToMasterLatency[i], lat)
		}
	}
	if _, lat, _ := p.Route(p.Master, p.Master); lat != p.MasterLoopbackLatency {
		t.Errorf("L_m %g, route %g", p.MasterLoopbackLatency, lat)
	}
}

func TestXbtUnits(t *testing.T) {
	us, ms, ns := 1e-6, 1e-3, 1e-9 // variables: the products are rounded as SimGrid's are
	for _, c := range []struct {
		f    func(string) (float64, error)
		in   string
		want float64
	}{
		{parseTime, "5us", 5 * us},
		{parseTime, "100us", 100 * us}, // 9.9999999999999991e-05, not 1e-4
		{parseTime, "1.5ms", 1.5 * ms},
		{parseTime, "3e-7", 3e-7},
		{parseTime, "2", 2},
		{parseTime, " 7ns", 7 * ns},
		{parseTime, "1w", 604800},
		{parseTime, "0", 0},
		{parseBandwidth, "1Gbps", 1.25e8},
		{parseBandwidth, "10GBps", 1e10},
		{parseBandwidth, "3Mbps", 3 * (0.125 * 1000 * 1000)},
		{parseBandwidth, "1KiBps", 1024},
		{parseBandwidth, "2Kibps", 2 * 128},
		{parseBandwidth, "1YBps", 1e24},
		{parseBandwidth, "125000000", 1.25e8},
		{parseSpeed, "1Gf", 1e9},
		{parseSpeed, "2.5gigaflops", 2.5e9},
		{parseSpeed, "1zetaflops", 1e21},
		{parseSpeed, "1Ef", 1e18},
		{parseSpeed, "8e9", 8e9},
	} {
		got, err := c.f(c.in)
		if err != nil || math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("%q: %.17g %v, want %.17g", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "us", "5 us", "5us ", "1KBps", "1zettaflops", "1e400s", "-1s", "1Xf", "fast"} {
		for _, f := range []func(string) (float64, error){parseTime, parseBandwidth, parseSpeed} {
			if v, err := f(bad); err == nil && bad != "1KBps" && bad != "1zettaflops" {
				t.Errorf("%q parsed as %g", bad, v)
			}
		}
	}
	if _, err := parseBandwidth("1KBps"); err == nil {
		t.Error(`"1KBps": SimGrid knows no "K" prefix`)
	}
	if _, err := parseSpeed("1zettaflops"); err == nil {
		t.Error(`"1zettaflops": SimGrid spells it "zetaflops"`)
	}
	if _, err := parseLinkBandwidth("1GBps,2GBps"); err == nil {
		t.Error("two bandwidths: the ptask_L07 model refuses them")
	}
}

func TestRefusedPlatforms(t *testing.T) {
	const head = `<?xml version='1.0'?><platform version="4.1">`
	const m = `<host id="m" speed="1Gf"><prop id="role" value="master"/></host>`
	cases := []struct {
		name, xml string
		want      []string
	}{
		{"duplicate route", `<zone id="z" routing="Full">` + m + `<host id="a" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="0"/>
<route src="a" dst="m"><link_ctn id="l"/></route>
<route src="m" dst="a"><link_ctn id="l"/></route></zone>`, []string{"test.xml:3:", "already exists", "symmetrical"}},
		{"symmetrical loopback in Floyd", `<zone id="z" routing="Floyd">` + m + `<link id="l" bandwidth="1GBps" latency="0"/>
<route src="m" dst="m"><link_ctn id="l"/></route></zone>`, []string{"test.xml:2:", `declared symmetrical="NO"`}},
		{"empty route", `<zone id="z" routing="Full">` + m + `<host id="a" speed="1Gf"/>
<route src="a" dst="m"></route></zone>`, []string{"test.xml:2:", "empty route"}},
		{"split-duplex without direction", `<zone id="z" routing="Full">` + m + `<host id="a" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="0" sharing_policy="SPLITDUPLEX"/>
<route src="a" dst="m"><link_ctn id="l"/></route></zone>`, []string{"test.xml:2:", `<link_ctn id="l">`, "without a direction"}},
		{"direction on a shared link", `<zone id="z" routing="Full">` + m + `<host id="a" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="0"/>
<route src="a" dst="m"><link_ctn id="l" direction="UP"/></route></zone>`, []string{"test.xml:2:", "unknown split-duplex link"}},
		{"two bandwidths", `<zone id="z" routing="Full">` + m + `<link id="l" bandwidth="1GBps,2GBps" latency="0"/></zone>`,
			[]string{"test.xml:1:", "exactly one bandwidth"}},
		{"link without latency", `<zone id="z" routing="Full">` + m + `<link id="l" bandwidth="1GBps"/></zone>`,
			[]string{"test.xml:1:", "missing latency"}},
		{"route before a host", `<zone id="z" routing="Full">` + m + `<link id="l" bandwidth="1GBps" latency="0"/>
<route src="a" dst="m"><link_ctn id="l"/></route>
<host id="a" speed="1Gf"/></zone>`, []string{"test.xml:3:", "routes come after every host"}},
		{"route to a later zone", `<zone id="z" routing="Full"><zone id="y" routing="Full">` + m + `<link id="l" bandwidth="1GBps" latency="0"/>
<bypassRoute src="a" dst="m"><link_ctn id="l"/></bypassRoute></zone>
<zone id="x" routing="Full"><host id="a" speed="1Gf"/></zone></zone>`, []string{"test.xml:2:", "declared after the route"}},
		{"hosts next to zones", `<zone id="z" routing="Full">` + m + `
<zone id="y" routing="Full"><host id="a" speed="1Gf"/></zone></zone>`, []string{"test.xml:2:", "already holds hosts"}},
		{"host outside any zone", m, []string{"test.xml:1:", "not allowed outside a <zone>"}},
		{"unknown routing", `<zone id="z" routing="Fast">` + m + `</zone>`, []string{"test.xml:1:", `unknown routing "Fast"`}},
		{"gateway outside its zone", `<zone id="z" routing="Full">
<zone id="a" routing="Full">` + m + `</zone><zone id="b" routing="Full"><host id="x" speed="1Gf"/></zone>
<link id="l" bandwidth="1GBps" latency="0"/>
<zoneRoute src="a" dst="b" gw_src="x" gw_dst="m"><link_ctn id="l"/></zoneRoute></zone>`, []string{"test.xml:4:", `gw_src "x" is not in zone "a"`}},
		{"route in a Cluster zone", `<zone id="z" routing="Cluster">` + m + `<host id="a" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="0"/>
<route src="a" dst="m"><link_ctn id="l"/></route></zone>`, []string{"test.xml:2:", "loopbacks"}},
		{"duplicate bypass", `<zone id="z" routing="Full">` + m + `<host id="a" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="0"/>
<bypassRoute src="a" dst="m"><link_ctn id="l"/></bypassRoute>
<bypassRoute src="a" dst="m"><link_ctn id="l"/></bypassRoute></zone>`, []string{"test.xml:3:", "bypass route from a to m already exists"}},
		{"two top-level zones", `<zone id="z" routing="Full">` + m + `</zone>
<zone id="y" routing="Full"></zone>`, []string{"test.xml:2:", "second top-level zone"}},
		{"backbone outside a Cluster zone", `<zone id="z" routing="Full">` + m + `<backbone id="b" bandwidth="1GBps" latency="0"/></zone>`,
			[]string{"test.xml:1:", `<backbone id="b">`, "Cluster"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(head+c.xml+`</platform>`), "test.xml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
