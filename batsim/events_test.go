package batsim

import "testing"

func TestParseJobID(t *testing.T) {
	for _, c := range []struct {
		id, wl, name string
		ok           bool
	}{
		{"w0!1", "w0", "1", true},
		{"a!!b", "a", "b", true},
		{"dyn!x!", "", "", false},
		{"!a", "", "", false},
		{"a!", "", "", false},
		{"a", "", "", false},
		{"a!b!c", "", "", false},
		{"!", "", "", false},
		{"", "", "", false},
	} {
		got, err := ParseJobID(c.id)
		if (err == nil) != c.ok || got.Workload != c.wl || got.Name != c.name {
			t.Errorf("ParseJobID(%q) = %+v, %v; want %q %q ok=%v", c.id, got, err, c.wl, c.name, c.ok)
		}
	}
}
