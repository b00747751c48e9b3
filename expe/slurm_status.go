package expe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// RunState is where a run of a campaign stands.
type RunState string

// The states of ReadStatus.
const (
	StateDone    RunState = "done"    // completed (runs/<id>)
	StateRunning RunState = "running" // a live execution holds it (a claim, see Claim)
	StateFailed  RunState = "failed"  // its last execution failed (runs/<id>.failed)
	StateMissing RunState = "missing" // never run, interrupted, or its outputs fail verification
)

// States lists the states in the order status reports them.
var States = []RunState{StateDone, StateRunning, StateFailed, StateMissing}

// RunStatus is where one run stands.
type RunStatus struct {
	Run   Run      `json:"run"`
	State RunState `json:"state"`
	// Claim is who runs it (running), or who ran it and died (missing,
	// interrupted); Heard when its claim was last renewed.
	Claim *Claim     `json:"claim,omitempty"`
	Heard *time.Time `json:"heard,omitempty"`
	// Note says more: why a run failed (its error), why a run is missing
	// (interrupted, outputs that fail verification).
	Note string `json:"note,omitempty"`
	Log  string `json:"log,omitempty"` // failed: its log file
}

// Status is where every run of a campaign stands, read from its directory
// alone: no batch system is asked.
type Status struct {
	Dir         string         `json:"dir"`
	Plan        string         `json:"plan"`
	Runs        []RunStatus    `json:"runs"`
	Counts      map[string]int `json:"counts"` // by state
	Submissions []*Submission  `json:"submissions,omitempty"`
}

// Complete reports whether every run is done.
func (s *Status) Complete() bool { return s.Counts[string(StateDone)] == len(s.Runs) }

// ReadStatus reads where every run of the campaign in dir stands, from the
// directory alone (it works where the runs' batch system cannot be asked:
// a login node without Slurm's accounting). A completed run counts as done
// when its run.json records its outputs and its jobs file has the recorded
// size; with verify, when its outputs pass VerifyRun (every checksum). A
// run held by a claim is running while the claim lives (renewed within
// ClaimStale, its process alive when it is on this host).
func ReadStatus(dir string, verify bool) (*Status, error) {
	plan, err := ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	st := &Status{Dir: dir, Plan: plan.Name, Counts: map[string]int{}}
	judge := &Campaign{Plan: plan}
	for _, r := range plan.Expand() {
		rs := RunStatus{Run: r, State: StateMissing}
		switch {
		case IsDone(dir, r.ID):
			var err error
			if verify {
				err = VerifyRun(dir, r.ID)
			} else {
				err = quickVerify(dir, r.ID)
			}
			if err == nil {
				rs.State = StateDone
				break
			}
			rs.Note = "outputs fail verification: " + err.Error()
		default:
			cs := judge.claimOf(tmpRunDir(dir, r.ID))
			if cs.exists {
				since := cs.since
				rs.Claim, rs.Heard = cs.claim, &since
				if cs.live {
					rs.State = StateRunning
					break
				}
				rs.Note = "interrupted: the execution that ran it is gone"
			}
			failed := RunDir(dir, r.ID) + failedSuffix
			if _, err := os.Stat(failed); err == nil && rs.State != StateRunning {
				rs.State, rs.Log = StateFailed, filepath.Join(failed, LogFile)
				rs.Note = "failed"
				if info, err := readRunInfo(failed); err == nil && info.Error != "" {
					rs.Note = info.Error
				}
			}
		}
		st.Counts[string(rs.State)]++
		st.Runs = append(st.Runs, rs)
	}
	names, err := submissionNames(dir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		s, err := ReadSubmission(dir, n)
		if err != nil {
			return nil, err
		}
		st.Submissions = append(st.Submissions, s)
	}
	return st, nil
}

func readRunInfo(runDir string) (RunInfo, error) {
	var info RunInfo
	data, err := os.ReadFile(filepath.Join(runDir, RunInfoFile))
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal(data, &info)
}

