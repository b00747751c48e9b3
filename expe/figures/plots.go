package figures

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette used by every figure (colour-blind safe, Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{0, 158, 115, 255},   // green
	color.RGBA{204, 121, 167, 255}, // purple
	color.RGBA{86, 180, 233, 255},  // sky
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{240, 228, 66, 255},  // yellow
	color.RGBA{0, 0, 0, 255},       // black
	color.RGBA{128, 128, 128, 255}, // grey
}

// Formats are the formats every report figure is written in.
var Formats = []string{"png", "svg"}

// saveFigure writes p as base.png and base.svg, laid out as every report
// figure (figure).
func saveFigure(p *plot.Plot, base string, w, h vg.Length) error {
	return newFigure(p, w, h).save(base)
}

// GainBoxPlot draws box plots of queue-position gains: one group of boxes
// per group label (a base policy), one box per Su band in each group.
// data[group][band] are the gains. Empty boxes are left out.
func GainBoxPlot(base, title string, groups, groupTitles []string, data map[string]map[string][]float64) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "queue-position gain at submission (%)"
	p.Y.Min, p.Y.Max = -2, 102
	p.Y.Tick.Marker = percentTicks
	stride := float64(len(analysis.SuBands) + 1)
	var ticks []plot.Tick
	for gi, g := range groups {
		center := float64(gi)*stride + float64(len(analysis.SuBands)-1)/2
		ticks = append(ticks, plot.Tick{Value: center, Label: groupTitles[gi]})
		for bi, band := range analysis.SuBands {
			vals := data[g][band]
			if len(vals) == 0 {
				continue
			}
			bp, err := plotter.NewBoxPlot(vg.Points(12), float64(gi)*stride+float64(bi), plotter.Values(vals))
			if err != nil {
				return err
			}
			bp.FillColor = palette[bi%len(palette)]
			bp.GlyphStyle.Radius = vg.Points(1.2)
			p.Add(bp)
		}
	}
	for bi, band := range analysis.SuBands {
		p.Legend.Add("Su "+band, legendSwatch{palette[bi%len(palette)]})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -1, float64(len(groups))*stride-1
	p.Add(plotter.NewGrid())
	return saveFigure(p, base, vg.Points(560), vg.Points(320))
}

// percentTicks are the ticks of an axis of percentages from 0 to 100.
var percentTicks = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})

// legendSwatch is a legend thumbnail of one colour.
type legendSwatch struct{ c color.Color }

func (s legendSwatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.c, c.ClipPolygonY(pts))
}

// Bar is one bar of a ChangeBarPlot.
type Bar struct {
	Group string // x group label
	Est   analysis.Estimate
	Paper float64 // published value (NaN: none)
}

// ChangeBarPlot draws grouped bars of relative changes (%) with 95 %
// confidence-interval error bars and the published values as triangles.
// series names the bars inside each group (one colour each); bars[s] are
// the bars of series s, in group order.
func ChangeBarPlot(base, title, ylabel string, groups []string, series []string, bars [][]Bar) error {
	p, stride, ticks := groupedPlot(title, ylabel, groups, len(series))
	// The y range follows our values; published values far outside it (the
	// paper's +2053 %) are drawn at the edge with their value written.
	lo, hi := 0.0, 0.0
	for _, bs := range bars {
		for _, b := range bs {
			if !math.IsNaN(b.Est.Mean) {
				h := 0.0
				if !math.IsNaN(b.Est.Half) {
					h = b.Est.Half
				}
				lo, hi = math.Min(lo, b.Est.Mean-h), math.Max(hi, b.Est.Mean+h)
			}
		}
	}
	span := math.Max(hi-lo, 10)
	clipLo, clipHi := lo-0.05*span, hi+0.05*span
	for _, bs := range bars {
		for _, b := range bs {
			if !math.IsNaN(b.Paper) && b.Paper < hi+3*span && b.Paper > lo-3*span {
				clipLo, clipHi = math.Min(clipLo, b.Paper-0.05*span), math.Max(clipHi, b.Paper+0.05*span)
			}
		}
	}
	var paperPts plotter.XYs
	var clipped plotter.XYLabels
	for si, s := range series {
		var errPts errPoints
		var legend plot.Thumbnailer
		for gi, b := range bars[si] {
			x := float64(gi)*stride + float64(si)
			if !math.IsNaN(b.Paper) {
				y := math.Max(clipLo, math.Min(clipHi, b.Paper))
				paperPts = append(paperPts, plotter.XY{X: x, Y: y})
				if y != b.Paper {
					clipped.XYs = append(clipped.XYs, plotter.XY{X: x, Y: y})
					clipped.Labels = append(clipped.Labels, fmt.Sprintf(" %+.0f", b.Paper))
				}
			}
			if math.IsNaN(b.Est.Mean) {
				continue
			}
			bc, err := addBar(p, x, b.Est.Mean, vg.Points(14), palette[si%len(palette)])
			if err != nil {
				return err
			}
			legend = bc
			if !math.IsNaN(b.Est.Half) {
				errPts = append(errPts, errPoint{x, b.Est.Mean, b.Est.Half})
			}
		}
		if legend == nil {
			legend = legendSwatch{palette[si%len(palette)]}
		}
		p.Legend.Add(s, legend)
		if err := addErrorBars(p, errPts); err != nil {
			return err
		}
	}
	if err := addPaperMarks(p, paperPts, "paper"); err != nil {
		return err
	}
	if len(clipped.XYs) > 0 {
		lb, err := plotter.NewLabels(clipped)
		if err != nil {
			return err
		}
		p.Add(lb)
	}
	p.Y.Min, p.Y.Max = clipLo, clipHi
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 80}
	p.Add(zero, plotter.NewGrid())
	return saveGrouped(p, base, ticks, len(groups), stride)
}

