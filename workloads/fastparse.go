package workloads

import (
	"bytes"
	"strconv"
	"sync/atomic"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// The fast reader: one pass over a workload file that builds the Workload
// without a tree of the document, for files Parse accepts without any
// problem or warning (the usual case, and the one that must be fast: a
// million jobs). It gives up (nil) at the first thing it does not read the
// simple way, or that the general reader would report: a syntax error, a
// duplicate key, a missing or mistyped field, an unsupported profile type,
// an escaped key. Parse then reads the document with the general reader,
// whose results and messages are the reference; where the fast reader
// succeeds it returns exactly what the general reader returns (checked by
// the tests on every input of the parse fuzzer's corpus).

// fscan scans JSON with the general reader's rules (jparser).
type fscan struct {
	src   []byte
	pos   int
	depth int
	// ids collects the spans of the first "id" members (appendBatsim);
	// nid counts them all.
	ids [4]span
	nid int
}

func (s *fscan) ws() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// at reports whether the next byte is c.
func (s *fscan) at(c byte) bool { return s.pos < len(s.src) && s.src[s.pos] == c }

func (s *fscan) enter() bool {
	s.depth++
	return s.depth <= maxJSONDepth
}

// str scans the string at pos and returns the span of its contents and
// whether it holds escapes.
func (s *fscan) str() (start, end int, esc, ok bool) {
	open := s.pos
	s.pos++
	start = s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			end = s.pos
			s.pos++
			return start, end, false, true
		case c < 0x20:
			return 0, 0, false, false
		case c == '\\':
			// Escapes are checked and decoded by the general reader.
			p := jparser{src: s.src, pos: open}
			if _, err := p.str(); err != nil {
				return 0, 0, false, false
			}
			s.pos = p.pos
			return start, p.pos - 1, true, true
		}
		s.pos++
	}
	return 0, 0, false, false
}

// strValue is the decoded contents of a string scanned by str.
func (s *fscan) strValue(start, end int, esc bool) string {
	if !esc {
		return string(s.src[start:end])
	}
	p := jparser{src: s.src, pos: start - 1}
	v, _ := p.str()
	return v
}

// number scans the number at pos and returns its literal.
func (s *fscan) number() ([]byte, bool) {
	lit, _, ok := s.numberValue()
	return lit, ok
}

// numberValue scans the number at pos and returns its literal and value.
func (s *fscan) numberValue() ([]byte, batsimfmt.Number, bool) {
	start := s.pos
	src := s.src
	if src[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(src) || !isDigit(src[s.pos]) {
		return nil, batsimfmt.Number{}, false
	}
	if src[s.pos] == '0' {
		s.pos++
	} else {
		for s.pos < len(src) && isDigit(src[s.pos]) {
			s.pos++
		}
	}
	if s.pos < len(src) && src[s.pos] == '.' {
		s.pos++
		if s.pos >= len(src) || !isDigit(src[s.pos]) {
			return nil, batsimfmt.Number{}, false
		}
		for s.pos < len(src) && isDigit(src[s.pos]) {
			s.pos++
		}
	}
	if s.pos < len(src) && (src[s.pos] == 'e' || src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(src) && (src[s.pos] == '+' || src[s.pos] == '-') {
			s.pos++
		}
		if s.pos >= len(src) || !isDigit(src[s.pos]) {
			return nil, batsimfmt.Number{}, false
		}
		for s.pos < len(src) && isDigit(src[s.pos]) {
			s.pos++
		}
	}
	lit := src[start:s.pos]
	n, ok := batsimfmt.NumberOf(lit)
	if !ok {
		return nil, n, false
	}
	return lit, n, true
}

// skip scans any value.
func (s *fscan) skip() bool {
	if s.pos >= len(s.src) {
		return false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		if !s.enter() {
			return false
		}
		s.pos++
		s.ws()
		if s.at('}') {
			s.pos++
			s.depth--
			return true
		}
		for {
			s.ws()
			if !s.at('"') {
				return false
			}
			if _, _, _, ok := s.str(); !ok {
				return false
			}
			s.ws()
			if !s.at(':') {
				return false
			}
			s.pos++
			s.ws()
			if !s.skip() {
				return false
			}
			s.ws()
			switch {
			case s.at(','):
				s.pos++
			case s.at('}'):
				s.pos++
				s.depth--
				return true
			default:
				return false
			}
		}
	case c == '[':
		if !s.enter() {
			return false
		}
		s.pos++
		s.ws()
		if s.at(']') {
			s.pos++
			s.depth--
			return true
		}
		for {
			s.ws()
			if !s.skip() {
				return false
			}
			s.ws()
			switch {
			case s.at(','):
				s.pos++
			case s.at(']'):
				s.pos++
				s.depth--
				return true
			default:
				return false
			}
		}
	case c == '"':
		_, _, _, ok := s.str()
		return ok
	case c == '-' || isDigit(c):
		_, ok := s.number()
		return ok
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.src)-s.pos >= len(lit) && string(s.src[s.pos:s.pos+len(lit)]) == lit {
				s.pos += len(lit)
				return true
			}
		}
		return false
	}
}