// quickVerify is the cheap check of a completed run: run.json records its
// outputs, and the jobs file is there with the recorded size.
func quickVerify(dir, id string) error {
	runDir := RunDir(dir, id)
	info, err := readRunInfo(runDir)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(runDir, RunInfoFile), withoutPath(err))
	}
	if info.Run.ID != id || len(info.Outputs) == 0 || info.Outputs[0].File != JobsFile {
		return fmt.Errorf("%s records no outputs of run %s", filepath.Join(runDir, RunInfoFile), id)
	}
	fi, err := os.Stat(filepath.Join(runDir, JobsFile))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(runDir, JobsFile), withoutPath(err))
	}
	if fi.Size() != info.Outputs[0].Bytes {
		return fmt.Errorf("%s: %d bytes, %d when the run finished", filepath.Join(runDir, JobsFile), fi.Size(), info.Outputs[0].Bytes)
	}
	return nil
}

// Summary is the status in a few lines: the counts, then the runs that are
// not done (at most max of each state, 0: all).
func (s *Status) Summary(max int, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (plan %s): %d runs:", s.Dir, s.Plan, len(s.Runs))
	for i, state := range States {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %d %s", sep, s.Counts[string(state)], state)
	}
	b.WriteString("\n")
	for _, state := range States[1:] {
		n := 0
		for _, r := range s.Runs {
			if r.State != state {
				continue
			}
			n++
			if max > 0 && n > max {
				continue
			}
			fmt.Fprintf(&b, "  %-8s %s", state, r.Run.ID)
			if r.Claim != nil {
				fmt.Fprintf(&b, " (%s)", r.Claim.describe(r.Heard, now))
			}
			if r.Note != "" && r.State != StateRunning {
				fmt.Fprintf(&b, ": %s", firstLine(r.Note))
			}
			if r.Log != "" {
				fmt.Fprintf(&b, " (log: %s)", r.Log)
			}
			b.WriteString("\n")
		}
		if max > 0 && n > max {
			fmt.Fprintf(&b, "  %-8s ... and %d more\n", state, n-max)
		}
	}
	for _, sub := range s.Submissions {
		fmt.Fprintf(&b, "submission %s (%s): %d runs over %d tasks", sub.Name, sub.Created.Format(time.RFC3339), sub.Runs, sub.Tasks)
		if sub.ArrayJob == "" {
			fmt.Fprintf(&b, ", not submitted (%s)\n", sub.Folder())
			continue
		}
		fmt.Fprintf(&b, ", array job %s", sub.ArrayJob)
		if sub.ReportJob != "" {
			fmt.Fprintf(&b, ", report job %s", sub.ReportJob)
		}
		fmt.Fprintf(&b, "; output: %s\n", filepath.Join(sub.Folder(), "task-*.out"))
	}
	return b.String()
}

// describe says who holds a claim and when it was last heard of.
func (cl *Claim) describe(heard *time.Time, now time.Time) string {
	var parts []string
	if cl.Job != "" {
		parts = append(parts, "job "+cl.Job)
	}
	parts = append(parts, fmt.Sprintf("%s pid %d", cl.Host, cl.PID))
	if heard != nil {
		parts = append(parts, fmt.Sprintf("last heard of %s ago", now.Sub(*heard).Round(time.Second)))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ErrIncomplete is what CheckComplete returns for a campaign with runs not
// done.
var ErrIncomplete = errors.New("the campaign is not complete")

// CheckComplete returns an error wrapping ErrIncomplete, with the status
// summary, unless every run of the campaign in dir is done.
func CheckComplete(dir string) error {
	st, err := ReadStatus(dir, false)
	if err != nil {
		return err
	}
	if st.Complete() {
		return nil
	}
	return fmt.Errorf("%w:\n%s", ErrIncomplete, strings.TrimRight(st.Summary(10, time.Now()), "\n"))
}
