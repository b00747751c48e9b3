package check

import (
	"context"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestListensOn: a port is the process's only when the process (or one it
// started) listens on it; another program listening on the port the
// process was given is not taken for it, so that a check never talks to
// another program's decision process.
func TestListensOn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listening sockets are read from Linux's /proc")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if got, known := listensOn(os.Getpid(), port); !got || !known {
		t.Fatalf("this process listens on %d: listensOn says %v (known %v)", port, got, known)
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	if got, known := listensOn(sleeper.Process.Pid, port); got || !known {
		t.Fatalf("sleep does not listen on %d: listensOn says %v (known %v)", port, got, known)
	}
	// This process is sleep's parent, not one of its descendants.
	if d := descendants(sleeper.Process.Pid); len(d) != 1 || d[0] != sleeper.Process.Pid {
		t.Errorf("descendants of sleep: %v", d)
	}
}

// TestStartPortTaken: a process given a port another program listens on
// fails to bind it; Start does not connect to the other program but says
// how the process ended, and retries on another port when the process
// said its address was in use.
func TestStartPortTaken(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listening sockets are read from Linux's /proc")
	}
	// A process that exits at once without listening.
	c := Command{Argv: []string{"sh", "-c", "echo cannot bind " + Placeholder + "; exit 3"}}
	_, err := c.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "before listening") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Start: %v, want the process's exit before listening", err)
	}
	// One that says its address is in use twice, then listens (a shell
	// counts its attempts in a file).
	count := t.TempDir() + "/attempts"
	script := `n=$(cat ` + count + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + count + `
if [ $n -lt 3 ]; then echo "Address already in use"; exit 1; fi
exec python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1].rsplit(":",1)[1]))); s.listen(); time.sleep(30)' ` + Placeholder
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 listens in this test")
	}
	c = Command{Argv: []string{"sh", "-c", script}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.Start(ctx)
	if err != nil {
		t.Fatalf("Start after two ports taken: %v", err)
	}
	_ = st.cmd.Process.Kill()
	st.Stop()
	if b, _ := os.ReadFile(count); strings.TrimSpace(string(b)) != "3" {
		t.Errorf("attempts: %q, want 3", b)
	}
}

// TestFreeEndpointBelowEphemeral: FreeEndpoint's ports are not among those
// the system hands out to binds to port 0.
func TestFreeEndpointBelowEphemeral(t *testing.T) {
	low := ephemeralLow()
	if low-freeLow < 1000 {
		t.Skip("no room below the system's ephemeral ports")
	}
	for range 20 {
		ep, err := FreeEndpoint()
		if err != nil {
			t.Fatal(err)
		}
		port, err := endpointPort(ep)
		if err != nil || port < freeLow || port >= low {
			t.Fatalf("FreeEndpoint: %s (%v), want a port in [%d, %d)", ep, err, freeLow, low)
		}
	}
}