// key scans an object key without escapes (an escaped key gives up) and
// the ':' after it.
func (s *fscan) key() ([]byte, bool) {
	s.ws()
	if !s.at('"') {
		return nil, false
	}
	start, end, esc, ok := s.str()
	if !ok || esc {
		return nil, false
	}
	s.ws()
	if !s.at(':') {
		return nil, false
	}
	s.pos++
	s.ws()
	return s.src[start:end], true
}

// next scans the ',' or the closing byte after a member or an element; it
// reports whether another one follows.
func (s *fscan) next(closing byte) (more, ok bool) {
	s.ws()
	switch {
	case s.at(','):
		s.pos++
		return true, true
	case s.at(closing):
		s.pos++
		s.depth--
		return false, true
	}
	return false, false
}

// int32Of is jnode.isInt32 on a literal.
func int32Of(lit []byte) (int, bool) {
	n, ok := batsimfmt.NumberOf(lit)
	if !ok || !n.IsInt {
		return 0, false
	}
	if n.Neg {
		if n.Magnitude > 1<<31 {
			return 0, false
		}
		return -int(n.Magnitude), true
	}
	if n.Magnitude > 1<<31-1 {
		return 0, false
	}
	return int(n.Magnitude), true
}

func floatOf(lit []byte) float64 {
	n, _ := batsimfmt.NumberOf(lit)
	return n.Float
}

// Visitor receives the parts of a workload document as Scan reads them.
type Visitor interface {
	// NbRes is called with nb_res.
	NbRes(n int)
	// Extra is called for each other top-level member (raw is its
	// value's text).
	Extra(key string, raw []byte)
	// Job is called for each job, in file order; *j is reused for the
	// next job (its strings and Raw may be kept). False stops the scan.
	Job(j *Job) bool
	// Profile is called for each profile, in file order (the name is
	// p.Name). False stops the scan (a visitor that keeps the names
	// returns false on a name seen before: the general reader reports
	// it).
	Profile(p *Profile) bool
}

// Scan reads a workload document as Parse does and hands each part to v as
// it is read, keeping nothing itself: a large workload never has to exist
// whole in memory. It reads the documents Parse's fast reader reads (no
// problem, no warning); it returns false for any other, possibly after
// handing over some of its parts (Parse reads it then, and names each
// problem).
func Scan(data []byte, v Visitor) bool {
	return scan(data, v, nil)
}

// ScanSplit is Scan with the profiles member handed to a second visitor,
// read on another goroutine while the rest of the document (the jobs) is
// read: v receives nb_res, the other members and the jobs, the visitor it
// returns the profiles. The calls each visitor receives, and the result,
// are Scan's (the tests check it); only the jobs' and the profiles' calls
// are no longer ordered with each other.
//
// The profiles member is looked for ahead of the scan (its key's last
// occurrence in the text) and read from there at once; the scan, when it
// reaches the document's own profiles member, takes that reading if it
// began at the same byte (where a reading depends on nothing else), and
// otherwise reads the member itself with a fresh visitor from profiles,
// the early one being stopped and dropped.
func ScanSplit(data []byte, v Visitor, profiles func() Visitor) (bool, Visitor) {
	pre := &earlyProfiles{start: -1}
	if at := profilesValueAt(data); at >= 0 {
		pre.start = at
		pre.v = profiles()
		pre.done = make(chan struct{})
		go pre.read(data)
	}
	pre.fresh = profiles
	ok := scan(data, v, pre)
	pre.stop.Store(true)
	if pre.done != nil {
		<-pre.done
	}
	return ok, pre.used
}

