// Package zmq serves a scheduler to Batsim over ZeroMQ: the REP loop
// (Serve, Listen) that answers each Batsim message with a batsim.Handler's
// reply, with a native ZMTP 3.0 transport for tcp:// endpoints and libzmq
// for the others, the REQ client that plays Batsim's side (Client, Remote),
// and endpoint checks. It is the only package of bucma that links libzmq,
// through cgo (libzmq.go); a build without cgo (CGO_ENABLED=0) has the
// native transport only (nolibzmq.go): tcp:// endpoints, served and
// reached by bucma's own ZMTP code, and a clear error for the others.
// HasLibzmq and Transports tell which build this is.
package zmq
