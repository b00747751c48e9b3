package platforms

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

func parseString(t *testing.T, xml string) *Platform {
	t.Helper()
	p, err := Parse(strings.NewReader(xml), "test.xml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseRadical(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		{"0-3", []int{0, 1, 2, 3}},
		{"0-15,20", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20}},
		{"7", []int{7}},
		{"1,3,5-6", []int{1, 3, 5, 6}},
	}
	for _, c := range cases {
		got, err := parseRadical(c.in, 1000)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseRadical(%q) = %v, %v", c.in, got, err)
		}
	}
	for _, bad := range []string{"", "a-b", "3-1", "1-2-3", "1,,2", "0-2000", "-9223372036854775807-9223372036854775807", "0-99999999999"} {
		if _, err := parseRadical(bad, 1000); err == nil {
			t.Errorf("parseRadical(%q) must fail", bad)
		}
	}
}

const clusterPlatform = `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <zone id="mz" routing="Full">
      <prop id="zone_kind" value="master"/>
      <host id="boss" speed="1Gf"><prop id="role" value="master"/></host>
    </zone>
    <cluster id="c" prefix="n-" suffix=".grid" radical="0-15,20" speed="2Gf,1Gf,0.5Gf" core="4"
             bw="10Gbps" lat="10us" bb_bw="100Gbps" bb_lat="3us" loopback_bw="100GBps" loopback_lat="1us">
      <prop id="cluster" value="c"/>
      <prop id="owner" value="team-c"/>
    </cluster>
    <link id="up" bandwidth="10Gbps" latency="20us" sharing_policy="SPLITDUPLEX"/>
    <zoneRoute src="c" dst="mz" gw_src="n-c_router.grid" gw_dst="boss">
      <link_ctn id="up" direction="UP"/>
    </zoneRoute>
  </zone>
</platform>`

func TestClusterElement(t *testing.T) {
	p := parseString(t, clusterPlatform)
	if len(p.Hosts) != 17 {
		t.Fatalf("%d hosts, want 17", len(p.Hosts))
	}
	var names []string
	for _, h := range p.Hosts {
		names = append(names, h.Name)
	}
	want := []string{"n-0.grid", "n-1.grid", "n-10.grid", "n-11.grid", "n-12.grid", "n-13.grid", "n-14.grid",
		"n-15.grid", "n-2.grid", "n-20.grid", "n-3.grid", "n-4.grid", "n-5.grid", "n-6.grid", "n-7.grid",
		"n-8.grid", "n-9.grid"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names %v", names)
	}
	h := p.Hosts[0]
	if h.Speed != 2e9 || !reflect.DeepEqual(h.Pstates, []float64{2e9, 1e9, 5e8}) || h.Cores != 4 {
		t.Errorf("host %+v", h)
	}
	if !reflect.DeepEqual(h.Properties, map[string]string{"cluster": "c", "owner": "team-c", "role": ""}) {
		t.Errorf("properties %v", h.Properties)
	}
	// Cluster properties are also the cluster zone's properties.
	if !reflect.DeepEqual(h.ZoneProperties, map[string]string{"cluster": "c", "owner": "team-c"}) {
		t.Errorf("zone properties %v", h.ZoneProperties)
	}
	// host link 10 us + backbone 3 us + uplink 20 us; master has no loopback.
	for i, l := range p.HostToMasterLatency {
		if !approx(l, 33e-6) {
			t.Errorf("%s: L_h %g, want 33e-6", p.Hosts[i].Name, l)
		}
	}
	if p.MasterLoopbackLatency != 0 {
		t.Errorf("L_m %g", p.MasterLoopbackLatency)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %v", p.Warnings)
	}
}

