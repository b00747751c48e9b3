package doctest

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// The findings docs/reproducing.md states come from the reports of the
// campaigns it names, at the scale it states: TestDocNumbers runs (or
// resumes) those campaigns with a bucma binary, writes their reports and
// checks that every number the page quotes is there. The full campaigns
// take hours on 2 cores (bucma-weights alone 5740 runs): the test runs
// when BUCMA_DOC_NUMBERS names the directory that keeps them (make
// doc-numbers), where a campaign already complete is only reported again;
// BUCMA_DOC_NUMBERS_PLANS=NAME,... checks some of them; BUCMA is the
// binary (default: built from this checkout). Each check is logged with the
// report's line ("ok") or fails ("MISSING").

// docCampaign is a campaign the page names: a built-in plan and the
// arguments of its bucma expe run.
type docCampaign struct {
	name, plan string
	args       []string
}

var docCampaigns = []docCampaign{
	{"bucma-model", "bucma-model", nil},
	{"walltime-trust", "walltime-trust", nil},
	{"walltime-trust-threshold", "walltime-trust-threshold", nil},
	{"walltime-trust-threshold-quick", "walltime-trust-threshold", []string{"--quick"}},
	{"bucma-weights", "bucma-weights", nil},
	{"bucma-weights-quick", "bucma-weights", []string{"--quick"}},
	{"bucma-sensitivity", "bucma-sensitivity", []string{"--seeds", "10"}},
	{"walltime-trust-sensitivity", "walltime-trust-sensitivity", []string{"--seeds", "10"}},
	{"bucma-sensitivity-quick", "bucma-sensitivity", []string{"--quick"}},
	{"walltime-trust-sensitivity-quick", "walltime-trust-sensitivity", []string{"--quick"}},
	{"walltime-trust-sensitivity-5", "walltime-trust-sensitivity", nil},
	{"sge", "sge", nil},
	{"gang", "gang", nil},
	{"bot", "bot", nil},
	{"prio", "prio", nil},
}

// docCheck is one finding of the page: the campaign whose report holds it,
// what the page says, and how its report shows it (find returns the
// report's line or what it found, and whether the number is there).
type docCheck struct {
	campaign, what string
	find           func(report string) (string, bool)
}

// contains: a line of the report contains text.
func contains(text string) func(string) (string, bool) {
	return func(report string) (string, bool) {
		for _, l := range strings.Split(report, "\n") {
			if strings.Contains(l, text) {
				return l, true
			}
		}
		return text, false
	}
}

// row: the first line that starts with start (a table's row) contains
// text.
func row(start, text string) func(string) (string, bool) {
	return func(report string) (string, bool) {
		for _, l := range strings.Split(report, "\n") {
			if strings.HasPrefix(l, start) {
				return l, strings.Contains(l, text)
			}
		}
		return fmt.Sprintf("no row %s", start), false
	}
}

