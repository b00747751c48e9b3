package gen

import (
	"bytes"
	"fmt"

	json "github.com/goccy/go-json"
)

// Recipe says how the workload of a (seed, load) pair, or of a
// (case, seed) pair, is made: a generator of the registry (Default),
// then its steps applied in order, all seeded with the seed. Fields are the
// parameters of the generator and steps, in the order given.
type Recipe struct {
	Generator string
	Jobs      int      // jobs of a generator sized by the recipe (0: its default)
	Steps     []string // "bucma-insert", "precise", "scale-load", "window"
	Fields    Fields
}

// MarshalJSON writes generator, jobs and steps, then the fields in their
// order.
func (r Recipe) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	g, _ := json.Marshal(r.Generator)
	s, _ := json.Marshal(r.Steps)
	fmt.Fprintf(&b, `{"generator":%s,"jobs":%d,"steps":%s`, g, r.Jobs, s)
	if err := r.Fields.AppendJSON(&b); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Recipe) UnmarshalJSON(data []byte) error {
	var out Recipe
	f, err := DecodeObject(data, map[string]any{"generator": &out.Generator, "jobs": &out.Jobs, "steps": &out.Steps})
	if err != nil {
		return err
	}
	out.Fields = f
	*r = out
	return nil
}

// Clone copies the recipe.
func (r Recipe) Clone() Recipe {
	r.Steps = append([]string(nil), r.Steps...)
	r.Fields = r.Fields.Clone()
	return r
}
