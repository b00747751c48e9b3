package figures

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/corpus"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A figure's legend sits in a column to the right of its plots, outside
// the data area and the axes' labels (the distribution figures had it on
// the x tick labels, "wfp3" over "100000", or on the curves), its top at
// the data area's; a long title wraps to the plots' width, below the
// canvas' top edge.
func TestFigureLayout(t *testing.T) {
	p := plot.New()
	p.Title.Text = "Distribution of the waiting time (a workload case whose title, with its offered load of 0.7 and the seeds it pools, is far longer than the figure is wide)"
	p.X.Label.Text = "waiting time (s)"
	for i, name := range []string{"easy", "fcfs", "a variant with a long name wfp3"} {
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 0}, {X: 1e5, Y: float64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add(name, l)
	}
	w, h := vg.Points(560), vg.Points(340)
	f := newFigure(p, w, h)
	c := draw.New(vgimg.New(w+f.legendWidth(), h))
	lo := f.layout(c)
	data := p.DataCanvas(lo.cells[0][0])
	if !(lo.legend.Min.X > lo.plots.Max.X && lo.plots.Max.X >= data.Max.X) {
		t.Errorf("legend from x = %v, plots end at %v, data at %v: they overlap", lo.legend.Min.X, lo.plots.Max.X, data.Max.X)
	}
	if lo.legend.Max.Y != data.Max.Y || lo.legend.Max.X > c.Max.X-vg.Points(figMargin) {
		t.Errorf("legend %v, data %v, canvas %v", lo.legend.Rectangle, data.Rectangle, c.Rectangle)
	}
	if need := f.legend.Rectangle(lo.legend).Size(); need.X > lo.legend.Size().X || need.Y > lo.legend.Size().Y {
		t.Errorf("legend needs %v, has %v", need, lo.legend.Size())
	}
	if strings.Count(lo.title, "\n") < 1 || lo.titleY > c.Max.Y-vg.Points(figMargin) {
		t.Errorf("title %q at %v, canvas top %v", lo.title, lo.titleY, c.Max.Y)
	}
	for _, line := range strings.Split(lo.title, "\n") {
		if wd := titleStyle().Rectangle(line).Size().X; wd > lo.plots.Size().X {
			t.Errorf("title line %q is %v wide, the plots %v", line, wd, lo.plots.Size().X)
		}
	}
}

// whiteBorder reports whether the png's outer band of px pixels is white.
func whiteBorder(t *testing.T, path string, px int) bool {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if x >= b.Min.X+px && x < b.Max.X-px && y >= b.Min.Y+px && y < b.Max.Y-px {
				continue
			}
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				t.Logf("%s: pixel (%d, %d) of %v is not white", filepath.Base(path), x, y, b.Size())
				return false
			}
		}
	}
	return true
}

// Every kind of report figure keeps a white margin on its four sides: no
// title touches the top edge, no label is cut at the left (the sign heat
// map's) and no legend reaches the right edge.
func TestFigureMargins(t *testing.T) {
	dir := t.TempDir()
	base := func(name string) string { return filepath.Join(dir, name) }
	est := func(m, h float64) analysis.Estimate { return analysis.Estimate{N: 3, Mean: m, Half: h} }
	nan := math.NaN()
	groups, series := []string{"FCFS", "MIN-MIN", "MAX-MIN", "EASY"}, []string{"imprecise", "medium", "precise"}
	bars := make([][]Bar, len(series))
	ests := make([][]analysis.Estimate, len(series))
	for si := range series {
		for gi, g := range groups {
			bars[si] = append(bars[si], Bar{Group: g, Est: est(float64(20*gi-30*si), 15), Paper: []float64{2053, -40, nan}[si]})
			ests[si] = append(ests[si], est(float64(100+50*gi+10*si), 5))
		}
	}
	xs := []float64{0.7, 0.85, 1, 1.15}
	rows, err := analysis.ReadJobsFile(corpus.Path("hetero4_delays", "out_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	gains := map[string]map[string][]float64{}
	for _, g := range groups {
		gains[g] = map[string][]float64{}
		for _, b := range analysis.SuBands {
			gains[g][b] = []float64{0, 10, 50, 90, 100}
		}
	}
	share := &ShareSeries{Users: []string{"user1", "user2"}, Times: []float64{0, 3600, 7200}, Share: map[string][]float64{"user1": {0.5, 0.2, 0}, "user2": {0.5, 0.8, 0}}}
	pareto := []ParetoPanel{{Title: "FCFS", XLabel: "spread", YLabel: "wait", XRef: 1, Points: []ParetoPoint{{X: 1, Y: 2, Front: true}, {X: 2, Y: 3, Label: "BUCMA5302"}}},
		{Title: "EASY", XLabel: "spread", YLabel: "wait", XRef: nan, Points: []ParetoPoint{{X: 3, Y: 1, Front: true, Label: "BUCMA5302"}}}}
	for name, draw := range map[string]func() error{
		"cdf": func() error {
			// A count per bin: the bin of a value is the first edge ≥ it (one
			// more bin above the last edge).
			edges := []float64{0, 1, 10, 100, 1e3, 1e4, 1e5}
			counts := [][]int{{1, 0, 1, 0, 1, 0, 1, 0}, {2, 0, 0, 0, 0, 1, 0, 0}, make([]int, len(edges)+1)}
			return CDFPlot(base("cdf"), "Distribution", "waiting time (s)", series, edges, counts, 1)
		},
		"change":   func() error { return ChangeBarPlot(base("change"), "Change", "change (%)", groups, series, bars) },
		"paper":    func() error { return PaperBarPlot(base("paper"), "Values", "minutes", groups, series, bars, "thesis") },
		"estimate": func() error { return EstimateBarPlot(base("estimate"), "Satisfaction", "%", groups, series, ests, 100) },
		"gain":     func() error { return GainBoxPlot(base("gain"), "Gains", groups, groups, gains) },
		"band": func() error {
			return BandBoxPlot(base("band"), "Gains by band", "gain (%)", analysis.SuBands, groups, gains, map[string]map[string]float64{})
		},
		"line": func() error {
			return ChangeLinePlot(base("line"), "Against load", "load", "change (%)", xs, series, ests)
		},
		"paperline": func() error {
			return ChangeLinePlotWithPaper(base("paperline"), "Threshold", "threshold", "change (%)", xs, series, ests, PaperPoints{X: 0.85, Values: []float64{-10, -85, -96}, Label: "paper"})
		},
		"log": func() error { return LogLinePlot(base("log"), "ART", "jobs", "ART (s)", xs, series, ests) },
		"heat": func() error {
			return SignHeatMap(base("heat"), "Signs", []string{"reference", "0.15 of the requests wider than one host"}, groups, [][]int{{1, 2, 3, 4}, {0, 1, 2, 3}})
		},
		"share": func() error {
			return SharePlot(base("share"), "user1 late", []SharePanel{{Title: "original", Series: share}, {Title: "heterogeneous", Series: share}})
		},
		"pareto": func() error { return ParetoFigure(base("pareto"), "Pareto fronts", pareto, 2) },
		"gantt":  func() error { return GanttChart(rows, "hetero4, seed 1", base("gantt")+".png") },
	} {
		if err := draw(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !whiteBorder(t, base(name)+".png", 9) {
			t.Errorf("%s: no white margin around the figure", name)
		}
	}
}
