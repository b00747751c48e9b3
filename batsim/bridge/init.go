package bridge

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// DefaultConnectTimeout bounds the first exchange with the process (the
// connection and its answer to SIMULATION_BEGINS) unless
// Config.ConnectTimeout says otherwise.
const DefaultConnectTimeout = time.Minute

// Config is one bridge: where the Batsim 4 decision process listens, and
// the Batsim 4 command line it was written for.
type Config struct {
	// Endpoint is the process's ZeroMQ endpoint, to connect to (batsched
	// -s 'tcp://*:28000' is reached at tcp://127.0.0.1:28000).
	Endpoint string
	// Transport is zmq.TransportNative (the default for tcp://: bucma's
	// own ZMTP, which sees a connection close at once) or
	// zmq.TransportLibzmq (every endpoint libzmq knows, ipc:// too; a
	// process that dies is then only seen through Timeout).
	Transport string
	// The Batsim 4 flags the process needs, asked of Batsim 5 in the
	// component's hello and told to the process in SIMULATION_BEGINS:
	// --enable-dynamic-jobs, --acknowledge-dynamic-jobs,
	// --forward-profiles-on-submission, --enable-profile-reuse,
	// --enable-compute-sharing, --forward-unknown-events.
	DynamicJobs, AcknowledgeDynamicJobs, ForwardProfiles, ProfileReuse, ComputeSharing, ForwardUnknownEvents bool
	// SchedConfig is Batsim 4's --sched-cfg: SIMULATION_BEGINS's
	// config.sched-config.
	SchedConfig string
	// ConnectTimeout bounds the first exchange (0: DefaultConnectTimeout);
	// Timeout bounds the wait for each later reply (0: no limit, as
	// Batsim 4).
	ConnectTimeout, Timeout time.Duration
	// Verbose logs every message at debug level.
	Verbose bool
	// Name and Version identify the component in its hello.
	Name, Version string
	// Log receives warnings and errors (nil: slog.Default()).
	Log *slog.Logger
	// Observe, when set, sees every message of the Batsim 4 side: those
	// sent to the process (FromBatsim) and its replies (FromScheduler).
	Observe func(dir batsim.Direction, raw []byte)
}

// InitKey is the key of the init string that names the process's
// endpoint; an init string with it is a bridge's (IsInit).
const InitKey = "bridge"

// Init is the init string of a bridge, a JSON object whose keys are
// InitKey and Batsim 4's flags:
//
//	{"bridge": "tcp://127.0.0.1:28000", "enable-dynamic-jobs": true,
//	 "sched-cfg": "{\"key\": 1}", "timeout": "10m"}
//
// Durations are Go's ("90s", "10m"); a number is a number of seconds.
type Init struct {
	Bridge                 string   `json:"bridge"`
	Transport              string   `json:"transport"`
	DynamicJobs            bool     `json:"enable-dynamic-jobs"`
	AcknowledgeDynamicJobs bool     `json:"acknowledge-dynamic-jobs"`
	ForwardProfiles        bool     `json:"forward-profiles-on-submission"`
	ProfileReuse           bool     `json:"enable-profile-reuse"`
	ComputeSharing         bool     `json:"enable-compute-sharing"`
	ForwardUnknownEvents   bool     `json:"forward-unknown-events"`
	SchedConfig            string   `json:"sched-cfg"`
	Timeout                Duration `json:"timeout"`
	ConnectTimeout         Duration `json:"connect-timeout"`
	Verbose                bool     `json:"verbose"`
}

// Duration is a duration in an init string: a Go duration string, or a
// number of seconds.
type Duration time.Duration

// UnmarshalJSON reads "90s" or 90.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (want 90s, 10m, ...)", s)
		}
		if v < 0 {
			return fmt.Errorf("%q: a duration must not be negative", s)
		}
		*d = Duration(v)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s is not a duration (want \"90s\", \"10m\" or a number of seconds)", b)
	}
	if f < 0 || f > float64(1<<62)/1e9 {
		return fmt.Errorf("%s seconds: out of range", b)
	}
	*d = Duration(f * 1e9)
	return nil
}

