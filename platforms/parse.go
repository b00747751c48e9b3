package platforms

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"bucma/internal/units"
)

// DefaultMasterHost is Batsim's default master-host name (its -m option).
const DefaultMasterHost = "master_host"

// maxHosts bounds the number of hosts a platform may declare (radical ranges
// included), so that a malformed file cannot exhaust memory.
var maxHosts = 1 << 20

// Options tunes how a platform is read.
type Options struct {
	// MasterHost is the name of the host that gets the master role, like
	// Batsim's -m/--master-host; DefaultMasterHost when empty. A host with
	// <prop id="role" value="master"/> is the master too; there must be
	// exactly one master in the end.
	MasterHost string
}

func (o Options) masterHost() string {
	if o.MasterHost == "" {
		return DefaultMasterHost
	}
	return o.MasterHost
}

// Load reads a SimGrid platform file the way Batsim 4.x does, with the
// default options.
func Load(path string) (*Platform, error) { return LoadOptions(path, Options{}) }

// LoadOptions is Load with options.
func LoadOptions(path string, opt Options) (*Platform, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	p, err := parseBytes(data, path, opt)
	if err != nil {
		return nil, err
	}
	p.Path = path
	return p, nil
}

// Parse reads a platform from r; name identifies it in error messages and
// becomes Platform.Path.
func Parse(r io.Reader, name string) (*Platform, error) {
	return ParseOptions(r, name, Options{})
}

// ParseOptions is Parse with options.
func ParseOptions(r io.Reader, name string, opt Options) (*Platform, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := parseBytes(data, name, opt)
	if err != nil {
		return nil, err
	}
	p.Path = name
	return p, nil
}

type npKind int

const (
	npHost npKind = iota
	npRouter
	npZone
)

func (k npKind) String() string {
	switch k {
	case npHost:
		return "host"
	case npRouter:
		return "router"
	default:
		return "zone"
	}
}

// netpoint is anything a route can start from or lead to: a host, a router
// or a zone.
type netpoint struct {
	name string
	kind npKind
	zone *zone     // englobing zone (for a zone: its parent)
	self *zone     // the zone itself, for npZone
	host *hostDecl // for npHost
	line int
}

type hostDecl struct {
	name   string
	speed  string
	speeds []float64
	cores  int
	props  map[string]string
	zone   *zone
	line   int
}

type linkDecl struct {
	name    string
	latency float64
	line    int
}

type routeDecl struct {
	elem         string // route, zoneRoute, ASroute, bypassRoute, ...
	src, dst     string
	gwSrc, gwDst string
	linkNames    []string
	linkLines    []int
	symmetrical  bool
	line         int

	// resolved
	srcNP, dstNP, gwSrcNP, gwDstNP *netpoint
	links                          []*linkDecl
}

type hostLinkDecl struct {
	host, up, down string
	line           int
}

type starRoute struct {
	up, down, loopback []*linkDecl
	gateway            *netpoint
	hasLoopback        bool
}

type zone struct {
	id       string
	routing  string // as written; compared case-insensitively
	parent   *zone
	np       *netpoint
	props    map[string]string
	line     int
	depth    int
	children []*zone

	routes    []*routeDecl // route, zoneRoute, ASroute
	hostLinks []hostLinkDecl
	backbone  string
	cabinets  []cabinetDecl

	// built by finalize
	table   map[[2]*netpoint]*routeDecl // Full, Floyd, Dijkstra
	ordered []*routeDecl                // the entries of table, in declaration order
	adj     map[*netpoint][]*routeDecl  // Floyd, Dijkstra: routes by source
	star    map[*netpoint]*starRoute    // Cluster
	// fromCluster marks the zone of a <cluster> element, whose star table is
	// complete at parse time.
	fromCluster bool
}

type cabinetDecl struct {
	hosts []*hostDecl
	lat   float64
	line  int
}

type parser struct {
	name  string
	data  []byte
	lines []int // offsets of '\n'
	opt   Options

	root      *zone // synthetic container of the top-level elements
	zones     []*zone
	hosts     []*hostDecl
	netpoints map[string]*netpoint
	links     map[string]*linkDecl
	bypass    map[[2]string]*routeDecl
	allRoutes []*routeDecl
}

func (p *parser) lineOf(off int64) int {
	return sort.SearchInts(p.lines, int(off)) + 1
}

