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
// or a zone (SimGrid's NetPoint).
type netpoint struct {
	name string
	kind npKind
	zone *zone     // englobing zone (for a zone: its parent; nil for a root zone)
	id   int       // rank among the components of the englobing zone
	self *zone     // the zone itself, for npZone
	host *hostDecl // for npHost
	line int
	seq  int // declaration order: routes only name what is declared before them
}

type hostDecl struct {
	name   string
	speed  string
	speeds []float64
	pstate int // initial pstate (the speed is speeds[pstate])
	cores  int
	props  map[string]string
	zone   *zone
	line   int
}

// linkDecl is one link as the network model holds it (a split-duplex link
// is two of them, "<id>_UP" and "<id>_DOWN").
type linkDecl struct {
	id        int // index in parser.linkList (the link id of routes)
	name      string
	bandwidth float64
	latency   float64
	fatpipe   bool
	line      int
	seq       int // declaration order (see netpoint.seq)
}

// splitDecl is a SPLITDUPLEX link: routes name it with a direction.
type splitDecl struct {
	name     string
	up, down *linkDecl
	line     int
}

// linkCtn is one <link_ctn> of a route: a link name and its direction.
type linkCtn struct {
	name      string
	direction string // "", "UP" or "DOWN"
	line      int
	seq       int
}

// linkInRoute is a resolved <link_ctn> (SimGrid's LinkInRoute): a link, or
// a split-duplex link and its direction.
type linkInRoute struct {
	link  *linkDecl
	split *splitDecl
	down  bool
}

type routeDecl struct {
	elem         string // route, zoneRoute, ASroute, bypassRoute, ...
	src, dst     string
	gwSrc, gwDst string
	ctns         []linkCtn
	symmetrical  bool
	line         int
	seq          int

	// resolved
	srcNP, dstNP, gwSrcNP, gwDstNP *netpoint
	links                          []linkInRoute
}

type hostLinkDecl struct {
	host, up, down string
	line           int
}

type cabinetDecl struct {
	hosts    []*hostDecl
	up, down []*linkDecl // private links of each host
}

// contentMode is what a zone holds, as SimGrid's DTD allows: either
// sub-zones and zone routes, or hosts, routers and routes.
type contentMode int

const (
	contentUnknown contentMode = iota
	contentLeaf
	contentInternal
)

type zone struct {
	id      string
	routing string // as written; compared case-insensitively
	kind    zoneKind
	parent  *zone
	np      *netpoint
	props   map[string]string
	line    int

	children []*zone
	vertices []*netpoint // components in SimGrid's order (their id is their index)

	// content model of the DTD
	mode      contentMode
	modeLine  int
	pastFirst bool // a route element was seen: no more components
	sawChild  bool // an element other than <prop> was seen

	routes    []*routeDecl // route, zoneRoute, ASroute, in declaration order
	bypasses  []*routeDecl // bypassRoute, bypassZoneRoute, bypassASroute
	hostLinks []hostLinkDecl
	backbone  *linkDecl
	cabinets  []cabinetDecl

	// fromCluster marks the zone of a <cluster> element, whose star routes
	// are complete at parse time.
	fromCluster bool
	topology    string // <cluster topology>, "" for FLAT
	endSeq      int    // p.seq when the zone closed

	table  zoneRouting              // routing table, built by finalize (at parse time for <cluster>)
	bypass map[[2]*netpoint]*zroute // bypass routes declared in the zone
}

