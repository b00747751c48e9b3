package platforms

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The values of a platform file are read as SimGrid 3.32's xbt_parse_units
// reads them, to the last bit: the number is read by strtod, then multiplied
// by the factor of its unit (no unit: the base unit). Factors are built as
// SimGrid builds them, by repeated multiplication ("Gbps" is
// 0.125*1000*1000*1000), so that "5us" is 5*1e-6 (4.9999999999999996e-06,
// not the double nearest to 5e-6) and "1Gbps" is 1.25e8.

// unitTable maps a unit to its factor.
type unitTable map[string]float64

// prefixed adds unit with the given base factor, then every prefix, each one
// multiplying the previous factor by mult.
func (t unitTable) prefixed(unit string, value, mult float64, prefixes ...string) unitTable {
	if _, ok := t[unit]; !ok {
		t[unit] = value
	}
	for _, p := range prefixes {
		value *= mult
		if _, ok := t[p+unit]; !ok {
			t[p+unit] = value
		}
	}
	return t
}

var (
	decimalAbbrev = []string{"k", "M", "G", "T", "P", "E", "Z", "Y"}
	decimalLong   = []string{"kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"}
	binaryAbbrev  = []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"}

	timeUnits = unitTable{
		"w": 7 * 24 * 60 * 60, "d": 24 * 60 * 60, "h": 60 * 60, "m": 60, "s": 1,
		"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
	}
	bandwidthUnits = unitTable{}.
			prefixed("bps", 0.125, 1024, binaryAbbrev...).prefixed("bps", 0.125, 1000, decimalAbbrev...).
			prefixed("Bps", 1, 1024, binaryAbbrev...).prefixed("Bps", 1, 1000, decimalAbbrev...)
	speedUnits = unitTable{}.prefixed("f", 1, 1000, decimalAbbrev...).prefixed("flops", 1, 1000, decimalLong...)
)

// leadingNumber reads the number C's strtod reads at the start of s (after
// white space): the longest prefix that is a number, in decimal, hexadecimal
// (with a binary exponent), inf or nan notation. It returns the rest of s.
func leadingNumber(kind, s string) (float64, string, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	for i := len(t); i > 0; i-- {
		v, err := strconv.ParseFloat(t[:i], 64)
		switch {
		case err == nil && !math.IsNaN(v) && !math.IsInf(v, 0):
			return v, t[i:], nil
		case err == nil || errors.Is(err, strconv.ErrRange):
			return 0, "", fmt.Errorf("bad %s %q: value out of range", kind, s)
		}
	}
	return 0, "", fmt.Errorf("bad %s %q: not a number", kind, s)
}

// xbtValue reads s as xbt_parse_get_value_with_unit does: a number, then a
// unit of the table (no unit: defaultUnit), nothing else.
func xbtValue(kind, s string, units unitTable, defaultUnit string) (float64, error) {
	v, unit, err := leadingNumber(kind, s)
	if err != nil {
		return 0, err
	}
	if unit == "" {
		unit = defaultUnit
	}
	f, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("bad %s %q: unknown unit %q", kind, s, unit)
	}
	v *= f
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad %s %q: value out of range", kind, s)
	}
	if v < 0 {
		return 0, fmt.Errorf("bad %s %q: negative", kind, s)
	}
	return v, nil
}

// parseTime reads a latency ("5us", "1.5ms", "2e-6"; seconds by default).
func parseTime(s string) (float64, error) { return xbtValue("latency", s, timeUnits, "s") }

// parseBandwidth reads a bandwidth in bytes per second ("10GBps", "10Gbps").
func parseBandwidth(s string) (float64, error) {
	return xbtValue("bandwidth", s, bandwidthUnits, "Bps")
}

// parseLinkBandwidth reads the bandwidth attribute of a <link>: SimGrid
// splits it at ',' and ';', and its ptask_L07 network model accepts exactly
// one value.
func parseLinkBandwidth(s string) (float64, error) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' })
	if len(parts) > 1 || strings.ContainsAny(s, ",;") {
		return 0, fmt.Errorf("bad bandwidth %q: a link has exactly one bandwidth with the ptask_L07 model (\"Non WIFI link must have only 1 bandwidth.\")", s)
	}
	return parseBandwidth(s)
}

// parseSpeed reads one speed in flop/s ("1Gf", "8e9").
func parseSpeed(s string) (float64, error) { return xbtValue("speed", s, speedUnits, "f") }

// parseSpeeds reads the comma-separated pstate speeds of a host, each one
// trimmed of white space as SimGrid does.
func parseSpeeds(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		v, err := parseSpeed(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseConfigDouble reads a <config> value of type double as SimGrid's
// configuration does: the whole string must be a number.
func parseConfigDouble(key, s string) (float64, error) {
	v, rest, err := leadingNumber("config "+key, s)
	if err != nil {
		return 0, err
	}
	if rest != "" {
		return 0, fmt.Errorf("config %s: %q is not a double", key, s)
	}
	return v, nil
}
