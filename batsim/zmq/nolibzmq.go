//go:build !cgo

package zmq

import (
	"context"
	"time"
)

// HasLibzmq tells whether this build links libzmq (through cgo). This one
// does not (it was built with CGO_ENABLED=0): tcp:// endpoints are served
// and reached by bucma's own ZMTP 3.0; ipc://, inproc://, a tcp:// host
// given as an interface name, and TransportLibzmq are refused.
const HasLibzmq = false

// Transports describes the transports of this build, for --version.
func Transports() string {
	return "native ZMTP 3.0 (tcp:// only; built without cgo, so without libzmq: no ipc:// or other endpoints, no --transport libzmq)"
}

// libzmqRep stands for libzmq's REP socket, which this build cannot make.
type libzmqRep struct{}

func listenLibzmq(endpoint, transport string) (*libzmqRep, string, error) {
	return nil, "", errNoLibzmq(endpoint, transport)
}

func (*libzmqRep) close(time.Duration) error { return nil }

func (*libzmqRep) serve(context.Context, *Listener, func([]byte) ([]byte, bool, error)) (bool, error) {
	return false, errNoLibzmq("", TransportLibzmq)
}

func dialLibzmq(endpoint string) (reqConn, error) {
	return nil, errNoLibzmq(endpoint, TransportLibzmq)
}
