package analysis

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// FmtDuration prints a number of seconds as a duration, rounded to its
// size.
func FmtDuration(s float64) string {
	if math.IsNaN(s) {
		return "n/a"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// FmtSigned prints a value with its sign ("n/a" for NaN).
func FmtSigned(v float64, prec int) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%+.*f", prec, v)
}

// FmtEst prints an estimate as "mean ± half-width" ("n/a" without a
// value; the mean alone with a single value).
func FmtEst(e Estimate, prec int, signed bool) string {
	if e.N == 0 || math.IsNaN(e.Mean) {
		return "n/a"
	}
	f := "%.*f"
	if signed {
		f = "%+.*f"
	}
	s := fmt.Sprintf(f, prec, e.Mean)
	if !math.IsNaN(e.Half) {
		s += fmt.Sprintf(" ± %.*f", prec, e.Half)
	}
	return s
}

// SeedList prints seeds compactly ("1–10" for a range).
func SeedList(s []uint64) string {
	if len(s) == 0 {
		return "none"
	}
	contiguous := true
	for i := range s {
		if s[i] != s[0]+uint64(i) {
			contiguous = false
		}
	}
	if contiguous && len(s) > 2 {
		return fmt.Sprintf("%d–%d", s[0], s[len(s)-1])
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}
