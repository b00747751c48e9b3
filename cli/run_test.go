package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/corpus/replies"
	"github.com/bucma-sched/bucma/sched"
)

// runGuard bounds every wait so that a broken command fails instead of
// hanging the test; it is not a performance assertion.
const runGuard = 60 * time.Second

// runTranscript reads a transcript of the corpus (the reference
// scheduler's, strict FCFS on the lowest free ids).
func runTranscript(t *testing.T, name string) []corpus.Line {
	t.Helper()
	lines := corpus.ReadTranscript(t, name, "transcript.jsonl")
	if len(lines) < 2 {
		t.Fatalf("%s: transcript too short", name)
	}
	return lines
}

// withSchedConfig returns the transcript with Batsim's sched-config set to
// cfg in SIMULATION_BEGINS (as batsim --sched-cfg would send it).
func withSchedConfig(t *testing.T, lines []corpus.Line, cfg string) []corpus.Line {
	t.Helper()
	quoted, _ := json.Marshal(cfg)
	out := append([]corpus.Line(nil), lines...)
	old := `"sched-config":""`
	if !strings.Contains(out[0].Raw, old) {
		t.Fatal("first message has no empty sched-config")
	}
	out[0].Raw = strings.Replace(out[0].Raw, old, `"sched-config":`+string(quoted), 1)
	return out
}

// syncBuffer is a bytes.Buffer safe for the command's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startRun runs "bucma run args..." in-process as Main does (bucma's or
// batsched's command line) on a wildcard loopback port and returns the endpoint it listens on, the channel of Run's error and
// its standard error.
func startRun(t *testing.T, args ...string) (string, <-chan error, *syncBuffer) {
	t.Helper()
	return startServing(t, "run", args...)
}

// startServing is startRun for command cmd (run, bridge).
func startServing(t *testing.T, cmd string, args ...string) (string, <-chan error, *syncBuffer) {
	t.Helper()
	bound := make(chan string, 1)
	serveBound = func(ep string) { bound <- ep }
	t.Cleanup(func() { serveBound = nil })
	app := newApp(policies.Builtin())
	errOut := &syncBuffer{}
	app.Writer, app.ErrWriter = io.Discard, errOut
	done := make(chan error, 1)
	full := append([]string{"bucma", cmd, "-s", "tcp://127.0.0.1:*"}, args...)
	go func() { done <- runCLI(app, full) }()
	select {
	case ep := <-bound:
		return ep, done, errOut
	case err := <-done:
		t.Fatalf("bucma %v returned before listening: %v", full[1:], err)
	case <-time.After(runGuard):
		t.Fatalf("bucma %s did not listen", cmd)
	}
	return "", nil, nil
}

// playBatsim sends the Batsim messages of lines over a REQ socket and
// returns the replies received.
func playBatsim(t *testing.T, endpoint string, lines []corpus.Line) [][]byte {
	t.Helper()
	c := dialBatsim(t, endpoint)
	var replies [][]byte
	for _, l := range lines {
		if l.FromBatsim() {
			replies = append(replies, request(t, c, l.Raw))
		}
	}
	return replies
}

// dialBatsim connects Batsim's side of a conversation (closed when the test
// ends) to endpoint.
func dialBatsim(t *testing.T, endpoint string) *zmq.Client {
	t.Helper()
	c, err := zmq.Dial(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = runGuard
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// request sends msg and returns the reply.
func request(t *testing.T, c *zmq.Client, msg string) []byte {
	t.Helper()
	r, err := c.Exchange([]byte(msg))
	if err != nil {
		t.Fatalf("no reply to %.80s (%v)", msg, err)
	}
	return r
}

func waitRun(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(runGuard):
		t.Fatal("bucma run did not return")
		return nil
	}
}

// canonicalReply is a scheduler message's now and decisions, canonical.
func canonicalReply(t *testing.T, raw []byte) string {
	t.Helper()
	now, evs := replies.Decisions(t, raw)
	return fmt.Sprint(now, evs)
}

// recorded returns the scheduler replies of a transcript, canonical.
func recorded(t *testing.T, lines []corpus.Line) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		if !l.FromBatsim() {
			out = append(out, canonicalReply(t, []byte(l.Raw)))
		}
	}
	return out
}

