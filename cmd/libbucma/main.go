// Command libbucma is bucma as a Batsim 5 external decision component in
// the form of a shared library, which Batsim loads and calls in its own
// process, without sockets:
//
//	go build -buildmode=c-shared -o libbucma.so ./cmd/libbucma
//	batsim5 -p platform.xml -w workload.json -l ./libbucma.so '{"policy": "easy", "options": {"hosts": "first-fit"}}'
//
// A C shared library needs cgo by nature (a C compiler, CGO_ENABLED=1):
// with CGO_ENABLED=0 the go command finds no file to build here ("build
// constraints exclude all Go files"), while the bucma command builds
// without cgo.
//
// It exports Batsim's C interface (test/edc-lib/batsim_edc.h):
// batsim_edc_init, batsim_edc_take_decisions and batsim_edc_deinit, C
// functions (trampoline.c) that hand each call to one worker thread, which
// runs bucmaInit, bucmaTakeDecisions and bucmaDeinit below. Messages
// are batprotocol's JSON form (the init answers with the JSON flag). The
// init string is package edc's, read as bucma run reads it (run.Resolve): a
// policy, its options, "validate" and "verbose" (warnings only by default,
// on standard error).
//
// Limits: the library carries a Go runtime, and a process holds one. One
// bucma decision component runs at a time per Batsim process (a second
// batsim_edc_init before batsim_edc_deinit fails), and loading two copies of
// the library (two paths) into one process is not supported. Batsim's
// default loading method (dlopen) is the one to use. The decisions buffer
// lives in C memory until the next call or batsim_edc_deinit, as
// batsim_edc.h asks. A fault of Batsim's own code ends Batsim as it would
// without the library (signals.c).
package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"unsafe"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/bridge"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0"

// component is the decision component the library serves: bucma's own
// (a policy's session behind package v5's adapter) or a bridge to a
// Batsim 4 decision process (package batsim/bridge).
type component interface {
	Take(msg []byte) (reply []byte, done bool, err error)
	Close() error
}

// own is bucma's own decision component.
type own struct{ *v5.EDC }

func (own) Close() error { return nil }

// The library's state: Batsim calls it from one thread, one call at a time;
// the mutex keeps a misbehaving caller from corrupting it.
var (
	mu      sync.Mutex
	current component
	buffer  unsafe.Pointer // the last buffer handed to Batsim (C memory)
)

func main() {}

// fail reports err on standard error (Batsim's log) and returns Batsim's
// failure status.
func fail(err error) C.uint8_t {
	fmt.Fprintln(os.Stderr, "libbucma:", err)
	return 1
}

// handOver copies b, NUL-terminated, into C memory that stays valid until
// the next call, frees the previous buffer and returns the new one.
func handOver(b []byte, data **C.uint8_t, size *C.uint32_t) {
	release()
	p := C.malloc(C.size_t(len(b) + 1))
	if len(b) > 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	*(*byte)(unsafe.Add(p, len(b))) = 0
	buffer = p
	*data = (*C.uint8_t)(p)
	*size = C.uint32_t(len(b) + 1)
}

func release() {
	if buffer != nil {
		C.free(buffer)
		buffer = nil
	}
}

// recovered turns a panic into a failure status, so that a bug never takes
// Batsim's process down without a word.
func recovered(status *C.uint8_t) {
	if r := recover(); r != nil {
		*status = fail(fmt.Errorf("internal error: %v", r))
	}
}

//export bucmaInit
func bucmaInit(initData *C.uint8_t, initSize C.uint32_t, flags *C.uint32_t, replyData **C.uint8_t, replySize *C.uint32_t) (status C.uint8_t) {
	defer recovered(&status)
	mu.Lock()
	defer mu.Unlock()
	if current != nil {
		return fail(fmt.Errorf("batsim_edc_init: a bucma decision component already runs in this process (one per process: the library holds one Go runtime)"))
	}
	var init []byte
	if initSize > 0 && initData != nil {
		init = C.GoBytes(unsafe.Pointer(initData), C.int(initSize))
	}
	if bridge.IsInit(init) {
		return startBridge(init, flags, replyData, replySize)
	}
	// The init string is read as bucma run reads it (run.Resolve), without
	// a command line: it names the policy.
	st, err := run.Resolve(init, policies.Builtin(), run.Defaults{})
	if err != nil {
		return fail(err)
	}
	level := slog.LevelWarn
	if st.Init.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	e, err := run.Start(st, version, false, log)
	if err != nil {
		return fail(err)
	}
	if st.Init.Verbose {
		e.Observe = func(d batsim.Direction, raw []byte) { log.Debug("message", "dir", d.String(), "raw", string(raw)) }
	}
	*flags = C.uint32_t(v5.FormatJSON)
	current = own{e}
	handOver(e.Hello(), replyData, replySize)
	return 0
}

// startBridge starts a bridge to the Batsim 4 decision process its init
// string names. A decision of the process that Batsim 5 cannot express,
// or an error of the process, makes the bridge ask Batsim to stop the
// simulation (as over ZeroMQ); the process is told the end.
func startBridge(init []byte, flags *C.uint32_t, replyData **C.uint8_t, replySize *C.uint32_t) C.uint8_t {
	in, err := bridge.ParseInit(init)
	if err != nil {
		return fail(err)
	}
	level := slog.LevelWarn
	if in.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	c, err := bridge.Start(context.Background(), init, bridge.Config{Version: version, Log: log})
	if err != nil {
		return fail(err)
	}
	*flags = C.uint32_t(v5.FormatJSON)
	current = c
	handOver(c.Hello(), replyData, replySize)
	return 0
}

//export bucmaTakeDecisions
func bucmaTakeDecisions(what *C.uint8_t, whatSize C.uint32_t, decisions **C.uint8_t, decisionsSize *C.uint32_t) (status C.uint8_t) {
	defer recovered(&status)
	mu.Lock()
	defer mu.Unlock()
	if current == nil {
		return fail(fmt.Errorf("batsim_edc_take_decisions before batsim_edc_init"))
	}
	var msg []byte
	if what != nil {
		if whatSize > 0 {
			msg = C.GoBytes(unsafe.Pointer(what), C.int(whatSize))
		} else {
			msg = []byte(C.GoString((*C.char)(unsafe.Pointer(what))))
		}
	}
	out, _, err := current.Take(msg)
	if err != nil {
		return fail(err)
	}
	handOver(out, decisions, decisionsSize)
	return 0
}

//export bucmaDeinit
func bucmaDeinit() (status C.uint8_t) {
	defer recovered(&status)
	mu.Lock()
	defer mu.Unlock()
	release()
	var err error
	if current != nil {
		err = current.Close()
	}
	current = nil
	if err != nil {
		return fail(err)
	}
	return 0
}