// earlyProfiles is ScanSplit's reading of the profiles member ahead of the
// scan.
type earlyProfiles struct {
	start int // the offset of the member's value, -1 for none
	v     Visitor
	done  chan struct{}
	stop  atomic.Bool
	ok    bool
	end   int
	// fresh makes a visitor for a reading by the scan itself; used is the
	// visitor that read the member (nil when none did).
	fresh func() Visitor
	used  Visitor
}

func (e *earlyProfiles) read(data []byte) {
	defer close(e.done)
	s := &fscan{src: data, pos: e.start, depth: 1}
	e.ok = s.profiles(stoppable{e.v, &e.stop})
	e.end = s.pos
}

// take is the profiles member at s.pos: the early reading when it began
// there, else a reading now.
func (e *earlyProfiles) take(s *fscan) bool {
	if e.start == s.pos {
		<-e.done
		e.used = e.v
		s.pos = e.end
		return e.ok
	}
	e.stop.Store(true)
	e.used = e.fresh()
	return s.profiles(e.used)
}

// stoppable is a Visitor whose profiles stop once stop is set.
type stoppable struct {
	Visitor
	stop *atomic.Bool
}

func (s stoppable) Profile(p *Profile) bool { return !s.stop.Load() && s.Visitor.Profile(p) }

// profilesValueAt is where the value of the text's last "profiles" key
// begins (after its colon and any blanks), or -1.
func profilesValueAt(data []byte) int {
	at := bytes.LastIndex(data, []byte(`"profiles"`))
	if at < 0 {
		return -1
	}
	s := &fscan{src: data, pos: at + len(`"profiles"`)}
	s.ws()
	if !s.at(':') {
		return -1
	}
	s.pos++
	s.ws()
	return s.pos
}

