package figures

import (
	"fmt"
	"image/color"
	"math"

	"github.com/bucma-sched/bucma/expe/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EstimateBarPlot draws grouped bars of estimates (means with their 95 %
// confidence intervals as error bars), one colour per series, from 0 up,
// with a dashed horizontal reference line at ref (NaN: none). ests[s][g]
// is the estimate of series s in group g.
func EstimateBarPlot(base, title, ylabel string, groups, series []string, ests [][]analysis.Estimate, ref float64) error {
	p, stride, ticks := groupedPlot(title, ylabel, groups, len(series))
	hi := 0.0
	if !math.IsNaN(ref) {
		hi = ref
	}
	for si, s := range series {
		var errPts errPoints
		var legend plot.Thumbnailer = legendSwatch{palette[si%len(palette)]}
		for gi, e := range ests[si] {
			if e.N == 0 || math.IsNaN(e.Mean) {
				continue
			}
			x := float64(gi)*stride + float64(si)
			bc, err := addBar(p, x, e.Mean, vg.Points(12), palette[si%len(palette)])
			if err != nil {
				return err
			}
			legend = bc
			top := e.Mean
			if !math.IsNaN(e.Half) {
				errPts = append(errPts, errPoint{x, e.Mean, e.Half})
				top += e.Half
			}
			hi = math.Max(hi, top)
		}
		p.Legend.Add(s, legend)
		if err := addErrorBars(p, errPts); err != nil {
			return err
		}
	}
	if !math.IsNaN(ref) {
		l := plotter.NewFunction(func(float64) float64 { return ref })
		l.Color = color.Gray{Y: 60}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	p.Add(plotter.NewGrid())
	p.Y.Min, p.Y.Max = 0, math.Max(hi, 1)*1.05
	return saveGrouped(p, base, ticks, len(groups), stride)
}

// SharePanel is one panel of a SharePlot: each user's share of the grid's
// power over time, and the share each user owns.
type SharePanel struct {
	Title  string
	Series *ShareSeries
	Owned  map[string]float64 // fraction of the grid's power each user owns
}

// SharePlot draws panels side by side: per user, their share of the grid's
// power (%) against time (hours) as a step line, and the share they own as
// a dashed line of the same colour. The panels share their axes' ranges.
func SharePlot(base, title string, panels []SharePanel) error {
	if len(panels) == 0 {
		return fmt.Errorf("figure %s: no panel", base)
	}
	tmax := 0.0
	for _, pn := range panels {
		if ts := pn.Series.Times; len(ts) > 0 {
			tmax = math.Max(tmax, ts[len(ts)-1]/3600)
		}
	}
	if tmax == 0 {
		tmax = 1
	}
	var plots []*plot.Plot
	f := newGridFigure(title, nil, vg.Points(400*float64(len(panels))), vg.Points(340))
	for _, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text = "time (h)"
		p.Y.Label.Text = "share of the grid's power (%)"
		for ui, u := range pn.Series.Users {
			col := palette[ui%len(palette)]
			var pts plotter.XYs
			for k, t := range pn.Series.Times {
				pts = append(pts, plotter.XY{X: t / 3600, Y: 100 * pn.Series.Share[u][k]})
			}
			if len(pts) > 0 {
				l, err := plotter.NewLine(pts)
				if err != nil {
					return err
				}
				l.StepStyle = plotter.PostStep
				l.Color = col
				l.Width = vg.Points(1.2)
				p.Add(l)
				f.add(u, l)
			}
			if own, ok := pn.Owned[u]; ok {
				ref := plotter.NewFunction(func(float64) float64 { return 100 * own })
				ref.Color = col
				ref.Width = vg.Points(0.8)
				ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(ref)
			}
		}
		p.Add(plotter.NewGrid())
		p.X.Min, p.X.Max = 0, tmax*1.02
		p.Y.Min, p.Y.Max = 0, 102
		p.Y.Tick.Marker = percentTicks
		plots = append(plots, p)
	}
	f.add("owned share (dashed)", ownedThumb{})
	f.grid = [][]*plot.Plot{plots}
	return f.save(base)
}

// ownedThumb is the legend thumbnail of the dashed lines of owned shares.
type ownedThumb struct{}

func (ownedThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 80}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, c.Min.X, y, c.Max.X, y)
}

// ShareSeries is each user's share of the grid's power over time, a step
// function: on [Times[k], Times[k+1]) user u runs jobs on hosts whose speeds
// add up to Share[u][k] × the grid's total speed. After the last time every
// share is 0.
type ShareSeries struct {
	Users []string
	Times []float64
	Share map[string][]float64
}