func (p *parser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

type frame struct {
	name    string
	zone    *zone
	host    *hostDecl
	route   *routeDecl
	cluster *clusterCtx
}

type clusterCtx struct {
	zone  *zone
	hosts []*hostDecl
	props map[string]string
}

func attrs(se xml.StartElement) map[string]string {
	m := make(map[string]string, len(se.Attr))
	for _, a := range se.Attr {
		m[a.Name.Local] = a.Value
	}
	return m
}

func parseBytes(data []byte, name string, opt Options) (*Platform, error) {
	p := &parser{
		name:      name,
		data:      data,
		opt:       opt,
		netpoints: map[string]*netpoint{},
		links:     map[string]*linkDecl{},
		bypass:    map[[2]string]*routeDecl{},
	}
	for i, b := range data {
		if b == '\n' {
			p.lines = append(p.lines, i)
		}
	}
	p.root = &zone{id: "", routing: "", props: map[string]string{}}
	if err := p.read(); err != nil {
		return nil, err
	}
	return p.finalize()
}

func (p *parser) read() error {
	d := xml.NewDecoder(bytes.NewReader(p.data))
	d.Strict = true
	var stack []frame
	sawRoot := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return fmt.Errorf("%s:%d: malformed XML: %s", p.name, se.Line, se.Msg)
			}
			return fmt.Errorf("%s:%d: malformed XML: %v", p.name, p.lineOf(d.InputOffset()), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line := p.lineOf(d.InputOffset())
			if len(stack) == 0 {
				if sawRoot {
					return p.errf(line, "malformed XML: second root element <%s>", t.Name.Local)
				}
				sawRoot = true
				if t.Name.Local != "platform" {
					return p.errf(line, "root element is <%s>, expected <platform>", t.Name.Local)
				}
				stack = append(stack, frame{name: "platform", zone: p.root})
				continue
			}
			f, err := p.start(t, line, stack)
			if err != nil {
				return err
			}
			stack = append(stack, f)
		case xml.EndElement:
			if len(stack) == 0 {
				return fmt.Errorf("%s:%d: malformed XML: unexpected </%s>", p.name, p.lineOf(d.InputOffset()), t.Name.Local)
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.cluster != nil {
				for _, h := range top.cluster.hosts {
					h.props = copyMap(top.cluster.props)
				}
				for k, v := range top.cluster.props {
					top.cluster.zone.props[k] = v
				}
			}
		}
	}
	if !sawRoot {
		return fmt.Errorf("%s:1: malformed XML: no <platform> element", p.name)
	}
	return nil
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// currentZone is the innermost zone of the stack.
func currentZone(stack []frame) *zone {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].zone != nil {
			return stack[i].zone
		}
	}
	return nil
}

func (p *parser) addNetpoint(np *netpoint) error {
	if prev, ok := p.netpoints[np.name]; ok {
		if np.kind == npHost && prev.kind == npHost {
			return p.errf(np.line, "<host id=%q>: duplicate host id (first declared at line %d)", np.name, prev.line)
		}
		return p.errf(np.line, "<%s id=%q>: duplicate name: a %s with this name is declared at line %d",
			np.kind, np.name, prev.kind, prev.line)
	}
	p.netpoints[np.name] = np
	return nil
}

func (p *parser) newZone(id, routing string, parent *zone, line int, elem string) (*zone, error) {
	if id == "" {
		return nil, p.errf(line, "<%s>: missing id", elem)
	}
	z := &zone{id: id, routing: routing, parent: parent, props: map[string]string{}, line: line}
	z.depth = parent.depth + 1
	z.np = &netpoint{name: id, kind: npZone, zone: parent, self: z, line: line}
	if err := p.addNetpoint(z.np); err != nil {
		return nil, err
	}
	parent.children = append(parent.children, z)
	p.zones = append(p.zones, z)
	return z, nil
}

func (p *parser) addHost(name, speed string, cores int, z *zone, line int, elem string) (*hostDecl, error) {
	if name == "" {
		return nil, p.errf(line, "<%s>: missing id", elem)
	}
	if len(p.hosts) >= maxHosts {
		return nil, p.errf(line, "<%s id=%q>: more than %d hosts", elem, name, maxHosts)
	}
	speeds, err := units.ParseSpeeds(speed)
	if err != nil {
		return nil, p.errf(line, "<%s id=%q>: %v", elem, name, err)
	}
	h := &hostDecl{name: name, speed: speed, speeds: speeds, cores: cores, zone: z, line: line}
	if err := p.addNetpoint(&netpoint{name: name, kind: npHost, zone: z, host: h, line: line}); err != nil {
		return nil, err
	}
	p.hosts = append(p.hosts, h)
	return h, nil
}

