package platforms

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/units"
)

func mustBundled(t *testing.T, name string) *Platform {
	t.Helper()
	p, err := Bundled(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 0 {
		t.Fatalf("%s: warnings %v", name, p.Warnings)
	}
	return p
}

// naturalLess orders names whose numbers are compared as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.Atoi(da)
			nb, _ := strconv.Atoi(db)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func checkCommon(t *testing.T, p *Platform) {
	t.Helper()
	if p.Master == DefaultMasterHost {
		t.Errorf("master must not be named %q", DefaultMasterHost)
	}
	names := make([]string, len(p.Hosts))
	for i, h := range p.Hosts {
		names[i] = h.Name
		if h.ID != i {
			t.Errorf("host %s: id %d at index %d", h.Name, h.ID, i)
		}
		ps, err := units.ParseSpeed(h.Properties["speed"])
		if err != nil || ps != h.Speed {
			t.Errorf("%s: speed property %q (%v) differs from speed %g", h.Name, h.Properties["speed"], err, h.Speed)
		}
		for _, k := range []string{"cluster", "cores", "cpu"} {
			if h.Properties[k] == "" {
				t.Errorf("%s: property %q missing", h.Name, k)
			}
		}
		if h.Properties["role"] != "" {
			t.Errorf("%s: role %q", h.Name, h.Properties["role"])
		}
		if p.HostToMasterLatency[i] <= 0 || p.HostToMasterLatency[i] > 10e-6 {
			t.Errorf("%s: L_h = %g, want a few µs", h.Name, p.HostToMasterLatency[i])
		}
	}
	if !sort.SliceIsSorted(names, func(i, j int) bool { return naturalLess(names[i], names[j]) }) {
		t.Errorf("lexicographic order differs from natural order: %v", names)
	}
	if p.MasterLoopbackLatency <= 0 || p.MasterLoopbackLatency > 10e-6 {
		t.Errorf("L_m = %g, want a few µs", p.MasterLoopbackLatency)
	}
}

type clusterWant struct {
	nodes       int
	coresPerNod int
	nodeSpeed   float64
}

var lilleWant = map[string]clusterWant{
	"chifflet": {8, 28, 1075.2e9},
	"chifflot": {8, 24, 1996.8e9},
	"chiclet":  {8, 32, 563.2e9},
	"chetemi":  {15, 20, 704.0e9},
}

func TestBundledLille(t *testing.T) {
	p := mustBundled(t, "lille")
	checkCommon(t, p)
	if len(p.Hosts) != 39 {
		t.Fatalf("%d hosts, want 39", len(p.Hosts))
	}
	count := map[string]int{}
	cores := 0
	for _, h := range p.Hosts {
		c := h.Properties["cluster"]
		w, ok := lilleWant[c]
		if !ok {
			t.Fatalf("%s: unknown cluster %q", h.Name, c)
		}
		count[c]++
		if math.Abs(h.Speed-w.nodeSpeed) > 1 {
			t.Errorf("%s: speed %g, want %g", h.Name, h.Speed, w.nodeSpeed)
		}
		if h.Properties["cores"] != strconv.Itoa(w.coresPerNod) {
			t.Errorf("%s: cores %q, want %d", h.Name, h.Properties["cores"], w.coresPerNod)
		}
		if !strings.HasPrefix(h.Name, c+"-") {
			t.Errorf("%s: not named after cluster %s", h.Name, c)
		}
		n, _ := strconv.Atoi(h.Properties["cores"])
		cores += n
	}
	for c, w := range lilleWant {
		if count[c] != w.nodes {
			t.Errorf("cluster %s: %d nodes, want %d", c, count[c], w.nodes)
		}
	}
	if cores != 972 {
		t.Errorf("%d cores, want 972", cores)
	}
	if h, ok := p.HostByName("chifflet-01"); !ok || h.Properties["speed"] != "1.0752e12" {
		t.Errorf("chifflet-01: %+v", h)
	}
}

func TestBundledLilleCores(t *testing.T) {
	p := mustBundled(t, "lille-cores.xml")
	checkCommon(t, p)
	if len(p.Hosts) != 972 {
		t.Fatalf("%d hosts, want 972", len(p.Hosts))
	}
	perNode := map[string]int{}
	perCluster := map[string]int{}
	for _, h := range p.Hosts {
		c := h.Properties["cluster"]
		w := lilleWant[c]
		if want := w.nodeSpeed / float64(w.coresPerNod); math.Abs(h.Speed-want) > 1 {
			t.Errorf("%s: speed %g, want %g", h.Name, h.Speed, want)
		}
		perNode[h.Properties["node"]]++
		perCluster[c]++
	}
	if len(perNode) != 39 {
		t.Errorf("%d nodes, want 39", len(perNode))
	}
	for c, w := range lilleWant {
		if perCluster[c] != w.nodes*w.coresPerNod {
			t.Errorf("cluster %s: %d cores, want %d", c, perCluster[c], w.nodes*w.coresPerNod)
		}
	}
	lille := mustBundled(t, "lille")
	if math.Abs(p.TotalSpeed()-lille.TotalSpeed()) > 1e3 {
		t.Errorf("total speed %g differs from lille.xml's %g", p.TotalSpeed(), lille.TotalSpeed())
	}
}

func TestBundledOSEP(t *testing.T) {
	p := mustBundled(t, "osep")
	checkCommon(t, p)
	if len(p.Hosts) != 12 {
		t.Fatalf("%d hosts, want 12", len(p.Hosts))
	}
	classes := map[float64]int{}
	for _, h := range p.Hosts {
		classes[h.Speed]++
	}
	if !reflect.DeepEqual(classes, map[float64]int{1.3225e11: 4, 5.476e10: 4, 2.975e10: 4}) {
		t.Errorf("speed classes %v", classes)
	}
	if got := p.TotalSpeed(); math.Abs(got-867040e6) > 1 {
		t.Errorf("total speed %g, want 8.6704e11", got)
	}
	shares := p.SharesByProperty("owner")
	want := map[string]float64{"user1": 45.76, "user2": 27.88, "user3": 16.06, "user4": 10.29}
	if len(shares) != len(want) {
		t.Errorf("owners %v", shares)
	}
	for u, pct := range want {
		if got := math.Round(shares[u]*10000) / 100; got != pct {
			t.Errorf("%s: share %.4f %%, want %.2f %%", u, shares[u]*100, pct)
		}
	}
	machines := map[string]int{}
	for _, h := range p.Hosts {
		machines[h.Properties["owner"]]++
	}
	for u, n := range machines {
		if n != 3 {
			t.Errorf("%s owns %d machines, want 3", u, n)
		}
	}
}

func TestBundledFilesMatchEmbedded(t *testing.T) {
	names := BundledNames()
	if !reflect.DeepEqual(names, []string{"bot-2nodes.xml", "bot.xml", "cluster-256.xml", "lille-cores.xml", "lille.xml", "mcmca.xml", "osep.xml", "sge-pi50.xml", "sge.xml"}) {
		t.Fatalf("BundledNames() = %v", names)
	}
	for _, n := range names {
		onDisk, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := BundledXML(strings.TrimSuffix(n, ".xml"))
		if err != nil {
			t.Fatal(err)
		}
		if string(onDisk) != string(embedded) {
			t.Errorf("%s differs from the embedded copy", n)
		}
		for _, want := range []string{`<platform version="4.1">`, `<prop id="role" value="master"/>`} {
			if !strings.Contains(string(onDisk), want) {
				t.Errorf("%s: missing %s", n, want)
			}
		}
	}
}

func TestResolve(t *testing.T) {
	for _, name := range []string{"lille", "lille.xml", "platforms/lille.xml", "osep", "lille-cores"} {
		p, err := Resolve(name)
		if err != nil {
			t.Errorf("Resolve(%q): %v", name, err)
			continue
		}
		if len(p.Hosts) == 0 {
			t.Errorf("Resolve(%q): no hosts", name)
		}
	}
	p, err := Resolve(corpus.Path("hetero4_delays", "platform.xml"))
	if err != nil || len(p.Hosts) != 4 {
		t.Errorf("Resolve(path): %v", err)
	}
	if _, err := Resolve("nope"); err == nil || !strings.Contains(err.Error(), "(bundled: bot-2nodes, bot, cluster-256, lille-cores, lille, mcmca, osep, sge-pi50, sge)") {
		t.Errorf("Resolve(nope): %v", err)
	}
	if _, err := Resolve("/no/such/dir/lille.xml"); err == nil {
		t.Error("Resolve of a missing absolute path must fail")
	}
	if _, err := BundledXML("nope"); err == nil {
		t.Error("BundledXML(nope) must fail")
	}
}

func TestSharesWithoutProperty(t *testing.T) {
	p := mustBundled(t, "lille")
	s := p.SharesByProperty("owner")
	if len(s) != 1 || math.Abs(s[""]-1) > 1e-12 {
		t.Errorf("shares %v", s)
	}
	if got := (&Platform{}).SharesByProperty("owner"); len(got) != 0 {
		t.Errorf("empty platform shares %v", got)
	}
}

// Every command finds a platform the same way: a file at the path first,
// else the bundled platform a name spells, with or without .xml.
func TestLocate(t *testing.T) {
	for _, spelling := range []string{"lille", "lille.xml", "platforms/lille.xml"} {
		if name, ok := BundledName(spelling); !ok || name != "lille" {
			t.Errorf("BundledName(%q) = %q, %v", spelling, name, ok)
		}
		file, bundled, err := Locate(t.TempDir(), spelling)
		if err != nil || file != "" || bundled != "lille" {
			t.Errorf("Locate(%q) = %q, %q, %v", spelling, file, bundled, err)
		}
	}
	// A file of that name, where the path leads, is the platform.
	dir := t.TempDir()
	data, _ := BundledXML("lille-cores")
	if err := os.WriteFile(filepath.Join(dir, "lille.xml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if file, bundled, err := Locate(dir, "lille.xml"); err != nil || file != filepath.Join(dir, "lille.xml") || bundled != "" {
		t.Errorf("Locate(dir, lille.xml) = %q, %q, %v", file, bundled, err)
	}
	// A folder is not: the bundled platform of its name.
	if err := os.Mkdir(filepath.Join(dir, "osep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if file, bundled, err := Locate(dir, "osep"); err != nil || file != "" || bundled != "osep" {
		t.Errorf("Locate(dir, osep) with a folder osep = %q, %q, %v", file, bundled, err)
	}
	if _, _, err := Locate(dir, "nope.xml"); err == nil || !strings.Contains(err.Error(), `platform "nope.xml": no such file and no such bundled platform (bundled: bot-2nodes, bot,`) {
		t.Errorf("Locate(nope.xml): %v", err)
	}
}
