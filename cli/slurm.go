package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bucma-sched/bucma/expe"
	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v2"
)

// "bucma expe submit" is a command of its own rather than a --slurm flag of
// "bucma expe run": it ends once the jobs are queued (run ends with the
// campaign), has its own options (sbatch's) that mean nothing to run, and a
// --dry-run; run keeps one meaning, the campaign here and now.

func expeSubmitCommand() *cli.Command {
	return &cli.Command{
		Name: "submit",
		Usage: "run a campaign on a Slurm cluster: prepare its directory (on a filesystem the nodes share), then submit one job array " +
			"whose tasks each perform a fixed share of the runs not done yet, and a report job that waits for the array; " +
			"the same command again submits only the runs missing or failed",
		ArgsUsage: "FILE.yaml | PLAN",
		Flags: append(campaignFlags(),
			&cli.StringFlag{Name: "out", Usage: "campaign directory, on a filesystem the compute nodes share (default results/PLAN)"},
			&cli.StringFlag{Name: "format", Value: "md,csv", Usage: "what the report job writes: md (report.md and its figures), csv (results.csv, one row per run and metric) or both"},
			&cli.StringFlag{Name: "partition", Usage: "sbatch --partition"},
			&cli.StringFlag{Name: "time", Usage: "sbatch --time of each task and of the report job (Slurm's forms: MM, HH:MM:SS, D-HH:MM...)"},
			&cli.StringFlag{Name: "account", Usage: "sbatch --account"},
			&cli.StringFlag{Name: "qos", Usage: "sbatch --qos"},
			&cli.StringFlag{Name: "mem", Usage: "sbatch --mem of each task (4G)"},
			&cli.IntFlag{Name: "cpus-per-task", Usage: "sbatch --cpus-per-task: each task performs that many runs at once (default: Slurm's, one)"},
			&cli.IntFlag{Name: "throttle", Usage: "at most `N` tasks running at once (--array=...%N; default: no bound)"},
			&cli.IntFlag{Name: "tasks", Usage: fmt.Sprintf("array tasks (default: one per --cpus-per-task runs to do, at most %d); the runs are dealt to them in turn", expe.MaxArrayTasks)},
			&cli.StringFlag{Name: "job-name", Usage: "sbatch --job-name (default bucma-PLAN; the report job adds -report)"},
			&cli.StringSliceFlag{Name: "sbatch", Usage: "another sbatch option, one per flag (--sbatch=--constraint=haswell --sbatch=--mail-type=END)"},
			&cli.StringFlag{Name: "sbatch-bin", Value: "sbatch", Usage: "sbatch executable"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the batch scripts and the sbatch commands, write and submit nothing"},
			&cli.BoolFlag{Name: "write-only", Usage: "prepare the campaign directory and write the submission (its runs and batch scripts) without submitting it: to submit by hand, or to run its tasks with 'bucma expe task' elsewhere"},
		),
		Action: expeSubmit,
	}
}

func expeSubmit(c *cli.Context) error {
	const name = "expe submit"
	plan, formats, err := commandPlan(c, name)
	if err != nil {
		return err
	}
	opts := expe.SlurmOptions{
		Partition: c.String("partition"), Time: c.String("time"), Account: c.String("account"), QOS: c.String("qos"), Mem: c.String("mem"),
		CPUsPerTask: c.Int("cpus-per-task"), Throttle: c.Int("throttle"), Tasks: c.Int("tasks"), JobName: c.String("job-name"), Extra: c.StringSlice("sbatch"),
	}
	if err := opts.Check(); err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join("results", plan.Name)
	}
	dir, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	// Before anything is made: the directory goes into the batch scripts.
	if err := expe.CheckScriptPath("--out: the campaign directory", dir); err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	engine, err := planEngine(c, plan)
	if err != nil {
		return err
	}
	taskArgs := []string{"--timeout=" + c.Duration("timeout").String()}
	if be, ok := engine.(*expe.BatsimEngine); ok {
		taskArgs = append(taskArgs, "--engine=batsim")
		if be.Image != "" {
			taskArgs = append(taskArgs, "--batsim-image="+be.Image)
		} else {
			taskArgs = append(taskArgs, "--batsim-bin="+be.Batsim)
		}
	} else {
		taskArgs = append(taskArgs, "--engine=embedded")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: locating the bucma executable: %w", name, err)
	}
	sbatch := c.String("sbatch-bin")
	dry, writeOnly := c.Bool("dry-run"), c.Bool("write-only")
	if dry && writeOnly {
		return cli.Exit(name+": give --dry-run or --write-only, not both", 2)
	}
	if !dry && !writeOnly {
		if sbatch, err = exec.LookPath(sbatch); err != nil {
			return cli.Exit(fmt.Sprintf("%s: sbatch executable %q not found (%v): is this a Slurm login node? --dry-run prints the scripts", name, c.String("sbatch-bin"), err), 2)
		}
	}
	camp := &expe.Campaign{Plan: plan, Dir: dir, Engine: engine, Log: newLogger(c, false), ClaimAlive: slurmClaimAlive()}
	w := stderr(c)

	if dry {
		scan, err := camp.Scan(dir)
		if err != nil {
			return err
		}
		if len(scan.Pending) == 0 {
			fmt.Fprintf(w, "%s: %d runs, %d done, %d running: nothing to submit\n", dir, scan.Total, len(scan.Done), len(scan.Busy))
			return nil
		}
		s, err := expe.NewSubmission(dir, plan, scan.Pending, opts, self, taskArgs, formats)
		if err != nil {
			return cli.Exit(name+": "+err.Error(), 2)
		}
		fmt.Fprintf(c.App.Writer, "# %s (%d runs to do of %d, %d tasks)\n%s\n# %s\n%s\n# sbatch %s\n# sbatch %s\n",
			filepath.Join(s.Folder(), expe.TaskScriptFile), s.Runs, scan.Total, s.Tasks, s.TaskScript(),
			filepath.Join(s.Folder(), expe.ReportScriptFile), s.ReportScript(),
			expe.ShellJoin(s.SbatchArgs(false, "")), expe.ShellJoin(s.SbatchArgs(true, "ARRAY_JOB_ID")))
		return nil
	}

	ctx, stop := interruptContext(c.Context)
	defer stop()
	p, err := camp.Prepare(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return cli.Exit("interrupted while preparing the campaign directory: nothing was submitted", 130)
		}
		return err
	}
	if len(p.Pending) == 0 {
		if p.Result.Busy > 0 {
			fmt.Fprintf(w, "%s: %d runs, %d done, %d being run by earlier jobs: nothing to submit (%s expe status %s)\n",
				dir, p.Result.Total, p.Result.Skipped, p.Result.Busy, invoked(c), dir)
			return nil
		}
		fmt.Fprintf(w, "%s: all %d runs are done: nothing to submit (%s expe report %s)\n", dir, p.Result.Total, invoked(c), dir)
		return nil
	}
	s, err := expe.NewSubmission(dir, plan, p.Pending, opts, self, taskArgs, formats)
	if err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	if s.Inputs, err = expe.InputDigests(dir, plan, p.Pending); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := s.Write(); err != nil {
		return err
	}
	if writeOnly {
		fmt.Fprintf(w, "%s: %d runs to do of %d (%d done), submission %s written, not submitted\n", dir, s.Runs, p.Result.Total, p.Result.Skipped, s.Folder())
		fmt.Fprintf(c.App.Writer, "%s\n", s.Folder())
		fmt.Fprintf(w, "submit it: sbatch %s, then sbatch --dependency=afterany:ARRAY_JOB_ID %s\nor run its tasks 0 to %d: %s expe task --submission %s --index I %s\n",
			filepath.Join(s.Folder(), expe.TaskScriptFile), filepath.Join(s.Folder(), expe.ReportScriptFile), s.Tasks-1, invoked(c), s.Name, dir)
		return nil
	}
	if err := s.Submit(ctx, sbatch); err != nil {
		return fmt.Errorf("%s: submission %s: %w", name, s.Name, err)
	}
	busy := ""
	if p.Result.Busy > 0 {
		busy = fmt.Sprintf(", %d being run by earlier jobs", p.Result.Busy)
	}
	fmt.Fprintf(w, "%s: %d runs to do of %d (%d done%s), submission %s\n", dir, s.Runs, p.Result.Total, p.Result.Skipped, busy, s.Folder())
	fmt.Fprintf(c.App.Writer, "array job %s (%d tasks)\nreport job %s\n", s.ArrayJob, s.Tasks, s.ReportJob)
	fmt.Fprintf(w, "follow it: %s expe status %s\n", invoked(c), dir)
	return nil
}

