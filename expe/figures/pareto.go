package figures

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoPoint is one point of a ParetoPanel.
type ParetoPoint struct {
	X, Y float64
	// Front marks the points of the Pareto front (drawn in colour and
	// joined by a line).
	Front bool
	// Label, when set, marks the point with its own glyph and names it in
	// the legend (the paper's weightings).
	Label string
}

// ParetoPanel is one panel of a ParetoFigure.
type ParetoPanel struct {
	Title, XLabel, YLabel string
	Points                []ParetoPoint
	// XRef draws a dashed vertical line at this x (NaN: none): the base
	// policy alone.
	XRef float64
}

// ParetoFigure draws panels of trade-offs side by side (cols per row):
// every point in grey, the Pareto front in colour joined by a line, the
// labelled points with glyphs of their own. It writes base.png and
// base.svg.
func ParetoFigure(base, title string, panels []ParetoPanel, cols int) error {
	if len(panels) == 0 {
		return fmt.Errorf("figure %s: no panel", base)
	}
	cols = max(1, min(cols, len(panels)))
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	f := newGridFigure(title, grid, vg.Points(330*float64(cols)), vg.Points(300*float64(rows)+30))
	for i, pn := range panels {
		p, err := paretoPlot(pn, f)
		if err != nil {
			return fmt.Errorf("figure %s: %w", base, err)
		}
		grid[i/cols][i%cols] = p
	}
	return f.save(base)
}

// paretoGlyphs are the glyphs of the labelled points, in order of first
// appearance.
var paretoGlyphs = []draw.GlyphDrawer{draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// paretoPlot is one panel; its legend entries go to the figure's, once
// per name.
func paretoPlot(pn ParetoPanel, f *figure) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.X.Label.Text = pn.XLabel
	p.Y.Label.Text = pn.YLabel
	var all, front plotter.XYs
	labelled := map[string]plotter.XYs{}
	var labels []string
	for _, pt := range pn.Points {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			continue
		}
		xy := plotter.XY{X: pt.X, Y: pt.Y}
		all = append(all, xy)
		if pt.Front {
			front = append(front, xy)
		}
		if pt.Label != "" {
			if _, ok := labelled[pt.Label]; !ok {
				labels = append(labels, pt.Label)
			}
			labelled[pt.Label] = append(labelled[pt.Label], xy)
		}
	}
	if len(all) == 0 {
		p.Title.Text += " (no data)"
		return p, nil
	}
	sc, err := plotter.NewScatter(all)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = color.Gray{Y: 170}
	sc.GlyphStyle.Radius = vg.Points(1.6)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(sc)
	f.add("weighting", sc)
	if len(front) > 0 {
		sort.Slice(front, func(i, j int) bool { return front[i].X < front[j].X })
		l, fs, err := plotter.NewLinePoints(front)
		if err != nil {
			return nil, err
		}
		l.Color, fs.Color = palette[0], palette[0]
		fs.GlyphStyle.Shape = draw.CircleGlyph{}
		fs.GlyphStyle.Radius = vg.Points(2.4)
		p.Add(l, fs)
		f.add("Pareto front", l, fs)
	}
	for i, lb := range labels {
		s, err := plotter.NewScatter(labelled[lb])
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = paretoGlyphs[i%len(paretoGlyphs)]
		s.GlyphStyle.Radius = vg.Points(4)
		s.GlyphStyle.Color = palette[(i+1)%len(palette)]
		p.Add(s)
		f.add(lb, s)
	}
	if !math.IsNaN(pn.XRef) {
		_, _, ymin, ymax := plotter.XYRange(all)
		v, err := plotter.NewLine(plotter.XYs{{X: pn.XRef, Y: ymin}, {X: pn.XRef, Y: ymax}})
		if err != nil {
			return nil, err
		}
		v.Color = color.Gray{Y: 80}
		v.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(v)
	}
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	_, _, ymin, ymax := plotter.XYRange(all)
	span := math.Max(ymax-ymin, 1)
	p.Y.Min, p.Y.Max = ymin-0.05*span, ymax+0.05*span
	return p, nil
}

// plainTicks are gonum's default ticks labelled with the fewest digits
// that print each value ("125", "-0.75"), not a common precision ("125.00").
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 32) // the shortest label of the tick's value, without float64's last-digit noise
		}
	}
	return ts
}
