package analysis

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
)

// JobRow is one line of a Batsim PREFIX_jobs.csv file.
type JobRow struct {
	ID         string
	Workload   string
	Profile    string
	Submit     float64
	Res        int
	Walltime   float64 // requested_time; -1 when the job had none
	Success    bool
	FinalState string
	// HasTimes is false for rows whose time columns are empty (rejected
	// jobs); Start, Exec, Finish, Wait and Turnaround are then 0.
	HasTimes   bool
	Start      float64
	Exec       float64
	Finish     float64
	Wait       float64
	Turnaround float64
	// Alloc is allocated_resources as written ("0-3 5"); see Hosts.
	Alloc    string
	Metadata string
}

// Hosts parses the allocated resources.
func (r *JobRow) Hosts() (batsim.IntervalSet, error) {
	if r.Alloc == "" {
		return nil, nil
	}
	return batsim.ParseIntervalSet(r.Alloc)
}

// Rejected reports whether the job never ran.
func (r *JobRow) Rejected() bool { return !r.HasTimes || r.FinalState == "REJECTED" }

// jobsColumns are the columns the metrics need; other columns (stretch,
// consumed_energy, ...) are accepted and ignored.
var jobsColumns = []string{
	"job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
	"requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
	"waiting_time", "turnaround_time", "allocated_resources",
}

// ReadJobsFile reads a Batsim PREFIX_jobs.csv file.
func ReadJobsFile(path string) ([]JobRow, error) { return readCSVFile(path, ReadJobsCSV) }

// readCSVFile opens path and parses it with read; errors name the file.
func readCSVFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// csvWithHeader starts reading a CSV file with a header line (lenient
// quotes, any number of fields per record) and returns the reader and the
// column of each header name (trimmed, lower case, without a byte-order
// mark). empty is the error when there is no header at all.
func csvWithHeader(r io.Reader, empty string) (*csv.Reader, map[string]int, error) {
	cr := csv.NewReader(r)
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, errors.New(empty)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	return cr, col, nil
}

// ReadJobsCSV reads the jobs CSV format Batsim 3.x/4.x writes: one header
// line naming the columns (any order), then one line per job. Rejected jobs
// have empty time columns; the metadata column is double-quoted and may hold
// unescaped quotes. Errors name the line and the column.
func ReadJobsCSV(r io.Reader) ([]JobRow, error) {
	cr, col, err := csvWithHeader(r, "empty jobs file (no header line): the simulation probably aborted")
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, c := range jobsColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header: missing column(s) %s: not a Batsim jobs file", strings.Join(missing, ", "))
	}
	metaCol, hasMeta := col["metadata"]
	var rows []JobRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		p := rowParser{rec: rec, col: col, line: line}
		var j JobRow
		j.ID = p.str("job_id")
		j.Workload = p.str("workload_name")
		j.Profile = p.str("profile")
		j.Submit = p.num("submission_time")
		j.Res = int(p.num("requested_number_of_resources"))
		j.Walltime = p.num("requested_time")
		j.Success = p.str("success") == "1"
		j.FinalState = p.str("final_state")
		if p.str("starting_time") != "" {
			j.HasTimes = true
			j.Start = p.num("starting_time")
			j.Exec = p.num("execution_time")
			j.Finish = p.num("finish_time")
			j.Wait = p.num("waiting_time")
			j.Turnaround = p.num("turnaround_time")
			j.Alloc = p.str("allocated_resources")
		}
		if hasMeta && metaCol < len(rec) {
			j.Metadata = rec[metaCol]
		}
		if p.err != nil {
			return nil, p.err
		}
		if j.ID == "" {
			return nil, fmt.Errorf("line %d: empty job_id", line)
		}
		rows = append(rows, j)
	}
}

type rowParser struct {
	rec  []string
	col  map[string]int
	line int
	err  error
}

func (p *rowParser) fail(name string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("line %d, column %s: %w", p.line, name, err)
	}
}

func (p *rowParser) str(name string) string {
	i := p.col[name]
	if i >= len(p.rec) {
		p.fail(name, fmt.Errorf("row has %d fields, the header %d or more", len(p.rec), i+1))
		return ""
	}
	return strings.TrimSpace(p.rec[i])
}

func (p *rowParser) num(name string) float64 {
	s := p.str(name)
	if p.err != nil {
		return 0
	}
	if s == "" {
		p.fail(name, errors.New("empty value"))
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail(name, fmt.Errorf("%q is not a number", s))
	}
	return v
}

// ScheduleValue reads one column of a Batsim _schedule.csv (its single
// data row).
func ScheduleValue(path, column string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return math.NaN(), err
	}
	defer f.Close()
	cr, col, err := csvWithHeader(f, "empty schedule file")
	if err != nil {
		return math.NaN(), err
	}
	i, ok := col[column]
	if !ok {
		return math.NaN(), fmt.Errorf("%s: no column %s", path, column)
	}
	rec, err := cr.Read()
	if err != nil {
		return math.NaN(), fmt.Errorf("%s: %w", path, err)
	}
	if i >= len(rec) {
		return math.NaN(), fmt.Errorf("%s: no value for %s", path, column)
	}
	return strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
}