type parser struct {
	seq   int // elements read so far
	name  string
	data  []byte
	lines []int // offsets of '\n'
	opt   Options

	root      *zone // the top-level zone
	zones     []*zone
	hosts     []*hostDecl
	netpoints map[string]*netpoint
	links     map[string]*linkDecl  // standard links by name
	splits    map[string]*splitDecl // split-duplex links by name
	linkList  []*linkDecl           // every link, by id
	allRoutes []*routeDecl

	loopbackBw, loopbackLat float64 // network/loopback-bw and -lat
	unmodelled              []string
	loopback                *linkDecl
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
	config  bool
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
		name:        name,
		data:        data,
		opt:         opt,
		netpoints:   map[string]*netpoint{},
		links:       map[string]*linkDecl{},
		splits:      map[string]*splitDecl{},
		loopbackBw:  10e9,
		loopbackLat: 0,
	}
	p.loopback = &linkDecl{name: "__loopback__", fatpipe: true}
	p.linkList = []*linkDecl{p.loopback}
	for i, b := range data {
		if b == '\n' {
			p.lines = append(p.lines, i)
		}
	}
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
				stack = append(stack, frame{name: "platform"})
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
			} else if top.zone != nil {
				if err := p.sealZone(top.zone); err != nil {
					return err
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

// currentZone is the innermost zone of the stack (nil at the top level).
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
	np.seq = p.seq
	if z := np.zone; z != nil {
		np.id = len(z.vertices)
		z.vertices = append(z.vertices, np)
	}
	return nil
}

func (p *parser) newZone(id, routing string, parent *zone, line int, elem string) (*zone, error) {
	if id == "" {
		return nil, p.errf(line, "<%s>: missing id", elem)
	}
	if parent == nil && p.root != nil {
		return nil, p.errf(line, "<%s id=%q>: a second top-level zone (SimGrid makes the first one, %q, the root of the platform and refuses the hosts and links of any other: \"Invalid CPU model\")", elem, id, p.root.id)
	}
	kind, ok := zoneKindOf(routing)
	if !ok {
		return nil, p.errf(line, "<%s id=%q>: unknown routing %q (SimGrid: \"Not a valid model!\"; expected Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi or Wifi)", elem, id, routing)
	}
	z := &zone{id: id, routing: routing, kind: kind, parent: parent, props: map[string]string{}, line: line}
	z.np = &netpoint{name: id, kind: npZone, zone: parent, self: z, line: line}
	if err := p.addNetpoint(z.np); err != nil {
		return nil, err
	}
	if parent != nil {
		parent.children = append(parent.children, z)
	} else {
		p.root = z
	}
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
	speeds, err := parseSpeeds(speed)
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

// newLink creates one link of the network model.
func (p *parser) newLink(name string, bw, lat float64, fatpipe bool, line int, elem string) (*linkDecl, error) {
	if prev, ok := p.links[name]; ok {
		return nil, p.errf(line, "<%s id=%q>: duplicate link id (first declared at line %d)", elem, name, prev.line)
	}
	if prev, ok := p.splits[name]; ok {
		return nil, p.errf(line, "<%s id=%q>: duplicate link id (first declared at line %d)", elem, name, prev.line)
	}
	l := &linkDecl{id: len(p.linkList), name: name, bandwidth: bw, latency: lat, fatpipe: fatpipe, line: line, seq: p.seq}
	p.linkList = append(p.linkList, l)
	p.links[name] = l
	return l, nil
}

// newSplitLink creates a SPLITDUPLEX link: two links "<name>_UP" and
// "<name>_DOWN" (shared), named together by routes with a direction.
func (p *parser) newSplitLink(name string, bw, lat float64, line int, elem string) (*splitDecl, error) {
	if prev, ok := p.splits[name]; ok {
		return nil, p.errf(line, "<%s id=%q>: duplicate link id (first declared at line %d)", elem, name, prev.line)
	}
	if prev, ok := p.links[name]; ok {
		return nil, p.errf(line, "<%s id=%q>: duplicate link id (first declared at line %d)", elem, name, prev.line)
	}
	up, err := p.newLink(name+"_UP", bw, lat, false, line, elem)
	if err != nil {
		return nil, err
	}
	down, err := p.newLink(name+"_DOWN", bw, lat, false, line, elem)
	if err != nil {
		return nil, err
	}
	s := &splitDecl{name: name, up: up, down: down, line: line}
	p.splits[name] = s
	return s, nil
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

// Element classes of the content model of <zone> and <AS> in SimGrid's DTD:
// props first; then either sub-zones, links and backbones followed by zone
// routes, or hosts, routers, cabinets, links, backbones and host_links
// followed by routes.
var (
	internalComponents = map[string]bool{"zone": true, "AS": true, "cluster": true, "peer": true}
	leafComponents     = map[string]bool{"host": true, "router": true, "host_link": true, "storage": true, "storage_type": true}
	anyComponents      = map[string]bool{"link": true, "backbone": true, "cabinet": true, "include": true}
	internalRoutes     = map[string]bool{"zoneRoute": true, "ASroute": true, "bypassZoneRoute": true, "bypassASroute": true}
	leafRoutes         = map[string]bool{"route": true, "bypassRoute": true}
	needsZone          = map[string]bool{"host": true, "router": true, "peer": true, "cabinet": true, "backbone": true,
		"host_link": true, "route": true, "zoneRoute": true, "ASroute": true, "bypassRoute": true,
		"bypassZoneRoute": true, "bypassASroute": true}
	platformChildren = map[string]bool{"config": true, "random": true, "include": true, "cluster": true, "cabinet": true,
		"peer": true, "AS": true, "zone": true, "trace": true, "trace_connect": true, "process": true, "actor": true}
)

// checkContent enforces the DTD's content model of a zone (SimGrid's parser
// validates it and refuses any other order).
func (p *parser) checkContent(z *zone, name, id string, line int) error {
	what := fmt.Sprintf("<%s id=%q>", name, id)
	if strings.HasSuffix(name, "oute") || name == "ASroute" {
		what = "<" + name + ">"
	}
	if name == "prop" {
		if z.sawChild {
			return p.errf(line, "<prop>: not allowed here: the <prop>s of zone %q come before its other elements", z.id)
		}
		return nil
	}
	if name == "trace" || name == "trace_connect" {
		return nil
	}
	z.sawChild = true
	setMode := func(m contentMode) error {
		if z.mode == contentUnknown {
			z.mode, z.modeLine = m, line
			return nil
		}
		if z.mode == m {
			return nil
		}
		holds := "hosts, routers or routes (line %d)"
		if z.mode == contentInternal {
			holds = "sub-zones or zone routes (line %d)"
		}
		return p.errf(line, "%s: not allowed here: zone %q already holds "+holds+
			"; a zone holds either sub-zones and zoneRoutes, or hosts, routers and routes", what, z.id, z.modeLine)
	}
	switch {
	case internalComponents[name], leafComponents[name], anyComponents[name]:
		if z.pastFirst {
			return p.errf(line, "%s: not allowed here: in zone %q, routes come after every host, router, link and sub-zone", what, z.id)
		}
		if internalComponents[name] {
			return setMode(contentInternal)
		}
		if leafComponents[name] {
			return setMode(contentLeaf)
		}
	case internalRoutes[name]:
		z.pastFirst = true
		return setMode(contentInternal)
	case leafRoutes[name]:
		z.pastFirst = true
		return setMode(contentLeaf)
	}
	return nil
}

func (p *parser) start(t xml.StartElement, line int, stack []frame) (frame, error) {
	p.seq++
	name := t.Name.Local
	a := attrs(t)
	parent := stack[len(stack)-1]
	cur := currentZone(stack)
	f := frame{name: name}
	switch {
	case parent.config && name != "prop":
		return f, p.errf(line, "<%s>: not allowed inside <config> (only <prop>)", name)
	case cur == nil && needsZone[name]:
		return f, p.errf(line, "<%s id=%q>: not allowed outside a <zone>", name, a["id"])
	case parent.name == "platform":
		if !platformChildren[name] {
			return f, p.errf(line, "<%s id=%q>: not allowed directly in <platform> (put it in a <zone>)", name, a["id"])
		}
	case parent.cluster != nil:
		if name != "prop" {
			return f, p.errf(line, "<%s id=%q>: not allowed inside <cluster> (only <prop>)", name, a["id"])
		}
	case parent.zone != nil:
		if err := p.checkContent(parent.zone, name, a["id"], line); err != nil {
			return f, err
		}
	}
	switch name {
	case "config":
		f.config = true

	case "trace", "trace_connect":
		p.unmodelledf(line, "<%s id=%q>: availability, speed, bandwidth and latency traces", name, a["id"])

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
		h, err := p.addHost(a["id"], speed, cores, cur, line, "host")
		if err != nil {
			return f, err
		}
		h.props = map[string]string{}
		f.host = h
		if ps, ok := a["pstate"]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(ps))
			if err != nil || n < 0 || n >= len(h.speeds) {
				return f, p.errf(line, "<host id=%q>: pstate %q: the host has %d pstate(s) (0..%d)", a["id"], ps, len(h.speeds), len(h.speeds)-1)
			}
			h.pstate = n
		}
		p.traceAttrs(a, line, "host", "availability_file", "speed_file", "state_file")

	case "peer":
		if cur == nil || cur.kind != kindVivaldi {
			return f, p.errf(line, "<peer id=%q>: only allowed in a zone with routing Vivaldi", a["id"])
		}
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
		case parent.config:
			return f, p.config(key, a["value"], line)
		case parent.host != nil:
			parent.host.props[key] = a["value"]
		case parent.cluster != nil:
			parent.cluster.props[key] = a["value"]
		case parent.zone != nil:
			parent.zone.props[key] = a["value"]
		}

	case "cluster":
		p.traceAttrs(a, line, "cluster", "availability_file", "state_file")
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
		p.traceAttrs(a, line, "link", "bandwidth_file", "latency_file", "state_file")
		return f, p.addLinkElement(a, line)

	case "backbone":
		return f, p.addBackbone(a, line, cur)

	case "host_link":
		if err := p.inStarZone(cur, "host_link", a["id"], line); err != nil {
			return f, err
		}
		cur.hostLinks = append(cur.hostLinks, hostLinkDecl{host: a["id"], up: a["up"], down: a["down"], line: line})

	case "route", "zoneRoute", "ASroute", "bypassRoute", "bypassZoneRoute", "bypassASroute":
		r := &routeDecl{elem: name, src: a["src"], dst: a["dst"], symmetrical: isYes(a["symmetrical"]), line: line, seq: p.seq}
		if name != "route" && name != "bypassRoute" {
			r.gwSrc, r.gwDst = a["gw_src"], a["gw_dst"]
		}
		if r.src == "" || r.dst == "" {
			return f, p.errf(line, "<%s src=%q dst=%q>: missing src or dst", name, r.src, r.dst)
		}
		if name != "route" && name != "bypassRoute" && (r.gwSrc == "" || r.gwDst == "") {
			return f, p.errf(line, "<%s src=%q dst=%q>: missing gw_src or gw_dst", name, r.src, r.dst)
		}
		if strings.HasPrefix(name, "bypass") {
			r.symmetrical = false
			cur.bypasses = append(cur.bypasses, r)
		} else {
			cur.routes = append(cur.routes, r)
		}
		p.allRoutes = append(p.allRoutes, r)
		f.route = r

	case "link_ctn":
		if parent.route == nil {
			return f, p.errf(line, "<link_ctn id=%q>: outside of a route", a["id"])
		}
		dir := strings.ToUpper(a["direction"])
		switch dir {
		case "", "NONE":
			dir = ""
		case "UP", "DOWN":
		default:
			return f, p.errf(line, "<link_ctn id=%q>: invalid direction %q (expected UP, DOWN or NONE)", a["id"], a["direction"])
		}
		parent.route.ctns = append(parent.route.ctns, linkCtn{name: a["id"], direction: dir, line: line, seq: p.seq})

	case "include":
		return f, p.errf(line, "<include file=%q>: not supported (removed from SimGrid)", a["file"])
	}
	return f, nil
}

