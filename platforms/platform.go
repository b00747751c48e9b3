// Package platforms loads SimGrid platform files the way Batsim 4.x reads
// them, and holds the platforms bundled with bucma (lille.xml,
// lille-cores.xml, osep.xml).
package platforms

// Host is one compute host as Batsim exposes it to a scheduler.
type Host struct {
	ID             int               // Batsim resource id: rank in lexicographic host-name order
	Name           string            // SimGrid host name
	Speed          float64           // flop/s: the speed of the host's initial pstate (the first one unless the pstate attribute says otherwise)
	Cores          int               // the core attribute (1 when absent)
	Properties     map[string]string // every <prop> of the host (or its cluster), plus "role" ("" when none)
	ZoneProperties map[string]string // <prop>s of the enclosing zone(s); empty map when none

	Pstates []float64 // every pstate speed of the speed attribute
	PState  int       // the initial pstate (the pstate attribute, 0 when absent)
	Zone    string    // id of the innermost enclosing zone
}

// Platform is a loaded platform: the compute hosts in resource-id order, the
// latencies Batsim's internal messages pay (see the timing model of the
// embedded engine), and the network as SimGrid builds it (Links, Route).
type Platform struct {
	Path    string
	Master  string // master host name (not a resource)
	Hosts   []Host // compute hosts, Hosts[i].ID == i
	Storage []Host // storage hosts (role "storage"), ids after the compute ones
	// MasterLoopbackLatency is the latency of the master's route to itself
	// (L_m), as Route gives it.
	MasterLoopbackLatency float64
	// HostToMasterLatency[i] is the latency of the route from compute host i
	// to the master (L_h), as Route gives it.
	HostToMasterLatency []float64
	// StorageToMasterLatency[i] is the same latency for Storage[i].
	StorageToMasterLatency []float64
	// Warnings lists the routes to the master that Route reports an error
	// for: an unsupported routing construct or a route SimGrid cannot
	// compute (latency counted as 0), or a route with an undeclared part
	// (latency as SimGrid computes it).
	Warnings []string
	// Unmodelled lists the features of the file that change what Batsim
	// does but that bucma's engine does not model (traces, SimGrid
	// settings), each with its line.
	Unmodelled []string

	net *network // links, routing tables and routes (nil for a Platform built by hand)
}
