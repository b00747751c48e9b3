package rlscheduler

// Published are the paper's heuristic cells (Tables V and VI; its
// repository's README, "Reproduce Results in Paper") per trace: mean
// bounded slowdown and utilization.
var Published = map[string]map[Cell]Result{
	"lublin-1": {
		{"FCFS", false}: {7273.77, 0.657}, {"WFP3", false}: {19753.53, 0.747}, {"UNI", false}: {22274.74, 0.691},
		{"SJF", false}: {277.35, 0.762}, {"F1", false}: {258.37, 0.816},
		{"FCFS", true}: {235.82, 0.868}, {"WFP3", true}: {133.87, 0.864}, {"UNI", true}: {307.23, 0.883},
		{"SJF", true}: {73.31, 0.778}, {"F1", true}: {75.07, 0.840},
	},
}