func (p *parser) addLink(name, latency string, line int, elem string, splitDuplex bool) (*linkDecl, error) {
	if name == "" {
		return nil, p.errf(line, "<%s>: missing id", elem)
	}
	lat := 0.0
	if latency != "" {
		var err error
		if lat, err = units.ParseLatency(latency); err != nil {
			return nil, p.errf(line, "<%s id=%q>: %v", elem, name, err)
		}
	}
	l := &linkDecl{name: name, latency: lat, line: line}
	names := []string{name}
	if splitDuplex {
		names = append(names, name+"_UP", name+"_DOWN")
	}
	for _, n := range names {
		if prev, ok := p.links[n]; ok {
			return nil, p.errf(line, "<%s id=%q>: duplicate link id (first declared at line %d)", elem, n, prev.line)
		}
	}
	for _, n := range names {
		p.links[n] = l
	}
	return l, nil
}

func parseCores(s string) (int, error) {
	if s == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("bad core count %q", s)
	}
	return n, nil
}

// atoi32 parses a radical bound; SimGrid reads them as C ints.
func atoi32(s string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	return int(n), err
}

// parseRadical expands a SimGrid radical such as "0-15,20".
func parseRadical(s string, limit int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		bounds := strings.Split(part, "-")
		switch len(bounds) {
		case 1:
			n, err := atoi32(bounds[0])
			if err != nil {
				return nil, fmt.Errorf("bad radical %q: %q is not an integer", s, part)
			}
			out = append(out, n)
		case 2:
			a, err1 := atoi32(bounds[0])
			b, err2 := atoi32(bounds[1])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("bad radical %q: %q is not a range of integers", s, part)
			}
			if a > b {
				return nil, fmt.Errorf("bad radical %q: empty range %q", s, part)
			}
			if b-a >= limit-len(out) {
				return nil, fmt.Errorf("bad radical %q: more than %d hosts", s, limit)
			}
			for i := a; i <= b; i++ {
				out = append(out, i)
			}
		default:
			return nil, fmt.Errorf("bad radical %q: malformed part %q", s, part)
		}
		if len(out) > limit {
			return nil, fmt.Errorf("bad radical %q: more than %d hosts", s, limit)
		}
	}
	return out, nil
}

func isYes(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "yes":
		return true
	}
	return false
}

