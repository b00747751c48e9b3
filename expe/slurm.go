package expe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/bucma-sched/bucma/internal/atomicfile"
	json "github.com/goccy/go-json"
)

// A campaign on a Slurm cluster ("bucma expe submit") is a campaign
// directory on a filesystem the nodes share, prepared once on the machine
// that submits (Campaign.Prepare: plan, platforms, workloads), then one
// Slurm job array whose tasks each perform a fixed share of the runs to do
// (Campaign.ExecuteRuns, with the claims, staged outputs and verification
// of any campaign), and a job that depends on the array and writes the
// report. Each submission has its folder, slurm/NNN/: the runs it covers,
// its batch scripts, the checksums of the inputs it was prepared with, the
// job ids, and the tasks' output.

// SlurmDir is the folder of a campaign directory holding its submissions.
const SlurmDir = "slurm"

// Files of a submission's folder.
const (
	SubmissionFile   = "submission.json"
	SubmissionRuns   = "runs.txt"  // the runs to do, one id a line; task i takes lines i, i+N, i+2N, ...
	TaskScriptFile   = "task.sh"   // the array job
	ReportScriptFile = "report.sh" // the report job
)

// MaxArrayTasks bounds the tasks of an array by default: Slurm's default
// MaxArraySize (1001) takes indices 0 to 1000.
const MaxArrayTasks = 1000

// SlurmOptions are the sbatch options of a submission. The array and the
// report job get the same ones (but the report job runs once).
type SlurmOptions struct {
	Partition string `json:"partition,omitempty"` // sbatch --partition
	Time      string `json:"time,omitempty"`      // --time, of each task and of the report job
	Account   string `json:"account,omitempty"`   // --account
	QOS       string `json:"qos,omitempty"`       // --qos
	Mem       string `json:"mem,omitempty"`       // --mem
	// CPUsPerTask is sbatch --cpus-per-task (0: Slurm's default, one); a
	// task performs that many runs at once.
	CPUsPerTask int `json:"cpus_per_task,omitempty"`
	// Throttle bounds the tasks running at once (--array=0-N%Throttle; 0:
	// no bound).
	Throttle int `json:"throttle,omitempty"`
	// Tasks is the number of array tasks (0: one per CPUsPerTask runs to
	// do, at most MaxArrayTasks); the runs are dealt to them in turn.
	Tasks   int    `json:"tasks,omitempty"`
	JobName string `json:"job_name,omitempty"` // default bucma-PLAN
	// Extra are other sbatch options, one argument each
	// ("--constraint=haswell").
	Extra []string `json:"extra,omitempty"`
}

var (
	slurmTimeRE = regexp.MustCompile(`^([0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}|[0-9]+-[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}|UNLIMITED|unlimited|INFINITE|infinite)$`)
	slurmMemRE  = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	slurmNameRE = regexp.MustCompile(`^[A-Za-z0-9_.,+=@%:-]+$`)
)

// slurmOwned are the sbatch options a submission sets itself (name → what
// to use instead; "" when nothing).
var slurmOwned = map[string]string{
	"--array": "--tasks and --throttle", "-a": "--tasks and --throttle",
	"--output": "", "-o": "", "--chdir": "", "-D": "", "--dependency": "", "-d": "",
	"--parsable": "", "--wrap": "", "--job-name": "--job-name", "-J": "--job-name",
	"--partition": "--partition", "-p": "--partition", "--time": "--time", "-t": "--time",
	"--account": "--account", "-A": "--account", "--qos": "--qos", "-q": "--qos",
	"--mem": "--mem", "--cpus-per-task": "--cpus-per-task", "-c": "--cpus-per-task",
}

// CheckScriptPath checks a path or name that a submission writes into its
// batch scripts' #SBATCH lines and comments (the campaign directory, the
// plan's name). sbatch reads #SBATCH lines itself, not a shell: it splits
// them at blanks, gives quotes, '\' and '#' meanings of its own, and
// reads '%' in --output as the start of a file name pattern; a newline
// would end the line, what follows it becoming a command of the script.
// Such characters are refused, with what to do. (The commands of the
// scripts quote what they hold: there, any path is safe.)
func CheckScriptPath(what, s string) error {
	for _, r := range s {
		bad := ""
		switch {
		case r == '\n' || r == '\r':
			bad = "a line break"
		case unicode.IsSpace(r):
			bad = "a blank"
		case !unicode.IsPrint(r):
			bad = fmt.Sprintf("the control character %U", r)
		case strings.ContainsRune(`"'\#%`, r):
			bad = fmt.Sprintf("%q", r)
		}
		if bad != "" {
			return fmt.Errorf("%s %q holds %s, which a batch script's #SBATCH lines cannot hold: use a path without blanks, line breaks, quotes, '\\', '#' or '%%'", what, s, bad)
		}
	}
	return nil
}

