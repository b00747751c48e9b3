// Package jsonspan walks the members of a JSON object, or the elements of a
// JSON array, handing out each value as a slice of the input: nothing is
// copied, so a message of 50 MB is looked at in place rather than decoded
// into copies of itself. Every value walked over is checked against JSON's
// grammar (RFC 8259; as encoding/json, bytes that are not UTF-8 are let
// through), and nesting is limited to MaxDepth.
package jsonspan

import (
	"bytes"
	"errors"
	"fmt"

	json "github.com/goccy/go-json"
)

// MaxDepth is the deepest nesting of arrays and objects accepted (that of
// encoding/json).
const MaxDepth = 10000

// SyntaxError is input that is not JSON, at byte Offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Object calls f with each member of the object b (one JSON object,
// whitespace around it allowed), in order: its key, decoded, and its value,
// a slice of b. An error of f stops the walk and is returned.
func Object(b []byte, f func(key string, value []byte) error) error {
	return Members(b, func(key, value []byte) error { return f(string(key), value) })
}

// Members is Object with each key given as bytes: a slice of b when the
// key's text is its value (ASCII, no escape), else a decoded copy. f must
// not keep the key, nor change it.
func Members(b []byte, f func(key, value []byte) error) error {
	s := scanner{b: b}
	s.space()
	if s.peek() != '{' {
		return s.fail("want an object")
	}
	if err := s.members(1, f); err != nil {
		return err
	}
	return s.end()
}

// Array calls f with each element of the array b (one JSON array,
// whitespace around it allowed), in order, as a slice of b.
func Array(b []byte, f func(elem []byte) error) error {
	s := scanner{b: b}
	s.space()
	if s.peek() != '[' {
		return s.fail("want an array")
	}
	if err := s.elements(1, f); err != nil {
		return err
	}
	return s.end()
}

// Valid reports whether b is one JSON value (whitespace around it allowed).
func Valid(b []byte) bool {
	s := scanner{b: b}
	s.space()
	if s.value(0) != nil {
		return false
	}
	return s.end() == nil
}

// IsString reports whether the value v (a slice handed out by Object or
// Array) is a string.
func IsString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// String decodes the string value v (a slice handed out by Object or
// Array).
func String(v []byte) (string, error) {
	if !IsString(v) {
		return "", errors.New("not a string")
	}
	if t, ok := PlainText(v); ok {
		return string(t), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// PlainText is the text between the quotes of the string value v when that
// text is its value: ASCII and no escape (a slice of v). Other strings are
// decoded as goccy/go-json decodes them (escapes, and bytes that are not
// UTF-8 replaced by U+FFFD), by String.
func PlainText(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	t := v[1 : len(v)-1]
	for _, c := range t {
		if c == '\\' || c >= 0x80 {
			return nil, false
		}
	}
	return t, true
}

// keyOf is the key whose string value is v (with its quotes): v's text
// when it is its value, else the decoded string's bytes.
func keyOf(v []byte) ([]byte, error) {
	if t, ok := PlainText(v); ok {
		return t, nil
	}
	if !IsString(v) || len(v) < 2 || v[len(v)-1] != '"' {
		return nil, errors.New("not a string")
	}
	var s string
	err := json.Unmarshal(v, &s)
	return []byte(s), err
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(msg string) error { return &SyntaxError{Offset: s.i, Msg: msg} }

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) space() { s.i = skipSpace(s.b, s.i) }

// end checks that only whitespace follows.
func (s *scanner) end() error {
	s.space()
	if s.i != len(s.b) {
		return s.fail("data after the value")
	}
	return nil
}

// value skips one value at depth (the number of containers it is in).
func (s *scanner) value(depth int) error {
	switch c := s.peek(); {
	case c == '{':
		return s.members(depth+1, nil)
	case c == '[':
		return s.elements(depth+1, nil)
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == 0 && s.i == len(s.b):
		return s.fail("unexpected end")
	default:
		return s.fail(fmt.Sprintf("unexpected %q", c))
	}
}

// members skips the object at s.i (which is '{'), calling f, when not nil,
// with each member.
func (s *scanner) members(depth int, f func(key, value []byte) error) error {
	if depth > MaxDepth {
		return s.fail("nested too deeply")
	}
	s.i++
	s.space()
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		s.space()
		if s.peek() != '"' {
			return s.fail("want a key")
		}
		k := s.i
		if err := s.str(); err != nil {
			return err
		}
		key := s.b[k:s.i]
		s.space()
		if s.peek() != ':' {
			return s.fail("want ':'")
		}
		s.i++
		s.space()
		v := s.i
		if err := s.value(depth); err != nil {
			return err
		}
		if f != nil {
			name, err := keyOf(key)
			if err != nil {
				return &SyntaxError{Offset: k, Msg: err.Error()}
			}
			if err := f(name, s.b[v:s.i]); err != nil {
				return err
			}
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail("want ',' or '}'")
		}
	}
}

// elements skips the array at s.i (which is '['), calling f, when not nil,
// with each element.
func (s *scanner) elements(depth int, f func([]byte) error) error {
	if depth > MaxDepth {
		return s.fail("nested too deeply")
	}
	s.i++
	s.space()
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		s.space()
		v := s.i
		if err := s.value(depth); err != nil {
			return err
		}
		if f != nil {
			if err := f(s.b[v:s.i]); err != nil {
				return err
			}
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("want ',' or ']'")
		}
	}
}