func (p *parser) start(t xml.StartElement, line int, stack []frame) (frame, error) {
	name := t.Name.Local
	a := attrs(t)
	parent := stack[len(stack)-1]
	cur := currentZone(stack)
	f := frame{name: name}
	switch name {
	case "zone", "AS":
		if parent.cluster != nil || parent.host != nil || parent.route != nil {
			return f, p.errf(line, "<%s id=%q>: not allowed inside <%s>", name, a["id"], parent.name)
		}
		z, err := p.newZone(a["id"], a["routing"], cur, line, name)
		if err != nil {
			return f, err
		}
		f.zone = z

	case "host":
		speed := a["speed"]
		if _, ok := a["speed"]; !ok {
			speed = a["power"] // DTD before version 4
		}
		cores, err := parseCores(a["core"])
		if err != nil {
			return f, p.errf(line, "<host id=%q>: %v", a["id"], err)
		}
		if cur == nil {
			cur = p.root
		}
		h, err := p.addHost(a["id"], speed, cores, cur, line, "host")
		if err != nil {
			return f, err
		}
		h.props = map[string]string{}
		f.host = h

	case "peer":
		h, err := p.addHost(a["id"], a["speed"], 1, cur, line, "peer")
		if err != nil {
			return f, err
		}
		h.props = map[string]string{}

	case "prop":
		key, ok := a["id"]
		if !ok {
			key = a["key"]
		}
		switch {
		case parent.host != nil:
			parent.host.props[key] = a["value"]
		case parent.cluster != nil:
			parent.cluster.props[key] = a["value"]
		case parent.zone != nil && parent.name != "platform":
			parent.zone.props[key] = a["value"]
		}

	case "cluster":
		return p.startCluster(a, line, cur)

	case "cabinet":
		return f, p.addCabinet(a, line, cur)

	case "router":
		if a["id"] == "" {
			return f, p.errf(line, "<router>: missing id")
		}
		if err := p.addNetpoint(&netpoint{name: a["id"], kind: npRouter, zone: cur, line: line}); err != nil {
			return f, err
		}

	case "link":
		for _, bw := range strings.Split(a["bandwidth"], ",") {
			if _, err := units.ParseBandwidth(bw); err != nil {
				return f, p.errf(line, "<link id=%q>: %v", a["id"], err)
			}
		}
		pol := strings.ToUpper(a["sharing_policy"])
		if _, err := p.addLink(a["id"], a["latency"], line, "link", pol == "SPLITDUPLEX" || pol == "FULLDUPLEX"); err != nil {
			return f, err
		}

	case "backbone":
		if _, err := units.ParseBandwidth(a["bandwidth"]); err != nil {
			return f, p.errf(line, "<backbone id=%q>: %v", a["id"], err)
		}
		if _, err := p.addLink(a["id"], a["latency"], line, "backbone", false); err != nil {
			return f, err
		}
		if cur.backbone != "" {
			return f, p.errf(line, "<backbone id=%q>: zone %q already has a backbone", a["id"], cur.id)
		}
		cur.backbone = a["id"]

	case "host_link":
		cur.hostLinks = append(cur.hostLinks, hostLinkDecl{host: a["id"], up: a["up"], down: a["down"], line: line})

	case "route", "zoneRoute", "ASroute", "bypassRoute", "bypassZoneRoute", "bypassASroute":
		r := &routeDecl{
			elem: name, src: a["src"], dst: a["dst"], gwSrc: a["gw_src"], gwDst: a["gw_dst"],
			symmetrical: isYes(a["symmetrical"]), line: line,
		}
		if r.src == "" || r.dst == "" {
			return f, p.errf(line, "<%s src=%q dst=%q>: missing src or dst", name, r.src, r.dst)
		}
		if strings.HasPrefix(name, "bypass") {
			r.symmetrical = false
			p.bypass[[2]string{r.src, r.dst}] = r
		} else {
			cur.routes = append(cur.routes, r)
		}
		p.allRoutes = append(p.allRoutes, r)
		f.route = r

	case "link_ctn":
		if parent.route == nil {
			return f, p.errf(line, "<link_ctn id=%q>: outside of a route", a["id"])
		}
		id := a["id"]
		switch strings.ToUpper(a["direction"]) {
		case "UP":
			id += "_UP"
		case "DOWN":
			id += "_DOWN"
		}
		parent.route.linkNames = append(parent.route.linkNames, id)
		parent.route.linkLines = append(parent.route.linkLines, line)

	case "include":
		return f, p.errf(line, "<include file=%q>: not supported (removed from SimGrid)", a["file"])
	}
	return f, nil
}

