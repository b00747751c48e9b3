package bucma

import (
	"math"

	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/workloads"
)

// InsertedWalltime is the walltime of the paper's inserted requests (s).
const InsertedWalltime = workloads.InsertWalltime

// Published results of the BUCMA paper (bucma.txt, section 4), as the
// reproduction compares with them.

// PaperTable3 is Table 3: change of the mean waiting time of the inserted
// requests, BUCMA vs the base policy alone (%), by model, profile and base.
var PaperTable3 = map[string]map[string]map[string]float64{
	"bucma5302": {
		"imprecise": {"fcfs": 26.7, "minmin": 2053.2, "maxmin": 8.3, "easy": 20.3},
		"medium":    {"fcfs": -61.5, "minmin": 601.3, "maxmin": -7.0, "easy": -23.9},
		"precise":   {"fcfs": -97.8, "minmin": -30.9, "maxmin": -97.1, "easy": -55.8},
	},
	"bucma4303": {
		"imprecise": {"fcfs": 13.3, "minmin": 1271.4, "maxmin": 5.0, "easy": -28.6},
		"medium":    {"fcfs": -85.8, "minmin": -17.2, "maxmin": -86.1, "easy": -46.5},
		"precise":   {"fcfs": -97.3, "minmin": -14.5, "maxmin": -95.3, "easy": -55.2},
	},
}

// PaperGain is one median queue-position gain read from the paper's text:
// Text as printed, Value a point estimate (midpoint of a range).
type PaperGain struct {
	Text  string
	Value float64
}

// PaperGains are the medians of Figures 1–2 by base, model and Su band.
// The paper gives FCFS and MIN-MIN only; EASY "behaves like FCFS" and
// MAX-MIN "like MIN-MIN" (see PaperGainsLike).
var PaperGains = map[string]map[string]map[string]PaperGain{
	"fcfs": {
		"bucma5302": {"0-24": {"3–4", 3.5}, "25-49": {"≈36", 36}, "50-74": {"≈62", 62}, "75-100": {"≈97", 97}},
		"bucma4303": {"0-24": {"3–4", 3.5}, "25-49": {"≈33", 33}, "50-74": {"≈78", 78}, "75-100": {"≈98", 98}},
	},
	"minmin": {
		"bucma5302": {"0-24": {"≈67", 67}, "25-49": {"≈92", 92}, "50-74": {"≈97", 97}, "75-100": {"99–100", 99.5}},
		"bucma4303": {"0-24": {"≈67", 67}, "25-49": {"≈90", 90}, "50-74": {"≈98", 98}, "75-100": {"99–100", 99.5}},
	},
}

// PaperGainsLike says which base's published gains stand for a base the
// paper describes only in words.
var PaperGainsLike = map[string]string{"fcfs": "fcfs", "easy": "fcfs", "minmin": "minmin", "maxmin": "minmin"}

// PaperWtrust is Figures 3–4: walltime-trust relative to each base (%),
// by metric and base; Text as printed.
var PaperWtrust = map[string]map[string]PaperGain{
	"makespan": {
		"fcfs":   {"−13.6 … −14.6", -14.1},
		"minmin": {"−13.6 … −14.6", -14.1},
		"maxmin": {"−13.6 … −14.6", -14.1},
		"easy":   {"≈ −9", -9},
	},
	"waiting": {
		"fcfs": {"−91", -91}, "minmin": {"+24", 24}, "maxmin": {"−98", -98}, "easy": {"−85", -85},
	},
	"slowdown": {
		"fcfs": {"−98", -98}, "minmin": {"+7", 7}, "maxmin": {"≈ −100", -100}, "easy": {"−96", -96},
	},
}

// WtrustMetrics are the metrics of Figures 3–4, in order.
var WtrustMetrics = []string{"makespan", "waiting", "slowdown"}

// wtrustMetric extracts a Figures 3–4 metric from a run.
func wtrustMetric(name string, rd *report.RunData) float64 {
	switch name {
	case "makespan":
		return rd.Metrics.Makespan
	case "waiting":
		return rd.Metrics.MeanWait
	case "slowdown":
		return rd.Metrics.MeanSlowdown
	}
	return math.NaN()
}

// BaseTitle is the paper's name of a base policy.
func BaseTitle(b string) string {
	switch b {
	case "fcfs":
		return "FCFS"
	case "minmin":
		return "MIN-MIN"
	case "maxmin":
		return "MAX-MIN"
	case "easy":
		return "EASY"
	case "bucma5302":
		return "BUCMA5302"
	case "bucma4303":
		return "BUCMA4303"
	case "wtrust":
		return "walltime-trust"
	}
	return b
}

// PaperGainNote is what the paper's text says of one box of Figures 1–2
// beyond its median (bucma.txt, section 4.1).
type PaperGainNote struct {
	Text string
	// OutLo and OutHi bound the maxima the text gives (NaN: none).
	OutLo, OutHi float64
}

// PaperGainNotes are the text's words on the boxes of Figures 1–2, by base
// and band (both models alike): for FCFS, "in the lowest band, 0–24, the
// median gains are 3 % to 4 % in both models, with maxima in the 20 % – 60 %
// range counting the outliers", and "a considerable difference between
// the first and third quartiles in each band"; for MIN-MIN, "a strong
// overlap between the regions" and, for 75–100, "smaller variations, almost
// irrelevant between maxima and minima, in the 99 % to 100 % range".
var PaperGainNotes = map[string]map[string]PaperGainNote{
	"fcfs": {
		"0-24":   {"maxima 20–60 counting the outliers", 20, 60},
		"25-49":  {"Q1 to Q3 wide (\"considerable difference\")", math.NaN(), math.NaN()},
		"50-74":  {"Q1 to Q3 wide (\"considerable difference\")", math.NaN(), math.NaN()},
		"75-100": {"median tending to 100", math.NaN(), math.NaN()},
	},
	"minmin": {
		"0-24":   {"strong overlap between the bands", math.NaN(), math.NaN()},
		"25-49":  {"strong overlap between the bands", math.NaN(), math.NaN()},
		"50-74":  {"median tending to 100", math.NaN(), math.NaN()},
		"75-100": {"minimum to maximum within 99–100", 99, 100},
	},
}