// config reads the <config> properties that change the network: the
// bandwidth and latency of the network model's loopback link.
func (p *parser) config(key, value string, line int) error {
	var err error
	switch key {
	case "network/loopback-bw":
		p.loopbackBw, err = parseConfigDouble(key, value)
	case "network/loopback-lat":
		p.loopbackLat, err = parseConfigDouble(key, value)
	default:
		p.unmodelledf(line, "<config> %s=%q: a SimGrid setting other than the loopback's", key, value)
	}
	if err != nil {
		return p.errf(line, "<prop id=%q>: %v", key, err)
	}
	if len(p.zones) > 0 {
		return p.errf(line, "<config>: must come before any zone (SimGrid: \"All <config> tags must be given before any platform elements\")")
	}
	return nil
}

// unmodelledf records a feature of the platform that changes what SimGrid
// (so Batsim) does but that bucma's engine does not model.
func (p *parser) unmodelledf(line int, format string, args ...any) {
	p.unmodelled = append(p.unmodelled, fmt.Sprintf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...)))
}

// traceAttrs records the trace-file attributes of an element.
func (p *parser) traceAttrs(a map[string]string, line int, elem string, names ...string) {
	for _, n := range names {
		if v, ok := a[n]; ok && v != "" {
			p.unmodelledf(line, "<%s id=%q> %s=%q: traces", elem, a["id"], n, v)
		}
	}
}