func canonicalAll(t *testing.T, replies [][]byte) []string {
	t.Helper()
	out := make([]string, len(replies))
	for i, r := range replies {
		out[i] = canonicalReply(t, r)
	}
	return out
}

// sessionReplies answers the Batsim messages of lines with an in-process
// Session (no socket), canonical. It stops at the first message the session
// refuses and returns the replies so far with the error: a policy that
// decides differently from the recorded one soon reads a JOB_COMPLETED
// whose allocation is not the one it gave.
func sessionReplies(t *testing.T, lines []corpus.Line, policy string, opts sched.Options) ([]string, error) {
	t.Helper()
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sess, err := (&run.Policy{Spec: spec, Options: opts, Log: log}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	dec := batsim.NewDecoder(log)
	var out []string
	for _, l := range lines {
		if !l.FromBatsim() {
			continue
		}
		m, err := dec.Decode([]byte(l.Raw), batsim.FromBatsim)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sess.Handle(m)
		if err != nil {
			return out, err
		}
		out = append(out, canonicalReply(t, r.Encode()))
	}
	return out, nil
}

func sameReplies(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d replies, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("reply %d:\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}

// TestRunTranscript serves a recorded simulation with "bucma run" and
// compares every reply with the recorded one; run must return nil after
// SIMULATION_ENDS.
func TestRunTranscript(t *testing.T) {
	lines := runTranscript(t, "hetero4_delays")
	ep, done, errOut := startRun(t, "--scheduler", "fcfs", "--option", "hosts=first-fit", "--validate")
	got := playBatsim(t, ep, lines)
	if err := waitRun(t, done); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	sameReplies(t, canonicalAll(t, got), recorded(t, lines))
	if errOut.String() != "" {
		t.Fatalf("quiet run wrote to stderr:\n%s", errOut)
	}
}

// TestRunVerboseLogsMessages: -v logs every message both ways.
func TestRunVerboseLogsMessages(t *testing.T) {
	lines := runTranscript(t, "hetero4_delays")
	ep, done, errOut := startRun(t, "--scheduler", "fcfs", "-o", "hosts=first-fit", "-v")
	got := playBatsim(t, ep, lines)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	log := errOut.String()
	for _, dir := range []string{batsim.FromBatsim.String(), batsim.FromScheduler.String()} {
		if n := strings.Count(log, "dir="+dir); n != len(got) {
			t.Fatalf("%d messages logged as %s, want %d", n, dir, len(got))
		}
	}
}

// TestRunSchedConfig: options given by Batsim's --sched-cfg apply, and
// --option wins over them.
func TestRunSchedConfig(t *testing.T) {
	base := runTranscript(t, "hetero8_compute")
	lines := withSchedConfig(t, base, `{"hosts":"first-fit"}`)

	t.Run("sched-config only", func(t *testing.T) {
		ep, done, errOut := startRun(t, "--scheduler", "fcfs")
		got := playBatsim(t, ep, lines)
		if err := waitRun(t, done); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		sameReplies(t, canonicalAll(t, got), recorded(t, base))
	})
	t.Run("option wins", func(t *testing.T) {
		if fastest, err := sessionReplies(t, base, "fcfs", sched.Options{"hosts": "fastest"}); err == nil && reflect.DeepEqual(fastest, recorded(t, base)) {
			t.Fatal("fixture cannot tell fastest from first-fit")
		}
		// sched-config asks for fastest, the command line for first-fit:
		// the replies are the recorded first-fit ones.
		ep, done, errOut := startRun(t, "--scheduler", "fcfs", "--option", "hosts=first-fit")
		got := playBatsim(t, ep, withSchedConfig(t, base, `{"hosts":"fastest"}`))
		if err := waitRun(t, done); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		sameReplies(t, canonicalAll(t, got), recorded(t, base))
	})
}

// TestRunBadSchedConfig: an invalid option value in Batsim's sched-config
// ends the run with exit status 2 and names the valid values.
func TestRunBadSchedConfig(t *testing.T) {
	lines := withSchedConfig(t, runTranscript(t, "hetero4_delays"), `{"hosts":"slowest"}`)
	ep, done, _ := startRun(t, "--scheduler", "easy")
	sendToRun(t, ep, []string{lines[0].Raw})
	err := waitRun(t, done)
	if code := exitCode(err); code != 2 {
		t.Fatalf("exit code %d (%v), want 2", code, err)
	}
	if !strings.Contains(err.Error(), "fastest, first-fit") {
		t.Fatalf("error does not list the valid values: %v", err)
	}
}

// TestRunMisspeltSchedConfigKey: a key of Batsim's sched-config that is
// not an option of the policy ends the run as a bad --option does (exit
// status 2), naming the key and the valid ones, rather than leaving the
// option at its default.
func TestRunMisspeltSchedConfigKey(t *testing.T) {
	lines := withSchedConfig(t, runTranscript(t, "hetero4_delays"), `{"hosts":"first-fit","backfil":"count"}`)
	ep, done, _ := startRun(t, "--scheduler", "easy")
	sendToRun(t, ep, []string{lines[0].Raw})
	err := waitRun(t, done)
	if code := exitCode(err); code != 2 {
		t.Fatalf("exit code %d (%v), want 2", code, err)
	}
	for _, w := range []string{`sched-config: scheduler easy: unknown option "backfil"`, "valid: hosts, backfill"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestRunSaysWhereItWaits: on a terminal, bucma run says which endpoint it
// waits for Batsim on; elsewhere (a log file, a pipe) it stays quiet unless
// -v.
func TestRunSaysWhereItWaits(t *testing.T) {
	waits := func(terminal bool, args ...string) string {
		saved := terminalWidth
		terminalWidth = func(io.Writer) (int, bool) { return 80, terminal }
		defer func() { terminalWidth = saved }()
		ep, done, errOut := startRun(t, append([]string{"--scheduler", "easy", "--timeout", "20ms"}, args...)...)
		if err := waitRun(t, done); exitCode(err) != 1 {
			t.Fatalf("exit %d: %v", exitCode(err), err)
		}
		if strings.Contains(errOut.String(), "waiting for Batsim") && !strings.Contains(errOut.String(), "endpoint="+ep) {
			t.Errorf("the message does not name the endpoint %s:\n%s", ep, errOut)
		}
		return errOut.String()
	}
	if log := waits(true); !strings.Contains(log, `msg="waiting for Batsim"`) || strings.Contains(log, "level=DEBUG") {
		t.Errorf("on a terminal:\n%s", log)
	}
	if log := waits(false); log != "" {
		t.Errorf("not on a terminal:\n%s", log)
	}
	if log := waits(false, "-v"); !strings.Contains(log, `msg="waiting for Batsim"`) {
		t.Errorf("not on a terminal, with -v:\n%s", log)
	}
}

// TestRunTimeout: --timeout ends a run Batsim never talks to, with exit
// status 1 and a clear message.
func TestRunTimeout(t *testing.T) {
	_, done, _ := startRun(t, "--scheduler", "easy", "--timeout", "50ms")
	err := waitRun(t, done)
	if code := exitCode(err); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !strings.Contains(err.Error(), "no message from Batsim for 50ms") {
		t.Fatalf("message: %v", err)
	}
}

// TestRunInterrupted: cancelling the command's context (what SIGINT and
// SIGTERM do) ends the run with exit status 130.
func TestRunInterrupted(t *testing.T) {
	bound := make(chan string, 1)
	serveBound = func(ep string) { bound <- ep }
	defer func() { serveBound = nil }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := newApp(policies.Builtin())
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	done := make(chan error, 1)
	go func() {
		done <- app.RunContext(ctx, []string{"bucma", "run", "--scheduler", "easy", "-s", "tcp://127.0.0.1:*"})
	}()
	select {
	case <-bound:
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	case <-time.After(runGuard):
		t.Fatal("run did not listen")
	}
	cancel()
	err := waitRun(t, done)
	if code := exitCode(err); code != exitInterrupted {
		t.Fatalf("exit code %d (%v), want %d", code, err, exitInterrupted)
	}
}

// TestRunProcessExitsAfterSimulationEnds starts a real "bucma run" process
// (the test binary acting as bucma, see TestMain), plays a recorded
// simulation against it and checks the process exits with status 0 once
// SIMULATION_ENDS is answered (the final reply reached Batsim's side first).
func TestRunProcessExitsAfterSimulationEnds(t *testing.T) {
	cmd, ep, logs := startRunProcess(t, "--scheduler", "fcfs", "-o", "hosts=first-fit")
	lines := runTranscript(t, "hetero4_delays")
	got := playBatsim(t, ep, lines)
	sameReplies(t, canonicalAll(t, got), recorded(t, lines))
	if err := waitProcess(t, cmd); err != nil {
		t.Fatalf("bucma run: %v\n%s", err, logs.String())
	}
}

// TestRunProcessSIGQUIT: SIGQUIT (Ctrl-\\) stops "bucma run" like SIGINT and
// SIGTERM, with exit status 130 (the Go runtime's default would be a
// goroutine dump and status 2, the status of a bad command line).
func TestRunProcessSIGQUIT(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, _, logs := startRunProcess(t, "--scheduler", "easy")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := waitProcess(t, cmd)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit: %v, want status %d\n%s", err, exitInterrupted, logs.String())
			}
			if strings.Contains(logs.String(), "goroutine ") {
				t.Errorf("goroutine dump on %v:\n%s", sig, logs.String())
			}
		})
	}
}

// startRunProcess starts a real "bucma run args..." process (the test
// binary acting as bucma, see TestMain) on a wildcard loopback port, and
// returns it once it listens, with its endpoint and its standard error.
func startRunProcess(t *testing.T, args ...string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	// The debug log names the endpoint once the socket is bound.
	cmd, m, logs := startProcess(t, nil, endpointRE, append([]string{"run", "-s", "tcp://127.0.0.1:*", "-v"}, args...)...)
	return cmd, m[1], logs
}

// startProcess starts a real "bucma args..." process (the test binary
// acting as bucma, see TestMain) with stdin as its standard input (nil:
// none), and returns it once a line of its standard error matches ready
// (with the submatches), with its standard error. The process's signal
// handlers are installed before it logs anything.
func startProcess(t *testing.T, stdin *os.File, ready *regexp.Regexp, args ...string) (*exec.Cmd, []string, *syncBuffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "BUCMA_TEST_MAIN=1", "BUCMA_TEST_SIGNALS_READY=1")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	// A pipe of the test's own rather than cmd.StderrPipe: Wait closes
	// the latter as soon as the process exits, losing its last lines.
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	matched := make(chan []string, 1)
	logs := &syncBuffer{}
	read := make(chan struct{})
	readers.Store(cmd, read)
	go func() {
		defer close(read)
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			logs.Write([]byte(line + "\n"))
			if m := ready.FindStringSubmatch(line); m != nil && !sent {
				matched <- m
				sent = true
			}
		}
	}()
	select {
	case m := <-matched:
		return cmd, m, logs
	case <-time.After(runGuard):
		t.Fatalf("bucma %s never logged a line matching %s:\n%s", strings.Join(args, " "), ready, logs.String())
	}
	return nil, nil, nil
}

