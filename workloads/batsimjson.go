package workloads

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// BatsimJSON re-serialises a JSON value the way Batsim 4.2.1 forwards the
// job and profile descriptions of a workload file (rapidjson's compact
// Writer with Batsim's "%f" override for doubles):
//
//   - compact output, no whitespace; object members in their original order
//     (duplicate keys are all kept, as rapidjson does);
//   - strings re-escaped like rapidjson: \" \\ \b \f \n \r \t, other control
//     characters as \u00XX (upper-case hex), everything else (including '/'
//     and non-ASCII UTF-8) written as is;
//   - integers (no '.', 'e' or 'E' and within int64/uint64) printed as
//     integers ("-0" becomes "0");
//   - every other number printed with %f: exactly 6 decimals
//     (31.123456789 → 31.123457, 1e20 → 100000000000000000000.000000,
//     1e-7 → 0.000000).
//
// A double whose %f rendering is longer than 31 characters (|x| ≥ 1e25
// roughly) makes Batsim fail (its 32-byte buffer); BatsimJSON returns an
// error then.
// Numbers are converted with correct rounding; rapidjson's default parser
// may differ by one unit in the last place on some long literals, which can
// only matter for a value within 1e-16 relative of a %f rounding boundary.
func BatsimJSON(raw []byte) ([]byte, error) {
	return AppendBatsimJSON(make([]byte, 0, len(raw)), raw)
}

// AppendBatsimJSON appends BatsimJSON(raw) to dst.
func AppendBatsimJSON(dst, raw []byte) ([]byte, error) {
	if b, ok := appendBatsimFast(dst, raw); ok {
		return b, nil
	}
	b, err := batsimJSONTree(raw)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// batsimJSONTree is BatsimJSON through the general reader (which names the
// problem when there is one).
func batsimJSONTree(raw []byte) ([]byte, error) {
	n, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	return appendBatsim(make([]byte, 0, len(raw)), n)
}

// appendBatsim appends n in Batsim's spelling.
func appendBatsim(b []byte, n *jnode) ([]byte, error) {
	var err error
	switch n.kind {
	case jNull, jBool:
		b = append(b, n.str...)
	case jString:
		b = batsimfmt.AppendString(b, n.str)
	case jNumber:
		b, err = batsimfmt.AppendNumber(b, n.str)
	case jArray:
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendBatsim(b, e); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	case jObject:
		b = append(b, '{')
		for i, m := range n.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = batsimfmt.AppendString(b, m.key)
			b = append(b, ':')
			if b, err = appendBatsim(b, m.val); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// batsimIDRegexp is the expression Batsim 4.2.1 applies to the compact text
// of every job description (src/jobs.cpp) to put the full job id in place:
// "id"\s*:\s*(?:"*[^(,|})]*"*)\s*
var batsimIDRegexp = regexp.MustCompile(`"id"\s*:\s*(?:"*[^(,|})]*"*)\s*`)

// JobIDRewrite replaces every `"id":<value>` of a compact job description
// by `"id":"<fullID>"`, exactly as Batsim does before forwarding the job in
// JOB_SUBMITTED. It is a textual substitution: nested objects with an "id"
// key are rewritten too ("origin":{"id":42} becomes
// "origin":{"id":"w0!alice-1"}), and a value stops at the first ',', '}',
// ')', '(' or '|' (so an id containing one of them yields invalid JSON, on
// which Batsim aborts). Apply it to the output of BatsimJSON.
func JobIDRewrite(raw []byte, fullID string) []byte {
	return appendIDRewrite(make([]byte, 0, len(raw)+len(fullID)+8), raw, fullID)
}

// jobIDRewriteRE is JobIDRewrite with Batsim's expression itself (the
// reference of the tests).
func jobIDRewriteRE(raw []byte, fullID string) []byte {
	repl := []byte(`"id":"` + fullID + `"`)
	return batsimIDRegexp.ReplaceAllLiteral(raw, repl)
}

// ForwardedJob returns the job object as Batsim 4.2.1 sends it in
// JOB_SUBMITTED.data.job: BatsimJSON then JobIDRewrite. It fails when
// Batsim would abort (number too large, or the id rewrite producing
// something that is not a JSON object).
func ForwardedJob(raw []byte, fullID string) ([]byte, error) {
	return AppendForwardedJob(nil, raw, fullID)
}

// AppendForwardedJob appends ForwardedJob(raw, fullID) to dst (which may be
// the unused end of a larger buffer: many jobs' descriptions then share
// one allocation).
func AppendForwardedJob(dst, raw []byte, fullID string) ([]byte, error) {
	var c []byte
	var scratch [256]byte
	s := fscan{src: raw}
	fast := false
	if b, ok := s.appendBatsim(scratch[:0]); ok {
		c, fast = b, true
	} else {
		var err error
		if c, err = batsimJSONTree(raw); err != nil {
			return dst, err
		}
	}
	start := len(dst)
	dst, exact := appendIDRewriteSpans(dst, c, fullID, s.ids[:min(s.nid, len(s.ids))])
	exact = exact && s.nid <= len(s.ids)
	out := dst[start:]
	// Only the values of "id" members changed, each to a string: the
	// object stays valid.
	if fast && exact && len(out) > 0 && out[0] == '{' && plainString(fullID) {
		return dst, nil
	}
	// The rewrite changes only "id" members of a text the reader accepted:
	// a valid object is checked without building it; the reader names the
	// problem otherwise.
	if len(out) > 0 && out[0] == '{' && json.Valid(out) {
		return dst, nil
	}
	n, err := parseJSON(out)
	if err != nil || n.kind != jObject {
		return dst[:start], fmt.Errorf("replacing the job id by %q gives invalid JSON (Batsim aborts): %s", fullID, out)
	}
	return dst, nil
}

// FullJobID computes the identifier Batsim gives to a job of the given
// workload (normally "w0") from the id written in the file, following
// Batsim 4.2.1's rules: if the id does not contain the workload name, the
// full id is "<workload>!<id>" and the id must not contain '!'; if it does
// contain the workload name anywhere, Batsim takes the id as an already
// full "<workload>!<name>" id, which must be made of exactly two
// '!'-separated parts (consecutive '!' count as one).
func FullJobID(workload, id string) (string, error) {
	if workload == "" || !strings.Contains(id, workload) {
		if strings.Contains(id, "!") {
			return "", fmt.Errorf("job id %q contains a '!'", id)
		}
		return workload + "!" + id, nil
	}
	parts := splitCompress(id, '!')
	if len(parts) != 2 {
		return "", fmt.Errorf("job id %q contains the workload name %q, so Batsim reads it as a full '%s!<job>' id, but it is not made of two '!'-separated parts", id, workload, workload)
	}
	return parts[0] + "!" + parts[1], nil
}

// AppendFullJobID appends FullJobID(workload, id) to dst.
func AppendFullJobID(dst []byte, workload, id string) ([]byte, error) {
	if workload == "" || !strings.Contains(id, workload) {
		if strings.Contains(id, "!") {
			return dst, fmt.Errorf("job id %q contains a '!'", id)
		}
		dst = append(dst, workload...)
		dst = append(dst, '!')
		return append(dst, id...), nil
	}
	full, err := FullJobID(workload, id)
	if err != nil {
		return dst, err
	}
	return append(dst, full...), nil
}

// splitCompress splits like boost::split with token_compress_on.
func splitCompress(s string, sep byte) []string {
	var parts []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == sep {
			parts = append(parts, s[start:i])
			j := i
			for j+1 < len(s) && s[j+1] == sep {
				j++
			}
			i = j
			start = j + 1
		}
	}
	return parts
}
