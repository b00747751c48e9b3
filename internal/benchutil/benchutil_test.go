package benchutil

import (
	"math"
	"strings"
	"testing"
)

func TestMedianRangeVerdict(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median of 3 1 2: %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 4 1 3 2: %v", m)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing is not NaN")
	}
	v := []float64{3, 1}
	Median(v)
	if v[0] != 3 {
		t.Error("Median sorted its argument")
	}
	if r := Range([]float64{0.25, 0.5, 0.125}, "%.2f"); r != "0.12-0.50" {
		t.Errorf("range: %q", r)
	}
	if r := Range([]float64{1, 1.001}, "%.1f"); r != "1.0" {
		t.Errorf("range of equal figures: %q", r)
	}
	if Verdict(true, MinRounds) != "holds" || Verdict(false, MinRounds+1) != "NOT REACHED" {
		t.Error("verdicts")
	}
	if v := Verdict(true, MinRounds-1); !strings.HasPrefix(v, "no verdict") {
		t.Errorf("a verdict from %d rounds: %q", MinRounds-1, v)
	}
}
