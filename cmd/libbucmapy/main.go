// Command libbucmapy is the C shared library under bucma's Python package
// (python/): bucma's runs stepped by their caller (package run/pull), one
// decision point at a time, behind a C interface of handles that Python's
// ctypes calls:
//
//	go build -buildmode=c-shared -o python/bucma/libbucmapy.so ./cmd/libbucmapy
//
// (make python). It is a library of its own, beside cmd/libbucma (the
// Batsim 5 decision component, whose C interface is Batsim's): a process
// may hold many runs of this one at once, each a handle, and a process
// holds one Go runtime, so the two libraries are not loaded into one
// process.
//
// Every function returns a status: 0 or more on success (a point's kind
// for bucmapy_next, a count for bucmapy_start), -1 on failure with *err
// set to a JSON object {"kind", "message", "partial"} in C memory that
// the caller frees with bucmapy_free. No failure of the Go side crashes
// the caller: a panic is recovered into kind "internal". Buffers the
// library returns (a point, a job's description, a result) stay valid
// until the next call on the same handle.
//
// A run of the embedded engine is a coroutine of the thread that created
// it: it is stepped and closed from that thread only (another thread's
// call is refused with kind "usage"); a server's or a task's run may be
// stepped from any thread, one call at a time.
package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static __thread uint64_t bucmapy_thread_token;
static uint64_t bucmapy_tokens;

// bucmapy_token names the calling thread: a number no other thread of
// the process has had.
static uint64_t bucmapy_token(void) {
	if (!bucmapy_thread_token)
		bucmapy_thread_token = __atomic_add_fetch(&bucmapy_tokens, 1, __ATOMIC_RELAXED);
	return bucmapy_thread_token;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"unsafe"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/run/pull"
	"github.com/bucma-sched/bucma/sched"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {}

// handle is a run and the C memory it hands out.
type handle struct {
	mu      sync.Mutex
	run     *pull.Run
	token   C.uint64_t // the creating thread (coroutine runs)
	pinned  bool       // the run is a coroutine of that thread
	buf     unsafe.Pointer
	cap     int
	logs    *logBuffer
	scratch []byte
	closed  bool
}

var (
	tableMu sync.Mutex
	table   = map[int64]*handle{}
	nextID  int64
)

func lookup(id C.int64_t) (*handle, error) {
	tableMu.Lock()
	defer tableMu.Unlock()
	h, ok := table[int64(id)]
	if !ok {
		return nil, &pull.UsageError{Msg: fmt.Sprintf("no run has handle %d (closed, or never opened)", int64(id))}
	}
	return h, nil
}

// enter locks h for a call from the current thread: a coroutine run
// refuses another thread than its own.
func (h *handle) enter() error {
	h.mu.Lock()
	if h.pinned && C.bucmapy_token() != h.token {
		h.mu.Unlock()
		return &pull.UsageError{Msg: "this simulation runs on the thread that created it: step it, decide in it and close it from that thread"}
	}
	if h.closed {
		h.mu.Unlock()
		return &pull.UsageError{Msg: "the run is closed"}
	}
	return nil
}

// hand copies b into the handle's C buffer and points *data and *size to
// it.
func (h *handle) hand(b []byte, data **C.uint8_t, size *C.int64_t) {
	if len(b) > h.cap {
		c := max(len(b), 2*h.cap, 4096)
		h.buf = C.realloc(h.buf, C.size_t(c))
		if h.buf == nil {
			panic("out of memory")
		}
		h.cap = c
	}
	if len(b) > 0 {
		C.memcpy(h.buf, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	*data = (*C.uint8_t)(h.buf)
	*size = C.int64_t(len(b))
}

func (h *handle) release() {
	if h.buf != nil {
		C.free(h.buf)
		h.buf, h.cap = nil, 0
	}
}

// failure is an error as the caller reads it.
type failure struct {
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Partial []string `json:"partial,omitempty"`
}

// kindOf classifies err for the caller's exceptions.
func kindOf(err error) string {
	var oe *sched.OptionError
	var um *run.UnmodelledError
	var de *pull.DecisionError
	var ue *pull.UsageError
	switch {
	case errors.As(err, &ue):
		return "usage"
	case errors.As(err, &de):
		return "decision"
	case errors.As(err, &um):
		return "unmodelled"
	case errors.As(err, &oe):
		return "option"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return "error"
}

// fail sets *out to err as JSON in C memory and returns -1.
func fail(err error, out **C.char) C.int32_t {
	f := failure{Kind: kindOf(err), Message: err.Error()}
	var re *run.Error
	if errors.As(err, &re) {
		f.Message = re.Err.Error()
		for _, p := range re.Partial {
			if p != "" {
				f.Partial = append(f.Partial, p)
			}
		}
	}
	return failJSON(f, out)
}

func failJSON(f failure, out **C.char) C.int32_t {
	if out != nil {
		b, _ := json.Marshal(f)
		*out = C.CString(string(b))
	}
	return -1
}

// guard recovers a panic of the Go side into a failure (kind internal).
func guard(status *C.int32_t, out **C.char) {
	if p := recover(); p != nil {
		*status = failJSON(failure{Kind: "internal", Message: fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())}, out)
	}
}

func goBytes(p *C.char, n C.int64_t) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n))
}

