//go:build unix

package cli

import "golang.org/x/sys/unix"

// outputGone reports whether the process's standard output or error is a
// pipe (or socket) whose reader is gone: what a SIGPIPE means for the
// command ("bucma simulate ... | head -1"), rather than a peer that closed
// one of the command's own connections.
func outputGone() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