func (p *parser) addLinkElement(a map[string]string, line int) error {
	id := a["id"]
	if id == "" {
		return p.errf(line, "<link>: missing id")
	}
	bw, err := parseLinkBandwidth(a["bandwidth"])
	if err != nil {
		return p.errf(line, "<link id=%q>: %v", id, err)
	}
	s, ok := a["latency"]
	if !ok {
		return p.errf(line, "<link id=%q>: missing latency attribute (SimGrid 3.32 reads it as an empty number and refuses the platform: \"cannot parse number\")", id)
	}
	lat, err := parseTime(s)
	if err != nil {
		return p.errf(line, "<link id=%q>: %v", id, err)
	}
	switch pol := a["sharing_policy"]; strings.ToUpper(pol) {
	case "", "SHARED":
		_, err = p.newLink(id, bw, lat, false, line, "link")
	case "FATPIPE":
		_, err = p.newLink(id, bw, lat, true, line, "link")
	case "SPLITDUPLEX", "FULLDUPLEX":
		_, err = p.newSplitLink(id, bw, lat, line, "link")
	case "WIFI":
		err = p.errf(line, "<link id=%q>: sharing_policy WIFI is not supported by the ptask_L07 model", id)
	default:
		err = p.errf(line, "<link id=%q>: invalid sharing_policy %q", id, pol)
	}
	return err
}

