package zmq

import "time"

// SetHandshakeWait sets how long a connection may stay silent before its
// greeting, for a test; the returned function restores it.
func SetHandshakeWait(d time.Duration) (restore func()) {
	old := handshakeWait
	handshakeWait = d
	return func() { handshakeWait = old }
}
