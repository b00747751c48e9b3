// Package zmq serves a scheduler to Batsim over ZeroMQ: the REP loop
// (Serve, Listen) that answers each Batsim message with a batsim.Handler's
// reply, with a native ZMTP 3.0 transport for tcp:// endpoints and libzmq
// for the others, the REQ client that plays Batsim's side (Client, Remote),
// and endpoint checks. It is the only package of bucma that links libzmq
// (cgo).
package zmq