// readers holds, for each process of startProcess, a channel closed once
// its standard error is read to the end.
var readers sync.Map

// waitProcess waits for cmd to exit, and for its standard error to be read
// to the end when startProcess started it, and returns its Wait error.
func waitProcess(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		if read, ok := readers.LoadAndDelete(cmd); ok {
			<-read.(chan struct{})
		}
		exited <- err
	}()
	select {
	case err := <-exited:
		return err
	case <-time.After(runGuard):
		t.Fatal("bucma run did not exit")
		return nil
	}
}

var endpointRE = regexp.MustCompile(`endpoint=(tcp://127\.0\.0\.1:[0-9]+)`)

// TestRunTrace: --trace writes one CSV row per job of the simulation (13 in
// hetero4_delays, the rejected one included) under the trace header.
func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	lines := runTranscript(t, "hetero4_delays")
	ep, done, errOut := startRun(t, "--scheduler", "fcfs", "-o", "hosts=first-fit", "--trace", path)
	playBatsim(t, ep, lines)
	if err := waitRun(t, done); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	rows, err := csv.NewReader(mustOpen(t, path)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 14 || strings.Join(rows[0], ",") != strings.Join(sched.TraceColumns, ",") {
		t.Fatalf("trace has %d rows, header %v", len(rows), rows[0])
	}
}