var docChecks = []docCheck{
	// What the full campaigns show: bucma-model (10 seeds).
	{"bucma-model", "FCFS alone saturates on 10 of 10 seeds, utilization 0.47, offered 0.73", contains("| 0.470 ± 0.013 | 0.73 ± 0.00 | **yes**, 10 of 10 runs")},
	{"bucma-model", "FCFS's mean wait 1 949 494 s", contains("| fcfs | 10 | 10087878 ± 409338 | 1949494 ± 172177 |")},
	{"bucma-model", "minmin never saturates", row("| minmin | 10 |", "| no |")},
	{"bucma-model", "maxmin never saturates", row("| maxmin | 10 |", "| no |")},
	{"bucma-model", "easy never saturates", row("| easy | 10 |", "| no |")},
	{"bucma-model", "bucma5302-minmin never saturates", row("| bucma5302-minmin | 10 |", "| no |")},
	{"bucma-model", "bucma4303-minmin never saturates", row("| bucma4303-minmin | 10 |", "| no |")},
	{"bucma-model", "bucma5302-maxmin never saturates", row("| bucma5302-maxmin | 10 |", "| no |")},
	{"bucma-model", "bucma4303-maxmin saturates on seed 4 alone", row("| bucma4303-maxmin | 10 |", "**yes**, 1 of 10 runs (seed 4:")},
	{"bucma-model", "bucma5302-easy saturates on seed 4 alone", row("| bucma5302-easy | 10 |", "**yes**, 1 of 10 runs (seed 4:")},
	{"bucma-model", "bucma4303-easy saturates on seed 4 alone", row("| bucma4303-easy | 10 |", "**yes**, 1 of 10 runs (seed 4:")},
	{"bucma-model", "Table 3: 17 of 24 signs, 3 opposite and significant", contains("**Direction.** 17 of 24 published changes have the same sign here (71 %); 3 have the opposite sign with a 95 % interval that excludes 0")},
	{"bucma-model", "BUCMA5302 imprecise over FCFS", contains("ours -47.5 ± 28.1 % [9/10]*†, paper +26.7")},
	{"bucma-model", "BUCMA5302 imprecise over EASY", contains("ours -34.4 ± 22.1 % [8/10]*†, paper +20.3")},
	{"bucma-model", "BUCMA4303 imprecise over FCFS", contains("ours -58.9 ± 23.0 % [9/10]*†, paper +13.3")},
	{"bucma-model", "gains grow with the band, 8 of 8", contains("does not decrease from one band to the next in 8 of 8 (model, base) pairs")},
	{"bucma-model", "20 of 32 medians within 15 points", contains("**Queue-position gains.** 20 of 32 medians are within 15 points")},
	{"bucma-model", "MIN-MIN 0-24, BUCMA5302: median 41.7 (paper ≈67)", contains("| BUCMA5302 | 0-24 | 39013 | 20.8 | 41.7 | 64.7 | 0.0 – 100.0 | none | median ≈67;")},
	{"bucma-model", "MIN-MIN 0-24, BUCMA4303: median 41.2", contains("| BUCMA4303 | 0-24 | 38297 | 20.0 | 41.2 | 65.6 | 0.0 – 100.0 | none | median ≈67;")},
	{"bucma-model", "MAX-MIN 0-24, BUCMA5302: median 33.3", contains("| BUCMA5302 | 0-24 | 37430 | 12.9 | 33.3 | 58.7 | 0.0 – 100.0 | none | ~median ≈67;")},
	{"bucma-model", "MAX-MIN 0-24, BUCMA4303: median 33.3", contains("| BUCMA4303 | 0-24 | 37184 | 13.3 | 33.3 | 57.1 | 0.0 – 100.0 | none | ~median ≈67;")},
	{"bucma-model", "FCFS 0-24 outliers, BUCMA5302", contains("| FCFS | BUCMA5302 | 36113 | 2.1 | 6.6 | 4845 (13.4 %) | 1627 | 5 | 100.0 |")},
	{"bucma-model", "FCFS 0-24 outliers, BUCMA4303", contains("| FCFS | BUCMA4303 | 36813 | 6.8 | 33.1 | 1543 (4.2 %) | 1342 | 201 | 100.0 |")},
	{"bucma-model", "claim 1: FCFS 0-24 differs", contains("| FCFS | 0-24 | -5.7 ± 3.5 | [10/10]* | 0.002 | **yes** |")},
	{"bucma-model", "claim 1: 1 of 8, 3 of 16", contains("in 1 of the 8 cells of FCFS and MIN-MIN (the paper's figures) and in 3 of 16 over the four bases")},
	{"bucma-model", "claim 1: EASY 0-24 differs", contains("| EASY | 0-24 | -8.0 ± 2.3 | [10/10]* | 0.002 | **yes** |")},
	{"bucma-model", "claim 1: EASY 25-49 differs", contains("| EASY | 25-49 | +4.4 ± 2.6 | [10/10]* | 0.002 | **yes** |")},
	{"bucma-model", "claim 1: FCFS 25-49, +6.9 points, p = 0.131", contains("| FCFS | 25-49 | +6.9 ± 6.4 | [6/10]* | 0.131 | no |")},
	{"bucma-model", "claim 1: FCFS 50-74, +6.9 points, p = 0.055", contains("| FCFS | 50-74 | +6.9 ± 5.5 | [6/10]* | 0.055 | no |")},
	{"bucma-model", "claim 1: the 13 other cells differ by at most 6.9 points", claim1Others},
	{"bucma-model", "claim 2 holds over FCFS", contains("| FCFS | +124.5 / +110.6 | +11.4 ± 7.6 | [9/10]* | 0.006 |")},
	{"bucma-model", "claim 2: 1 of 4", contains("significantly the larger over 1 of the 4 bases, significantly the smaller over 0")},
	{"bucma-model", "claim 2, MIN-MIN: p = 0.375, the paper's amplitudes 798 points apart", row("| MIN-MIN | +2084.1 / +1285.9 |", "| [7/10] | 0.375 |")},
	{"bucma-model", "claim 2, MAX-MIN: p = 0.922, 5 points apart", row("| MAX-MIN | +105.4 / +100.3 |", "| [5/10] | 0.922 |")},
	{"bucma-model", "claim 2, EASY: p = 0.375", row("| EASY | +76.1 / +26.6 |", "| [7/10] | 0.375 |")},
	// What the full campaigns show: walltime-trust (10 seeds).
	{"walltime-trust", "9 of 12 signs, 2 opposite and significant", contains("**Direction.** 9 of 12 published changes have the same sign here (75 %); 2 have the opposite sign")},
	{"walltime-trust", "waiting vs EASY", contains("+62.8 ± 15.5 % [10/10]* (−85)")},
	{"walltime-trust", "slowdown vs EASY", contains("+68.2 ± 18.8 % [10/10]* (−96)")},
	{"walltime-trust", "makespan vs FCFS; vs the others −0.6 to +0.0 %, not significant", contains("| makespan | -35.3 ± 1.6 % [10/10]*† (−13.6 … −14.6) | -0.6 ± 0.9 % [7/10] (−13.6 … −14.6) | -0.1 ± 0.3 % [5/10] (−13.6 … −14.6) | +0.0 ± 0.4 % [3/10] (≈ −9) |")},
	{"walltime-trust", "starvation tail", contains("Its median waiting time is 71 s against EASY's 489 s, but its longest wait is 1924895 s against 444685 s")},
	// The threshold (10 seeds).
	{"walltime-trust-threshold", "at every threshold: the makespan within ±0.2 % (not significant), the wait and the slowdown longer on 10 of 10 seeds", everyThreshold},
	{"walltime-trust-threshold", "0 %", contains("| 0 % | -0.2 ± 0.5 % [5/10] | +101.0 ± 16.4 % [10/10]* | +171.5 ± 24.0 % [10/10]* |")},
	{"walltime-trust-threshold", "80 %", contains("| **80 % (paper)** | +0.0 ± 0.4 % [3/10] | +62.8 ± 15.5 % [10/10]* | +68.2 ± 18.8 % [10/10]* |")},
	{"walltime-trust-threshold", "90 %", contains("| 90 % | -0.0 ± 0.5 % [4/10] | +48.3 ± 16.2 % [10/10]* | +48.7 ± 23.9 % [10/10]* |")},
	{"walltime-trust-threshold", "80 % against 90 %: waiting", contains("| mean waiting time | 3 of 11 | 90 % | +10.9 ± 10.3 % [9/10]* | **worse than the best** |")},
	{"walltime-trust-threshold", "80 % against 90 %: slowdown", contains("| mean slowdown | 3 of 11 | 90 % | +15.4 ± 11.7 % [9/10]* | **worse than the best** |")},
	{"walltime-trust-threshold", "makespan: no threshold better", contains("| makespan | 9 of 11 | 10 % | +0.2 ± 0.4 % [5/10] | as good as the best (not significant) |")},
	// The threshold with --quick (3 seeds of 1500 jobs).
	{"walltime-trust-threshold-quick", "quick: 100 % the best for the wait, 80 % not distinguishable", contains("| mean waiting time | 3 of 11 | 100 % | +19.5 ± 84.2 % [2/3] | as good as the best (not significant) |")},
	{"walltime-trust-threshold-quick", "quick: 100 % the best for the slowdown", contains("| mean slowdown | 3 of 11 | 100 % |")},
	{"walltime-trust-threshold-quick", "quick: 80 % waits +47.3 % longer than EASY, 3 of 3 seeds", contains("| **80 % (paper)** | -1.4 ± 5.9 % [2/3] | +47.3 ± 41.4 % [3/3]* |")},
	// The SGE experiment.
	{"sge", "18 of 30 rounded, 27 of 30 within 1 s", contains("18 of 30 are the paper's value once rounded to the whole second (its tables give whole seconds), 27 of 30 within 1 s of it")},
	{"sge", "pi80, 13 tasks: 202.4 against 203", contains("| 13 | 247.4 (247) | 213.6 (228) | 202.4 (203) | 202.4 (203) |")},
	{"sge", "pi80, 5 tasks: 101.2, gain 22.22 % (paper 21.80)", contains("| 5 | 123.7 (123) | 106.8 (114) | 101.2 (101) | 101.2 (101) | 22.22 (21.80) | 5.56 (12.87) |")},
	{"sge", "pi80, 9 tasks: 151.8", contains("| 9 | 185.5 (186) | 160.2 (171) | 151.8 (152) | 151.8 (152) | 22.22 (22.37) | 5.56 (12.50) |")},
	{"sge", "sw, 5 tasks: 79.2", contains("| 5 | 96.8 (97) | 83.6 (87) | 79.2 (79) | 79.2 (79) | 22.22 (22.78) | 5.56 (10.13) |")},
	{"sge", "sw, 9 tasks: 118.8", contains("| 9 | 145.2 (146) | 125.4 (131) | 118.8 (119) | 118.8 (119) | 22.22 (22.69) | 5.56 (10.08) |")},
	{"sge", "sw, 17 tasks: the round robin equals the load-balanced 198 s", contains("| 17 | 198.0 (242) | 198.0 (219) | 198.0 (198) | 198.0 (198) | 0.00 (22.22) | 0.00 (10.61) |")},
	{"sge", "pi50, 13 tasks: 10.83 % (paper 13.95)", contains("| 13 | 49.5 (49) | 45.7 (46) | 43.8 (43) | 44.7 (43) | 10.83 (13.95) | 2.19 (6.98) |")},
	{"sge", "pi50, 9 tasks: 10.83 % (paper 15.16)", contains("| 9 | 37.1 (38) | 34.2 (34) | 32.9 (33) | 33.5 (33) | 10.83 (15.16) | 2.19 (3.03) |")},
	{"sge", "pi80 and sw: h4 got the extra task in 44 to 59 % of the paper's runs", contains("the paper's averages give 0.50, 0.20, 0.50, 0.59, 0.56, 0.57, 0.44, 0.44, 0.47")},
	{"sge", "sw, 13 tasks", contains("| 13 | 193.6 (194) | 167.2 (175) | 158.4 (158) | 158.4 (158) | 22.22 (22.78) | 5.56 (10.76) |")},
	{"sge", "pi50, 5 tasks: 10.83 %", contains("| 5 | 24.8 (25) | 22.8 (24) | 21.9 (23) | 22.3 (23) | 10.83 (8.70) | 2.19 (4.35) |")},
	{"sge", "scenario 10 with equal slots", contains("With equal slots (5,5,5,5) the worst case (start at h4) is 242.0 s")},
	// The sensitivity map: bucma-sensitivity (10 seeds).
	{"bucma-sensitivity", "heart cell at the reference", contains("| reference | -47 ± 28 % [9/10]*† |")},
	{"bucma-sensitivity", "heart cell, load 0.5", contains("| offered load 0.5 | -57 ± 13 % [10/10]*† |")},
	{"bucma-sensitivity", "heart cell, load 0.7", contains("| offered load 0.7 | -68 ± 16 % [10/10]*† |")},
	{"bucma-sensitivity", "heart cell, load 1", contains("| offered load 1 | -11 ± 39 % [5/10]† |")},
	{"bucma-sensitivity", "heart cell, run times ×0.25", contains("| run times ×0.25 (median 300 s) | -38 ± 17 % [8/10]*† |")},
	{"bucma-sensitivity", "heart cell, run times ×0.5", contains("| run times ×0.5 (median 600 s) | -50 ± 16 % [10/10]*† |")},
	{"bucma-sensitivity", "heart cell, run times ×2", contains("| run times ×2 (median 2400 s) | -49 ± 33 % [9/10]*† |")},
	{"bucma-sensitivity", "heart cell, run times ×4", contains("| run times ×4 (median 4800 s) | -44 ± 38 % [8/10]*† |")},
	{"bucma-sensitivity", "heart cell, 15 % wide", contains("| 0.15 of the requests wider than one host | -47 ± 23 % [9/10]*† |")},
	{"bucma-sensitivity", "heart cell, 30 % wide", contains("| 0.3 of the requests wider than one host | -31 ± 36 % [8/10]† |")},
	{"bucma-sensitivity", "heart cell, 70 % wide", contains("| 0.7 of the requests wider than one host | -27 ± 45 % [6/10]† |")},
	{"bucma-sensitivity", "heart cell, cores", contains("| resources are cores (lille-cores, 972) | -46 ± 25 % [8/10]*† |")},
	{"bucma-sensitivity", "heart cell, bursts", contains("| inserted in 10 bursts of 5 min | -50 ± 22 % [10/10]*† |")},
	{"bucma-sensitivity", "heart cell, mostly precise users", contains("| mostly precise users (24/10/6) | +228 ± 45 % [10/10]*† |")},
	{"bucma-sensitivity", "BUCMA4303 imprecise FCFS, mostly precise users", contains("+206 ± 41 % [10/10]*†")},
	{"bucma-sensitivity", "heart cell, even mix", contains("| even user mix (13/14/13) | +48 ± 61 % [6/10]† |")},
	{"bucma-sensitivity", "Spearman with the owners' Su", contains("| their owners' mean Su | 0.50 |")},
	{"bucma-sensitivity", "Spearman with the short jobs", contains("| the share of trace jobs asking for at most 1 h | 0.39 |")},
	{"bucma-sensitivity", "Spearman with the utilization", contains("| the utilization BUCMA-FCFS adds to FCFS alone | -0.31 |")},
	{"bucma-sensitivity", "owners' Su at the reference", contains("| reference | 0.55 | 36.1 |")},
	{"bucma-sensitivity", "owners' Su, even mix", contains("| even user mix (13/14/13) | 0.60 | 54.9 |")},
	{"bucma-sensitivity", "owners' Su, mostly precise", contains("| mostly precise users (24/10/6) | 0.68 | 80.1 |")},
	{"bucma-sensitivity", "reference: 17 of 24, precise row 8 of 8", contains("| reference | reference | **17 / 24** | 10 | 3 | 2 / 8 | 7 / 8 | 8 / 8 |")},
	{"bucma-sensitivity", "mostly precise: imprecise 7 of 8, precise 5 of 8", contains("| mostly precise users (24/10/6) | users | **17 / 24** | 6 | 2 | 7 / 8 | 5 / 8 | 5 / 8 |")},
	{"bucma-sensitivity", "30 % wide: 20 of 24", contains("| 0.3 of the requests wider than one host | wide | **20 / 24** | 13 | 1 |")},
	{"bucma-sensitivity", "even mix: 19 of 24, imprecise 6 of 8", contains("| even user mix (13/14/13) | users | **19 / 24** | 14 | 2 | 6 / 8 |")},
	{"bucma-sensitivity", "70 % wide flips the imprecise row", contains("0.7 of the requests wider than one host moves the imprecise row from 2 to 6 of 8")},
	// The sensitivity map: walltime-trust-sensitivity (10 seeds).
	{"walltime-trust-sensitivity", "9 of 12 at the reference", contains("| reference | reference | **9 / 12** |")},
	{"walltime-trust-sensitivity", "no factor flips a row", contains("No single factor flips a row")},
	{"walltime-trust-sensitivity", "waiting vs EASY at the reference", contains("| +63 ± 15 % [10/10]* | -99 ± 0 % [10/10]*† |")},
	{"walltime-trust-sensitivity", "15 % wide: 11 of 12", contains("| 0.15 of the requests wider than one host | wide | **11 / 12** |")},
	{"walltime-trust-sensitivity", "15 % wide: waiting vs EASY", contains("| +20 ± 25 % [7/10]† | -99 ± 0 % [10/10]*† |")},
	{"walltime-trust-sensitivity", "walltime-trust's median and longest wait", contains("| 71 / 1924895 |")},
	// The sensitivity map: walltime-trust-sensitivity with the plan's 5 seeds.
	{"walltime-trust-sensitivity-5", "15 % wide: all 12 with 5 seeds", contains("| 0.15 of the requests wider than one host | wide | **12 / 12** |")},
	{"walltime-trust-sensitivity-5", "15 % wide, 5 seeds: waiting vs EASY -0 ± 42 %", contains("| -0 ± 42 % [3/5]† | -99 ± 1 % [5/5]*† |")},
	// The sensitivity map with --quick (3 seeds of 1500 jobs): other signs.
	{"bucma-sensitivity-quick", "heart cell positive: offered load 1", contains("| offered load 1 | +2 ± 142 %")},
	{"bucma-sensitivity-quick", "heart cell positive: run times ×4 (median 4800 s)", contains("| run times ×4 (median 4800 s) | +7 ± 95 %")},
	{"bucma-sensitivity-quick", "heart cell positive: 0.3 of the requests wider than one host", contains("| 0.3 of the requests wider than one host | +42 ± 89 %")},
	{"bucma-sensitivity-quick", "heart cell positive: 0.7 of the requests wider than one host", contains("| 0.7 of the requests wider than one host | +39 ± 270 %")},
	{"bucma-sensitivity-quick", "heart cell positive: resources are cores (lille-cores, 972)", contains("| resources are cores (lille-cores, 972) | +9 ± 48 %")},
	{"bucma-sensitivity-quick", "heart cell positive: inserted in 10 bursts of 5 min", contains("| inserted in 10 bursts of 5 min | +12 ± 109 %")},
	{"bucma-sensitivity-quick", "heart cell positive under 6 of the 13 conditions that keep the default users", heartPositive},
	{"bucma-sensitivity-quick", "bursts have the most cells in the paper's sign, 20 of 24", burstsMost},
	{"bucma-sensitivity-quick", "bursts: 20 of 24", contains("| inserted in 10 bursts of 5 min | insertion | **20 / 24** |")},
	{"walltime-trust-sensitivity-quick", "15 % wide: 7 of 12", contains("| 0.15 of the requests wider than one host | wide | **7 / 12** |")},
	// The gang experiment (10 seeds).
	{"gang", "migration cuts AFCFS's ART by 98.2 % (OLB)", contains("OLB AFCFS 98.2 % [10/10]*†")},
	{"gang", "and by 96.8 % (JSEQ)", contains("JSEQ AFCFS 96.8 % [10/10]*†")},
	{"gang", "S1 AFCFSm ART at 500 jobs", contains("| 500 | 234018 ± 52151 (40133) | 14726 ± 2927 (10720) |")},
	{"gang", "S1 AFCFSm ART at 1000 jobs", contains("| 1000 | 539728 ± 79917 (85288) | 21607 ± 3541 (19499) |")},
	{"gang", "S1 AFCFSm ART at 1500 jobs", contains("| 1500 | 1005755 ± 101566 (116248) | 27385 ± 3738 (29175) |")},
	{"gang", "S1 AFCFSm ART at 2000 jobs", contains("| 2000 | 1641567 ± 122833 (164252) | 33570 ± 4623 (35411) |")},
	{"gang", "S1 AFCFSm ART at 2500 jobs", contains("| 2500 | 2386727 ± 143094 (190662) | 38422 ± 5747 (42315) |")},
	{"gang", "AFCFSm the lowest ART in both scenarios", contains("- (c) AFCFSm has the lowest ART of the paper's six schedulers: holds (best: OLB: olb-afcfsm, JSEQ: jseq-afcfsm)")},
	{"gang", "JSEQ against OLB: 9.2 to 46.6 %", contains("holds (AFCFS 46.6 % [10/10]*†, LXF 9.2 % [10/10]*†, LJFS 34.0 % [10/10]*†)")},
	{"gang", "AFCFS above LXF on every seed, in both scenarios", contains("LXF above AFCFS on 0 of 10 seeds, LJFS above LXF on 10 of 10; JSEQ: AFCFS 1858006, LXF 774943, LJFS 2423733 s; LXF above AFCFS on 0 of 10 seeds")},
	{"gang", "without migration: loss of capacity 64 to 79 %, utilization 21 to 35 %, every run saturated", gangWithout},
	{"gang", "with local migration: loss of capacity 11 to 23 %", gangWith},
	{"gang", "with migration: AFCFSm < LXFm, LJFSm", contains("AFCFSm 12.12 %, LXFm 21.12 %, LJFSm 22.37 %")},
	{"gang", "OLB LXFm: the queue grows on 3 of 10 seeds", row("| olb-lxfm |", "**yes**, 3 of 10 runs")},
	{"gang", "JSEQ LXFm: on 6 of 10", row("| jseq-lxfm |", "**yes**, 6 of 10 runs")},
	{"gang", "the other migration variants: on 0 to 4 seeds of 10", gangOthers},
	{"gang", "loss of capacity 79 %, utilization 21 % (OLB AFCFS)", contains("| olb-afcfs | 79.02 ± 0.73 (≈ 50) | 20.8 ± 0.7 |")},
	{"gang", "loss of capacity 64 %, utilization 35 % (JSEQ LJFS)", contains("| jseq-ljfs | 64.26 ± 0.79 (≈ 50) | 35.4 ± 0.7 |")},
	{"gang", "loss of capacity 11 % with migration", contains("| olb-afcfsm | 11.26 ± 1.13 (3.48) |")},
	{"gang", "loss of capacity 23 % with migration", contains("| olb-ljfsm | 22.68 ± 0.79 (9.63) |")},
	{"gang", "AFCFS starves the 128-task jobs", contains("the 128-task jobs respond in 5361864 s under AFCFS and 785309 s under LXF")},
	// The bag-of-tasks experiment (5 seeds).
	{"bot", "H1-1: 45 min, the Consolidado; the thesis' Real +15.5 %", contains("| H1-1 | 10 (10) | 10 | 9 | 45 (45) | 52 (+15.50 %) | 45.0 (+0.0 %) | 45.0 (+0.0 %) |")},
	{"bot", "H1-2: 75 min", contains("| H1-2 | 10 (10) | 12 | 15 | 75 (75) | 87 (+16.00 %) | 75.0 (+0.0 %) | 75.0 (+0.0 %) |")},
	{"bot", "H1-3: 55 min, the thesis' Real +16.4 %", contains("| H1-3 | 10 (10) | 19 | 11 | 55 (55) | 64 (+16.40 %) | 55.0 (+0.0 %) | 55.0 (+0.0 %) |")},
	{"bot", "H2-3 +51.1 %", contains("| H2-3 | 24 (24) | 29 | 9 | 45 (45) | 83 (+84.44 %) | 68.0 (+51.1 %) |")},
	{"bot", "migrations on 2 nodes: 0, 1, 0", contains("H2-1 0 (thesis 21), H2-2 1 (thesis 11), H2-3 0 (thesis 3)")},
	{"bot", "the system level and the light BoT: leve at 0 %", contains("leve at 0 %: no influence on a light BoT: +0.0 min [5/5 at 0] (thesis -1): holds")},
	{"bot", "the system level and the light BoT: leve at 50 %", contains("leve at 50 %: no influence on a light BoT: +0.0 min [1/5] (thesis +0): holds")},
	{"bot", "the system level and the light BoT: leve at 75 %", contains("leve at 75 %: no influence on a light BoT: +0.0 min [2/5] (thesis +0): holds")},
	{"bot", "pesado at 50 %: a few minutes, not significant", contains("pesado at 50 %: harmful at intermediate load: -0.3 ± 0.9 min [3/5]")},
	{"bot", "idle cluster: no difference, mediano", contains("mediano 0.0 % without the system level, 0.0 % with it (1.8 ± 1.4 migrations; change +0.0 [5/5 at 0] min")},
	{"bot", "idle cluster: no difference, pesado", contains("pesado 0.0 % without the system level, 0.0 % with it (2.4 ± 1.9 migrations; change +0.0 [5/5 at 0] min")},
	{"bot", "production: up to 44.8 VMs on 36 cores", contains("Up to 44.8 ± 5.4 VMs are planned at once against 36 cores")},
	{"bot", "H2-1 +15.3 %", contains("(+15.3 %) | 51.9 (+15.3 %)")},
	{"bot", "H2-2 +35.2 %", contains("| H2-2 | 17 (17) | 28 | 10 | 50 (50) | 67 (+34.00 %) | 67.6 (+35.2 %) |")},
	{"bot", "pesado at 75 %", contains("pesado at 75 %: a gain at extreme load (96 → 90 min): +2.4 ± 6.2 min [3/5]")},
	{"bot", "migrations against the external load", contains("mediano 1.8 → 3.6 → 2.6 (thesis 51 → 97 → 182); pesado 2.4 → 23.6 → 6.2")},
	{"bot", "production: +1.9 %", contains("our BoTs end +1.9 ± 0.5 % after their predicted end")},
	{"bot", "energy saved, light profile", contains("| +63.4 ± 9.3 [5/5]* |")},
	{"bot", "energy saved, production", contains("| +39.5 ± 6.2 [5/5]* |")},
	{"bot", "energy saved, H1-2", contains("| +13.5 [5/5]* |")},
	{"bot", "energy saved, medium profile: 5 %, 4 of 5 seeds", row("| mediano-bg0 |", "| +5.3 ± 4.1 [4/5]* |")},
	{"bot", "energy saved, heavy profile: 5 %, 4 of 5 seeds", row("| pesado-bg0 |", "| +4.8 ± 3.9 [4/5]* |")},
	{"bot", "no energy saved for the other published BoTs nor under external load", noEnergySaved},
	{"bot", "drawn profiles: 87 tasks, 21 steps", contains("| 86.8 ± 11.5 (74) | 21.0 ± 2.6 |")},
	// The weights (5 seeds).
	{"bucma-weights", "FCFS alone saturates on 5 of 5 seeds", row("| FCFS | ", "**yes**, 5 of 5 runs")},
	{"bucma-weights", "FCFS: BUCMA5302 on the waiting-time front", contains("| FCFS | BUCMA5302 | 97.3 ± 0.9 | mean waiting time | -68.4 ± 22.2 % [5/5]*† | **yes** |")},
	{"bucma-weights", "FCFS: BUCMA4303 on the waiting-time front", contains("| FCFS | BUCMA4303 | 91.2 ± 7.1 | mean waiting time | -75.1 ± 19.7 % [5/5]*† | **yes** |")},
	{"bucma-weights", "EASY: BUCMA5302 on the waiting-time front", contains("| EASY | BUCMA5302 | 83.7 ± 13.5 | mean waiting time | -13.0 ± 11.3 % [5/5]*† | **yes** |")},
	{"bucma-weights", "MIN-MIN: 35 dominate BUCMA5302; +9.6 against +23.7 %", contains("| MIN-MIN | BUCMA5302 | 55.8 ± 8.4 | mean waiting time | +23.7 ± 19.1 % [4/5]* | no | 35 | 70.9 | +9.6 ± 13.2 % |")},
	{"bucma-weights", "MIN-MIN: 18 dominate BUCMA4303", contains("| MIN-MIN | BUCMA4303 | 54.7 ± 10.0 | mean waiting time | +16.8 ± 17.6 % [4/5] | no | 18 |")},
	{"bucma-weights", "MAX-MIN: 58 dominate BUCMA5302; -47.0 against -24.5 %", contains("| MAX-MIN | BUCMA5302 | 60.5 ± 9.0 | mean waiting time | -24.5 ± 19.4 % [5/5]* | no | 58 | 87.5 | -47.0 ± 13.4 % |")},
	{"bucma-weights", "MAX-MIN: 42 dominate BUCMA4303", contains("| MAX-MIN | BUCMA4303 | 61.1 ± 6.0 | mean waiting time | -29.6 ± 12.0 % [5/5]*† | no | 42 |")},
	{"bucma-weights", "FCFS: the makespan shorter under 170, the wait longer under none", contains("Over all 286, the mean waiting time changes significantly (95 %) under 224 weightings (0 longer), the makespan under 170 (0 longer)")},
	{"bucma-weights", "FCFS: the makespan from -26.1 to +2.3 %", contains("over -26.1 to +2.3 % for the makespan")},
	{"bucma-weights", "MIN-MIN: the wait longer under 172, the makespan under none", contains("Over all 286, the mean waiting time changes significantly (95 %) under 172 weightings (172 longer), the makespan under 0 (0 longer)")},
	{"bucma-weights", "MAX-MIN: the makespan under 3, the wait longer under none", contains("Over all 286, the mean waiting time changes significantly (95 %) under 236 weightings (0 longer), the makespan under 3 (3 longer)")},
	{"bucma-weights", "EASY: the makespan under 4, the wait longer under 1", contains("Over all 286, the mean waiting time changes significantly (95 %) under 61 weightings (1 longer), the makespan under 4 (2 longer)")},
	{"bucma-weights", "the mean makespan changes over MIN-MIN, MAX-MIN and EASY: -0.8 to +1.8 %", makespanChanges},
	{"bucma-weights", "rank correlations: α with the spread 0.88 to 0.93, δ with the wait -0.43 to -0.93", rankCorrelations},
	{"bucma-weights", "the choice: 5311", contains("this workload would have chosen **5311** (α = 0.5, β = 0.3, γ = 0.1, δ = 0.1)")},
	{"bucma-weights", "5311: no pair made worse, mean spread 78.8", row("| 1 | 5311 |", "| 0 | 2 | 78.8 |")},
	{"bucma-weights", "then 4312 (mean spread 77.0)", row("| 2 | 4312 |", "| 0 | 3 | 77.0 |")},
	{"bucma-weights", "then 6400 (mean spread 75.4: BUCMA5302's 74.3 would come 4th)", row("| 3 | 6400 |", "| 0 | 1 | 75.4 |")},
	{"bucma-weights", "then 5401 (mean spread 73.7)", row("| 4 | 5401 |", "| 0 | 2 | 73.7 |")},
	{"bucma-weights", "BUCMA4303 5th (mean spread 70.4)", row("| 5 | 4303 (BUCMA4303) |", "| 0 | 3 | 70.4 |")},
	{"bucma-weights", "BUCMA5302 150th, 1 pair made worse (MIN-MIN's wait), mean spread 74.3", row("| 150 | 5302 (BUCMA5302) |", "| 1 | 4 | 74.3 |")},
	{"bucma-weights", "by the signs of the means alone: β = 1, spread -0.1", contains("would choose **0 10 0 0** (0 pairs with a positive mean, mean spread -0.1 points")},
	// The weights with --quick (3 seeds of 1500 jobs).
	{"bucma-weights-quick", "quick: 6 weightings lengthen MIN-MIN's wait significantly", contains("Over all 286, the mean waiting time changes significantly (95 %) under 6 weightings (6 longer)")},
	{"bucma-weights-quick", "quick: the choice is 8020", contains("this workload would have chosen **8020**")},
	{"bucma-weights-quick", "quick: 8020's mean spread 92.6", row("| 1 | 8020 |", "| 92.6 |")},
	{"bucma-weights-quick", "quick: BUCMA5302 37th", row("| 37 | 5302 (BUCMA5302) |", "| 0 |")},
	{"bucma-weights-quick", "quick: BUCMA4303 53rd", row("| 53 | 4303 (BUCMA4303) |", "| 0 |")},
	{"bucma-weights-quick", "quick: BUCMA5302 on FCFS's waiting-time front", contains("| FCFS | BUCMA5302 | 96.9 ± 4.4 | mean waiting time | -51.8 ± 20.0 % [3/3]*† | **yes** |")},
	// The priority functions (10 seeds, loads 0.7, 0.85, 0.95): the table at 0.85.
	{"prio", "0.85: fcfs-none 13846.87, rank 33", contains("| 33 | fcfs-none | 13846.87 ± 4033.71 |")},
	{"prio", "0.85: fcfs-easy 658.41, rank 32", contains("| 32 | fcfs-easy | 658.41 ± 221.42 |")},
	{"prio", "0.85: fcfs-cons 499.81, rank 31", contains("| 31 | fcfs-cons | 499.81 ± 228.70 |")},
	{"prio", "0.85: sjf-none 122.09, rank 13", contains("| 13 | sjf-none | 122.09 ± 32.46 |")},
	{"prio", "0.85: sjf-easy 101.65, rank 10", contains("| 10 | sjf-easy | 101.65 ± 30.95 |")},
	{"prio", "0.85: sjf-cons 166.92, rank 26", contains("| 26 | sjf-cons | 166.92 ± 36.21 |")},
	{"prio", "0.85: smallest-none 113.26, rank 12", contains("| 12 | smallest-none | 113.26 ± 26.15 |")},
	{"prio", "0.85: smallest-easy 113.26, rank 11", contains("| 11 | smallest-easy | 113.26 ± 26.15 |")},
	{"prio", "0.85: smallest-cons 162.21, rank 24", contains("| 24 | smallest-cons | 162.21 ± 18.70 |")},
	{"prio", "0.85: area-none 66.50, rank 1", contains("| 1 | area-none | 66.50 ± 25.94 |")},
	{"prio", "0.85: area-easy 85.03, rank 5", contains("| 5 | area-easy | 85.03 ± 24.12 |")},
	{"prio", "0.85: area-cons 151.67, rank 20", contains("| 20 | area-cons | 151.67 ± 38.38 |")},
	{"prio", "0.85: xf-none 180.16, rank 27", contains("| 27 | xf-none | 180.16 ± 40.50 |")},
	{"prio", "0.85: xf-easy 128.79, rank 16", contains("| 16 | xf-easy | 128.79 ± 40.04 |")},
	{"prio", "0.85: xf-cons 193.50, rank 29", contains("| 29 | xf-cons | 193.50 ± 42.79 |")},
	{"prio", "0.85: wfp3-none 256.59, rank 30", contains("| 30 | wfp3-none | 256.59 ± 39.71 |")},
	{"prio", "0.85: wfp3-easy 126.81, rank 14", contains("| 14 | wfp3-easy | 126.81 ± 28.77 |")},
	{"prio", "0.85: wfp3-cons 183.99, rank 28", contains("| 28 | wfp3-cons | 183.99 ± 40.75 |")},
	{"prio", "0.85: unicep-none 89.00, rank 6", contains("| 6 | unicep-none | 89.00 ± 23.88 |")},
	{"prio", "0.85: unicep-easy 128.45, rank 15", contains("| 15 | unicep-easy | 128.45 ± 38.99 |")},
	{"prio", "0.85: unicep-cons 165.38, rank 25", contains("| 25 | unicep-cons | 165.38 ± 33.29 |")},
	{"prio", "0.85: f1-none 97.67, rank 9", contains("| 9 | f1-none | 97.67 ± 26.77 |")},
	{"prio", "0.85: f1-easy 89.33, rank 7", contains("| 7 | f1-easy | 89.33 ± 18.49 |")},
	{"prio", "0.85: f1-cons 161.62, rank 22", contains("| 22 | f1-cons | 161.62 ± 36.94 |")},
	{"prio", "0.85: f2-none 79.38, rank 3", contains("| 3 | f2-none | 79.38 ± 21.89 |")},
	{"prio", "0.85: f2-easy 68.44, rank 2", contains("| 2 | f2-easy | 68.44 ± 19.40 |")},
	{"prio", "0.85: f2-cons 159.90, rank 21", contains("| 21 | f2-cons | 159.90 ± 40.85 |")},
	{"prio", "0.85: f3-none 134.57, rank 17", contains("| 17 | f3-none | 134.57 ± 38.92 |")},
	{"prio", "0.85: f3-easy 82.89, rank 4", contains("| 4 | f3-easy | 82.89 ± 22.18 |")},
	{"prio", "0.85: f3-cons 143.57, rank 18", contains("| 18 | f3-cons | 143.57 ± 25.79 |")},
	{"prio", "0.85: f4-none 145.01, rank 19", contains("| 19 | f4-none | 145.01 ± 34.30 |")},
	{"prio", "0.85: f4-easy 93.87, rank 8", contains("| 8 | f4-easy | 93.87 ± 28.54 |")},
	{"prio", "0.85: f4-cons 162.09, rank 23", contains("| 23 | f4-cons | 162.09 ± 38.73 |")},
	{"prio", "the intervals at 0.85: ± 18.49 to 42.79 but FCFS", prioHalfWidths},
	{"prio", "FCFS's three variants last at every load", contains("| fcfs-cons | 31 | 31 | 31 | 31 |")},
	{"prio", "fcfs-easy 32nd at every load", contains("| fcfs-easy | 32 | 32 | 32 | 32 |")},
	{"prio", "fcfs-none 33rd at every load", contains("| fcfs-none | 33 | 33 | 33 | 33 |")},
	{"prio", "the 30 other variants below fcfs-easy on 10 of 10 seeds, significant, at every load", prioBeatFCFS},
	{"prio", "only fcfs-none significantly higher, at every load", times("significantly higher: 1 (`fcfs-none`).", 3)},
	{"prio", "area-none first at every load", contains("| area-none | 1 | 1 | 1 | 1 |")},
	{"prio", "area-none 61.64 at 0.95", contains("| 1 | area-none | 61.64 ± 24.51 |")},
	{"prio", "area-none 90.38 at 0.7", contains("| 1 | area-none | 90.38 ± 26.31 |")},
	{"prio", "then F2 with EASY", contains("| f2-easy | 2 | 2 | 5 | 3 |")},
	{"prio", "then F2 without", contains("| f2-none | 3 | 3 | 4 | 3.3 |")},
	{"prio", "then F3 with EASY", contains("| f3-easy | 8 | 4 | 2 | 4.7 |")},
	{"prio", "then area with EASY", contains("| area-easy | 9 | 5 | 3 | 5.7 |")},
	{"prio", "F1 with EASY in the first 10", contains("| f1-easy | 7 | 7 | 7 |")},
	{"prio", "F4 with EASY in the first 10", contains("| f4-easy | 10 | 8 | 6 |")},
	{"prio", "SJF with EASY 6th to 10th", contains("| sjf-easy | 6 | 10 | 9 |")},
	{"prio", "EASY against none at 0.7: lower for 4, higher for 1", contains("- Backfilling easy against none, per function (paired on the seeds): lower mean bounded slowdown for 4, higher for 1 (significant at 95 %)")},
	{"prio", "EASY against none at 0.85: lower for 5, higher for 2", contains("- Backfilling easy against none, per function (paired on the seeds): lower mean bounded slowdown for 5, higher for 2 (significant at 95 %)")},
	{"prio", "EASY against none at 0.95: lower for 5, higher for 0", contains("- Backfilling easy against none, per function (paired on the seeds): lower mean bounded slowdown for 5, higher for 0 (significant at 95 %)")},
	{"prio", "smallest first the same with EASY at every load", prioSmallestSame},
	{"prio", "WFP3 without backfilling waits +49.3 % at 0.85", contains("| wfp3-none | 256.59 ± 39.71 | 23306 ± 5444 | 0.698 ± 0.029 | -56.6 ± 10.9 % [10/10]*† | +49.3 ±")},
	{"prio", "XF without backfilling waits +26.4 % at 0.85", contains("| xf-none | 180.16 ± 40.50 | 19781 ± 4782 | 0.623 ± 0.037 | -68.8 ± 10.2 % [10/10]*† | +26.4 ±")},
	{"prio", "UNICEP without backfilling waits +53.0 % at 0.85, utilization 0.504", contains("| unicep-none | 89.00 ± 23.88 | 23332 ± 5502 | 0.504 ± 0.032 | -84.3 ± 5.6 % [10/10]*† | +53.0 ±")},
	{"prio", "conservative against EASY at 0.7: higher for 3", contains("- Backfilling conservative against easy, per function (paired on the seeds): lower mean bounded slowdown for 1, higher for 3 (significant at 95 %)")},
	{"prio", "conservative against EASY at 0.85: higher for 9", contains("- Backfilling conservative against easy, per function (paired on the seeds): lower mean bounded slowdown for 1, higher for 9 (significant at 95 %)")},
	{"prio", "conservative against EASY at 0.95: higher for 10", contains("- Backfilling conservative against easy, per function (paired on the seeds): lower mean bounded slowdown for 1, higher for 10 (significant at 95 %)")},
	{"prio", "FCFS the exception: fcfs-cons below fcfs-easy at 0.85", contains("| 31 | fcfs-cons | 499.81 ± 228.70 | 13347 ± 4498 | 0.754 ± 0.033 | -24.8 ± 18.7 % [8/10]*†")},
	{"prio", "lowest wait at 0.7: F2 with EASY, 3438 s", contains("best mean waiting time: `f2-easy` (3438 ± 709)")},
	{"prio", "lowest wait at 0.85: F2 with EASY, 3831 s", contains("best mean waiting time: `f2-easy` (3831 ± 893)")},
	{"prio", "lowest wait at 0.95: F3 with EASY, 4332 s", contains("best mean waiting time: `f3-easy` (4332 ± 1026)")},
	{"prio", "up to 6 of 10 runs of a variant saturated", prioSaturated},
}

