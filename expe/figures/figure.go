package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"github.com/bucma-sched/bucma/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figure lays a report figure out: its plots in a grid, the title above
// them (wrapped to their width), the legend in a column to their right,
// outside every data area (a legend inside one covers curves, bars or the
// axis' labels, whatever the corner), and a margin around everything.
type figure struct {
	title string
	grid  [][]*plot.Plot
	// legend holds the figure's entries (none: no legend column); names
	// are the entries added through add, to add each name once.
	legend plot.Legend
	names  map[string]bool
	// w and h are the size of the figure without the legend column.
	w, h vg.Length
	// padX and padY separate the plots of a grid.
	padX, padY vg.Length
}

// Layout of every figure, in points.
const (
	figMargin     = 8  // around the figure
	figTitleGap   = 6  // between the title and the plots
	figLegendGap  = 14 // between the plots and the legend column
	figTitleSize  = 12 // font size of the title
	figLegendSize = 11 // font size of the legend
	figLegendPad  = 3  // between the legend's entries
)

// newFigure is the figure of one plot: its title and its legend's
// entries become the figure's.
func newFigure(p *plot.Plot, w, h vg.Length) *figure {
	f := newGridFigure(p.Title.Text, [][]*plot.Plot{{p}}, w, h)
	f.legend = p.Legend
	f.legend.TextStyle.Font.Size = vg.Points(figLegendSize)
	f.legend.Padding = vg.Points(figLegendPad)
	p.Title.Text = ""
	p.Legend = plot.NewLegend()
	return f
}

// newGridFigure is a figure of several plots (rows of equal length; nil
// cells are left empty), with an empty legend.
func newGridFigure(title string, grid [][]*plot.Plot, w, h vg.Length) *figure {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(figLegendSize)
	l.Padding = vg.Points(figLegendPad)
	return &figure{title: title, grid: grid, legend: l, names: map[string]bool{}, w: w, h: h, padX: vg.Points(12), padY: vg.Points(10)}
}

// add adds a legend entry, once per name.
func (f *figure) add(name string, thumbs ...plot.Thumbnailer) {
	if f.names[name] {
		return
	}
	f.names[name] = true
	f.legend.Add(name, thumbs...)
}

// legendWidth is the width of the legend column with its gap (0 without
// entries).
func (f *figure) legendWidth() vg.Length {
	w := f.legend.Rectangle(draw.Canvas{}).Size().X
	if w <= 0 {
		return 0
	}
	return w + vg.Points(figLegendGap)
}

// titleStyle is the style of a figure's title.
func titleStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(figTitleSize)
	return sty
}

// wrapText breaks s (at spaces; its own line breaks kept) into lines no
// wider than width in style sty; a word wider than width has a line of
// its own.
func wrapText(sty text.Style, s string, width vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && sty.Rectangle(line+" "+word).Size().X > width {
				out = append(out, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// layout is where a figure's parts go on its canvas.
type layout struct {
	title  string          // the title, wrapped ("" none)
	titleY vg.Length       // the top of the title
	plots  draw.Canvas     // the plots' area, below the title
	cells  [][]draw.Canvas // each plot's canvas in the plots' area
	legend draw.Canvas     // the legend's column (empty without entries)
}

// layout places the figure's parts on dc.
func (f *figure) layout(dc draw.Canvas) layout {
	lw := f.legendWidth()
	m := vg.Points(figMargin)
	area := draw.Crop(dc, m, -m, m, -m)
	var lo layout
	lo.plots = draw.Crop(area, 0, -lw, 0, 0)
	if f.title != "" {
		sty := titleStyle()
		lo.title = wrapText(sty, f.title, lo.plots.Max.X-lo.plots.Min.X)
		lo.titleY = lo.plots.Max.Y
		lo.plots.Max.Y -= sty.Rectangle(lo.title).Size().Y + vg.Points(figTitleGap)
	}
	rows, cols := len(f.grid), 0
	for _, r := range f.grid {
		cols = max(cols, len(r))
	}
	lo.cells = plot.Align(f.grid, draw.Tiles{Rows: rows, Cols: cols, PadX: f.padX, PadY: f.padY}, lo.plots)
	top := lo.plots.Max.Y
	for j, p := range f.grid[0] {
		if p != nil {
			top = p.DataCanvas(lo.cells[0][j]).Max.Y
		}
	}
	lo.legend = draw.Canvas{Canvas: dc.Canvas}
	if lw > 0 {
		lo.legend.Rectangle = vg.Rectangle{
			Min: vg.Point{X: lo.plots.Max.X + vg.Points(figLegendGap), Y: area.Min.Y},
			Max: vg.Point{X: area.Max.X, Y: top},
		}
	}
	return lo
}

// draw renders the figure in format ext ("png", "svg", ...).
func (f *figure) draw(ext string) ([]byte, error) {
	cw, err := draw.NewFormattedCanvas(f.w+f.legendWidth(), f.h, ext)
	if err != nil {
		return nil, err
	}
	dc := draw.New(cw)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	lo := f.layout(dc)
	if lo.title != "" {
		lo.plots.FillText(titleStyle(), vg.Point{X: (lo.plots.Min.X + lo.plots.Max.X) / 2, Y: lo.titleY}, lo.title)
	}
	for i, r := range f.grid {
		for j, p := range r {
			if p != nil {
				p.Draw(lo.cells[i][j])
			}
		}
	}
	if lo.legend.Size().X > 0 {
		l := f.legend
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		l.Draw(lo.legend)
	}
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// write renders the figure in the format of path's extension and writes
// it atomically.
func (f *figure) write(path string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	b, err := f.draw(ext)
	if err != nil {
		return fmt.Errorf("figure %s: %w", path, err)
	}
	return atomicfile.Write(path, b)
}

// save writes base.png and base.svg (Formats).
func (f *figure) save(base string) error {
	for _, ext := range Formats {
		if err := f.write(base + "." + ext); err != nil {
			return err
		}
	}
	return nil
}