// TestRunCPUProfile: --cpuprofile writes a pprof profile of the whole run;
// an unwritable one is an error naming the flag.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	ep, done, errOut := startRun(t, "--scheduler", "fcfs", "--cpuprofile", path)
	playBatsim(t, ep, runTranscript(t, "hetero4_delays"))
	if err := waitRun(t, done); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is not a gzipped pprof profile (%d bytes)", len(b))
	}
	err, code, msg := runApp(t, "run", "--scheduler", "fcfs", "--cpuprofile", filepath.Join(dir, "no", "such", "cpu.prof"))
	if code != 2 || err == nil || !strings.Contains(err.Error(), "run: --cpuprofile") {
		t.Fatalf("unwritable --cpuprofile: exit %d, %v %q; want 2 naming the flag", code, err, msg)
	}
}

// TestRunTraceUnwritable: a trace file that cannot be created is an error
// before Batsim is contacted.
func TestRunTraceUnwritable(t *testing.T) {
	err, code, _ := runApp(t, "run", "--scheduler", "fcfs", "--trace", filepath.Join(t.TempDir(), "no", "such", "dir", "t.csv"))
	if err == nil || code == 0 || !strings.Contains(err.Error(), "t.csv") {
		t.Fatalf("got %v (exit %d)", err, code)
	}
}