// times: text is on n lines of the report (one per load level, say).
func times(text string, n int) func(string) (string, bool) {
	return func(report string) (string, bool) {
		got := strings.Count(report, text)
		return fmt.Sprintf("%d lines hold %q", got, text), got == n
	}
}

// prioRows are the rows of the prio report's rankings: under each load
// level, the cells of each variant's row.
func prioRows(report string) [][]string {
	var out [][]string
	i := strings.Index(report, "\n# Ranking\n")
	if i < 0 {
		return nil
	}
	for _, l := range strings.Split(report[i:], "\n") {
		if c := cells(l); strings.HasPrefix(l, "| ") && num(c[1]) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// prioHalfWidths: at load 0.85 the intervals of the mean bounded slowdown
// of the functions but FCFS are ± 18.49 to 42.79.
func prioHalfWidths(report string) (string, bool) {
	var h span
	for _, c := range prioRows(section85(report)) {
		if name := strings.TrimSpace(c[2]); !strings.HasPrefix(name, "fcfs-") {
			_, half, _ := strings.Cut(c[3], "±")
			h.add(num(half))
		}
	}
	got := fmt.Sprintf("%d variants, ± %.2f to %.2f", h.n, h.min, h.max)
	return got, got == "30 variants, ± 18.49 to 42.79"
}

// section85 is the prio report from its ranking at load 0.85 to the next
// load level's.
func section85(report string) string {
	i := strings.Index(report, "\n# Ranking\n")
	if i < 0 {
		return ""
	}
	r := report[i:]
	j := strings.Index(r, "\n## load level 0.85\n")
	k := strings.Index(r, "\n## load level 0.95\n")
	if j < 0 || k < j {
		return ""
	}
	return "\n# Ranking\n" + r[j:k]
}

// prioBeatFCFS: at every load level, every variant but FCFS's has a
// significantly lower mean bounded slowdown than fcfs-easy, on 10 of 10
// seeds.
func prioBeatFCFS(report string) (string, bool) {
	n, ok := 0, 0
	for _, c := range prioRows(report) {
		if strings.HasPrefix(strings.TrimSpace(c[2]), "fcfs-") {
			continue
		}
		n++
		if strings.HasPrefix(strings.TrimSpace(c[6]), "-") && strings.Contains(c[6], "[10/10]*") {
			ok++
		}
	}
	got := fmt.Sprintf("%d of %d rows", ok, n)
	return got, n == 90 && ok == n
}

// prioSmallestSame: smallest first gives the same means with EASY as
// without, at every load level.
func prioSmallestSame(report string) (string, bool) {
	by := map[string][]string{}
	for _, c := range prioRows(report) {
		if name := strings.TrimSpace(c[2]); name == "smallest-none" || name == "smallest-easy" {
			by[name] = append(by[name], strings.Join(c[3:6], "|"))
		}
	}
	got := fmt.Sprintf("none %v, easy %v", by["smallest-none"], by["smallest-easy"])
	return got, len(by["smallest-none"]) == 3 && slices.Equal(by["smallest-none"], by["smallest-easy"])
}

// prioSaturated: at most 6 of a variant's 10 runs under a load level are
// saturated, and some variant has 6.
func prioSaturated(report string) (string, bool) {
	most := 0
	for _, c := range prioRows(report) {
		most = max(most, int(num(c[8])))
	}
	return fmt.Sprintf("at most %d of 10", most), most == 6
}

// The findings no single line holds ("at most", "every row"), read from
// the report's tables: a table's cells are its line split at "|" (cell 0
// before the first "|"), a cell's words its fields.

// cells splits a table row into its cells; a row shorter than the table
// it should belong to reads as empty cells past its end (as awk reads
// missing fields), never out of range.
func cells(l string) []string {
	c := strings.Split(l, "|")
	for len(c) < 12 {
		c = append(c, "")
	}
	return c
}

// num is the number a cell or word begins with (0 when none), as awk reads
// one: blanks skipped, then the longest prefix that is a number.
func num(s string) float64 {
	s = strings.TrimSpace(s)
	for n := len(s); n > 0; n-- {
		if v, err := strconv.ParseFloat(s[:n], 64); err == nil {
			return v
		}
	}
	return 0
}

// first is the number the first word of a cell begins with.
func first(cell string) float64 {
	f := strings.Fields(cell)
	if len(f) == 0 {
		return 0
	}
	return num(f[0])
}

// section lists the lines after the line that starts with open, up to the
// next line that starts with end.
func section(report, open, end string) []string {
	var out []string
	on := false
	for _, l := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(l, open):
			on = true
			continue
		case strings.HasPrefix(l, end):
			on = false
		}
		if on {
			out = append(out, l)
		}
	}
	return out
}