// Check validates the options; the error names the option.
func (o SlurmOptions) Check() error {
	for _, f := range []struct{ name, v string }{{"partition", o.Partition}, {"account", o.Account}, {"qos", o.QOS}, {"job-name", o.JobName}} {
		if f.v != "" && !slurmNameRE.MatchString(f.v) {
			return fmt.Errorf("--%s %q: letters, digits and _.,+=@%%:- only", f.name, f.v)
		}
	}
	if o.Time != "" && !slurmTimeRE.MatchString(o.Time) {
		return fmt.Errorf("--time %q: want Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS", o.Time)
	}
	if o.Mem != "" && !slurmMemRE.MatchString(o.Mem) {
		return fmt.Errorf("--mem %q: want a size in megabytes, or with a unit K, M, G or T (4G)", o.Mem)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"cpus-per-task", o.CPUsPerTask}, {"throttle", o.Throttle}, {"tasks", o.Tasks}} {
		if f.v < 0 {
			return fmt.Errorf("--%s %d: must be positive", f.name, f.v)
		}
	}
	for _, a := range o.Extra {
		if !strings.HasPrefix(a, "-") || strings.ContainsAny(a, "'\"\\#") || strings.IndexFunc(a, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
			return fmt.Errorf("sbatch option %q: want one option with its value, without spaces, line breaks, quotes, '\\' or '#' (--sbatch=--constraint=haswell)", a)
		}
		name, _, _ := strings.Cut(a, "=")
		if len(name) > 2 && name[1] != '-' {
			name = name[:2] // -pdebug
		}
		if use, ok := slurmOwned[name]; ok {
			if use != "" {
				return fmt.Errorf("sbatch option %q: give it as %s", a, use)
			}
			return fmt.Errorf("sbatch option %q: bucma expe submit sets it", a)
		}
	}
	return nil
}

// Submission is one "bucma expe submit" of a campaign: its folder's
// submission.json.
type Submission struct {
	Name    string    `json:"name"` // "001": the folder slurm/001
	Plan    string    `json:"plan"`
	Dir     string    `json:"dir"` // the campaign directory (absolute)
	Created time.Time `json:"created"`
	Runs    int       `json:"runs"`  // runs to do (SubmissionRuns)
	Tasks   int       `json:"tasks"` // array tasks
	// Bucma is the bucma executable the jobs run; TaskArgs the options
	// of "bucma expe task" after the submission's (engine, time limit of
	// each run), Formats those of the report.
	Bucma    string       `json:"bucma"`
	TaskArgs []string     `json:"task_args,omitempty"`
	Formats  []string     `json:"formats"`
	Options  SlurmOptions `json:"options"`
	// Inputs are the checksums of the platforms and workloads of the
	// runs, which every task checks before it runs anything.
	Inputs    []OutputDigest `json:"inputs"`
	ArrayJob  string         `json:"array_job,omitempty"`  // job id of the array
	ReportJob string         `json:"report_job,omitempty"` // job id of the report job

	ids []string // the runs (SubmissionRuns)
}

// NewSubmission describes the submission of runs (to do) of the campaign
// directory dir (absolute), named after the submissions there. Nothing is
// read but the names of the submissions, nothing is written: the caller
// sets Inputs (InputDigests) once the directory is prepared.
func NewSubmission(dir string, p Plan, runs []Run, o SlurmOptions, bucma string, taskArgs, formats []string) (*Submission, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, errors.New("no run to submit")
	}
	if !filepath.IsAbs(dir) || !filepath.IsAbs(bucma) {
		return nil, fmt.Errorf("the campaign directory (%s) and the bucma executable (%s) must be absolute paths", dir, bucma)
	}
	if err := CheckScriptPath("the campaign directory", dir); err != nil {
		return nil, err
	}
	if err := CheckScriptPath("the plan's name", p.Name); err != nil {
		return nil, err
	}
	tasks := o.Tasks
	if tasks == 0 {
		// One task per CPUsPerTask runs (each task runs that many at once).
		per := max(o.CPUsPerTask, 1)
		tasks = min((len(runs)+per-1)/per, MaxArrayTasks)
	}
	tasks = min(tasks, len(runs))
	name, err := nextSubmission(dir)
	if err != nil {
		return nil, err
	}
	s := &Submission{Name: name, Plan: p.Name, Dir: dir, Created: time.Now().UTC().Truncate(time.Second), Runs: len(runs), Tasks: tasks,
		Bucma: bucma, TaskArgs: taskArgs, Formats: formats, Options: o}
	s.ids = make([]string, len(runs))
	for i, r := range runs {
		s.ids[i] = r.ID
	}
	return s, nil
}