// inStarZone checks that an element of <zone routing="Cluster"> is in one.
func (p *parser) inStarZone(cur *zone, elem, id string, line int) error {
	if cur.kind != kindStar || cur.fromCluster {
		return p.errf(line, "<%s id=%q>: only allowed in a <zone routing=\"Cluster\"> (zone %q has routing %q)", elem, id, cur.id, cur.routing)
	}
	return nil
}

// bwLat reads the bandwidth and latency attributes of a backbone or a
// cabinet.
func (p *parser) bwLat(a map[string]string, bwAttr, latAttr, elem string, line int) (bw, lat float64, err error) {
	if bw, err = parseBandwidth(a[bwAttr]); err != nil {
		return 0, 0, p.errf(line, "<%s id=%q>: %s: %v", elem, a["id"], bwAttr, err)
	}
	if lat, err = parseTime(a[latAttr]); err != nil {
		return 0, 0, p.errf(line, "<%s id=%q>: %s: %v", elem, a["id"], latAttr, err)
	}
	return bw, lat, nil
}

// addBackbone reads the <backbone> of a <zone routing="Cluster">: a shared
// link that every host route crosses.
func (p *parser) addBackbone(a map[string]string, line int, cur *zone) error {
	id := a["id"]
	if err := p.inStarZone(cur, "backbone", id, line); err != nil {
		return err
	}
	if cur.backbone != nil {
		return p.errf(line, "<backbone id=%q>: zone %q already has a backbone", id, cur.id)
	}
	bw, lat, err := p.bwLat(a, "bandwidth", "latency", "backbone", line)
	if err != nil {
		return err
	}
	if id == "" {
		return p.errf(line, "<backbone>: missing id")
	}
	cur.backbone, err = p.newLink(id, bw, lat, false, line, "backbone")
	return err
}