// span follows the lowest and highest of values.
type span struct {
	n        int
	min, max float64
}

func (s *span) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
}

var baseRow = regexp.MustCompile(`^\| (FCFS|MIN-MIN|MAX-MIN|EASY) \|`)

// claim1Others: the 13 cells of claim 1 that do not differ significantly
// differ by at most 6.9 points.
func claim1Others(report string) (string, bool) {
	var n int
	var most float64
	on := false
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "**Claim 1") {
			on = true
		}
		if strings.HasPrefix(l, "Verdict") {
			on = false
		}
		if on && baseRow.MatchString(l) && strings.HasSuffix(l, "| no |") {
			n++
			most = math.Max(most, math.Abs(first(cells(l)[3])))
		}
	}
	got := fmt.Sprintf("%d cells, the largest |difference| %.1f points", n, most)
	return got, n == 13 && fmt.Sprintf("%.1f", most) == "6.9"
}

var thresholdRow = regexp.MustCompile(`^\| (\*\*)?[0-9]+ %`)

// everyThreshold: at each of the 11 thresholds, walltime-trust against
// EASY keeps the makespan within ±0.2 % (not significant), and waits and
// slows down longer, on 10 of 10 seeds.
func everyThreshold(report string) (string, bool) {
	n, bad := 0, ""
	for _, l := range section(report, "### Walltime-trust against EASY", "### ") {
		if !thresholdRow.MatchString(l) {
			continue
		}
		n++
		c := cells(l)
		if math.Abs(first(c[2])) > 0.2 || strings.Contains(c[2], "*") {
			bad += " makespan at" + c[1]
		}
		for _, k := range []int{3, 4} {
			if !(first(c[k]) > 0) || !strings.Contains(c[k], "[10/10]*") {
				bad += " wait or slowdown at" + c[1]
			}
		}
	}
	return fmt.Sprintf("%d thresholds%s", n, bad), n == 11 && bad == ""
}

