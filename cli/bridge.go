package cli

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/batsim/bridge"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// bridgeDefaultEndpoint is where bucma bridge waits for Batsim 5 unless
// told otherwise: the port after Batsim 4's default (28000), on which the
// Batsim 4 decision process listens.
const bridgeDefaultEndpoint = "tcp://*:28001"

// bridgeDefaultConnect is the Batsim 4 decision process's endpoint unless
// told otherwise: where Batsim 4 reaches batsched and pybatsim by default.
const bridgeDefaultConnect = "tcp://localhost:28000"

func bridgeCommand() *cli.Command {
	return &cli.Command{
		Name:      "bridge",
		Usage:     "run a Batsim 4 decision process (batsched, a pybatsim scheduler, ...) on Batsim 5",
		ArgsUsage: "[-- COMMAND ARGS... (" + check.Placeholder + " is the endpoint it binds)]",
		Description: `Serves Batsim 5 over ZeroMQ as a decision component and forwards the simulation
to a Batsim 4 decision process listening on --connect's endpoint: each Batsim 5
message becomes the Batsim 4 message the process reads, each of its replies
becomes Batsim 5 decisions (the translation that serves bucma's own policies to
Batsim 5). The process runs as it runs with Batsim 4:

   batsched -v easy_bf -s tcp://*:28000 &
   bucma bridge --connect tcp://localhost:28000 -s tcp://*:28001 &
   batsim5 -p platform.xml -w workload-v5.json -s tcp://localhost:28001 '' -e out/

Or the bridge starts the process itself, on a free loopback port that goes where
` + check.Placeholder + ` stands in its command line, and ends it with the simulation:

   bucma bridge -s 'tcp://127.0.0.1:*' --endpoint-file ep -- batsched -v easy_bf -s ` + check.Placeholder + ` &
   until [ -s ep ]; do sleep 0.1; done
   batsim5 -p platform.xml -w workload-v5.json -s "$(cat ep)" '' -e out/

Batsim 4's flags that concern the process keep their names here
(--enable-dynamic-jobs, --acknowledge-dynamic-jobs, --forward-profiles-on-submission,
--enable-profile-reuse, --enable-compute-sharing, --forward-unknown-events,
--sched-cfg): the bridge asks Batsim 5 for them. Batsim 5's init string may give
them too, with the process's endpoint, as the shared library reads them:
'{"bridge": "tcp://localhost:28000", "enable-dynamic-jobs": true}' (a flag set
on either side is set; an endpoint on both sides must be the same).

A decision of the process that Batsim 5 cannot express (QUERY, CHANGE_JOB_STATE,
TO_JOB_MSG, continue_registration, additional_io_job, a profile with a return
code) or a reply that breaks Batsim 4's protocol stops the run with an error
naming it: Batsim 5 is asked to stop the simulation (it ends, writing its
outputs) and the process gets SIMULATION_ENDS. So it does when the process dies
(its connection closes), stays silent beyond --reply-timeout, does not answer
its first message within --connect-timeout, or when Batsim 5 goes away.

Exit status: 0 after the simulation's end, 1 on an error of either side or a
decision Batsim 5 cannot express, 2 on a bad command line or init string, 130
when interrupted (SIGINT, SIGTERM or SIGQUIT).`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "connect", Value: bridgeDefaultConnect, Usage: "the Batsim 4 decision process's ZeroMQ `ENDPOINT` (its REP socket; Batsim 5's init string may name it instead: \"bridge\")"},
			&cli.StringFlag{Name: "socket-endpoint", Aliases: []string{"s"}, Value: bridgeDefaultEndpoint, Usage: "ZeroMQ `ENDPOINT` to bind for Batsim 5 (its -s connects to it); port * picks a free one"},
			&cli.StringFlag{Name: "endpoint-file", Usage: "once bound, write the endpoint (port * resolved) to `FILE`, atomically"},
			&cli.StringFlag{Name: "transport", Value: zmq.TransportNative, Usage: "Batsim 5's side: native (tcp:// endpoints, bucma's own ZeroMQ) or libzmq (every endpoint)"},
			&cli.StringFlag{Name: "connect-transport", Usage: "the process's side: native (tcp://; the default there: a process that dies is seen at once) or libzmq (every endpoint, the default for the others; a process that dies is then seen through --reply-timeout only)"},
			timeoutFlag("give up when Batsim 5 sends nothing for `D`; 0 waits forever", 0),
			&cli.DurationFlag{Name: "reply-timeout", Usage: "give up when the process takes longer than `D` to answer a message; 0 waits forever (its death is seen at once on tcp://)"},
			&cli.DurationFlag{Name: "connect-timeout", Value: bridge.DefaultConnectTimeout, Usage: "give up when the process has not answered its first message (SIMULATION_BEGINS) within `D`"},
			&cli.BoolFlag{Name: "enable-dynamic-jobs", Usage: "Batsim 4's flag: the process registers jobs (REGISTER_JOB, registration_finished)"},
			&cli.BoolFlag{Name: "acknowledge-dynamic-jobs", Usage: "Batsim 4's flag: a JOB_SUBMITTED for each registered job"},
			&cli.BoolFlag{Name: "forward-profiles-on-submission", Usage: "Batsim 4's flag: the job's profile in JOB_SUBMITTED (and the profiles in SIMULATION_BEGINS)"},
			&cli.BoolFlag{Name: "enable-profile-reuse", Usage: "Batsim 4's flag: dynamic jobs may reuse the profiles of ended jobs"},
			&cli.BoolFlag{Name: "enable-compute-sharing", Usage: "Batsim 4's flag: several jobs may share a compute host"},
			&cli.BoolFlag{Name: "forward-unknown-events", Usage: "Batsim 4's flag: external events of other types are forwarded (NOTIFY)"},
			&cli.StringFlag{Name: "sched-cfg", Usage: "Batsim 4's --sched-cfg: the string the process reads as SIMULATION_BEGINS's config.sched-config"},
			&cli.StringFlag{Name: "sched-cfg-file", Usage: "read the sched-config string from `FILE`"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging, including every message of both sides"},
		},
		Action: bridgeAction,
	}
}

