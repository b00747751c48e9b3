package batsim

import (
	"bytes"
	"errors"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// Double is a float64 that decodes from JSON as rapidjson 1.1 reads a
// number (batsimfmt.ParseDouble): the very double Batsim 4.2.1 holds after
// reading a scheduler's reply, and batsched after reading Batsim's
// message, which is not always the correctly rounded one (10000000000.000001
// reads as 1e10). A null leaves it unchanged; any other non-number is an
// error.
type Double float64

// UnmarshalJSON reads a JSON number as rapidjson does.
func (d *Double) UnmarshalJSON(b []byte) error {
	v, err := readDouble(b)
	if err != nil {
		if string(bytes.TrimSpace(b)) == "null" {
			return nil
		}
		return err
	}
	*d = Double(v)
	return nil
}

var errNotNumber = errors.New("not a number")

// readDouble reads the JSON value b, which must be a number, as rapidjson
// does.
func readDouble(b []byte) (float64, error) {
	if len(b) > 0 && (b[0] <= ' ' || b[len(b)-1] <= ' ') {
		b = bytes.TrimSpace(b)
	}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return 0, errNotNumber
	}
	return batsimfmt.ParseDouble(b)
}