// IsInit reports whether an init string is a bridge's: a JSON object
// with the key InitKey.
func IsInit(init []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(v5.TrimNUL(init)), &m) != nil {
		return false
	}
	_, ok := m[InitKey]
	return ok
}

// ParseInit reads a bridge's init string (an empty one is an empty
// object); an unknown key, a value of the wrong type or a bad endpoint is
// an error naming it.
func ParseInit(data []byte) (Init, error) {
	var in Init
	if _, err := v5.DecodeInit(data, &in); errors.Is(err, v5.ErrTextAfterInit) {
		return in, fmt.Errorf("init string: %v", err)
	} else if err != nil {
		return in, fmt.Errorf("init string: not a bridge's JSON object (keys %s): %v", strings.Join(initKeys(), ", "), err)
	}
	if in.Bridge != "" {
		if err := zmq.CheckEndpoint(in.Bridge, false); err != nil {
			return in, fmt.Errorf("init string: %q: %v", InitKey, err)
		}
	}
	if err := checkTransport(in.Transport); err != nil {
		return in, fmt.Errorf("init string: %v", err)
	}
	return in, nil
}

// initKeys are the keys of Init, in order.
func initKeys() []string {
	return []string{InitKey, "transport", "enable-dynamic-jobs", "acknowledge-dynamic-jobs", "forward-profiles-on-submission",
		"enable-profile-reuse", "enable-compute-sharing", "forward-unknown-events", "sched-cfg", "timeout", "connect-timeout", "verbose"}
}

func checkTransport(t string) error {
	switch t {
	case "", zmq.TransportNative, zmq.TransportLibzmq:
		return nil
	}
	return fmt.Errorf("transport %q: want %s or %s", t, zmq.TransportNative, zmq.TransportLibzmq)
}

// Config is the bridge an init string describes, over def (a command
// line's): the endpoint is the init string's or def's (both: the same
// one); a flag set in either is set; the sched-config, transport and
// timeouts are def's where it gives them, the init string's otherwise.
func (in Init) Config(def Config) (Config, error) {
	cfg := def
	switch {
	case in.Bridge == "" && def.Endpoint == "":
		return cfg, fmt.Errorf("no Batsim 4 decision process to connect to: the init string has no %q (want {%q: \"tcp://HOST:PORT\"}) and no endpoint was given", InitKey, InitKey)
	case in.Bridge != "" && def.Endpoint != "" && in.Bridge != def.Endpoint:
		return cfg, fmt.Errorf("the init string's %q is %s but the bridge connects to %s", InitKey, in.Bridge, def.Endpoint)
	case in.Bridge != "":
		cfg.Endpoint = in.Bridge
	}
	cfg.DynamicJobs = cfg.DynamicJobs || in.DynamicJobs
	cfg.AcknowledgeDynamicJobs = cfg.AcknowledgeDynamicJobs || in.AcknowledgeDynamicJobs
	cfg.ForwardProfiles = cfg.ForwardProfiles || in.ForwardProfiles
	cfg.ProfileReuse = cfg.ProfileReuse || in.ProfileReuse
	cfg.ComputeSharing = cfg.ComputeSharing || in.ComputeSharing
	cfg.ForwardUnknownEvents = cfg.ForwardUnknownEvents || in.ForwardUnknownEvents
	cfg.Verbose = cfg.Verbose || in.Verbose
	if cfg.SchedConfig == "" {
		cfg.SchedConfig = in.SchedConfig
	}
	if cfg.Transport == "" {
		cfg.Transport = in.Transport
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Duration(in.Timeout)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = time.Duration(in.ConnectTimeout)
	}
	return cfg, nil
}