func TestMasterByName(t *testing.T) {
	const x = `<platform version="4.1"><zone id="z" routing="Full">
  <host id="master_host" speed="1Gf"/>
  <host id="a" speed="1Gf"/>
  <host id="s" speed="0f"><prop id="role" value="storage"/></host>
  <host id="b" speed="2Gf"><prop id="role" value="compute_node"/></host>
  <link id="l" bandwidth="1GBps" latency="7us"/>
  <route src="a" dst="master_host"><link_ctn id="l"/></route>
  <route src="master_host" dst="b" symmetrical="NO"><link_ctn id="l"/><link_ctn id="l"/></route>
  <route src="b" dst="master_host" symmetrical="no"><link_ctn id="l"/></route>
</zone></platform>`
	p := parseString(t, x)
	if p.Master != "master_host" || len(p.Hosts) != 2 || len(p.Storage) != 1 {
		t.Fatalf("master %q hosts %d storage %d", p.Master, len(p.Hosts), len(p.Storage))
	}
	if p.Storage[0].ID != 2 || p.Storage[0].Name != "s" || p.Storage[0].Properties["role"] != "storage" {
		t.Errorf("storage %+v", p.Storage[0])
	}
	if p.Hosts[1].Properties["role"] != "compute_node" {
		t.Errorf("role %q", p.Hosts[1].Properties["role"])
	}
	if !approx(p.HostToMasterLatency[0], 7e-6) || !approx(p.HostToMasterLatency[1], 7e-6) {
		t.Errorf("L_h %v", p.HostToMasterLatency)
	}
	// A route to the storage host is missing: latency 0 with a warning.
	if p.StorageToMasterLatency[0] != 0 || len(p.Warnings) == 0 {
		t.Errorf("storage latency %v warnings %v", p.StorageToMasterLatency, p.Warnings)
	}

	// With another master-host name, the host named master_host is a compute host.
	q, err := ParseOptions(strings.NewReader(x), "test.xml", Options{MasterHost: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Master != "a" || q.Hosts[1].Name != "master_host" {
		t.Errorf("master %q hosts %v", q.Master, q.Hosts)
	}
}

func TestNestedZonePropertiesAndFloyd(t *testing.T) {
	const x = `<platform version="4.1">
<AS id="top" routing="Floyd">
  <prop id="site" value="outer"/>
  <prop id="level" value="top"/>
  <AS id="m" routing="Full">
    <host id="master" speed="1Gf"><prop id="role" value="master"/></host>
  </AS>
  <AS id="mid" routing="Full">
    <prop id="level" value="mid"/>
    <zone id="leaf" routing="Cluster">
      <prop id="rack" value="r1"/>
      <host id="h1" speed="1Gf"/>
      <host id="h2" speed="1Gf"/>
      <router id="leaf-gw"/>
      <link id="l1" bandwidth="1GBps" latency="1us"/>
      <link id="l2" bandwidth="1GBps" latency="2us"/>
      <backbone id="bb" bandwidth="1GBps" latency="10us"/>
      <host_link id="h1" up="l1" down="l1"/>
      <host_link id="h2" up="l2" down="l2"/>
    </zone>
    <zone id="other" routing="Full">
      <router id="other-gw"/>
    </zone>
    <link id="mid-l" bandwidth="1GBps" latency="100us"/>
    <zoneRoute src="leaf" dst="other" gw_src="leaf-gw" gw_dst="other-gw"><link_ctn id="mid-l"/></zoneRoute>
  </AS>
  <zone id="hub" routing="Full">
    <router id="hub-gw"/>
  </zone>
  <link id="a" bandwidth="1GBps" latency="1ms"/>
  <link id="b" bandwidth="1GBps" latency="2ms"/>
  <ASroute src="mid" dst="hub" gw_src="other-gw" gw_dst="hub-gw"><link_ctn id="a"/></ASroute>
  <ASroute src="hub" dst="m" gw_src="hub-gw" gw_dst="master"><link_ctn id="b"/></ASroute>
</AS>
</platform>`
	p := parseString(t, x)
	if len(p.Hosts) != 2 {
		t.Fatalf("hosts %v", p.Hosts)
	}
	want := map[string]string{"site": "outer", "level": "mid", "rack": "r1"}
	if !reflect.DeepEqual(p.Hosts[0].ZoneProperties, want) {
		t.Errorf("zone properties %v, want %v", p.Hosts[0].ZoneProperties, want)
	}
	// h1 -> leaf-gw (1 + 10 us) -> mid-l (100 us) -> other-gw -> a (1 ms) -> hub-gw -> b (2 ms) -> master.
	if !approx(p.HostToMasterLatency[0], 11e-6+100e-6+3e-3) {
		t.Errorf("L_h(h1) = %g", p.HostToMasterLatency[0])
	}
	if !approx(p.HostToMasterLatency[1], 12e-6+100e-6+3e-3) {
		t.Errorf("L_h(h2) = %g", p.HostToMasterLatency[1])
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %v", p.Warnings)
	}
}

func TestCabinetAndBypass(t *testing.T) {
	p, err := Load("testdata/routes/cabinet-bypass.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hosts) != 3 || p.Hosts[0].Name != "k1" {
		t.Fatalf("hosts %v", p.Hosts)
	}
	// SimGrid reads "5us" as 5*1e-6 and sums latencies link by link, in its order.
	us, ns := 1e-6, 1e-9
	sum := func(v ...float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s
	}
	// Up to the master: zone route x (5 us) first, then up link (4 us) and backbone (1 us).
	for i := range p.Hosts {
		if want := sum(5*us, 4*us, 1*us); p.HostToMasterLatency[i] != want {
			t.Errorf("L_h(%s) = %.17g, want %.17g", p.Hosts[i].Name, p.HostToMasterLatency[i], want)
		}
	}
	if p.MasterLoopbackLatency != 2*us {
		t.Errorf("L_m %g", p.MasterLoopbackLatency)
	}
	// Down from the master, the bypassZoneRoute: the master's loopback to
	// reach its gateway (itself), the bypass link, the backbone, the down link.
	ids, lat, err := p.Route("m", "k2")
	if err != nil {
		t.Fatal(err)
	}
	if got := linkNames(p, ids); got != "lo fast cab-bb link_k2_DOWN" {
		t.Errorf("m -> k2: %s", got)
	}
	if want := sum(2*us, 1*ns, 1*us, 4*us); lat != want {
		t.Errorf("m -> k2: latency %.17g, want %.17g", lat, want)
	}
}

func linkNames(p *Platform, ids []int) string {
	links := p.Links()
	var names []string
	for _, id := range ids {
		names = append(names, links[id].Name)
	}
	return strings.Join(names, " ")
}

func TestUnsupportedRoutingWarns(t *testing.T) {
	const x = `<platform version="4.1"><zone id="w" routing="Vivaldi">
  <host id="m" speed="1Gf"><prop id="role" value="master"/></host>
  <host id="a" speed="1Gf"/>
</zone></platform>`
	p := parseString(t, x)
	if p.HostToMasterLatency[0] != 0 || len(p.Warnings) == 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), "Vivaldi") {
		t.Errorf("L_h %v warnings %v", p.HostToMasterLatency, p.Warnings)
	}
}