// nextSubmission is the name of the next submission of dir: one more than
// the highest there.
func nextSubmission(dir string) (string, error) {
	subs, err := submissionNames(dir)
	if err != nil {
		return "", err
	}
	n := 1
	if len(subs) > 0 {
		last, _ := strconv.Atoi(subs[len(subs)-1])
		n = last + 1
	}
	return fmt.Sprintf("%03d", n), nil
}

// submissionNames lists the submissions of dir, in order.
func submissionNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, SlurmDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i])
		b, _ := strconv.Atoi(out[j])
		return a < b
	})
	return out, nil
}

// Folder is the submission's folder.
func (s *Submission) Folder() string { return filepath.Join(s.Dir, SlurmDir, s.Name) }

func (s *Submission) jobName() string {
	if s.Options.JobName != "" {
		return s.Options.JobName
	}
	name := []rune("bucma-" + s.Plan)
	for i, r := range name {
		if !fileNameRune(r) {
			name[i] = '-'
		}
	}
	return string(name)
}

// header writes the #SBATCH lines both scripts share.
func (s *Submission) header(b *bytes.Buffer, name string, cpus bool) {
	o := s.Options
	line := func(opt, v string) {
		if v != "" {
			fmt.Fprintf(b, "#SBATCH --%s=%s\n", opt, v)
		}
	}
	line("job-name", name)
	line("chdir", s.Dir)
	line("partition", o.Partition)
	line("time", o.Time)
	line("account", o.Account)
	line("qos", o.QOS)
	line("mem", o.Mem)
	if cpus && o.CPUsPerTask > 0 {
		line("cpus-per-task", strconv.Itoa(o.CPUsPerTask))
	}
	for _, a := range o.Extra {
		fmt.Fprintf(b, "#SBATCH %s\n", a)
	}
}

// TaskScript is the array job's batch script.
func (s *Submission) TaskScript() string {
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# Campaign %s, plan %s, submission %s: %d runs (%s) over %d tasks;\n", s.Dir, s.Plan, s.Name, s.Runs, SubmissionRuns, s.Tasks)
	fmt.Fprintf(&b, "# task I (0 to %d) performs the runs on lines I+1, I+1+%d, I+1+2×%d... of it (\"bucma expe task\"),\n", s.Tasks-1, s.Tasks, s.Tasks)
	b.WriteString("# as many at once as it has CPUs (--cpus-per-task). Slurm reads the #SBATCH lines.\n")
	array := fmt.Sprintf("0-%d", s.Tasks-1)
	if s.Options.Throttle > 0 {
		array += "%" + strconv.Itoa(s.Options.Throttle)
	}
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(s.Folder(), "task-%a.out"))
	s.header(&b, s.jobName(), true)
	argv := append([]string{s.Bucma, "expe", "task", "--submission", s.Name}, s.TaskArgs...)
	fmt.Fprintf(&b, "exec %s --index \"$SLURM_ARRAY_TASK_ID\" --workers \"${SLURM_CPUS_PER_TASK:-1}\" %s\n", ShellJoin(argv), ShellJoin([]string{s.Dir}))
	return b.String()
}

// ReportScript is the report job's batch script (submitted with
// --dependency=afterany on the array: it runs once every task ended,
// whatever their end).
func (s *Submission) ReportScript() string {
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# Campaign %s, plan %s, submission %s: the report, once every task of the array\n", s.Dir, s.Plan, s.Name)
	b.WriteString("# ended; with runs missing or failed it writes none and says so (exit status 1).\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(s.Folder(), "report.out"))
	s.header(&b, s.jobName()+"-report", false)
	argv := []string{s.Bucma, "expe", "report", "--complete", "--format", strings.Join(s.Formats, ","), s.Dir}
	fmt.Fprintf(&b, "exec %s\n", ShellJoin(argv))
	return b.String()
}

// SbatchArgs are sbatch's arguments for the array (report false) or the
// report job, whose dependency is on the array job arrayJob.
func (s *Submission) SbatchArgs(report bool, arrayJob string) []string {
	if report {
		return []string{"--parsable", "--dependency=afterany:" + arrayJob, filepath.Join(s.Folder(), ReportScriptFile)}
	}
	return []string{"--parsable", filepath.Join(s.Folder(), TaskScriptFile)}
}

// Write creates the submission's folder (under the next free name when
// another submission took this one meanwhile) with its runs, scripts and
// submission.json.
func (s *Submission) Write() error {
	if len(s.Inputs) == 0 {
		return fmt.Errorf("submission %s of %s: no checksums of its inputs (InputDigests)", s.Name, s.Dir)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, SlurmDir), 0o755); err != nil {
		return err
	}
	for {
		err := os.Mkdir(s.Folder(), 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		n, _ := strconv.Atoi(s.Name)
		s.Name = fmt.Sprintf("%03d", n+1)
	}
	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{SubmissionRuns, strings.Join(s.ids, "\n") + "\n", 0o644},
		{TaskScriptFile, s.TaskScript(), 0o755},
		{ReportScriptFile, s.ReportScript(), 0o755},
	}
	for _, f := range files {
		path := filepath.Join(s.Folder(), f.name)
		if err := atomicfile.Write(path, []byte(f.data)); err != nil {
			return err
		}
		if err := os.Chmod(path, f.mode); err != nil {
			return err
		}
	}
	return s.save()
}