// groupedPlot starts a plot of n bars per group: ticks at the groups'
// middles, groups stride apart.
func groupedPlot(title, ylabel string, groups []string, n int) (p *plot.Plot, stride float64, ticks []plot.Tick) {
	p = plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	stride = float64(n + 1)
	for gi, g := range groups {
		ticks = append(ticks, plot.Tick{Value: float64(gi)*stride + float64(n-1)/2, Label: g})
	}
	return p, stride, ticks
}

// addBar adds one bar of height y at x.
func addBar(p *plot.Plot, x, y float64, width vg.Length, c color.Color) (*plotter.BarChart, error) {
	bc, err := plotter.NewBarChart(plotter.Values{y}, width)
	if err != nil {
		return nil, err
	}
	bc.XMin = x
	bc.Color = c
	bc.LineStyle.Width = 0
	p.Add(bc)
	return bc, nil
}

// addErrorBars adds the error bars of pts, if any.
func addErrorBars(p *plot.Plot, pts errPoints) error {
	if len(pts) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	p.Add(eb)
	return nil
}

// saveGrouped sets a grouped plot's x axis and saves it.
func saveGrouped(p *plot.Plot, base string, ticks []plot.Tick, ngroups int, stride float64) error {
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -1, float64(ngroups)*stride-1
	return saveFigure(p, base, vg.Points(560), vg.Points(320))
}

type errPoint struct{ x, y, half float64 }
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].half, e[i].half }

// ---------------------------------------------------------------- Gantt

// GanttChart draws a run's schedule: hosts on y, time on x, one rectangle
// per job and contiguous host interval. Rejected jobs are not drawn. The
// format follows the file extension (.png, .svg, .pdf).
func GanttChart(rows []analysis.JobRow, title, path string) error {
	g := &ganttPlotter{}
	maxHost := -1
	for i := range rows {
		j := &rows[i]
		if j.Rejected() || j.Alloc == "" {
			continue
		}
		hosts, err := j.Hosts()
		if err != nil {
			return fmt.Errorf("gantt: job %s: %w", j.ID, err)
		}
		col := jobColor(j.ID)
		for _, iv := range hosts.Intervals() {
			g.rects = append(g.rects, ganttRect{x0: j.Start, x1: j.Finish, y0: float64(iv[0]) - 0.45, y1: float64(iv[1]) + 0.45, c: col})
			if iv[1] > maxHost {
				maxHost = iv[1]
			}
		}
	}
	if len(g.rects) == 0 {
		return fmt.Errorf("gantt: no job with an allocation to draw")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "host (resource id)"
	p.Add(g)
	p.Y.Min, p.Y.Max = -0.5, float64(maxHost)+0.5
	h := vg.Points(math.Max(240, math.Min(1200, 12*float64(maxHost+1)+80)))
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg", "pdf", "eps", "jpg", "jpeg", "tif", "tiff":
	default:
		return fmt.Errorf("gantt: %s: unsupported format %q (use .png or .svg)", path, ext)
	}
	return newFigure(p, vg.Points(800), h).write(path)
}

type ganttRect struct {
	x0, x1, y0, y1 float64
	c              color.Color
}

type ganttPlotter struct{ rects []ganttRect }

