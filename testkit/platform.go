package testkit

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// Platform is PlatformXML parsed; the test fails on an error.
func Platform(t testing.TB, hosts []Host) *platforms.Platform {
	t.Helper()
	p, err := platforms.Parse(strings.NewReader(PlatformXML(hosts)), "testkit")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PlatformXML is a SimGrid platform of the hosts (h0, h1, ...) in one
// Full zone with a master host: each host has its speed (1e9 flop/s when
// 0) as its speed and "speed" property, and its properties; each is
// reached from the master by a link of its own (10 GB/s, 10 us).
func PlatformXML(hosts []Host) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
`)
	for i, h := range hosts {
		sp := h.Speed
		if sp == 0 {
			sp = 1e9
		}
		fmt.Fprintf(&b, "<host id=\"h%d\" speed=\"%gf\"><prop id=\"speed\" value=\"%g\"/>", i, sp, sp)
		for _, k := range slices.Sorted(maps.Keys(h.Properties)) {
			fmt.Fprintf(&b, "<prop id=%q value=%q/>", k, h.Properties[k])
		}
		b.WriteString("</host>\n")
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>` + "\n")
	for i := range hosts {
		fmt.Fprintf(&b, "<link id=\"l%d\" bandwidth=\"10GBps\" latency=\"10us\"/>\n", i)
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := range hosts {
		fmt.Fprintf(&b, "<route src=\"master\" dst=\"h%d\"><link_ctn id=\"l%d\"/></route>\n", i, i)
	}
	b.WriteString("</zone></platform>\n")
	return b.String()
}

// PropHost is a host of given speed whose property (PropHosts' prop) has
// value Value.
type PropHost struct {
	Speed float64
	Value string
}

// PropHosts returns hosts whose property prop has each PropHost's value.
func PropHosts(prop string, hosts ...PropHost) []Host {
	out := make([]Host, len(hosts))
	for i, h := range hosts {
		out[i] = Host{Speed: h.Speed, Properties: map[string]string{prop: h.Value}}
	}
	return out
}

// Workload is WorkloadJSON parsed; the test fails on an error.
func Workload(t testing.TB, jobs []Job) *workloads.Workload {
	t.Helper()
	w, err := workloads.Parse(WorkloadJSON(jobs), "testkit")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// WorkloadJSON is a Batsim workload of delay jobs (each job's Run is its
// delay, on a profile of its own), with its walltime and user when set.
func WorkloadJSON(jobs []Job) []byte {
	type wjob struct {
		ID       string   `json:"id"`
		Subtime  float64  `json:"subtime"`
		Res      int      `json:"res"`
		Walltime *float64 `json:"walltime,omitempty"`
		Profile  string   `json:"profile"`
		User     string   `json:"user,omitempty"`
	}
	type profile struct {
		Type  string  `json:"type"`
		Delay float64 `json:"delay"`
	}
	doc := struct {
		NbRes    int                `json:"nb_res"`
		Jobs     []wjob             `json:"jobs"`
		Profiles map[string]profile `json:"profiles"`
	}{NbRes: 1, Profiles: map[string]profile{}}
	for _, j := range jobs {
		wj := wjob{ID: j.Name, Subtime: j.Submit, Res: j.Res, Profile: "p" + j.Name, User: j.User}
		if j.Walltime != 0 {
			w := j.Walltime
			wj.Walltime = &w
		}
		doc.Jobs = append(doc.Jobs, wj)
		doc.Profiles["p"+j.Name] = profile{Type: "delay", Delay: j.Run}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		panic(err) // plain values: cannot fail
	}
	return raw
}