func (s *Submission) save() error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(s.Folder(), SubmissionFile), append(data, '\n'))
}

// Submit submits the array, then the report job, with the sbatch
// executable, and records their job ids. When the report job cannot be
// submitted, the array stays submitted (ArrayJob set) and the error says
// how to submit the report job by hand.
func (s *Submission) Submit(ctx context.Context, sbatch string) error {
	id, err := runSbatch(ctx, sbatch, s.SbatchArgs(false, ""))
	if err != nil {
		return fmt.Errorf("submitting the array (%s): %w", filepath.Join(s.Folder(), TaskScriptFile), err)
	}
	s.ArrayJob = id
	if err := s.save(); err != nil {
		return fmt.Errorf("array job %s submitted, but: %w", id, err)
	}
	rid, err := runSbatch(ctx, sbatch, s.SbatchArgs(true, id))
	if err != nil {
		return fmt.Errorf("array job %s submitted, but not the report job (%w): submit it with %s %s", id, err, sbatch, ShellJoin(s.SbatchArgs(true, id)))
	}
	s.ReportJob = rid
	return s.save()
}

// runSbatch runs sbatch --parsable and returns the job id it prints.
func runSbatch(ctx context.Context, sbatch string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, sbatch, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if msg != "" {
			return "", fmt.Errorf("%s: %w: %s", sbatch, err, msg)
		}
		return "", fmt.Errorf("%s: %w", sbatch, err)
	}
	// --parsable: "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("%s printed %q, not a job id", sbatch, strings.TrimSpace(out.String()))
	}
	return id, nil
}

// ReadSubmission reads submission name of the campaign directory dir.
func ReadSubmission(dir, name string) (*Submission, error) {
	path := filepath.Join(dir, SlurmDir, name, SubmissionFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("submission %s of %s: %w", name, dir, err)
	}
	var s Submission
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Tasks < 1 {
		return nil, fmt.Errorf("%s: %d tasks", path, s.Tasks)
	}
	runs, err := os.ReadFile(filepath.Join(dir, SlurmDir, name, SubmissionRuns))
	if err != nil {
		return nil, fmt.Errorf("submission %s of %s: %w", name, dir, err)
	}
	s.ids = strings.Fields(string(runs))
	if len(s.ids) != s.Runs {
		return nil, fmt.Errorf("%s holds %d runs, %s says %d", filepath.Join(dir, SlurmDir, name, SubmissionRuns), len(s.ids), path, s.Runs)
	}
	return &s, nil
}

// TaskRuns are the runs of task index of the array: lines index,
// index+Tasks, index+2×Tasks... of the submission's runs.
func (s *Submission) TaskRuns(index int) ([]string, error) {
	if index < 0 || index >= s.Tasks {
		return nil, fmt.Errorf("submission %s has tasks 0 to %d, not %d", s.Name, s.Tasks-1, index)
	}
	var out []string
	for i := index; i < len(s.ids); i += s.Tasks {
		out = append(out, s.ids[i])
	}
	return out, nil
}

// SlurmClaimAlive asks Slurm (its squeue executable) whether the job of a
// claim (Claim.Job, "123_4" for an array task) is running: what "bucma expe
// submit" uses (Campaign.ClaimAlive) to take over at once the runs of a
// task that was killed on another node. Unknown when the claim names no
// job or squeue does not answer.
func SlurmClaimAlive(squeue string) func(Claim) (alive, known bool) {
	return func(cl Claim) (bool, bool) {
		if cl.Job == "" {
			return false, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, squeue, "--noheader", "--jobs", cl.Job, "--format", "%T").Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && strings.Contains(string(ee.Stderr), "Invalid job id") {
				return false, true // ended long enough ago to be forgotten
			}
			return false, false
		}
		state := strings.TrimSpace(string(out))
		switch state {
		case "RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "CONFIGURING", "SIGNALING", "STAGE_OUT", "RESIZING":
			return true, true
		case "":
			return false, true // no longer listed: ended
		}
		return false, true // ended: completed, failed, cancelled, timeout, node failure...
	}
}
