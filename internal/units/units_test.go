package units

import (
	"reflect"
	"testing"
)

func TestParseSpeed(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{"8e9", 8e9},
		{"1.0752e12", 1.0752e12},
		{"1Gf", 1e9},
		{"1.5e9f", 1.5e9},
		{"100Mf", 1e8},
		{"1kf", 1e3},
		{"1Tf", 1e12},
		{"1Pf", 1e15},
		{"1Ef", 1e18},
		{"2f", 2},
		{"3flops", 3},
		{"2gigaflops", 2e9},
		{" 4Gf ", 4e9},
		{"0", 0},
		{"0f", 0},
		{".5Gf", 5e8},
		{"1E9", 1e9},
		{"1e+9f", 1e9},
	}
	for _, c := range cases {
		got, err := ParseSpeed(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSpeed(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "f", "Gf", "1Xf", "-1Gf", "1e999", "abc", "1 2", "1,2"} {
		if v, err := ParseSpeed(bad); err == nil {
			t.Errorf("ParseSpeed(%q) = %g, want an error", bad, v)
		}
	}
}

func TestParseSpeedsPstates(t *testing.T) {
	got, err := ParseSpeeds("100.0Mf,50.0Mf, 20Mf")
	if err != nil || !reflect.DeepEqual(got, []float64{1e8, 5e7, 2e7}) {
		t.Errorf("ParseSpeeds = %v, %v", got, err)
	}
	if _, err := ParseSpeeds("1Gf,,2Gf"); err == nil {
		t.Error("empty pstate must fail")
	}
}

func TestParseLatencyAndBandwidth(t *testing.T) {
	lat := []struct {
		in   string
		want float64
	}{
		{"5us", 5e-6}, {"100us", 100e-6}, {"1ms", 1e-3}, {"10ns", 10e-9}, {"3ps", 3e-12},
		{"2s", 2}, {"2", 2}, {"1.5e-5", 1.5e-5}, {"1m", 60}, {"1h", 3600}, {"1d", 86400}, {"1w", 604800}, {"0", 0},
	}
	for _, c := range lat {
		got, err := ParseLatency(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseLatency(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	bw := []struct {
		in   string
		want float64
	}{
		{"10GBps", 10e9}, {"10Gbps", 1.25e9}, {"125MBps", 125e6}, {"1kBps", 1e3}, {"8bps", 1},
		{"1KiBps", 1024}, {"1Bps", 1}, {"42", 42},
	}
	for _, c := range bw {
		got, err := ParseBandwidth(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBandwidth(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	if _, err := ParseLatency("5parsecs"); err == nil {
		t.Error("unknown latency unit must fail")
	}
}