// heartPositive: the heart cell (BUCMA5302's imprecise requests over FCFS)
// has a positive mean under 6 of the 13 conditions that keep the default
// users.
func heartPositive(report string) (string, bool) {
	n, pos := 0, 0
	for _, l := range section(report, "## Our changes per condition", "## ") {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| condition") || strings.HasPrefix(l, "|---") ||
			strings.Contains(l, "precise users") || strings.Contains(l, "user mix") {
			continue
		}
		n++
		if first(cells(l)[2]) > 0 {
			pos++
		}
	}
	return fmt.Sprintf("%d of %d", pos, n), n == 13 && pos == 6
}

var signsCell = regexp.MustCompile(` \| \*\*[0-9]+ / 24\*\* \|`)

// burstsMost: the bursts condition has the most cells in the paper's sign,
// 20 of 24, alone.
func burstsMost(report string) (string, bool) {
	best, ties, who := 0, 0, ""
	for _, l := range strings.Split(report, "\n") {
		if !strings.HasPrefix(l, "| ") || !signsCell.MatchString(l) {
			continue
		}
		c := cells(l)
		f := strings.Fields(c[3])
		k := 0
		if len(f) > 0 {
			k = int(num(strings.TrimPrefix(f[0], "**")))
		}
		switch {
		case k > best:
			best, who, ties = k, c[1], 0
		case k == best:
			ties++
		}
	}
	return fmt.Sprintf("%d of 24:%s (%d ties)", best, who, ties), best == 20 && ties == 0 && strings.Contains(who, "bursts")
}