// startCluster builds a <cluster> as SimGrid's sg_platf_new_cluster_flat
// does: a star zone whose hosts each reach the centre through a limiter
// (optional), a private link and the backbone (optional), plus a router.
func (p *parser) startCluster(a map[string]string, line int, cur *zone) (frame, error) {
	id := a["id"]
	elem := "cluster"
	if id == "" {
		return frame{}, p.errf(line, "<cluster>: missing id")
	}
	topo := strings.ToUpper(a["topology"])
	if topo == "FLAT" {
		topo = ""
	}
	cores, err := parseCores(a["core"])
	if err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: %v", id, err)
	}
	rad, err := parseRadical(a["radical"], maxHosts-len(p.hosts))
	if err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: %v", id, err)
	}
	// Optional attributes are read only when given, as SimGrid does.
	num := func(attr string, f func(string) (float64, error)) (float64, error) {
		s, ok := a[attr]
		if !ok || s == "" {
			return 0, nil
		}
		v, err := f(s)
		if err != nil {
			return 0, p.errf(line, "<cluster id=%q>: %s: %v", id, attr, err)
		}
		return v, nil
	}
	vals := map[string]float64{}
	for _, attr := range []struct {
		name string
		f    func(string) (float64, error)
	}{{"bw", parseBandwidth}, {"lat", parseTime}, {"bb_bw", parseBandwidth}, {"bb_lat", parseTime},
		{"loopback_bw", parseBandwidth}, {"loopback_lat", parseTime}, {"limiter_link", parseBandwidth}} {
		if vals[attr.name], err = num(attr.name, attr.f); err != nil {
			return frame{}, err
		}
	}
	if _, err := parseBandwidth(a["bw"]); err != nil {
		return frame{}, p.errf(line, "<cluster id=%q>: bw: %v", id, err)
	}
	var split bool
	switch pol := a["sharing_policy"]; strings.ToUpper(pol) {
	case "", "SPLITDUPLEX", "FULLDUPLEX":
		split = true
	case "SHARED", "FATPIPE": // the private links are shared either way
	default:
		return frame{}, p.errf(line, "<cluster id=%q>: invalid sharing_policy %q", id, pol)
	}
	bbFatpipe := false
	switch pol := a["bb_sharing_policy"]; strings.ToUpper(pol) {
	case "", "SHARED":
	case "FATPIPE":
		bbFatpipe = true
	default:
		return frame{}, p.errf(line, "<cluster id=%q>: invalid bb_sharing_policy %q", id, pol)
	}
	// SimGrid reads every attribute before it creates the zone.
	z, err := p.newZone(id, "Cluster", cur, line, elem)
	if err != nil {
		return frame{}, err
	}
	z.fromCluster = true
	z.topology = topo
	var backbone *linkDecl
	if vals["bb_bw"] > 0 || vals["bb_lat"] > 0 {
		if backbone, err = p.newLink(id+"_backbone", vals["bb_bw"], vals["bb_lat"], bbFatpipe, line, elem); err != nil {
			return frame{}, err
		}
	}
	star := newStar()
	z.table = star
	ctx := &clusterCtx{zone: z, props: map[string]string{}}
	for _, r := range rad {
		hostName := a["prefix"] + strconv.Itoa(r) + a["suffix"]
		h, err := p.addHost(hostName, a["speed"], cores, z, line, elem+" id="+strconv.Quote(id)+" host")
		if err != nil {
			return frame{}, err
		}
		ctx.hosts = append(ctx.hosts, h)
		if topo != "" {
			continue
		}
		np := p.netpoints[hostName]
		linkID := id + "_link_" + strconv.Itoa(r)
		sr := star.entry(np.id)
		if vals["loopback_bw"] > 0 || vals["loopback_lat"] > 0 {
			lo, err := p.newLink(linkID+"_loopback", vals["loopback_bw"], vals["loopback_lat"], true, line, elem)
			if err != nil {
				return frame{}, err
			}
			sr.loopback = []int{lo.id}
		}
		var up, down []int
		if vals["limiter_link"] > 0 {
			lim, err := p.newLink(linkID+"_limiter", vals["limiter_link"], 0, false, line, elem)
			if err != nil {
				return frame{}, err
			}
			up, down = append(up, lim.id), append(down, lim.id)
		}
		if split {
			s, err := p.newSplitLink(linkID, vals["bw"], vals["lat"], line, elem)
			if err != nil {
				return frame{}, err
			}
			up, down = append(up, s.up.id), append(down, s.down.id)
		} else {
			l, err := p.newLink(linkID, vals["bw"], vals["lat"], false, line, elem)
			if err != nil {
				return frame{}, err
			}
			up, down = append(up, l.id), append(down, l.id)
		}
		if backbone != nil {
			up, down = append(up, backbone.id), append(down, backbone.id)
		}
		// A symmetrical route from the host: the way down is the way up
		// reversed, split-duplex links taken the other way.
		sr.setUp(up)
		sr.setDown(reversedInts(down))
	}
	routerID := a["router_id"]
	if routerID == "" {
		routerID = a["prefix"] + id + "_router" + a["suffix"]
	}
	rnp := &netpoint{name: routerID, kind: npRouter, zone: z, line: line}
	if err := p.addNetpoint(rnp); err != nil {
		return frame{}, err
	}
	sr := star.entry(rnp.id)
	sr.setUp(nil)
	sr.setDown(nil)
	return frame{name: "cluster", zone: z, cluster: ctx}, nil
}

