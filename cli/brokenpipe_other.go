//go:build !unix

package cli

// outputGone reports whether the process's standard output or error is a
// pipe whose reader is gone; without poll(2), it never says so.
func outputGone() bool { return false }
