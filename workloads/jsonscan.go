package workloads

import (
	"fmt"
	"unicode/utf8"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	switch k {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNumber:
		return "number"
	case jString:
		return "string"
	case jArray:
		return "array"
	default:
		return "object"
	}
}

// jnode is one parsed JSON value. It remembers its byte span in the source
// so that the exact text of any value (job objects, profiles, numbers) can be
// kept verbatim.
type jnode struct {
	kind       jkind
	start, end int // raw text is src[start:end]
	src        []byte
	str        string // decoded string (jString) or literal (jNumber, jBool)
	members    []jmember
	elems      []*jnode
}

type jmember struct {
	key string
	val *jnode
}

func (n *jnode) raw() []byte { return n.src[n.start:n.end] }

// get returns the first member named key, as rapidjson's FindMember does
// (later duplicates are ignored).
func (n *jnode) get(key string) *jnode {
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// duplicateKey returns the first key that appears twice in the object, or "".
func (n *jnode) duplicateKey() string {
	if len(n.members) < 2 {
		return ""
	}
	seen := make(map[string]bool, len(n.members))
	for _, m := range n.members {
		if seen[m.key] {
			return m.key
		}
		seen[m.key] = true
	}
	return ""
}

// isInt32 tells whether the number is a JSON integer in the int32 range
// (rapidjson's IsInt).
func (n *jnode) isInt32() (int, bool) {
	if n == nil || n.kind != jNumber {
		return 0, false
	}
	ni, err := batsimfmt.ParseNumber(n.str)
	if err != nil || !ni.IsInt {
		return 0, false
	}
	if ni.Neg {
		if ni.Magnitude > 1<<31 {
			return 0, false
		}
		return -int(ni.Magnitude), true
	}
	if ni.Magnitude > 1<<31-1 {
		return 0, false
	}
	return int(ni.Magnitude), true
}

// float returns the value of a number node.
func (n *jnode) float() (float64, bool) {
	if n == nil || n.kind != jNumber {
		return 0, false
	}
	ni, err := batsimfmt.ParseNumber(n.str)
	if err != nil {
		return 0, false
	}
	return ni.Float, true
}

// jsonSyntaxError is a parse error with its byte offset and line.
type jsonSyntaxError struct {
	Offset int
	Line   int
	Msg    string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d (byte %d): %s", e.Line, e.Offset, e.Msg)
}

const maxJSONDepth = 10000

type jparser struct {
	src   []byte
	pos   int
	depth int
}

// parseJSON parses one JSON document (RFC 8259, as strict as rapidjson's
// default mode: no comments, no trailing commas, nothing after the root).
func parseJSON(src []byte) (*jnode, error) {
	p := &jparser{src: src}
	p.skipWS()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos != len(p.src) {
		return nil, p.errf("unexpected data after the root value")
	}
	return n, nil
}

func (p *jparser) errf(format string, args ...any) error {
	line := 1
	for i := 0; i < p.pos && i < len(p.src); i++ {
		if p.src[i] == '\n' {
			line++
		}
	}
	return &jsonSyntaxError{Offset: p.pos, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *jparser) skipWS() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of input")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, start: start, end: p.pos, src: p.src, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []struct {
			text string
			kind jkind
		}{{"true", jBool}, {"false", jBool}, {"null", jNull}} {
			if len(p.src)-p.pos >= len(lit.text) && string(p.src[p.pos:p.pos+len(lit.text)]) == lit.text {
				p.pos += len(lit.text)
				return &jnode{kind: lit.kind, start: start, end: p.pos, src: p.src, str: lit.text}, nil
			}
		}
		return nil, p.errf("unexpected character %q", c)
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.errf("nesting deeper than %d", maxJSONDepth)
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jObject, start: p.pos, src: p.src}
	p.pos++ // {
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errf("expected a string key")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("expected ':' after key %q", key)
		}
		p.pos++
		p.skipWS()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: key, val: v})
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of input in an object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errf("expected ',' or '}' in an object")
		}
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jArray, start: p.pos, src: p.src}
	p.pos++ // [
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.skipWS()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of input in an array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errf("expected ',' or ']' in an array")
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jparser) number() (*jnode, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
		return nil, p.errf("invalid number")
	}
	if p.src[p.pos] == '0' {
		p.pos++
	} else {
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			return nil, p.errf("invalid number: digit expected after '.'")
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			return nil, p.errf("invalid number: digit expected in exponent")
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	lit := string(p.src[start:p.pos])
	if _, err := batsimfmt.ParseNumber(lit); err != nil {
		p.pos = start
		return nil, p.errf("%v", err)
	}
	return &jnode{kind: jNumber, start: start, end: p.pos, src: p.src, str: lit}, nil
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

func (p *jparser) hex4() (rune, error) {
	if len(p.src)-p.pos < 4 {
		return 0, p.errf("truncated \\u escape")
	}
	var r rune
	for i := 0; i < 4; i++ {
		v := hexVal(p.src[p.pos+i])
		if v < 0 {
			return 0, p.errf("invalid \\u escape")
		}
		r = r<<4 | v
	}
	p.pos += 4
	return r, nil
}

// str parses a string starting at the opening quote and returns its
// decoded bytes (UTF-8; invalid UTF-8 in the source is kept as is).
func (p *jparser) str() (string, error) {
	p.pos++ // opening quote
	var buf []byte
	runStart := p.pos
	for {
		if p.pos >= len(p.src) {
			return "", p.errf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			buf = append(buf, p.src[runStart:p.pos]...)
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.errf("control character 0x%02x in a string", c)
		case c == '\\':
			buf = append(buf, p.src[runStart:p.pos]...)
			p.pos++
			if p.pos >= len(p.src) {
				return "", p.errf("unterminated string")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r >= 0xD800 && r <= 0xDBFF {
					if len(p.src)-p.pos < 6 || p.src[p.pos] != '\\' || p.src[p.pos+1] != 'u' {
						return "", p.errf("unpaired surrogate in \\u escape")
					}
					p.pos += 2
					lo, err := p.hex4()
					if err != nil {
						return "", err
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						return "", p.errf("invalid surrogate pair in \\u escape")
					}
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else if r >= 0xDC00 && r <= 0xDFFF {
					return "", p.errf("unpaired surrogate in \\u escape")
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos--
				return "", p.errf("invalid escape '\\%c'", e)
			}
			runStart = p.pos
		default:
			p.pos++
		}
	}
}