// addCabinet reads a <cabinet> of a <zone routing="Cluster">: hosts, each
// with its own up and down links.
func (p *parser) addCabinet(a map[string]string, line int, cur *zone) error {
	id := a["id"]
	if err := p.inStarZone(cur, "cabinet", id, line); err != nil {
		return err
	}
	rad, err := parseRadical(a["radical"], maxHosts-len(p.hosts))
	if err != nil {
		return p.errf(line, "<cabinet id=%q>: %v", id, err)
	}
	bw, lat, err := p.bwLat(a, "bw", "lat", "cabinet", line)
	if err != nil {
		return err
	}
	if _, err := parseSpeed(a["speed"]); err != nil {
		return p.errf(line, "<cabinet id=%q>: %v", id, err)
	}
	var c cabinetDecl
	for _, r := range rad {
		name := a["prefix"] + strconv.Itoa(r) + a["suffix"]
		h, err := p.addHost(name, a["speed"], 1, cur, line, "cabinet id="+strconv.Quote(id)+" host")
		if err != nil {
			return err
		}
		h.props = map[string]string{}
		up, err := p.newLink("link_"+name+"_UP", bw, lat, false, line, "cabinet")
		if err != nil {
			return err
		}
		down, err := p.newLink("link_"+name+"_DOWN", bw, lat, false, line, "cabinet")
		if err != nil {
			return err
		}
		c.hosts = append(c.hosts, h)
		c.up, c.down = append(c.up, up), append(c.down, down)
	}
	cur.cabinets = append(cur.cabinets, c)
	return nil
}

// sealZone ends a zone. SimGrid builds the backbone and cabinets of a
// <zone routing="Cluster"> as it closes (routing tables are built by
// finalize, in the same order).
func (p *parser) sealZone(z *zone) error {
	p.seq++
	z.endSeq = p.seq
	if z.kind != kindStar || z.fromCluster {
		return nil
	}
	// SimGrid creates the backbone and the cabinets as the zone closes.
	if z.backbone != nil {
		z.backbone.seq = p.seq
	}
	for _, c := range z.cabinets {
		for i, h := range c.hosts {
			p.netpoints[h.name].seq = p.seq
			c.up[i].seq, c.down[i].seq = p.seq, p.seq
		}
	}
	if len(z.children) > 0 && (z.backbone != nil || len(z.cabinets) > 0) {
		return p.errf(z.line, "<zone id=%q routing=%q>: a Cluster zone with sub-zones cannot have a backbone or cabinets", z.id, z.routing)
	}
	return nil
}

func reversedInts(l []int) []int {
	out := make([]int, len(l))
	for i, x := range l {
		out[len(l)-1-i] = x
	}
	return out
}