func (p *parser) startCluster(a map[string]string, line int, cur *zone) (frame, error) {
	id := a["id"]
	elem := "cluster"
	if id == "" {
		return frame{}, p.errf(line, "<cluster>: missing id")
	}
	topo := strings.ToUpper(a["topology"])
	if topo == "" {
		topo = "FLAT"
	}
	routing := "Cluster"
	if topo != "FLAT" {
		routing = "Cluster/" + topo
	}
	z, err := p.newZone(id, routing, cur, line, elem)
	if err != nil {
		return frame{}, err
	}
	z.fromCluster = true
	z.star = map[*netpoint]*starRoute{}
	cores, err := parseCores(a["core"])
	if err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: %v", id, err)
	}
	rad, err := parseRadical(a["radical"], maxHosts-len(p.hosts))
	if err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: %v", id, err)
	}
	lat := 0.0
	if s := a["lat"]; s != "" {
		if lat, err = units.ParseLatency(s); err != nil {
			return frame{}, p.errf(line, "<cluster id=%q>: lat: %v", id, err)
		}
	}
	if _, err := units.ParseBandwidth(a["bw"]); err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: bw: %v", id, err)
	}
	parseOpt := func(attr string, f func(string) (float64, error)) (float64, error) {
		s := strings.TrimSpace(a[attr])
		if s == "" {
			return 0, nil
		}
		v, err := f(s)
		if err != nil {
			return 0, p.errf(line, "<cluster id=%q>: %s: %v", id, attr, err)
		}
		return v, nil
	}
	bbBw, err := parseOpt("bb_bw", units.ParseBandwidth)
	if err != nil {
		return frame{}, err
	}
	bbLat, err := parseOpt("bb_lat", units.ParseLatency)
	if err != nil {
		return frame{}, err
	}
	loBw, err := parseOpt("loopback_bw", units.ParseBandwidth)
	if err != nil {
		return frame{}, err
	}
	loLat, err := parseOpt("loopback_lat", units.ParseLatency)
	if err != nil {
		return frame{}, err
	}
	limiter, err := parseOpt("limiter_link", units.ParseBandwidth)
	if err != nil {
		return frame{}, err
	}
	var backbone *linkDecl
	if bbBw > 0 || bbLat > 0 {
		if backbone, err = p.addLink(id+"_backbone", "0", line, elem, false); err != nil {
			return frame{}, err
		}
		backbone.latency = bbLat
	}
	split := a["sharing_policy"] == "" || strings.EqualFold(a["sharing_policy"], "SPLITDUPLEX") ||
		strings.EqualFold(a["sharing_policy"], "FULLDUPLEX")
	ctx := &clusterCtx{zone: z, props: map[string]string{}}
	for _, r := range rad {
		hostName := a["prefix"] + strconv.Itoa(r) + a["suffix"]
		h, err := p.addHost(hostName, a["speed"], cores, z, line, elem+" id="+strconv.Quote(id)+" host")
		if err != nil {
			return frame{}, err
		}
		ctx.hosts = append(ctx.hosts, h)
		if topo != "FLAT" {
			continue
		}
		linkID := id + "_link_" + strconv.Itoa(r)
		sr := &starRoute{}
		if loBw > 0 || loLat > 0 {
			lo, err := p.addLink(linkID+"_loopback", "0", line, elem, false)
			if err != nil {
				return frame{}, err
			}
			lo.latency = loLat
			sr.loopback = []*linkDecl{lo}
			sr.hasLoopback = true
		}
		if limiter > 0 {
			lim, err := p.addLink(linkID+"_limiter", "0", line, elem, false)
			if err != nil {
				return frame{}, err
			}
			sr.up = append(sr.up, lim)
		}
		l, err := p.addLink(linkID, "0", line, elem, split)
		if err != nil {
			return frame{}, err
		}
		l.latency = lat
		sr.up = append(sr.up, l)
		if backbone != nil {
			sr.up = append(sr.up, backbone)
		}
		sr.down = reversed(sr.up)
		z.star[p.netpoints[hostName]] = sr
	}
	routerID := a["router_id"]
	if routerID == "" {
		routerID = a["prefix"] + id + "_router" + a["suffix"]
	}
	rnp := &netpoint{name: routerID, kind: npRouter, zone: z, line: line}
	if err := p.addNetpoint(rnp); err != nil {
		return frame{}, err
	}
	z.star[rnp] = &starRoute{}
	return frame{name: "cluster", zone: z, cluster: ctx}, nil
}

func (p *parser) addCabinet(a map[string]string, line int, cur *zone) error {
	id := a["id"]
	rad, err := parseRadical(a["radical"], maxHosts-len(p.hosts))
	if err != nil {
		return p.errf(line, "<cabinet id=%q>: %v", id, err)
	}
	lat := 0.0
	if s := a["lat"]; s != "" {
		if lat, err = units.ParseLatency(s); err != nil {
			return p.errf(line, "<cabinet id=%q>: lat: %v", id, err)
		}
	}
	c := cabinetDecl{lat: lat, line: line}
	for _, r := range rad {
		name := a["prefix"] + strconv.Itoa(r) + a["suffix"]
		h, err := p.addHost(name, a["speed"], 1, cur, line, "cabinet id="+strconv.Quote(id)+" host")
		if err != nil {
			return err
		}
		h.props = map[string]string{}
		for _, suffix := range []string{"_UP", "_DOWN"} {
			l, err := p.addLink("link_"+name+suffix, "0", line, "cabinet", false)
			if err != nil {
				return err
			}
			l.latency = lat
		}
		c.hosts = append(c.hosts, h)
	}
	cur.cabinets = append(cur.cabinets, c)
	return nil
}

func reversed(l []*linkDecl) []*linkDecl {
	out := make([]*linkDecl, len(l))
	for i, x := range l {
		out[len(l)-1-i] = x
	}
	return out
}