// Mean is u's share averaged over [from, to] (NaN when the interval is
// empty).
func (s *ShareSeries) Mean(u string, from, to float64) float64 {
	if !(to > from) {
		return math.NaN()
	}
	sh := s.Share[u]
	sum := 0.0
	for k, t := range s.Times {
		end := to
		if k+1 < len(s.Times) {
			end = math.Min(end, s.Times[k+1])
		}
		if lo := math.Max(t, from); end > lo {
			sum += sh[k] * (end - lo)
		}
	}
	return sum / (to - from)
}

// PaperBarPlot draws grouped bars of values with their 95 % intervals and
// published values as triangles (paperLabel in the legend), the y axis
// from 0 (or below for negative values).
func PaperBarPlot(base, title, ylabel string, groups, series []string, bars [][]Bar, paperLabel string) error {
	p, stride, ticks := groupedPlot(title, ylabel, groups, len(series))
	lo, hi := 0.0, 1.0
	for _, bs := range bars {
		for _, b := range bs {
			h := 0.0
			if !math.IsNaN(b.Est.Half) {
				h = b.Est.Half
			}
			if !math.IsNaN(b.Est.Mean) {
				lo, hi = math.Min(lo, b.Est.Mean-h), math.Max(hi, b.Est.Mean+h)
			}
			if !math.IsNaN(b.Paper) {
				lo, hi = math.Min(lo, b.Paper), math.Max(hi, b.Paper)
			}
		}
	}
	var paperPts plotter.XYs
	for si, s := range series {
		var errPts errPoints
		var legend plot.Thumbnailer = legendSwatch{palette[si%len(palette)]}
		for gi, b := range bars[si] {
			x := float64(gi)*stride + float64(si)
			if !math.IsNaN(b.Paper) {
				paperPts = append(paperPts, plotter.XY{X: x, Y: b.Paper})
			}
			if math.IsNaN(b.Est.Mean) {
				continue
			}
			bc, err := addBar(p, x, b.Est.Mean, vg.Points(math.Max(4, 60/float64(len(series)))), palette[si%len(palette)])
			if err != nil {
				return err
			}
			legend = bc
			if !math.IsNaN(b.Est.Half) && b.Est.Half > 1e-9*math.Max(1, math.Abs(b.Est.Mean)) {
				errPts = append(errPts, errPoint{x, b.Est.Mean, b.Est.Half})
			}
		}
		p.Legend.Add(s, legend)
		if err := addErrorBars(p, errPts); err != nil {
			return err
		}
	}
	if err := addPaperMarks(p, paperPts, paperLabel); err != nil {
		return err
	}
	span := hi - lo
	p.Y.Min, p.Y.Max = lo-0.02*span, hi+0.05*span
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 80}
	p.Add(zero, plotter.NewGrid())
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -1, float64(len(groups))*stride-1
	width := math.Max(560, 16*float64(len(groups))*stride)
	return saveFigure(p, base, vg.Points(width), vg.Points(320))
}

// CDFPlot draws empirical distribution functions on a logarithmic x axis,
// one line per series: at each edge x ≥ xmin, the share of the series'
// values at most x. The values come as counts per bin: counts[s][i] counts
// the values of series s at most edges[i] and above edges[i-1], the last
// count those above every edge. A series without values is left out.
func CDFPlot(base, title, xlabel string, series []string, edges []float64, counts [][]int, xmin float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "share of the jobs (≤ x)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	xmax := xmin * 10
	for si, s := range series {
		total := 0
		for _, n := range counts[si] {
			total += n
		}
		if total == 0 {
			continue
		}
		var pts plotter.XYs
		cum := 0
		for i, e := range edges {
			cum += counts[si][i]
			if e < xmin {
				continue
			}
			pts = append(pts, plotter.XY{X: e, Y: float64(cum) / float64(total)})
			if counts[si][i] > 0 {
				xmax = math.Max(xmax, e)
			}
		}
		if counts[si][len(edges)] > 0 {
			xmax = edges[len(edges)-1]
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = palette[si%len(palette)]
		l.Width = vg.Points(1.5)
		l.Dashes = [][]vg.Length{nil, {vg.Points(5), vg.Points(2)}, {vg.Points(1), vg.Points(2)}}[si/len(palette)%3]
		p.Add(l)
		p.Legend.Add(s, l)
	}
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max = xmin, xmax*1.2
	p.Y.Min, p.Y.Max = 0, 1.02
	return saveFigure(p, base, vg.Points(560), vg.Points(340))
}
