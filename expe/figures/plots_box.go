package figures

import (
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// BandBoxPlot draws box plots as the BUCMA paper's Figures 1–2 do: one
// group per band (x), one box per series in each group, side by side
// (data[series][band] are the values; an empty box is left out), and the
// published medians as triangles (paper[series][band]; NaN or missing:
// none). The boxes are Tukey's: whiskers at the most extreme values within
// 1.5 × IQR, the values beyond drawn one by one.
func BandBoxPlot(base, title, ylabel string, bands, series []string, data map[string]map[string][]float64, paper map[string]map[string]float64) error {
	p, stride, ticks := groupedPlot(title, ylabel, bands, len(series))
	p.Y.Min, p.Y.Max = -2, 102
	p.Y.Tick.Marker = percentTicks
	var paperPts plotter.XYs
	for si, s := range series {
		for bi, band := range bands {
			x := float64(bi)*stride + float64(si)
			if v, ok := paper[s][band]; ok && !math.IsNaN(v) {
				paperPts = append(paperPts, plotter.XY{X: x, Y: v})
			}
			vals := data[s][band]
			if len(vals) == 0 {
				continue
			}
			bp, err := plotter.NewBoxPlot(vg.Points(16), x, plotter.Values(vals))
			if err != nil {
				return err
			}
			bp.FillColor = palette[si%len(palette)]
			bp.GlyphStyle.Radius = vg.Points(1.2)
			p.Add(bp)
		}
		p.Legend.Add(s, legendSwatch{palette[si%len(palette)]})
	}
	if err := addPaperMarks(p, paperPts, "paper (median)"); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	return saveGrouped(p, base, ticks, len(bands), stride)
}
