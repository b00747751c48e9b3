// Package units reads the values of SimGrid's platform format with their
// units (DTD 4.1): speeds, latencies and bandwidths. platforms reads host
// and link attributes with it, and schedulers the "speed" property that
// platforms repeat on their hosts (Batsim forwards it as a resource
// property).
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit tables of SimGrid's platform format (DTD 4.1). A value without a unit
// is taken in the base unit (flop/s, second, byte per second), as SimGrid does.
var (
	speedUnits = map[string]float64{
		"": 1, "f": 1, "flops": 1,
		"kf": 1e3, "kiloflops": 1e3,
		"Mf": 1e6, "megaflops": 1e6,
		"Gf": 1e9, "gigaflops": 1e9,
		"Tf": 1e12, "teraflops": 1e12,
		"Pf": 1e15, "petaflops": 1e15,
		"Ef": 1e18, "exaflops": 1e18,
		"Zf": 1e21, "zettaflops": 1e21,
		"Yf": 1e24, "yottaflops": 1e24,
	}
	// Sub-second units are negative: the value is divided by the opposite,
	// so that "5us" is the double nearest to 5e-6.
	latencyUnits = map[string]float64{
		"": 1, "s": 1,
		"w": 7 * 24 * 3600, "d": 24 * 3600, "h": 3600, "m": 60,
		"ms": -1e3, "us": -1e6, "ns": -1e9, "ps": -1e12,
	}
	bandwidthUnits = func() map[string]float64 {
		m := map[string]float64{"": 1, "Bps": 1, "bps": -8}
		dec := []struct {
			p string
			f float64
		}{{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}
		for _, d := range dec {
			m[d.p+"Bps"] = d.f
			m[d.p+"bps"] = -8 / d.f
		}
		bin := []struct {
			p string
			f float64
		}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60}}
		for _, b := range bin {
			m[b.p+"Bps"] = b.f
			m[b.p+"bps"] = -8 / b.f
		}
		return m
	}()
)

// splitNumber splits s into its leading decimal number (sign, digits,
// fraction, exponent) and the unit that follows it.
func splitNumber(s string) (num, unit string, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return "", "", false
	}
	// An exponent only counts when digits follow it: "1Ef" is 1 exaflop/s.
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return s[:i], strings.TrimSpace(s[i:]), true
}

func parseWithUnit(kind, s string, units map[string]float64) (float64, error) {
	t := strings.TrimSpace(s)
	num, unit, ok := splitNumber(t)
	if !ok {
		return 0, fmt.Errorf("bad %s %q: not a number", kind, s)
	}
	f, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("bad %s %q: unknown unit %q", kind, s, unit)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q: %v", kind, s, err)
	}
	if f < 0 {
		v /= -f
	} else {
		v *= f
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("bad %s %q: out of range", kind, s)
	}
	if v < 0 {
		return 0, fmt.Errorf("bad %s %q: negative", kind, s)
	}
	return v, nil
}

// ParseSpeed parses one speed in flop/s, with or without a SimGrid unit:
// "8e9", "1.0752e12", "1Gf", "1.5e9f", "100Mf", "2kiloflops".
func ParseSpeed(s string) (float64, error) { return parseWithUnit("speed", s, speedUnits) }

// ParseSpeeds parses a comma-separated list of pstate speeds (the speed
// attribute of a SimGrid host); the first one is the host's speed.
func ParseSpeeds(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		v, err := ParseSpeed(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseLatency parses a latency in seconds: "5us", "1.5ms", "2e-6", "0".
func ParseLatency(s string) (float64, error) { return parseWithUnit("latency", s, latencyUnits) }

// ParseBandwidth parses a bandwidth in bytes per second: "10GBps", "10Gbps",
// "125MBps", "1KiBps".
func ParseBandwidth(s string) (float64, error) {
	return parseWithUnit("bandwidth", s, bandwidthUnits)
}
