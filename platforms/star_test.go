package platforms

import (
	"bytes"
	"testing"
)

func TestStar(t *testing.T) {
	p, err := Parse(bytes.NewReader(Star(16)), "star")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hosts) != 16 || p.Master != "master" || len(p.Unmodelled) > 0 {
		t.Fatalf("%d hosts, master %q, unmodelled %v", len(p.Hosts), p.Master, p.Unmodelled)
	}
	for _, h := range p.Hosts {
		if _, _, err := p.Route(h.Name, p.Master); err != nil {
			t.Fatal(err)
		}
	}
}