func scan(data []byte, v Visitor, pre *earlyProfiles) bool {
	s := &fscan{src: data}
	s.ws()
	if !s.at('{') || !s.enter() {
		return false
	}
	s.pos++
	var seen []string
	haveNbRes, haveJobs, haveProfiles := false, false, false
	s.ws()
	if s.at('}') {
		return false // no nb_res, jobs, profiles
	}
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		for _, o := range seen {
			if o == string(k) {
				return false // a duplicate key: a warning
			}
		}
		key := string(k)
		seen = append(seen, key)
		switch key {
		case "nb_res":
			if !s.at('-') && (s.pos >= len(data) || !isDigit(data[s.pos])) {
				return false
			}
			lit, ok := s.number()
			if !ok {
				return false
			}
			n, ok := int32Of(lit)
			if !ok {
				return false
			}
			v.NbRes(n)
			haveNbRes = true
		case "jobs":
			if !s.jobs(v) {
				return false
			}
			haveJobs = true
		case "profiles":
			if pre != nil {
				if !pre.take(s) {
					return false
				}
			} else if !s.profiles(v) {
				return false
			}
			haveProfiles = true
		default:
			start := s.pos
			if !s.skip() {
				return false
			}
			v.Extra(key, data[start:s.pos])
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	s.ws()
	return s.pos == len(data) && haveNbRes && haveJobs && haveProfiles
}

// builder is the Visitor of parseFast: it builds the Workload.
type builder struct{ w *Workload }

func (b *builder) NbRes(n int) { b.w.NbRes = n }

func (b *builder) Extra(key string, raw []byte) {
	b.w.Extra = append(b.w.Extra, KeyValue{Key: key, Value: raw})
}

func (b *builder) Job(j *Job) bool {
	b.w.Jobs = append(b.w.Jobs, *j)
	return true
}

func (b *builder) Profile(p *Profile) bool {
	if _, dup := b.w.Profiles[p.Name]; dup {
		return false
	}
	b.w.Profiles[p.Name] = *p
	b.w.ProfileOrder = append(b.w.ProfileOrder, p.Name)
	return true
}

// parseFast is the fast reader (see above): nil when it gives up.
func parseFast(data []byte, name string) *Workload {
	w := &Workload{Path: name, Profiles: map[string]Profile{}, Jobs: make([]Job, 0, 64)}
	if !Scan(data, &builder{w}) {
		return nil
	}
	return w
}

// jobs reads the jobs array.
func (s *fscan) jobs(v Visitor) bool {
	if !s.at('[') || !s.enter() {
		return false
	}
	s.pos++
	s.ws()
	if s.at(']') {
		s.pos++
		s.depth--
		return true
	}
	var keys [][]byte
	var j Job
	for more := true; more; {
		s.ws()
		j = Job{}
		if !s.job(&j, &keys) || !v.Job(&j) {
			return false
		}
		var ok bool
		if more, ok = s.next(']'); !ok {
			return false
		}
	}
	return true
}

// job reads one job object (parseJob's rules, no problem allowed).
func (s *fscan) job(j *Job, keys *[][]byte) bool {
	if !s.at('{') || !s.enter() {
		return false
	}
	start := s.pos
	s.pos++
	j.Walltime = -1
	j.Plain = true
	var haveID, haveSub, haveRes, haveProf bool
	*keys = (*keys)[:0]
	s.ws()
	if s.at('}') {
		return false // no id
	}
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		for _, o := range *keys {
			if string(o) == string(k) {
				return false // a duplicate key: a warning
			}
		}
		*keys = append(*keys, k)
		if s.pos >= len(s.src) {
			return false
		}
		c := s.src[s.pos]
		isNum := c == '-' || isDigit(c)
		switch string(k) {
		case "id":
			switch {
			case c == '"':
				a, b, esc, ok := s.str()
				if !ok {
					return false
				}
				j.ID = s.strValue(a, b, esc)
			case isNum:
				lit, ok := s.number()
				if !ok {
					return false
				}
				v, ok := int32Of(lit)
				if !ok {
					return false
				}
				j.ID, j.IDIsInt = strconv.Itoa(v), true
			default:
				return false
			}
			haveID = true
		case "subtime", "walltime", "res":
			if !isNum {
				return false
			}
			lit, ok := s.number()
			if !ok {
				return false
			}
			switch string(k) {
			case "subtime":
				j.Subtime, haveSub = floatOf(lit), true
			case "walltime":
				j.Walltime = floatOf(lit)
			default:
				if j.Res, ok = int32Of(lit); !ok {
					return false
				}
				haveRes = true
			}
		case "profile":
			if c != '"' {
				return false
			}
			a, b, esc, ok := s.str()
			if !ok {
				return false
			}
			j.Profile, haveProf = s.strValue(a, b, esc), true
		default:
			j.Plain = false
			if !s.skip() {
				return false
			}
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	j.Raw = s.src[start:s.pos]
	return haveID && haveSub && haveRes && haveProf
}

// profiles reads the profiles object.
func (s *fscan) profiles(v Visitor) bool {
	if !s.at('{') || !s.enter() {
		return false
	}
	s.pos++
	s.ws()
	if s.at('}') {
		s.pos++
		s.depth--
		return true
	}
	for more := true; more; {
		s.ws()
		if !s.at('"') {
			return false
		}
		a, b, esc, ok := s.str()
		if !ok {
			return false
		}
		name := s.strValue(a, b, esc)
		s.ws()
		if !s.at(':') {
			return false
		}
		s.pos++
		s.ws()
		p, ok := s.profile(name)
		if !ok || !v.Profile(&p) {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}

// span is the text of a member's value.
type span struct{ start, end int }

func (sp span) ok() bool { return sp.end > sp.start }

// profile reads one profile object (parseProfile's rules, no problem
// allowed): the first occurrence of each member parseProfile reads is
// kept, then read according to the type.
func (s *fscan) profile(name string) (Profile, bool) {
	if !s.at('{') || !s.enter() {
		return Profile{}, false
	}
	start := s.pos
	s.pos++
	var typ, ret, delay, cpu, com, repeat, seq span
	s.ws()
	if s.at('}') {
		return Profile{}, false // no type
	}
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return Profile{}, false
		}
		var sp *span
		switch string(k) {
		case "type":
			sp = &typ
		case "ret":
			sp = &ret
		case "delay":
			sp = &delay
		case "cpu":
			sp = &cpu
		case "com":
			sp = &com
		case "repeat":
			sp = &repeat
		case "seq":
			sp = &seq
		}
		v := s.pos
		if !s.skip() {
			return Profile{}, false
		}
		if sp != nil && !sp.ok() {
			*sp = span{v, s.pos}
		}
		if more, ok = s.next('}'); !ok {
			return Profile{}, false
		}
	}
	p := Profile{Name: name, Raw: s.src[start:s.pos], Repeat: 1}
	text := func(sp span) []byte { return s.src[sp.start:sp.end] }
	isNum := func(sp span) bool { c := s.src[sp.start]; return c == '-' || isDigit(c) }
	if !typ.ok() || s.src[typ.start] != '"' {
		return p, false
	}
	sub := fscan{src: s.src, pos: typ.start}
	a, b, esc, _ := sub.str()
	if esc {
		return p, false
	}
	// The type as one of the constants (no string per profile).
	switch string(s.src[a:b]) {
	case TypeDelay:
		p.Type = TypeDelay
	case TypeParallel:
		p.Type = TypeParallel
	case TypeParallelHomogeneous:
		p.Type = TypeParallelHomogeneous
	case TypeParallelHomogeneousTotal:
		p.Type = TypeParallelHomogeneousTotal
	case TypeComposed:
		p.Type = TypeComposed
	default:
		return p, false
	}
	if ret.ok() {
		v, ok := 0, false
		if isNum(ret) {
			v, ok = int32Of(text(ret))
		}
		if !ok {
			return p, false
		}
		p.Ret = v
	}
	number := func(sp span) (float64, bool) {
		if !sp.ok() || !isNum(sp) {
			return 0, false
		}
		return floatOf(text(sp)), true
	}
	var ok1, ok2 bool
	switch p.Type {
	case TypeDelay:
		if p.Delay, ok1 = number(delay); !ok1 {
			return p, false
		}
	case TypeParallelHomogeneous, TypeParallelHomogeneousTotal:
		p.CPU, ok1 = number(cpu)
		p.Com, ok2 = number(com)
		if !ok1 || !ok2 {
			return p, false
		}
	case TypeParallel:
		if p.CPUs, ok1 = s.numbers(cpu); !ok1 {
			return p, false
		}
		if p.ComMat, ok2 = s.numbers(com); !ok2 {
			return p, false
		}
	case TypeComposed:
		if repeat.ok() {
			v, ok := 0, false
			if isNum(repeat) {
				v, ok = int32Of(text(repeat))
			}
			if !ok {
				return p, false
			}
			p.Repeat = v
		}
		if !seq.ok() || s.src[seq.start] != '[' {
			return p, false
		}
		sub := fscan{src: s.src, pos: seq.start + 1}
		sub.ws()
		if sub.at(']') {
			break
		}
		for more := true; more; {
			sub.ws()
			if !sub.at('"') {
				return p, false
			}
			a, b, esc, _ := sub.str()
			p.Seq = append(p.Seq, sub.strValue(a, b, esc))
			more, _ = sub.next(']')
		}
	}
	return p, true
}

// numbers reads an array of numbers (already scanned).
func (s *fscan) numbers(sp span) ([]float64, bool) {
	if !sp.ok() || s.src[sp.start] != '[' {
		return nil, false
	}
	vals := make([]float64, 0, 4)
	sub := fscan{src: s.src, pos: sp.start + 1}
	sub.ws()
	if sub.at(']') {
		return vals, true
	}
	for more := true; more; {
		sub.ws()
		if !sub.at('-') && (sub.pos >= len(sub.src) || !isDigit(sub.src[sub.pos])) {
			return nil, false
		}
		lit, _ := sub.number()
		vals = append(vals, floatOf(lit))
		more, _ = sub.next(']')
	}
	return vals, true
}