func (g *ganttPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	outline := len(g.rects) <= 2000 // outlines would hide the colours of large runs
	for _, r := range g.rects {
		pts := []vg.Point{
			{X: trX(r.x0), Y: trY(r.y0)}, {X: trX(r.x0), Y: trY(r.y1)},
			{X: trX(r.x1), Y: trY(r.y1)}, {X: trX(r.x1), Y: trY(r.y0)},
		}
		c.FillPolygon(r.c, c.ClipPolygonXY(pts))
		if outline {
			c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 40}, Width: vg.Points(0.2)}, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

func (g *ganttPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, r := range g.rects {
		xmin, xmax = math.Min(xmin, r.x0), math.Max(xmax, r.x1)
		ymin, ymax = math.Min(ymin, r.y0), math.Max(ymax, r.y1)
	}
	return
}

// jobColor picks a stable pastel colour for a job id.
func jobColor(id string) color.Color {
	h := fnv.New32a()
	h.Write([]byte(id))
	v := h.Sum32()
	return color.RGBA{uint8(120 + v%120), uint8(120 + (v>>8)%120), uint8(120 + (v>>16)%120), 255}
}

// ChangeLinePlot draws relative changes (%) against a numeric x (the load
// level), one line per series with 95 % confidence-interval error bars.
// ests[s][i] is the estimate of series s at xs[i].
func ChangeLinePlot(base, title, xlabel, ylabel string, xs []float64, series []string, ests [][]analysis.Estimate) error {
	return linePlot(base, title, xlabel, ylabel, xs, series, ests, false, nil)
}

// PaperPoints are published values a line plot marks beside its series: a
// triangle of series s's colour at (X, Values[s]) (NaN: none).
type PaperPoints struct {
	// X is where the paper measured (its parameter's value).
	X float64
	// Values are the paper's values, one per series.
	Values []float64
	// Label names the triangles in the legend ("the paper (at 80 %)").
	Label string
}

// ChangeLinePlotWithPaper is ChangeLinePlot with the paper's values marked
// as triangles.
func ChangeLinePlotWithPaper(base, title, xlabel, ylabel string, xs []float64, series []string, ests [][]analysis.Estimate, paper PaperPoints) error {
	return linePlot(base, title, xlabel, ylabel, xs, series, ests, false, &paper)
}

// LogLinePlot draws positive values (a response time) against a numeric x
// on a logarithmic y axis, one line per series, without error bars (the
// report's tables give the intervals).
func LogLinePlot(base, title, xlabel, ylabel string, xs []float64, series []string, ests [][]analysis.Estimate) error {
	return linePlot(base, title, xlabel, ylabel, xs, series, ests, true, nil)
}

func linePlot(base, title, xlabel, ylabel string, xs []float64, series []string, ests [][]analysis.Estimate, logY bool, paper *PaperPoints) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	lo, hi := 0.0, 0.0
	for _, es := range ests {
		for _, e := range es {
			if !math.IsNaN(e.Mean) {
				h := 0.0
				if !math.IsNaN(e.Half) {
					h = e.Half
				}
				lo, hi = math.Min(lo, e.Mean-h), math.Max(hi, e.Mean+h)
			}
		}
	}
	if paper != nil && !logY {
		for _, v := range paper.Values {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	span := math.Max(hi-lo, 1)
	p.Y.Min, p.Y.Max = lo-0.05*span, hi+0.05*span
	if logY {
		lo, hi = math.Inf(1), 0
		for _, es := range ests {
			for _, e := range es {
				if e.Mean > 0 {
					lo, hi = math.Min(lo, e.Mean), math.Max(hi, e.Mean)
				}
			}
		}
		if !(hi > 0) {
			lo, hi = 1, 10
		}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	}
	for si, s := range series {
		var pts plotter.XYs
		var errs errPoints
		for i, e := range ests[si] {
			if math.IsNaN(e.Mean) || logY && !(e.Mean > 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: xs[i], Y: e.Mean})
			if !math.IsNaN(e.Half) && !logY {
				errs = append(errs, errPoint{xs[i], e.Mean, e.Half})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		col := palette[si%len(palette)]
		l.Color, sc.Color = col, col
		l.Width = vg.Points(1.5)
		p.Add(l, sc)
		p.Legend.Add(s, l, sc)
		if len(errs) > 0 {
			eb, err := plotter.NewYErrorBars(errs)
			if err != nil {
				return err
			}
			eb.Color = col
			p.Add(eb)
		}
	}
	if paper != nil && !logY {
		var legend *plotter.Scatter
		for si, v := range paper.Values {
			if si >= len(series) || math.IsNaN(v) {
				continue
			}
			sc, err := plotter.NewScatter(plotter.XYs{{X: paper.X, Y: v}})
			if err != nil {
				return err
			}
			sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = draw.PyramidGlyph{}, vg.Points(4.5)
			sc.GlyphStyle.Color = palette[si%len(palette)]
			p.Add(sc)
			legend = sc
		}
		if legend != nil {
			gray := *legend
			gray.GlyphStyle.Color = color.Gray{Y: 80}
			p.Legend.Add(paper.Label, &gray)
		}
	}
	if logY {
		p.Add(plotter.NewGrid())
	} else {
		zero := plotter.NewFunction(func(float64) float64 { return 0 })
		zero.Color = color.Gray{Y: 80}
		p.Add(zero, plotter.NewGrid())
	}
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)} // as a plan prints a load level
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if len(xs) > 0 {
		xlo, xhi := xs[0], xs[0]
		for _, x := range xs {
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
		pad := math.Max((xhi-xlo)*0.08, 0.02)
		p.X.Min, p.X.Max = xlo-pad, xhi+pad
	}
	return saveFigure(p, base, vg.Points(560), vg.Points(320))
}

// ---------------------------------------------------------------- sign heat map

// States of a SignHeatMap cell: a published change compared with ours.
const (
	SignNone       = iota // no value of ours
	SignAgree             // same sign, our interval excludes 0
	SignAgreeNS           // same sign, our interval contains 0
	SignOppositeNS        // opposite sign, our interval contains 0
	SignOpposite          // opposite sign, our interval excludes 0
)

// signColors are the colours of the heat map's cell states (SignNone ...
// SignOpposite).
var signColors = []color.Color{
	color.Gray{Y: 200},
	color.RGBA{0, 130, 80, 255},
	color.RGBA{150, 215, 170, 255},
	color.RGBA{240, 170, 150, 255},
	color.RGBA{200, 50, 30, 255},
}

// signNames name the cell states in the heat map's legend.
var signNames = []string{"no data", "paper's sign, significant", "paper's sign", "opposite sign", "opposite sign, significant"}

// SignHeatMap draws one row per condition and one column per published
// change, each cell coloured by its state (SignNone ... SignOpposite):
// grid[row][col].
func SignHeatMap(base, title string, rows, cols []string, grid [][]int) error {
	if len(rows) == 0 || len(cols) == 0 {
		return fmt.Errorf("heat map %s: nothing to draw", base)
	}
	h := &heatPlotter{grid: grid, ncols: len(cols)}
	p := plot.New()
	p.Add(h)
	var xt, yt []plot.Tick
	for i, c := range cols {
		xt = append(xt, plot.Tick{Value: float64(i) + 0.5, Label: c})
	}
	for i, r := range rows {
		// the first condition on top
		yt = append(yt, plot.Tick{Value: float64(len(rows)-1-i) + 0.5, Label: r})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.X.Min, p.X.Max = 0, float64(len(cols))
	p.Y.Min, p.Y.Max = 0, float64(len(rows))
	p.Title.Text = title
	// The cells fill the plot: the legend, beside it, names the colours.
	for st := SignAgree; st <= SignOpposite; st++ {
		p.Legend.Add(signNames[st], legendSwatch{signColors[st]})
	}
	p.Legend.Add(signNames[SignNone], legendSwatch{signColors[SignNone]})
	w := vg.Points(math.Max(480, 22*float64(len(cols))+300))
	ht := vg.Points(18*float64(len(rows)) + 260)
	return saveFigure(p, base, w, ht)
}

type heatPlotter struct {
	grid  [][]int
	ncols int
}

func (h *heatPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(h.grid)
	for i, row := range h.grid {
		y0 := float64(n - 1 - i)
		for j, st := range row {
			if st < 0 || st >= len(signColors) {
				st = SignNone
			}
			x0 := float64(j)
			pts := []vg.Point{
				{X: trX(x0), Y: trY(y0)}, {X: trX(x0), Y: trY(y0 + 1)},
				{X: trX(x0 + 1), Y: trY(y0 + 1)}, {X: trX(x0 + 1), Y: trY(y0)},
			}
			c.FillPolygon(signColors[st], pts)
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)}, append(pts, pts[0]))
		}
	}
}

func (h *heatPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, float64(h.ncols), 0, float64(len(h.grid))
}

// addPaperMarks draws a source's published values as black triangles,
// named label in the legend (nothing when pts is empty).
func addPaperMarks(p *plot.Plot, pts plotter.XYs, label string) error {
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Shape = draw.PyramidGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	sc.GlyphStyle.Color = color.Black
	p.Add(sc)
	p.Legend.Add(label, sc)
	return nil
}