var (
	gangPlain    = regexp.MustCompile(`^\| (olb|jseq)-(afcfs|lxf|ljfs) \| [0-9.]+ ± `)
	gangMigrated = regexp.MustCompile(`^\| (olb|jseq)-(afcfs|lxf|ljfs)m \| [0-9.]+ ± `)
	gangMoving   = regexp.MustCompile(`^\| (olb|jseq)-(afcfs|lxf|ljfs)me? \| [0-9.]+ ± `)
	gangYes      = regexp.MustCompile(`\*\*yes\*\*, ([0-9]+) of`)
)

// gangWithout: without migration, the loss of capacity is 64 to 79 %, the
// utilization 21 to 35 %, and every run saturates.
func gangWithout(report string) (string, bool) {
	var loss, util span
	bad := ""
	for _, l := range strings.Split(report, "\n") {
		if !gangPlain.MatchString(l) {
			continue
		}
		c := cells(l)
		loss.add(first(c[2]))
		util.add(first(c[3]))
		if !strings.Contains(c[5], "**yes**, 10 of 10 runs") {
			bad += c[1]
		}
	}
	got := fmt.Sprintf("%d variants, loss %.2f to %.2f %%, utilization %.1f to %.1f %%", loss.n, loss.min, loss.max, util.min, util.max)
	return got + bad, loss.n == 6 && bad == "" && fmt.Sprintf("%.0f %.0f %.0f %.0f", loss.min, loss.max, util.min, util.max) == "64 79 21 35"
}