func mustOpen(t *testing.T, path string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// TestRunRefusesMessagesOutOfOrder: a Batsim message that breaks one of
// Batsim's own rules (time order, final states, consistent ids, the
// allocation given, known jobs) or asks for an absurd interval set ends
// "bucma run" with exit status 1 and an error naming the message, the
// event and the rule; that message is answered with batsim.StopReply,
// which makes Batsim write its outputs and stop. Each case starts
// with SIMULATION_BEGINS (4 hosts) and job w0!1 submitted at t=1, which
// FCFS first-fit starts on host 0.
func TestRunRefusesMessagesOutOfOrder(t *testing.T) {
	begin := runTranscript(t, "hetero4_delays")[0].Raw
	submit := `{"now":1,"events":[{"timestamp":1,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","subtime":1,"res":1,"profile":"d5"}}}]}`
	completed := func(alloc, state string) string {
		return `{"now":6,"events":[{"timestamp":6,"type":"JOB_COMPLETED","data":{"job_id":"w0!1","job_state":"` + state + `","return_code":0,"alloc":"` + alloc + `"}}]}`
	}
	unavailable := func(res string) string {
		return `{"now":2,"events":[{"timestamp":2,"type":"NOTIFY","data":{"type":"event_machine_unavailable","resources":"` + res + `"}}]}`
	}
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"now goes back", `{"now":0.5,"events":[]}`, []string{"now=0.5 is earlier than the previous message's now=1"}},
		{"decreasing timestamps", `{"now":3,"events":[{"timestamp":2,"type":"REQUESTED_CALL","data":{}},{"timestamp":1.5,"type":"REQUESTED_CALL","data":{}}]}`,
			[]string{"event 1 (REQUESTED_CALL)", "timestamp 1.5 is earlier than the previous event's 2"}},
		{"event after now", `{"now":2,"events":[{"timestamp":3,"type":"REQUESTED_CALL","data":{}}]}`, []string{"event 0 (REQUESTED_CALL)", "timestamp 3 is later than now=2"}},
		{"completed elsewhere", completed("3", "COMPLETED_SUCCESSFULLY"), []string{"event 0 (JOB_COMPLETED)", `alloc "3" differs from the allocation the job was started on ("0")`}},
		{"unknown job_state", completed("0", "DONE"), []string{"event 0 (JOB_COMPLETED)", `job_state "DONE" is not a final state`}},
		{"job_id differs from job.id", `{"now":2,"events":[{"timestamp":2,"type":"JOB_SUBMITTED","data":{"job_id":"w0!2","job":{"id":"w0!3","subtime":1,"res":1,"profile":"d5"}}}]}`,
			[]string{"event 0 (JOB_SUBMITTED)", `job_id "w0!2" differs from the job's id "w0!3"`}},
		{"killed unknown job", `{"now":2,"events":[{"timestamp":2,"type":"JOB_KILLED","data":{"job_ids":["w0!7"],"job_progress":{}}}]}`,
			[]string{"event 0 (JOB_KILLED)", "job w0!7 was never submitted"}},
		{"largest int as a resource", unavailable("9223372036854775807"), []string{"event 0 (NOTIFY)", `"9223372036854775807" is above the largest resource id`}},
		{"interval up to the largest int", unavailable("0-9223372036854775807"), []string{"event 0 (NOTIFY)", `interval set "0-9223372036854775807"`}},
		{"negative now", `{"now":-1,"events":[]}`, []string{"now=-1 is negative"}},
		{"negative walltime", `{"now":2,"events":[{"timestamp":2,"type":"JOB_SUBMITTED","data":{"job_id":"w0!2","job":{"id":"w0!2","subtime":2,"res":1,"walltime":-5,"profile":"d5"}}}]}`,
			[]string{"event 0 (JOB_SUBMITTED)", "walltime -5 is neither -1 (none) nor positive"}},
		{"zero walltime", `{"now":2,"events":[{"timestamp":2,"type":"JOB_SUBMITTED","data":{"job_id":"w0!2","job":{"id":"w0!2","subtime":2,"res":1,"walltime":0,"profile":"d5"}}}]}`,
			[]string{"event 0 (JOB_SUBMITTED)", "walltime 0 is neither -1 (none) nor positive"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep, done, errOut := startRun(t, "--scheduler", "fcfs", "-o", "hosts=first-fit")
			replies, last := sendToRun(t, ep, []string{begin, submit, c.msg})
			err := waitRun(t, done)
			if len(replies) != 2 || !strings.Contains(string(replies[1]), `"alloc":"0"`) {
				t.Fatalf("replies before the bad message: %q", replies)
			}
			checkStopReply(t, last())
			if code := exitCode(err); code != 1 {
				t.Fatalf("exit code %d (%v), want 1\n%s", code, err, errOut)
			}
			for _, w := range append([]string{"message 3 from Batsim"}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// checkStopReply checks that reply is batsim.StopReply.
func checkStopReply(t *testing.T, reply []byte) {
	t.Helper()
	var r struct {
		Now    float64
		Events []struct {
			Type string
			Data map[string]string
		}
	}
	if err := json.Unmarshal(reply, &r); err != nil || len(r.Events) != 1 || r.Events[0].Type != batsim.TypeSetResourceState ||
		!strings.HasPrefix(r.Events[0].Data["resources"], "bucma_stopped_on_an_error") || string(batsim.StopReply(r.Now)) != string(reply) {
		t.Fatalf("the bad message was answered %q, want batsim.StopReply", reply)
	}
}

// TestRunRefusesInconsistentBegins: a SIMULATION_BEGINS whose resource
// counts disagree with its lists (or that has none) stops "bucma run" with
// exit status 1 and an error naming them, answered with StopReply.
func TestRunRefusesInconsistentBegins(t *testing.T) {
	begin := runTranscript(t, "hetero4_delays")[0].Raw
	for _, c := range []struct{ name, old, new, want string }{
		{"nb_resources too large", `"nb_resources":4`, `"nb_resources":2147483647`, "nb_resources is 2147483647, not nb_compute_resources + nb_storage_resources = 4"},
		{"nb_compute_resources disagrees", `"nb_compute_resources":4`, `"nb_compute_resources":2`, "nb_compute_resources is 2 but compute_resources lists 4"},
		{"no nb_resources", `"nb_resources":4,`, ``, `"nb_resources" is missing`},
		{"negative nb_storage_resources", `"nb_storage_resources":0`, `"nb_storage_resources":-3`, `"nb_storage_resources" is missing or negative (-3)`},
		{"a storage resource not counted", `"storage_resources":[]`, `"storage_resources":[{"id":4,"name":"s","state":"idle","properties":{},"zone_properties":{}}]`, "nb_storage_resources is 0 but storage_resources lists 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(begin, c.old) {
				t.Fatalf("SIMULATION_BEGINS lacks %s", c.old)
			}
			ep, done, errOut := startRun(t, "--scheduler", "easy")
			_, last := sendToRun(t, ep, []string{strings.Replace(begin, c.old, c.new, 1)})
			err := waitRun(t, done)
			checkStopReply(t, last())
			if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "event 0 (SIMULATION_BEGINS)") {
				t.Fatalf("exit code %d (%v), want 1 and %q\n%s", code, err, c.want, errOut)
			}
		})
	}
}

// sendToRun sends msgs in turn over a REQ socket and returns the replies to
// all but the last; last returns (once "bucma run" has returned) the reply
// to the last, nil if none.
func sendToRun(t *testing.T, endpoint string, msgs []string) (replies [][]byte, last func() []byte) {
	t.Helper()
	c := dialBatsim(t, endpoint)
	for _, m := range msgs[:len(msgs)-1] {
		replies = append(replies, request(t, c, m))
	}
	if err := c.Send([]byte(msgs[len(msgs)-1])); err != nil {
		t.Fatal(err)
	}
	return replies, func() []byte {
		// The reply, sent before "bucma run" returned, may still be on
		// its way through libzmq's I/O thread.
		c.Timeout = 5 * time.Second
		reply, err := c.Receive()
		if err != nil {
			return nil
		}
		return reply
	}
}

// TestRunTraceKeptOnFailure: a run that fails keeps the decision trace
// rows it wrote as FILE.partial, says so, and leaves FILE, the trace of an
// earlier run, as it was.
func TestRunTraceKeptOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(path, []byte("previous run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, l := range runTranscript(t, "hetero4_delays") {
		if l.FromBatsim() && l.Seq <= 14 {
			msgs = append(msgs, l.Raw)
		}
	}
	ep, done, errOut := startRun(t, "--scheduler", "fcfs", "-o", "hosts=first-fit", "--trace", path)
	sendToRun(t, ep, append(msgs, `{"now":1,"events":[]}`))
	err := waitRun(t, done)
	if code := exitCode(err); code != 1 || !strings.Contains(err.Error(), "the rows written before the failure are in "+path+".partial") {
		t.Fatalf("exit %d: %v\n%s", code, err, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != "previous run\n" {
		t.Errorf("the failed run changed %s: %q", path, got)
	}
	rows, err := csv.NewReader(mustOpen(t, path+".partial")).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Rejected job 4 and the completed jobs 2, 10 and 1.
	if len(rows) != 5 || strings.Join(rows[0], ",") != strings.Join(sched.TraceColumns, ",") {
		t.Fatalf("partial trace: %v", rows)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 2 {
		t.Errorf("directory holds %d files, want the trace and its partial rows", len(ents))
	}
}

// A signal ends the process at once when no command handles it; a command
// that handles it has the grace to stop, and a second signal ends it at
// once.
func TestWatchInterrupts(t *testing.T) {
	for _, c := range []struct {
		name     string
		handling bool
		signals  int
		want     string
	}{
		{"unhandled", false, 1, "bucma: interrupted"},
		{"handled, grace over", true, 1, "bucma: interrupted (the command had not stopped 50ms after the signal)"},
		{"handled, second signal", true, 2, "bucma: interrupted"},
	} {
		sigs := make(chan os.Signal, 2)
		got := make(chan string, 1)
		start := time.Now()
		go watchInterrupts(sigs, func() bool { return c.handling }, 50*time.Millisecond, func(msg string) { got <- msg })
		for i := 0; i < c.signals; i++ {
			sigs <- syscall.SIGTERM
		}
		select {
		case msg := <-got:
			if msg != c.want {
				t.Errorf("%s: %q, want %q", c.name, msg, c.want)
			}
			if c.handling && c.signals == 1 && time.Since(start) < 50*time.Millisecond {
				t.Errorf("%s: ended before the grace", c.name)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: never ended", c.name)
		}
	}
}