// slurmClaimAlive asks squeue, when there is one, whether the job holding
// a claim runs (expe.SlurmClaimAlive).
func slurmClaimAlive() func(expe.Claim) (bool, bool) {
	squeue, err := exec.LookPath("squeue")
	if err != nil {
		return nil
	}
	return expe.SlurmClaimAlive(squeue)
}

func expeTaskCommand() *cli.Command {
	return &cli.Command{
		Name:      "task",
		Usage:     "perform one task of a submission's job array (what its batch script runs): its share of the runs, claimed, kept as each completes",
		ArgsUsage: "DIR",
		Flags: append(engineFlags(),
			&cli.StringFlag{Name: "submission", Usage: "the submission (its folder DIR/slurm/`NAME`)"},
			&cli.IntFlag{Name: "index", Value: -1, Usage: "the task's index in the array (SLURM_ARRAY_TASK_ID)"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "runs at once (the task's CPUs)"},
		),
		Action: expeTask,
	}
}

func expeTask(c *cli.Context) error {
	const name = "expe task"
	if c.NArg() != 1 {
		return cli.Exit(name+": want one campaign directory", 2)
	}
	dir, err := filepath.Abs(c.Args().First())
	if err != nil {
		return err
	}
	if c.Int("workers") < 1 {
		return cli.Exit(name+": --workers must be at least 1", 2)
	}
	if c.String("submission") == "" {
		return cli.Exit(name+": --submission NAME is required (the folder DIR/slurm/NAME)", 2)
	}
	sub, err := expe.ReadSubmission(dir, c.String("submission"))
	if err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	ids, err := sub.TaskRuns(c.Int("index"))
	if err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	plan, err := expe.ReadPlan(dir)
	if err != nil {
		return cli.Exit(name+": "+err.Error(), 2)
	}
	engine, err := planEngine(c, plan)
	if err != nil {
		return err
	}
	job := os.Getenv("SLURM_JOB_ID")
	if a, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); a != "" && t != "" {
		job = a + "_" + t
	}
	// Slurm sends SIGTERM at the time limit, and SIGKILL a while later: the
	// runs in progress are abandoned, those completed stay.
	ctx, stop := interruptContext(c.Context)
	defer stop()
	camp := &expe.Campaign{Plan: plan, Dir: dir, Engine: engine, Workers: c.Int("workers"), RunTimeout: c.Duration("timeout"),
		Log: newLogger(c, false), Job: job, Inputs: sub.Inputs, ClaimAlive: slurmClaimAlive()}
	w := stderr(c)
	fmt.Fprintf(w, "%s: submission %s, task %d of %d: %d runs, %d at once\n", dir, sub.Name, c.Int("index"), sub.Tasks, len(ids), c.Int("workers"))
	res, err := camp.ExecuteRuns(ctx, ids)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(w, "interrupted: %d runs done, %d were already done; the others are missing (%s expe status %s)\n", res.Done, res.Skipped, invoked(c), dir)
		return cli.Exit("", 130)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d runs in %s: %d done now, %d already done, %d run by another job, %d failed\n",
		res.Total, res.Duration.Round(time.Millisecond), res.Done, res.Skipped, res.Busy, len(res.Failed))
	for _, f := range res.Failed {
		fmt.Fprintln(w, f.String())
	}
	if len(res.Failed) > 0 {
		return cli.Exit(fmt.Sprintf("%d of %d runs failed", len(res.Failed), res.Total), 1)
	}
	return nil
}

func expeStatusCommand() *cli.Command {
	return &cli.Command{
		Name: "status",
		Usage: "tell the runs of a campaign directory done, running, failed and missing, from the directory alone " +
			"(no batch system is asked: it works on a login node)",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verify", Usage: "check every output's checksum (default: run.json and the jobs file's size)"},
			&cli.IntFlag{Name: "max", Value: 20, Usage: "list at most `N` runs of each state not done (0: all)"},
			&cli.BoolFlag{Name: "json", Usage: "print the status as JSON (every run)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("expe status: want one campaign directory", 2)
			}
			dir, err := filepath.Abs(c.Args().First())
			if err != nil {
				return err
			}
			st, err := expe.ReadStatus(dir, c.Bool("verify"))
			if err != nil {
				return cli.Exit("expe status: "+err.Error(), 2)
			}
			if c.Bool("json") {
				data, err := json.MarshalIndent(st, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "%s\n", data)
				return err
			}
			if c.Int("max") < 0 {
				return cli.Exit("expe status: --max "+strconv.Itoa(c.Int("max"))+": must be positive", 2)
			}
			_, err = fmt.Fprint(c.App.Writer, st.Summary(c.Int("max"), time.Now()))
			return err
		},
	}
}
