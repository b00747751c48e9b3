package analysis

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// TraceRow is one job of a scheduler decision trace (the CSV the BUCMA
// policies write with --trace): who submitted it, the owner's score at
// submission and the queue-position gain it got.
type TraceRow struct {
	JobID     string
	User      string
	Su        float64 // owner's score at submission (NaN when not recorded)
	HasGain   bool    // false when no gain was recorded (queue of one job)
	Gain      float64 // queue-position gain at submission, %
	Precision float64 // P = Te/W·100 at the end (NaN when unknown)
	Wait      float64 // waiting time (NaN when the job never started)
	State     string  // final state
}

// traceAliases lists the accepted header names of each trace column, so
// traces written by other tools (or older versions) are read too.
var traceAliases = map[string][]string{
	"job":       {"job_id", "job", "id"},
	"user":      {"user", "user_id", "owner"},
	"su":        {"su_at_submission", "su_submit", "su_submission", "submit_su", "su", "score"},
	"gain":      {"queue_position_gain", "queue_gain", "position_gain", "gain"},
	"precision": {"precision", "p"},
	"wait":      {"waiting_time", "wait"},
	"state":     {"final_state", "state"},
}

// ReadTraceFile reads a decision trace CSV.
func ReadTraceFile(path string) ([]TraceRow, error) { return readCSVFile(path, ReadTrace) }

// ReadTrace reads a decision trace: a CSV with a header line; the job id
// column is required, the others (user, Su at submission, gain, precision,
// final state) are read when present. Empty cells are "not recorded".
func ReadTrace(r io.Reader) ([]TraceRow, error) {
	cr, idx, err := csvWithHeader(r, "empty trace file")
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	colName := map[string]string{} // the header name each key was found under
	for key, names := range traceAliases {
		col[key] = -1
		for _, n := range names {
			if i, ok := idx[n]; ok {
				col[key], colName[key] = i, n
				break
			}
		}
	}
	if col["job"] < 0 {
		return nil, errors.New("header: no job_id column: not a decision trace")
	}
	get := func(rec []string, key string) string {
		i := col[key]
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	var rows []TraceRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		t := TraceRow{JobID: get(rec, "job"), User: get(rec, "user"), State: get(rec, "state"), Su: math.NaN(), Precision: math.NaN(), Wait: math.NaN()}
		if t.JobID == "" {
			return nil, fmt.Errorf("line %d: empty job id", line)
		}
		for _, f := range []struct {
			key string
			dst *float64
			has *bool
		}{{"su", &t.Su, nil}, {"gain", &t.Gain, &t.HasGain}, {"precision", &t.Precision, nil}, {"wait", &t.Wait, nil}} {
			s := get(rec, f.key)
			if s == "" || strings.EqualFold(s, "nan") || s == "-" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d, column %s: %q is not a number", line, colName[f.key], s)
			}
			*f.dst = v
			if f.has != nil {
				*f.has = true
			}
		}
		rows = append(rows, t)
	}
}