func TestOldPowerAttribute(t *testing.T) {
	const x = `<platform version="3"><AS id="w" routing="Full">
  <host id="m" power="1E9"><prop id="role" value="master"/></host>
  <host id="a" power="2E9"/>
</AS></platform>`
	p := parseString(t, x)
	if p.Hosts[0].Speed != 2e9 {
		t.Errorf("speed %g", p.Hosts[0].Speed)
	}
}

func TestErrors(t *testing.T) {
	wrap := func(body string) string {
		return `<?xml version='1.0'?>
<platform version="4.1">
  <zone id="z" routing="Full">
` + body + `
  </zone>
</platform>`
	}
	const m = `<host id="m" speed="1Gf"><prop id="role" value="master"/></host>`
	cases := []struct {
		name, xml string
		want      []string
	}{
		{"malformed XML", `<platform version="4.1"><zone id="z" routing="Full"><host id="a" speed="1Gf"></zone></platform>`,
			[]string{"test.xml:1:", "malformed XML"}},
		{"not a platform", `<html/>`, []string{"test.xml", "<platform>"}},
		{"empty", ``, []string{"test.xml", "no <platform>"}},
		{"missing master", wrap(`<host id="a" speed="1Gf"/>`),
			[]string{"test.xml", "Cannot find the master host", `"master_host"`}},
		{"two masters", wrap(m + `<host id="m2" speed="1Gf"><prop id="role" value="master"/></host>`),
			[]string{"test.xml", "two master hosts", `"m"`, `"m2"`}},
		{"master by name and by role", wrap(`<host id="master_host" speed="1Gf"><prop id="role" value="master"/></host>`),
			[]string{"test.xml:4:", "master,master", "master_host"}},
		{"master role and master name", wrap(m + `<host id="master_host" speed="1Gf"/>`),
			[]string{"test.xml", "two master hosts"}},
		{"bad speed", wrap(m + `<host id="a" speed="fast"/>`),
			[]string{"test.xml:4:", `<host id="a">`, `bad speed "fast"`}},
		{"bad speed unit", wrap(m + `<host id="a" speed="1Xf"/>`),
			[]string{"test.xml:4:", `<host id="a">`, `unknown unit "Xf"`}},
		{"zero speed", wrap(m + `<host id="a" speed="0f"/>`),
			[]string{"test.xml:4:", `<host id="a">`, "non-positive speed"}},
		{"duplicate host", wrap(m + "\n" + `<host id="a" speed="1Gf"/>` + "\n" + `<host id="a" speed="1Gf"/>`),
			[]string{"test.xml:6:", `<host id="a">`, "duplicate host id", "line 5"}},
		{"bad radical", wrap(m + `</zone><cluster id="c" prefix="c" suffix="" radical="4-1" speed="1Gf" bw="1GBps" lat="1us"/><zone id="y" routing="Full">`),
			[]string{"test.xml:4:", `<cluster id="c">`, "bad radical"}},
		{"unknown link", wrap(m + `<host id="a" speed="1Gf"/>` + "\n" + `<route src="a" dst="m"><link_ctn id="nope"/></route>`),
			[]string{"test.xml:5:", `<link_ctn id="nope">`, "unknown link"}},
		{"unknown route end", wrap(m + "\n" + `<route src="a" dst="m"></route>`),
			[]string{"test.xml:5:", `unknown src "a"`}},
		{"unknown role", wrap(m + `<host id="a" speed="1Gf"><prop id="role" value="boss"/></host>`),
			[]string{"test.xml:4:", `unknown role "boss"`}},
		{"bad core", wrap(m + `<host id="a" speed="1Gf" core="x"/>`),
			[]string{"test.xml:4:", "bad core count"}},
		{"bad latency", wrap(m + `<link id="l" bandwidth="1GBps" latency="soon"/>`),
			[]string{"test.xml:4:", `<link id="l">`, "bad latency"}},
		{"bad bandwidth", wrap(m + `<link id="l" bandwidth="lots"/>`),
			[]string{"test.xml:4:", `<link id="l">`, "bad bandwidth"}},
		{"duplicate link", wrap(m + `<link id="l" bandwidth="1GBps" latency="0"/><link id="l" bandwidth="1GBps" latency="0"/>`),
			[]string{"test.xml:4:", "duplicate link id"}},
		{"unknown host_link", `<platform version="4.1"><zone id="z" routing="Cluster">` + m +
			`<link id="l" bandwidth="1GBps" latency="0"/><host_link id="ghost" up="l" down="l"/></zone></platform>`,
			[]string{"test.xml:1:", `<host_link id="ghost">`, "unknown host"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.xml), "test.xml")
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

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load("testdata/no-such-file.xml"); err == nil || !strings.Contains(err.Error(), "no-such-file.xml") {
		t.Errorf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(clusterPlatform)
	f.Add(`<platform version="4.1"><zone id="z" routing="Floyd"><host id="m" speed="1Gf"><prop id="role" value="master"/></host><host id="a" speed="1Gf,2f"/><link id="l" bandwidth="1Bps" latency="1us"/><route src="a" dst="m"><link_ctn id="l"/></route></zone></platform>`)
	f.Add(`<platform><zone id="a" routing="Cluster"><host id="x" speed="1"/><host_link id="x" up="y" down="y"/></zone></platform>`)
	// Seeds: the corpus platforms, every platform of testdata and the
	// bundled ones.
	for _, n := range []string{"hetero8_compute", "users_fields"} {
		f.Add(string(corpus.ReadFile(f, n, "platform.xml")))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	bundled, _ := filepath.Glob("*.xml")
	for _, p := range append(files, bundled...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, n := range []string{"quirks", "cluster", "nested-floyd", "bypass-levels", "dijkstra-gateways"} {
		data, err := os.ReadFile("testdata/routes/" + n + ".xml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add(randomPlatform(1))
	saved := maxHosts
	maxHosts = 5000
	defer func() { maxHosts = saved }()
	f.Fuzz(func(t *testing.T, s string) {
		fuzzguard.Run(t, func() error { return checkParse(s) })
	})
}

// checkParse is FuzzParse's check of one input: a platform Parse accepts
// has one host-to-master latency per host, hosts numbered 0..n-1, and
// routes made of its links with a latency that is a number >= 0.
func checkParse(s string) error {
	p, err := Parse(strings.NewReader(s), "fuzz.xml")
	if err != nil {
		return nil
	}
	if len(p.HostToMasterLatency) != len(p.Hosts) {
		return fmt.Errorf("%d latencies for %d hosts", len(p.HostToMasterLatency), len(p.Hosts))
	}
	for i, h := range p.Hosts {
		if h.ID != i || h.Properties == nil || h.ZoneProperties == nil {
			return fmt.Errorf("bad host %+v", h)
		}
	}
	names := []string{p.Master}
	for _, h := range p.Hosts[:min(len(p.Hosts), 8)] {
		names = append(names, h.Name)
	}
	links := p.Links()
	for _, a := range names {
		for _, b := range names {
			ids, lat, err := p.Route(a, b)
			for _, id := range ids {
				if id < 0 || id >= len(links) {
					return fmt.Errorf("route %s -> %s: link id %d of %d", a, b, id, len(links))
				}
			}
			if err == nil && (lat < 0 || math.IsNaN(lat)) {
				return fmt.Errorf("route %s -> %s: latency %g", a, b, lat)
			}
		}
	}
	return nil
}

// A host's pstate attribute selects its speed, as SimGrid sets the pstate
// when it creates the host; traces and SimGrid settings the engine does not
// model are listed with their lines.
func TestPstateAndUnmodelled(t *testing.T) {
	src := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<config><prop id="network/TCP-gamma" value="1000"/></config>
<zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
<host id="a" speed="3e9f,1e9f,2e8f" pstate="1"/>
<host id="b" speed="2e9f" availability_file="b.avail"/>
<link id="l" bandwidth="1GBps" latency="10us" latency_file="l.lat"/>
<route src="master" dst="a"><link_ctn id="l"/></route>
<route src="master" dst="b"><link_ctn id="l"/></route>
</zone></platform>`
	p, err := Parse(strings.NewReader(src), "p.xml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Hosts[0].Name != "a" || p.Hosts[0].Speed != 1e9 || len(p.Hosts[0].Pstates) != 3 {
		t.Errorf("host a: %+v", p.Hosts[0])
	}
	want := []string{"p.xml:4: <config> network/TCP-gamma", "p.xml:8: <host id=\"b\"> availability_file", "p.xml:9: <link id=\"l\"> latency_file"}
	if len(p.Unmodelled) != len(want) {
		t.Fatalf("unmodelled %q", p.Unmodelled)
	}
	for i, w := range want {
		if !strings.HasPrefix(p.Unmodelled[i], w) {
			t.Errorf("unmodelled[%d] = %q, want prefix %q", i, p.Unmodelled[i], w)
		}
	}
	if _, err := Parse(strings.NewReader(strings.Replace(src, `pstate="1"`, `pstate="3"`, 1)), "p.xml"); err == nil || !strings.Contains(err.Error(), "pstate") {
		t.Errorf("pstate out of range: %v", err)
	}
}
