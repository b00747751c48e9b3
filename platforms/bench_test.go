package platforms

import (
	"os"
	"strings"
	"testing"
)

func benchmarkLoad(b *testing.B, name string, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseBytes(data, name, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func readOrFail(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkLoadLille(b *testing.B) { benchmarkLoad(b, "lille.xml", readOrFail(b, "lille.xml")) }

func BenchmarkLoadLilleCores(b *testing.B) {
	benchmarkLoad(b, "lille-cores.xml", readOrFail(b, "lille-cores.xml"))
}

func BenchmarkLoadCluster1000(b *testing.B) {
	benchmarkLoad(b, "cluster-1000", []byte(bigCluster(1000)))
}

// BenchmarkRoute looks up routes already computed (the common case of an
// engine asking again and again for the same pairs).
func BenchmarkRoute(b *testing.B) {
	p, err := Parse(strings.NewReader(bigCluster(1000)), "cluster-1000")
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(p.Hosts))
	for i, h := range p.Hosts {
		names[i] = h.Name
	}
	for _, a := range names[:50] {
		for _, c := range names[:50] {
			if _, _, err := p.Route(a, c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, err := p.Route(names[i%50], names[(i/50)%50]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRouteFirst computes routes never asked for before, across the
// zones of lille-cores.xml.
func BenchmarkRouteFirst(b *testing.B) {
	data := readOrFail(b, "lille-cores.xml")
	p, err := parseBytes(data, "lille-cores.xml", Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := len(p.Hosts)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == n*n {
			b.StopTimer()
			p, _ = parseBytes(data, "lille-cores.xml", Options{})
			i = 0
			b.StartTimer()
		}
		if _, _, err := p.Route(p.Hosts[i%n].Name, p.Hosts[(i/n+i)%n].Name); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
