package workloads

import (
	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// The fast writers of Batsim's spelling: BatsimJSON and JobIDRewrite in one
// pass each over the text, without a tree. They give up (false) where the
// general ones report an error, which then names it.

// appendBatsimFast appends raw (one JSON value the general reader accepts)
// in Batsim's spelling, as BatsimJSON does; false when it gives up.
func appendBatsimFast(b, raw []byte) ([]byte, bool) {
	s := fscan{src: raw}
	return s.appendBatsim(b)
}

// appendBatsim is appendBatsimFast; s.ids gets the spans, in b, of the
// members named "id" (key and value), s.nid their number.
func (s *fscan) appendBatsim(b []byte) ([]byte, bool) {
	raw := s.src
	s.ws()
	b, ok := s.appendValue(b)
	if !ok {
		return b, false
	}
	s.ws()
	return b, s.pos == len(raw)
}

func (s *fscan) appendValue(b []byte) ([]byte, bool) {
	if s.pos >= len(s.src) {
		return b, false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		if !s.enter() {
			return b, false
		}
		s.pos++
		b = append(b, '{')
		s.ws()
		if s.at('}') {
			s.pos++
			s.depth--
			return append(b, '}'), true
		}
		for more := true; more; {
			s.ws()
			if !s.at('"') {
				return b, false
			}
			var ok bool
			key := len(b)
			if b, ok = s.appendString(b); !ok {
				return b, false
			}
			isID := string(b[key:]) == `"id"`
			s.ws()
			if !s.at(':') {
				return b, false
			}
			s.pos++
			s.ws()
			b = append(b, ':')
			if b, ok = s.appendValue(b); !ok {
				return b, false
			}
			if isID {
				if s.nid < len(s.ids) {
					s.ids[s.nid] = span{key, len(b)}
				}
				s.nid++
			}
			if more, ok = s.next('}'); !ok {
				return b, false
			}
			if more {
				b = append(b, ',')
			}
		}
		return append(b, '}'), true
	case c == '[':
		if !s.enter() {
			return b, false
		}
		s.pos++
		b = append(b, '[')
		s.ws()
		if s.at(']') {
			s.pos++
			s.depth--
			return append(b, ']'), true
		}
		for more := true; more; {
			s.ws()
			var ok bool
			if b, ok = s.appendValue(b); !ok {
				return b, false
			}
			if more, ok = s.next(']'); !ok {
				return b, false
			}
			if more {
				b = append(b, ',')
			}
		}
		return append(b, ']'), true
	case c == '"':
		return s.appendString(b)
	case c == '-' || isDigit(c):
		lit, n, ok := s.numberValue()
		if !ok {
			return b, false
		}
		return appendNumber(b, lit, n)
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.src)-s.pos >= len(lit) && string(s.src[s.pos:s.pos+len(lit)]) == lit {
				s.pos += len(lit)
				return append(b, lit...), true
			}
		}
		return b, false
	}
}

// appendString appends the string at pos as rapidjson writes it: a string
// without escapes holds no character rapidjson escapes, so it is copied.
func (s *fscan) appendString(b []byte) ([]byte, bool) {
	start, end, esc, ok := s.str()
	if !ok {
		return b, false
	}
	if !esc {
		b = append(b, '"')
		b = append(b, s.src[start:end]...)
		return append(b, '"'), true
	}
	return batsimfmt.AppendString(b, s.strValue(start, end, esc)), true
}

// appendNumber is batsimfmt.AppendNumber on the literal lit of value n: an
// integer literal is already written as Batsim writes it (JSON has no
// leading zeros), "-0" aside.
func appendNumber(b, lit []byte, n batsimfmt.Number) ([]byte, bool) {
	if n.IsInt {
		if string(lit) == "-0" {
			return append(b, '0'), true
		}
		return append(b, lit...), true
	}
	start := len(b)
	b = batsimfmt.AppendFloat(b, n.Float)
	return b, len(b)-start <= batsimfmt.MaxFloatLen
}

// isSpaceRE is the \s of Go's regular expressions.
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// stopsID are the characters that end the value JobIDRewrite replaces (the
// class [^(,|})] of batsimIDRegexp).
func stopsID(c byte) bool {
	return c == '(' || c == ',' || c == '|' || c == '}' || c == ')'
}

// appendIDRewrite appends c with JobIDRewrite's substitution: the
// expression "id"\s*:\s*(?:"*[^(,|})]*"*)\s* matches from a "id" followed
// by blanks and a colon to the first character of (,|}) after the colon
// (everything else, blanks and quotes included, is in the class), or to the
// end; matches are replaced left to right.
func appendIDRewrite(b, c []byte, fullID string) []byte {
	b, _ = appendIDRewriteSpans(b, c, fullID, nil)
	return b
}

// appendIDRewriteSpans is appendIDRewrite; exact reports whether the
// matches were exactly the members of ids (key and whole value), in order.
func appendIDRewriteSpans(b, c []byte, fullID string, ids []span) (_ []byte, exact bool) {
	exact = true
	n := 0
	last := 0
	for i := 0; i+4 <= len(c); {
		if c[i] != '"' || c[i+1] != 'i' || c[i+2] != 'd' || c[i+3] != '"' {
			i++
			continue
		}
		j := i + 4
		for j < len(c) && isSpaceRE(c[j]) {
			j++
		}
		if j >= len(c) || c[j] != ':' {
			i++
			continue
		}
		k := j + 1
		for k < len(c) && !stopsID(c[k]) {
			k++
		}
		if n < len(ids) && ids[n] == (span{i, k}) {
			n++
		} else {
			exact = false
		}
		b = append(b, c[last:i]...)
		b = append(b, `"id":"`...)
		b = append(b, fullID...)
		b = append(b, '"')
		last, i = k, k
	}
	return append(b, c[last:]...), exact && n == len(ids)
}

// plainString reports whether s, written between quotes as it is, is a
// JSON string (no quote, backslash or control character).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}