func bridgeAction(c *cli.Context) error {
	usage := func(format string, args ...any) error {
		return cli.Exit("bridge: "+fmt.Sprintf(format, args...), 2)
	}
	argv := c.Args().Slice()
	if len(argv) > 0 {
		if err := check.CheckArgv(argv); err != nil {
			return usage("%v", err)
		}
		if c.IsSet("connect") {
			return usage("give --connect (a process that listens) or -- COMMAND (one the bridge starts), not both")
		}
	}
	if err := checkEndpoint(c, "socket-endpoint", true); err != nil {
		return err
	}
	if err := checkEndpoint(c, "connect", false); err != nil {
		return err
	}
	for _, f := range []string{"transport", "connect-transport"} {
		switch t := c.String(f); t {
		case zmq.TransportNative, zmq.TransportLibzmq:
		case "":
			if f == "connect-transport" {
				break
			}
			fallthrough
		default:
			return usage("--%s %q: want %s or %s", f, t, zmq.TransportNative, zmq.TransportLibzmq)
		}
	}
	for _, f := range []string{"reply-timeout", "connect-timeout"} {
		if c.Duration(f) < 0 {
			return usage("--%s %v: a duration must not be negative", f, c.Duration(f))
		}
	}
	schedCfg, err := schedConfigOf(c)
	if err != nil {
		return err
	}
	verbose := c.Bool("verbose")
	level := serveLevel(c, verbose)
	log := loggerAt(c, level)
	def := bridge.Config{
		Transport: c.String("connect-transport"), DynamicJobs: c.Bool("enable-dynamic-jobs"),
		AcknowledgeDynamicJobs: c.Bool("acknowledge-dynamic-jobs"), ForwardProfiles: c.Bool("forward-profiles-on-submission"),
		ProfileReuse: c.Bool("enable-profile-reuse"), ComputeSharing: c.Bool("enable-compute-sharing"),
		ForwardUnknownEvents: c.Bool("forward-unknown-events"), SchedConfig: schedCfg,
		Timeout: c.Duration("reply-timeout"), ConnectTimeout: c.Duration("connect-timeout"),
		Verbose: verbose, Version: appVersion(), Log: log,
	}
	// --connect's default gives way to the init string's endpoint; a
	// --connect given must agree with it.
	defaultConnect := ""
	var spawned *check.Spawned
	switch {
	case len(argv) > 0:
		var err error
		if spawned, err = check.Spawn(argv); err != nil {
			return err
		}
		def.Endpoint = spawned.Endpoint
		defer func() {
			if note := spawned.Wait(); note != "" {
				log.Warn("the Batsim 4 decision process did not end well", "how", note)
			}
		}()
	case c.IsSet("connect"):
		def.Endpoint = c.String("connect")
	default:
		defaultConnect = c.String("connect")
	}
	srv := &run.Server{
		Batsim5Only: true,
		Endpoint:    c.String("socket-endpoint"), Transport: c.String("transport"), Timeout: c.Duration("timeout"),
		EndpointFile: c.String("endpoint-file"), Bound: serveBound, Version: appVersion(), Level: level, Log: log,
	}
	ctx, stop := interruptContext(c.Context)
	defer stop()
	var proc *bridge.Process
	start := func(init []byte) (*v5.EDC, error) {
		in, err := bridge.ParseInit(init)
		if err == nil {
			if in.Bridge == "" && def.Endpoint == "" {
				def.Endpoint = defaultConnect
			}
			def, err = in.Config(def)
		}
		if err != nil {
			// A process named on the command line is told the end.
			if def.Endpoint != "" {
				if p, perr := bridge.NewProcess(ctx, def); perr == nil {
					proc = p
				}
			}
			err = &sched.OptionError{Msg: err.Error()}
			return run.Refused(appVersion(), err), err
		}
		if def.Verbose {
			level.Set(slog.LevelDebug)
		}
		e, p, err := bridge.New(ctx, def)
		if err != nil {
			err = &sched.OptionError{Msg: err.Error()}
			return run.Refused(appVersion(), err), err
		}
		proc = p
		log.Info("Batsim 5 connected: bridging to the Batsim 4 decision process", "process", def.Endpoint)
		return e, nil
	}
	srv.Start = start
	err = srv.Serve(ctx)
	if proc != nil {
		// However the simulation ended, the process is told.
		if eerr := proc.End(); eerr != nil && err == nil {
			err = eerr
		}
		_ = proc.Close()
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, zmq.ErrInterrupted) {
		return cli.Exit("bridge: "+err.Error(), exitInterrupted)
	}
	if errors.Is(err, v5.ErrNoEquivalent) && proc != nil {
		return fmt.Errorf("bridge: the Batsim 4 decision process at %s sent a decision Batsim 5 cannot express, the simulation was stopped: %w", proc.Endpoint(), err)
	}
	return fmt.Errorf("bridge: %w", err)
}
