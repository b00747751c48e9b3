package check

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A free port (FreeEndpoint) is free when it is picked, not when the
// process binds it: another program may bind it in between, and then the
// process fails to bind while a connection to the port reaches the other
// program (another check's process, which would then get this run's
// messages). Where the system says which process listens on which port
// (Linux's /proc), the connection is therefore made only once a process
// started here listens on the port.

// listenPoll is how often the listening sockets are looked at.
const listenPoll = 10 * time.Millisecond

// awaitListening waits until a process of s's tree (the process or one it
// started) listens on s's port. It returns nil then, and when that cannot
// be known (no /proc) or wait passed (the connection's own bound then
// applies); an error when the process exited first or ctx ended.
func (s *Spawned) awaitListening(ctx context.Context, wait time.Duration) error {
	port, err := endpointPort(s.Endpoint)
	if err != nil {
		return nil
	}
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(listenPoll)
	defer tick.Stop()
	for {
		listening, known := listensOn(s.cmd.Process.Pid, port)
		if listening || !known || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-s.exited:
			if n := s.exitNote(); n != "" {
				return fmt.Errorf("the process exited (%s) before listening on %s", n, s.Endpoint)
			}
			return fmt.Errorf("the process exited (status 0) before listening on %s", s.Endpoint)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// addressInUse reports whether the exited process said its port was taken.
func (s *Spawned) addressInUse() bool {
	select {
	case <-s.exited:
		return strings.Contains(strings.ToLower(s.out.String()), "address already in use")
	default:
		return false
	}
}

// endpointPort is the port of a tcp:// endpoint.
func endpointPort(ep string) (int, error) {
	i := strings.LastIndexByte(ep, ':')
	if !strings.HasPrefix(ep, "tcp://") || i < 0 {
		return 0, fmt.Errorf("%q is not a tcp:// endpoint", ep)
	}
	return strconv.Atoi(ep[i+1:])
}

// listensOn reports whether process pid or one of its descendants has a
// TCP socket listening on port; known is false where /proc does not say.
func listensOn(pid, port int) (listening, known bool) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		found, err := listeningInodes(f, port)
		if err != nil {
			continue
		}
		known = true
		for _, in := range found {
			inodes[in] = true
		}
	}
	if !known || len(inodes) == 0 {
		return false, known
	}
	for _, p := range descendants(pid) {
		fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(p), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(p), "fd", fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return true, true
			}
		}
	}
	return false, true
}

// listeningInodes are the inodes of the sockets of table file (/proc/net/tcp's
// format) that listen on port.
func listeningInodes(file string, port int) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != "0A" || !strings.HasSuffix(fs[1], want) {
			continue
		}
		out = append(out, fs[9])
	}
	return out, sc.Err()
}

// descendants are pid and the processes it started, at any depth.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(s[i+1:])
		if len(fs) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(fs[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
