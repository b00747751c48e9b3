package v5

import (
	"bytes"
	"errors"

	json "github.com/goccy/go-json"
)

// ErrTextAfterInit is DecodeInit's error for text after the JSON object.
var ErrTextAfterInit = errors.New("text after the JSON object")

// DecodeInit reads an init string (the -s, -l, -S or -L argument Batsim 5
// hands its decision component) that is a JSON object into v, a pointer to
// a struct: a final NUL and surrounding white space are allowed, an empty
// init string leaves v as it is (found is false), a key v has no field for
// is an error, and so is text after the object (ErrTextAfterInit).
func DecodeInit(data []byte, v any) (found bool, err error) {
	data = bytes.TrimSpace(TrimNUL(data))
	if len(data) == 0 {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return true, err
	}
	if dec.More() {
		return true, ErrTextAfterInit
	}
	return true, nil
}
