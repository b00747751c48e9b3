package platforms

import (
	"fmt"
	"strings"
)

// Star is the SimGrid platform of the engine benchmark: a master
// and hosts h0000, h0001, ... of 1 Gflop/s, each linked to the master by
// its own 10 GB/s link of 10 µs, the master's loopback a 10 GB/s FATPIPE
// of 5 µs.
func Star(hosts int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
`)
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "<host id=\"h%04d\" speed=\"1e9f\"/>\n", i)
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="5us" sharing_policy="FATPIPE"/>` + "\n")
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "<link id=\"l%d\" bandwidth=\"10GBps\" latency=\"10us\"/>\n", i)
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "<route src=\"master\" dst=\"h%04d\"><link_ctn id=\"l%d\"/></route>\n", i, i)
	}
	b.WriteString("</zone></platform>\n")
	return []byte(b.String())
}
