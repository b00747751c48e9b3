package realbatsim5

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// pstateLayout places the bot platform's pstates elsewhere: its computation
// pstate stays pstate 0 (same speed, same wattage), other computation
// pstates follow it, then its sleep pstate and the two switching pstates.
type pstateLayout struct {
	name    string
	compute int // computation pstates (the bot platform has one)
}

// sleep is the layout's sleep pstate.
func (l pstateLayout) sleep() int { return l.compute }

var (
	botSpeed    = regexp.MustCompile(`speed="([^"]*,[^"]*)"`)
	botWattage  = regexp.MustCompile(`<prop id="wattage_per_state" value="([^"]*)"/>`)
	botSleepers = regexp.MustCompile(`<prop id="sleep_pstates" value="1:2:3"/>`)
)

// relayout writes the bot platform with its pstates in layout l.
func relayout(t *testing.T, l pstateLayout, dir string) string {
	t.Helper()
	src, err := os.ReadFile(platformPath("bot"))
	if err != nil {
		t.Fatal(err)
	}
	// The bot platform's hosts: computation, sleep, switching off, on.
	spread := func(list string, slower func(first string, k int) string) string {
		f := strings.Split(list, ",")
		if len(f) != 4 {
			t.Fatalf("bot.xml: %q is not the four pstates of a host", list)
		}
		out := []string{f[0]}
		for k := 1; k < l.compute; k++ {
			out = append(out, slower(strings.TrimSpace(f[0]), k))
		}
		return strings.Join(append(out, f[1:]...), ",")
	}
	n := 0
	b := botSpeed.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		list := string(botSpeed.FindSubmatch(m)[1])
		return []byte(`speed="` + spread(list, func(first string, k int) string {
			v, err := strconv.ParseFloat(strings.TrimSuffix(first, "f"), 64)
			if err != nil {
				t.Fatalf("bot.xml: speed %q", first)
			}
			return " " + strconv.FormatFloat(v*(1-0.05*float64(k)), 'g', -1, 64) + "f"
		}) + `"`)
	})
	b = botWattage.ReplaceAllFunc(b, func(m []byte) []byte {
		list := string(botWattage.FindSubmatch(m)[1])
		return []byte(`<prop id="wattage_per_state" value="` + spread(list, func(first string, _ int) string { return " " + first }) + `"/>`)
	})
	s := l.sleep()
	b = botSleepers.ReplaceAll(b, []byte(fmt.Sprintf(`<prop id="sleep_pstates" value="%d:%d:%d"/>`, s, s+1, s+2)))
	if n != 36 || bytes.Contains(b, []byte(`value="1:2:3"`)) {
		t.Fatalf("bot.xml: %d hosts relaid out, want 36", n)
	}
	out := filepath.Join(dir, "bot-"+l.name+".xml")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// consumedJoules reads schedule.json's consumed_joules.
func consumedJoules(t *testing.T, r *result) float64 {
	t.Helper()
	var s struct {
		Joules float64 `json:"consumed_joules"`
	}
	if err := json.Unmarshal(r.Schedule, &s); err != nil {
		t.Fatalf("schedule.json: %v", err)
	}
	return s.Joules
}

// TestPowerLayouts runs the policies that switch hosts off and on on the bot
// platform with its sleep pstate moved (pstate 13 after 13 computation
// pstates, as on Batsim's energy_platform_homogeneous_no_net_128.xml, and
// pstate 2 after two): the switches go to the platform's sleep pstate and
// back to a computation pstate, and every run decides as on the bot platform
// itself (the same jobs.csv, the same energy).
func TestPowerLayouts(t *testing.T) {
	batsim5(t)
	lib := library(t)
	layouts := []pstateLayout{{name: "sleep13", compute: 13}, {name: "sleep2", compute: 2}}
	var cases []policyCase
	for _, c := range policyCases() {
		if c.platform == "bot" && c.switches {
			cases = append(cases, c)
		}
	}
	if len(cases) < 4 {
		t.Fatalf("%d power cases on the bot platform, want energy, batsched-energy, sleeper and threshold-vm-consolidation", len(cases))
	}
	ran, same := 0, 0
	for i, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			dir := filepath.Join(tmpRoot, "power", strconv.Itoa(i))
			w, wl := c.load(t, dir)
			ref, _, err := viaLibrary(t, lib, platformPath("bot"), wl, filepath.Join(dir, "bot"), initString(t, c.policy, c.opts), c.args...)
			if err != nil {
				t.Fatalf("on bot.xml: %v", err)
			}
			for _, l := range layouts {
				plat := relayout(t, l, dir)
				opts := maps.Clone(c.opts)
				if _, ok := opts["pstate-sleep"]; ok {
					opts["pstate-sleep"] = strconv.Itoa(l.sleep())
				}
				init := initString(t, c.policy, opts)
				for _, via := range transports {
					r, switches, err := runVia(t, via, lib, plat, wl, filepath.Join(dir, l.name, via), init, c.args...)
					if err != nil {
						t.Errorf("%s, %s: %v", l.name, via, err)
						continue
					}
					ran++
					if err := checkComplete(parseJobs(t, r.Jobs), w); err != nil {
						t.Errorf("%s, %s: %v", l.name, via, err)
					}
					if switches == 0 {
						t.Errorf("%s, %s: Batsim logged no switch", l.name, via)
					}
					if want := fmt.Sprintf("OFF. Passing in virtual pstate %d", l.sleep()+1); !strings.Contains(r.Log, want) {
						t.Errorf("%s, %s: Batsim's log never says %q", l.name, via, want)
					}
					if !bytes.Equal(r.Jobs, ref.Jobs) {
						t.Errorf("%s, %s: jobs.csv differs from the run on bot.xml, %s", l.name, via, firstDiff(ref.Jobs, r.Jobs))
						continue
					}
					if a, b := consumedJoules(t, ref), consumedJoules(t, r); a != b {
						t.Errorf("%s, %s: %v J consumed, %v J on bot.xml", l.name, via, b, a)
						continue
					}
					same++
				}
			}
		})
	}
	t.Logf("power switches with the sleep pstate moved (%d cases, %d layouts, 2 transports): ran to the end %d, same jobs.csv and energy as on bot.xml %d",
		len(cases), len(layouts), ran, same)
}