//export bucmapy_version
func bucmapy_version() *C.char { return C.CString(version) }

//export bucmapy_free
func bucmapy_free(p unsafe.Pointer) { C.free(p) }

// bucmapy_new builds a run from its configuration (pull.Config, JSON) and
// sets *id to its handle.
//
//export bucmapy_new
func bucmapy_new(cfg *C.char, n C.int64_t, id *C.int64_t, err **C.char) (status C.int32_t) {
	defer guard(&status, err)
	c, e := pull.Parse(goBytes(cfg, n))
	if e != nil {
		return fail(e, err)
	}
	logs := newLogBuffer(c.Verbose)
	r, e := pull.New(c, policies.Builtin(), logs.logger())
	if e != nil {
		return fail(e, err)
	}
	return register(r, logs, c.Mode == "" || c.Mode == "simulate", id)
}

// register adds r to the table; pinned runs are the calling thread's.
func register(r *pull.Run, logs *logBuffer, pinned bool, id *C.int64_t) C.int32_t {
	h := &handle{run: r, pinned: pinned, token: C.bucmapy_token(), logs: logs}
	tableMu.Lock()
	nextID++
	table[nextID] = h
	*id = C.int64_t(nextID)
	tableMu.Unlock()
	return 0
}

// bucmapy_next runs until the next point: its kind (pull.Kind), the point
// in *point. Done's failure is the run's outcome.
//
//export bucmapy_next
func bucmapy_next(id C.int64_t, point **C.uint8_t, size *C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		k, e := h.run.Next()
		if e != nil {
			return 0, e
		}
		if k == pull.Running || k == pull.Done {
			*size = 0
		} else {
			h.hand(h.run.Point(), point, size)
		}
		return int(k), nil
	})
}

// call runs f on the run of handle id, as a call of the caller's thread:
// f's number is the status.
func call(id C.int64_t, err **C.char, f func(h *handle) (int, error)) (status C.int32_t) {
	defer guard(&status, err)
	h, e := lookup(id)
	if e == nil {
		e = h.enter()
	}
	if e != nil {
		return fail(e, err)
	}
	defer h.mu.Unlock()
	n, e := f(h)
	if e != nil {
		return fail(e, err)
	}
	return C.int32_t(n)
}

// done is a call's outcome without a number.
func done(e error) (int, error) { return 0, e }

//export bucmapy_set_keys
func bucmapy_set_keys(id C.int64_t, keys *C.double, n C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		var ks []float64
		if n > 0 {
			ks = unsafe.Slice((*float64)(unsafe.Pointer(keys)), int(n))
		}
		return done(h.run.SetKeys(ks))
	})
}