// plain marks the bytes a string holds as they are: not '"', '\\' nor a
// control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str skips the string at s.i (which is '"').
func (s *scanner) str() error {
	s.i++
	for s.i < len(s.b) {
		b, i := s.b, s.i
		for i < len(b) && plain[b[i]] {
			i++
		}
		s.i = i
		if i == len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return s.fail("unexpected end in a string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return s.fail("unexpected end in a string")
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return s.fail("invalid \\u escape")
					}
				}
				s.i += 6
			default:
				return s.fail("invalid escape")
			}
		case c < 0x20:
			return s.fail("control character in a string")
		default:
			s.i++
		}
	}
	return s.fail("unexpected end in a string")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() error {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	default:
		return s.fail("invalid number")
	}
	if s.peek() == '.' {
		s.i++
		if !isDigit(s.peek()) {
			return s.fail("invalid number")
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !isDigit(s.peek()) {
			return s.fail("invalid number")
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	return nil
}

func (s *scanner) literal(word string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return s.fail("invalid literal")
	}
	s.i += len(word)
	return nil
}

// CheckedMembers is Members for an object already checked: a value handed
// out by Object, Members or Array (or CheckedMembers), which checked it
// against the grammar. It walks the members without checking them again,
// several times faster; on any other input its result is undefined (but it
// neither panics nor loops).
func CheckedMembers(v []byte, f func(key, value []byte) error) error {
	return checkedItems(v, '{', '}', "want an object", func(i int) (int, error) {
		k := i
		i = skipChecked(v, i)
		key, err := keyOf(v[k:i])
		if err != nil {
			return i, &SyntaxError{Offset: k, Msg: err.Error()}
		}
		i = skipSpace(v, i)
		if i >= len(v) || v[i] != ':' {
			return i, &SyntaxError{Offset: i, Msg: "want ':'"}
		}
		i = skipSpace(v, i+1)
		start := i
		i = skipChecked(v, i)
		return i, f(key, v[start:i])
	})
}

// CheckedArray is Array for an array already checked (see
// CheckedMembers): it walks the elements without checking them again; on
// any other input its result is undefined (but it neither panics nor
// loops).
func CheckedArray(v []byte, f func(elem []byte) error) error {
	return checkedItems(v, '[', ']', "want an array", func(i int) (int, error) {
		start := i
		i = skipChecked(v, i)
		if i == start {
			return i, &SyntaxError{Offset: i, Msg: "want a value"}
		}
		return i, f(v[start:i])
	})
}

// checkedItems walks the checked object or array v (open and close are
// its brackets, notOpen the error when it does not begin with open): item
// reads the member or element at i and returns where it ends.
func checkedItems(v []byte, open, close byte, notOpen string, item func(i int) (int, error)) error {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != open {
		return &SyntaxError{Offset: i, Msg: notOpen}
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == close {
		return nil
	}
	for i < len(v) {
		var err error
		if i, err = item(i); err != nil {
			return err
		}
		i = skipSpace(v, i)
		if i >= len(v) || v[i] != ',' {
			return nil
		}
		i = skipSpace(v, i+1)
	}
	return nil
}

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON whitespace (len(b) when none).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipChecked returns the end of the checked value at b[i:] (the end of b
// when there is none): strings by their closing quote, containers by their
// depth, other values up to the next delimiter.
func skipChecked(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return len(b)
	}
}

// skipString returns the end of the checked string at b[i:] (b[i] is '"').
func skipString(b []byte, i int) int {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}
