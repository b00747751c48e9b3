package bot

// What the thesis publishes.

// botPaperRow is a BoT of Tables 7 and 8: VMs, Consolidado and Real
// (minutes), the difference as printed (%) and the migrations (-1: none
// given).
type botPaperRow struct {
	vms              int
	cons, real, diff float64
	migrations       int
}

var botPaperTrivial = map[string]botPaperRow{
	"H1-1": {10, 45, 52, 15.5, -1},
	"H1-2": {10, 75, 87, 16, -1},
	"H1-3": {10, 55, 64, 16.4, -1},
	"H2-1": {10, 45, 55, 22.22, 21},
	"H2-2": {17, 50, 67, 34, 11},
	"H2-3": {24, 45, 83, 84.44, 3},
}

// botPaperProfile is a profile of Tables 9 to 12: VMs, tasks, Consolidado
// (minutes), Real without (Table 10) and with (Table 11) the system level
// and its differences (%), and the migrations (Table 12), by external load
// (BotBackgrounds order).
type botPaperProfile struct {
	vms, tasks            int
	cons                  float64
	without, with         [3]float64
	diffWithout, diffWith [3]float64
	migrations            [3]int
}

var botPaperProfiles = map[string]botPaperProfile{
	"leve":    {3, 74, 80, [3]float64{93, 86, 86}, [3]float64{92, 86, 86}, [3]float64{16.25, 7.5, 7.5}, [3]float64{15, 7.5, 7.5}, [3]int{0, 0, 0}},
	"mediano": {24, 74, 65, [3]float64{75, 74, 78}, [3]float64{74, 77, 86}, [3]float64{15.4, 13.8, 20}, [3]float64{13.8, 18.5, 32.3}, [3]int{51, 97, 182}},
	"pesado":  {24, 74, 75, [3]float64{83, 89, 96}, [3]float64{84, 94, 90}, [3]float64{10.7, 18.7, 28}, [3]float64{12, 25.3, 20}, [3]int{49, 152, 55}},
}

// botPaperUP is a BoT of Table 14: tasks, arrival, VMs, predicted and real
// end (minutes from the first arrival) and the difference as printed (%).
type botPaperUP struct {
	tasks      int
	arrival    float64
	vms        int
	pred, real float64
	diff       float64
}

var botPaperProduction = map[string]botPaperUP{
	"UP-10": {98, 0, 10, 355, 394, 10.99},
	"UP-8":  {41, 65, 8, 240, 262, 9.17},
	"UP-9":  {56, 110, 10, 215, 225, 4.65},
	"UP-5":  {23, 165, 8, 225, 231, 2.67},
	"UP-3":  {10, 200, 4, 245, 252, 2.86},
	"UP-7":  {39, 230, 8, 345, 359, 4.06},
	"UP-1":  {8, 270, 4, 275, 297, 8},
	"UP-6":  {26, 360, 8, 460, 472, 2.61},
	"UP-4":  {16, 400, 4, 480, 489, 1.86},
	"UP-2":  {10, 530, 4, 570, 576, 1.05},
}

// BotFloorJoules is the floor of the energy saved by switching nodes off:
// no relative change is computed over a consumption below 1 J.
const BotFloorJoules = 1.0
