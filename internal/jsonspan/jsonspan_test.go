package jsonspan

import (
	stdjson "encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

var seeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x\"\u00e9\\"], "b":{"c":{}}} `,
	`{"now":1.000000,"events":[{"timestamp":1.000000,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","res":1}}}]}`,
	`"s"`, `12`, `-1.5E+10`, `0.1`, `1e5`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `"\x"`, "\"\x01\"", `"\u12"`, `[1,]`, `{"a":1,}`,
	`{"a"}`, `{a:1}`, `[1 2]`, `tru`, `nul`, `{"a":1}x`, `"\ud800"`, "\"\xff\"", `[[[[]]]]`, `{"":""}`, `{"a":"b","a":"c"}`,
}

// Valid agrees with encoding/json on every seed and on random mutations of
// them.
func TestValidAsEncodingJSON(t *testing.T) {
	check := func(s string) {
		if got, want := Valid([]byte(s)), stdjson.Valid([]byte(s)); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
	for _, s := range seeds {
		check(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := `{}[]":,.-+eE0123456789tfnrul\ ` + "\x01\xff"
	for _, s := range seeds {
		for k := 0; k < 2000; k++ {
			b := []byte(s)
			for m := 0; m <= r.IntN(3); m++ {
				p := r.IntN(len(b) + 1)
				c := alphabet[r.IntN(len(alphabet))]
				switch r.IntN(3) {
				case 0:
					b = append(b[:p], append([]byte{c}, b[p:]...)...)
				case 1:
					if p < len(b) {
						b[p] = c
					}
				default:
					if p < len(b) {
						b = append(b[:p], b[p+1:]...)
					}
				}
			}
			check(string(b))
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), stdjson.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		if err := sameMembers(b); err != nil {
			t.Fatal(err)
		}
		if err := sameElements(b); err != nil {
			t.Fatal(err)
		}
	})
}

// sameElements is sameMembers for CheckedArray against Array.
func sameElements(b []byte) error {
	var want, got []string
	err := Array(b, func(e []byte) error { want = append(want, string(e)); return nil })
	cerr := CheckedArray(b, func(e []byte) error { got = append(got, string(e)); return nil })
	if err == nil && (cerr != nil || !reflect.DeepEqual(got, want)) {
		return fmt.Errorf("CheckedArray(%q) = %q, %v; Array gives %q", b, got, cerr, want)
	}
	return nil
}

// CheckedArray walks checked arrays as Array does: arrays of the seeds'
// values, with spaces and nesting.
func TestCheckedArray(t *testing.T) {
	arrays := []string{`[]`, ` [ ] `, `[1]`, `[ "a,]" , {"b":[1,2]} ,[[]], null,true , -2.5e-3 ]`, "[\n{\"x\":\"\\\"]\"}\t]"}
	arrays = append(arrays, "["+strings.Join(seeds, ",")+"]")
	n := 0
	for _, a := range arrays {
		if err := sameElements([]byte(a)); err != nil {
			t.Error(err)
		}
		if Array([]byte(a), func([]byte) error { return nil }) == nil {
			n++
		}
	}
	if n < len(arrays)-1 {
		t.Fatalf("only %d of %d arrays walked", n, len(arrays))
	}
}

type member struct{ key, value string }

func walk(walker func([]byte, func(k, v []byte) error) error, b []byte) ([]member, error) {
	var ms []member
	err := walker(b, func(k, v []byte) error {
		ms = append(ms, member{string(k), string(v)})
		return nil
	})
	return ms, err
}

// sameMembers checks CheckedMembers against Members on b: the same members
// where Members accepts b; on any other input, no panic and no endless
// loop (the fuzzer would report either).
func sameMembers(b []byte) error {
	want, err := walk(Members, b)
	got, cerr := walk(CheckedMembers, b)
	if err == nil && (cerr != nil || !reflect.DeepEqual(got, want)) {
		return fmt.Errorf("CheckedMembers(%q) = %q, %v; Members gives %q", b, got, cerr, want)
	}
	return nil
}

// CheckedMembers walks checked objects as Members does, at every depth of
// the seeds and of objects with escapes, spaces and nesting.
func TestCheckedMembers(t *testing.T) {
	objects := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x\"y" , "b\\":[1,{"c":"]}"}],"d":-1.5e3}`,
		`{"k\u00e9":"\\","e":{"f":{"g":[[],{}]}},"t":true,"n":null,"s":"\\\""}`,
		"{\n\t\"a\"\r:\n[ 1 , 2 ]\n}",
	}
	objects = append(objects, seeds...)
	n := 0
	for _, o := range objects {
		if err := sameMembers([]byte(o)); err != nil {
			t.Error(err)
		}
		if Members([]byte(o), func(k, v []byte) error { return nil }) == nil {
			n++
		}
	}
	if n < 6 {
		t.Fatalf("only %d objects walked", n)
	}
}

// Object and Array hand out each value as the very bytes of the input, keys
// decoded.
func TestObjectAndArraySpans(t *testing.T) {
	in := []byte(` { "a" : [1, {"x":2}] , "b\u00e9" :"s" ,"c":null} `)
	var keys, vals []string
	err := Object(in, func(k string, v []byte) error {
		keys, vals = append(keys, k), append(vals, string(v))
		if &v[0] == nil || !strings.Contains(string(in), string(v)) {
			t.Errorf("value %q is not a slice of the input", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys, []string{"a", "bé", "c"}) || !reflect.DeepEqual(vals, []string{`[1, {"x":2}]`, `"s"`, "null"}) {
		t.Fatalf("keys %q, values %q", keys, vals)
	}
	var elems []string
	if err := Array([]byte(`[1, {"x":2}]`), func(v []byte) error { elems = append(elems, string(v)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(elems, []string{"1", `{"x":2}`}) {
		t.Fatalf("elements %q", elems)
	}
	for _, bad := range []string{`[1]`, `{"a":1`, `{"a":1}}`, `{"a":01}`} {
		if Object([]byte(bad), func(string, []byte) error { return nil }) == nil {
			t.Errorf("Object(%q) accepted", bad)
		}
	}
	if s, err := String([]byte(`"a\nb"`)); err != nil || s != "a\nb" {
		t.Errorf("String: %q, %v", s, err)
	}
	if _, err := String([]byte(`12`)); err == nil {
		t.Error("String of a number")
	}
}

// Nesting is limited: deep input is an error, not a stack overflow.
func TestMaxDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if Valid([]byte(deep)) {
		t.Error("nesting beyond MaxDepth accepted")
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if !Valid([]byte(ok)) {
		t.Error("nesting of MaxDepth refused")
	}
}
