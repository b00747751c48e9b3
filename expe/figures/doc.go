// Package figures draws the figures of the reports, each as a PNG and an
// SVG file (Formats) at a base path without extension: bar charts of
// changes and estimates with their 95 % intervals (ChangeBarPlot,
// EstimateBarPlot, PaperBarPlot, beside the published values), lines
// against a factor (ChangeLinePlot, LogLinePlot), box plots (GainBoxPlot,
// BandBoxPlot), distributions (CDFPlot), Gantt charts of a run's jobs
// (GanttChart), shares of a platform over time (SharePlot), maps of signs
// (SignHeatMap) and Pareto fronts (ParetoFigure). The numbers come from
// package analysis; the legend of each figure sits outside its plots.
package figures