// gangWith: with local migration, the loss of capacity is 11 to 23 %.
func gangWith(report string) (string, bool) {
	var loss span
	for _, l := range strings.Split(report, "\n") {
		if gangMigrated.MatchString(l) {
			loss.add(first(cells(l)[2]))
		}
	}
	return fmt.Sprintf("%d variants, loss %.2f to %.2f %%", loss.n, loss.min, loss.max),
		loss.n == 6 && fmt.Sprintf("%.0f %.0f", loss.min, loss.max) == "11 23"
}

// gangOthers: the migration variants but LXFm saturate on 0 to 4 seeds of
// 10.
func gangOthers(report string) (string, bool) {
	var seeds span
	for _, l := range strings.Split(report, "\n") {
		if !gangMoving.MatchString(l) || strings.Contains(l, "-lxfm |") {
			continue
		}
		k := 0.0
		if m := gangYes.FindStringSubmatch(l); m != nil {
			k = num(m[1])
		}
		seeds.add(k)
	}
	return fmt.Sprintf("%d variants, %.0f to %.0f seeds", seeds.n, seeds.min, seeds.max), seeds.n == 10 && seeds.min == 0 && seeds.max == 4
}

var (
	otherBoTs = regexp.MustCompile(`^\| (h1-1|h1-3|h2-[123]|(leve|mediano|pesado)-bg(50|75)) \|`)
	noSaving  = regexp.MustCompile(`\| \+0\.0 \[5/5 at 0\] \|$`)
)