// bucmapy_start starts job on hosts (nhosts < 0: the policy's selection)
// and writes into out (capacity int32s): the free hosts, the job's host
// count, then its hosts; the status is the number of int32s written.
//
//export bucmapy_start
func bucmapy_start(id C.int64_t, job C.int64_t, hosts *C.int32_t, nhosts C.int64_t, out *C.int32_t, capacity C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		var hs []int
		if nhosts >= 0 {
			hs = make([]int, nhosts)
			for i, v := range unsafe.Slice((*int32)(unsafe.Pointer(hosts)), int(nhosts)) {
				hs[i] = int(v)
			}
		}
		alloc, e := h.run.Start(int64(job), hs)
		if e != nil {
			return 0, e
		}
		dst := unsafe.Slice((*int32)(unsafe.Pointer(out)), int(capacity))
		need := 2 + len(alloc)
		if need > len(dst) {
			return 0, fmt.Errorf("the output buffer holds %d values, %d are needed", len(dst), need)
		}
		dst[0], dst[1] = int32(h.run.Free()), int32(len(alloc))
		for i, a := range alloc {
			dst[2+i] = int32(a)
		}
		return need, nil
	})
}

//export bucmapy_reject
func bucmapy_reject(id C.int64_t, job C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) { return done(h.run.Reject(int64(job))) })
}

//export bucmapy_kill
func bucmapy_kill(id C.int64_t, jobs *C.int64_t, n C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		var idx []int64
		if n > 0 {
			idx = append(idx, unsafe.Slice((*int64)(unsafe.Pointer(jobs)), int(n))...)
		}
		return done(h.run.Kill(idx))
	})
}

//export bucmapy_call_me_later
func bucmapy_call_me_later(id C.int64_t, at C.double, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) { return done(h.run.CallMeLater(float64(at))) })
}

//export bucmapy_reservation
func bucmapy_reservation(id C.int64_t, need C.int64_t, shadow *C.double, extra *C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		s, x, e := h.run.Reservation(int(need))
		*shadow, *extra = C.double(s), C.int64_t(x)
		return done(e)
	})
}

// handOut hands b out (a run's buffer), or fails with e.
func handOut(h *handle, b []byte, e error, data **C.uint8_t, size *C.int64_t) (int, error) {
	if e == nil {
		h.hand(b, data, size)
	}
	return done(e)
}

//export bucmapy_job_json
func bucmapy_job_json(id C.int64_t, job C.int64_t, data **C.uint8_t, size *C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		b, e := h.run.JobJSON(int64(job))
		return handOut(h, b, e, data, size)
	})
}

// bucmapy_hosts gives the record of every host now (pull.HostSize bytes
// each), at a decide or keys point.
//
//export bucmapy_hosts
func bucmapy_hosts(id C.int64_t, data **C.uint8_t, size *C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		h.scratch = h.run.AppendHosts(h.scratch[:0])
		return handOut(h, h.scratch, nil, data, size)
	})
}

// bucmapy_result is the run's result (JSON, "null" before its end or for
// a server), with its warnings ("logs").
//
//export bucmapy_result
func bucmapy_result(id C.int64_t, data **C.uint8_t, size *C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		res, e := h.run.ResultJSON()
		if e != nil {
			return 0, e
		}
		b, e := json.Marshal(map[string]any{"result": json.RawMessage(res), "logs": h.logs.lines()})
		return handOut(h, b, e, data, size)
	})
}

// bucmapy_close stops the run if it has not ended (cause, when given, is
// why: the caller's policy failed) and forgets the handle; the status is
// the run's outcome (a failure, or 0; a run closed without a cause before
// its end ended well as far as its caller goes).
//
//export bucmapy_close
func bucmapy_close(id C.int64_t, cause *C.char, n C.int64_t, err **C.char) C.int32_t {
	return call(id, err, func(h *handle) (int, error) {
		var c error
		if b := goBytes(cause, n); b != nil {
			c = errors.New(string(b))
		}
		outcome := h.run.Close(c)
		h.closed = true
		h.release()
		tableMu.Lock()
		delete(table, int64(id))
		tableMu.Unlock()
		if c == nil && errors.Is(outcome, pull.ErrClosed) {
			return 0, nil
		}
		return done(outcome)
	})
}