// noEnergySaved: no energy is saved for the other published BoTs nor under
// an external load.
func noEnergySaved(report string) (string, bool) {
	n, bad := 0, ""
	for _, l := range strings.Split(report, "\n") {
		if !otherBoTs.MatchString(l) {
			continue
		}
		n++
		if !noSaving.MatchString(l) {
			bad += " " + strings.Fields(l)[1]
		}
	}
	return fmt.Sprintf("%d cases; not 0:%s", n, bad), n == 11 && bad == ""
}

// makespanChanges: over MIN-MIN, MAX-MIN and EASY, the weightings on the
// fronts change the mean makespan by -0.8 to +1.8 %.
func makespanChanges(report string) (string, bool) {
	var ch span
	on := false
	for _, l := range strings.Split(report, "\n") {
		switch {
		case regexp.MustCompile(`^### (MIN-MIN|MAX-MIN|EASY): the weightings on the fronts`).MatchString(l):
			on = true
			continue
		case strings.HasPrefix(l, "### "):
			on = false
		}
		if !on || !strings.Contains(l, "The mean changes range over") {
			continue
		}
		s := l
		if i := strings.LastIndex(s, " for the waiting time, over "); i >= 0 {
			s = s[i+len(" for the waiting time, over "):]
		}
		if i := strings.Index(s, " % for the makespan"); i >= 0 {
			s = s[:i]
		}
		lo, hi, _ := strings.Cut(s, " to ")
		if ch.n == 0 || num(lo) < ch.min {
			ch.min = num(lo)
		}
		if ch.n == 0 || num(hi) > ch.max {
			ch.max = num(hi)
		}
		ch.n++
	}
	got := fmt.Sprintf("%d bases, %+.1f to %+.1f %%", ch.n, ch.min, ch.max)
	return got, got == "3 bases, -0.8 to +1.8 %"
}

// rankCorrelations: α's rank correlation with the spread is 0.88 to 0.93
// over the four bases, δ's with the wait -0.93 to -0.43.
func rankCorrelations(report string) (string, bool) {
	var alpha, delta span
	for _, l := range section(report, "### What each weight does", "### ") {
		if !baseRow.MatchString(l) {
			continue
		}
		c := cells(l)
		alpha.add(num(c[2]))
		delta.add(num(c[9]))
	}
	got := fmt.Sprintf("%d bases, alpha %.2f to %.2f, delta %.2f to %.2f", alpha.n, alpha.min, alpha.max, delta.min, delta.max)
	return got, got == "4 bases, alpha 0.88 to 0.93, delta -0.93 to -0.43"
}

// Every check names a campaign of the list, and every campaign's plan is
// a built-in plan (studies/<study>/*.yaml).
func TestDocNumbersTable(t *testing.T) {
	root := corpus.ModuleRoot()
	var names []string
	for _, c := range docCampaigns {
		names = append(names, c.name)
		files, _ := filepath.Glob(filepath.Join(root, "studies", "*", "*.yaml"))
		found := false
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = found || strings.HasPrefix(filepath.Base(f), c.plan+".") || strings.Contains(string(data), "\nname: "+c.plan+"\n")
		}
		if !found {
			t.Errorf("campaign %s: no built-in plan %s", c.name, c.plan)
		}
	}
	for _, c := range docChecks {
		if !slices.Contains(names, c.campaign) {
			t.Errorf("%q: no campaign %s", c.what, c.campaign)
		}
	}
}

func TestDocNumbers(t *testing.T) {
	work := os.Getenv("BUCMA_DOC_NUMBERS")
	if work == "" {
		t.Skip("the campaigns of docs/reproducing.md take hours: BUCMA_DOC_NUMBERS=DIR (make doc-numbers) runs or resumes them in DIR and checks every number")
	}
	bin := os.Getenv("BUCMA")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "bucma")
		if out, err := runIn(corpus.ModuleRoot(), []string{"go", "build", "-o", bin, "./cmd/bucma"}, nil, makeGuard); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	var only []string
	if s := os.Getenv("BUCMA_DOC_NUMBERS_PLANS"); s != "" {
		only = strings.Split(s, ",")
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range docCampaigns {
		if only != nil && !slices.Contains(only, c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(work, c.name)
			argv := append(append([]string{bin, "expe", "run", c.plan}, c.args...), "--no-progress", "--out", dir, "--report")
			start := time.Now()
			out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, tail(out, 4000))
			}
			t.Logf("%s: %s", strings.Join(argv[1:], " "), time.Since(start).Round(time.Second))
			data, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, ck := range docChecks {
				if ck.campaign != c.name {
					continue
				}
				if line, ok := ck.find(string(data)); ok {
					t.Logf("ok       %s\n         %.220s", ck.what, line)
				} else {
					t.Errorf("MISSING  %s: %.220s", ck.what, line)
				}
			}
		})
	}
}

// The checks that read tables count rows and cells as the page's sentences
// say, and a truncated row is a missing number, not a panic.
func TestDocNumbersReaders(t *testing.T) {
	var b strings.Builder
	b.WriteString("### Walltime-trust against EASY\n\n| threshold | makespan | waiting | slowdown |\n|---|---|---|---|\n")
	for i := 0; i <= 100; i += 10 {
		fmt.Fprintf(&b, "| %d %% | -0.1 ± 0.4 %% [5/10] | +60.0 ± 15.0 %% [10/10]* | +70.0 ± 18.0 %% [10/10]* |\n", i)
	}
	b.WriteString("\n### Next\n| 5 % | +9.0 ± 0.1 % [10/10]* |\n")
	if got, ok := everyThreshold(b.String()); !ok {
		t.Errorf("everyThreshold: %s, want 11 thresholds", got)
	}
	bad := strings.Replace(b.String(), "| 50 % | -0.1 ± 0.4 % [5/10] |", "| 50 % | -0.3 ± 0.1 % [10/10]* |", 1)
	if got, ok := everyThreshold(bad); ok || !strings.Contains(got, "makespan at 50 %") {
		t.Errorf("everyThreshold with a significant makespan at 50 %%: %s, %v", got, ok)
	}
	cut := strings.Replace(b.String(), "| 20 % | -0.1 ± 0.4 % [5/10] | +60.0 ± 15.0 % [10/10]* | +70.0 ± 18.0 % [10/10]* |", "| 20 % | -0.1", 1)
	if got, ok := everyThreshold(cut); ok || !strings.Contains(got, "wait or slowdown at 20 %") {
		t.Errorf("everyThreshold with a truncated row: %s, %v", got, ok)
	}
	if got, ok := gangWith("| olb-afcfsm | 11.26 ± 1.13 (3.48) |\n| jseq-ljfsm | 22.68 ± 0.79\n"); ok || got != "2 variants, loss 11.26 to 22.68 %" {
		t.Errorf("gangWith: %s, %v", got, ok)
	}
	for _, c := range []struct {
		in   string
		want float64
	}{{"  +62.8 ± 15.5", 62.8}, {"-0.8%", -0.8}, {"**20", 0}, {"", 0}, {"0.93)", 0.93}} {
		if got := first(c.in); got != c.want {
			t.Errorf("first(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	if line, ok := row("| FCFS | ", "**yes**")("| FCFS | 5 | **yes**, 5 of 5 runs |\n| FCFS | 6 | no |"); !ok || !strings.HasSuffix(line, "runs |") {
		t.Errorf("row: %q, %v", line, ok)
	}
}
